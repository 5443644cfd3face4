"""The commands the README and the documentation site show, found and run as a reader would.

A page shows commands in two ways:

* ```` ```console ```` (or a plain ```` ``` ````) blocks hold sessions: a `$ ` line is a
  command, the lines after it (to the next `$ ` line or the end of the block) the output the
  page claims. A `...` line marks where the page trims the output.
* ```` ```bash ```` / ```` ```sh ```` blocks hold commands without output: every line (a
  trailing `\\` continues it) that is not a comment; `a && b` is two commands.

Each command is one of ``KINDS``: `kschedx` commands (also piped, `sed … | kschedx check -`)
run for real; `python tools/…` commands run for real; `python bench/…` commands are checked
for their options only (a benchmark runs for minutes on 5,000 nodes; their figures are
the Performance page's, measured by hand); the set-up commands (`pip install`, `pytest`,
`mkdocs`) are what `.ci/run` runs. A command that is none of these fails the test, so a
page cannot show a command nobody runs.

A page may show a file whole (``--8<-- "examples/ci/gitlab-ci.yml"`` in a fence,
pymdownx.snippets): every line of it that starts with `kschedx` is a command too.

Commands run through `bash -c` in a scratch folder that links every top-level entry of the
repository (so `examples/…` resolves and `> report.html` lands in the scratch folder), and
holds what the CI examples name (`deploy/`: the example release; `cluster/snapshot.yaml.gz`:
the example cluster), with
the installed `kschedx` first on PATH, `COLUMNS=100` and `NO_COLOR=1`. A page that holds
the comment ``<!-- docs-test: live-cluster DUMP -->`` has its commands run against a local
API server serving DUMP (tests/live/fake_apiserver.py), through a kubeconfig in
``$KUBECONFIG``; other pages run with no kubeconfig at all.

``python -m tests.e2e.docs_sessions --write`` rewrites every shown output that has no `...`
line with what the command prints now (the same width and environment as the test).
"""

from __future__ import annotations

import argparse
import gzip
import os
import re
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PAGES = (REPO / "README.md", *sorted((REPO / "docs").rglob("*.md")))
SNIPPET = re.compile(r'^--8<--\s+"([^"]+)"$')
LIVE_MARK = re.compile(r"<!--\s*docs-test:\s*live-cluster\s+(\S+)\s*-->")

# What a command is, by how it starts (after any VAR=value prefixes).
SETUP = re.compile(r"^(python3? -m (pip|pytest|venv|mkdocs)\b|pip3? install\b|mkdocs\b|\. \S+/activate\b|cd\b|git clone\b)")
KSCHEDX = re.compile(r"(^|\|\s*|\$\()(kschedx|kubectl kschedx)\s")
SHELL_FENCES = ("bash", "sh", "shell")


@dataclass(frozen=True)
class Command:
    page: Path
    line: int  # 1-based line of the command on its page
    text: str
    shown: tuple[str, ...] | None  # the output a console block claims; None for a bash block
    live: str | None = None  # the dump a live-cluster page serves
    source: str | None = None  # FILE:LINE of a command in a file the page includes whole

    @property
    def where(self) -> str:
        at = f"{self.page.relative_to(REPO)}:{self.line}"
        return f"{at}:{self.source}" if self.source else at

    @property
    def kind(self) -> str:
        body = re.sub(r"^(\w+=\S*\s+)+", "", self.text)
        if KSCHEDX.search(body):
            return "kschedx"
        if body.startswith(("python tools/", "python3 tools/")):
            return "tool"
        if body.startswith(("python bench/", "python3 bench/")):
            return "bench"
        if SETUP.match(body):
            return "setup"
        return "unknown"


def commands(pages: tuple[Path, ...] = PAGES) -> list[Command]:
    found: list[Command] = []
    for page in pages:
        text = page.read_text(encoding="utf-8")
        live = LIVE_MARK.search(text)
        found += _commands_of(page, text.splitlines(), live.group(1) if live else None)
    return found


def _commands_of(page: Path, lines: list[str], live: str | None) -> list[Command]:
    found: list[Command] = []
    fence: str | None = None
    current: tuple[int, str] | None = None
    shown: list[str] = []
    pending: tuple[int, str] | None = None  # a bash line continued with a backslash

    def close() -> None:
        nonlocal current, shown
        if current is not None:
            found.append(Command(page, current[0], current[1], tuple(shown), live))
        current, shown = None, []

    for number, raw in enumerate(lines, 1):
        text = raw.strip() if fence in SHELL_FENCES else raw
        if raw.lstrip().startswith("```"):
            if fence is None:
                fence = raw.lstrip()[3:].strip().split(" ")[0]
            else:
                close()
                fence = None
            continue
        snippet = SNIPPET.match(text.strip()) if fence is not None else None
        if snippet:
            # A file the page shows whole (a CI configuration): its kschedx lines are commands.
            found += _commands_of_file(page, number, REPO / snippet.group(1), live)
            continue
        if fence in ("", "console"):
            if text.startswith("$ "):
                close()
                current = (number, text[2:])
            elif current is not None:
                shown.append(text)
        elif fence in SHELL_FENCES:
            if pending is not None:
                start, head = pending
                text = head + " " + text
                number = start
                pending = None
            if not text or text.startswith("#"):
                continue
            if text.endswith("\\"):
                pending = (number, text[:-1].rstrip())
                continue
            # `a && b` is two commands: `pip install . && kschedx explain …` runs the second.
            found += [Command(page, number, part.strip(), None, live) for part in text.split(" && ")]
    return found


def _commands_of_file(page: Path, line: int, path: Path, live: str | None) -> list[Command]:
    found = []
    for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        body = text.strip().removeprefix("- ").strip()
        if body.startswith(("kschedx ", "kubectl kschedx ")):
            found.append(Command(page, line, body, None, live, source=f"{path.relative_to(REPO).as_posix()}:{number}"))
    return found


@dataclass
class Scratch:
    """A folder to run commands in: every top-level entry of the repository linked in."""

    path: Path
    env: dict[str, str] = field(default_factory=dict)


@contextmanager
def scratch() -> Iterator[Scratch]:
    with tempfile.TemporaryDirectory(prefix="kschedx-docs-") as tmp:
        root = Path(tmp)
        for entry in REPO.iterdir():
            if entry.name not in (".git",):
                (root / entry.name).symlink_to(entry)
        # What the CI examples and the CI guide name: an application's deploy/ folder and a
        # snapshot of its cluster committed beside it.
        (root / "deploy").symlink_to(REPO / "examples" / "release-app" / "deploy")
        (root / "cluster").mkdir()
        with gzip.open(root / "cluster" / "snapshot.yaml.gz", "wb") as out:
            out.write((REPO / "examples" / "cluster.yaml").read_bytes())
        bindir = str(Path(sys.executable).parent)
        env = {**os.environ, "PATH": bindir + os.pathsep + os.environ.get("PATH", ""), "COLUMNS": "100", "NO_COLOR": "1"}
        for name in ("KUBECONFIG", "GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY"):
            env.pop(name, None)
        # Without a kubeconfig anywhere, a command that would read a live cluster says so.
        env["HOME"] = str(root / ".home")
        (root / ".home").mkdir()
        yield Scratch(root, env)


@contextmanager
def live_cluster(where: Scratch, dump: str) -> Iterator[dict[str, str]]:
    """A local API server serving DUMP and a kubeconfig for it: the environment to run in."""
    import yaml

    from kschedx.core.load.files import load_objects
    from tests.live.fake_apiserver import FakeAPIServer, make_certs

    # A folder of its own for each server's certificates and kubeconfig: two live pages
    # serve two dumps at once.
    own = Path(tempfile.mkdtemp(prefix="live-", dir=where.path))
    certs = make_certs(own)
    objects = [o for o, _line in load_objects(str(REPO / dump))]
    with FakeAPIServer(objects, certs) as server:
        config = own / "kubeconfig"
        config.write_text(yaml.safe_dump({
            "apiVersion": "v1", "kind": "Config", "current-context": "prod",
            "clusters": [{"name": "prod", "cluster": {"server": server.url, "certificate-authority": str(certs[0])}}],
            "users": [{"name": "reader", "user": {"token": "good-token"}}],
            "contexts": [{"name": "prod", "context": {"cluster": "prod", "user": "reader"}}],
        }))
        yield {**where.env, "KUBECONFIG": str(config)}


def run(command: Command, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    text = command.text
    if command.kind == "bench":
        # The options shown must be options of the script: its --help is read instead of a
        # run of minutes.
        script = shlex.split(text)[1]
        text = f"python {shlex.quote(script)} --help"
    return subprocess.run(["bash", "-c", text], cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, timeout=300)


def collapse(text: str) -> str:
    return " ".join(text.split())


def mismatch(command: Command, output: str) -> str | None:
    """Why the output is not what the page shows (None when it is): the shown parts, in
    order, with `...` lines for what the page trims; whitespace is not compared."""
    actual = collapse(output)
    position = 0
    chunk: list[str] = []
    for text in [*(command.shown or ()), "..."]:
        if text.strip() != "...":
            chunk.append(text)
            continue
        expected = collapse("\n".join(chunk))
        chunk = []
        if not expected:
            continue
        found = actual.find(expected, position)
        if found < 0:
            return (f"{command.where}: shown output is not what `{command.text}` prints now:\n--- shown\n{expected}\n"
                    f"--- actual\n{actual}")
        position = found + len(expected)
    return None


def _write() -> int:
    """Rewrite the full (untrimmed) shown outputs of every page."""
    by_page: dict[Path, list[Command]] = {}
    for command in commands():
        if command.shown is not None and command.kind == "kschedx" and not any(t.strip() == "..." for t in command.shown):
            by_page.setdefault(command.page, []).append(command)
    with scratch() as where:
        for page, page_commands in by_page.items():
            lines = page.read_text(encoding="utf-8").splitlines()
            # From the end, so earlier line numbers stay right.
            for command in sorted(page_commands, key=lambda c: -c.line):
                if command.live:
                    with live_cluster(where, command.live) as env:
                        output = run(command, env, where.path).stdout
                else:
                    output = run(command, where.env, where.path).stdout
                start = command.line  # index of the first output line
                end = start + len(command.shown or ())
                lines[start:end] = [line.rstrip() for line in output.rstrip("\n").splitlines()]
            page.write_text("\n".join(lines) + "\n", encoding="utf-8")
            print(f"rewrote {len(page_commands)} output(s) in {page.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="The commands of the README and the site.")
    parser.add_argument("--write", action="store_true", help="rewrite the untrimmed shown outputs")
    parser.add_argument("--list", action="store_true", help="list every command and its kind")
    args = parser.parse_args()
    if args.write:
        sys.exit(_write())
    for c in commands():
        print(f"{c.where}\t{c.kind}\t{c.text}")

"""The README's shown sessions run as written and still print what it shows.

Every `$ ` line that runs kschedx inside a ``` or ```console block is run through
`bash -c` (some pipe `sed` into `kschedx check -`) from the repository root, with the
installed `kschedx` first on PATH. The lines after it, up to the next `$ ` line or the end
of the block, are the output the README claims. Wrapping depends on the width, so the
comparison collapses all whitespace; a `...` line in the README marks a trimmed part.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"


@dataclass(frozen=True)
class Session:
    line: int  # 1-based line of the `$ ` command in README.md
    command: str
    shown: tuple[str, ...]  # the output lines the README shows under it


def _sessions() -> list[Session]:
    sessions: list[Session] = []
    fence: str | None = None
    current: Session | None = None
    shown: list[str] = []

    def close() -> None:
        nonlocal current, shown
        if current is not None:
            sessions.append(Session(current.line, current.command, tuple(shown)))
        current, shown = None, []

    for number, text in enumerate(README.read_text(encoding="utf-8").splitlines(), 1):
        if text.startswith("```"):
            if fence is None:
                fence = text[3:].strip()
            else:
                close()
                fence = None
            continue
        # Only plain and console blocks hold sessions (not bash, yaml, ...).
        if fence not in ("", "console"):
            continue
        if text.startswith("$ "):
            close()
            current = Session(number, text[2:], ())
        elif current is not None:
            shown.append(text)
    return [s for s in sessions if re.search(r"(^|\|\s*)kschedx\s", s.command)]


SESSIONS = _sessions()


def _run(command: str) -> subprocess.CompletedProcess[str]:
    bindir = str(Path(sys.executable).parent)
    env = {
        **os.environ,
        "PATH": bindir + os.pathsep + os.environ.get("PATH", ""),
        "COLUMNS": "100",
        "NO_COLOR": "1",
    }
    env.pop("KUBECONFIG", None)
    return subprocess.run(
        ["bash", "-c", command],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=300,
    )


def _collapse(text: str) -> str:
    return " ".join(text.split())


def test_readme_has_sessions() -> None:
    # Guards the extraction itself: the README shows a dozen or so sessions.
    assert len(SESSIONS) >= 8
    assert all("kschedx" in s.command for s in SESSIONS)


@pytest.mark.parametrize("session", SESSIONS, ids=lambda s: f"README.md:{s.line}")
def test_readme_session_runs_as_shown(session: Session) -> None:
    result = _run(session.command)
    output = result.stdout
    assert "Traceback" not in output, output
    shows_error = bool(session.shown) and session.shown[0].startswith("error:")
    if shows_error:
        # An input error, as documented: exit 2 with one line on stderr.
        assert result.returncode == 2, output
        assert output.startswith("error: "), output
        assert len(output.strip().splitlines()) == 1, output
    else:
        assert result.returncode in (0, 1), output
    # What the README shows is there, in order; `...` lines mark where it trims.
    actual = _collapse(output)
    position = 0
    chunk: list[str] = []
    for text in [*session.shown, "..."]:
        if text.strip() != "...":
            chunk.append(text)
            continue
        expected = _collapse("\n".join(chunk))
        chunk = []
        if not expected:
            continue
        found = actual.find(expected, position)
        assert found >= 0, (
            f"README.md:{session.line}: shown output is not what `{session.command}` "
            f"prints now:\n--- shown\n{expected}\n--- actual\n{actual}"
        )
        position = found + len(expected)

"""Every command the README and the documentation site show runs, and prints what they show.

tests/e2e/docs_sessions.py finds the commands (console sessions with their output, bash
blocks without) and says how each kind is run. Wrapping depends on the width, so outputs
are compared with all whitespace collapsed; a `...` line on the page marks a trimmed part.
"""

from __future__ import annotations

import gzip
import json
import re
import subprocess
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from tests.e2e import docs_sessions as ds

COMMANDS = ds.commands()
RUNNABLE = [c for c in COMMANDS if c.kind in ("kschedx", "tool", "bench")]


@pytest.fixture(scope="module")
def scratch() -> Iterator[ds.Scratch]:
    with ds.scratch() as where:
        yield where


_results: dict[tuple[str, str | None], subprocess.CompletedProcess[str]] = {}


@pytest.fixture(scope="module")
def live_envs(scratch: ds.Scratch) -> Iterator[dict[str, dict[str, str]]]:
    # One local API server per dump a live-cluster page names, each with its own kubeconfig.
    envs: dict[str, dict[str, str]] = {}
    with ExitStack() as stack:
        for dump in sorted({c.live for c in RUNNABLE if c.live}):
            envs[dump] = stack.enter_context(ds.live_cluster(scratch, dump))
        yield envs


def _result(command: ds.Command, scratch: ds.Scratch, live_envs: dict[str, dict[str, str]]) -> subprocess.CompletedProcess[str]:
    # The same command on two pages (the README and a guide) runs once per worker.
    key = (command.text, command.live)
    if key not in _results:
        env = live_envs[command.live] if command.live else scratch.env
        _results[key] = ds.run(command, env, scratch.path)
    return _results[key]


def test_the_pages_show_commands_of_every_kind() -> None:
    # Guards the extraction itself: sessions with output on many pages, bash commands, a
    # live-cluster page, and no command of a kind nobody runs.
    assert len([c for c in COMMANDS if c.kind == "kschedx" and c.shown]) >= 25
    assert len({c.page for c in COMMANDS}) >= 8
    assert any(c.live for c in COMMANDS)
    unknown = [f"{c.where}: {c.text}" for c in COMMANDS if c.kind == "unknown"]
    assert not unknown, "commands the docs test does not know how to run:\n" + "\n".join(unknown)


@pytest.mark.parametrize("command", RUNNABLE, ids=lambda c: c.where)
def test_shown_command_runs_as_shown(command: ds.Command, scratch: ds.Scratch,
                                     live_envs: dict[str, dict[str, str]]) -> None:
    result = _result(command, scratch, live_envs)
    output = result.stdout
    assert "Traceback" not in output, output
    if command.kind == "bench":
        assert result.returncode == 0, output
        for option in {w.split("=")[0] for w in command.text.split() if w.startswith("--")}:
            assert option in output, f"{command.where}: {option} is not an option of the script:\n{output}"
        return
    shows_error = bool(command.shown) and command.shown[0].startswith("error:")
    if shows_error:
        # An input error, as documented: exit 2 with one line.
        assert result.returncode == 2, output
        assert output.startswith("error: "), output
        assert len(output.strip().splitlines()) == 1, output
    elif command.kind == "tool":
        assert result.returncode == 0, output
    else:
        assert result.returncode in (0, 1), output
    if command.shown is not None:
        problem = ds.mismatch(command, output)
        assert problem is None, problem
    written = re.search(r">\s*(\S+\.(?:sarif|xml|html|json\.gz))\b", command.text)
    if written:
        # A report a CI system reads: there, whole, and in its format.
        _assert_report(scratch.path / written.group(1))


def _assert_report(path: Path) -> None:
    data = path.read_bytes()
    assert data, f"{path.name} is empty"
    if path.suffix == ".sarif":
        log = json.loads(data)
        assert log["version"] == "2.1.0" and log["runs"][0]["results"], path.name
    elif path.suffix == ".xml":
        from junitparser import JUnitXml

        suites = list(JUnitXml.fromfile(str(path)))
        assert suites and suites[0].tests > 0, path.name
    elif path.suffix == ".html":
        assert data.lstrip().lower().startswith(b"<!doctype html") and data.rstrip().endswith(b"</html>"), path.name
    else:
        with gzip.open(path) as f:
            assert json.load(f)["kind"] == "List", path.name

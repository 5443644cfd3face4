"""How the whole suite runs: worker count and grouping under pytest-xdist, memory given back
between tests, and the golden conformance summary (tests/golden/summary.py).

pyproject.toml's addopts run the suite on ``-n auto`` workers with ``--dist loadgroup``.
Tests are handed out one by one, except the groups ``scope_of`` names, whose tests go to one
worker and run there one after another: a golden case's runs (they share its parsed dump,
tests/golden/harness.py) and the modules whose tests share one costly module fixture.
The groups are named here, by test id, rather than with ``xdist_group`` marks: pytest-xdist
3.8 tags marked tests by rewriting a private attribute that pytest 9.2 no longer reads.
"""

from __future__ import annotations

import gc
import os
import re
from typing import Any

import pytest
import typer.main
import typer.testing

from tests.golden import summary as golden_summary

# Workers for ``-n auto``: one per CPU, at most this many (each reaches about 1 GB on the
# golden scale cases, and more workers than that gain little on this suite).
MAX_WORKERS = 4

# RSS growth since the last collection after which a test's teardown collects again.
COLLECT_AFTER_BYTES = 384 << 20


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    return max(1, min(MAX_WORKERS, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                      else os.cpu_count() or 1))


# Golden runs of one case: test_golden_case, test_golden_version_given, the existing-pod tests.
_GOLDEN_CASE = re.compile(r"^tests/golden/test_(?:conformance|existing_pods)\.py::test_\w+\[([^\]]+)\]$")

# Modules whose tests share one costly module-scoped fixture. The documentation's commands
# also run in page order there: a page's later command may read what an earlier one wrote
# (`kschedx snapshot -o F`, then `--snapshot F`), and a command two pages show runs once.
# tests/test_static.py is one group only so that mypy's half-minute is handed out among the
# groups, early, and not among the single tests last, where it kept one worker busy alone.
_WHOLE_MODULES = ("tests/cli/test_cluster_info_dump.py", "tests/e2e/test_docs_commands.py", "tests/test_static.py")


def scope_of(nodeid: str) -> str:
    """The unit of work a test goes to a worker in: its golden case, its module, or itself."""
    if nodeid.rfind("@") > nodeid.rfind("]"):  # an xdist_group mark, where pytest-xdist tags one
        return nodeid.rsplit("@", 1)[-1]
    case = _GOLDEN_CASE.match(nodeid)
    if case:
        return "golden:" + case.group(1)
    module = nodeid.split("::", 1)[0]
    return module if module in _WHOLE_MODULES else nodeid


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class SuiteGroups(LoadScopeScheduling):  # type: ignore[misc]
        # Largest units first (pytest-xdist's default order for scopes), then as collected.
        def _split_scope(self, nodeid: str) -> str:
            return scope_of(nodeid)

    return SuiteGroups(config, log)


def _rss() -> int | None:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None  # not Linux: no measure, no collections


_collected_at: list[int | None] = [_rss()]


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: Any) -> None:
    """Loading a dump freezes every live object (core/gcpause.py: gc.freeze), garbage of the
    tests before included: what is frozen is never collected, so cycles of dead snapshots
    and clusters pile up test after test (a few GB over the golden runs). A one-shot CLI
    never meets this; a test process does. When the process has grown enough since the
    last time, unfreeze and collect (a full collection costs tens of milliseconds: done
    after every test it would add minutes)."""
    rss = _rss()
    last = _collected_at[0]
    if rss is None or last is None or rss - last < COLLECT_AFTER_BYTES:
        return
    gc.unfreeze()
    gc.collect()
    _collected_at[0] = _rss()


# Typer's test runner turns the Typer app into its click command on every invoke: about
# 70 ms of the 80 ms a small `explain` takes in-process, and the suite invokes the CLI
# thousands of times. The command is the same each time for the same app (the app is not
# changed after it is built), so each app is turned into its command once per process.
_commands: dict[int, tuple[Any, Any]] = {}


def _command_of(app: Any) -> Any:
    known = _commands.get(id(app))
    if known is None or known[0] is not app:
        known = (app, typer.main.get_command(app))
        _commands[id(app)] = known
    return known[1]


typer.testing._get_command = _command_of  # type: ignore[attr-defined]


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    golden_summary.record(report)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    golden_summary.write(terminalreporter)


@pytest.fixture(scope="session")
def html_reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Every kind of HTML report (tests/cli/html_reports.py), made once per process for the
    markup tests (tests/cli) and the browser tests (tests/e2e) alike."""
    from tests.cli.html_reports import make_reports

    return make_reports(tmp_path_factory.mktemp("html"))

"""How the whole suite runs: worker count under pytest-xdist, memory given back between
tests, and the golden conformance summary (tests/golden/summary.py).

pyproject.toml's addopts run the suite on ``-n auto`` workers with ``--dist loadgroup``:
tests are handed out one by one, except those marked ``xdist_group`` (a golden case's runs,
the modules that build one costly fixture for all their tests), which go to one worker
together.
"""

from __future__ import annotations

import gc
import os
from typing import Any

import pytest

from tests.golden import summary as golden_summary

# Workers for ``-n auto``: one per CPU, at most this many (each may reach 2-3 GB on the
# golden scale cases).
MAX_WORKERS = 4

# RSS growth since the last collection after which a test's teardown collects again.
COLLECT_AFTER_BYTES = 384 << 20


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist, absent with -p no:xdist
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    return max(1, min(MAX_WORKERS, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                      else os.cpu_count() or 1))


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

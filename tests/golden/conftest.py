"""Prints the golden conformance summary per family after the test run."""

from __future__ import annotations

from typing import Any


def pytest_terminal_summary(terminalreporter: Any) -> None:
    from .test_conformance import RESULTS

    if not RESULTS:
        return
    terminalreporter.section("golden conformance (kube-scheduler v1.35.4)")
    total_ok = total = 0
    for family, outcomes in sorted(RESULTS.items()):
        ok = sum(outcomes)
        total_ok += ok
        total += len(outcomes)
        terminalreporter.write_line(f"{family:18s} {ok:3d}/{len(outcomes)}")
    terminalreporter.write_line(f"{'total':18s} {total_ok:3d}/{total}")

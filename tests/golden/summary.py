"""The golden conformance summary per family, printed after the test run.

Each golden test records its family and whether it agreed as a user property of its report
(``record``); the reports reach the process that prints the summary, the pytest-xdist
controller included, which runs no test itself. tests/conftest.py wires both hooks.
"""

from __future__ import annotations

from typing import Any

PROPERTY = "golden-family-agrees"

# family -> whether each of its cases agreed
RESULTS: dict[str, list[bool]] = {}


def record(report: Any) -> None:
    if report.when != "call":
        return
    for name, value in report.user_properties:
        if name == PROPERTY:
            family, agrees = value
            RESULTS.setdefault(str(family), []).append(bool(agrees))


def write(terminalreporter: Any) -> None:
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

"""Golden conformance: every case from the real kube-scheduler v1.35.4 through kschedx.

Each case must match exactly (see compare.py for what is compared); a per-family summary
is printed at the end of the run (conftest.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .compare import compare
from .harness import run_case

CASES = Path(__file__).parent / "cases"
RESULTS: dict[str, list[bool]] = {}

# Cases kschedx does not reproduce yet, each with the open issue that will: strict
# expected failures, so a case that starts to pass fails the run until it leaves this list.
PENDING_FAMILIES = {"versions": "issue 23: Kubernetes versions other than v1.35"}
PENDING_CASES: dict[str, str] = {}


def _family(case: Path) -> str:
    return str(json.loads((case / "meta.json").read_text())["family"])


def _params() -> list[object]:
    params: list[object] = []
    for case in sorted(CASES.iterdir()):
        why = PENDING_CASES.get(case.name) or PENDING_FAMILIES.get(_family(case))
        marks = [pytest.mark.xfail(reason=why, strict=True)] if why else []
        params.append(pytest.param(case, marks=marks, id=case.name))
    return params


@pytest.mark.parametrize("case", _params())
def test_golden_case(case: Path) -> None:
    expected = json.loads((case / "expected.json").read_text())
    actual = run_case(case)
    diffs = compare(expected, actual)
    RESULTS.setdefault(_family(case), []).append(not diffs)
    assert not diffs, f"{case.name}:\n  " + "\n  ".join(diffs[:40])

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


def _family(case: Path) -> str:
    return str(json.loads((case / "meta.json").read_text())["family"])


@pytest.mark.parametrize("case", sorted(CASES.iterdir()), ids=lambda p: p.name)
def test_golden_case(case: Path) -> None:
    expected = json.loads((case / "expected.json").read_text())
    actual = run_case(case)
    diffs = compare(expected, actual)
    RESULTS.setdefault(_family(case), []).append(not diffs)
    assert not diffs, f"{case.name}:\n  " + "\n  ".join(diffs[:40])

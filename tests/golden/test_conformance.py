"""Golden conformance: every case from the real kube-scheduler (v1.35.4; the versions family
v1.33.3, v1.34.7 and v1.36.3) through kschedx.

Each case must match exactly (see compare.py for what is compared); a per-family summary
is printed at the end of the run (conftest.py). The version is inferred from the dump's
kubelets; the versions family runs a second time with it given as --kubernetes-version.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .compare import compare
from .harness import run_case

CASES = Path(__file__).parent / "cases"
RESULTS: dict[str, list[bool]] = {}

# Cases kschedx does not reproduce yet, each with the open issue that will. A pending case
# is a strict expected failure: one that starts to pass fails the run until it leaves the
# list. A pending family (a new one arrives failing in most, not all, of its cases) is a
# lenient one: its cases may pass or fail, and the summary counts how many agree.
PENDING_FAMILIES: dict[str, str] = {}
PENDING_CASES: dict[str, str] = {}


def _family(case: Path) -> str:
    return str(json.loads((case / "meta.json").read_text())["family"])


def _params(family: str | None = None) -> list[object]:
    params: list[object] = []
    for case in sorted(CASES.iterdir()):
        if family is not None and _family(case) != family:
            continue
        marks = []
        if case.name in PENDING_CASES:
            marks = [pytest.mark.xfail(reason=PENDING_CASES[case.name], strict=True)]
        elif _family(case) in PENDING_FAMILIES:
            marks = [pytest.mark.xfail(reason=PENDING_FAMILIES[_family(case)], strict=False)]
        params.append(pytest.param(case, marks=marks, id=case.name))
    return params


@pytest.mark.parametrize("case", _params())
def test_golden_case(case: Path) -> None:
    _check(case, explicit_version=False)


@pytest.mark.parametrize("case", _params("versions"))
def test_golden_version_given(case: Path) -> None:
    """The versions family with meta.json's kubernetesVersion passed as --kubernetes-version."""
    _check(case, explicit_version=True)


def _check(case: Path, explicit_version: bool) -> None:
    expected = json.loads((case / "expected.json").read_text())
    actual = run_case(case, explicit_version)
    diffs = compare(expected, actual)
    RESULTS.setdefault(_family(case) + (" (version given)" if explicit_version else ""), []).append(not diffs)
    assert not diffs, f"{case.name}:\n  " + "\n  ".join(diffs[:40])

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

# Cases kschedx does not reproduce yet, each with the open issue that will: strict
# expected failures, so a case that starts to pass fails the run until it leaves this list.
PENDING_FAMILIES: dict[str, str] = {}
PENDING_CASES: dict[str, str] = {}


def _family(case: Path) -> str:
    return str(json.loads((case / "meta.json").read_text())["family"])


def _params(family: str | None = None) -> list[object]:
    params: list[object] = []
    for case in sorted(CASES.iterdir()):
        if family is not None and _family(case) != family:
            continue
        why = PENDING_CASES.get(case.name) or PENDING_FAMILIES.get(_family(case))
        marks = [pytest.mark.xfail(reason=why, strict=True)] if why else []
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

"""Golden conformance: every case from the real kube-scheduler (v1.35.4; the versions family
v1.33.3, v1.34.7 and v1.36.3) through kschedx.

Each case must match exactly (see compare.py for what is compared); a per-family summary
is printed at the end of the run (summary.py). The version is inferred from the dump's
kubelets; the versions family runs a second time with it given as --kubernetes-version.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kschedx.core.api.objects import ClusterObjects
from kschedx.core.explain import front as engine

from .compare import compare
from .harness import run_case
from .summary import PROPERTY

RecordProperty = Callable[[str, Any], None]
CASES = Path(__file__).parent / "cases"

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
        marks: list[pytest.MarkDecorator] = []
        if case.name in PENDING_CASES:
            marks = [pytest.mark.xfail(reason=PENDING_CASES[case.name], strict=True)]
        elif _family(case) in PENDING_FAMILIES:
            marks = [pytest.mark.xfail(reason=PENDING_FAMILIES[_family(case)], strict=False)]
        params.append(pytest.param(case, marks=marks, id=case.name))
    return params


@pytest.mark.parametrize("case", _params())
def test_golden_case(case: Path, record_property: RecordProperty) -> None:
    _check(case, False, record_property)


@pytest.mark.parametrize("case", _params("versions"))
def test_golden_version_given(case: Path, record_property: RecordProperty) -> None:
    """The versions family with meta.json's kubernetesVersion passed as --kubernetes-version."""
    _check(case, True, record_property)


def _check(case: Path, explicit_version: bool, record_property: RecordProperty) -> None:
    expected = json.loads((case / "expected.json").read_text())
    actual = run_case(case, explicit_version)
    diffs = compare(expected, actual)
    record_property(PROPERTY, (_family(case) + (" (version given)" if explicit_version else ""), not diffs))
    assert not diffs, f"{case.name}:\n  " + "\n  ".join(diffs[:40])


def _first_of_each_family() -> list[Path]:
    firsts: dict[str, Path] = {}
    for case in sorted(CASES.iterdir()):
        firsts.setdefault(_family(case), case)
    return sorted(firsts.values())


def _contents(objects: ClusterObjects) -> str:
    return json.dumps([objects.by_kind, objects.skipped_kinds, objects.server_version], sort_keys=True, default=repr)


@pytest.mark.parametrize("case", _first_of_each_family(), ids=lambda c: c.name)
def test_a_run_leaves_the_dump_it_was_given_as_it_was(case: Path) -> None:
    """The golden runs of one case share its parsed dump (harness.case_objects): a run must
    not change the objects it is given, or the next run of the case would see another dump."""
    objects = engine.load_cluster_files([str(case / "cluster.yaml.gz")])
    before = _contents(objects)
    meta = json.loads((case / "meta.json").read_text())
    config = case / "config.yaml"
    for version in (None, str(meta.get("kubernetesVersion") or "v1.35")):
        engine.explain_case_json(str(case / "pod.yaml"), [str(case / "cluster.yaml.gz")], objects=objects,
                                 config=str(config) if config.exists() else None,
                                 replicas=int(meta.get("replicas") or 1),
                                 options=engine.Options(kubernetes_version=version))
        assert _contents(objects) == before

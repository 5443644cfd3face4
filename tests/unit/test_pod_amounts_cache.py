"""The pod amounts memo (core/api/model.py ``_pod_amounts``): pods share one computation
only when every part it reads is equal in value and type, so a cached answer is always
the answer computing it afresh gives."""

from __future__ import annotations

import datetime
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from kschedx.core.api import model
from kschedx.core.api.quantity import QuantityError
from kschedx.core.load.files import load_cluster

ROOT = Path(__file__).resolve().parents[2]


def _fresh(spec: dict[str, Any], status: dict[str, Any]) -> tuple[dict[str, int], int, int]:
    reqs = model.pod_requests(spec, status)
    non0 = model.pod_requests(spec, status, model.non_zero_defaults(spec, reqs))
    return (model.tracked_resources(reqs), model.amount("cpu", non0.get("cpu", Fraction(0))),
            model.amount("memory", non0.get("memory", Fraction(0))))


def _spec(requests: dict[Any, Any], name: Any = "app") -> dict[str, Any]:
    return {"containers": [{"name": name, "resources": {"requests": requests}}]}


CASES = [
    (_spec({"cpu": "1"}), {}),
    (_spec({"cpu": 1}), {}),
    (_spec({"cpu": 1.0}), {}),
    (_spec({"cpu": "1", "memory": "1Gi"}), {}),
    (_spec({"memory": "1Gi", "cpu": "1"}), {}),
    (_spec({"cpu": "1"}, name=1), {"containerStatuses": [{"name": "1", "resources": {"requests": {"cpu": "3"}}}]}),
    (_spec({"cpu": "1"}), {"containerStatuses": [{"name": "app", "resources": {"requests": {"cpu": "3"}}}]}),
    (_spec({"cpu": "1"}), {"containerStatuses": [{"name": "app", "resources": {"requests": {"cpu": "3"}}}],
                           "conditions": [{"type": "PodResizePending", "reason": "Infeasible"}]}),
    (_spec({"cpu": "1"}), {"containerStatuses": [{"name": "app"}]}),
    (_spec({"cpu": "1"}), {"containerStatuses": [{"name": "app"}],
                           "conditions": [{"type": "PodResizePending", "reason": "Infeasible"}]}),
    (_spec({"cpu": "1"}), {"containerStatuses": [{"name": "app", "resources": {}}],
                           "conditions": [{"type": "PodResizePending", "reason": "Infeasible"}]}),
    (_spec({"cpu": "1"}), {"containerStatuses": [{"name": "app", "resources": {"requests": {"cpu": "3"}}},
                                                 {"name": "app", "resources": None}]}),
    ({"containers": [{"name": "a"}], "initContainers": [{"name": "i", "restartPolicy": "Always"}]},
     {"initContainerStatuses": [{"name": "i", "resources": {"requests": {"cpu": "2"}},
                                 "allocatedResources": {"cpu": "3"}}]}),
    ({"containers": [{"name": "a", "resources": {"requests": {"cpu": "1"}}}], "overhead": {"cpu": "250m"}}, {}),
    ({"containers": [{"name": "a"}], "resources": {"requests": {"cpu": "2"}}}, {}),
    ({"containers": [{"name": "a"}], "initContainers": [{"name": "i", "restartPolicy": "Always",
                                                         "resources": {"requests": {"memory": "1Gi"}}}]}, {}),
    (_spec({}), {}),
]


@pytest.mark.parametrize("order", [1, -1])
def test_every_cached_answer_is_the_fresh_one(order: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(model, "_AMOUNTS_CACHE", {})
    for spec, status in CASES[::order] * 2:
        assert model._pod_amounts(spec, status) == _fresh(spec, status)


def _outcome(fn: Any, spec: dict[str, Any]) -> Any:
    try:
        return fn(spec, {})
    except (QuantityError, TypeError, ValueError) as e:
        return type(e).__name__, str(e)


def test_equal_looking_values_of_other_types_are_not_confused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(model, "_AMOUNTS_CACHE", {})
    # 1 and True, NaN, a value marshal cannot write (a YAML timestamp), null: each its own
    # key, computed (or refused) instead of taking the answer of an earlier pod.
    for value in (1, True, 1.0, "1", float("nan"), datetime.datetime(2026, 1, 1), None, "1") * 2:
        spec = _spec({"cpu": value})
        assert _outcome(model._pod_amounts, spec) == _outcome(_fresh, spec)


def test_every_pod_of_a_generated_cluster_and_the_example(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "c.json"
    subprocess.run([sys.executable, str(ROOT / "bench" / "generate_cluster.py"), "--nodes", "30", "--out", str(out)],
                   check=True, capture_output=True)
    monkeypatch.setattr(model, "_AMOUNTS_CACHE", {})
    pods = load_cluster([str(out)]).of("Pod") + load_cluster([str(ROOT / "examples" / "cluster.yaml")]).of("Pod")
    for pod in pods:
        spec, status = pod.get("spec") or {}, pod.get("status") or {}
        assert model._pod_amounts(spec, status) == _fresh(spec, status)
    assert len(model._AMOUNTS_CACHE) < len(pods) / 10  # the memo is shared, as intended


def test_a_parsed_number_does_not_answer_for_true() -> None:
    # parse_quantity's own memo: without typed keys, True found the entry of 1.
    from kschedx.core.api.quantity import parse_quantity

    assert parse_quantity(1) == 1
    with pytest.raises(QuantityError):
        parse_quantity(True)

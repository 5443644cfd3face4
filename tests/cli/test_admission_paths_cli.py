"""LimitRange defaults and RuntimeClass overhead reach every pod a controller creates, through
the CLI (issue 28): the pods of a rollout's steps, a scale-up's copies and a DaemonSet's
pods are admitted as the API server admits each create, so what NodeResourcesFit sees is
the defaulted request (or the overhead) — not the template as written."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..unit.helpers import node
from ..unit.test_rollout import NS, _deployment, _ds, _pod_of
from .test_quota_rollout_cli import _check
from .test_rollout_run_cli import _web_cluster

Dict = dict[str, Any]


def _limit_range(cpu: str) -> Dict:
    return {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "defaults", "namespace": NS},
            "spec": {"limits": [{"type": "Container", "defaultRequest": {"cpu": cpu}}]}}


def _kata(cpu: str) -> Dict:
    return {"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "metadata": {"name": "kata"},
            "handler": "kata", "overhead": {"podFixed": {"cpu": cpu}}}


def _no_requests(workload: Dict) -> Dict:
    for c in workload["spec"]["template"]["spec"]["containers"]:
        c.pop("resources", None)
    return workload


def test_rollout_steps_get_the_limitrange_default_request(tmp_path: Path) -> None:
    # web's two 1-CPU pods on two 2-CPU nodes; the new template requests nothing. Written
    # as is its pods fit beside the old ones; the LimitRange's 1500m default does not fit
    # in the 1 CPU left, and maxUnavailable (25% of 2: 0) lets no old pod go first.
    manifest = _no_requests(_deployment(2, image="web:2"))
    code, entry = _check(tmp_path, _web_cluster([1, 1], ["2", "2"]), manifest)
    assert code == 0, entry["message"]
    code, entry = _check(tmp_path, [*_web_cluster([1, 1], ["2", "2"]), _limit_range("1500m")], manifest)
    assert code == 1, entry["message"]
    rollout = entry["explanation"]["workload"]["rollout"]
    assert (rollout["completes"], rollout["oldLeft"]) == (False, 2)
    assert "Insufficient cpu" in rollout["fitError"]


def test_rollout_steps_get_the_runtimeclass_overhead(tmp_path: Path) -> None:
    manifest = _no_requests(_deployment(2, image="web:2"))
    manifest["spec"]["template"]["spec"]["runtimeClassName"] = "kata"
    code, entry = _check(tmp_path, [*_web_cluster([1, 1], ["2", "2"]), _kata("100m")], manifest)
    assert code == 0, entry["message"]
    code, entry = _check(tmp_path, [*_web_cluster([1, 1], ["2", "2"]), _kata("1500m")], manifest)
    assert code == 1, entry["message"]
    assert "Insufficient cpu" in entry["explanation"]["workload"]["rollout"]["fitError"]


def test_a_scale_ups_copies_get_the_limitrange_default_request(tmp_path: Path) -> None:
    # web's template requests nothing; its two pods were admitted with 1500m each. A third
    # replica gets 1500m as well, and finds 500m left on each node.
    cluster = _web_cluster([1, 1], ["2", "2"])
    rs = next(o for o in cluster if o["kind"] == "ReplicaSet")
    rs["spec"]["template"]["spec"]["containers"][0].pop("resources")
    for pod in (o for o in cluster if o["kind"] == "Pod"):
        pod["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "1500m"}}
    manifest = _no_requests(_deployment(3))
    code, entry = _check(tmp_path, [*cluster, _limit_range("1500m")], manifest)
    assert code == 1, entry["message"]
    assert entry["explanation"]["workload"]["rule"] == "scale-up"
    assert "Insufficient cpu" in entry["message"]
    code, entry = _check(tmp_path, [*cluster, _limit_range("400m")], manifest)
    assert code == 0, entry["message"]


def test_daemonset_pods_get_the_limitrange_default_and_the_overhead(tmp_path: Path) -> None:
    manifest = _no_requests(_ds())
    nodes = [node("n0", cpu="2"), node("n1", cpu="2")]
    busy = _pod_of({"metadata": {"labels": {"app": "other"}}, "spec": {"containers": [
        {"name": "c", "image": "x", "resources": {"requests": {"cpu": "1"}}}]}}, "other", "n1", ("ReplicaSet", "other"))
    code, entry = _check(tmp_path, [*nodes, busy, _limit_range("1500m")], manifest)
    assert code == 1, entry["message"]
    assert "pending on n1: NodeResourcesFit: Insufficient cpu" in entry["message"]
    manifest["spec"]["template"]["spec"]["runtimeClassName"] = "kata"
    code, entry = _check(tmp_path, [*nodes, busy, _kata("1500m")], manifest)
    assert code == 1 and "pending on n1: NodeResourcesFit: Insufficient cpu" in entry["message"], entry["message"]
    code, entry = _check(tmp_path, [*nodes, busy, _kata("500m")], manifest)
    assert code == 0, entry["message"]

"""A plugin that returns Error: the real cycle stops, kschedx still explains every node.

Reproduces v1.35.4 pkg/scheduler/framework/runtime/framework.go: ``RunFilterPlugins`` (a Filter
status that is not a rejection becomes an Error wrapped as ``running "PLUGIN" filter plugin: ...``),
``RunPreFilterExtensionAddPod`` (``running AddPod on PreFilter plugin "PLUGIN": ...``),
``RunScorePlugins`` (``running Score plugins: plugin "PLUGIN" failed with: ...``); schedule_one.go
``findNodesThatPassFilters`` (the first Filter error aborts the cycle: no FitError, no PostFilter);
and, for the DynamicResources error, dynamic-resource-allocation structured/internal/stable
``GatherPools`` / ``checkSlicesInPool`` (when a pool is incomplete) and the allocator's
"asks for all devices, but resource pool ... is currently being updated".
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from kschedx.cli.app import app
from kschedx.core.framework.interface import Code, Status
from kschedx.core.plugins.imagelocality import ImageLocality
from kschedx.core.plugins.tainttoleration import TaintToleration

from .helpers import cycle, node, pod, snapshot
from .test_dynamicresources import DRIVER, device_class, gpu, run

Dict = dict[str, Any]


def _slice(name: str, node_name: str, pool: str, generation: int, count: int, *devices: Dict) -> Dict:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": name},
            "spec": {"driver": DRIVER, "nodeName": node_name,
                     "pool": {"name": pool, "generation": generation, "resourceSliceCount": count},
                     "devices": list(devices)}}


def _all_claim() -> Dict:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": "all", "namespace": "default", "uid": "uid-all"},
            "spec": {"devices": {"requests": [
                {"name": "gpus", "exactly": {"deviceClassName": DRIVER, "allocationMode": "All"}}]}}}


def _claiming(cpu: str = "100m") -> Dict:
    p = pod("trainer", cpu=cpu)
    p["spec"]["resourceClaims"] = [{"name": "c", "resourceClaimName": "all"}]
    return p


UPDATING = ('running "DynamicResources" filter plugin: claim default/all, request gpus: asks for all devices, '
            f"but resource pool {DRIVER}/b is currently being updated")


def test_incomplete_pool_is_an_error_on_its_node_and_every_node_keeps_a_verdict() -> None:
    r = run(_claiming(), node("a"), node("b"), node("small", cpu="50m"), device_class(),
            _slice("a-0", "a", "a", 1, 1, gpu("gpu-0", "h100")),
            _slice("b-0", "b", "b", 4, 2, gpu("gpu-0", "h100")),  # 1 of the 2 slices of generation 4
            _all_claim())
    v = r.nodes["b"]
    assert (v.feasible, v.code, v.plugin, v.reasons) == (False, "Error", "DynamicResources", [UPDATING])
    assert r.nodes["a"].feasible
    assert r.nodes["small"].reasons == ["Insufficient cpu"]
    # The cycle stops: no FitError, no preemption, no scores, no node chosen.
    assert r.error == UPDATING
    assert r.fit_error is None and r.preemption is None and r.score_plugins == [] and r.selected_node is None
    assert any("the real scheduler would stop this cycle" in w and UPDATING in w for w in r.warnings)


def test_pool_whose_other_slices_serve_other_nodes_is_complete() -> None:
    # checkSlicesInPool: slices of the same pool and generation published for other nodes count.
    r = run(_claiming(), node("a"), node("b"), device_class(),
            _slice("p-a", "a", "shared", 2, 2, gpu("gpu-0", "h100")),
            _slice("p-b", "b", "shared", 2, 2, gpu("gpu-1", "h100")),
            _all_claim())
    assert r.error is None
    assert r.nodes["a"].feasible and r.nodes["b"].feasible


def test_pool_replaced_by_a_newer_generation_elsewhere_is_ignored_not_an_error() -> None:
    # A newer generation exists (for another node): this node's older slice is obsolete, the
    # pool is dropped instead of reported as being updated.
    r = run(_claiming(), node("a"), node("b"), device_class(),
            _slice("old-a", "a", "p", 1, 2, gpu("gpu-0", "h100")),
            _slice("new-b", "b", "p", 2, 1, gpu("gpu-1", "h100")),
            _all_claim())
    assert r.error is None
    assert r.nodes["a"].code != "Error" and r.nodes["b"].feasible


def test_every_non_rejection_filter_status_is_wrapped_as_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def failing(self: Any, state: Any, p: Any, n: Any) -> Status:
        if n.name == "b":
            return Status.error("backend gone")
        if n.name == "c":
            return Status(Code.SKIP)  # not a valid Filter answer: upstream makes it an Error too
        return Status.success()

    monkeypatch.setattr(TaintToleration, "filter", failing)
    r = cycle(snapshot(node("a"), node("b"), node("c"), node("d", cpu="50m")), pod("p", cpu="100m"))
    assert r.nodes["b"].code == "Error"
    assert r.nodes["b"].reasons == ['running "TaintToleration" filter plugin: backend gone']
    assert r.nodes["c"].code == "Error" and r.nodes["c"].plugin == "TaintToleration"
    assert r.nodes["a"].feasible and r.nodes["d"].reasons == ["Insufficient cpu"]
    # Two nodes errored: the first by name is reported, the warning names both.
    assert r.error == 'running "TaintToleration" filter plugin: backend gone'
    assert any("on 2 nodes (b, c)" in w for w in r.warnings)


def test_add_pod_error_for_a_nominated_pod_is_wrapped(monkeypatch: pytest.MonkeyPatch) -> None:
    from kschedx.core.plugins.interpodaffinity import InterPodAffinity

    def broken(self: Any, state: Any, p: Any, to_add: Any, n: Any) -> Status:
        return Status.error("cannot add")

    monkeypatch.setattr(InterPodAffinity, "add_pod", broken)
    nominated = pod("nom", cpu="100m", priority=10)
    nominated["status"]["nominatedNodeName"] = "a"
    incoming = pod("p", cpu="100m", labels={"app": "p"})
    incoming["spec"]["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "x"}}, "topologyKey": "kubernetes.io/hostname"}]}}
    r = cycle(snapshot(node("a"), node("b"), nominated), incoming)
    assert r.nodes["a"].code == "Error"
    assert r.error == 'running AddPod on PreFilter plugin "InterPodAffinity": cannot add'
    assert r.nodes["b"].feasible


def test_score_error_uses_upstreams_words(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(self: Any, state: Any, p: Any, n: Any) -> tuple[int, Status]:
        return 0, Status.error("no image data")

    monkeypatch.setattr(ImageLocality, "score", broken)
    monkeypatch.delattr(ImageLocality, "score_nodes")  # (its bulk scores never fail,
    monkeypatch.delattr(ImageLocality, "uniform_score")  # nor its score alike everywhere)
    r = cycle(snapshot(node("a"), node("b")), pod("p", cpu="100m"))
    assert r.error == 'running Score plugins: plugin "ImageLocality" failed with: no image data'
    assert any("would stop this cycle" in w for w in r.warnings)


def test_cli_reports_the_error_in_every_format_and_exits_unschedulable(tmp_path: Path) -> None:
    objs = [node("a"), node("b"), device_class(),
            _slice("a-0", "a", "a", 1, 1, gpu("gpu-0", "h100")),
            _slice("b-0", "b", "b", 4, 2, gpu("gpu-0", "h100")), _all_claim()]
    cluster = tmp_path / "cluster.json"
    cluster.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objs}))
    manifest = tmp_path / "pod.json"
    manifest.write_text(json.dumps(_claiming()))
    runner = CliRunner()

    out = runner.invoke(app, ["explain", str(manifest), "-c", str(cluster), "-o", "json"])
    assert out.exit_code == 1
    data = json.loads(out.stdout)
    step = data["steps"][0] if "steps" in data else data
    assert step["error"] == UPDATING
    assert step["nodes"]["b"]["code"] == "Error" and step["nodes"]["a"] == {"feasible": True}
    assert any("the real scheduler would stop this cycle" in w for w in step["warnings"])

    out = runner.invoke(app, ["explain", str(manifest), "-c", str(cluster), "--no-color"])
    assert out.exit_code == 1
    text = " ".join(out.stdout.split())
    assert f"scheduler error: {UPDATING}" in text
    assert "Passed every filter (1), not scored: the cycle stopped at the error a" in text
    assert "warning: a Filter plugin returned Error on b: the real scheduler would stop this cycle" in text

    out = runner.invoke(app, ["explain", str(manifest), "-c", str(cluster), "--no-color", "--node", "b"])
    text = " ".join(out.stdout.split())
    assert "is currently being updated (fewer slices than its resourceSliceCount 2)" in text
    assert "DynamicResources returned Error, which stops the whole scheduling cycle" in text

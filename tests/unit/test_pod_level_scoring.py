"""Pod-level resources (spec.resources) in the two resource scorers (issue 16, class 1).

v1.35.4 pkg/scheduler/framework/plugins/noderesources: ``fit.go`` builds NodeResourcesFit's
``resourceAllocationScorer`` from ``nodeResourceStrategyTypeMap`` without its
``enablePodLevelResources`` / ``enableInPlacePodVerticalScaling`` fields, while
``balanced_allocation.go`` (``NewBalancedAllocation``) sets them from the feature gates.
``resource_allocation.go`` ``calculatePodResourceRequest`` turns them into
``SkipPodLevelResources`` / ``UseStatusResources``, so Fit scores the incoming pod by its
container requests (with the non-zero defaults) and BalancedAllocation by its pod-level ones.
"""

from __future__ import annotations

from typing import Any

from kschedx.core.api.model import PodInfo
from kschedx.core.framework.result import CycleResult

from .helpers import framework, node, pod, snapshot


def pod_level(name: str, cpu: str, memory: str, **kw: Any) -> dict[str, Any]:
    p = pod(name, **kw)
    p["spec"]["resources"] = {"requests": {"cpu": cpu, "memory": memory}}
    return p


def raw(result: CycleResult, plugin: str) -> dict[str, int]:
    [ps] = [p for p in result.score_plugins if p.name == plugin]
    return {n: s.raw for n, s in ps.scores.items()}


def test_fit_scores_container_requests_balanced_scores_pod_level() -> None:
    """fit.go nodeResourceStrategyTypeMap (scorer without enablePodLevelResources) vs
    balanced_allocation.go NewBalancedAllocation (enablePodLevelResources from the gate)."""
    snap = snapshot(node("n1", cpu="4", memory="8Gi"))
    incoming = pod_level("p", cpu="2", memory="6Gi")
    result = framework(snap).run_cycle(PodInfo(incoming))
    # Fit: the container asks nothing, so the non-zero defaults 100m / 200Mi are scored:
    # cpu (4000-100)*100/4000 = 97, memory (8192-200)*100/8192 = 97 (in Mi) -> 97.
    # Counting spec.resources would give cpu 50, memory 25 -> 37.
    assert raw(result, "NodeResourcesFit") == {"n1": 97}
    # BalancedAllocation: pod-level cpu 2/4 = 0.5, memory 6/8 = 0.75 -> (1 - 0.125) * 100.
    assert raw(result, "NodeResourcesBalancedAllocation") == {"n1": 87}


def test_fit_scores_container_requests_when_both_levels_are_set() -> None:
    """resource_allocation.go calculatePodResourceRequest with SkipPodLevelResources: the
    container requests are summed, the pod-level requests (which would override them) ignored."""
    snap = snapshot(node("n1", cpu="4", memory="8Gi"))
    incoming = pod_level("p", cpu="3", memory="4Gi")
    incoming["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "1", "memory": "2Gi"}}
    result = framework(snap).run_cycle(PodInfo(incoming))
    # cpu (4000-1000)*100/4000 = 75, memory (8-2)*100/8 = 75.
    assert raw(result, "NodeResourcesFit") == {"n1": 75}
    # Balanced with pod-level 3/4 and 4/8: std 0.125 -> 87.
    assert raw(result, "NodeResourcesBalancedAllocation") == {"n1": 87}


def test_existing_pods_count_with_their_pod_level_requests() -> None:
    """framework/types.go calculateResource: NodeInfo sums the pods already on the node with
    pod-level resources (the gate is on), so only the incoming pod's side differs in Fit."""
    snap = snapshot(
        node("n1", cpu="4", memory="8Gi"),
        node("n2", cpu="4", memory="8Gi"),
        pod_level("big", cpu="2", memory="4Gi", node_name="n1"),
    )
    result = framework(snap).run_cycle(PodInfo(pod("p", cpu="1", memory="1Gi")))
    # n1: cpu (4000-3000)*100/4000 = 25, memory (8-5)*100/8 = 37 -> 31; n2: 75, 87 -> 81.
    assert raw(result, "NodeResourcesFit") == {"n1": 31, "n2": 81}


def test_fit_score_ignores_status_resources_of_the_incoming_pod() -> None:
    """fit.go: the Fit scorer has no enableInPlacePodVerticalScaling, so
    calculatePodResourceRequest runs with UseStatusResources false and a resized pod
    explained again is scored by its spec; Filter (fit.go computePodResourceRequest) and
    BalancedAllocation use the status."""
    snap = snapshot(node("n1", cpu="4", memory="8Gi"))
    incoming = pod("p", cpu="1", memory="2Gi")
    incoming["status"]["containerStatuses"] = [
        {"name": "c", "resources": {"requests": {"cpu": "2", "memory": "2Gi"}}}
    ]
    result = framework(snap).run_cycle(PodInfo(incoming))
    # Spec: cpu (4000-1000)*100/4000 = 75, memory 75 -> 75 (the status' 2 CPUs would give 62).
    assert raw(result, "NodeResourcesFit") == {"n1": 75}
    # Balanced with the status' 2 CPUs: 0.5 vs 0.25 -> 87.
    assert raw(result, "NodeResourcesBalancedAllocation") == {"n1": 87}


def test_node_focus_shows_what_each_scorer_counted() -> None:
    """``--node``: the Fit facts show the container requests it scored (non-zero defaults)
    and say that spec.resources are not counted; BalancedAllocation's show the pod-level ones."""
    from kschedx.core.api.objects import ClusterObjects
    from kschedx.core.explain.front import Options, explain_object

    cluster = ClusterObjects()
    cluster.add(node("n1", cpu="4", memory="8Gi"))
    result = explain_object(pod_level("p", cpu="2", memory="6Gi"), "p.yaml", cluster,
                            options=Options(focus="n1")).steps[0]
    assert result.focus is not None
    facts = {d.plugin: d.facts for d in result.focus.scores}
    assert "the pod asks 100m" in facts["NodeResourcesFit"][1]
    assert facts["NodeResourcesFit"][-1].startswith("the pod's spec.resources are not counted by this score")
    assert "the pod asks 2000m" in facts["NodeResourcesBalancedAllocation"][0]

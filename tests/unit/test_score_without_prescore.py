"""Score plugins in a profile that disables their PreScore (issue 16, class 5).

v1.35.4 pkg/scheduler/framework/plugins: when the PreScore state is missing,
- nodeaffinity/node_affinity.go ``Score`` parses the pod's preferred terms itself
  ("Fallback to calculate preferredNodeAffinity here when PreScore is disabled");
- noderesources/fit.go ``Fit.Score`` and balanced_allocation.go ``BalancedAllocation.Score``
  compute the pod's requests themselves;
- tainttoleration/taint_toleration.go, interpodaffinity/scoring.go and
  podtopologyspread/scoring.go ``Score`` return ``fwk.AsStatus(err)`` of their
  ``getPreScoreState`` ("failed to read ..." / "error reading ..." + CycleState's "not found");
- imagelocality (no PreScore), volumebinding and dynamicresources (state from PreFilter) are
  unaffected.
"""

from __future__ import annotations

from typing import Any

import pytest

from kschedx.core.api.model import PodInfo
from kschedx.core.config.profile import configuration_from_dict
from kschedx.core.framework.result import CycleResult
from kschedx.core.framework.runtime import Framework
from kschedx.core.plugins import REGISTRY

from .helpers import node, pod, snapshot


def run_score_only(plugin: str, incoming: dict[str, Any]) -> CycleResult:
    cfg = {
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "profiles": [{"plugins": {
            "preScore": {"disabled": [{"name": "*"}]},
            "score": {"disabled": [{"name": "*"}], "enabled": [{"name": plugin, "weight": 2}]},
        }}],
    }
    profile = configuration_from_dict(cfg, REGISTRY).profiles["default-scheduler"]
    snap = snapshot(
        node("a1", cpu="4", memory="8Gi", labels={"zone": "a"}),
        node("b1", cpu="8", memory="8Gi", labels={"zone": "b"}),
    )
    return Framework(profile, snap, REGISTRY).run_cycle(PodInfo(incoming))


def incoming() -> dict[str, Any]:
    p = pod("p", cpu="1", memory="2Gi")
    p["spec"]["affinity"] = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 7, "preference": {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}}]}}
    return p


def raw(r: CycleResult) -> dict[str, int]:
    [ps] = r.score_plugins
    return {n: s.raw for n, s in ps.scores.items()}


def test_node_affinity_score_parses_preferred_terms_itself() -> None:
    r = run_score_only("NodeAffinity", incoming())
    assert r.error is None
    assert raw(r) == {"a1": 7, "b1": 0}
    assert r.totals == {"a1": 200, "b1": 0}


def test_node_affinity_score_fallback_reports_a_parse_error() -> None:
    """node_affinity.go Score: getPodPreferredNodeAffinity's error becomes the status."""
    p = incoming()
    p["spec"]["affinity"]["nodeAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"][0][
        "preference"]["matchExpressions"][0]["values"] = ["a b"]
    r = run_score_only("NodeAffinity", p)
    assert r.error is not None
    assert '[0].matchExpressions[0].values[0][zone]: Invalid value: "a b"' in r.error


@pytest.mark.parametrize(("plugin", "expected"), [
    # cpu (4000-1000)*100/4000 = 75, memory (8-2)*100/8 = 75; b1: 87 and 75 -> 81.
    ("NodeResourcesFit", {"a1": 75, "b1": 81}),
    # a1: 0.25 / 0.25 -> 100; b1: 0.125 / 0.25 -> 93.
    ("NodeResourcesBalancedAllocation", {"a1": 100, "b1": 93}),
])
def test_resource_scores_compute_requests_themselves(plugin: str, expected: dict[str, int]) -> None:
    r = run_score_only(plugin, incoming())
    assert r.error is None
    assert raw(r) == expected


@pytest.mark.parametrize(("plugin", "message"), [
    ("TaintToleration", 'failed to read "PreScoreTaintToleration" from cycleState: not found'),
    ("InterPodAffinity", 'failed to read "PreScoreInterPodAffinity" from cycleState: not found'),
    ("PodTopologySpread", 'error reading "PreScorePodTopologySpread" from cycleState: not found'),
])
def test_scores_without_fallback_return_the_state_error(plugin: str, message: str) -> None:
    r = run_score_only(plugin, incoming())
    assert r.error is not None
    assert r.error.endswith(message)
    assert r.selected_node is None


@pytest.mark.parametrize("plugin", ["ImageLocality", "VolumeBinding", "DynamicResources"])
def test_scores_that_need_no_prescore_state(plugin: str) -> None:
    r = run_score_only(plugin, incoming())
    assert r.error is None
    assert raw(r) == {"a1": 0, "b1": 0}


@pytest.mark.parametrize(("plugin", "message"), [
    # nodeports/node_ports.go and noderesources/fit.go: Filter returns getPreFilterState's error.
    ("NodePorts", 'reading "PreFilterNodePorts" from cycleState: not found'),
    ("NodeResourcesFit", 'error reading "PreFilterNodeResourcesFit" from cycleState: not found'),
])
def test_filters_without_prefilter_state_return_the_state_error(plugin: str, message: str) -> None:
    """The same check for Filter: a profile disabling these plugins' PreFilter makes their
    Filter fail with an Error, as upstream has no fallback there (NodeAffinity has one)."""
    cfg = {
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "profiles": [{"plugins": {"preFilter": {"disabled": [{"name": plugin}, {"name": "NodeAffinity"}]}}}],
    }
    profile = configuration_from_dict(cfg, REGISTRY).profiles["default-scheduler"]
    snap = snapshot(node("a1", labels={"zone": "a"}))
    p = incoming()
    p["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] = {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}]}
    r = Framework(profile, snap, REGISTRY).run_cycle(PodInfo(p))
    assert r.error is not None
    assert r.error.endswith(message)


def test_single_feasible_node_never_reaches_the_failing_score() -> None:
    """schedule_one.go schedulePod returns the only feasible node before prioritizeNodes."""
    cfg = {
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "profiles": [{"plugins": {"preScore": {"disabled": [{"name": "TaintToleration"}]}}}],
    }
    profile = configuration_from_dict(cfg, REGISTRY).profiles["default-scheduler"]
    r = Framework(profile, snapshot(node("a1")), REGISTRY).run_cycle(PodInfo(incoming()))
    assert r.error is None
    assert r.selected_node == "a1"
    [tt] = [ps for ps in r.score_plugins if ps.name == "TaintToleration"]
    assert tt.skipped and not tt.scores

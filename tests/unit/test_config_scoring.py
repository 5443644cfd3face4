"""Plugin args from a configuration, through the real framework: scoring strategies, addedAffinity,
List default spreading constraints."""

from __future__ import annotations

from typing import Any

import yaml

from kschedx.core.api.model import PodInfo
from kschedx.core.config.profile import configuration_from_dict
from kschedx.core.framework.result import CycleResult
from kschedx.core.framework.runtime import Framework
from kschedx.core.plugins import REGISTRY
from kschedx.core.plugins.noderesources_allocation import broken_linear
from kschedx.core.snapshot import Snapshot

from .helpers import node, pod, snapshot

HEADER = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration"}


def run(config: str, snap: Snapshot, incoming: dict[str, Any]) -> CycleResult:
    loaded = configuration_from_dict({**HEADER, **yaml.safe_load(config)}, REGISTRY)
    return Framework(loaded.profiles["default-scheduler"], snap, REGISTRY).run_cycle(PodInfo(incoming))


def raw_scores(result: CycleResult, plugin: str) -> dict[str, int]:
    [ps] = [p for p in result.score_plugins if p.name == plugin]
    return {n: s.raw for n, s in ps.scores.items()}


def two_nodes() -> Snapshot:
    # n1 already runs 1 CPU / 4Gi; the incoming pod asks 1 CPU / 2Gi.
    return snapshot(
        node("n1", cpu="4", memory="8Gi"),
        node("n2", cpu="8", memory="16Gi"),
        pod("existing", cpu="1", memory="4Gi", node_name="n1"),
    )


def fit_config(strategy: str) -> str:
    return f"""
profiles:
- pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy: {strategy}
"""


INCOMING = pod("p", cpu="1", memory="2Gi")


def test_least_allocated_with_resource_weights() -> None:
    r = run(fit_config("{type: LeastAllocated, resources: [{name: cpu, weight: 2}, {name: memory, weight: 5}]}"),
            two_nodes(), INCOMING)
    # n1: cpu (4000-2000)*100/4000 = 50, memory (8-6)*100/8 = 25 -> (50*2 + 25*5) / 7 = 32.
    # n2: cpu 7000*100/8000 = 87, memory 14*100/16 = 87 -> 87.
    assert raw_scores(r, "NodeResourcesFit") == {"n1": 32, "n2": 87}


def test_most_allocated() -> None:
    r = run(fit_config("{type: MostAllocated}"), two_nodes(), INCOMING)
    # n1: cpu 2000*100/4000 = 50, memory 6*100/8 = 75 -> 125/2 = 62; n2: 12 and 12.
    assert raw_scores(r, "NodeResourcesFit") == {"n1": 62, "n2": 12}


def test_requested_to_capacity_ratio_linear_shape() -> None:
    r = run(
        fit_config(
            "{type: RequestedToCapacityRatio, resources: [{name: cpu, weight: 1}, {name: memory, weight: 5}], "
            "requestedToCapacityRatio: {shape: [{utilization: 0, score: 0}, {utilization: 100, score: 10}]}}"
        ),
        two_nodes(),
        INCOMING,
    )
    # Scores 0..10 scale to 0..100, so the score is the utilization: n1 cpu 50, memory 75 ->
    # round((50 + 75*5) / 6) = round(70.83) = 71; n2: 12 and 12 -> 12.
    assert raw_scores(r, "NodeResourcesFit") == {"n1": 71, "n2": 12}


def test_requested_to_capacity_ratio_broken_linear_shape() -> None:
    r = run(
        fit_config(
            "{type: RequestedToCapacityRatio, resources: [{name: cpu, weight: 3}, {name: memory, weight: 2}], "
            "requestedToCapacityRatio: {shape: [{utilization: 20, score: 2}, {utilization: 70, score: 9}, "
            "{utilization: 90, score: 5}]}}"
        ),
        two_nodes(),
        INCOMING,
    )
    # Shape scaled to (20,20) (70,90) (90,50).  n1: cpu 50 -> 20 + 70*30/50 = 62; memory 75 ->
    # 90 - 40*5/20 = 80; (62*3 + 80*2) / 5 = 69.2 -> 69.  n2: 12 and 12 sit below the first
    # point -> 20 each -> 20.
    assert raw_scores(r, "NodeResourcesFit") == {"n1": 69, "n2": 20}


def test_broken_linear_truncates_toward_zero_like_go() -> None:
    f = broken_linear([(0, 100), (30, 30)])
    assert f(10) == 77  # 100 + (-70*10)/30 = 100 - 23.33 -> Go truncates to -23
    assert f(0) == 100 and f(30) == 30 and f(99) == 30


def test_balanced_allocation_with_three_resources() -> None:
    snap = snapshot(node("n1", cpu="4", memory="8Gi", extra={"ephemeral-storage": "100Gi"}))
    incoming = pod("p", cpu="1", memory="2Gi")
    incoming["spec"]["containers"][0]["resources"]["requests"]["ephemeral-storage"] = "50Gi"
    r = run(
        """
profiles:
- pluginConfig:
  - name: NodeResourcesBalancedAllocation
    args: {resources: [{name: cpu, weight: 1}, {name: memory, weight: 1}, {name: ephemeral-storage, weight: 1}]}
""",
        snap,
        incoming,
    )
    # Fractions 0.25, 0.25, 0.5: mean 1/3, std = sqrt((2*(1/12)^2 + (1/6)^2) / 3) = 0.1178 -> 88.
    assert raw_scores(r, "NodeResourcesBalancedAllocation") == {"n1": 88}


def test_ignored_resources_and_groups() -> None:
    snap = snapshot(node("n1"))
    incoming = pod("p", cpu="1")
    incoming["spec"]["containers"][0]["resources"]["limits"] = {"example.com/foo": "1", "vendor.io/bar": "2"}
    r = run("profiles: [{}]", snap, incoming)
    assert r.nodes["n1"].reasons == ["Insufficient example.com/foo", "Insufficient vendor.io/bar"]
    r = run(
        "profiles: [{pluginConfig: [{name: NodeResourcesFit, args: {ignoredResources: [example.com/foo], "
        "ignoredResourceGroups: [vendor.io]}}]}]",
        snap,
        incoming,
    )
    assert r.nodes["n1"].feasible


ADDED_AFFINITY = """
profiles:
- pluginConfig:
  - name: NodeAffinity
    args:
      addedAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          nodeSelectorTerms:
          - matchExpressions: [{key: pool, operator: In, values: [general, compute]}]
        preferredDuringSchedulingIgnoredDuringExecution:
        - weight: 40
          preference:
            matchExpressions: [{key: pool, operator: In, values: [compute]}]
"""


def test_added_affinity_filters_and_scores() -> None:
    snap = snapshot(
        node("g", labels={"pool": "general"}),
        node("c", labels={"pool": "compute"}),
        node("x", labels={"pool": "gpu"}),
        node("bare"),
    )
    # A pod with no affinity of its own is still subject to the added affinity.
    r = run(ADDED_AFFINITY, snap, pod("p"))
    for name in ("x", "bare"):
        v = r.nodes[name]
        assert (v.feasible, v.plugin, v.code, v.reasons) == (
            False, "NodeAffinity", "UnschedulableAndUnresolvable", ["node(s) didn't match scheduler-enforced node affinity"]
        )
    assert r.nodes["g"].feasible and r.nodes["c"].feasible
    [ps] = [p for p in r.score_plugins if p.name == "NodeAffinity"]
    assert not ps.skipped
    assert {n: (s.raw, s.normalized, s.weighted) for n, s in ps.scores.items()} == {
        "g": (0, 0, 0), "c": (40, 100, 200)
    }


def test_added_affinity_adds_to_pod_preferences() -> None:
    snap = snapshot(node("g", labels={"pool": "general", "disk": "ssd"}), node("c", labels={"pool": "compute"}))
    incoming = pod("p", affinity={"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 60, "preference": {"matchExpressions": [{"key": "disk", "operator": "In", "values": ["ssd"]}]}}
    ]}})
    r = run(ADDED_AFFINITY, snap, incoming)
    assert raw_scores(r, "NodeAffinity") == {"g": 60, "c": 40}


def test_empty_added_preferred_list_lets_prescore_skip() -> None:
    r = run(
        "profiles: [{pluginConfig: [{name: NodeAffinity, args: {addedAffinity: "
        "{preferredDuringSchedulingIgnoredDuringExecution: []}}}]}]",
        snapshot(node("a"), node("b")),
        pod("p"),
    )
    [ps] = [p for p in r.score_plugins if p.name == "NodeAffinity"]
    assert ps.skipped


def _spread_cluster() -> Snapshot:
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"selector": {"app": "web"}},
    }
    zone = "topology.kubernetes.io/zone"
    return snapshot(
        node("a1", labels={zone: "a"}),
        node("a2", labels={zone: "a"}),
        node("b1", labels={zone: "b"}),
        service,
        pod("w1", node_name="a1", labels={"app": "web"}),
        pod("w2", node_name="a2", labels={"app": "web"}),
    )


def test_list_defaulting_custom_constraints_apply_to_pods_without_their_own() -> None:
    incoming = pod("p", labels={"app": "web"})
    # System defaulting only scores (ScheduleAnyway): every node stays feasible.
    r = run("profiles: [{}]", _spread_cluster(), incoming)
    assert all(v.feasible for v in r.nodes.values())
    r = run(
        """
profiles:
- pluginConfig:
  - name: PodTopologySpread
    args:
      defaultingType: List
      defaultConstraints:
      - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule}
""",
        _spread_cluster(),
        incoming,
    )
    # Zone a has 2 matching pods, zone b none: adding to a would make the skew 3 > 1.
    assert not r.nodes["a1"].feasible and r.nodes["a1"].plugin == "PodTopologySpread"
    assert r.nodes["a1"].reasons == ["node(s) didn't match pod topology spread constraints"]
    assert r.nodes["b1"].feasible


def test_score_weights_from_config_multiply_normalized_scores() -> None:
    r = run(
        "profiles: [{plugins: {score: {enabled: [{name: NodeResourcesFit, weight: 5}], disabled: [{name: ImageLocality}]}}}]",
        two_nodes(),
        INCOMING,
    )
    names = [p.name for p in r.score_plugins]
    assert names[0] == "NodeResourcesFit" and "ImageLocality" not in names
    ps = r.score_plugins[0]
    assert ps.weight == 5
    # LeastAllocated (cpu, memory weight 1): n1 (50 + 25) / 2 = 37, n2 87; times 5.
    assert {n: s.weighted for n, s in ps.scores.items()} == {"n1": 185, "n2": 435}

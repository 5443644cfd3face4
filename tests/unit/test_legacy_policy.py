"""The legacy pipeline end to end: the default provider, Policy-file selection (priorities
replacing the defaults, predicates narrowing the filters, arguments), EqualPriority, and
the Policy loader's validation errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kschedx.core.api.objects import ClusterObjects
from kschedx.core.errors import InputError
from kschedx.core.explain import front as engine
from kschedx.core.framework.result import CycleResult
from tests.unit.helpers import node, pod

Dict = dict[str, Any]


def cluster() -> ClusterObjects:
    objs = ClusterObjects()
    objs.add(node("small", cpu="1", memory="1Gi", labels={"zone": "z1"}))
    objs.add(node("big", cpu="8", memory="16Gi", labels={"zone": "z2"}))
    objs.add(node("tainted", cpu="8", memory="16Gi", labels={"zone": "z2"},
                  taints=[{"key": "dedicated", "value": "x", "effect": "NoSchedule"}]))
    objs.add(node("cordoned", cpu="8", memory="16Gi", unschedulable=True))
    objs.add(pod("running", cpu="500m", memory="256Mi", node_name="big", labels={"app": "web"}))
    objs.add({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web", "namespace": "default"},
              "spec": {"selector": {"app": "web"}}})
    return objs


def write(tmp_path: Path, doc: Any, name: str = "policy.json") -> str:
    p = tmp_path / name
    p.write_text(json.dumps(doc) if name.endswith(".json") else doc)
    return str(p)


def explain(policy: str | None = None, algorithm: str | None = "legacy-v1.12", incoming: Dict | None = None,
            objects: ClusterObjects | None = None) -> CycleResult:
    opts = engine.Options(algorithm=algorithm, policy=policy)
    p = incoming or pod("web-1", cpu="500m", memory="512Mi", labels={"app": "web"})
    return engine.explain_object(p, "pod.yaml", objects or cluster(), options=opts).steps[0]


def columns(r: CycleResult) -> list[tuple[str, int]]:
    return [(p.name, p.weight) for p in r.score_plugins]


def test_default_provider_priorities_and_weights() -> None:
    r = explain()
    assert r.algorithm == "legacy-v1.12" and r.to_json()["algorithm"] == "legacy-v1.12"
    assert columns(r) == [
        ("SelectorSpreadPriority", 1), ("InterPodAffinityPriority", 1), ("LeastRequestedPriority", 1),
        ("BalancedResourceAllocation", 1), ("NodePreferAvoidPodsPriority", 10000), ("NodeAffinityPriority", 1),
        ("TaintTolerationPriority", 1), ("ImageLocalityPriority", 1),
    ]
    # The default filters: today's plugins reject the tainted and the cordoned node.
    assert sorted(r.feasible_nodes) == ["big", "small"]
    assert any("filtering by today's v1.35 filter plugins" in n for n in r.notes)
    for name in r.feasible_nodes:
        assert r.totals[name] == sum(p.scores[name].weighted for p in r.score_plugins)
        for p in r.score_plugins:
            s = p.scores[name]
            assert 0 <= s.normalized <= 10 and s.weighted == s.normalized * p.weight
    # The running web pod is on big: spreading prefers small.
    spread = r.score_plugins[0]
    assert (spread.scores["big"].raw, spread.scores["big"].normalized) == (1, 0)
    assert spread.scores["small"].normalized == 10


def test_a_priorities_list_replaces_the_defaults(tmp_path: Path) -> None:
    path = write(tmp_path, {"kind": "Policy", "apiVersion": "v1",
                            "priorities": [{"name": "MostRequestedPriority", "weight": 2}]})
    r = explain(path)
    assert columns(r) == [("MostRequestedPriority", 2)]
    assert r.selected_node == "small"  # the fuller node
    assert any(path in n for n in r.notes)


def test_equal_priority_when_no_priority_and_no_extender(tmp_path: Path) -> None:
    r = explain(write(tmp_path, {"kind": "Policy", "priorities": []}))
    assert columns(r) == [("EqualPriority", 1)]
    assert {n: s.weighted for n, s in r.score_plugins[0].scores.items()} == {"small": 1, "big": 1}
    assert r.best_nodes == ["big", "small"]


def test_an_empty_predicates_list_runs_no_filter(tmp_path: Path) -> None:
    r = explain(write(tmp_path, {"kind": "Policy", "predicates": [], "priorities": [
        {"name": "LeastRequestedPriority", "weight": 1}]}))
    assert sorted(r.feasible_nodes) == ["big", "cordoned", "small", "tainted"]
    assert sorted(r.totals) == ["big", "cordoned", "small", "tainted"]


def test_predicates_select_the_filter_plugins_standing_in_for_them(tmp_path: Path) -> None:
    r = explain(write(tmp_path, {"kind": "Policy", "predicates": [{"name": "PodFitsResources"}]}))
    # Only NodeResourcesFit: taints and cordons no longer filter.
    assert sorted(r.feasible_nodes) == ["big", "cordoned", "small", "tainted"]
    big = pod("huge", cpu="4")
    r = explain(write(tmp_path, {"kind": "Policy", "predicates": [{"name": "GeneralPredicates"},
                                                                   {"name": "PodToleratesNodeTaints"}]}),
                incoming=big)
    assert sorted(r.feasible_nodes) == ["big", "cordoned"]
    assert r.nodes["small"].plugin == "NodeResourcesFit"


def test_service_anti_affinity_argument_names_the_column(tmp_path: Path) -> None:
    r = explain(write(tmp_path, {"kind": "Policy", "priorities": [
        {"name": "zone-spread", "weight": 3, "argument": {"serviceAntiAffinity": {"label": "zone"}}}]}))
    assert columns(r) == [("zone-spread", 3)]
    col = r.score_plugins[0]
    # One web pod, in z2: small (z1) 10, big (z2) 0.
    assert (col.scores["small"].normalized, col.scores["big"].normalized) == (10, 0)
    assert col.scores["small"].weighted == 30


def test_requested_to_capacity_ratio_and_label_preference_arguments(tmp_path: Path) -> None:
    doc = """
kind: Policy
apiVersion: v1
priorities:
- name: binpack
  weight: 1
  argument:
    requestedToCapacityRatioArguments:
      shape: [{utilization: 0, score: 0}, {utilization: 100, score: 10}]
- name: prefer-z1
  weight: 2
  argument:
    labelPreference: {label: zone, presence: true}
"""
    r = explain(write(tmp_path, doc, "policy.yaml"))
    assert columns(r) == [("binpack", 1), ("prefer-z1", 2)]
    assert r.score_plugins[0].scores["small"].normalized > r.score_plugins[0].scores["big"].normalized
    assert {n: s.normalized for n, s in r.score_plugins[1].scores.items()} == {"small": 10, "big": 10}


def test_hard_pod_affinity_symmetric_weight_reaches_inter_pod_affinity(tmp_path: Path) -> None:
    objs = cluster()
    holder = pod("holder", node_name="small", affinity={"podAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "zone"}]}})
    objs.add(holder)
    prios = [{"name": "InterPodAffinityPriority", "weight": 1}]
    r = explain(write(tmp_path, {"kind": "Policy", "priorities": prios, "hardPodAffinitySymmetricWeight": 5}),
                objects=objs)
    assert r.score_plugins[0].scores["small"].raw == 5
    r = explain(write(tmp_path, {"kind": "Policy", "priorities": prios}), objects=objs)
    assert r.score_plugins[0].scores["small"].raw == 1


def test_policy_implies_the_legacy_algorithm_but_not_with_v135(tmp_path: Path) -> None:
    path = write(tmp_path, {"kind": "Policy"})
    assert explain(path, algorithm=None).algorithm == "legacy-v1.12"
    with pytest.raises(InputError, match="needs --algorithm legacy-v1.12"):
        explain(path, algorithm="v1.35")


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ({"priorities": [{"name": "LeastRequestedPriority", "weight": 0}]},
         "priorities[0].weight: Invalid value: 0: Priority LeastRequestedPriority should have a positive weight"),
        ({"priorities": [{"name": "NoSuchPriority", "weight": 1}]},
         "priorities[0].name: Unsupported value: 'NoSuchPriority'"),
        ({"priorities": [{"name": "LeastRequestedPriority", "weight": "x"}]},
         "priorities[0].weight: Invalid value: 'x': must be an integer"),
        ({"priorities": [{"name": "a", "weight": 1, "argument": {"serviceAntiAffinity": {}}}]},
         "priorities[0].argument.serviceAntiAffinity.label: Required value"),
        ({"priorities": [{"name": "r", "weight": 1, "argument": {"requestedToCapacityRatioArguments": {
            "shape": [{"utilization": 50, "score": 1}, {"utilization": 40, "score": 2}]}}}]},
         "priorities[0].argument.requestedToCapacityRatioArguments.shape: Invalid value: utilization values must "
         "be sorted. Utilization[0]==50 >= Utilization[1]==40"),
        ({"priorities": [{"name": "EqualPriority", "weight": 1}, {"name": "EqualPriority", "weight": 2}]},
         "priorities[1].name: Duplicate value: 'EqualPriority'"),
        ({"predicates": [{"name": "PodFitsEverything"}]}, "predicates[0].name: Unsupported value: 'PodFitsEverything'"),
        ({"hardPodAffinitySymmetricWeight": 101}, "hardPodAffinitySymmetricWeight: Invalid value: 101"),
        ({"extenders": [{"urlPrefix": "http://127.0.0.1:1", "prioritizeVerb": "p"}]},
         "extenders[0].weight: Invalid value: 0: Priority for extender http://127.0.0.1:1 should have a positive"),
        ({"extenders": [{"urlPrefix": "http://x", "bindVerb": "b"}, {"urlPrefix": "http://y", "bindVerb": "b"}]},
         "Only one extender can implement bind, found 2"),
        ({"kind": "KubeSchedulerConfiguration"}, "kind: Invalid value: 'KubeSchedulerConfiguration'"),
    ],
)
def test_policy_validation_errors_name_the_field(tmp_path: Path, doc: Dict, message: str) -> None:
    path = write(tmp_path, {"kind": "Policy", **doc})
    with pytest.raises(InputError) as e:
        explain(path)
    assert message in str(e.value)
    assert str(e.value).startswith(path)


def test_argument_built_predicates_are_reported_not_evaluated(tmp_path: Path) -> None:
    r = explain(write(tmp_path, {"kind": "Policy", "predicates": [
        {"name": "PodFitsResources"},
        {"name": "zone-affinity", "argument": {"serviceAffinity": {"labels": ["zone"]}}}]}))
    assert any("zone-affinity" in w and "not evaluated" in w for w in r.warnings)


def test_node_focus_is_not_available_with_the_legacy_pipeline() -> None:
    opts = engine.Options(algorithm="legacy-v1.12", focus="big")
    with pytest.raises(InputError, match="--node"):
        engine.explain_object(pod("p"), "pod.yaml", cluster(), options=opts)


def test_no_equal_priority_when_an_extender_is_configured(tmp_path: Path) -> None:
    from kschedx.core.framework.extenders import Extender

    opts = engine.Options(policy=write(tmp_path, {"kind": "Policy", "priorities": []}), offline=True,
                          extenders=[Extender("http://127.0.0.1:9/x", prioritize_verb="p", weight=1)])
    r = engine.explain_object(pod("p"), "pod.yaml", cluster(), options=opts).steps[0]
    assert r.score_plugins == [] and set(r.totals.values()) == {0}
    assert any("--offline" in w for w in r.warnings)

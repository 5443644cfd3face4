"""``--node`` focus: every filter's verdict, score inputs and the hints."""

from __future__ import annotations

from typing import Any

import pytest

from kschedx.core.api.objects import ClusterObjects
from kschedx.core.errors import InputError
from kschedx.core.explain.focus import fmt_amount
from kschedx.core.explain.front import Options, explain_object
from kschedx.core.framework.result import FAIL, PASS, SKIPPED, NodeStory

from .helpers import node, pod

Dict = dict[str, Any]


def story(incoming: Dict, *objs: Dict, focus: str) -> NodeStory:
    cluster = ClusterObjects()
    for o in objs:
        cluster.add(o)
    result = explain_object(incoming, "p.yaml", cluster, options=Options(focus=focus)).steps[0]
    assert result.focus is not None
    return result.focus


def outcomes(s: NodeStory) -> dict[str, str]:
    return {f.plugin: f.outcome for f in s.filters}


def test_fmt_amount() -> None:
    assert fmt_amount("cpu", 350) == "350m"
    assert fmt_amount("memory", 512 * 1024 * 1024) == "512Mi"
    assert fmt_amount("memory", 3 * 1024**3 // 2) == "1.5Gi"
    assert fmt_amount("nvidia.com/gpu", 2) == "2"


def test_insufficient_cpu_says_how_much_to_free() -> None:
    s = story(pod("p", cpu="1500m"), node("a", cpu="2"), pod("busy", cpu="1", node_name="a"), focus="a")
    assert not s.feasible and s.rejected_at == "Filter"
    fit = next(f for f in s.filters if f.plugin == "NodeResourcesFit")
    assert fit.outcome == FAIL and fit.reported and fit.reasons == ["Insufficient cpu"]
    assert outcomes(s)["TaintToleration"] == PASS
    assert outcomes(s)["PodTopologySpread"] == SKIPPED
    assert s.hints == ["free 500m cpu on the node (the pod requests 1500m, 1000m is free), "
                       "or lower the request by that much"]


def test_request_above_allocatable_and_missing_extended_resource() -> None:
    # Another node is big enough and has a GPU: the advice is about this node.
    big = node("big", cpu="8", extra={"nvidia.com/gpu": "1"})
    s = story(pod("p", cpu="3", **{}), node("a", cpu="2"), big, focus="a")
    assert s.hints == ["the pod requests 3000m cpu but the node has only 2000m allocatable: "
                       "lower the request to at most that"]
    gpu = pod("g")
    gpu["spec"]["containers"][0]["resources"] = {"requests": {"nvidia.com/gpu": "1"}, "limits": {"nvidia.com/gpu": "1"}}
    s = story(gpu, node("a"), big, focus="a")
    assert s.hints == ["the node has no nvidia.com/gpu at all: pick a node that offers it, or drop the request"]


def test_request_above_every_nodes_allocatable() -> None:
    # No node could take it however empty: that is what the advice says, naming the largest.
    s = story(pod("p", cpu="12"), node("a", cpu="2"), node("c", cpu="8"), node("b", cpu="8"), focus="a")
    assert s.hints == ["the pod requests 12000m cpu, larger than any node's allocatable (largest: 8000m on b): "
                       "lower the request to at most that, or add a larger node"]
    gpu = pod("g")
    gpu["spec"]["containers"][0]["resources"] = {"requests": {"nvidia.com/gpu": "1"}, "limits": {"nvidia.com/gpu": "1"}}
    s = story(gpu, node("a"), node("b"), focus="a")
    assert s.hints == ["the pod requests 1 nvidia.com/gpu, and no node of the cluster offers nvidia.com/gpu: "
                       "add nodes that do, or drop the request"]


def test_every_failing_filter_is_listed_and_the_first_is_reported() -> None:
    taint = {"key": "dedicated", "value": "db", "effect": "NoSchedule"}
    p = pod("p", cpu="3", nodeSelector={"disk": "ssd"})
    s = story(p, node("a", cpu="2", taints=[taint]), node("b", labels={"disk": "ssd"}), focus="a")
    failed = [f for f in s.filters if f.outcome == FAIL]
    assert [f.plugin for f in failed] == ["TaintToleration", "NodeAffinity", "NodeResourcesFit"]
    assert [f.reported for f in failed] == [True, False, False]
    assert s.hints[0].startswith("3 changes are needed here")
    assert "tolerate taint dedicated=db:NoSchedule" in s.hints
    assert "label the node disk=ssd" in s.hints


def test_cordoned_node_is_one_change_even_with_its_taint() -> None:
    cordoned = node("a", unschedulable=True,
                    taints=[{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}])
    s = story(pod("p", cpu="100m"), cordoned, node("b"), focus="a")
    assert [f.plugin for f in s.filters if f.outcome == FAIL] == ["NodeUnschedulable", "TaintToleration"]
    assert s.hints == ["uncordon the node (kubectl uncordon a) or tolerate node.kubernetes.io/unschedulable:NoSchedule"]


def test_spread_hint_names_the_skew_and_the_roomy_domain() -> None:
    zone = "topology.kubernetes.io/zone"
    tsc = [{"maxSkew": 1, "topologyKey": zone, "whenUnsatisfiable": "DoNotSchedule",
            "labelSelector": {"matchLabels": {"app": "web"}}}]
    p = pod("p", cpu="100m", labels={"app": "web"}, topologySpreadConstraints=tsc)
    objs = [node("a", labels={zone: "z1"}), node("b", labels={zone: "z2"}),
            pod("w1", node_name="a", labels={"app": "web"})]
    s = story(p, *objs, focus="a")
    assert s.hints == [f"{zone}: with this pod z1 would hold 2 matching pod(s) against 0 in the emptiest domain, "
                       "a skew of 2 > maxSkew 1; raise maxSkew to 2, use whenUnsatisfiable: ScheduleAnyway, "
                       "or let it land in z2"]


def test_feasible_node_scores_inputs_rank_and_gap() -> None:
    img = {"names": ["nginx:1.27"], "sizeBytes": 300 * 1024 * 1024}
    soft = {"key": "spot", "value": "true", "effect": "PreferNoSchedule"}
    p = pod("p", cpu="500m", memory="1Gi")
    p["spec"]["containers"][0]["image"] = "nginx:1.27"
    s = story(p, node("a", taints=[soft]), node("b", images=[img]), focus="a")
    assert s.feasible and s.rank == 2 and s.winner == "b"
    facts = {d.plugin: d.facts for d in s.scores}
    assert facts["TaintToleration"] == ["untolerated PreferNoSchedule taint spot=true:PreferNoSchedule"]
    assert facts["NodeResourcesFit"][0] == "strategy LeastAllocated"
    assert facts["NodeResourcesFit"][1].startswith("cpu: 500m of 4000m requested with this pod (12%")
    assert facts["ImageLocality"] == ["nginx:1.27: not on the node"]
    assert s.hints[0].startswith("needs ") and "to beat b" in s.hints[0] and "TaintToleration −300" in s.hints[0]
    s = story(p, node("a", taints=[soft]), node("b", images=[img]), focus="b")
    assert s.rank == 1 and s.hints[0].startswith("the winner, ")
    assert any("on the node (300Mi), on 1 of 2 nodes" in f for f in {d.plugin: d.facts for d in s.scores}["ImageLocality"])


def test_unknown_focus_node() -> None:
    with pytest.raises(InputError, match="--node nope: no node of that name"):
        story(pod("p"), node("a"), focus="nope")


def test_volume_facts_bound_pending_and_missing_claims() -> None:
    zone = "topology.kubernetes.io/zone"
    pv = {"apiVersion": "v1", "kind": "PersistentVolume",
          "metadata": {"name": "pv-1", "labels": {zone: "z1"}},
          "spec": {"storageClassName": "fast", "capacity": {"storage": "10Gi"}, "accessModes": ["ReadWriteOnce"],
                   "claimRef": {"name": "data", "namespace": "default"},
                   "nodeAffinity": {"required": {"nodeSelectorTerms": [
                       {"matchExpressions": [{"key": zone, "operator": "In", "values": ["z1"]}]}]}}},
          "status": {"phase": "Bound"}}
    bound = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
             "metadata": {"name": "data", "namespace": "default",
                          "annotations": {"pv.kubernetes.io/bind-completed": "yes"}},
             "spec": {"volumeName": "pv-1", "storageClassName": "fast", "accessModes": ["ReadWriteOnce"]},
             "status": {"phase": "Bound"}}
    pending = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
               "metadata": {"name": "scratch", "namespace": "default"},
               "spec": {"storageClassName": "wffc", "accessModes": ["ReadWriteOnce"],
                        "resources": {"requests": {"storage": "1Gi"}}},
               "status": {"phase": "Pending"}}
    sc = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "wffc"},
          "provisioner": "ebs.csi.aws.com", "volumeBindingMode": "WaitForFirstConsumer",
          "allowedTopologies": [{"matchLabelExpressions": [{"key": zone, "values": ["z2"]}]}]}
    p = pod("p", cpu="100m", volumes=[{"name": "d", "persistentVolumeClaim": {"claimName": "data"}},
                                      {"name": "s", "persistentVolumeClaim": {"claimName": "scratch"}},
                                      {"name": "m", "persistentVolumeClaim": {"claimName": "missing"}},
                                      {"name": "tmp", "emptyDir": {}}])
    cluster = ClusterObjects()
    for o in (node("a", labels={zone: "z1"}), node("b", labels={zone: "z2"}), pv, bound, pending, sc):
        cluster.add(o)
    wide = explain_object(p, "p.yaml", cluster).steps[0].volumes
    assert wide == [
        "volume d: claim data is bound to PV pv-1: its node affinity allows 1 of 2 node(s)",
        "volume s: claim scratch is pending, class wffc (WaitForFirstConsumer, ebs.csi.aws.com): "
        "its allowedTopologies allow 1 of 2 node(s); bound where the pod lands",
        "volume m: claim missing does not exist (VolumeBinding rejects the pod for every node)",
    ]
    s = story(p, node("a", labels={zone: "z1"}), pv, bound, pending, sc, focus="a")
    assert s.volumes == [
        "volume d: claim data is bound to PV pv-1 (fast): its node affinity matches this node; "
        "PV zone z1, node zone z1",
        "volume s: claim scratch is pending: class wffc, WaitForFirstConsumer, provisioner ebs.csi.aws.com; "
        "its allowedTopologies exclude this node",
        "volume m: claim missing does not exist",
    ]


def test_pod_affinity_hints_and_facts() -> None:
    host = "kubernetes.io/hostname"
    anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": host}]},
        "podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 40, "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": host}}]}}
    p = pod("web-1", cpu="100m", labels={"app": "web"}, affinity=anti)
    objs = (node("a"), node("b"), pod("web-0", node_name="a", labels={"app": "web"}),
            pod("db", node_name="b", labels={"app": "db"}))
    s = story(p, *objs, focus="a")
    assert s.hints == ["move the 1 pod(s) matching app=web out of kubernetes.io/hostname=a, "
                       "or relax the required pod anti-affinity"]
    s = story(p, *objs, focus="b")
    facts = {d.plugin: d.facts for d in s.scores}["InterPodAffinity"]
    assert facts == ["preferred affinity term 1 (+40, selector app=db): 1 matching pod(s) in kubernetes.io/hostname=b"]


def test_request_above_allocatable_counts_what_the_node_already_runs() -> None:
    # 3 CPUs asked of a 2-CPU node whose pods hold 500m: at most 1500m would fit, not 2000m.
    s = story(pod("p", cpu="3"), node("a", cpu="2"), node("big", cpu="8"), pod("busy", cpu="500m", node_name="a"),
              focus="a")
    assert s.hints == ["the pod requests 3000m cpu but the node has only 2000m allocatable, 500m of it already "
                       "requested by its pods: lower the request to at most 1500m (what they leave free)"]
    s = story(pod("p", cpu="3"), node("a", cpu="2"), node("big", cpu="8"), pod("busy", cpu="2", node_name="a"),
              focus="a")
    assert s.hints == ["the pod requests 3000m cpu but the node has only 2000m allocatable, all of it already "
                       "requested by its pods: lower the request to at most 2000m and free that much on the node"]


def test_a_selector_key_or_value_no_node_has_gets_the_closest_spelling() -> None:
    nodes = [node("a", labels={"node-pool": "general"}), node("b", labels={"node-pool": "batch"})]
    s = story(pod("p", cpu="100m", nodeSelector={"node-pol": "general"}), *nodes, focus="a")
    assert s.hints == ["no node has label node-pol — did you mean node-pool?"]
    s = story(pod("p", cpu="100m", nodeSelector={"node-pool": "genral"}), *nodes, focus="a")
    assert s.hints == ["no node has node-pool=genral (nodes have node-pool=batch, general) — did you mean "
                       "node-pool=general?"]
    # A label some other node has: labelling this one is the advice.
    s = story(pod("p", cpu="100m", nodeSelector={"node-pool": "batch"}), *nodes, focus="a")
    assert s.hints == ["label the node node-pool=batch"]
    aff = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "node-pol", "operator": "In", "values": ["general"]}]}]}}}
    s = story(pod("p", cpu="100m", affinity=aff), *nodes, focus="a")
    assert "no node has label node-pol — did you mean node-pool?" in s.hints


def test_the_two_memory_figures_of_a_node_say_why_they_differ() -> None:
    # A pod without requests on the node: scoring counts it as 100m / 200Mi in
    # NodeResourcesFit, as written (nothing) in the balanced allocation.
    bare = pod("bare", node_name="a")
    s = story(pod("p", cpu="500m", memory="1Gi"), node("a", cpu="4", memory="8Gi"), bare, focus="a")
    facts = {d.plugin: d.facts for d in s.scores}
    fit_mem = next(f for f in facts["NodeResourcesFit"] if f.startswith("memory:"))
    bal_mem = next(f for f in facts["NodeResourcesBalancedAllocation"] if f.startswith("memory:"))
    assert fit_mem.startswith("memory: 1.2Gi of 8Gi") and "as written the requests are 1Gi" in fit_mem
    assert bal_mem.startswith("memory: 1Gi of 8Gi") and "NodeResourcesFit counts 1.2Gi" in bal_mem

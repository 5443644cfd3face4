"""Filter reasons and score arithmetic of the node-local plugins, through the real framework."""

from kschedx.core.framework.interface import NodeStatusMap, Status, default_normalize, fit_error_message
from kschedx.core.plugins.imagelocality import calculate_priority, normalized_image_name
from kschedx.core.plugins.noderesources_allocation import (
    ResourceSpec,
    balanced_scorer,
    broken_linear,
    least_allocated_scorer,
    most_allocated_scorer,
    requested_to_capacity_ratio_scorer,
)

from .helpers import cycle, node, pod, snapshot


def _verdict(result, name):  # type: ignore[no-untyped-def]
    v = result.nodes[name]
    return (v.feasible, v.plugin, v.code, v.reasons)


def test_fit_reasons_and_codes() -> None:
    snap = snapshot(
        node("small", cpu="1", memory="1Gi"),
        node("busy", cpu="4", memory="8Gi"),
        node("full", cpu="4", memory="8Gi", pods=1),
        pod("hog", cpu="3500m", memory="1Gi", node_name="busy"),
        pod("one", node_name="full"),
    )
    r = cycle(snap, pod("p", cpu="2", memory="512Mi"))
    # More than the node has at all: preemption cannot help -> UnschedulableAndUnresolvable.
    assert _verdict(r, "small") == (False, "NodeResourcesFit", "UnschedulableAndUnresolvable", ["Insufficient cpu"])
    assert _verdict(r, "busy") == (False, "NodeResourcesFit", "Unschedulable", ["Insufficient cpu"])
    assert _verdict(r, "full") == (False, "NodeResourcesFit", "Unschedulable", ["Too many pods"])


def test_fit_extended_resources_and_zero_allocatable() -> None:
    snap = snapshot(node("gpu", extra={"nvidia.com/gpu": "2"}), node("plain"), node("zero", cpu="0", memory="0"))
    p = pod("p")
    p["spec"]["containers"][0]["resources"] = {"limits": {"nvidia.com/gpu": "1"}}
    r = cycle(snap, p)
    assert r.nodes["gpu"].feasible
    assert _verdict(r, "plain")[3] == ["Insufficient nvidia.com/gpu"]
    # A best-effort pod fits even where allocatable is zero (only the pod count is checked).
    r2 = cycle(snapshot(node("zero", cpu="0", memory="0")), pod("be"))
    assert r2.nodes["zero"].feasible


def test_taints_unschedulable_node_selector_ports() -> None:
    snap = snapshot(
        node("tainted", taints=[{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]),
        node("cordoned", unschedulable=True),
        node("ssd", labels={"disk": "ssd"}),
        node("hdd", labels={"disk": "hdd"}),
        pod("web", node_name="hdd", containers=[{"name": "c", "ports": [{"containerPort": 80, "hostPort": 80}]}]),
    )
    p = pod("p", nodeSelector={"disk": "hdd"}, containers=[{"name": "c", "ports": [{"containerPort": 80, "hostPort": 80}]}])
    r = cycle(snap, p)
    assert _verdict(r, "tainted") == (
        False,
        "TaintToleration",
        "UnschedulableAndUnresolvable",
        ["node(s) had untolerated taint(s)"],
    )
    assert _verdict(r, "cordoned") == (False, "NodeUnschedulable", "UnschedulableAndUnresolvable", ["node(s) were unschedulable"])
    assert _verdict(r, "ssd") == (
        False,
        "NodeAffinity",
        "UnschedulableAndUnresolvable",
        ["node(s) didn't match Pod's node affinity/selector"],
    )
    assert _verdict(r, "hdd") == (
        False,
        "NodePorts",
        "Unschedulable",
        ["node(s) didn't have free ports for the requested pod ports"],
    )
    assert r.fit_error is not None
    assert r.fit_error.startswith(
        "0/4 nodes are available: 1 node(s) didn't have free ports for the requested pod ports, "
        "1 node(s) didn't match Pod's node affinity/selector, 1 node(s) had untolerated taint(s), "
        "1 node(s) were unschedulable."
    )


def test_node_affinity_prefilter_node_names() -> None:
    snap = snapshot(node("a"), node("b"), node("c"))
    aff = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["b"]}]}]
            }
        }
    }
    r = cycle(snap, pod("p", affinity=aff))
    assert r.pre_filter.node_names == ["b"]
    assert r.nodes["b"].feasible
    assert _verdict(r, "a") == (False, "", "UnschedulableAndUnresolvable", ["node(s) didn't satisfy plugin(s) [NodeAffinity]"])


def test_preferred_node_affinity_scores() -> None:
    snap = snapshot(node("a", labels={"zone": "z1"}), node("b", labels={"zone": "z2"}))
    aff = {
        "nodeAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 30, "preference": {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["z1"]}]}},
                {"weight": 10, "preference": {"matchExpressions": [{"key": "zone", "operator": "Exists"}]}},
            ]
        }
    }
    r = cycle(snap, pod("p", cpu="100m", memory="100Mi", affinity=aff))
    na = next(p for p in r.score_plugins if p.name == "NodeAffinity")
    assert not na.skipped
    assert (na.scores["a"].raw, na.scores["a"].normalized, na.scores["a"].weighted) == (40, 100, 200)
    assert (na.scores["b"].raw, na.scores["b"].normalized) == (10, 25)
    assert r.best_nodes == ["a"]


def test_prefer_no_schedule_taints_score_reversed() -> None:
    soft = {"key": "spot", "value": "true", "effect": "PreferNoSchedule"}
    snap = snapshot(node("a", taints=[soft]), node("b"))
    r = cycle(snap, pod("p", cpu="100m", memory="100Mi"))
    tt = next(p for p in r.score_plugins if p.name == "TaintToleration")
    assert (tt.scores["a"].raw, tt.scores["a"].normalized) == (1, 0)
    assert (tt.scores["b"].raw, tt.scores["b"].normalized, tt.scores["b"].weighted) == (0, 100, 300)


def test_least_allocated_uses_non_zero_requests() -> None:
    snap = snapshot(node("n", cpu="1", memory="1000Mi"), pod("be", node_name="n"))
    r = cycle(snap, pod("p"))
    fit = next(p for p in r.score_plugins if p.name == "NodeResourcesFit")
    # requested = 100m + 100m of 1000m -> 80; memory 400Mi of 1000Mi -> 60; mean 70
    assert fit.scores["n"].raw == 70
    bal = next(p for p in r.score_plugins if p.name == "NodeResourcesBalancedAllocation")
    assert bal.skipped  # best-effort incoming pod


def test_scorers_arithmetic() -> None:
    res = (ResourceSpec("cpu", 1), ResourceSpec("memory", 1))
    assert least_allocated_scorer(res)([500, 3000], [1000, 2000]) == 25  # (50 + 0) / 2
    assert most_allocated_scorer(res)([500, 3000], [1000, 2000]) == 75  # (50 + 100) / 2
    assert least_allocated_scorer(res)([0, 0], [0, 0]) == 0
    assert balanced_scorer([500, 1000], [1000, 1000]) == 75
    assert balanced_scorer([500, 5000], [1000, 1000]) == 75  # fractions capped at 1
    assert balanced_scorer([1, 2, 3], [10, 10, 10]) == 91
    f = broken_linear([(0, 0), (50, 5), (100, 10)])
    assert (f(0), f(25), f(50), f(75), f(100)) == (0, 2, 5, 7, 10)
    rtc = requested_to_capacity_ratio_scorer(res, [(0, 0), (100, 10)])
    assert rtc([500, 1500], [1000, 2000]) == 63  # round((50 + 75) / 2)


def test_image_locality() -> None:
    assert normalized_image_name("nginx") == "nginx:latest"
    assert normalized_image_name("nginx:1.2") == "nginx:1.2"
    assert normalized_image_name("registry:5000/app") == "registry:5000/app:latest"
    assert normalized_image_name("app@sha256:abc") == "app@sha256:abc"
    mb = 1024 * 1024
    assert calculate_priority(0, 1) == 0
    assert calculate_priority(1000 * mb, 1) == 100
    assert calculate_priority(500 * mb, 1) == 100 * (477 * mb) // (977 * mb)
    big = 800 * mb
    snap = snapshot(
        node("a", images=[{"names": ["busybox:1.36"], "sizeBytes": big}]),
        node("b", images=[{"names": ["busybox:1.36"], "sizeBytes": big}]),
        node("c"),
        node("d"),
    )
    r = cycle(snap, pod("p", cpu="100m", memory="100Mi"))
    il = next(p for p in r.score_plugins if p.name == "ImageLocality")
    # spread 2/4: 400 MiB counted of a 1000 MiB scale starting at 23 MiB
    assert il.scores["a"].raw == 100 * (400 * mb - 23 * mb) // (977 * mb)
    assert il.scores["c"].raw == 0


def test_image_locality_of_images_no_node_holds_reads_no_node() -> None:
    """Scoring reads no node's parsed image list: a pod whose images no node holds (a
    rollout's new tag) scores 0 on every node, and one that some node holds is scored from
    each node's image sizes by name, read once with the snapshot's image counts."""
    mb = 1024 * 1024

    class Unread(list):  # type: ignore[type-arg]
        reads = 0

        def __iter__(self):  # type: ignore[no-untyped-def]
            Unread.reads += 1
            return super().__iter__()

    snap = snapshot(node("a", images=[{"names": ["busybox:1.36"], "sizeBytes": 800 * mb}]), node("b"))
    snap.image_num_nodes()  # the cluster-wide summary is built once, before any cycle
    for ni in snap.nodes():
        ni.node.images = Unread(ni.node.images)
    new = pod("p", cpu="100m", memory="100Mi")
    new["spec"]["containers"][0]["image"] = "registry.example.com/app:v2"
    r = cycle(snap, new)
    il = next(p for p in r.score_plugins if p.name == "ImageLocality")
    assert {n: s.raw for n, s in il.scores.items()} == {"a": 0, "b": 0}
    assert Unread.reads == 0
    r = cycle(snap, pod("q", cpu="100m", memory="100Mi"))
    il = next(p for p in r.score_plugins if p.name == "ImageLocality")
    assert il.scores["a"].raw == 100 * (400 * mb - 23 * mb) // (977 * mb) and il.scores["b"].raw == 0
    assert Unread.reads == 0


def test_default_normalize() -> None:
    s = {"a": 0, "b": 5, "c": 10}
    default_normalize(s, reverse=False)
    assert s == {"a": 0, "b": 50, "c": 100}
    z = {"a": 0, "b": 0}
    default_normalize(z, reverse=True)
    assert z == {"a": 100, "b": 100}


def test_fit_error_message_sorting_and_absent_nodes() -> None:
    st = NodeStatusMap(
        {"a": Status.unschedulable("Insufficient cpu"), "b": Status.unresolvable("node(s) were unschedulable")},
        Status.unresolvable("node(s) didn't satisfy plugin(s) [NodeAffinity]"),
    )
    msg = fit_error_message(12, "", st, "post.")
    # Go sorts the "N reason" strings bytewise: "1 " (space 0x20) sorts before "10".
    assert msg == (
        "0/12 nodes are available: 1 Insufficient cpu, 1 node(s) were unschedulable, "
        "10 node(s) didn't satisfy plugin(s) [NodeAffinity]. post."
    )
    assert fit_error_message(3, "boom", st, "") == "0/3 nodes are available: boom."


def test_scheduling_gates() -> None:
    r = cycle(snapshot(node("a")), pod("p", schedulingGates=[{"name": "wait"}]))
    assert r.gated == ["waiting for scheduling gates: [wait]"]
    assert r.selected_node is None

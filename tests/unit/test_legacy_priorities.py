"""v1.12 NodeAffinity, TaintToleration, NodePreferAvoidPods, ImageLocality,
SelectorSpread (with zones), ServiceAntiAffinity and InterPodAffinity priorities against
the cases of upstream's release-1.12 test tables, rewritten as kschedx inputs."""

from __future__ import annotations

import json
from typing import Any

import pytest

from kschedx.core.legacy.image_locality import ImageLocalityPriority
from kschedx.core.legacy.interpod_affinity import InterPodAffinityPriority
from kschedx.core.legacy.node_affinity import NodeAffinityPriority
from kschedx.core.legacy.node_prefer_avoid_pods import ANNOTATION, NodePreferAvoidPodsPriority
from kschedx.core.legacy.selector_spreading import SelectorSpreadPriority, ServiceSpreadingPriority
from kschedx.core.legacy.service_anti_affinity import ServiceAntiAffinityPriority
from kschedx.core.legacy.taint_toleration import TaintTolerationPriority
from tests.unit.legacy_helpers import controller, final, mnode, mpod, run, service

Dict = dict[str, Any]
MB = 1024 * 1024


# --------------------------------------------------------------------------- NodeAffinity


def _pref(weight: int, *exprs: tuple[str, str]) -> Dict:
    return {"weight": weight, "preference": {"matchExpressions": [
        {"key": k, "operator": "In", "values": [v]} for k, v in exprs]}}


AFF1 = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [_pref(2, ("foo", "bar"))]}}
AFF2 = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
    _pref(2, ("foo", "bar")), _pref(4, ("key", "value")), _pref(5, ("foo", "bar"), ("key", "value"), ("az", "az1"))]}}
L1, L2, L3 = {"foo": "bar"}, {"key": "value"}, {"az": "az1"}
L4, L5 = {"abc": "az11", "def": "az22"}, {"foo": "bar", "key": "value", "az": "az1"}


@pytest.mark.parametrize(
    ("affinity", "labels", "expected"),
    [
        (None, [("machine1", L1), ("machine2", L2), ("machine3", L3)], [0, 0, 0]),
        (AFF1, [("machine1", L4), ("machine2", L2), ("machine3", L3)], [0, 0, 0]),
        (AFF1, [("machine1", L1), ("machine2", L2), ("machine3", L3)], [10, 0, 0]),
        (AFF2, [("machine1", L1), ("machine5", L5), ("machine2", L2)], [1, 10, 3]),
    ],
)
def test_node_affinity(affinity: Dict | None, labels: list[tuple[str, dict[str, str]]], expected: list[int]) -> None:
    out = final(NodeAffinityPriority("NodeAffinityPriority", 1), mpod(affinity=affinity),
                [mnode(n, labels=lab) for n, lab in labels])
    assert [out[n] for n, _ in labels] == expected


def test_node_affinity_term_without_expressions_matches_nothing() -> None:
    aff = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 3, "preference": {}}]}}
    raw, _ = run(NodeAffinityPriority("N", 1), mpod(affinity=aff), [mnode("a"), mnode("b")])
    assert raw == {"a": 0, "b": 0}


# --------------------------------------------------------------------------- TaintToleration


def _t(key: str, value: str, effect: str = "PreferNoSchedule") -> Dict:
    return {"key": key, "value": value, "effect": effect}


def _tol(key: str, value: str, effect: str = "PreferNoSchedule") -> Dict:
    return {"key": key, "operator": "Equal", "value": value, "effect": effect}


@pytest.mark.parametrize(
    ("tolerations", "taints", "expected"),
    [
        ([_tol("foo", "bar")], [[_t("foo", "bar")], [_t("foo", "blah")]], [10, 0]),
        ([_tol("cpu-type", "arm64"), _tol("disk-type", "ssd")],
         [[], [_t("cpu-type", "arm64")], [_t("cpu-type", "arm64"), _t("disk-type", "ssd")]], [10, 10, 10]),
        ([_tol("foo", "bar")], [[], [_t("cpu-type", "arm64")], [_t("cpu-type", "arm64"), _t("disk-type", "ssd")]],
         [10, 5, 0]),
        ([_tol("cpu-type", "arm64", "NoSchedule"), _tol("disk-type", "ssd", "NoSchedule")],
         [[], [_t("cpu-type", "arm64", "NoSchedule")], [_t("cpu-type", "arm64"), _t("disk-type", "ssd")]],
         [10, 10, 0]),
        ([], [[], [_t("cpu-type", "arm64")]], [10, 0]),
    ],
)
def test_taint_toleration(tolerations: list[Dict], taints: list[list[Dict]], expected: list[int]) -> None:
    names = [f"node{chr(65 + i)}" for i in range(len(taints))]
    out = final(TaintTolerationPriority("TaintTolerationPriority", 1), mpod(tolerations=tolerations),
                [mnode(n, taints=t) for n, t in zip(names, taints, strict=True)])
    assert [out[n] for n in names] == expected


# --------------------------------------------------------------------------- NodePreferAvoidPods


def _avoid(kind: str, uid: str) -> dict[str, str]:
    doc = {"preferAvoidPods": [{"podSignature": {"podController": {
        "apiVersion": "v1", "kind": kind, "name": "foo", "uid": uid, "controller": True}},
        "reason": "some reason", "message": "some message"}]}
    return {ANNOTATION: json.dumps(doc)}


AVOID_NODES = [mnode("machine1", annotations=_avoid("ReplicationController", "abcdef123456")),
               mnode("machine2", annotations=_avoid("ReplicaSet", "qwert12345")),
               mnode("machine3")]


@pytest.mark.parametrize(
    ("owner", "expected"),
    [
        ({"kind": "ReplicationController", "name": "foo", "uid": "abcdef123456", "controller": True}, [0, 10, 10]),
        ({"kind": "RandomController", "name": "foo", "uid": "abcdef123456", "controller": True}, [10, 10, 10]),
        ({"kind": "ReplicationController", "name": "foo", "uid": "abcdef123456"}, [10, 10, 10]),
        ({"kind": "ReplicaSet", "name": "foo", "uid": "qwert12345", "controller": True}, [10, 0, 10]),
    ],
)
def test_node_prefer_avoid_pods(owner: Dict, expected: list[int]) -> None:
    out = final(NodePreferAvoidPodsPriority("NodePreferAvoidPodsPriority", 10000), mpod(owner=owner), AVOID_NODES)
    assert [out["machine1"], out["machine2"], out["machine3"]] == expected


def test_unparsable_prefer_avoid_annotation_is_ignored() -> None:
    owner = {"kind": "ReplicaSet", "name": "foo", "uid": "u", "controller": True}
    out = final(NodePreferAvoidPodsPriority("P", 1), mpod(owner=owner), [mnode("n", annotations={ANNOTATION: "{"})])
    assert out == {"n": 10}


# --------------------------------------------------------------------------- ImageLocality

# v1.12.0 pkg/scheduler/algorithm/priorities/image_locality_test.go TestImageLocalityPriority.
IMG_NODE1 = [{"names": ["gcr.io/40:latest", "gcr.io/40:v1", "gcr.io/40:v1"], "sizeBytes": 40 * MB},
             {"names": ["gcr.io/300:latest", "gcr.io/300:v1"], "sizeBytes": 300 * MB},
             {"names": ["gcr.io/2000:latest"], "sizeBytes": 2000 * MB}]
IMG_NODE2 = [{"names": ["gcr.io/250:latest"], "sizeBytes": 250 * MB},
             {"names": ["gcr.io/10:latest", "gcr.io/10:v1"], "sizeBytes": 10 * MB}]


@pytest.mark.parametrize(
    ("images", "expected"),
    [
        # 40M/2 < 23M -> 0; 10 * (250M/2 - 23M) / 977M = 1.
        (["gcr.io/40", "gcr.io/250"], (0, 1)),
        # 10 * ((40M + 300M)/2 - 23M) / 977M = 1.
        (["gcr.io/40", "gcr.io/300"], (1, 0)),
        # 2000M/2 >= 1000M -> 10; 10M/2 < 23M -> 0.
        (["gcr.io/2000", "gcr.io/10"], (10, 0)),
    ],
)
def test_image_locality(images: list[str], expected: tuple[int, int]) -> None:
    """v1.12.0 ImageLocalityPriorityMap: sizes scaled by spread (each image on 1 of 2 nodes),
    tagless names as :latest, calculatePriority's linear 0-10."""
    out = final(ImageLocalityPriority("ImageLocalityPriority", 1), mpod(images=images),
                [mnode("machine1", images=IMG_NODE1), mnode("machine2", images=IMG_NODE2)])
    assert (out["machine1"], out["machine2"]) == expected


def test_image_locality_spread_and_linear_map() -> None:
    """v1.12.0 scaledImageScore and calculatePriority: an image on every node counts whole,
    one on a third of the nodes a third; init containers are not counted; no +1 bucket."""
    img = [{"names": ["reg/app:1"], "sizeBytes": 600 * MB}, {"names": ["reg/init:latest"], "sizeBytes": 900 * MB}]
    nodes = [mnode("n1", images=img), mnode("n2", images=img[:1]), mnode("n3", images=img[:1])]
    pod = mpod(images=["reg/app:1"])
    # 600M on 3 of 3 nodes: 10 * (600M - 23M) / 977M = 5 (5.9 truncated; older releases gave 6).
    assert final(ImageLocalityPriority("ImageLocalityPriority", 1), pod, nodes)["n1"] == 5
    pod["spec"]["initContainers"] = [{"name": "i", "image": "reg/init"}]
    assert final(ImageLocalityPriority("ImageLocalityPriority", 1), pod, nodes)["n1"] == 5
    rare = mpod(images=["reg/init"])
    # 900M on 1 of 3 nodes: 300M -> 10 * 277M / 977M = 2.
    assert final(ImageLocalityPriority("ImageLocalityPriority", 1), rare, nodes) == {"n1": 2, "n2": 0, "n3": 0}


# --------------------------------------------------------------------------- SelectorSpread

LAB1 = {"foo": "bar", "baz": "blah"}
LAB2 = {"bar": "foo", "baz": "blah"}
TWO = [mnode("machine1"), mnode("machine2")]


@pytest.mark.parametrize(
    ("pod_labels", "existing", "objects", "expected"),
    [
        ({}, [], [], (10, 10)),
        (LAB1, [("machine1", {})], [], (10, 10)),
        (LAB1, [("machine1", LAB2)], [service({"key": "value"})], (10, 10)),
        (LAB1, [("machine1", LAB2), ("machine2", LAB1)], [service(LAB1)], (10, 0)),
        (LAB1, [("machine1", LAB2), ("machine1", LAB1), ("machine2", LAB1)], [service(LAB1)], (0, 0)),
        (LAB1, [("machine1", LAB2), ("machine1", LAB1), ("machine2", LAB1), ("machine2", LAB1)],
         [service(LAB1)], (5, 0)),
        (LAB1, [("machine1", LAB2), ("machine1", LAB1), ("machine2", LAB1)], [service({"baz": "blah"})], (0, 5)),
        (LAB1, [("machine1", LAB2), ("machine1", LAB1), ("machine2", LAB1)],
         [controller("ReplicationController", {"foo": "bar"}), service({"baz": "blah"})], (0, 5)),
        (LAB1, [("machine1", LAB2), ("machine1", LAB1), ("machine2", LAB1)],
         [service({"baz": "blah"}), controller("ReplicaSet", {"foo": "bar"})], (0, 5)),
        (LAB1, [("machine1", LAB2), ("machine1", LAB1), ("machine2", LAB1)],
         [service({"baz": "blah"}), controller("StatefulSet", {"foo": "bar"})], (0, 5)),
        ({"foo": "bar", "bar": "foo"}, [("machine1", LAB2), ("machine1", LAB1), ("machine2", LAB1)],
         [controller("ReplicationController", {"foo": "bar"}), service({"bar": "foo"})], (0, 5)),
        ({"foo": "bar", "bar": "foo"}, [("machine1", LAB2), ("machine1", LAB1), ("machine2", LAB1)],
         [service({"bar": "foo"}), controller("ReplicaSet", {"foo": "bar"})], (0, 5)),
        (LAB1, [("machine1", LAB2), ("machine1", LAB1), ("machine2", LAB1)],
         [controller("ReplicationController", {"foo": "bar"})], (0, 0)),
        (LAB1, [("machine1", LAB2), ("machine1", LAB1), ("machine2", LAB1)],
         [controller("StatefulSet", {"foo": "bar"})], (0, 0)),
        (LAB1, [("machine1", LAB2), ("machine1", LAB1), ("machine2", LAB1)],
         [controller("ReplicationController", {"baz": "blah"})], (0, 5)),
        (LAB1, [("machine1", LAB2), ("machine1", LAB1), ("machine2", LAB1)],
         [controller("ReplicaSet", {"baz": "blah"})], (0, 5)),
    ],
)
def test_selector_spread(pod_labels: dict[str, str], existing: list[tuple[str, dict[str, str]]],
                         objects: list[Dict], expected: tuple[int, int]) -> None:
    pods = [mpod(n, labels=lab) for n, lab in existing]
    out = final(SelectorSpreadPriority("SelectorSpreadPriority", 1), mpod(labels=pod_labels), TWO, pods, objects)
    assert (out["machine1"], out["machine2"]) == expected


def test_selector_spread_counts_only_the_pods_namespace() -> None:
    # "five pods, one service pod in specific namespace": only ns1's matching pod counts.
    pods = [mpod("machine1", labels=LAB1, namespace="default"), mpod("machine1", labels=LAB1, namespace="ns2"),
            mpod("machine2", labels=LAB1, namespace="ns1"), mpod("machine2", labels=LAB2, namespace="ns1")]
    out = final(SelectorSpreadPriority("S", 1), mpod(labels=LAB1, namespace="ns1"), TWO, pods,
                [service(LAB1, namespace="ns1")])
    assert out == {"machine1": 10, "machine2": 0}


ZONES = {"machine1.zone1": "zone1", "machine1.zone2": "zone2", "machine2.zone2": "zone2",
         "machine1.zone3": "zone3", "machine2.zone3": "zone3", "machine3.zone3": "zone3"}
ZLAB1 = {"label1": "l1", "baz": "blah"}
ZLAB2 = {"label2": "l2", "baz": "blah"}


def _zone_nodes(label: str = "failure-domain.beta.kubernetes.io/zone") -> list[Dict]:
    return [mnode(n, labels={label: z}) for n, z in ZONES.items()]


@pytest.mark.parametrize(
    ("pod_labels", "existing", "objects", "expected"),
    [
        ({}, [], [], [10, 10, 10, 10, 10, 10]),
        (ZLAB1, [("machine1.zone1", {})], [], [10, 10, 10, 10, 10, 10]),
        (ZLAB1, [("machine1.zone1", ZLAB2)], [service({"key": "value"})], [10, 10, 10, 10, 10, 10]),
        (ZLAB1, [("machine1.zone1", ZLAB2), ("machine1.zone2", ZLAB2)], [service(ZLAB1)], [10, 10, 10, 10, 10, 10]),
        (ZLAB1, [("machine1.zone1", ZLAB2), ("machine1.zone2", ZLAB1)], [service(ZLAB1)], [10, 0, 3, 10, 10, 10]),
        (ZLAB1, [("machine1.zone1", ZLAB2), ("machine1.zone2", ZLAB1), ("machine2.zone2", ZLAB1),
                 ("machine1.zone3", ZLAB2), ("machine2.zone3", ZLAB1)], [service(ZLAB1)], [10, 0, 0, 6, 3, 6]),
        (ZLAB1, [("machine1.zone1", ZLAB1), ("machine1.zone2", ZLAB1), ("machine2.zone2", ZLAB2),
                 ("machine1.zone3", ZLAB1)], [service(ZLAB1)], [0, 0, 3, 0, 3, 3]),
        (ZLAB1, [("machine1.zone3", ZLAB1), ("machine1.zone2", ZLAB1), ("machine1.zone3", ZLAB1)],
         [controller("ReplicationController", ZLAB1)], [10, 5, 6, 0, 3, 3]),
    ],
)
def test_selector_spread_with_zones(pod_labels: dict[str, str], existing: list[tuple[str, dict[str, str]]],
                                    objects: list[Dict], expected: list[int]) -> None:
    pods = [mpod(n, labels=lab) for n, lab in existing]
    out = final(SelectorSpreadPriority("SelectorSpreadPriority", 1), mpod(labels=pod_labels), _zone_nodes(), pods,
                objects)
    assert [out[n] for n in ZONES] == expected


def test_zone_spreading_falls_back_to_the_ga_zone_label() -> None:
    pods = [mpod("machine1.zone1", labels=ZLAB2), mpod("machine1.zone2", labels=ZLAB1)]
    out = final(SelectorSpreadPriority("S", 1), mpod(labels=ZLAB1), _zone_nodes("topology.kubernetes.io/zone"), pods,
                [service(ZLAB1)])
    assert [out[n] for n in ZONES] == [10, 0, 3, 10, 10, 10]


def test_service_spreading_priority_scores_like_selector_spread() -> None:
    # v1.12's ServiceSpreadingPriority read its selectors from the shared metadata, which
    # also holds the controllers' selectors.
    pods = [mpod("machine1", labels=LAB2), mpod("machine1", labels=LAB1), mpod("machine2", labels=LAB1)]
    objs = [controller("ReplicationController", {"baz": "blah"})]
    out = final(ServiceSpreadingPriority("ServiceSpreadingPriority", 1), mpod(labels=LAB1), TWO, pods, objs)
    assert out == {"machine1": 0, "machine2": 5}


# --------------------------------------------------------------------------- ServiceAntiAffinity

ZONE_LABELLED = [("machine01", {"name": "value"}), ("machine02", {"name": "value"}),
                 ("machine11", {"zone": "zone1"}), ("machine12", {"zone": "zone1"}),
                 ("machine21", {"zone": "zone2"}), ("machine22", {"zone": "zone2"})]
ORDER = ["machine11", "machine12", "machine21", "machine22", "machine01", "machine02"]


@pytest.mark.parametrize(
    ("pod", "existing", "objects", "expected"),
    [
        (({}, "default"), [], [], [10, 10, 10, 10, 0, 0]),
        ((LAB1, "default"), [("machine11", {}, "default")], [], [10, 10, 10, 10, 0, 0]),
        ((LAB1, "default"), [("machine11", LAB2, "default")], [service({"key": "value"})], [10, 10, 10, 10, 0, 0]),
        ((LAB1, "default"), [("machine01", LAB2, "default"), ("machine11", LAB2, "default"),
                             ("machine21", LAB1, "default")], [service(LAB1)], [10, 10, 0, 0, 0, 0]),
        ((LAB1, "default"), [("machine11", LAB2, "default"), ("machine11", LAB1, "default"),
                             ("machine21", LAB1, "default")], [service(LAB1)], [5, 5, 5, 5, 0, 0]),
        ((LAB1, "ns0"), [("machine11", LAB1, "other"), ("machine11", LAB1, "ns0"), ("machine21", LAB1, "other"),
                         ("machine21", LAB1, "ns1")], [service(LAB1, namespace="ns0")], [0, 0, 10, 10, 0, 0]),
        ((LAB1, "default"), [("machine11", LAB2, "default"), ("machine11", LAB1, "default"),
                             ("machine21", LAB1, "default"), ("machine21", LAB1, "default")], [service(LAB1)],
         [6, 6, 3, 3, 0, 0]),
        ((LAB1, "default"), [("machine11", LAB2, "default"), ("machine11", LAB1, "default"),
                             ("machine21", LAB1, "default")], [service({"baz": "blah"})], [3, 3, 6, 6, 0, 0]),
        ((LAB1, "default"), [("machine01", LAB1, "default"), ("machine11", LAB1, "default"),
                             ("machine21", LAB1, "default"), ("machine21", LAB1, "default")], [service(LAB1)],
         [7, 7, 5, 5, 0, 0]),
    ],
)
def test_service_anti_affinity(pod: tuple[dict[str, str], str], existing: list[tuple[str, dict[str, str], str]],
                               objects: list[Dict], expected: list[int]) -> None:
    pods = [mpod(n, labels=lab, namespace=ns) for n, lab, ns in existing]
    pf = ServiceAntiAffinityPriority("zone-spread", 1, {"label": "zone"})
    out = final(pf, mpod(labels=pod[0], namespace=pod[1]), [mnode(n, labels=lab) for n, lab in ZONE_LABELLED], pods,
                objects)
    assert [out[n] for n in ORDER] == expected


# --------------------------------------------------------------------------- InterPodAffinity


def _term(op: str, values: list[str] | None, key: str, topology: str) -> Dict:
    expr: Dict = {"key": key, "operator": op}
    if values is not None:
        expr["values"] = values
    return {"labelSelector": {"matchExpressions": [expr]}, "topologyKey": topology}


def _weighted(weight: int, term: Dict) -> Dict:
    return {"weight": weight, "podAffinityTerm": term}


def _in(value: str, topology: str) -> Dict:
    return _term("In", [value], "security", topology)


RG_CHINA, RG_INDIA = {"region": "China"}, {"region": "India"}
AZ1, AZ2 = {"az": "az1"}, {"az": "az2"}
RG_CHINA_AZ1 = {"region": "China", "az": "az1"}
S1, S2 = {"security": "S1"}, {"security": "S2"}
STAY_S1_REGION = {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
    _weighted(5, _in("S1", "region"))]}}
STAY_S2_REGION = {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
    _weighted(6, _in("S2", "region"))]}}
AFFINITY3 = {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
    _weighted(8, {"labelSelector": {"matchExpressions": [
        {"key": "security", "operator": "NotIn", "values": ["S1"]},
        {"key": "security", "operator": "In", "values": ["S2"]}]}, "topologyKey": "region"}),
    _weighted(2, {"labelSelector": {"matchExpressions": [
        {"key": "security", "operator": "Exists"}, {"key": "wrongkey", "operator": "DoesNotExist"}]},
        "topologyKey": "region"})]}}
HARD = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
    _term("In", ["S1", "value2"], "security", "region"),
    {"labelSelector": {"matchExpressions": [{"key": "security", "operator": "Exists"},
                                            {"key": "wrongkey", "operator": "DoesNotExist"}]},
     "topologyKey": "region"}]}}
AWAY_S1_AZ = {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
    _weighted(5, _in("S1", "az"))]}}
AWAY_S2_AZ = {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
    _weighted(5, _in("S2", "az"))]}}
STAY_S1_AWAY_S2 = {
    "podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [_weighted(8, _in("S1", "region"))]},
    "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [_weighted(5, _in("S2", "az"))]},
}

# (incoming (labels, affinity), existing (node, labels, affinity), nodes (name, labels), expected)
IPA_CASES: list[tuple[Any, Any, Any, list[int]]] = [
    ((S1, None), [], [("machine1", RG_CHINA), ("machine2", RG_INDIA), ("machine3", AZ1)], [0, 0, 0]),
    ((S1, STAY_S1_REGION), [("machine1", S1, None), ("machine2", S2, None), ("machine3", S1, None)],
     [("machine1", RG_CHINA), ("machine2", RG_INDIA), ("machine3", AZ1)], [10, 0, 0]),
    (({}, STAY_S1_REGION), [("machine1", S1, None)],
     [("machine1", RG_CHINA), ("machine2", RG_CHINA_AZ1), ("machine3", RG_INDIA)], [10, 10, 0]),
    ((S1, STAY_S2_REGION), [("machine1", S2, None), ("machine1", S2, None), ("machine2", S2, None),
                            ("machine3", S2, None), ("machine4", S2, None), ("machine5", S2, None)],
     [("machine1", RG_CHINA), ("machine2", RG_INDIA), ("machine3", RG_CHINA), ("machine4", RG_CHINA),
      ("machine5", RG_INDIA)], [10, 5, 10, 10, 5]),
    ((S1, AFFINITY3), [("machine1", S1, None), ("machine2", S2, None), ("machine3", S1, None)],
     [("machine1", RG_CHINA), ("machine2", RG_INDIA), ("machine3", AZ1)], [2, 10, 0]),
    ((S2, None), [("machine1", S1, STAY_S1_REGION), ("machine2", S2, STAY_S2_REGION)],
     [("machine1", RG_CHINA), ("machine2", RG_INDIA), ("machine3", AZ1)], [0, 10, 0]),
    ((S1, None), [("machine1", S1, HARD), ("machine2", S2, HARD)],
     [("machine1", RG_CHINA), ("machine2", RG_INDIA), ("machine3", AZ1)], [10, 10, 0]),
    ((S1, AWAY_S1_AZ), [("machine1", S1, None), ("machine2", S2, None)],
     [("machine1", AZ1), ("machine2", RG_CHINA)], [0, 10]),
    ((S1, AWAY_S1_AZ), [("machine1", S1, None), ("machine2", S1, None)],
     [("machine1", AZ1), ("machine2", RG_CHINA)], [0, 10]),
    ((S1, AWAY_S1_AZ), [("machine1", S1, None), ("machine1", S1, None), ("machine2", S2, None)],
     [("machine1", AZ1), ("machine2", RG_INDIA)], [0, 10]),
    ((S2, None), [("machine1", S1, AWAY_S2_AZ), ("machine2", S2, AWAY_S1_AZ)],
     [("machine1", AZ1), ("machine2", AZ2)], [0, 10]),
    ((S1, STAY_S1_AWAY_S2), [("machine1", S1, None), ("machine2", S1, None)],
     [("machine1", RG_CHINA), ("machine2", AZ1)], [10, 0]),
    ((S1, STAY_S1_AWAY_S2), [("machine1", S1, None), ("machine1", S1, None), ("machine2", S1, None),
                             ("machine3", S1, None), ("machine3", S1, None), ("machine4", S1, None),
                             ("machine5", S1, None)],
     [("machine1", RG_CHINA_AZ1), ("machine2", RG_INDIA), ("machine3", RG_CHINA), ("machine4", RG_CHINA),
      ("machine5", RG_INDIA)], [10, 4, 10, 10, 4]),
    ((S1, STAY_S1_AWAY_S2), [("machine1", S1, None), ("machine2", S2, None), ("machine3", {}, STAY_S1_AWAY_S2),
                             ("machine4", {}, AWAY_S1_AZ)],
     [("machine1", RG_CHINA), ("machine2", AZ1), ("machine3", RG_INDIA), ("machine4", AZ2)], [10, 0, 10, 0]),
]


@pytest.mark.parametrize(("incoming", "existing", "nodes", "expected"), IPA_CASES)
def test_inter_pod_affinity(incoming: Any, existing: Any, nodes: Any, expected: list[int]) -> None:
    pods = [mpod(n, labels=lab, affinity=aff) for n, lab, aff in existing]
    out = final(InterPodAffinityPriority("InterPodAffinityPriority", 1),
                mpod(labels=incoming[0], affinity=incoming[1]), [mnode(n, labels=lab) for n, lab in nodes], pods)
    assert [out[n] for n, _ in nodes] == expected


@pytest.mark.parametrize(("weight", "expected"), [(1, [10, 10, 0]), (0, [0, 0, 0])])
def test_hard_pod_affinity_symmetric_weight(weight: int, expected: list[int]) -> None:
    hard = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        _term("In", ["S1"], "service", "region")]}}
    pods = [mpod("machine1", affinity=hard), mpod("machine2", affinity=hard)]
    nodes = [("machine1", RG_CHINA), ("machine2", RG_INDIA), ("machine3", AZ1)]
    out = final(InterPodAffinityPriority("I", 1), mpod(labels={"service": "S1"}),
                [mnode(n, labels=lab) for n, lab in nodes], pods, hard_weight=weight)
    assert [out[n] for n, _ in nodes] == expected


# --------------------------------------------------------------------------- NodeLabel


@pytest.mark.parametrize(
    ("label", "presence", "expected"),
    [
        ("baz", True, [0, 0, 0]),
        ("baz", False, [10, 10, 10]),
        ("foo", True, [10, 0, 0]),
        ("foo", False, [0, 10, 10]),
        ("bar", True, [0, 10, 10]),
    ],
)
def test_node_label(label: str, presence: bool, expected: list[int]) -> None:
    from kschedx.core.legacy.node_label import NodeLabelPriority

    labels = [("machine1", {"foo": "bar"}), ("machine2", {"bar": "foo"}), ("machine3", {"bar": "baz"})]
    out = final(NodeLabelPriority("label-pref", 1, {"label": label, "presence": presence}), mpod(),
                [mnode(n, labels=lab) for n, lab in labels])
    assert [out[n] for n, _ in labels] == expected

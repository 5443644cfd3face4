"""Plugin answers in bulk equal the answers node by node.

``filter_nodes`` (NodeUnschedulable, NodeName, TaintToleration, NodeResourcesFit) and the
memo's ``head_column`` built on it are shortcuts of ``filter`` and ``ReplicaMemo.head``: on
random nodes (cordoned, tainted, full, short of a resource, extended resources) and random
pods (requests, tolerations, a node name) they must give the same failures, with the same
codes and reasons, in the same plugin order. ``score_nodes`` of every Score plugin that has
it must give each node's ``score``.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from kschedx.core.api.model import NodeView, PodInfo
from kschedx.core.config.profile import default_profile
from kschedx.core.framework.interface import CycleState, ReplicaMemo, Status
from kschedx.core.framework.runtime import Framework
from kschedx.core.plugins import REGISTRY
from kschedx.core.plugins.imagelocality import calculate_priority, normalized_image_name
from kschedx.core.plugins.noderesources_allocation import (
    DEFAULT_RESOURCES,
    allocation_vectors,
    balanced_cpu_memory,
    balanced_scorer,
    least_allocated_cpu_memory,
    least_allocated_scorer,
)
from kschedx.core.plugins.noderesources_balancedallocation import NodeResourcesBalancedAllocation
from kschedx.core.snapshot import NodeInfo
from kschedx.core.versions import SchedulerVersion

from .helpers import framework, node, pod, snapshot

Dict = dict[str, Any]

LOCAL = ("NodeUnschedulable", "NodeName", "TaintToleration", "NodeResourcesFit")
TAINTS = [
    {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"},
    {"key": "spot", "value": "true", "effect": "NoExecute"},
    {"key": "soft", "value": "x", "effect": "PreferNoSchedule"},
]
TOLERATIONS = [
    {"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"},
    {"key": "spot", "operator": "Exists"},
    {"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"},
]


def _cluster(rng: random.Random, n: int) -> list[Dict]:
    objs: list[Dict] = []
    for i in range(n):
        name = f"ip-10-0-{i}-17.eu-west-1.compute.internal"
        extra = {"example.com/gpu": str(rng.choice([0, 1, 4]))} if rng.random() < 0.3 else None
        zone = {"topology.kubernetes.io/zone": rng.choice(["a", "b", "c"])} if rng.random() < 0.8 else {}
        objs.append(node(name, cpu=rng.choice(["1", "2", "500m", "4"]), memory=rng.choice(["512Mi", "2Gi", "8Gi"]),
                         pods=rng.choice([1, 2, 3, 110]), labels=zone,
                         taints=rng.sample(TAINTS, rng.randint(0, 2)) if rng.random() < 0.4 else None,
                         unschedulable=rng.random() < 0.15, extra=extra))
        for j in range(rng.randint(0, 3)):
            objs.append(pod(f"p{i}-{j}", cpu=rng.choice(["100m", "700m", "1"]), memory=rng.choice(["64Mi", "1Gi"]),
                            node_name=name, labels={"app": rng.choice(["web", "db"])}))
    return objs


def _incoming(rng: random.Random, names: list[str]) -> Dict:
    spec: Dict = {}
    if rng.random() < 0.5:
        spec["topologySpreadConstraints"] = [
            {"maxSkew": rng.choice([1, 2]), "topologyKey": key, "whenUnsatisfiable": "ScheduleAnyway",
             "labelSelector": {"matchLabels": {"app": "web"}}}
            for key in rng.sample(["topology.kubernetes.io/zone", "kubernetes.io/hostname"], rng.randint(1, 2))]
    if rng.random() < 0.5:
        spec["tolerations"] = rng.sample(TOLERATIONS, rng.randint(1, 3))
    p = pod("incoming", cpu=rng.choice([None, "100m", "900m", "3"]), memory=rng.choice([None, "128Mi", "1500Mi"]),
            labels={"app": "web"}, **spec)
    if rng.random() < 0.2:
        p["spec"]["containers"][0].setdefault("resources", {}).setdefault("requests", {})["ephemeral-storage"] = "1Gi"
    if rng.random() < 0.2:
        p["spec"]["containers"][0].setdefault("resources", {}).setdefault("requests", {})["example.com/gpu"] = "1"
    if rng.random() < 0.15:
        p["spec"]["nodeName"] = rng.choice(names)  # (a pod built in code: NodeName still judges it)
    return p


def _key(st: Status) -> tuple[Any, ...]:
    return st.code, tuple(st.reasons), st.plugin


@pytest.mark.parametrize("version", ["v1.33", "v1.36"])
@pytest.mark.parametrize("seed", range(6))
def test_filter_nodes_and_head_column_equal_node_by_node(seed: int, version: str) -> None:
    rng = random.Random(seed)
    snap = snapshot(*_cluster(rng, 40))
    nodes = snap.nodes()
    names = [ni.name for ni in nodes]
    for _ in range(8):
        fw = Framework(default_profile(REGISTRY, version=SchedulerVersion(version)), snap, REGISTRY)
        incoming = PodInfo(_incoming(rng, names))
        state = CycleState()
        for pl in fw.plugins.pre_filter:
            pl.pre_filter(state, incoming, nodes)  # type: ignore[attr-defined]
        local = [fw.plugins.instances[name] for name in LOCAL]
        for pl in local:
            got = pl.filter_nodes(state, incoming, nodes)  # type: ignore[attr-defined]
            one_by_one = [(i, st) for i, ni in enumerate(nodes)
                          if not (st := pl.filter(state, incoming, ni)).is_success]  # type: ignore[attr-defined]
            if got is None:  # declined (NodeResourcesFit with an extended resource)
                assert pl.name == "NodeResourcesFit"
                continue
            assert [(i, _key(st)) for i, st in got] == [(i, _key(st)) for i, st in one_by_one], pl.name
        column = ReplicaMemo().head_column(state, incoming, local, nodes, [ni.generation for ni in nodes])
        memo = ReplicaMemo()
        assert [[_key(st) for st in h] for h in column] == \
            [[_key(st) for st in memo.head(state, incoming, local, ni)] for ni in nodes]


def test_the_column_answers_again_only_the_nodes_that_changed() -> None:
    """A node whose pods changed is judged again in bulk; the others keep their answers."""
    snap = snapshot(node("a", cpu="1"), node("b", cpu="1"))
    fw = framework(snap)
    incoming = PodInfo(pod("incoming", cpu="600m"))
    state = CycleState()
    for pl in fw.plugins.pre_filter:
        pl.pre_filter(state, incoming, snap.nodes())  # type: ignore[attr-defined]
    local = [fw.plugins.instances[name] for name in LOCAL]
    memo = ReplicaMemo()
    nodes = snap.nodes()
    assert memo.head_column(state, incoming, local, nodes, [ni.generation for ni in nodes]) == [[], []]
    snap.add_pod(PodInfo(pod("filler", cpu="500m", node_name="a")))
    heads = memo.head_column(state, incoming, local, nodes, [ni.generation for ni in nodes])
    assert [[(st.plugin, st.reasons) for st in h] for h in heads] == [[("NodeResourcesFit", ["Insufficient cpu"])], []]
    assert memo.head(state, incoming, local, nodes[0]) is heads[0]  # the table by name agrees


@pytest.mark.parametrize("seed", range(8))
def test_score_nodes_equal_score_node_by_node(seed: int) -> None:
    rng = random.Random(seed)
    snap = snapshot(*_cluster(rng, 40))
    nodes = snap.nodes()
    names = [ni.name for ni in nodes]
    compared: set[str] = set()
    for _ in range(8):
        fw = framework(snap)
        incoming = PodInfo(_incoming(rng, names))
        incoming.spec.pop("nodeName", None)
        state = CycleState()
        for pl in fw.plugins.pre_filter:
            pl.pre_filter(state, incoming, nodes)  # type: ignore[attr-defined]
        # A sample of the nodes as the feasible ones (in node order), and all of them.
        for scored in (nodes, [ni for ni in nodes if rng.random() < 0.6]):
            st = state.clone()
            for pl in fw.plugins.pre_score:
                if pl.pre_score(st, incoming, scored).is_skip:  # type: ignore[attr-defined]
                    st.skip_score.add(pl.name)
            for pl, _w in fw.plugins.score:
                bulk = getattr(pl, "score_nodes", None)
                if bulk is None or pl.name in st.skip_score:
                    continue
                got = bulk(st, incoming, scored)
                if got is None:
                    continue
                assert got == [pl.score(st, incoming, ni)[0] for ni in scored], pl.name  # type: ignore[attr-defined]
                compared.add(pl.name)
    assert {"NodeResourcesFit", "NodeResourcesBalancedAllocation", "ImageLocality", "TaintToleration",
            "PodTopologySpread"} <= compared


@pytest.mark.parametrize("seed", range(6))
def test_default_spreading_scores_in_bulk_on_nodes_without_a_hostname_label(seed: int) -> None:
    """System default spreading requires no key: a node without the hostname label is
    scored with no hostname domain. PodTopologySpread's bulk scores (its class keys from
    the label columns) must equal its node-by-node scores there too."""
    rng = random.Random(seed)
    objs: list[Dict] = [{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web", "namespace": "default"},
                         "spec": {"selector": {"app": "web"}}}]
    for i in range(30):
        name = f"aks-nodepool1-{i}-vmss"
        zone = {"topology.kubernetes.io/zone": rng.choice(["1", "2"])} if rng.random() < 0.8 else {}
        n = node(name, labels=zone)
        if rng.random() < 0.3:
            del n["metadata"]["labels"]["kubernetes.io/hostname"]
        objs.append(n)
        for j in range(rng.randint(0, 3)):
            objs.append(pod(f"p{i}-{j}", cpu="100m", node_name=name, labels={"app": rng.choice(["web", "db"])}))
    snap = snapshot(*objs)
    nodes = snap.nodes()
    fw = framework(snap)
    pl = fw.plugins.instances["PodTopologySpread"]
    incoming = PodInfo(pod("incoming", cpu="100m", labels={"app": "web"}))
    for scored in (nodes, [ni for ni in nodes if rng.random() < 0.6]):
        state = CycleState()
        assert pl.pre_score(state, incoming, scored).is_success  # type: ignore[attr-defined]
        got = pl.score_nodes(state, incoming, scored)  # type: ignore[attr-defined]
        assert got == [pl.score(state, incoming, ni)[0] for ni in scored]  # type: ignore[attr-defined]


@pytest.mark.parametrize("seed", range(4))
def test_cpu_memory_scorers_equal_the_general_scorers(seed: int) -> None:
    """The one-loop scorers of the default resources against the scorers over
    ``allocation_vectors``, on nodes without cpu or memory, full, overcommitted."""
    rng = random.Random(seed)
    objs = []
    for i in range(60):
        name = f"gke-pool-{i}"
        objs.append(node(name, cpu=rng.choice(["0", "1", "2", "3500m"]), memory=rng.choice(["0", "1Gi", "3Gi", "7Gi"])))
        for j in range(rng.randint(0, 4)):
            objs.append(pod(f"p{i}-{j}", cpu=rng.choice([None, "250m", "1", "2"]),
                            memory=rng.choice([None, "300Mi", "2Gi"]), node_name=name))
    nodes = snapshot(*objs).nodes()
    for _ in range(20):
        cpu, memory = rng.choice([0, 100, 1500, 4000]), rng.choice([0, 200 << 20, 5 << 30])
        reqs = [cpu, memory]
        assert least_allocated_cpu_memory(nodes, cpu, memory) == [
            least_allocated_scorer(DEFAULT_RESOURCES)(*allocation_vectors(ni, DEFAULT_RESOURCES, reqs, False))
            for ni in nodes]
        assert balanced_cpu_memory(nodes, cpu, memory, False) == [
            balanced_scorer(*allocation_vectors(ni, DEFAULT_RESOURCES, reqs, True)) for ni in nodes]
        assert balanced_cpu_memory(nodes, cpu, memory, True) == [
            NodeResourcesBalancedAllocation._change(reqs, *allocation_vectors(ni, DEFAULT_RESOURCES, reqs, True))
            for ni in nodes]


@pytest.mark.parametrize("seed", range(6))
def test_spread_scoring_domains_from_label_groups_equal_a_pass_over_the_nodes(seed: int) -> None:
    """PodTopologySpread's PreScore domains read from the snapshot's label groups equal a
    pass node by node: every node or a part of them, keys unset on some nodes, a zone
    labelled "" beside nodes without one, all keys required or not."""
    from kschedx.core.plugins.podtopologyspread import (
        _scoring_domains,
        _scoring_domains_by_node,
        parse_constraints,
    )

    rng = random.Random(seed)
    objs = []
    for i in range(50):
        labels = {}
        if rng.random() < 0.8:
            labels["topology.kubernetes.io/zone"] = rng.choice(["eu-west-1a", "eu-west-1b", "", "eu-west-1c"])
        if rng.random() < 0.7:
            labels["rack"] = rng.choice(["r1", "r2"])
        objs.append(node(f"aks-nodepool1-{i:08d}-vmss", labels=labels))
    snap = snapshot(*objs)
    nodes = snap.nodes()
    raw = [{"maxSkew": 1, "topologyKey": key, "whenUnsatisfiable": "ScheduleAnyway",
            "labelSelector": {"matchLabels": {"app": "web"}}}
           for key in ("topology.kubernetes.io/zone", "kubernetes.io/hostname", "rack")]
    for _ in range(30):
        constraints = parse_constraints(rng.sample(raw, rng.randint(1, 3)), {"app": "web"}, "ScheduleAnyway")
        part = nodes if rng.random() < 0.3 else [ni for ni in nodes if rng.random() < 0.5]
        for require_all in (True, False):
            got = _scoring_domains(snap, part, constraints, require_all)
            want = _scoring_domains_by_node(snap, list(part), constraints, require_all)
            assert got[0] == want[0]
            assert [list(c.items()) for c in got[1]] == [list(c.items()) for c in want[1]]


def test_positions_of_are_by_identity_and_follow_the_node_list() -> None:
    """``positions_of`` answers by object identity: a list changed in place is answered
    anew, a copy of a node is not the snapshot's, and nodes added or removed since are
    known (or no longer) by their positions in the new node list."""
    snap = snapshot(*(node(f"n{i}") for i in range(5)))
    nodes = snap.nodes()
    part = [nodes[1], nodes[3]]
    assert snap.positions_of(part) == [1, 3]
    part[0], part[1] = part[1], part[0]
    assert snap.positions_of(part) == [3, 1]
    part[0] = part[0].clone()
    assert snap.positions_of(part) is None
    part[0] = nodes[4]
    assert snap.positions_of(part) == [4, 1]
    added = snap.add_node(node("n5"))
    assert snap.positions_of([added, nodes[0]]) == [5, 0]
    gone = snap.get("n2")
    snap.remove_node("n2")
    assert snap.positions_of([gone]) is None
    assert snap.positions_of([added, snap.get("n3")]) == [4, 2]


@pytest.mark.parametrize("seed", range(6))
def test_interpodaffinity_filter_nodes_equal_filter_node_by_node(seed: int) -> None:
    """InterPodAffinity in bulk: required affinity (the first pod of a group included), the
    pod's own anti-affinity, existing pods' anti-affinity; on the snapshot's nodes and on
    copies of them (as the nominated-pod pass makes)."""
    rng = random.Random(seed)

    def term(app: str, key: str) -> Dict:
        return {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": key}

    keys = ["kubernetes.io/hostname", "topology.kubernetes.io/zone"]
    objs: list[Dict] = []
    for i in range(30):
        name = f"gke-prod-pool-{i}"
        zone = {"topology.kubernetes.io/zone": rng.choice(["a", "b", "c"])} if rng.random() < 0.85 else {}
        objs.append(node(name, labels=zone))
        for j in range(rng.randint(0, 2)):
            spec: Dict = {}
            if rng.random() < 0.3:
                spec["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                    term(rng.choice(["web", "db"]), rng.choice(keys))]}}
            objs.append(pod(f"p{i}-{j}", node_name=name, labels={"app": rng.choice(["web", "db", "cache"])}, **spec))
    snap = snapshot(*objs)
    nodes = snap.nodes()
    for _ in range(10):
        affinity: Dict = {}
        if rng.random() < 0.5:
            affinity["podAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": [
                term(rng.choice(["web", "cache", "none"]), rng.choice(keys))]}
        if rng.random() < 0.6:
            affinity["podAntiAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": [
                term(rng.choice(["web", "db"]), rng.choice(keys))]}
        incoming = PodInfo(pod("incoming", labels={"app": rng.choice(["web", "db"])},
                               **({"affinity": affinity} if affinity else {})))
        fw = framework(snap)
        pl = fw.plugins.instances["InterPodAffinity"]
        state = CycleState()
        _res, st = pl.pre_filter(state, incoming, nodes)  # type: ignore[attr-defined]
        if st.is_skip:
            continue
        # Nodes the snapshot doesn't hold (answered from their labels), one per zone.
        foreign = [NodeInfo(NodeView(node(f"new-{z}", labels={"topology.kubernetes.io/zone": z}))) for z in "abc"]
        # Every node, copies and foreign nodes, and a few nodes (answered from their labels).
        for part in (nodes, [ni.clone() if rng.random() < 0.3 else ni for ni in nodes] + foreign,
                     rng.sample(nodes, 5)):
            got = pl.filter_nodes(state, incoming, part)  # type: ignore[attr-defined]
            want = [(i, s) for i, ni in enumerate(part) if not (s := pl.filter(state, incoming, ni)).is_success]  # type: ignore[attr-defined]
            assert [(i, _key(s)) for i, s in got] == [(i, _key(s)) for i, s in want]


@pytest.mark.parametrize("seed", range(6))
def test_spread_filter_nodes_equal_filter_node_by_node(seed: int) -> None:
    """PodTopologySpread's Filter in bulk (one answer per row of domain values) equals
    ``filter`` on each node: nodes without a key, skewed zones, copies of nodes."""
    rng = random.Random(seed)
    objs = []
    for i in range(40):
        name = f"aks-nodepool1-{i:08d}-vmss"
        labels = {"topology.kubernetes.io/zone": rng.choice(["1", "2", "3"])} if rng.random() < 0.85 else {}
        objs.append(node(name, labels=labels))
        for j in range(rng.randint(0, 3)):
            objs.append(pod(f"p{i}-{j}", node_name=name, labels={"app": rng.choice(["web", "db"])}))
    snap = snapshot(*objs)
    nodes = snap.nodes()
    for _ in range(10):
        constraints = [{"maxSkew": rng.choice([1, 2]), "topologyKey": key, "whenUnsatisfiable": "DoNotSchedule",
                        "labelSelector": {"matchLabels": {"app": "web"}}}
                       for key in rng.sample(["topology.kubernetes.io/zone", "kubernetes.io/hostname"], rng.randint(1, 2))]
        incoming = PodInfo(pod("incoming", labels={"app": "web"}, topologySpreadConstraints=constraints))
        fw = framework(snap)
        pl = fw.plugins.instances["PodTopologySpread"]
        state = CycleState()
        pl.pre_filter(state, incoming, nodes)  # type: ignore[attr-defined]
        for part in (nodes, [ni.clone() if rng.random() < 0.3 else ni for ni in nodes if rng.random() < 0.7]):
            got = pl.filter_nodes(state, incoming, part)  # type: ignore[attr-defined]
            want = [(i, s) for i, ni in enumerate(part) if not (s := pl.filter(state, incoming, ni)).is_success]  # type: ignore[attr-defined]
            assert [(i, _key(s)) for i, s in got] == [(i, _key(s)) for i, s in want]
            assert want  # (some node fails: skewed or without the key)


def test_default_normalize_of_a_list_equals_the_map_in_place() -> None:
    from kschedx.core.framework.interface import default_normalize, default_normalize_values

    rng = random.Random(7)
    for _ in range(300):
        values = [rng.choice([0, 0, 1, 3, 7, 40, 100]) for _ in range(rng.randint(0, 12))]
        for reverse in (True, False):
            scores = {f"n{i}": v for i, v in enumerate(values)}
            default_normalize(scores, reverse)
            assert default_normalize_values(values, reverse) == list(scores.values())



@pytest.mark.parametrize("version", ["v1.33", "v1.36"])
@pytest.mark.parametrize("seed", range(4))
def test_uniform_scores_equal_score_node_by_node(seed: int, version: str) -> None:
    """``uniform_score`` (ImageLocality for images no node holds, DynamicResources for a
    pod without claims) is the score of every node, and declines (None) where the nodes
    score apart: a node holding one of the pod's images."""
    rng = random.Random(seed)
    held = ["registry.example.com/web:v1", "registry.example.com/db:v2", "busybox"]
    objs = []
    for i in range(30):
        images = [{"names": [name, f"{name.split(':')[0]}@sha256:{i:04x}"], "sizeBytes": rng.choice([30, 300, 900]) << 20}
                  for name in rng.sample(held, rng.randint(0, 2))]
        if images and rng.random() < 0.3:  # a name listed twice on a node: the later size counts
            images.append({"names": [images[0]["names"][0]], "sizeBytes": rng.choice([40, 500]) << 20})
        objs.append(node(f"gke-pool-1-{i:04d}", images=images))
    snap = snapshot(*objs)
    nodes = snap.nodes()
    on_nodes = {n for ni in nodes for names, _size in ni.node.images for n in names}
    fw = Framework(default_profile(REGISTRY, version=SchedulerVersion(version)), snap, REGISTRY)
    plugins = {pl.name: pl for pl, _w in fw.plugins.score if hasattr(pl, "uniform_score")}
    assert set(plugins) == ({"ImageLocality", "DynamicResources", "TaintToleration"} if version == "v1.36"
                            else {"ImageLocality", "TaintToleration"})
    outcomes = set()
    for _ in range(12):
        images = rng.sample([*held, "registry.example.com/web:v1-next", "busybox:latest", "nginx"], rng.randint(1, 3))
        raw = pod("incoming", cpu="100m")
        raw["spec"]["containers"] = [{"name": f"c{k}", "image": image} for k, image in enumerate(images)]
        incoming = PodInfo(raw)
        state = CycleState()
        for pl in fw.plugins.pre_filter:
            pl.pre_filter(state, incoming, nodes)  # type: ignore[attr-defined]
        for pl in fw.plugins.pre_score:
            pl.pre_score(state, incoming, nodes)  # type: ignore[attr-defined]
        for name, pl in plugins.items():
            scores = [pl.score(state, incoming, ni)[0] for ni in nodes]  # type: ignore[attr-defined]
            same = pl.uniform_score(state, incoming)  # type: ignore[attr-defined]
            if name == "ImageLocality":
                holds = any(normalized_image_name(image) in on_nodes for image in images)
                assert (same is None) == holds, images
                outcomes.add(holds)
            if same is not None:
                assert scores == [same] * len(nodes), (name, images)
            if name == "ImageLocality":
                # Against the plugin's sum read from each node's own image list.
                spread = snap.image_num_nodes()
                wanted = [n for n in map(normalized_image_name, images) if spread.get(n)]
                want = []
                for ni in nodes:
                    sizes = {n: size for names, size in ni.node.images for n in names}
                    total = sum(int(sizes[n] * (spread[n] / len(nodes))) for n in wanted if n in sizes)
                    want.append(calculate_priority(total, len(images)))
                assert pl.score_nodes(state, incoming, nodes) == scores == want, images  # type: ignore[attr-defined]
    assert outcomes == {True, False}  # both kinds of pod were met


@pytest.mark.parametrize("seed", range(6))
def test_taint_toleration_scores_alike_where_no_node_has_a_prefer_no_schedule_taint(seed: int) -> None:
    """TaintToleration's ``uniform_score`` is 0, each node's Score, when no node has a
    PreferNoSchedule taint (other effects don't count), and declines (None) as soon as one
    node has one, or without its PreScore state."""
    rng = random.Random(seed)
    effects = ["NoSchedule", "NoExecute"] + (["PreferNoSchedule"] if seed % 2 else [])
    objs = []
    for i in range(30):
        taints = [{"key": rng.choice(["gpu", "spot", "team"]), "value": rng.choice(["a", "b"]), "effect": rng.choice(effects)}
                  for _ in range(rng.randint(0, 2))]
        objs.append(node(f"ip-10-0-{i}-17.eu-west-1.compute.internal", taints=taints))
    if seed % 2:  # at least one node has one
        objs[0]["spec"]["taints"] = [{"key": "spot", "value": "a", "effect": "PreferNoSchedule"}]
    snap = snapshot(*objs)
    nodes = snap.nodes()
    pl = framework(snap).plugins.instances["TaintToleration"]
    assert pl.uniform_score(CycleState(), PodInfo(pod("p"))) is None  # type: ignore[attr-defined]  # no PreScore state
    for _ in range(8):
        tolerations = [{"key": rng.choice(["gpu", "spot"]), "operator": "Exists",
                        "effect": rng.choice(["", "PreferNoSchedule", "NoSchedule"])} for _ in range(rng.randint(0, 2))]
        incoming = PodInfo(pod("incoming", tolerations=tolerations))
        state = CycleState()
        pl.pre_score(state, incoming, nodes)  # type: ignore[attr-defined]
        scores = [pl.score(state, incoming, ni)[0] for ni in nodes]  # type: ignore[attr-defined]
        same = pl.uniform_score(state, incoming)  # type: ignore[attr-defined]
        assert (same is None) == bool(seed % 2)
        if same is not None:
            assert scores == [same] * len(nodes)
        assert pl.score_nodes(state, incoming, nodes) == scores  # type: ignore[attr-defined]


@pytest.mark.parametrize("seed", range(8))
def test_the_column_keeps_passing_answers_across_removals_alone(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """A node that passed the leading node-local plugins and has only lost pods since keeps
    its answer (``passes_after_removal``); a node that failed, or gained a pod, is judged
    again. Pods taken off and put back at random, the column kept across the edits must
    equal a fresh column and the answers node by node, every time."""
    rng = random.Random(seed)
    objs = _cluster(rng, 40)
    for i in range(40):  # full nodes, so that removals turn failures into passes
        for j in range(rng.randint(0, 4)):
            objs.append(pod(f"fill{i}-{j}", cpu=rng.choice(["500m", "1", "2"]), memory="256Mi",
                            node_name=f"ip-10-0-{i}-17.eu-west-1.compute.internal", labels={"app": "db"}))
    snap = snapshot(*objs)
    nodes = snap.nodes()
    names = [ni.name for ni in nodes]
    incomings = [PodInfo(_incoming(rng, names)) for _ in range(3)] + [PodInfo(pod("small", cpu="100m"))]
    fw = framework(snap)
    local = [fw.plugins.instances[name] for name in LOCAL]
    assert all(pl.passes_after_removal for pl in local)
    memos = [ReplicaMemo() for _ in incomings]
    judged: list[int] = []  # how many nodes each column judged again (its first plugin's count)
    from kschedx.core.framework import interface

    real = interface.filter_failures

    def counted(pl: Any, state: CycleState, incoming: PodInfo, todo: list[NodeInfo]) -> Any:
        if pl is local[0]:
            judged.append(len(todo))
        return real(pl, state, incoming, todo)

    monkeypatch.setattr(interface, "filter_failures", counted)
    taken: list[PodInfo] = []
    kept_any = flipped = False
    for _ in range(25):
        for _edit in range(rng.randint(1, 6)):
            if taken and rng.random() < 0.3:
                snap.add_pod(taken.pop(rng.randrange(len(taken))))
            else:
                ni = rng.choice(nodes)
                if ni.pods:
                    p = rng.choice(ni.pods)
                    snap.remove_pod(p)
                    taken.append(p)
        for incoming, memo in zip(incomings, memos, strict=True):
            state = CycleState()
            for pl in fw.plugins.pre_filter:
                pl.pre_filter(state, incoming, nodes)  # type: ignore[attr-defined]
            col = memo.filters.column
            before = (list(col[2]), list(col[1])) if col is not None else None
            gens = [ni.generation for ni in nodes]
            judged.clear()
            kept = memo.head_column(state, incoming, local, nodes, gens)
            again = sum(judged)
            fresh = ReplicaMemo().head_column(state, incoming, local, nodes, gens)
            assert [[_key(st) for st in h] for h in kept] == [[_key(st) for st in h] for h in fresh]
            assert [[_key(st) for st in h] for h in kept] == \
                [[_key(st) for st in ReplicaMemo().head(state, incoming, local, ni)] for ni in nodes]
            assert all(memo.head(state, incoming, local, ni) is h for ni, h in zip(nodes, kept, strict=True))
            if before is not None:
                # (fewer nodes judged again than have changed: answers were kept)
                kept_any |= again < sum(g0 is not g1 for g0, g1 in zip(before[1], gens, strict=True))
                flipped |= any(a and not b for a, b in zip(before[0], kept, strict=True))
    assert (kept_any, flipped) == (True, True)  # answers were kept, and failures turned into passes


@pytest.mark.parametrize("seed", range(6))
def test_normalizing_a_list_in_parts_equals_normalize_score(seed: int) -> None:
    """The framework normalizes PodTopologySpread's and InterPodAffinity's scores as a list
    through their normalizers in parts (``normalize_values_by``): equal to their own
    NormalizeScore on the scores by name, with nodes PreScore ignores (no zone label under
    the pod's own constraints), negative affinity sums, all scores alike."""
    from kschedx.core.framework.interface import normalize_values_by

    rng = random.Random(seed)
    objs = _cluster(rng, 40)
    snap = snapshot(*objs)
    nodes = snap.nodes()
    fw = framework(snap)
    compared = set()
    for _ in range(16):
        raw = _incoming(rng, [ni.name for ni in nodes])
        raw["spec"].pop("nodeName", None)
        if rng.random() < 0.6:
            raw["spec"]["affinity"] = {"podAffinity" if rng.random() < 0.5 else "podAntiAffinity": {
                "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": rng.choice([1, 50, 100]), "podAffinityTerm": {
                    "labelSelector": {"matchLabels": {"app": rng.choice(["web", "db"])}},
                    "topologyKey": rng.choice(["topology.kubernetes.io/zone", "kubernetes.io/hostname"])}}]}}
        incoming = PodInfo(raw)
        scored = [ni for ni in nodes if rng.random() < 0.7] or nodes
        names = [ni.name for ni in scored]
        state = CycleState()
        for pl in fw.plugins.pre_filter:
            pl.pre_filter(state, incoming, nodes)  # type: ignore[attr-defined]
        for pl in fw.plugins.pre_score:
            pl.pre_score(state, incoming, scored)  # type: ignore[attr-defined]
        for name in ("PodTopologySpread", "InterPodAffinity"):
            pl = fw.plugins.instances[name]
            norm = pl.replica_normalizer(state)  # type: ignore[attr-defined]
            if norm is None:
                continue
            for raws in ([pl.score(state, incoming, ni)[0] for ni in scored],  # type: ignore[attr-defined]
                         [rng.randint(-300, 300) for _ in scored], [7] * len(scored)):
                by_name = dict(zip(names, raws, strict=True))
                assert pl.normalize_score(state, incoming, by_name).is_success  # type: ignore[attr-defined]
                assert normalize_values_by(norm, names, raws) == [by_name[n] for n in names], name
                compared.add((name, bool(norm.ignored)))
    assert {("PodTopologySpread", True), ("InterPodAffinity", False)} <= compared


@pytest.mark.parametrize("seed", range(6))
def test_spreading_classes_in_bulk_equal_the_class_of_each_node(seed: int) -> None:
    """PodTopologySpread's scoring classes built in bulk from the label columns
    (``replica_score_keys``) equal its key of each node, and a class's raw score is the
    node's Score: own constraints over zone, hostname and a rack key, nodes without some
    of them (ignored under required keys, or counted without them under defaults), every
    node or a part, and nodes that are not the snapshot's own (copies)."""
    rng = random.Random(seed)
    objs: list[Dict] = [{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web", "namespace": "default"},
                         "spec": {"selector": {"app": "web"}}}]
    for i in range(40):
        labels = {}
        if rng.random() < 0.8:
            labels["topology.kubernetes.io/zone"] = rng.choice(["eu-west-1a", "eu-west-1b", "eu-west-1c"])
        if rng.random() < 0.7:
            labels["rack"] = rng.choice(["r1", "r2", "r3"])
        n = node(f"ip-10-0-{i}-17.eu-west-1.compute.internal", labels=labels)
        if rng.random() < 0.1:
            del n["metadata"]["labels"]["kubernetes.io/hostname"]
        objs.append(n)
        for j in range(rng.randint(0, 4)):
            objs.append(pod(f"p{i}-{j}", cpu="100m", node_name=n["metadata"]["name"],
                            labels={"app": rng.choice(["web", "db"])}))
    snap = snapshot(*objs)
    nodes = snap.nodes()
    fw = framework(snap)
    pl = fw.plugins.instances["PodTopologySpread"]
    keys = ["topology.kubernetes.io/zone", "kubernetes.io/hostname", "rack"]
    for _ in range(8):
        spec: Dict = {}
        if rng.random() < 0.7:
            spec["topologySpreadConstraints"] = [
                {"maxSkew": rng.choice([1, 3]), "topologyKey": key, "whenUnsatisfiable": "ScheduleAnyway",
                 "labelSelector": {"matchLabels": {"app": "web"}}} for key in rng.sample(keys, rng.randint(1, 3))]
        incoming = PodInfo(pod("incoming", cpu="100m", labels={"app": "web"}, **spec))
        for scored in (nodes, [ni for ni in nodes if rng.random() < 0.6] or nodes,
                       [ni.clone() for ni in nodes if rng.random() < 0.5] or [nodes[0].clone()]):
            state = CycleState()
            assert pl.pre_score(state, incoming, scored).is_success  # type: ignore[attr-defined]
            key_of, raw_of = pl.replica_score_classes(state)  # type: ignore[attr-defined]
            bulk = pl.replica_score_keys(state, scored)  # type: ignore[attr-defined]
            assert bulk == [key_of(ni) for ni in scored]
            assert [raw_of(k) for k in bulk] == [pl.score(state, incoming, ni)[0] for ni in scored]  # type: ignore[attr-defined]

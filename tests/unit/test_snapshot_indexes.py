"""The per-snapshot indexes the plugins keep across cycles give what a fresh count gives.

InterPodAffinity's existing terms grouped by term (core/plugins/interpodaffinity_index.py)
follow the snapshot's edits node by node; PodTopologySpread's eligible domains
(podtopologyspread_common.eligible_domains) are kept per snapshot. Each is checked against
a cycle on a snapshot built afresh, or against the plain per-node pass, after edits.
"""

from __future__ import annotations

import copy
import gc
import json
import weakref
from typing import Any

from kschedx.core.api.model import PodInfo
from kschedx.core.config.profile import default_profile
from kschedx.core.framework import shared_answers
from kschedx.core.framework.interface import CycleState, ReplicaMemo
from kschedx.core.framework.runtime import Framework
from kschedx.core.plugins import REGISTRY
from kschedx.core.snapshot import Snapshot

from .helpers import node, pod, snapshot

Dict = dict[str, Any]
ZONE = "topology.kubernetes.io/zone"
HOST = "kubernetes.io/hostname"


def _term(app: str, key: str) -> Dict:
    return {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": key}


def _existing(name: str, at: str, app: str, kind: int) -> Dict:
    p = pod(name, cpu="100m", node_name=at, labels={"app": app})
    if kind == 0:
        p["spec"]["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            _term("web", HOST)]}}
    elif kind == 1:
        p["spec"]["affinity"] = {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 7, "podAffinityTerm": _term("web", ZONE)}]}}
    elif kind == 2:
        p["spec"]["affinity"] = {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 3, "podAffinityTerm": _term("web", HOST)}, {"weight": 3, "podAffinityTerm": _term("web", HOST)}]}}
    elif kind == 3:
        p["spec"]["affinity"] = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            _term("web", ZONE)]}}
    return p


def _cluster() -> list[Dict]:
    objs: list[Dict] = [node(f"n{i}", labels={ZONE: "abc"[i % 3]}) for i in range(9)]
    # Required anti-affinity against the incoming pod on two nodes only: the others stay
    # feasible, so the scores count too.
    objs += [_existing(f"e{i}", f"n{i % 9}", f"db{i % 2}", i % 5 if i % 5 or i in (0, 10) else 4)
             for i in range(30)]
    objs.append(pod("rare", node_name="n3", labels={"app": "rare"}))
    return objs


def _incoming() -> Dict:
    p = pod("in", cpu="100m", labels={"app": "web"})
    p["spec"]["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        _term("rare", HOST)]}}
    return p


def _result(snap: Snapshot) -> str:
    fw = Framework(default_profile(REGISTRY), snap, REGISTRY)
    r = fw.run_cycle(PodInfo(_incoming()), all_reasons=True)
    out = r.to_json()
    # Every kind of term is at work: filtered nodes of both anti-affinities, and scores.
    plugins = {v.get("plugin") for v in out["nodes"].values()}
    assert "InterPodAffinity" in plugins and any(v["feasible"] for v in out["nodes"].values())
    assert any(p["name"] == "InterPodAffinity" and any(s["raw"] for s in p["scores"].values())
               for p in out["scorePlugins"])
    return json.dumps(out, sort_keys=True)


def _fresh(objs: list[Dict]) -> Snapshot:
    return snapshot(*copy.deepcopy(objs))


def test_interpodaffinity_groups_follow_the_snapshot_edits() -> None:
    objs = _cluster()
    kept = snapshot(*objs)
    assert _result(kept) == _result(_fresh(objs))
    added: list[PodInfo] = []
    for i, kind in enumerate((0, 1, 2, 3, 0, 1)):
        raw = _existing(f"x{i}", f"n{(i * 4) % 9}", "db1", kind)
        info = PodInfo(raw)
        kept.add_pod(info)
        added.append(info)
        objs.append(raw)
        assert _result(kept) == _result(_fresh(objs)), i
    for info in added[::2]:
        kept.remove_pod(info)
        objs = [o for o in objs if o is not info.raw]
        assert _result(kept) == _result(_fresh(objs))
    # Pods that were there from the start go too.
    first = next(p for p in kept.all_pods() if p.name == "e0")
    kept.remove_pod(first)
    objs = [o for o in objs if o is not first.raw]
    assert _result(kept) == _result(_fresh(objs))


def _spread_state(snap: Snapshot, incoming: Dict, nodes: list[Any]) -> list[list[tuple[str, int]]]:
    fw = Framework(default_profile(REGISTRY), snap, REGISTRY)
    pl = fw.plugins.instances["PodTopologySpread"]
    state = CycleState()
    _res, st = pl.pre_filter(state, PodInfo(incoming), nodes)  # type: ignore[attr-defined]
    assert st.is_success
    s = state.data["PreFilterPodTopologySpread"]
    return [list(m.items()) for m in s.counts]


def test_spread_domains_kept_per_snapshot_equal_the_pass_over_the_nodes() -> None:
    objs: list[Dict] = [node(f"n{i}", labels={ZONE: "abc"[i % 3], "pool": "xy"[i % 2]},
                             taints=[{"key": "t", "effect": "NoSchedule"}] if i % 4 == 3 else None)
                        for i in range(12)]
    objs.append(node("nozone"))
    objs += [pod(f"p{i}", node_name=f"n{i % 12}", labels={"app": "web"}) for i in range(20)]
    snap = snapshot(*objs)
    variants: list[Dict] = []
    for policy in ({}, {"nodeAffinityPolicy": "Ignore"}, {"nodeTaintsPolicy": "Honor"}):
        for selector in (None, {"pool": "x"}):
            p = pod("in", labels={"app": "web"})
            p["spec"]["topologySpreadConstraints"] = [
                {"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule",
                 "labelSelector": {"matchLabels": {"app": "web"}}, **policy},
                {"maxSkew": 2, "topologyKey": HOST, "whenUnsatisfiable": "DoNotSchedule",
                 "labelSelector": {"matchLabels": {"app": "web"}}}]
            if selector:
                p["spec"]["nodeSelector"] = selector
            variants.append(p)
            tolerant = copy.deepcopy(p)
            tolerant["spec"]["tolerations"] = [{"key": "t", "operator": "Exists"}]
            variants.append(tolerant)
    for _round in range(2):  # the second round answers from what the first kept
        for p in variants:
            assert _spread_state(snap, p, snap.node_infos) == _spread_state(snap, p, list(snap.node_infos))
        snap.add_pod(PodInfo(pod("late", node_name="n5", labels={"app": "web"})))


def test_a_snapshot_and_its_indexes_go_when_the_snapshot_does() -> None:
    """The per-snapshot indexes and shared answers are WeakKeyDictionary values: none may hold
    its snapshot, or every snapshot of a process (thousands in a test run) would stay."""
    snap = snapshot(*_cluster())
    shared_answers.share(snap)
    _result(snap)  # InterPodAffinity's term indexes
    answers = shared_answers.shared(snap)
    assert answers is not None
    answers.bind(snap, ReplicaMemo(), Framework(default_profile(REGISTRY), snap, REGISTRY), PodInfo(_incoming()))
    gone = weakref.ref(snap)
    del snap, answers
    gc.unfreeze()  # what a load froze (core/gcpause.py) is collected too
    gc.collect()
    assert gone() is None, [type(r).__name__ for r in gc.get_referrers(gone())]


def test_a_pod_is_taken_off_its_node_by_itself_or_by_another_object_of_it() -> None:
    """NodeInfo.remove_pod finds the PodInfo itself first (C's identity scan), else the
    pod with the same uid; an unknown pod changes nothing."""
    import copy

    from kschedx.core.api.model import PodInfo

    from .helpers import node, pod, snapshot

    snap = snapshot(node("a"), pod("p1", cpu="1", node_name="a"), pod("p2", cpu="1", node_name="a"))
    ni = snap.get("a")
    assert ni is not None
    p1, p2 = ni.pods
    assert ni.remove_pod(PodInfo(copy.deepcopy(p1.raw)))  # another object of p1
    assert [p.name for p in ni.pods] == ["p2"] and ni.requested["cpu"] == 1000
    assert not ni.remove_pod(p1)
    assert ni.remove_pod(p2) and ni.pods == [] and ni.requested["cpu"] == 0


def test_image_counts_read_from_the_stored_lists_equal_the_nodes_images() -> None:
    """``image_num_nodes`` (read with each node's image sizes from its stored list) counts each name once
    per node, as the nodes' parsed ``images`` hold them: names shared by two images of a
    node, an image without names, a name that YAML read as a number."""
    images = [
        [{"names": ["nginx@sha256:ab", "nginx:1.25"], "sizeBytes": 1}, {"names": ["nginx:1.25"], "sizeBytes": 2}],
        [{"names": ["redis:7"], "sizeBytes": 3}, {"sizeBytes": 4}, {"names": [7], "sizeBytes": 5}],
        [],
        [{"names": ["nginx:1.25", "redis:7"], "sizeBytes": 6}],
    ]
    snap = snapshot(*(node(f"n{i}", images=imgs) for i, imgs in enumerate(images)))
    want: dict[str, int] = {}
    for ni in snap.nodes():
        for name in {n for names, _size in ni.node.images for n in names}:
            want[name] = want.get(name, 0) + 1
    assert snap.image_num_nodes() == want == {"nginx@sha256:ab": 1, "nginx:1.25": 2, "redis:7": 2, "7": 1}
    # Each node's sizes by name hold what its parsed images give, the last image listing a
    # name winning.
    for ni in snap.nodes():
        assert ni.node.image_sizes == {n: size for names, size in ni.node.images for n in names}
    assert [ni.node.image_sizes.get("nginx:1.25") for ni in snap.nodes()] == [2, None, None, 6]


def test_positions_kept_by_a_cycle_state_follow_the_list_asked_about() -> None:
    """``CycleState.positions_in`` answers again only for the same list of the same length
    over the same node list; any other list (or the node set changed) is looked up anew,
    and every answer equals ``positions_of``. ``label_values`` is one column of
    ``label_columns``."""
    snap = snapshot(*(node(f"n{i}", labels={"zone": "ab"[i % 2]} if i % 3 else {}) for i in range(6)))
    nodes = snap.nodes()
    state = CycleState()
    part = [nodes[1], nodes[4], nodes[5]]
    assert state.positions_in(snap, part) == snap.positions_of(part) == [1, 4, 5]
    assert state.positions_in(snap, part) is state.positions_in(snap, part)  # kept
    other = [nodes[0], nodes[2]]
    assert state.positions_in(snap, other) == [0, 2]
    part.append(nodes[0])  # (the same list, grown: looked up again)
    assert state.positions_in(snap, part) == [1, 4, 5, 0]
    snap.remove_node("n2")
    assert state.positions_in(snap, part) == snap.positions_of(part) == [1, 3, 4, 0]
    foreign = snapshot(node("n1"))
    assert state.positions_in(foreign, part) is None
    assert state.clone().positions_in(foreign, part) is None
    assert snap.label_values("zone") == [row[0] for row in snap.label_columns(("zone",))] == [None, "b", None, "a", "b"]


def test_pods_by_uid_merged_when_first_read_follows_every_edit() -> None:
    """``pods_by_uid`` is merged from the namespaces when first read: before and after that
    read, pods bound, taken off and dropped with their node leave it equal to the bound
    pods of every node (not the pods of unknown nodes, nor Pending ones)."""

    def bound(snap: Snapshot) -> dict[str, str]:
        return {p.uid: p.key for ni in snap.nodes() for p in ni.pods}

    objs = [node("a"), node("b"), pod("x", node_name="a", namespace="web"), pod("y", node_name="b"),
            pod("lost", node_name="gone"), pod("pending")]
    for read_first in (False, True):
        snap = snapshot(*objs)
        if read_first:
            assert {u: p.key for u, p in snap.pods_by_uid.items()} == bound(snap) == {
                "uid-web-x": "web/x", "uid-default-y": "default/y"}
        z = PodInfo(pod("z", node_name="a", namespace="web"))
        snap.add_pod(z)
        snap.remove_pod(snap.get("b").pods[0])  # type: ignore[union-attr]
        assert {u: p.key for u, p in snap.pods_by_uid.items()} == bound(snap) == {
            "uid-web-x": "web/x", "uid-web-z": "web/z"}
        assert snap.pods_by_uid["uid-web-z"] is z
        snap.remove_node("a")
        snap.add_pod(PodInfo(pod("w", node_name="b")))
        assert {u: p.key for u, p in snap.pods_by_uid.items()} == bound(snap) == {"uid-default-w": "default/w"}

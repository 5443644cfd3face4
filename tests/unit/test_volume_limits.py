"""NodeVolumeLimits: CSINode attach limits, unique volume counting, unbound claims, in-tree migration."""

from __future__ import annotations

from typing import Any

from kschedx.core.plugins.nodevolumelimits import ERR_REASON_MAX_VOLUME_COUNT, NAME

from .helpers import cycle, node, pod, snapshot
from .test_volume_builders import claim_volume, csinode, pv, pvc, storage_class

EBS = "ebs.csi.aws.com"


def _feasible(result: Any) -> list[str]:
    return sorted(n for n, v in result.nodes.items() if v.feasible)


def _verdict(result: Any, name: str) -> tuple[bool, str | None, str | None, list[str]]:
    v = result.nodes[name]
    return (v.feasible, v.plugin, v.code, v.reasons)


def _bound(name: str, handle: str) -> list[dict[str, Any]]:
    return [
        pv(f"pv-{name}", claim=("default", name), csi=(EBS, handle)),
        pvc(name, volume_name=f"pv-{name}"),
    ]


def _base(*extra: dict[str, Any]) -> Any:
    return snapshot(
        node("full"),
        node("roomy"),
        node("nolimit"),
        node("nocsinode"),
        storage_class(),
        csinode("full", {EBS: 2}),
        csinode("roomy", {EBS: 3}),
        csinode("nolimit", {EBS: None}),
        *_bound("a", "vol-a"),
        *_bound("b", "vol-b"),
        *_bound("c", "vol-c"),
        pod("user", node_name="full", volumes=[claim_volume("a"), claim_volume("b")]),
        pod("user2", node_name="roomy", volumes=[claim_volume("a"), claim_volume("b")]),
        *extra,
    )


def test_skips_pods_without_attachable_volumes() -> None:
    r = cycle(_base(), pod("p", volumes=[{"name": "c", "csi": {"driver": EBS}}, {"name": "e", "emptyDir": {}}]))
    assert NAME in r.pre_filter.skipped_plugins


def test_limit_exceeded_is_unschedulable() -> None:
    r = cycle(_base(), pod("p", volumes=[claim_volume("c")]))
    assert _verdict(r, "full") == (False, NAME, "Unschedulable", [ERR_REASON_MAX_VOLUME_COUNT])
    # 2 used + 1 new <= 3; no count or no CSINode: no limit.
    assert _feasible(r) == ["nocsinode", "nolimit", "roomy"]


def test_volume_already_attached_is_not_new() -> None:
    r = cycle(_base(), pod("p", volumes=[claim_volume("a"), claim_volume("b")]))
    assert "full" in _feasible(r)
    # The same claim twice in one pod is one volume.
    r = cycle(_base(), pod("p", volumes=[claim_volume("c", "x"), claim_volume("c", "y")]))
    assert _verdict(r, "full")[3] == [ERR_REASON_MAX_VOLUME_COUNT]
    assert "roomy" in _feasible(r)


def test_unbound_claim_counts_against_its_class_provisioner() -> None:
    r = cycle(_base(pvc("new")), pod("p", volumes=[claim_volume("new")]))
    assert _verdict(r, "full")[3] == [ERR_REASON_MAX_VOLUME_COUNT]
    # A claim without a class must be bound before scheduling: not counted.
    r = cycle(_base(pvc("classless", sc=None), storage_class("x", mode="Immediate")), pod("p", volumes=[claim_volume("classless")]))
    assert r.nodes["full"].plugin != NAME


def test_other_drivers_have_their_own_limit() -> None:
    objs = _base(
        pv("pv-d", claim=("default", "d"), csi=("other.csi.example.com", "vol-d")),
        pvc("d", volume_name="pv-d"),
    )
    r = cycle(objs, pod("p", volumes=[claim_volume("d")]))
    assert "full" in _feasible(r)


def test_inline_intree_volume_counts_once_migrated() -> None:
    ebs_inline = {"name": "disk", "awsElasticBlockStore": {"volumeID": "aws://eu-west-1a/vol-0abc"}}
    snap = _base()
    r = cycle(snap, pod("p", volumes=[ebs_inline]))
    assert NAME not in r.pre_filter.skipped_plugins
    assert _verdict(r, "full")[3] == [ERR_REASON_MAX_VOLUME_COUNT]
    # Two inline references to the same EBS volume (URL and bare id) are one volume.
    bare = {"name": "disk2", "awsElasticBlockStore": {"volumeID": "vol-0abc"}}
    r2 = cycle(snap, pod("p", volumes=[ebs_inline, bare]))
    assert "roomy" in _feasible(r2)


def test_intree_pv_of_existing_pod_is_counted_as_its_csi_driver() -> None:
    ebs_pv = pv("pv-old", claim=("default", "old"), source={"awsElasticBlockStore": {"volumeID": "vol-old"}})
    snap = snapshot(
        node("n"),
        storage_class(),
        csinode("n", {EBS: 1}),
        ebs_pv,
        pvc("old", volume_name="pv-old"),
        pod("legacy", node_name="n", volumes=[claim_volume("old")]),
        *_bound("c", "vol-c"),
    )
    r = cycle(snap, pod("p", volumes=[claim_volume("c")]))
    assert _verdict(r, "n")[3] == [ERR_REASON_MAX_VOLUME_COUNT]


def test_missing_claim_of_new_pod_and_existing_pod() -> None:
    from kschedx.core.api.model import PodInfo
    from kschedx.core.framework.interface import CycleState
    from kschedx.core.plugins.nodevolumelimits import NodeVolumeLimits

    from .helpers import framework

    snap = _base(pod("stale", node_name="full", volumes=[claim_volume("deleted-claim")]))
    pl = NodeVolumeLimits(framework(snap), None)
    node_full = snap.get("full")
    assert node_full is not None
    st = pl.filter(CycleState(), PodInfo(pod("p", volumes=[claim_volume("ghost")])), node_full)
    assert (st.code.label, st.reasons) == (
        "UnschedulableAndUnresolvable",
        ['looking up PVC default/ghost: persistentvolumeclaim "ghost" not found'],
    )
    # An existing pod's missing claim is simply not counted.
    assert pl.filter(CycleState(), PodInfo(pod("p", volumes=[claim_volume("a")])), node_full).is_success

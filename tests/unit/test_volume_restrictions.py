"""VolumeRestrictions: ReadWriteOncePod users (with Add/RemovePod) and in-tree disk conflicts."""

from __future__ import annotations

from typing import Any

from kschedx.core.api.model import PodInfo
from kschedx.core.framework.interface import CycleState
from kschedx.core.plugins.volumerestrictions import (
    ERR_REASON_DISK_CONFLICT,
    ERR_REASON_RWOP_CONFLICT,
    NAME,
    VolumeRestrictions,
    VolumeRestrictionsState,
)

from .helpers import cycle, framework, node, pod, snapshot
from .test_volume_builders import claim_volume, pv, pvc, storage_class


def _feasible(result: Any) -> list[str]:
    return sorted(n for n, v in result.nodes.items() if v.feasible)


def _verdict(result: Any, name: str) -> tuple[bool, str | None, str | None, list[str]]:
    v = result.nodes[name]
    return (v.feasible, v.plugin, v.code, v.reasons)


def _rwop_cluster(*extra: dict[str, Any]) -> Any:
    return snapshot(
        node("a"),
        node("b"),
        storage_class(),
        pv("v", claim=("default", "solo"), access_modes=["ReadWriteOncePod"]),
        pvc("solo", volume_name="v", access_modes=["ReadWriteOncePod"]),
        pvc("shared", access_modes=["ReadWriteOnce"]),
        *extra,
    )


def test_skips_without_disks_or_rwop_claims_in_use() -> None:
    r = cycle(_rwop_cluster(), pod("p", volumes=[claim_volume("shared")]))
    assert NAME in r.pre_filter.skipped_plugins
    # An RWOP claim nobody uses yet doesn't need the plugin either.
    r = cycle(_rwop_cluster(), pod("p", volumes=[claim_volume("solo")]))
    assert NAME in r.pre_filter.skipped_plugins
    assert _feasible(r) == ["a", "b"]


def test_missing_claim_is_unresolvable_at_prefilter() -> None:
    r = cycle(_rwop_cluster(), pod("p", volumes=[claim_volume("ghost")]))
    assert (r.pre_filter.plugin, r.pre_filter.code, r.pre_filter.reasons) == (
        NAME, "UnschedulableAndUnresolvable", ['persistentvolumeclaim "ghost" not found']
    )
    assert r.fit_error is not None
    assert r.fit_error.startswith('0/2 nodes are available: persistentvolumeclaim "ghost" not found.')


def test_rwop_claim_in_use_rejects_every_node() -> None:
    snap = _rwop_cluster(pod("holder", node_name="a", volumes=[claim_volume("solo")]))
    r = cycle(snap, pod("p", volumes=[claim_volume("solo")]))
    for n in ("a", "b"):
        assert _verdict(r, n) == (False, NAME, "Unschedulable", [ERR_REASON_RWOP_CONFLICT])
    # Another namespace's pod with a claim of the same name is not a user of this claim.
    snap = _rwop_cluster(pod("other", node_name="a", namespace="ns2", volumes=[claim_volume("solo")]))
    r = cycle(snap, pod("p", volumes=[claim_volume("solo")]))
    assert NAME in r.pre_filter.skipped_plugins


def test_add_and_remove_pod_track_rwop_users() -> None:
    snap = _rwop_cluster(pod("holder", node_name="a", volumes=[claim_volume("solo")]))
    fw = framework(snap)
    pl = VolumeRestrictions(fw, None)
    state = CycleState()
    incoming = PodInfo(pod("p", volumes=[claim_volume("solo")]))
    _, st = pl.pre_filter(state, incoming, snap.nodes())
    assert st.is_success
    s: VolumeRestrictionsState = state.data[NAME]
    assert (s.conflicting_refs, s.users) == (1, ["default/holder"])
    holder = snap.pods_by_namespace["default"]["uid-default-holder"]
    node_a = snap.get("a")
    assert node_a is not None
    # A preemption victim removed: the claim is free, the node fits.
    clone = state.clone()
    assert pl.remove_pod(clone, incoming, holder, node_a).is_success
    assert pl.filter(clone, incoming, node_a).is_success
    # The original state is untouched by the clone's edits.
    assert pl.filter(state, incoming, node_a).reasons == [ERR_REASON_RWOP_CONFLICT]
    # A nominated pod using the claim takes it again.
    assert pl.add_pod(clone, incoming, holder, node_a).is_success
    assert pl.filter(clone, incoming, node_a).reasons == [ERR_REASON_RWOP_CONFLICT]


def _disk_pod(name: str, node_name: str | None, volume: dict[str, Any]) -> dict[str, Any]:
    return pod(name, node_name=node_name, volumes=[{"name": "disk", **volume}])


def test_gce_pd_conflicts_unless_both_read_only() -> None:
    rw = {"gcePersistentDisk": {"pdName": "pd-1"}}
    ro = {"gcePersistentDisk": {"pdName": "pd-1", "readOnly": True}}
    snap = snapshot(node("a"), node("b"), _disk_pod("e", "a", rw))
    r = cycle(snap, _disk_pod("p", None, ro))
    assert _verdict(r, "a") == (False, NAME, "Unschedulable", [ERR_REASON_DISK_CONFLICT])
    assert _feasible(r) == ["b"]
    snap = snapshot(node("a"), _disk_pod("e", "a", ro))
    assert _feasible(cycle(snap, _disk_pod("p", None, ro))) == ["a"]
    other = {"gcePersistentDisk": {"pdName": "pd-2"}}
    assert _feasible(cycle(snap, _disk_pod("p", None, other))) == ["a"]


def test_aws_ebs_always_conflicts() -> None:
    ro = {"awsElasticBlockStore": {"volumeID": "vol-1", "readOnly": True}}
    snap = snapshot(node("a"), _disk_pod("e", "a", ro))
    r = cycle(snap, _disk_pod("p", None, ro))
    assert _verdict(r, "a")[3] == [ERR_REASON_DISK_CONFLICT]


def test_iscsi_and_rbd_conflicts() -> None:
    iscsi_rw = {"iscsi": {"targetPortal": "10.0.0.1:3260", "iqn": "iqn.a", "lun": 0}}
    iscsi_ro = {"iscsi": {"targetPortal": "10.0.0.1:3260", "iqn": "iqn.a", "lun": 0, "readOnly": True}}
    snap = snapshot(node("a"), _disk_pod("e", "a", iscsi_rw))
    assert _verdict(cycle(snap, _disk_pod("p", None, iscsi_ro)), "a")[3] == [ERR_REASON_DISK_CONFLICT]
    snap = snapshot(node("a"), _disk_pod("e", "a", iscsi_ro))
    assert _feasible(cycle(snap, _disk_pod("p", None, iscsi_ro))) == ["a"]

    rbd = {"rbd": {"monitors": ["m1", "m2"], "image": "img"}}
    same_pool = {"rbd": {"monitors": ["m2", "m3"], "pool": "rbd", "image": "img"}}
    other_pool = {"rbd": {"monitors": ["m2"], "pool": "kube", "image": "img"}}
    no_shared_monitor = {"rbd": {"monitors": ["m9"], "image": "img"}}
    snap = snapshot(node("a"), _disk_pod("e", "a", rbd))
    # The pool defaults to "rbd"; a shared monitor, pool and image make it the same image.
    assert _verdict(cycle(snap, _disk_pod("p", None, same_pool)), "a")[3] == [ERR_REASON_DISK_CONFLICT]
    assert _feasible(cycle(snap, _disk_pod("p", None, other_pool))) == ["a"]
    assert _feasible(cycle(snap, _disk_pod("p", None, no_shared_monitor))) == ["a"]

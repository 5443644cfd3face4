"""VolumeBinding through the real framework: every reason, code and skip path."""

from __future__ import annotations

from typing import Any

from kschedx.core.api.model import PodInfo
from kschedx.core.framework.interface import CycleState
from kschedx.core.plugins.volumebinding import (
    ERR_REASON_BIND_CONFLICT,
    ERR_REASON_NODE_CONFLICT,
    ERR_REASON_NOT_ENOUGH_SPACE,
    ERR_REASON_PV_NOT_EXIST,
    ERR_UNBOUND_IMMEDIATE,
    NAME,
    VolumeBinding,
    VolumeBindingState,
)

from .helpers import cycle, framework, node, pod, snapshot
from .test_volume_builders import (
    capacity,
    claim_volume,
    csidriver,
    csinode,
    ephemeral_volume,
    pv,
    pvc,
    storage_class,
)

ZONE = "topology.kubernetes.io/zone"


def _zoned(name: str, zone: str) -> dict[str, Any]:
    return node(name, labels={ZONE: zone})


def _verdict(result: Any, name: str) -> tuple[bool, str | None, str | None, list[str]]:
    v = result.nodes[name]
    return (v.feasible, v.plugin, v.code, v.reasons)


def _feasible(result: Any) -> list[str]:
    return sorted(n for n, v in result.nodes.items() if v.feasible)


def test_pod_without_claims_skips_prefilter_and_prescore() -> None:
    snap = snapshot(node("a"))
    r = cycle(snap, pod("p", volumes=[{"name": "tmp", "emptyDir": {}}]))
    assert NAME in r.pre_filter.skipped_plugins
    assert [s.skipped for s in r.score_plugins if s.name == NAME] == [True]


def test_prescore_skips_even_with_claims() -> None:
    # StorageCapacityScoring is off in v1.35: no scorer, PreScore always skips.
    snap = snapshot(node("a"), storage_class(), pv("v1"), pvc("c"))
    r = cycle(snap, pod("p", volumes=[claim_volume("c")]))
    assert NAME not in r.pre_filter.skipped_plugins
    assert [s.skipped for s in r.score_plugins if s.name == NAME] == [True]
    assert _feasible(r) == ["a"]


def _prefilter(snap: Any, incoming: dict[str, Any]) -> tuple[Any, Any]:
    fw = framework(snap)
    pl = VolumeBinding(fw, None)
    state = CycleState()
    return pl.pre_filter(state, PodInfo(incoming), snap.nodes()), state


def test_missing_claim_lost_and_deleting_claims() -> None:
    snap = snapshot(
        node("a"),
        storage_class(),
        pvc("lost", volume_name="gone", phase="Lost"),
        pvc("dying", deleting=True),
    )
    (_, st), _ = _prefilter(snap, pod("p", volumes=[claim_volume("nope")]))
    assert (st.code.label, st.reasons) == ("UnschedulableAndUnresolvable", ['persistentvolumeclaim "nope" not found'])
    (_, st), _ = _prefilter(snap, pod("p", volumes=[claim_volume("lost")]))
    assert st.reasons == ['persistentvolumeclaim "lost" bound to non-existent persistentvolume "gone"']
    (_, st), _ = _prefilter(snap, pod("p", volumes=[claim_volume("dying")]))
    assert st.reasons == ['persistentvolumeclaim "dying" is being deleted']


def test_generic_ephemeral_claim_name_and_owner() -> None:
    incoming = pod("web", volumes=[ephemeral_volume("scratch")])
    snap = snapshot(node("a"), storage_class())
    (_, st), _ = _prefilter(snap, incoming)
    assert st.code.label == "UnschedulableAndUnresolvable"
    assert st.reasons == ['waiting for ephemeral volume controller to create the persistentvolumeclaim "web-scratch"']

    # A claim with the right name that the pod doesn't own is not its volume.
    snap = snapshot(node("a"), storage_class(), pvc("web-scratch", owner_uid="someone-else"))
    (_, st), _ = _prefilter(snap, incoming)
    assert st.reasons == ["PVC default/web-scratch was not created for pod default/web (pod is not owner)"]

    # Owned by the pod: provisioned like any delayed claim.
    snap = snapshot(node("a"), storage_class(), pvc("web-scratch", owner_uid="uid-default-web"))
    r = cycle(snap, incoming)
    assert _feasible(r) == ["a"]


def test_unbound_immediate_claims_fail_prefilter() -> None:
    snap = snapshot(
        node("a"),
        node("b"),
        storage_class("now", mode="Immediate"),
        storage_class(),
        pv("pre", claim=("default", "prebound")),
        pvc("c-now", sc="now"),
        pvc("c-noclass", sc="missing-class"),
        pvc("c-empty", sc=None),
        # Pre-bound to a PV but not completed: the PV controller still has to bind it.
        pvc("prebound", volume_name="pre", bound=False),
    )
    for claim in ("c-now", "c-noclass", "c-empty", "prebound"):
        r = cycle(snap, pod("p", volumes=[claim_volume(claim)]))
        assert (r.pre_filter.plugin, r.pre_filter.code, r.pre_filter.reasons) == (
            NAME, "UnschedulableAndUnresolvable", [ERR_UNBOUND_IMMEDIATE]
        ), claim
        assert r.fit_error is not None and r.fit_error.startswith(f"0/2 nodes are available: {ERR_UNBOUND_IMMEDIATE}.")


def test_bound_claim_checks_pv_node_affinity_without_narrowing() -> None:
    snap = snapshot(
        node("a"),
        node("b"),
        storage_class(),
        pv("local-a", hostname="a", claim=("default", "data")),
        pvc("data", volume_name="local-a"),
    )
    r = cycle(snap, pod("p", volumes=[claim_volume("data")]))
    # No PreFilter node set: node b is rejected by Filter with the affinity reason.
    assert r.pre_filter.plugins_with_nodes == []
    assert _verdict(r, "b") == (False, NAME, "UnschedulableAndUnresolvable", [ERR_REASON_NODE_CONFLICT])
    assert _feasible(r) == ["a"]


def test_bind_completed_annotation_is_required_for_bound() -> None:
    snap = snapshot(
        node("a"),
        storage_class(),
        pv("v", claim=("default", "data")),
        pvc("data", volume_name="v", bound=False),
    )
    r = cycle(snap, pod("p", volumes=[claim_volume("data")]))
    assert r.pre_filter.reasons == [ERR_UNBOUND_IMMEDIATE]


def test_bound_claim_with_missing_pv_reason() -> None:
    snap = snapshot(node("a"), storage_class(), pvc("data", volume_name="gone"))
    incoming = PodInfo(pod("p", volumes=[claim_volume("data")]))
    fw = framework(snap)
    pl = VolumeBinding(fw, None)
    state = CycleState()
    _, st = pl.pre_filter(state, incoming, snap.nodes())
    assert st.is_success
    st = pl.filter(state, incoming, snap.get("a"))
    assert (st.code.label, st.reasons) == ("UnschedulableAndUnresolvable", [ERR_REASON_PV_NOT_EXIST])


def test_delayed_claim_matches_smallest_fitting_pv_per_node() -> None:
    snap = snapshot(
        node("a"),
        node("b"),
        node("c"),
        storage_class(provisioner="kubernetes.io/no-provisioner"),
        pv("big-a", storage="100Gi", hostname="a"),
        pv("small-a", storage="20Gi", hostname="a"),
        pv("tiny-a", storage="5Gi", hostname="a"),  # too small
        pv("b-rox", storage="20Gi", hostname="b", access_modes=["ReadOnlyMany"]),  # wrong access mode
        pv("c-block", storage="20Gi", hostname="c", volume_mode="Block"),  # wrong volume mode
        pv("c-other", storage="20Gi", hostname="c", sc="other"),  # wrong class
        pv("c-taken", storage="20Gi", hostname="c", claim=("default", "someone")),  # claimed by another
        pvc("data", storage="10Gi"),
    )
    incoming = pod("p", volumes=[claim_volume("data")])
    r = cycle(snap, incoming)
    assert _feasible(r) == ["a"]
    for n in ("b", "c"):
        assert _verdict(r, n) == (False, NAME, "UnschedulableAndUnresolvable", [ERR_REASON_BIND_CONFLICT])

    fw = framework(snap)
    pl = fw.plugins.instances[NAME]
    state = CycleState()
    pl.pre_filter(state, PodInfo(incoming), snap.nodes())  # type: ignore[attr-defined]
    pl.filter(state, PodInfo(incoming), snap.get("a"))  # type: ignore[attr-defined]
    st: VolumeBindingState = state.data[NAME]
    assert st.pod_volumes_by_node["a"].static_bindings == [("default/data", "small-a")]


def test_two_claims_never_share_a_pv_and_selector_applies() -> None:
    snap = snapshot(
        node("a"),
        storage_class(provisioner="kubernetes.io/no-provisioner"),
        pv("only", storage="10Gi", labels={"tier": "gold"}),
        pvc("one", storage="1Gi"),
        pvc("two", storage="2Gi"),
        pvc("picky", selector={"matchLabels": {"tier": "silver"}}),
    )
    r = cycle(snap, pod("p", volumes=[claim_volume("one"), claim_volume("two")]))
    assert _verdict(r, "a") == (False, NAME, "UnschedulableAndUnresolvable", [ERR_REASON_BIND_CONFLICT])
    r = cycle(snap, pod("p", volumes=[claim_volume("picky")]))
    assert _verdict(r, "a")[3] == [ERR_REASON_BIND_CONFLICT]
    r = cycle(snap, pod("p", volumes=[claim_volume("one")]))
    assert _feasible(r) == ["a"]


def test_prebound_pv_decides_alone() -> None:
    snap = snapshot(
        node("a"),
        node("b"),
        storage_class(provisioner="kubernetes.io/no-provisioner"),
        pv("free-b", storage="10Gi", hostname="b"),
        # Pre-bound to the claim (claimRef set by a user), pinned to node a.
        pv("mine", storage="10Gi", hostname="a", claim=("default", "data"), phase="Available"),
        pvc("data"),
    )
    r = cycle(snap, pod("p", volumes=[claim_volume("data")]))
    # On b the pre-bound PV doesn't fit, and that ends the search: free-b is not taken.
    assert _feasible(r) == ["a"]
    assert _verdict(r, "b")[3] == [ERR_REASON_BIND_CONFLICT]


def test_dynamic_provisioning_allowed_topologies() -> None:
    snap = snapshot(
        _zoned("a", "z1"),
        _zoned("b", "z2"),
        storage_class(allowed_zones=["z1"]),
        pvc("data"),
    )
    r = cycle(snap, pod("p", volumes=[claim_volume("data")]))
    assert _feasible(r) == ["a"]
    assert _verdict(r, "b") == (False, NAME, "UnschedulableAndUnresolvable", [ERR_REASON_BIND_CONFLICT])


def test_dynamic_provisioning_storage_capacity() -> None:
    objs = [
        _zoned("a", "z1"),
        _zoned("b", "z2"),
        _zoned("c", "z3"),
        storage_class(provisioner="topo.csi.example.com"),
        csidriver("topo.csi.example.com", storage_capacity=True),
        capacity("fast", "100Gi", "z1"),
        capacity("fast", "5Gi", "z2"),
        pvc("data", storage="10Gi"),
    ]
    r = cycle(snapshot(*objs), pod("p", volumes=[claim_volume("data")]))
    assert _feasible(r) == ["a"]
    assert _verdict(r, "b") == (False, NAME, "UnschedulableAndUnresolvable", [ERR_REASON_NOT_ENOUGH_SPACE])
    assert _verdict(r, "c")[3] == [ERR_REASON_NOT_ENOUGH_SPACE]
    # A driver that doesn't track capacity is never checked.
    objs[4] = csidriver("topo.csi.example.com", storage_capacity=False)
    r = cycle(snapshot(*objs), pod("p", volumes=[claim_volume("data")]))
    assert _feasible(r) == ["a", "b", "c"]


def test_selected_node_annotation_pins_provisioning() -> None:
    snap = snapshot(
        node("a"),
        node("b"),
        storage_class(),
        pvc("data", annotations={"volume.kubernetes.io/selected-node": "b"}),
    )
    r = cycle(snap, pod("p", volumes=[claim_volume("data")]))
    assert _feasible(r) == ["b"]
    assert _verdict(r, "a")[3] == [ERR_REASON_BIND_CONFLICT]


def test_bound_and_unbound_reasons_are_both_reported() -> None:
    snap = snapshot(
        node("a"),
        node("b"),
        storage_class(provisioner="kubernetes.io/no-provisioner"),
        pv("local-a", hostname="a", claim=("default", "bound")),
        pvc("bound", volume_name="local-a"),
        pv("free-a", hostname="a"),
        pvc("data"),
    )
    r = cycle(snap, pod("p", volumes=[claim_volume("bound"), claim_volume("data")]))
    assert _feasible(r) == ["a"]
    assert _verdict(r, "b") == (
        False, NAME, "UnschedulableAndUnresolvable", [ERR_REASON_NODE_CONFLICT, ERR_REASON_BIND_CONFLICT]
    )


def test_migrated_intree_pv_affinity_is_translated() -> None:
    ebs = {"awsElasticBlockStore": {"volumeID": "aws://eu-west-1a/vol-0123"}}
    gone_zone_pv = pv("ebs", claim=("default", "data"), source=ebs, zone="eu-west-1a")
    objs = [
        # Node a has only the CSI driver's topology label, node b only the GA zone label.
        node("a", labels={"topology.ebs.csi.aws.com/zone": "eu-west-1a"}),
        node("b", labels={ZONE: "eu-west-1a"}),
        storage_class(),
        gone_zone_pv,
        pvc("data", volume_name="ebs"),
        csinode("a", {"ebs.csi.aws.com": 25}, migrated="kubernetes.io/aws-ebs"),
        csinode("b", {"ebs.csi.aws.com": 25}, migrated="kubernetes.io/aws-ebs"),
    ]
    r = cycle(snapshot(*objs), pod("p", volumes=[claim_volume("data")]))
    # Migrated: the zone term becomes the CSI topology key, which only node a has.
    assert _feasible(r) == ["a"]
    assert _verdict(r, "b")[3] == [ERR_REASON_NODE_CONFLICT]
    # Without the migrated-plugins annotation the PV is checked as written.
    objs[5] = csinode("a", {"ebs.csi.aws.com": 25})
    objs[6] = csinode("b", {"ebs.csi.aws.com": 25})
    r = cycle(snapshot(*objs), pod("p", volumes=[claim_volume("data")]))
    assert _feasible(r) == ["b"]

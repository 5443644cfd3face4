"""VolumeZone: PV zone/region labels (GA and beta) against node labels, skips and PreFilter errors."""

from __future__ import annotations

from typing import Any

from kschedx.core.plugins.volume_objects import split_zones
from kschedx.core.plugins.volumezone import ERR_REASON_CONFLICT, NAME

from .helpers import cycle, node, pod, snapshot
from .test_volume_builders import claim_volume, pv, pvc, storage_class

GA_ZONE = "topology.kubernetes.io/zone"
GA_REGION = "topology.kubernetes.io/region"
BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"


def _feasible(result: Any) -> list[str]:
    return sorted(n for n, v in result.nodes.items() if v.feasible)


def _cluster(pv_labels: dict[str, str], *nodes: dict[str, Any]) -> Any:
    return snapshot(
        *nodes,
        storage_class(mode="Immediate"),
        pv("v", claim=("default", "data"), labels=pv_labels, csi=("ebs.csi.aws.com", "vol-1")),
        pvc("data", volume_name="v"),
    )


def test_zone_mismatch_is_unresolvable() -> None:
    snap = _cluster(
        {GA_ZONE: "z1"},
        node("in", labels={GA_ZONE: "z1"}),
        node("out", labels={GA_ZONE: "z2"}),
        node("bare"),  # no topology labels at all: a single-zone cluster node fits
        node("region-only", labels={GA_REGION: "r1"}),  # zoned node without the zone label
    )
    r = cycle(snap, pod("p", volumes=[claim_volume("data")]))
    assert _feasible(r) == ["bare", "in"]
    for n in ("out", "region-only"):
        v = r.nodes[n]
        assert (v.plugin, v.code, v.reasons) == (NAME, "UnschedulableAndUnresolvable", [ERR_REASON_CONFLICT])


def test_beta_pv_label_matches_ga_node_label_and_multi_zone_values() -> None:
    snap = _cluster(
        {BETA_ZONE: "z1__z2"},
        node("ga", labels={GA_ZONE: "z2"}),
        node("beta", labels={BETA_ZONE: "z1"}),
        node("far", labels={GA_ZONE: "z3"}),
    )
    r = cycle(snap, pod("p", volumes=[claim_volume("data")]))
    assert _feasible(r) == ["beta", "ga"]


def test_split_zones() -> None:
    assert split_zones("a__b") == {"a", "b"}
    assert split_zones(" a ") == {"a"}
    assert split_zones("a____b") is None


def test_skips_without_topology_and_for_delayed_claims() -> None:
    snap = _cluster({}, node("a", labels={GA_ZONE: "z1"}))
    r = cycle(snap, pod("p", volumes=[claim_volume("data")]))
    assert NAME in r.pre_filter.skipped_plugins
    snap = snapshot(node("a", labels={GA_ZONE: "z1"}), storage_class(), pvc("late"))
    r = cycle(snap, pod("p", volumes=[claim_volume("late")]))
    assert NAME in r.pre_filter.skipped_plugins
    # Generic ephemeral volumes are not looked at by VolumeZone, even when their claim is bound
    # to a zoned PV.
    snap = snapshot(
        node("a", labels={GA_ZONE: "z1"}),
        storage_class(),
        pv("v", claim=("default", "p-e"), labels={GA_ZONE: "z9"}, csi=("ebs.csi.aws.com", "vol-1")),
        pvc("p-e", volume_name="v", owner_uid="uid-default-p"),
    )
    r = cycle(snap, pod("p", volumes=[{"name": "e", "ephemeral": {"volumeClaimTemplate": {"spec": {}}}}]))
    assert NAME in r.pre_filter.skipped_plugins
    assert _feasible(r) == ["a"]


def test_prefilter_errors() -> None:
    # VolumeBinding rejects first when it can, so look at VolumeZone's own PreFilter.
    from kschedx.core.api.model import PodInfo
    from kschedx.core.framework.interface import CycleState
    from kschedx.core.plugins.volumezone import VolumeZone

    from .helpers import framework

    snap = snapshot(
        node("a"),
        storage_class("now", mode="Immediate"),
        pvc("unbound-now", sc="now"),
        pvc("noclass", sc=None),
        pvc("ghost-class", sc="nope"),
        pvc("gone", volume_name="missing-pv"),
    )
    pl = VolumeZone(framework(snap), None)

    def reasons(claim: str) -> list[str]:
        _, st = pl.pre_filter(CycleState(), PodInfo(pod("p", volumes=[claim_volume(claim)])), snap.nodes())
        assert st.code.label == "UnschedulableAndUnresolvable"
        return st.reasons

    assert reasons("unbound-now") == ["PersistentVolume had no name"]
    assert reasons("noclass") == ["PersistentVolumeClaim had no pv name and storageClass name"]
    assert reasons("ghost-class") == ['storageclass.storage.k8s.io "nope" not found']
    assert reasons("gone") == ['persistentvolume "missing-pv" not found']
    assert reasons("absent") == ['persistentvolumeclaim "absent" not found']


def test_missing_pv_of_bound_claim_fails_at_volumezone_prefilter() -> None:
    snap = snapshot(node("a"), storage_class(), pvc("gone", volume_name="missing-pv"))
    r = cycle(snap, pod("p", volumes=[claim_volume("gone")]))
    assert (r.pre_filter.plugin, r.pre_filter.reasons) == (NAME, ['persistentvolume "missing-pv" not found'])

"""What the PV controller does with a new claim before its pod's next attempt (core/explain/provision.py)."""

from __future__ import annotations

from typing import Any

from kschedx.core.explain.provision import provide

from .helpers import cluster_objects as objects

Dict = dict[str, Any]




def sc(name: str, mode: str = "Immediate", provisioner: str = "disk.csi.example.com", **extra: Any) -> Dict:
    return {"kind": "StorageClass", "metadata": {"name": name}, "provisioner": provisioner,
            "volumeBindingMode": mode, **extra}


def claim(cls: str | None = "fast", size: str = "10Gi", **spec: Any) -> Dict:
    s: Dict = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": size}}, **spec}
    if cls is not None:
        s["storageClassName"] = cls
    return {"kind": "PersistentVolumeClaim", "metadata": {"name": "data", "namespace": "ns", "uid": "c1"}, "spec": s}


def pv(name: str, size: str, cls: str = "fast", phase: str = "Available", **spec: Any) -> Dict:
    return {"kind": "PersistentVolume", "metadata": {"name": name},
            "spec": {"capacity": {"storage": size}, "accessModes": ["ReadWriteOnce", "ReadOnlyMany"],
                     "storageClassName": cls, **spec}, "status": {"phase": phase}}


def test_wait_for_first_consumer_and_bound_claims_are_left_to_the_scheduler() -> None:
    assert provide(claim(), objects(sc("fast", mode="WaitForFirstConsumer"))) is None
    bound = claim()
    bound["spec"]["volumeName"] = "v"
    bound["metadata"]["annotations"] = {"pv.kubernetes.io/bind-completed": "yes"}
    assert provide(bound, objects(sc("fast"))) is None


def test_the_smallest_available_matching_pv_wins() -> None:
    objs = objects(sc("fast"), pv("big", "50Gi"), pv("ok", "20Gi"), pv("small", "5Gi"), pv("other", "10Gi", cls="slow"),
                   pv("taken", "10Gi", phase="Bound", claimRef={"namespace": "x", "name": "y"}),
                   pv("released", "10Gi", phase="Released"))
    done = provide(claim(), objs)
    assert done is not None
    assert done.claim["spec"]["volumeName"] == "ok"
    assert done.claim["metadata"]["annotations"]["pv.kubernetes.io/bind-completed"] == "yes"
    assert done.volume["spec"]["claimRef"]["name"] == "data"
    # A PV pre-bound to the claim is taken whatever else is there.
    objs.add(pv("mine", "100Gi", phase="Available", claimRef={"namespace": "ns", "name": "data"}))
    assert provide(claim(), objs).volume["metadata"]["name"] == "mine"  # type: ignore[union-attr]


def test_provisioned_volume_topology_and_what_cannot_be_provisioned() -> None:
    zones = [{"matchLabelExpressions": [{"key": "topology.kubernetes.io/zone", "values": ["b", "a"]}]}]
    done = provide(claim(), objects(sc("fast", allowedTopologies=zones)))
    assert done is not None and done.choice is not None
    assert [s["topology.kubernetes.io/zone"] for s in done.choice.segments] == ["a", "b"]
    terms = done.volume["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"]
    assert len(terms) == 2 and done.volume["spec"]["csi"]["driver"] == "disk.csi.example.com"
    # Without allowedTopologies: where the driver's nodes are.
    node = {"kind": "Node", "metadata": {"name": "n1", "labels": {"topology.kubernetes.io/zone": "c"}}}
    csinode = {"kind": "CSINode", "metadata": {"name": "n1"},
               "spec": {"drivers": [{"name": "disk.csi.example.com", "topologyKeys": ["topology.kubernetes.io/zone"]}]}}
    single = provide(claim(), objects(sc("fast"), node, csinode))
    assert single is not None and single.choice is None  # one segment: no choice to make
    assert "it may land in c" in single.note
    assert provide(claim(), objects(sc("fast", provisioner="kubernetes.io/no-provisioner"))) is None
    assert provide(claim("missing"), objects()) is None
    assert provide(claim(None), objects()) is None  # no class and no PV: stays unbound

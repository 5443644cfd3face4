"""Builders of storage API dicts for the volume plugin tests (no tests here)."""

from __future__ import annotations

from typing import Any

Dict = dict[str, Any]


def pvc(
    name: str,
    *,
    namespace: str = "default",
    storage: str | None = "10Gi",
    sc: str | None = "fast",
    volume_name: str = "",
    bound: bool | None = None,
    access_modes: list[str] | None = None,
    annotations: dict[str, str] | None = None,
    selector: Dict | None = None,
    volume_mode: str | None = None,
    owner_uid: str | None = None,
    phase: str | None = None,
    deleting: bool = False,
) -> Dict:
    ann = dict(annotations or {})
    if bound is None:
        bound = bool(volume_name)
    if bound:
        ann["pv.kubernetes.io/bind-completed"] = "yes"
    spec: Dict = {"accessModes": access_modes or ["ReadWriteOnce"]}
    if storage is not None:
        spec["resources"] = {"requests": {"storage": storage}}
    if sc is not None:
        spec["storageClassName"] = sc
    if volume_name:
        spec["volumeName"] = volume_name
    if selector is not None:
        spec["selector"] = selector
    if volume_mode is not None:
        spec["volumeMode"] = volume_mode
    meta: Dict = {"name": name, "namespace": namespace, "uid": f"pvc-uid-{name}", "annotations": ann}
    if owner_uid:
        meta["ownerReferences"] = [{"apiVersion": "v1", "kind": "Pod", "name": "x", "uid": owner_uid, "controller": True}]
    if deleting:
        meta["deletionTimestamp"] = "2025-01-01T00:00:00Z"
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": meta,
        "spec": spec,
        "status": {"phase": phase or ("Bound" if bound else "Pending")},
    }


def pv(
    name: str,
    *,
    storage: str = "10Gi",
    sc: str = "fast",
    claim: tuple[str, str] | None = None,
    phase: str | None = None,
    access_modes: list[str] | None = None,
    hostname: str | None = None,
    zone: str | None = None,
    labels: dict[str, str] | None = None,
    csi: tuple[str, str] | None = None,
    volume_mode: str | None = None,
    source: Dict | None = None,
    affinity: Dict | None = None,
) -> Dict:
    spec: Dict = {
        "capacity": {"storage": storage},
        "accessModes": access_modes or ["ReadWriteOnce"],
        "storageClassName": sc,
    }
    if claim is not None:
        spec["claimRef"] = {"kind": "PersistentVolumeClaim", "namespace": claim[0], "name": claim[1]}
    exprs = []
    if hostname is not None:
        exprs.append({"key": "kubernetes.io/hostname", "operator": "In", "values": [hostname]})
    if zone is not None:
        exprs.append({"key": "topology.kubernetes.io/zone", "operator": "In", "values": [zone]})
    if exprs:
        spec["nodeAffinity"] = {"required": {"nodeSelectorTerms": [{"matchExpressions": exprs}]}}
    if affinity is not None:
        spec["nodeAffinity"] = {"required": affinity}
    if csi is not None:
        spec["csi"] = {"driver": csi[0], "volumeHandle": csi[1]}
    elif source is not None:
        spec.update(source)
    else:
        spec["local"] = {"path": "/mnt/disk"}
    if volume_mode is not None:
        spec["volumeMode"] = volume_mode
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": name, "labels": labels or {}},
        "spec": spec,
        "status": {"phase": phase or ("Bound" if claim else "Available")},
    }


def storage_class(
    name: str = "fast",
    *,
    provisioner: str = "ebs.csi.aws.com",
    mode: str = "WaitForFirstConsumer",
    allowed_zones: list[str] | None = None,
    default: bool = False,
    created: str = "2025-01-01T00:00:00Z",
) -> Dict:
    meta: Dict = {"name": name, "creationTimestamp": created}
    if default:
        meta["annotations"] = {"storageclass.kubernetes.io/is-default-class": "true"}
    sc: Dict = {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": meta,
        "provisioner": provisioner,
        "volumeBindingMode": mode,
    }
    if allowed_zones is not None:
        sc["allowedTopologies"] = [
            {"matchLabelExpressions": [{"key": "topology.kubernetes.io/zone", "values": allowed_zones}]}
        ]
    return sc


def csinode(node_name: str, limits: dict[str, int | None], migrated: str = "") -> Dict:
    drivers = []
    for d, count in limits.items():
        entry: Dict = {"name": d, "nodeID": f"{node_name}-{d}"}
        if count is not None:
            entry["allocatable"] = {"count": count}
        drivers.append(entry)
    meta: Dict = {"name": node_name}
    if migrated:
        meta["annotations"] = {"storage.alpha.kubernetes.io/migrated-plugins": migrated}
    return {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode", "metadata": meta, "spec": {"drivers": drivers}}


def csidriver(name: str, storage_capacity: bool) -> Dict:
    return {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "CSIDriver",
        "metadata": {"name": name},
        "spec": {"storageCapacity": storage_capacity},
    }


def capacity(sc: str, size: str, zone: str) -> Dict:
    return {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "CSIStorageCapacity",
        "metadata": {"name": f"cap-{sc}-{zone}", "namespace": "kube-system"},
        "storageClassName": sc,
        "capacity": size,
        "nodeTopology": {"matchLabels": {"topology.kubernetes.io/zone": zone}},
    }


def claim_volume(claim: str, name: str | None = None) -> Dict:
    return {"name": name or claim, "persistentVolumeClaim": {"claimName": claim}}


def ephemeral_volume(name: str) -> Dict:
    return {
        "name": name,
        "ephemeral": {
            "volumeClaimTemplate": {
                "spec": {
                    "accessModes": ["ReadWriteOnce"],
                    "storageClassName": "fast",
                    "resources": {"requests": {"storage": "1Gi"}},
                }
            }
        },
    }

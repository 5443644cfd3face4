"""The storage objects the volume plugins read, parsed once per snapshot.

Upstream the four volume plugins read PersistentVolumeClaims, PersistentVolumes,
StorageClasses, CSINodes, CSIDrivers and CSIStorageCapacities through informer listers.
Here they share one index per snapshot (``volume_objects(snapshot)``): typed views with the
values the plugins compare (classes with the beta annotation first, parsed quantities,
compiled selectors and node affinity), plus the storage helper rules of
component-helpers (``GetPersistentVolumeClaimClass``, ``CheckNodeAffinity``,
``IsVolumeBoundToClaim``, generic ephemeral claim names and ownership).
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from kschedx.core.api.model import PodInfo
from kschedx.core.api.objects import ClusterObjects
from kschedx.core.api.quantity import parse_quantity
from kschedx.core.api.selectors import (
    LabelSelector,
    NodeSelector,
    SelectorError,
    parse_label_selector,
    parse_node_selector,
)
from kschedx.core.snapshot import Snapshot

Dict = dict[str, Any]

# Annotations and well-known values (component-helpers/storage/volume, core/v1).
ANN_BIND_COMPLETED = "pv.kubernetes.io/bind-completed"
ANN_SELECTED_NODE = "volume.kubernetes.io/selected-node"
ANN_BETA_STORAGE_CLASS = "volume.beta.kubernetes.io/storage-class"
ANN_MIGRATED_PLUGINS = "storage.alpha.kubernetes.io/migrated-plugins"
NOT_SUPPORTED_PROVISIONER = "kubernetes.io/no-provisioner"
WAIT_FOR_FIRST_CONSUMER = "WaitForFirstConsumer"


def _meta(obj: Mapping[str, Any]) -> Dict:
    m = obj.get("metadata")
    return m if isinstance(m, dict) else {}


def _str_map(m: Any) -> dict[str, str]:
    if not isinstance(m, Mapping):
        return {}
    return {str(k): "" if v is None else str(v) for k, v in m.items()}


def _storage(resources: Any) -> Fraction | None:
    """``storage`` of a requests/capacity map, or None when absent."""
    if not isinstance(resources, Mapping) or resources.get("storage") is None:
        return None
    return parse_quantity(resources["storage"])


@dataclass(frozen=True, slots=True)
class ClaimRef:
    name: str
    namespace: str
    uid: str


class Claim:
    """A PersistentVolumeClaim as the volume plugins see it."""

    def __init__(self, raw: Dict) -> None:
        self.raw = raw
        meta = _meta(raw)
        spec = raw.get("spec") or {}
        status = raw.get("status") or {}
        self.name: str = meta.get("name") or ""
        self.namespace: str = meta.get("namespace") or "default"
        self.uid: str = meta.get("uid") or ""
        self.labels = _str_map(meta.get("labels"))
        self.annotations = _str_map(meta.get("annotations"))
        self.deleting: bool = meta.get("deletionTimestamp") is not None
        self.owner_refs: list[Dict] = [r for r in meta.get("ownerReferences") or [] if isinstance(r, dict)]
        self.volume_name: str = spec.get("volumeName") or ""
        sc = spec.get("storageClassName")
        self.spec_class: str | None = None if sc is None else str(sc)
        self.access_modes: tuple[str, ...] = tuple(str(m) for m in spec.get("accessModes") or [])
        self.volume_mode: str = spec.get("volumeMode") or "Filesystem"
        self.vac: str = spec.get("volumeAttributesClassName") or ""
        self.request: Fraction | None = _storage((spec.get("resources") or {}).get("requests"))
        self.selector_spec: Any = spec.get("selector")
        self.phase: str = status.get("phase") or ""

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def storage_class(self) -> str:
        """``GetPersistentVolumeClaimClass``: the beta annotation wins over spec.storageClassName."""
        if ANN_BETA_STORAGE_CLASS in self.annotations:
            return self.annotations[ANN_BETA_STORAGE_CLASS]
        return self.spec_class or ""

    @property
    def fully_bound(self) -> bool:
        """Bound only once the PV controller finished: a volumeName and the bind-completed annotation."""
        return bool(self.volume_name) and ANN_BIND_COMPLETED in self.annotations

    @property
    def selected_node(self) -> str | None:
        return self.annotations.get(ANN_SELECTED_NODE)

    def selector(self) -> LabelSelector | None:
        """The claim's PV label selector; None when unset. Raises SelectorError when invalid."""
        if self.selector_spec is None:
            return None
        return parse_label_selector(self.selector_spec)

    def request_sort_key(self) -> Fraction:
        return self.request if self.request is not None else Fraction(0)

    def __repr__(self) -> str:
        return f"Claim({self.key})"


# In-tree volume sources of a PV spec or a pod volume, by field name.
INTREE_SOURCES = (
    "awsElasticBlockStore", "gcePersistentDisk", "azureDisk", "azureFile", "cinder",
    "vsphereVolume", "portworxVolume",
)


class Volume:
    """A PersistentVolume as the volume plugins see it."""

    def __init__(self, raw: Dict) -> None:
        self.raw = raw
        meta = _meta(raw)
        spec = raw.get("spec") or {}
        status = raw.get("status") or {}
        self.name: str = meta.get("name") or ""
        self.labels = _str_map(meta.get("labels"))
        self.annotations = _str_map(meta.get("annotations"))
        self.deleting: bool = meta.get("deletionTimestamp") is not None
        self.spec_class: str = spec.get("storageClassName") or ""
        self.capacity: Fraction = _storage(spec.get("capacity")) or Fraction(0)
        self.access_modes: frozenset[str] = frozenset(str(m) for m in spec.get("accessModes") or [])
        self.volume_mode: str = spec.get("volumeMode") or "Filesystem"
        self.vac: str = spec.get("volumeAttributesClassName") or ""
        self.phase: str = status.get("phase") or ""
        ref = spec.get("claimRef")
        self.claim_ref: ClaimRef | None = (
            ClaimRef(ref.get("name") or "", ref.get("namespace") or "", ref.get("uid") or "")
            if isinstance(ref, dict) else None
        )
        na = spec.get("nodeAffinity")
        self.node_affinity_raw: Dict | None = na.get("required") if isinstance(na, dict) else None
        self.node_affinity: NodeSelector | None = parse_node_selector(self.node_affinity_raw)
        csi = spec.get("csi")
        self.csi: tuple[str, str] | None = (
            (str(csi.get("driver") or ""), str(csi.get("volumeHandle") or "")) if isinstance(csi, dict) else None
        )
        self.spec = spec

    @property
    def storage_class(self) -> str:
        """``GetPersistentVolumeClass``: the beta annotation wins over spec.storageClassName."""
        if ANN_BETA_STORAGE_CLASS in self.annotations:
            return self.annotations[ANN_BETA_STORAGE_CLASS]
        return self.spec_class

    def affinity_matches(self, labels: Mapping[str, str]) -> bool:
        """``CheckNodeAffinity``: the required terms against a node that has only labels (no name)."""
        if self.node_affinity is None:
            return True
        return self.node_affinity.matches("", labels)

    def bound_to(self, claim: Claim) -> bool:
        """``IsVolumeBoundToClaim``: claimRef names the claim (and its uid, when set)."""
        ref = self.claim_ref
        if ref is None or ref.name != claim.name or ref.namespace != claim.namespace:
            return False
        return not ref.uid or ref.uid == claim.uid

    def __repr__(self) -> str:
        return f"Volume({self.name})"


@dataclass(frozen=True, slots=True)
class TopologyTerm:
    """One allowedTopologies term: every key must have one of its values."""

    requirements: tuple[tuple[str, frozenset[str]], ...]
    valid: bool

    def matches(self, labels: Mapping[str, str]) -> bool:
        if not self.valid or not self.requirements:
            return False
        return all(labels.get(k) in vals for k, vals in self.requirements)


class StorageClassInfo:
    def __init__(self, raw: Dict) -> None:
        self.raw = raw
        meta = _meta(raw)
        self.name: str = meta.get("name") or ""
        self.provisioner: str = raw.get("provisioner") or ""
        # The API server defaults volumeBindingMode to Immediate; dumps carry the defaulted value.
        self.binding_mode: str = raw.get("volumeBindingMode") or "Immediate"
        terms: list[TopologyTerm] = []
        for t in raw.get("allowedTopologies") or []:
            reqs: list[tuple[str, frozenset[str]]] = []
            valid = True
            for e in (t or {}).get("matchLabelExpressions") or []:
                vals = frozenset(str(v) for v in e.get("values") or [])
                if not vals:
                    valid = False
                reqs.append((str(e.get("key") or ""), vals))
            terms.append(TopologyTerm(tuple(reqs), valid))
        self.allowed_topologies: tuple[TopologyTerm, ...] = tuple(terms)

    @property
    def delay_binding(self) -> bool:
        return self.binding_mode == WAIT_FOR_FIRST_CONSUMER

    def topology_allows(self, labels: Mapping[str, str]) -> bool:
        """``MatchTopologySelectorTerms``: no terms allow every node; terms are ORed."""
        if not self.allowed_topologies:
            return True
        return any(t.matches(labels) for t in self.allowed_topologies)


class CSINodeInfo:
    def __init__(self, raw: Dict) -> None:
        self.raw = raw
        meta = _meta(raw)
        self.name: str = meta.get("name") or ""
        ann = _str_map(meta.get("annotations"))
        mpa = ann.get(ANN_MIGRATED_PLUGINS, "")
        self.migrated_plugins: frozenset[str] = frozenset(mpa.split(",")) if mpa else frozenset()
        limits: dict[str, int] = {}
        drivers: list[str] = []
        for d in (raw.get("spec") or {}).get("drivers") or []:
            name = str(d.get("name") or "")
            drivers.append(name)
            count = (d.get("allocatable") or {}).get("count")
            if count is not None:
                limits[name] = int(count)
        self.drivers: tuple[str, ...] = tuple(drivers)
        # spec.drivers[].allocatable.count per driver: the attach limits NodeVolumeLimits enforces.
        self.limits = limits


@dataclass(frozen=True, slots=True)
class CapacityInfo:
    """A CSIStorageCapacity: how large a new volume of a class may be where nodeTopology matches."""

    storage_class: str
    limit: Fraction | None
    topology: LabelSelector | None
    # For StorageCapacityScoring: the object's name and its ``capacity`` (not maximumVolumeSize).
    name: str = ""
    namespace: str = ""
    capacity: Fraction | None = None


def _capacity(raw: Dict) -> CapacityInfo:
    limit = raw.get("maximumVolumeSize")
    if limit is None:
        limit = raw.get("capacity")
    topo = raw.get("nodeTopology")
    try:
        sel = parse_label_selector(topo) if topo is not None else None
    except SelectorError:
        sel = None
    cap = raw.get("capacity")
    meta = _meta(raw)
    return CapacityInfo(str(raw.get("storageClassName") or ""), parse_quantity(limit) if limit is not None else None, sel,
                        str(meta.get("name") or ""), str(meta.get("namespace") or ""),
                        parse_quantity(cap) if cap is not None else None)


_KINDS = ("PersistentVolumeClaim", "PersistentVolume", "StorageClass", "CSINode", "CSIDriver", "CSIStorageCapacity")


@dataclass
class VolumeObjects:
    """Every storage object of a snapshot, indexed the way the listers answer."""

    objects: ClusterObjects
    signature: tuple[int, ...]
    claims: dict[tuple[str, str], Claim] = field(default_factory=dict)
    volumes: dict[str, Volume] = field(default_factory=dict)
    volumes_by_class: dict[str, list[Volume]] = field(default_factory=dict)
    classes: dict[str, StorageClassInfo] = field(default_factory=dict)
    csinodes: dict[str, CSINodeInfo] = field(default_factory=dict)
    csidrivers: dict[str, Dict] = field(default_factory=dict)
    capacities: list[CapacityInfo] = field(default_factory=list)
    # Per-pod derived data that only depends on these objects (see nodevolumelimits).
    memo: dict[Any, Any] = field(default_factory=dict)

    def claim(self, namespace: str, name: str) -> Claim | None:
        return self.claims.get((namespace, name))

    def volume(self, name: str) -> Volume | None:
        return self.volumes.get(name)

    def storage_class(self, name: str) -> StorageClassInfo | None:
        return self.classes.get(name)

    def csinode(self, node_name: str) -> CSINodeInfo | None:
        return self.csinodes.get(node_name)


def _signature(objects: ClusterObjects) -> tuple[int, ...]:
    return tuple(len(objects.of(k)) for k in _KINDS)


def build(objects: ClusterObjects) -> VolumeObjects:
    vo = VolumeObjects(objects, _signature(objects))
    for raw in objects.of("PersistentVolumeClaim"):
        c = Claim(raw)
        vo.claims.setdefault((c.namespace, c.name), c)
    for raw in objects.of("PersistentVolume"):
        v = Volume(raw)
        if v.name in vo.volumes:
            continue
        vo.volumes[v.name] = v
        vo.volumes_by_class.setdefault(v.storage_class, []).append(v)
    for raw in objects.of("StorageClass"):
        sc = StorageClassInfo(raw)
        vo.classes.setdefault(sc.name, sc)
    for raw in objects.of("CSINode"):
        cn = CSINodeInfo(raw)
        vo.csinodes.setdefault(cn.name, cn)
    for raw in objects.of("CSIDriver"):
        vo.csidrivers.setdefault(_meta(raw).get("name") or "", raw)
    vo.capacities = [_capacity(raw) for raw in objects.of("CSIStorageCapacity")]
    return vo


_CACHE: weakref.WeakKeyDictionary[Snapshot, VolumeObjects] = weakref.WeakKeyDictionary()


def volume_objects(snapshot: Snapshot) -> VolumeObjects:
    """The snapshot's storage index, built on first use and rebuilt if the objects changed."""
    vo = _CACHE.get(snapshot)
    objects = snapshot.objects
    if vo is None or vo.objects is not objects or vo.signature != _signature(objects):
        vo = build(objects)
        _CACHE[snapshot] = vo
    return vo


# --------------------------------------------------------------------------- pod volumes


def pod_volumes(pod: PodInfo) -> list[Dict]:
    return [v for v in pod.spec.get("volumes") or [] if isinstance(v, dict)]


def ephemeral_claim_name(pod: PodInfo, vol: Mapping[str, Any]) -> str:
    """``ephemeral.VolumeClaimName``: a generic ephemeral volume's claim is ``<pod>-<volume>``."""
    return f"{pod.name}-{vol.get('name') or ''}"


def claim_name_of(pod: PodInfo, vol: Mapping[str, Any]) -> tuple[str, bool] | None:
    """(claim name, is ephemeral) for volumes backed by a PVC, else None."""
    pvc = vol.get("persistentVolumeClaim")
    if isinstance(pvc, dict):
        return str(pvc.get("claimName") or ""), False
    if vol.get("ephemeral") is not None:
        return ephemeral_claim_name(pod, vol), True
    return None


def ephemeral_ownership_error(pod: PodInfo, claim: Claim) -> str | None:
    """``ephemeral.VolumeIsForPod``: the claim must be in the pod's namespace and controlled by it."""
    owned = any(r.get("controller") and (r.get("uid") or "") == pod.uid for r in claim.owner_refs)
    if claim.namespace != pod.namespace or not owned:
        return (
            f"PVC {claim.namespace}/{claim.name} was not created for pod "
            f"{pod.namespace}/{pod.name} (pod is not owner)"
        )
    return None


def not_found(resource: str, name: str) -> str:
    """The text of an API NotFound error as the listers return it."""
    return f'{resource} "{name}" not found'


def split_zones(value: str) -> set[str] | None:
    """``LabelZonesToSet``: ``__``-separated zones; None when an element is empty."""
    out: set[str] = set()
    for z in value.split("__"):
        z = z.strip()
        if not z:
            return None
        out.add(z)
    return out


def access_modes_satisfied(claim: Claim, volume: Volume) -> bool:
    """``CheckAccessModes``: the PV offers every mode the claim asks for."""
    return all(m in volume.access_modes for m in claim.access_modes)


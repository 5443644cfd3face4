"""Volumes as the PV controller provides them before a pod is scheduled again.

A claim whose class binds ``Immediate`` (or that names no class, or is pre-bound to a PV)
is not left to the scheduler: the PV controller (pkg/controller/volume/persistentvolume,
syncUnboundClaim) binds it to the smallest Available PV that matches it — same class,
volume mode, attributes class, label selector, every access mode, enough capacity; node
affinity is not looked at without a node — or, with none, has the class's provisioner
create one. The scheduler's first attempt meanwhile fails with "pod has unbound immediate
PersistentVolumeClaims" and retries once the claim is bound: ``check`` (will the release
run?) places the pod in that retry; ``explain`` shows the first attempt, as kube-scheduler
answers it now, with a note on what the PV controller will do.

A provisioned volume lies where the provisioner puts it: in one of the class's
``allowedTopologies`` segments, or (none given) in one of the topology segments of the
nodes whose CSINode lists the driver. kschedx models it as a PV whose node affinity allows
every candidate segment, and when the candidates are several, says after the cycle which of
them the pod fits in ("the provisioner picks the zone: fits if it picks …"), instead of
guessing the provisioner's choice. A class with the ``kubernetes.io/no-provisioner``
provisioner, or one that does not exist, provides nothing: the claim stays unbound.
"""

from __future__ import annotations

import copy
import itertools
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from kschedx.core.api.objects import ClusterObjects
from kschedx.core.api.selectors import SelectorError
from kschedx.core.framework.result import CycleResult
from kschedx.core.plugins.volume_objects import Claim, StorageClassInfo, Volume, access_modes_satisfied
from kschedx.core.snapshot import Snapshot

Dict = dict[str, Any]

NO_PROVISIONER = "kubernetes.io/no-provisioner"
BIND_COMPLETED = "pv.kubernetes.io/bind-completed"
BOUND_BY_CONTROLLER = "pv.kubernetes.io/bound-by-controller"
FIRST_CYCLE = "pod has unbound immediate PersistentVolumeClaims"
FIRST_ATTEMPT = ("this cycle is the scheduler's first attempt, before the binding (kschedx check places the pod "
                 "after it)")


@dataclass
class ZoneChoice:
    """A provisioned volume's candidate topology segments (each a label mapping)."""

    claim: str  # NS/NAME
    segments: list[dict[str, str]]

    def describe(self, segment: dict[str, str]) -> str:
        return ",".join(f"{v}" if len(segment) == 1 else f"{k}={v}" for k, v in sorted(segment.items()))


@dataclass
class Provided:
    """The claim as bound, the PV it is bound to (new, or the matching one, updated), what
    happened, and the segments the provisioner chooses among (several only)."""

    claim: Dict
    volume: Dict
    note: str
    choice: ZoneChoice | None = None

    def retry_note(self) -> str:
        """For the cycle after the binding."""
        return f"{self.note} (the first attempt: {FIRST_CYCLE})"

    def first_attempt_note(self) -> str:
        """For the cycle before it."""
        return f"{self.note}; {FIRST_ATTEMPT}"


def _find(objects: ClusterObjects, kind: str, name: str) -> Dict | None:
    return next((o for o in objects.of(kind) if (o.get("metadata") or {}).get("name") == name), None)


def _best_match(claim: Claim, objects: ClusterObjects) -> Volume | None:
    """findBestMatchForClaim without a node: the smallest Available PV that satisfies the claim
    (a PV pre-bound to the claim wins outright)."""
    try:
        selector = claim.selector()
    except SelectorError:
        return None
    request = claim.request if claim.request is not None else Fraction(0)
    best: Volume | None = None
    for raw in objects.of("PersistentVolume"):
        pv = Volume(raw)
        if pv.deleting or pv.volume_mode != claim.volume_mode or pv.vac != claim.vac:
            continue
        if pv.bound_to(claim):
            return pv
        if pv.claim_ref is not None or pv.phase != "Available":
            continue
        if selector is not None and not selector.matches(pv.labels):
            continue
        if pv.storage_class != claim.storage_class or not access_modes_satisfied(claim, pv):
            continue
        if pv.capacity < request:
            continue
        if best is None or pv.capacity < best.capacity:
            best = pv
    return best


def _segments(sc: StorageClassInfo, objects: ClusterObjects) -> list[dict[str, str]]:
    """Where the provisioner may put the volume: the allowedTopologies segments, else those of
    the nodes running the driver (their CSINode's topologyKeys)."""
    out: list[dict[str, str]] = []
    if sc.allowed_topologies:
        for term in sc.allowed_topologies:
            if not term.valid:
                continue
            keys = [k for k, _ in term.requirements]
            for values in itertools.product(*(sorted(v) for _, v in term.requirements)):
                segment = dict(zip(keys, values, strict=True))
                if segment not in out:
                    out.append(segment)
        return out
    nodes = {(n.get("metadata") or {}).get("name"): (n.get("metadata") or {}).get("labels") or {}
             for n in objects.of("Node")}
    for csinode in objects.of("CSINode"):
        labels = nodes.get((csinode.get("metadata") or {}).get("name"))
        if labels is None:
            continue
        for driver in (csinode.get("spec") or {}).get("drivers") or []:
            if driver.get("name") != sc.provisioner or not driver.get("topologyKeys"):
                continue
            keys = [str(k) for k in driver["topologyKeys"]]
            if all(k in labels for k in keys):
                segment = {k: str(labels[k]) for k in keys}
                if segment not in out:
                    out.append(segment)
    return sorted(out, key=lambda s: sorted(s.items()))


def _affinity(segments: list[dict[str, str]]) -> Dict | None:
    if not segments:
        return None
    terms = [{"matchExpressions": [{"key": k, "operator": "In", "values": [v]} for k, v in sorted(s.items())]}
             for s in segments]
    return {"required": {"nodeSelectorTerms": terms}}


def _bind(claim_raw: Dict, pv_name: str, capacity: Any) -> Dict:
    bound = copy.deepcopy(claim_raw)
    meta = bound.setdefault("metadata", {})
    annotations = dict(meta.get("annotations") or {})
    annotations[BIND_COMPLETED] = "yes"
    annotations[BOUND_BY_CONTROLLER] = "yes"
    meta["annotations"] = annotations
    bound.setdefault("spec", {})["volumeName"] = pv_name
    bound["status"] = {"phase": "Bound", "accessModes": list(bound["spec"].get("accessModes") or []),
                       "capacity": {"storage": capacity}}
    return bound


def _claim_ref(claim: Claim) -> Dict:
    return {"kind": "PersistentVolumeClaim", "apiVersion": "v1", "namespace": claim.namespace, "name": claim.name,
            "uid": claim.uid}


def provide(claim_raw: Dict, objects: ClusterObjects) -> Provided | None:
    """What the PV controller does with ``claim_raw`` before its pod is scheduled again, or
    None when it leaves the claim to the scheduler (bound already, WaitForFirstConsumer) or
    cannot bind it (no matching PV and nothing to provision with)."""
    claim = Claim(claim_raw)
    if claim.fully_bound or claim.deleting:
        return None
    cls_name = claim.storage_class
    sc_raw = _find(objects, "StorageClass", cls_name) if cls_name else None
    sc = StorageClassInfo(sc_raw) if sc_raw is not None else None
    if sc is not None and sc.delay_binding and not claim.volume_name:
        return None
    pv: Volume | None
    if claim.volume_name:
        raw = _find(objects, "PersistentVolume", claim.volume_name)
        if raw is None or (Volume(raw).claim_ref is not None and not Volume(raw).bound_to(claim)):
            return None
        pv = Volume(raw)
    else:
        pv = _best_match(claim, objects)
    if pv is not None:
        volume = copy.deepcopy(pv.raw)
        volume.setdefault("spec", {})["claimRef"] = _claim_ref(claim)
        volume["status"] = {"phase": "Bound"}
        capacity = (pv.spec.get("capacity") or {}).get("storage", "0")
        note = f"PVC {claim.key}: the PV controller binds it to the matching PV {pv.name} before the pod is scheduled again"
        return Provided(_bind(claim_raw, pv.name, capacity), volume, note)
    if sc is None or not sc.provisioner or sc.provisioner == NO_PROVISIONER:
        return None
    segments = _segments(sc, objects)
    name = f"pvc-{claim.uid}" if claim.uid else f"pvc-{claim.namespace}-{claim.name}"
    storage = ((claim_raw.get("spec") or {}).get("resources") or {}).get("requests", {}).get("storage", "0")
    spec: Dict = {
        "capacity": {"storage": storage}, "accessModes": list(claim.access_modes), "storageClassName": sc.name,
        "volumeMode": claim.volume_mode, "persistentVolumeReclaimPolicy": sc.raw.get("reclaimPolicy") or "Delete",
        "claimRef": _claim_ref(claim), "csi": {"driver": sc.provisioner, "volumeHandle": name},
    }
    affinity = _affinity(segments)
    if affinity is not None:
        spec["nodeAffinity"] = affinity
    volume = {"apiVersion": "v1", "kind": "PersistentVolume",
              "metadata": {"name": name, "annotations": {"pv.kubernetes.io/provisioned-by": sc.provisioner}},
              "spec": spec, "status": {"phase": "Bound"}}
    where = ""
    if segments:
        choice = ZoneChoice(claim.key, segments)
        where = "; it may land in " + ", ".join(choice.describe(s) for s in segments)
    note = (f"PVC {claim.key} (class {sc.name}, Immediate): {sc.provisioner} provisions its volume {name} and the "
            f"PV controller binds it before the pod is scheduled again{where}")
    return Provided(_bind(claim_raw, name, storage), volume, note,
                    ZoneChoice(claim.key, segments) if len(segments) > 1 else None)


def zone_warnings(result: CycleResult, snapshot: Snapshot, choices: list[ZoneChoice]) -> list[str]:
    """Per provisioned volume with several candidate segments: the segments the pod fits in,
    when that is not all of them (the verdict then depends on the provisioner's pick)."""
    if not choices or result.selected_node is None:
        return []
    feasible_labels = []
    for name, verdict in result.nodes.items():
        ni = snapshot.get(name)
        if verdict.feasible and ni is not None:
            feasible_labels.append(ni.node.labels)
    out = []
    for choice in choices:
        good = [s for s in choice.segments if any(all(lb.get(k) == v for k, v in s.items()) for lb in feasible_labels)]
        if len(good) < len(choice.segments):
            names = ", ".join(choice.describe(s) for s in good)
            out.append(f"the provisioner picks where PVC {choice.claim}'s volume lies "
                       f"({', '.join(choice.describe(s) for s in choice.segments)}): the pod fits only if it "
                       f"picks {names}")
    return out

"""VolumeRestrictions: ReadWriteOncePod claims and in-tree disk conflicts.

PreFilter reads every PVC volume's claim (a missing claim makes the pod unschedulable
everywhere), keeps the names of those with the ReadWriteOncePod access mode and counts how
many of them scheduled pods already use (cluster-wide: one user per RWOP claim). It skips
when the pod has no in-tree disk volume (GCE PD, AWS EBS, RBD, iSCSI) and no RWOP claim is
in use. The count follows the pods the framework adds (nominated pods) and removes
(preemption victims) through AddPod/RemovePod. Filter rejects nodes where a pod already
mounts the same disk in a conflicting way, then every node while an RWOP claim is in use.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kschedx.core.api.model import PodInfo
from kschedx.core.framework.interface import CycleState, Plugin, PreFilterResult, Status
from kschedx.core.plugins.volume_objects import not_found, pod_volumes, volume_objects
from kschedx.core.snapshot import NodeInfo

NAME = "VolumeRestrictions"
ERR_REASON_DISK_CONFLICT = "node(s) had no available disk"
ERR_REASON_RWOP_CONFLICT = (
    "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already in-use by another pod"
)
READ_WRITE_ONCE_POD = "ReadWriteOncePod"
_DISK_SOURCES = ("gcePersistentDisk", "awsElasticBlockStore", "rbd", "iscsi")


def needs_restrictions_check(vol: Mapping[str, Any]) -> bool:
    return any(vol.get(s) is not None for s in _DISK_SOURCES)


def uses_plugin(pod: PodInfo) -> bool:
    """Whether the pod could need this plugin at all (in-tree disks or PVC volumes)."""
    return any(needs_restrictions_check(v) or v.get("persistentVolumeClaim") is not None for v in pod_volumes(pod))


def _pvc_claim_names(pod: PodInfo) -> list[str]:
    out = []
    for v in pod_volumes(pod):
        ref = v.get("persistentVolumeClaim")
        if isinstance(ref, dict):
            out.append(str(ref.get("claimName") or ""))
    return out


@dataclass
class VolumeRestrictionsState:
    rwop_claims: frozenset[str]
    conflicting_refs: int
    # The pods found using the RWOP claims at PreFilter (namespace/name), for explanations.
    users: list[str] = field(default_factory=list)

    def clone(self) -> VolumeRestrictionsState:
        return VolumeRestrictionsState(self.rwop_claims, self.conflicting_refs, list(self.users))

    def refs_of(self, pod: PodInfo) -> int:
        return sum(1 for n in _pvc_claim_names(pod) if n in self.rwop_claims)


def _disk_conflict(vol: Mapping[str, Any], other: Mapping[str, Any]) -> bool:
    """``isVolumeConflict`` for one volume of the incoming pod and one of an existing pod."""
    gce, egce = vol.get("gcePersistentDisk"), other.get("gcePersistentDisk")
    if isinstance(gce, dict) and isinstance(egce, dict):
        # The same GCE disk may be shared only when every pod mounts it read-only.
        if gce.get("pdName") == egce.get("pdName") and not (gce.get("readOnly") and egce.get("readOnly")):
            return True
    ebs, eebs = vol.get("awsElasticBlockStore"), other.get("awsElasticBlockStore")
    if isinstance(ebs, dict) and isinstance(eebs, dict):
        # An EBS volume attaches to one instance: any second use conflicts.
        if ebs.get("volumeID") == eebs.get("volumeID"):
            return True
    iscsi, eiscsi = vol.get("iscsi"), other.get("iscsi")
    if isinstance(iscsi, dict) and isinstance(eiscsi, dict):
        if iscsi.get("iqn") == eiscsi.get("iqn") and not (iscsi.get("readOnly") and eiscsi.get("readOnly")):
            return True
    rbd, erbd = vol.get("rbd"), other.get("rbd")
    if isinstance(rbd, dict) and isinstance(erbd, dict):
        mons = set(rbd.get("monitors") or [])
        emons = set(erbd.get("monitors") or [])
        same_image = (
            bool(mons & emons)
            and (rbd.get("pool") or "rbd") == (erbd.get("pool") or "rbd")
            and rbd.get("image") == erbd.get("image")
        )
        if same_image and not (rbd.get("readOnly") and erbd.get("readOnly")):
            return True
    return False


class VolumeRestrictions(Plugin):
    name = NAME

    def pre_filter(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> tuple[PreFilterResult | None, Status]:
        vols = pod_volumes(pod)
        needs_check = any(needs_restrictions_check(v) for v in vols)
        vo = volume_objects(self.handle.snapshot)
        rwop: set[str] = set()
        for name in _pvc_claim_names(pod):
            claim = vo.claim(pod.namespace, name)
            if claim is None:
                return None, Status.unresolvable(not_found("persistentvolumeclaim", name))
            if READ_WRITE_ONCE_POD in claim.access_modes:
                rwop.add(claim.name)
        conflicting = 0
        users: list[str] = []
        if rwop:
            # The scheduler's snapshot knows which claims (namespace/name) assigned pods use.
            used: set[str] = set()
            for other in self.handle.snapshot.pods_by_namespace.get(pod.namespace, {}).values():
                if other.uid == pod.uid:
                    continue
                hits = rwop.intersection(_pvc_claim_names(other))
                if hits:
                    used |= hits
                    users.append(other.key)
            conflicting = len(used)
        if not needs_check and conflicting == 0:
            return None, Status.skip()
        state.data[NAME] = VolumeRestrictionsState(frozenset(rwop), conflicting, sorted(users))
        return None, Status.success()

    def add_pod(self, state: CycleState, pod: PodInfo, pod_to_add: PodInfo, node: NodeInfo) -> Status:
        st: VolumeRestrictionsState | None = state.data.get(NAME)
        if st is None:
            return Status.error(f'cannot read "PreFilter{NAME}" from cycleState')
        st.conflicting_refs += st.refs_of(pod_to_add)
        return Status.success()

    def remove_pod(self, state: CycleState, pod: PodInfo, pod_to_remove: PodInfo, node: NodeInfo) -> Status:
        st: VolumeRestrictionsState | None = state.data.get(NAME)
        if st is None:
            return Status.error(f'cannot read "PreFilter{NAME}" from cycleState')
        st.conflicting_refs -= st.refs_of(pod_to_remove)
        return Status.success()

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status:
        disks = [v for v in pod_volumes(pod) if needs_restrictions_check(v)]
        if disks:
            for existing in node.pods:
                evols = pod_volumes(existing)
                if not evols:
                    continue
                for v in disks:
                    if any(_disk_conflict(v, ev) for ev in evols):
                        return Status.unschedulable(ERR_REASON_DISK_CONFLICT)
        st: VolumeRestrictionsState | None = state.data.get(NAME)
        if st is None:
            return Status.error(f'cannot read "PreFilter{NAME}" from cycleState')
        if st.conflicting_refs > 0:
            if not self.version.at_least(34):
                # The wording before kubernetes#129145 (v1.34).
                return Status.unschedulable(
                    "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode")
            return Status.unschedulable(ERR_REASON_RWOP_CONFLICT)
        return Status.success()

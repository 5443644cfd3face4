"""VolumeZone: the zone and region labels of the pod's bound PersistentVolumes must match the node.

PreFilter collects, for every PVC volume of the pod (generic ephemeral volumes are not
looked at), the topology labels of its bound PV: the GA ``topology.kubernetes.io`` and the
deprecated ``failure-domain.beta.kubernetes.io`` zone and region, each a ``__``-separated
set of values. Unbound WaitForFirstConsumer claims are left to VolumeBinding; with nothing
collected the plugin skips. Filter accepts nodes without any topology label (single-zone
clusters) and otherwise requires every collected label on the node (a beta key on the PV
may be matched by the node's GA key) with one of the PV's values.
"""

from __future__ import annotations

from dataclasses import dataclass

from kschedx.core.api.model import PodInfo
from kschedx.core.framework.interface import CycleState, Plugin, PreFilterResult, Status
from kschedx.core.plugins.volume_objects import not_found, pod_volumes, split_zones, volume_objects
from kschedx.core.snapshot import NodeInfo

NAME = "VolumeZone"
ERR_REASON_CONFLICT = "node(s) had no available volume zone"

BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
BETA_REGION = "failure-domain.beta.kubernetes.io/region"
GA_ZONE = "topology.kubernetes.io/zone"
GA_REGION = "topology.kubernetes.io/region"
TOPOLOGY_LABELS = (BETA_ZONE, BETA_REGION, GA_ZONE, GA_REGION)
_TO_GA = {BETA_ZONE: GA_ZONE, BETA_REGION: GA_REGION}


@dataclass(frozen=True, slots=True)
class PVTopology:
    pv_name: str
    key: str
    values: frozenset[str]


@dataclass
class VolumeZoneState:
    topologies: list[PVTopology]
    # Per rejected node: the PV topology it failed (for explanations).
    conflicts: dict[str, PVTopology]

    def clone(self) -> VolumeZoneState:
        return self


def uses_plugin(pod: PodInfo) -> bool:
    return any(v.get("persistentVolumeClaim") is not None for v in pod_volumes(pod))


class VolumeZone(Plugin):
    name = NAME

    def _topologies(self, pod: PodInfo) -> tuple[list[PVTopology], Status]:
        """``getPVbyPod``: the topology labels of the pod's bound PVs, or why they can't be read."""
        vo = volume_objects(self.handle.snapshot)
        out: list[PVTopology] = []
        for vol in pod_volumes(pod):
            ref = vol.get("persistentVolumeClaim")
            if not isinstance(ref, dict):
                continue
            name = str(ref.get("claimName") or "")
            if not name:
                return [], Status.unresolvable("PersistentVolumeClaim had no name")
            claim = vo.claim(pod.namespace, name)
            if claim is None:
                return [], Status.unresolvable(not_found("persistentvolumeclaim", name))
            if not claim.volume_name:
                cls = claim.storage_class
                if not cls:
                    return [], Status.unresolvable("PersistentVolumeClaim had no pv name and storageClass name")
                sc = vo.storage_class(cls)
                if sc is None:
                    return [], Status.unresolvable(not_found("storageclass.storage.k8s.io", cls))
                if sc.delay_binding:
                    continue
                return [], Status.unresolvable("PersistentVolume had no name")
            pv = vo.volume(claim.volume_name)
            if pv is None:
                return [], Status.unresolvable(not_found("persistentvolume", claim.volume_name))
            for key in TOPOLOGY_LABELS:
                value = pv.labels.get(key)
                if value is None:
                    continue
                zones = split_zones(value)
                if zones is None:
                    continue  # an unparsable label is ignored, as upstream logs and skips it
                out.append(PVTopology(pv.name, key, frozenset(zones)))
        return out, Status.success()

    def pre_filter(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> tuple[PreFilterResult | None, Status]:
        topologies, st = self._topologies(pod)
        if not st.is_success:
            return None, st
        if not topologies:
            return None, Status.skip()
        state.data[NAME] = VolumeZoneState(topologies, {})
        return None, Status.success()

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status:
        if not pod_volumes(pod):
            return Status.success()
        st: VolumeZoneState | None = state.data.get(NAME)
        if st is None:
            # Upstream recomputes when PreFilter didn't run (e.g. Filter called on its own).
            topologies, status = self._topologies(pod)
            if not status.is_success:
                return status
            st = VolumeZoneState(topologies, {})
        labels = node.node.labels
        if not any(k in labels for k in TOPOLOGY_LABELS):
            return Status.success()
        for t in st.topologies:
            v = labels.get(t.key)
            if v is None:
                v = labels.get(_TO_GA.get(t.key, t.key))
            if v is None or v not in t.values:
                st.conflicts[node.name] = t
                return Status.unresolvable(ERR_REASON_CONFLICT)
        return Status.success()

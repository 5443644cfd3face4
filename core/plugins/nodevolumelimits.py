"""NodeVolumeLimits: CSI attach limits per node (upstream's CSILimits plugin).

A node's limit per CSI driver is ``spec.drivers[].allocatable.count`` of its CSINode. The
pod's attachable volumes are its PVCs and generic ephemeral claims (the driver and volume
handle of the bound PV, or for an unbound claim its class's provisioner and a per-claim
placeholder handle) and inline in-tree volumes whose plugin migrated to CSI. Volumes the
node's pods already use are counted once (by driver and handle) and are not new; the node
fits while, for every driver the pod adds volumes to, used + new <= limit.

PreFilter skips pods without PVC, ephemeral or migratable in-tree volumes.

With VolumeLimitScaling (alpha in v1.36, on in 1.37) a node fails whose CSINode lacks the
driver of one of the pod's new volumes ("<driver> CSI driver is not installed on the
node", Unschedulable: preemption may still help elsewhere) when the driver's CSIDriver
asks for it with ``spec.preventPodSchedulingIfMissing`` (v1.35 has no such field: any
CSIDriver object asks). A node without a CSINode has none of them; the check comes before
the node's limits are read, so a node without limits is checked too.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kschedx.core.api.model import PodInfo
from kschedx.core.framework.interface import CycleState, Plugin, PreFilterResult, Status
from kschedx.core.plugins import volume_intree as intree
from kschedx.core.plugins.volume_objects import (
    Claim,
    CSINodeInfo,
    VolumeObjects,
    claim_name_of,
    ephemeral_ownership_error,
    not_found,
    pod_volumes,
    volume_objects,
)
from kschedx.core.snapshot import NodeInfo

NAME = "NodeVolumeLimits"
ERR_REASON_MAX_VOLUME_COUNT = "node(s) exceed max volume count"

# Upstream prefixes the placeholder handle of unbound claims with a random string so it
# never collides with a real handle; any fixed string that no driver uses does the same.
_UNBOUND_PREFIX = "kschedx-unbound"


def uses_plugin(pod: PodInfo) -> bool:
    return any(
        v.get("persistentVolumeClaim") is not None or v.get("ephemeral") is not None or intree.plugin_of(v) is not None
        for v in pod_volumes(pod)
    )


class _LookupError(Exception):
    """A volume of the incoming pod that can't be resolved; ``not_found`` marks missing claims."""

    def __init__(self, message: str, not_found: bool = False) -> None:
        super().__init__(message)
        self.not_found = not_found


@dataclass
class NodeVolumeCount:
    """One node's verdict, kept for explanations: per driver, limit, used and new volumes."""

    limits: dict[str, int]
    attached: dict[str, int]
    new: dict[str, int]
    exceeded: str | None = None


@dataclass
class NodeVolumeLimitsState:
    by_node: dict[str, NodeVolumeCount] = field(default_factory=dict)

    def clone(self) -> NodeVolumeLimitsState:
        return self


class NodeVolumeLimits(Plugin):
    name = NAME

    def pre_filter(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> tuple[PreFilterResult | None, Status]:
        if not uses_plugin(pod):
            return None, Status.skip()
        state.data[NAME] = NodeVolumeLimitsState()
        return None, Status.success()

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status:
        if not pod_volumes(pod):
            return Status.success()
        vo = volume_objects(self.handle.snapshot)
        csinode = vo.csinode(node.name)
        try:
            new = attachable_volumes(vo, pod, csinode, new_pod=True)
        except _LookupError as e:
            if e.not_found:
                return Status.unresolvable(str(e))
            return Status.error(str(e))
        if not new:
            return Status.success()
        if self.version.enabled("VolumeLimitScaling"):
            for driver in dict.fromkeys(new.values()):  # pod volume order (upstream: a map's)
                if not _driver_installed(vo, driver, csinode, self.version.at_least(36)):
                    return Status.unschedulable(f"{driver} CSI driver is not installed on the node")
        limits = csinode.limits if csinode is not None else {}
        if not limits:
            return Status.success()

        attached: dict[str, str] = {}
        for existing in node.pods:
            try:
                attached.update(_existing_volumes(vo, existing, csinode, node.name))
            except _LookupError as e:
                return Status.error(str(e))

        attached_count: dict[str, int] = {}
        for unique, driver in attached.items():
            # A volume the node's pods already use costs nothing new.
            new.pop(unique, None)
            attached_count[driver] = attached_count.get(driver, 0) + 1
        new_count: dict[str, int] = {}
        for driver in new.values():
            new_count[driver] = new_count.get(driver, 0) + 1

        verdict = NodeVolumeCount(dict(limits), attached_count, new_count)
        st: NodeVolumeLimitsState | None = state.data.get(NAME)
        if st is not None:
            st.by_node[node.name] = verdict
        for driver, count in sorted(new_count.items()):
            limit = limits.get(driver)
            if limit is not None and attached_count.get(driver, 0) + count > limit:
                verdict.exceeded = driver
                return Status.unschedulable(ERR_REASON_MAX_VOLUME_COUNT)
        return Status.success()


def _driver_installed(vo: VolumeObjects, driver: str, csinode: CSINodeInfo | None, opt_in: bool) -> bool:
    """Whether ``driver`` may serve the pod on the node: it has no CSIDriver object, its
    CSIDriver does not ask to keep pods off nodes without it (``opt_in``: from v1.36 only
    ``preventPodSchedulingIfMissing: true`` asks), or the node's CSINode lists it."""
    raw = vo.csidrivers.get(driver)
    if raw is None:
        return True
    if opt_in and (raw.get("spec") or {}).get("preventPodSchedulingIfMissing") is not True:
        return True
    return csinode is not None and driver in csinode.drivers


def _existing_volumes(vo: VolumeObjects, pod: PodInfo, csinode: CSINodeInfo | None, node_name: str) -> dict[str, str]:
    """The attachable volumes of a pod already on the node, memoised per snapshot."""
    key = (NAME, pod.uid, node_name)
    hit = vo.memo.get(key)
    if hit is None:
        hit = attachable_volumes(vo, pod, csinode, new_pod=False) if _may_attach(pod) else {}
        vo.memo[key] = hit
    return dict(hit)


def _may_attach(pod: PodInfo) -> bool:
    return uses_plugin(pod)


def attachable_volumes(vo: VolumeObjects, pod: PodInfo, csinode: CSINodeInfo | None, new_pod: bool) -> dict[str, str]:
    """``filterAttachableVolumes``: ``driver/handle`` -> driver of every volume the pod attaches."""
    result: dict[str, str] = {}
    for vol in pod_volumes(pod):
        ref = claim_name_of(pod, vol)
        if ref is None:
            _inline(vol, csinode, pod, result)
            continue
        name, ephemeral = ref
        if not name:
            raise _LookupError("PersistentVolumeClaim had no name")
        claim = vo.claim(pod.namespace, name)
        if claim is None:
            if new_pod:
                # Without its claim the pod can never run: stop here.
                raise _LookupError(
                    f"looking up PVC {pod.namespace}/{name}: {not_found('persistentvolumeclaim', name)}", not_found=True
                )
            continue  # an existing pod's missing claim isn't counted
        if ephemeral:
            err = ephemeral_ownership_error(pod, claim)
            if err:
                raise _LookupError(err)
        driver, handle = _claim_driver(vo, csinode, claim)
        if not driver or not handle:
            continue
        result[f"{driver}/{handle}"] = driver
    return result


def _inline(vol: Mapping[str, Any], csinode: CSINodeInfo | None, pod: PodInfo, result: dict[str, str]) -> None:
    """``checkAttachableInlineVolume``: in-tree inline volumes count once their plugin migrated."""
    p = intree.plugin_of(vol)
    if p is None or not intree.migration_on_for_limits(csinode, p.plugin):
        return
    try:
        handle = intree.volume_handle(p, vol.get(p.source) or {}, None)
    except intree.TranslationError as e:
        raise _LookupError(f"converting volume({vol.get('name') or ''}) from inline to csi: {e}") from None
    result[f"{p.driver}/{handle}"] = p.driver


def _claim_driver(vo: VolumeObjects, csinode: CSINodeInfo | None, claim: Claim) -> tuple[str, str]:
    """``getCSIDriverInfo``: the bound PV's driver and handle (translated for migrated in-tree PVs),
    falling back to the storage class when the claim is unbound or its PV is gone."""
    if not claim.volume_name:
        return _driver_from_class(vo, csinode, claim)
    pv = vo.volume(claim.volume_name)
    if pv is None:
        return _driver_from_class(vo, csinode, claim)
    if pv.csi is not None:
        return pv.csi
    p = intree.plugin_of(pv.spec)
    if p is None or not intree.migration_on_for_limits(csinode, p.plugin):
        return "", ""
    try:
        handle = intree.volume_handle(p, pv.spec.get(p.source) or {}, pv.labels)
    except intree.TranslationError:
        return "", ""
    return p.driver, handle


def _driver_from_class(vo: VolumeObjects, csinode: CSINodeInfo | None, claim: Claim) -> tuple[str, str]:
    """``getCSIDriverInfoFromSC``: the provisioner (or the CSI driver of a migrated in-tree one)."""
    cls = claim.storage_class
    if not cls:
        return "", ""  # immediate binding: must be bound before scheduling, not counted
    sc = vo.storage_class(cls)
    if sc is None:
        return "", ""
    handle = f"{_UNBOUND_PREFIX}-{claim.namespace}/{claim.name}"
    p = intree.BY_PLUGIN_NAME.get(sc.provisioner)
    if p is not None:
        if not intree.migration_on_for_limits(csinode, sc.provisioner):
            return "", ""
        return p.driver, handle
    return sc.provisioner, handle

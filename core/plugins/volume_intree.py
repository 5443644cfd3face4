"""In-tree volume plugins and their CSI migration, the subset csi-translation-lib gives the scheduler.

The scheduler never mounts anything; it only needs to know, for an in-tree volume source
(in a PV or inline in a pod), which in-tree plugin it belongs to, which CSI driver took it
over, the volume handle the CSI driver would use (so NodeVolumeLimits counts one disk once)
and, for PVs, how the zone topology of the node affinity is rewritten to the CSI driver's
topology key (VolumeBinding checks the translated PV against the node's labels).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kschedx.core.plugins.volume_objects import CSINodeInfo, Volume

Dict = dict[str, Any]

LABEL_ZONE = "topology.kubernetes.io/zone"
LABEL_REGION = "topology.kubernetes.io/region"
LABEL_BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
LABEL_BETA_REGION = "failure-domain.beta.kubernetes.io/region"
UNSPECIFIED = "UNSPECIFIED"


@dataclass(frozen=True, slots=True)
class InTreePlugin:
    source: str  # the field of the PV spec / pod volume
    plugin: str  # in-tree plugin name
    driver: str  # the CSI driver it migrated to
    topology_key: str | None  # the driver's zone topology key, if it translates topology


PLUGINS: tuple[InTreePlugin, ...] = (
    InTreePlugin("awsElasticBlockStore", "kubernetes.io/aws-ebs", "ebs.csi.aws.com", "topology.ebs.csi.aws.com/zone"),
    InTreePlugin("gcePersistentDisk", "kubernetes.io/gce-pd", "pd.csi.storage.gke.io", "topology.gke.io/zone"),
    InTreePlugin("azureDisk", "kubernetes.io/azure-disk", "disk.csi.azure.com", "topology.disk.csi.azure.com/zone"),
    InTreePlugin("azureFile", "kubernetes.io/azure-file", "file.csi.azure.com", None),
    InTreePlugin("cinder", "kubernetes.io/cinder", "cinder.csi.openstack.org", "topology.cinder.csi.openstack.org/zone"),
    InTreePlugin("vsphereVolume", "kubernetes.io/vsphere-volume", "csi.vsphere.vmware.com", None),
    InTreePlugin("portworxVolume", "kubernetes.io/portworx-volume", "pxd.portworx.com", None),
)
BY_PLUGIN_NAME = {p.plugin: p for p in PLUGINS}

# Migration of these plugins is GA and always on; Portworx follows its feature gate
# (CSIMigrationPortworx, on by default in v1.35). Azure File and vSphere are migratable
# but the scheduler's volume plugins don't treat them as migrated.
_ALWAYS_MIGRATED = frozenset({
    "kubernetes.io/aws-ebs", "kubernetes.io/gce-pd", "kubernetes.io/azure-disk", "kubernetes.io/cinder",
})
_GATED = frozenset({"kubernetes.io/portworx-volume"})
PORTWORX_MIGRATION_ENABLED = True


def plugin_of(spec: Mapping[str, Any]) -> InTreePlugin | None:
    """The in-tree plugin a PV spec or pod volume uses (``IsPVMigratable`` / ``IsInlineMigratable``)."""
    for p in PLUGINS:
        if spec.get(p.source) is not None:
            return p
    return None


def migration_on_for_limits(csinode: CSINodeInfo | None, plugin: str) -> bool:
    """NodeVolumeLimits' ``isCSIMigrationOn``: GA plugins need only a CSINode; Portworx also the
    node's migrated-plugins annotation."""
    if csinode is None or not plugin:
        return False
    if plugin in _ALWAYS_MIGRATED:
        return True
    if plugin in _GATED and PORTWORX_MIGRATION_ENABLED:
        return plugin in csinode.migrated_plugins
    return False


def migrated_on_node_for_binding(csinode: CSINodeInfo | None, plugin: str) -> bool:
    """VolumeBinding's ``isCSIMigrationOnForPlugin && isPluginMigratedToCSIOnNode``."""
    if plugin not in _ALWAYS_MIGRATED and not (plugin in _GATED and PORTWORX_MIGRATION_ENABLED):
        return False
    return csinode is not None and plugin in csinode.migrated_plugins


class TranslationError(ValueError):
    pass


_EBS_ID = re.compile(r"^vol-[^/]*$")


def _ebs_volume_id(kubernetes_id: str) -> str:
    """``KubernetesVolumeIDToEBSVolumeID``: ``aws://zone/vol-x`` or a bare ``vol-x``."""
    if not kubernetes_id.startswith("aws://"):
        return kubernetes_id
    path = kubernetes_id[len("aws://"):]
    # The URL host is the zone; the path is the volume id.
    slash = path.find("/")
    aws_id = path[slash:].strip("/") if slash >= 0 else ""
    if not _EBS_ID.match(aws_id):
        raise TranslationError(f"Invalid format for AWS volume ({kubernetes_id})")
    return aws_id


def _gce_region(zones: list[str]) -> str:
    region = ""
    for z in zones:
        cut = z.rfind("-")
        if cut <= 0:
            raise TranslationError(f"zone {z} is not in the correct format")
        r = z[:cut]
        if region and r != region:
            raise TranslationError(f"multiple regions found in zones {zones}")
        region = r
    return region


def volume_handle(p: InTreePlugin, source: Mapping[str, Any], labels: Mapping[str, str] | None) -> str:
    """The CSI volume handle of an in-tree source (``labels`` are the PV's; None for inline volumes)."""
    if p.source == "awsElasticBlockStore":
        return _ebs_volume_id(str(source.get("volumeID") or ""))
    if p.source == "gcePersistentDisk":
        pd = str(source.get("pdName") or "")
        if labels is None:
            return f"projects/{UNSPECIFIED}/zones/{UNSPECIFIED}/disks/{pd}"
        zl = labels.get(LABEL_BETA_ZONE) or labels.get(LABEL_ZONE) or ""
        zones = zl.split("__")
        if len(zones) == 1 and zones[0]:
            return f"projects/{UNSPECIFIED}/zones/{zones[0]}/disks/{pd}"
        if len(zones) > 1:
            return f"projects/{UNSPECIFIED}/regions/{_gce_region(zones)}/disks/{pd}"
        return f"projects/{UNSPECIFIED}/zones/{UNSPECIFIED}/disks/{pd}"
    if p.source == "azureDisk":
        return str(source.get("diskURI") or "")
    if p.source in ("cinder", "portworxVolume"):
        return str(source.get("volumeID") or "")
    if p.source == "vsphereVolume":
        return str(source.get("volumePath") or "")
    if p.source == "azureFile":
        return str(source.get("shareName") or "")
    return ""


# --------------------------------------------------------------------------- PV topology translation


def _terms(required: Dict | None) -> list[Dict]:
    if not required:
        return []
    return [t if isinstance(t, dict) else {} for t in required.get("nodeSelectorTerms") or []]


def _key_in_affinity(required: Dict | None, key: str) -> bool:
    return any(e.get("key") == key for t in _terms(required) for e in t.get("matchExpressions") or [])


def _values(required: Dict | None, key: str) -> list[str]:
    vals = {str(v) for t in _terms(required) for e in t.get("matchExpressions") or [] if e.get("key") == key
            for v in e.get("values") or []}
    return sorted(vals)


def _topology_labels(required: Dict | None, labels: Mapping[str, str]) -> tuple[str, str]:
    """Whether the PV speaks GA or beta topology: node affinity first, then labels; GA by default."""
    if _key_in_affinity(required, LABEL_ZONE):
        return LABEL_ZONE, LABEL_REGION
    if _key_in_affinity(required, LABEL_BETA_ZONE):
        return LABEL_BETA_ZONE, LABEL_BETA_REGION
    if LABEL_ZONE in labels:
        return LABEL_ZONE, LABEL_REGION
    if LABEL_BETA_ZONE in labels:
        return LABEL_BETA_ZONE, LABEL_BETA_REGION
    return LABEL_ZONE, LABEL_REGION


def _replace_key(required: Dict | None, old: str, new: str) -> None:
    for t in _terms(required):
        for e in t.get("matchExpressions") or []:
            if e.get("key") == old:
                e["key"] = new


def translated_affinity(volume: Volume, p: InTreePlugin) -> Dict | None:
    """The required node affinity of the PV after ``TranslateInTreePVToCSI`` rewrote its topology."""
    required = copy.deepcopy(volume.node_affinity_raw)
    if p.topology_key is None:
        return required
    zone_label, region_label = _topology_labels(required, volume.labels)
    if _values(required, zone_label):
        _replace_key(required, zone_label, p.topology_key)
    elif zone_label in volume.labels:
        zones = sorted({z.strip() for z in volume.labels[zone_label].split("__") if z.strip()})
        if zones:
            if required is None:
                required = {}
            terms = required.get("nodeSelectorTerms") or []
            if not terms:
                terms = [{}]
            for t in terms:
                t.setdefault("matchExpressions", [])
                t["matchExpressions"] = list(t["matchExpressions"] or []) + [
                    {"key": p.topology_key, "operator": "In", "values": zones}
                ]
            required["nodeSelectorTerms"] = terms
    if region_label == LABEL_BETA_REGION and _values(required, region_label):
        _replace_key(required, region_label, LABEL_REGION)
    return required

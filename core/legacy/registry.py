"""The v1.12 priority functions by the names a Policy file uses, and the default set."""

from __future__ import annotations

from kschedx.core.legacy.balanced_resource_allocation import BalancedResourceAllocation
from kschedx.core.legacy.base import PriorityFunction
from kschedx.core.legacy.equal import EqualPriority
from kschedx.core.legacy.image_locality import ImageLocalityPriority
from kschedx.core.legacy.interpod_affinity import InterPodAffinityPriority
from kschedx.core.legacy.least_requested import LeastRequested
from kschedx.core.legacy.most_requested import MostRequested
from kschedx.core.legacy.node_affinity import NodeAffinityPriority
from kschedx.core.legacy.node_label import NodeLabelPriority
from kschedx.core.legacy.node_prefer_avoid_pods import NodePreferAvoidPodsPriority
from kschedx.core.legacy.requested_to_capacity_ratio import RequestedToCapacityRatio
from kschedx.core.legacy.selector_spreading import SelectorSpreadPriority, ServiceSpreadingPriority
from kschedx.core.legacy.service_anti_affinity import ServiceAntiAffinityPriority
from kschedx.core.legacy.taint_toleration import TaintTolerationPriority

# Functions a Policy may name without an argument.
BY_NAME: dict[str, type[PriorityFunction]] = {
    cls.function: cls
    for cls in (
        SelectorSpreadPriority,
        InterPodAffinityPriority,
        LeastRequested,
        BalancedResourceAllocation,
        NodePreferAvoidPodsPriority,
        NodeAffinityPriority,
        TaintTolerationPriority,
        ImageLocalityPriority,
        MostRequested,
        RequestedToCapacityRatio,
        ServiceSpreadingPriority,
        EqualPriority,
    )
}

# Functions made from a Policy entry's argument (the column is the entry's name).
BY_ARGUMENT: dict[str, type[PriorityFunction]] = {
    "serviceAntiAffinity": ServiceAntiAffinityPriority,
    "labelPreference": NodeLabelPriority,
    "requestedToCapacityRatioArguments": RequestedToCapacityRatio,
}

# The v1.12 default provider's priorities and weights.
DEFAULT_PRIORITIES: tuple[tuple[str, int], ...] = (
    ("SelectorSpreadPriority", 1),
    ("InterPodAffinityPriority", 1),
    ("LeastRequestedPriority", 1),
    ("BalancedResourceAllocation", 1),
    ("NodePreferAvoidPodsPriority", 10000),
    ("NodeAffinityPriority", 1),
    ("TaintTolerationPriority", 1),
    ("ImageLocalityPriority", 1),
)


def default_priorities() -> list[PriorityFunction]:
    return [BY_NAME[n](n, w) for n, w in DEFAULT_PRIORITIES]


# v1.12 predicate names and the v1.35 filter plugins that carry out the same check.
# Predicates without a counterpart (node conditions became taints) map to nothing.
PREDICATE_PLUGINS: dict[str, tuple[str, ...]] = {
    "GeneralPredicates": ("NodeResourcesFit", "NodeName", "NodePorts", "NodeAffinity"),
    "PodFitsResources": ("NodeResourcesFit",),
    "HostName": ("NodeName",),
    "PodFitsHostPorts": ("NodePorts",),
    "PodFitsPorts": ("NodePorts",),
    "MatchNodeSelector": ("NodeAffinity",),
    "PodToleratesNodeTaints": ("TaintToleration",),
    "PodToleratesNodeNoExecuteTaints": ("TaintToleration",),
    "CheckNodeUnschedulable": ("NodeUnschedulable",),
    "MatchInterPodAffinity": ("InterPodAffinity",),
    "NoDiskConflict": ("VolumeRestrictions",),
    "NoVolumeZoneConflict": ("VolumeZone",),
    "CheckVolumeBinding": ("VolumeBinding",),
    "MaxEBSVolumeCount": ("NodeVolumeLimits",),
    "MaxGCEPDVolumeCount": ("NodeVolumeLimits",),
    "MaxAzureDiskVolumeCount": ("NodeVolumeLimits",),
    "MaxCSIVolumeCountPred": ("NodeVolumeLimits",),
    "MaxCinderVolumeCount": ("NodeVolumeLimits",),
    "CheckNodeCondition": (),
    "CheckNodeMemoryPressure": (),
    "CheckNodeDiskPressure": (),
    "CheckNodePIDPressure": (),
}

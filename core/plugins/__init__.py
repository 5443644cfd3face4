"""One module per upstream scheduler plugin; ``REGISTRY`` maps plugin names to classes.

May import: layer 1 of :mod:`kschedx.core`, ``api``, ``snapshot``, ``framework`` and itself.
"""

from __future__ import annotations

from kschedx.core.framework.interface import Plugin
from kschedx.core.plugins.defaultpreemption import DefaultPreemption
from kschedx.core.plugins.dynamicresources import DynamicResources
from kschedx.core.plugins.imagelocality import ImageLocality
from kschedx.core.plugins.interpodaffinity import InterPodAffinity
from kschedx.core.plugins.nodeaffinity import NodeAffinity
from kschedx.core.plugins.nodedeclaredfeatures import NodeDeclaredFeatures
from kschedx.core.plugins.nodename import NodeName
from kschedx.core.plugins.nodeports import NodePorts
from kschedx.core.plugins.noderesources_balancedallocation import NodeResourcesBalancedAllocation
from kschedx.core.plugins.noderesources_fit import NodeResourcesFit
from kschedx.core.plugins.nodeunschedulable import NodeUnschedulable
from kschedx.core.plugins.nodevolumelimits import NodeVolumeLimits
from kschedx.core.plugins.podtopologyspread import PodTopologySpread
from kschedx.core.plugins.schedulinggates import SchedulingGates
from kschedx.core.plugins.tainttoleration import TaintToleration
from kschedx.core.plugins.volumebinding import VolumeBinding
from kschedx.core.plugins.volumerestrictions import VolumeRestrictions
from kschedx.core.plugins.volumezone import VolumeZone

REGISTRY: dict[str, type[Plugin]] = {
    cls.name: cls
    for cls in (
        SchedulingGates,
        NodeUnschedulable,
        NodeName,
        TaintToleration,
        NodeAffinity,
        NodePorts,
        NodeResourcesFit,
        VolumeRestrictions,
        NodeVolumeLimits,
        VolumeBinding,
        VolumeZone,
        PodTopologySpread,
        InterPodAffinity,
        DynamicResources,
        DefaultPreemption,
        NodeResourcesBalancedAllocation,
        ImageLocality,
        NodeDeclaredFeatures,
    )
}

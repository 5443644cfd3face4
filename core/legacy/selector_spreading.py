"""SelectorSpreadPriority (and ServiceSpreadingPriority).

map: on each node, how many pods of the pod's namespace (not being deleted) match any
selector of the pod's Services, ReplicationControllers, ReplicaSets and StatefulSets.
reduce: 10 × (max − count) / max over the scored nodes (10 everywhere when nothing
matches); when nodes carry zones, blended with the same score computed over zone totals:
node score × 1/3 + zone score × 2/3 for nodes with a zone. Truncated to an integer.

ServiceSpreadingPriority was registered in v1.12 with only a Service lister, but its map
step read the selectors from the scheduler's shared metadata, which holds the
controllers' selectors too; it therefore scores exactly like SelectorSpreadPriority, and
so it does here.
"""

from __future__ import annotations

from kschedx.core.legacy import MAX_PRIORITY
from kschedx.core.legacy.base import PriorityFunction
from kschedx.core.legacy.meta import Meta, zone_key
from kschedx.core.legacy.selectors import pod_selectors
from kschedx.core.snapshot import NodeInfo

ZONE_WEIGHTING = 2.0 / 3.0


class SelectorSpreadPriority(PriorityFunction):
    function = "SelectorSpreadPriority"
    has_reduce = True

    def map(self, meta: Meta, node: NodeInfo) -> int:
        selectors = pod_selectors(meta)
        if not selectors:
            return 0
        count = 0
        for p in node.pods:
            if p.namespace != meta.pod.namespace or p.deletion_timestamp is not None:
                continue
            if any(s.matches(p.labels) for s in selectors):
                count += 1
        return count

    def reduce(self, meta: Meta, scores: dict[str, int]) -> dict[str, int]:
        zones: dict[str, str] = {}
        by_zone: dict[str, int] = {}
        max_node = 0
        for name, count in scores.items():
            max_node = max(max_node, count)
            ni = meta.snapshot.get(name)
            z = zone_key(ni.node.labels) if ni is not None else ""
            zones[name] = z
            if z:
                by_zone[z] = by_zone.get(z, 0) + count
        max_zone = max([0, *by_zone.values()])
        have_zones = bool(by_zone)
        out = {}
        for name, count in scores.items():
            f = float(MAX_PRIORITY)
            if max_node > 0:
                f = MAX_PRIORITY * ((max_node - count) / max_node)
            z = zones[name]
            if have_zones and z:
                zf = float(MAX_PRIORITY)
                if max_zone > 0:
                    zf = MAX_PRIORITY * ((max_zone - by_zone[z]) / max_zone)
                f = f * (1.0 - ZONE_WEIGHTING) + ZONE_WEIGHTING * zf
            out[name] = int(f)
        return out


class ServiceSpreadingPriority(SelectorSpreadPriority):
    function = "ServiceSpreadingPriority"

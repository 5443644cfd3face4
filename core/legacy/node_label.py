"""NodeLabelPriority (a Policy argument ``labelPreference: {label, presence}``): 10 when
the node has the label and presence is wanted (or lacks it and absence is wanted), else 0."""

from __future__ import annotations

from kschedx.core.legacy import MAX_PRIORITY
from kschedx.core.legacy.base import PriorityFunction
from kschedx.core.legacy.meta import Meta
from kschedx.core.snapshot import NodeInfo


class NodeLabelPriority(PriorityFunction):
    function = "NodeLabelPriority"

    def map(self, meta: Meta, node: NodeInfo) -> int:
        label = str(self.args.get("label") or "")
        presence = bool(self.args.get("presence"))
        has = label in node.node.labels
        return MAX_PRIORITY if has == presence else 0

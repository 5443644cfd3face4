"""NodeName: a pod that names a node fits only there.

kschedx explains pods as if ``spec.nodeName`` were unset (such a pod never reaches the
scheduler), so this filter only matters for pods built in code with a node name.
"""

from __future__ import annotations

from collections.abc import Hashable

from kschedx.core.api.model import PodInfo
from kschedx.core.framework.interface import CycleState, Plugin, Status
from kschedx.core.snapshot import NodeInfo

NAME = "NodeName"
ERR_REASON = "node(s) didn't match the requested node name"


class NodeName(Plugin):
    name = NAME
    node_local = True
    passes_after_removal = True  # reads no pod

    def pod_signature(self, pod: PodInfo) -> Hashable:
        """What Filter reads of the pod (core/framework/shared_answers.py)."""
        return pod.node_name

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status:
        if not pod.node_name or pod.node_name == node.name:
            return Status.success()
        return Status.unresolvable(ERR_REASON)

    def filter_nodes(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> list[tuple[int, Status]]:
        """:meth:`filter`'s failures among ``nodes`` (their positions), in bulk."""
        if not pod.node_name:
            return []
        return [(i, st) for i, ni in enumerate(nodes)
                if ni.name != pod.node_name and not (st := self.filter(state, pod, ni)).is_success]

"""NodeUnschedulable: cordoned nodes only take pods that tolerate the unschedulable taint."""

from __future__ import annotations

from collections.abc import Hashable

from kschedx.core.api.model import PodInfo
from kschedx.core.api.selectors import Taint, tolerates
from kschedx.core.framework.interface import CycleState, Plugin, Status
from kschedx.core.snapshot import NodeInfo

NAME = "NodeUnschedulable"
ERR_REASON_UNSCHEDULABLE = "node(s) were unschedulable"
_UNSCHEDULABLE_TAINT = Taint("node.kubernetes.io/unschedulable", "", "NoSchedule")


class NodeUnschedulable(Plugin):
    name = NAME
    node_local = True
    passes_after_removal = True  # reads no pod

    def pod_signature(self, pod: PodInfo) -> Hashable:
        """What Filter reads of the pod (core/framework/shared_answers.py)."""
        return pod.tolerations

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status:
        if not node.node.unschedulable:
            return Status.success()
        if tolerates(pod.tolerations, _UNSCHEDULABLE_TAINT):
            return Status.success()
        return Status.unresolvable(ERR_REASON_UNSCHEDULABLE)

    def filter_nodes(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> list[tuple[int, Status]]:
        """:meth:`filter`'s failures among ``nodes`` (their positions), in bulk: only a
        cordoned node can fail."""
        if tolerates(pod.tolerations, _UNSCHEDULABLE_TAINT):
            return []
        return [(i, st) for i, ni in enumerate(nodes)
                if ni.node.unschedulable and not (st := self.filter(state, pod, ni)).is_success]

"""NodePorts: a pod's host ports must be free on the node."""

from __future__ import annotations

from collections.abc import Hashable

from kschedx.core.api.model import PodInfo
from kschedx.core.framework.interface import CycleState, Plugin, PreFilterResult, Status
from kschedx.core.snapshot import NodeInfo

NAME = "NodePorts"
ERR_REASON = "node(s) didn't have free ports for the requested pod ports"


class NodePorts(Plugin):
    name = NAME
    node_local = True
    passes_after_removal = True  # a pod taken off frees its host ports

    def pod_signature(self, pod: PodInfo) -> Hashable:
        """What PreFilter and Filter read of the pod (core/framework/shared_answers.py)."""
        return pod.host_ports

    def pre_filter(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> tuple[PreFilterResult | None, Status]:
        if not pod.host_ports:
            return None, Status.skip()
        state.data[NAME] = pod.host_ports
        return None, Status.success()

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status:
        ports = state.data.get(NAME)
        if ports is None:  # PreFilter disabled in the profile: upstream has no fallback
            return Status.error(f'reading "PreFilter{NAME}" from cycleState: not found')
        for ip, proto, port in ports:
            if node.used_ports.check_conflict(ip, proto, port):
                return Status.unschedulable(ERR_REASON)
        return Status.success()

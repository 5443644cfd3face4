"""NodeResourcesBalancedAllocation: favour nodes whose resource fractions stay balanced.

Scores ``(1 - std) * 100`` of the requested/allocatable fractions (each capped at 1) with
the pod on the node, using actual requests; best-effort pods skip it (upstream #129138).
"""

from __future__ import annotations

from typing import Any

from kschedx.core.framework import CycleState, Plugin, Status
from kschedx.core.model import PodInfo
from kschedx.core.plugins.noderesources_allocation import (
    allocation_vectors,
    balanced_scorer,
    pod_request_list,
)
from kschedx.core.plugins.noderesources_fit import parse_resources
from kschedx.core.snapshot import NodeInfo

NAME = "NodeResourcesBalancedAllocation"


class NodeResourcesBalancedAllocation(Plugin):
    name = NAME
    node_local = True

    def __init__(self, handle: Any, args: dict[str, Any] | None = None) -> None:
        super().__init__(handle, args)
        self.resources = parse_resources(self.args.get("resources"))

    def pre_score(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> Status:
        reqs = pod_request_list(pod, self.resources, use_requested=True)
        if all(r == 0 for r in reqs):
            return Status.skip()
        state.data[NAME] = reqs
        return Status.success()

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> tuple[int, Status]:
        reqs = state.data.get(NAME)
        if reqs is None:
            reqs = pod_request_list(pod, self.resources, use_requested=True)
        requested, allocatable = allocation_vectors(node, self.resources, reqs, use_requested=True)
        return balanced_scorer(requested, allocatable), Status.success()

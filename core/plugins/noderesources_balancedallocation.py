"""NodeResourcesBalancedAllocation: favour nodes whose resource fractions stay balanced.

Scores ``(1 - std) * 100`` of the requested/allocatable fractions (each capped at 1) with
the pod on the node, using actual requests; best-effort pods skip it (upstream #129138).
From v1.36 (kubernetes#135573) the score is how much the pod improves the node's balance:
``50 + (50 + with_pod - without_pod) / 2``, 75 for no change.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from kschedx.core.api.model import PodInfo
from kschedx.core.framework.interface import MAX_NODE_SCORE, CycleState, Plugin, Status
from kschedx.core.plugins.noderesources_allocation import (
    DEFAULT_RESOURCES,
    allocation_vectors,
    balanced_cpu_memory,
    balanced_scorer,
    pod_request_list,
)
from kschedx.core.plugins.noderesources_fit import dra_score_totals, parse_resources
from kschedx.core.snapshot import NodeInfo

NAME = "NodeResourcesBalancedAllocation"


class NodeResourcesBalancedAllocation(Plugin):
    name = NAME
    node_local = True

    def __init__(self, handle: Any, args: dict[str, Any] | None = None) -> None:
        super().__init__(handle, args)
        self.resources = parse_resources(self.args.get("resources"))

    def pod_signature(self, pod: PodInfo) -> Hashable:
        """What PreScore and Score read of the pod (core/framework/shared_answers.py)."""
        return tuple(pod_request_list(pod, self.resources, use_requested=True))

    def pre_score(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> Status:
        reqs = pod_request_list(pod, self.resources, use_requested=True)
        if all(r == 0 for r in reqs):
            return Status.skip()
        state.data[NAME] = reqs
        state.data[NAME + "/dra"] = dra_score_totals(self, state, NAME)
        return Status.success()

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> tuple[int, Status]:
        return self.score_nodes(state, pod, [node])[0], Status.success()

    def score_nodes(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> list[int]:
        """:meth:`score` of each node, in bulk (it never fails)."""
        reqs = state.data.get(NAME)
        if reqs is None:
            reqs = pod_request_list(pod, self.resources, use_requested=True)
        dra = state.data[NAME + "/dra"] if NAME + "/dra" in state.data else dra_score_totals(self, state, NAME)
        resources = self.resources
        if dra is None and resources == DEFAULT_RESOURCES:
            return balanced_cpu_memory(nodes, reqs[0], reqs[1], self.version.at_least(36))
        if not self.version.at_least(36):
            return [balanced_scorer(*allocation_vectors(ni, resources, reqs, True, dra)) for ni in nodes]
        return [self._change(reqs, *allocation_vectors(ni, resources, reqs, True, dra)) for ni in nodes]

    @staticmethod
    def _change(reqs: list[int], requested: list[int], allocatable: list[int]) -> int:
        with_pod = balanced_scorer(requested, allocatable)
        # kubernetes#135573 (v1.36): the change in balance the pod brings, kept in [50, 100].
        allocated = [q - reqs[i] if allocatable[i] else 0 for i, q in enumerate(requested)]
        without_pod = balanced_scorer(allocated, allocatable)
        half = MAX_NODE_SCORE // 2
        return half + (half + with_pod - without_pod) // 2

"""DynamicResources: ResourceClaims allocated from DRA ResourceSlices.

Pods without resource claims skip PreFilter, score 0 and get upstream's PostFilter
message "no new claims to deallocate".  Full allocation semantics: issue 9.
"""

from __future__ import annotations

from typing import Any

from kschedx.core.framework import CycleState, NodeStatusMap, Plugin, PreFilterResult, Status
from kschedx.core.model import PodInfo
from kschedx.core.snapshot import NodeInfo

NAME = "DynamicResources"


def pod_claims(pod: PodInfo) -> list[dict[str, Any]]:
    return list(pod.spec.get("resourceClaims") or [])


class DynamicResources(Plugin):
    name = NAME

    def pre_filter(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> tuple[PreFilterResult | None, Status]:
        claims = pod_claims(pod)
        state.data[NAME] = claims
        if not claims:
            return None, Status.skip()
        return None, Status.success()

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status:
        return Status.success()

    def post_filter(self, state: CycleState, pod: PodInfo, statuses: NodeStatusMap) -> tuple[Any, Status]:
        if not state.data.get(NAME):
            return None, Status.unschedulable("no new claims to deallocate")
        return None, Status.unschedulable("still not schedulable")

    def pre_score(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> Status:
        return Status.success()

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> tuple[int, Status]:
        return 0, Status.success()

    def normalize_score(self, state: CycleState, pod: PodInfo, scores: dict[str, int]) -> Status:
        return Status.success()

"""InterPodAffinity (placeholder until implemented)."""

from __future__ import annotations

from kschedx.core.framework import CycleState, Plugin, PreFilterResult, Status
from kschedx.core.model import PodInfo
from kschedx.core.snapshot import NodeInfo

NAME = "InterPodAffinity"


class InterPodAffinity(Plugin):
    name = NAME

    def pre_filter(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> tuple[PreFilterResult | None, Status]:
        return None, Status.skip()

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status:
        return Status.success()

    def pre_score(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> Status:
        return Status.skip()

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> tuple[int, Status]:
        return 0, Status.success()

    def normalize_score(self, state: CycleState, pod: PodInfo, scores: dict[str, int]) -> Status:
        return Status.success()

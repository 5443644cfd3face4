"""DefaultPreemption (placeholder until implemented)."""

from __future__ import annotations

from typing import Any

from kschedx.core.framework import CycleState, NodeStatusMap, Plugin, Status
from kschedx.core.model import PodInfo

NAME = "DefaultPreemption"


class DefaultPreemption(Plugin):
    name = NAME

    def post_filter(self, state: CycleState, pod: PodInfo, statuses: NodeStatusMap) -> tuple[Any, Status]:
        n = len(self.handle.snapshot.nodes())
        return None, Status.unschedulable(
            f"preemption: 0/{n} nodes are available: {n} No preemption victims found for incoming pod."
        )

"""SchedulingGates: a pod with scheduling gates waits in the queue and is never scheduled."""

from __future__ import annotations

from kschedx.core.api.model import PodInfo
from kschedx.core.framework.interface import Code, Plugin, Status

NAME = "SchedulingGates"


class SchedulingGates(Plugin):
    name = NAME

    def pre_enqueue(self, pod: PodInfo) -> Status:
        gates = [g.get("name", "") for g in pod.spec.get("schedulingGates") or []]
        if not gates:
            return Status.success()
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, [f"waiting for scheduling gates: [{' '.join(gates)}]"])

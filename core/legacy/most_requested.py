"""MostRequestedPriority: the share of cpu and of memory in use, 0-10 each (integer),
averaged (integer); a resource requested beyond capacity scores 0."""

from __future__ import annotations

from kschedx.core.legacy import MAX_PRIORITY
from kschedx.core.legacy.resources import ResourcePriority


def used_share(requested: int, capacity: int) -> int:
    if capacity == 0 or requested > capacity:
        return 0
    return requested * MAX_PRIORITY // capacity


class MostRequested(ResourcePriority):
    function = "MostRequestedPriority"

    def score(self, cpu: int, cpu_cap: int, mem: int, mem_cap: int) -> int:
        return (used_share(cpu, cpu_cap) + used_share(mem, mem_cap)) // 2

"""LeastRequestedPriority: the share of cpu and of memory left free, 0-10 each (integer),
averaged (integer)."""

from __future__ import annotations

from kschedx.core.legacy import MAX_PRIORITY
from kschedx.core.legacy.resources import ResourcePriority


def unused_share(requested: int, capacity: int) -> int:
    if capacity == 0 or requested > capacity:
        return 0
    return (capacity - requested) * MAX_PRIORITY // capacity


class LeastRequested(ResourcePriority):
    function = "LeastRequestedPriority"

    def score(self, cpu: int, cpu_cap: int, mem: int, mem_cap: int) -> int:
        return (unused_share(cpu, cpu_cap) + unused_share(mem, mem_cap)) // 2

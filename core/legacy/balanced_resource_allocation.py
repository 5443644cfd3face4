"""BalancedResourceAllocation: 10 × (1 − |cpu fraction − memory fraction|), truncated; a
node where either fraction reaches 1 scores 0. (The alpha BalanceAttachedNodeVolumes
variant that also balances volume counts was off by default and is not reproduced.)"""

from __future__ import annotations

from kschedx.core.legacy import MAX_PRIORITY
from kschedx.core.legacy.resources import ResourcePriority


def fraction(requested: int, capacity: int) -> float:
    if capacity == 0:
        return 1.0
    return requested / capacity


class BalancedResourceAllocation(ResourcePriority):
    function = "BalancedResourceAllocation"

    def score(self, cpu: int, cpu_cap: int, mem: int, mem_cap: int) -> int:
        fc, fm = fraction(cpu, cpu_cap), fraction(mem, mem_cap)
        if fc >= 1 or fm >= 1:
            return 0
        return int((1 - abs(fc - fm)) * float(MAX_PRIORITY))

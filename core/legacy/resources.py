"""The requested-vs-allocatable priorities of v1.12 (LeastRequested, MostRequested,
BalancedResourceAllocation, RequestedToCapacityRatio): each scores a node from the
non-zero cpu and memory requests of its pods plus the incoming pod's, against the
node's allocatable cpu and memory."""

from __future__ import annotations

from kschedx.core.legacy.base import PriorityFunction
from kschedx.core.legacy.meta import Meta
from kschedx.core.snapshot import NodeInfo


class ResourcePriority(PriorityFunction):
    """Map-only: the score comes from (requested, allocatable) of cpu and memory."""

    def amounts(self, meta: Meta, node: NodeInfo) -> tuple[int, int, int, int]:
        """(requested milli-cpu, allocatable milli-cpu, requested memory, allocatable memory)."""
        pcpu, pmem = meta.pod_nonzero
        ncpu, nmem = meta.node_nonzero(node)
        alloc = node.allocatable
        return pcpu + ncpu, alloc.get("cpu", 0), pmem + nmem, alloc.get("memory", 0)

    def map(self, meta: Meta, node: NodeInfo) -> int:
        cpu, cpu_cap, mem, mem_cap = self.amounts(meta, node)
        return self.score(cpu, cpu_cap, mem, mem_cap)

    def score(self, cpu: int, cpu_cap: int, mem: int, mem_cap: int) -> int:
        raise NotImplementedError

"""The resource-allocation scorer shared by NodeResourcesFit and NodeResourcesBalancedAllocation.

Upstream's ``resourceAllocationScorer``: per configured resource, the node's allocatable and
what would be requested with the pod on it; cpu and memory use the non-zero requests
(unless ``use_requested``), extended resources the pod doesn't request are left out.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from kschedx.core.api.model import (
    DEFAULT_MEMORY_REQUEST,
    DEFAULT_MILLI_CPU_REQUEST,
    PodInfo,
    amount,
    is_scalar_resource,
    pod_requests,
)
from kschedx.core.framework.interface import MAX_NODE_SCORE
from kschedx.core.snapshot import NodeInfo


@dataclass(frozen=True)
class ResourceSpec:
    name: str
    weight: int


DEFAULT_RESOURCES = (ResourceSpec("cpu", 1), ResourceSpec("memory", 1))

Scorer = Callable[[Sequence[int], Sequence[int]], int]


def pod_request_list(
    pod: PodInfo,
    resources: Sequence[ResourceSpec],
    use_requested: bool,
    *,
    pod_level: bool = True,
    status_resources: bool = True,
) -> list[int]:
    """The pod's request per scored resource (non-zero defaults unless ``use_requested``).

    ``pod_level`` and ``status_resources`` are the scorer's PodLevelResources and
    InPlacePodVerticalScaling switches: upstream sets them only on BalancedAllocation's
    scorer, NodeResourcesFit's strategy map builds its scorer without them, so Fit scores
    the incoming pod by its container requests alone (spec.resources and resized status ignored).
    """
    non_missing = None
    if not use_requested:
        non_missing = {"cpu": Fraction(DEFAULT_MILLI_CPU_REQUEST, 1000), "memory": Fraction(DEFAULT_MEMORY_REQUEST)}
    spec = pod.spec
    if not pod_level and spec.get("resources"):
        spec = {k: v for k, v in spec.items() if k != "resources"}
    reqs = pod_requests(spec, pod.status if status_resources else None, non_missing)
    return [amount(r.name, reqs.get(r.name, Fraction(0))) for r in resources]


# Devices of an extended resource's DeviceClass on a node: (total, allocated).
DraTotals = Callable[[NodeInfo, str], tuple[int, int]]


def allocatable_and_requested(node: NodeInfo, resource: str, pod_request: int, use_requested: bool,
                              dra: DraTotals | None = None) -> tuple[int, int]:
    if pod_request == 0 and is_scalar_resource(resource):
        return 0, 0  # an extended resource the pod doesn't ask for is not scored
    alloc = node.node.allocatable
    if dra is not None and resource not in ("cpu", "memory", "ephemeral-storage") and alloc.get(resource, 0) == 0:
        # An extended resource served by DRA here: its class's devices on the node
        # (``calculateDRAExtendedResourceAllocatableRequest``).
        total, used = dra(node, resource)
        if total > 0:
            return total, used + pod_request
    if resource == "cpu":
        used = node.requested.get("cpu", 0) if use_requested else node.non0_cpu
        return alloc.get("cpu", 0), used + pod_request
    if resource == "memory":
        used = node.requested.get("memory", 0) if use_requested else node.non0_mem
        return alloc.get("memory", 0), used + pod_request
    if resource == "ephemeral-storage":
        return alloc.get(resource, 0), node.requested.get(resource, 0) + pod_request
    if resource in alloc:
        return alloc[resource], node.requested.get(resource, 0) + pod_request
    return 0, 0


def allocation_vectors(
    node: NodeInfo, resources: Sequence[ResourceSpec], pod_requests_: Sequence[int], use_requested: bool,
    dra: DraTotals | None = None,
) -> tuple[list[int], list[int]]:
    requested = [0] * len(resources)
    allocatable = [0] * len(resources)
    for i, r in enumerate(resources):
        a, q = allocatable_and_requested(node, r.name, pod_requests_[i], use_requested, dra)
        if a == 0:
            continue
        allocatable[i] = a
        requested[i] = q
    return requested, allocatable


def least_allocated_scorer(resources: Sequence[ResourceSpec]) -> Scorer:
    def score(requested: Sequence[int], allocatable: Sequence[int]) -> int:
        total = weights = 0
        for i, r in enumerate(resources):
            cap = allocatable[i]
            if cap == 0:
                continue
            req = requested[i]
            s = 0 if req > cap else (cap - req) * MAX_NODE_SCORE // cap
            total += s * r.weight
            weights += r.weight
        return total // weights if weights else 0

    return score


def most_allocated_scorer(resources: Sequence[ResourceSpec]) -> Scorer:
    def score(requested: Sequence[int], allocatable: Sequence[int]) -> int:
        total = weights = 0
        for i, r in enumerate(resources):
            cap = allocatable[i]
            if cap == 0:
                continue
            req = min(requested[i], cap)
            total += (req * MAX_NODE_SCORE // cap) * r.weight
            weights += r.weight
        return total // weights if weights else 0

    return score


MAX_UTILIZATION = 100
MAX_CUSTOM_PRIORITY_SCORE = 10


def broken_linear(shape: Sequence[tuple[int, int]]) -> Callable[[int], int]:
    """Piecewise-linear interpolation over (utilization, score) points, integer arithmetic as Go."""

    def f(p: int) -> int:
        for i, (u, s) in enumerate(shape):
            if p <= u:
                if i == 0:
                    return s
                pu, ps = shape[i - 1]
                return ps + _go_div((s - ps) * (p - pu), u - pu)
        return shape[-1][1]

    return f


def _go_div(a: int, b: int) -> int:
    """Go's integer division truncates toward zero."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def requested_to_capacity_ratio_scorer(
    resources: Sequence[ResourceSpec], shape: Sequence[tuple[int, int]]
) -> Scorer:
    scaled = [(u, s * (MAX_NODE_SCORE // MAX_CUSTOM_PRIORITY_SCORE)) for u, s in shape]
    raw = broken_linear(scaled)

    def resource_score(requested: int, capacity: int) -> int:
        if capacity == 0 or requested > capacity:
            return raw(MAX_UTILIZATION)
        return raw(requested * MAX_UTILIZATION // capacity)

    def score(requested: Sequence[int], allocatable: Sequence[int]) -> int:
        total = weights = 0
        for i, r in enumerate(resources):
            if allocatable[i] == 0:
                continue
            s = resource_score(requested[i], allocatable[i])
            if s > 0:
                total += s * r.weight
                weights += r.weight
        if weights == 0:
            return 0
        return _go_round(total / weights)

    return score


def _go_round(x: float) -> int:
    """Go's math.Round: half away from zero."""
    return int(math.floor(x + 0.5)) if x >= 0 else -int(math.floor(-x + 0.5))


def balanced_scorer(requested: Sequence[int], allocatable: Sequence[int]) -> int:
    fractions: list[float] = []
    total = 0.0
    for i in range(len(requested)):
        if allocatable[i] == 0:
            continue
        f = requested[i] / allocatable[i]
        if f > 1:
            f = 1.0
        total += f
        fractions.append(f)
    std = 0.0
    if len(fractions) == 2:
        std = abs((fractions[0] - fractions[1]) / 2)
    elif len(fractions) > 2:
        mean = total / len(fractions)
        # Accumulate left to right like Go (sum() compensates rounding since Python 3.12).
        acc = 0.0
        for f in fractions:
            acc = acc + (f - mean) * (f - mean)
        std = math.sqrt(acc / len(fractions))
    return int((1 - std) * MAX_NODE_SCORE)


# ------------------------------------------------------------------ cpu and memory alone
# The scorers above for the default resources (cpu and memory, weight 1 each) without DRA,
# node after node in one loop: what a Score pass over thousands of nodes runs. Each equals
# its scorer over ``allocation_vectors`` (tests/unit/test_bulk_answers.py compares them).


def least_allocated_cpu_memory(nodes: Sequence[NodeInfo], cpu: int, memory: int) -> list[int]:
    """``least_allocated_scorer(DEFAULT_RESOURCES)`` of each node for a pod requesting
    ``cpu`` and ``memory`` (non-zero requests: the nodes' non-zero sums are used)."""
    out: list[int] = []
    for ni in nodes:
        alloc = ni.node.allocatable
        total = weights = 0
        cap = alloc.get("cpu", 0)
        if cap:
            req = ni.non0_cpu + cpu
            total = 0 if req > cap else (cap - req) * MAX_NODE_SCORE // cap
            weights = 1
        cap = alloc.get("memory", 0)
        if cap:
            req = ni.non0_mem + memory
            total += 0 if req > cap else (cap - req) * MAX_NODE_SCORE // cap
            weights += 1
        out.append(total // weights if weights else 0)
    return out


def _balance(cpu: int, cpu_cap: int, memory: int, memory_cap: int) -> int:
    """``balanced_scorer`` of cpu and memory: with fewer than two fractions the deviation is 0."""
    if not (cpu_cap and memory_cap):
        return MAX_NODE_SCORE
    f_cpu = cpu / cpu_cap
    if f_cpu > 1:
        f_cpu = 1.0
    f_mem = memory / memory_cap
    if f_mem > 1:
        f_mem = 1.0
    return int((1 - abs((f_cpu - f_mem) / 2)) * MAX_NODE_SCORE)


def balanced_cpu_memory(nodes: Sequence[NodeInfo], cpu: int, memory: int, change: bool) -> list[int]:
    """``balanced_scorer`` over cpu and memory of each node with the pod's requests on it
    (actual requests), or with ``change`` (v1.36) the change in balance the pod brings."""
    out: list[int] = []
    half = MAX_NODE_SCORE // 2
    for ni in nodes:
        alloc = ni.node.allocatable
        used = ni.requested
        cpu_cap = alloc.get("cpu", 0)
        memory_cap = alloc.get("memory", 0)
        cpu_used = used.get("cpu", 0)
        memory_used = used.get("memory", 0)
        with_pod = _balance(cpu_used + cpu, cpu_cap, memory_used + memory, memory_cap)
        if change:
            with_pod = half + (half + with_pod - _balance(cpu_used, cpu_cap, memory_used, memory_cap)) // 2
        out.append(with_pod)
    return out

"""NodeResourcesFit: the node must have room for the pod's requests; scoring by strategy.

Filter reasons are upstream's ("Too many pods", "Insufficient cpu", ...).  A request larger
than the node's whole allocatable can never fit there however many pods leave, so the
status is UnschedulableAndUnresolvable (preemption cannot help); otherwise Unschedulable.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

from kschedx.core.api.model import PodInfo, is_extended_resource
from kschedx.core.framework.interface import Code, CycleState, Plugin, PreFilterResult, Status
from kschedx.core.plugins.noderesources_allocation import (
    DEFAULT_RESOURCES,
    DraTotals,
    ResourceSpec,
    Scorer,
    allocation_vectors,
    least_allocated_cpu_memory,
    least_allocated_scorer,
    most_allocated_scorer,
    pod_request_list,
    requested_to_capacity_ratio_scorer,
)
from kschedx.core.snapshot import NodeInfo

NAME = "NodeResourcesFit"


@dataclass
class InsufficientResource:
    resource: str
    reason: str
    requested: int
    used: int
    capacity: int
    unresolvable: bool


# The resources every node is checked for by name (``fits_request``); a request of any
# other resource makes ``filter_nodes`` go node by node.
_BASIC = frozenset({"cpu", "memory", "ephemeral-storage", "pods"})


def fits_request(
    requests: dict[str, int],
    node: NodeInfo,
    ignored: frozenset[str] = frozenset(),
    ignored_groups: frozenset[str] = frozenset(),
    dra_backed: Callable[[str], bool] | None = None,
) -> list[InsufficientResource]:
    """Every resource the node lacks for the pod, in upstream's order.

    ``dra_backed`` says which extended resources a DeviceClass serves (DRAExtendedResource):
    on a node whose allocatable lacks them they are left to DynamicResources
    (``shouldDelegateResourceToDRA``)."""
    out: list[InsufficientResource] = []
    alloc = node.node.allocatable
    allowed = node.node.allowed_pods
    if len(node.pods) + 1 > allowed:
        out.append(InsufficientResource("pods", "Too many pods", 1, len(node.pods), allowed, False))
    cpu = requests.get("cpu", 0)
    mem = requests.get("memory", 0)
    eph = requests.get("ephemeral-storage", 0)
    scalars = {k: v for k, v in requests.items() if k not in ("cpu", "memory", "ephemeral-storage", "pods")}
    if cpu == 0 and mem == 0 and eph == 0 and not scalars:
        return out
    for name, req in (("cpu", cpu), ("memory", mem), ("ephemeral-storage", eph)):
        if req > 0:
            cap = alloc.get(name, 0)
            used = node.requested.get(name, 0)
            if req > cap - used:
                out.append(InsufficientResource(name, f"Insufficient {name}", req, used, cap, req > cap))
    for name, req in scalars.items():
        if req == 0:
            continue
        if is_extended_resource(name) and (name in ignored or name.split("/")[0] in ignored_groups):
            continue
        if dra_backed is not None and alloc.get(name, 0) <= 0 and dra_backed(name):
            continue
        cap = alloc.get(name, 0)
        used = node.requested.get(name, 0)
        if req > cap - used:
            out.append(InsufficientResource(name, f"Insufficient {name}", req, used, cap, req > cap))
    return out


def score_requests(pod: PodInfo, resources: tuple[ResourceSpec, ...]) -> list[int]:
    """The incoming pod's requests as NodeResourcesFit's scorer counts them: non-zero defaults,
    and neither pod-level resources nor status resources (see ``pod_request_list``)."""
    return pod_request_list(pod, resources, use_requested=False, pod_level=False, status_resources=False)


def parse_resources(items: list[dict[str, Any]] | None) -> tuple[ResourceSpec, ...]:
    if not items:
        return DEFAULT_RESOURCES
    return tuple(ResourceSpec(str(r["name"]), int(r.get("weight") or 1)) for r in items)


class NodeResourcesFit(Plugin):
    name = NAME
    node_local = True
    passes_after_removal = True  # a pod taken off lowers the sums and the pod count

    def __init__(self, handle: Any, args: dict[str, Any] | None = None) -> None:
        super().__init__(handle, args)
        a = self.args
        self.ignored = frozenset(a.get("ignoredResources") or ())
        self.ignored_groups = frozenset(a.get("ignoredResourceGroups") or ())
        strategy = a.get("scoringStrategy") or {}
        self.strategy = strategy.get("type") or "LeastAllocated"
        self.resources = parse_resources(strategy.get("resources"))
        self.scorer: Scorer
        if self.strategy == "MostAllocated":
            self.scorer = most_allocated_scorer(self.resources)
        elif self.strategy == "RequestedToCapacityRatio":
            shape = (strategy.get("requestedToCapacityRatio") or {}).get("shape") or []
            points = [(int(p["utilization"]), int(p["score"])) for p in shape]
            self.scorer = requested_to_capacity_ratio_scorer(self.resources, points)
        else:
            self.scorer = least_allocated_scorer(self.resources)

    def pod_signature(self, pod: PodInfo) -> Hashable:
        """What PreFilter, Filter, PreScore and Score read of the pod
        (core/framework/shared_answers.py): the requests Filter checks (init containers,
        overhead, pod-level resources and resize state included) and those the scoring
        strategy counts."""
        return tuple(sorted(pod.spec_requests.items())), tuple(score_requests(pod, self.resources))

    def pre_filter(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> tuple[PreFilterResult | None, Status]:
        state.data[NAME] = pod.spec_requests
        return None, Status.success()

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status:
        requests = state.data.get(NAME)
        if requests is None:  # PreFilter disabled in the profile: upstream has no fallback
            return Status.error(f'error reading "PreFilter{NAME}" from cycleState: not found')
        missing = fits_request(requests, node, self.ignored, self.ignored_groups, dra_backed_resources(self))
        if not missing:
            return Status.success()
        code = Code.UNSCHEDULABLE
        # kubernetes#131345 (v1.34): a request beyond the node's whole allocatable is
        # unresolvable (preemption cannot help); before, every shortage was Unschedulable.
        if self.version.at_least(34) and any(m.unresolvable for m in missing):
            code = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
        return Status(code, [m.reason for m in missing])

    def filter_nodes(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> list[tuple[int, Status]] | None:
        """:meth:`filter`'s failures among ``nodes`` (their positions), in bulk: the nodes
        short of a pod slot or of cpu, memory or ephemeral storage are judged by ``filter``
        itself, every other node fits. None (node by node) for requests of other resources."""
        requests = state.data.get(NAME)
        if requests is None or any(k not in _BASIC for k in requests):
            return None
        cpu = requests.get("cpu", 0)
        mem = requests.get("memory", 0)
        eph = requests.get("ephemeral-storage", 0)
        out: list[tuple[int, Status]] = []
        for i, ni in enumerate(nodes):
            node = ni.node
            alloc = node.allocatable
            used = ni.requested
            if (len(ni.pods) + 1 > node.allowed_pods
                    or (cpu and cpu > alloc.get("cpu", 0) - used.get("cpu", 0))
                    or (mem and mem > alloc.get("memory", 0) - used.get("memory", 0))
                    or (eph and eph > alloc.get("ephemeral-storage", 0) - used.get("ephemeral-storage", 0))):
                st = self.filter(state, pod, ni)
                if not st.is_success:
                    out.append((i, st))
        return out

    def pre_score(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> Status:
        state.data[NAME + "/score"] = score_requests(pod, self.resources)
        state.data[NAME + "/dra"] = dra_score_totals(self, state, NAME)
        return Status.success()

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> tuple[int, Status]:
        return self.score_nodes(state, pod, [node])[0], Status.success()

    def score_nodes(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> list[int]:
        """:meth:`score` of each node, in bulk (it never fails)."""
        reqs = state.data.get(NAME + "/score")
        if reqs is None:  # Score without PreScore: upstream computes the requests itself
            reqs = score_requests(pod, self.resources)
        dra = state.data.get(NAME + "/dra") if NAME + "/dra" in state.data else dra_score_totals(self, state, NAME)
        scorer, resources = self.scorer, self.resources
        if dra is None and self.strategy == "LeastAllocated" and resources == DEFAULT_RESOURCES:
            return least_allocated_cpu_memory(nodes, reqs[0], reqs[1])
        return [scorer(*allocation_vectors(ni, resources, reqs, False, dra)) for ni in nodes]


def dra_backed_resources(plugin: Plugin) -> Callable[[str], bool] | None:
    """With DRAExtendedResource on, which resource names a DeviceClass serves."""
    if not plugin.version.enabled("DRAExtendedResource"):
        return None
    from kschedx.core.plugins.dynamicresources import extended_resolver

    resolver = extended_resolver(plugin.handle)
    if not resolver:
        return None
    return lambda name: resolver.class_for(name) is not None


def dra_score_totals(plugin: Plugin, state: CycleState, key: str) -> DraTotals | None:
    """``getDRAPreScoredParams``: when a scored resource is an extended resource a DeviceClass
    serves, the per-node device totals it is scored with on nodes without a device plugin."""
    backed = dra_backed_resources(plugin)
    resources: tuple[ResourceSpec, ...] = getattr(plugin, "resources", ())
    if backed is None:
        return None
    from kschedx.core.plugins.dynamicresources_extended import is_dra_extended_resource_name

    if not any(is_dra_extended_resource_name(r.name) and backed(r.name) for r in resources):
        return None
    from kschedx.core.plugins.dynamicresources import dra_resource_totals

    return dra_resource_totals(plugin.handle, plugin.version)

"""DynamicResources: a pod's ResourceClaims allocated from DRA ResourceSlices (kube-scheduler v1.35).

* PreEnqueue: every claim of the pod must exist (claims from templates are generated
  first when the resourceclaim controller has not run yet, see dynamicresources_claims).
* PreFilter: Skip for pods without claims; allocated claims must be reservable and pin
  the pod to their node selector; every device class of the unallocated claims must
  exist.  The allocator for the unallocated claims is set up once.
* Filter: allocated claims' node selectors must match; the unallocated claims must all
  be allocatable from the devices the node can reach (dynamicresources_allocator).
* PostFilter: deallocates an allocated claim that was unavailable on some node and is
  not in use by another pod, otherwise reports why nothing changed.
* Score: prioritized lists; each claim's chosen subrequest scores 8 minus its index,
  normalized by the maximum.  No PreScore: pods without claims score 0 everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kschedx.core.api.model import PodInfo
from kschedx.core.api.selectors import NodeSelector, parse_node_selector
from kschedx.core.framework.interface import (
    CycleState,
    NodeStatusMap,
    Plugin,
    PreFilterResult,
    Status,
    default_normalize,
)
from kschedx.core.plugins.dynamicresources_claims import ClaimCatalog, PodClaims, resolve
from kschedx.core.snapshot import NodeInfo

if TYPE_CHECKING:
    # The allocator and its CEL evaluator load only for pods that have claims (start-up).
    from kschedx.core.plugins.dynamicresources_allocator import AllocationResult, Allocator

NAME = "DynamicResources"

# A claim may be reserved for at most this many consumers (ResourceClaimReservedForMaxSize).
RESERVED_FOR_MAX_SIZE = 256


def pod_claims(pod: PodInfo) -> list[dict[str, Any]]:
    return list(pod.spec.get("resourceClaims") or [])


def _allocation(claim: dict[str, Any]) -> dict[str, Any] | None:
    alloc = (claim.get("status") or {}).get("allocation")
    return alloc if alloc else None


def _reserved_for(claim: dict[str, Any]) -> list[dict[str, Any]]:
    return list((claim.get("status") or {}).get("reservedFor") or [])


@dataclass
class DRAState:
    """Upstream's stateData: shared (not copied) by clones, as upstream's Clone returns itself."""

    claims: list[dict[str, Any]] = field(default_factory=list)
    available_on: list[NodeSelector | None] = field(default_factory=list)
    allocator: Allocator | None = None
    unavailable: set[int] = field(default_factory=set)
    node_allocations: dict[str, list[AllocationResult]] = field(default_factory=dict)
    # Why each node failed Filter, for explanations: node -> reason.
    generated: list[dict[str, Any]] = field(default_factory=list)

    def clone(self) -> DRAState:
        return self

    def to_allocate(self) -> list[int]:
        return [i for i, c in enumerate(self.claims) if _allocation(c) is None]


class DynamicResources(Plugin):
    name = NAME
    normalize_reverse = False  # NormalizeScore is default_normalize(reverse=False)

    def __init__(self, handle: Any, args: dict[str, Any] | None = None) -> None:
        super().__init__(handle, args)
        self._resolved: dict[str, PodClaims] = {}
        self._catalog: ClaimCatalog | None = None
        self.last_state: DRAState | None = None

    # ------------------------------------------------------------------ claims

    def _claims_of(self, pod: PodInfo) -> PodClaims:
        got = self._resolved.get(pod.uid)
        if got is None:
            if self._catalog is None:
                objs = self.handle.objects
                self._catalog = ClaimCatalog(objs.of("ResourceClaim"), objs.of("ResourceClaimTemplate"))
            got = resolve(pod, self._catalog)
            self._resolved[pod.uid] = got
            warnings = getattr(self.handle, "warnings", None)
            if isinstance(warnings, list):
                warnings.extend(f"DynamicResources: {w}" for w in got.warnings)
        return got

    # ------------------------------------------------------------------ extension points

    def pre_enqueue(self, pod: PodInfo) -> Status:
        if not pod_claims(pod):
            return Status.success()
        got = self._claims_of(pod)
        if got.error is not None:
            return Status.unresolvable(got.error)
        return Status.success()

    def pre_filter(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> tuple[PreFilterResult | None, Status]:
        s = DRAState()
        state.data[NAME] = s
        # The cycle's state, read back by explanations (which device each claim would get).
        self.last_state = s
        if not pod_claims(pod):
            return None, Status.skip()
        got = self._claims_of(pod)
        if got.error is not None:
            return None, Status.unresolvable(got.error)
        claims = got.claims
        if not claims:
            return None, Status.skip()

        classes = {
            str((c.get("metadata") or {}).get("name") or ""): c for c in self.handle.objects.of("DeviceClass")
        }
        available_on: list[NodeSelector | None] = []
        need_allocator = False
        for claim in claims:
            alloc = _allocation(claim)
            if alloc is not None:
                reserved = _reserved_for(claim)
                if len(reserved) >= RESERVED_FOR_MAX_SIZE and not any(r.get("uid") == pod.uid for r in reserved):
                    return None, Status.unresolvable("resourceclaim in use")
                available_on.append(parse_node_selector(alloc.get("nodeSelector")))
                continue
            available_on.append(None)
            need_allocator = True
            for req in ((claim.get("spec") or {}).get("devices") or {}).get("requests") or []:
                rname = str(req.get("name") or "")
                if req.get("exactly") is not None:
                    st = _validate_class(classes, str(req["exactly"].get("deviceClassName") or ""), rname)
                    if st is not None:
                        return None, st
                elif req.get("firstAvailable"):
                    for sub in req["firstAvailable"]:
                        qual = f"{rname}/{sub.get('name') or ''}"
                        st = _validate_class(classes, str(sub.get("deviceClassName") or ""), qual)
                        if st is not None:
                            return None, st
                else:
                    from kschedx.core.plugins.dynamicresources_allocator import claim_key

                    return None, Status.unresolvable(
                        f"resource claim {claim_key(claim)}, request {rname}: unknown request type"
                    )

        if need_allocator:
            from kschedx.core.plugins.dynamicresources_allocator import Allocator, SliceIndex, allocated_devices

            objs = self.handle.objects
            s.allocator = Allocator(
                [c for c in claims if _allocation(c) is None],
                classes,
                SliceIndex(objs.of("ResourceSlice")),
                allocated_devices(objs.of("ResourceClaim")),
                # Incomplete and invalid pools are skipped by the allocators from v1.35 on.
                skip_bad_pools=self.version.at_least(35),
                device_taints=self.version.enabled("DRADeviceTaints"),
                prioritized_list=self.version.enabled("DRAPrioritizedList"),
                admin_access=self.version.enabled("DRAAdminAccess"),
            )
        s.claims = list(claims)
        s.available_on = available_on
        s.generated = list(got.generated)
        return None, Status.success()

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status:
        s: DRAState | None = state.data.get(NAME)
        if s is None:
            return Status.error("not found")
        if not s.claims:
            return Status.success()
        view = node.node
        unavailable: list[int] = []
        for i, sel in enumerate(s.available_on):
            if sel is not None and not sel.matches(view.name, view.labels):
                unavailable.append(i)

        allocations: list[AllocationResult] | None = None
        if s.allocator is not None:
            from kschedx.core.plugins.dynamicresources_allocator import AllocationError, NodeAllocationError

            try:
                allocations = s.allocator.allocate(view.name, view.labels)
            except NodeAllocationError as e:
                return Status.unresolvable(str(e))
            except AllocationError as e:
                return Status.error(str(e))
            if allocations is None or len(allocations) != len(s.to_allocate()):
                return Status.unresolvable("cannot allocate all claims")

        if unavailable:
            s.unavailable.update(unavailable)
            return Status.unresolvable("resourceclaim not available on the node")
        if s.allocator is not None and allocations is not None:
            s.node_allocations[view.name] = allocations
        return Status.success()

    def post_filter(self, state: CycleState, pod: PodInfo, statuses: NodeStatusMap) -> tuple[Any, Status]:
        s: DRAState | None = state.data.get(NAME)
        if s is None:
            # PreFilter stopped before this plugin ran (another plugin rejected the pod); upstream
            # passes the cycle state's bare ErrNotFound up, and it ends PostFilter as an error.
            return None, Status.error("not found")
        if not s.claims:
            return None, Status.unschedulable("no new claims to deallocate")
        # Upstream picks from a set (random order); the lowest index keeps runs repeatable.
        for i in sorted(s.unavailable):
            reserved = _reserved_for(s.claims[i])
            if not reserved or (len(reserved) == 1 and reserved[0].get("uid") == pod.uid):
                return None, Status.unschedulable("deallocation of ResourceClaim completed")
        return None, Status.unschedulable("still not schedulable")

    def replica_node_local_score(self, state: CycleState) -> bool:
        """Whether this cycle's Score answers depend on the node alone: a pod without
        claims scores 0 everywhere (replica runs keep such answers per node)."""
        s: DRAState | None = state.data.get(NAME)
        return s is not None and not s.claims

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> tuple[int, Status]:
        s: DRAState | None = state.data.get(NAME)
        if s is None:
            return 0, Status.error("not found")
        if not s.claims:
            return 0, Status.success()
        allocations = s.node_allocations.get(node.name)
        if allocations is None:
            return 0, Status.success()
        from kschedx.core.plugins.dynamicresources_allocator import FIRST_AVAILABLE_MAX_SIZE

        total = 0
        # Upstream walks all of the pod's claims by index against the results of the claims
        # it allocated; with an already allocated claim among them the counts disagree and
        # upstream reports this error, so it is reproduced.
        for i, claim in enumerate(s.claims):
            if i >= len(allocations):
                return 0, Status.error(
                    f"number of allocations {len(allocations)} is smaller than number of claims"
                )
            chosen = {d.request for d in allocations[i].devices if "/" in d.request}
            for req in ((claim.get("spec") or {}).get("devices") or {}).get("requests") or []:
                if req.get("exactly") is not None:
                    continue
                for j, sub in enumerate(req.get("firstAvailable") or []):
                    if f"{req.get('name') or ''}/{sub.get('name') or ''}" in chosen:
                        total += FIRST_AVAILABLE_MAX_SIZE - j
        return total, Status.success()

    def normalize_score(self, state: CycleState, pod: PodInfo, scores: dict[str, int]) -> Status:
        default_normalize(scores, reverse=False)
        return Status.success()


def _validate_class(classes: dict[str, dict[str, Any]], class_name: str, request: str) -> Status | None:
    if not class_name:
        return Status.error(f"request {request}: unsupported request type")
    if class_name not in classes:
        return Status.unresolvable(f"request {request}: device class {class_name} does not exist")
    return None


def device_allocations(state: DRAState | None, node: str) -> list[dict[str, Any]]:
    """The devices the pod's unallocated claims would get on ``node``, one entry per device."""
    if state is None:
        return []
    allocations = state.node_allocations.get(node)
    if not allocations:
        return []
    from kschedx.core.plugins.dynamicresources_allocator import claim_key

    out: list[dict[str, Any]] = []
    for idx, alloc in zip(state.to_allocate(), allocations, strict=False):
        for d in alloc.devices:
            entry = {"claim": claim_key(state.claims[idx]), **d.to_json()}
            if d.slice is not None:
                entry["slice"] = d.slice.name
            out.append(entry)
    return out


def claims_after_binding(state: DRAState | None, node: str, pod: PodInfo) -> list[dict[str, Any]]:
    """The pod's newly allocated claims as they are once it is bound to ``node``: each with
    the allocation its Filter found there and reserved for the pod, so that a later cycle
    (the next replica) sees those devices taken."""
    if state is None:
        return []
    allocations = state.node_allocations.get(node) or []
    out: list[dict[str, Any]] = []
    for idx, alloc in zip(state.to_allocate(), allocations, strict=False):
        claim = dict(state.claims[idx])
        status = dict(claim.get("status") or {})
        status["allocation"] = alloc.to_json()
        status["reservedFor"] = [{"resource": "pods", "name": pod.name, "uid": pod.uid}]
        claim["status"] = status
        out.append(claim)
    return out

"""DynamicResources: a pod's ResourceClaims allocated from DRA ResourceSlices (kube-scheduler v1.34-v1.36).

* PreEnqueue: every claim of the pod must exist (claims from templates are generated
  first when the resourceclaim controller has not run yet, see dynamicresources_claims).
* PreFilter: Skip for pods without claims; with DRAExtendedResource (v1.36) a pod asking
  for an extended resource some DeviceClass serves gets a special claim too
  (dynamicresources_extended); allocated claims must be reservable and pin the pod to
  their node selector; every device class of the unallocated claims must exist.  The
  allocator for the unallocated claims is set up once, with the release's feature set.
* Filter: the special claim gets this node's requests (resources no device plugin serves
  here); allocated claims' node selectors must match and, with binding conditions, their
  binding must not have failed or timed out; the unallocated claims must all be
  allocatable from the devices the node can reach (dynamicresources_allocator).
* PostFilter: deallocates an allocated claim that was unavailable on some node and is
  not in use by another pod (a special claim from an earlier cycle is deleted instead),
  otherwise reports why nothing changed.
* Score: prioritized lists; each claim's chosen subrequest scores 8 minus its index,
  normalized by the maximum.  No PreScore: pods without claims score 0 everywhere.
"""

from __future__ import annotations

from collections.abc import Callable
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
from kschedx.core.versions import SchedulerVersion

if TYPE_CHECKING:
    # The allocator and its CEL evaluator load only for pods that have claims (start-up).
    from kschedx.core.plugins.dynamicresources_allocator import AllocationResult, Allocator, DraFeatures, SliceIndex
    from kschedx.core.plugins.dynamicresources_extended import ExtendedResourceResolver

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
    # Extended resources backed by DRA: the special claim's index in ``claims`` (after the
    # pod's own), the pod's extended-resource requests, and per node the claim built there.
    extended_index: int | None = None
    extended_requests: dict[str, int] = field(default_factory=dict)
    user_claims: int = 0
    node_extended_claims: dict[str, dict[str, Any]] = field(default_factory=dict)

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
        user: list[dict[str, Any]] = []
        got: PodClaims | None = None
        if pod_claims(pod):
            got = self._claims_of(pod)
            if got.error is not None:
                return None, Status.unresolvable(got.error)
            user = list(got.claims)
        extended = self._extended_claim(pod, s)
        claims = user + ([extended] if extended is not None else [])
        if not claims:
            return None, Status.skip()
        s.user_claims = len(user)
        if extended is not None:
            s.extended_index = len(user)
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
            if claim is extended:
                continue  # its requests are built per node in Filter
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
            from kschedx.core.plugins.dynamicresources_allocator import Allocator, allocated_state

            features = allocator_features(self.version)
            s.allocator = Allocator(
                [c for c in claims if _allocation(c) is None],
                classes,
                self._slice_index(features.partitionable, features.incubating),
                allocated_state(self.handle.objects.of("ResourceClaim"), features.consumable_capacity),
                # Incomplete and invalid pools are skipped by the allocators from v1.35 on.
                skip_bad_pools=self.version.at_least(35),
                features=features,
            )
        s.claims = claims
        s.available_on = available_on
        s.generated = list(got.generated) if got is not None else []
        return None, Status.success()

    def _slice_index(self, partitionable: bool, sort: bool) -> SliceIndex:
        from kschedx.core.plugins.dynamicresources_allocator import SliceIndex

        slices = self.handle.objects.of("ResourceSlice")
        rules = self.handle.objects.of("DeviceTaintRule")
        if self.version.enabled("DRADeviceTaintRules"):
            from kschedx.core.plugins.dynamicresources_taintrules import apply_taint_rules

            slices = apply_taint_rules(slices, rules)
        elif rules and not getattr(self, "_rules_noted", False):
            # The objects are there but this release's defaults leave them unread: say so.
            self._rules_noted = True
            warnings = getattr(self.handle, "warnings", None)
            if isinstance(warnings, list):
                warnings.append(f"DynamicResources: {len(rules)} DeviceTaintRule(s) not applied: DRADeviceTaintRules is "
                                f"off in kube-scheduler {self.version.name} (--feature-gates DRADeviceTaintRules=true "
                                "turns it on)")
        return SliceIndex(slices, partitionable=partitionable, sort=sort)

    def _extended_claim(self, pod: PodInfo, s: DRAState) -> dict[str, Any] | None:
        """``preFilterExtendedResources``: the special claim for extended resources a
        DeviceClass serves (one an earlier cycle created, or a new in-memory one), if the
        pod asks for any."""
        if not self.version.enabled("DRAExtendedResource"):
            return None
        resolver = extended_resolver(self.handle)
        if not resolver:
            return None
        from kschedx.core.api.model import pod_requests
        from kschedx.core.plugins.dynamicresources_extended import (
            backed_by_dra,
            find_extended_claim,
            integer_amount,
            special_claim,
        )

        reqs = pod_requests(pod.spec)
        if not backed_by_dra(reqs, resolver):
            return None
        s.extended_requests = {
            name: integer_amount(q) for name, q in reqs.items() if name not in ("cpu", "memory", "ephemeral-storage")
        }
        found = find_extended_claim(pod.name, pod.uid, self.handle.objects.of("ResourceClaim"))
        return found if found is not None else special_claim(pod.name, pod.uid, pod.namespace)

    def _filter_extended(self, s: DRAState, pod: PodInfo, node: NodeInfo) -> tuple[dict[str, Any] | None, Status | None]:
        """``filterExtendedResources``: the special claim for this node (requests for the
        resources no device plugin serves here), or why the node cannot serve them."""
        if s.extended_index is None:
            return None, None
        claim = s.claims[s.extended_index]
        if ((claim.get("spec") or {}).get("devices") or {}).get("requests") is not None:
            return None, Status.unresolvable("cannot schedule extended resource claim")
        from kschedx.core.plugins.dynamicresources_extended import create_requests, is_dra_extended_resource_name

        resolver = extended_resolver(self.handle)
        allocatable = node.node.allocatable
        wanted: dict[str, int] = {}
        for name, q in s.extended_requests.items():
            if not is_dra_extended_resource_name(name) or q == 0:
                continue
            if resolver.class_for(name) is not None and allocatable.get(name, 0) == 0:
                wanted[name] = q
            elif name not in allocatable:
                return None, Status.unresolvable("cannot fit resource")
        if s.user_claims == 0 and not wanted:
            return None, None
        if _allocation(claim) is not None:
            return None, None
        node_claim = dict(claim)
        node_claim["spec"] = {"devices": {"requests": create_requests(pod.spec, wanted, resolver)}}
        return node_claim, None

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status:
        s: DRAState | None = state.data.get(NAME)
        if s is None:
            return Status.error("not found")
        if not s.claims:
            return Status.success()
        node_claim, st = self._filter_extended(s, pod, node)
        if st is not None:
            return st
        # Only extended resources, all served by device plugins here: nothing left to do.
        if node_claim is None and s.user_claims == 0:
            return Status.success()
        view = node.node
        unavailable: list[int] = []
        for i, sel in enumerate(s.available_on):
            if sel is not None and not sel.matches(view.name, view.labels):
                unavailable.append(i)
                continue
            # An allocated claim whose binding failed or timed out: PostFilter may free it.
            if _allocation(s.claims[i]) is not None and self._binding_conditions():
                ready = claim_binding_state(s.claims[i])
                if ready is None or (ready is False and binding_timed_out(s.claims[i])):
                    unavailable.append(i)

        allocations: list[AllocationResult] | None = None
        if s.allocator is not None:
            from kschedx.core.plugins.dynamicresources_allocator import AllocationError, NodeAllocationError

            to_allocate: list[dict[str, Any]] | None = None
            if node_claim is not None:
                to_allocate = [node_claim if i == s.extended_index else c
                               for i, c in enumerate(s.claims) if _allocation(c) is None]
            try:
                allocations = s.allocator.allocate(view.name, view.labels, to_allocate)
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
            if node_claim is not None:
                s.node_extended_claims[view.name] = node_claim
        return Status.success()

    def _binding_conditions(self) -> bool:
        return self.version.enabled("DRADeviceBindingConditions") and self.version.enabled(
            "DRAResourceClaimDeviceStatus")

    def post_filter(self, state: CycleState, pod: PodInfo, statuses: NodeStatusMap) -> tuple[Any, Status]:
        s: DRAState | None = state.data.get(NAME)
        if s is None:
            # PreFilter stopped before this plugin ran (another plugin rejected the pod); upstream
            # passes the cycle state's bare ErrNotFound up, and it ends PostFilter as an error.
            return None, Status.error("not found")
        if not s.claims:
            return None, Status.unschedulable("no new claims to deallocate")
        extended = s.claims[s.extended_index] if s.extended_index is not None else None
        from kschedx.core.plugins.dynamicresources_extended import SPECIAL_CLAIM_NAME

        real_extended = extended is not None and (extended.get("metadata") or {}).get("name") != SPECIAL_CLAIM_NAME
        # Upstream picks from a set (random order); the lowest index keeps runs repeatable.
        for i in sorted(s.unavailable):
            if i == s.extended_index:
                if real_extended:
                    break  # deleted below
                continue
            reserved = _reserved_for(s.claims[i])
            if not reserved or (len(reserved) == 1 and reserved[0].get("uid") == pod.uid):
                return None, Status.unschedulable("deallocation of ResourceClaim completed")
        if real_extended:
            # A special claim from an earlier cycle is deleted, to be made anew.
            return None, Status.unschedulable("deletion of ResourceClaim completed")
        return None, Status.unschedulable("still not schedulable")

    def replica_node_local_score(self, state: CycleState) -> bool:
        """Whether this cycle's Score answers depend on the node alone: a pod without
        claims scores 0 everywhere (replica runs keep such answers per node)."""
        s: DRAState | None = state.data.get(NAME)
        return s is not None and not s.claims

    def score_nodes(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> list[int] | None:
        """:meth:`score` of each node in bulk where it can't fail: a pod without claims
        scores 0 everywhere (None otherwise: node by node)."""
        same = self.uniform_score(state, pod)
        return None if same is None else [same] * len(nodes)

    def uniform_score(self, state: CycleState, pod: PodInfo) -> int | None:
        """0 for a pod without claims, on every node (None otherwise)."""
        s: DRAState | None = state.data.get(NAME)
        return 0 if s is not None and not s.claims else None

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> tuple[int, Status]:
        s: DRAState | None = state.data.get(NAME)
        if s is None:
            return 0, Status.error("not found")
        if not s.claims:
            return 0, Status.success()
        allocations = s.node_allocations.get(node.name)
        if allocations is None:
            return 0, Status.success()

        if self.version.at_least(36):
            return self._score_v136(s, allocations)
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
            total += _subrequest_score(claim, chosen)
        return total, Status.success()

    def _score_v136(self, s: DRAState, allocations: list[AllocationResult]) -> tuple[int, Status]:
        """v1.36's ``computeScore``: an allocated claim scores by its own allocation, the
        others by the results Filter found, in order."""
        if not self.version.enabled("DRAPrioritizedList"):
            return 0, Status.success()

        total = 0
        next_result = 0
        for claim in s.claims:
            alloc = _allocation(claim)
            if alloc is not None:
                results = ((alloc.get("devices") or {}).get("results")) or []
                chosen = {str(r.get("request") or "") for r in results}
            else:
                if next_result >= len(allocations):
                    return 0, Status.error(f"number of allocations {len(allocations)} is smaller than number of "
                                           "claims needing allocation")
                chosen = {d.request for d in allocations[next_result].devices}
                next_result += 1
            total += _subrequest_score(claim, chosen)
        return total, Status.success()

    def normalize_score(self, state: CycleState, pod: PodInfo, scores: dict[str, int]) -> Status:
        default_normalize(scores, reverse=False)
        return Status.success()


def _subrequest_score(claim: dict[str, Any], chosen: set[str]) -> int:
    """Per prioritized list, 8 minus the index of the subrequest the allocation chose."""
    from kschedx.core.plugins.dynamicresources_allocator import FIRST_AVAILABLE_MAX_SIZE

    total = 0
    for req in ((claim.get("spec") or {}).get("devices") or {}).get("requests") or []:
        if req.get("exactly") is not None:
            continue
        for j, sub in enumerate(req.get("firstAvailable") or []):
            if f"{req.get('name') or ''}/{sub.get('name') or ''}" in chosen:
                total += FIRST_AVAILABLE_MAX_SIZE - j
    return total


def allocator_features(version: SchedulerVersion) -> DraFeatures:
    """``AllocatorFeatures``: the allocator's feature set from the release's gates."""
    from kschedx.core.plugins.dynamicresources_allocator import DraFeatures

    return DraFeatures(
        admin_access=version.enabled("DRAAdminAccess"),
        prioritized_list=version.enabled("DRAPrioritizedList"),
        partitionable=version.enabled("DRAPartitionableDevices"),
        device_taints=version.enabled("DRADeviceTaints"),
        binding_conditions=version.enabled("DRADeviceBindingConditions")
        and version.enabled("DRAResourceClaimDeviceStatus"),
        consumable_capacity=version.enabled("DRAConsumableCapacity"),
    )


def extended_resolver(handle: Any) -> ExtendedResourceResolver:
    """The cluster's extended-resource -> DeviceClass mapping, built once per handle."""
    from kschedx.core.plugins.dynamicresources_extended import ExtendedResourceResolver

    got = getattr(handle, "_dra_extended_resolver", None)
    if got is None:
        got = ExtendedResourceResolver(handle.objects.of("DeviceClass"))
        try:
            handle._dra_extended_resolver = got
        except AttributeError:
            pass
    assert isinstance(got, ExtendedResourceResolver)
    return got


def dra_resource_totals(handle: Any, version: SchedulerVersion) -> Callable[[NodeInfo, str], tuple[int, int]]:
    """``calculateDRAResourceTotals`` for NodeResourcesFit and BalancedAllocation scoring:
    per node, how many devices of the resource's class the node's slices list and how many
    of them are allocated.  Every slice counts (no pool generations), a slice with a node
    selector is matched against it; answers are kept per node for the cycle."""
    from kschedx.core.plugins.dynamicresources_allocator import SliceInfo, allocated_state
    from kschedx.core.plugins.dynamicresources_cel import (
        CelCompileError,
        CelError,
        compile_selector,
        device_activation,
        device_matches,
    )

    resolver = extended_resolver(handle)
    state = allocated_state(handle.objects.of("ResourceClaim"), version.enabled("DRAConsumableCapacity"))
    slices = [SliceInfo(i, raw) for i, raw in enumerate(handle.objects.of("ResourceSlice"))]
    memo: dict[tuple[str, str], tuple[int, int]] = {}
    matched: dict[tuple[str, tuple[str, str, str]], bool] = {}

    def class_matches(cls: dict[str, Any], device: Any) -> bool | None:
        for sel in (cls.get("spec") or {}).get("selectors") or []:
            expr = str(((sel or {}).get("cel") or {}).get("expression") or "")
            if not expr:
                continue
            key = (expr, device.key)
            hit = matched.get(key)
            if hit is not None:
                if not hit:
                    return False
                continue
            prog = compile_selector(expr)
            if isinstance(prog, CelCompileError):
                return None
            try:
                ok = device_matches(prog, device_activation(device.key[0], device.raw))
            except CelError:
                return None
            if not ok:
                return False
            matched[key] = True
        return True

    def totals(node: NodeInfo, resource: str) -> tuple[int, int]:
        got = memo.get((node.name, resource))
        if got is not None:
            return got
        cls = resolver.class_for(resource)
        total = used = 0
        view = node.node
        if cls is not None:
            for s in slices:
                if s.per_device:
                    devices = [d for d in s.devices if d.all_nodes or (d.node_name and d.node_name == view.name)
                               or (d.node_selector is not None and d.node_selector.matches(view.name, view.labels))]
                else:
                    if not s.all_nodes and s.node_name != view.name and s.node_selector is not None:
                        if not s.node_selector.matches(view.name, view.labels):
                            continue
                    elif not s.all_nodes and s.node_name and s.node_name != view.name:
                        continue
                    devices = s.devices
                for d in devices:
                    ok = class_matches(cls, d)
                    if ok is None:
                        total = used = 0  # upstream logs the error and scores nothing for it
                        break
                    if ok:
                        total += 1
                        used += state.is_allocated(d.key)
                else:
                    continue
                break
        memo[(node.name, resource)] = (total, used)
        return total, used

    return totals


# Binding conditions stay unmet this long before the claim counts as failed (upstream's
# DynamicResourcesArgs.bindingTimeout default, ten minutes).
BINDING_TIMEOUT_SECONDS = 600


def claim_binding_state(claim: dict[str, Any]) -> bool | None:
    """``isClaimReadyForBinding``: True when every binding condition of the allocated
    devices holds, False while some is still pending, None once a failure condition is true."""
    status = claim.get("status") or {}
    alloc = status.get("allocation")
    if not alloc:
        return False
    devices = status.get("devices") or []
    for r in (alloc.get("devices") or {}).get("results") or []:
        if not r.get("bindingConditions"):
            continue
        dev = next((d for d in devices if d.get("device") == r.get("device") and d.get("driver") == r.get("driver")
                    and d.get("pool") == r.get("pool")), None)
        if dev is None:
            return False
        conds = {str(c.get("type") or ""): str(c.get("status") or "") for c in dev.get("conditions") or []}
        for c in r.get("bindingFailureConditions") or []:
            if conds.get(str(c)) == "True":
                return None
        for c in r.get("bindingConditions") or []:
            if conds.get(str(c)) != "True":
                return False
    return True


def binding_timed_out(claim: dict[str, Any], now: float | None = None) -> bool:
    """``isClaimTimeout``: a device with binding conditions, allocated longer ago than the
    binding timeout (the clock is the machine's, as the scheduler's would be)."""
    import time
    from datetime import datetime

    alloc = (claim.get("status") or {}).get("allocation") or {}
    stamp = alloc.get("allocationTimestamp")
    if not stamp:
        return False
    if not any(r.get("bindingConditions") is not None for r in (alloc.get("devices") or {}).get("results") or []):
        return False
    try:
        at = datetime.fromisoformat(str(stamp).replace("Z", "+00:00")).timestamp()
    except ValueError:
        return False
    return at + BINDING_TIMEOUT_SECONDS < (time.time() if now is None else now)


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


def _created_extended_claim(claim: dict[str, Any], pod: PodInfo) -> dict[str, Any]:
    from kschedx.core.plugins.dynamicresources_claims import generated_claim_name
    from kschedx.core.plugins.dynamicresources_extended import SPECIAL_CLAIM_NAME

    meta = dict(claim.get("metadata") or {})
    if meta.get("name") == SPECIAL_CLAIM_NAME:
        meta["name"] = generated_claim_name(pod.name, "extended-resources", pod.uid)
        meta["uid"] = f"kschedx-generated-{meta['name']}"
    return {**claim, "metadata": meta}


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
        if idx == state.extended_index:
            # PreBind creates the special claim from the one Filter built for the node,
            # named from its generateName (a digest of the pod stands in for the random part).
            claim = _created_extended_claim(state.node_extended_claims.get(node) or claim, pod)
        status = dict(claim.get("status") or {})
        status["allocation"] = alloc.to_json()
        status["reservedFor"] = [{"resource": "pods", "name": pod.name, "uid": pod.uid}]
        claim["status"] = status
        out.append(claim)
    return out

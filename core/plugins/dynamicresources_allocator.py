"""Structured-parameters device allocation as kube-scheduler v1.35 does it for one node.

This follows k8s.io/dynamic-resource-allocation/structured with the v1.35 default
features: prioritized lists (firstAvailable) and admin access on; partitionable
devices, device taints, binding conditions and consumable capacity off (slices with
per-device node selection are ignored, devices that consume counters or carry binding
conditions are never picked, taints are not looked at).

The search is upstream's: claims one after another, their requests in order, each
device of a request tried in pool/slice/device order with backtracking, subrequests of
a firstAvailable list tried in order; the first complete solution wins.  Two prunings
keep it fast without changing the answer: a request picks its devices in increasing
position (a feasible set is feasible in any order, so upstream's first solution is
always the increasing one), and a request stops early when fewer candidates remain
than devices it still needs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kschedx.core.api.selectors import NodeSelector, parse_node_selector
from kschedx.core.plugins.dynamicresources_cel import (
    CelCompileError,
    CelError,
    Program,
    compile_selector,
    device_activation,
    device_matches,
    enhance_runtime_error,
)

Dict = dict[str, Any]
DeviceKey = tuple[str, str, str]  # driver, pool, device

ALLOCATION_RESULTS_MAX_SIZE = 32
FIRST_AVAILABLE_MAX_SIZE = 8


class AllocationError(Exception):
    """A fatal problem with a claim, class or slice: Filter returns an Error status."""


class NodeAllocationError(Exception):
    """Allocation failed on this node only (upstream's ErrFailedAllocationOnNode)."""


# --------------------------------------------------------------------------- slices and pools


class Device:
    """One device of a ResourceSlice, with its CEL input built on first use."""

    __slots__ = ("key", "raw", "slice", "consumes_counters", "binding_conditions", "_activation")

    def __init__(self, key: DeviceKey, raw: Dict, slice_: SliceInfo) -> None:
        self.key = key
        self.raw = raw
        self.slice = slice_
        # Counter consumption needs partitionable devices, binding conditions need their
        # feature: both are off in v1.35, so such devices are never allocated.
        self.consumes_counters = bool(raw.get("consumesCounters"))
        self.binding_conditions = bool(raw.get("bindingConditions"))
        self._activation: dict[str, Any] | CelError | None = None

    @property
    def name(self) -> str:
        return self.key[2]

    def activation(self) -> dict[str, Any]:
        act = self._activation
        if act is None:
            try:
                act = device_activation(self.key[0], self.raw)
            except CelError as e:
                act = e
            self._activation = act
        if isinstance(act, CelError):
            raise act
        return act

    def attribute(self, qualified: str) -> tuple[str, Any] | None:
        """The typed value of a fully qualified attribute (``lookupAttribute`` upstream)."""
        attrs = self.raw.get("attributes") or {}
        val = attrs.get(qualified)
        if val is None:
            i = qualified.find("/")
            if i < 0 or qualified[:i] != self.key[0]:
                return None
            val = attrs.get(qualified[i + 1:])
            if val is None:
                return None
        for kind in ("string", "int", "bool", "version"):
            if val.get(kind) is not None:
                return kind, val[kind]
        return ("", None)


class SliceInfo:
    __slots__ = ("index", "raw", "name", "driver", "pool", "generation", "count", "node_name",
                 "all_nodes", "node_selector", "node_selector_raw", "per_device", "devices")

    def __init__(self, index: int, raw: Dict) -> None:
        spec = raw.get("spec") or {}
        pool = spec.get("pool") or {}
        self.index = index
        self.raw = raw
        self.name: str = (raw.get("metadata") or {}).get("name") or ""
        self.driver: str = spec.get("driver") or ""
        self.pool: str = pool.get("name") or ""
        self.generation = int(pool.get("generation") or 0)
        self.count = int(pool.get("resourceSliceCount") or 0)
        self.node_name: str = spec.get("nodeName") or ""
        self.all_nodes = bool(spec.get("allNodes"))
        self.node_selector_raw: Dict | None = spec.get("nodeSelector")
        self.node_selector: NodeSelector | None = parse_node_selector(self.node_selector_raw)
        self.per_device = spec.get("perDeviceNodeSelection") is not None
        self.devices = [
            Device((self.driver, self.pool, str(d.get("name") or "")), d, self) for d in spec.get("devices") or []
        ]


@dataclass
class Pool:
    driver: str
    name: str
    slices: list[SliceInfo]
    incomplete: bool = False
    invalid: bool = False
    invalid_reason: str = ""

    @property
    def pool_id(self) -> str:
        return f"{self.driver}/{self.name}"

    def devices(self) -> Iterable[Device]:
        for s in self.slices:
            yield from s.devices


class SliceIndex:
    """Every ResourceSlice of the cluster, indexed by the nodes it serves."""

    def __init__(self, slices: Iterable[Dict]) -> None:
        self.slices: list[SliceInfo] = []
        self.by_node: dict[str, list[SliceInfo]] = {}
        self.shared: list[SliceInfo] = []  # allNodes and nodeSelector slices
        self._pool_cache: dict[tuple[int, ...], list[Pool]] = {}
        # Every slice per (driver, pool), whatever nodes it serves: a pool that looks
        # incomplete from one node is checked against all of them (checkSlicesInPool).
        self.by_pool: dict[tuple[str, str], list[SliceInfo]] = {}
        for i, raw in enumerate(slices):
            s = SliceInfo(i, raw)
            self.slices.append(s)
            self.by_pool.setdefault((s.driver, s.pool), []).append(s)
            if s.per_device:
                continue  # per-device node selection needs partitionable devices (off)
            if s.node_name:
                self.by_node.setdefault(s.node_name, []).append(s)
            elif s.all_nodes or s.node_selector is not None:
                self.shared.append(s)
            # Slices with no node targeting at all are some future extension: ignored.

    def slices_for(self, node_name: str, labels: Mapping[str, str]) -> list[SliceInfo]:
        local = self.by_node.get(node_name, [])
        if not self.shared:
            return local
        chosen = list(local)
        for s in self.shared:
            if s.all_nodes or (s.node_selector is not None and s.node_selector.matches(node_name, labels)):
                chosen.append(s)
        chosen.sort(key=lambda s: s.index)
        return chosen

    def pools_for(self, node_name: str, labels: Mapping[str, str]) -> list[Pool]:
        """``GatherPools``: the pools whose slices the node can use, newest generation only."""
        slices = self.slices_for(node_name, labels)
        key = tuple(s.index for s in slices)
        cached = self._pool_cache.get(key)
        if cached is not None:
            return cached
        pools: dict[tuple[str, str], Pool] = {}
        for s in slices:
            pid = (s.driver, s.pool)
            pool = pools.get(pid)
            if pool is None:
                pools[pid] = Pool(s.driver, s.pool, [s])
                continue
            first = pool.slices[0].generation
            if s.generation < first:
                continue  # outdated
            if s.generation > first:
                pool.slices = []
            pool.slices.append(s)
        out: list[Pool] = []
        for pool in pools.values():
            generation, count = pool.slices[0].generation, pool.slices[0].count
            if len(pool.slices) != count:
                # The node sees only some slices; the pool may still be whole (its other
                # slices serve other nodes) or be replaced by a newer generation that has no
                # device for this node, which makes this one obsolete: ignored.
                others = self.by_pool.get((pool.driver, pool.name), [])
                if any(o.generation > generation for o in others):
                    continue
                pool.incomplete = sum(1 for o in others if o.generation == generation) != count
            out.append(pool)
        for pool in out:
            seen: set[str] = set()
            for d in pool.devices():
                if d.name in seen:
                    pool.invalid = True
                    pool.invalid_reason = f"duplicate device name {d.name}"
                    break
                seen.add(d.name)
        self._pool_cache[key] = out
        return out


# --------------------------------------------------------------------------- claims and requests


def claim_key(claim: Mapping[str, Any]) -> str:
    meta = claim.get("metadata") or {}
    return f"{meta.get('namespace') or ''}/{meta.get('name') or ''}"


@dataclass
class RequestData:
    """A request without subrequests, or one subrequest of a firstAvailable list."""

    name: str
    parent: str | None
    class_name: str
    class_obj: Dict | None
    selectors: list[Dict]
    all_mode: bool
    count: int
    admin_access: bool = False
    tolerations: list[Dict] = field(default_factory=list)

    @property
    def full_name(self) -> str:
        return f"{self.parent}/{self.name}" if self.parent else self.name


@dataclass
class DeviceResult:
    request: str  # "request" or "request/subrequest"
    driver: str
    pool: str
    device: str
    admin_access: bool = False
    slice: SliceInfo | None = None

    def to_json(self) -> Dict:
        out: Dict = {"request": self.request, "driver": self.driver, "pool": self.pool, "device": self.device}
        if self.admin_access:
            out["adminAccess"] = True
        return out


@dataclass
class AllocationResult:
    devices: list[DeviceResult] = field(default_factory=list)
    node_selector: Dict | None = None

    def to_json(self) -> Dict:
        out: Dict = {"devices": {"results": [d.to_json() for d in self.devices]}}
        if self.node_selector is not None:
            out["nodeSelector"] = self.node_selector
        return out


class _MatchAttribute:
    """All devices of the named requests must share one attribute value."""

    __slots__ = ("requests", "attribute", "value", "count")

    def __init__(self, requests: list[str], attribute: str) -> None:
        self.requests = frozenset(requests)
        self.attribute = attribute
        self.value: tuple[str, Any] | None = None
        self.count = 0

    def applies(self, request: str, sub: str | None) -> bool:
        if not self.requests:
            return True
        if sub is None:
            return request in self.requests
        return request in self.requests or f"{request}/{sub}" in self.requests

    def add(self, request: str, sub: str | None, device: Device) -> bool:
        if not self.applies(request, sub):
            return True
        value = device.attribute(self.attribute)
        if value is None:
            return False
        if self.count == 0:
            self.value = value
            self.count = 1
            return True
        if self.value is None or value[0] == "" or value != self.value:
            return False
        self.count += 1
        return True

    def remove(self, request: str, sub: str | None) -> None:
        if self.applies(request, sub):
            self.count -= 1


class _MaxSizeExceeded(Exception):
    pass


@dataclass
class _ClaimPlan:
    claim: Dict
    requests: list[RequestData | list[RequestData]]
    constraints: list[tuple[list[str], str]]


class Allocator:
    """Allocates a pod's unallocated claims node by node (one instance per scheduling cycle)."""

    def __init__(
        self,
        claims: list[Dict],
        classes: Mapping[str, Dict],
        slices: SliceIndex,
        allocated: set[DeviceKey],
        skip_bad_pools: bool = True,
        device_taints: bool = False,
        prioritized_list: bool = True,
        admin_access: bool = True,
    ) -> None:
        self.claims = claims
        # v1.35's allocators leave incomplete pools (a ResourceSliceCount not all published
        # yet) and invalid ones (duplicate device names) out of the device search; v1.34's
        # picked from incomplete pools for ExactCount requests (refusing them for "All" only)
        # and failed the whole allocation when the search reached an invalid pool.
        self.skip_bad_pools = skip_bad_pools
        # DRADeviceTaints (KEP-5055; on by default from v1.36): a device tainted NoSchedule
        # or NoExecute is allocated only to a request that tolerates the taint.
        self.device_taints = device_taints
        # DRAPrioritizedList and DRAAdminAccess (beta and on from v1.34, off in v1.33): with
        # the gate off a request using the feature is an error, as the allocator reports it.
        self.prioritized_list = prioritized_list
        self.admin_access = admin_access
        self.classes = classes
        self.slices = slices
        self.allocated = allocated
        # Whether a device satisfies a request's class and request selectors does not
        # depend on the node, so the answer is kept for the whole cycle.
        self._selectable: dict[tuple[int, int, int, DeviceKey], bool] = {}
        self._plans: list[_ClaimPlan] | AllocationError | None = None

    # ---------------------------------------------------------------- validation

    def _request_data(self, claim: Dict, raw: Mapping[str, Any], parent: str | None) -> RequestData:
        name = str(raw.get("name") or "")
        ck = claim_key(claim)
        for i, sel in enumerate(raw.get("selectors") or []):
            if not (sel or {}).get("cel"):
                raise AllocationError(
                    f"claim {ck}, request {name}, selector #{i}: CEL expression empty (unsupported selector type?)"
                )
        if raw.get("adminAccess") is not None and not self.admin_access:
            raise AllocationError(f"claim {ck}, request {name}: admin access is requested, but the feature is disabled")
        class_name = str(raw.get("deviceClassName") or "")
        if not class_name:
            raise AllocationError(f"claim {ck}, request {name}: missing device class name (unsupported request type?)")
        cls = self.classes.get(class_name)
        if cls is None:
            raise AllocationError(
                f"claim {ck}, request {name}: could not retrieve device class {class_name}: "
                f'deviceclass.resource.k8s.io "{class_name}" not found'
            )
        mode = raw.get("allocationMode") or "ExactCount"
        if mode not in ("ExactCount", "All"):
            raise AllocationError(f"claim {ck}, request {name}: unsupported count mode {mode}")
        count = int(raw.get("count") or 1) if mode == "ExactCount" else 0
        return RequestData(
            name=name,
            parent=parent,
            class_name=class_name,
            class_obj=cls,
            selectors=list(raw.get("selectors") or []),
            all_mode=mode == "All",
            count=count,
            admin_access=bool(raw.get("adminAccess")) and parent is None,
            tolerations=[t for t in raw.get("tolerations") or [] if isinstance(t, dict)],
        )

    def _plan(self) -> list[_ClaimPlan]:
        if self._plans is None:
            try:
                plans: list[_ClaimPlan] = []
                for claim in self.claims:
                    devices = (claim.get("spec") or {}).get("devices") or {}
                    reqs: list[RequestData | list[RequestData]] = []
                    for r in devices.get("requests") or []:
                        if r.get("firstAvailable") and not self.prioritized_list:
                            raise AllocationError(
                                f"claim {claim_key(claim)}, request {r.get('name') or ''}: has subrequests, but the "
                                "DRAPrioritizedList feature is disabled"
                            )
                        if r.get("firstAvailable"):
                            reqs.append([self._request_data(claim, s, str(r.get("name") or "")) for s in r["firstAvailable"]])
                        else:
                            # The request's name sits beside its `exactly` block, not inside it.
                            exactly = {**(r.get("exactly") or {}), "name": r.get("name") or ""}
                            reqs.append(self._request_data(claim, exactly, None))
                    cons: list[tuple[list[str], str]] = []
                    for i, c in enumerate(devices.get("constraints") or []):
                        if not c.get("matchAttribute"):
                            raise AllocationError(
                                f"claim {claim_key(claim)}, constraint #{i}: empty constraint (unsupported constraint type?)"
                            )
                        cons.append(([str(x) for x in c.get("requests") or []], str(c["matchAttribute"])))
                    plans.append(_ClaimPlan(claim, reqs, cons))
                self._plans = plans
            except AllocationError as e:
                self._plans = e
        if isinstance(self._plans, AllocationError):
            raise self._plans
        return self._plans

    # ---------------------------------------------------------------- selection

    def _selectors_match(self, ci: int, device: Device, class_name: str | None, selectors: list[Dict]) -> bool:
        for i, sel in enumerate(selectors):
            expr = str(((sel or {}).get("cel") or {}).get("expression") or "")
            prog = compile_selector(expr)
            if isinstance(prog, CelCompileError):
                where = f"class {class_name}" if class_name is not None else f"claim {claim_key(self.claims[ci])}"
                raise AllocationError(f"{where}: selector #{i}: CEL compile error: {prog}")
            assert isinstance(prog, Program)
            try:
                ok = device_matches(prog, device.activation())
            except CelError as e:
                where = f"class {class_name}" if class_name is not None else f"claim {claim_key(self.claims[ci])}"
                driver, pool, name = device.key
                raise AllocationError(
                    f"{where}: selector #{i} on device {driver}/{pool}/{name}: CEL runtime error: {enhance_runtime_error(str(e))}"
                ) from None
            if not ok:
                return False
        return True

    def selectable(self, key: tuple[int, int, int], rd: RequestData, device: Device) -> bool:
        if device.binding_conditions:
            return False
        ck = (key[0], key[1], key[2], device.key)
        hit = self._selectable.get(ck)
        if hit is not None:
            return hit
        ok = True
        if rd.class_obj is not None:
            ok = self._selectors_match(
                key[0], device, rd.class_name, list(((rd.class_obj.get("spec") or {}).get("selectors")) or [])
            )
        if ok:
            ok = self._selectors_match(key[0], device, None, rd.selectors)
        self._selectable[ck] = ok
        return ok

    # ---------------------------------------------------------------- allocation

    def allocate(self, node_name: str, labels: Mapping[str, str]) -> list[AllocationResult] | None:
        """The claims' allocation on this node, None if they don't fit.

        Raises AllocationError for problems that abort the whole cycle and
        NodeAllocationError for failures that only concern this node.
        """
        plans = self._plan()
        pools = self.slices.pools_for(node_name, labels)
        run = _Run(self, plans, pools)
        done = run.start()
        if not done:
            if self.skip_bad_pools and any(p.invalid for p in pools):
                raise NodeAllocationError("invalid resource pools were encountered")
            return None
        out: list[AllocationResult] = []
        for ci in range(len(plans)):
            devices = run.results[ci]
            out.append(AllocationResult(list(devices), _node_selector(devices)))
        return out


    # ---------------------------------------------------------------- explanation

    def explain_node(self, node_name: str, labels: Mapping[str, str]) -> list[str]:
        """Why the claims don't fit on this node, request by request: no device matches the
        class and selectors, the matching ones are allocated already, too few are free — or,
        when each request alone could be met, that they can't be met together."""
        try:
            plans = self._plan()
        except AllocationError as e:
            return [str(e)]
        pools = self.slices.pools_for(node_name, labels)
        out: list[str] = []
        all_met = True
        for ci, plan in enumerate(plans):
            ck = claim_key(plan.claim)
            for ri, req in enumerate(plan.requests):
                options = req if isinstance(req, list) else [req]
                notes: list[str] = []
                met = False
                for si, rd in enumerate(options):
                    broken = [p for p in pools if p.incomplete or p.invalid] if rd.all_mode else []
                    if broken:
                        # The Error the Filter returns: "all" cannot be counted in a pool in flux.
                        p = broken[0]
                        notes.append(
                            f"request {rd.full_name}: asks for all devices, but resource pool {p.pool_id} is "
                            + ("currently invalid (duplicate device names)" if not p.incomplete else
                               f"currently being updated (fewer slices than its resourceSliceCount "
                               f"{p.slices[0].count}): the scheduler errors until the driver has published them all")
                        )
                        continue
                    try:
                        matching = [d for pool in pools for d in pool.devices()
                                    if self.selectable((ci, ri, si), rd, d)]
                    except AllocationError as e:
                        notes.append(str(e))
                        continue
                    free = [d for d in matching if d.key not in self.allocated]
                    need = len(matching) if rd.all_mode else rd.count
                    if rd.all_mode and matching and len(free) == len(matching) or not rd.all_mode and len(free) >= need:
                        met = True
                        break
                    if not matching:
                        notes.append(f"request {rd.full_name}: no device on this node matches its class and selectors")
                    elif not free:
                        notes.append(f"request {rd.full_name}: {len(matching)} matching device(s), all allocated to "
                                     "other claims")
                    else:
                        notes.append(f"request {rd.full_name}: needs {need}, only {len(free)} of {len(matching)} "
                                     "matching device(s) free")
                if not met:
                    all_met = False
                    out.extend(f"claim {ck}, {n}" for n in notes)
        if all_met:
            out.append("each request alone could be met here, but not all together (a matchAttribute constraint, "
                       "or requests competing for the same devices)")
        return out


def _node_selector(devices: list[DeviceResult]) -> Dict | None:
    """The allocation's node selector: a node-local device pins it to that node."""
    fields: list[Dict] = []
    exprs: list[Dict] = []
    for d in devices:
        s = d.slice
        if s is None:
            continue
        if s.node_name:
            return {"nodeSelectorTerms": [{"matchFields": [
                {"key": "metadata.name", "operator": "In", "values": [s.node_name]}]}]}
        terms = (s.node_selector_raw or {}).get("nodeSelectorTerms") or []
        if len(terms) == 1:
            for req in terms[0].get("matchFields") or []:
                if req not in fields:
                    fields.append(req)
            for req in terms[0].get("matchExpressions") or []:
                if req not in exprs:
                    exprs.append(req)
    if not fields and not exprs:
        return None
    term: Dict = {}
    if exprs:
        term["matchExpressions"] = exprs
    if fields:
        term["matchFields"] = fields
    return {"nodeSelectorTerms": [term]}


class _Run:
    """One ``Allocate`` call: the depth-first search over claims, requests and devices."""

    def __init__(self, alloc: Allocator, plans: list[_ClaimPlan], pools: list[Pool]) -> None:
        self.alloc = alloc
        self.plans = plans
        self.pools = pools
        # Candidates in search order: devices of complete, valid pools.
        self.candidates: list[Device] = []
        # v1.34's allocators fail the whole allocation when the device search reaches an
        # invalid pool (v1.35's skip it): its first device's position marks where.
        self.invalid_at: dict[int, Pool] = {}
        for p in pools:
            if p.incomplete and alloc.skip_bad_pools:
                continue
            if p.invalid:
                if not alloc.skip_bad_pools:
                    first = next(iter(p.devices()), None)
                    if first is not None:
                        self.invalid_at[len(self.candidates)] = p
                        self.candidates.append(first)
                continue
            self.candidates.extend(p.devices())
        self.allocating: dict[DeviceKey, set[int]] = {}
        self.results: list[list[DeviceResult]] = [[] for _ in plans]
        self.constraints = [[_MatchAttribute(r, a) for r, a in plan.constraints] for plan in plans]
        self.all_devices: dict[tuple[int, int, int], list[Device]] = {}
        self.selected_sub: dict[tuple[int, int], int] = {}

    def request(self, ci: int, ri: int, si: int) -> RequestData:
        r = self.plans[ci].requests[ri]
        return r[si] if isinstance(r, list) else r

    def start(self) -> bool:
        # Sanity checks done before searching: "All" requests need complete pools, and a
        # claim may not need more devices than an allocation result can hold.
        for ci, plan in enumerate(self.plans):
            min_devices = 0
            for ri, r in enumerate(plan.requests):
                subs = r if isinstance(r, list) else [r]
                least = None
                for si, rd in enumerate(subs):
                    n = self._num_devices(ci, ri, si if isinstance(r, list) else 0, rd)
                    least = n if least is None else min(least, n)
                min_devices += least or 0
            if min_devices > ALLOCATION_RESULTS_MAX_SIZE:
                raise AllocationError(
                    f"claim {claim_key(plan.claim)}: number of requested devices {min_devices} exceeds "
                    f"the claim limit of {ALLOCATION_RESULTS_MAX_SIZE}"
                )
        try:
            return self.one(0, 0, 0, 0, False, 0)
        except _MaxSizeExceeded:
            return False

    def _num_devices(self, ci: int, ri: int, si: int, rd: RequestData) -> int:
        if not rd.all_mode:
            return rd.count
        found: list[Device] = []
        for pool in self.pools:
            if pool.incomplete:
                raise AllocationError(
                    f"claim {claim_key(self.plans[ci].claim)}, request {rd.name}: asks for all devices, "
                    f"but resource pool {pool.pool_id} is currently being updated"
                )
            if pool.invalid:
                raise AllocationError(
                    f"claim {claim_key(self.plans[ci].claim)}, request {rd.name}: asks for all devices, "
                    f"but resource pool {pool.pool_id} is currently invalid"
                )
            for d in pool.devices():
                if self.alloc.selectable((ci, ri, si), rd, d):
                    found.append(d)
        self.all_devices[(ci, ri, si)] = found
        return len(found)

    def in_use(self, key: DeviceKey) -> bool:
        return key in self.alloc.allocated or bool(self.allocating.get(key))

    def one(self, ci: int, ri: int, si: int, di: int, in_sub: bool, start: int) -> bool:
        if ci >= len(self.plans):
            return True
        plan = self.plans[ci]
        if ri >= len(plan.requests):
            try:
                return self.one(ci + 1, 0, 0, 0, False, 0)
            except _MaxSizeExceeded:
                return False
        r = plan.requests[ri]
        if isinstance(r, list) and not in_sub:
            all_exceeded = True
            for sub in range(len(r)):
                try:
                    ok = self.one(ci, ri, sub, 0, True, 0)
                except _MaxSizeExceeded:
                    continue
                all_exceeded = False
                if ok:
                    self.selected_sub[(ci, ri)] = sub
                    return True
            if all_exceeded:
                raise _MaxSizeExceeded()
            return False
        rd = r[si] if isinstance(r, list) else r
        key = (ci, ri, si)
        if rd.all_mode:
            devices = self.all_devices.get(key, [])
            if not devices:
                return False
            need = len(devices)
        else:
            need = rd.count
        if di >= need:
            return self.one(ci, ri + 1, 0, 0, False, 0)
        if len(self.results[ci]) + need - di > ALLOCATION_RESULTS_MAX_SIZE:
            raise _MaxSizeExceeded()
        if rd.all_mode:
            undo = self.take(ci, rd, self.all_devices[key][di], must=True)
            if undo is None:
                return False
            try:
                ok = self.one(ci, ri, si, di + 1, in_sub, 0)
            except _MaxSizeExceeded:
                undo()
                raise
            if not ok:
                undo()
            return ok

        # Candidates for this device slot, from the position after the previous pick.
        # Selectors are evaluated in upstream's order; a CEL error only surfaces once
        # every earlier candidate has failed, as it would upstream.
        cands: list[int] = []
        error: AllocationError | None = None
        for pos in range(start, len(self.candidates)):
            d = self.candidates[pos]
            bad = self.invalid_at.get(pos)
            if bad is not None:
                error = AllocationError(f"pool {bad.name} is invalid: {bad.invalid_reason}")
                break
            if rd.admin_access:
                if ci in self.allocating.get(d.key, ()):
                    continue
            elif self.in_use(d.key):
                continue
            try:
                if not self.alloc.selectable(key, rd, d):
                    continue
            except AllocationError as e:
                error = e
                break
            cands.append(pos)
        if error is None and len(cands) < need - di:
            return False
        for pos in cands:
            d = self.candidates[pos]
            undo = self.take(ci, rd, d, must=False)
            if undo is None:
                continue
            try:
                ok = self.one(ci, ri, si, di + 1, in_sub, pos + 1)
            except _MaxSizeExceeded:
                undo()
                raise
            if ok:
                return True
            undo()
        if error is not None:
            raise error
        return False

    def take(self, ci: int, rd: RequestData, d: Device, must: bool) -> Any:
        """``allocateDevice``: check availability and constraints, record the device."""
        if self.alloc.device_taints and taint_prevents_allocation(d.raw.get("taints"), rd.tolerations):
            return None
        if rd.admin_access:
            if ci in self.allocating.get(d.key, ()):
                return None
        elif self.in_use(d.key):
            return None
        if d.consumes_counters:
            return None
        base = rd.parent if rd.parent is not None else rd.name
        sub = rd.name if rd.parent is not None else None
        cons = self.constraints[ci]
        for i, c in enumerate(cons):
            if not c.add(base, sub, d):
                if must:
                    raise AllocationError(
                        f"claim {claim_key(self.plans[ci].claim)}, request {rd.name}: cannot add device "
                        f"{'/'.join(d.key)} because a claim constraint would not be satisfied"
                    )
                for c2 in cons[:i]:
                    c2.remove(base, sub)
                return None
        self.allocating.setdefault(d.key, set()).add(ci)
        results = self.results[ci]
        before = len(results)
        results.append(DeviceResult(rd.full_name, d.key[0], d.key[1], d.key[2], rd.admin_access, d.slice))

        def undo() -> None:
            for c in cons:
                c.remove(base, sub)
            self.allocating[d.key].discard(ci)
            del results[before:]

        return undo


def allocated_devices(claims: Iterable[Mapping[str, Any]]) -> set[DeviceKey]:
    """Devices held by allocated claims; admin-access results don't make a device busy."""
    out: set[DeviceKey] = set()
    for claim in claims:
        alloc = (claim.get("status") or {}).get("allocation")
        if not alloc:
            continue
        for r in (alloc.get("devices") or {}).get("results") or []:
            if r.get("adminAccess"):
                continue
            out.add((str(r.get("driver") or ""), str(r.get("pool") or ""), str(r.get("device") or "")))
    return out


def taint_prevents_allocation(taints: Any, tolerations: list[Dict]) -> bool:
    """A NoSchedule or NoExecute device taint no toleration of the request tolerates (other
    effects, None included, don't prevent allocation)."""
    for taint in taints or []:
        if isinstance(taint, dict) and taint.get("effect") in ("NoSchedule", "NoExecute"):
            if not any(_tolerates(t, taint) for t in tolerations):
                return True
    return False


def _tolerates(toleration: Dict, taint: Dict) -> bool:
    effect = toleration.get("effect") or ""
    if effect and effect != taint.get("effect"):
        return False
    key = toleration.get("key") or ""
    if key and key != taint.get("key"):
        return False
    op = toleration.get("operator") or "Equal"
    if op == "Equal":
        return bool((toleration.get("value") or "") == (taint.get("value") or ""))
    return bool(op == "Exists")

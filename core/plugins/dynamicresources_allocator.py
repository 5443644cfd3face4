"""Structured-parameters device allocation as kube-scheduler does it for one node.

This follows k8s.io/dynamic-resource-allocation/structured, whose ``NewAllocator`` picks
the first variant supporting every enabled feature (``DraFeatures``, from the gates):

* stable (v1.35's default gates): prioritized lists (firstAvailable) and admin access;
  devices that consume counters or carry binding conditions are never picked, slices
  with shared counters or per-device node selection are ignored, pools are walked as
  listed;
* incubating (v1.36's default gates, chosen once binding conditions or consumable
  capacity are on): also partitionable devices (``sharedCounters`` / ``consumesCounters``,
  per-device node selection), consumable capacity (``allowMultipleAllocations``, capacity
  requests and request policies, dynamicresources_capacity), binding conditions (their
  pools tried last), device taints and tolerations, ``distinctAttribute`` constraints;
  pools sorted by driver and name, slices by name.

The search is upstream's: claims one after another, their requests in order, each
device of a request tried in pool/slice/device order with backtracking, subrequests of
a firstAvailable list tried in order; the first complete solution wins.  Two prunings
keep it fast without changing the answer: a request picks its devices in increasing
position (a feasible set is feasible in any order, so upstream's first solution is
always the increasing one), and a request stops early when fewer candidates remain
than devices it still needs.  Every node gathers every counter slice of the cluster, so
the pools all nodes see alike are built once per slice index, and each node's search
skips the complete, valid pools that hold no device for it (``SliceIndex``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from kschedx.core.api.quantity import QuantityError, parse_quantity
from kschedx.core.api.selectors import NodeSelector, parse_node_selector
from kschedx.core.plugins.dynamicresources_capacity import (
    Consumed,
    DeviceCapacity,
    add_consumed,
    consumed_by_request,
    format_quantity,
    parse_capacity,
    parse_requests,
    remove_consumed,
    request_fits,
    subtract_known,
)
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

    __slots__ = ("key", "raw", "slice", "consumes_counters", "consumes", "binding_conditions", "binds_to_node",
                 "allow_multiple", "_capacity", "_activation", "_activation_multi", "node_name", "all_nodes", "node_selector")

    def __init__(self, key: DeviceKey, raw: Dict, slice_: SliceInfo) -> None:
        self.key = key
        self.raw = raw
        self.slice = slice_
        # Counter consumption needs partitionable devices (DRAPartitionableDevices), binding
        # conditions DRADeviceBindingConditions: without them such devices are never allocated.
        self.consumes_counters = bool(raw.get("consumesCounters"))
        self.consumes: list[tuple[str, dict[str, Fraction]]] = (
            _counter_consumption(raw["consumesCounters"]) if self.consumes_counters else [])
        self.binding_conditions = bool(raw.get("bindingConditions"))
        self.binds_to_node = bool(raw.get("bindsToNode"))
        self.allow_multiple = bool(raw.get("allowMultipleAllocations"))
        # Per-device node selection (a slice with perDeviceNodeSelection: true).
        self.node_name: str = str(raw.get("nodeName") or "")
        self.all_nodes = bool(raw.get("allNodes"))
        self.node_selector: NodeSelector | None = (
            parse_node_selector(raw["nodeSelector"]) if raw.get("nodeSelector") else None)
        self._capacity: dict[str, DeviceCapacity] | None = None
        self._activation: dict[str, Any] | CelError | None = None
        self._activation_multi: dict[str, Any] | None = None

    @property
    def name(self) -> str:
        return self.key[2]

    @property
    def plain_capacity(self) -> bool:
        """No capacity entry has a request policy."""
        return all(c.policy is None for c in self.capacity.values())

    @property
    def capacity(self) -> dict[str, DeviceCapacity]:
        if self._capacity is None:
            self._capacity = parse_capacity(self.raw.get("capacity"))
        return self._capacity

    def matches_node(self, node_name: str, labels: Mapping[str, str]) -> bool:
        """``NodeMatches`` for the device's own node selection."""
        return _node_matches(self.node_name, self.all_nodes, self.node_selector, node_name, labels)

    def activation(self, multi_alloc: bool = False) -> dict[str, Any]:
        """The CEL ``device`` variable; with consumable capacity it also has
        ``allowMultipleAllocations`` (upstream's v1.34 device type)."""
        act = self._activation
        if act is None:
            try:
                act = device_activation(self.key[0], self.raw)
            except CelError as e:
                act = e
            self._activation = act
        if isinstance(act, CelError):
            raise act
        if multi_alloc:
            if self._activation_multi is None:
                self._activation_multi = {"device": {**act["device"], "allowMultipleAllocations": self.allow_multiple}}
            return self._activation_multi
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


def _counter_consumption(raw: Any) -> list[tuple[str, dict[str, Fraction]]]:
    out: list[tuple[str, dict[str, Fraction]]] = []
    for c in raw or []:
        if not isinstance(c, Mapping):
            continue
        counters: dict[str, Fraction] = {}
        for name, v in (c.get("counters") or {}).items():
            counters[str(name)] = _counter_value(v)
        out.append((str(c.get("counterSet") or ""), counters))
    return out


def _counter_value(v: Any) -> Fraction:
    try:
        return parse_quantity((v or {}).get("value") if isinstance(v, Mapping) else v)
    except (QuantityError, TypeError, ValueError):
        return Fraction(0)


def _node_matches(name: str, all_nodes: bool, selector: NodeSelector | None, node_name: str,
                  labels: Mapping[str, str]) -> bool:
    if name:
        return name == node_name
    if all_nodes:
        return True
    if selector is not None:
        return selector.matches(node_name, labels)
    return False


class SliceInfo:
    __slots__ = ("index", "raw", "name", "driver", "pool", "generation", "count", "node_name",
                 "all_nodes", "node_selector", "node_selector_raw", "per_device", "per_device_set",
                 "shared_counters", "devices")

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
        # Set at all (what a v1.35 allocator without partitionable devices skips), and true.
        self.per_device_set = spec.get("perDeviceNodeSelection") is not None
        self.per_device = bool(spec.get("perDeviceNodeSelection"))
        self.shared_counters: list[tuple[str, dict[str, Fraction]]] = [
            (str(cs.get("name") or ""), {str(k): _counter_value(v) for k, v in (cs.get("counters") or {}).items()})
            for cs in spec.get("sharedCounters") or [] if isinstance(cs, Mapping)
        ]
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
    # Partitionable devices: the pool's counter sets, and the slices of the pool that serve
    # other nodes (their allocated devices draw on the same counters).
    counter_sets: dict[str, dict[str, Fraction]] = field(default_factory=dict)
    not_targeting: list[SliceInfo] = field(default_factory=list)
    has_binding_conditions: bool = False
    # Where its first gathered slice is listed (the stable allocator's pool order), and
    # whether any of its slices the node gathered holds devices.
    first_index: int = 0
    has_devices: bool = False

    @property
    def pool_id(self) -> str:
        return f"{self.driver}/{self.name}"

    @property
    def sways_allocation(self) -> bool:
        """Holds devices the node gathered, or is incomplete or invalid."""
        return self.has_devices or self.incomplete or self.invalid

    def devices(self) -> Iterable[Device]:
        for s in self.slices:
            yield from s.devices


class SliceIndex:
    """Every ResourceSlice of the cluster, indexed by the nodes it serves.

    ``partitionable`` (DRAPartitionableDevices) admits slices with shared counters (always
    considered, whatever node they name) and per-device node selection; ``sort`` is the
    incubating allocator's deterministic order (pools by driver and name, slices by name,
    pools with binding conditions last) where the stable one walks them as listed.

    Slices that every node gathers alike (counter slices, allNodes slices) make the same
    pools for every node that has no other slice in them: those pools are built once per
    index and shared (``share_pools``); a node builds only the pools its own slices touch.
    With ``share_pools`` off each node's pools are gathered and built from scratch, as
    ``GatherPools`` does, which tests compare against."""

    def __init__(self, slices: Iterable[Dict], partitionable: bool = False, sort: bool = False,
                 share_pools: bool = True) -> None:
        self.partitionable = partitionable
        self.sort = sort
        self.share_pools = share_pools
        self.slices: list[SliceInfo] = []
        self.by_node: dict[str, list[SliceInfo]] = {}
        # Relevant to every node whatever its name and labels: counter slices and allNodes
        # slices, per pool.
        self.everywhere: dict[tuple[str, str], list[SliceInfo]] = {}
        # Relevant by the node's labels: nodeSelector and per-device node selection.
        self.selective: list[SliceInfo] = []
        # Every slice per (driver, pool), whatever nodes it serves: a pool that looks
        # incomplete from one node is checked against all of them (checkSlicesInPool).
        self.by_pool: dict[tuple[str, str], list[SliceInfo]] = {}
        # Built pools by the slices gathered for them, and the shared pools by pool.
        self._pool_cache: dict[tuple[int, ...], Pool | None] = {}
        self._shared_pools: dict[tuple[str, str], Pool] | None = None
        # The shared pools that can sway an allocation (search_pools_for).
        self._shared_swaying: list[Pool] | None = None
        for i, raw in enumerate(slices):
            s = SliceInfo(i, raw)
            self.slices.append(s)
            self.by_pool.setdefault((s.driver, s.pool), []).append(s)
            if not partitionable and (s.per_device_set or s.shared_counters):
                continue  # needs partitionable devices (off)
            if s.node_name and not s.shared_counters:
                self.by_node.setdefault(s.node_name, []).append(s)
            elif s.shared_counters or (not s.node_name and s.all_nodes):
                self.everywhere.setdefault((s.driver, s.pool), []).append(s)
            else:
                self.selective.append(s)

    def _relevant(self, s: SliceInfo, node_name: str, labels: Mapping[str, str]) -> bool:
        """``GatherPools``' test whether a slice matters for the node."""
        if s.shared_counters:
            return True
        if s.node_name or s.all_nodes or s.node_selector is not None:
            return _node_matches(s.node_name, s.all_nodes, s.node_selector, node_name, labels)
        if s.per_device:
            return any(d.matches_node(node_name, labels) for d in s.devices)
        return False  # some future node targeting: ignored

    def _own_slices(self, node_name: str, labels: Mapping[str, str]) -> dict[tuple[str, str], list[SliceInfo]]:
        """The node's slices other than those every node gathers, per pool."""
        own: dict[tuple[str, str], list[SliceInfo]] = {}
        for s in self.by_node.get(node_name, ()):
            own.setdefault((s.driver, s.pool), []).append(s)
        for s in self.selective:
            if self._relevant(s, node_name, labels):
                own.setdefault((s.driver, s.pool), []).append(s)
        return own

    def _order(self, pools: list[Pool]) -> list[Pool]:
        """``GatherPools``' order: by driver and pool name with binding conditions last
        (incubating), else as the pools' first slices are listed."""
        if self.sort:
            return sorted(pools, key=lambda p: (p.has_binding_conditions, p.driver, p.name))
        return sorted(pools, key=lambda p: p.first_index)

    def _node_pools(self, node_name: str, labels: Mapping[str, str]) -> tuple[list[Pool], dict[tuple[str, str], Pool]]:
        """The pools the node's own slices touch (built for the node, with the slices every
        node gathers in them), and the shared pools, built once."""
        shared = self._shared_pools
        if shared is None:
            shared = {}
            for pid, slices in self.everywhere.items():
                pool = self._gather(slices)
                if pool is not None:
                    shared[pid] = pool
            self._shared_pools = shared
        own: list[Pool] = []
        for pid, slices in self._own_slices(node_name, labels).items():
            # In listing order, as GatherPools meets them.
            pool = self._gather(sorted(slices + self.everywhere.get(pid, []), key=lambda s: s.index))
            if pool is not None:
                own.append(pool)
        return own, shared

    def pools_for(self, node_name: str, labels: Mapping[str, str]) -> list[Pool]:
        """``GatherPools``: the pools whose slices the node can use, newest generation only."""
        if not self.share_pools:
            return self._pools_from_scratch(node_name, labels)
        own, shared = self._node_pools(node_name, labels)
        touched = {(p.driver, p.name) for p in own}
        return self._order(own + [p for pid, p in shared.items() if pid not in touched])

    def search_pools_for(self, node_name: str, labels: Mapping[str, str]) -> list[Pool]:
        """The pools of ``pools_for`` that can sway the node's allocation: those holding
        devices for it, and the incomplete or invalid ones (an "All" request stops at the
        first of them, and an invalid one turns a failed search into
        ``ErrFailedAllocationOnNode``).  A complete, valid pool without such devices (another
        node's counter slice) gives the search nothing, so it is not walked per node.
        Without ``share_pools``: every pool, as upstream walks them."""
        if not self.share_pools:
            return self.pools_for(node_name, labels)
        own, shared = self._node_pools(node_name, labels)
        if self._shared_swaying is None:
            self._shared_swaying = [p for p in shared.values() if p.sways_allocation]
        touched = {(p.driver, p.name) for p in own}
        return self._order([p for p in own if p.sways_allocation]
                           + [p for p in self._shared_swaying if (p.driver, p.name) not in touched])

    def _pools_from_scratch(self, node_name: str, labels: Mapping[str, str]) -> list[Pool]:
        slices = list(self.by_node.get(node_name, []))
        slices += [s for pool in self.everywhere.values() for s in pool]
        slices += [s for s in self.selective if self._relevant(s, node_name, labels)]
        slices.sort(key=lambda s: s.index)
        per_pool: dict[tuple[str, str], list[SliceInfo]] = {}
        for s in slices:
            per_pool.setdefault((s.driver, s.pool), []).append(s)
        pools = [self._gather(group, cache=False) for group in per_pool.values()]
        return self._order([p for p in pools if p is not None])

    def _gather(self, slices: list[SliceInfo], cache: bool = True) -> Pool | None:
        """One pool of ``GatherPools`` from the slices of it the node gathered (in listing
        order): newest generation only, checked against the whole pool when slices are
        missing; None when a newer generation elsewhere makes it obsolete."""
        key = tuple(s.index for s in slices)
        if cache and key in self._pool_cache:
            return self._pool_cache[key]
        first = slices[0]
        pool = Pool(first.driver, first.pool, [first], first_index=first.index)
        for s in slices[1:]:
            generation = pool.slices[0].generation
            if s.generation < generation:
                continue  # outdated
            if s.generation > generation:
                pool.slices = []
            pool.slices.append(s)
        built: Pool | None = pool
        generation, count = pool.slices[0].generation, pool.slices[0].count
        everything: list[SliceInfo] | None = None
        if len(pool.slices) != count:
            # The node sees only some slices; the pool may still be whole (its other
            # slices serve other nodes) or be replaced by a newer generation that has no
            # device for this node, which makes this one obsolete: ignored.
            others = self.by_pool.get((pool.driver, pool.name), [])
            if any(o.generation > generation for o in others):
                built = None
            else:
                everything = [o for o in others if o.generation == generation]
                pool.incomplete = len(everything) != count
        if built is not None:
            if self.sort:
                pool.slices.sort(key=lambda s: s.name)
            self._build(pool, everything)
            pool.has_devices = any(s.devices for s in pool.slices)
        if cache:
            self._pool_cache[key] = built
        return built

    def _build(self, pool: Pool, everything: list[SliceInfo] | None) -> None:
        """``buildPool``: split counter slices off, validate names, counter sets and consumption."""
        if self.partitionable:
            counter_slices = [s for s in pool.slices if s.shared_counters]
            pool.slices = [s for s in pool.slices if not s.shared_counters]
        else:
            counter_slices = []
        # An incomplete pool has no devices upstream, so it never sorts last for them.
        pool.has_binding_conditions = not pool.incomplete and any(
            d.raw.get("bindingConditions") is not None for d in pool.devices())
        seen: set[str] = set()
        for d in pool.devices():
            if d.name in seen:
                pool.invalid, pool.invalid_reason = True, f"duplicate device name {d.name}"
                return
            seen.add(d.name)
        if not self.partitionable or pool.incomplete:
            return
        for s in counter_slices:
            for name, counters in s.shared_counters:
                if name in pool.counter_sets:
                    pool.invalid, pool.invalid_reason = True, f"duplicate counter set name {name}"
                    return
                pool.counter_sets[name] = counters
        problem = _consumption_problem(pool.counter_sets, pool.slices)
        if problem is None and everything is not None:
            names = {s.name for s in pool.slices} | {s.name for s in counter_slices}
            pool.not_targeting = [s for s in everything if s.name not in names]
            problem = _consumption_problem(pool.counter_sets, pool.not_targeting)
        if problem is not None:
            pool.invalid, pool.invalid_reason = True, problem


def _consumption_problem(counter_sets: Mapping[str, Mapping[str, Fraction]], slices: Iterable[SliceInfo]) -> str | None:
    """``validateDeviceCounterConsumption``: every consumed counter exists in its set."""
    for s in slices:
        for d in s.devices:
            for set_name, counters in d.consumes:
                cs = counter_sets.get(set_name)
                if cs is None:
                    return f"counter set {set_name} not found"
                for c in counters:
                    if c not in cs:
                        return f"counter {c} not found in counter set {set_name}"
    return None


@dataclass
class AllocatedState:
    """``structured.AllocatedState``: devices held by allocated claims. With consumable
    capacity, a shared allocation (one with a shareID) leaves its device free for more
    shares and adds what it consumed to the device's aggregated capacity."""

    devices: set[DeviceKey] = field(default_factory=set)
    shared: set[DeviceKey] = field(default_factory=set)
    capacity: dict[DeviceKey, Consumed] = field(default_factory=dict)

    def is_allocated(self, key: DeviceKey) -> bool:
        """``IsDeviceAllocated``: held whole, shared, or with capacity consumed."""
        return key in self.devices or key in self.shared or key in self.capacity


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
    # capacity.requests (consumable capacity); None when the request has no capacity block.
    capacity: dict[str, Fraction] | None = None

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
    share_id: str | None = None
    consumed: Consumed | None = None
    tolerations: list[Dict] = field(default_factory=list)
    binding_conditions: list[str] = field(default_factory=list)
    binding_failure_conditions: list[str] = field(default_factory=list)
    binds_to_node: bool = False
    device_obj: Device | None = None

    def to_json(self) -> Dict:
        out: Dict = {"request": self.request, "driver": self.driver, "pool": self.pool, "device": self.device}
        if self.admin_access:
            out["adminAccess"] = True
        if self.tolerations:
            out["tolerations"] = self.tolerations
        if self.share_id is not None:
            out["shareID"] = self.share_id
        if self.consumed:
            out["consumedCapacity"] = {k: format_quantity(v) for k, v in self.consumed.items()}
        if self.binding_conditions:
            out["bindingConditions"] = list(self.binding_conditions)
        if self.binding_failure_conditions:
            out["bindingFailureConditions"] = list(self.binding_failure_conditions)
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


class _AttributeConstraint:
    """A claim constraint over one attribute of the devices of some requests (all of the
    claim's requests when none are named)."""

    __slots__ = ("requests", "attribute", "count")

    def __init__(self, requests: list[str], attribute: str) -> None:
        self.requests = frozenset(requests)
        self.attribute = attribute
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
        if self.count > 0 and not self.admits(value):
            return False
        self.record(request, value)
        self.count += 1
        return True

    def remove(self, request: str, sub: str | None) -> None:
        if self.applies(request, sub):
            self.forget(request)
            self.count -= 1

    def admits(self, value: tuple[str, Any]) -> bool:
        raise NotImplementedError

    def record(self, request: str, value: tuple[str, Any]) -> None:
        raise NotImplementedError

    def forget(self, request: str) -> None:
        raise NotImplementedError


class _MatchAttribute(_AttributeConstraint):
    """``matchAttributeConstraint``: all devices of the named requests share one value."""

    __slots__ = ("value",)

    def __init__(self, requests: list[str], attribute: str) -> None:
        super().__init__(requests, attribute)
        self.value: tuple[str, Any] | None = None

    def admits(self, value: tuple[str, Any]) -> bool:
        return self.value is not None and value[0] != "" and value == self.value

    def record(self, request: str, value: tuple[str, Any]) -> None:
        if self.count == 0:
            self.value = value

    def forget(self, request: str) -> None:
        pass


class _DistinctAttribute(_AttributeConstraint):
    """``distinctAttributeConstraint``: the named requests' devices must all differ in one
    attribute.  Upstream remembers one value per request name (a request with several
    devices keeps only its latest) and forgets that entry on removal; both are kept."""

    __slots__ = ("values",)

    def __init__(self, requests: list[str], attribute: str) -> None:
        super().__init__(requests, attribute)
        self.values: dict[str, tuple[str, Any]] = {}

    def admits(self, value: tuple[str, Any]) -> bool:
        # Compared with each remembered value; an unknown type never passes a comparison.
        return not any(value[0] == "" or (seen[0] == value[0] and seen[1] == value[1])
                       for seen in self.values.values())

    def record(self, request: str, value: tuple[str, Any]) -> None:
        self.values[request] = value

    def forget(self, request: str) -> None:
        self.values.pop(request, None)


@dataclass(frozen=True)
class DraFeatures:
    """``structured.Features``: which optional allocator behaviours are on (from the gates)."""

    admin_access: bool = True
    prioritized_list: bool = True
    partitionable: bool = False
    device_taints: bool = False
    # DRADeviceBindingConditions and DRAResourceClaimDeviceStatus together.
    binding_conditions: bool = False
    consumable_capacity: bool = False

    @property
    def incubating(self) -> bool:
        """``NewAllocator`` picks the first variant supporting every enabled feature: binding
        conditions and consumable capacity need the incubating one (v1.36's default)."""
        return self.binding_conditions or self.consumable_capacity


class _MaxSizeExceeded(Exception):
    pass


@dataclass
class _ClaimPlan:
    claim: Dict
    requests: list[RequestData | list[RequestData]]
    constraints: list[tuple[list[str], str, bool]]  # requests, attribute, distinct


class Allocator:
    """Allocates a pod's unallocated claims node by node (one instance per scheduling cycle)."""

    def __init__(
        self,
        claims: list[Dict],
        classes: Mapping[str, Dict],
        slices: SliceIndex,
        allocated: AllocatedState | set[DeviceKey],
        skip_bad_pools: bool = True,
        features: DraFeatures | None = None,
    ) -> None:
        self.claims = claims
        # v1.35's allocators leave incomplete pools (a ResourceSliceCount not all published
        # yet) and invalid ones (duplicate device names) out of the device search; v1.34's
        # picked from incomplete pools for ExactCount requests (refusing them for "All" only)
        # and failed the whole allocation when the search reached an invalid pool.
        self.skip_bad_pools = skip_bad_pools
        self.features = features if features is not None else DraFeatures()
        # DRADeviceTaints (KEP-5055; on by default from v1.36): a device tainted NoSchedule
        # or NoExecute is allocated only to a request that tolerates the taint.
        self.device_taints = self.features.device_taints
        # DRAPrioritizedList and DRAAdminAccess (beta and on from v1.34, off in v1.33): with
        # the gate off a request using the feature is an error, as the allocator reports it.
        self.prioritized_list = self.features.prioritized_list
        self.admin_access = self.features.admin_access
        self.classes = classes
        self.slices = slices
        self.state = allocated if isinstance(allocated, AllocatedState) else AllocatedState(set(allocated))
        self.allocated = self.state.devices
        # Whether a device satisfies a request's class and request selectors does not
        # depend on the node, so the answer is kept for the whole cycle.
        self._selectable: dict[tuple[int, int, int, DeviceKey], bool] = {}
        self._plans: list[_ClaimPlan] | AllocationError | None = None
        # Counters left per pool once allocated devices took theirs, computed on first use
        # and kept for the cycle by pool name (``availableCounters`` upstream).
        self._available_counters: dict[str, dict[str, dict[str, Fraction]]] = {}
        self._variants: dict[str, Allocator] = {}

    def _variant(self, claims: list[Dict]) -> Allocator:
        import json

        key = json.dumps([c.get("spec") for c in claims], sort_keys=True, default=str)
        got = self._variants.get(key)
        if got is None:
            got = Allocator(claims, self.classes, self.slices, self.state, self.skip_bad_pools, self.features)
            got._available_counters = self._available_counters
            self._variants[key] = got
        return got

    def available_counters(self, pool: Pool) -> dict[str, dict[str, Fraction]]:
        got = self._available_counters.get(pool.name)
        if got is not None:
            return got
        avail = {name: dict(counters) for name, counters in pool.counter_sets.items()}
        for s in list(pool.slices) + list(pool.not_targeting):
            for d in s.devices:
                if not self.state.is_allocated(d.key):
                    continue
                for set_name, counters in d.consumes:
                    subtract_known(avail.get(set_name), counters)
        self._available_counters[pool.name] = avail
        return avail

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
            capacity=parse_requests(raw.get("capacity")),
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
                        if not self.features.consumable_capacity:
                            if (r.get("exactly") or {}).get("capacity") is not None:
                                raise AllocationError(
                                    f"claim {claim_key(claim)}, request {r.get('name') or ''}: has capacity requests, "
                                    "but the DRAConsumableCapacity feature is disabled"
                                )
                            for sub in r.get("firstAvailable") or []:
                                if sub.get("capacity") is not None:
                                    raise AllocationError(
                                        f"claim {claim_key(claim)}, subrequest {sub.get('name') or ''}: has capacity "
                                        "requests, but the DRAConsumableCapacity feature is disabled"
                                    )
                        if r.get("firstAvailable"):
                            reqs.append([self._request_data(claim, s, str(r.get("name") or "")) for s in r["firstAvailable"]])
                        else:
                            # The request's name sits beside its `exactly` block, not inside it.
                            exactly = {**(r.get("exactly") or {}), "name": r.get("name") or ""}
                            reqs.append(self._request_data(claim, exactly, None))
                    cons: list[tuple[list[str], str, bool]] = []
                    for i, c in enumerate(devices.get("constraints") or []):
                        names = [str(x) for x in c.get("requests") or []]
                        if c.get("matchAttribute"):
                            cons.append((names, str(c["matchAttribute"]), False))
                        elif c.get("distinctAttribute") and self.features.incubating:
                            # Only the incubating allocator knows distinctAttribute (KEP-5491).
                            cons.append((names, str(c["distinctAttribute"]), True))
                        else:
                            raise AllocationError(
                                f"claim {claim_key(claim)}, constraint #{i}: empty constraint (unsupported constraint type?)"
                            )
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
                ok = device_matches(prog, device.activation(self.features.consumable_capacity))
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
        if device.binding_conditions and not self.features.binding_conditions:
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

    def allocate(self, node_name: str, labels: Mapping[str, str],
                 claims: list[Dict] | None = None) -> list[AllocationResult] | None:
        """The claims' allocation on this node, None if they don't fit.

        ``claims`` replaces the cycle's claims for this node (the special claim for extended
        resources has per-node requests); allocators for such variants are kept by content.
        Raises AllocationError for problems that abort the whole cycle and
        NodeAllocationError for failures that only concern this node.
        """
        if claims is not None:
            return self._variant(claims).allocate(node_name, labels)
        plans = self._plan()
        pools = self.slices.search_pools_for(node_name, labels)
        run = _Run(self, plans, pools, node_name, labels)
        done = run.start()
        if not done:
            if self.skip_bad_pools and any(p.invalid for p in pools):
                raise NodeAllocationError("invalid resource pools were encountered")
            return None
        out: list[AllocationResult] = []
        for ci in range(len(plans)):
            devices = run.results[ci]
            out.append(AllocationResult(list(devices), _node_selector(devices, node_name)))
        return out


def _node_selector(devices: list[DeviceResult], node_name: str) -> Dict | None:
    """``createNodeSelector``: a node-local device (or one that binds to its node) pins the
    allocation to the node it was made for; slice or device node selectors are merged."""
    fields: list[Dict] = []
    exprs: list[Dict] = []
    for d in devices:
        s = d.slice
        if s is None:
            continue
        dev = d.device_obj
        if s.per_device and dev is not None:
            local, selector_raw = dev.node_name, dev.raw.get("nodeSelector")
        else:
            local, selector_raw = s.node_name, s.node_selector_raw
        if local or d.binds_to_node:
            return {"nodeSelectorTerms": [{"matchFields": [
                {"key": "metadata.name", "operator": "In", "values": [node_name]}]}]}
        terms = (selector_raw or {}).get("nodeSelectorTerms") or []
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

    def __init__(self, alloc: Allocator, plans: list[_ClaimPlan], pools: list[Pool], node_name: str = "",
                 labels: Mapping[str, str] | None = None) -> None:
        self.alloc = alloc
        self.plans = plans
        self.pools = pools
        self.node_name = node_name
        self.labels: Mapping[str, str] = labels or {}
        feats = alloc.features
        self.consumable = feats.consumable_capacity
        self.partitionable = feats.partitionable
        # Candidates in search order: devices of complete, valid pools, with their pool.
        self.candidates: list[Device] = []
        self.cand_pool: list[Pool] = []
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
                        self.cand_pool.append(p)
                continue
            for d in p.devices():
                self.candidates.append(d)
                self.cand_pool.append(p)
        self.pool_of = {d.key: p for d, p in zip(self.candidates, self.cand_pool, strict=True)}
        self.allocating: dict[DeviceKey, set[int]] = {}
        # Capacity taken by shares being allocated in this run (``allocatingCapacity``).
        self.allocating_capacity: dict[DeviceKey, Consumed] = {}
        # Counters taken by devices being allocated in this run, per pool name and set.
        self.consumed_counters: dict[str, dict[str, dict[str, Fraction]]] = {}
        self.results: list[list[DeviceResult]] = [[] for _ in plans]
        self.constraints: list[list[_AttributeConstraint]] = [
            [(_DistinctAttribute(r, a) if distinct else _MatchAttribute(r, a)) for r, a, distinct in plan.constraints]
            for plan in plans
        ]
        self.all_devices: dict[tuple[int, int, int], list[Device]] = {}
        self.selected_sub: dict[tuple[int, int], int] = {}
        self.shares = 0

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

    def node_selectable(self, d: Device) -> bool:
        """Per-device node selection, the last part of upstream's ``isSelectable``."""
        return not d.slice.per_device or d.matches_node(self.node_name, self.labels)

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
                if self.alloc.selectable((ci, ri, si), rd, d) and self.node_selectable(d):
                    if self.consumable and not self.capacity_fits(rd, d):
                        continue
                    found.append(d)
        self.all_devices[(ci, ri, si)] = found
        return len(found)

    def in_use(self, key: DeviceKey) -> bool:
        return key in self.alloc.allocated or bool(self.allocating.get(key))

    def capacity_fits(self, rd: RequestData, d: Device) -> bool:
        """``CmpRequestOverCapacity`` against what allocated and allocating shares consumed."""
        if rd.capacity is None and d.plain_capacity and d.key not in self.allocating_capacity \
                and d.key not in self.alloc.state.capacity:
            return True  # takes each capacity whole, with no policy and nothing taken: fits
        ok = request_fits(self.alloc.state.capacity.get(d.key), rd.capacity, d.capacity,
                          self.allocating_capacity.get(d.key))
        return bool(ok)

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
            if not self.node_selectable(d):
                continue
            cands.append(pos)
        # A candidate list that is too short cannot be completed, whatever the state (only
        # devices that allow multiple allocations can be taken again, and they never count
        # twice for one slot since each slot moves past the previous pick).
        if error is None and len(cands) < need - di:
            return False
        for pos in cands:
            d = self.candidates[pos]
            if self.consumable and not self.capacity_fits(rd, d):
                continue
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

    def _take_counters(self, d: Device) -> bool:
        """``checkAvailableCounters``: add the device's counters to what this run consumes
        and check every counter of its pool stays within what is left."""
        pool = self.pool_of.get(d.key)
        if pool is None:
            return False
        avail = self.alloc.available_counters(pool)
        used = self.consumed_counters.setdefault(pool.name, {})
        for set_name, counters in d.consumes:
            cs = used.setdefault(set_name, {})
            for c, q in counters.items():
                cs[c] = cs.get(c, Fraction(0)) + q
        for set_name, counters in avail.items():
            taken = used.get(set_name, {})
            for c, q in counters.items():
                if q < taken.get(c, Fraction(0)):
                    self._give_counters(d)
                    return False
        return True

    def _give_counters(self, d: Device) -> None:
        pool = self.pool_of.get(d.key)
        if pool is None:
            return
        used = self.consumed_counters.get(pool.name, {})
        for set_name, counters in d.consumes:
            cs = used.get(set_name, {})
            for c, q in counters.items():
                cs[c] = cs.get(c, Fraction(0)) - q

    def take(self, ci: int, rd: RequestData, d: Device, must: bool) -> Any:
        """``allocateDevice``: check availability, counters, taints and constraints, then
        record the device (and the capacity a share of it consumes)."""
        multi = self.consumable and d.allow_multiple
        if not multi and rd.admin_access and ci in self.allocating.get(d.key, ()):
            return None
        if not rd.admin_access and self.in_use(d.key):
            return None
        if d.consumes_counters and not self.partitionable:
            return None
        # A device shared already took its counters with its first share.
        shared_before = multi and (d.key in self.alloc.state.capacity or d.key in self.allocating_capacity)
        counters = False
        if not shared_before and d.consumes:
            if not self._take_counters(d):
                return None
            counters = True
        base = rd.parent if rd.parent is not None else rd.name
        sub = rd.name if rd.parent is not None else None
        cons = self.constraints[ci]

        def release(n_constraints: int, unmark: bool) -> None:
            """``rollbackDevice``: undo what was recorded so far, newest first."""
            if unmark:
                self.allocating[d.key].discard(ci)
            for c in reversed(cons[:n_constraints]):
                c.remove(base, sub)
            if counters:
                self._give_counters(d)

        if self.alloc.device_taints and taint_prevents_allocation(d.raw.get("taints"), rd.tolerations):
            release(0, False)
            return None
        for i, c in enumerate(cons):
            if not c.add(base, sub, d):
                release(i, False)
                if must:
                    raise AllocationError(
                        f"claim {claim_key(self.plans[ci].claim)}, request {rd.name}: cannot add device "
                        f"{'/'.join(d.key)} because a claim constraint would not be satisfied"
                    )
                return None
        marked = not multi
        if marked:
            self.allocating.setdefault(d.key, set()).add(ci)
        consumed: Consumed | None = None
        share_id: str | None = None
        had_entry = False
        if self.consumable:
            if not self.capacity_fits(rd, d):
                release(len(cons), marked)
                return None
            if multi:
                consumed = consumed_by_request(rd.capacity, d.capacity)
                self.shares += 1
                share_id = _share_id(self.plans[ci].claim, rd.full_name, d.key, self.shares)
                had_entry = d.key in self.allocating_capacity
                add_consumed(self.allocating_capacity, d.key, consumed)
        results = self.results[ci]
        before = len(results)
        results.append(DeviceResult(
            rd.full_name, d.key[0], d.key[1], d.key[2], rd.admin_access, d.slice,
            share_id=share_id, consumed=consumed or None, tolerations=list(rd.tolerations),
            binding_conditions=[str(x) for x in d.raw.get("bindingConditions") or []]
            if self.alloc.features.binding_conditions else [],
            binding_failure_conditions=[str(x) for x in d.raw.get("bindingFailureConditions") or []]
            if self.alloc.features.binding_conditions else [],
            binds_to_node=d.binds_to_node and self.alloc.features.binding_conditions,
            device_obj=d,
        ))

        def undo() -> None:
            del results[before:]
            if consumed is not None:
                remove_consumed(self.allocating_capacity, d.key, consumed)
                if had_entry and d.key not in self.allocating_capacity:
                    self.allocating_capacity[d.key] = {}
            release(len(cons), marked)

        return undo


def _share_id(claim: Mapping[str, Any], request: str, key: DeviceKey, n: int) -> str:
    """A share's ID: upstream draws a random UUID; a digest keeps runs repeatable."""
    import hashlib

    h = hashlib.sha256(f"{claim_key(claim)}/{request}/{'/'.join(key)}/{n}".encode()).hexdigest()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


def allocated_state(claims: Iterable[Mapping[str, Any]], consumable: bool) -> AllocatedState:
    """``GatherAllocatedState`` over the cluster's claims (``foreachAllocatedDevice``):
    admin-access results don't make a device busy; with consumable capacity a result with
    a shareID is a share (its consumed capacity aggregated per device), without it every
    result holds its device whole."""
    state = AllocatedState()
    for _claim, key, r in allocation_results(claims):
        if consumable and r.get("shareID") is not None:
            state.shared.add(key)
            raw = r.get("consumedCapacity")
            if raw is not None:
                amounts: Consumed = {}
                for name, q in (raw or {}).items():
                    try:
                        amounts[str(name)] = parse_quantity(q)
                    except (QuantityError, TypeError, ValueError):
                        amounts[str(name)] = Fraction(0)
                add_consumed(state.capacity, key, amounts)
            continue
        state.devices.add(key)
    return state


def allocation_results(claims: Iterable[Mapping[str, Any]]) -> Iterable[tuple[Mapping[str, Any], DeviceKey, Dict]]:
    """Every device result of the allocated claims, with its claim; admin-access results
    are left out (they never make a device busy)."""
    for claim in claims:
        alloc = (claim.get("status") or {}).get("allocation")
        if not alloc:
            continue
        for r in (alloc.get("devices") or {}).get("results") or []:
            if r.get("adminAccess"):
                continue
            yield claim, (str(r.get("driver") or ""), str(r.get("pool") or ""), str(r.get("device") or "")), r


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

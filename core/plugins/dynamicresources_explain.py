"""Why not this device: every candidate device on one node, per claim and request.

Upstream's Filter says only "cannot allocate all claims".  For ``--node NODE`` this walks
the devices the node can reach for each request of the pod's unallocated claims and says,
device by device, what rules it out on its own — a selector that is false (with the
expression and the attribute values it saw), a holder claim, counters or capacity already
taken (needed against left), an untolerated taint, binding conditions without their gate,
per-device node selection, a pool being updated — or that it was picked, or would do
alone but not together with the other requests (constraints, competition).  It reuses the
allocator's own checks and never changes the verdict.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from kschedx.core.plugins.dynamicresources_allocator import (
    AllocationError,
    AllocationResult,
    Allocator,
    Device,
    DeviceKey,
    Pool,
    RequestData,
    allocation_results,
    claim_key,
    taint_prevents_allocation,
)
from kschedx.core.plugins.dynamicresources_capacity import consumed_capacity, format_quantity, violates_policy

Dict = dict[str, Any]

# device.attributes["domain"].name, device.attributes["domain"]["name"], same for capacity.
_REFERENCE = re.compile(r'device\.(attributes|capacity)\["([^"]+)"\](?:\.(\w+)|\["([^"]+)"\])')


def _seen(expr: str, device: Device) -> str:
    """The attribute and capacity values an expression reads, as the device has them."""
    parts: list[str] = []
    for kind, domain, dotted, indexed in _REFERENCE.findall(expr):
        name = dotted or indexed
        qualified = f"{domain}/{name}"
        if kind == "attributes":
            val = device.attribute(qualified)
            shown = "absent" if val is None else f'"{val[1]}"' if val[0] == "string" else str(val[1])
        else:
            raw = (device.raw.get("capacity") or {})
            cap = raw.get(qualified) or (raw.get(name) if domain == device.key[0] else None)
            shown = "absent" if not cap else str(cap.get("value"))
        entry = f"{qualified}={shown}"
        if entry not in parts:
            parts.append(entry)
    return ", ".join(parts)


def _selector_problem(alloc: Allocator, ci: int, device: Device, where: str, selectors: list[Dict]) -> str | None:
    for i, sel in enumerate(selectors):
        expr = str(((sel or {}).get("cel") or {}).get("expression") or "")
        try:
            ok = alloc._selectors_match(ci, device, None, [sel])
        except AllocationError as e:
            return f"{where} selector #{i} errs: {e}"
        if not ok:
            seen = _seen(expr, device)
            return f"{where} selector #{i} is false: {expr}" + (f" (saw {seen})" if seen else "")
    return None


def _counter_problem(alloc: Allocator, pool: Pool, device: Device) -> str | None:
    if not device.consumes:
        return None
    left = alloc.available_counters(pool)
    short: list[str] = []
    for set_name, counters in device.consumes:
        have = left.get(set_name, {})
        for c, need in counters.items():
            if have.get(c, Fraction(0)) < need:
                short.append(f"counter set {set_name} {c}: needs {format_quantity(need)}, "
                             f"{format_quantity(max(have.get(c, Fraction(0)), Fraction(0)))} left")
    # Upstream checks every counter of the pool once a device consumes any.
    if not short:
        for set_name, counters in left.items():
            for c, q in counters.items():
                if q < 0:
                    short.append(f"counter set {set_name} {c} is overdrawn by allocated devices")
    return "counters exhausted: " + "; ".join(short) if short else None


def _capacity_problem(alloc: Allocator, rd: RequestData, device: Device) -> str | None:
    taken = alloc.state.capacity.get(device.key, {})
    for name, cap in device.capacity.items():
        if rd.capacity and any(n not in device.capacity for n in rd.capacity):
            missing = [n for n in rd.capacity if n not in device.capacity]
            return f"the request asks for capacity {', '.join(missing)}, which the device does not have"
        used = consumed_capacity(rd.capacity.get(name) if rd.capacity else None, cap)
        if violates_policy(used, cap.policy):
            return f"capacity {name}: {format_quantity(used)} is outside the device's request policy"
        left = cap.value - taken.get(name, Fraction(0))
        if used > left:
            return (f"capacity {name} exhausted: needs {format_quantity(used)}, {format_quantity(max(left, Fraction(0)))}"
                    f" left of {format_quantity(cap.value)}")
    return None


def alone_problem(alloc: Allocator, ci: int, rd: RequestData, pool: Pool, device: Device, node: str,
                  labels: Mapping[str, str], holders: Mapping[DeviceKey, list[str]]) -> str | None:
    """What rules the device out for this request on its own, or None."""
    feats = alloc.features
    if device.binding_conditions and not feats.binding_conditions:
        return "has binding conditions, and DRADeviceBindingConditions is off"
    if pool.incomplete:
        return f"resource pool {pool.pool_id} is being updated (not all of its slices are published)"
    if pool.invalid:
        return f"resource pool {pool.pool_id} is invalid: {pool.invalid_reason}"
    if rd.class_obj is not None:
        p = _selector_problem(alloc, ci, device, f"class {rd.class_name}",
                              list(((rd.class_obj.get("spec") or {}).get("selectors")) or []))
        if p:
            return p
    p = _selector_problem(alloc, ci, device, "request", rd.selectors)
    if p:
        return p
    if device.slice.per_device and not device.matches_node(node, labels):
        return "its per-device node selection does not include this node"
    if not rd.admin_access and device.key in alloc.state.devices:
        owners = holders.get(device.key) or []
        return "already allocated" + (f" to claim {', '.join(owners)}" if owners else "")
    if device.consumes_counters and not feats.partitionable:
        return "consumes shared counters, and DRAPartitionableDevices is off"
    shared_before = feats.consumable_capacity and device.allow_multiple and device.key in alloc.state.capacity
    if feats.partitionable and not shared_before:
        p = _counter_problem(alloc, pool, device)
        if p:
            return p
    if feats.consumable_capacity:
        p = _capacity_problem(alloc, rd, device)
        if p:
            return p
    if feats.device_taints and taint_prevents_allocation(device.raw.get("taints"), rd.tolerations):
        taints = [f"{t.get('key')}{'=' + str(t['value']) if t.get('value') else ''}:{t.get('effect')}"
                  for t in device.raw.get("taints") or [] if t.get("effect") in ("NoSchedule", "NoExecute")]
        return f"taint {', '.join(taints)} not tolerated by the request"
    return None


def explain_node(alloc: Allocator, node_name: str, labels: Mapping[str, str]) -> list[str]:
    """Why the claims don't fit on this node, request by request: no device matches the
    class and selectors, the matching ones are allocated already, too few are free — or,
    when each request alone could be met, that they can't be met together."""
    try:
        plans = alloc._plan()
    except AllocationError as e:
        return [str(e)]
    pools = alloc.slices.pools_for(node_name, labels)
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
                    matching = [(pool, d) for pool in pools for d in pool.devices()
                                if alloc.selectable((ci, ri, si), rd, d)]
                except AllocationError as e:
                    notes.append(str(e))
                    continue
                # What rules a matching device out on its own: held by a claim, counters,
                # capacity, a taint, per-device node selection (dynamicresources_explain).
                problems = [(d, alone_problem(alloc, ci, rd, pool, d, node_name, labels, {})) for pool, d in matching]
                free = [d for d, why in problems if why is None]
                need = len(matching) if rd.all_mode else rd.count
                if rd.all_mode and matching and len(free) == len(matching) or not rd.all_mode and len(free) >= need:
                    met = True
                    break
                if not matching:
                    notes.append(f"request {rd.full_name}: no device on this node matches its class and selectors")
                elif not free and all(d.key in alloc.allocated for d, _ in problems):
                    notes.append(f"request {rd.full_name}: {len(matching)} matching device(s), all allocated to "
                                 "other claims")
                elif not free:
                    d, why = next((d, w) for d, w in problems if d.key not in alloc.allocated)
                    notes.append(f"request {rd.full_name}: {len(matching)} matching device(s), none usable here "
                                 f"({d.name}: {why})")
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


def device_candidates(alloc: Allocator, node: str, labels: Mapping[str, str],
                      picked: list[AllocationResult] | None,
                      holders: Mapping[DeviceKey, list[str]]) -> list[Dict]:
    """One entry per (claim, request or subrequest, device the node reaches): ``picked``, or
    ``why`` it was not."""
    try:
        plans = alloc._plan()
    except AllocationError as e:
        return [{"claim": "", "request": "", "device": "", "picked": False, "why": str(e)}]
    pools = alloc.slices.pools_for(node, labels)
    chosen: set[tuple[int, str, DeviceKey]] = set()
    for ci, res in enumerate(picked or []):
        for d in res.devices:
            chosen.add((ci, d.request, (d.driver, d.pool, d.device)))
    out: list[Dict] = []
    for ci, plan in enumerate(plans):
        ck = claim_key(plan.claim)
        constraints = [(names, attr) for names, attr, _distinct in plan.constraints]
        for req in plan.requests:
            for rd in req if isinstance(req, list) else [req]:
                for pool in pools:
                    for device in pool.devices():
                        entry: Dict = {"claim": ck, "request": rd.full_name, "device": "/".join(device.key)}
                        if (ci, rd.full_name, device.key) in chosen:
                            entry["picked"] = True
                            out.append(entry)
                            continue
                        why = alone_problem(alloc, ci, rd, pool, device, node, labels, holders)
                        if why is None:
                            base = rd.parent or rd.name
                            lacking = [a for names, a in constraints
                                       if (not names or base in names or rd.full_name in names)
                                       and device.attribute(a) is None]
                            if lacking:
                                why = f"lacks attribute {', '.join(lacking)}, which a claim constraint matches on"
                            elif picked is not None:
                                why = "usable, but not needed: the request was met with other devices"
                            else:
                                why = ("usable alone, but not together with the claims' other requests (a "
                                       "constraint, counters or capacity they share, or devices they compete for)")
                        entry["picked"] = False
                        entry["why"] = why
                        out.append(entry)
    return out


def holders_of(claims: list[Dict]) -> dict[DeviceKey, list[str]]:
    """Which allocated claims hold each device (admin access results hold nothing)."""
    out: dict[DeviceKey, list[str]] = {}
    for c, key, _result in allocation_results(claims):
        out.setdefault(key, []).append(claim_key(c))
    return out


def render(entries: list[Dict]) -> list[str]:
    """Text lines: one per device, grouped by claim and request."""
    lines: list[str] = []
    for e in entries:
        if not e["device"]:
            lines.append(str(e["why"]))
            continue
        state = "picked" if e["picked"] else f"not picked: {e['why']}"
        lines.append(f"claim {e['claim']}, request {e['request']}: device {e['device']} {state}")
    return lines

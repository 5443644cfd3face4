"""Consumable device capacity (KEP-5075, DRAConsumableCapacity; beta and on from v1.36).

A device with ``allowMultipleAllocations`` may be handed to several claims at once; each
allocation then consumes part of the device's ``capacity`` entries, as the request's
``capacity.requests`` ask, rounded up by the capacity's ``requestPolicy``.  These are pure
functions over exact quantities (Fractions), following the incubating allocator's
``consumable_capacity.go`` in k8s.io/dynamic-resource-allocation/structured:
``calculateConsumedCapacity``, ``violatesPolicy``, ``CmpRequestOverCapacity``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from kschedx.core.api.quantity import QuantityError, parse_quantity

Consumed = dict[str, Fraction]


def _q(raw: Any) -> Fraction | None:
    if raw is None:
        return None
    try:
        return parse_quantity(raw)
    except (QuantityError, TypeError, ValueError):
        return None


def _go_value(q: Fraction) -> int:
    """Go's ``Quantity.Value()``: the integer value, rounded up."""
    return -((-q.numerator) // q.denominator)


@dataclass(frozen=True)
class Policy:
    """A capacity's ``requestPolicy``: a default, then either a valid range or valid values."""

    default: Fraction | None = None
    range_min: Fraction | None = None
    range_max: Fraction | None = None
    range_step: Fraction | None = None
    has_range: bool = False
    valid_values: tuple[Fraction, ...] = ()


@dataclass(frozen=True)
class DeviceCapacity:
    value: Fraction
    policy: Policy | None


def parse_capacity(raw: Mapping[str, Any] | None) -> dict[str, DeviceCapacity]:
    """A device's ``capacity`` map; unparsable values count as zero (the API server rejects them)."""
    out: dict[str, DeviceCapacity] = {}
    for name, cap in (raw or {}).items():
        if not isinstance(cap, Mapping):
            continue
        value = _q(cap.get("value")) or Fraction(0)
        pol = cap.get("requestPolicy")
        policy: Policy | None = None
        if isinstance(pol, Mapping):
            rng = pol.get("validRange")
            if isinstance(rng, Mapping):
                policy = Policy(default=_q(pol.get("default")), range_min=_q(rng.get("min")),
                                range_max=_q(rng.get("max")), range_step=_q(rng.get("step")), has_range=True)
            else:
                values = tuple(v for v in (_q(x) for x in pol.get("validValues") or []) if v is not None)
                policy = Policy(default=_q(pol.get("default")), valid_values=values)
        out[str(name)] = DeviceCapacity(value, policy)
    return out


def parse_requests(raw: Mapping[str, Any] | None) -> dict[str, Fraction] | None:
    """A request's ``capacity.requests`` (None when the request has no capacity block)."""
    if not isinstance(raw, Mapping):
        return None
    reqs = raw.get("requests")
    if not isinstance(reqs, Mapping):
        return {}
    return {str(k): _q(v) or Fraction(0) for k, v in reqs.items()}


def consumed_capacity(requested: Fraction | None, cap: DeviceCapacity) -> Fraction:
    """``calculateConsumedCapacity``: what one allocation takes of one capacity entry."""
    pol = cap.policy
    if requested is None:
        # fillEmptyRequest: the policy's default, else the whole capacity.
        if pol is not None and pol.default is not None:
            return pol.default
        return cap.value
    if pol is None:
        return requested
    if pol.has_range and pol.range_min is not None:
        return _round_up_range(requested, pol)
    if pol.valid_values:
        for v in pol.valid_values:
            if requested <= v:
                return v
    return requested


def _round_up_range(requested: Fraction, pol: Policy) -> Fraction:
    assert pol.range_min is not None
    if requested < pol.range_min:
        return pol.range_min
    if pol.range_step is None:
        return requested
    step = _go_value(pol.range_step)
    low = _go_value(pol.range_min)
    added = _go_value(requested) - low
    n = added // step if added >= 0 else -((-added) // step)
    if added - n * step != 0:
        n += 1
    return Fraction(low + step * n)


def violates_policy(value: Fraction, pol: Policy | None) -> bool:
    """``violatesPolicy``: the consumed amount is outside the policy's range or values."""
    if pol is None:
        return False
    if pol.default is not None and value == pol.default:
        return False
    if pol.has_range:
        if pol.range_max is not None and value > pol.range_max:
            return True
        if pol.range_step is not None and pol.range_min is not None:
            step = _go_value(pol.range_step)
            added = _go_value(value) - _go_value(pol.range_min)
            # Go's % keeps the dividend's sign; only zero matters here.
            if step != 0 and added % step != 0:
                return True
        return False
    if pol.valid_values:
        return not any(value == v for v in pol.valid_values)
    return False


def request_fits(current: Mapping[str, Fraction] | None, requests: Mapping[str, Fraction] | None,
                 capacity: Mapping[str, DeviceCapacity], allocating: Mapping[str, Fraction] | None) -> bool | None:
    """``CmpRequestOverCapacity``: True when the request fits what the device has left, False
    when it does not or violates a request policy, None (upstream's error) when it asks for a
    capacity the device does not have."""
    if requests:
        for name in requests:
            if name not in capacity:
                return None
    for name, cap in capacity.items():
        used = consumed_capacity(requests.get(name) if requests else None, cap)
        if violates_policy(used, cap.policy):
            return False
        total = used + (current or {}).get(name, Fraction(0)) + (allocating or {}).get(name, Fraction(0))
        if total > cap.value:
            return False
    return True


def consumed_by_request(requests: Mapping[str, Fraction] | None, capacity: Mapping[str, DeviceCapacity]) -> Consumed:
    """``GetConsumedCapacityFromRequest``: every capacity entry of the device, as one share takes it."""
    return {name: consumed_capacity(requests.get(name) if requests else None, cap) for name, cap in capacity.items()}


def add_consumed(into: dict[Any, Consumed], key: Any, amounts: Mapping[str, Fraction]) -> None:
    """``ConsumedCapacityCollection.Insert``."""
    entry = into.get(key)
    if entry is None:
        into[key] = dict(amounts)
        return
    for name, q in amounts.items():
        entry[name] = entry.get(name, Fraction(0)) + q


def remove_consumed(into: dict[Any, Consumed], key: Any, amounts: Mapping[str, Fraction]) -> None:
    """``ConsumedCapacityCollection.Remove``: the entry goes once every amount in it is zero."""
    entry = into.get(key)
    if entry is None:
        return
    subtract_known(entry, amounts)
    if all(v == 0 for v in entry.values()):
        del into[key]


def subtract_known(entry: dict[str, Fraction] | None, amounts: Mapping[str, Fraction]) -> None:
    """Take each amount off the entry's same-named one; names the entry lacks are ignored."""
    if entry is None:
        return
    for name, q in amounts.items():
        if name in entry:
            entry[name] -= q


def format_quantity(q: Fraction) -> str:
    """A consumed amount as the API server would print it (integers plainly, else in milli units)."""
    if q.denominator == 1:
        n = int(q)
        for suffix, size in (("Ti", 1 << 40), ("Gi", 1 << 30), ("Mi", 1 << 20), ("Ki", 1 << 10)):
            if n and n % size == 0:
                return f"{n // size}{suffix}"
        return str(n)
    return f"{_go_value(q * 1000)}m"

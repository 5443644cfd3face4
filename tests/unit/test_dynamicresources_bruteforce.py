"""The v1.36 allocator against a brute-force search over small device sets.

Upstream's ``allocateOne`` is a depth-first search: requests in order, each request's
devices as an increasing sequence of candidate positions, the first complete solution
wins.  The brute force below enumerates exactly those sequences (``itertools.combinations``
yields them in the same lexicographic order) and checks each full assignment against the
rules as a whole: devices held or taken twice, shared counters of a pool (every counter of
the pool must stay covered once a device of it consumes any), consumable capacity of shared
devices (a device shared before takes no counters again).  Both must pick the same devices.
"""

from __future__ import annotations

import itertools
import random
from fractions import Fraction
from typing import Any

from kschedx.core.plugins.dynamicresources_allocator import (
    AllocatedState,
    Allocator,
    DraFeatures,
    SliceIndex,
)
from kschedx.core.plugins.dynamicresources_capacity import consumed_by_request, parse_capacity, request_fits

Dict = dict[str, Any]
DRIVER = "gpu.example.com"
FEATURES = DraFeatures(partitionable=True, device_taints=True, binding_conditions=True, consumable_capacity=True)


def scenario(rng: random.Random) -> tuple[list[Dict], Dict, AllocatedState, list[tuple[int, str, dict[str, int] | None]]]:
    n = rng.randint(2, 5)
    counters = {"mem": rng.choice([4, 6, 8]), "sm": rng.choice([2, 3, 4])}
    devices: list[Dict] = []
    for i in range(n):
        d: Dict = {"name": f"d{i}", "attributes": {"kind": {"string": rng.choice(["a", "b"])}}}
        if rng.random() < 0.6:
            d["consumesCounters"] = [{"counterSet": "set", "counters": {
                "mem": {"value": str(rng.randint(1, 4))}, "sm": {"value": str(rng.randint(0, 2))}}}]
        if rng.random() < 0.4:
            d["allowMultipleAllocations"] = True
            d["capacity"] = {"bw": {"value": str(rng.choice([4, 8, 10]))}}
        devices.append(d)
    slices = [
        {"kind": "ResourceSlice", "metadata": {"name": "c"}, "spec": {
            "driver": DRIVER, "nodeName": "n", "pool": {"name": "p", "generation": 1, "resourceSliceCount": 2},
            "sharedCounters": [{"name": "set", "counters": {k: {"value": str(v)} for k, v in counters.items()}}]}},
        {"kind": "ResourceSlice", "metadata": {"name": "d"}, "spec": {
            "driver": DRIVER, "nodeName": "n", "pool": {"name": "p", "generation": 1, "resourceSliceCount": 2},
            "devices": devices}},
    ]
    state = AllocatedState()
    for d in devices:
        key = (DRIVER, "p", d["name"])
        r = rng.random()
        if r < 0.15 and not d.get("allowMultipleAllocations"):
            state.devices.add(key)
        elif r < 0.35 and d.get("allowMultipleAllocations"):
            state.shared.add(key)
            state.capacity[key] = {"bw": Fraction(rng.randint(1, 4))}
    requests: list[tuple[int, str, dict[str, int] | None]] = []
    for _ in range(rng.randint(1, 2)):
        cap = {"bw": rng.randint(1, 5)} if rng.random() < 0.5 else None
        requests.append((rng.randint(1, 2), rng.choice(["a", "b", "*"]), cap))
    claim: Dict = {"metadata": {"name": "c", "namespace": "default"}, "spec": {"devices": {"requests": [
        {"name": f"r{i}", "exactly": {
            "deviceClassName": "cls", "count": count,
            **({"selectors": [{"cel": {"expression": f'device.attributes["{DRIVER}"].kind == "{kind}"'}}]}
               if kind != "*" else {}),
            **({"capacity": {"requests": {k: str(v) for k, v in cap.items()}}} if cap else {}),
        }} for i, (count, kind, cap) in enumerate(requests)]}}}
    return slices, claim, state, requests


def brute_force(slices: list[Dict], state: AllocatedState,
                requests: list[tuple[int, str, dict[str, int] | None]]) -> list[str] | None:
    devices = slices[1]["spec"]["devices"]
    total = {k: Fraction(v["value"]) for k, v in slices[0]["spec"]["sharedCounters"][0]["counters"].items()}
    avail = dict(total)
    for d in devices:
        if state.is_allocated((DRIVER, "p", d["name"])):
            for c in d.get("consumesCounters") or []:
                for k, v in c["counters"].items():
                    avail[k] -= Fraction(v["value"])

    def options(kind: str) -> list[int]:
        return [i for i, d in enumerate(devices) if kind == "*" or d["attributes"]["kind"]["string"] == kind]

    def valid(picks: list[tuple[int, dict[str, int] | None]]) -> bool:
        taken: set[int] = set()
        shares: dict[int, dict[str, Fraction]] = {}
        counted: set[int] = set()
        used = {k: Fraction(0) for k in total}
        checks = False
        for i, cap in picks:
            d = devices[i]
            key = (DRIVER, "p", d["name"])
            multi = bool(d.get("allowMultipleAllocations"))
            if key in state.devices or (not multi and i in taken):
                return False
            taken.add(i)
            capacity = parse_capacity(d.get("capacity"))
            reqs = {k: Fraction(v) for k, v in cap.items()} if cap else None
            before = shares.get(i, {})
            if not request_fits(state.capacity.get(key), reqs, capacity, before):
                return False
            if multi:
                for k, v in consumed_by_request(reqs, capacity).items():
                    before[k] = before.get(k, Fraction(0)) + v
                shares[i] = before
            skip = multi and (key in state.capacity or i in counted)
            if d.get("consumesCounters") and not skip:
                counted.add(i)
                checks = True
                for c in d["consumesCounters"]:
                    for k, v in c["counters"].items():
                        used[k] += Fraction(v["value"])
        return not checks or all(avail[k] >= used[k] for k in total)

    def search(ri: int, picks: list[tuple[int, dict[str, int] | None]]) -> list[int] | None:
        if ri == len(requests):
            return [i for i, _ in picks] if valid(picks) else None
        count, kind, cap = requests[ri]
        for combo in itertools.combinations(options(kind), count):
            got = search(ri + 1, picks + [(i, cap) for i in combo])
            if got is not None:
                return got
        return None

    found = search(0, [])
    return None if found is None else [devices[i]["name"] for i in found]


def test_allocator_picks_what_brute_force_picks() -> None:
    rng = random.Random(30)
    classes = {"cls": {"metadata": {"name": "cls"}, "spec": {}}}
    solved = 0
    for _ in range(400):
        slices, claim, state, requests = scenario(rng)
        alloc = Allocator([claim], classes, SliceIndex(slices, partitionable=True, sort=True), state,
                          features=FEATURES)
        got = alloc.allocate("n", {})
        picked = None if got is None else [d.device for d in got[0].devices]
        assert picked == brute_force(slices, state, requests), (slices, claim, state)
        solved += picked is not None
    assert 50 < solved < 350  # both outcomes are exercised

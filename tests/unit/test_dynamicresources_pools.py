"""Pools shared across nodes give the allocator the same answers as pools gathered per node.

Upstream's ``GatherPools`` gives every node every counter slice of the cluster (and every
allNodes slice), so each node sees each partitioned node's pool as one without devices for
it: it never yields a device, but an invalid or incomplete one still matters (a request
for "All" devices fails on it, and a failed search with an invalid pool in sight is
``ErrFailedAllocationOnNode``).  ``SliceIndex`` builds the pools every node sees alike once
and leaves the complete, valid ones without devices out of the search; with
``share_pools=False`` it gathers and builds each node's pools from scratch and searches
them all.  Random clusters (partitioned nodes with their
counter slices apart, invalid and incomplete pools, outdated generations, allNodes,
nodeSelector and per-device slices, binding conditions, allocated devices) and several
claim shapes must get the same verdict and the same devices on every node both ways.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from kschedx.core.plugins.dynamicresources_allocator import (
    AllocatedState,
    AllocationError,
    Allocator,
    DraFeatures,
    NodeAllocationError,
    Pool,
    SliceIndex,
)

Dict = dict[str, Any]
DRIVER = "gpu.example.com"
NET = "net.example.com"
INCUBATING = DraFeatures(partitionable=True, device_taints=True, binding_conditions=True, consumable_capacity=True)
STABLE_PARTITIONABLE = DraFeatures(partitionable=True)
CLASSES = {"gpu": {"metadata": {"name": "gpu"}, "spec": {"selectors": [
    {"cel": {"expression": f'device.driver == "{DRIVER}"'}}]}},
    "any": {"metadata": {"name": "any"}, "spec": {}}}
NODES = [(f"n{i}", {"zone": "a" if i % 2 else "b"}) for i in range(6)]


def slice_(name: str, driver: str, pool: str, count: int, generation: int = 1, **spec: Any) -> Dict:
    return {"kind": "ResourceSlice", "metadata": {"name": name}, "spec": {
        "driver": driver, "pool": {"name": pool, "generation": generation, "resourceSliceCount": count}, **spec}}


def gpu(rng: random.Random, name: str, counter_set: str | None) -> Dict:
    d: Dict = {"name": name, "attributes": {"model": {"string": rng.choice(["a", "b"])}}}
    if counter_set is not None:
        d["consumesCounters"] = [{"counterSet": counter_set, "counters": {
            "mem": {"value": str(rng.choice([20, 40, 60]))}}}]
    if rng.random() < 0.1:
        d["bindingConditions"] = ["ready"]
        d["bindingFailureConditions"] = ["failed"]
    return d


def node_slices(rng: random.Random, node: str) -> list[Dict]:
    """One node's pool: plain devices, or partitions whose counters stand in a slice of their
    own; now and then broken (a missing counter set, a duplicate counter set or device name,
    a slice not yet published) or replaced by a newer generation."""
    shape = rng.choice(["plain", "partitioned", "partitioned", "bad-counter", "dup-set", "dup-device",
                        "incomplete", "newer"])
    devices = [gpu(rng, f"g{i}", None) for i in range(rng.randint(1, 3))]
    if shape == "plain":
        return [slice_(f"{node}-dev", DRIVER, node, 1, nodeName=node, devices=devices)]
    if shape == "dup-device":
        return [slice_(f"{node}-dev", DRIVER, node, 1, nodeName=node, devices=devices + [dict(devices[0])])]
    parts = [gpu(rng, f"p{i}", "missing" if shape == "bad-counter" and i == 0 else "cs") for i in range(rng.randint(1, 3))]
    sets = [{"name": "cs", "counters": {"mem": {"value": str(rng.choice([40, 80]))}}}]
    if shape == "dup-set":
        sets.append(dict(sets[0]))
    count = 3 if shape == "incomplete" else 2
    out = [slice_(f"{node}-dev", DRIVER, node, count, nodeName=node, devices=devices + parts),
           slice_(f"{node}-counters", DRIVER, node, count, nodeName=node, sharedCounters=sets)]
    if shape == "newer":
        # A newer generation of the counters only: the old one is obsolete everywhere.
        out.append(slice_(f"{node}-counters-2", DRIVER, node, 2, generation=2, nodeName=node, sharedCounters=sets))
    return out


def cluster(rng: random.Random) -> list[Dict]:
    slices: list[Dict] = []
    for name, _labels in NODES:
        slices += node_slices(rng, name)
    if rng.random() < 0.6:  # fabric-attached devices every node reaches, some more for one node
        local = rng.random() < 0.5
        slices.append(slice_("fabric", NET, "fabric", 2 if local else 1, allNodes=True,
                             devices=[gpu(rng, f"f{i}", None) for i in range(2)]))
        if local:
            slices.append(slice_("fabric-n2", NET, "fabric", 2, nodeName="n2", devices=[gpu(rng, "f9", None)]))
    if rng.random() < 0.5:  # a zone's shared pool, with its counters apart
        slices.append(slice_("zone-a", DRIVER, "zone-a", 2, nodeSelector={"nodeSelectorTerms": [{"matchExpressions": [
            {"key": "zone", "operator": "In", "values": ["a"]}]}]}, devices=[gpu(rng, "z0", "zc"), gpu(rng, "z1", "zc")]))
        slices.append(slice_("zone-a-counters", DRIVER, "zone-a", 2, allNodes=True,
                             sharedCounters=[{"name": "zc", "counters": {"mem": {"value": "60"}}}]))
    if rng.random() < 0.5:  # per-device node selection
        slices.append(slice_("per-device", DRIVER, "rack", 1, perDeviceNodeSelection=True, devices=[
            {**gpu(rng, "r0", None), "nodeName": "n1"},
            {**gpu(rng, "r1", None), "nodeSelector": {"nodeSelectorTerms": [{"matchExpressions": [
                {"key": "zone", "operator": "In", "values": ["b"]}]}]}}]))
    rng.shuffle(slices)
    return slices


def claim_of(rng: random.Random) -> Dict:
    shape = rng.choice(["exact", "exact", "exact2", "all", "first-available", "many"])
    model = rng.choice(["a", "b", None])
    sel = [{"cel": {"expression": f'device.attributes["{DRIVER}"].model == "{model}"'}}] if model else []
    if shape == "all":
        req: Dict = {"name": "r", "exactly": {"deviceClassName": "gpu", "allocationMode": "All", "selectors": sel}}
    elif shape == "first-available":
        req = {"name": "r", "firstAvailable": [
            {"name": "big", "deviceClassName": "gpu", "count": 3, "selectors": sel},
            {"name": "one", "deviceClassName": "any", "count": 1}]}
    else:
        count = {"exact": 1, "exact2": 2, "many": 4}[shape]
        req = {"name": "r", "exactly": {"deviceClassName": rng.choice(["gpu", "any"]), "count": count, "selectors": sel}}
    return {"metadata": {"name": "c", "namespace": "ml"}, "spec": {"devices": {"requests": [req]}}}


def held(rng: random.Random, slices: list[Dict]) -> AllocatedState:
    state = AllocatedState()
    for s in slices:
        spec = s["spec"]
        for d in spec.get("devices") or []:
            if rng.random() < 0.25:
                state.devices.add((spec["driver"], spec["pool"]["name"], d["name"]))
    return state


def verdict(alloc: Allocator, node: str, labels: dict[str, str]) -> tuple[str, Any]:
    try:
        got = alloc.allocate(node, labels)
    except NodeAllocationError as e:
        return "node-error", str(e)
    except AllocationError as e:
        return "error", str(e)
    if got is None:
        return "unschedulable", None
    return "allocated", [r.to_json() for r in got]


def pool_view(p: Pool) -> tuple[Any, ...]:
    return (p.pool_id, p.incomplete, p.invalid, p.invalid_reason, [s.name for s in p.slices],
            sorted(s.name for s in p.not_targeting), p.counter_sets, p.has_binding_conditions)


@pytest.mark.parametrize("features,skip_bad_pools", [(INCUBATING, True), (STABLE_PARTITIONABLE, True),
                                                     (STABLE_PARTITIONABLE, False)])
def test_shared_pools_give_every_node_the_same_answer(features: DraFeatures, skip_bad_pools: bool) -> None:
    rng = random.Random(3030)
    outcomes: set[str] = set()
    for _ in range(150):
        slices = cluster(rng)
        claim = claim_of(rng)
        state = held(rng, slices)
        sort = features.incubating
        shared = SliceIndex(slices, partitionable=True, sort=sort)
        scratch = SliceIndex(slices, partitionable=True, sort=sort, share_pools=False)
        fast = Allocator([claim], CLASSES, shared, state, skip_bad_pools, features)
        slow = Allocator([claim], CLASSES, scratch, state, skip_bad_pools, features)
        for node, labels in NODES:
            # Every pool GatherPools gives the node, in its order, built alike.
            full = [pool_view(p) for p in scratch.pools_for(node, labels)]
            assert [pool_view(p) for p in shared.pools_for(node, labels)] == full
            # What the search walks: the same less the complete, valid pools without devices.
            assert [pool_view(p) for p in scratch.search_pools_for(node, labels)] == full
            assert [pool_view(p) for p in shared.search_pools_for(node, labels)] == [
                pool_view(p) for p in scratch.pools_for(node, labels)
                if p.incomplete or p.invalid or any(s.devices for s in p.slices)]
            got = verdict(fast, node, labels)
            assert got == verdict(slow, node, labels), (node, claim, slices)
            outcomes.add(got[0])
    # Each kind of verdict is exercised (v1.34's allocator, not skipping bad pools, has no
    # per-node failure for them).
    assert outcomes == {"allocated", "unschedulable", "error"} | ({"node-error"} if skip_bad_pools else set())


def partitioned(node: str, counter_set: str = "cs", mem: str = "80", count: int = 2) -> list[Dict]:
    devices = [{"name": f"p{i}", "attributes": {"model": {"string": "a"}},
                "consumesCounters": [{"counterSet": counter_set, "counters": {"mem": {"value": "40"}}}]}
               for i in range(2)]
    return [slice_(f"{node}-dev", DRIVER, node, count, nodeName=node, devices=devices),
            slice_(f"{node}-counters", DRIVER, node, count, nodeName=node,
                   sharedCounters=[{"name": "cs", "counters": {"mem": {"value": mem}}}])]


def one_gpu(count: int = 1, mode: str = "ExactCount") -> Dict:
    exactly: Dict = {"deviceClassName": "gpu", "allocationMode": mode}
    if mode == "ExactCount":
        exactly["count"] = count
    return {"metadata": {"name": "c", "namespace": "ml"}, "spec": {"devices": {"requests": [
        {"name": "r", "exactly": exactly}]}}}


@pytest.mark.parametrize("share", [True, False])
def test_another_nodes_invalid_counter_pool_fails_this_node_only_when_nothing_fits(share: bool) -> None:
    # n1's partitions consume a counter set its counter slice lacks: n1's pool is invalid,
    # and n0 gathers it too (its counter slice), without devices for n0.
    slices = partitioned("n0") + partitioned("n1", counter_set="gone")
    idx = SliceIndex(slices, partitionable=True, sort=True, share_pools=share)
    alloc = Allocator([one_gpu(2)], CLASSES, idx, AllocatedState(), True, INCUBATING)
    assert [d.device for d in (alloc.allocate("n0", {}) or [])[0].devices] == ["p0", "p1"]
    # Three devices fit nowhere: upstream's "invalid resource pools were encountered" on n0
    # as well, because n1's invalid pool is among the pools n0 gathered.
    alloc = Allocator([one_gpu(3)], CLASSES, idx, AllocatedState(), True, INCUBATING)
    with pytest.raises(NodeAllocationError, match="invalid resource pools were encountered"):
        alloc.allocate("n0", {})
    # A request for all devices stops at n1's pool.
    alloc = Allocator([one_gpu(mode="All")], CLASSES, idx, AllocatedState(), True, INCUBATING)
    with pytest.raises(AllocationError, match="resource pool gpu.example.com/n1 is currently invalid"):
        alloc.allocate("n0", {})


@pytest.mark.parametrize("share", [True, False])
def test_another_nodes_incomplete_pool_stops_all_but_not_exact_count(share: bool) -> None:
    slices = partitioned("n0") + partitioned("n1", count=3)
    idx = SliceIndex(slices, partitionable=True, sort=True, share_pools=share)
    alloc = Allocator([one_gpu(mode="All")], CLASSES, idx, AllocatedState(), True, INCUBATING)
    with pytest.raises(AllocationError, match="resource pool gpu.example.com/n1 is currently being updated"):
        alloc.allocate("n0", {})
    alloc = Allocator([one_gpu(1)], CLASSES, idx, AllocatedState(), True, INCUBATING)
    assert (alloc.allocate("n0", {}) or [])[0].devices[0].device == "p0"
    # The counters of n0 are n0's own: n1's partitions never draw on them.
    alloc = Allocator([one_gpu(2)], CLASSES, SliceIndex(partitioned("n0", mem="40") + partitioned("n1"),
                                                        partitionable=True, sort=True, share_pools=share),
                      AllocatedState(), True, INCUBATING)
    assert alloc.allocate("n0", {}) is None
    assert alloc.allocate("n1", {}) is not None

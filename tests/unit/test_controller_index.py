"""The pods-by-controller index a rollout plan reads (core/explain/rollout.py): ``check``
fills it while its snapshot is built instead of reading every pod again; filled either
way, it must be the same index, and the plans must find the same pods."""

from __future__ import annotations

import random
from typing import Any

from kschedx.core.api.objects import ClusterObjects, ControllerIndex, file_by_controller
from kschedx.core.explain import rollout
from kschedx.core.explain.front import build_snapshot

KINDS = ["ReplicaSet", "StatefulSet", "DaemonSet", "Job"]


def _pod(rng: random.Random, i: int) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": f"p{i}", "uid": f"u{i}"}
    if rng.random() < 0.8:
        meta["namespace"] = rng.choice(["a", "b"])  # else "default"
    refs = []
    for _ in range(rng.choice([0, 1, 1, 1, 2])):
        ref: dict[str, Any] = {"apiVersion": "apps/v1", "kind": rng.choice(KINDS), "name": rng.choice(["x", "y"]),
                               "uid": "o"}
        if rng.random() < 0.8:
            ref["controller"] = rng.random() < 0.9
        refs.append(ref)
    if refs:
        meta["ownerReferences"] = refs
    if rng.random() < 0.1:
        meta["deletionTimestamp"] = "2026-11-26T10:00:00Z"
    spec: dict[str, Any] = {"containers": [{"name": "c"}]}
    roll = rng.random()
    if roll < 0.7:
        spec["nodeName"] = rng.choice(["n0", "n1", "gone"])  # "gone": a node the dump lacks
    phase = rng.choice(["Running", "Running", "Pending", "Succeeded", "Failed"])
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": {"phase": phase}}


def _objects(rng: random.Random) -> ClusterObjects:
    objects = ClusterObjects()
    for name in ("n0", "n1"):
        objects.add({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}})
    for i in range(60):
        objects.add(_pod(rng, i))
    return objects


def _scanned(objects: ClusterObjects) -> ControllerIndex:
    index: ControllerIndex = {}
    for p in objects.of("Pod"):
        file_by_controller(index, p)
    return index


def test_the_index_filled_with_the_snapshot_equals_a_scan_and_plans_read_it() -> None:
    for seed in range(30):
        rng = random.Random(seed)
        objects = _objects(rng)
        want = {key: [p["metadata"]["name"] for p in pods] for key, pods in _scanned(objects).items()}
        rollout._INDEX.clear()
        build_snapshot(objects, index_controllers=True)
        kept = rollout._INDEX.get(id(objects.of("Pod")))
        assert kept is not None and kept[0] is objects.of("Pod"), seed  # no pod read again for the plans
        assert {key: [p["metadata"]["name"] for p in pods] for key, pods in kept[2].items()} == want, seed
        answers = {(ns, kind, name): rollout._owned_pods(objects, kind, ns, name)
                   for ns in ("a", "b", "default") for kind in KINDS for name in ("x", "y")}
        rollout._INDEX.clear()
        for (ns, kind, name), pods in answers.items():
            assert rollout._owned_pods(objects, kind, ns, name) == pods, seed


def test_no_index_without_asking_or_over_laid_objects() -> None:
    objects = _objects(random.Random(1))
    rollout._INDEX.clear()
    build_snapshot(objects)
    assert rollout._INDEX == {}


def test_any_may_run() -> None:
    objects = ClusterObjects()
    objects.add({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {
        "name": "web-5d8f", "namespace": "a",
        "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "controller": True}]}})
    objects.add({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db", "namespace": "a"}})

    assert rollout.any_may_run(objects, [("Deployment", "a", "web")])  # the owner of a ReplicaSet
    assert rollout.any_may_run(objects, [("Deployment", "a", "api"), ("StatefulSet", "a", "db")])
    assert rollout.any_may_run(objects, [("ReplicaSet", "a", "web-5d8f")])
    assert not rollout.any_may_run(objects, [("Deployment", "a", "api"), ("StatefulSet", "a", "web")])
    assert not rollout.any_may_run(objects, [("Deployment", "b", "web"), ("StatefulSet", "default", "db")])
    assert not rollout.any_may_run(objects, [("Pod", "a", "web"), ("CronJob", "a", "db")])
    assert not rollout.any_may_run(objects, [("Deployment", "a", {"not": "a name"}), ("Deployment", {"x": 1}, "web"),
                                             ("Deployment", "a", None)])

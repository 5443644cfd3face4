"""The snapshot's index of bound pods by label (``Snapshot.pods_labelled``), which
PodTopologySpread's counting walks instead of a namespace's every pod, must answer as a
scan of ``pods_by_namespace`` does after any sequence of binds, removals and node
removals, whichever indexes were built before them."""

from __future__ import annotations

import random
from typing import Any

from kschedx.core.api.model import PodInfo
from kschedx.core.api.objects import ClusterObjects
from kschedx.core.api.selectors import parse_label_selector
from kschedx.core.plugins import podtopologyspread_common as common
from kschedx.core.snapshot import Snapshot

NAMESPACES = ["a", "b"]
KEYS = ["app", "tier", "pod-template-hash"]
VALUES = ["x", "y", "z"]


def _pod(rng: random.Random, i: int, node: str) -> dict[str, Any]:
    labels = {k: rng.choice(VALUES) for k in KEYS if rng.random() < 0.7}
    meta: dict[str, Any] = {"name": f"p{i}", "namespace": rng.choice(NAMESPACES), "uid": f"u{i}", "labels": labels}
    if rng.random() < 0.1:
        meta["deletionTimestamp"] = "2026-11-26T10:00:00Z"
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
            "spec": {"nodeName": node, "containers": [{"name": "c"}]}, "status": {"phase": "Running"}}


def _scan(snapshot: Snapshot, namespace: str, selector: Any) -> dict[str, int]:
    counts: dict[str, int] = {}
    if selector.nothing or selector.empty:
        return counts
    for p in snapshot.pods_by_namespace.get(namespace, {}).values():
        if p.deletion_timestamp is None and selector.matches(p.labels):
            counts[p.node_name] = counts.get(p.node_name, 0) + 1
    return counts


def _selectors(rng: random.Random) -> list[Any]:
    out = []
    for _ in range(6):
        ml = {k: rng.choice(VALUES) for k in rng.sample(KEYS, rng.randint(1, 2))}
        exprs = [{"key": rng.choice(KEYS), "operator": "Exists"}] if rng.random() < 0.3 else []
        out.append(parse_label_selector({"matchLabels": ml, "matchExpressions": exprs}))
    out.append(parse_label_selector({"matchExpressions": [{"key": "app", "operator": "In", "values": ["x", "y"]}]}))
    return out


def test_counts_through_the_label_index_equal_a_scan_after_random_edits() -> None:
    for seed in range(60):
        rng = random.Random(seed)
        nodes = [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"n{i}"}} for i in range(5)]
        objects = ClusterObjects()
        for o in nodes + [_pod(rng, i, f"n{rng.randrange(5)}") for i in range(40)]:
            objects.add(o)
        snapshot = Snapshot(objects)
        selectors = _selectors(rng)
        next_id = 40
        for _step in range(25):
            ns = rng.choice(NAMESPACES)
            sel = rng.choice(selectors)
            assert common._count_matching(snapshot, ns, sel) == _scan(snapshot, ns, sel), seed
            action = rng.random()
            pods = list(snapshot.pods_by_uid.values())
            if action < 0.45:
                node = rng.choice([ni.name for ni in snapshot.nodes()])
                snapshot.add_pod(PodInfo(_pod(rng, next_id, node)))
                next_id += 1
            elif action < 0.9 and pods:
                snapshot.remove_pod(rng.choice(pods))
            elif len(snapshot.nodes()) > 1:
                snapshot.remove_node(rng.choice(snapshot.nodes()).name)
        for ns in NAMESPACES:
            for sel in selectors:
                assert common._count_matching(snapshot, ns, sel) == _scan(snapshot, ns, sel), seed


def test_the_index_is_what_counting_walks() -> None:
    # A namespace of many pods, a selector of one app: the count visits that app's pods.
    objects = ClusterObjects()
    objects.add({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n0"}})
    for i in range(200):
        objects.add({"apiVersion": "v1", "kind": "Pod", "metadata": {
            "name": f"p{i}", "namespace": "a", "uid": f"u{i}", "labels": {"app": "web" if i < 3 else f"other{i}"}},
            "spec": {"nodeName": "n0"}, "status": {"phase": "Running"}})
    snapshot = Snapshot(objects)
    selector = parse_label_selector({"matchLabels": {"app": "web"}})
    assert common._count_matching(snapshot, "a", selector) == {"n0": 3}
    assert snapshot.labels_indexed("a", "app")
    assert len(list(snapshot.pods_labelled("a", "app", "web"))) == 3


def test_the_index_reads_labels_as_their_strings_whatever_type_yaml_gave_them() -> None:
    # A hand-written YAML dump can give labels of other types (an int key, a bool value):
    # the index must list a pod under the value its string labels (PodInfo.labels) hold.
    typed: list[dict[Any, Any]] = [
        {"app": "web", "version": 2, "canary": True},
        {"app": "web", "1": "text", 1: "one"},
        {"app": "web", "True": "word", True: "bool"},
        {"app": 7, "tier": None, "ratio": 1.5},
        {"app": "api", "None": "x"},
        {},
    ]
    objects = ClusterObjects()
    objects.add({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n0"}})
    for i, labels in enumerate(typed * 2):
        objects.add({"apiVersion": "v1", "kind": "Pod", "metadata": {
            "name": f"p{i}", "namespace": "a", "uid": f"u{i}", "labels": labels},
            "spec": {"nodeName": "n0"}, "status": {"phase": "Running"}})
    snapshot = Snapshot(objects)
    for i, p in enumerate(snapshot.pods_by_namespace["a"].values()):
        if i % 2:
            _ = p.labels  # some read before the index is built
    keys = ("app", "version", "canary", "1", "True", "None", "tier", "ratio")
    for key in keys:  # every index built before the other pods' labels are read
        snapshot.pods_labelled("a", key, "")
    for key in keys:
        values = {v for p in snapshot.pods_by_namespace["a"].values() for k, v in p.labels.items() if k == key}
        for value in values | {"missing"}:
            got = {p.uid for p in snapshot.pods_labelled("a", key, value)}
            want = {p.uid for p in snapshot.pods_by_namespace["a"].values() if p.labels.get(key) == value}
            assert got == want, (key, value)

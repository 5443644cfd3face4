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
VALUES = ["x", "y", "z"]  # and "w", below


def _pod(rng: random.Random, i: int, node: str, bare: bool = False) -> dict[str, Any]:
    # The pods bound after the snapshot is built (i >= 40) may hold a value none before held.
    labels = {k: rng.choice(VALUES if i < 40 else [*VALUES, "w"]) for k in KEYS if rng.random() < 0.7}
    meta: dict[str, Any] = {"name": f"p{i}", "namespace": rng.choice(NAMESPACES), "uid": f"u{i}", "labels": labels}
    if bare and rng.random() < 0.1:
        del meta["labels"]
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
        ml = {k: rng.choice([*VALUES, "w"]) for k in rng.sample(KEYS, rng.randint(1, 2))}
        exprs = [{"key": rng.choice(KEYS), "operator": "Exists"}] if rng.random() < 0.3 else []
        out.append(parse_label_selector({"matchLabels": ml, "matchExpressions": exprs}))
    out.append(parse_label_selector({"matchExpressions": [{"key": "app", "operator": "In", "values": ["x", "y"]}]}))
    return out


def test_counts_through_the_label_index_equal_a_scan_after_random_edits() -> None:
    # Odd seeds have pods without labels too.
    for seed in range(60):
        rng = random.Random(seed)
        bare = seed % 2 == 1
        nodes = [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"n{i}"}} for i in range(5)]
        objects = ClusterObjects()
        for o in nodes + [_pod(rng, i, f"n{rng.randrange(5)}", bare) for i in range(40)]:
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
                snapshot.add_pod(PodInfo(_pod(rng, next_id, node, bare)))
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
    # A hand-written YAML dump can give labels of other types (an int key, a bool value, a
    # null): the index must list a pod under the value its string labels (PodInfo.labels)
    # hold. A second namespace has a pod without labels at all.
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
    for ns in ("a", "b"):
        for i, labels in enumerate(typed * 2):
            objects.add({"apiVersion": "v1", "kind": "Pod", "metadata": {
                "name": f"p{i}", "namespace": ns, "uid": f"{ns}{i}", "labels": labels},
                "spec": {"nodeName": "n0"}, "status": {"phase": "Running"}})
    objects.add({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "bare", "namespace": "b", "uid": "b-bare"},
                 "spec": {"nodeName": "n0"}, "status": {"phase": "Running"}})
    snapshot = Snapshot(objects)
    for ns in ("a", "b"):
        for i, p in enumerate(snapshot.pods_by_namespace[ns].values()):
            if i < len(typed):
                _ = p.labels  # one copy of each read before the index is built, one not
        # Every direct key's index built before the other pods' labels are read (a key as
        # "1" or "True" reads every pod's string labels).
        keys = ("app", "version", "canary", "tier", "ratio", "1", "True", "None")
        for key in keys:
            snapshot.pods_labelled(ns, key, "")
        pods = snapshot.pods_by_namespace[ns].values()
        for key in keys:
            values = {v for p in pods for k, v in p.labels.items() if k == key}
            assert values or key == "None"
            for value in values | {"missing"}:
                got = {p.uid for p in snapshot.pods_labelled(ns, key, value)}
                want = {p.uid for p in pods if p.labels.get(key) == value}
                assert got == want, (ns, key, value)

"""PodInfos made while a dump is decoded (core/api/model.py ``make_early``): the snapshot
takes them instead of reading every pod again. Taken or made afresh, the snapshot must be
the same, and a pod changed after it was read must not be answered from before."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
import yaml

from kschedx.core.api.model import CONTROLLER_UNREAD, PodInfo
from kschedx.core.api.objects import ClusterObjects, controller_key
from kschedx.core.explain import rollout
from kschedx.core.explain.front import build_snapshot, load_cluster_files
from kschedx.core.load import yamlload
from kschedx.core.snapshot import Snapshot

NODES = ["n0", "n1", "n2"]


def _pod(rng: random.Random, i: int) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": f"p{i}", "uid": f"u{i}", "namespace": rng.choice(["a", "b"]),
                            "labels": {"app": rng.choice(["x", "y"])}}
    if rng.random() < 0.8:
        meta["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": rng.choice(["ReplicaSet", "Job"]),
                                    "name": rng.choice(["x", "y"]), "uid": "o", "controller": rng.random() < 0.9}]
    requests = {k: v for k, v in (("cpu", rng.choice(["100m", "1", "250m"])),
                                  ("memory", rng.choice(["64Mi", "1Gi"]))) if rng.random() < 0.8}
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "app:1", "resources": {"requests": requests}}],
                            "priority": rng.choice([0, 10, 1000])}
    if rng.random() < 0.7:
        spec["nodeName"] = rng.choice(NODES + ["gone"])  # "gone": a node the dump lacks
    term = {"labelSelector": {"matchLabels": {"app": "x"}}, "topologyKey": "kubernetes.io/hostname"}
    if rng.random() < 0.2:  # a selector the scheduler can't parse: kept as its parse error
        term["labelSelector"] = {"matchExpressions": [{"key": "app", "operator": "Near", "values": ["x"]}]}
    roll = rng.random()
    if roll < 0.2:
        spec["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}
    elif roll < 0.35:
        spec["affinity"] = {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 5, "podAffinityTerm": term}]}}
    phase = rng.choice(["Running", "Running", "Pending", "Succeeded"])
    status: dict[str, Any] = {"phase": phase}
    if "nodeName" not in spec and rng.random() < 0.5:
        status["nominatedNodeName"] = rng.choice(NODES)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": status}


def _dump(rng: random.Random) -> dict[str, Any]:
    nodes = [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": n},
              "status": {"allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110"}}} for n in NODES]
    return {"apiVersion": "v1", "kind": "List", "items": nodes + [_pod(rng, i) for i in range(80)]}


def _write(tmp_path: Path, dump: dict[str, Any], style: str) -> str:
    if style == "json":
        path = tmp_path / "c.json"
        path.write_text(json.dumps(dump))
    elif style == "yaml":
        path = tmp_path / "c.yaml"
        path.write_text(yaml.safe_dump(dump, sort_keys=False))
    else:  # one document per object
        path = tmp_path / "c-multi.yaml"
        path.write_text(yaml.safe_dump_all(dump["items"], sort_keys=False))
    return str(path)


def _pods_of(snap: Snapshot) -> list[PodInfo]:
    return list(snap.all_pods()) + snap.orphan_pods + [p for ps in snap.nominated.values() for p in ps]


def _picture(snap: Snapshot) -> Any:
    """Everything the snapshot derived from its pods, by value."""
    pods = [(p.uid, p.name, p.namespace, p.node_name, p.phase, p.priority, p.requests, p.non0_cpu, p.non0_mem,
             p.has_pod_affinity, p.stored_labels, p.has_required_anti_affinity, p.pod_terms) for p in _pods_of(snap)]
    nodes = [(ni.name, [p.uid for p in ni.pods], ni.requested, ni.non0_cpu, ni.non0_mem,
              [p.uid for p in ni.pods_with_affinity], [p.uid for p in ni.pods_with_required_anti_affinity])
             for ni in snap.nodes()]
    return pods, nodes, {ns: list(by_uid) for ns, by_uid in snap.pods_by_namespace.items()}


def test_the_snapshot_takes_the_podinfos_made_while_loading_and_equals_one_made_afresh(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(yamlload, "FAST_FROM", 0)  # YAML through its fast path, as a large dump is
    for seed, style in enumerate(["json", "yaml", "multi"] * 4):
        objects = load_cluster_files([_write(tmp_path, _dump(random.Random(seed)), style)])
        raws = objects.of("Pod")
        early = dict(objects.early_pods)
        assert len(early) == len(raws), (seed, style)
        assert all(early[id(raw)].raw is raw for raw in raws)
        assert all(early[id(raw)].controller_key == controller_key(raw) for raw in raws)
        # (the terms of a pod with any are compiled with it)
        assert all("pod_terms" in vars(early[id(raw)]) for raw in raws if early[id(raw)].has_pod_affinity)
        rollout._INDEX.clear()
        snap = build_snapshot(objects, index_controllers=True)
        assert objects.early_pods == {}  # taken once (and what was left dropped)
        for pod in _pods_of(snap):
            assert pod is early.get(id(pod.raw), pod)  # the very object made while loading
        kept = rollout._INDEX[id(raws)][2]
        # The same snapshot made afresh (nothing taken): every derived value and the index equal.
        rollout._INDEX.clear()
        again = build_snapshot(objects, index_controllers=True)
        assert not any(pod is early.get(id(pod.raw)) for pod in _pods_of(again))
        assert all(pod.controller_key is CONTROLLER_UNREAD for pod in _pods_of(again))
        assert _picture(again) == _picture(snap), (seed, style)
        assert rollout._INDEX[id(raws)][2] == kept, (seed, style)


def test_a_pod_whose_priority_is_filled_in_after_loading_is_read_again(tmp_path: Path) -> None:
    dump = _dump(random.Random(7))
    pods = [o for o in dump["items"] if o["kind"] == "Pod"]
    for pod in pods[:10]:  # hand-written: a class, and no priority the admission would have set
        del pod["spec"]["priority"]
        pod["spec"]["priorityClassName"] = "high"
    dump["items"].append({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                          "metadata": {"name": "high"}, "value": 5000})
    objects = load_cluster_files([_write(tmp_path, dump, "json")])
    snap = Snapshot(objects.copy())
    by_name = {p.name: p for p in _pods_of(snap)}
    for pod in pods[:10]:
        name = pod["metadata"]["name"]
        if name in by_name:
            assert by_name[name].priority == 5000, name
    assert sum(p.priority == 5000 for p in by_name.values()) >= 3


def test_a_pod_changed_in_place_after_loading_is_not_taken_when_its_entry_is_dropped() -> None:
    objects = ClusterObjects()
    objects.add({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n0"}})
    raw = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "uid": "u"},
           "spec": {"nodeName": "n0", "containers": []}, "status": {"phase": "Running"}}
    objects.add(raw)
    from kschedx.core.api.model import make_early

    make_early(objects.early_pods, raw)
    raw["spec"]["nodeName"] = "elsewhere"
    objects.early_pods.pop(id(raw))
    snap = Snapshot(objects.copy())
    assert [p.name for p in snap.orphan_pods] == ["p"] and not snap.nodes()[0].pods


def test_a_pod_podinfo_cannot_read_is_left_for_the_snapshot() -> None:
    from kschedx.core.api.model import make_early

    early: dict[int, PodInfo] = {}
    make_early(early, {"kind": "Pod", "metadata": {"name": "p"},
                       "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "lots"}}}]}})
    assert early == {}

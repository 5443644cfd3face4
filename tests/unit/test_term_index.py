"""The existing pods' term indexes (core/plugins/interpodaffinity_index.py) follow the
snapshot's edits through the nodes it lists as touched, which are only those where a pod
with (anti-)affinity terms came or went: after any sequence of binds and removals, of pods
with and without terms, refreshed at any points between them, each index must equal one
built from scratch on the snapshot as it is."""

from __future__ import annotations

import random
from typing import Any

from kschedx.core.api.model import PodInfo
from kschedx.core.api.objects import ClusterObjects
from kschedx.core.plugins import interpodaffinity_index as terms
from kschedx.core.snapshot import Snapshot

APPS = ["web", "db", "cache"]


def _term(rng: random.Random) -> dict[str, Any]:
    return {"labelSelector": {"matchLabels": {"app": rng.choice(APPS)}},
            "topologyKey": rng.choice(["kubernetes.io/hostname", "topology.kubernetes.io/zone"])}


def _affinity(rng: random.Random) -> dict[str, Any] | None:
    roll = rng.random()
    if roll < 0.5:
        return None  # most pods carry no terms
    if roll < 0.65:
        return {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [_term(rng)]}}
    if roll < 0.8:
        return {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [_term(rng)]}}
    if roll < 0.9:
        return {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": rng.randint(1, 100), "podAffinityTerm": _term(rng)}]}}
    return {"nodeAffinity": {}}  # an affinity stanza without pod terms


def _pod(rng: random.Random, i: int, node: str) -> dict[str, Any]:
    spec: dict[str, Any] = {"nodeName": node, "containers": [{"name": "c"}]}
    affinity = _affinity(rng)
    if affinity is not None:
        spec["affinity"] = affinity
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": f"p{i}", "namespace": "a", "uid": f"u{i}", "labels": {"app": rng.choice(APPS)}},
            "spec": spec, "status": {"phase": "Running"}}


def _fresh(snapshot: Snapshot, groups_of: Any) -> dict[Any, dict[str, int]]:
    return terms.TermIndex(groups_of).refresh(snapshot)


def test_term_indexes_equal_fresh_ones_after_random_edits() -> None:
    for seed in range(40):
        rng = random.Random(seed)
        objects = ClusterObjects()
        names = [f"n{i}" for i in range(6)]
        for name in names:
            objects.add({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}})
        for i in range(30):
            objects.add(_pod(rng, i, rng.choice(names)))
        snapshot = Snapshot(objects)
        next_id = 30
        for _step in range(40):
            if rng.random() < 0.5:
                assert terms.existing_anti_affinity_groups(snapshot) == _fresh(snapshot, terms._anti_groups), seed
                assert terms.existing_scoring_groups(snapshot) == _fresh(snapshot, terms._score_groups), seed
            pods = list(snapshot.pods_by_uid.values())
            if rng.random() < 0.5 or not pods:
                snapshot.add_pod(PodInfo(_pod(rng, next_id, rng.choice(names))))
                next_id += 1
            else:
                snapshot.remove_pod(rng.choice(pods))
        assert terms.existing_anti_affinity_groups(snapshot) == _fresh(snapshot, terms._anti_groups), seed
        assert terms.existing_scoring_groups(snapshot) == _fresh(snapshot, terms._score_groups), seed


def test_edits_of_pods_without_terms_list_no_node() -> None:
    # The point of listing only term-carrying edits: a rollout's thousands of plain pods
    # leave the indexes nothing to catch up on.
    rng = random.Random(0)
    objects = ClusterObjects()
    objects.add({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n0"}})
    snapshot = Snapshot(objects)
    plain = PodInfo({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "plain", "namespace": "a", "uid": "u"},
                     "spec": {"nodeName": "n0", "containers": [{"name": "c"}]}})
    snapshot.add_pod(plain)
    snapshot.remove_pod(plain)
    assert snapshot.touched == []
    raw = _pod(rng, 1, "n0")
    raw["spec"]["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [_term(rng)]}}
    with_terms = PodInfo(raw)
    snapshot.add_pod(with_terms)
    snapshot.remove_pod(with_terms)
    assert snapshot.touched == ["n0", "n0"]

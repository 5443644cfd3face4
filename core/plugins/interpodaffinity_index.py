"""The existing pods' affinity terms of a snapshot, grouped by term, for InterPodAffinity.

Every cycle asks which existing pods' terms the incoming pod matches: their required
anti-affinity (PreFilter) and their required and preferred affinity and preferred
anti-affinity (PreScore). The pods of one workload carry equal terms, so the snapshot's
thousands of such pods hold a few hundred distinct terms: each is matched against the
incoming pod once, and its pods are counted per node.

The index follows the snapshot's edits node by node: a node the snapshot lists as touched
since (where a pod with terms came or went; core/snapshot.py), whose generation changed
(generations never repeat), has its pods counted again. A node's groups are a function of
its pods with terms alone, so the edits of other pods (most of a rollout's) cost nothing.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable
from typing import Any

from kschedx.core.api.affinity import AffinityTerm
from kschedx.core.api.model import PodInfo
from kschedx.core.snapshot import NodeInfo, Snapshot

# (what, term, weight): what is "anti" (required anti-affinity), "hard" (required
# affinity), "pref" (preferred affinity) or "pref-anti" (preferred anti-affinity).
GroupKey = tuple[str, AffinityTerm, int]


def _anti_groups(ni: NodeInfo) -> list[GroupKey]:
    return [("anti", t, 0) for p in ni.pods_with_required_anti_affinity for t in p.pod_terms.required_anti_affinity]


def _score_groups(ni: NodeInfo) -> list[GroupKey]:
    out: list[GroupKey] = []
    for p in ni.pods_with_affinity:
        et = p.pod_terms
        out.extend(("hard", t, 0) for t in et.required_affinity)
        out.extend(("pref", w.term, w.weight) for w in et.preferred_affinity)
        out.extend(("pref-anti", w.term, w.weight) for w in et.preferred_anti_affinity)
    return out


class TermIndex:
    """Per distinct term: node name -> how many of the node's pods carry it (with
    multiplicity: a pod listing a term twice counts twice, as upstream's loops do)."""

    # The snapshot is handed to refresh, never kept: an index is the value of a
    # WeakKeyDictionary keyed by its snapshot, and a reference from the value to the key
    # would keep both alive for good (every snapshot of a long test run, say).
    def __init__(self, groups_of: Callable[[NodeInfo], list[GroupKey]]) -> None:
        self._groups_of = groups_of
        self._nodes: list[NodeInfo] | None = None
        self._count = -1
        self._generation = -1
        self._touched = 0
        self.groups: dict[GroupKey, dict[str, int]] = {}
        self._seen: dict[str, tuple[int, list[GroupKey]]] = {}

    def refresh(self, snap: Snapshot) -> dict[GroupKey, dict[str, int]]:
        if snap.generation == self._generation and snap.node_infos is self._nodes \
                and len(snap.node_infos) == self._count:
            # Every edit of the snapshot's nodes goes through the snapshot, which counts it.
            return self.groups
        self._generation = snap.generation
        todo: Iterable[NodeInfo]
        if snap.node_infos is not self._nodes or len(snap.node_infos) != self._count:
            self._nodes = snap.node_infos
            self._count = len(snap.node_infos)
            self.groups = {}
            self._seen = {}
            todo = snap.node_infos
        else:
            # The same nodes: only those whose pods changed since need counting again.
            by_name = snap.by_name
            todo = [by_name[n] for n in dict.fromkeys(snap.touched[self._touched:]) if n in by_name]
        self._touched = len(snap.touched)
        groups = self.groups
        seen = self._seen
        for ni in todo:
            hit = seen.get(ni.name)
            if hit is not None and hit[0] == ni.generation:
                continue
            if hit is not None:
                for g in hit[1]:
                    per_node = groups[g]
                    n = per_node[ni.name] - 1
                    if n:
                        per_node[ni.name] = n
                    else:
                        del per_node[ni.name]
                        if not per_node:
                            del groups[g]
            mine = self._groups_of(ni)
            for g in mine:
                per_node = groups.setdefault(g, {})
                per_node[ni.name] = per_node.get(ni.name, 0) + 1
            seen[ni.name] = (ni.generation, mine)
        return groups


_INDEXES: weakref.WeakKeyDictionary[Snapshot, dict[str, TermIndex]] = weakref.WeakKeyDictionary()


def _index(snapshot: Snapshot, which: str, groups_of: Callable[[NodeInfo], list[GroupKey]]) -> TermIndex:
    per = _INDEXES.get(snapshot)
    if per is None:
        per = _INDEXES[snapshot] = {}
    idx = per.get(which)
    if idx is None:
        idx = per[which] = TermIndex(groups_of)
    return idx


def existing_anti_affinity_groups(snapshot: Snapshot) -> dict[GroupKey, dict[str, int]]:
    """The required anti-affinity terms of the existing pods, by term."""
    return _index(snapshot, "anti", _anti_groups).refresh(snapshot)


def existing_scoring_groups(snapshot: Snapshot) -> dict[GroupKey, dict[str, int]]:
    """The required affinity and preferred (anti-)affinity terms of the existing pods."""
    return _index(snapshot, "score", _score_groups).refresh(snapshot)


def matching(groups: dict[GroupKey, dict[str, int]], pod: PodInfo,
             ns_labels: Any) -> list[tuple[GroupKey, dict[str, int]]]:
    """The groups whose term the incoming pod matches."""
    ns, labels = pod.namespace, pod.labels
    return [(g, per_node) for g, per_node in groups.items() if g[1].matches(ns, labels, ns_labels)]


"""PodTopologySpread building blocks: parsed constraints, default selectors, pod counts.

Shared by the filtering half (hard constraints, ``DoNotSchedule``) and the scoring half
(soft constraints, ``ScheduleAnyway``) of the plugin in ``podtopologyspread.py``.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kschedx.core.api.model import PodInfo
from kschedx.core.api.objects import ClusterObjects, in_namespace, named
from kschedx.core.api.selectors import (
    NOTHING,
    LabelSelector,
    SelectorError,
    find_untolerated_taint,
    parse_label_selector,
    selector_from_set,
)
from kschedx.core.snapshot import NodeInfo, Snapshot

Dict = dict[str, Any]

DO_NOT_SCHEDULE = "DoNotSchedule"
SCHEDULE_ANYWAY = "ScheduleAnyway"
HONOR = "Honor"
IGNORE = "Ignore"
LABEL_HOSTNAME = "kubernetes.io/hostname"
LABEL_ZONE = "topology.kubernetes.io/zone"

# The taint effects a DoNotSchedule-style check looks at (NodeTaintsPolicy Honor).
_DO_NOT_SCHEDULE_EFFECTS = frozenset({"NoSchedule", "NoExecute"})

# DefaultingType System: spread over hosts and zones, softly.
SYSTEM_DEFAULT_CONSTRAINTS: tuple[Dict, ...] = (
    {"topologyKey": LABEL_HOSTNAME, "whenUnsatisfiable": SCHEDULE_ANYWAY, "maxSkew": 3},
    {"topologyKey": LABEL_ZONE, "whenUnsatisfiable": SCHEDULE_ANYWAY, "maxSkew": 5},
)


@dataclass(frozen=True, slots=True)
class Constraint:
    """One topology spread constraint with its selector compiled and its defaults applied."""

    max_skew: int
    topology_key: str
    selector: LabelSelector
    min_domains: int = 1
    honor_node_affinity: bool = True
    honor_node_taints: bool = False

    def with_selector(self, selector: LabelSelector) -> Constraint:
        return Constraint(
            self.max_skew, self.topology_key, selector, self.min_domains,
            self.honor_node_affinity, self.honor_node_taints,
        )


def merge_label_set(match_labels: Mapping[str, str], selector: LabelSelector) -> LabelSelector:
    """matchLabelKeys: the pod's values for those keys ANDed with the selector.

    A nil labelSelector (matches nothing) stays nil: upstream keeps the nothing-selector
    untouched rather than widening it to the matchLabelKeys alone.
    """
    if selector.nothing:
        return selector
    return LabelSelector(selector_from_set(match_labels).requirements + selector.requirements)


def parse_constraints(
    items: Sequence[Mapping[str, Any]] | None, pod_labels: Mapping[str, str], action: str
) -> list[Constraint]:
    """The constraints of ``items`` whose whenUnsatisfiable is ``action``, in order.

    Raises ``SelectorError`` for a label selector the scheduler cannot parse.
    """
    out: list[Constraint] = []
    for c in items or ():
        if c.get("whenUnsatisfiable") != action:
            continue
        selector = parse_label_selector(c.get("labelSelector"))
        keys = c.get("matchLabelKeys") or ()
        if keys:
            # The scheduler merges matchLabelKeys itself; since v1.34 the API server also
            # merges them into labelSelector at creation, which selects the same pods.
            found = {str(k): pod_labels[str(k)] for k in keys if str(k) in pod_labels}
            if found:
                selector = merge_label_set(found, selector)
        min_domains = c.get("minDomains")
        out.append(
            Constraint(
                max_skew=int(c.get("maxSkew") or 0),
                topology_key=str(c.get("topologyKey") or ""),
                selector=selector,
                min_domains=int(min_domains) if min_domains is not None else 1,
                honor_node_affinity=(c.get("nodeAffinityPolicy") or HONOR) == HONOR,
                honor_node_taints=(c.get("nodeTaintsPolicy") or IGNORE) == HONOR,
            )
        )
    return out


def node_has_keys(labels: Mapping[str, str], constraints: Sequence[Constraint]) -> bool:
    """Whether the node carries every constraint's topology key."""
    for c in constraints:
        if c.topology_key not in labels:
            return False
    return True


class InclusionPolicy:
    """Per-node answers to the pod's nodeAffinityPolicy / nodeTaintsPolicy questions.

    The pod's required node affinity (nodeSelector + required terms) and its tolerations
    of NoSchedule/NoExecute taints are evaluated at most once per node.
    """

    def __init__(self, pod: PodInfo) -> None:
        ns = pod.spec.get("nodeSelector")
        self._node_selector = {str(k): str(v) for k, v in ns.items()} if ns else None
        self._affinity = pod.required_node_selector
        self._tolerations = pod.tolerations

    def affinity_ok(self, node: NodeInfo) -> bool:
        labels = node.node.labels
        if self._node_selector:
            for k, v in self._node_selector.items():
                if labels.get(k) != v:
                    return False
        if self._affinity is not None and not self._affinity.matches(node.name, labels):
            return False
        return True

    def taints_ok(self, node: NodeInfo) -> bool:
        return find_untolerated_taint(node.node.taints, self._tolerations, _DO_NOT_SCHEDULE_EFFECTS) is None

    def eligible(self, constraints: Sequence[Constraint], node: NodeInfo) -> list[bool]:
        """For each constraint, whether the node passes its inclusion policies."""
        aff: bool | None = None
        tnt: bool | None = None
        out: list[bool] = []
        for c in constraints:
            ok = True
            if c.honor_node_affinity:
                if aff is None:
                    aff = self.affinity_ok(node)
                ok = aff
            if ok and c.honor_node_taints:
                if tnt is None:
                    tnt = self.taints_ok(node)
                ok = tnt
            out.append(ok)
        return out


# --------------------------------------------------------------------------- default selector


def _str_map(m: Mapping[str, Any] | None) -> dict[str, str]:
    return {str(k): "true" if v is True else "false" if v is False else str(v) for k, v in (m or {}).items()}


def _group_version(api_version: str) -> tuple[str, str] | None:
    """``schema.ParseGroupVersion``: "v1" is the core group, "apps/v1" a named one."""
    if not api_version:
        return "", ""
    parts = api_version.split("/")
    if len(parts) == 1:
        return "", parts[0]
    if len(parts) == 2:
        return parts[0], parts[1]
    return None


def default_selector(pod: PodInfo, objects: ClusterObjects) -> LabelSelector:
    """``helper.DefaultSelector``: the selectors of the Services selecting the pod, plus
    the selector of its controlling ReplicationController, ReplicaSet or StatefulSet."""
    label_set: dict[str, str] = {}
    for svc in in_namespace(objects.of("Service"), pod.namespace):
        sel = (svc.get("spec") or {}).get("selector")
        if sel is None:
            continue  # a nil selector selects nothing, not everything
        sel_map = _str_map(sel)
        if all(pod.labels.get(k) == v for k, v in sel_map.items()):
            label_set.update(sel_map)
    selector = selector_from_set(label_set)

    owner = pod.controller_ref
    if owner is None:
        return selector
    gv = _group_version(str(owner.get("apiVersion") or ""))
    if gv is None:
        return selector
    kind = owner.get("kind")
    name = str(owner.get("name") or "")
    if gv == ("", "v1") and kind == "ReplicationController":
        rc = named(objects.of("ReplicationController"), pod.namespace, name)
        if rc is not None:
            label_set.update(_str_map((rc.get("spec") or {}).get("selector")))
            selector = selector_from_set(label_set)
    elif gv == ("apps", "v1") and kind in ("ReplicaSet", "StatefulSet"):
        obj = named(objects.of(kind), pod.namespace, name)
        if obj is not None:
            try:
                other = parse_label_selector((obj.get("spec") or {}).get("selector"))
            except SelectorError:
                other = NOTHING
            if not other.nothing:
                selector = LabelSelector(selector.requirements + other.requirements)
    return selector


# --------------------------------------------------------------------------- matching pods per node


def compile_matcher(selector: LabelSelector) -> Callable[[Mapping[str, str]], bool]:
    """A fast predicate for the selector; plain ``matchLabels`` selectors (the usual case)
    become a tuple of key/value comparisons."""
    if selector.nothing:
        return lambda labels: False
    reqs = selector.requirements
    if all(r.op == "In" and len(r.values) == 1 for r in reqs):
        pairs = tuple((r.key, next(iter(r.values))) for r in reqs)
        if len(pairs) == 1:
            (k1, v1), = pairs

            def one(labels: Mapping[str, str]) -> bool:
                return labels.get(k1) == v1

            return one

        def all_pairs(labels: Mapping[str, str]) -> bool:
            get = labels.get
            for k, v in pairs:
                if get(k) != v:
                    return False
            return True

        return all_pairs
    return selector.matches


def _count_matching(snapshot: Snapshot, namespace: str, selector: LabelSelector) -> dict[str, int]:
    counts: dict[str, int] = {}
    # Upstream returns 0 for a selector without requirements: `labelSelector: {}` counts
    # no pod in v1.35 (the incoming pod still matches it itself).
    if selector.nothing or selector.empty:
        return counts
    if not snapshot.pods_by_namespace.get(namespace):
        return counts
    match = compile_matcher(selector)
    get = counts.get
    for p in snapshot.pods_selectable(namespace, selector):
        # Terminating pods are not counted (kubernetes#87621).
        if p.deletion_timestamp is not None:
            continue
        if match(p.labels):
            n = p.node_name
            counts[n] = get(n, 0) + 1
    return counts


class _SnapshotCounts:
    __slots__ = ("generation", "counts")

    def __init__(self, generation: int) -> None:
        self.generation = generation
        self.counts: dict[tuple[str, LabelSelector], dict[str, int]] = {}


_CACHE: weakref.WeakKeyDictionary[Snapshot, _SnapshotCounts] = weakref.WeakKeyDictionary()


def matching_pods_per_node(snapshot: Snapshot, namespace: str, selector: LabelSelector) -> dict[str, int]:
    """Node name -> number of non-terminating pods of ``namespace`` on it that ``selector``
    matches (``countPodsMatchSelector`` for every node at once).

    One pass over the namespace's pods instead of one per node; cached per snapshot
    generation so the filtering and scoring halves (and later cycles on an unchanged
    snapshot) share the work.  Treat the result as read-only.
    """
    entry = _CACHE.get(snapshot)
    if entry is None or entry.generation != snapshot.generation:
        entry = _SnapshotCounts(snapshot.generation)
        _CACHE[snapshot] = entry
    key = (namespace, selector)
    counts = entry.counts.get(key)
    if counts is None:
        counts = _count_matching(snapshot, namespace, selector)
        entry.counts[key] = counts
    return counts


def distinct(constraints: Iterable[Constraint]) -> list[LabelSelector]:
    seen: dict[LabelSelector, None] = {}
    for c in constraints:
        seen.setdefault(c.selector, None)
    return list(seen)


# --------------------------------------------------------------------------- eligible domains


class _Domains:
    __slots__ = ("nodes", "count", "by_key")

    def __init__(self, nodes: list[NodeInfo]) -> None:
        self.nodes = nodes
        self.count = len(nodes)
        self.by_key: dict[Any, list[tuple[dict[str, None], dict[str, str]]]] = {}


_DOMAINS: weakref.WeakKeyDictionary[Snapshot, _Domains] = weakref.WeakKeyDictionary()


def eligible_domains(snapshot: Snapshot, pod: PodInfo,
                     constraints: Sequence[Constraint]) -> list[tuple[dict[str, None], dict[str, str]]]:
    """Per constraint, the domains of the snapshot's nodes that pass its inclusion policies
    (in the order PreFilter meets them going through the nodes) and each such node's domain,
    for nodes holding every topology key.

    Which nodes are eligible depends on the nodes' labels and taints and on the pod's
    nodeSelector, required node affinity and tolerations only, never on the pods bound, so
    the answer is kept per snapshot (until its node set changes) for every pod alike."""
    entry = _DOMAINS.get(snapshot)
    if entry is None or entry.nodes is not snapshot.node_infos or entry.count != len(snapshot.node_infos):
        entry = _DOMAINS[snapshot] = _Domains(snapshot.node_infos)
    na = (pod.affinity.get("nodeAffinity") or {}).get("requiredDuringSchedulingIgnoredDuringExecution")
    key = (repr(sorted((str(k), str(v)) for k, v in (pod.spec.get("nodeSelector") or {}).items())), repr(na),
           pod.tolerations, tuple((c.topology_key, c.honor_node_affinity, c.honor_node_taints) for c in constraints))
    hit = entry.by_key.get(key)
    if hit is None:
        hit = [({}, {}) for _ in constraints]
        policy = InclusionPolicy(pod)
        for ni in snapshot.node_infos:
            labels = ni.node.labels
            if not node_has_keys(labels, constraints):
                continue
            for i, ok in enumerate(policy.eligible(constraints, ni)):
                if ok:
                    value = labels[constraints[i].topology_key]
                    hit[i][0].setdefault(value, None)
                    hit[i][1][ni.name] = value
        entry.by_key[key] = hit
    return hit

"""InterPodAffinity: pods placed by the pods around them, as kube-scheduler v1.35 does it.

* PreFilter counts, per topology pair (label key and value), the existing pods whose
  required anti-affinity the incoming pod matches, and the existing pods matching the
  incoming pod's required affinity (all terms) and anti-affinity (each term). It skips
  when there is nothing to count. The incoming pod's namespace selectors are resolved to
  namespace names first.
* Filter, in order: the pod's required affinity (UnschedulableAndUnresolvable; a node
  lacking a term's topology key fails; the first pod of a group that matches its own terms
  is let through when no pod matches anywhere), its required anti-affinity, and existing
  pods' required anti-affinity (both Unschedulable).
* AddPod/RemovePod keep the counts right for nominated pods and preemption's dry run.
* PreScore sums, per topology pair, the incoming pod's preferred (anti-)affinity weights
  over the existing pods matching them, and existing pods' required affinity
  (hardPodAffinityWeight) and preferred terms the incoming pod matches; Score adds up the
  node's pairs; NormalizeScore scales min..max to 0..100.

Only the pods that can matter are visited: pods by namespace for the incoming pod's terms,
the per-node lists of pods with (anti-)affinity for existing pods' terms.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from typing import Any

from kschedx.core.api.affinity import AffinityTerm, WeightedTerm
from kschedx.core.api.model import PodInfo
from kschedx.core.framework.interface import MAX_NODE_SCORE, CycleState, Plugin, PreFilterResult, ReplicaMemo, Status
from kschedx.core.plugins.interpodaffinity_index import (
    existing_anti_affinity_groups,
    existing_scoring_groups,
    matching,
)
from kschedx.core.snapshot import NodeInfo, Snapshot

NAME = "InterPodAffinity"
PRE_FILTER_KEY = "PreFilter" + NAME
PRE_SCORE_KEY = "PreScore" + NAME

ERR_AFFINITY = "node(s) didn't match pod affinity rules"
ERR_ANTI_AFFINITY = "node(s) didn't match pod anti-affinity rules"
ERR_EXISTING_ANTI_AFFINITY = "node(s) didn't satisfy existing pods anti-affinity rules"

Pair = tuple[str, str]


def _bump(counts: dict[Pair, int], labels: dict[str, str], key: str, value: int) -> None:
    v = labels.get(key)
    if v is None:
        return
    pair = (key, v)
    n = counts.get(pair, 0) + value
    if n == 0:
        counts.pop(pair, None)
    else:
        counts[pair] = n


def _add(scores: dict[str, dict[str, int]], key: str, node_labels: dict[str, str], amount: int) -> None:
    v = node_labels.get(key)
    if v is not None:
        m = scores.setdefault(key, {})
        m[v] = m.get(v, 0) + amount


def _matches_all(terms: tuple[AffinityTerm, ...], pod: PodInfo) -> bool:
    """``podMatchesAllAffinityTerms`` (incoming terms: namespace selectors already merged)."""
    if not terms:
        return False
    return all(t.matches(pod.namespace, pod.labels, None) for t in terms)


@dataclass
class PreFilterState:
    pod: PodInfo
    required_affinity: tuple[AffinityTerm, ...]
    required_anti_affinity: tuple[AffinityTerm, ...]
    namespace_labels: dict[str, str] | None
    existing_anti_affinity: dict[Pair, int] = field(default_factory=dict)
    affinity: dict[Pair, int] = field(default_factory=dict)
    anti_affinity: dict[Pair, int] = field(default_factory=dict)
    # Node name -> why Filter fails it, worked out from the counts when first asked
    # (``failing_nodes``) and dropped by every update.
    failing: dict[str, str] | None = field(default=None, compare=False, repr=False)

    def failure_on(self, labels: dict[str, str]) -> str | None:
        """Why the anti-affinity counts fail a node with these labels (the pod's own terms
        first, as Filter checks them), None when they don't."""
        if self.anti_affinity:
            for t in self.required_anti_affinity:
                v = labels.get(t.topology_key)
                if v is not None and self.anti_affinity.get((t.topology_key, v), 0) > 0:
                    return ERR_ANTI_AFFINITY
        if self.existing_anti_affinity:
            counts = self.existing_anti_affinity
            for pair in labels.items():
                if counts.get(pair, 0) > 0:
                    return ERR_EXISTING_ANTI_AFFINITY
        return None

    def failing_nodes(self, snapshot: Snapshot) -> dict[str, str]:
        """:meth:`failure_on` of every node of the snapshot it fails, at once: only the nodes
        holding a counted pair can fail, found through the snapshot's label positions."""
        if self.failing is None:
            names = snapshot.node_names()[0]
            out: dict[str, str] = {}
            for t in self.required_anti_affinity:
                for (key, value), n in self.anti_affinity.items():
                    if key == t.topology_key and n > 0:
                        for i in snapshot.label_positions(key).get(value, ()):
                            out.setdefault(names[i], ERR_ANTI_AFFINITY)
            for (key, value), n in self.existing_anti_affinity.items():
                if n > 0:
                    for i in snapshot.label_positions(key).get(value, ()):
                        out.setdefault(names[i], ERR_EXISTING_ANTI_AFFINITY)
            self.failing = out
        return self.failing

    def clone(self) -> PreFilterState:
        return PreFilterState(self.pod, self.required_affinity, self.required_anti_affinity, self.namespace_labels,
                              dict(self.existing_anti_affinity), dict(self.affinity), dict(self.anti_affinity))

    def update_with(self, other: PodInfo, node: NodeInfo, delta: int) -> None:
        self.failing = None
        labels = node.node.labels
        for t in other.pod_terms.required_anti_affinity:
            if t.matches(self.pod.namespace, self.pod.labels, self.namespace_labels):
                _bump(self.existing_anti_affinity, labels, t.topology_key, delta)
        if _matches_all(self.required_affinity, other):
            for t in self.required_affinity:
                _bump(self.affinity, labels, t.topology_key, delta)
        for t in self.required_anti_affinity:
            if t.matches(other.namespace, other.labels, None):
                _bump(self.anti_affinity, labels, t.topology_key, delta)


@dataclass
class PreScoreState:
    # topology key -> value -> score
    topology_score: dict[str, dict[str, int]]

    def clone(self) -> PreScoreState:
        return self


class AffinityNormalizer:
    """NormalizeScore in parts, for replica runs: the parameters (the minimum and maximum
    over the scored nodes) and one node's normalized score."""

    ignored: frozenset[str] = frozenset()  # every scored node counts

    @classmethod
    def params(cls, raw: dict[str, int], names: list[str]) -> tuple[int, int]:
        return cls.bounds(list(map(raw.__getitem__, names)))

    @staticmethod
    def bounds(values: Collection[int]) -> tuple[int, int]:
        """The parameters from the raw scores of the scored nodes."""
        return (min(values), max(values)) if values else (0, 0)

    @staticmethod
    def share(name: str, raw: int, params: tuple[int, int]) -> int:
        lo, hi = params
        diff = hi - lo
        return int(float(MAX_NODE_SCORE) * ((raw - lo) / diff)) if diff > 0 else 0

    def normalize(self, scores: dict[str, int]) -> None:
        params = self.params(scores, list(scores))
        for name, v in scores.items():
            scores[name] = self.share(name, v, params)


def _namespace_names(snapshot: Snapshot, term: AffinityTerm) -> list[str]:
    sel = term.namespace_selector
    return [ns for ns, labels in snapshot.namespace_labels.items() if sel.matches(labels)]


def merge_namespaces(snapshot: Snapshot, term: AffinityTerm) -> AffinityTerm:
    """``mergeAffinityTermNamespacesIfNotEmpty``: a namespace selector with requirements is
    replaced by the names of the namespaces it selects now; an empty one (all namespaces)
    and a nil one (none) stay."""
    if term.namespace_selector.empty or term.namespace_selector.nothing:
        return term
    return term.with_namespaces(_namespace_names(snapshot, term))


def _candidate_pods(snapshot: Snapshot, term: AffinityTerm) -> Iterable[PodInfo]:
    """Existing pods an incoming term (namespaces merged) can match: those of its namespaces,
    or every pod when its namespace selector selects all namespaces."""
    if term.namespace_selector.empty:
        return snapshot.pods_by_uid.values()
    return (p for ns in term.namespaces for p in snapshot.pods_selectable(ns, term.selector))


# Up to this many nodes, filter_nodes asks each node's labels rather than work out every
# failing node of the snapshot (which ``failure_on`` gives node by node alike).
_FEW_NODES = 64


class InterPodAffinity(Plugin):
    name = NAME

    def __init__(self, handle: Any, args: dict[str, Any] | None = None) -> None:
        super().__init__(handle, args)
        self.hard_weight = int(self.args.get("hardPodAffinityWeight", 1))
        self.ignore_existing_preferred = bool(self.args.get("ignorePreferredTermsOfExistingPods", False))

    # ------------------------------------------------------------------ PreFilter / Filter

    def _replica_memo(self) -> ReplicaMemo | None:
        memo = getattr(self.handle, "memo", None)
        return memo if isinstance(memo, ReplicaMemo) else None

    def pre_filter(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> tuple[PreFilterResult | None, Status]:
        parse_error = pod.pod_terms.parse_error
        if parse_error is not None:
            # framework.NewPodInfo failed on a selector: the pod can never be placed.
            return None, Status.unresolvable(f"parsing pod: {parse_error}")
        memo = self._replica_memo()
        cached = memo.states.get(PRE_FILTER_KEY) if memo is not None else None
        if memo is not None and cached is not None:
            # A later copy in a replica run: the earlier cycle's counts plus the copies bound since.
            seen, earlier = cached
            s = earlier.clone()
            s.pod = pod
            by_name = self.handle.snapshot.by_name
            for copy, node in memo.bound[seen:]:
                s.update_with(copy, by_name[node], 1)
        else:
            s = self._count(pod)
        if memo is not None:
            # Kept as it is: a cycle's state is only changed on clones (nominated pods,
            # preemption), and the next copy clones it before adding to it.
            memo.states[PRE_FILTER_KEY] = (len(memo.bound), s)
        if not s.existing_anti_affinity and not s.required_affinity and not s.required_anti_affinity:
            return None, Status.skip()
        state.data[PRE_FILTER_KEY] = s
        return None, Status.success()

    def _count(self, pod: PodInfo) -> PreFilterState:
        snapshot: Snapshot = self.handle.snapshot
        terms = pod.pod_terms
        s = PreFilterState(
            pod,
            tuple(merge_namespaces(snapshot, t) for t in terms.required_affinity),
            tuple(merge_namespaces(snapshot, t) for t in terms.required_anti_affinity),
            snapshot.namespace_labels_of(pod.namespace),
        )
        by_name = snapshot.by_name
        # The existing pods' required anti-affinity, one match per distinct term.
        for (_what, t, _w), per_node in matching(existing_anti_affinity_groups(snapshot), pod, s.namespace_labels):
            for name, count in per_node.items():
                _bump(s.existing_anti_affinity, by_name[name].node.labels, t.topology_key, count)
        if s.required_affinity:
            first = s.required_affinity[0]
            for existing in _candidate_pods(snapshot, first):
                if _matches_all(s.required_affinity, existing):
                    node = by_name.get(existing.node_name)
                    if node is not None:
                        for t in s.required_affinity:
                            _bump(s.affinity, node.node.labels, t.topology_key, 1)
        for t in s.required_anti_affinity:
            for existing in _candidate_pods(snapshot, t):
                if t.matches(existing.namespace, existing.labels, None):
                    node = by_name.get(existing.node_name)
                    if node is not None:
                        _bump(s.anti_affinity, node.node.labels, t.topology_key, 1)
        return s

    def add_pod(self, state: CycleState, pod: PodInfo, pod_to_add: PodInfo, node: NodeInfo) -> Status:
        s: PreFilterState | None = state.data.get(PRE_FILTER_KEY)
        if s is None:
            return Status.error(f'reading "{PRE_FILTER_KEY}" from cycleState: not found')
        s.update_with(pod_to_add, node, 1)
        return Status.success()

    def remove_pod(self, state: CycleState, pod: PodInfo, pod_to_remove: PodInfo, node: NodeInfo) -> Status:
        s: PreFilterState | None = state.data.get(PRE_FILTER_KEY)
        if s is None:
            return Status.error(f'reading "{PRE_FILTER_KEY}" from cycleState: not found')
        s.update_with(pod_to_remove, node, -1)
        return Status.success()

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status:
        s: PreFilterState | None = state.data.get(PRE_FILTER_KEY)
        if s is None:
            return Status.error(f'reading "{PRE_FILTER_KEY}" from cycleState: not found')
        labels = node.node.labels
        if s.required_affinity and not self._satisfies_affinity(s, labels):
            return Status.unresolvable(ERR_AFFINITY)
        snapshot: Snapshot = self.handle.snapshot
        # A node of the snapshot (this or a copy of it: the same labels) is answered from
        # the nodes the counts fail, worked out once per state.
        why = s.failing_nodes(snapshot).get(node.name) if node.name in snapshot.by_name else s.failure_on(labels)
        return Status.success() if why is None else Status.unschedulable(why)

    def filter_nodes(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> list[tuple[int, Status]] | None:
        """:meth:`filter`'s failures among ``nodes`` (their positions), in bulk: the same
        checks with the state and the failing nodes looked up once. None without the state."""
        s: PreFilterState | None = state.data.get(PRE_FILTER_KEY)
        if s is None:
            return None
        if not nodes:
            return []
        snapshot: Snapshot = self.handle.snapshot
        # A few nodes (a replica copy's changed domains) are answered from their labels:
        # the failing nodes of the whole snapshot would cost more than they do.
        failing = s.failing_nodes(snapshot) if s.failing is not None or len(nodes) > _FEW_NODES else None
        by_name = snapshot.by_name
        required = bool(s.required_affinity)
        satisfies = self._satisfies_affinity
        out: list[tuple[int, Status]] = []
        for i, ni in enumerate(nodes):
            if required and not satisfies(s, ni.node.labels):
                out.append((i, Status.unresolvable(ERR_AFFINITY)))
                continue
            name = ni.name
            why = failing.get(name) if failing is not None and name in by_name else s.failure_on(ni.node.labels)
            if why is not None:
                out.append((i, Status.unschedulable(why)))
        return out

    def replica_changes(self, before: CycleState, after: CycleState, node: NodeInfo) -> list[Pair] | None:
        """The label pairs whose nodes may get another Filter answer once a copy is bound to
        ``node``: its pairs whose counts moved; None (every node) when the first pod
        matching the pod's affinity appears, which ends the first-pod exception everywhere."""
        a: PreFilterState | None = before.data.get(PRE_FILTER_KEY)
        b: PreFilterState | None = after.data.get(PRE_FILTER_KEY)
        if a is None or b is None or bool(a.affinity) != bool(b.affinity):
            return None
        return [
            pair for pair in node.node.labels.items()
            if a.existing_anti_affinity.get(pair) != b.existing_anti_affinity.get(pair)
            or a.affinity.get(pair) != b.affinity.get(pair)
            or a.anti_affinity.get(pair) != b.anti_affinity.get(pair)
        ]

    @staticmethod
    def _satisfies_affinity(s: PreFilterState, labels: dict[str, str]) -> bool:
        pods_exist = True
        for t in s.required_affinity:
            v = labels.get(t.topology_key)
            if v is None:
                return False  # every topology key must be on the node
            if s.affinity.get((t.topology_key, v), 0) <= 0:
                pods_exist = False
        if pods_exist:
            return True
        # The first pod of a group with affinity to itself: nothing matches anywhere yet,
        # and the pod matches its own terms.
        return not s.affinity and _matches_all(s.required_affinity, s.pod)

    # ------------------------------------------------------------------ scoring

    def pre_score(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> Status:
        snapshot: Snapshot = self.handle.snapshot
        terms = pod.pod_terms
        # Upstream looks at the spec here, not at the parsed terms.
        a = pod.affinity
        has_constraints = bool(
            ((a.get("podAffinity") or {}).get("preferredDuringSchedulingIgnoredDuringExecution"))
            or ((a.get("podAntiAffinity") or {}).get("preferredDuringSchedulingIgnoredDuringExecution"))
        )
        if self.ignore_existing_preferred and not has_constraints:
            return Status.skip()
        if terms.parse_error is not None:
            return Status.error(f"failed to parse pod: {terms.parse_error}")
        preferred = [WeightedTerm(merge_namespaces(snapshot, w.term), w.weight) for w in terms.preferred_affinity]
        anti = [WeightedTerm(merge_namespaces(snapshot, w.term), w.weight) for w in terms.preferred_anti_affinity]
        ns_labels = snapshot.namespace_labels_of(pod.namespace)
        by_name = snapshot.by_name
        memo = self._replica_memo()
        cached = memo.states.get(PRE_SCORE_KEY) if memo is not None else None
        if memo is not None and cached is not None:
            # A later copy in a replica run: the earlier sums plus what the copies bound since add.
            seen, earlier = cached
            scores = {k: dict(v) for k, v in earlier.items()}
            for copy, node_name in memo.bound[seen:]:
                labels = by_name[node_name].node.labels
                if labels:
                    self._score_incoming_terms(scores, preferred, anti, copy, labels)
                    if copy.has_pod_affinity:
                        self._score_existing_terms(scores, copy, labels, pod, ns_labels)
        else:
            scores = {}
            # The incoming pod's preferred terms against every existing pod they can match.
            for terms_list, sign in ((preferred, 1), (anti, -1)):
                for w in terms_list:
                    for existing in _candidate_pods(snapshot, w.term):
                        if w.term.matches(existing.namespace, existing.labels, None):
                            node = by_name.get(existing.node_name)
                            if node is not None and node.node.labels:
                                _add(scores, w.term.topology_key, node.node.labels, w.weight * sign)
            # Existing pods' terms that the incoming pod matches, one match per distinct term
            # (what _score_existing_terms does pod by pod).
            for (what, t, weight), per_node in matching(existing_scoring_groups(snapshot), pod, ns_labels):
                if what == "hard":
                    if self.hard_weight <= 0:
                        continue
                    amount = self.hard_weight
                elif self.ignore_existing_preferred:
                    continue
                else:
                    amount = weight if what == "pref" else -weight
                for name, count in per_node.items():
                    labels = by_name[name].node.labels
                    if labels:
                        _add(scores, t.topology_key, labels, amount * count)
        if memo is not None:
            # Kept as it is (the state never changes it; the next copy copies it first).
            memo.states[PRE_SCORE_KEY] = (len(memo.bound), scores)
        if not scores:
            return Status.skip()
        state.data[PRE_SCORE_KEY] = PreScoreState(scores)
        return Status.success()

    @staticmethod
    def _score_incoming_terms(scores: dict[str, dict[str, int]], preferred: list[WeightedTerm],
                              anti: list[WeightedTerm], existing: PodInfo, labels: dict[str, str]) -> None:
        for terms_list, sign in ((preferred, 1), (anti, -1)):
            for w in terms_list:
                if w.term.matches(existing.namespace, existing.labels, None):
                    _add(scores, w.term.topology_key, labels, w.weight * sign)

    def _score_existing_terms(self, scores: dict[str, dict[str, int]], existing: PodInfo, labels: dict[str, str],
                              pod: PodInfo, ns_labels: dict[str, str] | None) -> None:
        """An existing pod's required affinity (hardPodAffinityWeight) and preferred terms
        that the incoming pod matches, at the existing pod's node."""
        et = existing.pod_terms
        if self.hard_weight > 0:
            for t in et.required_affinity:
                if t.matches(pod.namespace, pod.labels, ns_labels):
                    _add(scores, t.topology_key, labels, self.hard_weight)
        if not self.ignore_existing_preferred:
            for w in et.preferred_affinity:
                if w.term.matches(pod.namespace, pod.labels, ns_labels):
                    _add(scores, w.term.topology_key, labels, w.weight)
            for w in et.preferred_anti_affinity:
                if w.term.matches(pod.namespace, pod.labels, ns_labels):
                    _add(scores, w.term.topology_key, labels, -w.weight)

    # ------------------------------------------------------------------ replica runs: scores

    def replica_score_changes(self, before: CycleState, after: CycleState, node: NodeInfo) -> list[Pair] | None:
        """The label pairs whose nodes may score otherwise once a copy is bound to ``node``:
        PreScore's sums only grow at the bound node's domains (a copy's own terms and the
        terms matching it count there), so those of its pairs whose sums moved."""
        a: PreScoreState | None = before.data.get(PRE_SCORE_KEY)
        b: PreScoreState | None = after.data.get(PRE_SCORE_KEY)
        if a is None or b is None:
            return None
        labels = node.node.labels
        pairs: list[Pair] = []
        for key in a.topology_score.keys() | b.topology_score.keys():
            v = labels.get(key)
            if v is not None and (a.topology_score.get(key, {}).get(v, 0)
                                  != b.topology_score.get(key, {}).get(v, 0)):
                pairs.append((key, v))
        return pairs

    def replica_normalizer(self, state: CycleState) -> AffinityNormalizer | None:
        s: PreScoreState | None = state.data.get(PRE_SCORE_KEY)
        return AffinityNormalizer() if s is not None and s.topology_score else None

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> tuple[int, Status]:
        s: PreScoreState | None = state.data.get(PRE_SCORE_KEY)
        if s is None:  # PreScore disabled: no fallback upstream either
            return 0, Status.error(f'failed to read "{PRE_SCORE_KEY}" from cycleState: not found')
        labels = node.node.labels
        total = 0
        for key, values in s.topology_score.items():
            v = labels.get(key)
            if v is not None:
                total += values.get(v, 0)
        return total, Status.success()

    def normalize_score(self, state: CycleState, pod: PodInfo, scores: dict[str, int]) -> Status:
        s: PreScoreState | None = state.data.get(PRE_SCORE_KEY)
        if s is None or not s.topology_score or not scores:
            return Status.success()
        lo = min(scores.values())
        hi = max(scores.values())
        diff = hi - lo
        for name, v in scores.items():
            # Go: int64(float64(MaxNodeScore) * (float64(v - min) / float64(max - min))).
            scores[name] = int(float(MAX_NODE_SCORE) * ((v - lo) / diff)) if diff > 0 else 0
        return Status.success()

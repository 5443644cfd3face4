"""PodTopologySpread: spread matching pods evenly over topology domains.

Hard constraints (``whenUnsatisfiable: DoNotSchedule``) are counted in PreFilter and
checked per node in Filter: a node is rejected when placing the pod there would make its
domain exceed the global minimum by more than ``maxSkew``.  Soft constraints
(``ScheduleAnyway``) — or, for a pod without constraints, the default constraints
(System: hostname maxSkew 3 and zone maxSkew 5, with a selector taken from the Services,
ReplicationControllers, ReplicaSets and StatefulSets selecting the pod) — score nodes by
the weighted number of matching pods in their domains, fewer being better.
"""

from __future__ import annotations

import heapq
import math
import operator
from collections.abc import Callable, Collection, Hashable, Sequence
from dataclasses import dataclass, field, replace
from itertools import islice
from operator import lt
from typing import Any

from kschedx.core.api.model import PodInfo
from kschedx.core.api.selectors import SelectorError
from kschedx.core.errors import InputError
from kschedx.core.framework.interface import (
    MAX_NODE_SCORE,
    CycleState,
    Handle,
    Plugin,
    PreFilterResult,
    ReplicaMemo,
    Status,
)
from kschedx.core.plugins.podtopologyspread_common import (
    DO_NOT_SCHEDULE,
    LABEL_HOSTNAME,
    SCHEDULE_ANYWAY,
    SYSTEM_DEFAULT_CONSTRAINTS,
    Constraint,
    InclusionPolicy,
    default_selector,
    eligible_domains,
    matching_pods_per_node,
    node_has_keys,
    parse_constraints,
)
from kschedx.core.snapshot import NodeInfo, Snapshot

NAME = "PodTopologySpread"
PRE_FILTER_KEY = "PreFilter" + NAME
PRE_SCORE_KEY = "PreScore" + NAME
# The raw scores of this cycle's Score by what a node reads (see ``score``), with the
# PreScore state they were worked out from.
_RAW_SCORES = "RawScores" + NAME

ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints"
ERR_REASON_NODE_LABEL_NOT_MATCH = ERR_REASON_CONSTRAINTS_NOT_MATCH + " (missing required label)"

SYSTEM_DEFAULTING = "System"
LIST_DEFAULTING = "List"

_MAX_INT32 = 2**31 - 1


# --------------------------------------------------------------------------- PreFilter state


class CriticalPaths:
    """The two domains with the fewest matching pods for one constraint.

    ``paths[0]`` always holds the minimum; ``paths[1]`` is only guaranteed to be no smaller
    (upstream keeps two entries because preemption only ever removes pods from one node).
    """

    __slots__ = ("paths",)

    def __init__(self) -> None:
        self.paths: list[list[Any]] = [["", _MAX_INT32], ["", _MAX_INT32]]

    def update(self, value: str, num: int) -> None:
        p = self.paths
        if value == p[0][0]:
            i = 0
        elif value == p[1][0]:
            i = 1
        else:
            i = -1
        if i >= 0:
            p[i][1] = num
            if p[0][1] > p[1][1]:
                p[0], p[1] = p[1], p[0]
        elif num < p[0][1]:
            p[1] = p[0]
            p[0] = [value, num]
        elif num < p[1][1]:
            p[1] = [value, num]

    @property
    def min_match(self) -> int:
        return int(self.paths[0][1])

    def clone(self) -> CriticalPaths:
        c = CriticalPaths()
        c.paths = [list(self.paths[0]), list(self.paths[1])]
        return c


@dataclass
class PreFilterState:
    """Matching pods per domain of each hard constraint, and each constraint's minimum.

    Unlike InterPodAffinity's state, this one is recounted for every replica copy rather
    than carried over: the two-entry critical paths only stay exact while counts go down
    or are rebuilt in order. Raising domains one after another (A=B=C=0, then A+1, B+1)
    leaves paths holding A and B at 1 while C is still 0, so a carried minimum would be
    wrong."""

    constraints: list[Constraint]
    critical_paths: list[CriticalPaths] = field(default_factory=list)
    # Per constraint: domain value -> matching pods; a domain is present (maybe with 0)
    # when at least one eligible node belongs to it.
    counts: list[dict[str, int]] = field(default_factory=list)
    # Per constraint: 1 when the incoming pod matches its own selector (fixed for the cycle).
    self_match: list[int] | None = None
    # Filter's per-constraint test, (topology key, counts, the largest count a domain may
    # hold): worked out once per cycle rather than once per node; dropped on every update.
    checks: list[tuple[str, dict[str, int], int]] | None = None

    def min_match(self, i: int) -> int:
        """The global minimum for constraint ``i``, 0 while fewer than minDomains domains exist."""
        if len(self.counts[i]) < self.constraints[i].min_domains:
            return 0
        return self.critical_paths[i].min_match

    def clone(self) -> PreFilterState:
        return PreFilterState(
            self.constraints,  # never mutated: shared
            [p.clone() for p in self.critical_paths],
            [dict(m) for m in self.counts],
            self.self_match,
        )


@dataclass
class PreScoreState:
    constraints: list[Constraint]
    # Feasible nodes lacking a topology key (non-default constraints only): scored 0.
    ignored: set[str]
    # Per constraint (non-hostname only): domain value -> matching pods.
    counts: list[dict[str, int]]
    # Per constraint: log(number of domains + 2), so small topologies are not drowned out.
    weights: list[float]
    # Per constraint: node name -> matching pods on it (the hostname constraints' counts).
    per_node: list[dict[str, int]]


@dataclass(frozen=True)
class SpreadNormalizer:
    """NormalizeScore in parts, for replica runs: the parameters (the minimum and maximum
    over the scored nodes but the ignored ones) and one node's normalized score."""

    ignored: set[str]

    def params(self, raw: dict[str, int], names: list[str]) -> tuple[int, int]:
        ign = self.ignored
        return self.bounds([raw[n] for n in names if n not in ign] if ign else list(map(raw.__getitem__, names)))

    @staticmethod
    def bounds(values: Collection[int]) -> tuple[int, int]:
        """The parameters from the raw scores of the nodes not ignored."""
        if not values:
            return 0, 0
        return min(values), max(0, max(values))

    def share(self, name: str, raw: int, params: tuple[int, int]) -> int:
        if name in self.ignored:
            return 0
        lo, hi = params
        if hi == 0:
            return MAX_NODE_SCORE
        return MAX_NODE_SCORE * (hi + lo - raw) // hi

    def normalize(self, scores: dict[str, int]) -> None:
        params = self.params(scores, list(scores))
        for name, v in scores.items():
            scores[name] = self.share(name, v, params)


def topology_normalizing_weight(size: int) -> float:
    return math.log(size + 2)


def score_for_count(count: int, max_skew: int, weight: float) -> float:
    # maxSkew-1 waters down differences between domains: the higher the tolerated skew,
    # the less a few extra pods matter.
    return count * weight + (max_skew - 1)


def go_round(x: float) -> int:
    """Go's math.Round: halves away from zero (Python's round() goes to even)."""
    if x < 0:
        return -go_round(-x)
    r = math.floor(x)
    if x - r >= 0.5:
        r += 1
    return int(r)


def _raw_score(s: PreScoreState, parts: Sequence[Any]) -> int:
    """Score of a node given what it reads per constraint: None (no such key, not counted),
    its hostname count as a 1-tuple, or its domain value (that domain's count)."""
    total = 0.0
    for i, c in enumerate(s.constraints):
        part = parts[i]
        if part is None:
            continue
        cnt = part[0] if isinstance(part, tuple) else s.counts[i][part]
        total += score_for_count(cnt, c.max_skew, s.weights[i])
    return go_round(total)


# --------------------------------------------------------------------------- args


def _validate_args(args: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    defaulting = args.get("defaultingType") or SYSTEM_DEFAULTING
    constraints = list(args.get("defaultConstraints") or [])
    prefix = "PodTopologySpread args"
    if defaulting not in (SYSTEM_DEFAULTING, LIST_DEFAULTING):
        raise InputError(f'{prefix}: defaultingType: Unsupported value: "{defaulting}": '
                         'supported values: "List", "System"')
    if defaulting == SYSTEM_DEFAULTING and constraints:
        raise InputError(f'{prefix}: defaultConstraints: Invalid value: when .defaultingType is "System", '
                         ".defaultConstraints must be empty")
    seen: set[tuple[str, str]] = set()
    for i, c in enumerate(constraints):
        where = f"{prefix}: defaultConstraints[{i}]"
        if not isinstance(c, dict):
            raise InputError(f"{where}: must be a mapping")
        if int(c.get("maxSkew") or 0) <= 0:
            raise InputError(f"{where}.maxSkew: Invalid value: {c.get('maxSkew')}: must be greater than zero")
        if not c.get("topologyKey"):
            raise InputError(f"{where}.topologyKey: Required value: can not be empty")
        when = c.get("whenUnsatisfiable")
        if when not in (DO_NOT_SCHEDULE, SCHEDULE_ANYWAY):
            raise InputError(f'{where}.whenUnsatisfiable: Unsupported value: "{when}": '
                             'supported values: "DoNotSchedule", "ScheduleAnyway"')
        if c.get("labelSelector") is not None:
            raise InputError(f"{where}.labelSelector: Forbidden: constraint must not define a selector, "
                             "as they deduced for each pod")
        pair = (str(c["topologyKey"]), str(when))
        if pair in seen:
            raise InputError(f"{where}: Duplicate value: {{{pair[0]!r}, {pair[1]!r}}}")
        seen.add(pair)
    return defaulting, constraints


# --------------------------------------------------------------------------- the plugin


DEFAULT_SELECTOR_KEY = NAME + "/defaultSelector"


def _signature(constraints: list[Constraint]) -> tuple[Any, ...]:
    return tuple((c.topology_key, c.max_skew, c.min_domains, c.selector, c.honor_node_affinity, c.honor_node_taints)
                 for c in constraints)


def replica_counts(memo: Any, pod: PodInfo, constraints: list[Constraint], snapshot: Any) -> list[dict[str, int]] | None:
    """PreFilter's counts for a copy of a replica run: the previous copy's counts plus the
    copies bound since, counted as PreFilter counts them (None: count from scratch)."""
    cached = memo.states.get(PRE_FILTER_KEY)
    if cached is None:
        return None
    seen, (sig, earlier) = cached
    if sig != _signature(constraints) or seen > len(memo.bound):
        return None
    counts = [dict(m) for m in earlier]
    policy = InclusionPolicy(pod)
    by_name = snapshot.by_name
    for copy, node_name in memo.bound[seen:]:
        ni = by_name.get(node_name)
        if ni is None:
            return None
        labels = ni.node.labels
        if not node_has_keys(labels, constraints):
            continue
        # matching_pods_per_node's rules: the pod's namespace, not terminating, a selector
        # with requirements.
        if copy.namespace != pod.namespace or copy.deletion_timestamp is not None:
            continue
        for i, ok in enumerate(policy.eligible(constraints, ni)):
            sel = constraints[i].selector
            if not ok or sel.nothing or sel.empty or not sel.matches(copy.labels):
                continue
            m = counts[i]
            value = labels[constraints[i].topology_key]
            m[value] = m.get(value, 0) + 1
    return counts


def _scoring_domains(snapshot: Snapshot, nodes: list[NodeInfo], constraints: list[Constraint],
                     require_all: bool, state: CycleState | None = None) -> tuple[set[str], list[dict[str, int]]]:
    """PreScore's nodes left out (without every topology key, when all are required) and,
    per constraint, the domains of the others (each at 0, in the order ``nodes`` first
    reach them; hostname domains are counted per node in Score). For the snapshot's own
    nodes in node order they come from its label groups: each key's few values, not a
    pass over every node. (``state``: the cycle's, which keeps the nodes' positions.)"""
    pos = snapshot.positions_of(nodes) if state is None else state.positions_in(snapshot, nodes)
    if pos is None or not all(map(lt, pos, islice(pos, 1, None))):
        return _scoring_domains_by_node(snapshot, nodes, constraints, require_all)
    infos = snapshot.node_infos
    every = len(pos) == len(infos)  # (ascending and as many: every node)
    feasible = None if every else set(pos)
    missing: set[int] = set()
    if require_all:
        for key in {c.topology_key for c in constraints}:
            unset = snapshot.label_groups((key,)).get((None,), ())
            missing.update(unset if feasible is None else feasible.intersection(unset))
    ignored = {infos[i].name for i in missing}
    counts: list[dict[str, int]] = []
    for c in constraints:
        if c.topology_key == LABEL_HOSTNAME:
            counts.append({})
            continue
        # Each domain at its first counted node: the order a pass over ``nodes`` gives.
        first: dict[str, int] = {}
        for (value,), members in snapshot.label_groups((c.topology_key,)).items():
            at = next((i for i in members if (feasible is None or i in feasible) and i not in missing), None)
            if at is None:
                continue
            domain = "" if value is None else value  # a missing key (system defaults only) is ""
            if domain not in first or at < first[domain]:
                first[domain] = at
        counts.append(dict.fromkeys(sorted(first, key=first.__getitem__), 0))
    return ignored, counts


def _scoring_domains_by_node(snapshot: Snapshot, nodes: list[NodeInfo], constraints: list[Constraint],
                             require_all: bool) -> tuple[set[str], list[dict[str, int]]]:
    """:func:`_scoring_domains` read node by node (nodes not the snapshot's, or not in its order)."""
    rows = snapshot.label_rows(tuple(c.topology_key for c in constraints), nodes)
    ignored: set[str] = set()
    if require_all:
        ignored = {ni.name for ni, row in zip(nodes, rows, strict=True) if None in row}
        if ignored:
            rows = [row for row in rows if None not in row]
    counts: list[dict[str, int]] = []
    for i, c in enumerate(constraints):
        if c.topology_key == LABEL_HOSTNAME:
            counts.append({})
            continue
        values = dict.fromkeys(map(operator.itemgetter(i), rows), 0)
        if None in values:  # a missing key (system defaults only) is the domain "" here, as upstream
            values = dict.fromkeys(("" if v is None else v for v in values), 0)
        counts.append(values)
    return ignored, counts


class PodTopologySpread(Plugin):
    name = NAME

    def __init__(self, handle: Handle, args: dict[str, Any] | None = None) -> None:
        super().__init__(handle, args)
        defaulting, constraints = _validate_args(self.args)
        self.system_defaulted = defaulting == SYSTEM_DEFAULTING
        self.default_constraints: list[dict[str, Any]] = (
            [dict(c) for c in SYSTEM_DEFAULT_CONSTRAINTS] if self.system_defaulted else constraints
        )

    # ------------------------------------------------------------------ constraints

    def _default_constraints(self, pod: PodInfo, action: str) -> list[Constraint]:
        constraints = parse_constraints(self.default_constraints, pod.labels, action)
        if not constraints:
            return []
        memo = getattr(self.handle, "memo", None)
        if isinstance(memo, ReplicaMemo) and memo.engine is not None:
            # The copies of a replica run share labels and namespace, and binding them
            # changes no Service or controller: the selector is found once per run.
            cached = memo.states.get(DEFAULT_SELECTOR_KEY)
            if cached is None:
                cached = memo.states[DEFAULT_SELECTOR_KEY] = (0, default_selector(pod, self.handle.objects))
            selector = cached[1]
        else:
            selector = default_selector(pod, self.handle.objects)
        if selector.empty:
            return []  # nothing selects the pod: no default spreading
        return [c.with_selector(selector) for c in constraints]

    def _constraints(self, pod: PodInfo, action: str) -> list[Constraint]:
        items = pod.spec.get("topologySpreadConstraints")
        if items:
            return parse_constraints(items, pod.labels, action)
        return self._default_constraints(pod, action)

    # ------------------------------------------------------------------ PreFilter / Filter

    def pre_filter(
        self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        try:
            constraints = self._constraints(pod, DO_NOT_SCHEDULE)
        except SelectorError as e:
            return None, Status.error(f"get constraints from pod: {e}")
        if not constraints:
            return None, Status.skip()

        snapshot = self.handle.snapshot
        memo = getattr(self.handle, "memo", None)
        engine_run = isinstance(memo, ReplicaMemo) and memo.engine is not None
        counts = replica_counts(memo, pod, constraints, snapshot) if engine_run else None
        if counts is None:
            per_node = [matching_pods_per_node(snapshot, pod.namespace, c.selector) for c in constraints]
            counts = [{} for _ in constraints]
            if nodes is snapshot.node_infos:
                # Every eligible domain starts at 0; only nodes with matching pods add to it.
                for i, (domains, domain_of) in enumerate(eligible_domains(snapshot, pod, constraints)):
                    m = counts[i] = dict.fromkeys(domains, 0)
                    for name, n in per_node[i].items():
                        value = domain_of.get(name)
                        if value is not None:
                            m[value] += n
            else:
                policy = InclusionPolicy(pod)
                for ni in nodes:
                    labels = ni.node.labels
                    if not node_has_keys(labels, constraints):
                        continue
                    name = ni.name
                    for i, ok in enumerate(policy.eligible(constraints, ni)):
                        if not ok:
                            continue
                        value = labels[constraints[i].topology_key]
                        m = counts[i]
                        m[value] = m.get(value, 0) + per_node[i].get(name, 0)
        if engine_run:
            assert isinstance(memo, ReplicaMemo)
            # Kept as they are: the state's counts change only on its clones (nominated pods,
            # preemption), and the next copy copies them before adding to them.
            memo.states[PRE_FILTER_KEY] = (len(memo.bound), (_signature(constraints), counts))

        paths: list[CriticalPaths] = []
        for m in counts:
            cp = CriticalPaths()
            # Upstream feeds the domains in Go map order (random); feeding them from the
            # fewest pods up keeps paths[1] the true second minimum, deterministically
            # (only the two smallest matter: fed in order, they are what the paths keep).
            for num, value in heapq.nsmallest(2, ((num, value) for value, num in m.items())):
                cp.update(value, num)
            paths.append(cp)
        state.data[PRE_FILTER_KEY] = PreFilterState(constraints, paths, counts)
        return None, Status.success()

    # ------------------------------------------------------------------ replica runs

    def replica_class_keys(self, state: CycleState) -> tuple[str, ...] | None:
        """Filter's answer for a node depends only on its values for these keys."""
        s: PreFilterState | None = state.data.get(PRE_FILTER_KEY)
        return tuple(c.topology_key for c in s.constraints) if s is not None else None

    def replica_changes(self, before: CycleState, after: CycleState, node: NodeInfo) -> list[tuple[str, str]] | None:
        """The label pairs whose nodes may get another Filter answer once a copy is bound to
        ``node`` (its domains), or None when every node may (a global minimum moved)."""
        a: PreFilterState | None = before.data.get(PRE_FILTER_KEY)
        b: PreFilterState | None = after.data.get(PRE_FILTER_KEY)
        if a is None or b is None or _signature(a.constraints) != _signature(b.constraints):
            return None
        for i in range(len(b.constraints)):
            if a.min_match(i) != b.min_match(i) or len(a.counts[i]) != len(b.counts[i]):
                return None
        labels = node.node.labels
        return [(c.topology_key, labels[c.topology_key]) for c in b.constraints if c.topology_key in labels]

    def _update_with_pod(
        self, state: CycleState, pod: PodInfo, other: PodInfo, node: NodeInfo, delta: int
    ) -> Status:
        s: PreFilterState | None = state.data.get(PRE_FILTER_KEY)
        if s is None:
            return Status.error(f'reading "{PRE_FILTER_KEY}" from cycleState: not found')
        if other.namespace != pod.namespace:
            return Status.success()
        labels = node.node.labels
        if not node_has_keys(labels, s.constraints):
            return Status.success()
        # Unlike PreFilter's counting, terminating pods and empty selectors are not special here.
        eligible = InclusionPolicy(pod).eligible(s.constraints, node)
        for i, c in enumerate(s.constraints):
            if not c.selector.matches(other.labels):
                continue
            if not eligible[i]:
                continue
            value = labels[c.topology_key]
            n = s.counts[i].get(value, 0) + delta
            s.counts[i][value] = n
            s.critical_paths[i].update(value, n)
        s.checks = None
        return Status.success()

    def add_pod(self, state: CycleState, pod: PodInfo, pod_to_add: PodInfo, node: NodeInfo) -> Status:
        return self._update_with_pod(state, pod, pod_to_add, node, 1)

    def remove_pod(self, state: CycleState, pod: PodInfo, pod_to_remove: PodInfo, node: NodeInfo) -> Status:
        return self._update_with_pod(state, pod, pod_to_remove, node, -1)

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status:
        s: PreFilterState | None = state.data.get(PRE_FILTER_KEY)
        if s is None:
            return Status.error(f'reading "{PRE_FILTER_KEY}" from cycleState: not found')
        if not s.constraints:
            return Status.success()
        checks = s.checks
        if checks is None:
            self_match = s.self_match
            if self_match is None:
                self_match = s.self_match = [1 if c.selector.matches(pod.labels) else 0 for c in s.constraints]
            # skew = count + self_match - min > maxSkew  <=>  count > maxSkew + min - self_match
            checks = s.checks = [
                (c.topology_key, s.counts[i], c.max_skew + s.min_match(i) - self_match[i])
                for i, c in enumerate(s.constraints)
            ]
        labels = node.node.labels
        for key, counts, limit in checks:
            value = labels.get(key)
            if value is None:
                return Status.unresolvable(ERR_REASON_NODE_LABEL_NOT_MATCH)
            if counts.get(value, 0) > limit:
                return Status.unschedulable(ERR_REASON_CONSTRAINTS_NOT_MATCH)
        return Status.success()

    def filter_nodes(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> list[tuple[int, Status]] | None:
        """:meth:`filter`'s failures among ``nodes`` (their positions), in bulk: a node's
        answer depends only on its values of the constraints' keys, so each distinct row
        of values is judged once. None without the state."""
        s: PreFilterState | None = state.data.get(PRE_FILTER_KEY)
        if s is None:
            return None
        if not s.constraints:
            return []
        rows = self.handle.snapshot.label_rows(tuple(c.topology_key for c in s.constraints), nodes)
        by_row: dict[tuple[str | None, ...], Status] = {}
        out: list[tuple[int, Status]] = []
        for i, row in enumerate(rows):
            st = by_row.get(row)
            if st is None:
                st = by_row[row] = self.filter(state, pod, nodes[i])
            if not st.is_success:
                out.append((i, st))
        return out

    # ------------------------------------------------------------------ replica runs: scores

    def replica_score_changes(self, before: CycleState, after: CycleState,
                              node: NodeInfo) -> list[tuple[str, str]] | None:
        """The label pairs whose nodes may score otherwise once a copy is bound to ``node``
        (besides ``node`` itself, whose hostname counts moved), or None when any node may:
        the constraints, the domains or the normalizing weights (from the feasible nodes)
        changed."""
        a: PreScoreState | None = before.data.get(PRE_SCORE_KEY)
        b: PreScoreState | None = after.data.get(PRE_SCORE_KEY)
        if a is None or b is None or a.weights != b.weights or \
                _signature(a.constraints) != _signature(b.constraints):
            return None
        pairs: list[tuple[str, str]] = []
        for i, c in enumerate(b.constraints):
            old, new = a.counts[i], b.counts[i]
            if old.keys() != new.keys():
                return None
            pairs.extend((c.topology_key, v) for v, n in new.items() if old[v] != n)
        return pairs

    def _replica_keep_pre_score(self, state: CycleState, nodes: list[NodeInfo]) -> None:
        memo = getattr(self.handle, "memo", None)
        if isinstance(memo, ReplicaMemo) and memo.engine is not None:
            s: PreScoreState = state.data[PRE_SCORE_KEY]
            # per_node may be the snapshot's cached counts: not ours to change (False).
            memo.states[PRE_SCORE_KEY] = (len(memo.bound), (_signature(s.constraints), nodes, s, False))

    def _replica_pre_score(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo],
                           constraints: list[Constraint], require_all: bool) -> bool:
        """PreScore for a copy of a replica run over the same feasible nodes as the copy
        before: that copy's state plus the copies bound since, counted as PreScore counts
        them (the ignored nodes, domains and weights depend on the feasible nodes alone).
        False: PreScore counts from scratch."""
        memo = getattr(self.handle, "memo", None)
        if not isinstance(memo, ReplicaMemo) or memo.engine is None:
            return False
        cached = memo.states.get(PRE_SCORE_KEY)
        if cached is None:
            return False
        seen, (sig, before, prev, owned) = cached
        # The replica engine hands the same list again while no verdict flipped.
        if seen > len(memo.bound) or sig != _signature(constraints) or len(before) != len(nodes) \
                or (before is not nodes and not all(map(operator.is_, before, nodes))):
            return False
        by_name = self.handle.snapshot.by_name
        counts = [dict(m) for m in prev.counts]
        # The per-node counts are only read for the bound nodes' constraints; once copied
        # they are this run's own and grow in place.
        per_node = prev.per_node if owned else [dict(m) for m in prev.per_node]
        policy = InclusionPolicy(pod)
        for copy, node_name in memo.bound[seen:]:
            ni = by_name.get(node_name)
            if ni is None:
                return False
            # matching_pods_per_node's rules: the pod's namespace, not terminating, a
            # selector with requirements.
            if copy.namespace != pod.namespace or copy.deletion_timestamp is not None:
                continue
            labels = ni.node.labels
            counted = not require_all or node_has_keys(labels, constraints)
            eligible: list[bool] | None = None
            for i, c in enumerate(constraints):
                sel = c.selector
                if sel.nothing or sel.empty or not sel.matches(copy.labels):
                    continue
                m = per_node[i]
                m[node_name] = m.get(node_name, 0) + 1
                m = counts[i]
                value = labels.get(c.topology_key, "")
                if not counted or value not in m:
                    continue
                if eligible is None:
                    eligible = policy.eligible(constraints, ni)
                if eligible[i]:
                    m[value] += 1
        s = PreScoreState(constraints, prev.ignored, counts, prev.weights, per_node)
        state.data[PRE_SCORE_KEY] = s
        memo.states[PRE_SCORE_KEY] = (len(memo.bound), (sig, nodes, s, True))
        return True

    def replica_score_classes(
        self, state: CycleState,
    ) -> tuple[Callable[[NodeInfo], Hashable], Callable[[Hashable], int]] | None:
        """Score by domain: what Score reads of a node (whether it is ignored, its value for
        each constraint's key, its own count for hostname constraints) as a key, and the raw
        score of a key, so that a copy scores each distinct key once however many nodes
        share it. None without a PreScore state."""
        s: PreScoreState | None = state.data.get(PRE_SCORE_KEY)
        if s is None:
            return None
        ignored = s.ignored
        reads = [(c.topology_key, c.topology_key == LABEL_HOSTNAME, s.per_node[i])
                 for i, c in enumerate(s.constraints)]

        def key(ni: NodeInfo) -> Hashable:
            name = ni.name
            if name in ignored:
                return None
            get = ni.node.labels.get
            parts: list[Any] = []
            for k, host, per in reads:
                v = get(k)
                parts.append(None if v is None else (per.get(name, 0),) if host else v)
            return tuple(parts)

        def raw(k: Hashable) -> int:
            return 0 if k is None else _raw_score(s, k)  # type: ignore[arg-type]

        return key, raw

    def replica_score_keys(self, state: CycleState, nodes: list[NodeInfo]) -> list[Hashable] | None:
        """The class key of ``replica_score_classes`` for each of ``nodes`` at once, from the
        snapshot's label columns (``Snapshot.label_rows``). None without a PreScore state."""
        s: PreScoreState | None = state.data.get(PRE_SCORE_KEY)
        snapshot = self.handle.snapshot
        if s is None or not nodes:
            return None
        # Each key's values over ``nodes`` (the snapshot's label column, read by position
        # for its own nodes); a hostname count is read by position too (below).
        every = nodes is snapshot.node_infos
        pos = None if every else state.positions_in(snapshot, nodes)

        def column_of(key: str) -> list[str | None]:
            if every:
                return snapshot.label_values(key)
            if pos is None:
                return [ni.node.labels.get(key) for ni in nodes]
            return list(map(snapshot.label_values(key).__getitem__, pos))

        parts: list[Sequence[Any]] = []
        for i, c in enumerate(s.constraints):
            column = column_of(c.topology_key)
            if c.topology_key == LABEL_HOSTNAME:
                per_node = s.per_node[i]
                if pos is None and not every:
                    counts = [per_node.get(ni.name, 0) for ni in nodes]
                else:
                    # The few nodes with matching pods laid over zeros by position: no
                    # node's name is read (thousands of strings, out of the cache).
                    at = snapshot.node_names()[1]
                    counts = [0] * len(snapshot.node_infos)
                    for name, n in per_node.items():
                        k = at.get(name)
                        if k is not None:
                            counts[k] = n
                    if not every:
                        counts = list(map(counts.__getitem__, pos))  # type: ignore[arg-type]
                # One tuple per distinct count, laid over the nodes by a C-level map.
                boxed = {n: (n,) for n in set(counts)}
                if None in column:
                    parts.append([None if v is None else boxed[n] for v, n in zip(column, counts, strict=True)])
                else:
                    parts.append(list(map(boxed.__getitem__, counts)))
            else:
                parts.append(column)
        keys: list[Hashable] = list(zip(*parts, strict=True))
        if s.ignored:
            ignored = s.ignored
            keys = [None if ni.name in ignored else k for ni, k in zip(nodes, keys, strict=True)]
        return keys

    def replica_normalizer(self, state: CycleState) -> SpreadNormalizer | None:
        s: PreScoreState | None = state.data.get(PRE_SCORE_KEY)
        return SpreadNormalizer(s.ignored) if s is not None else None

    # ------------------------------------------------------------------ PreScore / Score

    def pre_score(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> Status:
        snapshot = self.handle.snapshot
        all_nodes = snapshot.nodes()
        if not all_nodes:
            return Status.skip()
        has_own = bool(pod.spec.get("topologySpreadConstraints"))
        try:
            if has_own:
                constraints = parse_constraints(pod.spec.get("topologySpreadConstraints"), pod.labels,
                                                SCHEDULE_ANYWAY)
            else:
                constraints = self._default_constraints(pod, SCHEDULE_ANYWAY)
        except SelectorError as e:
            what = "obtaining pod's soft topology spread constraints" if has_own else \
                "setting default soft topology spread constraints"
            return Status.error(f"calculating preScoreState: {what}: {e}")
        if not constraints:
            return Status.skip()
        # System defaults don't require every key, so nodes without a zone label still get
        # hostname spreading.
        require_all = has_own or not self.system_defaulted
        if self._replica_pre_score(state, pod, nodes, constraints, require_all):
            return Status.success()

        ignored, counts = _scoring_domains(snapshot, nodes, constraints, require_all, state)
        weights: list[float] = []
        for i, c in enumerate(constraints):
            size = len(counts[i])
            if c.topology_key == LABEL_HOSTNAME:
                size = len(nodes) - len(ignored)
            weights.append(topology_normalizing_weight(size))

        per_node = [matching_pods_per_node(snapshot, pod.namespace, c.selector) for c in constraints]
        policy = InclusionPolicy(pod)
        # Only domains holding a feasible node are counted, over every node of the cluster:
        # only nodes with matching pods add anything, so those are the ones visited.
        if any(counts):
            by_name = snapshot.by_name
            eligible_of: dict[str, list[bool] | None] = {}
            for i, c in enumerate(constraints):
                m = counts[i]
                if not m:
                    continue
                for name, n in per_node[i].items():
                    if not n:
                        continue
                    if name not in eligible_of:
                        held = by_name.get(name)
                        eligible_of[name] = None if held is None or (
                            require_all and not node_has_keys(held.node.labels, constraints)) \
                            else policy.eligible(constraints, held)
                    eligible = eligible_of[name]
                    if eligible is None or not eligible[i]:
                        continue
                    value = by_name[name].node.labels.get(c.topology_key, "")
                    if value in m:
                        m[value] += n
        state.data[PRE_SCORE_KEY] = PreScoreState(constraints, ignored, counts, weights, per_node)
        self._replica_keep_pre_score(state, nodes)
        return Status.success()

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> tuple[int, Status]:
        s: PreScoreState | None = state.data.get(PRE_SCORE_KEY)
        if s is None:
            return 0, Status.error(f'error reading "{PRE_SCORE_KEY}" from cycleState: not found')
        if node.name in s.ignored:
            return 0, Status.success()
        labels = node.node.labels
        parts: list[Any] = []
        for i, c in enumerate(s.constraints):
            value = labels.get(c.topology_key)
            parts.append(None if value is None else (s.per_node[i].get(node.name, 0),)
                         if c.topology_key == LABEL_HOSTNAME else value)
        # A node's score is a function of what it reads (its domains, its hostname count):
        # worked out once per distinct reading in this cycle's PreScore state.
        memo: tuple[PreScoreState, dict[tuple[Any, ...], int]] | None = state.data.get(_RAW_SCORES)
        if memo is None or memo[0] is not s:
            memo = (s, {})
            state.data[_RAW_SCORES] = memo
        key = tuple(parts)
        raw = memo[1].get(key)
        if raw is None:
            raw = memo[1][key] = _raw_score(s, parts)
        return raw, Status.success()

    def score_nodes(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> list[int] | None:
        """:meth:`score` of each node in bulk: each distinct reading of a node (its scoring
        class, ``replica_score_classes``) scored once. None without the PreScore state."""
        classes = self.replica_score_classes(state)
        if classes is None:
            return None
        key_of, raw_of = classes
        keys = self.replica_score_keys(state, nodes)
        if keys is None:
            keys = list(map(key_of, nodes))
        by_key = {k: raw_of(k) for k in set(keys)}
        return list(map(by_key.__getitem__, keys))

    def window_raws(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]
                    ) -> tuple[list[list[Hashable | None]], Callable[[tuple[int, ...]], list[int]]] | None:
        """For the odds of the scheduler's scan (core.framework.sampling), where PreScore sees
        only a window of ``nodes``: there it differs from this cycle's PreScore only in each
        constraint's number of domains, which sets the normalizing weight (the counts are
        over every node, and a window's domains are among these). Per constraint, each node's
        domain (None: ignored; a hostname domain is the node itself), and the raw scores of
        ``nodes`` for given numbers of domains."""
        s: PreScoreState | None = state.data.get(PRE_SCORE_KEY)
        if s is None:
            return None
        ignored = s.ignored
        keys: list[list[Hashable | None]] = []
        for c in s.constraints:
            col: list[Hashable | None] = []
            for x, ni in enumerate(nodes):
                if ni.name in ignored:
                    col.append(None)
                elif c.topology_key == LABEL_HOSTNAME:
                    col.append(x)
                else:
                    value = ni.node.labels.get(c.topology_key)
                    col.append("" if value is None else value)  # a missing key is the domain "" (defaults only)
            keys.append(col)
        readings: list[tuple[Any, ...] | None] = []
        for ni in nodes:
            if ni.name in ignored:
                readings.append(None)
                continue
            labels = ni.node.labels
            readings.append(tuple(
                None if (value := labels.get(c.topology_key)) is None else (s.per_node[i].get(ni.name, 0),)
                if c.topology_key == LABEL_HOSTNAME else value
                for i, c in enumerate(s.constraints)))

        def raws_for(sizes: tuple[int, ...]) -> list[int]:
            window = replace(s, weights=[topology_normalizing_weight(size) for size in sizes])
            memo: dict[tuple[Any, ...], int] = {}
            out: list[int] = []
            for reading in readings:
                if reading is None:
                    out.append(0)
                    continue
                raw = memo.get(reading)
                if raw is None:
                    raw = memo[reading] = _raw_score(window, reading)
                out.append(raw)
            return out

        return keys, raws_for

    def normalize_score(self, state: CycleState, pod: PodInfo, scores: dict[str, int]) -> Status:
        s: PreScoreState | None = state.data.get(PRE_SCORE_KEY)
        if s is None:
            return Status.error(f'error reading "{PRE_SCORE_KEY}" from cycleState: not found')
        min_score: int | None = None
        max_score = 0
        for name, v in scores.items():
            if name in s.ignored:
                continue
            if min_score is None or v < min_score:
                min_score = v
            if v > max_score:
                max_score = v
        for name, v in scores.items():
            if name in s.ignored:
                scores[name] = 0
            elif max_score == 0:
                scores[name] = MAX_NODE_SCORE
            else:
                assert min_score is not None
                # Fewer matching pods score higher: the node with the fewest gets 100.
                scores[name] = MAX_NODE_SCORE * (max_score + min_score - v) // max_score
        return Status.success()

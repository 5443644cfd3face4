"""Incremental cycles for the copies of one pod template (``--replicas N``).

Binding a copy changes one node (its generation) and, for the plugins that look beyond a
node, the counts of that node's topology domains. The next copy's cycle is therefore the
previous one plus what that binding can change:

* Filter: the bound node is judged again in full; a non-node-local Filter plugin
  (PodTopologySpread, InterPodAffinity) names, through ``replica_changes``, the label
  pairs whose nodes may get another answer, or ``None`` when every node may (a global
  minimum moved). A plugin whose answer depends only on a node's values for a few label
  keys says so through ``replica_class_keys`` and is asked once per domain, not per node;
  when a domain's answer flips, its nodes that fail nothing else change verdict in bulk.
* Score: node-local plugins normalizing with ``default_normalize`` (or not at all) keep
  their raw scores per node and generation, the maximum over the feasible set is taken
  again per copy, and a node's node-local total is worked out again only when its raw
  scores or a normalization maximum changed. A plugin scoring beyond a node names the
  domains a binding changed (``replica_score_changes``) and normalizes in parts
  (``replica_normalizer``); one whose score is a function of a node's class
  (``replica_score_classes``: PodTopologySpread, by the node's domains) is scored once per
  class present, the others per node in the changed domains. Their bounds and shares are
  taken per distinct class or raw score and laid over the feasible nodes in bulk.
* Results: a step's per-node verdicts, score tables and totals are built on first access
  from what the step kept (its verdicts, its feasible nodes and their totals, and the raw
  score versions), so thousands of copies cost neither per-node work nor memory per copy.

Removing a pod (a rollout's controller deletes old pods between its new ones) changes
its node and that node's domains the same way: the engine updates the previous cycle for
every node changed since (``ReplicaMemo.removed`` and the bound copy), asking the same
hooks once per changed node.

Anything else (nominated pods, extenders, --all-reasons, a PreFilter that narrows the
nodes, a plugin without these hooks that doesn't skip, an error status, a single or no
feasible node, a snapshot changed otherwise) runs the ordinary cycle; the decision is
taken per cycle from what the pod and the cluster use.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Hashable, Iterable
from itertools import compress, count, repeat
from operator import add, attrgetter, eq, is_not, mul, not_
from typing import TYPE_CHECKING, Any, cast

from kschedx.core.framework.interface import (
    AnswerTable,
    CycleState,
    NodeRefs,
    Plugin,
    Status,
    default_normalize,
    filter_failures,
    raw_scores,
)
from kschedx.core.framework.result import CycleResult, NodeScore, NodeVerdict, PluginScores
from kschedx.core.snapshot import NodeInfo, Snapshot

if TYPE_CHECKING:
    from kschedx.core.api.model import PodInfo
    from kschedx.core.framework.interface import ReplicaMemo

_generation = attrgetter("generation")
_FEASIBLE = NodeVerdict(True)
# Up to this many domains, a per-domain plugin's nodes are visited by domain (below).
_FEW_CLASSES = 64


class LazyCycleResult(CycleResult):
    """A replica step whose ``nodes``, ``score_plugins`` and ``totals`` are built when first
    read (each is a plain value once built; assigning one replaces it as on any result)."""

    def _lazy(self, name: str) -> Any:
        d = self.__dict__
        if name not in d:
            build = d.pop("_build_" + name, None)
            d[name] = build() if build is not None else None
        return d[name]

    @property
    def nodes(self) -> dict[str, NodeVerdict]:
        value: dict[str, NodeVerdict] = self._lazy("nodes")
        return value

    @nodes.setter
    def nodes(self, value: dict[str, NodeVerdict]) -> None:
        self.__dict__["nodes"] = value
        self.__dict__.pop("_build_nodes", None)

    @property
    def score_plugins(self) -> list[PluginScores]:
        value: list[PluginScores] = self._lazy("score_plugins")
        return value

    @score_plugins.setter
    def score_plugins(self, value: list[PluginScores]) -> None:
        self.__dict__["score_plugins"] = value
        self.__dict__.pop("_build_score_plugins", None)

    @property
    def totals(self) -> dict[str, int]:
        value: dict[str, int] = self._lazy("totals")
        return value

    @totals.setter
    def totals(self, value: dict[str, int]) -> None:
        self.__dict__["totals"] = value
        self.__dict__.pop("_build_totals", None)

    def defer(self, name: str, build: Any) -> None:
        self.__dict__.pop(name, None)
        self.__dict__["_build_" + name] = build

    def runner_up(self) -> tuple[str, int] | None:
        # From the step's kept totals (no dict of them), unless they were replaced.
        build = self.__dict__.get("_runner_up")
        if build is None or "totals" in self.__dict__:
            return super().runner_up()
        second: tuple[str, int] | None = build()
        return second

    @property
    def best_total(self) -> int | None:
        """The winning total, without building the totals of every node."""
        best: int | None = self.__dict__.get("_best_total")
        if best is None and self.best_nodes:
            best = self.totals[self.best_nodes[0]]
        return best


def _verdict_of(st: Status, cache: dict[Any, Any]) -> NodeVerdict:
    # By the status object first (one object serves a whole domain), then by its content.
    hit = cache.get(id(st))
    if hit is not None and hit[0] is st:
        verdict: NodeVerdict = hit[1]
        return verdict
    key = (st.code, st.plugin, tuple(st.reasons))
    v = cache.get(key)
    if v is None:
        v = cache[key] = NodeVerdict(False, st.code.label, st.plugin, list(st.reasons), "Filter")
    cache[id(st)] = (st, v)
    return v


class ReplicaEngine:
    """What the previous copy's cycle decided, kept for the next one (see the module doc)."""

    def __init__(self) -> None:
        self.ready = False
        self.seen = 0  # copies bound when the engine last ran
        self.seen_removed = 0  # pods removed (ReplicaMemo.removed) when it last ran
        self.snapshot_generation = -1
        self.node_list: list[NodeInfo] = []
        self.names: list[str] = []
        self.names_sorted = False
        self.index: dict[str, int] = {}
        self.rest: list[Plugin] = []
        self.rest_key: tuple[str, ...] = ()
        self.gens: list[int] = []
        self.head: list[Status | None] = []
        self.status: dict[str, list[Status | None]] = {}
        self.classes: dict[str, list[tuple[str | None, ...]] | None] = {}
        # plugin -> (its keys, domain class -> nodes) when it has few domains
        self.members: dict[str, tuple[tuple[str, ...], dict[tuple[str | None, ...], list[int]]]] = {}
        # plugin -> domain class -> its last answer (reused while equal)
        self.class_last: dict[str, dict[Hashable, Status | None]] = {}
        self.pairs: dict[str, dict[str, list[int]]] = {}
        self.node_snapshot: Snapshot | None = None  # whose node_list the engine holds
        self.verdicts: list[NodeVerdict] = []
        self.feas: list[bool] = []
        # The feasible nodes and their names as the last cycle listed them, while no verdict
        # flipped since (None: list them again). The same list object for the next copy
        # tells plugins keeping per-copy state over the feasible nodes that nothing moved.
        self.feasible: list[NodeInfo] | None = None
        self.feasible_names: list[str] | None = None
        self.feasible_positions: list[int] = []  # where each of ``feasible`` is in the node list
        self.unsched: Counter[str] = Counter()
        self.prev_state: CycleState | None = None
        self.vcache: dict[Any, Any] = {}
        self.changed: list[int] | None = None  # None: every node (a full pass)
        # Nodes whose verdicts changed with their domain's answer, in bulk (_recompute_classes).
        self.bulk: list[int] = []
        # scoring
        self.step = -1
        self.score_key: tuple[Any, ...] | None = None
        self.tops: dict[str, Any] = {}
        # Each node's total by node index (read in bulk over the feasible nodes with
        # ``compress``); current for the feasible nodes and those scored since.
        self.tot: list[int] = []
        # plugin scoring beyond a node, per node -> its raw score (current where in ``cur``)
        self.rawl: dict[str, list[int]] = {}
        # plugin scoring beyond a node -> the nodes whose raw scores it dropped (out of the
        # feasible set when their domains moved): scored again when they are back
        self.dropped: dict[str, set[int]] = {}
        # node-local plugin -> raw score by node index (None: never scored since the full pass)
        self.cur: dict[str, list[int | None]] = {}
        # normalized node-local plugin -> weighted share by node index (None: none yet)
        self.contrib: dict[str, list[int | None]] = {}
        # plugin -> raw score -> how many nodes have it now
        self.vals: dict[str, Counter[int]] = {}
        # The nodes whose totals must be worked out again once feasible (node indices): the
        # bound nodes, the nodes never scored, and those out of the feasible set when some
        # normalization maximum moved (their totals missed it).
        self.pending: set[int] = set()
        # The node generation each node's raw scores were taken at, by node index.
        self.rawgen: list[int | None] = []
        # plugin -> node -> [(step, raw)], the raw score versions (newest last)
        self.hist: dict[str, dict[str, list[tuple[int, int]]]] = {}
        # plugin -> the nodes and their raw scores at the last full pass (the versions before
        # any in ``hist``): a full pass records every node's score without a list per node,
        # and they are made a map only for a step whose table is read.
        self.hist_base: dict[str, tuple[list[str], list[int]]] = {}
        # plugin scoring by class -> node index -> its class's number, and class -> number
        self.wkeys: dict[str, list[int]] = {}
        self.wident: dict[str, dict[Hashable, int]] = {}
        # The nodes the last update found changed (the bound copy's, the removed pods'), and
        # the cycle state the last scored copy had (what plugins scoring beyond a node
        # compare the new one with).
        self.moved: list[int] = []
        self.score_state: CycleState | None = None
        # A filter pass whose copy was never scored (it fit nowhere, or scoring stopped
        # early): the scores kept predate the changes it saw, so the next copy scores in full.
        self.unscored = False

    # ------------------------------------------------------------------ Filter

    def _by_pair(self, key: str) -> dict[str, list[int]]:
        m = self.pairs.get(key)
        if m is None:
            assert self.node_snapshot is not None  # set with node_list
            m = self.pairs[key] = self.node_snapshot.label_positions(key)
        return m

    def filter(self, fw: Any, state: CycleState, pod: PodInfo, memo: ReplicaMemo) -> list[NodeInfo] | None:
        """The feasible nodes in node order (the engine's verdicts updated), or None when
        this cycle must run the ordinary way."""
        nodes = fw.snapshot.nodes()
        local, rest = memo.split(fw.plugins.filter, state.skip_filter)
        for pl in rest:
            if not pl.node_local and not hasattr(pl, "replica_changes"):
                return None
        rest_key = tuple(pl.name for pl in rest)
        bound = memo.bound
        removed = memo.removed
        generation = fw.snapshot.generation
        if self.unscored:
            self.score_key = None
        # Since the last cycle: at most one more copy bound and pods removed (a rollout's
        # controller deleting old ones), at least one of them, and the snapshot changed by
        # exactly these (its generation counts every pod added or removed). Anything else
        # (an edit, a copy taken back): start over.
        more_bound = len(bound) - self.seen
        more_removed = len(removed) - self.seen_removed
        full = (not self.ready or nodes is not self.node_list or len(nodes) != len(self.names)
                or rest_key != self.rest_key or more_bound not in (0, 1) or more_removed < 0
                or more_bound + more_removed == 0 or self.prev_state is None
                or generation != self.snapshot_generation + more_bound + more_removed)
        if full:
            ok = self._full(fw, state, pod, memo, nodes, local, rest)
        else:
            moved = [name for _, name in removed[self.seen_removed:]] + [name for _, name in bound[self.seen:]]
            ok = self._update(fw, state, pod, memo, local, rest, moved)
        if not ok:
            self.ready = False
            return None
        self.seen = len(bound)
        self.seen_removed = len(removed)
        self.snapshot_generation = generation
        self.prev_state = state
        self.unscored = True
        if not any(self.feas):
            return None  # the FitError needs every node's status: the ordinary cycle builds it
        if self.feasible is None:
            self.feasible = list(compress(self.node_list, self.feas))
            self.feasible_positions = list(compress(range(len(self.feas)), self.feas))
            self.feasible_names = None
        state.keep_positions(fw.snapshot, self.feasible, self.feasible_positions)
        return self.feasible

    def _head(self, fw: Any, state: CycleState, pod: PodInfo, memo: ReplicaMemo,
              local: list[Plugin], ni: NodeInfo) -> Status | None | bool:
        """The first failure of the leading node-local plugins (memoized as the ordinary
        cycle does), None when they pass, False on an error status (an error ends the cycle:
        the ordinary loop words it)."""
        head = memo.head(state, pod, local, ni)
        if not head:
            return None
        if not head[0].is_rejected:
            return False
        return head[0]

    def _one(self, state: CycleState, pod: PodInfo, pl: Plugin, ni: NodeInfo) -> Status | None | bool:
        st: Status = pl.filter(state, pod, ni)  # type: ignore[attr-defined]
        if st.is_success:
            return None
        # An error ends the cycle: the ordinary loop words it.
        return st.with_plugin(pl.name) if st.is_rejected else False

    def _full(self, fw: Any, state: CycleState, pod: PodInfo, memo: ReplicaMemo, nodes: list[NodeInfo],
              local: list[Plugin], rest: list[Plugin]) -> bool:
        snapshot = fw.snapshot
        self.node_list = nodes
        self.node_snapshot = snapshot
        # Nodes in name order (as dumps list them): the tied best nodes need no sorting.
        self.names, self.index, self.names_sorted = snapshot.node_names()
        self.rest = rest
        self.rest_key = tuple(pl.name for pl in rest)
        self.pairs = {}
        n = len(nodes)
        self.gens = list(map(_generation, nodes))
        self.head = [None] * n
        self.status = {pl.name: [None] * n for pl in rest}
        self.classes = {}
        self.members = {}
        for pl in rest:
            keys = pl.replica_class_keys(state) if hasattr(pl, "replica_class_keys") else None
            if keys is None:
                self.classes[pl.name] = None
                continue
            classes = snapshot.label_columns(tuple(keys))
            self.classes[pl.name] = classes
            members = snapshot.label_groups(tuple(keys))
            if len(members) <= _FEW_CLASSES:
                self.members[pl.name] = (keys, members)
        # The leading filters' first failures, in bulk from the answers' column.
        column = memo.head_column(state, pod, local, nodes, self.gens)
        head = self.head  # (all None, above)
        for k in compress(range(n), column):  # only a failing node's list is not empty
            head[k] = column[k][0]
        if any(not st.is_rejected for st in filter(None, head)):
            return False  # an error status ends the cycle: the ordinary loop words it
        self.class_last = {}
        for pl in rest:
            if self._recompute(state, pod, pl, range(n)) is None:
                return False
        self.verdicts = [_FEASIBLE] * n
        self.feas = [True] * n
        self.feasible = None
        self.unsched = Counter()
        self.vcache = {}
        self.ready = True
        self.changed = None
        self.moved = []
        # Every verdict starts feasible: only the nodes some answer fails need a look, found
        # in bulk (in node order, as a pass over every node would visit them).
        failing: set[int] = set()
        for col in [head, *(self.status[pl.name] for pl in rest)]:
            failing.update(compress(range(n), map(is_not, col, repeat(None))))
        self._verdicts(sorted(failing))
        return True

    def _recompute(self, state: CycleState, pod: PodInfo, pl: Plugin, which: Any) -> list[int] | None:
        """Plugin ``pl``'s answers for the nodes ``which`` whose leading filters pass; the
        nodes whose answer changed (an equal answer keeps its old object), None on an error."""
        col = self.status[pl.name]
        head = self.head
        nodes = self.node_list
        changed: list[int] = []
        classes = self.classes.get(pl.name)
        if classes is not None:
            last = self.class_last.setdefault(pl.name, {})
            cache: dict[Hashable, Status | None | bool] = {}
            for i in which:
                if head[i] is not None:
                    continue
                c = classes[i]
                if c in cache:
                    st = cache[c]
                else:
                    st = self._one(state, pod, pl, nodes[i])
                    if st is False:
                        return None
                    old = last.get(c, False)
                    if old is not False and old == st:
                        st = old  # the domain's answer is unchanged
                    cache[c] = last[c] = st  # type: ignore[assignment]
                if col[i] is not st:
                    col[i] = st  # type: ignore[assignment]
                    changed.append(i)
            return changed
        # The nodes whose leading filters pass, judged at once (``filter_nodes`` where the
        # plugin has it).
        idx = [i for i in which if head[i] is None]
        if not idx:
            return changed  # (nothing to ask: a plugin's bulk state can cost more than the nodes)
        failed: dict[int, Status] = {}
        for k, st in filter_failures(pl, state, pod, list(map(nodes.__getitem__, idx))):
            if not st.is_rejected:
                return None  # an error ends the cycle: the ordinary loop words it
            failed[idx[k]] = st.with_plugin(pl.name)
        if not any(map(col.__getitem__, idx)):  # none failed before: only the failures change
            for i, st in failed.items():
                col[i] = st
            return [i for i in idx if i in failed]
        for i in idx:
            st = failed.get(i)
            if col[i] != st:
                col[i] = st
                changed.append(i)
        return changed

    def _recompute_classes(self, state: CycleState, pod: PodInfo, pl: Plugin,
                           few: tuple[tuple[str, ...], dict[tuple[str | None, ...], list[int]]],
                           pairs: list[tuple[str, str]] | None, moved: list[int],
                           touched: set[int]) -> list[int] | None:
        """As :meth:`_recompute` for a plugin answering per domain with few domains: each
        domain the binding may have changed is asked once, and its nodes are visited only
        when its answer changed (and the changed nodes, whose leading filters may have)."""
        keys, members = few
        if pairs is None:
            dirty = list(members)
        else:
            pairset = set(pairs)
            dirty = [c for c in members if any((k, v) in pairset for k, v in zip(keys, c, strict=True))]
        col = self.status[pl.name]
        head = self.head
        nodes = self.node_list
        last = self.class_last.setdefault(pl.name, {})
        changed: list[int] = []
        # With at most one other plugin after the leading ones, a node failing neither (nor
        # the leading ones) has the domain's answer as its verdict: such nodes change verdict
        # together, in bulk, without the per-node pass of _verdicts.
        others = [self.status[p.name] for p in self.rest if p.name != pl.name]
        other = others[0] if len(others) == 1 else None
        for c in dirty:
            idx = members[c]
            st = self._one(state, pod, pl, nodes[idx[0]])
            if st is False:
                return None
            old = last.get(c, False)
            if old is not False and old == st:
                continue  # the domain's answer is unchanged
            last[c] = st  # type: ignore[assignment]
            if old is False or len(others) > 1:
                for i in idx:
                    if head[i] is None and col[i] is not st:
                        col[i] = st  # type: ignore[assignment]
                        changed.append(i)
                continue
            # Every node of the domain whose leading filters pass holds the domain's old
            # answer, and the verdict that goes with it unless another answer of it changed
            # in this update (``touched``: the changed nodes, whose leading filters were run
            # again, and the nodes of a plugin before this one): those go through _verdicts.
            passing = [i for i in idx if head[i] is None]
            for i in passing:
                col[i] = st  # type: ignore[assignment]
            if other is None:
                alone = [i for i in passing if i not in touched]
            else:
                alone = [i for i in passing if other[i] is None and i not in touched]
            if len(alone) < len(passing):
                changed.extend(set(passing).difference(alone))
            self._bulk_verdicts(alone, old, st)  # type: ignore[arg-type]
        for b in moved:
            if head[b] is not None:
                continue
            c = self.classes[pl.name][b]  # type: ignore[index]
            st = last[c] if c in last else self._one(state, pod, pl, nodes[b])
            if st is False:
                return None
            last[c] = st  # type: ignore[assignment]
            if col[b] is not st:
                col[b] = st  # type: ignore[assignment]
                changed.append(b)
        return changed

    def _bulk_verdicts(self, which: list[int], old: Status | None, st: Status | None) -> None:
        """The nodes ``which``, whose verdict was ``old``'s and is now ``st``'s (None: feasible),
        updated together; they join the nodes whose verdicts changed (``self.bulk``)."""
        if not which:
            return
        v_old = _FEASIBLE if old is None else _verdict_of(old, self.vcache)
        v = _FEASIBLE if st is None else _verdict_of(st, self.vcache)
        if v is v_old:
            return
        verdicts = self.verdicts
        for i in which:
            verdicts[i] = v
        n = len(which)
        if not v_old.feasible:
            self.unsched[v_old.plugin or ""] -= n
        if not v.feasible:
            self.unsched[v.plugin or ""] += n
        if v_old.feasible != v.feasible:
            feas = self.feas
            flag = v.feasible
            for i in which:
                feas[i] = flag
            self.feasible = None
        self.bulk.extend(which)

    def _verdicts(self, which: Any) -> list[int]:
        """Work out the verdicts of the nodes ``which`` again; the indices that changed."""
        cols = [self.status[pl.name] for pl in self.rest]
        head = self.head
        verdicts = self.verdicts
        feas = self.feas
        unsched = self.unsched
        vcache = self.vcache
        changed: list[int] = []
        # A domain's nodes share one status object: its verdict is looked up once in a row.
        last: Status | None = None
        last_v = _FEASIBLE
        flipped = False
        for i in which:
            first = head[i]
            if first is None:
                for col in cols:
                    first = col[i]
                    if first is not None:
                        break
            if first is None:
                v = _FEASIBLE
            elif first is last:
                v = last_v
            else:
                hit = vcache.get(id(first))
                v = hit[1] if hit is not None and hit[0] is first else _verdict_of(first, vcache)
                last, last_v = first, v
            old = verdicts[i]
            if v is old:
                continue
            changed.append(i)
            if not old.feasible:
                unsched[old.plugin or ""] -= 1
            if not v.feasible:
                unsched[v.plugin or ""] += 1
            verdicts[i] = v
            if old.feasible != v.feasible:
                feas[i] = v.feasible
                flipped = True
        if flipped:
            self.feasible = None
        return changed

    def _update(self, fw: Any, state: CycleState, pod: PodInfo, memo: ReplicaMemo,
                local: list[Plugin], rest: list[Plugin], moved_names: list[str]) -> bool:
        """The previous cycle updated for the nodes ``moved_names`` changed since (a copy
        bound, pods removed); False when it can't be."""
        moved: list[int] = []
        for name in dict.fromkeys(moved_names):
            b = self.index.get(name)
            if b is None:
                return False
            moved.append(b)
        prev = self.prev_state
        assert prev is not None
        # The changed nodes: every answer again.
        for b in moved:
            h = self._head(fw, state, pod, memo, local, self.node_list[b])
            if h is False:
                return False
            self.head[b] = h  # type: ignore[assignment]
            self.gens[b] = self.node_list[b].generation
        self.moved = moved
        self.pending.update(moved)  # their raw scores changed
        self.bulk = []
        dirty: set[int] = set(moved)
        for pl in rest:
            if pl.node_local:
                got = self._recompute(state, pod, pl, moved)
            else:
                pairs = self._changes(pl.replica_changes, prev, state)  # type: ignore[attr-defined]
                few = self.members.get(pl.name)
                if few is not None:
                    got = self._recompute_classes(state, pod, pl, few, pairs, moved, dirty)
                    if got is None:
                        return False
                    dirty.update(got)
                    continue
                if pairs is None:
                    which: Any = range(len(self.node_list))
                else:
                    idx: set[int] = set(moved)
                    for key, value in pairs:
                        idx.update(self._by_pair(key).get(value, ()))
                    which = idx
                got = self._recompute(state, pod, pl, which)
            if got is None:
                return False
            dirty.update(got)
        self.changed = self._verdicts(dirty)
        if self.bulk:
            # A node changed in bulk may have been worked out again by _verdicts as well.
            self.changed.extend(self.bulk if not self.changed else set(self.bulk).difference(self.changed))
        # Their raw scores changed with them, even when their verdicts didn't.
        self.changed.extend(b for b in moved if b not in self.changed)
        return True

    def _changes(self, hook: Any, before: CycleState, after: CycleState) -> list[tuple[str, str]] | None:
        """A plugin hook's label pairs (``replica_changes``, ``replica_score_changes``: what
        may answer otherwise between ``before`` and ``after``) for every node the last update
        found changed, together; None when one of them says every node."""
        nodes = self.node_list
        if len(self.moved) == 1:
            one: list[tuple[str, str]] | None = hook(before, after, nodes[self.moved[0]])
            return one
        pairs: list[tuple[str, str]] = []
        for b in self.moved:
            got = hook(before, after, nodes[b])
            if got is None:
                return None
            pairs.extend(got)
        return pairs

    # ------------------------------------------------------------------ Score

    def score(self, fw: Any, state: CycleState, pod: PodInfo, feasible: list[NodeInfo],
              result: CycleResult, memo: ReplicaMemo) -> bool:
        """Fill ``result``'s scores and choice for the feasible nodes the engine's filter
        found; False when this cycle's scoring must run the ordinary way."""
        done = self._score(fw, state, pod, feasible, result, memo)
        self.unscored = False
        if not done:
            self.score_key = None  # the next scored copy starts over
            self.score_state = None
        return done

    def _score(self, fw: Any, state: CycleState, pod: PodInfo, feasible: list[NodeInfo],
               result: CycleResult, memo: ReplicaMemo) -> bool:
        if not self.ready or len(feasible) < 2:
            return False
        plugins: list[tuple[Plugin, int, bool]] = []
        # Plugins scoring beyond a node: they name the domains a binding changed
        # (``replica_score_changes``) and normalize through ``replica_normalizer``.
        wide: set[str] = set()
        for pl, weight in fw.plugins.score:
            skipped = pl.name in state.skip_score
            custom = hasattr(pl, "replica_normalizer")
            if skipped:
                pass
            elif not pl.node_local and not (hasattr(pl, "replica_node_local_score")
                                            and pl.replica_node_local_score(state)):
                if not hasattr(pl, "replica_score_changes"):
                    return False
                wide.add(pl.name)
            elif custom:
                return False  # node-local plugins normalize the default way here
            if not skipped and hasattr(pl, "normalize_score") and pl.normalize_reverse is None and (
                    not custom or pl.replica_normalizer(state) is None):
                return False
            plugins.append((pl, weight, skipped))
        key = tuple((pl.name, w, s) for pl, w, s in plugins)
        self.step += 1
        step = self.step
        names = self.names
        fl = self.feasible_names
        if fl is None or self.feasible is not feasible:
            fl = self.feasible_names = list(compress(names, self.feas))
        prev_state = self.score_state
        full = key != self.score_key or self.changed is None or (bool(wide) and prev_state is None)
        active = [(pl, w) for pl, w, s in plugins if not s]
        local = [(pl, w) for pl, w in active if pl.name not in wide]
        norms = {pl.name: pl.replica_normalizer(state) for pl, _w in active
                 if pl.normalize_reverse is None and hasattr(pl, "replica_normalizer")}
        if full:
            self.score_key = key
            self.tops = {}
            self.tot = [0] * len(names)
            self.rawl = {name: [0] * len(names) for name in wide}
            self.dropped = {name: set() for name in wide}
            self.cur = {pl.name: [None] * len(names) for pl, _ in local}
            self.contrib = {pl.name: [None] * len(names) for pl, _ in local if pl.normalize_reverse is not None}
            self.vals = {pl.name: Counter() for pl, _ in local}
            self.hist = {pl.name: {} for pl, _ in local}
            self.hist_base = {}
            self.rawgen = [None] * len(names)
            self.wkeys = {}
            todo: Any = feasible
        else:
            todo = None  # listed by _changed_feasible when a plugin scoring by class asks
        # The nodes whose totals must be worked out again (``pending``): new raw scores (the
        # bound nodes, those never scored), or back in the feasible set after a maximum moved
        # (their totals missed it while they were out). The others back unchanged keep theirs.
        rawgen = self.rawgen
        feas = self.feas
        nodes = self.node_list
        pending = self.pending
        if full:
            redo = todo
            pending.clear()
            pending.update(compress(range(len(feas)), map(not_, feas)))
        else:
            back = [i for i in pending if feas[i]]
            pending.difference_update(back)
            redo = list(map(nodes.__getitem__, back))
        assert self.node_snapshot is not None  # set with node_list
        index = self.index
        # A full pass scores the feasible nodes (``feasible`` is the engine's own list, in
        # node order): their indexes are those of ``feas``, their names ``fl``.
        at: list[int] = list(compress(range(len(feas)), feas)) if full else []
        if full:  # every feasible node is new to ``rawgen``
            work = redo
            assert len(work) == len(at)
            # (the filter pass just ran kept every node's generation: ``gens``)
            gens = list(compress(self.gens, feas))
            deque(map(rawgen.__setitem__, at, gens), maxlen=0)
            refs = NodeRefs(work, at, gens)  # taken once for every plugin
        else:
            work = [ni for ni in redo if rawgen[index[ni.name]] != ni.generation]
            for ni in work:
                rawgen[index[ni.name]] = ni.generation
            refs = NodeRefs.of(self.node_snapshot, work)
        alike: set[str] = set()  # the local plugins a full pass found alike on every feasible node
        for pl, _w in local:
            cache = memo.scores.setdefault(pl.name, AnswerTable())
            hist = self.hist[pl.name]
            cur = self.cur[pl.name]
            vals = self.vals[pl.name]
            if full:
                # Every table is new and every node new to it: the raw scores in bulk.
                raws = raw_scores(pl, state, pod, refs, cache, nodes)[0]
                if raws is None:
                    return False
                self.hist_base[pl.name] = (fl, raws)
                if raws and raws.count(raws[0]) == len(raws):
                    # Every feasible node alike (a plugin's uniform_score, most often): the
                    # column laid in one piece, as below.
                    alike.add(pl.name)
                    _lay_alike(cur, raws[0], pending)
                    vals[raws[0]] = len(raws)
                    continue
                deque(map(cur.__setitem__, at, raws), maxlen=0)
                vals.update(raws)
                continue
            scored = raw_scores(pl, state, pod, refs, cache, nodes)[0] if work else []
            if scored is None:
                return False
            for ni, raw in zip(work, scored, strict=True):
                i = index[ni.name]
                old = cur[i]
                # (a node scored has its versions in ``hist`` or ``hist_base``)
                if old != raw:
                    if old is not None:
                        vals[old] -= 1
                        if not vals[old]:
                            del vals[old]
                    vals[raw] += 1
                    cur[i] = raw
                    hist.setdefault(ni.name, []).append((step, raw))
        # The plugins scoring beyond a node: their weighted shares of every feasible node's
        # total, worked out in bulk per copy (by distinct raw score or scoring class).
        shares: list[Iterable[int]] = []
        kept: dict[str, tuple[list[Hashable], dict[Hashable, int]]] = {}
        for pl, w in active:
            if pl.name in wide:
                got = self._wide(pl, w, norms.get(pl.name), state, pod, todo, full, prev_state, fl)
                if got is None:
                    return False
                shares.append(got[0])
                kept[pl.name] = got[1]
        tot = self.tot
        # Each normalization's maximum over the feasible nodes (known without a pass when
        # every node scores alike); where it moved, the plugin's share of every feasible
        # node's total again (the nodes out of the feasible set: when they are back).
        normalized: list[tuple[str, list[int | None], list[int | None], int, bool, int]] = []
        moved = False
        # A full pass has each local plugin's raw scores as a list over the feasible nodes
        # (``hist_base``, in ``fl``'s order): read there, not name by name.
        full_raws = {name: raws for name, (_names, raws) in self.hist_base.items()} if full else {}
        for pl, w in local:
            reverse = pl.normalize_reverse
            if reverse is None:
                continue
            cur = self.cur[pl.name]
            contrib = self.contrib[pl.name]
            vals = self.vals[pl.name]
            if len(vals) == 1:
                top = next(iter(vals))
            elif full:  # (the feasible nodes' raw scores, as a list)
                top = max(full_raws[pl.name])
            else:
                top = max(cast("Iterable[int]", compress(cur, feas)))  # (every feasible node has one)
            normalized.append((pl.name, cur, contrib, w, reverse, top))
            if full:
                self.tops[pl.name] = top  # (every share is worked out below, with the totals)
            elif self.tops.get(pl.name) != top:
                self.tops[pl.name] = top
                moved = True
                by_raw: dict[int, int] = {}
                for i in compress(range(len(feas)), feas):
                    r = cur[i]
                    assert r is not None  # every feasible node has a raw score
                    share = by_raw.get(r)
                    if share is None:
                        share = by_raw[r] = _normalized(r, top, reverse) * w
                    old = contrib[i]
                    # A node with a share has a total (set with it); the nodes back in the
                    # feasible set have theirs worked out again below.
                    if old is not None:
                        tot[i] += share - old
                    contrib[i] = share
        if moved and not full:
            pending.update(compress(range(len(feas)), map(not_, feas)))
        identity = [(pl.name, self.cur[pl.name], w) for pl, w in local if pl.normalize_reverse is None]
        if full:
            # Every feasible node's total anew, plugin by plugin in bulk.
            sums: list[int] = [0] * len(at)
            same = 0  # the shares alike on every feasible node, added in one pass at the end
            for name, _cur, w in identity:
                col: list[int] = full_raws[name]
                if name in alike:
                    same += col[0] * w
                    continue
                sums = list(map(add, sums, col if w == 1 else map(mul, col, repeat(w))))
            for name, _cur, contrib, w, reverse, top in normalized:
                raws_n = full_raws[name]
                if name in alike:
                    share = _normalized(raws_n[0], top, reverse) * w
                    _lay_alike(contrib, share, pending)
                    same += share
                    continue
                by_value = {raw: _normalized(raw, top, reverse) * w for raw in set(raws_n)}
                shares_n = list(map(by_value.__getitem__, raws_n))
                deque(map(contrib.__setitem__, at, shares_n), maxlen=0)
                sums = list(map(add, sums, shares_n))
            if same:
                sums = list(map(add, sums, repeat(same)))
            deque(map(tot.__setitem__, at, sums), maxlen=0)
            redo = []
        # Back in the feasible set unchanged, a node's total stands unless a maximum moved.
        for i in [index[ni.name] for ni in redo]:
            b = 0
            for _name, cur, w in identity:
                b += cur[i] * w  # type: ignore[operator]  # (scored when it came back)
            for _name, cur, contrib, w, reverse, top in normalized:
                share = _normalized(cur[i], top, reverse) * w  # type: ignore[arg-type]
                contrib[i] = share
                b += share
            tot[i] = b
        # One pass over the feasible nodes: each share is an iterator in fl's order.
        parts: Iterable[int] = compress(tot, feas)
        for part in shares:
            parts = map(add, parts, part)
        tl = list(parts)
        best = max(tl)
        best_nodes = [fl[tl.index(best)]] if tl.count(best) == 1 else list(compress(fl, map(eq, tl, repeat(best))))
        result.best_nodes = best_nodes if self.names_sorted else sorted(best_nodes)
        result.selected_node = result.best_nodes[0]
        self._defer(result, fl, tl, best, plugins, step, norms, kept)
        self.score_state = state
        return True

    def _changed_feasible(self) -> list[NodeInfo]:
        """The feasible nodes whose verdicts changed in the last update."""
        changed = self.changed or []
        feas = self.feas
        return list(compress(map(self.node_list.__getitem__, changed), map(feas.__getitem__, changed)))

    def _wide(self, pl: Plugin, w: int, norm: Any, state: CycleState, pod: PodInfo, todo: list[NodeInfo] | None,
              full: bool, prev_state: CycleState | None, fl: list[str],
              ) -> tuple[Iterable[int], tuple[list[Hashable], dict[Hashable, int]]] | None:
        """A plugin scoring beyond a node: its weighted share of each feasible node's total
        (in ``fl``'s order, an iterator read once), and what the step keeps to build its score
        table (a value per feasible node and the raw score of each value); None on an error
        status.

        A plugin scoring by class (``replica_score_classes``: PodTopologySpread, whose score
        is a function of the node's domains) has a class kept per node, worked out again
        only for the nodes the binding or the feasible set changed, and is scored once per
        class present; any other plugin keeps its raw scores per node (:meth:`_wide_raw`).
        The normalization's bounds and the share of each distinct value are then taken over
        the distinct values, not the nodes."""
        nodes = self.node_list
        classes = pl.replica_score_classes(state) if hasattr(pl, "replica_score_classes") else None
        rawmap: dict[Hashable, int]
        if classes is not None:
            key_of, raw_of = classes
            ids = self.wkeys.get(pl.name)
            pairs = None if full or prev_state is None or ids is None else self._changes(
                pl.replica_score_changes, prev_state, state)  # type: ignore[attr-defined]
            ident = self.wident.setdefault(pl.name, {})
            if pairs is None or ids is None:
                keys = pl.replica_score_keys(state, nodes) if hasattr(pl, "replica_score_keys") else None
                if keys is None:
                    keys = list(map(key_of, nodes))
                # Each class numbered by the position where it first appears (one C-level
                # pass); classes met later are numbered from the node count up (below).
                ident = self.wident[pl.name] = {}
                ids = self.wkeys[pl.name] = list(map(ident.setdefault, keys, count()))
            else:
                index = self.index
                if todo is None:
                    todo = self._changed_feasible()
                for i in {*self.moved, *(index[ni.name] for ni in todo)}:
                    ids[i] = ident.setdefault(key_of(nodes[i]), len(nodes) + len(ident))
            present: list[int] = list(compress(ids, self.feas))
            by_id = {v: k for k, v in ident.items()}
            values: list[Any] = present
            rawmap = {v: raw_of(by_id[v]) for v in set(present)}
        else:
            if self._wide_raw(pl, state, pod, full, prev_state) is None:
                return None
            raws = list(compress(self.rawl[pl.name], self.feas))
            values = raws
            rawmap = {v: v for v in set(raws)}
        if norm is None:
            table = {v: raw * w for v, raw in rawmap.items()}
            return map(table.__getitem__, values), (values, rawmap)
        ignored = norm.ignored
        if ignored:
            params = norm.bounds([rawmap[v] for n, v in zip(fl, values, strict=True) if n not in ignored])
        else:
            params = norm.bounds(list(rawmap.values()))
        # A node not ignored shares by its raw score alone.
        table = {v: norm.share("", raw, params) * w for v, raw in rawmap.items()}
        if not ignored:
            return map(table.__getitem__, values), (values, rawmap)
        out = list(map(table.__getitem__, values))
        for j, n in enumerate(fl):
            if n in ignored:
                out[j] = norm.share(n, rawmap[values[j]], params) * w
        return out, (values, rawmap)

    def _wide_raw(self, pl: Plugin, state: CycleState, pod: PodInfo, full: bool,
                  prev_state: CycleState | None) -> bool | None:
        """Raw scores of a plugin scoring beyond a node, for the nodes the binding may have
        changed: the feasible ones scored again, the others dropped (scored when they are
        back). None on an error status.

        Every node holding a raw score has the current one: the plugin names the domains
        whose scores may have moved, or None when any may (its weights or domains changed)."""
        rawl = self.rawl[pl.name]
        dropped = self.dropped[pl.name]
        feas = self.feas
        nodes = self.node_list
        pairs = None if full or prev_state is None else self._changes(
            pl.replica_score_changes, prev_state, state)  # type: ignore[attr-defined]
        targets: Any
        if pairs is None:
            targets = range(len(nodes))
        else:
            idx: set[int] = set(self.moved)
            for key, value in pairs:
                idx.update(self._by_pair(key).get(value, ()))
            back = [i for i in dropped if feas[i]]
            idx.update(back)
            targets = idx
        for i in targets:
            ni = nodes[i]
            if not feas[i]:
                # Scoring an infeasible node may read domains PreScore left out.
                dropped.add(i)
                continue
            raw, st = pl.score(state, pod, ni)  # type: ignore[attr-defined]
            if not st.is_success:
                return None
            rawl[i] = raw
            dropped.discard(i)
        return True

    def _defer(self, result: CycleResult, fl: list[str], tl: list[int], best: int,
               plugins: list[tuple[Plugin, int, bool]], step: int, norms: dict[str, Any],
               kept: dict[str, tuple[list[Hashable], dict[Hashable, int]]]) -> None:
        hists = self.hist
        bases = self.hist_base
        forms = [(pl.name, w, s, pl.normalize_reverse, norms.get(pl.name)) for pl, w, s in plugins]

        def build_totals() -> dict[str, int]:
            return dict(zip(fl, tl, strict=True))

        best_nodes = result.best_nodes
        names_sorted = self.names_sorted

        def runner_up() -> tuple[str, int] | None:
            # Another best node, else the first node by name with the next total.
            if len(best_nodes) > 1:
                return best_nodes[1], best
            # The best total is there once: the next is the largest of the others.
            i = tl.index(best)
            if len(tl) == 1:
                return None
            second = max(tl[:i] + tl[i + 1:])
            if names_sorted:
                return fl[tl.index(second)], second
            return min(n for n, t in zip(fl, tl, strict=True) if t == second), second

        def build_scores() -> list[PluginScores]:
            out: list[PluginScores] = []
            for name, w, skipped, reverse, norm in forms:
                ps = PluginScores(name, w, skipped)
                out.append(ps)
                if skipped:
                    continue
                if name in kept:
                    values, rawmap = kept[name]
                    raw = {n: rawmap[v] for n, v in zip(fl, values, strict=True)}
                else:
                    hist = hists[name]
                    hbase = dict(zip(*bases[name], strict=True)) if name in bases else {}
                    raw = {n: _at(hist[n], step, hbase.get(n)) if n in hist else hbase[n] for n in fl}
                normalized = dict(raw)
                if reverse is not None:
                    default_normalize(normalized, reverse)
                elif norm is not None:
                    norm.normalize(normalized)
                ps.scores = {n: NodeScore(raw[n], v, v * w) for n, v in normalized.items()}
            return out

        if isinstance(result, LazyCycleResult):
            result.defer("totals", build_totals)
            result.defer("score_plugins", build_scores)
            result.__dict__["_best_total"] = best
            result.__dict__["_runner_up"] = runner_up
        else:
            result.totals = build_totals()
            result.score_plugins = build_scores()

    def fill_nodes(self, result: CycleResult) -> None:
        """The step's verdicts: kept as they are now, built into a dict when first read."""
        names = self.names
        verdicts = list(self.verdicts)
        if isinstance(result, LazyCycleResult):
            result.defer("nodes", lambda: dict(zip(names, verdicts, strict=True)))
        else:
            result.nodes = dict(zip(names, verdicts, strict=True))

    def unschedulable_plugins(self) -> list[str]:
        return sorted(p for p, c in self.unsched.items() if p and c > 0)


def _at(versions: list[tuple[int, int]], step: int, base: int | None) -> int:
    """The raw score at ``step`` of a node whose scores changed (``versions``, oldest
    first), given its score at the last full pass (``base``, None when it had none)."""
    for s, raw in reversed(versions):
        if s <= step:
            return raw
    return versions[0][1] if base is None else base


def _lay_alike(column: list[int | None], value: int, unset: Iterable[int]) -> None:
    """``column`` (one entry per node) set to ``value`` but at the positions ``unset`` (in a
    full pass, the nodes out of the feasible set), left None: what writing ``value`` at each
    feasible position of a column of Nones leaves, in one piece."""
    column[:] = [value] * len(column)
    for i in unset:
        column[i] = None


def _normalized(raw: int, top: int, reverse: bool) -> int:
    """``default_normalize`` of one score, given the maximum over the feasible nodes."""
    if top == 0:
        return 100 if reverse else raw
    s = 100 * raw // top
    return 100 - s if reverse else s

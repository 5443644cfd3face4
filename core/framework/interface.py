"""One scheduling cycle, as kube-scheduler v1.35's framework runs it.

The framework knows no plugin by name: it runs the extension points of a profile in
order (PreEnqueue, PreFilter, Filter, PostFilter, PreScore, Score, NormalizeScore),
keeps the cycle state and node statuses, builds the FitError and selects hosts.
"""

from __future__ import annotations

import enum
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from itertools import compress, repeat
from operator import attrgetter, is_not, not_
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from kschedx.core.api.model import PodInfo
from kschedx.core.api.objects import ClusterObjects
from kschedx.core.framework.plugin_errors import filter_error_message
from kschedx.core.snapshot import NodeInfo, Snapshot
from kschedx.core.versions import SchedulerVersion, baseline

if TYPE_CHECKING:
    from kschedx.core.config.profile import Profile

MAX_NODE_SCORE = 100
MIN_NODE_SCORE = 0


class Code(enum.IntEnum):
    SUCCESS = 0
    ERROR = 1
    UNSCHEDULABLE = 2
    UNSCHEDULABLE_AND_UNRESOLVABLE = 3
    WAIT = 4
    SKIP = 5
    PENDING = 6

    @property
    def label(self) -> str:
        return _CODE_LABELS[self]


_CODE_LABELS = {
    Code.SUCCESS: "Success",
    Code.ERROR: "Error",
    Code.UNSCHEDULABLE: "Unschedulable",
    Code.UNSCHEDULABLE_AND_UNRESOLVABLE: "UnschedulableAndUnresolvable",
    Code.WAIT: "Wait",
    Code.SKIP: "Skip",
    Code.PENDING: "Pending",
}


@dataclass(slots=True)
class Status:
    """A plugin's verdict: a code, the reasons, and the plugin that gave it."""

    code: Code = Code.SUCCESS
    reasons: list[str] = field(default_factory=list)
    plugin: str = ""

    @staticmethod
    def success() -> Status:
        return _SUCCESS

    @staticmethod
    def skip() -> Status:
        return Status(Code.SKIP)

    @staticmethod
    def unschedulable(*reasons: str) -> Status:
        return Status(Code.UNSCHEDULABLE, list(reasons))

    @staticmethod
    def unresolvable(*reasons: str) -> Status:
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, list(reasons))

    @staticmethod
    def error(message: str) -> Status:
        return Status(Code.ERROR, [message])

    @property
    def is_success(self) -> bool:
        return self.code == Code.SUCCESS

    @property
    def is_skip(self) -> bool:
        return self.code == Code.SKIP

    @property
    def is_rejected(self) -> bool:
        return self.code in (Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, Code.PENDING)

    @property
    def message(self) -> str:
        return ", ".join(self.reasons)

    def with_plugin(self, plugin: str) -> Status:
        return Status(self.code, list(self.reasons), plugin)


def filter_failure(st: Status, plugin: str) -> Status:
    """A Filter plugin's failure as ``RunFilterPlugins`` returns it: anything but a rejection
    becomes an Error with upstream's wrapped message."""
    if st.is_rejected:
        return st.with_plugin(plugin)
    return Status(Code.ERROR, [filter_error_message(plugin, st.message)], plugin)


_SUCCESS = Status()


@dataclass(slots=True)
class PreFilterResult:
    """A PreFilter plugin's narrowing of the node set; ``None`` means all nodes."""

    node_names: set[str] | None = None

    def merge(self, other: PreFilterResult | None) -> PreFilterResult:
        if other is None or other.node_names is None:
            return self
        if self.node_names is None:
            return PreFilterResult(set(other.node_names))
        return PreFilterResult(self.node_names & other.node_names)


class CycleState:
    """Per-cycle plugin state; cloned when nominated pods or preemption try a what-if."""

    __slots__ = ("data", "skip_filter", "skip_score", "_positions")

    def __init__(self) -> None:
        self.data: dict[str, Any] = {}
        self.skip_filter: set[str] = set()
        self.skip_score: set[str] = set()
        # The last list ``positions_in`` answered: (that list, the node list, their lengths, positions).
        self._positions: tuple[list[NodeInfo], list[NodeInfo], int, int, list[int] | None] | None = None

    def clone(self) -> CycleState:
        c = CycleState()
        for k, v in self.data.items():
            clone = getattr(v, "clone", None)
            c.data[k] = clone() if clone is not None else v
        c.skip_filter = set(self.skip_filter)
        c.skip_score = set(self.skip_score)
        c._positions = self._positions
        return c

    def positions_in(self, snapshot: Snapshot, nodes: list[NodeInfo]) -> list[int] | None:
        """``snapshot.positions_of(nodes)``, kept for the last list asked about: within a
        cycle the feasible nodes are one list, handed unchanged to PreScore and Score, whose
        plugins and the framework each need their positions. Shared: don't change it."""
        kept = self._positions
        infos = snapshot.node_infos
        if kept is not None and kept[0] is nodes and kept[1] is infos and kept[2] == len(nodes) \
                and kept[3] == len(infos):
            return kept[4]
        pos = snapshot.positions_of(nodes)
        self.keep_positions(snapshot, nodes, pos)
        return pos

    def keep_positions(self, snapshot: Snapshot, nodes: list[NodeInfo], positions: list[int] | None) -> None:
        """``positions_in``'s answer for ``nodes``, told by whoever picked them out of the
        snapshot's node list (``positions``: where each one is in it): the Filter stage
        knows them without a lookup of each node."""
        infos = snapshot.node_infos
        self._positions = (nodes, infos, len(nodes), len(infos), positions)


class Handle(Protocol):
    """What plugins may see of the framework."""

    snapshot: Snapshot
    objects: ClusterObjects
    warnings: list[str]

    def run_filter_with_nominated(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status: ...

    def run_pre_filter_add_pod(
        self, state: CycleState, pod: PodInfo, to_add: PodInfo, node: NodeInfo
    ) -> Status: ...

    def run_pre_filter_remove_pod(
        self, state: CycleState, pod: PodInfo, to_remove: PodInfo, node: NodeInfo
    ) -> Status: ...


class Plugin:
    """Base of every plugin: a name, the framework handle and its args.

    A plugin implements only the extension points it has, with these signatures:
    ``pre_enqueue(pod) -> Status``; ``pre_filter(state, pod, nodes) -> (PreFilterResult|None, Status)``;
    ``add_pod/remove_pod(state, pod, other, node) -> Status`` (PreFilterExtensions);
    ``filter(state, pod, node) -> Status``; ``post_filter(state, pod, statuses) -> (Any, Status)``;
    ``pre_score(state, pod, nodes) -> Status``; ``score(state, pod, node) -> (int, Status)``;
    ``normalize_score(state, pod, scores: dict[str, int]) -> Status`` (in place).
    Node-local plugins may answer many nodes at once, each exactly as its one-node method:
    ``filter_nodes(state, pod, nodes) -> [(position, failure)]`` and
    ``score_nodes(state, pod, nodes) -> [score]`` (None: it declines, node by node).
    A plugin may also say that this cycle's pod scores alike everywhere:
    ``uniform_score(state, pod) -> int | None``, the Score every node gets (None: it varies,
    or a node's Score fails); :func:`raw_scores` then reads no node and no column.
    """

    name: ClassVar[str] = ""
    # True when the plugin's Filter verdict and Score depend only on the pod's spec and the
    # node's own NodeInfo (no other node, no other object that a binding changes): their
    # answers for an unchanged node can be reused between the cycles of one replica run.
    node_local: ClassVar[bool] = False
    # True when a node that passes the plugin's Filter still passes it once pods are taken
    # off the node and nothing else changed (the plugin reads no pod, or only sums and sets
    # that a removal shrinks): the Filter column keeps such answers across removals.
    passes_after_removal: ClassVar[bool] = False
    # Set when NormalizeScore is exactly ``default_normalize`` with this ``reverse``: replica
    # runs then normalize from the maximum alone (kschedx.core.framework.replica_inc).
    normalize_reverse: ClassVar[bool | None] = None

    def __init__(self, handle: Handle, args: dict[str, Any] | None = None) -> None:
        self.handle = handle
        self.args = args or {}
        # The release whose behaviour to reproduce (handles of tests may not carry one).
        self.version: SchedulerVersion = getattr(handle, "version", None) or baseline()


# Off only for the tests that compare the columns with answers node by node.
COLUMNS = True


@dataclass(slots=True)
class NodeRefs:
    """Nodes a pass scores (``work``), their positions in the snapshot's node list (None
    when they are not all that list's own: then no column is read) and their generations,
    taken once for every plugin of the pass."""

    work: list[NodeInfo]
    positions: list[int] | None
    generations: list[int]

    @staticmethod
    def of(snapshot: Snapshot, work: list[NodeInfo], state: CycleState | None = None) -> NodeRefs:
        """``work``'s references into ``snapshot``'s node list (its positions kept in
        ``state`` when given, :meth:`CycleState.positions_in`)."""
        pos = snapshot.positions_of(work) if state is None else state.positions_in(snapshot, work)
        return NodeRefs(work, pos, [ni.generation for ni in work])


class AnswerTable(dict[str, Any]):
    """Node-local answers by node name, each ``(node generation, answer)`` (Filter); and
    answers as a column over one node list (``column``: the list, each position's
    generation when answered (-1: not yet), the answers), which a pass over every node
    reads in bulk: only the positions whose node changed since are answered again (Score
    keeps its raw scores this way alone, :func:`raw_scores`). Generations never repeat
    (core/snapshot.py), so an equal one is the same node state.

    A column's positions are compared by identity: the int it holds is the very object a
    node's ``generation`` was when answered, which a change replaces by a new one (and
    the column keeps the old one alive, so no other int takes its place). Equal values
    of two objects would only answer a node again. Comparing values reads thousands of
    int objects strewn over the heap per pass; identity reads none."""

    __slots__ = ("column", "grown")

    def __init__(self) -> None:
        super().__init__()
        self.column: tuple[list[NodeInfo], list[int], list[Any]] | None = None
        # Beside the Filter column: each position's ``NodeInfo.grown`` when answered.
        self.grown: list[int] | None = None

    def column_for(self, nodes: list[NodeInfo]) -> tuple[list[int], list[Any]]:
        """The column over ``nodes`` (started empty for another node list)."""
        col = self.column
        if col is None or col[0] is not nodes or len(col[1]) != len(nodes) or not COLUMNS:
            col = self.column = (nodes, [-1] * len(nodes), [None] * len(nodes))
            self.grown = None
        return col[1], col[2]


def raw_scores(pl: Plugin, state: CycleState, pod: PodInfo, refs: NodeRefs, table: AnswerTable | None,
               nodes: list[NodeInfo]) -> tuple[list[int] | None, Status | None]:
    """Score plugin ``pl``'s raw scores of the nodes ``refs`` names, or its first failure
    in node order. With ``table`` (a node-local plugin's) they come from its column over
    ``nodes`` where a node is unchanged since it was scored; the others are scored in bulk
    where the plugin can (``score_nodes``; None: it declines), else node by node."""
    work, pos, gens = refs.work, refs.positions, refs.generations
    uniform = getattr(pl, "uniform_score", None)
    if uniform is not None:
        # The same score on every node this cycle (the plugin says so): no column is read.
        same: int | None = uniform(state, pod)
        if same is not None:
            return [same] * len(work), None
    if table is None or pos is None:  # no column: every node scored, in work's order
        return _score_all(pl, state, pod, work)
    known, raws = table.column_for(nodes)
    # By identity (see AnswerTable): no generation is read, only compared.
    stale = list(compress(range(len(pos)), map(is_not, map(known.__getitem__, pos), gens)))
    if not stale:
        return list(map(raws.__getitem__, pos)), None
    every = len(stale) == len(pos)  # (then stale is range(len(work)))
    got, failure = _score_all(pl, state, pod, work if every else list(map(work.__getitem__, stale)))
    if got is None:
        return None, failure
    # Written back into the column by C-level maps, not a Python loop over thousands of nodes.
    at = pos if every else list(map(pos.__getitem__, stale))
    deque(map(raws.__setitem__, at, got), maxlen=0)
    deque(map(known.__setitem__, at, gens if every else map(gens.__getitem__, stale)), maxlen=0)
    return got if every else list(map(raws.__getitem__, pos)), None


def _score_all(pl: Plugin, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]
               ) -> tuple[list[int] | None, Status | None]:
    """``pl``'s raw scores of ``nodes`` in bulk where it can (``score_nodes``; None: it
    declines), else node by node up to its first failure."""
    bulk = getattr(pl, "score_nodes", None)
    got: list[int] | None = bulk(state, pod, nodes) if bulk is not None else None
    if got is not None:
        return got, None
    got = []
    for ni in nodes:
        s, st = pl.score(state, pod, ni)  # type: ignore[attr-defined]
        if not st.is_success:
            return None, st
        got.append(int(s))
    return got, None


def filter_failures(pl: Plugin, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]
                    ) -> list[tuple[int, Status]]:
    """``pl``'s Filter failures among ``nodes`` (their positions, the statuses as the plugin
    returns them), in bulk where it can (``filter_nodes``; None: it declines), else node by
    node."""
    bulk = getattr(pl, "filter_nodes", None)
    got: list[tuple[int, Status]] | None = bulk(state, pod, nodes) if bulk is not None else None
    if got is not None:
        return got
    return [(k, st) for k, ni in enumerate(nodes) if not (st := pl.filter(state, pod, ni)).is_success]  # type: ignore[attr-defined]


class ReplicaMemo:
    """Answers of node-local plugins kept across the cycles of copies of one pod template.

    Keyed by plugin and node and valid while the node's generation is unchanged: binding a
    copy changes only its node's generation, so every other node's node-local answers carry
    over to the next cycle. Only ever used for pods that differ by name and uid alone.
    """

    __slots__ = ("filters", "scores", "_split", "bound", "removed", "states", "engine", "filter_tables")

    def __init__(self) -> None:
        # The copies bound so far, in order (pod, node name): plugins whose cycle-wide state
        # only grows by them update an earlier cycle's state instead of rebuilding it.
        self.bound: list[tuple[PodInfo, str]] = []
        # The pods taken off the snapshot meanwhile, in order (pod, node name): a rollout's
        # controller deletes old pods between its new ones (see :meth:`removed_pod`).
        self.removed: list[tuple[PodInfo, str]] = []
        # plugin key -> (number of copies it has seen, its state)
        self.states: dict[str, tuple[int, Any]] = {}
        # node -> (generation, failures of the leading node-local Filter plugins, all of them)
        self.filters: AnswerTable = AnswerTable()
        # plugin -> node -> (generation, raw score)
        self.scores: dict[str, AnswerTable] = {}
        self._split: tuple[list[Plugin], set[str], list[Plugin], list[Plugin]] | None = None
        # A replica run's kschedx.core.framework.replica_inc.ReplicaEngine: the copies are bound
        # one after another, so PodTopologySpread carries its counts over and each cycle updates
        # the previous copy's verdicts and scores instead of judging every node again.
        self.engine: Any = None
        # Set by core/framework/shared_answers.py: the filter table for a cycle's leading
        # node-local plugins, shared with every pod that signs equal for them.
        self.filter_tables: Callable[[list[Plugin]], AnswerTable] | None = None

    def removed_pod(self, pod: PodInfo, node: str) -> None:
        """``pod`` was taken off ``node``. The node-local answers stay keyed by generation
        and the replica engine updates the node's verdicts and scores; the plugins' states
        that only ever grow by bound copies can't follow a removal: they count again."""
        self.removed.append((pod, node))
        self.states.clear()

    def head(self, state: CycleState, pod: PodInfo, local: list[Plugin], node: NodeInfo) -> list[Status]:
        """The failures of the leading node-local Filter plugins ``local`` on ``node``, each as
        ``RunFilterPlugins`` returns it; answered from the table while the node's generation
        is unchanged (they have no side effects, so running them all once costs nothing but
        time)."""
        hit = self.filters.get(node.name)
        if hit is not None and hit[0] == node.generation:
            known: list[Status] = hit[1]
            return known
        head: list[Status] = []
        for pl in local:
            st: Status = pl.filter(state, pod, node)  # type: ignore[attr-defined]
            if not st.is_success:
                head.append(filter_failure(st, pl.name))
        self.filters[node.name] = (node.generation, head)
        return head

    def head_column(self, state: CycleState, pod: PodInfo, local: list[Plugin], nodes: list[NodeInfo],
                    generations: list[int]) -> list[list[Status]]:
        """:meth:`head` for every node of ``nodes`` (their current ``generations``), in node
        order: a pod signing equal for these plugins (another workload of a release) asked
        before, so only the nodes changed since are judged again. Shared: don't change it."""
        table = self.filters
        known, heads = table.column_for(nodes)
        stale = list(compress(range(len(nodes)), map(is_not, known, generations)))  # (see raw_scores)
        if not stale:
            return heads
        grown = table.grown
        if grown is None:  # (a new column: none of it answered yet)
            grown = table.grown = [-1] * len(nodes)
        if all(pl.passes_after_removal for pl in local):
            # A node that passed them all and has only lost pods since passes them still
            # (the same object: no other change since it was answered).
            kept = [i for i in stale if grown[i] is nodes[i].grown and heads[i] == []]
            if kept:
                for i in kept:
                    known[i] = generations[i]
                    table[nodes[i].name] = (generations[i], heads[i])
                stale = [i for i in stale if known[i] is not generations[i]]
                if not stale:
                    return heads
        todo = list(map(nodes.__getitem__, stale))
        # Every plugin over the stale nodes at once (``filter_nodes`` where a plugin has it,
        # else node by node), each node's failures gathered in plugin order: what ``head``
        # gives node by node.
        failures: dict[int, list[Status]] = {}
        for pl in local:
            for k, st in filter_failures(pl, state, pod, todo):
                failures.setdefault(k, []).append(filter_failure(st, pl.name))
        # Written back by C-level maps (a new signature's column is every node): the
        # passing nodes share one empty list, which nobody changes.
        got = list(map(failures.get, range(len(todo)), repeat(_PASSED)))
        gens = list(map(generations.__getitem__, stale))
        deque(map(heads.__setitem__, stale, got), maxlen=0)
        deque(map(known.__setitem__, stale, gens), maxlen=0)
        deque(map(grown.__setitem__, stale, map(_grown_of, todo)), maxlen=0)
        table.update(zip(map(node_name_of, todo), zip(gens, got, strict=True), strict=True))
        return heads

    def split(self, plugins: list[Plugin], skipped: set[str]) -> tuple[list[Plugin], list[Plugin]]:
        """The Filter plugins that run, as the leading node-local ones and the rest (of this
        cycle's framework and cycle state: each cycle has its own plugin instances and skip
        set, fixed once PreFilter is done, hence ``is``)."""
        cached = self._split
        if cached is None or cached[0] is not plugins or cached[1] is not skipped:
            key = skipped
            active = [pl for pl in plugins if pl.name not in skipped]
            n = 0
            while n < len(active) and active[n].node_local:
                n += 1
            cached = self._split = (plugins, key, active[:n], active[n:])
            if self.filter_tables is not None:
                self.filters = self.filter_tables(cached[2])
        return cached[2], cached[3]


# The Filter column's answer for every node that passes (shared: never changed).
_PASSED: list[Status] = []
_grown_of = attrgetter("grown")
# A node's name (of a NodeInfo), for C-level maps over node lists.
node_name_of = attrgetter("name")

PluginFactory = Callable[[Handle, "dict[str, Any] | None"], Plugin]


def default_normalize(scores: dict[str, int], reverse: bool, max_priority: int = MAX_NODE_SCORE) -> None:
    """``helper.DefaultNormalizeScore``: scale to [0, max] by the maximum, optionally reversed."""
    top = max(scores.values(), default=0)
    if top == 0:
        if reverse:
            for k in scores:
                scores[k] = max_priority
        return
    for k, v in scores.items():
        s = max_priority * v // top
        scores[k] = max_priority - s if reverse else s


def normalize_values_by(norm: Any, names: list[str], raws: list[int]) -> list[int]:
    """NormalizeScore of ``raws`` (the scores of the nodes ``names``, in that order) by a
    plugin's normalizer in parts (``replica_normalizer``: its ``ignored`` nodes, ``bounds``
    and ``share``), as a new list: each distinct raw score of the nodes not ignored is
    normalized once, the ignored nodes one by one."""
    ignored = norm.ignored
    if ignored:
        counted = [n not in ignored for n in names]
        params = norm.bounds(list(compress(raws, counted)))
    else:
        params = norm.bounds(raws)
    # A node not ignored shares by its raw score alone.
    table = {raw: norm.share("", raw, params) for raw in set(raws)}
    out = list(map(table.__getitem__, raws))
    if ignored:
        for j in compress(range(len(names)), map(not_, counted)):
            out[j] = norm.share(names[j], raws[j], params)
    return out


def default_normalize_values(values: list[int], reverse: bool, max_priority: int = MAX_NODE_SCORE) -> list[int]:
    """:func:`default_normalize` of scores given as a list (a new list, in its order)."""
    top = max(values, default=0)
    if top == 0:
        return [max_priority] * len(values) if reverse else list(values)
    if reverse:
        return [max_priority - max_priority * v // top for v in values]
    return [max_priority * v // top for v in values]


# --------------------------------------------------------------------------- results of one cycle


@dataclass
class NodeStatusMap:
    """Statuses of rejected nodes plus the status of nodes absent from the map."""

    statuses: dict[str, Status] = field(default_factory=dict)
    absent: Status = field(default_factory=lambda: Status.unresolvable())

    def get(self, name: str) -> Status:
        return self.statuses.get(name, self.absent)


def fit_error_message(num_all_nodes: int, prefilter_msg: str, statuses: NodeStatusMap, post_filter_msg: str) -> str:
    """The FitError text exactly as upstream builds it."""
    msg = f"0/{num_all_nodes} nodes are available:"
    if prefilter_msg:
        msg += f" {prefilter_msg}."
    else:
        counts: dict[str, int] = {}
        for st in statuses.statuses.values():
            for r in st.reasons:
                counts[r] = counts.get(r, 0) + 1
        absent = num_all_nodes - len(statuses.statuses)
        if absent > 0:
            for r in statuses.absent.reasons:
                counts[r] = counts.get(r, 0) + absent
        # Go sorts the "N reason" strings bytewise.
        items = sorted(
            (f"{n} {r}" for r, n in counts.items()), key=lambda s: s.encode("utf-8")
        )
        if items:
            msg += f" {', '.join(items)}."
    if post_filter_msg:
        msg += f" {post_filter_msg}"
    return msg


def go_string_list(items: Iterable[str]) -> str:
    """Go's %v of a []string: ``[a b c]``."""
    return "[" + " ".join(items) + "]"


class PluginSet:
    """The instantiated plugins of a profile, by extension point, in order."""

    def __init__(self, profile: Profile, handle: Handle, registry: dict[str, type[Plugin]]) -> None:
        self.profile = profile
        self.instances: dict[str, Plugin] = {}

        def get(name: str) -> Plugin:
            inst = self.instances.get(name)
            if inst is None:
                cls = registry[name]
                inst = cls(handle, profile.plugin_args.get(name))
                self.instances[name] = inst
            return inst

        self.pre_enqueue = [get(n) for n in profile.pre_enqueue]
        self.pre_filter = [get(n) for n in profile.pre_filter]
        self.filter = [get(n) for n in profile.filter]
        self.post_filter = [get(n) for n in profile.post_filter]
        self.pre_score = [get(n) for n in profile.pre_score]
        self.score = [(get(n), w) for n, w in profile.score]
        # PreFilter plugins with PreFilterExtensions (add_pod/remove_pod); duck-typed like the others.
        self.extensions: list[Any] = [p for p in self.pre_filter if hasattr(p, "add_pod")]

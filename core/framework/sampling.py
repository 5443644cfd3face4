"""What one scheduling cycle leaves to chance, told as exact odds.

kube-scheduler (``schedule_one.go``) does not score every feasible node of a large cluster:

- **The scan.** ``findNodesThatPassFilters`` walks the snapshot's node list from
  ``nextStartNodeIndex`` (wrapping around) and stops once it has ``numFeasibleNodesToFind``
  feasible nodes; only those are scored: PreScore sees only them and NormalizeScore takes
  its minimum and maximum over them. The start index moves on by the nodes processed every
  cycle, so from outside the scheduler it is unknowable: each start is taken as equally
  likely. With a PreFilterResult the scan goes over its nodes only (upstream lists them
  from a map, in random order; here in the snapshot's order) from the start index modulo
  their number.
- **The list's order** is the scheduler cache's node tree: nodes grouped by zone (region and
  zone labels, beta labels first, as ``GetZoneKey`` reads them), zones in the order their
  first node arrived, nodes in arrival order, the list taken round-robin across zones. The
  informer's first list delivers nodes in name order, which is assumed here.
- **Ties.** v1.33–v1.34 pick uniformly among the top-scored nodes; from v1.35 a score heap
  gives a tie to the tied node the parallel filter put first, which is unpredictable too:
  either way ties are split evenly.

:func:`window_odds` gives each node's probability as an exact fraction. Every start whose
first feasible node is the same gives the same window (the next ``numNodesToFind`` feasible
nodes in scan order), so there are at most as many windows as feasible nodes. A node's raw
score does not depend on the window except through a few numbers per plugin (a
NormalizeScore's bounds, PodTopologySpread's domain counts), which are followed from one
window to the next; the windows that agree on all of them are totalled together.
:func:`odds_from_scratch` runs PreScore, Score and NormalizeScore afresh on every window
instead: the tests hold the two equal, and it answers where a plugin's NormalizeScore has
no known form (or an extender prioritizes).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import accumulate
from math import lcm
from typing import Any

from kschedx.core.api.model import PodInfo
from kschedx.core.framework.interface import MAX_NODE_SCORE, CycleState
from kschedx.core.framework.result import CycleResult
from kschedx.core.snapshot import NodeInfo

ZONE = "topology.kubernetes.io/zone"
ZONE_BETA = "failure-domain.beta.kubernetes.io/zone"
REGION = "topology.kubernetes.io/region"
REGION_BETA = "failure-domain.beta.kubernetes.io/region"


def zone_key(labels: Mapping[str, str]) -> str:
    """``GetZoneKey``: the node tree's zone of a node (beta labels first; "" without either)."""
    zone = labels[ZONE_BETA] if ZONE_BETA in labels else labels.get(ZONE, "")
    region = labels[REGION_BETA] if REGION_BETA in labels else labels.get(REGION, "")
    if not region and not zone:
        return ""
    return f"{region}:\x00:{zone}"


def zone_name(labels: Mapping[str, str]) -> str:
    """The zone a person reads off a node (the GA label, else the beta one; "" without)."""
    return labels.get(ZONE) or labels.get(ZONE_BETA) or ""


def scan_order(nodes: Sequence[NodeInfo]) -> list[int]:
    """The positions of ``nodes`` in the scheduler snapshot's order (``nodeTree.list``):
    nodes added in name order, zones in the order of their first node, round-robin."""
    zones: dict[str, list[int]] = {}
    for i in sorted(range(len(nodes)), key=lambda i: nodes[i].name):
        zones.setdefault(zone_key(nodes[i].node.labels), []).append(i)
    lists = list(zones.values())
    out: list[int] = []
    for k in range(max(map(len, lists), default=0)):
        out.extend(lst[k] for lst in lists if k < len(lst))
    return out


@dataclass
class StartRun:
    """Consecutive scan positions whose cycles score the same window: the positions
    ``first``..``last`` (a start index s begins the scan at position s modulo the number of
    nodes scanned), the window's best nodes, its size, and the feasible node it opens with
    (its index in ``Sampling.feasible_in_scan_order``)."""

    first: int
    last: int
    top: list[str]
    window_size: int
    window_first: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"from": self.first, "to": self.last, "top": list(self.top), "windowSize": self.window_size}


@dataclass
class Sampling:
    """The odds of one cycle over every start of the scan and every tie-break."""

    num_all_nodes: int
    # The nodes the scan walks (a PreFilterResult's, else all) and how many feasible ones it wants.
    num_scanned: int
    num_nodes_to_find: int
    num_feasible: int
    odds: dict[str, Fraction] = field(default_factory=dict)
    starts: list[StartRun] = field(default_factory=list)
    # The pod's own nominated node passes: the scheduler binds it without a scan.
    nominated_shortcut: bool = False
    # The feasible nodes in scan order (the windows are runs of it, wrapping around).
    feasible_in_scan_order: list[str] = field(default_factory=list)
    zones: dict[str, Fraction] = field(default_factory=dict)
    # The share of cycles that choose one of the best nodes of all (``bestNodes``).
    best_of_all: Fraction = Fraction(0)
    # "windows" (scored window by window) or "one window" (every start scores the same nodes).
    method: str = "one window"

    @property
    def same_window_for_every_start(self) -> bool:
        return self.nominated_shortcut or self.num_feasible <= self.num_nodes_to_find

    @property
    def window_size(self) -> int:
        return min(self.num_feasible, self.num_nodes_to_find)

    def run_weights(self) -> list[int]:
        """How many of the equally likely start indices each of ``starts`` stands for."""
        per_position = start_weights(self.num_scanned, self.num_all_nodes)
        prefix = [0, *accumulate(per_position)]
        return [prefix[r.last + 1] - prefix[r.first] for r in self.starts]

    def story_of(self, node: str) -> tuple[Fraction, Fraction, dict[str, Fraction]]:
        """For one node: the share of cycles it is chosen in, the share whose window holds
        it, and, of the cycles whose window holds it but choose another node, the share each
        other node wins."""
        won = self.odds.get(node, Fraction(0))
        held = Fraction(0)
        beaten: dict[str, Fraction] = {}
        total = self.num_all_nodes
        order = self.feasible_in_scan_order
        at = order.index(node) if node in order else None
        for run, w in zip(self.starts, self.run_weights(), strict=True):
            if not w or at is None:
                continue
            if not self.same_window_for_every_start and (at - run.window_first) % len(order) >= run.window_size:
                continue
            held += Fraction(w, total)
            others = [n for n in run.top if n != node]
            for n in others:
                beaten[n] = beaten.get(n, Fraction(0)) + Fraction(w, total * len(run.top))
        return won, held, beaten

    def to_json(self) -> dict[str, Any]:
        return {
            "numAllNodes": self.num_all_nodes,
            "numScannedNodes": self.num_scanned,
            "numNodesToFind": self.num_nodes_to_find,
            "numFeasibleNodes": self.num_feasible,
            "windowSize": self.window_size,
            "sameWindowForEveryStart": self.same_window_for_every_start,
            "nominatedNodeShortcut": self.nominated_shortcut,
            "odds": {n: float(p) for n, p in sorted(self.odds.items())},
            "oddsExact": {n: [p.numerator, p.denominator] for n, p in sorted(self.odds.items())},
            "zones": {z: float(p) for z, p in sorted(self.zones.items())},
            "bestOfAllOdds": float(self.best_of_all),
            "starts": [r.to_json() for r in self.starts],
        }


class WindowScoringFailed(Exception):
    """A plugin failed on a window scored from scratch (its message says which)."""


# --------------------------------------------------------------------------- the windows


def start_weights(scan_len: int, num_starts: int) -> list[int]:
    """How many of the ``num_starts`` equally likely start indices begin the scan at each
    of its ``scan_len`` positions (the start index modulo ``scan_len``)."""
    q, rem = divmod(num_starts, scan_len)
    return [q + (r < rem) for r in range(scan_len)]


def window_weights(feasible_at: Sequence[int], weights: Sequence[int]) -> list[int]:
    """Per feasible scan position (ascending), the weight of the starts whose scan meets it
    first: the positions after the previous feasible one up to it, wrapping around."""
    prefix = [0, *accumulate(weights)]
    total = prefix[-1]
    out = []
    for j, f in enumerate(feasible_at):
        prev = feasible_at[j - 1]
        out.append(prefix[f + 1] - prefix[prev + 1] if j else total - prefix[prev + 1] + prefix[f + 1])
    return out


def _bounds(values: Sequence[int], counted: Sequence[bool] | None, size: int,
            first: int, last: int) -> list[tuple[int, int] | None]:
    """For each window ``first``..``last`` (window j holds ``values[j..j+size)``, wrapping
    around), the minimum and maximum of its counted values (None: none counted): two
    monotonic queues, so each value enters and leaves once."""
    n = len(values)
    lo: deque[int] = deque()
    hi: deque[int] = deque()
    out: list[tuple[int, int] | None] = []
    nxt = first
    for j in range(first, last + 1):
        while nxt < j + size:
            x = nxt % n
            if counted is None or counted[x]:
                v = values[x]
                while lo and values[lo[-1] % n] >= v:
                    lo.pop()
                lo.append(nxt)
                while hi and values[hi[-1] % n] <= v:
                    hi.pop()
                hi.append(nxt)
            nxt += 1
        while lo and lo[0] < j:
            lo.popleft()
        while hi and hi[0] < j:
            hi.popleft()
        out.append((values[lo[0] % n], values[hi[0] % n]) if lo else None)
    return out


def _distinct(keys: Sequence[Hashable | None], size: int, count: int) -> list[int]:
    """For each of the first ``count`` windows, how many distinct keys other than None it holds."""
    n = len(keys)
    seen: dict[Hashable, int] = {}
    out = []
    for x in range(size):
        k = keys[x % n]
        if k is not None:
            seen[k] = seen.get(k, 0) + 1
    out.append(len(seen))
    for j in range(1, count):
        gone, new = keys[(j - 1) % n], keys[(j + size - 1) % n]
        if gone is not None:
            left = seen[gone] - 1
            if left:
                seen[gone] = left
            else:
                del seen[gone]
        if new is not None:
            seen[new] = seen.get(new, 0) + 1
        out.append(len(seen))
    return out


def _runs(signatures: Sequence[Hashable]) -> list[tuple[int, int]]:
    """The maximal runs of equal consecutive signatures, as (first, last) window indices."""
    runs: list[tuple[int, int]] = []
    start = 0
    for j in range(1, len(signatures) + 1):
        if j == len(signatures) or signatures[j] != signatures[start]:
            runs.append((start, j - 1))
            start = j
    return runs


@dataclass
class _Column:
    """One score plugin's part of the totals over the feasible nodes in scan order.

    ``kind``: "fixed" (its weighted scores stand whatever the window), "max" (default
    NormalizeScore: by the window's largest raw score; ``reverse``), "parts" (a NormalizeScore
    in parts, ``norm``: bounds over the window's counted nodes, then each node's share)."""

    kind: str
    weight: int
    raws: list[int]
    reverse: bool = False
    norm: Any = None
    counted: list[bool] | None = None
    # PodTopologySpread-like: the raw scores follow per-constraint domain counts of the window.
    keys: list[list[Hashable | None]] | None = None
    raws_for: Callable[[tuple[int, ...]], list[int]] | None = None

    def shares(self, params: Any, names: Sequence[str], positions: Iterable[int], raws: list[int]) -> list[int]:
        """The weighted scores of the nodes at ``positions`` under a window's ``params``."""
        w = self.weight
        if self.kind == "fixed":
            return [raws[x] * w for x in positions]
        if self.kind == "max":
            top = params
            if top == 0:  # as default_normalize_values: all full marks reversed, else unchanged
                if self.reverse:
                    return [MAX_NODE_SCORE * w for _ in positions]
                return [raws[x] * w for x in positions]
            if self.reverse:
                return [(MAX_NODE_SCORE - MAX_NODE_SCORE * raws[x] // top) * w for x in positions]
            return [MAX_NODE_SCORE * raws[x] // top * w for x in positions]
        norm = self.norm
        bounds = norm.bounds(list(params) if params is not None else [])
        counted = self.counted
        table: dict[int, int] = {}
        out = []
        for x in positions:
            raw = raws[x]
            if counted is not None and not counted[x]:
                out.append(norm.share(names[x], raw, bounds) * w)
                continue
            s = table.get(raw)
            if s is None:
                s = table[raw] = norm.share("", raw, bounds)
            out.append(s * w)
        return out


def _columns(fw: Any, state: CycleState, pod: PodInfo, result: CycleResult,
             scan_nodes: list[NodeInfo]) -> list[_Column] | None:
    """The score plugins' columns in scan order; None where one has no known form."""
    names = [ni.name for ni in scan_nodes]
    by_plugin = {ps.name: ps for ps in result.score_plugins}
    columns: list[_Column] = []
    for pl, weight in fw.plugins.score:
        ps = by_plugin.get(pl.name)
        if ps is None or ps.skipped:
            continue
        scores = ps.scores
        raws = [scores[n].raw for n in names]
        window_raws = getattr(pl, "window_raws", None)
        if not hasattr(pl, "normalize_score"):
            if window_raws is not None:
                return None
            columns.append(_Column("fixed", weight, raws))
            continue
        if pl.normalize_reverse is not None:
            if window_raws is not None:
                return None
            columns.append(_Column("max", weight, raws, reverse=bool(pl.normalize_reverse)))
            continue
        make = getattr(pl, "replica_normalizer", None)
        if make is None:
            return None
        norm = make(state)
        if norm is None:  # its NormalizeScore changes nothing this cycle
            if window_raws is not None:
                return None
            columns.append(_Column("fixed", weight, raws))
            continue
        ignored = norm.ignored
        counted = [n not in ignored for n in names] if ignored else None
        col = _Column("parts", weight, raws, norm=norm, counted=counted)
        if window_raws is not None:
            got = window_raws(state, pod, scan_nodes)
            if got is None:
                return None
            col.keys, col.raws_for = got
        columns.append(col)
    return columns


def _window_tops(columns: list[_Column], names: list[str], size: int,
                 record: list[dict[str, int]] | None = None) -> list[list[int]]:
    """Each window's best nodes (positions in scan order): windows that agree on every
    plugin's parameters are totalled together, and each run of them takes its best nodes
    from one monotonic queue over its totals."""
    n = len(names)
    count = n
    # Per column, per window: the parameters its NormalizeScore (and raw scores) depend on.
    params: list[list[Any]] = []
    raws_by_col: list[dict[Any, list[int]]] = []
    for col in columns:
        kept: dict[Any, list[int]] = {}
        raws_by_col.append(kept)
        if col.kind == "fixed":
            params.append([None] * count)
            continue
        if col.keys is not None and col.raws_for is not None:
            sizes = list(zip(*(_distinct(k, size, count) for k in col.keys), strict=True)) if col.keys \
                else [()] * count
            got: list[Any] = []
            for a, b in _runs(sizes):
                raws = kept.get(sizes[a])
                if raws is None:
                    raws = kept[sizes[a]] = col.raws_for(sizes[a])
                got.extend((sizes[a], bd) for bd in _bounds(raws, col.counted, size, a, b))
            params.append(got)
            continue
        bounds = _bounds(col.raws, col.counted, size, 0, count - 1)
        if col.kind == "max":
            params.append([bd[1] if bd is not None else 0 for bd in bounds])
        else:
            params.append(bounds)
    signatures = list(zip(*params, strict=True)) if params else [()] * count
    tops: list[list[int]] = []
    for a, b in _runs(signatures):
        sig = signatures[a]
        span = range(a, b + size)
        positions = [x % n for x in span]
        totals = [0] * len(positions)
        for col, p, kept in zip(columns, sig, raws_by_col, strict=True):
            raws = col.raws
            if col.keys is not None:
                raws = kept[p[0]]
                p = p[1]
            for i, v in enumerate(col.shares(p, names, positions, raws)):
                totals[i] += v
        # The best nodes of each window: a queue of non-increasing totals keeps every node
        # that no later node of the window beats, so the window's ties are its head.
        q: deque[int] = deque()
        nxt = 0
        for j in range(a, b + 1):
            rel = j - a
            while nxt < rel + size:
                v = totals[nxt]
                while q and totals[q[-1]] < v:
                    q.pop()
                q.append(nxt)
                nxt += 1
            while q[0] < rel:
                q.popleft()
            if record is not None:  # every node's total in this window (the tests read them)
                record.append({names[positions[i]]: totals[i] for i in range(rel, rel + size)})
            best = totals[q[0]]
            top = []
            for i in q:
                if totals[i] != best:
                    break
                top.append(positions[i])
            tops.append(top)
    return tops


def odds_from_tops(names: list[str], weights: Sequence[int], tops: Sequence[Sequence[int]],
                    total: int) -> dict[str, Fraction]:
    """Each node's probability: window j's starts (``weights[j]`` of ``total``) split
    evenly among its best nodes."""
    # Per node, per tie size: the starts it shares with that many others.
    shares: dict[int, dict[int, int]] = {}
    for w, top in zip(weights, tops, strict=True):
        if not w:
            continue
        t = len(top)
        for x in top:
            by_t = shares.setdefault(x, {})
            by_t[t] = by_t.get(t, 0) + w
    out: dict[str, Fraction] = {}
    for x, by_t in shares.items():
        den = lcm(*by_t)
        out[names[x]] = Fraction(sum(w * (den // t) for t, w in by_t.items()), den * total)
    return out


def start_runs(feasible_at: list[int], scan_len: int, tops: Sequence[Sequence[int]],
                names: list[str], size: int) -> list[StartRun]:
    """The scan positions grouped by the window their cycles score (consecutive positions
    with the same best nodes merged)."""
    runs: list[StartRun] = []
    if not feasible_at:
        return [StartRun(0, scan_len - 1, [], 0)]
    last = feasible_at[-1]
    pieces: list[tuple[int, int, int]] = []
    for j, f in enumerate(feasible_at):
        first = feasible_at[j - 1] + 1 if j else 0
        pieces.append((first, f, j))
    if last < scan_len - 1:
        pieces.append((last + 1, scan_len - 1, 0))
    for first, end, j in pieces:
        top = sorted(names[x] for x in tops[j])
        if runs and runs[-1].top == top and runs[-1].last == first - 1:
            runs[-1].last = end
            continue
        runs.append(StartRun(first, end, top, size, j))
    return runs


def _scan_list(scanned: list[NodeInfo], feasible: list[NodeInfo]) -> tuple[list[NodeInfo], set[int]]:
    """The scanned nodes in scan order, and the identities of the feasible ones."""
    return [scanned[i] for i in scan_order(scanned)], {id(ni) for ni in feasible}


def _walk(scan_nodes: list[NodeInfo], is_feasible: set[int], begin: int,
          num_to_find: int) -> tuple[list[NodeInfo], int]:
    """The scan from position ``begin``, wrapping around: the first ``num_to_find``
    feasible nodes it meets (its window) and how many nodes it processed to find them."""
    n = len(scan_nodes)
    window: list[NodeInfo] = []
    for i in range(n):
        ni = scan_nodes[(begin + i) % n]
        if id(ni) in is_feasible:
            window.append(ni)
            if len(window) == num_to_find:
                return window, i + 1
    return window, n


def _scored_tops(fw: Any, state: CycleState, pod: PodInfo, window: list[NodeInfo]) -> tuple[list[int], list[int]]:
    """``window`` scored from scratch from a copy of ``state`` (as PreScore starts): each
    node's total, and the indices in ``window`` of the best ones."""
    totals = fw.window_totals(state.clone(), pod, window)
    if totals is None:
        raise WindowScoringFailed(f"a plugin fails on the window opening with {window[0].name}")
    best = max(totals)
    return totals, [i for i, t in enumerate(totals) if t == best]


# --------------------------------------------------------------------------- the cycle's odds


# How window_odds scores the windows: "windows" (by their parameters, where every plugin's
# form is known), "scratch" (each window afresh) or "definition" (each start index afresh,
# odds_from_scratch). The last two are what the tests hold the first equal to.
METHODS = ("windows", "scratch", "definition")


def window_odds(fw: Any, state: CycleState, pre_score_state: CycleState | None, pod: PodInfo,
                result: CycleResult, feasible: list[NodeInfo], scanned: list[NodeInfo],
                num_to_find: int, method: str = "windows", record: list[dict[str, int]] | None = None) -> Sampling:
    """The odds of ``result``'s cycle. ``feasible``: its feasible nodes; ``scanned``: the
    nodes the scan walks (all, or the PreFilterResult's), in the snapshot's order;
    ``state``: the cycle's state after Score; ``pre_score_state``: a copy from before
    PreScore (needed where windows are scored from scratch); ``method``: see METHODS;
    ``record`` gets each window's totals, window by window (for the tests)."""
    scan_nodes_all, is_feasible = _scan_list(scanned, feasible)
    feasible_at = [k for k, ni in enumerate(scan_nodes_all) if id(ni) in is_feasible]
    scan_feasible = [scan_nodes_all[k] for k in feasible_at]
    names = [ni.name for ni in scan_feasible]
    num_all = result.num_all_nodes
    out = Sampling(num_all, len(scanned), num_to_find, len(feasible), feasible_in_scan_order=names)
    weights = window_weights(feasible_at, start_weights(len(scanned), num_all)) if feasible_at else []
    size = min(num_to_find, len(names))
    if not names:
        out.starts = start_runs([], len(scanned), [], names, 0)
        return out
    if len(names) <= num_to_find:
        # Every start finds the same feasible nodes: the cycle's own best nodes, evenly.
        best = set(result.best_nodes)
        tops = [[x for x, n in enumerate(names) if n in best]] * len(names)
    else:
        columns = None if fw.extenders or method != "windows" else _columns(fw, state, pod, result, scan_feasible)
        if columns is not None:
            tops = _window_tops(columns, names, size, record)
            out.method = "windows"
        elif pre_score_state is not None:
            tops = _tops_from_scratch(fw, pre_score_state, pod, scan_feasible, size, record)
            out.method = "windows from scratch"
        else:
            raise WindowScoringFailed("the windows would be scored from scratch, without the state PreScore starts with")
    out.odds = odds_from_tops(names, weights, tops, num_all)
    if method == "definition" and pre_score_state is not None:
        out.odds = odds_from_scratch(fw, pre_score_state, pod, result, feasible, scanned, num_to_find)
    out.starts = start_runs(feasible_at, len(scanned), tops, names, size)
    fill_summaries(out, fw.snapshot, result.best_nodes)
    return out


@dataclass
class Draw:
    """One cycle as the scheduler runs it from one start index: the node it chooses (one
    of its window's best, drawn at random), how many nodes its scan processed (the start
    index of the next cycle moves on by as many) and how many it could have chosen."""

    node: str
    processed: int
    tied: int
    # The window was every feasible node (the start index did not matter).
    whole: bool = True
    # The scan position the cycle started at (the start index modulo the nodes scanned).
    start: int = 0


def draw(fw: Any, state: CycleState | None, pod: PodInfo, result: CycleResult, feasible: list[NodeInfo],
         scanned: list[NodeInfo], num_to_find: int, start: int, rng: Any) -> Draw:
    """The cycle of ``result`` from the start index ``start`` (of ``result.num_all_nodes``),
    its tie broken by ``rng``; ``state``: a copy of the cycle state from before PreScore
    (needed when the window is smaller than the feasible nodes)."""
    scan_nodes, is_feasible = _scan_list(scanned, feasible)
    begin = start % len(scan_nodes)
    window, processed = _walk(scan_nodes, is_feasible, begin, num_to_find)
    if len(window) == len(feasible):
        tops = sorted(result.best_nodes)  # the whole feasible set: the cycle's own best nodes
    else:
        if state is None:
            raise WindowScoringFailed("a window is scored without the state PreScore starts with")
        tops = sorted(window[i].name for i in _scored_tops(fw, state, pod, window)[1])
    return Draw(tops[rng.randrange(len(tops))] if len(tops) > 1 else tops[0], processed, len(tops),
                len(window) == len(feasible), begin)


def fill_summaries(out: Sampling, snapshot: Any, best_nodes: Iterable[str]) -> None:
    """The odds per zone and the share of cycles choosing a best node of all."""
    zones: dict[str, Fraction] = {}
    for name, p in out.odds.items():
        ni = snapshot.get(name)
        z = zone_name(ni.node.labels) if ni is not None else ""
        zones[z] = zones.get(z, Fraction(0)) + p
    out.zones = zones
    out.best_of_all = sum((out.odds.get(n, Fraction(0)) for n in set(best_nodes)), Fraction(0))


def nominated_odds(result: CycleResult, num_to_find: int, num_scanned: int, node: str) -> Sampling:
    """The pod's nominated node passes its filters: bound there on every start."""
    out = Sampling(result.num_all_nodes, num_scanned, num_to_find, 1, odds={node: Fraction(1)},
                   nominated_shortcut=True, feasible_in_scan_order=[node])
    out.starts = [StartRun(0, num_scanned - 1, [node], 1)]
    out.zones = {}
    out.best_of_all = Fraction(int(node in result.best_nodes))
    return out


def _tops_from_scratch(fw: Any, pre_score_state: CycleState, pod: PodInfo, scan_feasible: list[NodeInfo],
                       size: int, record: list[dict[str, int]] | None = None) -> list[list[int]]:
    """Each window's best nodes, by PreScore, Score and NormalizeScore run on it afresh."""
    n = len(scan_feasible)
    tops: list[list[int]] = []
    for j in range(n):
        window = [scan_feasible[(j + i) % n] for i in range(size)]
        totals, best = _scored_tops(fw, pre_score_state, pod, window)
        if record is not None:
            record.append({ni.name: t for ni, t in zip(window, totals, strict=True)})
        tops.append([(j + i) % n for i in best])
    return tops


def odds_from_scratch(fw: Any, pre_score_state: CycleState, pod: PodInfo, result: CycleResult,
                      feasible: list[NodeInfo], scanned: list[NodeInfo], num_to_find: int) -> dict[str, Fraction]:
    """The odds by the definition: every start index's scan run to its window, the window
    scored from scratch, its ties split evenly (what :func:`window_odds` must equal)."""
    scan_nodes_all, is_feasible = _scan_list(scanned, feasible)
    num_all = result.num_all_nodes
    counts: dict[str, Fraction] = {}
    for s in range(num_all):
        window, _ = _walk(scan_nodes_all, is_feasible, s % len(scan_nodes_all), num_to_find)
        if not window:
            continue
        if len(window) == 1:
            counts[window[0].name] = counts.get(window[0].name, Fraction(0)) + 1
            continue
        top = [window[i].name for i in _scored_tops(fw, pre_score_state, pod, window)[1]]
        for name in top:
            counts[name] = counts.get(name, Fraction(0)) + Fraction(1, len(top))
    return {n: c / num_all for n, c in counts.items()}


__all__ = [
    "METHODS", "Draw", "Sampling", "draw", "StartRun", "WindowScoringFailed", "nominated_odds", "odds_from_scratch",
    "odds_from_tops", "scan_order", "start_runs", "start_weights", "window_odds", "window_weights", "zone_key", "zone_name",
]

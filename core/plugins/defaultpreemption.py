"""DefaultPreemption: when no node fits, which lower-priority pods would be evicted, and where.

PostFilter as kube-scheduler v1.35 runs it (``preemption.Evaluator.Preempt`` with the
DefaultPreemption plugin's hooks):

1. Eligibility: ``preemptionPolicy: Never`` pods never preempt; a pod already nominated to
   a node where a lower-priority pod is terminating by preemption waits for it.
2. Potential nodes: only nodes whose Filter status is ``Unschedulable`` (an
   ``UnschedulableAndUnresolvable`` node can't be helped by evicting anyone).
3. Dry run per potential node, on copies of the node and the cycle state: take every
   lower-priority pod off; if there is none the node has "No preemption victims found";
   if the pod still doesn't fit, the failing filter's status stands. Otherwise put victims
   back one by one — first those whose eviction would violate a PodDisruptionBudget, then
   the others, each group from the most important (priority, then earliest start) — keeping
   every one whose return still lets the pod fit.
4. Candidate choice (``pickOneNodeForPreemption``): fewest PDB violations, then the lowest
   highest-victim priority, the smallest sum of victim priorities, the fewest victims, the
   latest start among the most important victims; what still ties is ``tiedBestNodes`` and
   the first of them by name is nominated (upstream takes one at random).
5. Every potential node is tried, so every candidate is listed; upstream starts at a random
   offset and stops at ``numCandidates``: the nominated node's odds over that offset and
   the ties are ``nominated_odds`` (``offset_odds``).

The FitError's PostFilter part is "preemption: " and the dry run's own FitError
("0/N nodes are available: …" with "Preemption is not helpful for scheduling" for the nodes
not tried), or nothing when a node is nominated (PostFilter succeeded).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from fractions import Fraction
from typing import Any

from kschedx.core.api.model import PodInfo
from kschedx.core.api.selectors import LabelSelector, SelectorError, parse_label_selector
from kschedx.core.framework.interface import Code, CycleState, NodeStatusMap, Plugin, Status, fit_error_message
from kschedx.core.framework.result import Candidate, PreemptionOutcome
from kschedx.core.framework.sampling import odds_from_tops, scan_order, start_runs, window_weights
from kschedx.core.snapshot import NodeInfo

NAME = "DefaultPreemption"

NOT_HELPFUL = "Preemption is not helpful for scheduling"
NO_VICTIMS = "No preemption victims found for incoming pod"
NOT_ELIGIBLE_NEVER = "not eligible due to preemptionPolicy=Never."
NOT_ELIGIBLE_TERMINATING = "not eligible due to a terminating pod on the nominated node."

# Go's MaxInt32 + 1: added to each priority so that sums of negative priorities still order.
_PRIORITY_OFFSET = 2**31
# A pod without status.startTime counts as started "now", after every recorded start.
_NOW = datetime.max.replace(tzinfo=None)


def start_time(pod: PodInfo) -> datetime:
    """``GetPodStartTime``: status.startTime, else now."""
    raw = pod.status.get("startTime")
    if not raw:
        return _NOW
    try:
        return datetime.fromisoformat(str(raw).replace("Z", "+00:00")).replace(tzinfo=None)
    except ValueError:
        return _NOW


def more_important(a: PodInfo, b: PodInfo) -> bool:
    """``MoreImportantPod``: higher priority, then the earlier start."""
    if a.priority != b.priority:
        return a.priority > b.priority
    return start_time(a) < start_time(b)


def by_importance(pods: Sequence[PodInfo]) -> list[PodInfo]:
    """Most important first. Upstream's sort is not stable, so pods equal in priority and
    start time come in an unspecified order; the name breaks the tie here."""
    return sorted(pods, key=lambda p: (-p.priority, start_time(p), p.namespace, p.name))


def terminating_by_preemption(pod: PodInfo) -> bool:
    if pod.deletion_timestamp is None:
        return False
    return any(
        c.get("type") == "DisruptionTarget" and c.get("reason") == "PreemptionByScheduler"
        for c in pod.status.get("conditions") or []
    )


@dataclass
class _PDB:
    namespace: str
    selector: LabelSelector | None
    allowed: int
    disrupted: frozenset[str]


def _pdbs(objects: Any) -> list[_PDB]:
    out = []
    for raw in objects.of("PodDisruptionBudget"):
        meta = raw.get("metadata") or {}
        status = raw.get("status") or {}
        sel_spec = (raw.get("spec") or {}).get("selector")
        try:
            selector = parse_label_selector(sel_spec) if sel_spec is not None else None
        except SelectorError:
            selector = None  # upstream skips a PDB whose selector doesn't convert
        out.append(_PDB(
            meta.get("namespace") or "default",
            selector,
            int(status.get("disruptionsAllowed") or 0),
            frozenset((status.get("disruptedPods") or {}).keys()),
        ))
    return out


def split_by_pdb_violation(pods: Sequence[PodInfo], pdbs: Sequence[_PDB]) -> tuple[list[PodInfo], list[PodInfo]]:
    """``filterPodsWithPDBViolation``: the pods whose eviction would exceed a matching PDB's
    disruptionsAllowed (counting down in the given order), and the others."""
    allowed = [p.allowed for p in pdbs]
    violating: list[PodInfo] = []
    others: list[PodInfo] = []
    for pod in pods:
        violated = False
        if pod.labels:
            for i, pdb in enumerate(pdbs):
                if pdb.namespace != pod.namespace or pdb.selector is None:
                    continue
                # A nil or empty selector matches no pod.
                if pdb.selector.empty or not pdb.selector.matches(pod.labels):
                    continue
                # Already counted by the disruption controller: not a new violation.
                if pod.name in pdb.disrupted:
                    continue
                allowed[i] -= 1
                if allowed[i] < 0:
                    violated = True
        (violating if violated else others).append(pod)
    return violating, others


def num_candidates(num_nodes: int, percentage: int, absolute: int) -> int:
    """``calculateNumCandidates``: a share of the nodes, at least the absolute minimum,
    at most all of them."""
    n = num_nodes * percentage // 100
    if n < absolute:
        n = absolute
    return min(n, num_nodes)


RULES = (
    "more PodDisruptionBudget violations",
    "a higher-priority victim",
    "a larger sum of victim priorities",
    "more victims",
    "an earlier-started most important victim",
)


def earliest_of_most_important(victims: Sequence[PodInfo]) -> datetime:
    """``GetEarliestPodStartTime``: the earliest start among the victims of the highest priority."""
    top = victims[0].priority
    earliest = start_time(victims[0])
    for p in victims:
        if p.priority == top:
            t = start_time(p)
            if t < earliest:
                earliest = t
        elif p.priority > top:
            top, earliest = p.priority, start_time(p)
    return earliest


def _importance_key(victims: Sequence[PodInfo], pdb_violations: int) -> tuple[Any, ...]:
    """``pickOneNodeForPreemption``'s rules as one key: the larger, the better the node (its
    rules pick the nodes with the best score, then the best of those by the next rule, which
    is the largest key in this order)."""
    return (-pdb_violations, -victims[0].priority, -sum(p.priority + _PRIORITY_OFFSET for p in victims),
            -len(victims), earliest_of_most_important(victims))


def offset_odds(potential: Sequence[str], victims: dict[str, list[PodInfo]], pdb_violations: dict[str, int],
                wanted: int) -> tuple[dict[str, Fraction], list[tuple[int, int, list[str]]]]:
    """The nominated node's odds over DryRunPreemption's random offset (``rand.Int31n`` of
    the potential nodes, each equally likely) and the tie ``pickOneNodeForPreemption``
    leaves (it takes the first of a map's order: split evenly). From the offset the nodes
    are tried in order, wrapping around, until ``wanted`` candidates are found, one of them
    without PodDisruptionBudget violations (upstream tries them in parallel; here in turn).
    Also the offsets as runs (first, last, nominated nodes)."""
    at = [k for k, name in enumerate(potential) if name in victims]
    if not at:
        return {}, []
    names = [potential[k] for k in at]
    keys = [_importance_key(victims[n], pdb_violations[n]) for n in names]
    clean = [pdb_violations[n] == 0 for n in names]
    c = len(names)
    # The next candidate without violations at or after each index (on the doubled list).
    next_clean = [0] * (2 * c)
    upcoming = 3 * c
    for x in range(2 * c - 1, -1, -1):
        if clean[x % c]:
            upcoming = x
        next_clean[x] = upcoming
    # Candidate a's run of tries, as a window of the scan: its best candidates (a monotonic
    # queue over the keys, each run ending no earlier than the one before).
    q: deque[int] = deque()
    nxt = 0
    tops: list[list[int]] = []
    for a in range(c):
        end = max(a + wanted - 1, next_clean[a])
        if wanted >= c or end >= a + c:
            end = a + c - 1  # every potential node is tried
        while nxt <= end:
            k = keys[nxt % c]
            while q and keys[q[-1] % c] < k:
                q.pop()
            q.append(nxt)
            nxt += 1
        while q[0] < a:
            q.popleft()
        best = keys[q[0] % c]
        tops.append([x % c for x in q if keys[x % c] == best])
    # The offsets are the scan's starts: each opens at the next candidate, as in sampling.
    weights = window_weights(at, [1] * len(potential))
    runs = [(r.first, r.last, r.top) for r in start_runs(at, len(potential), tops, names, 0)]
    return odds_from_tops(names, weights, tops, len(potential)), runs


def pick_one_node(
    victims: dict[str, list[PodInfo]], pdb_violations: dict[str, int], lost_by: dict[str, str] | None = None
) -> list[str]:
    """``pickOneNodeForPreemption`` with the default score functions, in order; returns the
    nodes still tied after the last one (upstream then takes the first of a map's order).
    ``lost_by`` gets, for every other node, the rule it lost on."""
    keys = {n: _importance_key(pods, pdb_violations[n]) for n, pods in victims.items()}
    nodes = sorted(victims)
    for i, rule in enumerate(RULES):
        values = {n: keys[n][i] for n in nodes}
        best = max(values.values())
        if lost_by is not None:
            lost_by.update({n: rule for n in nodes if values[n] != best})
        nodes = [n for n in nodes if values[n] == best]
        if len(nodes) == 1:
            break
    return nodes


class DefaultPreemption(Plugin):
    name = NAME

    def __init__(self, handle: Any, args: dict[str, Any] | None = None) -> None:
        super().__init__(handle, args)
        self.min_percentage = int(self.args.get("minCandidateNodesPercentage", 10))
        self.min_absolute = int(self.args.get("minCandidateNodesAbsolute", 100))

    # ------------------------------------------------------------------ eligibility

    def eligible(self, pod: PodInfo, statuses: NodeStatusMap) -> tuple[bool, str]:
        """``PodEligibleToPreemptOthers``."""
        if pod.spec.get("preemptionPolicy") == "Never":
            return False, NOT_ELIGIBLE_NEVER
        nominated = pod.nominated_node_name
        if nominated:
            if statuses.get(nominated).code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                return True, ""
            ni = self.handle.snapshot.get(nominated)
            if ni is not None:
                for p in ni.pods:
                    if p.priority < pod.priority and terminating_by_preemption(p):
                        return False, NOT_ELIGIBLE_TERMINATING
        return True, ""

    # ------------------------------------------------------------------ the dry run

    def select_victims(
        self, state: CycleState, pod: PodInfo, node: NodeInfo, pdbs: Sequence[_PDB],
        violators: set[str] | None = None,
    ) -> tuple[list[PodInfo], int, Status]:
        """``SelectVictimsOnNode`` on a copy of the node and the state (``violators`` gets the
        uids of the victims whose eviction violates a PodDisruptionBudget)."""
        fw = self.handle

        def remove(p: PodInfo) -> Status:
            node.remove_pod(p)
            st: Status = fw.run_pre_filter_remove_pod(state, pod, p, node)
            return st

        def add(p: PodInfo) -> Status:
            node.add_pod(p)
            st: Status = fw.run_pre_filter_add_pod(state, pod, p, node)
            return st

        potential = [p for p in list(node.pods) if p.priority < pod.priority]
        for p in potential:
            st = remove(p)
            if not st.is_success:
                return [], 0, st
        if not potential:
            return [], 0, Status.unresolvable(NO_VICTIMS)
        st = fw.run_filter_with_nominated(state, pod, node)
        if not st.is_success:
            return [], 0, st

        victims: list[PodInfo] = []
        violating, others = split_by_pdb_violation(by_importance(potential), pdbs)

        def reprieve(p: PodInfo) -> tuple[bool, Status]:
            st = add(p)
            if not st.is_success:
                return False, st
            fits = fw.run_filter_with_nominated(state, pod, node).is_success
            if not fits:
                st = remove(p)
                if not st.is_success:
                    return False, st
                victims.append(p)
            return fits, Status.success()

        num_violating = 0
        for p in violating:
            fits, st = reprieve(p)
            if not st.is_success:
                return [], 0, st
            if not fits:
                num_violating += 1
                if violators is not None:
                    violators.add(p.uid)
        for p in others:
            _fits, st = reprieve(p)
            if not st.is_success:
                return [], 0, st
        if violating and others:
            victims = by_importance(victims)
        return victims, num_violating, Status.success()

    # ------------------------------------------------------------------ PostFilter

    def post_filter(self, state: CycleState, pod: PodInfo, statuses: NodeStatusMap) -> tuple[Any, Status]:
        ok, why = self.eligible(pod, statuses)
        if not ok:
            return PreemptionOutcome(eligible=False, message=why), Status.unschedulable(f"preemption: {why}")

        nodes = self.handle.snapshot.nodes()
        potential = [ni for ni in nodes if statuses.get(ni.name).code == Code.UNSCHEDULABLE]
        dry = NodeStatusMap(absent=Status.unresolvable(NOT_HELPFUL))
        outcome = PreemptionOutcome(eligible=True)
        victims_by_node: dict[str, list[PodInfo]] = {}
        violations: dict[str, int] = {}
        violators: set[str] = set()
        if potential:
            pdbs = _pdbs(self.handle.objects)
            # Upstream starts at a random offset and stops once it has enough candidates (at
            # least one without PDB violations): every potential node is tried here, so
            # that the candidates are all of them and the nominated node's odds over the
            # offset can be told (offset_odds).
            for ni in potential:
                node_copy = ni.clone()
                found, n_violating, st = self.select_victims(state.clone(), pod, node_copy, pdbs, violators)
                if st.is_success and found:
                    victims_by_node[ni.name] = found
                    violations[ni.name] = n_violating
                    continue
                if st.is_success:
                    st = Status.error(f'expected at least one victim pod on node "{ni.name}"')
                dry.statuses[ni.name] = st
        # Candidates without PDB violations come first, as upstream lists them.
        order = sorted(victims_by_node, key=lambda n: violations[n] != 0)
        outcome.candidates = [
            Candidate(n, [p.key for p in victims_by_node[n]], violations[n]) for n in order
        ]
        if not victims_by_node:
            message = fit_error_message(len(nodes), "", dry, "")
            outcome.message = message
            return outcome, Status.unschedulable(f"preemption: {message}")
        # The potential nodes in the scheduler snapshot's order (upstream lists them from a
        # map, in random order, when some nodes carry their own status: taken as the snapshot's).
        order = [potential[i].name for i in scan_order(potential)]
        wanted = num_candidates(len(potential), self.min_percentage, self.min_absolute)
        outcome.nominated_odds, outcome.offsets = offset_odds(order, victims_by_node, violations, wanted)
        outcome.num_candidates = wanted
        outcome.num_potential_nodes = len(potential)
        tied = pick_one_node(victims_by_node, violations, outcome.lost_by)
        outcome.tied_best_nodes = tied
        outcome.nominated_node = tied[0]
        chosen = victims_by_node[tied[0]]
        outcome.victims = [p.key for p in chosen]
        outcome.victim_details = [
            {"pod": p.key, "priority": p.priority, "violatesPDB": p.uid in violators} for p in chosen
        ]
        return outcome, Status.success()

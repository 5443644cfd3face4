"""Plain dataclasses for what a cycle decided and why: the single source for every renderer."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from itertools import repeat
from typing import Any, NamedTuple


@dataclass
class NodeVerdict:
    feasible: bool
    code: str | None = None
    plugin: str | None = None
    reasons: list[str] = field(default_factory=list)
    rejected_at: str | None = None  # "PreFilter" or "Filter"
    # Every failing filter plugin (only with all_reasons): [(plugin, code, reasons)]
    all_failures: list[dict[str, Any]] | None = None

    def to_json(self) -> dict[str, Any]:
        if self.feasible:
            return {"feasible": True}
        out: dict[str, Any] = {
            "feasible": False,
            "code": self.code,
            "plugin": self.plugin,
            "reasons": list(self.reasons),
            "rejectedAt": self.rejected_at,
        }
        if self.all_failures is not None:
            out["allFailures"] = self.all_failures
        return out


class NodeScore(NamedTuple):
    """One plugin's score on one node (a tuple: tens of thousands are made per cycle)."""

    raw: int
    normalized: int
    weighted: int


@dataclass
class PluginScores:
    name: str
    weight: int
    skipped: bool
    scores: dict[str, NodeScore] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "weight": self.weight,
            "skipped": self.skipped,
            "scores": {n: {"raw": r, "normalized": z, "weighted": w} for n, (r, z, w) in self.scores.items()},
        }


class ColumnPluginScores(PluginScores):
    """A plugin's scores kept as columns over ``names`` (raw, normalized, weighted), made into
    the per-node map when first read: a cycle over thousands of nodes whose per-node scores
    nobody shows (``check``, the copies of a run) never builds them."""

    def __init__(self, name: str, weight: int, skipped: bool, names: list[str], raws: list[int],
                 normalized: list[int], weighted: list[int]) -> None:
        super().__init__(name, weight, skipped)
        self._columns: tuple[list[str], list[int], list[int], list[int]] | None = (
            names, raws, normalized, weighted)

    @property
    def scores(self) -> dict[str, NodeScore]:
        columns = self._columns
        if columns is not None:
            names, raws, normalized, weighted = columns
            # NodeScore tuples made by tuple.__new__ (its own constructor is a Python function).
            self.__dict__["_scores"] = dict(zip(names, map(tuple.__new__, repeat(NodeScore),
                                                           zip(raws, normalized, weighted, strict=True)),
                                                strict=True))
            self._columns = None
        built: dict[str, NodeScore] = self.__dict__["_scores"]
        return built

    @scores.setter
    def scores(self, value: dict[str, NodeScore]) -> None:
        self._columns = None
        self.__dict__["_scores"] = value


@dataclass
class PreFilterOutcome:
    code: str = "Success"
    plugin: str | None = None
    reasons: list[str] = field(default_factory=list)
    node_names: list[str] | None = None
    plugins_with_nodes: list[str] = field(default_factory=list)
    skipped_plugins: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "plugin": self.plugin,
            "reasons": list(self.reasons),
            "nodeNames": self.node_names,
            "pluginsWithNodes": list(self.plugins_with_nodes),
            "skippedPlugins": list(self.skipped_plugins),
        }


@dataclass
class Candidate:
    node: str
    victims: list[str]
    num_pdb_violations: int


@dataclass
class PreemptionOutcome:
    eligible: bool
    message: str = ""
    candidates: list[Candidate] = field(default_factory=list)
    nominated_node: str | None = None
    victims: list[str] = field(default_factory=list)
    tied_best_nodes: list[str] = field(default_factory=list)
    evaluated: bool = True
    # The nominated node's victims: {"pod", "priority", "violatesPDB"}.
    victim_details: list[dict[str, Any]] = field(default_factory=list)
    # Why each other candidate lost: the first rule of pickOneNodeForPreemption it lost on.
    lost_by: dict[str, str] = field(default_factory=dict)
    # The nominated node's odds over DryRunPreemption's random offset and the ties, and the
    # offsets (positions in the potential nodes) as runs: (first, last, nominated nodes).
    nominated_odds: dict[str, Fraction] = field(default_factory=dict)
    offsets: list[tuple[int, int, list[str]]] = field(default_factory=list)
    num_candidates: int = 0
    num_potential_nodes: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "evaluated": self.evaluated,
            "eligible": self.eligible,
            "message": self.message,
            "candidates": [
                {"node": c.node, "victims": list(c.victims), "numPDBViolations": c.num_pdb_violations}
                for c in self.candidates
            ],
            "nominatedNode": self.nominated_node,
            "victims": list(self.victims),
            "tiedBestNodes": list(self.tied_best_nodes),
            "victimDetails": list(self.victim_details),
            "candidatesLost": dict(self.lost_by),
            **({"nominatedOdds": {n: float(p) for n, p in sorted(self.nominated_odds.items())},
                "nominatedOddsExact": {n: [p.numerator, p.denominator] for n, p in sorted(self.nominated_odds.items())},
                "numCandidates": self.num_candidates, "numPotentialNodes": self.num_potential_nodes,
                "offsets": [{"from": a, "to": b, "nominated": list(top)} for a, b, top in self.offsets]}
               if self.nominated_odds else {}),
        }


# --- pods nominated to a node (kschedx.core.framework.nominated works them out)

# Which pass of the two decided a node's verdict (Framework.filter_with_nominated records it).
FAILED_WITH = "failed with them"  # the first pass, nominated pods added, rejected the node
FAILED_WITHOUT = "failed without them"  # passed with them, the second pass without them rejected it
PASSED_BOTH = "passed both"


def _pods(n: int) -> str:
    return "pod" if n == 1 else "pods"


@dataclass
class NominatedPod:
    pod: str
    priority: int
    counted: bool

    def to_json(self) -> dict[str, Any]:
        return {"pod": self.pod, "priority": self.priority, "counted": self.counted}


@dataclass
class NominatedOnNode:
    """The pods nominated to one node and what they did to its filters."""

    node: str
    pods: list[NominatedPod]
    # FAILED_WITH, FAILED_WITHOUT, PASSED_BOTH; None: no pod counted (filters ran once, without
    # them) or the node never reached Filter.
    outcome: str | None = None
    # With FAILED_WITH: whether the filters pass once the counted pods are left out, i.e. the
    # nominated pods alone cost the pod this node.
    fits_without: bool | None = None
    counted: list[NominatedPod] = field(init=False)
    ignored: list[NominatedPod] = field(init=False)

    def __post_init__(self) -> None:
        self.counted = [p for p in self.pods if p.counted]
        self.ignored = [p for p in self.pods if not p.counted]

    def describe(self, pod_priority: int) -> str:
        """One plain sentence for the table, the node story and the JSON."""
        parts: list[str] = []
        if self.counted:
            names = ", ".join(f"{p.pod} (priority {p.priority})" for p in self.counted)
            parts.append(f"counted {names}: priority >= the pod's {pod_priority}")
        if self.ignored:
            names = ", ".join(f"{p.pod} (priority {p.priority})" for p in self.ignored)
            parts.append(f"ignored {names}: lower priority than the pod's {pod_priority}, "
                         "whose room the pod may take")
        text = "; ".join(parts)
        they = "it" if len(self.counted) == 1 else "them"
        if self.outcome == FAILED_WITH:
            if self.fits_without:
                text += f"; the node fails only with {they} counted: without {they} the filters pass"
            else:
                text += f"; the filters fail with {they} counted (and would fail without {they} too)"
        elif self.outcome == FAILED_WITHOUT:
            text += (f"; the filters pass with {they} but fail without {they}: the scheduler requires both, "
                     "since a nominated pod may still land elsewhere")
        elif self.outcome == PASSED_BOTH:
            text += f"; the filters pass with and without {they}"
        return text

    def hint(self) -> str | None:
        """For --node: what would free the node, when the nominated pods alone cost it."""
        if self.outcome != FAILED_WITH or not self.fits_without:
            return None
        names = ", ".join(p.pod for p in self.counted)
        top = max(p.priority for p in self.counted)
        return (f"the room is kept for nominated {_pods(len(self.counted))} {names}: the node fits once "
                f"{'it is' if len(self.counted) == 1 else 'they are'} bound or gone, or if the pod's priority "
                f"were above {top}")

    def to_json(self, pod_priority: int) -> dict[str, Any]:
        return {
            "pods": [p.to_json() for p in self.pods],
            "outcome": self.outcome,
            "fitsWithout": self.fits_without,
            "summary": self.describe(pod_priority),
        }


# --- the story of one node (--node): every filter, every score input, the hints

PASS, FAIL, SKIPPED, NOT_RUN = "pass", "fail", "skipped", "not run"


@dataclass
class FilterCheck:
    plugin: str
    outcome: str  # pass, fail, skipped (PreFilter Skip), not run (node cut before Filter)
    code: str | None = None
    reasons: list[str] = field(default_factory=list)
    reported: bool = False  # the failure the scheduler reports for this node

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"plugin": self.plugin, "outcome": self.outcome}
        if self.outcome == FAIL:
            out.update({"code": self.code, "reasons": list(self.reasons), "reported": self.reported})
        return out


@dataclass
class ScoreDetail:
    plugin: str
    weight: int
    skipped: bool
    raw: int | None
    normalized: int | None
    weighted: int | None
    facts: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"plugin": self.plugin, "weight": self.weight, "skipped": self.skipped, "raw": self.raw,
                "normalized": self.normalized, "weighted": self.weighted, "facts": list(self.facts)}


@dataclass
class NodeStory:
    node: str
    feasible: bool
    rejected_at: str | None
    filters: list[FilterCheck]
    scores: list[ScoreDetail]
    total: int | None
    rank: int | None
    winner: str | None
    hints: list[str]
    volumes: list[str] = field(default_factory=list)
    devices: list[str] = field(default_factory=list)
    # DynamicResources: per claim, request and device the node reaches, picked or why not.
    device_candidates: list[dict[str, Any]] = field(default_factory=list)
    # Pods nominated to this node and what they did to its filters (kschedx.core.framework.nominated).
    nominated: str | None = None
    # Its odds (core.framework.sampling): the share of cycles choosing it, the share scoring
    # it, and which other node wins the cycles that score it but choose another (share each).
    odds: Fraction | None = None
    scored_in: Fraction | None = None
    beaten_by: dict[str, Fraction] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "node": self.node, "feasible": self.feasible, "rejectedAt": self.rejected_at,
            "filters": [f.to_json() for f in self.filters], "scores": [s.to_json() for s in self.scores],
            "total": self.total, "rank": self.rank, "winner": self.winner, "hints": list(self.hints),
            "volumes": list(self.volumes),
            "devices": list(self.devices),
            **({"deviceCandidates": list(self.device_candidates)} if self.device_candidates else {}),
            **({"nominated": self.nominated} if self.nominated is not None else {}),
            **({"odds": float(self.odds), "scoredIn": float(self.scored_in or 0),
                "beatenBy": {n: float(p) for n, p in sorted(self.beaten_by.items())}}
               if self.odds is not None else {}),
        }


# --- a pod that exists in the cluster source

@dataclass
class CurrentPlacement:
    """Where the explained pod is now, and whether this cycle agrees."""

    node: str | None  # None: Pending
    phase: str
    nominated_node: str | None = None
    scheduler_name: str = "default-scheduler"
    agrees: bool | None = None
    causes: list[str] = field(default_factory=list)
    # Internal: the pod as the cluster source holds it.
    raw: dict[str, Any] = field(default_factory=dict, repr=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "currentNode": self.node,
            "agreesWithCurrentNode": self.agrees,
            "currentPhase": self.phase,
            **({"currentNominatedNode": self.nominated_node} if self.nominated_node else {}),
            "disagreementCauses": list(self.causes),
        }


@dataclass
class CycleResult:
    """One scheduling cycle of one pod."""

    kubernetes_version: str
    profile: str
    pod: str
    pod_priority: int
    num_all_nodes: int
    pre_filter: PreFilterOutcome
    nodes: dict[str, NodeVerdict]
    score_plugins: list[PluginScores]
    totals: dict[str, int]
    best_nodes: list[str]
    selected_node: str | None
    single_feasible_node: bool
    fit_error: str | None
    fit_error_before_post_filter: str | None = None
    unschedulable_plugins: list[str] = field(default_factory=list)
    preemption: PreemptionOutcome | None = None
    gated: list[str] | None = None
    error: str | None = None
    # No cycle ran: the API server refused to create the pod (admission; ``error`` says why).
    refused: bool = False
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    focus_node: str | None = None
    num_feasible_nodes_to_find: int | None = None
    # What-if edits applied to the cluster before this cycle (--cordon, --drain, ...).
    edits: list[str] = field(default_factory=list)
    # The whole story of one node (--node).
    focus: NodeStory | None = None
    # DynamicResources: the devices the pod's claims would get on the selected node.
    device_allocations: list[dict[str, Any]] = field(default_factory=list)
    # The pod's claim-backed volumes and how many nodes each leaves possible.
    volumes: list[str] = field(default_factory=list)
    # A workload manifest: the rule its controller applies and the counts (SPEC §3).
    workload: dict[str, Any] | None = None
    # Internal, not in the JSON: the pod's claims as allocated on the selected node (what
    # binding the pod there would write), for replica steps.
    bound_claims: list[dict[str, Any]] = field(default_factory=list, repr=False)
    # Which pipeline decided: "v1.35" (the framework) or "legacy-v1.12" (priority functions).
    algorithm: str = "v1.35"
    # Scheduler extenders consulted in this cycle: their verbs and what each call returned.
    extenders: list[dict[str, Any]] = field(default_factory=list)
    # Per node with pods nominated to it: which counted in its filters and which pass decided.
    nominated: dict[str, NominatedOnNode] = field(default_factory=dict)
    # The explained pod exists in the cluster source: where it is now, and whether this cycle agrees.
    current: CurrentPlacement | None = None
    # What the cycle leaves to chance: each node's odds over the scan's starts and the ties
    # (kschedx.core.framework.sampling.Sampling; None: not worked out for this cycle).
    sampling: Any = None
    # One draw of chance (core.framework.sampling.Draw): the chosen node, the nodes the scan
    # processed, the tie it broke; set when the cycle ran from a given start index.
    draw: Any = None

    @property
    def feasible_nodes(self) -> list[str]:
        return [n for n, v in self.nodes.items() if v.feasible]

    def runner_up(self) -> tuple[str, int] | None:
        """The best node after the selected one and its total (ties by name), or None."""
        node = self.selected_node
        best = min(((-t, n) for n, t in self.totals.items() if n != node), default=None)
        return (best[1], -best[0]) if best is not None else None

    @property
    def schedulable(self) -> bool:
        return self.selected_node is not None

    def to_json(self, tables: bool = True) -> dict[str, Any]:
        """The cycle as SPEC §3's JSON; without ``tables``, none of what it holds per node
        (every node's verdict and scores, the odds): what check's report leaves out."""
        return {
            "kubernetesVersion": self.kubernetes_version,
            "profile": self.profile,
            "pod": self.pod,
            "podPriority": self.pod_priority,
            "numAllNodes": self.num_all_nodes,
            "preFilter": self.pre_filter.to_json(),
            # (A replica step would build its node map for the count: left out with the tables.)
            **({"nodes": {n: v.to_json() for n, v in sorted(self.nodes.items())},
                "numFeasibleNodes": len(self.feasible_nodes),
                "scorePlugins": [p.to_json() for p in self.score_plugins],
                "totals": dict(self.totals)} if tables else {}),
            "bestNodes": list(self.best_nodes),
            "selectedNode": self.selected_node,
            "singleFeasibleNode": self.single_feasible_node,
            "fitError": self.fit_error,
            "fitErrorBeforePostFilter": self.fit_error_before_post_filter,
            "unschedulablePlugins": list(self.unschedulable_plugins),
            "preemption": self.preemption.to_json() if self.preemption else None,
            **({"sampling": self.sampling.to_json()} if tables and self.sampling is not None else {}),
            "schedulingGates": self.gated,
            "error": self.error,
            "warnings": list(self.warnings),
            "notes": list(self.notes),
            "edits": list(self.edits),
            **({"focus": self.focus.to_json()} if self.focus is not None else {}),
            **({"deviceAllocations": list(self.device_allocations)} if self.device_allocations else {}),
            **({"algorithm": self.algorithm} if self.algorithm != "v1.35" else {}),
            **({"extenders": list(self.extenders)} if self.extenders else {}),
            **({"volumes": list(self.volumes)} if self.volumes else {}),
            **({"nominatedPods": {n: v.to_json(self.pod_priority) for n, v in sorted(self.nominated.items())}}
               if tables and self.nominated else {}),
            **({"workload": dict(self.workload)} if self.workload is not None else {}),
            **(self.current.to_json() if self.current is not None else {}),
        }


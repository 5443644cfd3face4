"""What one ``explain`` run produced: the edits it applied and its scheduling cycles.

A run is one of three shapes, each a plain dataclass over ``CycleResult``s:
- one cycle (a pod, or one pod of a workload);
- replica steps (``--replicas``): one cycle per copy, each bound before the next;
- a DaemonSet: one cycle per node, the daemon pod pinned to that node.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kschedx.core.explain.rollout import ROLLOUT, SCALE_UP, UNCHANGED, WorkloadPlan
from kschedx.core.framework.result import CycleResult

# Plugins whose rejection means the DaemonSet controller would not even create the pod for
# that node (its NodeShouldRunDaemonPod check: taints the pod doesn't tolerate, and the
# pod's own node selector / affinity), as opposed to a pod created but left Pending.
DAEMON_NOT_TARGETED_PLUGINS = frozenset({"TaintToleration", "NodeAffinity"})
# A daemon pod the API server refused to create (admission): the node is left without one.
FAILED_CREATE = "FailedCreate"


# How the warning about tied best nodes ends (a replica table sums these up in one line).
TIE_WARNING_END = ": the real scheduler picks one of them at random; kschedx reports the first by name"


@dataclass
class StepSummary:
    """One replica step in a line: where the copy went and by how much it won."""

    pod: str
    node: str | None
    total: int | None
    runner_up: str | None
    runner_up_total: int | None
    tie: list[str]

    @property
    def margin(self) -> int | None:
        if self.total is None or self.runner_up_total is None:
            return None
        return self.total - self.runner_up_total

    def to_json(self) -> dict[str, Any]:
        return {
            "pod": self.pod, "node": self.node, "total": self.total, "runnerUp": self.runner_up,
            "runnerUpTotal": self.runner_up_total, "margin": self.margin, "tiedWith": self.tie,
        }


def summarize_step(result: CycleResult) -> StepSummary:
    node = result.selected_node
    if node is None:
        return StepSummary(result.pod, None, None, None, None, [])
    # The runner-up: the best total after the selected node's, ties by name (one pass, no
    # sort: a replica table summarizes thousands of steps of thousands of nodes; a replica
    # step knows it without building its totals).
    own = getattr(result, "runner_up", None)
    second = own() if own is not None else CycleResult.runner_up(result)
    runner = second if second is not None else (None, None)
    ties = [n for n in result.best_nodes if n != node]
    total = getattr(result, "best_total", None)
    return StepSummary(result.pod, node, result.totals[node] if total is None else total, runner[0], runner[1], ties)


@dataclass
class DaemonNodeVerdict:
    node: str
    fits: bool
    targeted: bool
    plugin: str | None = None
    code: str | None = None
    reasons: list[str] = field(default_factory=list)
    # A daemon pod that stays on the node (its DaemonSet already runs there): not placed.
    running: bool = False

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"fits": self.fits, "targeted": self.targeted}
        if self.running:
            out["running"] = True
        if not self.fits:
            out.update({"plugin": self.plugin, "code": self.code, "reasons": list(self.reasons)})
        return out


def daemon_verdict(node: str, result: CycleResult) -> DaemonNodeVerdict:
    """The verdict on ``node`` of a cycle of the daemon pod (pinned to it, or unpinned
    when pinning cannot change any other node's verdict)."""
    v = result.nodes.get(node)
    if result.gated is not None:
        return DaemonNodeVerdict(node, False, True, "SchedulingGates", "UnschedulableAndUnresolvable",
                                 list(result.gated))
    if v is None or (result.error and v.feasible):
        # The cycle failed before judging the node (an Error status).
        return DaemonNodeVerdict(node, False, True, None, "Error", [result.error or "no verdict"])
    if v.feasible:
        return DaemonNodeVerdict(node, True, True)
    return DaemonNodeVerdict(node, False, v.plugin not in DAEMON_NOT_TARGETED_PLUGINS, v.plugin, v.code,
                             list(v.reasons))


@dataclass
class Explanation:
    """Everything one ``explain`` run decided."""

    mode: str  # "single", "replicas" or "daemonset"
    steps: list[CycleResult]
    edits: list[str] = field(default_factory=list)
    replicas_requested: int = 1
    daemonset: str | None = None
    daemon_nodes: list[DaemonNodeVerdict] = field(default_factory=list)
    # The DaemonSet's own cycle pinned to no node: its header (pod, profile, warnings).
    daemon_template: CycleResult | None = None
    # A workload manifest: what its controller creates now (core/explain/rollout.py WorkloadPlan).
    workload: WorkloadPlan | None = None
    # Where the replica count came from when the manifest alone doesn't say it (a
    # HorizontalPodAutoscaler, the live count kubectl apply leaves), core/explain/replicas.py.
    replicas_from: str | None = None
    # Pods of other workloads (namespace/name) its copies preempted to be placed (check).
    preempted: list[str] = field(default_factory=list)
    # Of the copies that found no node, those that never exist: the API server refused
    # them (quota), or a StatefulSet's controller waits on the Pending ordinal before them.
    # The others are created and stay Pending.
    # --replicas: the copies' chance played out (core/explain/chance.py ReplicaChance).
    chance: Any = None
    not_created: int = 0
    # Why, when the copy the sequence stopped at was created (its last step is not refused).
    not_created_why: str | None = None

    @property
    def replicas_placed(self) -> int:
        return sum(1 for s in self.steps if s.selected_node is not None)

    @property
    def ok(self) -> bool:
        """Exit status 0: the pod fits; every replica was placed; the daemon pod fits on
        every node its controller targets; a change to a running workload, when run to its end,
        completes."""
        if self.workload is not None and self.workload.outcome is not None:
            return self.workload.outcome.completes
        if self.mode == "daemonset":
            return all(v.fits for v in self.daemon_nodes if v.targeted)
        if self.mode == "replicas":
            return self.replicas_placed == self.replicas_requested
        return bool(self.steps) and self.steps[0].schedulable

    @property
    def first(self) -> CycleResult:
        return self.daemon_template if self.daemon_template is not None else self.steps[0]

    def to_json(self, tables: bool = True) -> dict[str, Any]:
        if self.mode == "daemonset":
            first = self.first
            return {
                "kubernetesVersion": first.kubernetes_version,
                "profile": first.profile,
                "daemonSet": self.daemonset,
                "pod": first.pod,
                "edits": list(self.edits),
                "numNodes": len(self.daemon_nodes),
                "fitsOn": sum(1 for v in self.daemon_nodes if v.fits),
                "notTargeted": sum(1 for v in self.daemon_nodes if not v.targeted),
                "nodes": {v.node: v.to_json() for v in sorted(self.daemon_nodes, key=lambda v: v.node)},
                "warnings": list(first.warnings),
                "notes": list(first.notes),
                **({"workload": self.workload.to_json()} if self.workload is not None else {}),
            }
        if self.mode == "replicas":
            out = self.to_json_stream(tables)
            out["steps"] = list(out["steps"])
            return out
        return self.steps[0].to_json(tables)

    def to_json_stream(self, tables: bool = True) -> dict[str, Any]:
        """``to_json`` with the replica steps as an iterator, so that a writer can encode
        one step at a time (100 steps over 5,000 nodes are hundreds of MB as objects).
        ``tables``: see ``CycleResult.to_json``."""
        if self.mode != "replicas":
            return self.to_json(tables)
        return {
            "replicasRequested": self.replicas_requested,
            "replicasPlaced": self.replicas_placed,
            **({"notCreated": self.not_created} if self.not_created else {}),
            "edits": list(self.edits),
            "summary": [summarize_step(s).to_json() for s in self.steps],
            **({"chance": self.chance.to_json()} if self.chance is not None else {}),
            **({"workload": self.workload.to_json()} if self.workload is not None else {}),
            "steps": (s.to_json(tables) for s in self.steps),
        }


def finish_plan(plan: WorkloadPlan, out: Explanation) -> None:
    """The counts after placing, on the explanation and its first cycle (JSON and table)."""
    if out.mode == "daemonset":
        targeted = [v for v in out.daemon_nodes if v.targeted]
        plan.replicas = len(targeted)
        plan.placed = sum(1 for v in targeted if v.fits and not v.running)
        if plan.rule == UNCHANGED and plan.placed + sum(1 for v in targeted if not v.fits):
            plan.rule = SCALE_UP
    elif out.mode == "single":
        # One cycle: the plan's first pod, or (nothing to place) where one more would go.
        plan.placed = min(out.replicas_placed, plan.to_place)
        if plan.to_place == 0:
            plan.note += "; the cycle shows where one more pod would go"
        if plan.start is not None and plan.outcome is None:
            plan.note += "; --replicas auto plays the rollout to its end"
    else:
        plan.placed = out.replicas_placed
        asked = out.replicas_requested
        if asked != plan.to_place and plan.outcome is None:
            # An explicit --replicas N is not what the controller creates now: say what is
            # placed instead of the controller's count, and keep the latter as a remark.
            beside = f" beside the {plan.running} running" if plan.running else ""
            why = f" ({plan.note})" if plan.rule == ROLLOUT else ""
            plan.note = (f"--replicas {asked}: {asked} new pod(s) placed{beside}; its controller would create "
                         f"{plan.to_place} now{why}")
    out.workload = plan
    first = out.daemon_template if out.daemon_template is not None else (out.steps[0] if out.steps else None)
    if first is not None:
        first.notes.append(plan.line())
        first.workload = plan.to_json()

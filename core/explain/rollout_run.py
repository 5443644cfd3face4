"""A rollout run to its end: does the change complete, as the workload's controller drives it?

core/explain/rollout.py decides what a controller creates *now* (the first step). This
module plays the rest on the snapshot: the controller's next decisions, each new pod bound
where its scheduling cycle puts it, old pods removed when the controller deletes them.
Simplifications, as the issue asks: a new pod is Ready and available as soon as it is
bound; a deleted pod is gone at once; nothing else changes the cluster meanwhile.

- Deployment, RollingUpdate (pkg/controller/deployment rolling.go): the new ReplicaSet is
  scaled up while all ReplicaSets together stay within replicas + maxSurge
  (NewRSNewReplicas); old ReplicaSets, oldest first, lose their unhealthy slots
  (cleanupUnhealthyReplicas) and then what keeps the available pods at or above
  replicas - maxUnavailable (scaleDownOldReplicaSetsForRollingUpdate); the ReplicaSet
  controller deletes the pods its ranking puts first (getPodsToDelete). Pending new pods are
  tried again after every deletion, the oldest first, as the scheduling queue does.
- Deployment, Recreate (recreate.go): every old pod goes, then the new ReplicaSet is scaled
  to its replicas at once.
- StatefulSet, RollingUpdate (stateful_set_control.go): missing ordinals are created first,
  in order; then from the highest ordinal down to ``partition`` each outdated pod is deleted
  and created again under its name and claims, one at a time; with the
  MaxUnavailableStatefulSet feature gate, up to ``maxUnavailable`` at a time. OnDelete
  replaces nothing.
- DaemonSet (daemon/update.go): per node; without maxSurge the old pod goes first and at most
  maxUnavailable nodes are without an available pod; with maxSurge the new pod starts beside
  the old one on up to maxSurge nodes at a time. Its per-node verdicts come from the
  DaemonSet's own cycles (core/explain/front.py).

The scheduling itself comes through :class:`Cluster` (front.py drives the real cycles and
puts the snapshot back afterwards), so this module never runs a plugin.
"""

from __future__ import annotations

import copy
import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from kschedx.core.framework.result import CycleResult

Dict = dict[str, Any]

DELETION_COST = "controller.kubernetes.io/pod-deletion-cost"


class Cluster(Protocol):
    """The snapshot as the simulated controllers see it."""

    def place(self, pod: Dict, more: int = 0) -> CycleResult:
        """One scheduling cycle of ``pod``; a pod that fits is bound to the selected node.
        ``more``: the copies of its template the controller creates after it, right away or
        between deletions (a hint for how the cycles are run, never for their answers)."""

    def delete(self, pod: Dict) -> None:
        """The pod is gone (its controller deleted it)."""

    def evict(self, node: str, victims: list[str]) -> list[str]:
        """Preemption: the victims (namespace/name) on ``node`` are gone; returns those found."""


@dataclass
class RolloutEvent:
    """One thing the controllers and the scheduler did."""

    action: str  # "placed", "pending", "refused" (not created: admission), "deleted" or "preempted"
    pod: str
    node: str | None = None
    fit_error: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"action": self.action, "pod": self.pod, "node": self.node}
        if self.fit_error:
            out["fitError"] = self.fit_error
        return out

    def line(self) -> str:
        if self.action == "placed":
            return f"{self.pod} placed on {self.node}"
        if self.action == "deleted":
            return f"{self.pod} deleted" + (f" (from {self.node})" if self.node else "")
        if self.action == "preempted":
            return f"{self.pod} preempted on {self.node}"
        if self.action == "refused":
            return f"{self.pod} not created: {self.fit_error}"
        on = f" on {self.node}" if self.node else ""
        return f"{self.pod} Pending{on}: {self.fit_error or 'no node'}"


@dataclass
class RolloutOutcome:
    """How the rollout ends."""

    completes: bool
    total: int  # new pods (or nodes, for a DaemonSet) the rollout must bring up
    done: int  # of them available at the end
    old_left: int  # old pods still running at the end
    desired: int  # the capacity the workload should keep
    lowest: int  # the fewest available pods at any point of the rollout
    first_step: str  # what the controller's first step does
    lost: int = 0  # old pods deleted whose replacement stays Pending
    initial: int | None = None  # available pods before the rollout (None: desired)
    unit: str = "pod"  # "pod", or "node" for a DaemonSet
    blocked_pod: str | None = None
    blocked_on: str | None = None  # the FitError that stops it
    where: str = ""  # the pods or nodes left Pending
    events: list[RolloutEvent] = field(default_factory=list)

    def pending_at_end(self) -> int:
        """The new pods left Pending when the rollout ends (created, not placed)."""
        last: dict[str, str] = {}
        for e in self.events:
            if e.action in ("placed", "pending", "refused"):
                last[e.pod] = e.action
        return sum(1 for action in last.values() if action == "pending")

    def summary(self) -> str:
        if self.completes:
            what = "nodes updated" if self.unit == "node" else "new pods"
            text = f"the rollout completes ({self.done} of {self.total} {what})"
        else:
            text = (f"the rollout gets stuck after {self.done} of {self.total}, {self.old_left} old pod(s) left"
                    + (f", on {self.where}" if self.where else ""))
            if self.lost:
                text += f"; it lost {self.lost} pod(s) on the way"
        preempted = sum(1 for e in self.events if e.action == "preempted")
        if preempted:
            text += f"; {preempted} pod(s) of other workloads preempted"
        text += f"; first step: {self.first_step}"
        if self.lowest < min(self.desired, self.desired if self.initial is None else self.initial):
            sep = ": " if self.first_step.endswith("relies on maxUnavailable") else "; "
            text += f"{sep}capacity drops to {self.lowest} of {self.desired} during the rollout"
        if not self.completes and self.blocked_on:
            text += f"; {self.blocked_pod}: {self.blocked_on}"
        return text

    def to_json(self) -> dict[str, Any]:
        return {
            "completes": self.completes, "total": self.total, "done": self.done,
            "stuckAfter": None if self.completes else self.done, "oldLeft": self.old_left, "lost": self.lost,
            "lowestAvailable": self.lowest, "availableBefore": self.desired if self.initial is None else self.initial,
            "desired": self.desired, "firstStep": self.first_step,
            "blockedPod": self.blocked_pod, "fitError": self.blocked_on, "where": self.where,
            "preempted": sum(1 for e in self.events if e.action == "preempted"),
            "summary": self.summary(), "steps": [e.to_json() for e in self.events],
        }


# --------------------------------------------------------------------------- pod helpers

def node_of(pod: Dict) -> str:
    return str((pod.get("spec") or {}).get("nodeName") or "")


def _name(pod: Dict) -> str:
    m = pod.get("metadata") or {}
    return f"{m.get('namespace') or 'default'}/{m.get('name')}"


def _ready(pod: Dict) -> bool:
    for c in (pod.get("status") or {}).get("conditions") or []:
        if c.get("type") == "Ready":
            return bool(c.get("status") == "True")
    # A dump without conditions: a bound Running pod counts as ready.
    return bool(node_of(pod)) and (pod.get("status") or {}).get("phase") == "Running"


def _time(text: Any) -> float | None:
    if not text:
        return None
    try:
        return datetime.fromisoformat(str(text).replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def _ready_since(pod: Dict) -> float | None:
    for c in (pod.get("status") or {}).get("conditions") or []:
        if c.get("type") == "Ready" and c.get("status") == "True":
            return _time(c.get("lastTransitionTime"))
    return None


def _restarts(pod: Dict) -> int:
    return max((int(c.get("restartCount") or 0) for c in (pod.get("status") or {}).get("containerStatuses") or []),
               default=0)


def _cost(pod: Dict) -> int:
    raw = ((pod.get("metadata") or {}).get("annotations") or {}).get(DELETION_COST)
    try:
        return int(raw) if raw is not None else 0
    except ValueError:
        return 0


_PHASE = {"Pending": 0, "Unknown": 1, "Running": 2}


def deletion_order(pods: list[Dict], per_node: Counter[str], now: float | None) -> list[Dict]:
    """``pods`` in the order a ReplicaSet scale-down deletes them (ActivePodsWithRanks):
    unscheduled first, then Pending < Unknown < Running, not ready before ready, the lower
    pod-deletion-cost, the pod sharing its node with more of the Deployment's pods
    (``per_node``), the one ready for less time, more restarts, the newest; the times
    compared in powers of two of their age (LogarithmicScaleDown), then by uid."""

    def bucket(t: float | None) -> float:
        # An unset time sorts first; otherwise the younger the bucket, the earlier.
        if t is None:
            return -math.inf
        if now is None:
            return t
        return -math.floor(math.log2(max(now - t, 1e-9) * 1e9))

    def key(p: Dict) -> tuple[Any, ...]:
        uid = str((p.get("metadata") or {}).get("uid") or "")
        ready = _ready(p)
        return (bool(node_of(p)), _PHASE.get(str((p.get("status") or {}).get("phase")), 0), ready, _cost(p),
                -per_node[node_of(p)], -bucket(_ready_since(p)) if ready else 0, -_restarts(p),
                -bucket(_time((p.get("metadata") or {}).get("creationTimestamp"))), uid)

    return sorted(pods, key=key)


def reference_time(pods: list[Dict]) -> float | None:
    """The controllers' "now": the newest time the cluster source records for these pods
    (a dump is read as of the moment it was taken)."""
    times = [t for p in pods for t in [_time((p.get("metadata") or {}).get("creationTimestamp")), _ready_since(p)]
             if t is not None]
    return max(times) if times else None


def scaled(value: Any, total: int, default: str, round_up: bool) -> int:
    """intstr.GetScaledValueFromIntOrPercent: an int, or a percentage of ``total``."""
    if value is None:
        value = default
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return max(value, 0)
    text = str(value).strip()
    if text.endswith("%"):
        try:
            pct = int(text[:-1])
        except ValueError:
            return 0
        exact = pct * total
        return max((-(-exact // 100)) if round_up else exact // 100, 0)
    try:
        return max(int(text), 0)
    except ValueError:
        return 0



# --------------------------------------------------------------------------- Deployment

@dataclass
class OldReplicaSet:
    name: str
    replicas: int  # spec.replicas
    pods: list[Dict]  # its active pods


@dataclass
class DeploymentRollout:
    """What a Deployment's rollout starts from (built by core/explain/rollout.py)."""

    desired: int
    max_surge: int
    max_unavailable: int
    recreate: bool
    new_replicas: int  # the new ReplicaSet's spec.replicas (0 when it doesn't exist yet)
    new_running: list[Dict]  # its bound pods
    new_pending: list[Dict]  # its pods without a node
    old: list[OldReplicaSet]  # oldest first
    # A scaling event (the replica count changed with the template, one active old
    # ReplicaSet whose desired-replicas annotation differs): that ReplicaSet is scaled to
    # the new count first, with its own template, before the rollout starts (sync.go scale).
    scale_first: int | None = None


@dataclass
class _NewPods:
    """The new ReplicaSet's pods as the run goes."""

    make: Callable[[int], Dict]
    running: list[Dict]
    pending: list[Dict]
    made: int = 0
    # The cycle of a pending copy since the last deletion: the others fail the same way.
    blocked: CycleResult | None = None
    last_blocked: CycleResult | None = None
    # Of ``pending``, those the API server refused to create (ids): the controller retries.
    refused: set[int] = field(default_factory=set)


def place(cluster: Cluster, pod: Dict, events: list[RolloutEvent], more: int = 0) -> CycleResult:
    """One cycle of ``pod``; when it does not fit but preemption nominates a node, the
    victims are evicted and the pod is scheduled again (its next cycle), as the scheduler
    does once they are gone."""
    result = cluster.place(pod, more)
    pre = result.preemption
    if result.selected_node is None and pre is not None and pre.nominated_node and pre.victims:
        for victim in cluster.evict(pre.nominated_node, list(pre.victims)):
            events.append(RolloutEvent("preempted", victim, pre.nominated_node))
        result = cluster.place(pod, more)
    return result


def _unplaced(result: CycleResult) -> str:
    """The event of a pod its cycle did not place: Pending, or never created (refused)."""
    return "refused" if result.refused else "pending"


def _try(cluster: Cluster, new: _NewPods, pod: Dict, events: list[RolloutEvent], more: int = 0) -> bool:
    if new.blocked is None:
        result = place(cluster, pod, events, more)
        if result.selected_node is not None:
            pod.setdefault("spec", {})["nodeName"] = result.selected_node
            new.running.append(pod)
            new.refused.discard(id(pod))
            events.append(RolloutEvent("placed", _name(pod), result.selected_node))
            return True
        new.blocked = new.last_blocked = result
    new.pending.append(pod)
    if new.blocked.refused:
        new.refused.add(id(pod))
    else:
        new.refused.discard(id(pod))
    events.append(RolloutEvent(_unplaced(new.blocked), _name(pod), None, new.blocked.fit_error or new.blocked.error))
    return False


def _retry_pending(cluster: Cluster, new: _NewPods, events: list[RolloutEvent]) -> None:
    """After a deletion the scheduler tries the Pending pods again, oldest first."""
    new.blocked = None
    waiting, new.pending = new.pending, []
    for pod in waiting:
        if new.blocked is not None:
            new.pending.append(pod)  # fails as the one before it did: no event repeated
            continue
        _try(cluster, new, pod, events)


def _scale_old(cluster: Cluster, rs: OldReplicaSet, to: int, per_node: Counter[str], now: float | None,
               events: list[RolloutEvent]) -> int:
    """The old ReplicaSet scaled to ``to``: the ReplicaSet controller deletes the pods above
    it in its ranking order. Returns the available pods removed."""
    rs.replicas = to
    extra = len(rs.pods) - to
    if extra <= 0:
        return 0
    victims = deletion_order(rs.pods, per_node, now)[:extra]
    gone = {id(p) for p in victims}
    rs.pods = [p for p in rs.pods if id(p) not in gone]
    lost = 0
    for p in victims:
        cluster.delete(p)  # a Pending one too: it is gone from storage and its quota
        if node_of(p):
            per_node[node_of(p)] -= 1
            lost += 1
        events.append(RolloutEvent("deleted", _name(p), node_of(p) or None))
    return lost


def _available(rs: OldReplicaSet) -> int:
    return sum(1 for p in rs.pods if node_of(p))


def run_deployment(d: DeploymentRollout, make_pod: Callable[[int], Dict], cluster: Cluster) -> RolloutOutcome:
    """The Deployment's rollout from ``d`` to its end, or to where it stops moving."""
    events: list[RolloutEvent] = []
    new = _NewPods(make_pod, list(d.new_running), [])
    now = reference_time([p for rs in d.old for p in rs.pods] + d.new_running)
    per_node: Counter[str] = Counter(node_of(p) for rs in d.old for p in rs.pods if node_of(p))
    per_node.update(node_of(p) for p in d.new_running)
    old = d.old
    new_replicas = d.new_replicas

    def available() -> int:
        return len(new.running) + sum(_available(rs) for rs in old)

    lowest = initial = available()

    def create(count: int) -> None:
        for i in range(count):
            pod = make_pod(new.made)
            new.made += 1
            # The new pods still to come, in this step or after the next deletions.
            more = max(count - 1 - i, d.desired - len(d.new_running) - len(d.new_pending) - new.made)
            if _try(cluster, new, pod, events, more):
                per_node[node_of(pod)] += 1

    def settle_pending() -> None:
        # Only the new pods: an old ReplicaSet's Pending pod is never there when room frees,
        # as cleanupUnhealthyReplicas scales those slots away before any available old pod
        # goes (the budget for those, available - minAvailable, is then below zero).
        before = len(new.running)
        _retry_pending(cluster, new, events)
        for pod in new.running[before:]:
            per_node[node_of(pod)] += 1

    # The new ReplicaSet's own Pending pods come first in the queue.
    for pod in d.new_pending:
        if _try(cluster, new, pod, events):
            per_node[node_of(pod)] += 1
    first_step = ""
    if d.scale_first is not None and not d.recreate:
        first_step = _scale_first(d, d.scale_first, cluster, per_node, now, events)
    if d.recreate:
        for rs in old:
            _scale_old(cluster, rs, 0, per_node, now, events)
        lowest = min(lowest, available())
        if old:
            settle_pending()
        create(max(0, d.desired - len(new.running) - len(new.pending)))
        first_step = f"Recreate: all {sum(1 for e in events if e.action == 'deleted')} old pod(s) deleted first"
    else:
        for _ in range(4 * (d.desired + sum(rs.replicas for rs in old)) + 8):
            current = new_replicas + sum(rs.replicas for rs in old)
            # reconcileNewReplicaSet (NewRSNewReplicas)
            if new_replicas < d.desired and current < d.desired + d.max_surge:
                up = min(d.desired + d.max_surge - current, d.desired - new_replicas)
                new_replicas += up
                before = len(new.running)
                create(new_replicas - len(new.running) - len(new.pending))
                if not first_step:
                    first_step = _surge_text(up, len(new.running) - before)
                elif first_step.startswith("a scaling event") and ";" not in first_step:
                    first_step += "; then " + _surge_text(up, len(new.running) - before)
                continue
            # reconcileOldReplicaSets
            old_count = sum(rs.replicas for rs in old)
            if old_count == 0:
                break
            min_available = d.desired - d.max_unavailable
            new_unavailable = new_replicas - len(new.running)
            max_down = new_replicas + old_count - min_available - new_unavailable
            if max_down <= 0:
                break
            scaled = 0
            # cleanupUnhealthyReplicas: the slots without an available pod go first.
            for rs in old:
                if scaled >= max_down:
                    break
                if rs.replicas == 0 or rs.replicas == _available(rs):
                    continue
                down = min(max_down - scaled, rs.replicas - _available(rs))
                _scale_old(cluster, rs, rs.replicas - down, per_node, now, events)
                scaled += down
            # scaleDownOldReplicaSetsForRollingUpdate: available pods above minAvailable.
            budget = available() - min_available
            for rs in old:
                if budget <= 0:
                    break
                if rs.replicas == 0:
                    continue
                down = min(rs.replicas, budget)
                _scale_old(cluster, rs, rs.replicas - down, per_node, now, events)
                budget -= down
                scaled += down
            if not first_step:
                first_step = (f"no room to surge: {sum(1 for e in events if e.action == 'deleted')} old pod(s) "
                              "deleted first")
            lowest = min(lowest, available())
            if scaled == 0:
                break
            settle_pending()
    old_left = sum(_available(rs) for rs in old)
    completes = len(new.running) >= d.desired and not new.pending and old_left == 0
    blocked = new.last_blocked if new.pending else None
    # What it lost: pods available before the rollout that neither still run nor were replaced.
    lost = 0 if completes else max(0, min(initial, d.desired) - len(new.running) - old_left)
    return RolloutOutcome(
        completes, d.desired, len(new.running), old_left, d.desired, lowest, first_step or "nothing to do", lost,
        initial,
        blocked_pod=_name(new.pending[0]) if blocked is not None else None,
        blocked_on=(blocked.fit_error or blocked.error) if blocked is not None else None,
        where=_pending_where(new.pending, new.refused), events=events)


def _scale_first(d: DeploymentRollout, to: int, cluster: Cluster, per_node: Counter[str], now: float | None,
                 events: list[RolloutEvent]) -> str:
    """The single active old ReplicaSet scaled to ``to`` before the rollout: pods deleted in
    the ranking order, or new pods of its own template (copies of a running one) placed."""
    rs = next((r for r in d.old if r.replicas > 0), None)
    if rs is None:
        return ""
    if to < rs.replicas:
        _scale_old(cluster, rs, to, per_node, now, events)
        return f"a scaling event first: the old ReplicaSet {rs.name} scaled down to {to}"
    model = next((p for p in rs.pods if node_of(p)), None)
    grow = to - len(rs.pods)
    rs.replicas = to
    if model is None:
        return ""
    for i in range(grow):
        pod = copy.deepcopy(model)
        meta = pod["metadata"]
        meta["name"] = f"{rs.name}-scaled-{i}"
        meta["uid"] = f"kschedx-rollout-{rs.name}-scaled-{i}"
        pod["spec"].pop("nodeName", None)
        pod["status"] = {"phase": "Pending"}
        result = place(cluster, pod, events)
        if result.selected_node is not None:
            pod["spec"]["nodeName"] = result.selected_node
            pod["status"] = {"phase": "Running"}
            per_node[result.selected_node] += 1
            events.append(RolloutEvent("placed", _name(pod), result.selected_node))
        else:
            events.append(RolloutEvent(_unplaced(result), _name(pod), None, result.fit_error or result.error))
        if not result.refused:
            # A refused pod does not exist: its slot stays without a pod (an unavailable
            # replica cleanupUnhealthyReplicas scales away first) and nothing to delete.
            rs.pods.append(pod)
    return f"a scaling event first: the old ReplicaSet {rs.name} scaled up to {to} with its own template"


def _surge_text(wanted: int, placed: int) -> str:
    if placed == wanted:
        return f"{placed} new pod(s) placed beside the old ones (maxSurge)"
    if placed == 0:
        return "surge blocked; relies on maxUnavailable"
    return f"{placed} of {wanted} surge pod(s) placed; the rest wait for old pods to go"


def _pending_where(pending: list[Dict], refused: set[int] | None = None) -> str:
    """The new pods left: Pending, and those the API server refused to create."""
    parts = []
    for what, pods in (("Pending", [p for p in pending if id(p) not in (refused or set())]),
                       ("not created", [p for p in pending if id(p) in (refused or set())])):
        if pods:
            names = [_name(p).split("/", 1)[1] for p in pods]
            shown = ", ".join(names[:3]) + (f" (+{len(names) - 3} more)" if len(names) > 3 else "")
            parts.append(f"{len(pods)} new pod(s) {what} ({shown})")
    return ", ".join(parts)


# --------------------------------------------------------------------------- StatefulSet

@dataclass
class StatefulSetRollout:
    """A StatefulSet's rollout (built by core/explain/rollout.py)."""

    desired: int
    outdated: dict[int, Dict]  # ordinal -> its running pod of the old template
    missing: list[int]  # ordinals without a bound pod, to create first
    updated: int  # ordinals already on the new template and running
    partition: int
    max_unavailable: Any = None  # as written; counts only with the MaxUnavailableStatefulSet gate
    parallel: bool = False  # podManagementPolicy Parallel: missing ordinals created at once
    surplus: list[Dict] = field(default_factory=list)  # pods of ordinals >= replicas, deleted first

    def bound(self, gate_enabled: bool) -> int:
        """How many pods the update may take down at once: 1, or with the feature gate the
        scaled maxUnavailable (rounded up, at least 1)."""
        if not gate_enabled or self.max_unavailable is None:
            return 1
        return max(1, scaled(self.max_unavailable, self.desired, "1", True))


def _ordinal_of(pod: Dict) -> int:
    index = str((pod.get("metadata") or {}).get("name") or "").rpartition("-")[2]
    return int(index) if index.isdigit() else -1


def run_statefulset(s: StatefulSetRollout, make_pod: Callable[[int], Dict], cluster: Cluster,
                    max_unavailable: int = 1) -> RolloutOutcome:
    """Missing ordinals first, in order; then the outdated ones from the highest ordinal
    down to the partition, ``max_unavailable`` at a time, each deleted and created again."""
    events: list[RolloutEvent] = []
    old = dict(s.outdated)
    placed = 0
    lost = 0
    lowest = s.updated + len(old)
    blocked: tuple[str, CycleResult] | None = None

    def bring_up(ordinal: int) -> bool:
        nonlocal placed, blocked
        pod = make_pod(ordinal)
        result = place(cluster, pod, events)
        if result.selected_node is None:
            blocked = blocked or (_name(pod), result)
            events.append(RolloutEvent(_unplaced(result), _name(pod), None, result.fit_error or result.error))
            return False
        placed += 1
        events.append(RolloutEvent("placed", _name(pod), result.selected_node))
        return True

    first_step = ""
    # A scale-down's surplus ordinals go first, the highest first.
    for pod in sorted(s.surplus, key=lambda p: -_ordinal_of(p)):
        cluster.delete(pod)
        events.append(RolloutEvent("deleted", _name(pod), node_of(pod)))
    for i in s.missing:  # OrderedReady: each must run before the next is created
        if not bring_up(i) and not s.parallel:
            break
    if s.missing:
        first_step = f"the missing ordinal(s) {', '.join(map(str, s.missing))} created first"
    to_update = sorted((i for i in old if i >= s.partition), reverse=True)
    k = 0
    while blocked is None and k < len(to_update):
        batch = to_update[k:k + max(1, max_unavailable)]
        k += len(batch)
        for i in batch:
            cluster.delete(old[i])
            events.append(RolloutEvent("deleted", _name(old[i]), node_of(old[i])))
            del old[i]
        lowest = min(lowest, s.updated + placed + len(old))
        if not first_step:
            first_step = f"ordinal {', '.join(map(str, batch))} deleted and created again (only that pod)"
        lost += sum(1 for i in sorted(batch) if not bring_up(i))
    total = s.updated + len(s.missing) + len(to_update)
    stuck = {what: [e.pod.split("/", 1)[1] for e in events if e.action == action]
             for action, what in (("pending", "Pending"), ("refused", "not created"))}
    return RolloutOutcome(
        blocked is None, total, s.updated + placed, len(old), s.desired, min(lowest, s.updated + placed + len(old)),
        first_step or "nothing to replace", lost, s.updated + len(s.outdated),
        blocked_pod=blocked[0] if blocked is not None else None,
        blocked_on=(blocked[1].fit_error or blocked[1].error) if blocked is not None else None,
        where=", ".join(f"{', '.join(pods)} {what}" for what, pods in stuck.items() if pods), events=events)


# --------------------------------------------------------------------------- DaemonSet

@dataclass
class NodeStep:
    """A node the DaemonSet's rollout touches, with the verdict of its new daemon pod."""

    node: str
    fits: bool
    has_old: bool  # an old daemon pod runs there
    fit_error: str | None = None


@dataclass
class DaemonSetRollout:
    """A DaemonSet's rollout: the nodes whose daemon pod is of the old template, and its
    strategy's bounds as written (scaled over the targeted nodes once they are known)."""

    old_nodes: set[str]
    max_surge: Any
    max_unavailable: Any

    def bounds(self, targeted: int) -> tuple[int, int]:
        """(maxSurge, maxUnavailable) over ``targeted`` nodes, both rounded up; a rollout
        must be able to move, so both zero makes maxUnavailable 1."""
        surge = scaled(self.max_surge, targeted, "0", True)
        unavailable = scaled(self.max_unavailable, targeted, "1", True)
        return surge, (1 if surge == 0 and unavailable == 0 else unavailable)


def daemonset_outcome(nodes: list[NodeStep], max_surge: int, max_unavailable: int, kept: int,
                      pod_name: str) -> RolloutOutcome:
    """The DaemonSet's rollout over ``nodes`` (in name order), from per-node verdicts that do
    not depend on each other (daemon/update.go rollingUpdate): with maxSurge the new pod
    starts beside the old one, on up to maxSurge nodes at once; without it the old pod goes
    first, on up to maxUnavailable nodes at once. A node whose new pod stays Pending keeps
    its slot, and the rollout stops once every slot is taken. ``kept``: nodes already
    running a current daemon pod."""
    events: list[RolloutEvent] = []
    surge = max_surge > 0
    slots = max_surge if surge else max(1, max_unavailable)
    stuck: list[NodeStep] = []
    done = lost = 0
    old_left = sum(1 for n in nodes if n.has_old)
    available = kept + old_left
    lowest = available - (0 if surge else min(slots, old_left))
    # Nodes without a daemon pod get one from the controller's manage loop whatever the
    # strategy; one left Pending counts as unavailable (or as a surge in progress).
    for n in sorted(nodes, key=lambda n: n.has_old):
        if n.has_old and len(stuck) >= slots:
            break
        new, old = f"{pod_name} (new)", f"{pod_name} (old)"
        if n.has_old and not surge:
            old_left -= 1
            events.append(RolloutEvent("deleted", old, n.node))
        if not n.fits:
            stuck.append(n)
            lost += 1 if n.has_old and not surge else 0
            events.append(RolloutEvent("pending", new, n.node, n.fit_error))
            continue
        done += 1
        events.append(RolloutEvent("placed", new, n.node))
        if n.has_old and surge:
            old_left -= 1
            events.append(RolloutEvent("deleted", old, n.node))
    lowest = min(lowest, kept + done + old_left)
    first_step = ("per node the new pod started beside the old one (maxSurge)" if surge else
                  "per node the old pod deleted first (maxUnavailable)")
    return RolloutOutcome(
        not stuck, len(nodes), done, old_left, kept + len(nodes), lowest, first_step, lost, available, unit="node",
        blocked_pod=f"{pod_name} on {stuck[0].node}" if stuck else None,
        blocked_on=stuck[0].fit_error if stuck else None,
        where=", ".join(n.node for n in stuck), events=events)

"""Workloads that already run: what their controller would create now (SPEC §1).

A workload manifest that names a controller of the cluster source (same kind, namespace and
name; a Deployment also through the ReplicaSets it owns) is not a new workload: its
controller compares the manifest's pod template with what runs (after API defaulting, see
core/api/template_defaults.py) and creates only

- nothing, when the template and replica count are unchanged and every pod is bound;
- the missing replicas on a scale-up (and the workload's own Pending pods, which still
  need a node); nothing on a scale-down;
- the first step of the rollout its update strategy makes when the template changed
  (pkg/controller/deployment rolling.go / recreate.go, statefulset
  stateful_set_control.go, daemonset update.go, job controller).

``plan_workload`` returns that decision as a :class:`WorkloadPlan`; core/explain/front.py takes
the plan's pods out of the snapshot, places ``to_place`` copies, and reports the counts. A
rollout's plan also carries where the change starts from (``start``), which
core/explain/rollout_run.py plays to its end (``outcome``) with ``--replicas auto`` and in
``check``.
"""

from __future__ import annotations

import copy
from collections import Counter, defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from kschedx.core.api.model import PodInfo, pod_uid
from kschedx.core.api.objects import ClusterObjects, ControllerIndex, controlled_by, file_by_controller
from kschedx.core.api.template_defaults import same_template
from kschedx.core.explain.rollout_run import (
    DaemonSetRollout,
    DeploymentRollout,
    OldReplicaSet,
    RolloutOutcome,
    StatefulSetRollout,
    deletion_order,
    reference_time,
    scaled,
)
from kschedx.core.load.manifest import IncomingPod
from kschedx.core.snapshot import Snapshot

Dict = dict[str, Any]

NEW, UNCHANGED, SCALE_UP, ROLLOUT = "new", "unchanged", "scale-up", "rollout"


@dataclass
class WorkloadPlan:
    kind: str
    name: str
    rule: str
    replicas: int  # desired (a DaemonSet's: the nodes it targets, known after its verdicts)
    running: int  # pods of the current template already bound
    to_place: int  # new pods the controller would create now, plus the workload's Pending ones
    note: str = ""
    # Pods the controller deletes before the new ones are placed (Recreate, a StatefulSet's
    # replaced ordinal, the old ReplicaSets scaled down when maxSurge is 0).
    remove: list[Dict] = field(default_factory=list)
    # A StatefulSet's ordinals to place, in order.
    ordinals: list[int] | None = None
    used_ordinals: set[int] = field(default_factory=set)
    # DaemonSet: nodes already running a pod that stays (current template, or OnDelete), and
    # per node the old daemon pods removed before the new one is placed there.
    daemon_running: set[str] = field(default_factory=set)
    daemon_old: dict[str, list[Dict]] = field(default_factory=dict)
    # Names of the workload's own Pending pods among ``to_place``: they exist already, so
    # their quota usage is counted (ResourceQuota charges a pod once, when it is created).
    stored_pending: list[str] = field(default_factory=list)
    placed: int = 0
    # A change to run to its end (core/explain/rollout_run.py): where it starts from, and
    # once run, how it ends.
    start: DeploymentRollout | StatefulSetRollout | DaemonSetRollout | None = None
    outcome: RolloutOutcome | None = None

    def ordinals_for(self, count: int) -> list[int]:
        """``count`` ordinals: the planned ones first, then the next free ones."""
        out = list(self.ordinals or [])[:count]
        i = 0
        taken = set(out) | self.used_ordinals
        while len(out) < count:
            if i not in taken:
                out.append(i)
            i += 1
        return out

    def line(self) -> str:
        """The one line the table shows."""
        head = f"{self.kind} {self.name}: {self.rule}"
        if self.outcome is not None:
            return f"{head} — {self.outcome.summary()}"
        counts = f"{self.running}/{self.replicas} running, {self.placed} new placed"
        return f"{head} — {self.note} ({counts})" if self.note else f"{head} ({counts})"

    def to_json(self) -> dict[str, Any]:
        out = {"kind": self.kind, "name": self.name, "rule": self.rule, "replicas": self.replicas,
               "running": self.running, "placed": self.placed, "note": self.note}
        if self.outcome is not None:
            out["rollout"] = self.outcome.to_json()
        return out


# --------------------------------------------------------------------------- pods of a controller

_INDEX: dict[int, tuple[list[Dict], int, ControllerIndex]] = {}


def _owned_pods(objects: ClusterObjects, kind: str, ns: str, name: str) -> list[Dict]:
    """Live pods whose controller reference names ``kind``/``name`` in ``ns`` (indexed once
    per pod list, so ``check`` over many manifests reads the pods once)."""
    pods = objects.of("Pod")
    hit = _INDEX.get(id(pods))
    if hit is None or hit[0] is not pods or hit[1] != len(pods):
        index: ControllerIndex = {}
        for p in pods:
            file_by_controller(index, p)
        hit = keep_controller_index(pods, index)
    return [p for p in hit[2].get((ns, kind, name), []) if _alive(p)]


def keep_controller_index(pods: list[Dict], index: ControllerIndex) -> tuple[list[Dict], int, ControllerIndex]:
    """Keep ``index`` (``file_by_controller`` of every pod of ``pods``, in order) as the
    index of that list: ``check`` fills it while its snapshot is built, where each pod is
    read anyway, instead of reading 150,000 pods again for the first rollout."""
    _INDEX.clear()
    _INDEX[id(pods)] = hit = (pods, len(pods), index)
    return hit


_PLANNED_KINDS = ("Deployment", "ReplicaSet", "ReplicationController", "StatefulSet", "DaemonSet", "Job")


def any_may_run(objects: ClusterObjects, workloads: list[tuple[Any, Any, Any]]) -> bool:
    """Whether one of ``workloads`` (a document's kind, namespace and name) runs in the
    cluster as its plan finds it: an object of that kind and name in the namespace, or for
    a Deployment a ReplicaSet it controls. ``check`` asks this before indexing pods by
    controller."""
    for kind, ns, name in workloads:
        if kind not in _PLANNED_KINDS or not isinstance(ns, str) or not isinstance(name, str):
            continue
        if _find(objects, kind, ns, name) is not None:
            return True
        if kind == "Deployment" and controlled_by(objects.workloads.get("ReplicaSet", []), ns, kind, name):
            return True
    return False


def _alive(pod: Dict) -> bool:
    """Neither finished nor being deleted: what controllers count as an active pod."""
    if ((pod.get("status") or {}).get("phase")) in ("Succeeded", "Failed"):
        return False
    return not (pod.get("metadata") or {}).get("deletionTimestamp")


def _node(pod: Dict) -> str:
    return str((pod.get("spec") or {}).get("nodeName") or "")


def _created(obj: Dict) -> str:
    return str((obj.get("metadata") or {}).get("creationTimestamp") or "")


def _find(objects: ClusterObjects, kind: str, ns: str, name: str) -> Dict | None:
    return objects.find_workload(kind, ns, name)


def _template_of(obj: Dict) -> Dict:
    t = (obj.get("spec") or {}).get("template")
    return t if isinstance(t, dict) else {}


def _desired(spec: Dict, key: str = "replicas") -> int:
    v = spec.get(key)
    try:
        return max(int(v), 0) if v is not None else 1
    except (TypeError, ValueError):
        return 1


# --------------------------------------------------------------------------- the plans

def plan_workload(obj: Dict, incoming: IncomingPod, objects: ClusterObjects) -> WorkloadPlan | None:
    """What the workload's controller would create now; None for a Pod or PodTemplate."""
    kind = incoming.source_kind
    if kind in ("Pod", "PodTemplate"):
        return None
    ns = str((incoming.pod.get("metadata") or {}).get("namespace") or "default")
    name = str((obj.get("metadata") or {}).get("name") or incoming.source_name)
    spec = obj.get("spec") or {}
    tpl = _template_of(obj)
    plan: WorkloadPlan | None = None
    if kind == "Deployment":
        plan = _deployment(objects, ns, name, spec, tpl)
    elif kind in ("ReplicaSet", "ReplicationController"):
        plan = _replicaset(objects, kind, ns, name, spec, tpl)
    elif kind == "StatefulSet":
        plan = _statefulset(objects, ns, name, spec, tpl)
    elif kind == "DaemonSet":
        plan = _daemonset(objects, ns, name, spec, tpl)
    elif kind == "Job":
        plan = _job(objects, ns, name, spec)
    if plan is not None:
        return plan
    what = f"{kind} {ns}/{name}" + (" (nor a ReplicaSet it owns)" if kind == "Deployment" else "")
    note = f"no {what} in the cluster: every pod is new"
    if kind == "CronJob":
        refs = (incoming.pod.get("metadata") or {}).get("ownerReferences") or [{}]
        note = f"its next run is a new Job {refs[0].get('name') or name}: every pod is new"
    desired = 0 if kind == "DaemonSet" else (incoming.workload_replicas if incoming.workload_replicas is not None
                                               else 1)
    held = _held_back(kind, spec)
    if held is not None:
        # Its controller creates nothing for now: no copy is placed (--replicas auto, check).
        note, desired = f"no {what} in the cluster; {held}", 0
        incoming.workload_replicas = 0
    elif kind == "Job" and isinstance(spec.get("completions"), int) and not isinstance(spec.get("completions"), bool):
        # The Job controller starts no more pods than completions are left to do.
        desired = min(desired, max(0, spec["completions"]))
        incoming.workload_replicas = desired
    return WorkloadPlan(kind, name, NEW, desired, 0, desired, note)


def _held_back(kind: str, spec: Dict) -> str | None:
    """Why the controller of a new workload creates no pod yet, if it doesn't: a paused
    Deployment gets no ReplicaSet, a suspended Job no pod, until resumed."""
    if kind == "Deployment" and spec.get("paused") is True:
        return "it is paused: the Deployment controller creates no ReplicaSet until it is resumed"
    if kind == "Job" and spec.get("suspend") is True:
        return "it is suspended: the Job controller creates no pod until it is resumed"
    return None


def _unchanged_or_up(kind: str, name: str, desired: int, running: int, pending_pods: list[Dict], create: int,
                     extra: str = "", deleted: list[Dict] | None = None) -> WorkloadPlan:
    """``deleted``: on a scale-down, the pods its controller deletes (they free their room
    for what a release places after it)."""
    pending = len(pending_pods)
    to_place = create + pending
    if to_place == 0:
        note = f"already running {running}/{desired}: nothing to place"
        if running > desired:
            note = f"scaled down to {desired} ({running} running): nothing to place"
            if deleted:
                note += f"; its controller deletes {', '.join(_names(deleted))}"
        return WorkloadPlan(kind, name, UNCHANGED, desired, min(running, desired), 0, note + extra,
                            remove=list(deleted or []))
    parts = []
    if create:
        parts.append(f"the {create} missing")
    if pending:
        parts.append(f"its {pending} Pending pod(s)")
    note = f"{running} of {desired} running: placing {' and '.join(parts)}"
    return WorkloadPlan(kind, name, SCALE_UP, desired, min(running, desired), to_place, note + extra,
                        stored_pending=_names(pending_pods))


def _scaled_down(pods: list[Dict], desired: int) -> list[Dict]:
    """The pods a ReplicaSet's controller deletes to come down to ``desired``, in its
    deletion ranking (ActivePodsWithRanks: unscheduled first, then the pods sharing a node
    with more of their siblings, the younger, ...)."""
    extra = len(pods) - desired
    if extra <= 0:
        return []
    on_node = Counter(_node(p) for p in pods if _node(p))
    return deletion_order(pods, on_node, reference_time(pods))[:extra]


def _names(pods: list[Dict]) -> list[str]:
    return [str((p.get("metadata") or {}).get("name") or "") for p in pods]


def _deployment(objects: ClusterObjects, ns: str, name: str, spec: Dict, tpl: Dict) -> WorkloadPlan | None:
    dep = _find(objects, "Deployment", ns, name)
    rss = controlled_by(objects.workloads.get("ReplicaSet", []), ns, "Deployment", name)
    if dep is None and not rss:
        return None
    desired = _desired(spec)
    # FindNewReplicaSet: the oldest ReplicaSet whose template equals the Deployment's.
    rss.sort(key=lambda r: (_created(r), str((r.get("metadata") or {}).get("name"))))
    new_rs = next((rs for rs in rss if same_template(_template_of(rs), tpl)), None)
    old_rss = [rs for rs in rss if rs is not new_rs]

    def pods_of(rs: Dict) -> list[Dict]:
        return _owned_pods(objects, "ReplicaSet", ns, str((rs.get("metadata") or {}).get("name")))

    new_pods = pods_of(new_rs) if new_rs is not None else []
    running = [p for p in new_pods if _node(p)]
    pending = len(new_pods) - len(running)
    stored = _names([p for p in new_pods if not _node(p)])
    old_pods = [p for rs in old_rss for p in pods_of(rs)]
    if not old_pods:
        if new_rs is None:
            return WorkloadPlan("Deployment", name, ROLLOUT, desired, 0, desired,
                                "template changed and no pod of the old one runs: a new ReplicaSet of "
                                f"{desired}")
        return _unchanged_or_up("Deployment", name, desired, len(running), [p for p in new_pods if not _node(p)],
                                max(0, desired - len(new_pods)), deleted=_scaled_down(new_pods, desired))
    if spec.get("paused"):
        # A paused Deployment only scales: the rollout waits until it is resumed.
        return WorkloadPlan("Deployment", name, ROLLOUT, desired, len(running), pending,
                            f"paused: the new template waits until the Deployment is resumed; the {len(old_pods)} "
                            "old pod(s) keep running", stored_pending=stored)
    strategy = spec.get("strategy") or {}
    ru = strategy.get("rollingUpdate") or {}
    surge = scaled(ru.get("maxSurge"), desired, "25%", True)
    unavailable = scaled(ru.get("maxUnavailable"), desired, "25%", False)
    if surge == 0 and unavailable == 0:
        unavailable = 1  # ResolveFenceposts: a rollout must be able to make progress

    def spec_replicas(rs: Dict) -> int:
        r = (rs.get("spec") or {}).get("replicas")
        return int(r) if isinstance(r, int) else len(pods_of(rs))

    recreate = strategy.get("type") == "Recreate"
    start = DeploymentRollout(
        desired, surge, min(unavailable, desired), recreate, spec_replicas(new_rs) if new_rs is not None else 0,
        running, [copy.deepcopy(p) for p in new_pods if not _node(p)],  # bound by the run: copies
        [OldReplicaSet(str((rs.get("metadata") or {}).get("name")), spec_replicas(rs), pods_of(rs)) for rs in old_rss],
        _scaling_event(rss, desired, spec_replicas))
    if recreate:
        # rolloutRecreate: the old ReplicaSets are scaled to zero and their pods gone first.
        to_place = max(0, desired - len(running))
        return WorkloadPlan("Deployment", name, ROLLOUT, desired, len(running), to_place,
                            f"Recreate: the {len(old_pods)} old pod(s) removed first, then {to_place} new placed",
                            remove=[p for p in old_pods if _node(p)], start=start, stored_pending=stored)

    current = sum(spec_replicas(rs) for rs in rss)
    new_replicas = spec_replicas(new_rs) if new_rs is not None else 0
    up = max(0, min(desired + surge - current, desired - new_replicas))
    if up > 0:
        return WorkloadPlan("Deployment", name, ROLLOUT, desired, len(running), up + pending,
                            f"RollingUpdate (maxSurge {surge}, maxUnavailable {unavailable}): the new "
                            f"ReplicaSet's first {up} pod(s) placed while the {len(old_pods)} old pod(s) still run",
                            start=start, stored_pending=stored)
    # No room to surge: the old ReplicaSets are scaled down first by what maxUnavailable
    # allows, then the new one scaled up into the room.
    min_available = desired - unavailable
    new_unavailable = max(0, new_replicas - len(running))
    old_spec = current - new_replicas
    old_available = sum(1 for p in old_pods if _node(p))
    # reconcileOldReplicaSets counts ReplicaSet replicas, not pods: the old slots without an
    # available pod go first (cleanupUnhealthyReplicas), then only the available pods above
    # minAvailable. The pods actually deleted are what the old ReplicaSets then hold too many.
    max_down = current - min_available - new_unavailable
    cleanup = max(0, min(max_down, old_spec - old_available))
    scale_down = max(0, min(old_available + len(running) - min_available, old_spec - cleanup)) \
        if max_down > 0 else 0
    slots_down = cleanup + scale_down
    down = max(0, min(len(old_pods) - (old_spec - slots_down), len(old_pods)))
    # The ReplicaSet controller's ranking; the rank counts the Deployment's pods on the node.
    on_node = Counter(_node(p) for p in old_pods + new_pods if _node(p))
    victims = deletion_order(old_pods, on_node, reference_time(old_pods + new_pods))[:down]
    up = max(0, min(desired + surge - (current - slots_down), desired - new_replicas))
    return WorkloadPlan("Deployment", name, ROLLOUT, desired, len(running), up + pending,
                        f"RollingUpdate (maxSurge {surge}, maxUnavailable {unavailable}): {down} old pod(s) "
                        f"removed, then {up} new placed", remove=[p for p in victims if _node(p)], start=start,
                        stored_pending=stored)


def _scaling_event(rss: list[Dict], desired: int, replicas_of: Any) -> int | None:
    """isScalingEvent: an active ReplicaSet whose desired-replicas annotation is not the new
    count. With one active ReplicaSet it is scaled to ``desired`` first (returned); with
    several the proportional split is not modelled (None)."""
    active = [rs for rs in rss if replicas_of(rs) > 0]
    if len(active) != 1:
        return None
    raw = ((active[0].get("metadata") or {}).get("annotations") or {}).get("deployment.kubernetes.io/desired-replicas")
    try:
        return desired if raw is not None and int(raw) != desired else None
    except ValueError:
        return None


def _replicaset(objects: ClusterObjects, kind: str, ns: str, name: str, spec: Dict, tpl: Dict) -> WorkloadPlan | None:
    rs = _find(objects, kind, ns, name)
    if rs is None:
        return None
    pods = _owned_pods(objects, kind, ns, name)
    running = sum(1 for p in pods if _node(p))
    extra = ""
    if not same_template(_template_of(rs), tpl):
        extra = f"; its template changed, but a {kind} does not replace the pods it has"
    desired = _desired(spec)
    return _unchanged_or_up(kind, name, desired, running, [p for p in pods if not _node(p)],
                            max(0, desired - len(pods)), extra, deleted=_scaled_down(pods, desired))


def _ordinal(pod: Dict, name: str) -> int | None:
    pname = str((pod.get("metadata") or {}).get("name") or "")
    prefix = f"{name}-"
    if not pname.startswith(prefix) or not pname[len(prefix):].isdigit():
        return None
    return int(pname[len(prefix):])


def _statefulset(objects: ClusterObjects, ns: str, name: str, spec: Dict, tpl: Dict) -> WorkloadPlan | None:
    sts = _find(objects, "StatefulSet", ns, name)
    if sts is None:
        return None
    desired = _desired(spec)
    same = same_template(_template_of(sts), tpl)
    update_revision = (sts.get("status") or {}).get("updateRevision")
    by_ordinal: dict[int, Dict] = {}
    for p in _owned_pods(objects, "StatefulSet", ns, name):
        i = _ordinal(p, name)
        if i is not None:
            by_ordinal[i] = p

    def current(p: Dict) -> bool:
        if not same:
            return False
        rev = ((p.get("metadata") or {}).get("labels") or {}).get("controller-revision-hash")
        return not update_revision or rev is None or rev == update_revision

    wanted = range(desired)
    missing = [i for i in wanted if i not in by_ordinal]
    pending = [i for i in wanted if i in by_ordinal and not _node(by_ordinal[i])]
    running = sum(1 for i in wanted if i in by_ordinal and _node(by_ordinal[i]) and current(by_ordinal[i]))
    outdated = [i for i in wanted if i in by_ordinal and _node(by_ordinal[i]) and not current(by_ordinal[i])]
    ordinals = sorted(missing + pending)
    stored = _names([by_ordinal[i] for i in pending])
    used = set(by_ordinal)
    if not outdated:
        plan = _unchanged_or_up("StatefulSet", name, desired, running, [by_ordinal[i] for i in pending],
                                len(missing))
        plan.ordinals, plan.used_ordinals = ordinals, used
        return plan
    strategy = spec.get("updateStrategy") or {}
    if strategy.get("type") == "OnDelete":
        note = (f"OnDelete: the {len(outdated)} pod(s) of the old template stay until they are deleted; "
                f"nothing is replaced")
        if ordinals:
            note += f"; placing the missing ordinal(s) {', '.join(map(str, ordinals))}"
        return WorkloadPlan("StatefulSet", name, ROLLOUT, desired, running, len(ordinals), note,
                            ordinals=ordinals, used_ordinals=used, stored_pending=stored)
    partition = scaled((strategy.get("rollingUpdate") or {}).get("partition"), desired, "0", False)
    start = StatefulSetRollout(desired, {i: by_ordinal[i] for i in outdated}, ordinals[:], running, partition,
                               (strategy.get("rollingUpdate") or {}).get("maxUnavailable"),
                               spec.get("podManagementPolicy") == "Parallel",
                               [p for i, p in by_ordinal.items() if i >= desired and _node(p)])
    candidates = [i for i in outdated if i >= partition]
    remove: list[Dict] = []
    if candidates:
        # The update goes from the highest ordinal down, one pod at a time: its pod deleted
        # and created again under the same name, with the same claims.
        i = max(candidates)
        remove.append(by_ordinal[i])
        ordinals.append(i)
        note = f"RollingUpdate: ordinal {i} replaced in place (its old pod removed, its claims kept)"
        if partition:
            note += f"; partition {partition}"
    else:
        note = f"RollingUpdate partition {partition}: the ordinals below it keep the old template; nothing replaced"
    if missing or pending:
        note += f"; placing the missing ordinal(s) {', '.join(map(str, sorted(missing + pending)))} first"
    return WorkloadPlan("StatefulSet", name, ROLLOUT, desired, running, len(ordinals), note, remove=remove,
                        ordinals=ordinals, used_ordinals=used, start=start, stored_pending=stored)


def _daemonset(objects: ClusterObjects, ns: str, name: str, spec: Dict, tpl: Dict) -> WorkloadPlan | None:
    ds = _find(objects, "DaemonSet", ns, name)
    if ds is None:
        return None
    by_node: dict[str, list[Dict]] = defaultdict(list)
    for p in _owned_pods(objects, "DaemonSet", ns, name):
        if _node(p):
            by_node[_node(p)].append(p)
    current_hash = _daemonset_revision(objects, ns, ds) if same_template(_template_of(ds), tpl) else ""

    def is_current(p: Dict) -> bool:
        # Same template as the cluster's DaemonSet: a pod is current unless it carries an
        # older revision's hash (a rollout under way), as far as ControllerRevisions tell.
        rev = ((p.get("metadata") or {}).get("labels") or {}).get("controller-revision-hash")
        return current_hash is None or (current_hash != "" and (rev is None or rev == current_hash))

    current = {n for n, pods in by_node.items() if all(is_current(p) for p in pods)}
    old = {n: pods for n, pods in by_node.items() if n not in current}
    if not old:
        return WorkloadPlan("DaemonSet", name, UNCHANGED, 0, len(current), 0,
                            f"a current daemon pod already runs on {len(current)} node(s)", daemon_running=current)
    strategy = spec.get("updateStrategy") or {}
    if strategy.get("type") == "OnDelete":
        return WorkloadPlan("DaemonSet", name, ROLLOUT, 0, len(current), 0,
                            f"OnDelete: the old daemon pods on {len(old)} node(s) stay until they are deleted",
                            daemon_running=set(by_node))
    ru = strategy.get("rollingUpdate") or {}
    surge = ru.get("maxSurge")
    start = DaemonSetRollout(set(old), surge, ru.get("maxUnavailable"))
    if scaled(surge, max(len(by_node), 1), "0", True) > 0:
        return WorkloadPlan("DaemonSet", name, ROLLOUT, 0, len(current), 0,
                            f"RollingUpdate maxSurge {surge}: per node the new pod placed beside the old one",
                            daemon_running=current, start=start)
    return WorkloadPlan("DaemonSet", name, ROLLOUT, 0, len(current), 0,
                        "RollingUpdate: per node the old daemon pod removed, then the new one placed",
                        daemon_running=current, daemon_old=old, start=start)


def _daemonset_revision(objects: ClusterObjects, ns: str, ds: Dict) -> str | None:
    """The hash label of the DaemonSet's newest ControllerRevision (its current template);
    None when the source holds none of them."""
    uid = (ds.get("metadata") or {}).get("uid")
    name = (ds.get("metadata") or {}).get("name")
    best: tuple[int, str] | None = None
    for cr in objects.of("ControllerRevision"):
        m = cr.get("metadata") or {}
        if (m.get("namespace") or "default") != ns:
            continue
        if not any(r.get("controller") and r.get("kind") == "DaemonSet" and (r.get("uid") == uid if uid else
                                                                             r.get("name") == name)
                   for r in m.get("ownerReferences") or []):
            continue
        rev = cr.get("revision")
        h = (m.get("labels") or {}).get("controller-revision-hash")
        if isinstance(rev, int) and h and (best is None or rev > best[0]):
            best = (rev, str(h))
    return best[1] if best is not None else None


def _job(objects: ClusterObjects, ns: str, name: str, spec: Dict) -> WorkloadPlan | None:
    job = _find(objects, "Job", ns, name)
    if job is None:
        return None
    status = job.get("status") or {}
    active = _owned_pods(objects, "Job", ns, name)
    running = sum(1 for p in active if _node(p))
    parallelism = _desired(spec, "parallelism")
    finished = any(c.get("type") in ("Complete", "Failed") and c.get("status") == "True"
                   for c in status.get("conditions") or [])
    want = parallelism
    completions = spec.get("completions")
    succeeded = int(status.get("succeeded") or 0)
    why = ""
    if isinstance(completions, int):
        want = min(want, max(0, completions - succeeded))
    elif succeeded:
        # A work-queue Job (no completions) starts no pod once one has succeeded.
        want, why = min(want, len(active)), "; a pod has succeeded, so no new one starts"
    if finished:
        want, why = 0, "; the Job has finished"
    elif spec.get("suspend"):
        want, why = 0, "; the Job is suspended"
    create = max(0, want - len(active))
    plan = _unchanged_or_up("Job", name, parallelism, running, [p for p in active if not _node(p)], create, why)
    if plan.rule == UNCHANGED and not why:
        plan.note = f"{len(active)} active of parallelism {parallelism}: nothing to place"
    return plan


# --------------------------------------------------------------------------- snapshot edits

@contextmanager
def taken_out(snapshot: Snapshot, pods: list[Dict]) -> Iterator[None]:
    """The snapshot without ``pods`` (as their controller deleted them), restored after."""
    removed: list[PodInfo] = []
    for raw in pods:
        uid = pod_uid(raw)
        pi = snapshot.pods_by_uid.get(uid)
        if pi is not None:
            snapshot.remove_pod(pi)
            removed.append(pi)
    try:
        yield
    finally:
        for pi in removed:
            snapshot.add_pod(pi)


def resolve_count(plan: WorkloadPlan | None, replicas: int | str | None, resolved: int) -> int:
    """``--replicas auto`` of a workload its controller already runs: what it creates now."""
    if plan is None or plan.rule == NEW or not isinstance(replicas, str):
        return resolved
    return plan.to_place if replicas.strip().lower() == "auto" else resolved

"""``kschedx pending``: every Pending pod of the cluster source, explained in one line each.

Each pod gets the cycle the scheduler would run for it now, on one snapshot of the source
with that pod taken out for its own cycle (core.existing.detached), and is put in one class:

- ``fits``: it would be scheduled now, on the node named;
- ``unschedulable``: the FitError, as the scheduler's event would word it;
- ``gated``: spec.schedulingGates keep it out of the scheduling queue (PreEnqueue);
- ``nominated``: preemption nominated a node for it (status.nominatedNodeName), and it
  waits there for its victims to leave; the cycle says whether it fits now;
- ``other-scheduler``: its schedulerName is none of the configuration's profiles, so this
  scheduler never sees it.

Where the source holds the pod's latest ``FailedScheduling`` event, its message is compared
with kschedx's FitError.
"""

from __future__ import annotations

import re
from collections.abc import Hashable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from kschedx.core.api.objects import ClusterObjects, pod_key
from kschedx.core.api.selectors import LabelSelector, SelectorError, parse_label_selector
from kschedx.core.config.profile import default_profile
from kschedx.core.errors import InputError
from kschedx.core.explain.existing import detach_changes_nothing, detached, events_by_pod_name, pod_events
from kschedx.core.framework import shared_answers
from kschedx.core.framework.result import CycleResult
from kschedx.core.framework.shared_answers import canonical, share
from kschedx.core.gcpause import without_gc_frozen
from kschedx.core.plugins import REGISTRY

Dict = dict[str, Any]

FITS = "fits"
UNSCHEDULABLE = "unschedulable"
GATED = "gated"
NOMINATED = "nominated"
OTHER_SCHEDULER = "other-scheduler"
ERROR = "error"


@dataclass
class SchedulingEvent:
    """The latest FailedScheduling event of a pod."""

    message: str
    time: str | None
    count: int | None = None

    def to_json(self) -> Dict:
        return {"message": self.message, "time": self.time, "count": self.count}


@dataclass
class PendingPod:
    namespace: str
    name: str
    status: str  # one of the classes above
    priority: int = 0
    scheduler_name: str = "default-scheduler"
    # fits: the node it would go to; nominated: the nominated node.
    node: str | None = None
    # The cycle's verdict now: the node it would be bound to, or the FitError.
    selected_node: str | None = None
    fit_error: str | None = None
    gates: list[str] = field(default_factory=list)
    event: SchedulingEvent | None = None
    event_agrees: bool | None = None
    detail: str = ""
    warnings: list[str] = field(default_factory=list)

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def would_fit(self) -> bool:
        return self.status in (FITS, NOMINATED) and self.selected_node is not None

    def to_json(self) -> Dict:
        return {
            "pod": self.key,
            "status": self.status,
            "node": self.node,
            "selectedNode": self.selected_node,
            "fitError": self.fit_error,
            "schedulingGates": list(self.gates),
            "schedulerName": self.scheduler_name,
            "priority": self.priority,
            "detail": self.detail,
            "event": self.event.to_json() if self.event is not None else None,
            "eventAgrees": self.event_agrees,
            "warnings": list(self.warnings),
        }


@dataclass
class PendingReport:
    pods: list[PendingPod]
    warnings: list[str] = field(default_factory=list)
    # The kube-scheduler release reproduced (--kubernetes-version, else the cluster's own).
    kubernetes_version: str | None = None

    @property
    def ok(self) -> bool:
        """Exit status 0: every pending pod would be scheduled now."""
        return all(p.would_fit for p in self.pods)

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for p in self.pods:
            out[p.status] = out.get(p.status, 0) + 1
        return out

    def to_json(self) -> Dict:
        compared = [p for p in self.pods if p.event_agrees is not None]
        return {
            "kubernetesVersion": self.kubernetes_version,
            "pending": len(self.pods),
            "wouldFit": sum(1 for p in self.pods if p.would_fit),
            "byStatus": self.counts(),
            "eventsCompared": len(compared),
            "eventsAgree": sum(1 for p in compared if p.event_agrees),
            "pods": [p.to_json() for p in self.pods],
            "warnings": list(self.warnings),
        }


# --------------------------------------------------------------------------- selection

_SET_RE = re.compile(r"^\s*(!?)\s*([^\s!=()]+)\s*(?:(in|notin)\s*\(([^)]*)\)|(==|=|!=)\s*([^\s,()]*))?\s*$")


def parse_selector(text: str) -> LabelSelector:
    """A ``-l`` label selector as kubectl takes it: ``a=b,c!=d,e in (x,y),f notin (z),g,!h``."""
    parts: list[str] = []
    depth = 0
    cur = ""
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    exprs: list[Dict] = []
    for part in parts:
        if not part.strip():
            continue
        m = _SET_RE.match(part)
        if m is None or (m.group(1) and (m.group(3) or m.group(5))):
            raise InputError(f"-l {text}: unable to parse requirement {part.strip()!r}")
        neg, key, set_op, values, op, value = m.groups()
        if set_op:
            vals = [v.strip() for v in values.split(",") if v.strip()]
            exprs.append({"key": key, "operator": "In" if set_op == "in" else "NotIn", "values": vals})
        elif op:
            exprs.append({"key": key, "operator": "NotIn" if op == "!=" else "In", "values": [value]})
        else:
            exprs.append({"key": key, "operator": "DoesNotExist" if neg else "Exists"})
    try:
        return parse_label_selector({"matchExpressions": exprs})
    except SelectorError as e:
        raise InputError(f"-l {text}: {e}") from None


def pending_pods(objects: ClusterObjects, namespace: str | None = None,
                 selector: LabelSelector | None = None) -> list[Dict]:
    """The pods the scheduler still has to place: no node, not finished, not being deleted."""
    out = []
    for pod in objects.of("Pod"):
        meta = pod.get("metadata") or {}
        spec = pod.get("spec") or {}
        phase = (pod.get("status") or {}).get("phase") or "Pending"
        if spec.get("nodeName") or phase != "Pending" or meta.get("deletionTimestamp"):
            continue
        if namespace is not None and (meta.get("namespace") or "default") != namespace:
            continue
        labels = {str(k): str(v) for k, v in (meta.get("labels") or {}).items()}
        if selector is not None and not selector.matches(labels):
            continue
        out.append(pod)
    out.sort(key=lambda p: ((p.get("metadata") or {}).get("namespace") or "default",
                            (p.get("metadata") or {}).get("name") or ""))
    return out


# --------------------------------------------------------------------------- events


def _when(e: Dict) -> tuple[datetime, str | None]:
    series = e.get("series") or {}
    for stamp in (series.get("lastObservedTime"), e.get("lastTimestamp"), e.get("eventTime"),
                  e.get("deprecatedLastTimestamp"), (e.get("metadata") or {}).get("creationTimestamp")):
        if isinstance(stamp, str) and stamp:
            try:
                return datetime.fromisoformat(stamp.replace("Z", "+00:00")), stamp
            except ValueError:
                continue
    return datetime.min.replace(tzinfo=UTC), None


def latest_failed_scheduling_event(events: list[Dict]) -> Dict | None:
    """The newest FailedScheduling event (by series.lastObservedTime, lastTimestamp, eventTime)."""
    failed = [e for e in events if e.get("reason") == "FailedScheduling"]
    return max(failed, key=lambda e: _when(e)[0]) if failed else None


def latest_failed_scheduling(events: list[Dict]) -> SchedulingEvent | None:
    """What the newest FailedScheduling event says (see latest_failed_scheduling_event)."""
    latest = latest_failed_scheduling_event(events)
    if latest is None:
        return None
    count = (latest.get("series") or {}).get("count") or latest.get("count")
    message = latest.get("message") if latest.get("message") is not None else latest.get("note")
    return SchedulingEvent(str(message or ""), _when(latest)[1], int(count) if count is not None else None)


def messages_agree(fit_error: str, message: str) -> bool:
    """Whether the event says what kschedx says. Event notes are capped at 1 kB, so a
    message cut short with an ellipsis agrees when it starts the FitError."""
    if fit_error == message:
        return True
    for tail in ("...", "…"):
        if message.endswith(tail) and len(message) > len(tail) + 32 and fit_error.startswith(message[: -len(tail)]):
            return True
    return False


def events_pending_compares(objects: ClusterObjects) -> list[Dict]:
    """The Events ``pending`` reads of ``objects``: each pending pod's latest FailedScheduling
    Event (what ``kschedx snapshot`` keeps of the many Events of a cluster)."""
    by_name = events_by_pod_name(objects)
    kept = (latest_failed_scheduling_event(pod_events(objects, raw, by_name.get(pod_key(raw)[1], [])))
            for raw in pending_pods(objects))
    return [e for e in kept if e is not None]


# --------------------------------------------------------------------------- the run


@without_gc_frozen  # as the cycles themselves: no collection between pods either
def skipped_events_note(count: int, source: str) -> str:
    return (f"{count} Event(s) of {source} could not be decoded (a field of the wrong type) and are left out; "
            "the pending pods are explained without them")


def explain_pending(
    objects: ClusterObjects,
    *,
    namespace: str | None = None,
    selector: str | None = None,
    config: str | None = None,
    options: Any = None,
    source: str = "the cluster",
) -> PendingReport:
    """Every Pending pod of ``objects`` (in ``namespace``, matching ``selector``), each with
    the cycle it would get now, and its events among the Events of ``objects`` (a live
    cluster's FailedScheduling ones come with its listing, core.load.live)."""
    from kschedx.core.api.quantity import QuantityError
    from kschedx.core.explain import front as engine

    sel = parse_selector(selector) if selector else None
    pods = pending_pods(objects, namespace, sel)
    # The release is chosen once for the run, before the configuration is read (what a
    # configuration may hold depends on it).
    options = engine.resolve_version(options, objects, source)
    profiles, options = engine.load_profiles(config, options)
    known = set(profiles) if profiles is not None else {"default-scheduler"}
    report = PendingReport([], kubernetes_version=options.version.name if options.version is not None else None)
    if objects.skipped_events:
        report.warnings.append(skipped_events_note(objects.skipped_events, source))
    if not pods:
        return report
    try:
        snapshot = engine.build_snapshot(objects)
    except (QuantityError, SelectorError) as e:
        raise InputError(str(e), path=source) from None
    # Pods with equal node-relevant fields (the pods of one workload, and beyond) share
    # their node-local plugin answers (core/framework/shared_answers.py).
    share(snapshot)
    if not snapshot.nodes():
        report.warnings.append(f"no Node in {source}: the scheduler has no node to schedule any pod onto")
    if profiles is None:
        # The default profile, built once for all pods (select_profile would build it per pod).
        profiles = {"default-scheduler": default_profile(REGISTRY, version=options.version)}
    by_name = events_by_pod_name(objects)
    # The pods of one workload are alike but for their names: they get one cycle.
    cycles: dict[Hashable, CycleResult] | None = {} if shared_answers.ENABLED else None
    for raw in pods:
        meta = raw.get("metadata") or {}
        ns, name = meta.get("namespace") or "default", meta.get("name") or ""
        events = pod_events(objects, raw, by_name.get(name, []))
        report.pods.append(_one(raw, ns, name, events, objects, snapshot, profiles, known, options, engine, cycles))
    return report


# What a cycle never reads of a pod: its identity and the times of its conditions.
_IDENTITY = ("name", "uid", "generateName", "creationTimestamp", "resourceVersion", "managedFields", "selfLink")
_CONDITION_TIMES = ("lastTransitionTime", "lastProbeTime")


def _cycle_key(incoming: Any, raw: Dict, profile: Any, snapshot: Any) -> Hashable | None:
    """The key under which pods get the same cycle: everything of the admitted pod but its
    identity, on the same snapshot state and profile. None for a pod whose cycle reads its
    name or uid (claims and volumes named or owned per pod, a nomination) or whose own
    cycle edits the snapshot (detached: a bound copy, a reservation)."""
    pod = incoming.pod
    spec = pod.get("spec") or {}
    status = pod.get("status") or {}
    if spec.get("resourceClaims") or status.get("nominatedNodeName") or spec.get("nodeName"):
        return None
    for v in spec.get("volumes") or []:
        if not isinstance(v, dict) or v.get("persistentVolumeClaim") is not None or v.get("ephemeral") is not None:
            return None
    if not detach_changes_nothing(snapshot, raw):
        return None
    meta = {k: v for k, v in (pod.get("metadata") or {}).items() if k not in _IDENTITY}
    conditions = [{k: v for k, v in c.items() if k not in _CONDITION_TIMES} if isinstance(c, dict) else c
                  for c in status.get("conditions") or []]
    rest = {**pod, "metadata": meta, "status": {**status, "conditions": conditions}}
    # (incoming.source_name is the pod's name: the cycle doesn't read it.)
    return (canonical(rest), canonical(incoming.extra_objects), incoming.rule, tuple(incoming.warnings),
            incoming.source_kind, incoming.bound_node, id(profile), snapshot.generation)


def _names_pod(result: CycleResult, name: str, uid: str) -> bool:
    """Whether a cycle's words name the pod (then they are its own, not its siblings')."""
    texts = [*result.warnings, *result.notes, result.fit_error or "", result.error or "",
             result.fit_error_before_post_filter or ""]
    return any(name in t or (uid and uid in t) for t in texts)


def _one(raw: Dict, ns: str, name: str, events: list[Dict], objects: ClusterObjects, snapshot: Any,
         profiles: Any, known: set[str], options: Any, engine: Any,
         cycles: dict[Hashable, CycleResult] | None = None) -> PendingPod:
    spec = raw.get("spec") or {}
    status = raw.get("status") or {}
    scheduler = spec.get("schedulerName") or "default-scheduler"
    out = PendingPod(ns, name, FITS, int(spec.get("priority") or 0), scheduler,
                     event=latest_failed_scheduling(events))
    if scheduler not in known:
        out.status = OTHER_SCHEDULER
        out.detail = f"schedulerName {scheduler} is none of the profiles ({', '.join(sorted(known))})"
        return out
    gates = [str(g.get("name")) for g in spec.get("schedulingGates") or [] if isinstance(g, dict)]
    if gates:
        out.status = GATED
        out.gates = gates
        out.detail = "schedulingGates " + ", ".join(gates) + " keep it out of the scheduling queue"
        return out
    try:
        incoming = engine.prepare_object(raw, f"pod/{name}", objects, namespace=ns)
        profile = engine.select_profile(incoming.pod, None, profiles, options.version)
        key = _cycle_key(incoming, raw, profile, snapshot) if cycles is not None else None
        hit = cycles.get(key) if cycles is not None and key is not None else None
        if hit is not None:
            result = hit
        else:
            with detached(snapshot, raw):
                result = engine.run(snapshot, incoming, profile, options, f"pod/{name}")
            if cycles is not None and key is not None and not _names_pod(result, name, pod_key(raw)[2]):
                cycles[key] = result
    except InputError as e:
        out.status = ERROR
        out.detail = str(e)
        return out
    out.warnings = [w for w in result.warnings if "spec.nodeName" not in w]
    out.selected_node = result.selected_node
    out.fit_error = result.fit_error
    out.priority = result.pod_priority
    nominated = status.get("nominatedNodeName")
    if nominated:
        out.status = NOMINATED
        out.node = str(nominated)
        if result.selected_node == out.node:
            # The cycle tried the nominated node first and took it (prefer_nominated_node).
            out.detail = f"fits now on its nominated node {out.node} (tried first)"
        else:
            out.detail = (f"its nominated node does not fit now; fits on {result.selected_node}"
                          if result.selected_node else result.fit_error or result.error or "")
    elif result.selected_node is not None:
        out.node = result.selected_node
        total = result.totals.get(result.selected_node)
        out.detail = f"best of {len(result.feasible_nodes)} feasible node(s)" + (f", total {total}" if total else "")
        if len(result.best_nodes) > 1:
            out.detail += f"; a tie with {', '.join(n for n in result.best_nodes if n != result.selected_node)}"
    else:
        out.status = UNSCHEDULABLE
        out.detail = result.fit_error or result.error or ""
    if out.event is not None:
        out.event_agrees = (result.fit_error is not None and messages_agree(result.fit_error, out.event.message))
        if result.fit_error is None:
            # The scheduler's last attempt failed where kschedx finds a node now: the cluster
            # changed since, and the pod waits for its next retry (backoff, or the event that
            # makes the scheduler requeue it).
            out.detail += f"; its last FailedScheduling event ({out.event.time or 'undated'}) said no node fit"
    return out


# --------------------------------------------------------------------------- comparison


def pod_verdict(p: PendingPod) -> str:
    """A pod's verdict for a comparison: its class; a nominated pod's also says whether it
    fits now (on its nominated node or elsewhere)."""
    if p.status == NOMINATED:
        return f"{NOMINATED} ({'fits now' if p.would_fit else 'does not fit now'})"
    return p.status


@dataclass
class PendingComparison:
    """The pending pods under two scheduler setups (core.compare.Setup): per pod, only
    what changes: its verdict, the node it would go to, its FitError."""

    base: PendingReport
    compare: PendingReport
    changes: list[Dict] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        """1 when any pod's verdict changes, else 0."""
        return 1 if any(c["what"] == "status" for c in self.changes) else 0

    def to_json(self) -> Dict:
        return {"base": self.base.to_json(), "compare": self.compare.to_json(), "changes": list(self.changes)}


def compare_reports(a: PendingReport, b: PendingReport) -> PendingComparison:
    out = PendingComparison(a, b)
    other = {p.key: p for p in b.pods}
    for pa in a.pods:
        pb = other.get(pa.key)
        if pb is None:  # both runs read the same cluster: the same pods are pending
            continue
        where = {"pod": pa.key}
        if pod_verdict(pa) != pod_verdict(pb):
            out.changes.append({**where, "what": "status", "base": pod_verdict(pa), "compare": pod_verdict(pb)})
        if pa.selected_node != pb.selected_node:
            out.changes.append({**where, "what": "selectedNode", "base": pa.selected_node,
                                "compare": pb.selected_node})
        if pa.fit_error != pb.fit_error:
            out.changes.append({**where, "what": "fitError", "base": pa.fit_error, "compare": pb.fit_error})
    return out


def pending_compared(objects: ClusterObjects, *, options: Any, config: str | None, compare: Any,
                     **kwargs: Any) -> PendingComparison:
    """``explain_pending`` under the base setup and under ``compare`` (a core.compare.Setup)
    on the same cluster."""
    from kschedx.core.explain.compare import Setup, options_for
    from kschedx.core.explain.front import Options

    options = options or Options()
    base = Setup(options.kubernetes_version, config, options.feature_gates)
    a = explain_pending(objects, options=options_for(options, base), config=base.config, **kwargs)
    b = explain_pending(objects, options=options_for(options, compare), config=compare.config, **kwargs)
    return compare_reports(a, b)


def change_lines(c: PendingComparison) -> list[str]:
    """One line per change, for the text output."""
    lines = []
    for ch in c.changes:
        what = {"status": "status", "selectedNode": "node", "fitError": "FitError"}[ch["what"]]
        lines.append(f"{ch['pod']}: {what} {ch['base'] or '(none)'} → {ch['compare'] or '(none)'}")
    return lines

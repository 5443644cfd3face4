"""``check``: will this release run on that cluster? One verdict per pod-bearing
document, and one for the release.

By default the documents of one run are a release, placed together as if applied at once:
each workload's new pods (its replica count as ``kubectl apply`` leaves it, what its
controller creates now, core/explain/rollout.py) are bound where their cycles put them, so
the workloads placed later see the earlier ones' pods (room, ports, spread and
(anti-)affinity counts, volumes, claims) and their ReplicaSets and StatefulSets (default
spreading). A DaemonSet's pods are bound on every node where it fits. A CronJob creates
nothing when it is applied (its controller creates a Job when the schedule comes): its pod
is checked after every other workload, with the release's pods in place, and then taken
off again; it is not among the release's pods, and its verdict still sets the exit code.

The order is the scheduling queue's (PrioritySort: higher priority first, then the earlier
queue timestamp), approximated workload by workload: all pods of a release are created
within moments of each other, objects in the order ``kubectl apply -f`` sends them (the
files' order, documents in order), and each controller creates its pods in one burst, so
among equal priorities a workload's pods reach the queue after those of the workloads
applied before it. That is one order of many: a real cluster interleaves the pods of
equal priority and scans from a moving start, so which workload gets the last room is a
race. Where the order shown leaves pods unplaced (or with ``samples``), the release is
played again in shuffled orders with the scheduler's draws (core/explain/orders.py), and
each workload's unplaced pods are given as a range over them.

A release holding one object twice (the same kind, namespace and name in two documents: a
base and its copy, one file named twice) is applied twice by ``kubectl apply -f``, in
order, and the object ends as the last document says; its controller converges to that
spec. So the last document is the workload, placed where it comes in the order; each
earlier one is listed as replaced by it (:class:`Replaced`) and places no pod — unless the
API server refuses the later update (it changes a field it keeps immutable: a pod's spec,
a workload's selector; core/explain/updates.py): then the earlier document stands. (With
``separately`` each document is checked as if applied alone, duplicates included.)

A workload that does not fit in the release is checked alone too, on the cluster as
loaded; when it fits there, its line names the earlier workloads whose pods took its room.
``separately=True`` is the one-document-at-a-time mode: each document on the cluster as
loaded, documents never see each other. A file that can't be read or interpreted is
reported as an error line; the others are still checked.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from kschedx.core.admission import Admission, Refused
from kschedx.core.admission.priority import priority_classes, resolve_priority
from kschedx.core.api.model import PodInfo, pod_uid
from kschedx.core.api.objects import ClusterObjects
from kschedx.core.api.quantity import QuantityError
from kschedx.core.api.selectors import SelectorError
from kschedx.core.errors import InputError
from kschedx.core.explain.front import (
    Kept,
    Options,
    admit_claims,
    build_snapshot,
    explain_object,
    load_profiles,
    resolve_version,
)
from kschedx.core.explain.orders import OrderChance, Sample, auto_check_samples
from kschedx.core.explain.replicas import hpa_status_as_applied, reset_by_apply, scales_down
from kschedx.core.explain.report import FAILED_CREATE, DaemonNodeVerdict, Explanation
from kschedx.core.explain.rollout import any_may_run
from kschedx.core.explain.rollout_run import RolloutOutcome
from kschedx.core.explain.updates import live_update_refusal, update_refusal
from kschedx.core.framework.shared_answers import share
from kschedx.core.gcpause import without_gc_frozen
from kschedx.core.load.repo import ManifestFile, lay_over, read_manifest, walk_repository
from kschedx.core.progress import report as report_progress
from kschedx.core.snapshot import Snapshot

Dict = dict[str, Any]

FITS, PARTIAL, UNSCHEDULABLE, ERROR = "fits", "partial", "unschedulable", "error"

# How check_paths runs the documents: together as one release (the default), or each alone.
RELEASE, SEPARATELY = "release", "separately"
ORDER_RULE = "priority (higher first), then the files' order, documents in order"

VERDICT_WORDS = {FITS: "fits", PARTIAL: "fits partly", UNSCHEDULABLE: "doesn't fit", ERROR: "error"}


@dataclass
class CheckEntry:
    file: str
    kind: str | None = None
    namespace: str | None = None
    name: str | None = None
    # The document's number in its file (1-based, every document counted).
    document: int | None = None
    explanation: Explanation | None = None
    error: str | None = None
    # The pod priority the queue orders it by (Priority admission's, from its template).
    priority: int = 0
    # Release mode, for a workload that doesn't fit in the release: its verdict and placed
    # count alone on the cluster as loaded, and the earlier workloads whose pods took the room.
    alone: tuple[str, int] | None = None
    after: list[str] = field(default_factory=list)
    # The API server refused to create the workload's pod or claim (admission): it does not run.
    rejected: str | None = None
    # Earlier documents of the run for the same object, which this one replaces.
    replaces: list[Replaced] = field(default_factory=list)
    # The API server refuses the manifest as an update of the workload the cluster runs
    # (an immutable field changed): nothing changes, and kubectl apply fails.
    not_applied: str | None = None
    # The orders and scan draws sampled besides the order shown (core/explain/orders.py):
    # the release's, or (checked separately) the workload's own.
    chance: OrderChance | None = None
    # Release mode, a running workload whose HPA scales it after kubectl apply set the
    # manifest's count: (the count applied, the HPA's, the HPA's name), and the pods its
    # controller deleted when the apply set that count.
    hpa_sync: tuple[int, int, str] | None = None
    reset_deleted: int = 0
    # Release mode, a workload whose earlier document of the run asked for more replicas
    # of the same template: (the count that document asked for, its pods placed), applied
    # and placed first, then scaled down by this one.
    first: tuple[int, int] | None = None
    # ... and the nodes of its placed pods that stay after the scale-down.
    first_stay: list[str] = field(default_factory=list)
    # Release mode: its running pods that the release's pods preempted and whose new pods
    # find no node (:class:`Preempted`), with the workloads that preempted them.
    evicted_pending: int = 0
    evicted_by: list[str] = field(default_factory=list)

    @property
    def replicas(self) -> int:
        e = self.explanation
        if e is None:
            return 0
        if e.workload is not None:
            return e.workload.replicas
        if e.mode == "daemonset":
            return sum(1 for v in e.daemon_nodes if v.targeted)
        return e.replicas_requested

    @property
    def running(self) -> int:
        """Pods of the workload's current template already bound (core/explain/rollout.py)."""
        e = self.explanation
        return e.workload.running if e is not None and e.workload is not None else 0

    def _survivors(self) -> tuple[int, int] | None:
        """After an earlier document's larger count was placed and this one scaled it
        down: the pods that stay (the ReplicaSet deletes the unscheduled ones first), as
        (placed, Pending)."""
        if self.first is None or self.explanation is None or self.explanation.workload is None:
            return None
        keep = self.explanation.workload.replicas
        placed = min(keep, self.first[1])
        return placed, keep - placed

    @property
    def placed(self) -> int:
        survivors = self._survivors()
        if survivors is not None:
            return survivors[0]
        e = self.explanation
        if e is None:
            return 0
        if e.workload is not None:
            return e.workload.placed
        if e.mode == "daemonset":
            return sum(1 for v in e.daemon_nodes if v.fits)
        return e.replicas_placed

    @property
    def wanted(self) -> int:
        """The new pods this run tries to place (a rollout's or scale-up's, not those that run)."""
        e = self.explanation
        if e is None:
            return 0
        if e.mode == "daemonset":
            return sum(1 for v in e.daemon_nodes if v.targeted and not v.running)
        survivors = self._survivors()
        if survivors is not None:
            return sum(survivors)
        end = self._rollout_end()
        if end is not None:
            return end.total
        return e.replicas_requested

    def _rollout_end(self) -> RolloutOutcome | None:
        """A Deployment's or StatefulSet's change played to its end: what the release keeps
        of it is its end state, so its counts are the whole rollout's."""
        e = self.explanation
        w = e.workload if e is not None else None
        if w is None or w.outcome is None or w.outcome.unit != "pod":
            return None
        return w.outcome

    @property
    def pending(self) -> int:
        """Of ``wanted``, the pods created that stay Pending."""
        e = self.explanation
        if e is None:
            return 0
        if e.mode == "daemonset":
            return sum(1 for v in e.daemon_nodes if v.targeted and not v.fits and v.code != FAILED_CREATE)
        survivors = self._survivors()
        if survivors is not None:
            return survivors[1]
        end = self._rollout_end()
        if end is not None:
            return end.pending_at_end()
        return max(0, e.replicas_requested - e.replicas_placed - e.not_created)

    @property
    def not_created(self) -> int:
        """Of ``wanted``, the pods that never exist: refused by the API server (quota), or
        a StatefulSet's ordinals its controller does not create while one before is Pending."""
        e = self.explanation
        if e is None:
            return 0
        if e.mode == "daemonset":
            return sum(1 for v in e.daemon_nodes if v.targeted and v.code == FAILED_CREATE)
        end = self._rollout_end()
        if end is not None:
            return max(0, end.total - end.done - end.pending_at_end())
        return e.not_created

    @property
    def unplaced(self) -> int:
        """Of ``wanted``, the pods that run nowhere: Pending or never created."""
        return self.pending + self.not_created

    @property
    def verdict(self) -> str:
        if self.rejected is not None or self.not_applied is not None:
            return UNSCHEDULABLE
        if self.error is not None or self.explanation is None:
            return ERROR
        survivors = self._survivors()
        if survivors is not None and survivors[1]:
            return PARTIAL if survivors[0] else UNSCHEDULABLE
        if self.explanation.ok:
            # Pods it ran before the release, preempted by it and Pending again: it runs short.
            return PARTIAL if self.evicted_pending else FITS
        return PARTIAL if self.placed > 0 else UNSCHEDULABLE

    @property
    def short_in_a_sample(self) -> bool:
        """It fits in the order shown, but a sampled order leaves some of its pods unplaced."""
        c = self.chance
        return self.verdict == FITS and c is not None and c.skipped is None \
            and c.first_failing(self.workload) is not None

    @property
    def on_schedule(self) -> bool:
        """A CronJob: its pods exist only once its schedule creates a Job."""
        return self.kind == "CronJob"

    @property
    def workload(self) -> str:
        return f"{self.kind}/{self.namespace}/{self.name or '(no name)'}" if self.kind else self.file

    @property
    def fit_error(self) -> str | None:
        """Why the last copy stayed Pending: its FitError, or the scheduling gates that
        keep it out of the queue, or the cycle's error."""
        e = self.explanation
        if e is None or e.mode == "daemonset" or not e.steps:
            return None
        last = e.steps[-1]
        if last.gated is not None:
            gates = "; ".join(last.gated) or "it has scheduling gates"
            return f"gated: PreEnqueue keeps the pod out of the scheduling queue ({gates})"
        return last.fit_error or last.error

    def message(self) -> str:
        """The verdict line's text after the workload."""
        text = self._message()
        if self.alone is not None and self.after:
            verdict, placed = self.alone
            head = "fits alone" if verdict == FITS else f"alone {placed} of {self.wanted} new pod(s) fit"
            text = f"{head}; not after {', '.join(self.after)}: {text}"
        e = self.explanation
        if e is not None and e.preempted:
            names = ", ".join(e.preempted[:3]) + (f" and {len(e.preempted) - 3} more" if len(e.preempted) > 3 else "")
            text += f"; after preempting {len(e.preempted)} pod(s) of other workloads ({names})"
        if e is not None and e.replicas_from and (e.workload is None or e.workload.rule == "new"):
            text += f" [{e.replicas_from}]"
        if self.first is not None:
            count, placed = self.first
            text += (f"; its earlier document was applied first: {count} replica(s), {placed} placed, then scaled "
                     f"down by this one (the ReplicaSet's deletion ranking chose which stay)")
        if self.hpa_sync is not None:
            applied, scaled, hpa = self.hpa_sync
            text += (f"; kubectl apply set replicas {applied} first (its controller deleted {self.reset_deleted} "
                     f"pod(s)), then "
                     f"HorizontalPodAutoscaler {hpa}'s next sync set {scaled}: placed after the release's other pods")
        if self.evicted_pending:
            text += (f"; {self.evicted_pending} of its running pod(s) preempted by {', '.join(self.evicted_by)} "
                     "and Pending again")
        chance = self.chance.words(self.workload, self.unplaced) if self.chance is not None else None
        if chance:
            text += f"; {chance}"
        return text

    def _message(self) -> str:
        v = self.verdict
        e = self.explanation
        if self.rejected is not None:
            return f"doesn't run: {self.rejected}"
        if self.not_applied is not None:
            return f"not applied: {self.not_applied} (the running {self.kind} stays as it is)"
        if v == ERROR or e is None:
            return f"error: {self.error}"
        w = e.workload
        if w is not None and w.rule == "new" and e.mode != "daemonset" and e.replicas_requested == 0:
            return f"nothing to place: {w.note}"
        if w is not None and w.outcome is not None:
            # A change to a running workload, run to its end: it completes or gets stuck.
            return ("fits: " if v == FITS else "doesn't fit: ") + f"{w.rule} — {w.outcome.summary()}"
        if w is not None and w.rule != "new":
            text = f"{w.rule} — {w.note}"
            if v == FITS:
                nodes = sorted({s.selected_node for s in e.steps if s.selected_node})
                where = ", ".join(nodes[:5]) + (f" (+{len(nodes) - 5} more)" if len(nodes) > 5 else "")
                return f"fits: {text}" + (f" (on {where})" if where and e.mode != "daemonset" else "")
            if e.mode == "daemonset":
                bad = [d for d in e.daemon_nodes if d.targeted and not d.fits]
                return f"doesn't fit: {text}; {_daemon_shortfall(bad)}"
            return f"doesn't fit: {text}; then: {self.fit_error}"
        if e.mode == "daemonset":
            bad = [d for d in e.daemon_nodes if d.targeted and not d.fits]
            text = f"runs on {self.placed} of {self.replicas} targeted node(s)"
            if bad:
                text += f"; {_daemon_shortfall(bad)}"
            return ("fits: " if v == FITS else "doesn't fit: ") + text
        if v == FITS:
            nodes = sorted({s.selected_node for s in e.steps if s.selected_node})
            where = ", ".join(nodes[:5]) + (f" (+{len(nodes) - 5} more)" if len(nodes) > 5 else "")
            if self.replicas == 1:
                return f"fits (best: {where})"
            return f"fits {self.replicas} of {self.replicas} replicas (on {where})"
        # The copies after the Pending one that never exist, and why.
        later = f"; the {e.not_created} after it not created ({e.not_created_why})" if e.not_created_why else ""
        if v == PARTIAL:
            return f"fits {self.placed} of {self.replicas} replicas; then: {self.fit_error}{later}"
        return f"doesn't fit: {self.fit_error or (e.steps[-1].error if e.steps else '')}{later}"

    def to_json(self, detail: bool = True) -> dict[str, Any]:
        """The entry as JSON; without ``detail`` its cycles leave out their per-node tables
        (``CycleResult.to_json``'s ``tables``)."""
        out: dict[str, Any] = {
            "file": self.file, "kind": self.kind, "namespace": self.namespace, "name": self.name,
            "verdict": self.verdict, "replicas": self.replicas, "running": self.running, "placed": self.placed,
            "message": self.message(), "priority": self.priority, "new": self.wanted, "pending": self.pending,
            "notCreated": self.not_created, "unplaced": self.unplaced,
        }
        if self.evicted_pending:
            out["evictedPending"] = self.evicted_pending
        if self.first is not None:
            out["appliedFirst"] = {"replicas": self.first[0], "placed": self.first[1], "stayOn": list(self.first_stay)}
        if self.hpa_sync is not None:
            out["hpaAfterApply"] = {"applied": self.hpa_sync[0], "hpa": self.hpa_sync[1], "name": self.hpa_sync[2],
                                    "deleted": self.reset_deleted}
        if self.chance is not None and not self.on_schedule:
            out.update(self.chance.entry_json(self.workload))
        if self.not_created:
            out["notCreated"] = self.not_created
        if self.explanation is not None and self.explanation.preempted:
            out["preempted"] = list(self.explanation.preempted)
        if self.explanation is not None and self.explanation.replicas_from:
            out["replicasFrom"] = self.explanation.replicas_from
        if self.alone is not None:
            out["alone"] = {"verdict": self.alone[0], "placed": self.alone[1], "notAfter": list(self.after)}
        if self.error is not None:
            out["error"] = self.error
        if self.rejected is not None:
            out["rejected"] = self.rejected
        if self.not_applied is not None:
            out["notApplied"] = self.not_applied
        if self.replaces:
            out["replaces"] = [{"file": r.file, "document": r.document, "identical": r.identical,
                                **({"refused": r.refused} if r.refused is not None else {})}
                               for r in self.replaces]
        if self.explanation is not None:
            out["explanation"] = self.explanation.to_json(tables=detail)
        return out


# The controllers that create a preempted pod again (a DaemonSet's pod is recreated on its
# node, where the preemptor now runs: left out).
RECREATING = ("ReplicaSet", "ReplicationController", "StatefulSet", "Job")


@dataclass
class Preempted:
    """A pod of another workload a release's pod preempted, and what became of the pod
    its controller creates again."""

    pod: str  # namespace/name
    node: str
    by: str  # the release's workload whose pod evicted it
    owner: str | None = None  # KIND/NAME of the controller that creates it again
    placed_on: str | None = None
    why: str | None = None  # why its replacement stays Pending or is not created
    # The workload it belongs to (KIND/NAMESPACE/NAME: a ReplicaSet's Deployment).
    workload: str | None = None

    @property
    def pending(self) -> bool:
        """Its controller creates it again and the new pod finds no node: a pod the cluster
        ran before the release and runs no more."""
        return self.owner is not None and self.placed_on is None

    def line(self) -> str:
        head = f"Preempted by {self.by}: {self.pod} on {self.node}"
        if self.owner is None:
            return f"{head}; no controller creates it again"
        if self.placed_on is not None:
            return f"{head}; its {self.owner} creates it again, placed on {self.placed_on}"
        return f"{head}; its {self.owner} creates it again, Pending: {self.why}"

    def to_json(self) -> dict[str, Any]:
        return {"pod": self.pod, "node": self.node, "by": self.by, "recreatedBy": self.owner,
                "workload": self.workload, "placedOn": self.placed_on, "pending": self.pending, "reason": self.why}


@dataclass
class Replaced:
    """A document of the run for an object that another document of the run names too:
    ``kubectl apply -f`` applies both in order, so the later one (``by``) is what the
    object ends as, and this one places no pod. With ``refused``, this is the later
    document, whose update of a Pod the API server refuses: the pod stays as the earlier
    one (``by``) created it."""

    workload: str
    file: str
    document: int | None
    by: str
    by_document: int | None
    identical: bool
    refused: str | None = None

    def where(self) -> str:
        return _document_place(self.file, self.document)

    def line(self) -> str:
        """One line naming the replaced document and the one that replaces it."""
        other = _document_place(self.by, self.by_document)
        if self.refused is not None:
            return f"{self.workload} in {self.where()}: not applied over the earlier document in {other}: {self.refused}"
        later = "an identical later document" if self.identical else "the later document"
        return f"{self.workload} in {self.where()}: replaced by {later} in {other}"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"workload": self.workload, "file": self.file, "document": self.document,
                               "replacedBy": {"file": self.by, "document": self.by_document},
                               "identical": self.identical}
        if self.refused is not None:
            out = {**{k: v for k, v in out.items() if k != "replacedBy"},
                   "keptBy": {"file": self.by, "document": self.by_document}, "refused": self.refused}
        return out


def _document_place(file: str, document: int | None) -> str:
    return f"{file} (document {document})" if document is not None else file


# What the replaced documents' note says first (table, markdown, HTML).
REPLACED_NOTE = ("Named twice (kubectl apply -f applies both in order: the later one stands unless the API server "
                 "refuses it; the other places no pod of its own)")


@dataclass
class CheckReport:
    entries: list[CheckEntry] = field(default_factory=list)
    # The kube-scheduler release the run reproduced.
    kubernetes_version: str | None = None
    # Files not checked, with why: (path, reason).
    skipped: list[tuple[str, str]] = field(default_factory=list)
    # Objects of the checked files laid over the cluster first (KIND/NS/NAME).
    overlaid: list[str] = field(default_factory=list)
    # Helm chart sources and kustomize inputs left out, with the command that renders
    # each: (folder, note); and per --exclude GLOB the number of files it left out.
    skipped_folders: list[tuple[str, str]] = field(default_factory=list)
    excluded: list[tuple[str, int]] = field(default_factory=list)
    # RELEASE (the entries in the order they were placed) or SEPARATELY.
    mode: str = RELEASE
    # Release mode: the pods of other workloads the release's pods preempted.
    preempted: list[Preempted] = field(default_factory=list)
    # Documents a later document of the run replaces (the same object named twice).
    replaced: list[Replaced] = field(default_factory=list)
    # check -o json: the per-node tables of every cycle too (--detail).
    detail: bool = True
    # Release mode: the orders and scan draws sampled besides the order shown.
    chance: OrderChance | None = None

    @property
    def release_verdict(self) -> str:
        """The release's verdict: every new pod placed, some, none, or an input error."""
        if any(e.verdict == ERROR for e in self.entries):
            return ERROR
        applied = [e for e in self.entries if not e.on_schedule]
        if all(e.verdict == FITS for e in applied):
            # Running pods it preempted that find no node again: the cluster runs less.
            return PARTIAL if self.evicted_pending else FITS
        placed = sum(e.wanted - e.unplaced for e in applied)
        return PARTIAL if placed > 0 else UNSCHEDULABLE

    @property
    def evicted_pending(self) -> int:
        """Running pods the release's pods preempted whose controllers' new pods stay Pending."""
        return sum(1 for p in self.preempted if p.pending)

    def release_json(self) -> dict[str, Any]:
        checked = [e for e in self.entries if e.explanation is not None]
        applied = [e for e in checked if not e.on_schedule]
        wanted = sum(e.wanted for e in applied)
        pending = sum(e.pending for e in applied)
        not_created = sum(e.not_created for e in applied)
        return {
            "order": [e.workload for e in checked], "orderedBy": ORDER_RULE, "verdict": self.release_verdict,
            "counts": {"workloads": len(self.entries), **self.counts()},
            "pods": {"new": wanted, "placed": wanted - pending - not_created, "pending": pending,
                     "notCreated": not_created},
            "unplacedTotal": pending + not_created + self.evicted_pending,
            "evictedPending": self.evicted_pending,
            **({"chance": self.chance.to_json()} if self.chance is not None else {}),
            "pending": [{"workload": e.workload, "pods": e.pending} for e in applied if e.pending],
            "notCreated": [{"workload": e.workload, "pods": e.not_created} for e in applied if e.not_created],
            "onSchedule": [e.workload for e in checked if e.on_schedule],
            "preempted": [p.to_json() for p in self.preempted],
        }

    def release_line(self) -> str:
        """The release's verdict in words (table, markdown, HTML), with what the sampled
        orders change."""
        line = self._release_line()
        c = self.chance
        if c is None or c.skipped is not None or not c.samples:
            return line
        totals = c.totals
        n = len(c.samples)
        varying = [e.workload for e in self.entries if not e.on_schedule and c.varies(e.workload)]
        if c.exact:
            return f"{line}; the same in every order (no cycle's choice was left to chance)"
        if not varying:
            return f"{line}; the same in all {n} sampled orders (seed {c.seed})"
        low, high = min(totals), max(totals)
        ranges = ", ".join(f"{w} {'–'.join(map(str, sorted(set(c.unplaced_range(w)))))}" for w in varying)
        total = f"the total stays {low}" if low == high else f"the total is {low}–{high}"
        if sum(c.shown.values()) == 0:
            fails = sum(1 for s in c.samples if s.total)
            k = next(i for i, s in enumerate(c.samples, 1) if s.total)
            return (f"{line}; but not in every order: {fails} of {n} sampled orders (seed {c.seed}) leave pods "
                    f"unplaced ({ranges}), e.g. sample {k} ({c.describe(k)})")
        return (f"{line}; which workloads go short depends on the order the controllers create pods and on the "
                f"scheduler's draws: over {n} sampled orders (seed {c.seed}) {total}, per workload {ranges}")

    def _release_line(self) -> str:
        r = self.release_json()
        pods = r["pods"]
        v = self.release_verdict
        if v == ERROR:
            return f"Release: error — {r['counts'][ERROR]} file(s) or workload(s) could not be checked"
        displaced = ""
        if self.preempted:
            again = sum(1 for p in self.preempted if p.owner is not None and p.placed_on is None)
            displaced = (f"; {len(self.preempted)} pod(s) of other workloads preempted"
                         + (f", {again} of them Pending again" if again else ""))
        if v == FITS and not pods["new"]:
            return f"Release: fits — nothing new to place for its {len(self.entries)} workload(s){displaced}"
        if v == FITS:
            return (f"Release: fits — all {pods['new']} new pod(s) of {len(self.entries)} workload(s) placed "
                    f"together{displaced}")
        refused = [e.workload for e in self.entries if e.rejected is not None or e.not_applied is not None]
        short = len({p["workload"] for p in [*r["pending"], *r["notCreated"]]} | set(refused)
                    | {e.workload for e in self.entries if e.evicted_pending})
        missing = f", {pods['notCreated']} not created" if pods["notCreated"] else ""
        parts = [f"{pods['pending']} of {pods['new']} new pod(s) stay Pending{missing}"] \
            if pods["pending"] or pods["notCreated"] else [f"all {pods['new']} new pod(s) placed"] if pods["new"] else []
        if self.evicted_pending:
            # The cluster's own pods the release pushed out for good count as its shortfall.
            parts.append(f"{self.evicted_pending} running pod(s) of the cluster preempted and Pending again")
        if refused:
            parts.append(f"{len(refused)} workload(s) refused by the API server")
        return (f"Release: {VERDICT_WORDS[v]} — {'; '.join(parts)} "
                f"({short} of {len(self.entries)} workload(s) short){displaced}")

    @property
    def exit_code(self) -> int:
        """SPEC: 0 every manifest fits, 1 at least one doesn't, 2 an input error."""
        verdicts = {e.verdict for e in self.entries}
        if ERROR in verdicts:
            return 2
        if verdicts - {FITS} or self.evicted_pending:
            return 1
        # A release or workload that fits in the order shown but not in a sampled one.
        chances = [self.chance] if self.chance is not None else [e.chance for e in self.entries]
        if any(c is not None and c.skipped is None and any(s.total for s in c.samples) for c in chances):
            return 1
        return 0

    def counts(self) -> dict[str, int]:
        """How many entries have each verdict."""
        return {k: sum(1 for e in self.entries if e.verdict == k) for k in (FITS, PARTIAL, UNSCHEDULABLE, ERROR)}

    def to_json(self, detail: bool = True) -> dict[str, Any]:
        """The report as JSON (``check -o json``); without ``detail`` each cycle leaves out its
        per-node tables (``--detail`` keeps them)."""
        detail = detail and self.detail
        out: dict[str, Any] = {"mode": self.mode, "results": [e.to_json(detail) for e in self.entries],
                               "summary": self.counts(),
                               "skipped": [{"file": f, "reason": r} for f, r in self.skipped],
                               "overlaid": list(self.overlaid),
                               "skippedFolders": [{"folder": f, "reason": r} for f, r in self.skipped_folders],
                               "excluded": [{"glob": g, "files": n} for g, n in self.excluded],
                               "replaced": [r.to_json() for r in self.replaced]}
        if self.mode == RELEASE:
            out["release"] = self.release_json()
        if self.kubernetes_version is not None:
            out["kubernetesVersion"] = self.kubernetes_version
        return out


@without_gc_frozen  # as the cycles themselves: no collection between documents either
def check_paths(
    paths: list[str],
    objects: ClusterObjects,
    *,
    namespace: str | None = None,
    options: Options | None = None,
    config: str | None = None,
    source: str = "the cluster",
    exclude: list[str] | None = None,
    exclude_globs: list[str] | None = None,
    separately: bool = False,
) -> CheckReport:
    """Check every pod-bearing document of ``paths``, as one release (the default) or each
    alone (``separately``). Files that hold none, or no Kubernetes objects at all, are
    skipped (and listed); so are Helm chart sources, kustomize inputs, unrendered templates
    and files matching ``exclude_globs`` (core/load/repo.py); the cluster dumps (``exclude``)
    are never checked; the other
    objects of the files that scheduling reads are laid over the cluster first, as
    ``kubectl apply -f`` of the files would create them."""
    # The release is chosen once for the run; a bad version, feature gate, configuration or
    # Policy fails the run, not each document.
    options = resolve_version(options, objects, source)
    # --samples and --seed are the release's (the orders sampled), not each workload's chains.
    samples, seed = options.samples, options.seed
    options = replace(options, samples=None)
    load_profiles(config, options)
    report = CheckReport(kubernetes_version=options.version.name if options.version is not None else None,
                         mode=SEPARATELY if separately else RELEASE)
    walk = walk_repository(paths, exclude, exclude_globs)
    files = walk.files
    report.skipped.extend((f, "the cluster dump (--snapshot/--cluster)") for f in walk.dumps)
    report.skipped_folders, report.excluded = walk.folders, walk.excluded
    todo: list[ManifestFile] = []
    overlay: list[Dict] = []
    claim_files: dict[tuple[str, str], str] = {}
    for k, path in enumerate(files):
        report_progress(f"reading {path} ({k + 1} of {len(files)})", k, len(files))
        try:
            manifest = read_manifest(path)
        except InputError as e:
            report.entries.append(CheckEntry(path, error=str(e)))
            continue
        overlay.extend(manifest.overlay)
        for o in manifest.overlay:
            if o.get("kind") == "PersistentVolumeClaim":
                meta = o.get("metadata") or {}
                claim_files[(str(meta.get("namespace") or namespace or "default"), str(meta.get("name")))] = path
        if manifest.skipped is not None:
            report.skipped.append((path, manifest.skipped))
        else:
            todo.append(manifest)
    try:
        live = objects
        objects, report.overlaid = lay_over(objects, overlay, namespace)
        hpa_status_as_applied(live, objects)
    except InputError as e:
        report.entries.append(CheckEntry(", ".join(files), error=str(e)))
        return report
    # The files' claims are created through admission (a default class, limits, quotas) and
    # the PV controller (Immediate ones bound before their pods are scheduled). In a release
    # the same admission goes on to the workloads, so their quota usage adds up.
    admission = Admission(objects, options.version)
    refusals, volumes = admit_claims(objects, report.overlaid, admission)
    for ns, name, refusal in refusals:
        report.entries.append(CheckEntry(claim_files.get((ns, name), ", ".join(files)), "PersistentVolumeClaim", ns,
                                         name, rejected=refusal.detail))
    docs = _documents(todo, objects, live, namespace)
    # One snapshot for every document; when a workload runs already, the pods are indexed
    # by controller while it is built (the plans of its change read them).
    runs = any_may_run(objects, [(entry.kind, entry.namespace, entry.name) for _, _, entry in docs])
    try:
        snapshot = build_snapshot(objects, index_controllers=runs)
    except (QuantityError, SelectorError) as e:
        raise InputError(str(e), path=source) from None
    # Documents with equal node-relevant fields (requests, tolerations, node affinity, ...)
    # share their node-local plugin answers (core/framework/shared_answers.py).
    share(snapshot)
    # Per-run context: state of the API server's admission that accumulates over the
    # documents of a release (ResourceQuota usage), passed to every explain_object call of
    # the release; a document checked on its own (--separately, or a workload checked alone
    # on the cluster as loaded by _check_alone) gets a fresh admission of its own.
    per_run: dict[str, Any] = {} if separately else {"admission": admission}
    if separately:
        # Each document lays its own objects over the shared snapshot and takes its placed
        # copies off again, so documents never see each other.
        for done, (path, obj, entry) in enumerate(docs):
            report_progress(f"checking {path} ({done + 1} of {len(docs)})", done, len(docs))
            if entry.rejected is None:
                entry.not_applied = _update_of_running(obj, objects, entry)
            if entry.rejected is not None or entry.not_applied is not None:
                report.entries.append(entry)
                continue
            args: dict[str, Any] = dict(namespace=namespace, options=options, config=config, source=source,
                                        volumes=volumes, provide_volumes=True, preempt=True)
            try:
                entry.explanation = explain_object(obj, path, objects, replicas="auto", snapshot=snapshot,
                                                   **args, **per_run)
            except Refused as e:
                entry.rejected = e.detail
            except InputError as e:
                entry.error = str(e)
            if entry.explanation is not None:
                # Alone, only the scheduler's draws are left to chance: the workload's own.
                shown = _Played([entry], [], [], objects, snapshot.objects)
                entry.chance = _sample(shown, [(path, obj, entry)], objects, snapshot, {}, {}, args, samples, seed)
            report.entries.append(entry)
    else:
        # A release applies every document: the same object twice ends as the later one.
        docs, earlier = _latest_documents(docs, report)
        entries, report.chance = _place_release(docs, objects, snapshot, per_run, report.preempted, earlier,
                                                samples, seed, namespace=namespace, options=options,
                                                config=config, source=source, volumes=volumes,
                                                provide_volumes=True, preempt=True)
        report.entries.extend(entries)
        for entry in entries:
            entry.chance = report.chance
    if not report.entries:
        files = [f"{f}: {why}" for f, why in report.skipped]
        if len(files) > 5:  # a whole repository's worth: the first few, then how many more
            files = [*files[:5], f"{len(files) - 5} more file(s)"]
        names = "; ".join([*(f"{f}: {why}" for f, why in report.skipped_folders), *files,
                           *(f"--exclude {g}: {n} file(s)" for g, n in report.excluded)])
        raise InputError(f"no Pod or workload to check (skipped {names})", path=", ".join(paths))
    return report


def _documents(todo: list[ManifestFile], objects: ClusterObjects, live: ClusterObjects,
               namespace: str | None) -> list[tuple[str, Dict, CheckEntry]]:
    """Every pod-bearing document with its entry (and its pod priority), in creation
    order: the files' order, documents in order."""
    classes = priority_classes(objects)
    namespaces = _Namespaces(live, objects)
    out: list[tuple[str, Dict, CheckEntry]] = []
    for manifest in todo:
        numbers: list[int | None] = list(manifest.documents) or [None] * len(manifest.workloads)
        for obj, number in zip(manifest.workloads, numbers, strict=True):
            # A malformed metadata is reported by the document's own run, in the API server's words.
            meta: Dict = obj["metadata"] if isinstance(obj.get("metadata"), dict) else {}
            entry = CheckEntry(manifest.path, str(obj.get("kind")), namespace or meta.get("namespace") or "default",
                               meta.get("name") or meta.get("generateName"), number)
            entry.rejected = _namespace_lifecycle(entry, namespaces)
            entry.priority = _priority(obj, classes)
            out.append((manifest.path, obj, entry))
    return out


# The group-qualified resource of each pod-bearing kind, as the API server names it.
_RESOURCES = {"Pod": "pods", "Deployment": "deployments.apps", "ReplicaSet": "replicasets.apps",
              "StatefulSet": "statefulsets.apps", "DaemonSet": "daemonsets.apps", "Job": "jobs.batch",
              "CronJob": "cronjobs.batch", "ReplicationController": "replicationcontrollers",
              "PodTemplate": "podtemplates"}


# The namespaces the API server creates and never lets go (NamespaceLifecycle's immortal ones).
IMMORTAL_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")


class _Namespaces:
    """The namespaces known to exist, when the cluster source lists Namespaces (else it
    can't tell, and every namespace passes): those listed there or created by the files
    (``objects``: the cluster with the files laid over), the immortal ones, and any that
    holds an object of the cluster source (``live``; looked for only when a workload names
    a namespace not listed, as a scan of every pod costs)."""

    def __init__(self, live: ClusterObjects, objects: ClusterObjects) -> None:
        self.live = live
        self.known = bool(live.of("Namespace"))
        self.listed = {str((n.get("metadata") or {}).get("name")): n for n in objects.of("Namespace")}
        for ns in IMMORTAL_NAMESPACES:
            self.listed.setdefault(ns, {})
        self._held: set[str] | None = None

    def get(self, ns: str) -> Dict | None:
        """The Namespace (an empty one when only known to exist), None when it doesn't exist."""
        if not self.known:
            return {}
        found = self.listed.get(ns)
        if found is not None:
            return found
        if self._held is None:
            self._held = set()
            for kind, items in self.live.by_kind.items():
                if kind in ("Namespace", "Node"):
                    continue
                for o in items:
                    meta = o.get("metadata")
                    held = meta.get("namespace") if isinstance(meta, dict) else None
                    if isinstance(held, str):
                        self._held.add(held)
        return {} if ns in self._held else None


def _namespace_lifecycle(entry: CheckEntry, namespaces: _Namespaces) -> str | None:
    """NamespaceLifecycle admission: nothing is created in a namespace that does not exist
    (neither in the cluster nor in the files) or is being deleted."""
    ns = entry.namespace or "default"
    found = namespaces.get(ns)
    if found is None:
        return f'namespaces "{ns}" not found'
    if (found.get("metadata") or {}).get("deletionTimestamp") or (found.get("status") or {}).get("phase") == \
            "Terminating":
        resource = _RESOURCES.get(entry.kind or "", (entry.kind or "objects").lower() + "s")
        return (f'{resource} "{entry.name}" is forbidden: unable to create new content in namespace {ns} because '
                "it is being terminated")
    return None


def _latest_documents(docs: list[tuple[str, Dict, CheckEntry]],
                      report: CheckReport) -> tuple[list[tuple[str, Dict, CheckEntry]], dict[int, list[Dict]]]:
    """The documents that define their objects, each where its pods reach the queue. Of
    several documents naming the same object (kind, namespace, metadata.name), each one
    applied over the one before replaces it — but an update that changes what the API
    server keeps immutable is refused, and the object stays as it was
    (core/explain/updates.py). The others go to ``report.replaced``.

    The defining document takes the place of the first one whose pods are the ones that
    stay: a Pod is created by the first document; a workload's pods by the first document
    from which on neither the pod template changes (new pods, created at that apply) nor
    the replica count grows (the pods it adds are created at that apply: the workload
    then takes that later place, as a whole). Returned besides, per defining entry (by
    id), the documents applied before it, in order."""
    groups: dict[tuple[str, str, str], list[int]] = {}
    for i, (_, obj, entry) in enumerate(docs):
        meta = obj.get("metadata")
        if isinstance(meta, dict) and isinstance(meta.get("name"), str) and meta["name"]:
            groups.setdefault((str(entry.kind), str(entry.namespace), meta["name"]), []).append(i)
    if all(len(g) == 1 for g in groups.values()):
        return docs, {}
    gone: dict[int, Replaced] = {}
    earlier: dict[int, list[Dict]] = {}
    moved: dict[int, int] = {}  # position -> the defining document placed there
    for indexes in groups.values():
        current = since = indexes[0]
        before: list[Dict] = []
        for later in indexes[1:]:
            (_, old, at), (_, new, by) = docs[current], docs[later]
            refusal = update_refusal(old, new)
            if refusal is not None:
                gone[later] = Replaced(by.workload, by.file, by.document, at.file, at.document, False, refusal)
                at.replaces.append(gone[later])
                continue
            gone[current] = Replaced(at.workload, at.file, at.document, by.file, by.document, old == new)
            by.replaces.extend([*at.replaces, gone[current]])
            before.append(old)
            if new.get("kind") != "Pod" and (_pod_template(old) != _pod_template(new) or _more_pods(old, new)):
                since = later
            current = later
        if before:
            earlier[id(docs[current][2])] = before
        if since != current:
            moved[since] = current
    report.replaced.extend(gone[i] for i in sorted(gone))
    placed = set(moved.values())
    return [docs[moved.get(i, i)] for i in range(len(docs)) if i in moved or (i not in gone and i not in placed)], \
        earlier


def _more_pods(old: Dict, new: Dict) -> bool:
    """Whether ``new`` asks for a higher spec.replicas than ``old`` (a missing count: the
    default 1, or what the cluster keeps; only a written higher one counts as growth)."""
    a, b = _written_replicas(old), _written_replicas(new)
    return b is not None and (a is None or b > a)


def _written_replicas(obj: Dict) -> int | None:
    """The document's own spec.replicas, None when it writes none (or no integer)."""
    value = obj["spec"].get("replicas") if isinstance(obj.get("spec"), dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _pod_template(obj: Dict) -> Any:
    """The pod template of a workload document (a CronJob's Job template)."""
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return None
    return spec.get("jobTemplate") if obj.get("kind") == "CronJob" else spec.get("template")


def _pod_spec(obj: Dict) -> Dict:
    """The spec of the pods a workload's controller creates (a Pod's own)."""
    cur: Any = obj.get("spec")
    if obj.get("kind") != "Pod":
        path = ("jobTemplate", "spec", "template", "spec") if obj.get("kind") == "CronJob" else ("template", "spec")
        for key in path:
            cur = cur.get(key) if isinstance(cur, dict) else None
    return cur if isinstance(cur, dict) else {}


def _priority(obj: Dict, classes: dict[str, Dict]) -> int:
    """The priority Priority admission gives the workload's pods (0 when their class is
    unknown: the document's own run then reports the rejection)."""
    try:
        return resolve_priority(dict(_pod_spec(obj)), classes)[0]
    except (InputError, LookupError, TypeError, ValueError):
        return 0


def _queue_key(doc: tuple[str, Dict, CheckEntry]) -> tuple[bool, int]:
    """The queue's order of a release's documents (sorted stably: creation order among
    equals); CronJobs last (their Jobs come later)."""
    return doc[2].on_schedule, -doc[2].priority


def _place_release(
    docs: list[tuple[str, Dict, CheckEntry]],
    objects: ClusterObjects,
    snapshot: Snapshot,
    per_run: dict[str, Any],
    preempted: list[Preempted],
    earlier: dict[int, list[Dict]],
    samples: int | None = None,
    seed: int = 0,
    **kwargs: Any,
) -> tuple[list[CheckEntry], OrderChance | None]:
    """Place the documents one workload after another in the queue's order, each one's new
    pods left bound for the next (see the module's docstring); then the pods of other
    workloads they preempted, as their controllers create them again (``preempted``).
    ``samples`` (None: as :func:`_samples_for` decides): the orders and scan draws played
    besides (core/explain/orders.py)."""
    ordered = sorted(docs, key=_queue_key)
    play = _play(ordered, objects, snapshot, per_run, earlier, kwargs, alone=True)
    chance = _sample(play, ordered, objects, snapshot, per_run, earlier, kwargs, samples, seed)
    victims = [(pi, owner) for run, owner in zip(play.kept, play.owners, strict=True) for pi in run.preempted]
    again = _recreate_preempted(victims, play.current, snapshot, per_run, kwargs)
    preempted.extend(again)
    # A workload of the release whose running pods were preempted and find no node again
    # runs short (an unchanged one too: nothing new of it, yet fewer of its pods run).
    by_workload = {e.workload: e for e in play.entries}
    for p in again:
        entry = by_workload.get(p.workload or "")
        if entry is not None and p.pending:
            entry.evicted_pending += 1
            if p.by not in entry.evicted_by:
                entry.evicted_by.append(p.by)
    return play.entries, chance


def _take_off(snapshot: Snapshot, runs: list[Kept]) -> None:
    """Undo ``runs`` on the snapshot, the last first: their pods off, the pods their
    controllers deleted back."""
    for run in reversed(runs):
        for p in run.bound:
            snapshot.remove_pod(p)
        for p in run.removed:
            snapshot.add_pod(p)


def _put_back(snapshot: Snapshot, runs: list[Kept]) -> None:
    """Redo ``runs`` after :func:`_take_off`, in their order."""
    for run in runs:
        for p in run.removed:
            snapshot.remove_pod(p)
        for p in run.bound:
            snapshot.add_pod(p)


@dataclass
class _Played:
    """One release played on the shared snapshot: its entries in the order placed, what
    each left bound (``kept``, ``owners``: the workloads) and the objects it ended with."""

    entries: list[CheckEntry]
    kept: list[Kept]
    owners: list[str]
    current: ClusterObjects
    # snapshot.objects before the release, and the admission's quota ledger then.
    base_objects: ClusterObjects
    ledger: Any = None

    def undo(self, snapshot: Snapshot, per_run: dict[str, Any]) -> None:
        """Take the release off the snapshot again: the cluster as loaded."""
        _take_off(snapshot, self.kept)
        snapshot.objects = self.base_objects
        admission = per_run.get("admission")
        if admission is not None and self.ledger is not None:
            admission.ledger.restore(self.ledger)

    def redo(self, snapshot: Snapshot, final_objects: ClusterObjects, final_ledger: Any,
             per_run: dict[str, Any]) -> None:
        """Put the release back as :meth:`undo` found it."""
        _put_back(snapshot, self.kept)
        snapshot.objects = final_objects
        admission = per_run.get("admission")
        if admission is not None and final_ledger is not None:
            admission.ledger.restore(final_ledger)


@dataclass
class _Chance:
    """The scheduler's chance through a sampled release: the random source of ties and
    the next cycle's start index, moving on by the nodes each cycle processed."""

    rng: random.Random
    start: int
    num_nodes: int
    # Some cycle's choice depended on the draw (a window short of the feasible nodes, a tie),
    # or ran where its draw is not seen (a rollout's cycles).
    drawn: bool = False

    def options(self, options: Options | None) -> Options:
        return replace(options or Options(), scan_start=self.start, rng=self.rng, odds=False, samples=None)

    def move_on(self, explanation: Explanation | None) -> None:
        if explanation is not None and explanation.workload is not None and explanation.workload.outcome is not None:
            self.drawn = True
        for step in explanation.steps if explanation is not None else []:
            if step.draw is not None:
                self.start = (self.start + step.draw.processed) % max(self.num_nodes, 1)
                self.drawn = self.drawn or not step.draw.whole or step.draw.tied > 1


def _play(ordered: list[tuple[str, Dict, CheckEntry]], objects: ClusterObjects, snapshot: Snapshot,
          per_run: dict[str, Any], earlier: dict[int, list[Dict]], kwargs: dict[str, Any], *, alone: bool,
          chance: _Chance | None = None) -> _Played:
    """Place ``ordered`` one workload after another, each one's pods left bound for the
    next. ``alone``: a workload that goes short is checked alone too (the order shown);
    ``chance``: the cycles draw their scan start and ties (a sample)."""
    admission = per_run.get("admission")
    played = _Played([], [], [], ClusterObjects(defaultdict(list, objects.by_kind), objects.skipped_kinds,
                                                defaultdict(list, objects.workloads), objects.server_version,
                                                early_pods=objects.early_pods),
                     snapshot.objects, admission.ledger.saved() if admission is not None else None)
    # The release's objects, growing workload by workload (``objects`` stays the cluster as
    # loaded, for the workloads checked alone).
    current = played.current
    steps = _steps(ordered, objects, earlier, kwargs.get("namespace"), chance.rng if chance is not None else None)
    reset_runs: dict[int, Kept] = {}
    first_runs: dict[int, Kept] = {}
    for done, (path, obj, entry, phase) in enumerate(steps):
        report_progress(f"placing the release: {path} ({done + 1} of {len(steps)})", done, len(steps))
        if phase != SYNC and entry.rejected is None:
            entry.not_applied = _update_of_running(obj, objects, entry)
        if entry.rejected is not None or entry.not_applied is not None or entry.error is not None:
            if phase != SYNC:  # never created, or not applied
                played.entries.append(entry)
            continue
        run = Kept()
        args = dict(kwargs, options=chance.options(kwargs.get("options"))) if chance is not None else kwargs
        on = current
        if phase == APPLY and id(entry) in first_runs:
            # The earlier document's pods exist: its apply scales them down.
            on = _with_pods(current, first_runs[id(entry)].bound)
        if phase == SYNC:
            # The HPA's sync plans from what the apply left: the pods its controller
            # deleted are gone from the objects it reads too.
            gone = {pi.uid for pi in reset_runs[id(entry)].removed}
            on = _without_pods(current, gone)
        before = earlier.get(id(entry), ())
        try:
            entry.explanation = explain_object(obj, path, on, replicas="auto", snapshot=snapshot, keep=run,
                                               applied_before=before[:-1] if phase == FIRST else before,
                                               hpa=phase != RESET, **args, **per_run)
        except Refused as e:
            entry.rejected = e.detail
        except InputError as e:
            entry.error = str(e)
        if chance is not None:
            chance.move_on(entry.explanation)
        # What the workload added to the cluster's objects (its ReplicaSet or StatefulSet,
        # claims) stays for the next, under the same pod list (whose indexes are built once).
        _carry(current, snapshot.objects)
        if entry.on_schedule:
            # Nothing of it exists once the release is applied: checked, then taken off.
            _take_off(snapshot, [run])
            run = Kept()
        played.kept.append(run)
        played.owners.append(entry.workload)
        if phase == APPLY and id(entry) in first_runs:
            gone = {p.uid for p in run.removed}
            entry.first_stay = sorted(p.node_name for p in first_runs[id(entry)].bound if p.uid not in gone)
        if phase == FIRST:
            first_runs[id(entry)] = run
            if entry.explanation is not None and entry.rejected is None and entry.error is None:
                entry.first = (entry.explanation.replicas_requested, len(run.bound))
            entry.explanation = None
            entry.rejected = entry.error = None
            continue
        if phase == RESET:
            reset_runs[id(entry)] = run
            entry.reset_deleted = len(run.removed)
            played.entries.append(entry)
            continue
        if alone and entry.explanation is not None and entry.verdict in (PARTIAL, UNSCHEDULABLE) \
                and len(played.kept) > 1:
            _check_alone(entry, path, obj, objects, snapshot, played.kept, played.owners,
                         dict(kwargs, applied_before=earlier.get(id(entry), ())))
        if phase != SYNC:
            played.entries.append(entry)
    return played


# The phases of a document in a release: applied as it ends (APPLY); applied with the
# count kubectl apply writes (RESET), and later scaled by its HPA's next sync (SYNC); an
# earlier document of the same workload with more replicas, placed before it (FIRST).
APPLY, RESET, SYNC, FIRST = "apply", "reset", "sync", "first"


def _scaled_down_by(obj: Dict, before: Sequence[Dict]) -> bool:
    """Whether the document applied just before ``obj`` (the same workload) asked for more
    replicas of the same template: its controller creates them, the scheduler places
    them, and ``obj``'s apply scales them down (kubectl apply -f sends both at once)."""
    if not before or obj.get("kind") not in ("Deployment", "ReplicaSet"):
        return False
    prev = before[-1]
    if _pod_template(prev) != _pod_template(obj):
        return False
    # No count written (or none the API server would take): the default 1.
    written = _written_replicas(prev), _written_replicas(obj)
    return (1 if written[0] is None else written[0]) > (1 if written[1] is None else written[1])


def _steps(ordered: list[tuple[str, Dict, CheckEntry]], objects: ClusterObjects, earlier: dict[int, list[Dict]],
           namespace: str | None, rng: random.Random | None) -> list[tuple[str, Dict, CheckEntry, str]]:
    """The release's documents as the cluster acts on them. A running workload whose
    manifest writes a count its HPA changes (core/explain/replicas.py reset_by_apply) is
    scaled to the manifest's count where it is applied, and to the HPA's by its next sync
    — up to 15 s later: after the release's other pods in the order shown, and at a random
    place after its apply in a sample (``rng``), where timing decides."""
    out: list[tuple[str, Dict, CheckEntry, str]] = []
    syncs: list[tuple[str, Dict, CheckEntry, str]] = []
    for path, obj, entry in ordered:
        if _scaled_down_by(obj, earlier.get(id(entry), ())):
            out.append((path, earlier[id(entry)][-1], entry, FIRST))
        reset = None
        if not entry.on_schedule and entry.rejected is None:
            reset = reset_by_apply(obj, objects, namespace, earlier.get(id(entry), ()))
        if reset is None:
            out.append((path, obj, entry, APPLY))
            continue
        entry.hpa_sync = reset
        out.append((path, obj, entry, RESET))
        syncs.append((path, obj, entry, SYNC))
    for sync in syncs:
        if rng is None:
            out.append(sync)
            continue
        after = max(i for i, step in enumerate(out) if step[2] is sync[2]) + 1
        out.insert(rng.randint(after, len(out)), sync)
    return out


def _with_pods(objects: ClusterObjects, pods: list[PodInfo]) -> ClusterObjects:
    """``objects`` with the pods a run bound, as their controller's reads find them."""
    if not pods:
        return objects
    return _pod_list(objects, [*objects.of("Pod"), *(dict(p.raw, spec=dict(p.raw.get("spec") or {},
                                                                            nodeName=p.node_name)) for p in pods)])


def _without_pods(objects: ClusterObjects, uids: set[str]) -> ClusterObjects:
    """``objects`` without the pods of ``uids`` (deleted by a controller)."""
    if not uids:
        return objects
    return _pod_list(objects, [p for p in objects.of("Pod") if pod_uid(p) not in uids])


def _pod_list(objects: ClusterObjects, pods: list[Dict]) -> ClusterObjects:
    """An overlay of ``objects`` whose pod list is ``pods`` (the other lists shared)."""
    out = objects.overlay()
    out.by_kind["Pod"] = pods
    return out


def _samples_for(entries: list[CheckEntry], num_nodes: int, samples: int | None) -> int:
    """How many orders to sample: ``samples`` when given; else, where more than one pod is
    new and the order shown leaves some unplaced (which ones go short is then open) or
    fills the room (:func:`_tight`), orders.auto_check_samples; else none."""
    if samples is not None:
        return samples
    applied = [e for e in entries if not e.on_schedule and e.explanation is not None]
    new = sum(e.wanted for e in applied)
    if new < 2 or not any(e.unplaced or _tight(e) for e in applied):
        return 0
    return auto_check_samples(new, num_nodes)


def _tight(entry: CheckEntry) -> bool:
    """A cycle of the workload found one node left where its pod fits, among others its
    PreFilter did not rule out: the release filled the room it had, so another order may
    not fit."""
    e = entry.explanation
    if e is None or e.mode == "daemonset":
        return False
    return any(s.single_feasible_node and s.pre_filter.node_names is None and s.num_all_nodes > 1 for s in e.steps)


def _sample(shown: _Played, ordered: list[tuple[str, Dict, CheckEntry]], objects: ClusterObjects,
            snapshot: Snapshot, per_run: dict[str, Any], earlier: dict[int, list[Dict]], kwargs: dict[str, Any],
            samples: int | None, seed: int) -> OrderChance | None:
    """Play the release again ``samples`` times (core/explain/orders.py), each from the
    cluster as loaded, and put the order shown back on the snapshot afterwards."""
    count = _samples_for(shown.entries, len(snapshot.nodes()), samples)
    if count <= 0:
        return None
    options = kwargs.get("options")
    out = OrderChance([], seed, {e.workload: e.unplaced for e in shown.entries if not e.on_schedule})
    if options is not None and (options.algorithm not in (None, "v1.35") or options.extenders):
        out.skipped = "the legacy algorithm and extenders are played in the order shown only"
        return out
    final_objects = snapshot.objects
    admission = per_run.get("admission")
    final_ledger = admission.ledger.saved() if admission is not None else None
    shown.undo(snapshot, per_run)
    rng = random.Random(seed)
    # One document per queue level: no order to shuffle.
    levels = [_queue_key(d) for d in ordered]
    # (An HPA's sync after an apply is placed at random too.)
    shuffles = len(set(levels)) < len(levels) or any(e.hpa_sync is not None for e in shown.entries)
    # The scale-downs among them, which keep their place (once for every sample).
    down = {id(entry) for _, obj, entry in ordered if scales_down(obj, objects, kwargs.get("namespace"))}
    try:
        for _ in range(count):
            order = _shuffled(ordered, rng, down)
            # Fresh entries: the sample's verdicts are its own (earlier keeps their ids).
            copies = [(path, obj, _fresh(entry)) for path, obj, entry in order]
            before = {id(c[2]): earlier[id(e[2])] for c, e in zip(copies, order, strict=True) if id(e[2]) in earlier}
            draw = _Chance(rng, rng.randrange(max(len(snapshot.nodes()), 1)), len(snapshot.nodes()))
            start = draw.start
            played = _play(copies, objects, snapshot, per_run, before, kwargs, alone=False, chance=draw)
            played.undo(snapshot, per_run)
            out.samples.append(Sample([e.workload for e in played.entries if not e.on_schedule], start,
                                      {e.workload: e.unplaced for e in played.entries if not e.on_schedule}))
            if not shuffles and not draw.drawn:
                out.exact = True  # nothing was left to chance: every sample is this one
                break
    finally:
        shown.redo(snapshot, final_objects, final_ledger, per_run)
    return out


def _shuffled(ordered: list[tuple[str, Dict, CheckEntry]], rng: random.Random,
              down: set[int]) -> list[tuple[str, Dict, CheckEntry]]:
    """``ordered`` with the documents of each queue level (priority; CronJobs apart) in a
    random order: their pods reach the queue together. A scale-down of a running workload
    (its entry's id in ``down``) stays first in its level: its controller deletes pods at
    once, and a pod that found no room before is tried again when they go."""
    out: list[tuple[str, Dict, CheckEntry]] = []
    level: list[tuple[str, Dict, CheckEntry]] = []
    for doc in [*ordered, None]:
        if doc is None or (level and _queue_key(doc) != _queue_key(level[0])):
            rng.shuffle(level)
            out.extend(sorted(level, key=lambda d: id(d[2]) not in down))
            level = []
        if doc is not None:
            level.append(doc)
    return out


def _fresh(entry: CheckEntry) -> CheckEntry:
    """A copy of ``entry`` before it was placed (what reading and admitting the document
    decided stays)."""
    return replace(entry, explanation=None, error=None, alone=None, after=[], not_applied=None, hpa_sync=None,
                   reset_deleted=0, first=None, first_stay=[], evicted_pending=0, evicted_by=[])


def _recreate_preempted(victims: list[tuple[PodInfo, str]], current: ClusterObjects, snapshot: Snapshot,
                        per_run: dict[str, Any], kwargs: dict[str, Any]) -> list[Preempted]:
    """The preempted pods' controllers create each again at once; the queue takes the new
    pods by priority (then in the order they were evicted), after the release's own. A
    replacement that could only fit by preempting in turn is left Pending here."""
    out: list[Preempted] = []
    for pi, by in sorted(victims, key=lambda v: -v[0].priority):
        ref = _controller_ref(pi.raw)
        item = Preempted(pi.key, pi.node_name, by)
        out.append(item)
        if ref is None or ref[0] not in RECREATING:
            continue
        item.owner = f"{ref[0]} {ref[1]}"
        item.workload = _workload_of(pi.raw, ref, current)
        args = dict(kwargs, preempt=False)
        try:
            expl = explain_object(_recreated(pi.raw), f"{ref[0]}/{ref[1]}", current, replicas="auto",
                                  snapshot=snapshot, keep=Kept(), **args, **per_run)
        except Refused as e:
            item.why = f"not created: {e.detail}"
            continue
        except InputError as e:
            item.why = str(e)
            continue
        step = expl.steps[-1] if expl.steps else None
        if step is not None and step.selected_node:
            item.placed_on = step.selected_node
        else:
            item.why = (step.fit_error or step.error) if step is not None else "not scheduled"
    return out


def _controller_ref(raw: Dict) -> tuple[str, str] | None:
    """The kind and name of the pod's managing controller, if any."""
    refs = (raw.get("metadata") or {}).get("ownerReferences") or []
    for ref in refs if isinstance(refs, list) else []:
        if isinstance(ref, dict) and ref.get("controller") is True:
            return str(ref.get("kind")), str(ref.get("name"))
    return None


def _workload_of(raw: Dict, ref: tuple[str, str], objects: ClusterObjects) -> str:
    """The workload a pod belongs to, as check names workloads: its controller, or the
    Deployment that owns its ReplicaSet."""
    ns = str((raw.get("metadata") or {}).get("namespace") or "default")
    kind, name = ref
    rs = objects.find_workload(kind, ns, name) if kind == "ReplicaSet" else None
    up = _controller_ref(rs) if rs is not None else None
    if up is not None and up[0] == "Deployment":
        kind, name = up
    return f"{kind}/{ns}/{name}"


def _recreated(raw: Dict) -> Dict:
    """The pod a controller creates in place of a preempted one: its spec without the node
    and the priority admission set (Priority admission sets it again from its class)."""
    meta = raw.get("metadata") or {}
    spec = {k: v for k, v in (raw.get("spec") or {}).items() if k not in ("nodeName", "priority")}
    kept_meta = {k: v for k, v in meta.items() if k in ("namespace", "labels", "annotations", "ownerReferences")}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": dict(kept_meta, name=f"{meta.get('name')}-again"),
            "spec": spec}


def _update_of_running(obj: Dict, objects: ClusterObjects, entry: CheckEntry) -> str | None:
    """The API server's refusal of ``obj`` as an update of the workload the cluster runs
    under its name, if any (core/explain/updates.py live_update_refusal)."""
    for live in objects.workloads.get(str(entry.kind), ()):
        meta = live.get("metadata") or {}
        if meta.get("name") == entry.name and (meta.get("namespace") or "default") == entry.namespace:
            return live_update_refusal(obj, live)
    return None


def _carry(current: ClusterObjects, after: ClusterObjects) -> None:
    """Take into ``current`` what a workload's run added to the objects (its ReplicaSet or
    StatefulSet, claims), keeping ``current``'s pod list and with it the pod index built on
    it once (core/api/objects.py find_pod)."""
    for kind, items in after.by_kind.items():
        if kind != "Pod":
            current.by_kind[kind] = items
    current.workloads = defaultdict(list, after.workloads)


def _check_alone(entry: CheckEntry, path: str, obj: Dict, objects: ClusterObjects, snapshot: Snapshot,
                 kept: list[Kept], owners: list[str], kwargs: dict[str, Any]) -> None:
    """Check ``entry``'s workload alone on the cluster as loaded (the release's pods taken
    off, the pods its controllers deleted put back, then the other way round again); when
    more of it fits there, name the earlier workloads whose pods sit where it went alone."""
    _take_off(snapshot, kept)
    base_objects = snapshot.objects
    try:
        # The cluster as loaded: a fresh admission state too, so no per-run context here.
        alone = CheckEntry(path, entry.kind, entry.namespace, entry.name)
        alone.explanation = explain_object(obj, path, objects, replicas="auto", snapshot=snapshot, **kwargs)
    except InputError:
        return
    finally:
        snapshot.objects = base_objects
        _put_back(snapshot, kept)
    placed_alone = alone.wanted - alone.unplaced
    if alone.verdict != FITS and placed_alone <= entry.wanted - entry.unplaced:
        return
    entry.alone = (alone.verdict, placed_alone)
    e = alone.explanation
    nodes: set[str] = set()
    if e is not None:
        nodes = {v.node for v in e.daemon_nodes if v.fits} if e.mode == "daemonset" else \
            {s.selected_node for s in e.steps if s.selected_node}
    earlier = list(zip(owners[:-1], kept[:-1], strict=True))
    there = [name for name, run in earlier if any(p.node_name in nodes for p in run.bound)]
    entry.after = there or [name for name, run in earlier if run.bound]


def _daemon_shortfall(bad: list[DaemonNodeVerdict]) -> str:
    """The nodes left without their daemon pod: those whose pod the API server refused
    (FailedCreate: no pod exists), then those whose pod stays Pending, each with the first
    reason."""
    parts = []
    refused = [d for d in bad if d.code == FAILED_CREATE]
    pending = [d for d in bad if d.code != FAILED_CREATE]
    if refused:
        # The controller walks its node cache in no fixed order (daemon_controller.go
        # manage over the node lister's list): the count is the quota's, the nodes are not.
        parts.append(f"not created on {', '.join(d.node for d in refused)} (which nodes go without is the "
                     f"DaemonSet controller's draw: its node list has no fixed order): {'; '.join(refused[0].reasons)}")
    if pending:
        parts.append(f"pending on {', '.join(d.node for d in pending)}: {pending[0].plugin}: "
                     f"{'; '.join(pending[0].reasons)}")
    return "; ".join(parts)

"""``check``: does every manifest still fit? One verdict per pod-bearing document.

Each document is placed with its own replica count (a Deployment's, ReplicaSet's or
StatefulSet's ``spec.replicas``, a Job's parallelism, 1 for a Pod), each copy bound
before the next, on the cluster as loaded: documents don't see each other's pods. A
DaemonSet must fit on every node its controller targets. A file that can't be read or
interpreted is reported as an error line; the others are still checked.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kschedx.core.api.objects import ClusterObjects
from kschedx.core.api.quantity import QuantityError
from kschedx.core.api.selectors import SelectorError
from kschedx.core.errors import InputError
from kschedx.core.explain.front import Options, build_snapshot, explain_object, load_profiles, resolve_version
from kschedx.core.explain.report import Explanation
from kschedx.core.framework.shared_answers import share
from kschedx.core.gcpause import without_gc_frozen
from kschedx.core.load.files import load_objects
from kschedx.core.load.repo import ManifestFile, classify, inside, lay_over, same_file
from kschedx.core.progress import report as report_progress

Dict = dict[str, Any]

MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")

FITS, PARTIAL, UNSCHEDULABLE, ERROR = "fits", "partial", "unschedulable", "error"


@dataclass
class CheckEntry:
    file: str
    kind: str | None = None
    namespace: str | None = None
    name: str | None = None
    explanation: Explanation | None = None
    error: str | None = None

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

    @property
    def placed(self) -> int:
        e = self.explanation
        if e is None:
            return 0
        if e.workload is not None:
            return e.workload.placed
        if e.mode == "daemonset":
            return sum(1 for v in e.daemon_nodes if v.fits)
        return e.replicas_placed

    @property
    def verdict(self) -> str:
        if self.error is not None or self.explanation is None:
            return ERROR
        if self.explanation.ok:
            return FITS
        return PARTIAL if self.placed > 0 else UNSCHEDULABLE

    @property
    def workload(self) -> str:
        return f"{self.kind}/{self.namespace}/{self.name}" if self.kind else self.file

    @property
    def fit_error(self) -> str | None:
        e = self.explanation
        if e is None or e.mode == "daemonset" or not e.steps:
            return None
        return e.steps[-1].fit_error

    def message(self) -> str:
        """The verdict line's text after the workload."""
        v = self.verdict
        e = self.explanation
        if v == ERROR or e is None:
            return f"error: {self.error}"
        w = e.workload
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
                return f"doesn't fit: {text}; pending on {', '.join(d.node for d in bad)}: {bad[0].plugin}: " \
                       f"{'; '.join(bad[0].reasons)}"
            return f"doesn't fit: {text}; then: {self.fit_error}"
        if e.mode == "daemonset":
            bad = [d for d in e.daemon_nodes if d.targeted and not d.fits]
            text = f"runs on {self.placed} of {self.replicas} targeted node(s)"
            if bad:
                first = bad[0]
                text += f"; pending on {', '.join(d.node for d in bad)}: {first.plugin}: {'; '.join(first.reasons)}"
            return ("fits: " if v == FITS else "doesn't fit: ") + text
        if v == FITS:
            nodes = sorted({s.selected_node for s in e.steps if s.selected_node})
            where = ", ".join(nodes[:5]) + (f" (+{len(nodes) - 5} more)" if len(nodes) > 5 else "")
            if self.replicas == 1:
                return f"fits (best: {where})"
            return f"fits {self.replicas} of {self.replicas} replicas (on {where})"
        if v == PARTIAL:
            return f"fits {self.placed} of {self.replicas} replicas; then: {self.fit_error}"
        return f"doesn't fit: {self.fit_error or (e.steps[-1].error if e.steps else '')}"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "file": self.file, "kind": self.kind, "namespace": self.namespace, "name": self.name,
            "verdict": self.verdict, "replicas": self.replicas, "running": self.running, "placed": self.placed,
            "message": self.message(),
        }
        if self.error is not None:
            out["error"] = self.error
        if self.explanation is not None:
            out["explanation"] = self.explanation.to_json()
        return out


@dataclass
class CheckReport:
    entries: list[CheckEntry] = field(default_factory=list)
    # The kube-scheduler release the run reproduced.
    kubernetes_version: str | None = None
    # Files not checked, with why: (path, reason).
    skipped: list[tuple[str, str]] = field(default_factory=list)
    # Objects of the checked files laid over the cluster first (KIND/NS/NAME).
    overlaid: list[str] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        """SPEC: 0 every manifest fits, 1 at least one doesn't, 2 an input error."""
        verdicts = {e.verdict for e in self.entries}
        if ERROR in verdicts:
            return 2
        if verdicts - {FITS}:
            return 1
        return 0

    def to_json(self) -> dict[str, Any]:
        counts = {k: sum(1 for e in self.entries if e.verdict == k) for k in (FITS, PARTIAL, UNSCHEDULABLE, ERROR)}
        out: dict[str, Any] = {"results": [e.to_json() for e in self.entries], "summary": counts,
                               "skipped": [{"file": f, "reason": r} for f, r in self.skipped],
                               "overlaid": list(self.overlaid)}
        if self.kubernetes_version is not None:
            out["kubernetesVersion"] = self.kubernetes_version
        return out


def expand_paths(paths: list[str], exclude: list[str] | None = None) -> tuple[list[str], list[str]]:
    """Files as given; directories walked (sorted) for YAML and JSON files; '-' is stdin.
    Returns the files and those of ``exclude`` (the cluster dumps) that were left out."""
    out: list[str] = []
    left_out: list[str] = []
    for p in paths:
        if p != "-" and os.path.isdir(p):
            found = sorted(
                str(f) for f in Path(p).rglob("*") if f.is_file() and f.name.endswith(MANIFEST_SUFFIXES)
            )
            if not found:
                raise InputError("no .yaml, .yml or .json file in the directory", path=p)
            out.extend(found)
        else:
            out.append(p)
    if exclude:
        left_out = [f for f in out if f != "-" and any(same_file(f, c) or inside(f, c) for c in exclude if c != "-")]
        out = [f for f in out if f not in left_out]
    return out, left_out


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
) -> CheckReport:
    """Check every pod-bearing document of ``paths``. Files that hold none, or no
    Kubernetes objects at all, are skipped (and listed); the cluster dumps (``exclude``)
    are never checked; the other objects of the files that scheduling reads are laid over
    the cluster first, as ``kubectl apply -f`` of the files would create them."""
    # The release is chosen once for the run; a bad version, feature gate, configuration or
    # Policy fails the run, not each document.
    options = resolve_version(options, objects, source)
    load_profiles(config, options)
    report = CheckReport(kubernetes_version=options.version.name if options.version is not None else None)
    files, dumps = expand_paths(paths, exclude)
    report.skipped.extend((f, "the cluster dump (--snapshot/--cluster)") for f in dumps)
    todo: list[ManifestFile] = []
    overlay: list[Dict] = []
    for k, path in enumerate(files):
        report_progress(f"reading {path} ({k + 1} of {len(files)})", k, len(files))
        try:
            manifest = classify(path, load_objects(path))
        except InputError as e:
            report.entries.append(CheckEntry(path, error=str(e)))
            continue
        overlay.extend(manifest.overlay)
        if manifest.skipped is not None:
            report.skipped.append((path, manifest.skipped))
        else:
            todo.append(manifest)
    try:
        objects, report.overlaid = lay_over(objects, overlay, namespace)
    except InputError as e:
        report.entries.append(CheckEntry(", ".join(files), error=str(e)))
        return report
    # One snapshot for every document: each lays its own objects over it and takes its
    # placed copies off again, so documents never see each other.
    try:
        snapshot = build_snapshot(objects)
    except (QuantityError, SelectorError) as e:
        raise InputError(str(e), path=source) from None
    # Documents with equal node-relevant fields (requests, tolerations, node affinity, ...)
    # share their node-local plugin answers (core/framework/shared_answers.py).
    share(snapshot)
    n = sum(len(m.workloads) for m in todo)
    done = 0
    for manifest in todo:
        path = manifest.path
        for obj in manifest.workloads:
            report_progress(f"checking {path} ({done + 1} of {n})", done, n)
            done += 1
            meta = obj.get("metadata") or {}
            entry = CheckEntry(path, str(obj.get("kind")), namespace or meta.get("namespace") or "default",
                               meta.get("name") or meta.get("generateName"))
            try:
                entry.explanation = explain_object(obj, path, objects, namespace=namespace, options=options,
                                                   config=config, replicas="auto", source=source, snapshot=snapshot)
            except InputError as e:
                entry.error = str(e)
            report.entries.append(entry)
    if not report.entries:
        names = "; ".join(f"{f}: {why}" for f, why in report.skipped)
        raise InputError(f"no Pod or workload to check (skipped {names})", path=", ".join(paths))
    return report

"""What `check` found, as findings a CI system files against a line of a manifest: one per
workload that does not fit, fits partly, is refused by the API server, whose rollout
gets stuck or that fits only in some sampled orders, and one per manifest that could not be checked. SARIF (``sarif.py``) and
GitHub Actions' annotations (``github.py``) are both written from these."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from kschedx.core.explain.check import ERROR, FITS, PARTIAL, CheckEntry, CheckReport
from kschedx.core.load.files import RENDERED_FROM
from kschedx.core.load.locate import locate_line


@dataclass(frozen=True)
class Rule:
    id: str
    name: str
    text: str
    level: str  # SARIF's "error" or "warning" (GitHub: ::error or ::warning)


DOESNT_FIT = Rule("doesnt-fit", "DoesNotFit", "No pod of the workload can be scheduled on the cluster", "error")
FITS_PARTLY = Rule("fits-partly", "FitsPartly", "Some of the workload's pods stay Pending", "warning")
REFUSED = Rule("refused", "RefusedByTheApiServer",
               "The API server refuses the workload's pods or the update (admission: quota, limits, "
               "priority class; an immutable field)", "error")
ROLLOUT_STUCK = Rule("rollout-stuck", "RolloutStuck",
                     "A change to a running workload gets stuck before its last new pod runs", "error")
ORDER_DEPENDENT = Rule("fits-by-order", "FitsOnlyInSomeOrders",
                       "The workload fits in the order shown, but a sampled order of the release's pods or of the "
                       "scheduler's draws leaves some of its pods Pending", "warning")
INVALID = Rule("invalid-manifest", "InvalidManifest", "The manifest could not be read or checked", "error")
RULES = (DOESNT_FIT, FITS_PARTLY, REFUSED, ROLLOUT_STUCK, ORDER_DEPENDENT, INVALID)


@dataclass(frozen=True)
class Finding:
    rule: Rule
    file: str  # as given on the command line ("-" for standard input)
    line: int | None
    title: str
    message: str


def _rule(e: CheckEntry) -> Rule | None:
    if e.rejected is not None or e.not_applied is not None:
        return REFUSED
    v = e.verdict
    if v == FITS:
        return ORDER_DEPENDENT if e.short_in_a_sample else None
    if v == ERROR:
        return INVALID
    w = e.explanation.workload if e.explanation is not None else None
    if w is not None and w.outcome is not None:
        return ROLLOUT_STUCK
    return FITS_PARTLY if v == PARTIAL else DOESNT_FIT


def entry_line(e: CheckEntry) -> int | None:
    """The line a finding points at: the line an input error names, else the workload's
    ``kind:`` line in its file (None: unknown, or standard input)."""
    if e.error:
        m = re.match(re.escape(e.file) + r":(\d+):", e.error)
        if m:
            return int(m.group(1))
    if e.file == "-" or not e.kind:
        return None
    meta = {"name": e.name}
    for with_ns in (True, False):
        obj = {"kind": e.kind, "metadata": {**meta, "namespace": e.namespace} if with_ns else meta}
        line = locate_line(e.file, obj, ("kind",))
        if line is not None:
            return line
    return None


def findings(report: CheckReport) -> list[Finding]:
    out = []
    for e in report.entries:
        rule = _rule(e)
        if rule is None:
            continue
        title = f"{e.workload}: {rule.text.split(' (')[0].lower()}" if e.kind else f"{e.file}: {rule.text.lower()}"
        folder = RENDERED_FROM.get(e.file)
        if folder is not None:  # rendered by -k: filed against the kustomization itself
            found = next((os.path.join(folder, n) for n in KUSTOMIZATIONS if os.path.isfile(os.path.join(folder, n))),
                         folder)
            out.append(Finding(rule, found, None, title, e.message()))
            continue
        out.append(Finding(rule, e.file, entry_line(e), title, e.message()))
    return out


# The names kubectl kustomize reads a kustomization under.
KUSTOMIZATIONS = ("kustomization.yaml", "kustomization.yml", "Kustomization")

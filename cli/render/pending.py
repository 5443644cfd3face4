"""``kschedx pending`` output: one line per pod in every text format.

Off a terminal each pod is exactly one line whatever its length (``grep``, ``wc -l`` and
``awk`` see one record per line); on a terminal the last column is cut to the width with
an ellipsis (``-o wide`` never cuts). JSON and YAML are the report's ``to_json()``.
"""

from __future__ import annotations

import shutil
import sys

from kschedx.core.explain.pending import NOMINATED, OTHER_SCHEDULER, PendingPod, PendingReport

# The event column: the scheduler's last FailedScheduling event agrees (=), differs (≠),
# or the source holds none (-).
AGREE, DIFFER, NO_EVENT = "=", "≠", "-"

STATUS_TEXT = {OTHER_SCHEDULER: "other scheduler"}


def event_mark(p: PendingPod) -> str:
    if p.event_agrees is None:
        return NO_EVENT
    return AGREE if p.event_agrees else DIFFER


def _node(p: PendingPod) -> str:
    if p.status == NOMINATED:
        return f"{p.node} (nominated)"
    return p.node or "-"


def rows(report: PendingReport, wide: bool) -> tuple[list[str], list[list[str]]]:
    head = ["POD", "STATUS", "NODE", "EVENT", "DETAIL"]
    if wide:
        head = ["POD", "PRIORITY", "STATUS", "NODE", "EVENT", "DETAIL", "LAST EVENT MESSAGE"]
    out = []
    for p in report.pods:
        detail = p.detail or ""
        if wide:
            msg = p.event.message if p.event is not None else "-"
            out.append([p.key, str(p.priority), STATUS_TEXT.get(p.status, p.status), _node(p), event_mark(p),
                        detail, msg])
        else:
            out.append([p.key, STATUS_TEXT.get(p.status, p.status), _node(p), event_mark(p), detail])
    return head, out


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _summary(report: PendingReport) -> str:
    if not report.pods:
        return "no Pending pod"
    counts = report.counts()
    parts = ", ".join(f"{n} {STATUS_TEXT.get(k, k)}" for k, n in sorted(counts.items()))
    compared = [p for p in report.pods if p.event_agrees is not None]
    agree = sum(1 for p in compared if p.event_agrees)
    events = f"; the last FailedScheduling event agrees for {agree} of {len(compared)}" if compared else ""
    return f"{len(report.pods)} Pending: {parts}{events}"


def render_lines(report: PendingReport, wide: bool, width: int | None) -> list[str]:
    """The table as lines; ``width`` (a terminal's) cuts the last column, None never cuts."""
    head, body = rows(report, wide)
    body = [[_one_line(c) for c in r] for r in body]
    widths = [max([len(head[i]), *(len(r[i]) for r in body)]) for i in range(len(head) - 1)]
    lines = []
    for r in [head, *body]:
        line = "  ".join(c.ljust(w) for c, w in zip(r[:-1], widths, strict=False)) + "  " + r[-1]
        line = line.rstrip()
        if width is not None and len(line) > width:
            line = line[: max(width - 1, 0)] + "…"
        lines.append(line)
    return lines


def render_markdown(report: PendingReport) -> str:
    def cell(text: str) -> str:
        return _one_line(text).replace("|", "\\|") or " "

    head, body = rows(report, wide=True)
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(cell(c) for c in r) + " |" for r in body]
    out.append("")
    out.append(_summary(report))
    return "\n".join(out) + "\n"


def render_pending(report: PendingReport, fmt: str, *, no_color: bool = False) -> None:
    if fmt in ("json", "yaml"):
        from kschedx.cli.render.json_yaml import render_json, render_yaml

        (render_json if fmt == "json" else render_yaml)(report)
        return
    if fmt == "markdown":
        sys.stdout.write(render_markdown(report))
        return
    tty = sys.stdout.isatty()
    width = shutil.get_terminal_size().columns if tty and fmt == "table" else None
    if not report.pods:
        sys.stdout.write("no Pending pod\n")
        return
    sys.stdout.write("\n".join(render_lines(report, fmt == "wide", width)) + "\n")
    if tty:
        sys.stdout.write(_summary(report) + "\n")

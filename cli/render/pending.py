"""``kschedx pending`` output: one line per pod in every text format.

Off a terminal each pod is exactly one line whatever its length (``grep``, ``wc -l`` and
``awk`` see one record per line); on a terminal a row wider than the screen wraps at word
boundaries with a hanging indent, so no character of a reason or a name is lost (``-o
wide`` never wraps). JSON and YAML are the report's ``to_json()``.
"""

from __future__ import annotations

import sys
import textwrap
from typing import Any

from kschedx.cli.lines import HANGING_INDENT
from kschedx.cli.render.console import screen_width
from kschedx.cli.render.markdown import md_title
from kschedx.core.explain.pending import NOMINATED, OTHER_SCHEDULER, PendingComparison, PendingPod, PendingReport, change_lines

# The event column: the scheduler's last FailedScheduling event agrees (=), differs (≠),
# or the source holds none (-).
AGREE, DIFFER, NO_EVENT = "=", "≠", "-"

STATUS_TEXT = {OTHER_SCHEDULER: "other scheduler"}


def event_mark(p: PendingPod) -> str:
    if p.event_agrees is None:
        return NO_EVENT
    return AGREE if p.event_agrees else DIFFER


NOMINATED_MARK = " (nominated)"


def _node(p: PendingPod) -> str:
    if p.status == NOMINATED:
        return f"{p.node}{NOMINATED_MARK}"
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


# The last column keeps its place on the screen when at least this many cells are left
# for it; else a long row wraps as a whole.
MIN_LAST_COLUMN = 30


def _wrap(line: str, prefix: int, width: int, below: bool = False) -> list[str]:
    """A row wider than ``width``, wrapped at word boundaries: the last column (starting at
    ``prefix``) under itself when there is room; else the other columns on one line and the
    last one below them with a hanging indent (each record one group of lines); else, when
    even the other columns don't fit, those with a hanging indent too. Words are never broken:
    one longer than the line (a long node name) overflows it whole and the terminal folds it,
    losing nothing."""
    def wrap(text: str, first: str, rest: str) -> list[str]:
        return textwrap.wrap(text, width, initial_indent=first, subsequent_indent=rest, break_long_words=False,
                             break_on_hyphens=False)

    indent = " " * HANGING_INDENT
    if width - prefix >= MIN_LAST_COLUMN and not below:
        return wrap(line[prefix:], line[:prefix], " " * prefix) or [line[:prefix].rstrip()]
    head = line[:prefix].rstrip()
    first = [head] if len(head) <= width else wrap(head, "", indent)
    return first + wrap(line[prefix:], indent, indent)


def _shorten_nodes(body: list[list[str]], column: int) -> str:
    """Drops the dotted domain every node name of ``column`` shares (as explain's tables do
    on a narrow screen) and returns it; "" when the names share none."""
    from kschedx.cli.render.table import common_suffix

    names = sorted({r[column].removesuffix(NOMINATED_MARK) for r in body if r[column] != "-"})
    suffix = common_suffix(names)
    if len(names) == 1 and names[0].find(".") > 0:
        suffix = names[0][names[0].find("."):]  # one name alone shares its whole domain with itself
    if suffix:
        for r in body:
            cell = r[column]
            nominated = cell.endswith(NOMINATED_MARK)
            name = cell.removesuffix(NOMINATED_MARK)
            if name.endswith(suffix):
                r[column] = name[:-len(suffix)] + (NOMINATED_MARK if nominated else "")
    return suffix


def _lay_out(head: list[str], body: list[list[str]], width: int | None) -> list[str]:
    widths = [max([len(head[i]), *(len(r[i]) for r in body)]) for i in range(len(head) - 1)]
    prefix = sum(w + 2 for w in widths)
    lines = []
    texts = [("  ".join(c.ljust(w) for c, w in zip(r[:-1], widths, strict=False)) + "  " + r[-1]).rstrip()
             for r in [head, *body]]
    # When rows put their last column below the others, so does the header.
    below = width is not None and width - prefix < MIN_LAST_COLUMN and any(len(t) > width for t in texts[1:])
    for k, line in enumerate(texts):
        if width is not None and (len(line) > width or (k == 0 and below)):
            lines.extend(_wrap(line, prefix, width, below=k == 0 and below))
        else:
            lines.append(line)
    return lines


def render_lines(report: PendingReport, wide: bool, width: int | None) -> list[str]:
    """The table as lines; ``width`` (a terminal's) wraps long rows (see _wrap) after
    dropping the domain the node names share, None keeps each row on one line with the
    names whole."""
    head, body = rows(report, wide)
    body = [[_one_line(c) for c in r] for r in body]
    if width is None:
        return _lay_out(head, body, None)
    prefix = sum(max([len(head[i]), *(len(r[i]) for r in body)]) + 2 for i in range(len(head) - 1))
    if width - prefix >= MIN_LAST_COLUMN or all(prefix + len(r[-1]) <= width for r in body):
        return _lay_out(head, body, width)
    # The columns before the detail leave it too little room: drop the node names' domain.
    suffix = _shorten_nodes(body, head.index("NODE"))
    lines = _lay_out(head, body, width)
    return [*lines, f"Node names shortened: each ends in {suffix}"] if suffix else lines


def render_markdown(report: PendingReport, source: str | None = None) -> str:
    def cell(text: str) -> str:
        return _one_line(text).replace("|", "\\|") or " "

    head, body = rows(report, wide=True)
    out = md_title("pending", report.kubernetes_version, cell(source) if source else None, _summary(report))
    out += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(cell(c) for c in r) + " |" for r in body]
    return "\n".join(out) + "\n"


def render_pending(report: PendingReport, fmt: str, *, no_color: bool = False, source: str | None = None) -> None:
    if fmt in ("json", "yaml"):
        from kschedx.cli.render.json_yaml import render_json, render_yaml

        (render_json if fmt == "json" else render_yaml)(report)
        return
    if fmt == "markdown":
        sys.stdout.write(render_markdown(report, source))
        return
    tty = sys.stdout.isatty()
    width = screen_width(sys.stdout) if tty and fmt == "table" else None
    if not report.pods:
        sys.stdout.write("no Pending pod\n")
        return
    sys.stdout.write("\n".join(render_lines(report, fmt == "wide", width)) + "\n")
    if tty:
        sys.stdout.write(_summary(report) + "\n")


def html_rows(report: PendingReport) -> list[dict[str, Any]]:
    """The rows ``render_pending_html`` takes, from the same report the JSON output has."""
    return [{"pod": p.key, "class": p.status, "node": _node(p) if p.node or p.status == NOMINATED else None,
             "fitError": p.fit_error, "agreement": p.event_agrees,
             "eventMessage": p.event.message if p.event is not None else None}
            for p in report.pods]


def render_pending_comparison(comparison: PendingComparison, fmt: str, *, base: tuple[str | None, str | None],
                              compare: tuple[str | None, str | None]) -> None:
    """Only what changes per pod between the two setups (``base``/``compare``: each
    setup's configuration and feature gates, for the header); one line per change."""
    if fmt in ("json", "yaml"):
        from kschedx.cli.render.json_yaml import render_json, render_yaml

        (render_json if fmt == "json" else render_yaml)(comparison)
        return
    from kschedx.cli.render.compare import _setup_line

    data = comparison.to_json()
    out = [_setup_line("Base   ", data["base"], *base), _setup_line("Compare", data["compare"], *compare)]
    lines = change_lines(comparison)
    if not lines:
        out.append(f"No change: same verdict, node and FitError for each of the {len(comparison.base.pods)} "
                   "Pending pod(s).")
    else:
        out.append(f"{len(lines)} change(s):")
        out += [f"  {_one_line(line)}" for line in lines]
    sys.stdout.write("\n".join(out) + "\n")

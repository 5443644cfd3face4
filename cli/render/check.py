"""``check`` output: the release's verdict and a verdict line per document (Rich),
JSON/YAML, or a Markdown table for CI job summaries."""

from __future__ import annotations

import sys

from rich.text import Text

from kschedx.cli.lines import print_records
from kschedx.cli.render.markdown import md_cell, md_title
from kschedx.core.explain.check import (
    ERROR,
    FITS,
    ORDER_RULE,
    PARTIAL,
    RELEASE,
    REPLACED_NOTE,
    UNSCHEDULABLE,
    CheckReport,
)
from kschedx.core.gcpause import without_gc

_MARK = {FITS: ("✓", "bold green"), PARTIAL: ("◐", "bold yellow"), ERROR: ("!", "bold red")}
_MD_MARK = {FITS: "✅ fits", PARTIAL: "⚠️ partly", ERROR: "❗ error"}


def _mark(verdict: str) -> tuple[str, str]:
    return _MARK.get(verdict, ("✗", "bold red"))


def render_lines(report: CheckReport, no_color: bool = False, verbose: bool = False) -> None:
    print_records(_records(report, verbose), no_color=no_color)


def order_note(report: CheckReport) -> str:
    """How the release was placed, in the order the lines follow."""
    text = f"Placed together, one workload after another in the scheduling queue's order: {ORDER_RULE}."
    later = [e.workload for e in report.entries if e.on_schedule and e.explanation is not None]
    if later:
        text += (f" Last, {', '.join(later)}: a CronJob creates its Job on schedule, so its pod is checked with the "
                 "release in place and is not among the release's pods.")
    return text


def _show_priority(report: CheckReport) -> bool:
    return report.mode == RELEASE and any(e.priority for e in report.entries)


def _records(report: CheckReport, verbose: bool = False) -> list[Text]:
    out: list[Text] = []
    if report.mode == RELEASE:
        mark, style = _mark(report.release_verdict)
        out.append(Text(f"{mark} {report.release_line()}", style=style))
        out.append(Text(order_note(report), style="dim"))
        out.extend(Text(p.line(), style="dim") for p in report.preempted)
    priorities = _show_priority(report)
    for e in report.entries:
        mark, style = _mark(e.verdict)
        t = Text()
        t.append(f"{mark} ", style=style)
        t.append(e.workload, style="bold")
        if e.kind:
            t.append(f" ({e.file}{f', priority {e.priority}' if priorities else ''})", style="dim")
        t.append(f"  {e.message()}")
        out.append(t)
    out.append(Text(checked_line(report), style="dim"))
    if report.overlaid:
        out.append(Text(f"Laid over the cluster first, as kubectl apply -f of these files would create them: "
                        f"{overlaid_text(report, verbose)}", style="dim"))
    out.extend(Text(line, style="dim") for line in note_lines(report, verbose))
    return out


# Of a long list of notes (documents named twice), the lines shown without -v; a list of
# files or objects up to FEW long is named in full on its line.
NOTES_SHOWN = 10
FEW = 3
# What the API server's kinds a skipped file holds are called when it holds no workload.
_ONLY = "no Pod or workload, only "


def overlaid_text(report: CheckReport, verbose: bool = False) -> str:
    """The objects laid over the cluster: named, or counted per kind when there are many."""
    if verbose or len(report.overlaid) <= NOTES_SHOWN:
        return ", ".join(report.overlaid)
    kinds: dict[str, int] = {}
    for key in report.overlaid:
        kind = key.split("/", 1)[0]
        kinds[kind] = kinds.get(kind, 0) + 1
    counted = ", ".join(f"{k} {n}" for k, n in sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0])))
    return f"{len(report.overlaid)} objects: {counted} — -v lists them"


def replaced_line(report: CheckReport) -> str:
    """The documents a later document of the run replaces, each with the one that does."""
    return f"{REPLACED_NOTE}: " + "; ".join(r.line() for r in report.replaced)


def note_lines(report: CheckReport, verbose: bool = False, code: str = "{}") -> list[str]:
    """The notes after the verdicts, each a line a person reads: documents named twice one
    per line (the first NOTES_SHOWN without ``verbose``), files skipped counted per reason
    (each file listed with ``verbose``), folders left out. ``code`` formats a path."""
    lines: list[str] = []
    if report.replaced:
        lines.append(f"{REPLACED_NOTE}:")
        shown = report.replaced if verbose else report.replaced[:NOTES_SHOWN]
        lines.extend(f"  {r.line()}" for r in shown)
        if len(shown) < len(report.replaced):
            lines.append(f"  … and {len(report.replaced) - len(shown)} more (-v lists them)")
    if report.skipped:
        by_reason: dict[str, list[str]] = {}
        kinds: dict[str, int] = {}
        for path, why in report.skipped:
            if why.startswith(_ONLY):
                by_reason.setdefault("no Pod or workload", []).append(path)
                for kind in why[len(_ONLY):].split(", "):
                    kinds[kind] = kinds.get(kind, 0) + 1
            else:
                by_reason.setdefault(why, []).append(path)
        for why, paths in by_reason.items():
            n = len(paths)
            head = f"{n} file{'s' if n != 1 else ''} {'holds' if n == 1 else 'hold'} {why}" \
                if why == "no Pod or workload" else f"{n} file{'s' if n != 1 else ''}: {why}"
            if why == "no Pod or workload":
                ranked = sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0]))
                head += ": " + ", ".join(f"{k} {c}" for k, c in ranked[:8]) + (", …" if len(ranked) > 8 else "")
            if n == 1:
                reason = next(w for p, w in report.skipped if p == paths[0])
                lines.append(f"Skipped {code.format(paths[0])}: {reason}")
            elif verbose:
                lines.append(f"Skipped {head}:")
                lines.extend(f"  {code.format(p)}" for p in paths)
            elif n <= FEW:
                lines.append(f"Skipped {head}: {', '.join(code.format(p) for p in paths)}")
            else:
                lines.append(f"Skipped {head} — -v lists them")
    lines.extend(_left_out_lines(report, code))
    return lines


def _left_out_lines(report: CheckReport, code: str) -> list[str]:
    """One line per Helm chart or kustomize folder left out, and per --exclude glob;
    ``code`` formats a path or command (markdown puts it in backticks)."""
    lines = [f"Skipped {code.format(folder)}: {why}" for folder, why in report.skipped_folders]
    lines.extend(f"Left out by --exclude {code.format(g)}: {n} file{'' if n == 1 else 's'}" for g, n in report.excluded)
    return lines


def checked_line(report: CheckReport) -> str:
    """The counts line: how many entries were checked and how many have each verdict."""
    c = report.counts()
    return (f"{len(report.entries)} checked: {c[FITS]} fit, {c[PARTIAL]} fit partly, {c[UNSCHEDULABLE]} don't fit, "
            f"{c[ERROR]} error(s)")


def markdown_header(report: CheckReport, source: str | None) -> list[str]:
    """What a CI job summary says first: the Kubernetes version reproduced, the cluster
    source and the counts."""
    return md_title("check", report.kubernetes_version, md_cell(source) if source else None, checked_line(report))


# What the count columns of the markdown table hold, said under it.
COLUMNS_NOTE = ("Desired: the workload's replica count · Running: its pods of the current template already bound · "
                "New: the pods this run places (a scale-up's missing ones, a rollout's new ones) · "
                "Placed: how many of the new pods found a node")


def render_markdown(report: CheckReport, source: str | None = None, verbose: bool = False) -> None:
    sys.stdout.write(markdown_report(report, source, verbose))


def markdown_report(report: CheckReport, source: str | None = None, verbose: bool = False) -> str:
    """The markdown report (``-o markdown``, and a GitHub Actions job summary)."""
    out = markdown_header(report, source)
    if report.mode == RELEASE:
        mark = _MD_MARK.get(report.release_verdict, "❌ doesn't fit").split(" ")[0]
        out += [f"**{mark} {md_cell(report.release_line())}**", "", md_cell(order_note(report)), ""]
        if report.preempted:
            out += [*(f"- {md_cell(p.line())}" for p in report.preempted), ""]
    priorities = _show_priority(report)
    out += ["| Verdict | Workload | File | " + ("Priority | " if priorities else "")
            + "Desired | Running | New | Placed | Detail |",
            "|---|---|---|" + ("---|" if priorities else "") + "---:|---:|---:|---:|---|"]
    for e in report.entries:
        verdict = _MD_MARK.get(e.verdict, "❌ doesn't fit")
        if e.explanation is not None:
            counts = f"{e.replicas} | {e.running} | {e.wanted} | {e.wanted - e.unplaced}"
        else:
            counts = "— | — | — | —"
        priority = f"{e.priority} | " if priorities else ""
        out.append(f"| {verdict} | `{md_cell(e.workload)}` | `{md_cell(e.file)}` | {priority}{counts} | "
                   f"{md_cell(e.message())} |")
    out += ["", COLUMNS_NOTE]
    if report.overlaid:
        out.append(f"\nLaid over the cluster first: {md_cell(overlaid_text(report, verbose))}")
    notes = note_lines(report, verbose, "`{}`")
    if notes:
        out.append("")
        out.extend(f"- {md_cell(line.strip())}" if line.startswith("  ") else md_cell(line) for line in notes)
    return "\n".join(out) + "\n"


@without_gc
def render_check(report: CheckReport, fmt: str, *, no_color: bool = False, source: str | None = None,
                 verbose: bool = False) -> None:
    if fmt in ("json", "yaml"):
        from kschedx.cli.render.json_yaml import render_json, render_yaml

        (render_json if fmt == "json" else render_yaml)(report)
    elif fmt == "markdown":
        render_markdown(report, source, verbose)
    else:
        render_lines(report, no_color=no_color, verbose=verbose)

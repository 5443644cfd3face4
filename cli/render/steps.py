"""Tables for runs of many cycles: replica steps (one row per copy) and DaemonSets (one row
per node). Everything shown comes from the :class:`Explanation`; no logic beyond layout."""

from __future__ import annotations

from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from kschedx.cli.render import fit
from kschedx.cli.render.console import make_console
from kschedx.cli.render.odds import copies_land
from kschedx.cli.render.table import S_BAD, S_BEST, S_DIM, S_LABEL, S_OK, S_PLUGIN, S_WARN, big, span
from kschedx.core.explain.report import TIE_WARNING_END, Explanation, summarize_step
from kschedx.core.framework.result import CycleResult


def _header(first: CycleResult, rows: list[tuple[str, Text]]) -> Table:
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style=S_LABEL, no_wrap=True)
    grid.add_column(overflow="fold")
    grid.add_row("Profile", Text(first.profile))
    for i, note in enumerate(first.notes):
        grid.add_row("Rule" if i == 0 else "", Text(note))
    for i, edit in enumerate(first.edits):
        grid.add_row("Edits" if i == 0 else "", Text(edit))
    for label, value in rows:
        grid.add_row(label, value)
    return grid


def _warnings(results: list[CycleResult], ties: bool = False) -> list[RenderableType]:
    """Each distinct warning once; with ``ties`` (a replica table, whose Tie column names
    them), the tied best nodes of every copy summed up in one line."""
    seen: dict[str, None] = {}
    tied = 0
    for r in results:
        for w in r.warnings:
            if ties and w.endswith(TIE_WARNING_END):
                tied += 1
            else:
                seen[w] = None
    if tied:
        seen[f"{tied} of {len(results)} {'copy ties' if len(results) == 1 else 'copies tie'} on the best total "
             f"with other nodes (the Tie column){TIE_WARNING_END}"] = None
    out: list[RenderableType] = []
    for w in seen:
        t = span("warning: ", style=S_WARN)
        t.append(w, style=S_DIM)
        out.append(fit.Hanging(t))
    return out


def _copies_label(first: str, want: int) -> str:
    """The copies' names as a range: NAME-{0…N-1}, or a StatefulSet's ordinals from the
    first one placed (its copy 0 may be NAME-3 when 0…2 already run)."""
    prefix, _, index = first.rpartition("-")
    start = int(index) if index.isdigit() else 0
    return f"{prefix}-{{{start}…{start + want - 1}}}" if want > 1 else first


# The tied nodes a replica row names before it gives their count (-o json lists them all).
TIE_NAMES = 3


def tie_cell(tie: list[str]) -> str:
    """The nodes tied with the chosen one: all of a few; of many (default spreading ties
    hundreds) their count and the first names, so the column stays narrow."""
    if len(tie) <= TIE_NAMES:
        return ", ".join(tie)
    return f"{len(tie)} nodes: {', '.join(tie[:TIE_NAMES])}, …"


def build_replicas(expl: Explanation, width: int = fit.UNLIMITED) -> list[RenderableType]:
    steps = expl.steps
    if not steps:
        # Nothing to place (a workload that already runs as written): no cycle to show.
        done = span("✓ nothing to place", style=S_OK)
        if expl.workload is not None:
            done.append(f": {expl.workload.line()}")
        return [done, *_rollout(expl)]
    placed = expl.replicas_placed
    want = expl.replicas_requested
    verdict = span("✓ all fit", style=S_OK) if placed == want else span(f"✗ {placed} of {want} fit", style=S_BAD)
    if placed == want:
        verdict.append(f": {placed} of {want} {'replica' if want == 1 else 'replicas'} placed")
    else:
        # Copies are numbered from 0, as the table's # column, the FitError line and the HTML do.
        verdict.append(f": copy {placed} does not fit")
    first = steps[0]
    pod = Text(_copies_label(first.pod, want))
    pod.append(f"  priority {first.pod_priority}", style=S_DIM)
    parts: list[RenderableType] = [_header(first, [("Pods", pod), ("Result", verdict)]), Text("")]

    cols = [fit.Col("#", justify="right", key="copy"), fit.Col("Node"), fit.Col("Total", justify="right"),
            fit.Col("Runner-up"), fit.Col("Margin", justify="right"), fit.Col("Tie", wrap=True)]
    rows: list[list[RenderableType]] = []
    for i, s in enumerate(steps):
        sm = summarize_step(s)
        if sm.node is None:
            rows.append([str(i), span("does not fit", style=S_BAD), "", "", "", ""])
            continue
        rows.append([
            str(i),
            span(sm.node, style=S_BEST),
            str(sm.total),
            f"{sm.runner_up} ({sm.runner_up_total})" if sm.runner_up else "—",
            str(sm.margin) if sm.margin is not None else "—",
            tie_cell(sm.tie),
        ])
    parts.append(span("Replica placement", style=S_LABEL))
    t = fit.table_or_stacked(cols, rows, width)
    parts.append(big(t))
    per_node: dict[str, int] = {}
    for s in steps:
        if s.selected_node:
            per_node[s.selected_node] = per_node.get(s.selected_node, 0) + 1
    if per_node:
        spread = ", ".join(f"{n} ×{c}" for n, c in sorted(per_node.items(), key=lambda kv: (-kv[1], kv[0])))
        parts.append(fit.Hanging(Text(f"Per node: {spread}", style=S_DIM)))
    last = steps[-1]
    if last.fit_error:
        t2 = span("FitError ", style=S_BAD)
        t2.append(f"(copy {len(steps) - 1}, {last.pod}) {last.fit_error}")
        parts.append(fit.Hanging(t2))
    parts.append(fit.Hanging(Text("Each copy is bound to the first best node by name before the next cycle; "
                      "-o json has every cycle in full.", style=S_DIM)))
    lands = copies_land(expl.chance)
    if lands:
        parts.append(Text(""))
        parts.append(fit.Hanging(span(lands[0], style=S_LABEL)))
        parts.extend(fit.Hanging(Text(line)) for line in lands[1:])
    parts.extend(_rollout(expl))
    parts.extend(_warnings(steps, ties=True))
    return parts


# The rollout's steps the table lists before it points to -o json for the rest.
ROLLOUT_LINES = 40


def _rollout(expl: Explanation) -> list[RenderableType]:
    """A running workload's change played to its end: the verdict, then step by step."""
    outcome = expl.workload.outcome if expl.workload is not None else None
    if outcome is None:
        return []
    head = span("✓ " if outcome.completes else "✗ ", style=S_OK if outcome.completes else S_BAD)
    head.append(outcome.summary())
    parts: list[RenderableType] = [Text(""), span("Rollout to the end", style=S_LABEL), fit.Hanging(head)]
    for i, event in enumerate(outcome.events[:ROLLOUT_LINES]):
        parts.append(fit.Hanging(Text(f"{i + 1:>3}. {event.line()}",
                                      style=S_BAD if event.action in ("pending", "refused") else "")))
    if len(outcome.events) > ROLLOUT_LINES:
        parts.append(Text(f"… {len(outcome.events) - ROLLOUT_LINES} more steps (-o json: workload.rollout.steps)",
                          style=S_DIM))
    return parts


def build_daemonset(expl: Explanation, width: int = fit.UNLIMITED) -> list[RenderableType]:
    first = expl.first
    # Pending daemon pods first (the surprise), then the nodes it runs on, then those not targeted.
    nodes = sorted(expl.daemon_nodes, key=lambda v: (0 if v.targeted and not v.fits else 1 if v.fits else 2, v.node))
    fits = sum(1 for v in nodes if v.fits)
    untargeted = sum(1 for v in nodes if not v.targeted)
    failing = len(nodes) - fits - untargeted
    verdict = span("✓", style=S_OK) if failing == 0 else span("✗", style=S_BAD)
    verdict.append(f" runs on {fits} of {len(nodes)} {'node' if len(nodes) == 1 else 'nodes'}")
    if untargeted:
        verdict.append(f"; {untargeted} not targeted (taints or the pod's node selector/affinity)")
    if failing:
        verdict.append(f"; {failing} targeted but unschedulable", style=S_BAD)
    ds = Text(f"{expl.daemonset}")
    ds.append(f"  pod priority {first.pod_priority}", style=S_DIM)
    parts: list[RenderableType] = [_header(first, [("DaemonSet", ds), ("Result", verdict)]), Text("")]
    cols = [fit.Col("Node", key=""), fit.Col("Verdict", key=""), fit.Col("Plugin", key=""),
            fit.Col("Reason", wrap=True, key="")]
    rows: list[list[RenderableType]] = []
    for v in nodes:
        if v.running:
            rows.append([v.node, span("running", style=S_OK), "", "already runs its daemon pod"])
        elif v.fits:
            rows.append([v.node, span("runs", style=S_OK), "", ""])
        elif not v.targeted:
            rows.append([v.node, span("not targeted", style=S_DIM), span(v.plugin or "", style=S_PLUGIN),
                         "; ".join(v.reasons)])
        else:
            rows.append([v.node, span("pending", style=S_BAD), span(v.plugin or "", style=S_PLUGIN),
                         "; ".join(v.reasons)])
    parts.append(span("Daemon pod per node", style=S_LABEL))
    t = fit.table_or_stacked(cols, rows, width)
    parts.append(big(t))
    parts.extend(_rollout(expl))
    parts.extend(_warnings([first]))
    return parts


def render_steps(expl: Explanation, *, no_color: bool = False, console: Console | None = None) -> None:
    console = console or make_console(no_color=no_color)
    parts = build_daemonset(expl, console.width) if expl.mode == "daemonset" else build_replicas(expl, console.width)
    console.print(Group(*parts))

"""``--node``: the story of one node, after the usual table — every filter's verdict, the
inputs behind each score, and what would change the outcome."""

from __future__ import annotations

from rich.console import Console, Group, RenderableType
from rich.text import Text

from kschedx.cli.render import fit
from kschedx.cli.render.console import make_console
from kschedx.cli.render.table import S_BAD, S_DIM, S_LABEL, S_OK, S_PLUGIN, span
from kschedx.core.framework.result import FAIL, PASS, CycleResult, NodeStory

_OUTCOME = {PASS: ("✓ pass", S_OK), FAIL: ("✗ fail", S_BAD)}


def build(story: NodeStory, width: int = fit.UNLIMITED) -> list[RenderableType]:
    title = span(f"Node {story.node}: ", style=S_LABEL)
    if story.feasible:
        title.append("feasible", style=S_OK)
        title.append(f", total {story.total}, rank {story.rank}" + ("" if story.rank == 1 else f" (winner {story.winner})"))
    else:
        title.append("not feasible", style=S_BAD)
        title.append(f" (rejected at {story.rejected_at})")
    parts: list[RenderableType] = [Text(""), fit.Hanging(title)]

    cols = [fit.Col("Plugin", key=""), fit.Col("Verdict", key=""), fit.Col("Reason", wrap=True, key="")]
    rows: list[list[RenderableType]] = []
    for f in story.filters:
        label, style = _OUTCOME.get(f.outcome, (f.outcome, S_DIM))
        reason = Text("; ".join(f.reasons))
        if f.reported:
            reason.append("  ← reported by the scheduler", style=S_DIM)
        rows.append([span(f.plugin, style=S_PLUGIN), span(label, style=style), reason])
    parts.append(span("Filters, in order", style=S_LABEL))
    parts.append(fit.table_or_stacked(cols, rows, width))

    if story.scores:
        cols = [fit.Col("Plugin", key=""), fit.Col("raw→norm×w", justify="right", key=""),
                fit.Col("Inputs", wrap=True, key="")]
        rows = []
        for s in story.scores:
            if s.skipped:
                rows.append([span(s.plugin, style=S_PLUGIN), span("skipped", style=S_DIM), ""])
                continue
            rows.append([span(s.plugin, style=S_PLUGIN), f"{s.raw}→{s.normalized}×{s.weight}={s.weighted}",
                         "\n".join(s.facts)])
        parts.append(span("Scores and their inputs", style=S_LABEL))
        parts.append(fit.table_or_stacked(cols, rows, width))

    if story.volumes:
        parts.append(span("Volumes on this node:", style=S_LABEL))
        for v in story.volumes:
            parts.append(fit.Hanging(Text(f"  • {v}")))
    if story.nominated:
        parts.append(span("Nominated pods on this node:", style=S_LABEL))
        parts.append(fit.Hanging(Text(f"  • {story.nominated}")))
    if story.devices:
        parts.append(span("Devices on this node (DynamicResources):", style=S_LABEL))
        for d in story.devices:
            parts.append(fit.Hanging(Text(f"  • {d}")))
    if story.device_candidates:
        from kschedx.core.plugins.dynamicresources_explain import render

        parts.append(span("Why each device was or was not picked:", style=S_LABEL))
        for line in render(story.device_candidates):
            parts.append(fit.Hanging(Text(f"  • {line}")))
    hint = span("What would change the outcome: ", style=S_LABEL)
    parts.append(hint)
    for h in story.hints:
        parts.append(fit.Hanging(Text(f"  • {h}")))
    return parts


def render_focus(story: NodeStory, *, no_color: bool = False, console: Console | None = None) -> None:
    console = console or make_console(no_color=no_color)
    console.print(Group(*build(story, console.width)))


def render_devices(result: CycleResult, *, no_color: bool = False, console: Console | None = None) -> None:
    """DynamicResources: the device each claim request would get on the selected node."""
    console = console or make_console(no_color=no_color)
    cols = [fit.Col(c, wrap=True) for c in ("Claim", "Request", "Driver", "Pool", "Device", "Slice")]
    rows: list[list[RenderableType]] = [
        [d["claim"], d["request"] or "-", d["driver"], d["pool"], d["device"], d.get("slice") or ""]
        for d in result.device_allocations]
    console.print(Group(fit.Hanging(span(f"Devices the claims would get on {result.selected_node}", style=S_LABEL)),
                        fit.table_or_stacked(cols, rows, console.width)))


def render_volumes(result: CycleResult, *, no_color: bool = False, console: Console | None = None) -> None:
    """``-o wide``: the pod's claim-backed volumes and the nodes each leaves possible."""
    console = console or make_console(no_color=no_color)
    parts: list[RenderableType] = [span("Volumes:", style=S_LABEL)]
    parts.extend(fit.Hanging(Text(f"  • {v}")) for v in result.volumes)
    console.print(Group(*parts))

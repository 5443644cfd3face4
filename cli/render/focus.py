"""``--node``: the story of one node, after the usual table — every filter's verdict, the
inputs behind each score, and what would change the outcome."""

from __future__ import annotations

from rich import box
from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from kschedx.cli.render.console import make_console
from kschedx.cli.render.table import S_BAD, S_DIM, S_LABEL, S_OK, S_PLUGIN, span
from kschedx.core.focus import FAIL, PASS, NodeStory
from kschedx.core.result import CycleResult

_OUTCOME = {PASS: ("✓ pass", S_OK), FAIL: ("✗ fail", S_BAD)}


def build(story: NodeStory) -> list[RenderableType]:
    title = span(f"Node {story.node}: ", style=S_LABEL)
    if story.feasible:
        title.append("feasible", style=S_OK)
        title.append(f", total {story.total}, rank {story.rank}" + ("" if story.rank == 1 else f" (winner {story.winner})"))
    else:
        title.append("not feasible", style=S_BAD)
        title.append(f" (rejected at {story.rejected_at})")
    parts: list[RenderableType] = [Text(""), title]

    ft = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False, title="Filters, in order",
               title_justify="left")
    ft.add_column("Plugin", no_wrap=True)
    ft.add_column("Verdict", no_wrap=True)
    ft.add_column("Reason", overflow="fold", ratio=1)
    for f in story.filters:
        label, style = _OUTCOME.get(f.outcome, (f.outcome, S_DIM))
        reason = Text("; ".join(f.reasons))
        if f.reported:
            reason.append("  ← reported by the scheduler", style=S_DIM)
        ft.add_row(span(f.plugin, style=S_PLUGIN), span(label, style=style), reason)
    parts.append(ft)

    if story.scores:
        st = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False, title="Scores and their inputs",
                   title_justify="left")
        st.add_column("Plugin", no_wrap=True)
        st.add_column("raw→norm×w", justify="right", no_wrap=True)
        st.add_column("Inputs", overflow="fold", ratio=1)
        for s in story.scores:
            if s.skipped:
                st.add_row(span(s.plugin, style=S_PLUGIN), span("skipped", style=S_DIM), "")
                continue
            st.add_row(span(s.plugin, style=S_PLUGIN), f"{s.raw}→{s.normalized}×{s.weight}={s.weighted}",
                       "\n".join(s.facts))
        parts.append(st)

    if story.volumes:
        parts.append(span("Volumes on this node:", style=S_LABEL))
        for v in story.volumes:
            parts.append(Text(f"  • {v}"))
    if story.nominated:
        parts.append(span("Nominated pods on this node:", style=S_LABEL))
        parts.append(Text(f"  • {story.nominated}"))
    if story.devices:
        parts.append(span("Devices on this node (DynamicResources):", style=S_LABEL))
        for d in story.devices:
            parts.append(Text(f"  • {d}"))
    hint = span("What would change the outcome: ", style=S_LABEL)
    parts.append(hint)
    for h in story.hints:
        parts.append(Text(f"  • {h}"))
    return parts


def render_focus(story: NodeStory, *, no_color: bool = False, console: Console | None = None) -> None:
    console = console or make_console(no_color=no_color)
    console.print(Group(*build(story)))


def render_devices(result: CycleResult, *, no_color: bool = False, console: Console | None = None) -> None:
    """DynamicResources: the device each claim request would get on the selected node."""
    console = console or make_console(no_color=no_color)
    t = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False, title_justify="left",
              title=f"Devices the claims would get on {result.selected_node}")
    for col in ("Claim", "Request", "Driver", "Pool", "Device", "Slice"):
        t.add_column(col, overflow="fold")
    for d in result.device_allocations:
        t.add_row(d["claim"], d["request"] or "-", d["driver"], d["pool"], d["device"], d.get("slice") or "")
    console.print(t)


def render_volumes(result: CycleResult, *, no_color: bool = False, console: Console | None = None) -> None:
    """``-o wide``: the pod's claim-backed volumes and the nodes each leaves possible."""
    console = console or make_console(no_color=no_color)
    parts: list[RenderableType] = [span("Volumes:", style=S_LABEL)]
    parts.extend(Text(f"  • {v}") for v in result.volumes)
    console.print(Group(*parts))

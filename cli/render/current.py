"""One line on where an explained pod that exists in the cluster is now, and whether the
cycle agrees (``CycleResult.current``)."""

from __future__ import annotations

from rich.text import Text

from kschedx.core.framework.result import CycleResult


def current_line(result: CycleResult, ok: str = "bold green", bad: str = "bold red") -> Text:
    cur = result.current
    t = Text()
    if cur is None:
        return t
    if cur.node is None:
        t.append(cur.phase)
        if cur.nominated_node:
            t.append(f", nominated to {cur.nominated_node}")
        t.append(" (taken out of the snapshot for this cycle)")
        return t
    t.append(f"on {cur.node} ({cur.phase}): ")
    if cur.agrees:
        t.append("✓ this cycle agrees", style=ok)
        return t
    picks = f"picks {result.selected_node}" if result.selected_node else "finds no node"
    t.append(f"≠ this cycle {picks}", style=bad)
    if cur.causes:
        t.append("; likely: " + "; ".join(cur.causes))
    return t

"""Rich table rendering (minimal first version)."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from kschedx.core.result import CycleResult


def render_table(result: CycleResult, *, wide: bool = False, top: int | None = None, no_color: bool = False) -> None:
    console = Console(no_color=no_color)
    console.print(f"pod {result.pod}  profile {result.profile}")
    table = Table()
    table.add_column("node")
    table.add_column("total")
    table.add_column("verdict")
    for name, v in sorted(result.nodes.items(), key=lambda kv: (-result.totals.get(kv[0], -1), kv[0])):
        if v.feasible:
            table.add_row(name, str(result.totals.get(name, "")), "feasible")
        else:
            table.add_row(name, "", f"{v.plugin}: {', '.join(v.reasons)}")
    console.print(table)
    if result.fit_error:
        console.print(result.fit_error)

"""Output of a comparison (--compare-version, --compare-config, --compare-feature-gates):
only what changes between the two setups."""

from __future__ import annotations

import sys
from typing import Any

from rich.text import Text

from kschedx.cli.render.markdown import md_cell


def _setup_line(label: str, data: dict[str, Any], config: str | None, gates: str | None) -> str:
    version = data.get("kubernetesVersion")
    if version is None:  # replica runs and check reports: the first cycle's
        steps = data.get("steps") or []
        results = data.get("results") or []
        if steps:
            version = steps[0].get("kubernetesVersion")
        elif results and results[0].get("explanation"):
            expl = results[0]["explanation"]
            version = expl.get("kubernetesVersion") or ((expl.get("steps") or [{}])[0]).get("kubernetesVersion")
    parts = [f"Kubernetes {version or '?'}", f"config {config or '(defaults)'}"]
    if gates:
        parts.append(f"feature gates {gates}")
    return f"{label}: " + ", ".join(parts)


def render_comparison(comparison: Any, fmt: str, *, base: tuple[str | None, str | None],
                      compare: tuple[str | None, str | None], no_color: bool = False) -> None:
    """``base``/``compare``: (config, feature gates) of each setup, for the header."""
    if fmt in ("json", "yaml"):
        from kschedx.cli.render.json_yaml import render_json, render_yaml

        (render_json if fmt == "json" else render_yaml)(comparison)
        return
    from kschedx.cli.render.console import make_console
    from kschedx.core.explain.compare import CheckComparison, check_change_lines, summary_lines

    data = comparison.to_json()
    heads = (_setup_line("Base   ", data["base"], *base), _setup_line("Compare", data["compare"], *compare))
    groups = check_change_lines(comparison) if isinstance(comparison, CheckComparison) else None
    if fmt == "markdown" and groups is not None:
        _render_markdown((_setup_line("**Base**", data["base"], *base),
                          _setup_line("**Compare**", data["compare"], *compare)), groups)
        return
    console = make_console(no_color=no_color)
    for head in heads:
        console.print(Text(head, style="bold"))
    lines = summary_lines(comparison) if groups is None else [line for _, ls in groups for line in ls]
    if not lines:
        console.print(Text("No change: same verdicts, nodes, ties, reasons and FitErrors.", style="green"))
        return
    if groups is None:
        console.print(Text(f"{len(lines)} change(s):", style="yellow"))
        for line in lines:
            console.print(Text(f"  {line}"))
        return
    console.print(Text(f"{len(lines)} change(s) in {len(groups)} workload(s):", style="yellow"))
    for heading, ls in groups:
        console.print(Text(f"  {heading}", style="bold"))
        for line in ls:
            console.print(Text(f"    {line}"))


def _render_markdown(heads: tuple[str, str], groups: list[tuple[str, list[str]]]) -> None:
    """A CI job summary: the two setups, then one table row per change."""
    out = [heads[0], "", heads[1], ""]
    if not groups:
        out.append("No change: same verdicts, nodes, ties, reasons and FitErrors.")
    else:
        out += ["| Workload | Change |", "|---|---|"]
        out += [f"| `{md_cell(heading)}` | {md_cell(line)} |" for heading, ls in groups for line in ls]
    sys.stdout.write("\n".join(out) + "\n")



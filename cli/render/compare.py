"""Output of a comparison (--compare-version, --compare-config, --compare-feature-gates):
only what changes between the two setups."""

from __future__ import annotations

from typing import Any

from rich.text import Text


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
    from kschedx.core.explain.compare import summary_lines

    console = make_console(no_color=no_color)
    data = comparison.to_json()
    console.print(Text(_setup_line("Base   ", data["base"], *base), style="bold"))
    console.print(Text(_setup_line("Compare", data["compare"], *compare), style="bold"))
    lines = summary_lines(comparison)
    if not lines:
        console.print(Text("No change: same verdicts, nodes, ties, reasons and FitErrors.", style="green"))
        return
    console.print(Text(f"{len(lines)} change(s):", style="yellow"))
    for line in lines:
        console.print(Text(f"  {line}"))

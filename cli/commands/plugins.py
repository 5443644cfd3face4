"""``kschedx plugins``: the plugins of each scheduler profile, per extension point, in order.

Loads the KubeSchedulerConfiguration (or the chosen release's defaults), lets the engine build the
profiles exactly as kube-scheduler does (:func:`kschedx.core.config.profile.plugins_report`) and
renders the result: a Rich table per profile, or the same data as JSON or YAML.
"""

from __future__ import annotations

import json
import os
import sys
from enum import StrEnum
from typing import Annotated, Any

import typer

from kschedx.cli import complete
from kschedx.cli.common import engine_errors
from kschedx.cli.options import ConfigFile, Debug, FeatureGates, KubernetesVersion, NoColor


class Output(StrEnum):
    table = "table"
    json = "json"
    yaml = "yaml"


def plugins(
    config: ConfigFile = None,
    kubernetes_version: KubernetesVersion = None,
    feature_gates: FeatureGates = None,
    profile: Annotated[
        str | None,
        typer.Option("--profile", metavar="NAME",
                     autocompletion=complete.profiles, help="Show only this profile [default: every profile].",
                     show_default=False),
    ] = None,
    output: Annotated[
        Output,
        typer.Option("--output", "-o", metavar="FORMAT", help="table, json or yaml.", case_sensitive=False),
    ] = Output.table,
    no_color: NoColor = False,
    debug: Debug = False,
) -> None:
    """Show the configured plugins per extension point, with score weights and effective args.

    Exit codes: 0 shown, 2 invalid configuration or unknown profile.
    """
    with engine_errors(debug, config or "the default configuration"):
        from kschedx.core.config.profile import default_config, load_config, plugins_report
        from kschedx.core.plugins import REGISTRY
        from kschedx.core.versions import NEWEST, SchedulerVersion, parse_feature_gates, parse_version

        # No cluster to ask: the newest supported release unless one is given.
        name = parse_version(kubernetes_version) if kubernetes_version else NEWEST
        version = SchedulerVersion(name, parse_feature_gates(feature_gates, name))
        loaded = load_config(config, REGISTRY, version) if config is not None else default_config(REGISTRY, version)
        report = plugins_report(loaded, REGISTRY, profile)

    if output == Output.json:
        sys.stdout.write(json.dumps(report, indent=2) + "\n")
    elif output == Output.yaml:
        import yaml

        dumper: Any = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
        sys.stdout.write(str(yaml.dump(report, Dumper=dumper, sort_keys=False, default_flow_style=False)))
    else:
        render_table(report, no_color=no_color or os.environ.get("NO_COLOR", "") != "")


def _args_text(args: dict[str, Any]) -> str:
    import yaml

    if not args:
        return "{}"
    return str(yaml.safe_dump(args, sort_keys=False, default_flow_style=None, width=70)).rstrip()


def render_table(report: dict[str, Any], *, no_color: bool = False) -> None:
    from rich.text import Text

    from kschedx.cli.render import fit
    from kschedx.cli.render.console import make_console

    console = make_console(no_color=no_color)
    source = report["config"] or f"{report['kubernetesVersion']} defaults (no --config)"
    console.print(Text(f"Scheduler configuration: {source}", style="bold"))
    console.print(Text(f"Kubernetes {report['kubernetesVersion']} (kube-scheduler's plugins, weights and defaults of "
                       "that release; --kubernetes-version to choose another)", style="dim"))
    for prof in report["profiles"]:
        pct = prof["percentageOfNodesToScore"]
        pct_text = f"{pct}%" if pct else "adaptive (0)"
        console.print()
        console.print(fit.Hanging(Text(f"Profile {prof['schedulerName']}  (percentageOfNodesToScore: {pct_text})",
                                       style="bold cyan")))
        neutral = [p for p, d in prof["extensionPoints"].items() if not d["evaluated"]]
        # A plugin the engine does not run offline says so under its name (words that may
        # wrap; plugin names never do, being the longest words).
        cols = [fit.Col("Point", key=""), fit.Col("#", justify="right", key=""), fit.Col("Plugin", wrap=True, key=""),
                fit.Col("Weight", justify="right")]
        rows: list[list[Any]] = []
        sections: list[int] = []
        points = list(prof["extensionPoints"].items())
        for point, data in points:
            plugins = data["plugins"]
            if sections or rows:
                sections.append(len(rows) - 1)
            if not plugins:
                rows.append([point, "", "-", ""])
                continue
            for j, pl in enumerate(plugins):
                name = Text(pl["name"])
                if data["evaluated"] and not pl["evaluated"]:
                    name.append("\nnot evaluated offline", style="dim")
                rows.append([point if j == 0 else "", str(j + 1), name, str(pl["weight"]) if "weight" in pl else ""])
        console.print(fit.table_or_stacked(cols, rows, console.width, sections=sections))
        neutral = [p for p, d in prof["extensionPoints"].items() if not d["evaluated"]]
        console.print(fit.Hanging(Text(f"{', '.join(neutral)}: no effect on where the pod lands, listed only.")))
        args = prof["pluginArgs"]
        if args:
            arg_rows: list[list[Any]] = []
            for name, value in args.items():
                text = _args_text(value)
                if name == "PodTopologySpread" and value.get("defaultingType") == "System":
                    # What System defaulting means, since the args themselves list nothing.
                    text += ("\n# system default constraints (ScheduleAnyway): "
                             "kubernetes.io/hostname maxSkew 3, topology.kubernetes.io/zone maxSkew 5")
                arg_rows.append([name, text])
            console.print()
            console.print(Text("Plugin args (defaulted)", style="bold"))
            arg_table = fit.fit_table([fit.Col("Plugin"), fit.Col("Args", wrap=True)], arg_rows, console.width,
                                      sections=range(len(arg_rows) - 1))
            if arg_table is not None:
                console.print(arg_table)
            else:
                # Narrow screen: each plugin's name, its YAML lines indented under it.
                for name, text in arg_rows:
                    console.print(Text(name))
                    for line in text.split("\n"):
                        console.print(fit.Hanging(Text(" " * fit.INDENT + line), 2 * fit.INDENT))
    for w in report["warnings"]:
        console.print(fit.Hanging(Text(f"warning: {w}", style="yellow")))

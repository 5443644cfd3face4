"""``kschedx pending``: every Pending pod of the cluster source, one line each.

Parses options, calls the engine (:mod:`kschedx.core.explain.pending`), hands the report to its
renderer. No scheduling logic here.
"""

from __future__ import annotations

import os
import sys
from enum import StrEnum
from typing import Annotated

import typer

from kschedx.cli import options as shared
from kschedx.cli.common import EXIT_FITS, EXIT_UNSCHEDULABLE, engine_errors, progress_bar
from kschedx.cli.options import ClusterFiles, ConfigFile, Context, Debug, Kubeconfig, NoColor, RequestTimeout


class Output(StrEnum):
    table = "table"
    wide = "wide"
    json = "json"
    yaml = "yaml"
    markdown = "markdown"
    html = "html"


def explain_command(cluster: list[str] | None, kubeconfig: str | None, context: str | None,
                    config: str | None) -> str:
    """The command that explains one pending pod alone on the same source ({ref}: the pod)."""
    import shlex

    words = ["kschedx", "explain", "{ref}"]
    for f in cluster or []:
        words += ["--snapshot", shlex.quote(f)]
    if not cluster:
        words += [*(["--kubeconfig", shlex.quote(kubeconfig)] if kubeconfig else []),
                  *(["--context", shlex.quote(context)] if context else [])]
    if config:
        words += ["--config", shlex.quote(config)]
    return " ".join([*words, "-o", "html"])


def pending(
    cluster: ClusterFiles = None,
    kubeconfig: Kubeconfig = None,
    context: Context = None,
    request_timeout: RequestTimeout = None,
    namespace: Annotated[
        str | None,
        typer.Option("--namespace", "-n", metavar="NS", help="Only the pods of namespace NS [default: all].",
                     show_default=False),
    ] = None,
    selector: Annotated[
        str | None,
        typer.Option("--selector", "-l", metavar="SELECTOR",
                     help="Only the pods whose labels match, as kubectl takes it (a=b,c!=d,e in (x,y),f,!g).",
                     show_default=False),
    ] = None,
    config: ConfigFile = None,
    kubernetes_version: shared.KubernetesVersion = None,
    feature_gates: shared.FeatureGates = None,
    compare_version: shared.CompareVersion = None,
    compare_config: shared.CompareConfig = None,
    compare_feature_gates: shared.CompareFeatureGates = None,
    output: Annotated[
        Output,
        typer.Option("--output", "-o", metavar="FORMAT", help="table, wide, json, yaml, markdown or html (one "
                     "self-contained file).",
                     case_sensitive=False),
    ] = Output.table,
    no_color: NoColor = False,
    debug: Debug = False,
) -> None:
    """Explain every Pending pod: would it fit now (where), or why not (the FitError), gated,
    nominated to a node, or for another scheduler; and whether the scheduler's last
    FailedScheduling event says the same (= agrees, ≠ differs).

    Exit codes: 0 every pending pod would fit now, 1 at least one would not, 2 usage or
    input error, 3 cluster access error. With a comparison (--compare-*): 1 when any pod's
    verdict changes.
    """
    with engine_errors(debug, ", ".join(cluster or []) or "the live cluster"), progress_bar():
        from kschedx.core.explain import front as engine
        from kschedx.core.explain.pending import explain_pending

        warnings: list[str] = []
        if cluster:
            objects = engine.load_cluster_files(cluster)
            source = ", ".join(cluster)
        else:
            # The pods' FailedScheduling Events come with the listing (one filtered list).
            objects, warnings = engine.load_live_cluster(engine.connect_live(kubeconfig, context, request_timeout),
                                                         events=True)
            source = "the live cluster"
        warnings.extend(objects.load_warnings)
        options = engine.Options(kubernetes_version=kubernetes_version, feature_gates=feature_gates)
        comparison = None
        if compare_version or compare_config or compare_feature_gates:
            # Both setups on the same cluster; exit 1 when any pod's verdict changes.
            from kschedx.core.explain import compare as cmp
            from kschedx.core.explain.pending import pending_compared

            setup = cmp.compare_setup(cmp.Setup(kubernetes_version, config, feature_gates), version=compare_version,
                                      config=compare_config, gates=compare_feature_gates)
            comparison = pending_compared(objects, namespace=namespace, selector=selector, options=options,
                                          config=config, compare=setup, source=source)
            report = comparison.base
        else:
            report = explain_pending(objects, namespace=namespace, selector=selector, config=config, options=options,
                                     source=source)
        report.warnings[:0] = warnings
    for w in report.warnings:
        sys.stderr.write(f"warning: {w}\n")
    no_color = no_color or os.environ.get("NO_COLOR", "") != ""
    if comparison is not None:
        from kschedx.cli.render.pending import render_pending_comparison

        render_pending_comparison(comparison, output.value, base=(config, feature_gates),
                                  compare=(setup.config, setup.feature_gates))
        raise typer.Exit(comparison.exit_code)
    if output is Output.html:
        from kschedx.cli.render.html import render_pending_html
        from kschedx.cli.render.pending import html_rows

        render_pending_html(html_rows(report), source=source, kubernetes_version=report.kubernetes_version,
                            explain_command=explain_command(cluster, kubeconfig, context, config))
        raise typer.Exit(EXIT_FITS if report.ok else EXIT_UNSCHEDULABLE)

    from kschedx.cli.render.pending import render_pending

    render_pending(report, output.value, no_color=no_color, source=source)
    raise typer.Exit(EXIT_FITS if report.ok else EXIT_UNSCHEDULABLE)

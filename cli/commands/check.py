"""``kschedx check``: one verdict line per pod-bearing document, with CI exit codes."""

from __future__ import annotations

import os
import sys
from enum import StrEnum
from typing import Annotated

import typer

from kschedx.cli import complete
from kschedx.cli import options as shared
from kschedx.cli.common import DUMP_OR_KUBECONFIG, engine_errors, fail, progress_bar, require_dumps
from kschedx.cli.options import (
    AlgorithmName,
    ClusterFiles,
    ConfigFile,
    Context,
    Debug,
    Kubeconfig,
    NoColor,
    Offline,
    PolicyFile,
    RequestTimeout,
)


class Output(StrEnum):
    table = "table"
    json = "json"
    yaml = "yaml"
    markdown = "markdown"
    html = "html"
    junit = "junit"
    sarif = "sarif"


def check(
    manifests: Annotated[
        list[str] | None,
        typer.Argument(metavar="MANIFEST...", help="Files, directories (walked for .yaml/.yml/.json) or - for stdin.",
                       show_default=False),
    ] = None,
    filenames: Annotated[
        list[str] | None,
        typer.Option("--filename", "-f", metavar="PATH", help="A file or directory to check, as kubectl takes it "
                     "(repeatable; with or instead of MANIFEST...).", show_default=False),
    ] = None,
    kustomize: Annotated[
        list[str] | None,
        typer.Option("--kustomize", "-k", metavar="DIR", help="A kustomization to check as kubectl apply -k applies "
                     "it: rendered by kubectl kustomize DIR (or kustomize build DIR) from PATH (repeatable).",
                     show_default=False),
    ] = None,
    exclude_globs: Annotated[
        list[str] | None,
        typer.Option("--exclude", metavar="GLOB", help="Leave out files and folders matching GLOB (the path below a "
                     "given directory, or the name; repeatable), e.g. --exclude 'test/**' --exclude '*.tmpl.yaml'.",
                     show_default=False),
    ] = None,
    cluster: ClusterFiles = None,
    kubeconfig: Kubeconfig = None,
    context: Context = None,
    request_timeout: RequestTimeout = None,
    namespace: Annotated[
        str | None,
        typer.Option("--namespace", "-n", metavar="NS", help="Namespace of the pods [default: each manifest's, "
                     "else default].", show_default=False),
    ] = None,
    config: ConfigFile = None,
    kubernetes_version: shared.KubernetesVersion = None,
    feature_gates: shared.FeatureGates = None,
    compare_version: shared.CompareVersion = None,
    compare_config: shared.CompareConfig = None,
    compare_feature_gates: shared.CompareFeatureGates = None,
    profile: Annotated[
        str | None,
        typer.Option("--profile", metavar="NAME",
                     autocompletion=complete.profiles, help="Scheduler profile [default: each pod's schedulerName, "
                     "else default-scheduler].", show_default=False),
    ] = None,
    algorithm: AlgorithmName = None,
    policy: PolicyFile = None,
    offline: Offline = False,
    output: Annotated[
        Output,
        typer.Option("--output", "-o", metavar="FORMAT", help="table, json, yaml, markdown (for CI job summaries), html (one "
                     "self-contained file), junit (a JUnit XML test report, one test case per workload) or sarif (SARIF 2.1.0, "
                     "for code scanning).",
                     case_sensitive=False),
    ] = Output.table,
    separately: Annotated[
        bool,
        typer.Option("--separately", help="Check each manifest alone on the cluster as it is, as if no other "
                     "manifest were applied [default: the manifests are one release, placed together in the "
                     "scheduling queue's order]."),
    ] = False,
    detail: Annotated[
        bool,
        typer.Option("--detail", help="-o json/yaml: every cycle's per-node tables too (each node's verdict and "
                     "scores), not only the verdicts, counts, nodes chosen and FitErrors."),
    ] = False,
    samples: Annotated[
        int | None,
        typer.Option("--samples", metavar="S", min=0,
                     help="Play the release S more times with what a real cluster leaves to chance (the order the "
                     "controllers create the workloads' pods, the scheduler's scan start and ties) and give each "
                     "workload's unplaced pods as a range; 0 leaves it out. Default: 4 to 16 samples where the order "
                     "shown leaves pods unplaced, none where it places them all.", show_default=False),
    ] = None,
    seed: Annotated[
        int,
        typer.Option("--seed", metavar="SEED", help="The seed of those samples (the same output on every run)."),
    ] = 0,
    verbose: Annotated[
        bool,
        typer.Option("--verbose", "-v", help="List every skipped file and every document named twice, not only "
                     "their counts and the first ten."),
    ] = False,
    no_color: NoColor = False,
    debug: Debug = False,
) -> None:
    """Check that a release fits: its pod-bearing documents placed together, each with its replica count.

    The pods of all documents are placed on the same cluster, one workload after another in the
    scheduling queue's order (priority, higher first, then the files' order, documents in
    order), so later workloads see the room, ports and spreading the earlier ones took.
    --separately checks each document alone instead.

    Where the order shown leaves pods unplaced (or with --samples), the release is played again
    with what a real cluster leaves to chance, and each workload's unplaced pods given as a range.

    Exit codes: 0 every manifest fits, 1 at least one does not (or only partly, or not in
    every sampled order), 2 a usage
    or input error (a file that can't be read is reported and the others still checked),
    3 cluster access error. With a comparison (--compare-*): 1 when any verdict changes.
    """
    manifests = [*(manifests or []), *(filenames or [])]
    if not manifests and not kustomize:
        raise fail("nothing to check: give MANIFEST... or -f/--filename PATH or -k/--kustomize DIR")
    require_dumps(cluster)
    with engine_errors(debug, ", ".join([*manifests, *(kustomize or [])]), DUMP_OR_KUBECONFIG), progress_bar():
        from kschedx.core.explain import front as engine
        from kschedx.core.explain.check import check_paths

        if kustomize:
            from kschedx.core.load.kustomize import render

            manifests.extend(render(folder) for folder in kustomize)

        warnings: list[str] = []
        if cluster:
            objects = engine.load_cluster_files(cluster)
        else:
            objects, warnings = engine.load_live_cluster(engine.connect_live(kubeconfig, context, request_timeout))
        warnings.extend(objects.load_warnings)
        options = engine.Options(profile=profile, algorithm=algorithm.value if algorithm else None, policy=policy,
                                 offline=offline, kubernetes_version=kubernetes_version, feature_gates=feature_gates,
                                 samples=samples, seed=seed)
        source = ", ".join(cluster) if cluster else "the live cluster"
        if compare_version or compare_config or compare_feature_gates:
            # Both setups on the same cluster; exit 1 when any verdict changes.
            from kschedx.core.explain import compare as cmp

            setup = cmp.compare_setup(cmp.Setup(kubernetes_version, config, feature_gates), version=compare_version,
                                      config=compare_config, gates=compare_feature_gates)
            comparison = cmp.check_compared(manifests, objects, namespace=namespace, options=options, config=config,
                                            compare=setup, source=source, exclude=cluster or None,
                                            exclude_globs=exclude_globs, separately=separately)
        else:
            comparison = None
            report = check_paths(manifests, objects, namespace=namespace, options=options, config=config,
                                 source=source, exclude=cluster or None, exclude_globs=exclude_globs,
                                 separately=separately)
    for w in warnings:
        sys.stderr.write(f"warning: {w}\n")
    if comparison is not None:
        from kschedx.cli.render.compare import render_comparison

        render_comparison(comparison, output.value if output.value in ("json", "yaml", "markdown") else "table",
                          base=(config, feature_gates), compare=(setup.config, setup.feature_gates),
                          no_color=no_color or os.environ.get("NO_COLOR", "") != "")
        raise typer.Exit(comparison.exit_code)

    source = ", ".join(cluster) if cluster else "the live cluster"
    from kschedx.cli.render.github import annotate

    annotate(report, source)  # GitHub Actions only: annotations and the job summary
    if output is Output.junit:
        from kschedx.cli.render.junit import render_junit

        render_junit(report, source=source)
        raise typer.Exit(report.exit_code)
    if output is Output.sarif:
        from kschedx.cli.render.sarif import render_sarif

        render_sarif(report)
        raise typer.Exit(report.exit_code)
    if output is Output.html:
        from kschedx.cli.render.html import render_check_html

        render_check_html(report, source=", ".join(cluster) if cluster else "the live cluster")
        raise typer.Exit(report.exit_code)
    report.detail = detail
    from kschedx.cli.render.check import render_check

    render_check(report, output.value, no_color=no_color or os.environ.get("NO_COLOR", "") != "",
                 source=", ".join(cluster) if cluster else "the live cluster", verbose=verbose)
    raise typer.Exit(report.exit_code)

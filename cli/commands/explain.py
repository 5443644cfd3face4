"""``kschedx explain``: one scheduling cycle of one pod, explained.

Parses options, calls the engine's front door (:mod:`kschedx.core.explain.front`), and hands
the :class:`~kschedx.core.framework.result.CycleResult` to a renderer. No scheduling logic here.
"""

from __future__ import annotations

import os
from enum import StrEnum
from typing import Annotated, Any

import typer

from kschedx.cli import complete
from kschedx.cli import options as shared
from kschedx.cli.common import (
    DUMP_OR_KUBECONFIG,
    EXIT_FITS,
    EXIT_UNSCHEDULABLE,
    engine_errors,
    fail,
    progress_bar,
    require_dumps,
)
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
    wide = "wide"
    json = "json"
    yaml = "yaml"
    html = "html"


def explain(
    manifest: Annotated[
        str | None,
        typer.Argument(metavar="MANIFEST", autocompletion=complete.manifests,
                       help="Pod or workload manifest (a path, or - for stdin), or an object of the "
                       "cluster: pod/NAME, deploy/NAME, sts/, ds/, rs/, job/, cj/ (with -n NS).", show_default=False),
    ] = None,
    filename: Annotated[
        str | None,
        typer.Option("--filename", "-f", metavar="FILE", help="The manifest, as kubectl takes it (instead of MANIFEST).",
                     show_default=False),
    ] = None,
    kustomize: Annotated[
        str | None,
        typer.Option("--kustomize", "-k", metavar="DIR", help="The manifest a kustomization renders, as kubectl apply -k "
                     "renders it (kubectl kustomize DIR, or kustomize build DIR, from PATH; instead of MANIFEST).",
                     show_default=False),
    ] = None,
    cluster: ClusterFiles = None,
    kubeconfig: Kubeconfig = None,
    context: Context = None,
    request_timeout: RequestTimeout = None,
    namespace: Annotated[
        str | None,
        typer.Option("--namespace", "-n", metavar="NS", help="Namespace of the pod [default: the manifest's, else default].",
                     show_default=False),
    ] = None,
    doc: Annotated[
        str | None,
        typer.Option("--doc", metavar="NAME", help="Pick the document NAME (or KIND/NAME) of a multi-document manifest.",
                     show_default=False),
    ] = None,
    config: ConfigFile = None,
    kubernetes_version: shared.KubernetesVersion = None,
    feature_gates: shared.FeatureGates = None,
    compare_version: shared.CompareVersion = None,
    compare_config: shared.CompareConfig = None,
    compare_feature_gates: shared.CompareFeatureGates = None,
    profile: Annotated[
        str | None,
        typer.Option("--profile", metavar="NAME", autocompletion=complete.profiles,
                     help="Scheduler profile [default: the pod's schedulerName, else default-scheduler].",
                     show_default=False),
    ] = None,
    algorithm: AlgorithmName = None,
    policy: PolicyFile = None,
    offline: Offline = False,
    replicas: Annotated[
        str | None,
        typer.Option("--replicas", metavar="N|auto",
                     help="Place N copies one after another, each bound where the previous cycle put it; "
                     "'auto' takes the workload's own count.", show_default=False),
    ] = None,
    samples: Annotated[
        int | None,
        typer.Option("--samples", metavar="S", min=0,
                     help="With --replicas: play the copies' chain S times with the scheduler's chance (the scan's "
                     "start, ties) and show the copies expected per node and zone; 0 leaves it out. Default: 100, "
                     "fewer (at least 4) as copies × nodes grow.", show_default=False),
    ] = None,
    seed: Annotated[
        int,
        typer.Option("--seed", metavar="SEED", help="With --replicas: the seed of those samples (the same output "
                     "on every run)."),
    ] = 0,
    cordon: Annotated[
        list[str] | None,
        typer.Option("--cordon", metavar="NODE",
                     autocompletion=complete.node_names, help="Cordon NODE first (repeatable).", show_default=False),
    ] = None,
    drain: Annotated[
        list[str] | None,
        typer.Option("--drain", metavar="NODE", autocompletion=complete.node_names,
                     help="Cordon NODE and evict its pods (not DaemonSet or static pods) to Pending (repeatable).",
                     show_default=False),
    ] = None,
    without_node: Annotated[
        list[str] | None,
        typer.Option("--without-node", metavar="NODE",
                     autocompletion=complete.node_names, help="Remove NODE and its pods (repeatable).",
                     show_default=False),
    ] = None,
    add_node: Annotated[
        list[str] | None,
        typer.Option("--add-node", metavar="FILE", help="Add the Node(s) of FILE, e.g. a new pool's template "
                     "(repeatable).", show_default=False),
    ] = None,
    add_node_count: Annotated[
        int,
        typer.Option("--add-node-count", metavar="K", min=1, help="Add K copies of each --add-node node, "
                     "named NAME-0 … NAME-{K-1}."),
    ] = 1,
    output: Annotated[
        Output,
        typer.Option("--output", "-o", metavar="FORMAT", help="table, wide, json, yaml or html (one self-contained file).",
                     case_sensitive=False),
    ] = Output.table,
    top: Annotated[
        int | None,
        typer.Option("--top", metavar="K", min=1, help="Show only the first K node rows of the table.",
                     show_default=False),
    ] = None,
    node: Annotated[
        str | None,
        typer.Option("--node", metavar="NODE",
                     autocompletion=complete.node_names, help="The whole story of NODE: every filter's verdict, the inputs "
                     "behind each score, and what would change the outcome.", show_default=False),
    ] = None,
    no_preemption: Annotated[
        bool,
        typer.Option("--no-preemption", help="When nothing fits, don't run PostFilter (DefaultPreemption's victim "
                     "search)."),
    ] = False,
    all_reasons: Annotated[
        bool,
        typer.Option("--all-reasons", help="List every failing filter per node, not only the first (the one the "
                     "scheduler reports)."),
    ] = False,
    no_color: NoColor = False,
    debug: Debug = False,
) -> None:
    """Explain where a pod would land, and why not on the other nodes.

    Exit codes: 0 the pod fits, 1 unschedulable, 2 usage or input error, 3 cluster access error.
    With a comparison (--compare-*): 0 no verdict changes, 1 a verdict changes.
    """
    if sum(x is not None for x in (manifest, filename, kustomize)) != 1:
        raise fail("give the manifest once: MANIFEST, -f/--filename FILE or -k/--kustomize DIR")
    if kustomize is not None:
        from kschedx.core.load.kustomize import render

        with engine_errors(debug, kustomize):
            manifest = render(kustomize)
    manifest = manifest if manifest is not None else filename
    assert manifest is not None
    require_dumps(cluster)
    if compare_version or compare_config or compare_feature_gates:
        _explain_compared(manifest, cluster, (kubeconfig, context, request_timeout), namespace, doc, config, kubernetes_version,
                          feature_gates, compare_version, compare_config, compare_feature_gates, profile,
                          replicas, output.value, no_color, debug)
        return
    with engine_errors(debug, manifest, DUMP_OR_KUBECONFIG), progress_bar():
        from kschedx.core.explain import front as engine
        from kschedx.core.explain.whatif import Edits

        options = engine.Options(profile=profile, all_reasons=all_reasons, focus=node, post_filter=not no_preemption,
                                 algorithm=algorithm.value if algorithm else None, policy=policy, offline=offline,
                                 kubernetes_version=kubernetes_version, feature_gates=feature_gates,
                                 samples=(-1 if samples is None else samples) if replicas is not None else None,
                                 seed=seed)
        edits = Edits(cordon=cordon or [], drain=drain or [], without=without_node or [],
                      add_node_files=add_node or [], add_node_count=add_node_count)
        if cluster:
            objects = engine.load_cluster_files(cluster)
            options.extra_warnings.extend(objects.load_warnings)
            expl = engine.explain_objects(manifest, objects, doc=doc, namespace=namespace, options=options,
                                          config=config, edits=edits, replicas=replicas, source=", ".join(cluster))
        else:
            connection = engine.connect_live(kubeconfig, context, request_timeout)
            objects, warnings = engine.load_live_cluster(connection)
            options.extra_warnings.extend([*warnings, *objects.load_warnings])
            expl = engine.explain_objects(manifest, objects, doc=doc, namespace=namespace, options=options,
                                          config=config, edits=edits, replicas=replicas, source="the live cluster",
                                          lookup=live_lookup(manifest, connection))

    if output is Output.html:
        from kschedx.cli.render.html import render_explanation_html

        render_explanation_html(expl, source=", ".join(cluster) if cluster else "the live cluster", top=top)
        raise typer.Exit(EXIT_FITS if expl.ok else EXIT_UNSCHEDULABLE)
    from kschedx.cli.render import render_explanation

    render_explanation(expl, output.value, top=top, no_color=no_color or os.environ.get("NO_COLOR", "") != "")
    raise typer.Exit(EXIT_FITS if expl.ok else EXIT_UNSCHEDULABLE)


def live_lookup(manifest: str, connection: Any) -> Any:
    """For a reference (pod/NAME, …) to the live cluster: one GET of that object, through
    the listing's connection."""
    from kschedx.core.load.references import parse_reference

    if parse_reference(manifest) is None:
        return None
    from kschedx.core.load.live_get import LiveReader

    return LiveReader(connection).get


def _explain_compared(manifest: str, cluster: list[str] | None, live: tuple[str | None, str | None, str | None],
                      namespace: str | None, doc: str | None, config: str | None, version: str | None,
                      gates: str | None, compare_version: str | None, compare_config: str | None,
                      compare_gates: str | None, profile: str | None, replicas: str | None, fmt: str,
                      no_color: bool, debug: bool) -> None:
    """explain under two setups; only the changes are shown. ``live``: --kubeconfig, --context
    and --request-timeout."""
    with engine_errors(debug, manifest, DUMP_OR_KUBECONFIG), progress_bar():
        from kschedx.core.explain import compare as cmp
        from kschedx.core.explain import front as engine

        options = engine.Options(profile=profile, kubernetes_version=version, feature_gates=gates)
        setup = cmp.compare_setup(cmp.Setup(version, config, gates), version=compare_version, config=compare_config,
                                  gates=compare_gates)
        if cluster:
            objects = engine.load_cluster_files(cluster)
            options.extra_warnings.extend(objects.load_warnings)
            source = ", ".join(cluster)
        else:
            objects, warnings = engine.load_live_cluster(engine.connect_live(*live))
            options.extra_warnings.extend([*warnings, *objects.load_warnings])
            source = "the live cluster"
        comparison = cmp.explain_compared(manifest, objects, options=options, config=config, compare=setup,
                                          doc=doc, namespace=namespace, replicas=replicas, source=source)

    from kschedx.cli.render.compare import render_comparison

    render_comparison(comparison, "table" if fmt == "wide" else fmt, base=(config, gates),
                      compare=(setup.config, setup.feature_gates),
                      no_color=no_color or os.environ.get("NO_COLOR", "") != "")
    raise typer.Exit(EXIT_UNSCHEDULABLE if comparison.verdict_changed else EXIT_FITS)

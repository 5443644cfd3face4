"""Options several commands share, declared once (Typer ``Annotated`` aliases)."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import typer

from kschedx.cli import complete


class Algorithm(StrEnum):
    v1_35 = "v1.35"
    legacy_v1_12 = "legacy-v1.12"


ClusterFiles = Annotated[
    list[str] | None,
    typer.Option("--snapshot", "--cluster", "-c", metavar="FILE",
                 help="Cluster dump instead of the live cluster: what `kschedx snapshot` writes, `kubectl get ... -o "
                 "yaml|json` (multi-document or kind: List), or `kubectl cluster-info dump` output (a file or its "
                 "--output-directory); .gz ok. Repeatable. --cluster FILE is the same option.",
                 show_default=False),
]
ConfigFile = Annotated[
    str | None,
    typer.Option("--config", metavar="FILE",
                 help="KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1, YAML or JSON) "
                 "[default: the chosen Kubernetes version's defaults].", show_default=False),
]
AlgorithmName = Annotated[
    Algorithm | None,
    typer.Option("--algorithm", metavar="NAME", case_sensitive=False, show_default=False,
                 help="v1.35 (the scheduling framework, as the chosen release 1.33–1.36 runs it; the default) or "
                 "legacy-v1.12 (the classic v1.12 "
                 "priority functions after today's filters; implied by --policy)."),
]
PolicyFile = Annotated[
    str | None,
    typer.Option("--policy", metavar="FILE", show_default=False,
                 help="A v1.12 scheduler Policy file (JSON or YAML): predicates, priorities with weights and "
                 "arguments, extenders, hardPodAffinitySymmetricWeight."),
]
Offline = Annotated[
    bool,
    typer.Option("--offline", help="Never call scheduler extenders (each is reported as not consulted) "
                 "instead of exiting 3 when a non-ignorable one is unreachable."),
]
NoColor = Annotated[bool, typer.Option("--no-color", help="No colours (NO_COLOR is respected too).")]
Debug = Annotated[bool, typer.Option("--debug", help="Show tracebacks on errors.")]
Kubeconfig = Annotated[
    str | None,
    typer.Option("--kubeconfig", metavar="PATH", show_default=False,
                 help="Read the live cluster through this kubeconfig [default: $KUBECONFIG, then ~/.kube/config, "
                 "then the in-cluster service account]. Used when no --snapshot is given; read-only."),
]
Context = Annotated[
    str | None,
    typer.Option("--context", metavar="NAME", show_default=False, help="The kubeconfig context [default: current]."),
]
RequestTimeout = Annotated[
    str | None,
    typer.Option("--request-timeout", metavar="DURATION", show_default=False,
                 help="How long to wait for each request to the live cluster (and for an exec credential plugin), "
                 "as kubectl takes it: 1s, 2m, 1m30s, or a number of seconds; 0 waits forever [default: 30s, so a "
                 "stalled server can't hang a CI job]."),
]
KubernetesVersion = Annotated[
    str | None,
    typer.Option("--kubernetes-version", metavar="X.Y", show_default=False, autocompletion=complete.versions,
                 help="The kube-scheduler release to reproduce: 1.33, 1.34, 1.35 or 1.36 (a v prefix and a patch "
                 "number are accepted) [default: the cluster's own: the live server's /version, the server version "
                 "a kschedx snapshot file records, else the newest kubelet among the nodes, else 1.36]."),
]
FeatureGates = Annotated[
    str | None,
    typer.Option("--feature-gates", metavar="KEY=BOOL,...", show_default=False,
                 help="Feature gates as kube-scheduler takes them, over that release's defaults "
                 "(e.g. DynamicResourceAllocation=true on 1.33)."),
]
CompareVersion = Annotated[
    str | None,
    typer.Option("--compare-version", metavar="X.Y", show_default=False, autocompletion=complete.versions,
                 help="Also run under this Kubernetes version and show only what changes (upgrade impact)."),
]
CompareConfig = Annotated[
    str | None,
    typer.Option("--compare-config", metavar="FILE", show_default=False,
                 help="Also run with this KubeSchedulerConfiguration and show only what changes (tuning impact)."),
]
CompareFeatureGates = Annotated[
    str | None,
    typer.Option("--compare-feature-gates", metavar="KEY=BOOL,...", show_default=False,
                 help="Also run with these feature gates and show only what changes."),
]

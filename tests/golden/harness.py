"""Runs one golden case through the engine's public API, in the ``-o json`` shape."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kschedx.core.api.objects import ClusterObjects
from kschedx.core.explain import front as engine

# The last case's parsed dump. A case's conformance runs and its existing-pod variants run
# one after another on one pytest-xdist worker (tests/conftest.py: scope_of), so its dump
# is parsed once for all of them; one entry only, so that no more than one dump is kept
# alive (the scale family's take seconds to parse and hundreds of MB).
_LAST: dict[Path, ClusterObjects] = {}


def case_objects(case: Path) -> ClusterObjects:
    """The case's cluster dump as ``load_cluster_files`` gives it. Runs never change the
    objects they are given (tests/golden/test_conformance.py checks it), so runs share them."""
    hit = _LAST.get(case)
    if hit is None:
        _LAST.clear()  # the previous dump goes before the next is parsed
        hit = _LAST[case] = engine.load_cluster_files([str(case / "cluster.yaml.gz")])
    return hit


def run_case(case: Path, explicit_version: bool = False) -> dict[str, Any]:
    """``explicit_version``: pass meta.json's kubernetesVersion as --kubernetes-version does
    (otherwise the version is inferred from the dump's kubelets)."""
    meta = json.loads((case / "meta.json").read_text())
    config = case / "config.yaml"
    replicas = int(meta.get("replicas") or 1)
    args: dict[str, Any] = {}
    if config.exists():
        args["config"] = str(config)
    if replicas > 1:
        args["replicas"] = replicas
    gates = meta.get("featureGates") or {}
    options = engine.Options(
        kubernetes_version=str(meta.get("kubernetesVersion") or "v1.35") if explicit_version else None,
        # meta.json's featureGates, passed as --feature-gates KEY=BOOL,... would pass them.
        feature_gates=",".join(f"{k}={'true' if v else 'false'}" for k, v in sorted(gates.items())) or None,
    )
    if explicit_version or gates:
        args["options"] = options
    return engine.explain_case_json(str(case / "pod.yaml"), [str(case / "cluster.yaml.gz")],
                                    objects=case_objects(case), **args)

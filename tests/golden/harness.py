"""Runs one golden case through the engine's public API, in the ``-o json`` shape."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kschedx.core.explain import front as engine


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
    if explicit_version:
        args["options"] = engine.Options(kubernetes_version=str(meta.get("kubernetesVersion") or "v1.35"))
    return engine.explain_case_json(str(case / "pod.yaml"), [str(case / "cluster.yaml.gz")], **args)

"""Runs one golden case through the engine's public API, in the ``-o json`` shape."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kschedx.core import explain as engine


def run_case(case: Path) -> dict[str, Any]:
    meta = json.loads((case / "meta.json").read_text())
    config = case / "config.yaml"
    replicas = int(meta.get("replicas") or 1)
    args: dict[str, Any] = {}
    if config.exists():
        args["config"] = str(config)
    if replicas > 1:
        args["replicas"] = replicas
    return engine.explain_case_json(str(case / "pod.yaml"), [str(case / "cluster.yaml.gz")], **args)

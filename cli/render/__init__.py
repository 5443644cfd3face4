"""Output formats behind one entry point: ``render_result(result, fmt)``."""

from __future__ import annotations

import json
import sys

from kschedx.core.result import CycleResult


def render_result(result: CycleResult, fmt: str, *, top: int | None = None, no_color: bool = False) -> None:
    if fmt == "json":
        sys.stdout.write(json.dumps(result.to_json(), indent=2) + "\n")
        return
    if fmt == "yaml":
        import yaml

        sys.stdout.write(yaml.safe_dump(result.to_json(), sort_keys=False))
        return
    from kschedx.cli.render.table import render_table

    render_table(result, wide=(fmt == "wide"), top=top, no_color=no_color)

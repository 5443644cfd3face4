"""Machine-readable formats: a faithful dump of ``CycleResult.to_json()`` (SPEC §3)."""

from __future__ import annotations

import json
import sys
from typing import Any

from kschedx.core.result import CycleResult


def render_json(result: CycleResult) -> None:
    sys.stdout.write(json.dumps(result.to_json(), indent=2) + "\n")


def _yaml_dump(data: Any) -> str:
    import yaml

    dumper: Any = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    return str(yaml.dump(data, Dumper=dumper, sort_keys=False, default_flow_style=False, allow_unicode=True))


def render_yaml(result: CycleResult) -> None:
    sys.stdout.write(_yaml_dump(result.to_json()))

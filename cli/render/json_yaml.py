"""Machine-readable formats: a faithful dump of ``to_json()`` (SPEC §3) of a cycle, an
explanation (replica steps, DaemonSet nodes) or a check report."""

from __future__ import annotations

import json
import sys
from typing import Any, Protocol


class Jsonable(Protocol):
    def to_json(self) -> dict[str, Any]: ...


def render_json(result: Jsonable) -> None:
    sys.stdout.write(json.dumps(result.to_json(), indent=2) + "\n")


def _yaml_dump(data: Any) -> str:
    import yaml

    dumper: Any = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    return str(yaml.dump(data, Dumper=dumper, sort_keys=False, default_flow_style=False, allow_unicode=True))


def render_yaml(result: Jsonable) -> None:
    sys.stdout.write(_yaml_dump(result.to_json()))

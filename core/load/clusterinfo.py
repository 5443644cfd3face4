"""``kubectl cluster-info dump`` as a cluster source.

On stdout it prints one list after another (the nodes, then per namespace its events,
replication controllers, services, daemon sets, deployments, replica sets and pods), in
JSON unless ``-o yaml``, with every container's log between ``==== START logs for container
C of pod NS/NAME ====`` and ``==== END logs ... ====`` lines after each pod list. With
``--output-directory DIR`` it writes ``DIR/nodes.json`` and ``DIR/NS/{pods,services,...}.json``
(logs in ``DIR/NS/POD/logs.txt``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from kschedx.core.errors import InputError

Dict = dict[str, Any]

START = "==== START logs for container "
_LOG_SECTION = re.compile(r"^==== START logs for container .*? ====\n.*?^==== END logs for container .*? ====\n?",
                          re.MULTILINE | re.DOTALL)
DUMP_SUFFIXES = (".json", ".yaml", ".yml")


def has_log_sections(text: str) -> bool:
    return START in text


def strip_log_sections(text: str) -> str:
    """The text without the containers' logs (a log line can look like anything)."""
    return _LOG_SECTION.sub("", text)


def decode_concatenated_json(text: str, path: str) -> list[Dict] | None:
    """Objects written one after another (``{...}\\n{...}``), or None when the text is
    not a sequence of JSON values."""
    decoder = json.JSONDecoder()
    out: list[Dict] = []
    pos = 0
    end = len(text)
    while True:
        while pos < end and text[pos] in " \t\r\n":
            pos += 1
        if pos >= end:
            break
        try:
            value, pos = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as e:
            if not out:
                return None
            raise InputError(f"invalid JSON: {e.msg}", path=path, line=e.lineno) from None
        if isinstance(value, list):
            out.extend(value)
        elif value is not None:
            out.append(value)
    return out if len(out) > 1 or has_log_sections(text) else None


def dump_directory_files(path: str) -> list[str]:
    """The object files of an ``--output-directory`` tree (sorted: nodes first, then by
    namespace); the log files are left out."""
    root = Path(path)
    files = sorted(str(f) for f in root.rglob("*") if f.is_file() and f.name.endswith(DUMP_SUFFIXES))
    if not files:
        raise InputError("a directory without .json or .yaml files (expected `kubectl cluster-info dump "
                         "--output-directory` output)", path=path)
    return files

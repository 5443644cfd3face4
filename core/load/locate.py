"""The YAML line of a field of a loaded object, for error messages.

Loading builds plain objects without positions (that keeps large dumps fast); only when
a manifest turns out to be invalid is its file composed again, with marks, to find the
line of the offending field.
"""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

try:  # pragma: no cover - depends on how PyYAML was built
    _Loader: Any = yaml.CSafeLoader
except AttributeError:  # pragma: no cover
    _Loader = yaml.SafeLoader


def _get(node: Node, key: str) -> tuple[Node, Node] | None:
    if isinstance(node, MappingNode):
        for k, v in node.value:
            if isinstance(k, ScalarNode) and k.value == key:
                return k, v
    return None


def _scalar(node: Node, *keys: str) -> str | None:
    for key in keys:
        found = _get(node, key)
        if found is None:
            return None
        node = found[1]
    return node.value if isinstance(node, ScalarNode) else None


def _candidates(doc: Node) -> list[Node]:
    kind = _scalar(doc, "kind") or ""
    items = _get(doc, "items")
    if kind.endswith("List") and items is not None and isinstance(items[1], SequenceNode):
        return list(items[1].value)
    return [doc]


def locate_line(path: str, obj: dict[str, Any], keys: tuple[str | int, ...]) -> int | None:
    """The 1-based line of ``keys`` (or of the deepest part of it that exists) inside the
    object of file ``path`` that has ``obj``'s kind, name and namespace; None when unknown."""
    if path == "-":
        return None
    try:
        data = Path(path).read_bytes()
        if data[:2] == b"\x1f\x8b":
            data = gzip.decompress(data)
        docs = list(yaml.compose_all(data.decode("utf-8"), Loader=_Loader))
    except Exception:  # noqa: BLE001 - a line number is a nicety; the error is reported anyway
        return None
    raw_meta = obj.get("metadata")
    meta: dict[str, Any] = raw_meta if isinstance(raw_meta, dict) else {}
    want = (obj.get("kind"), meta.get("name"), meta.get("namespace"))
    for doc in docs:
        if doc is None:
            continue
        for node in _candidates(doc):
            got = (_scalar(node, "kind"), _scalar(node, "metadata", "name"), _scalar(node, "metadata", "namespace"))
            if tuple(str(x) if x is not None else None for x in want) == got:
                return _walk(node, keys)
    return None


def _walk(node: Node, keys: tuple[str | int, ...]) -> int:
    line = node.start_mark.line + 1
    for key in keys:
        if isinstance(key, int) and isinstance(node, SequenceNode) and key < len(node.value):
            node = node.value[key]
            line = node.start_mark.line + 1
            continue
        found = _get(node, str(key))
        if found is None:
            break
        k, node = found
        line = k.start_mark.line + 1
    return line

"""Faster YAML loading with PyYAML's safe semantics, for large cluster dumps.

libyaml (PyYAML's C parser) scans the text, but PyYAML then composes a graph of Node
objects (two Mark objects each) for the whole document, calls the pure-Python resolver
for every scalar, and walks the graph again with generators and recursion bookkeeping to
build the Python objects. On a `kubectl get -o yaml` dump, one List document, that graph
is about four times the size of the result: a 38 MB dump peaks at 1.3 GB.

``load_all`` builds the objects straight from libyaml's event stream instead: no node
graph (memory is what the result needs), and the common cases take short paths:

* a plain scalar whose first character can't start an implicit type (PyYAML's resolver
  table is keyed by first character) is a string without trying any regex; everything
  else goes through PyYAML's own resolver, and typed scalars through its constructors;
* mappings and sequences (untagged, or tagged map/seq) are built in place; anchors and
  aliases share objects as PyYAML's do.

Anything rarer — merge keys (``<<``), tagged collections such as ``!!set`` or ``!!omap``
— makes ``load_all`` start over with ``FastSafeLoader``, a node-based loader with the same
short paths that hands every unusual node to PyYAML's constructor. Both give exactly what
``yaml.safe_load_all`` gives (tests compare them value for value and type for type).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import yaml
from yaml.composer import ComposerError
from yaml.constructor import ConstructorError
from yaml.events import (
    AliasEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from yaml.resolver import Resolver

from kschedx.core.load.fastyaml import load_stream

try:  # pragma: no cover - depends on how PyYAML was built
    _Base: Any = yaml.CSafeLoader
except AttributeError:  # pragma: no cover
    _Base = yaml.SafeLoader

_STR = "tag:yaml.org,2002:str"
_MAP = "tag:yaml.org,2002:map"
_SEQ = "tag:yaml.org,2002:seq"
_MERGE = "tag:yaml.org,2002:merge"

# First characters that some implicit resolver (bool, int, float, null, timestamp, merge,
# value, ...) is registered for; a plain scalar starting with anything else is a string.
_MAY_BE_TYPED = frozenset(k for k in _Base.yaml_implicit_resolvers if k)


class FastSafeLoader(_Base):  # type: ignore[misc]
    """``yaml.CSafeLoader`` (or ``SafeLoader`` without libyaml) with fast common paths."""

    def resolve(self, kind: type, value: Any, implicit: tuple[bool, bool]) -> str:
        if kind is ScalarNode:
            if implicit[0] and (not value or value[0] in _MAY_BE_TYPED):
                return str(Resolver.resolve(self, kind, value, implicit))  # type: ignore[no-untyped-call]
            return _STR
        if kind is MappingNode:
            return _MAP
        return _SEQ

    def descend_resolver(self, current_node: Any, current_index: Any) -> None:
        pass

    def ascend_resolver(self) -> None:
        pass

    def construct_document(self, node: Node) -> Any:
        built: dict[int, Any] = {}
        try:
            return self._build(node, built)
        finally:
            # PyYAML's own bookkeeping, used by the delegated constructions.
            self.constructed_objects: dict[Any, Any] = {}
            self.recursive_objects: dict[Any, Any] = {}
            self.state_generators: list[Any] = []
            self.deep_construct = False

    def _build(self, node: Node, built: dict[int, Any]) -> Any:
        cls = node.__class__
        if cls is ScalarNode:
            if node.tag == _STR:
                return node.value
            return self.construct_object(node, deep=True)
        done = built.get(id(node))
        if done is not None:  # an alias of a node built already (or being built)
            return done
        if cls is MappingNode and node.tag == _MAP:
            pairs = node.value
            if any(k.tag == _MERGE for k, _ in pairs):
                return self.construct_object(node, deep=True)
            out: dict[Any, Any] = {}
            built[id(node)] = out
            for k, v in pairs:
                key = self._build(k, built)
                value = self._build(v, built)
                try:
                    out[key] = value
                except TypeError:
                    raise ConstructorError("while constructing a mapping", node.start_mark,
                                           "found unhashable key", k.start_mark) from None
            return out
        if cls is SequenceNode and node.tag == _SEQ:
            seq: list[Any] = []
            built[id(node)] = seq
            for item in node.value:
                seq.append(self._build(item, built))
            return seq
        return self.construct_object(node, deep=True)


class _StartOver(Exception):
    """The stream holds something only the node-based loader handles (merge keys, tagged
    collections)."""


_NO_KEY = object()
# Typed scalar tags whose PyYAML constructors are plain functions of the node (strings
# never get here: they are taken as they are).
_SCALAR_CONSTRUCTORS = {
    tag: _Base.yaml_constructors[tag]
    for tag in (
        "tag:yaml.org,2002:null", "tag:yaml.org,2002:bool", "tag:yaml.org,2002:int", "tag:yaml.org,2002:float",
        "tag:yaml.org,2002:binary", "tag:yaml.org,2002:timestamp",
    )
}
_PROGRESS_EVERY = 1 << 16  # events between progress reports


# Texts from this size on try core/load/fastyaml.py first (a `kubectl get -o yaml` List, or a
# stream of documents). The fast path gives what this module gives, document for document and
# line for line, and is 3-4x faster from a few kilobytes on (a 136 KB dump: 8 ms against 24 ms;
# 1 MB: 52 against 200 ms): 64 KiB takes every cluster dump but the smallest, while manifests,
# whose YAML errors are reported with PyYAML's marks, keep the exact path.
FAST_FROM = 1 << 16


def load_all(text: str | bytes, progress: Callable[[int], None] | None = None) -> list[tuple[Any, int]]:
    """Every non-null document of ``text`` with the line it starts on (1-based), as
    ``yaml.safe_load_all`` would build them. ``progress`` is called now and then with how
    many characters have been read. Raises PyYAML's errors (with marks) on bad input."""
    if isinstance(text, bytes) and len(text) >= FAST_FROM:
        docs = load_stream(text, load_exact, progress)
        if docs is not None:
            return docs
    return load_exact(text, progress)


def load_exact(text: str | bytes, progress: Callable[[int], None] | None = None) -> list[tuple[Any, int]]:
    """``load_all`` without the fast path for kubectl dumps."""
    try:
        return _load_events(text, progress)
    except _StartOver:
        pass
    loader = FastSafeLoader(text)
    out: list[tuple[Any, int]] = []
    try:
        while loader.check_node():
            node = loader.get_node()
            doc = loader.construct_document(node)
            if doc is not None:
                out.append((doc, node.start_mark.line + 1))
    finally:
        loader.dispose()
    return out


def _load_events(text: str | bytes, progress: Callable[[int], None] | None) -> list[tuple[Any, int]]:
    loader = _Base(text)
    try:
        return _build(loader, progress)
    finally:
        loader.dispose()


def _scalar(loader: Any, event: Any, tag: str) -> Any:
    node = ScalarNode(tag, event.value, event.start_mark, event.end_mark, event.style)
    construct = _SCALAR_CONSTRUCTORS.get(tag)
    if construct is not None:
        return construct(loader, node)
    if tag == _MERGE:
        raise _StartOver
    # Other tags: PyYAML's constructor (which refuses what the safe loader refuses).
    value = loader.construct_object(node, deep=True)
    loader.constructed_objects = {}
    return value


def _build(loader: Any, progress: Callable[[int], None] | None) -> list[tuple[Any, int]]:
    get = loader.get_event
    resolve: Any = Resolver.resolve
    may_be_typed = _MAY_BE_TYPED
    out: list[tuple[Any, int]] = []
    countdown = _PROGRESS_EVERY
    get()  # StreamStartEvent
    while True:
        event = get()
        if event.__class__ is StreamEndEvent:
            return out
        # A DocumentStartEvent: build one document. ``open_`` holds the mappings and
        # sequences being filled, ``keys`` the key waiting for its value in each mapping.
        anchors: dict[str, Any] = {}
        open_: list[Any] = []
        keys: list[Any] = []
        starts: list[Any] = []  # where each open container starts, for error marks
        closed_at: Any = None
        event = get()
        line = event.start_mark.line + 1
        while True:
            cls = event.__class__
            if cls is ScalarEvent:
                value = event.value
                tag = event.tag
                if tag is None or tag == "!":
                    implicit = event.implicit
                    if implicit[0] and (not value or value[0] in may_be_typed):
                        tag = resolve(loader, ScalarNode, value, implicit)
                        if tag != _STR:
                            value = _scalar(loader, event, tag)
                elif tag != _STR:
                    value = _scalar(loader, event, tag)
                if event.anchor is not None:
                    _anchor(anchors, event, value)
            elif cls is MappingStartEvent or cls is SequenceStartEvent:
                mapping = cls is MappingStartEvent
                if event.tag not in (None, "!", _MAP if mapping else _SEQ):
                    raise _StartOver
                container: Any = {} if mapping else []
                if event.anchor is not None:
                    _anchor(anchors, event, container)
                open_.append(container)
                keys.append(_NO_KEY if mapping else None)
                starts.append(event.start_mark)
                event = get()
                continue
            elif cls is MappingEndEvent or cls is SequenceEndEvent:
                value = open_.pop()
                keys.pop()
                closed_at = starts.pop()
            elif cls is AliasEvent:
                try:
                    value = anchors[event.anchor]
                except KeyError:
                    raise ComposerError(None, None, f"found undefined alias {event.anchor!r}",
                                        event.start_mark) from None
            else:  # pragma: no cover - libyaml emits nothing else inside a document
                raise ComposerError(None, None, f"unexpected {cls.__name__}", event.start_mark)
            if not open_:
                break
            parent = open_[-1]
            if parent.__class__ is list:
                parent.append(value)
            elif keys[-1] is _NO_KEY:
                if value.__class__ is list or value.__class__ is dict:
                    key_mark = closed_at if cls is MappingEndEvent or cls is SequenceEndEvent else event.start_mark
                    raise ConstructorError("while constructing a mapping", starts[-1], "found unhashable key",
                                           key_mark)
                keys[-1] = value
            else:
                parent[keys[-1]] = value
                keys[-1] = _NO_KEY
            countdown -= 1
            if not countdown:
                countdown = _PROGRESS_EVERY
                if progress is not None:
                    progress(event.end_mark.index)
            event = get()
        get()  # DocumentEndEvent
        if value is not None:
            out.append((value, line))
        if progress is not None:
            progress(event.end_mark.index)


def _anchor(anchors: dict[str, Any], event: Any, value: Any) -> None:
    if event.anchor in anchors:
        raise ComposerError("found duplicate anchor; first occurrence", None, "second occurrence",
                            event.start_mark)
    anchors[event.anchor] = value

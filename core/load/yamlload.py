"""A faster YAML loader with PyYAML's safe semantics, for large cluster dumps.

libyaml (PyYAML's C parser) scans and composes the node graph, but for every scalar it
calls back into the pure-Python resolver, and PyYAML's constructor then walks the graph
in Python with generators, recursion bookkeeping and merge-key handling per mapping.
On a 38 MB dump those two account for most of the load time. This loader keeps the
results identical to ``yaml.CSafeLoader`` and only shortens the common paths:

* resolving: a plain scalar whose first character can't start an implicit type (the
  resolver table is keyed by first character) is a string without trying any regex;
  everything else goes through PyYAML's own resolver. There are no path resolvers in the
  safe loader, so descending/ascending is a no-op.
* constructing: plain mappings, sequences and string scalars are built directly; any other
  tag, and any mapping with a merge key (``<<``), is handed to PyYAML's constructor.
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml.constructor import ConstructorError
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from yaml.resolver import Resolver

try:  # pragma: no cover - depends on how PyYAML was built
    _Base: Any = yaml.CSafeLoader
    HAVE_LIBYAML = True
except AttributeError:  # pragma: no cover
    _Base = yaml.SafeLoader
    HAVE_LIBYAML = False

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

"""Label selectors, node selector terms, taints and tolerations.

Selectors are compiled once into small matcher objects so that evaluating them against
thousands of nodes or pods does no parsing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kschedx.core.api.selector_errors import (
    aggregate,
    child,
    go_quote,
    invalid,
    is_go_int64,
    key_ok,
    requirement_errors,
    value_ok,
    values_json,
)

Labels = Mapping[str, str]


class SelectorError(ValueError):
    """A selector that the API server would reject."""


# --------------------------------------------------------------------------- label selectors


@dataclass(frozen=True, slots=True)
class Requirement:
    key: str
    op: str  # "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"
    values: frozenset[str]

    def matches(self, labels: Labels) -> bool:
        op = self.op
        if op == "In":
            v = labels.get(self.key)
            return v is not None and v in self.values
        if op == "NotIn":
            v = labels.get(self.key)
            return v is None or v not in self.values
        if op == "Exists":
            return self.key in labels
        if op == "DoesNotExist":
            return self.key not in labels
        if op in ("Gt", "Lt"):
            v = labels.get(self.key)
            # strconv.ParseInt: Python's int() would also take "5_0" or " 5".
            if v is None or not is_go_int64(v):
                return False
            have = int(v)
            want = int(next(iter(self.values)))
            return have > want if op == "Gt" else have < want
        return False


@dataclass(frozen=True, slots=True)
class LabelSelector:
    """A compiled metav1.LabelSelector. ``nothing`` is the nil selector, matching no object."""

    requirements: tuple[Requirement, ...]
    nothing: bool = False

    def matches(self, labels: Labels) -> bool:
        if self.nothing:
            return False
        for r in self.requirements:
            if not r.matches(labels):
                return False
        return True

    @property
    def empty(self) -> bool:
        """True for the empty selector ``{}``, which matches everything."""
        return not self.nothing and not self.requirements

    def with_requirements(self, extra: Sequence[Requirement]) -> LabelSelector:
        if self.nothing:
            return self
        return LabelSelector(self.requirements + tuple(extra))

    def describe(self) -> str:
        if self.nothing:
            return "<none>"
        parts = []
        for r in self.requirements:
            vals = ",".join(sorted(r.values))
            if r.op == "In" and len(r.values) == 1:
                parts.append(f"{r.key}={vals}")
            elif r.op == "In":
                parts.append(f"{r.key} in ({vals})")
            elif r.op == "NotIn":
                parts.append(f"{r.key} notin ({vals})")
            elif r.op == "Exists":
                parts.append(r.key)
            elif r.op == "DoesNotExist":
                parts.append(f"!{r.key}")
            else:
                parts.append(f"{r.key} {r.op.lower()} {vals}")
        # Merged selectors (a Service's and a ReplicaSet's) may repeat a requirement.
        return ",".join(dict.fromkeys(parts)) or "<all>"


NOTHING = LabelSelector((), nothing=True)
EVERYTHING = LabelSelector(())

_LABEL_OPS = {"In", "NotIn", "Exists", "DoesNotExist"}
# The API operators as labels.NewRequirement names them (selection.Operator).
_SELECTION_OP = {"In": "in", "NotIn": "notin", "Exists": "exists", "DoesNotExist": "!", "Gt": "gt", "Lt": "lt"}


def parse_label_selector(spec: Mapping[str, Any] | None) -> LabelSelector:
    """Compile a metav1.LabelSelector dict; None gives the selector that matches nothing."""
    if spec is None:
        return NOTHING
    if not isinstance(spec, Mapping):
        raise SelectorError(f"label selector must be a mapping, got {type(spec).__name__}")
    reqs: list[Requirement] = []
    for k, v in (spec.get("matchLabels") or {}).items():
        value = _label_value(v)
        # LabelSelectorAsSelector: labels.NewRequirement validates key and value and the
        # first failing requirement is the selector's error.
        if not (key_ok(str(k)) and value_ok(value)):
            raise SelectorError(aggregate(requirement_errors(str(k), "=", [value])))
        reqs.append(Requirement(str(k), "In", frozenset([value])))
    for expr in spec.get("matchExpressions") or []:
        op = expr.get("operator")
        key = expr.get("key")
        values = [_label_value(x) for x in (expr.get("values") or [])]
        if op not in _LABEL_OPS:
            raise SelectorError(f"{go_quote(str(op))} is not a valid label selector operator")
        if not key:
            raise SelectorError("label selector requirement has an empty key")
        if op in ("In", "NotIn") and not values:
            raise SelectorError(f"values: Required value: must be specified when `operator` is 'In' or 'NotIn' (key {key!r})")
        if op in ("Exists", "DoesNotExist") and values:
            raise SelectorError(
                f"values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist' (key {key!r})"
            )
        if not (key_ok(str(key)) and all(value_ok(v) for v in values)):
            raise SelectorError(aggregate(requirement_errors(str(key), _SELECTION_OP[op], values)))
        reqs.append(Requirement(str(key), op, frozenset(values)))
    return LabelSelector(tuple(reqs))


def selector_from_set(labels: Labels) -> LabelSelector:
    """A selector requiring every given label (``labels.SelectorFromSet``)."""
    return LabelSelector(tuple(Requirement(k, "In", frozenset([v])) for k, v in labels.items()))


def _label_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


# --------------------------------------------------------------------------- node selectors


@dataclass(frozen=True, slots=True)
class NodeSelectorTerm:
    """One nodeSelectorTerm: its expressions (labels) and fields (metadata.name) are ANDed.

    ``errors`` are the term's parse errors (component-helpers nodeaffinity
    ``newNodeSelectorTerm``): such a term matches no node.
    """

    expressions: tuple[Requirement, ...]
    fields: tuple[Requirement, ...]
    errors: tuple[str, ...] = ()

    @property
    def valid(self) -> bool:
        return not self.errors

    def matches(self, node_name: str, labels: Labels) -> bool:
        if self.errors or (not self.expressions and not self.fields):
            return False
        for r in self.expressions:
            if not r.matches(labels):
                return False
        for r in self.fields:
            # A node's only field is metadata.name; any other key reads as "".
            have = node_name if r.key == "metadata.name" else ""
            if (have in r.values) != (r.op == "In"):
                return False
        return True


@dataclass(frozen=True, slots=True)
class NodeSelector:
    """Required node affinity: the terms are ORed."""

    terms: tuple[NodeSelectorTerm, ...]

    def matches(self, node_name: str, labels: Labels) -> bool:
        for t in self.terms:
            if t.matches(node_name, labels):
                return True
        return False


_NODE_OPS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")
_FIELD_OPS = ("In", "NotIn")


def _not_supported(path: str, op: Any, valid: Sequence[str]) -> str:
    shown = ", ".join(go_quote(v) for v in valid)
    return f"{child(path, 'operator')}: Unsupported value: {go_quote(str(op or ''))}: supported values: {shown}"


def _node_requirement(expr: Mapping[str, Any], field: bool, path: str) -> tuple[Requirement | None, list[str]]:
    """One requirement as nodeSelectorRequirementsAsSelector / ...AsFieldSelector compile it,
    with the errors they report under ``path``."""
    op = expr.get("operator")
    key = str(expr.get("key") or "")
    raw_values = expr.get("values")
    values = [_label_value(x) for x in raw_values or []]
    if field:
        if op not in _FIELD_OPS:
            return None, [_not_supported(path, op, _FIELD_OPS)]
        if len(values) != 1:
            shown = values_json(None if raw_values is None else values)
            return None, [invalid(child(path, "values"), shown, "must have one element")]
        return Requirement(key, str(op), frozenset(values)), []
    if op not in _NODE_OPS:
        return None, [_not_supported(path, op, _NODE_OPS)]
    errs = requirement_errors(key, _SELECTION_OP[str(op)], None if raw_values is None else values, path)
    if errs:
        return None, errs
    return Requirement(key, str(op), frozenset(values)), []


def parse_node_selector_term(term: Mapping[str, Any], path: str = "") -> NodeSelectorTerm:
    """``path`` names the term in the parse errors (e.g. ``[0]`` for a preferred term)."""
    errors: list[str] = []
    exprs: list[Requirement] = []
    fields: list[Requirement] = []
    for what, out, field in (("matchExpressions", exprs, False), ("matchFields", fields, True)):
        for i, e in enumerate(term.get(what) or []):
            r, errs = _node_requirement(e or {}, field, f"{child(path, what)}[{i}]")
            errors.extend(errs)
            if r is not None:
                out.append(r)
    return NodeSelectorTerm(tuple(exprs), tuple(fields), tuple(errors))


def parse_node_selector(spec: Mapping[str, Any] | None) -> NodeSelector | None:
    if spec is None:
        return None
    return NodeSelector(tuple(parse_node_selector_term(t or {}) for t in spec.get("nodeSelectorTerms") or []))


# --------------------------------------------------------------------------- taints and tolerations


@dataclass(frozen=True, slots=True)
class Taint:
    key: str
    value: str
    effect: str

    def __str__(self) -> str:
        v = f"={self.value}" if self.value else ""
        return f"{self.key}{v}:{self.effect}"


@dataclass(frozen=True, slots=True)
class Toleration:
    key: str
    operator: str
    value: str
    effect: str

    def tolerates(self, taint: Taint) -> bool:
        if self.effect and self.effect != taint.effect:
            return False
        if self.key and self.key != taint.key:
            return False
        if self.operator in ("", "Equal"):
            return self.value == taint.value
        if self.operator == "Exists":
            return True
        return False


def parse_taints(items: Sequence[Mapping[str, Any]] | None) -> tuple[Taint, ...]:
    return tuple(
        Taint(str(t.get("key") or ""), _label_value(t.get("value") or ""), str(t.get("effect") or ""))
        for t in items or []
    )


def parse_tolerations(items: Sequence[Mapping[str, Any]] | None) -> tuple[Toleration, ...]:
    return tuple(
        Toleration(
            str(t.get("key") or ""),
            str(t.get("operator") or ""),
            _label_value(t.get("value") or ""),
            str(t.get("effect") or ""),
        )
        for t in items or []
    )


def tolerates(tolerations: Sequence[Toleration], taint: Taint) -> bool:
    for t in tolerations:
        if t.tolerates(taint):
            return True
    return False


def find_untolerated_taint(
    taints: Sequence[Taint], tolerations: Sequence[Toleration], effects: frozenset[str]
) -> Taint | None:
    """The first taint with one of ``effects`` that no toleration tolerates."""
    for taint in taints:
        if taint.effect in effects and not tolerates(tolerations, taint):
            return taint
    return None

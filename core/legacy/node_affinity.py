"""NodeAffinityPriority: map = the summed weights of the pod's preferred node-affinity
terms whose matchExpressions the node's labels satisfy (a term without expressions
matches nothing, matchFields are not read); reduce = scaled by the maximum to 0-10."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kschedx.core.api.selectors import Requirement
from kschedx.core.legacy.base import PriorityError, PriorityFunction
from kschedx.core.legacy.meta import Meta, normalize_reduce
from kschedx.core.snapshot import NodeInfo

_OPS = {"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"}


def _requirement(expr: Mapping[str, Any]) -> Requirement:
    op = str(expr.get("operator") or "")
    key = str(expr.get("key") or "")
    values = [str(v) for v in expr.get("values") or []]
    if op not in _OPS:
        raise PriorityError(f"{op!r} is not a valid node selector operator")
    if op in ("In", "NotIn") and not values:
        raise PriorityError(f"for 'in', 'notin' operators, values set can't be empty (key {key!r})")
    if op in ("Exists", "DoesNotExist") and values:
        raise PriorityError(f"values set must be empty for exists and does not exist (key {key!r})")
    if op in ("Gt", "Lt"):
        if len(values) != 1:
            raise PriorityError(f"for 'Gt', 'Lt' operators, exactly one value is required (key {key!r})")
        try:
            int(values[0])
        except ValueError:
            raise PriorityError(f"for 'Gt', 'Lt' operators, the value must be an integer (key {key!r})") from None
    return Requirement(key, op, frozenset(values))


class NodeAffinityPriority(PriorityFunction):
    function = "NodeAffinityPriority"
    has_reduce = True

    def terms(self, meta: Meta) -> list[tuple[int, list[Requirement]]]:
        hit = meta.cache.get("node_affinity_terms")
        if hit is None:
            na = (meta.pod.affinity.get("nodeAffinity") or {})
            hit = []
            for t in na.get("preferredDuringSchedulingIgnoredDuringExecution") or []:
                weight = int((t or {}).get("weight") or 0)
                if weight == 0:
                    continue
                exprs = ((t or {}).get("preference") or {}).get("matchExpressions") or []
                hit.append((weight, [_requirement(e) for e in exprs]))
            meta.cache["node_affinity_terms"] = hit
        out: list[tuple[int, list[Requirement]]] = hit
        return out

    def map(self, meta: Meta, node: NodeInfo) -> int:
        labels = node.node.labels
        total = 0
        for weight, reqs in self.terms(meta):
            if reqs and all(r.matches(labels) for r in reqs):
                total += weight
        return total

    def reduce(self, meta: Meta, scores: dict[str, int]) -> dict[str, int]:
        return normalize_reduce(scores, reverse=False)

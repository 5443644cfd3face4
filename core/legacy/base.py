"""The shape every v1.12 priority function takes here: a map step per node (the raw
score) and a reduce step over all scored nodes (the 0-10 score)."""

from __future__ import annotations

from typing import Any, ClassVar

from kschedx.core.legacy.meta import Meta
from kschedx.core.snapshot import NodeInfo


class PriorityError(Exception):
    """A priority function could not score (v1.12 then failed the scheduling attempt)."""


class PriorityFunction:
    """One configured priority: ``name`` (the column, the Policy entry's name), ``weight``."""

    # The name v1.12 registered the function under.
    function: ClassVar[str] = ""
    # Whether a reduce step exists (otherwise the map score is the final 0-10 score).
    has_reduce: ClassVar[bool] = False

    def __init__(self, name: str, weight: int, args: dict[str, Any] | None = None) -> None:
        self.name = name
        self.weight = weight
        self.args = args or {}

    def map(self, meta: Meta, node: NodeInfo) -> int:
        raise NotImplementedError

    def map_all(self, meta: Meta, nodes: list[NodeInfo]) -> dict[str, int]:
        return {n.name: self.map(meta, n) for n in nodes}

    def reduce(self, meta: Meta, scores: dict[str, int]) -> dict[str, int]:
        return dict(scores)

    def run(self, meta: Meta, nodes: list[NodeInfo]) -> tuple[dict[str, int], dict[str, int]]:
        """(raw map scores, reduced 0-10 scores) of ``nodes``."""
        raw = self.map_all(meta, nodes)
        return raw, self.reduce(meta, dict(raw))

"""RequestedToCapacityRatioPriority: a broken-line function of utilization (0-100) per
resource, averaged over cpu and memory. The shape is a Policy argument
(``requestedToCapacityRatioArguments: {shape: [{utilization, score}, ...]}``); without
one it runs from score 10 at 0 % to 0 at 100 %, i.e. least-requested."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kschedx.core.legacy import MAX_PRIORITY
from kschedx.core.legacy.meta import go_div
from kschedx.core.legacy.resources import ResourcePriority

DEFAULT_SHAPE: tuple[tuple[int, int], ...] = ((0, MAX_PRIORITY), (100, 0))


class ShapeError(ValueError):
    """An invalid function shape (the message is v1.12's)."""


def validate_shape(points: Sequence[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    """The shape as v1.12 accepted it: at least one point, utilizations strictly
    increasing within 0..100, scores within 0..10."""
    if not points:
        raise ShapeError("at least one point must be specified")
    for i in range(1, len(points)):
        if points[i - 1][0] >= points[i][0]:
            raise ShapeError(
                f"utilization values must be sorted. Utilization[{i - 1}]=={points[i - 1][0]} >= "
                f"Utilization[{i}]=={points[i][0]}"
            )
    for i, (u, s) in enumerate(points):
        if u < 0:
            raise ShapeError(f"utilization values must not be less than 0. Utilization[{i}]=={u}")
        if u > 100:
            raise ShapeError(f"utilization values must not be greater than 100. Utilization[{i}]=={u}")
        if s < 0:
            raise ShapeError(f"score values must not be less than 0. Score[{i}]=={s}")
        if s > MAX_PRIORITY:
            raise ShapeError(f"score valuses not be greater than {MAX_PRIORITY}. Score[{i}]=={s}")
    return tuple(points)


def broken_line(shape: Sequence[tuple[int, int]], p: int) -> int:
    """The shape's value at utilization ``p``: flat before the first and after the last
    point, linear (Go integer arithmetic) in between."""
    for i, (u, s) in enumerate(shape):
        if p <= u:
            if i == 0:
                return s
            u0, s0 = shape[i - 1]
            return s0 + go_div((s - s0) * (p - u0), u - u0)
    return shape[-1][1]


def utilization_score(shape: Sequence[tuple[int, int]], requested: int, capacity: int) -> int:
    if capacity == 0 or requested > capacity:
        return broken_line(shape, 100)
    return broken_line(shape, 100 - (capacity - requested) * 100 // capacity)


def shape_from_args(args: dict[str, Any]) -> tuple[tuple[int, int], ...]:
    raw = args.get("shape")
    if raw is None:
        return DEFAULT_SHAPE
    return validate_shape([(int(p.get("utilization") or 0), int(p.get("score") or 0)) for p in raw])


class RequestedToCapacityRatio(ResourcePriority):
    function = "RequestedToCapacityRatioPriority"

    def __init__(self, name: str, weight: int, args: dict[str, Any] | None = None) -> None:
        super().__init__(name, weight, args)
        self.shape = shape_from_args(self.args)

    def score(self, cpu: int, cpu_cap: int, mem: int, mem_cap: int) -> int:
        return (utilization_score(self.shape, cpu, cpu_cap) + utilization_score(self.shape, mem, mem_cap)) // 2

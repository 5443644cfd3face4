"""TaintTolerationPriority: map = how many of the node's PreferNoSchedule taints the pod
does not tolerate (only tolerations with that effect or no effect count); reduce = scaled
by the maximum and reversed, so the node with the fewest such taints gets 10."""

from __future__ import annotations

from kschedx.core.api.selectors import Toleration, tolerates
from kschedx.core.legacy.base import PriorityFunction
from kschedx.core.legacy.meta import Meta, normalize_reduce
from kschedx.core.snapshot import NodeInfo

PREFER_NO_SCHEDULE = "PreferNoSchedule"


class TaintTolerationPriority(PriorityFunction):
    function = "TaintTolerationPriority"
    has_reduce = True

    def tolerations(self, meta: Meta) -> tuple[Toleration, ...]:
        return tuple(t for t in meta.pod.tolerations if t.effect in ("", PREFER_NO_SCHEDULE))

    def map(self, meta: Meta, node: NodeInfo) -> int:
        tols = self.tolerations(meta)
        return sum(
            1 for taint in node.node.taints if taint.effect == PREFER_NO_SCHEDULE and not tolerates(tols, taint)
        )

    def reduce(self, meta: Meta, scores: dict[str, int]) -> dict[str, int]:
        return normalize_reduce(scores, reverse=True)

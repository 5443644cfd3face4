"""EqualPriority: every node scores 1. v1.12 used it alone when neither a priority
function nor an extender was configured."""

from __future__ import annotations

from kschedx.core.legacy.base import PriorityFunction
from kschedx.core.legacy.meta import Meta
from kschedx.core.snapshot import NodeInfo


class EqualPriority(PriorityFunction):
    function = "EqualPriority"

    def map(self, meta: Meta, node: NodeInfo) -> int:
        return 1

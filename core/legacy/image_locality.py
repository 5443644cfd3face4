"""ImageLocalityPriority (v1.12): the summed sizes of the pod's container images already
on the node (names matched exactly as the node reports them), bucketed: below 23 MiB
scores 0, from 1000 MiB on 10, otherwise 10 × (sum − 23 MiB) / (977 MiB) + 1 (integer)."""

from __future__ import annotations

from kschedx.core.legacy import MAX_PRIORITY
from kschedx.core.legacy.base import PriorityFunction
from kschedx.core.legacy.meta import Meta
from kschedx.core.snapshot import NodeInfo

MB = 1024 * 1024
MIN_IMG_SIZE = 23 * MB
MAX_IMG_SIZE = 1000 * MB


def score_from_size(total: int) -> int:
    if total == 0 or total < MIN_IMG_SIZE:
        return 0
    if total >= MAX_IMG_SIZE:
        return MAX_PRIORITY
    return MAX_PRIORITY * (total - MIN_IMG_SIZE) // (MAX_IMG_SIZE - MIN_IMG_SIZE) + 1


def image_sizes(node: NodeInfo) -> dict[str, int]:
    sizes: dict[str, int] = {}
    for names, size in node.node.images:
        for n in names:
            sizes[n] = size
    return sizes


class ImageLocalityPriority(PriorityFunction):
    function = "ImageLocalityPriority"

    def map(self, meta: Meta, node: NodeInfo) -> int:
        sizes = image_sizes(node)
        total = 0
        for c in meta.pod.spec.get("containers") or []:
            total += sizes.get(str(c.get("image") or ""), 0)
        return score_from_size(total)

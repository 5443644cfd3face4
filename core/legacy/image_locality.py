"""ImageLocalityPriority (v1.12.0, pkg/scheduler/algorithm/priorities/image_locality.go).

For each app container (init containers are not counted) whose image the node holds, the
image's size scaled by its spread — the share of the cluster's nodes that hold that image
name (``scaledImageScore``: ``int64(float64(size) * numNodes/totalNumNodes)``) — is summed;
a name without a tag is looked up as ``name:latest`` (``normalizedImageName``). The sum is
clamped to 23 MB–1000 MB and mapped linearly onto 0–10 (``calculatePriority``, integer
division, no "+1" bucket as before v1.12). There is no reduce step.

v1.12's cache counts an image name's nodes when a node is added or updated; kschedx counts
them over the whole snapshot, the state once every node has reported its images.
"""

from __future__ import annotations

from kschedx.core.legacy import MAX_PRIORITY
from kschedx.core.legacy.base import PriorityFunction
from kschedx.core.legacy.meta import Meta
from kschedx.core.snapshot import NodeInfo

MB = 1024 * 1024
MIN_THRESHOLD = 23 * MB
MAX_THRESHOLD = 1000 * MB


def calculate_priority(sum_scores: int) -> int:
    sum_scores = min(max(sum_scores, MIN_THRESHOLD), MAX_THRESHOLD)
    return MAX_PRIORITY * (sum_scores - MIN_THRESHOLD) // (MAX_THRESHOLD - MIN_THRESHOLD)


def normalized_image_name(name: str) -> str:
    """``normalizedImageName``: ":latest" when the last ':' is not after the last '/'."""
    if name.rfind(":") <= name.rfind("/"):
        return name + ":latest"
    return name


def image_sizes(node: NodeInfo) -> dict[str, int]:
    """Each image name the node reports, with its size (the first entry naming it wins, as
    the cache keeps the first summary per name)."""
    sizes: dict[str, int] = {}
    for names, size in node.node.images:
        for n in names:
            sizes.setdefault(n, size)
    return sizes


class ImageLocalityPriority(PriorityFunction):
    function = "ImageLocalityPriority"

    def map(self, meta: Meta, node: NodeInfo) -> int:
        total_nodes = len(meta.all_nodes)
        spread = meta.snapshot.image_num_nodes()
        sizes = image_sizes(node)
        total = 0
        for c in meta.pod.spec.get("containers") or []:
            name = normalized_image_name(str(c.get("image") or ""))
            size = sizes.get(name)
            if size is not None:
                total += int(float(size) * (spread.get(name, 0) / total_nodes))
        return calculate_priority(total)

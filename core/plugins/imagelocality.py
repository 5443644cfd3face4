"""ImageLocality: favour nodes that already hold the pod's images, weighted by how widely spread."""

from __future__ import annotations

from collections.abc import Hashable

from kschedx.core.api.model import PodInfo
from kschedx.core.framework.interface import MAX_NODE_SCORE, CycleState, Plugin, Status
from kschedx.core.snapshot import NodeInfo

NAME = "ImageLocality"
MB = 1024 * 1024
MIN_THRESHOLD = 23 * MB
MAX_CONTAINER_THRESHOLD = 1000 * MB


def normalized_image_name(name: str) -> str:
    """Append ":latest" when the name has no tag (a digest's ':' counts as one, as upstream)."""
    if name.rfind(":") <= name.rfind("/"):
        return name + ":latest"
    return name


def calculate_priority(sum_scores: int, num_containers: int) -> int:
    max_threshold = MAX_CONTAINER_THRESHOLD * num_containers
    if sum_scores < MIN_THRESHOLD:
        sum_scores = MIN_THRESHOLD
    elif sum_scores > max_threshold:
        sum_scores = max_threshold
    return MAX_NODE_SCORE * (sum_scores - MIN_THRESHOLD) // (max_threshold - MIN_THRESHOLD)


class ImageLocality(Plugin):
    name = NAME
    node_local = True

    def _images(self, pod: PodInfo) -> tuple[tuple[str, ...], int]:
        """The images the pod pulls, and its number of containers."""
        containers = (pod.spec.get("initContainers") or []) + (pod.spec.get("containers") or [])
        images = [str(c.get("image") or "") for c in containers]
        if self.version.at_least(36):
            # kubernetes#130231 (v1.36): image volumes' images count too (the threshold
            # still scales with the containers only).
            images += [str((v.get("image") or {}).get("reference") or "") for v in pod.spec.get("volumes") or []
                       if isinstance(v, dict) and v.get("image") is not None]
        return tuple(images), len(containers)

    def pod_signature(self, pod: PodInfo) -> Hashable:
        """What Score reads of the pod (core/framework/shared_answers.py); the image spread it
        also reads belongs to the snapshot's node set."""
        return self._images(pod)

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> tuple[int, Status]:
        snapshot = self.handle.snapshot
        spread = snapshot.image_num_nodes()
        images, num_containers = self._images(pod)
        # Only images some node holds can count: a pod whose images no node holds (a new
        # tag, as most rollouts bring) scores the floor everywhere without reading the
        # node's image list.
        wanted = [name for name in map(normalized_image_name, images) if spread.get(name)]
        if not wanted:
            return calculate_priority(0, num_containers), Status.success()
        total_nodes = len(snapshot.nodes())
        sizes: dict[str, int] = {}
        for names, size in node.node.images:
            for n in names:
                sizes[n] = size
        total = 0
        for name in wanted:
            held = sizes.get(name)
            if held is not None:
                total += int(held * (spread[name] / total_nodes))
        return calculate_priority(total, num_containers), Status.success()

"""ImageLocality: favour nodes that already hold the pod's images, weighted by how widely spread."""

from __future__ import annotations

from collections.abc import Hashable
from itertools import repeat

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
    # _held's last answer: (pod, image summary, names, containers).
    _last_held: tuple[PodInfo, dict[str, int], list[str], int] | None = None

    def _images(self, pod: PodInfo) -> tuple[tuple[str, ...], int]:
        """The images the pod pulls, and its number of containers."""
        containers = (pod.spec.get("initContainers") or []) + (pod.spec.get("containers") or [])
        images = [str(c.get("image") or "") for c in containers]
        count = len(containers)
        if self.version.at_least(36):
            # kubernetes#130231 (v1.36): image volumes' images count too; the threshold
            # scales with the containers only until kubernetes#138951 (1.37) counts them.
            volumes = [str((v.get("image") or {}).get("reference") or "") for v in pod.spec.get("volumes") or []
                       if isinstance(v, dict) and v.get("image") is not None]
            images += volumes
            if self.version.at_least(37):
                count += len(volumes)
        return tuple(images), count

    def pod_signature(self, pod: PodInfo) -> Hashable:
        """What Score reads of the pod (core/framework/shared_answers.py); the image spread it
        also reads belongs to the snapshot's node set."""
        return self._images(pod)

    def _held(self, pod: PodInfo, spread: dict[str, int]) -> tuple[list[str], int]:
        """The pod's normalized image names that some node holds, and its number of
        containers: only those can count. Worked out once per pod and image summary, not
        per node (a pod whose images no node holds, a new tag as most rollouts bring,
        then scores the floor everywhere without reading any node's image list)."""
        last = self._last_held
        if last is not None and last[0] is pod and last[1] is spread:
            return last[2], last[3]
        images, num_containers = self._images(pod)
        wanted = [name for name in map(normalized_image_name, images) if spread.get(name)]
        self._last_held = (pod, spread, wanted, num_containers)
        return wanted, num_containers

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> tuple[int, Status]:
        return self.score_nodes(state, pod, [node])[0], Status.success()

    def uniform_score(self, state: CycleState, pod: PodInfo) -> int | None:
        """The floor every node scores when no node holds any of the pod's images (a new
        tag, as most rollouts bring); None when some node holds one."""
        wanted, num_containers = self._held(pod, self.handle.snapshot.image_num_nodes())
        return None if wanted else calculate_priority(0, num_containers)

    def score_nodes(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> list[int]:
        """:meth:`score` of each node, in bulk (it never fails)."""
        same = self.uniform_score(state, pod)
        if same is not None:
            return [same] * len(nodes)
        snapshot = self.handle.snapshot
        spread = snapshot.image_num_nodes()
        wanted, num_containers = self._held(pod, spread)
        total_nodes = len(snapshot.nodes())
        # Per node, the sizes of the wanted images it holds, each scaled by its spread,
        # added in the pod's order (each node's sizes by name, read once per node).
        held = [ni.node.image_sizes for ni in nodes]
        totals = [0] * len(nodes)
        for name in wanted:
            share = spread[name] / total_nodes
            for j, size in enumerate(map(dict.get, held, repeat(name))):
                if size is not None:
                    totals[j] += int(size * share)
        return [calculate_priority(t, num_containers) for t in totals]

"""What every v1.12 priority function may read: the pod, the cluster, precomputed inputs.

v1.12 knew nothing of init-container maxima, pod overhead or pod-level resources: a pod's
requests were the sum of its app containers' requests (an absent request defaulted from
the limit by the API server), and scoring replaced an absent cpu or memory request by
100m / 200Mi per container. Those per-pod amounts are computed here, not taken from the
v1.35 NodeInfo aggregates.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kschedx.core.api.model import DEFAULT_MEMORY_REQUEST, DEFAULT_MILLI_CPU_REQUEST, PodInfo, amount, container_requests
from kschedx.core.snapshot import NodeInfo, Snapshot

ZONE_BETA = "failure-domain.beta.kubernetes.io/zone"
REGION_BETA = "failure-domain.beta.kubernetes.io/region"
ZONE_GA = "topology.kubernetes.io/zone"
REGION_GA = "topology.kubernetes.io/region"


def go_div(a: int, b: int) -> int:
    """Go's integer division: the quotient truncated toward zero."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def zone_key(labels: Mapping[str, str]) -> str:
    """v1.12's zone key of a node: region and zone joined, or "" when neither is set.

    v1.12 read only the failure-domain.beta labels; kschedx falls back to the GA
    topology labels when a node has neither beta label, so clusters labelled the modern
    way still spread by zone."""
    region, zone = labels.get(REGION_BETA, ""), labels.get(ZONE_BETA, "")
    if not region and not zone:
        region, zone = labels.get(REGION_GA, ""), labels.get(ZONE_GA, "")
    if not region and not zone:
        return ""
    return f"{region}:\x00:{zone}"


_NONZERO_CACHE: dict[str, tuple[int, int]] = {}


def pod_nonzero_requests(pod: PodInfo) -> tuple[int, int]:
    """(milli-cpu, memory bytes) of the pod's app containers, 100m / 200Mi standing in for
    a container that does not request cpu / memory at all (an explicit 0 stays 0).
    Memoized by the containers' resources: the pods of one template share the work."""
    key = repr([(c or {}).get("resources") for c in pod.spec.get("containers") or []])
    hit = _NONZERO_CACHE.get(key)
    if hit is None:
        hit = _nonzero(pod)
        if len(_NONZERO_CACHE) < 100_000:
            _NONZERO_CACHE[key] = hit
    return hit


def _nonzero(pod: PodInfo) -> tuple[int, int]:
    cpu = mem = 0
    for c in pod.spec.get("containers") or []:
        reqs = container_requests(c)
        cpu += amount("cpu", reqs["cpu"]) if "cpu" in reqs else DEFAULT_MILLI_CPU_REQUEST
        mem += amount("memory", reqs["memory"]) if "memory" in reqs else DEFAULT_MEMORY_REQUEST
    return cpu, mem


def pod_requests(pod: PodInfo) -> dict[str, int]:
    """The summed requests of the pod's app containers (no defaults), by resource."""
    out: dict[str, int] = {}
    for c in pod.spec.get("containers") or []:
        for name, q in container_requests(c).items():
            out[name] = out.get(name, 0) + amount(name, q)
    return out


@dataclass
class Meta:
    """The inputs of one prioritization: the pod, every node of the snapshot, the nodes
    being scored, and v1.12's precomputed per-pod values."""

    pod: PodInfo
    snapshot: Snapshot
    hard_pod_affinity_weight: int = 1
    _node_nonzero: dict[str, tuple[int, int]] = field(default_factory=dict)
    _node_requested: dict[str, dict[str, int]] = field(default_factory=dict)
    cache: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.pod_nonzero = pod_nonzero_requests(self.pod)
        self.pod_requested = pod_requests(self.pod)

    @property
    def all_nodes(self) -> list[NodeInfo]:
        return self.snapshot.nodes()

    def node_nonzero(self, node: NodeInfo) -> tuple[int, int]:
        """The non-zero cpu and memory requests of the pods on ``node``, v1.12's way."""
        hit = self._node_nonzero.get(node.name)
        if hit is None:
            cpu = mem = 0
            for p in node.pods:
                c, m = pod_nonzero_requests(p)
                cpu += c
                mem += m
            hit = self._node_nonzero[node.name] = (cpu, mem)
        return hit

    def node_requested(self, node: NodeInfo) -> dict[str, int]:
        """The summed requests of the pods on ``node`` (no defaults)."""
        hit = self._node_requested.get(node.name)
        if hit is None:
            hit = {}
            for p in node.pods:
                for k, v in pod_requests(p).items():
                    hit[k] = hit.get(k, 0) + v
            self._node_requested[node.name] = hit
        return hit


def normalize_reduce(scores: dict[str, int], reverse: bool, max_priority: int = 10) -> dict[str, int]:
    """v1.12's generic reduce: scale by the maximum to 0..max_priority (integer), optionally
    reversed; all-zero scores stay 0 (or become max_priority when reversed)."""
    top = max([0, *scores.values()])
    if top == 0:
        return {n: (max_priority if reverse else s) for n, s in scores.items()}
    out = {}
    for n, s in scores.items():
        v = go_div(max_priority * s, top)
        out[n] = max_priority - v if reverse else v
    return out

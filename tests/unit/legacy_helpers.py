"""Builders for the v1.12 priority tests: nodes with milli-cpu / byte amounts, pods with
per-container requests, and a runner returning (raw, reduced) scores by node."""

from __future__ import annotations

from typing import Any

from kschedx.core.api.model import PodInfo
from kschedx.core.api.objects import ClusterObjects
from kschedx.core.legacy.base import PriorityFunction
from kschedx.core.legacy.meta import Meta
from kschedx.core.snapshot import Snapshot

Dict = dict[str, Any]


def mnode(
    name: str,
    milli_cpu: int = 0,
    memory: int = 0,
    labels: dict[str, str] | None = None,
    taints: list[Dict] | None = None,
    images: list[Dict] | None = None,
    annotations: dict[str, str] | None = None,
) -> Dict:
    alloc = {"cpu": f"{milli_cpu}m", "memory": str(memory), "pods": "110"}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": dict(labels or {}), "annotations": dict(annotations or {})},
        "spec": {"taints": taints or []},
        "status": {"allocatable": alloc, "capacity": alloc, "images": images or []},
    }


_counter = [0]


def mpod(
    node: str = "",
    containers: list[dict[str, str]] | None = None,
    labels: dict[str, str] | None = None,
    namespace: str = "default",
    affinity: Dict | None = None,
    tolerations: list[Dict] | None = None,
    owner: Dict | None = None,
    images: list[str] | None = None,
) -> Dict:
    """A pod; ``containers`` lists each container's requests (e.g. {"cpu": "1000m"})."""
    _counter[0] += 1
    name = f"p{_counter[0]}"
    cs: list[Dict] = []
    for i, req in enumerate(containers or []):
        c: Dict = {"name": f"c{i}", "image": "img"}
        if req:
            c["resources"] = {"requests": dict(req)}
        cs.append(c)
    for i, img in enumerate(images or []):
        cs.append({"name": f"i{i}", "image": img})
    spec: Dict = {"containers": cs}
    if node:
        spec["nodeName"] = node
    if affinity is not None:
        spec["affinity"] = affinity
    if tolerations is not None:
        spec["tolerations"] = tolerations
    meta: Dict = {"name": name, "namespace": namespace, "uid": f"uid-{name}", "labels": dict(labels or {})}
    if owner is not None:
        meta["ownerReferences"] = [owner]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec,
            "status": {"phase": "Running" if node else "Pending"}}


def service(selector: dict[str, str] | None, namespace: str = "default", name: str = "svc") -> Dict:
    spec: Dict = {} if selector is None else {"selector": dict(selector)}
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "namespace": namespace}, "spec": spec}


def controller(kind: str, selector: dict[str, str], namespace: str = "default") -> Dict:
    sel: Any = dict(selector) if kind == "ReplicationController" else {"matchLabels": dict(selector)}
    api = "v1" if kind == "ReplicationController" else "apps/v1"
    return {"apiVersion": api, "kind": kind, "metadata": {"name": kind.lower(), "namespace": namespace},
            "spec": {"selector": sel}}


def run(
    pf: PriorityFunction,
    pod: Dict,
    nodes: list[Dict],
    pods: list[Dict] | None = None,
    objects: list[Dict] | None = None,
    hard_weight: int = 1,
) -> tuple[dict[str, int], dict[str, int]]:
    objs = ClusterObjects()
    for o in [*nodes, *(pods or []), *(objects or [])]:
        objs.add(o)
    snap = Snapshot(objs)
    meta = Meta(PodInfo(pod), snap, hard_weight)
    return pf.run(meta, snap.nodes())


def final(pf: PriorityFunction, pod: Dict, nodes: list[Dict], pods: list[Dict] | None = None,
          objects: list[Dict] | None = None, hard_weight: int = 1) -> dict[str, int]:
    return run(pf, pod, nodes, pods, objects, hard_weight)[1]

"""Small builders of API dicts for unit tests."""

from __future__ import annotations

from typing import Any

from kschedx.core.api.model import PodInfo
from kschedx.core.api.objects import ClusterObjects
from kschedx.core.config.profile import default_profile
from kschedx.core.framework.runtime import Framework
from kschedx.core.plugins import REGISTRY
from kschedx.core.snapshot import Snapshot

Dict = dict[str, Any]


def node(
    name: str,
    cpu: str = "4",
    memory: str = "8Gi",
    pods: int = 110,
    labels: dict[str, str] | None = None,
    taints: list[Dict] | None = None,
    unschedulable: bool = False,
    images: list[Dict] | None = None,
    extra: dict[str, str] | None = None,
) -> Dict:
    alloc = {"cpu": cpu, "memory": memory, "pods": str(pods), **(extra or {})}
    lab = {"kubernetes.io/hostname": name, **(labels or {})}
    spec: Dict = {}
    if taints:
        spec["taints"] = taints
    if unschedulable:
        spec["unschedulable"] = True
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": lab},
        "spec": spec,
        "status": {"allocatable": alloc, "capacity": alloc, "images": images or []},
    }


def pod(
    name: str,
    cpu: str | None = None,
    memory: str | None = None,
    node_name: str | None = None,
    namespace: str = "default",
    labels: dict[str, str] | None = None,
    **spec_extra: Any,
) -> Dict:
    requests: Dict = {}
    if cpu is not None:
        requests["cpu"] = cpu
    if memory is not None:
        requests["memory"] = memory
    container: Dict = {"name": "c", "image": "busybox:1.36"}
    if requests:
        container["resources"] = {"requests": requests}
    spec: Dict = {"containers": [container], **spec_extra}
    if node_name:
        spec["nodeName"] = node_name
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace, "uid": f"uid-{namespace}-{name}", "labels": labels or {}},
        "spec": spec,
        "status": {"phase": "Running" if node_name else "Pending"},
    }


def cluster_objects(*objs: Dict) -> ClusterObjects:
    objects = ClusterObjects()
    for o in objs:
        objects.add(o)
    return objects


def snapshot(*objs: Dict) -> Snapshot:
    return Snapshot(cluster_objects(*objs))


def framework(snap: Snapshot) -> Framework:
    return Framework(default_profile(REGISTRY), snap, REGISTRY)


def cycle(snap: Snapshot, incoming: Dict, **kw: Any):  # type: ignore[no-untyped-def]
    return framework(snap).run_cycle(PodInfo(incoming), **kw)

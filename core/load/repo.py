"""Manifests as they sit in a repository: which files hold pod-bearing documents, which
are something else (Service-only files, ``kustomization.yaml``, CI workflows, Helm values),
and the other objects of those files that scheduling reads (a chart's own PriorityClass,
its PVCs, Services, ResourceClaimTemplates, Namespaces), laid over the cluster the way
``kubectl apply -f`` of the files would create them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from kschedx.core.api.objects import ClusterObjects
from kschedx.core.errors import InputError
from kschedx.core.load.files import CLUSTER_KINDS
from kschedx.core.load.manifest import WORKLOAD_KINDS

Dict = dict[str, Any]

# What scheduling reads besides the workloads themselves. The workloads of the files are
# what is being checked, each on its own, so they are not laid over the cluster (the
# owner objects a placement needs are added per workload); nodes and pods are the
# cluster's, not something a deploy folder creates.
OVERLAY_KINDS = frozenset(CLUSTER_KINDS - set(WORKLOAD_KINDS) - {"Node", "Pod"})

CLUSTER_SCOPED = frozenset({"Namespace", "PersistentVolume", "StorageClass", "CSINode", "CSIDriver",
                            "PriorityClass", "ResourceSlice", "DeviceClass", "RuntimeClass"})


@dataclass
class ManifestFile:
    """One file's documents as check sees them: the pod-bearing ones to check, the others
    that go over the cluster, or why the file is skipped."""

    path: str
    workloads: list[Dict] = field(default_factory=list)
    overlay: list[Dict] = field(default_factory=list)
    skipped: str | None = None


def is_kubernetes_object(obj: Dict) -> bool:
    return isinstance(obj.get("apiVersion"), str) and isinstance(obj.get("kind"), str)


def classify(path: str, loaded: list[tuple[Dict, int | None]]) -> ManifestFile:
    """Sort a file's documents. A file none of whose documents is a Kubernetes object
    (apiVersion and kind) is not a manifest (a workflow, Helm values) and is skipped; in a
    file of Kubernetes objects, a document without ``kind`` or ``apiVersion`` is an error
    naming the document."""
    out = ManifestFile(path)
    if not any(is_kubernetes_object(o) for o, _ in loaded):
        out.skipped = "not Kubernetes objects" if loaded else "no documents"
        return out
    for index, (obj, line) in enumerate(loaded, start=1):
        if not is_kubernetes_object(obj):
            missing = "kind" if not isinstance(obj.get("kind"), str) else "apiVersion"
            where = f"document {index}"
            raise InputError(f"{where}: object has no {missing}", path=path, line=line)
        kind = obj["kind"]
        if kind in WORKLOAD_KINDS:
            out.workloads.append(obj)
        elif kind in OVERLAY_KINDS:
            out.overlay.append(obj)
    if not out.workloads:
        kinds = sorted({str(o.get("kind")) for o, _ in loaded})
        out.skipped = "no Pod or workload, only " + ", ".join(kinds)
    return out


def _key(obj: Dict, namespace: str | None) -> tuple[str, str, str]:
    kind = str(obj.get("kind"))
    meta = obj.get("metadata") or {}
    ns = "" if kind in CLUSTER_SCOPED else (meta.get("namespace") or namespace or "default")
    return kind, ns, str(meta.get("name") or "")


def lay_over(objects: ClusterObjects, extra: list[Dict], namespace: str | None = None) -> tuple[ClusterObjects, list[str]]:
    """The cluster with ``extra`` applied: an object of the same kind, namespace and name
    is replaced, others are added (namespaced objects without a namespace go to
    ``namespace``, else default, as kubectl would put them). Returns the new objects and
    the names of what was applied (KIND/NAME or KIND/NS/NAME)."""
    if not extra:
        return objects, []
    out = objects.copy()
    applied: list[str] = []
    latest: dict[tuple[str, str, str], Dict] = {}
    for obj in extra:
        if not isinstance(obj.get("metadata"), dict) or not (obj["metadata"].get("name")):
            raise InputError(f"{obj.get('kind')} without metadata.name")
        key = _key(obj, namespace)
        if key[1] and obj["metadata"].get("namespace") != key[1]:
            obj = dict(obj, metadata=dict(obj["metadata"], namespace=key[1]))
        latest[key] = obj
    for key, obj in latest.items():
        kind, ns, name = key
        current = out.by_kind[kind]
        out.by_kind[kind] = [o for o in current if _key(o, None) != key]
        out.by_kind[kind].append(obj)
        applied.append(f"{kind}/{ns}/{name}" if ns else f"{kind}/{name}")
    return out, applied


def same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def inside(path: str, directory: str) -> bool:
    """Whether ``path`` lies under ``directory`` (a cluster-info dump's tree, say)."""
    if not os.path.isdir(directory):
        return False
    root = os.path.realpath(directory)
    return os.path.realpath(path).startswith(root + os.sep)

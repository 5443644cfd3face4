"""The objects of a cluster source, by kind, as the loaders produce them.

Raw API dicts as stored (a dump, the live API), grouped by kind; the loaders fill it and the
snapshot, the what-if edits and the explanation read it. It knows nothing of scheduling.
"""

from __future__ import annotations

import operator
import sys
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

Dict = dict[str, Any]


# The controllers' kinds: what a workload manifest is matched against (core/explain/rollout.py).
WORKLOAD_KINDS = frozenset(
    {"Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job", "CronJob", "ReplicationController"}
)


@dataclass
class ClusterObjects:
    """Every object of a cluster dump, by kind (raw API dicts, in input order)."""

    by_kind: dict[str, list[Dict]] = field(default_factory=lambda: defaultdict(list))
    skipped_kinds: dict[str, int] = field(default_factory=dict)
    # The workload objects by kind (the same dicts as in by_kind).
    workloads: dict[str, list[Dict]] = field(default_factory=lambda: defaultdict(list))
    # The API server's version (gitVersion), when the source records it: the live cluster's
    # /version, or a file written by ``kschedx snapshot``.
    server_version: str | None = None
    # What loading the source merged or left out, said once (duplicates resolved), and how
    # many Events did not decode (``pending`` notes them; nothing else reads Events).
    load_warnings: list[str] = field(default_factory=list)
    skipped_events: int = 0
    # find_pod's index: (the pod list it was built from, its length, by (namespace, name),
    # by uid), each to the first position in the list.
    _pod_index: tuple[list[Dict], int, dict[tuple[str, str], int], dict[str, int]] | None = field(
        default=None, init=False, repr=False, compare=False)
    # An overlay's kinds whose lists are its own (None: all of them, as for any other).
    _own: set[str] | None = field(default=None, init=False, repr=False, compare=False)
    # The PodInfos a loader made as it decoded the pods (core/api/model.py ``make_early``),
    # by the id of each pod's dict, until a snapshot takes them: one table shared by
    # every copy and overlay, which hold the same pod dicts.
    early_pods: dict[int, Any] = field(default_factory=dict, repr=False, compare=False)

    def of(self, kind: str) -> list[Dict]:
        return self.by_kind.get(kind, [])

    def add(self, obj: Dict) -> None:
        kind = obj.get("kind") or ""
        own = self._own
        if own is not None and kind not in own:
            # An overlay adds to its own copy of the list it shares.
            own.add(kind)
            self.by_kind[kind] = list(self.by_kind.get(kind, ()))
            if kind in WORKLOAD_KINDS:
                self.workloads[kind] = list(self.workloads.get(kind, ()))
        self.by_kind[kind].append(obj)
        if kind in WORKLOAD_KINDS:
            self.workloads[kind].append(obj)

    def find_workload(self, kind: str, namespace: str, name: str) -> Dict | None:
        """The first workload object of ``kind`` with this namespace (unset: default) and name."""
        for o in self.workloads.get(kind, ()):
            meta = o.get("metadata") or {}
            if meta.get("name") == name and (meta.get("namespace") or "default") == namespace:
                return o
        return None

    def copy(self) -> ClusterObjects:
        return ClusterObjects(defaultdict(list, {k: list(v) for k, v in self.by_kind.items()}), dict(self.skipped_kinds),
                              defaultdict(list, {k: list(v) for k, v in self.workloads.items()}),
                              self.server_version, list(self.load_warnings), self.skipped_events,
                              early_pods=self.early_pods)

    def overlay(self) -> ClusterObjects:
        """A copy that shares this one's lists until it adds to one (``add`` then gives it
        its own copy of that list); lists it replaces are its own. The lists shared must not
        change while it is used (a release's workload lays its objects over the release's
        this way: 150,000 pods are not copied per workload)."""
        out = ClusterObjects(defaultdict(list, self.by_kind), dict(self.skipped_kinds),
                             defaultdict(list, self.workloads), self.server_version, list(self.load_warnings),
                             self.skipped_events, early_pods=self.early_pods)
        out._own = set()
        return out

    def find_pod(self, namespace: str, name: str, uid: str = "") -> Dict | None:
        """The first stored pod with this namespace and name, or with this uid.

        ``check`` and ``pending`` look up every document's or pending pod's own copy in one
        source of 150,000 pods: an index built once instead of a scan each time, rebuilt
        when the pod list is replaced or changes length, and checked on every hit (a pod
        replaced in place at the same position is found by its current object)."""
        pods = self.of("Pod")
        index = self._pod_index
        if index is None or index[0] is not pods or index[1] != len(pods):
            # Built from the last position back, so the first position of a key is kept.
            metas = [pod.get("metadata") or {} for pod in pods]
            back = range(len(pods) - 1, -1, -1)
            by_name: dict[tuple[str, str], int] = dict(zip(
                [(m.get("namespace") or "default", m.get("name") or "") for m in reversed(metas)], back, strict=True))
            by_uid: dict[str, int] = {u: pos for u, pos in zip([m.get("uid") for m in reversed(metas)], back, strict=True) if u}
            index = self._pod_index = (pods, len(pods), by_name, by_uid)
        hits = [pos for pos in (index[2].get((namespace, name)), index[3].get(uid) if uid else None) if pos is not None]
        for pos in sorted(hits):
            ns, n, u = pod_key(pods[pos])
            if (ns, n) == (namespace, name) or (uid and u == uid):
                return pods[pos]
            self._pod_index = None  # changed in place under the index: look again from scratch
            return self.find_pod(namespace, name, uid)
        return None


# Indexes over object lists (controlled_by, named, in_namespace), each kind of index with
# its latest few first: the items each was built on (a copy of the list as it was) and
# key -> positions. A release's lists grow workload by workload, and its copies of them
# hold the same objects, so an index serves every list that starts with its items.
_Index = tuple[list[Any], dict[Any, list[int]]]
_CONTROLLED: list[_Index] = []
_NAMED: list[_Index] = []
_NAMESPACED: list[_Index] = []
_KEPT_INDEXES = 4  # by_kind's and workloads' lists, and the copies a release makes of them


def _positions(items: list[Any], kept: list[_Index], keys_of: Callable[[Any], list[Any]], key: Any) -> list[Any]:
    """The objects of ``items`` whose ``keys_of`` holds ``key``, in stored order, from an
    index built once and extended when the list holds the indexed objects first, in order
    (it grew, or is a copy that did), rebuilt otherwise, and checked on every hit."""
    n = len(items)
    base = next((e for e in kept if len(e[0]) <= n and all(map(operator.is_, e[0], items))), None)
    start, index = (len(base[0]), base[1]) if base is not None else (0, {})
    for pos in range(start, n):
        for k in dict.fromkeys(keys_of(items[pos])):
            index.setdefault(k, []).append(pos)
    built = base[0] if base is not None and start == n else list(items)
    kept[:] = [(built, index), *(e for e in kept if e is not base)][:_KEPT_INDEXES]
    out = []
    for pos in index.get(key, ()):
        obj = items[pos]
        if key not in keys_of(obj):
            kept.clear()  # changed in place under the index: look again from scratch
            return _positions(items, kept, keys_of, key)
        out.append(obj)
    return out


def _meta_of(obj: Any) -> dict[str, Any]:
    meta = obj.get("metadata") if isinstance(obj, dict) else None
    return meta if isinstance(meta, dict) else {}


def _controllers(obj: Any) -> list[tuple[str, Any, Any]]:
    """The (namespace, kind, name) of each of an object's controller references (its
    namespace ``default`` when unset)."""
    meta = _meta_of(obj)
    ns = meta.get("namespace") or "default"
    refs = meta.get("ownerReferences")
    return [(ns, r.get("kind"), r.get("name")) for r in refs if isinstance(r, dict) and r.get("controller")] \
        if isinstance(refs, list) else []


def _namespace_of(obj: Any) -> list[str]:
    return [str(_meta_of(obj).get("namespace") or "default")]


def _name_of(obj: Any) -> list[tuple[str, Any]]:
    meta = _meta_of(obj)
    return [(str(meta.get("namespace") or "default"), meta.get("name"))]


def controlled_by(items: list[Any], namespace: str, kind: str, name: str) -> list[Dict]:
    """The objects of ``items`` in ``namespace`` that a controller reference gives to
    ``kind``/``name`` (a Deployment's ReplicaSets), in stored order: ``check`` asks this for
    every manifest of a release over thousands of ReplicaSets."""
    return _positions(items, _CONTROLLED, _controllers, (namespace, kind, name))


def in_namespace(items: list[Any], namespace: str) -> list[Dict]:
    """The objects of ``items`` in ``namespace`` (``default`` when unset), in stored order:
    default spreading reads a namespace's Services every cycle."""
    return _positions(items, _NAMESPACED, _namespace_of, namespace)


def named(items: list[Any], namespace: str, name: str) -> Dict | None:
    """The last object of ``items`` named ``name`` in ``namespace`` (a later duplicate
    replaces an earlier one, as in an informer cache)."""
    hits = _positions(items, _NAMED, _name_of, (namespace, name))
    return hits[-1] if hits else None


ControllerIndex = dict[tuple[str, str, str], list[Dict]]


def controller_key(pod: Dict) -> tuple[str, str, str] | None:
    """The namespace (``default`` when unset), kind and name of ``pod``'s first controller
    reference, None without one: where ``file_by_controller`` files it."""
    m = pod.get("metadata") or {}
    for ref in m.get("ownerReferences") or []:
        if ref.get("controller"):
            return (m.get("namespace") or "default", str(ref.get("kind")), str(ref.get("name")))
    return None


def file_by_controller(index: ControllerIndex, pod: Dict) -> None:
    """File ``pod`` in ``index`` under its first controller reference (``controller_key``),
    if it has one: the pods of a ReplicaSet, StatefulSet, DaemonSet or Job as a rollout
    plan reads them (core/explain/rollout.py)."""
    key = controller_key(pod)
    if key is not None:
        file_under(index, key, pod)


def file_under(index: ControllerIndex, key: tuple[str, str, str], pod: Dict) -> None:
    """``pod`` filed in ``index`` under its ``controller_key`` ``key``."""
    filed = index.get(key)
    if filed is None:
        index[key] = [pod]
    else:
        filed.append(pod)


def pod_key(pod: Dict) -> tuple[str, str, str]:
    """A stored pod's namespace (``default`` when unset), name and uid."""
    meta = pod.get("metadata") or {}
    return (meta.get("namespace") or "default", meta.get("name") or "", meta.get("uid") or "")


# ------------------------------------------------------------------ shared strings

# A decoder makes a new string for every value, so the node name of every pod bound to a
# node, the image of every replica, the owner of every pod of a ReplicaSet are each a
# separate object. Interning the values that repeat from pod to pod in any cluster (not
# timestamps, names, uids or IPs of pods) makes them one object each: 17% of the memory
# of a 150,000-pod dump. Only strings are replaced, each by an equal string: every
# value, type and key order stays as decoded.
_intern = sys.intern
_POD_META = ("namespace",)
_POD_SPEC = ("nodeName", "schedulerName", "priorityClassName", "preemptionPolicy", "dnsPolicy", "restartPolicy",
             "serviceAccountName")
_POD_STATUS = ("phase", "qosClass", "hostIP")
_OWNER = ("apiVersion", "kind", "name", "uid")
_CONTAINER = ("name", "image", "imagePullPolicy", "terminationMessagePath", "terminationMessagePolicy")
_TOLERATION = ("key", "operator", "value", "effect")


def share_strings(obj: Dict) -> None:
    """Intern the strings of a Pod that repeat across a cluster (in place).

    Called for each of 150,000 pods while a dump is decoded, so written as one loop over
    groups of mappings rather than a helper call per mapping (a third cheaper)."""
    if obj.get("kind") == "Pod":
        obj["kind"] = "Pod"
        if obj.get("apiVersion") == "v1":
            obj["apiVersion"] = "v1"
        meta, spec, status = obj.get("metadata"), obj.get("spec"), obj.get("status")
        refs = meta.get("ownerReferences") if type(meta) is dict else None
        containers = spec.get("containers") if type(spec) is dict else None
        tolerations = spec.get("tolerations") if type(spec) is dict else None
        intern = _intern
        for group, keys in (((meta,), _POD_META), ((spec,), _POD_SPEC), ((status,), _POD_STATUS),
                            (refs, _OWNER), (containers, _CONTAINER), (tolerations, _TOLERATION)):
            if type(group) is tuple or type(group) is list:
                for d in group:
                    if type(d) is dict:
                        for k in keys:
                            v = d.get(k)
                            if type(v) is str:
                                d[k] = intern(v)

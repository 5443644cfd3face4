"""The cluster snapshot: one NodeInfo per node plus the indexes the plugins need.

Mirrors the scheduler cache's snapshot: pods aggregated per node (requested and non-zero
requested resources, host ports, image states), and cluster-wide lookups (pods by
namespace, nominated pods, image spread, the controller objects default spreading reads).
``add_pod``/``remove_pod`` keep every aggregate incremental so what-if edits and replica
steps never rebuild the whole snapshot.
"""

from __future__ import annotations

import copy
import itertools
from collections import Counter, defaultdict
from collections.abc import Iterable
from itertools import pairwise
from typing import Any

from kschedx.core.api.model import CONTROLLER_UNREAD, NodeView, PodInfo, take_early
from kschedx.core.api.objects import ClusterObjects, ControllerIndex, controller_key, file_under
from kschedx.core.api.selectors import LabelSelector
from kschedx.core.progress import report

Dict = dict[str, Any]

# Node generations are drawn from one counter for the whole process, so a number is never
# given twice: answers kept by (node name, generation) can't be mistaken for another state
# of the node, of its clones, or of a node of the same name in another snapshot.
_GENERATIONS = itertools.count(1)


class HostPortInfo:
    """Host ports in use on a node: ip -> {(protocol, port)}; 0.0.0.0 conflicts with every ip."""

    WILDCARD = "0.0.0.0"

    def __init__(self) -> None:
        self.ports: dict[str, dict[tuple[str, int], int]] = {}

    def add(self, ip: str, protocol: str, port: int) -> None:
        bucket = self.ports.setdefault(ip or self.WILDCARD, {})
        bucket[(protocol or "TCP", port)] = bucket.get((protocol or "TCP", port), 0) + 1

    def remove(self, ip: str, protocol: str, port: int) -> None:
        bucket = self.ports.get(ip or self.WILDCARD)
        if not bucket:
            return
        k = (protocol or "TCP", port)
        n = bucket.get(k, 0) - 1
        if n <= 0:
            bucket.pop(k, None)
        else:
            bucket[k] = n
        if not bucket:
            self.ports.pop(ip or self.WILDCARD, None)

    def check_conflict(self, ip: str, protocol: str, port: int) -> bool:
        if port <= 0:
            return False
        ip = ip or self.WILDCARD
        k = (protocol or "TCP", port)
        if ip == self.WILDCARD:
            return any(k in b for b in self.ports.values())
        for candidate in (self.WILDCARD, ip):
            b = self.ports.get(candidate)
            if b and k in b:
                return True
        return False

    def __len__(self) -> int:
        return sum(len(b) for b in self.ports.values())

    def clone(self) -> HostPortInfo:
        c = HostPortInfo()
        c.ports = {ip: dict(b) for ip, b in self.ports.items()}
        return c


class NodeInfo:
    """A node with the pods on it and their aggregated requests."""

    def __init__(self, node: NodeView) -> None:
        self.node = node
        self.name = node.name
        self.pods: list[PodInfo] = []
        self.requested: dict[str, int] = {}
        self.non0_cpu = 0
        self.non0_mem = 0
        # Host ports in use, or None until first read (``used_ports``): only NodePorts,
        # and only for an incoming pod with host ports, ever asks.
        self._used_ports: HostPortInfo | None = HostPortInfo()
        self.generation = next(_GENERATIONS)
        # The generation of the node's last change other than a pod taken off it (the very
        # int object): a Filter plugin the node passed still passes after removals alone
        # when it says so (``Plugin.passes_after_removal``), which the Filter column uses.
        self.grown = self.generation
        # Pods with any pod (anti-)affinity, and those with required anti-affinity: the
        # only existing pods InterPodAffinity looks at unless the incoming pod has terms.
        self.pods_with_affinity: list[PodInfo] = []
        self.pods_with_required_anti_affinity: list[PodInfo] = []

    @property
    def allocatable(self) -> dict[str, int]:
        return self.node.allocatable

    @property
    def used_ports(self) -> HostPortInfo:
        """The host ports of ``pods``, gathered on first read and kept up to date after."""
        ports = self._used_ports
        if ports is None:
            ports = self._used_ports = HostPortInfo()
            for pod in self.pods:
                for ip, proto, port in pod.host_ports:
                    ports.add(ip, proto, port)
        return ports

    def add_pod(self, pod: PodInfo) -> None:
        self.pods.append(pod)
        req = self.requested
        for k, v in pod.requests.items():
            if k == "pods":
                continue
            req[k] = req.get(k, 0) + v
        self.non0_cpu += pod.non0_cpu
        self.non0_mem += pod.non0_mem
        ports = self._used_ports
        if ports is not None:  # else gathered from the pods, this one included, when read
            for ip, proto, port in pod.host_ports:
                ports.add(ip, proto, port)
        if pod.has_pod_affinity:
            self.pods_with_affinity.append(pod)
            if pod.has_required_anti_affinity:
                self.pods_with_required_anti_affinity.append(pod)
        self.generation = self.grown = next(_GENERATIONS)

    def _sum_requests(self, dicts: list[dict[str, int]]) -> None:
        """The requested and non-zero sums of ``pods``, as add_pod would leave them had it
        added them one by one; the snapshot's constructor places pods without those sums.
        Their host ports are left to ``used_ports`` to gather when first read. ``dicts``
        are the pods' ``requests``, in order, gathered while the constructor placed the pods:
        read from the pods here, after all 150,000 were placed, they are out of the cache.

        Pods of one template share their ``requests`` dict (``_pod_amounts``), so the
        sums are taken per distinct dict times its pods: the few distinct dicts, in the
        order they first appear, put the resource names into ``requested`` in the order
        pod-by-pod additions would. Every amount is an int, so n additions equal one
        product. A dict shared by two pods came from one memo entry, with one non-zero
        cpu and memory: true of the fresh PodInfos the constructor places, the only caller."""
        pods = self.pods
        ids = list(map(id, dicts))
        one_pod = dict(zip(ids, pods, strict=True))
        req = self.requested
        non0_cpu = self.non0_cpu
        non0_mem = self.non0_mem
        for i, n in Counter(ids).items():
            pod = one_pod[i]
            for k, v in pod.requests.items():
                if k == "pods":
                    continue
                req[k] = req.get(k, 0) + v * n
            non0_cpu += pod.non0_cpu * n
            non0_mem += pod.non0_mem * n
        self.non0_cpu = non0_cpu
        self.non0_mem = non0_mem
        self._used_ports = None  # the pods' host ports, gathered when first read
        self.generation = self.grown = next(_GENERATIONS)

    def remove_pod(self, pod: PodInfo) -> bool:
        pods = self.pods
        try:
            i = pods.index(pod)  # PodInfo compares by identity: C finds the object itself
        except ValueError:  # another object of the same pod (its uid)
            uid = pod.uid
            i = next((k for k, p in enumerate(pods) if p.uid == uid), -1)
            if i < 0:
                return False
        del pods[i]
        req = self.requested
        for k, v in pod.requests.items():
            if k == "pods":
                continue
            req[k] = req.get(k, 0) - v
        self.non0_cpu -= pod.non0_cpu
        self.non0_mem -= pod.non0_mem
        ports = self._used_ports
        if ports is not None:
            for ip, proto, port in pod.host_ports:
                ports.remove(ip, proto, port)
        if pod.has_pod_affinity:
            self.pods_with_affinity = [p for p in self.pods_with_affinity if p.uid != pod.uid]
            self.pods_with_required_anti_affinity = [
                p for p in self.pods_with_required_anti_affinity if p.uid != pod.uid
            ]
        self.generation = next(_GENERATIONS)
        return True

    def clone(self) -> NodeInfo:
        c = NodeInfo.__new__(NodeInfo)
        c.node = self.node
        c.name = self.name
        c.pods = list(self.pods)
        c.requested = dict(self.requested)
        c.non0_cpu = self.non0_cpu
        c.non0_mem = self.non0_mem
        c._used_ports = self._used_ports.clone() if self._used_ports is not None else None
        c.generation = self.generation
        c.grown = self.grown
        c.pods_with_affinity = list(self.pods_with_affinity)
        c.pods_with_required_anti_affinity = list(self.pods_with_required_anti_affinity)
        return c

    def __repr__(self) -> str:
        return f"NodeInfo({self.name}, {len(self.pods)} pods)"


# The strings of YAML scalars that load as another type and start with a letter (bools,
# null, float infinity and not-a-number).
_SCALAR_WORDS = frozenset({"True", "False", "None", "inf", "nan"})
# A label key a pod's stored labels lack.
_ABSENT = object()


class Snapshot:
    """NodeInfos and cluster-wide indexes for one scheduling cycle."""

    def __init__(self, objects: ClusterObjects, controllers: ControllerIndex | None = None) -> None:
        """``controllers``, when given, is filled with every pod of ``objects`` by its
        controller reference (``file_by_controller``) while the pods are read anyway."""
        self.objects = objects
        self.node_infos: list[NodeInfo] = []
        self.by_name: dict[str, NodeInfo] = {}
        for raw in objects.of("Node"):
            ni = NodeInfo(NodeView(raw))
            if ni.name in self.by_name:
                continue
            self.node_infos.append(ni)
            self.by_name[ni.name] = ni
        # Pods bound to nodes we don't know still exist for the API (e.g. counted by PDBs)
        # but occupy no node of the snapshot.
        # Bound pods per namespace: pod-relation plugins match selectors only within namespaces.
        self.pods_by_namespace: dict[str, dict[str, PodInfo]] = defaultdict(dict)
        # The bound pods by uid (``pods_by_uid``): merged from the namespaces when first
        # asked for, then kept up to date by every edit.
        self._pods_by_uid: dict[str, PodInfo] | None = None
        self.nominated: dict[str, list[PodInfo]] = defaultdict(list)
        self.orphan_pods: list[PodInfo] = []
        raw_pods = objects.of("Pod")
        total = len(raw_pods)
        by_name = self.by_name
        pods_by_namespace = self.pods_by_namespace
        # Per node: the node, then where its pods and their requests dicts are appended.
        places: dict[str, tuple[NodeInfo, Any, Any]] = {}
        requests: list[list[dict[str, int]]] = []
        for ni in self.node_infos:
            requests.append([])
            places[ni.name] = (ni, ni.pods.append, requests[-1].append)
        # The PodInfos the loader made as it decoded the pods, each taken once (the next
        # snapshot of these objects makes its own); what is left belongs to no pod here.
        early = objects.early_pods
        for i, raw in enumerate(raw_pods):
            if not i & 4095:
                report(f"building the snapshot ({len(self.node_infos)} nodes, {total} pods)", i, total)
            pod = take_early(early, raw) if early else PodInfo(raw)
            if controllers is not None:
                ctl = pod.controller_key
                if ctl is CONTROLLER_UNREAD:
                    ctl = controller_key(raw)
                if ctl is not None:
                    file_under(controllers, ctl, raw)
            phase = pod.phase
            if phase == "Succeeded" or phase == "Failed":  # PodInfo.terminal
                continue
            node_name = pod.node_name
            if node_name:
                place = places.get(node_name)
                if place is None:
                    self.orphan_pods.append(pod)
                    continue
                # NodeInfo.add_pod in parts: the pod, its requests and its affinity now,
                # the requested sums per node once every pod is placed, the host ports when
                # first read.
                place[1](pod)
                place[2](pod.requests)
                if pod.has_pod_affinity:
                    owner = place[0]
                    owner.pods_with_affinity.append(pod)
                    if pod.has_required_anti_affinity:
                        owner.pods_with_required_anti_affinity.append(pod)
                pods_by_namespace[pod.namespace][pod.uid] = pod
            elif pod.nominated_node_name and pod.nominated_node_name in by_name:
                self.nominated[pod.nominated_node_name].append(pod)
        early.clear()
        for ni, dicts in zip(self.node_infos, requests, strict=True):
            if dicts:
                ni._sum_requests(dicts)
        self._image_nodes: dict[str, int] | None = None
        self._taint_effects: frozenset[str] | None = None
        # Node label columns and groups by label keys, in node order (``label_columns``):
        # kept until the node set changes (node labels are never edited in a snapshot).
        self._label_columns: dict[tuple[str, ...], list[tuple[str | None, ...]]] = {}
        self._label_values: dict[str, list[str | None]] = {}
        self._label_positions: dict[str, dict[str, list[int]]] = {}
        self._label_groups: dict[tuple[str, ...], dict[tuple[str | None, ...], list[int]]] = {}
        self._names: tuple[list[str], dict[str, int], bool] | None = None
        # The node list, its length and each node's position by object id (positions_of).
        self._node_ids: tuple[list[NodeInfo], int, dict[int, int]] | None = None
        self.namespace_labels: dict[str, dict[str, str]] = {
            (ns.get("metadata") or {}).get("name", ""): {
                str(k): str(v) for k, v in ((ns.get("metadata") or {}).get("labels") or {}).items()
            }
            for ns in objects.of("Namespace")
        }
        self.generation = 0
        # The nodes where add_pod/remove_pod changed the pods with (anti-)affinity terms, in
        # order: the term indexes kept across cycles (core/plugins/interpodaffinity_index.py)
        # catch up on these alone. An edit of a pod without terms leaves them as they are.
        self.touched: list[str] = []
        # namespace -> label key -> value -> the bound pods with that label (by uid): built
        # per namespace and key when first asked for (``pods_labelled``), then kept up to
        # date by every edit of the pods.
        self._labelled: dict[str, dict[str, dict[str, dict[str, PodInfo]]]] = {}

    # ------------------------------------------------------------------ lookups

    @property
    def pods_by_uid(self) -> dict[str, PodInfo]:
        """The pods bound to the snapshot's nodes, by uid. Built from ``pods_by_namespace``
        when first read (a merge of dicts whose keys' hashes are known: a fraction of the
        150,000 inserts it would cost while the pods are placed). Shared: edit the
        snapshot, not this."""
        by_uid = self._pods_by_uid
        if by_uid is None:
            by_uid = self._pods_by_uid = {}
            for pods in self.pods_by_namespace.values():
                by_uid.update(pods)
        return by_uid

    def nodes(self) -> list[NodeInfo]:
        return self.node_infos

    def get(self, name: str) -> NodeInfo | None:
        return self.by_name.get(name)

    def all_pods(self) -> Iterable[PodInfo]:
        for ni in self.node_infos:
            yield from ni.pods

    def image_num_nodes(self) -> dict[str, int]:
        """How many nodes hold each image name (ImageStateSummary.NumNodes): a name counts
        once per node, however many of its images carry it. Read with each node's image
        sizes by name (``NodeView.image_sizes``), which ImageLocality then reads per node."""
        if self._image_nodes is None:
            self._image_nodes = dict(Counter(itertools.chain.from_iterable(
                ni.node.image_sizes for ni in self.node_infos)))
        return self._image_nodes

    def taint_effects(self) -> frozenset[str]:
        """The effects of the taints any node has: a plugin scoring by one effect that no
        node has scores every node alike."""
        if self._taint_effects is None:
            self._taint_effects = frozenset(t.effect for ni in self.node_infos for t in ni.node.taints)
        return self._taint_effects

    def label_columns(self, keys: tuple[str, ...]) -> list[tuple[str | None, ...]]:
        """Each node's values of the label ``keys`` (None where unset), in node order: the
        domains a topology plugin answers per. Every workload of a release asks for the same
        few keys over the same nodes, so they are read once. Shared: don't change it."""
        col = self._label_columns.get(keys)
        if col is None:
            col = self._label_columns[keys] = [tuple(map(ni.node.labels.get, keys)) for ni in self.node_infos]
        return col

    def label_values(self, key: str) -> list[str | None]:
        """Each node's value of the label ``key`` (None where unset), in node order: one
        column of ``label_columns``, kept alike. Shared: don't change it."""
        col = self._label_values.get(key)
        if col is None:
            col = self._label_values[key] = [ni.node.labels.get(key) for ni in self.node_infos]
        return col

    def label_rows(self, keys: tuple[str, ...], nodes: list[NodeInfo]) -> list[tuple[str | None, ...]]:
        """``label_columns``' rows of ``nodes``: read by position for the snapshot's own nodes,
        else from each node's labels."""
        pos = self.positions_of(nodes)
        if pos is None:
            return [tuple(map(ni.node.labels.get, keys)) for ni in nodes]
        return list(map(self.label_columns(keys).__getitem__, pos))

    def label_groups(self, keys: tuple[str, ...]) -> dict[tuple[str | None, ...], list[int]]:
        """The nodes' positions by their values of the label ``keys`` (``label_columns``'
        distinct rows), each list in node order. Shared: don't change it."""
        groups = self._label_groups.get(keys)
        if groups is None:
            groups = self._label_groups[keys] = {}
            for i, c in enumerate(self.label_columns(keys)):
                groups.setdefault(c, []).append(i)
        return groups

    def node_names(self) -> tuple[list[str], dict[str, int], bool]:
        """The node names in node order, their positions, and whether that order is the
        names' own (as dumps list nodes). Shared: don't change them."""
        if self._names is None:
            names = [ni.name for ni in self.node_infos]
            self._names = (names, {n: i for i, n in enumerate(names)}, all(a < b for a, b in pairwise(names)))
        return self._names

    def positions_of(self, nodes: list[NodeInfo]) -> list[int] | None:
        """The positions of ``nodes`` in the node list, or None when one of them is not
        the snapshot's own (another name, or a copy of one of its nodes): a new list each
        time."""
        infos = self.node_infos
        ids = self._node_ids
        if ids is None or ids[0] is not infos or ids[1] != len(infos):
            # By object identity: the node list holds every one of its nodes, so no other
            # live object has one of their ids, and a hit is the node itself.
            ids = self._node_ids = (infos, len(infos), {id(ni): i for i, ni in enumerate(infos)})
        try:
            return list(map(ids[2].__getitem__, map(id, nodes)))
        except KeyError:
            return None

    def label_positions(self, key: str) -> dict[str, list[int]]:
        """Label value -> the positions (in node order) of the nodes with label ``key`` set to
        it. Shared: don't change it."""
        by_value = self._label_positions.get(key)
        if by_value is None:
            by_value = self._label_positions[key] = {
                value: positions for (value,), positions in self.label_groups((key,)).items() if value is not None}
        return by_value

    def namespace_labels_of(self, ns: str) -> dict[str, str] | None:
        return self.namespace_labels.get(ns)

    def pods_labelled(self, namespace: str, key: str, value: str) -> Iterable[PodInfo]:
        """The bound pods of ``namespace`` whose label ``key`` is ``value`` (the pods of
        ``pods_by_namespace`` a selector requiring that label can match): a selector of one
        workload visits its few pods, not the namespace's thousands."""
        keys = self._labelled.setdefault(namespace, {})
        by_value = keys.get(key)
        if by_value is None:
            by_value = keys[key] = {}
            # A pod's labels as strings (PodInfo.labels) are made when first read; for the
            # index the stored value of the key will do where no key of another type (YAML's
            # 1, true, null, dates) can turn into this one as a string. The stored labels are
            # read even where the strings were made: asking whether they were (the pod's
            # __dict__) makes that dict, for each of thousands of pods never read otherwise.
            direct = key[:1].isalpha() and key not in _SCALAR_WORDS
            for uid, p in self.pods_by_namespace.get(namespace, {}).items():
                if direct:
                    stored = p.stored_labels
                    if not stored:
                        continue
                    if type(stored) is dict:
                        # (a null value is a value: PodInfo.labels makes it "None")
                        v = stored.get(key, _ABSENT)
                        if v is not _ABSENT:
                            by_value.setdefault(v if type(v) is str else str(v), {})[uid] = p
                        continue
                v = p.labels.get(key)
                if v is not None:
                    by_value.setdefault(v, {})[uid] = p
        return by_value.get(value, {}).values()

    def pods_selectable(self, namespace: str, selector: LabelSelector) -> Iterable[PodInfo]:
        """The bound pods of ``namespace`` that ``selector`` can match: where it requires a
        label value, the pods holding it (``pods_labelled``, a label already indexed in the
        namespace first), else all of them. Callers still match each pod."""
        required = [r for r in selector.requirements if r.op == "In" and len(r.values) == 1]
        if not required:
            return self.pods_by_namespace.get(namespace, {}).values()
        r = min(required, key=lambda r: not self.labels_indexed(namespace, r.key))
        return self.pods_labelled(namespace, r.key, next(iter(r.values)))

    def labels_indexed(self, namespace: str, key: str) -> bool:
        """Whether ``pods_labelled`` has its index for this namespace and key already."""
        return key in self._labelled.get(namespace, {})

    def _label_index_edit(self, pod: PodInfo, bound: bool) -> None:
        """``pod`` bound (or, ``bound`` False, taken off) in every label index of its namespace."""
        keys = self._labelled.get(pod.namespace)
        if not keys:
            return
        labels = pod.labels
        for key, by_value in keys.items():
            v = labels.get(key)
            if v is None:
                continue
            if bound:
                by_value.setdefault(v, {})[pod.uid] = pod
            else:
                by_value.get(v, {}).pop(pod.uid, None)

    # ------------------------------------------------------------------ edits

    def add_pod(self, pod: PodInfo) -> None:
        ni = self.by_name[pod.node_name]
        ni.add_pod(pod)
        if self._pods_by_uid is not None:
            self._pods_by_uid[pod.uid] = pod
        self.pods_by_namespace[pod.namespace][pod.uid] = pod
        self._label_index_edit(pod, True)
        self.generation += 1
        if pod.has_pod_affinity:
            self.touched.append(ni.name)

    def remove_pod(self, pod: PodInfo) -> None:
        ni = self.by_name.get(pod.node_name)
        if ni is not None and ni.remove_pod(pod):
            if self._pods_by_uid is not None:
                self._pods_by_uid.pop(pod.uid, None)
            self.pods_by_namespace.get(pod.namespace, {}).pop(pod.uid, None)
            self._label_index_edit(pod, False)
            self.generation += 1
            if pod.has_pod_affinity:
                self.touched.append(ni.name)

    def remove_node(self, name: str) -> None:
        ni = self.by_name.pop(name, None)
        if ni is None:
            return
        self.node_infos = [n for n in self.node_infos if n.name != name]
        for p in ni.pods:
            if self._pods_by_uid is not None:
                self._pods_by_uid.pop(p.uid, None)
            self.pods_by_namespace.get(p.namespace, {}).pop(p.uid, None)
            self._label_index_edit(p, False)
        self.nominated.pop(name, None)
        self._node_set_changed()

    def add_node(self, raw: Dict) -> NodeInfo:
        ni = NodeInfo(NodeView(copy.deepcopy(raw)))
        self.node_infos.append(ni)
        self.by_name[ni.name] = ni
        self._node_set_changed()
        return ni

    def _node_set_changed(self) -> None:
        self._image_nodes = None
        self._taint_effects = None
        self._label_columns = {}
        self._label_values = {}
        self._label_positions = {}
        self._label_groups = {}
        self._node_ids = None
        self._names = None
        self.generation += 1

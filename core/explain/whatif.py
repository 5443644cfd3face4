"""What-if edits applied to a cluster before the cycle: cordon, drain, remove and add nodes.

Edits work on the raw objects (``ClusterObjects``), before the snapshot is built, so every
plugin and index sees the edited cluster exactly as it would see a real one: a cordoned
node is ``spec.unschedulable``, a drained node's evicted pods are Pending (they occupy
nothing; nobody reschedules them), a removed node takes its pods with it, and an added
node is a copy of a template Node with a unique name.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from kschedx.core.api.objects import ClusterObjects
from kschedx.core.errors import InputError
from kschedx.core.explain.nodenames import resolve_node_name
from kschedx.core.load.files import load_objects

Dict = dict[str, Any]

HOSTNAME_LABEL = "kubernetes.io/hostname"


@dataclass
class Edits:
    """The edits of one run, in the order they are applied."""

    cordon: list[str] = field(default_factory=list)
    drain: list[str] = field(default_factory=list)
    without: list[str] = field(default_factory=list)
    add_node_files: list[str] = field(default_factory=list)
    add_node_count: int = 1

    def __bool__(self) -> bool:
        return bool(self.cordon or self.drain or self.without or self.add_node_files)


def _name(obj: Dict) -> str:
    return str((obj.get("metadata") or {}).get("name") or "")


MIRROR_ANNOTATION = "kubernetes.io/config.mirror"


def _stays_on_drain(pod: Dict) -> bool:
    """kubectl drain leaves DaemonSet pods (their controller ignores cordons) and static
    pods (their mirror objects belong to the kubelet, not to the API)."""
    meta = pod.get("metadata") or {}
    if MIRROR_ANNOTATION in (meta.get("annotations") or {}):
        return True
    return any(ref.get("kind") in ("DaemonSet", "Node") for ref in meta.get("ownerReferences") or [])


def _require_nodes(objects: ClusterObjects, names: list[str], flag: str) -> list[str]:
    """``names`` as the nodes they name (a short name up to a dot is accepted when unique)."""
    known = {_name(n) for n in objects.of("Node")}
    return [resolve_node_name(name, known, flag) for name in names]


def _replace_node(objects: ClusterObjects, name: str, edit: Any) -> None:
    nodes = objects.by_kind["Node"]
    for i, n in enumerate(nodes):
        if _name(n) == name:
            n = copy.deepcopy(n)
            edit(n)
            nodes[i] = n


def _cordon(node: Dict) -> None:
    node.setdefault("spec", {})["unschedulable"] = True


def _evict(pod: Dict) -> Dict:
    """The pod as it is after eviction by a drain: back to Pending, bound nowhere."""
    pod = copy.deepcopy(pod)
    pod.get("spec", {}).pop("nodeName", None)
    status = pod.setdefault("status", {})
    status["phase"] = "Pending"
    status.pop("nominatedNodeName", None)
    return pod


def _template_nodes(path: str) -> list[Dict]:
    nodes = [o for o, _line in load_objects(path) if o.get("kind") == "Node"]
    if not nodes:
        raise InputError("no Node in the file (expected a Node manifest to use as the template)", path=path)
    return nodes


def _unique_copies(template: Dict, count: int, taken: set[str]) -> list[Dict]:
    base = _name(template) or "added-node"
    if count == 1 and base not in taken:
        names = [base]
    else:
        names = []
        i = 0
        while len(names) < count:
            if f"{base}-{i}" not in taken:
                names.append(f"{base}-{i}")
            i += 1
    out: list[Dict] = []
    for name in names:
        taken.add(name)
        node = copy.deepcopy(template)
        meta = node.setdefault("metadata", {})
        meta["name"] = name
        meta.pop("uid", None)
        labels = meta.setdefault("labels", {})
        if HOSTNAME_LABEL in labels or count > 1:
            labels[HOSTNAME_LABEL] = name
        out.append(node)
    return out


def apply_edits(objects: ClusterObjects, edits: Edits) -> tuple[ClusterObjects, list[str]]:
    """A copy of ``objects`` with the edits applied, and one line per edit for the output."""
    if not edits:
        return objects, []
    out = objects.copy()
    lines: list[str] = []
    cordon = _require_nodes(out, edits.cordon, "--cordon")
    drain = _require_nodes(out, edits.drain, "--drain")
    without = _require_nodes(out, edits.without, "--without-node")

    for name in cordon:
        _replace_node(out, name, _cordon)
        lines.append(f"cordoned {name}")

    for name in drain:
        _replace_node(out, name, _cordon)
        evicted = 0
        pods = out.by_kind["Pod"]
        for i, pod in enumerate(pods):
            if (pod.get("spec") or {}).get("nodeName") == name and not _stays_on_drain(pod):
                pods[i] = _evict(pod)
                evicted += 1
        lines.append(f"drained {name}: cordoned, {evicted} pod(s) evicted to Pending (DaemonSet and static pods stay)")

    for name in without:
        before = len(out.of("Pod"))
        out.by_kind["Node"] = [n for n in out.of("Node") if _name(n) != name]
        out.by_kind["Pod"] = [p for p in out.of("Pod") if (p.get("spec") or {}).get("nodeName") != name]
        lines.append(f"removed node {name} and its {before - len(out.of('Pod'))} pod(s)")

    if edits.add_node_count < 1:
        raise InputError("--add-node-count must be at least 1")
    taken = {_name(n) for n in out.of("Node")}
    for path in edits.add_node_files:
        for template in _template_nodes(path):
            added = _unique_copies(template, edits.add_node_count, taken)
            for node in added:
                out.add(node)
            names = ", ".join(_name(n) for n in added)
            lines.append(f"added {len(added)} node(s) from {path}: {names}")
    return out, lines

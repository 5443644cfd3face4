"""API-server defaulting and admission that scheduling depends on, applied to the incoming pod.

- namespace: ``-n``, else the manifest's, else ``default``;
- Priority admission: ``spec.priority`` from ``priorityClassName``, the global default
  PriorityClass (the lowest-valued one, if several), or the two built-in system classes;
- DefaultTolerationSeconds: not-ready / unreachable NoExecute tolerations for 300 s;
- the pod strategy's matchLabelKeys / mismatchLabelKeys merge into pod (anti-)affinity
  label selectors (see ``merge_affinity_label_keys``).
Container requests from limits and node allocatable from capacity are defaulted where
they are read (see :mod:`kschedx.core.api.model`).
"""

from __future__ import annotations

from typing import Any

from kschedx.core.api.objects import ClusterObjects
from kschedx.core.errors import InputError

Dict = dict[str, Any]

SYSTEM_PRIORITY_CLASSES = {
    "system-node-critical": 2000001000,
    "system-cluster-critical": 2000000000,
}

DEFAULT_TOLERATION_SECONDS = 300
NOT_READY = "node.kubernetes.io/not-ready"
UNREACHABLE = "node.kubernetes.io/unreachable"


def priority_classes(objects: ClusterObjects) -> dict[str, Dict]:
    return {(pc.get("metadata") or {}).get("name", ""): pc for pc in objects.of("PriorityClass")}


def resolve_priority(spec: Dict, classes: dict[str, Dict]) -> tuple[int, str | None]:
    """The priority admission would compute, and the class's preemptionPolicy if any."""
    name = spec.get("priorityClassName") or ""
    if name:
        pc = classes.get(name)
        if pc is not None:
            return int(pc.get("value") or 0), pc.get("preemptionPolicy")
        if name in SYSTEM_PRIORITY_CLASSES:
            return SYSTEM_PRIORITY_CLASSES[name], "PreemptLowerPriority"
        raise InputError(f"no PriorityClass with name {name} was found")
    default: Dict | None = None
    for pc in classes.values():
        if pc.get("globalDefault") and (default is None or int(pc.get("value") or 0) < int(default.get("value") or 0)):
            default = pc
    if default is not None:
        spec["priorityClassName"] = (default.get("metadata") or {}).get("name")
        return int(default.get("value") or 0), default.get("preemptionPolicy")
    return 0, None


def add_default_tolerations(spec: Dict) -> None:
    tolerations = list(spec.get("tolerations") or [])
    not_ready = unreachable = False
    for t in tolerations:
        key = t.get("key") or ""
        effect = t.get("effect") or ""
        if effect not in ("", "NoExecute"):
            continue
        if key in ("", NOT_READY):
            not_ready = True
        if key in ("", UNREACHABLE):
            unreachable = True
    if not not_ready:
        tolerations.append(
            {"key": NOT_READY, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": DEFAULT_TOLERATION_SECONDS}
        )
    if not unreachable:
        tolerations.append(
            {"key": UNREACHABLE, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": DEFAULT_TOLERATION_SECONDS}
        )
    spec["tolerations"] = tolerations


def admit(pod: Dict, objects: ClusterObjects, namespace: str | None = None) -> list[str]:
    """Apply defaulting and admission to the incoming pod in place; returns warnings."""
    warnings: list[str] = []
    meta = pod.setdefault("metadata", {})
    if namespace:
        meta["namespace"] = namespace
    elif not meta.get("namespace"):
        meta["namespace"] = "default"
    spec = pod.setdefault("spec", {})
    if not spec.get("schedulerName"):
        spec["schedulerName"] = "default-scheduler"
    classes = priority_classes(objects)
    priority, policy = resolve_priority(spec, classes)
    if spec.get("priority") is not None and int(spec["priority"]) != priority:
        warnings.append(
            f"spec.priority {spec['priority']} replaced by {priority}, as priority admission computes it"
        )
    spec["priority"] = priority
    if policy and not spec.get("preemptionPolicy"):
        spec["preemptionPolicy"] = policy
    if not spec.get("preemptionPolicy"):
        spec["preemptionPolicy"] = "PreemptLowerPriority"
    add_default_tolerations(spec)
    merge_affinity_label_keys(pod)
    return warnings


def _merge_label_keys(term: Dict, labels: Dict) -> None:
    selector = term.get("labelSelector")
    if not isinstance(selector, dict):
        return  # a nil selector matches nothing and the API server leaves it nil
    exprs = selector.get("matchExpressions")
    if not isinstance(exprs, list):
        exprs = []
    added = False
    for field, op in (("matchLabelKeys", "In"), ("mismatchLabelKeys", "NotIn")):
        for key in term.get(field) or ():
            if not isinstance(key, str) or key not in labels:
                continue
            req = {"key": key, "operator": op, "values": [str(labels[key])]}
            # Idempotent: a manifest copied from a stored pod already carries the merge.
            if req not in exprs:
                exprs.append(req)
                added = True
    if added:
        selector["matchExpressions"] = exprs


def merge_affinity_label_keys(pod: Dict) -> None:
    """What the API server does to a pod on create (pkg/registry/core/pod/strategy.go,
    mutatePodAffinity): each pod (anti-)affinity term's matchLabelKeys become ``key In
    (value)`` and its mismatchLabelKeys ``key NotIn (value)`` requirements of its
    labelSelector, with the pod's own label values. The scheduler then uses the stored
    selector as it is, so pods of the cluster source are never merged again."""
    affinity = (pod.get("spec") or {}).get("affinity")
    if not isinstance(affinity, dict):
        return
    labels = (pod.get("metadata") or {}).get("labels") or {}
    if not isinstance(labels, dict):
        return
    for kind in ("podAffinity", "podAntiAffinity"):
        stanza = affinity.get(kind)
        if not isinstance(stanza, dict):
            continue
        for term in stanza.get("requiredDuringSchedulingIgnoredDuringExecution") or ():
            if isinstance(term, dict):
                _merge_label_keys(term, labels)
        for weighted in stanza.get("preferredDuringSchedulingIgnoredDuringExecution") or ():
            term = weighted.get("podAffinityTerm") if isinstance(weighted, dict) else None
            if isinstance(term, dict):
                _merge_label_keys(term, labels)


def resolve_cluster_pod_priorities(objects: ClusterObjects) -> None:
    """Existing pods normally carry spec.priority; fill it in for hand-written dumps that don't."""
    classes: dict[str, Dict] | None = None
    for pod in objects.of("Pod"):
        spec = pod.get("spec") or {}
        if spec.get("priority") is None and spec.get("priorityClassName"):
            if classes is None:
                classes = priority_classes(objects)
            try:
                spec["priority"] = resolve_priority(dict(spec), classes)[0]
            except InputError:
                spec["priority"] = 0

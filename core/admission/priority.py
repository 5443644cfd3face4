"""Priority (plugin/pkg/admission/priority): ``spec.priority`` from the pod's
``priorityClassName``, else from the global default PriorityClass (the lowest-valued one
when several claim it), else 0; the class's preemptionPolicy when the pod sets none. The
two built-in system classes exist even when the cluster source lists no PriorityClass.

A class that does not exist is an input error (the API server's words, exit 2 as before).
A manifest that already carries a different ``spec.priority`` is explained with the
computed one and a warning (the API server would refuse it; a manifest copied from a stored
pod carries the number and is still meant to be explained).
"""

from __future__ import annotations

from typing import Any

from kschedx.core.admission.interface import PODS, Request, Run
from kschedx.core.api.objects import ClusterObjects
from kschedx.core.errors import InputError

Dict = dict[str, Any]

SYSTEM_PRIORITY_CLASSES = {
    "system-node-critical": 2000001000,
    "system-cluster-critical": 2000000000,
}


class UnknownPriorityClass(LookupError):
    pass


def priority_classes(objects: ClusterObjects) -> dict[str, Dict]:
    return {(pc.get("metadata") or {}).get("name", ""): pc for pc in objects.of("PriorityClass")}


def resolve_priority(spec: Dict, classes: dict[str, Dict]) -> tuple[int, str | None]:
    """The priority admission computes, and the class's preemptionPolicy if any (raises
    UnknownPriorityClass for a class that does not exist). A pod without a class gets the
    global default's name written into ``spec``."""
    name = spec.get("priorityClassName") or ""
    if name:
        pc = classes.get(name)
        if pc is not None:
            return int(pc.get("value") or 0), pc.get("preemptionPolicy")
        if name in SYSTEM_PRIORITY_CLASSES:
            return SYSTEM_PRIORITY_CLASSES[name], "PreemptLowerPriority"
        raise UnknownPriorityClass(name)
    default: Dict | None = None
    for pc in classes.values():
        if pc.get("globalDefault") and (default is None or int(pc.get("value") or 0) < int(default.get("value") or 0)):
            default = pc
    if default is not None:
        spec["priorityClassName"] = (default.get("metadata") or {}).get("name")
        return int(default.get("value") or 0), default.get("preemptionPolicy")
    return 0, None


class Priority:
    name = "Priority"

    def mutate(self, req: Request, run: Run) -> list[str]:
        if req.resource != PODS:
            return []
        spec = req.spec
        try:
            priority, policy = resolve_priority(spec, run.priority_classes)
        except UnknownPriorityClass as e:
            # An input error as before (exit 2 in check): a class the files forgot, not a
            # limit of the cluster's.
            raise InputError(f"no PriorityClass with name {e.args[0]} was found") from None
        warnings = []
        if spec.get("priority") is not None and int(spec["priority"]) != priority:
            warnings.append(
                f"spec.priority {spec['priority']} replaced by {priority}, as priority admission computes it"
            )
        spec["priority"] = priority
        if policy and not spec.get("preemptionPolicy"):
            spec["preemptionPolicy"] = policy
        if not spec.get("preemptionPolicy"):
            spec["preemptionPolicy"] = "PreemptLowerPriority"
        return warnings

    def validate(self, req: Request, run: Run) -> None:
        return None


def resolve_cluster_pod_priorities(objects: ClusterObjects) -> None:
    """Stored pods normally carry spec.priority; fill it in for hand-written dumps that don't."""
    classes: dict[str, Dict] | None = None
    for pod in objects.of("Pod"):
        spec = pod.get("spec") or {}
        if spec.get("priority") is None and spec.get("priorityClassName"):
            objects.early_pods.pop(id(pod), None)  # its PodInfo, made as it was read, is out of date
            if classes is None:
                classes = priority_classes(objects)
            try:
                spec["priority"] = resolve_priority(dict(spec), classes)[0]
            except UnknownPriorityClass:
                spec["priority"] = 0

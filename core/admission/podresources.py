"""A pod's requests and limits added up as the admission plugins do it (component-helpers
PodRequests/PodLimits on the API's own types): containers summed, init containers as the
maximum of each step, sidecars (restartable init containers) added and carried into the
later steps, pod-level cpu/memory replacing the sums where PodLevelResources is on, and
the overhead on top when asked for (requests: every overhead resource; limits: only the
resources that have a limit)."""

from __future__ import annotations

from typing import Any

from kschedx.core.admission.quantities import ResourceList, add_into, max_into, resource_list

Dict = dict[str, Any]

POD_LEVEL_RESOURCES = ("cpu", "memory")


def containers(spec: Dict, field: str) -> list[Dict]:
    return [c for c in spec.get(field) or [] if isinstance(c, dict)]


def container_resources(c: Dict) -> tuple[ResourceList, ResourceList]:
    """A container's requests and limits after API defaulting (a limit without a request is
    also the request)."""
    res = c.get("resources") or {}
    requests, limits = resource_list(res.get("requests")), resource_list(res.get("limits"))
    for k, v in limits.items():
        requests.setdefault(k, v)
    return requests, limits


def pod_totals(spec: Dict, pod_level: bool, overhead: bool = False) -> tuple[ResourceList, ResourceList]:
    totals: list[ResourceList] = []
    for which in (0, 1):
        total: ResourceList = {}
        for c in containers(spec, "containers"):
            add_into(total, container_resources(c)[which])
        sidecars: ResourceList = {}
        init_max: ResourceList = {}
        for c in containers(spec, "initContainers"):
            own = container_resources(c)[which]
            if c.get("restartPolicy") == "Always":
                add_into(total, own)
                add_into(sidecars, own)
                step = dict(sidecars)
            else:
                step = dict(own)
                add_into(step, sidecars)
            max_into(init_max, step)
        max_into(total, init_max)
        if pod_level:
            level = resource_list((spec.get("resources") or {}).get("requests" if which == 0 else "limits"))
            total.update({k: v for k, v in level.items() if k in POD_LEVEL_RESOURCES})
        if overhead:
            for k, v in resource_list(spec.get("overhead")).items():
                if which == 0 or k in total:
                    total[k] = total[k] + v if k in total else v
        totals.append(total)
    return totals[0], totals[1]


def pod_level_resources_set(spec: Dict) -> bool:
    """IsPodLevelResourcesSet: the pod sets a supported pod-level request or limit."""
    res = spec.get("resources") or {}
    return any(k in POD_LEVEL_RESOURCES for part in ("requests", "limits") for k in (res.get(part) or {}))

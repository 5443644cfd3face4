"""LimitRanger (plugin/pkg/admission/limitranger), for the LimitRanges of the object's
namespace (by name; the first whose constraints fail refuses the object):

- mutating, pods: each container and init container without a limit (request) of a
  resource that a ``Container`` item's ``default`` (``defaultRequest``) names gets it;
  the pod is annotated with what was set. What a container already requests — its own
  limit counts as its request, as API defaulting copied it before admission — stays.
- validating, pods: per container and init container, a ``Container`` item's
  ``min``/``max``/``maxLimitRequestRatio``; for the pod as a whole (containers summed, init
  containers as the maximum, sidecars added, pod-level resources where PodLevelResources is
  on; no overhead), a ``Pod`` item's. Claims: a ``PersistentVolumeClaim`` item's min/max on
  the requested storage.

A LimitRange of the checked files is not defaulted yet: it gets the API's defaults first
(``default`` from ``max``, ``defaultRequest`` from ``default``, then from ``min``).
"""

from __future__ import annotations

from typing import Any

from kschedx.core.admission.interface import CLAIMS, PODS, Request, Run, aggregate
from kschedx.core.admission.podresources import container_resources, containers, pod_totals
from kschedx.core.admission.quantities import Quantity, ResourceList, resource_list

Dict = dict[str, Any]

ANNOTATION = "kubernetes.io/limit-ranger"
# Go's resource.MaxMilliValue: beyond it, comparisons fall back to whole units.
_MAX_MILLI = (2**63 - 1) // 1000


def defaulted_items(limit_range: Dict) -> list[Dict]:
    """The LimitRange's items after SetDefaults_LimitRangeItem (a copy)."""
    out = []
    for raw in (limit_range.get("spec") or {}).get("limits") or []:
        if not isinstance(raw, dict):
            continue
        item = dict(raw)
        if item.get("type") == "Container":
            default = dict(item.get("default") or {})
            request = dict(item.get("defaultRequest") or {})
            for k, v in (item.get("max") or {}).items():
                default.setdefault(k, v)
            for k, v in default.items():
                request.setdefault(k, v)
            for k, v in (item.get("min") or {}).items():
                request.setdefault(k, v)
            item["default"], item["defaultRequest"] = default, request
        out.append(item)
    return out


def _enforced_values(req: Quantity | None, lim: Quantity | None, enforced: Quantity) -> tuple[int, int, int]:
    """requestLimitEnforcedValues: milli precision unless a value would overflow it."""
    zero = Quantity.parse(0)
    r, li = req or zero, lim or zero
    if r.value() <= _MAX_MILLI and li.value() <= _MAX_MILLI and enforced.value() <= _MAX_MILLI:
        return r.milli(), li.milli(), enforced.milli()
    return r.value(), li.value(), enforced.value()


def min_constraint(kind: str, name: str, enforced: Quantity, requests: ResourceList, limits: ResourceList) -> str | None:
    req, lim = requests.get(name), limits.get(name)
    r, li, e = _enforced_values(req, lim, enforced)
    if req is None:
        return f"minimum {name} usage per {kind} is {enforced}.  No request is specified"
    if r < e:
        return f"minimum {name} usage per {kind} is {enforced}, but request is {req}"
    if lim is not None and li < e:
        return f"minimum {name} usage per {kind} is {enforced}, but limit is {lim}"
    return None


def max_constraint(kind: str, name: str, enforced: Quantity, requests: ResourceList, limits: ResourceList) -> str | None:
    req, lim = requests.get(name), limits.get(name)
    r, li, e = _enforced_values(req, lim, enforced)
    if lim is None:
        return f"maximum {name} usage per {kind} is {enforced}.  No limit is specified"
    if li > e:
        return f"maximum {name} usage per {kind} is {enforced}, but limit is {lim}"
    if req is not None and r > e:
        return f"maximum {name} usage per {kind} is {enforced}, but request is {req}"
    return None


def max_request_constraint(kind: str, name: str, enforced: Quantity, requests: ResourceList) -> str | None:
    req = requests.get(name)
    r, _, e = _enforced_values(req, None, enforced)
    if req is None:
        return f"maximum {name} usage per {kind} is {enforced}.  No request is specified"
    if r > e:
        return f"maximum {name} usage per {kind} is {enforced}, but request is {req}"
    return None


def ratio_constraint(kind: str, name: str, enforced: Quantity, requests: ResourceList, limits: ResourceList) -> str | None:
    req, lim = requests.get(name), limits.get(name)
    r, li, _ = _enforced_values(req, lim, enforced)
    if req is None or r == 0:
        return f"{name} max limit to request ratio per {kind} is {enforced}, but no request is specified or request is 0"
    if lim is None or li == 0:
        return f"{name} max limit to request ratio per {kind} is {enforced}, but no limit is specified or limit is 0"
    observed = li / r
    shown = observed
    allowed = float(enforced.value())
    if enforced.value() <= _MAX_MILLI:
        observed *= 1000
        allowed = float(enforced.milli())
    if observed > allowed:
        return f"{name} max limit to request ratio per {kind} is {enforced}, but provided ratio is {shown:f}"
    return None


def _check(kind: str, item: Dict, requests: ResourceList, limits: ResourceList) -> list[str]:
    errors: list[str | None] = []
    for name, q in sorted(resource_list(item.get("min")).items()):
        errors.append(min_constraint(kind, name, q, requests, limits))
    for name, q in sorted(resource_list(item.get("max")).items()):
        errors.append(max_constraint(kind, name, q, requests, limits))
    for name, q in sorted(resource_list(item.get("maxLimitRequestRatio")).items()):
        errors.append(ratio_constraint(kind, name, q, requests, limits))
    return [e for e in errors if e is not None]


def _set_defaults(c: Dict, default_limits: Dict, default_requests: Dict, what: str) -> list[str]:
    res = c.get("resources")
    if not isinstance(res, dict):
        res = c["resources"] = {}
    limits = dict(res.get("limits") or {})
    requests = dict(res.get("requests") or {})
    # API defaulting before admission: a container's limit is its request unless it names one.
    for k, v in limits.items():
        requests.setdefault(k, v)
    set_limits = sorted(k for k in default_limits if k not in limits)
    set_requests = sorted(k for k in default_requests if k not in requests)
    for k in set_limits:
        limits[k] = default_limits[k]
    for k in set_requests:
        requests[k] = default_requests[k]
    if limits:
        res["limits"] = limits
    if requests:
        res["requests"] = requests
    name = c.get("name") or ""
    notes = []
    if set_requests:
        notes.append(f"{', '.join(set_requests)} request for {what} {name}")
    if set_limits:
        notes.append(f"{', '.join(set_limits)} limit for {what} {name}")
    return notes


class LimitRanger:
    name = "LimitRanger"

    def mutate(self, req: Request, run: Run) -> list[str]:
        if req.resource != PODS:
            return []
        ranges = run.limit_ranges(req.namespace)
        if not ranges:
            return []
        spec = req.spec
        for limit_range in ranges:
            default_limits: Dict = {}
            default_requests: Dict = {}
            for item in defaulted_items(limit_range):
                if item.get("type") == "Container":
                    default_requests.update(item.get("defaultRequest") or {})
                    default_limits.update(item.get("default") or {})
            notes: list[str] = []
            for c in containers(spec, "containers"):
                notes += _set_defaults(c, default_limits, default_requests, "container")
            for c in containers(spec, "initContainers"):
                notes += _set_defaults(c, default_limits, default_requests, "init container")
            if notes:
                annotations = req.meta.get("annotations")
                if not isinstance(annotations, dict):
                    annotations = req.meta["annotations"] = {}
                annotations[ANNOTATION] = "LimitRanger plugin set: " + "; ".join(notes)
        return []

    def validate(self, req: Request, run: Run) -> None:
        for limit_range in run.limit_ranges(req.namespace):
            errors: list[str] = []
            for item in defaulted_items(limit_range):
                kind = item.get("type")
                if req.resource == PODS and kind == "Container":
                    for field in ("containers", "initContainers"):
                        for c in containers(req.spec, field):
                            errors += _check("Container", item, *container_resources(c))
                elif req.resource == PODS and kind == "Pod":
                    errors += _check("Pod", item, *pod_totals(req.spec, run.pod_level_resources))
                elif req.resource == CLAIMS and kind == "PersistentVolumeClaim":
                    requests = resource_list((req.spec.get("resources") or {}).get("requests"))
                    for name, q in sorted(resource_list(item.get("min")).items()):
                        err = min_constraint("PersistentVolumeClaim", name, q, requests, {})
                        if err:
                            errors.append(err)
                    for name, q in sorted(resource_list(item.get("max")).items()):
                        err = max_request_constraint("PersistentVolumeClaim", name, q, requests)
                        if err:
                            errors.append(err)
            if errors:
                raise req.forbid(aggregate(errors))

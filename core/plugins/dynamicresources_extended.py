"""Extended resources backed by DRA (KEP-5004, DRAExtendedResource; beta and on from v1.36).

A DeviceClass with ``spec.extendedResourceName`` (and every class implicitly, as
``deviceclass.resource.kubernetes.io/<class>``) serves a pod's extended-resource request
(``example.com/gpu: 1``) from ResourceSlices on nodes whose allocatable does not list the
resource (no device plugin there).  NodeResourcesFit leaves such requests to
DynamicResources, which allocates them through a special claim built per node.

Follows ``extendedresourcecache.ExtendedResourceCache`` (the name -> class resolution),
``createRequestsAndMappings`` (the special claim's requests) in the scheduler's
dynamicresources plugin, and ``calculateDRAResourceTotals`` in noderesources (scoring).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any

from kschedx.core.api.model import container_requests, is_extended_resource

Dict = dict[str, Any]

DEVICE_CLASS_PREFIX = "deviceclass.resource.kubernetes.io/"
EXTENDED_RESOURCE_CLAIM_ANNOTATION = "resource.kubernetes.io/extended-resource-claim"
SPECIAL_CLAIM_NAME = "<extended-resources>"


def is_dra_extended_resource_name(name: str) -> bool:
    """``IsDRAExtendedResourceName``: an extended resource name or an implicit class name."""
    return is_extended_resource(name) or name.startswith(DEVICE_CLASS_PREFIX)


def _created(cls: Mapping[str, Any]) -> str:
    return str((cls.get("metadata") or {}).get("creationTimestamp") or "")


class ExtendedResourceResolver:
    """``ExtendedResourceCache.GetDeviceClass``, filled as the informer adds classes in order.

    Two classes naming the same extended resource: the newer one wins, on a tie the one
    whose name sorts first; a class that loses gets no implicit mapping either (upstream
    returns before adding it)."""

    def __init__(self, classes: Iterable[Dict]) -> None:
        self.by_resource: dict[str, Dict] = {}
        for cls in classes:
            spec = cls.get("spec") or {}
            name = str((cls.get("metadata") or {}).get("name") or "")
            ext = spec.get("extendedResourceName")
            if ext is not None:
                old = self.by_resource.get(str(ext))
                if old is not None:
                    new_t, old_t = _created(cls), _created(old)
                    old_name = str((old.get("metadata") or {}).get("name") or "")
                    if new_t < old_t or (new_t == old_t and name >= old_name):
                        continue
                self.by_resource[str(ext)] = cls
            self.by_resource[DEVICE_CLASS_PREFIX + name] = cls

    def class_for(self, resource: str) -> Dict | None:
        return self.by_resource.get(resource)

    def __bool__(self) -> bool:
        return bool(self.by_resource)


def backed_by_dra(requests: Mapping[str, Any], resolver: ExtendedResourceResolver) -> bool:
    """``hasDeviceClassMappedExtendedResource``: a non-zero request some class serves."""
    for name, q in requests.items():
        if q and is_dra_extended_resource_name(name) and resolver.class_for(name) is not None:
            return True
    return False


def _request_for_container(index: int, container: Mapping[str, Any], resource: str, class_name: str,
                           reusable: list[Dict | None]) -> tuple[Dict | None, list[Dict]]:
    """``createResourceRequestAndMappings``: one container's device request for a resource,
    after what the long-lived containers from this one on already request (init containers
    reuse those devices)."""
    reqs = container_requests(container)
    q = reqs.get(resource)
    if q is None or q.denominator != 1 or q == 0:
        return None, []
    want = int(q)
    mappings: list[Dict] = []
    have = 0
    for r in reusable:
        if r is not None:
            have += int(r["exactly"]["count"])
            mappings.append({"containerName": container.get("name") or "", "resourceName": resource,
                             "requestName": r["name"]})
            if have >= want:
                return None, mappings
    keys = sorted(str(k) for k in ((container.get("resources") or {}).get("requests") or {}))
    ridx = keys.index(resource) if resource in keys else 0
    name = f"container-{index}-request-{ridx}"
    request = {"name": name, "exactly": {"deviceClassName": class_name, "allocationMode": "ExactCount",
                                         "count": want - have}}
    mappings.append({"containerName": container.get("name") or "", "resourceName": resource, "requestName": name})
    return request, mappings


def create_requests(spec: Mapping[str, Any], extended: Mapping[str, int],
                    resolver: ExtendedResourceResolver) -> list[Dict]:
    """``createRequestsAndMappings``: the special claim's device requests for a node, sorted
    by request name."""
    inits = list(spec.get("initContainers") or [])
    containers = inits + list(spec.get("containers") or [])
    long_lived: list[int] = []
    short_lived: list[int] = []
    for i, c in enumerate(containers):
        if i < len(inits) and c.get("restartPolicy") != "Always":
            short_lived.append(i)
        else:
            long_lived.append(i)
    out: list[Dict] = []
    for resource in sorted(extended):
        cls = resolver.class_for(resource)
        if cls is None:
            continue
        class_name = str((cls.get("metadata") or {}).get("name") or "")
        long_reqs: list[Dict | None] = [None] * len(containers)
        for i in long_lived:
            long_reqs[i], _ = _request_for_container(i, containers[i], resource, class_name, [])
        biggest: Dict | None = None
        for i in short_lived:
            req, _ = _request_for_container(i, containers[i], resource, class_name, long_reqs[i:])
            if req is not None and (biggest is None or biggest["exactly"]["count"] < req["exactly"]["count"]):
                biggest = req
        if biggest is not None:
            out.append(biggest)
        out.extend(r for r in long_reqs if r is not None)
    out.sort(key=lambda r: str(r["name"]))
    return out


def special_claim(pod_name: str, pod_uid: str, namespace: str) -> Dict:
    """The in-memory claim PreFilter makes for a pod's DRA-backed extended resources."""
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {
            "name": SPECIAL_CLAIM_NAME,
            "namespace": namespace,
            "generateName": f"{pod_name}-extended-resources-",
            "annotations": {EXTENDED_RESOURCE_CLAIM_ANNOTATION: "true"},
            "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": pod_name, "uid": pod_uid,
                                 "controller": True}],
        },
        "spec": {},
    }


def find_extended_claim(pod_name: str, pod_uid: str, claims: Iterable[Dict]) -> Dict | None:
    """``findExtendedResourceClaim``: a special claim created for this pod in an earlier cycle."""
    for c in claims:
        meta = c.get("metadata") or {}
        if (meta.get("annotations") or {}).get(EXTENDED_RESOURCE_CLAIM_ANNOTATION) != "true":
            continue
        for ref in meta.get("ownerReferences") or []:
            if ref.get("name") == pod_name and ref.get("controller") and str(ref.get("uid") or "") == pod_uid:
                return c
    return None


def integer_amount(q: Fraction) -> int:
    """A scalar resource request as the scheduler's Resource holds it (``Value()``)."""
    return -((-q.numerator) // q.denominator)

"""resource.k8s.io objects of older API versions, read as resource.k8s.io/v1.

A v1.33 cluster serves DRA objects as v1beta1 and v1beta2 only (v1 arrived with v1.34,
KEP-4381 GA), so its dumps hold them in those shapes. The engine reads v1, so they are
converted on load the way the API server converts between the versions:

- v1beta1 DeviceRequest holds the exact-count fields (deviceClassName, selectors,
  allocationMode, count, adminAccess, tolerations) inline; v1beta2 and v1 put them under
  ``exactly`` unless the request is a ``firstAvailable`` list.
- v1beta1 Device wraps attributes, capacity and the rest in ``basic``; v1beta2 and v1 are flat.

Everything else (DeviceClass, claim status and allocation results) has the same shape.
"""

from __future__ import annotations

import copy
from typing import Any

Dict = dict[str, Any]

GROUP = "resource.k8s.io"
OLD_VERSIONS = (f"{GROUP}/v1beta1", f"{GROUP}/v1beta2")
V1 = f"{GROUP}/v1"
_EXACT_FIELDS = ("deviceClassName", "selectors", "allocationMode", "count", "adminAccess", "tolerations",
                 "capacity")


def _request_v1beta1(req: Dict) -> Dict:
    if "exactly" in req or "firstAvailable" in req and not req.get("deviceClassName"):
        return req
    out = {k: v for k, v in req.items() if k not in _EXACT_FIELDS}
    exactly = {k: req[k] for k in _EXACT_FIELDS if k in req}
    out["exactly"] = exactly
    return out


def _claim_spec_v1beta1(spec: Dict) -> None:
    devices = spec.get("devices")
    if isinstance(devices, dict) and isinstance(devices.get("requests"), list):
        devices["requests"] = [_request_v1beta1(r) if isinstance(r, dict) else r for r in devices["requests"]]


def _device_v1beta1(dev: Dict) -> Dict:
    basic = dev.get("basic")
    if not isinstance(basic, dict):
        return dev
    out = {k: v for k, v in dev.items() if k != "basic"}
    out.update(basic)
    return out


def to_v1(obj: Dict) -> Dict:
    """``obj`` as resource.k8s.io/v1 (the object itself when it already is, else a copy)."""
    api = obj.get("apiVersion")
    if api not in OLD_VERSIONS or obj.get("kind") == "DeviceTaintRule":
        # DeviceTaintRule has no v1 (v1beta2 in 1.36, v1alpha3 before): kept as served.
        return obj
    out = copy.deepcopy(obj)
    out["apiVersion"] = V1
    if api != f"{GROUP}/v1beta1":
        return out  # v1beta2 has v1's shape
    kind = out.get("kind")
    spec = out.get("spec")
    if not isinstance(spec, dict):
        return out
    if kind == "ResourceClaim":
        _claim_spec_v1beta1(spec)
    elif kind == "ResourceClaimTemplate" and isinstance(spec.get("spec"), dict):
        _claim_spec_v1beta1(spec["spec"])
    elif kind == "ResourceSlice" and isinstance(spec.get("devices"), list):
        spec["devices"] = [_device_v1beta1(d) if isinstance(d, dict) else d for d in spec["devices"]]
    return out

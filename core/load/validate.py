"""Shape checks of the incoming pod, so a field of the wrong type is reported as bad input.

The API server would refuse such a manifest when decoding it; the engine reads fields
assuming their API types, so without these checks a ``containers: nope`` surfaces as an
AttributeError deep in a plugin. Only the fields the scheduler reads are checked; values
(quantities, operators, selectors) are validated where they are parsed.
"""

from __future__ import annotations

from typing import Any

from kschedx.core.errors import InputError

Dict = dict[str, Any]

_POD_SPEC_LISTS = (
    "initContainers", "tolerations", "topologySpreadConstraints", "volumes", "schedulingGates",
    "resourceClaims", "hostAliases",
)
_POD_SPEC_MAPS = ("nodeSelector", "affinity", "overhead", "resources", "securityContext")
_CONTAINER_LISTS = ("ports", "volumeMounts", "env")


def _type_name(v: Any) -> str:
    if v is None:
        return "null"
    return {dict: "a mapping", list: "a list", str: "a string", bool: "a boolean", int: "a number",
            float: "a number"}.get(type(v), type(v).__name__)


def _expect(value: Any, kind: type, where: str, path: str) -> Any:
    """``value`` itself when it has the API type ``kind``; else an InputError naming ``where``."""
    if not isinstance(value, kind):
        want = "a mapping" if kind is dict else "a list" if kind is list else "a string"
        raise InputError(f"{where}: expected {want}, got {_type_name(value)}", path=path)
    return value


def _string_map(value: Any, where: str, path: str) -> None:
    _expect(value, dict, where, path)
    for k, v in value.items():
        if not isinstance(v, str):
            raise InputError(f"{where}.{k}: expected a string, got {_type_name(v)} (quote it)", path=path)


def check_pod_shape(pod: Dict, path: str) -> None:
    """Raise InputError naming the first field whose type the API would reject."""
    meta: Dict = _expect(pod.get("metadata"), dict, "metadata", path)
    for key in ("labels", "annotations"):
        if meta.get(key) is not None:
            _string_map(meta[key], f"metadata.{key}", path)
    spec: Dict = _expect(pod.get("spec"), dict, "spec", path)
    containers: list[Any] = _expect(spec.get("containers"), list, "spec.containers", path)
    if not containers:
        raise InputError("spec.containers: a pod needs at least one container", path=path)
    for key in _POD_SPEC_LISTS:
        if spec.get(key) is not None:
            _expect(spec[key], list, f"spec.{key}", path)
            for i, item in enumerate(spec[key]):
                _expect(item, dict, f"spec.{key}[{i}]", path)
    for key in _POD_SPEC_MAPS:
        if spec.get(key) is not None:
            _expect(spec[key], dict, f"spec.{key}", path)
    if spec.get("nodeSelector") is not None:
        _string_map(spec["nodeSelector"], "spec.nodeSelector", path)
    for key in ("containers", "initContainers"):
        for i, c in enumerate(spec.get(key) or []):
            where = f"spec.{key}[{i}]"
            _expect(c, dict, where, path)
            if c.get("image") is not None and not isinstance(c["image"], str):
                raise InputError(f"{where}.image: expected a string, got {_type_name(c['image'])}", path=path)
            res = c.get("resources")
            if res is not None:
                _expect(res, dict, f"{where}.resources", path)
                for part in ("requests", "limits"):
                    if res.get(part) is not None:
                        _expect(res[part], dict, f"{where}.resources.{part}", path)
            for lst in _CONTAINER_LISTS:
                if c.get(lst) is not None:
                    _expect(c[lst], list, f"{where}.{lst}", path)
                    for j, item in enumerate(c[lst]):
                        _expect(item, dict, f"{where}.{lst}[{j}]", path)

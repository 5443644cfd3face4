"""The API server's decoding of a manifest: a value of the wrong JSON type is refused.

kube-apiserver decodes a request body with (a fork of) Go's encoding/json before it
validates anything, so ``replicas: "three"`` or ``labels: {version: 1.0}`` never reaches
validation: the request fails with ``Deployment in version "v1" cannot be handled as a
Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas
of type int32``. With kubectl's default strict field validation, a field the type does not
have is refused too (``strict decoding error: unknown field "spec.containers[0].resource"``).
This module walks the object along the API types (core/load/apischema.py) and reports the
first mismatch, else the unknown fields, in those words. JSON null decodes to the zero
value, so null is never a decoding error.
"""

from __future__ import annotations

from typing import Annotated, Any, TypedDict

import msgspec

from kschedx.core.api.field_errors import json_kind
from kschedx.core.api.quantity import QuantityError, parse_quantity
from kschedx.core.load.apischema import STORED_EXTRA, STRUCTS

_QUANTITY_REGEX_MSG = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"

# The API type of each pod-bearing kind (see core/load/apischema.py for the notation).
KINDS = {
    "Pod": "core.Pod", "PodTemplate": "core.PodTemplate", "ReplicationController": "core.ReplicationController",
    "Deployment": "apps.Deployment", "ReplicaSet": "apps.ReplicaSet", "StatefulSet": "apps.StatefulSet",
    "DaemonSet": "apps.DaemonSet", "Job": "batch.Job", "CronJob": "batch.CronJob",
}
_INT_RANGE = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}
Path = tuple[str | int, ...]


class DecodeError(Exception):
    """The first value the API server's JSON decoder would refuse; ``path`` is where it is
    (keys and list indexes), for finding its line."""

    def __init__(self, message: str, path: tuple[str | int, ...]) -> None:
        super().__init__(message)
        self.message = message
        self.path = path


def _go_type(t: str) -> str:
    """The Go type named in encoding/json's message for a field of type ``t``."""
    if t.startswith("S:"):
        return "v1." + t.split(".", 1)[1]
    if t.startswith("[]"):
        return "[]" + _go_type(t[2:])
    if t.startswith("map:"):
        inner, _, named = t[4:].partition("@")
        return named or "map[string]" + _go_type(inner)
    if ":" in t:
        return t.split(":", 1)[1]
    return {"quantity": "resource.Quantity", "intstr": "intstr.IntOrString"}.get(t, t)


def display_path(path: Path) -> str:
    out = ""
    for k in path:
        out += f"[{k}]" if isinstance(k, int) else (f".{k}" if out else str(k))
    return out


def decode_check(obj: dict[str, Any]) -> None:
    """Raise DecodeError for what the API server's decoding of ``obj`` would refuse: the
    first value of the wrong type, else every unknown field (strict field validation,
    kubectl's default)."""
    top = KINDS.get(str(obj.get("kind") or ""))
    if top is None:
        return
    unknown: list[Path] = []
    _check_struct(obj, top, (), (), unknown, STRUCTS)
    if unknown:
        fields = ", ".join(f'unknown field "{display_path(u)}"' for u in unknown)
        raise DecodeError(f"strict decoding error: {fields}", unknown[0])


def _fail(v: Any, struct: str, names: tuple[str, ...], t: str, path: Path, value: str | None = None) -> None:
    what = value or json_kind(v)
    owner = struct.split(".", 1)[1]
    raise DecodeError(
        f"json: cannot unmarshal {what} into Go struct field {owner}.{'.'.join(names)} of type {_go_type(t)}", path
    )


def _check_struct(v: dict[Any, Any], st: str, names: tuple[str, ...], path: Path, unknown: list[Path],
                  structs: dict[str, dict[str, str]]) -> None:
    fields = structs[st]
    for key, child in v.items():
        t = fields.get(key) if isinstance(key, str) else None
        if t is None:
            unknown.append((*path, str(key)))
            continue
        if child is not None:
            _check(child, t, st, (*names, key), (*path, key), unknown, structs)


def _check(v: Any, t: str, owner: str, names: tuple[str, ...], path: Path, unknown: list[Path],
           structs: dict[str, dict[str, str]]) -> None:
    """``v`` (not None) against type ``t`` of field ``names`` of struct ``owner``."""
    if t == "any":
        return
    if t.startswith("S:"):
        if not isinstance(v, dict):
            _fail(v, owner, names, t, path)
        _check_struct(v, t[2:], names, path, unknown, structs)
    elif t.startswith("[]"):
        if not isinstance(v, list):
            _fail(v, owner, names, t, path)
        for i, item in enumerate(v):
            if item is not None:
                _check(item, t[2:], owner, names, (*path, i), unknown, structs)
    elif t.startswith("map:"):
        if not isinstance(v, dict):
            _fail(v, owner, names, t, path)
        inner = t[4:].partition("@")[0]
        for k, item in v.items():
            if item is not None:
                _check(item, inner, owner, names, (*path, str(k)), unknown, structs)
    else:
        _scalar(v, t, owner, names, path)


def _scalar(v: Any, t: str, owner: str, names: tuple[str, ...], path: Path) -> None:
    base = t.split(":", 1)[0]
    if base == "string":
        if not isinstance(v, str):
            _fail(v, owner, names, t, path)
    elif base == "bool":
        if not isinstance(v, bool):
            _fail(v, owner, names, t, path)
    elif base == "float64":
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            _fail(v, owner, names, t, path)
    elif base in _INT_RANGE:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            _fail(v, owner, names, t, path)
        lo, hi = _INT_RANGE[base]
        if isinstance(v, float) or not lo <= v <= hi:
            _fail(v, owner, names, t, path, f"number {v}")
    elif base == "quantity":
        # resource.Quantity decodes a JSON string or number by parsing its text; anything
        # else fails the parse, and that error ends the decoding.
        if isinstance(v, bool) or not isinstance(v, (str, int, float)):
            raise DecodeError(_QUANTITY_REGEX_MSG, path)
        try:
            parse_quantity(v)
        except QuantityError:
            raise DecodeError(_QUANTITY_REGEX_MSG, path) from None
    elif base == "intstr":
        if isinstance(v, bool) or not isinstance(v, (str, int)):
            raise DecodeError(f"json: cannot unmarshal {json_kind(v)} into Go value of type int32", path)


# ------------------------------------------------------------------ stored objects

# The API type of each kind a cluster source holds, by its apiVersion and kind: the objects
# the scheduler's informers decode. Other versions (DRA's v1beta1/v1beta2, converted on
# load) and other kinds are taken as they are.
STORED_KINDS: dict[tuple[str, str], str] = {
    **{("v1", k): f"core.{k}" for k in (
        "Node", "Pod", "Namespace", "PersistentVolume", "PersistentVolumeClaim", "Service", "ReplicationController",
        "Event", "PodTemplate")},
    **{("storage.k8s.io/v1", k): f"storage.{k}" for k in ("StorageClass", "CSINode", "CSIDriver", "CSIStorageCapacity")},
    **{("apps/v1", k): f"apps.{k}" for k in ("ReplicaSet", "StatefulSet", "Deployment", "DaemonSet", "ControllerRevision")},
    **{("batch/v1", k): f"batch.{k}" for k in ("Job", "CronJob")},
    ("policy/v1", "PodDisruptionBudget"): "policy.PodDisruptionBudget",
    ("scheduling.k8s.io/v1", "PriorityClass"): "scheduling.PriorityClass",
    **{("resource.k8s.io/v1", k): f"resource.{k}" for k in (
        "ResourceSlice", "ResourceClaim", "ResourceClaimTemplate", "DeviceClass")},
    ("events.k8s.io/v1", "Event"): "events.Event",
    # Read by admission and the replica counts (core/admission, core/explain/replicas.py).
    ("v1", "LimitRange"): "core.LimitRange",
    ("v1", "ResourceQuota"): "core.ResourceQuota",
    ("node.k8s.io/v1", "RuntimeClass"): "node.RuntimeClass",
    ("autoscaling/v2", "HorizontalPodAutoscaler"): "autoscaling.HorizontalPodAutoscaler",
}

# An object without apiVersion (a hand-written dump) is read as its kind's usual version.
_USUAL_VERSION: dict[str, str] = {}
for _version, _kind in STORED_KINDS:
    _USUAL_VERSION.setdefault(_kind, _version)


def _stored_top(api_version: Any, kind: Any) -> str | None:
    if not isinstance(kind, str):
        return None
    if api_version is None or api_version == "":
        api_version = _USUAL_VERSION.get(kind)
    return STORED_KINDS.get((api_version, kind)) if isinstance(api_version, str) else None


# The v1.35 tables with what v1.36 adds (tools/gen_apischema.py).
STORED_STRUCTS: dict[str, dict[str, str]] = {
    name: {**STRUCTS.get(name, {}), **STORED_EXTRA.get(name, {})} for name in {*STRUCTS, *STORED_EXTRA}
}


def stored_error(obj: dict[str, Any]) -> DecodeError | None:
    """The first value of ``obj`` (an object as a cluster source stores it) that the API
    server's decoding into its type would refuse, or None. Fields the type doesn't have
    are dropped by that decoding, not refused (strict decoding is for requests)."""
    top = _stored_top(obj.get("apiVersion"), obj.get("kind"))
    if top is None:
        return None
    try:
        _check_struct(obj, top, (), (), [], STORED_STRUCTS)
    except DecodeError as e:
        return e
    return None


# The same tables as msgspec types, so that a stored object is type-checked while it is
# decoded, in C: a TypedDict per API struct (decoded into a plain dict with the fields the
# type has; the others are dropped as the API server's decoding drops them). Only on a
# mismatch does stored_error above walk the object, for the field path and Go's words.
_I32 = Annotated[int, msgspec.Meta(ge=-(2**31), le=2**31 - 1)]
_I64 = Annotated[int, msgspec.Meta(ge=-(2**63), le=2**63 - 1)]
# Text that cannot be a quantity fails here; what the pattern lets through is parsed where
# it is read (a bad one is then an error naming the object).
_QUANTITY_TEXT = Annotated[str, msgspec.Meta(pattern=r"^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$")]
_SCALARS: dict[str, Any] = {
    "string": str, "bool": bool, "int32": _I32, "int64": _I64, "float64": float,
    "quantity": _QUANTITY_TEXT | int | float, "intstr": str | int,
}
_typed: dict[str, Any] = {}


def _typed_value(t: str, nullable: bool = True) -> Any:
    """The msgspec type of a value of type ``t``. A field may be null (the zero value);
    a null item of a list or map fails here, for zero_filled below to make it Go's zero."""
    if t == "any":
        return Any
    if t.startswith("S:"):
        out = _typed_struct(t[2:])
    elif t.startswith("[]"):
        out = list[_typed_value(t[2:], False)]  # type: ignore[misc]
    elif t.startswith("map:"):
        out = dict[str, _typed_value(t[4:].partition("@")[0], False)]  # type: ignore[misc]
    else:
        out = _SCALARS[t.split(":", 1)[0]]
    return out | None if nullable else out


def _typed_struct(name: str) -> Any:
    if name not in _typed:
        fields = {key: _typed_value(t) for key, t in STORED_STRUCTS[name].items()}
        _typed[name] = TypedDict(name.replace(".", "_"), fields, total=False)  # type: ignore[operator]
    return _typed[name]


def stored_type(api_version: Any, kind: Any) -> Any:
    """The msgspec type of a stored object of this apiVersion and kind, None when it is
    not one the tables know (taken as it is)."""
    top = _stored_top(api_version, kind)
    return _typed_struct(top) if top is not None else None


# What a JSON null decodes to inside a list or a map: the item type's zero value (a null
# field keeps its zero value too, which the readers take None for).
_ZERO: dict[str, Any] = {"string": "", "bool": False, "int32": 0, "int64": 0, "float64": 0.0, "quantity": "0",
                         "intstr": 0}


def zero_filled(obj: dict[str, Any]) -> dict[str, Any]:
    """``obj`` with each null item of a list or map replaced by the zero value Go's decoding
    gives it (``taints: [null]`` is one empty Taint); a copy when anything is replaced."""
    top = _stored_top(obj.get("apiVersion"), obj.get("kind"))
    out: dict[str, Any] = _filled(obj, "S:" + top) if top is not None else obj
    return out


def _zero(t: str) -> Any:
    if t.startswith("S:"):
        return {}
    if t.startswith(("[]", "map:")) or t == "any":
        return None
    return _ZERO[t.split(":", 1)[0]]


def _filled(v: Any, t: str) -> Any:
    if t.startswith("S:") and isinstance(v, dict):
        fields = STORED_STRUCTS[t[2:]]
        return {k: _filled(x, fields[k]) if k in fields and x is not None else x for k, x in v.items()}
    if t.startswith("[]") and isinstance(v, list):
        return [_zero(t[2:]) if x is None else _filled(x, t[2:]) for x in v]
    if t.startswith("map:") and isinstance(v, dict):
        inner = t[4:].partition("@")[0]
        return {k: _zero(inner) if x is None else _filled(x, inner) for k, x in v.items()}
    return v

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

from typing import Any

from kschedx.core.api.field_errors import json_kind
from kschedx.core.api.quantity import QuantityError, parse_quantity
from kschedx.core.load.apischema import STRUCTS

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


def _display(path: Path) -> str:
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
    _check_struct(obj, top, (), (), unknown)
    if unknown:
        fields = ", ".join(f'unknown field "{_display(u)}"' for u in unknown)
        raise DecodeError(f"strict decoding error: {fields}", unknown[0])


def _fail(v: Any, struct: str, names: tuple[str, ...], t: str, path: Path, value: str | None = None) -> None:
    what = value or json_kind(v)
    owner = struct.split(".", 1)[1]
    raise DecodeError(
        f"json: cannot unmarshal {what} into Go struct field {owner}.{'.'.join(names)} of type {_go_type(t)}", path
    )


def _check_struct(v: dict[Any, Any], st: str, names: tuple[str, ...], path: Path, unknown: list[Path]) -> None:
    fields = STRUCTS[st]
    for key, child in v.items():
        t = fields.get(key) if isinstance(key, str) else None
        if t is None:
            unknown.append((*path, str(key)))
            continue
        if child is not None:
            _check(child, t, st, (*names, key), (*path, key), unknown)


def _check(v: Any, t: str, owner: str, names: tuple[str, ...], path: Path, unknown: list[Path]) -> None:
    """``v`` (not None) against type ``t`` of field ``names`` of struct ``owner``."""
    if t == "any":
        return
    if t.startswith("S:"):
        if not isinstance(v, dict):
            _fail(v, owner, names, t, path)
        _check_struct(v, t[2:], names, path, unknown)
    elif t.startswith("[]"):
        if not isinstance(v, list):
            _fail(v, owner, names, t, path)
        for i, item in enumerate(v):
            if item is not None:
                _check(item, t[2:], owner, names, (*path, i), unknown)
    elif t.startswith("map:"):
        if not isinstance(v, dict):
            _fail(v, owner, names, t, path)
        inner = t[4:].partition("@")[0]
        for k, item in v.items():
            if item is not None:
                _check(item, inner, owner, names, (*path, str(k)), unknown)
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

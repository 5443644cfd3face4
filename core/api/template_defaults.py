"""A pod template as the API server stores it, for comparing templates.

Controllers decide whether a workload changed by comparing its stored (defaulted) pod
template with their own: the deployment controller's EqualIgnoreHash compares the
Deployment's template with each ReplicaSet's, ignoring the pod-template-hash label. A
manifest written by hand lacks what the API server fills in, so it is compared only after
the same defaulting (pkg/apis/core/v1 defaults of a PodTemplateSpec: PodSpec, Container,
Probe, volume sources, ports; not the Pod-only ones such as limits copied to requests).
Quantities are compared by value, and empty maps and lists like absent ones, as the API's
JSON round trip (omitempty) makes them.
"""

from __future__ import annotations

import copy
from typing import Any

from kschedx.core.api.quantity import QuantityError, parse_quantity

Dict = dict[str, Any]

HASH_LABEL = "pod-template-hash"


def _image_tag_is_latest(image: str) -> bool:
    """ParseImageName: no tag and no digest means ``latest``."""
    name = image.split("@", 1)[0]
    if "@" in image:
        tail = name.rsplit("/", 1)[-1]
        return ":" in tail and tail.rsplit(":", 1)[1] == "latest"
    tail = name.rsplit("/", 1)[-1]
    return ":" not in tail or tail.rsplit(":", 1)[1] == "latest"


def _probe(p: Any) -> None:
    if not isinstance(p, dict):
        return
    for key, default in (("timeoutSeconds", 1), ("periodSeconds", 10), ("successThreshold", 1),
                         ("failureThreshold", 3)):
        if not p.get(key):
            p[key] = default
    http = p.get("httpGet")
    if isinstance(http, dict):
        if not http.get("path"):
            http["path"] = "/"
        if not http.get("scheme"):
            http["scheme"] = "HTTP"


def _field_ref(ref: Any) -> None:
    if isinstance(ref, dict) and not ref.get("apiVersion"):
        ref["apiVersion"] = "v1"


def _container(c: Any) -> None:
    if not isinstance(c, dict):
        return
    if not c.get("imagePullPolicy"):
        c["imagePullPolicy"] = "Always" if _image_tag_is_latest(str(c.get("image") or "")) else "IfNotPresent"
    if not c.get("terminationMessagePath"):
        c["terminationMessagePath"] = "/dev/termination-log"
    if not c.get("terminationMessagePolicy"):
        c["terminationMessagePolicy"] = "File"
    # (Host ports copied from container ports under hostNetwork are a Pod default, not a
    # template's.)
    for port in c.get("ports") or []:
        if isinstance(port, dict) and not port.get("protocol"):
            port["protocol"] = "TCP"
    for key in ("livenessProbe", "readinessProbe", "startupProbe"):
        _probe(c.get(key))
    for handler in (c.get("lifecycle") or {}).values():
        if isinstance(handler, dict) and isinstance(handler.get("httpGet"), dict):
            http = handler["httpGet"]
            if not http.get("path"):
                http["path"] = "/"
            if not http.get("scheme"):
                http["scheme"] = "HTTP"
    for env in c.get("env") or []:
        if isinstance(env, dict):
            _field_ref((env.get("valueFrom") or {}).get("fieldRef"))


_DEFAULT_MODE_SOURCES = ("secret", "configMap", "downwardAPI", "projected")


def _volume(v: Any) -> None:
    if not isinstance(v, dict):
        return
    if not any(k != "name" for k in v):
        v["emptyDir"] = {}
    for src in _DEFAULT_MODE_SOURCES:
        s = v.get(src)
        if isinstance(s, dict) and s.get("defaultMode") is None:
            s["defaultMode"] = 420
    for item in (v.get("downwardAPI") or {}).get("items") or []:
        if isinstance(item, dict):
            _field_ref(item.get("fieldRef"))
    for source in (v.get("projected") or {}).get("sources") or []:
        if not isinstance(source, dict):
            continue
        token = source.get("serviceAccountToken")
        if isinstance(token, dict) and token.get("expirationSeconds") is None:
            token["expirationSeconds"] = 3600
        for item in (source.get("downwardAPI") or {}).get("items") or []:
            if isinstance(item, dict):
                _field_ref(item.get("fieldRef"))
    image = v.get("image")
    if isinstance(image, dict) and not image.get("pullPolicy"):
        image["pullPolicy"] = "Always" if _image_tag_is_latest(str(image.get("reference") or "")) else "IfNotPresent"
    claim_spec = ((v.get("ephemeral") or {}).get("volumeClaimTemplate") or {}).get("spec")
    if isinstance(claim_spec, dict) and not claim_spec.get("volumeMode"):
        claim_spec["volumeMode"] = "Filesystem"


def default_template(template: Dict) -> Dict:
    """A defaulted copy of a PodTemplateSpec (``template`` is untouched)."""
    t = copy.deepcopy(template) if isinstance(template, dict) else {}
    spec = t.get("spec")
    if not isinstance(spec, dict):
        return t
    for key, default in (("dnsPolicy", "ClusterFirst"), ("restartPolicy", "Always"),
                         ("schedulerName", "default-scheduler")):
        if not spec.get(key):
            spec[key] = default
    if spec.get("terminationGracePeriodSeconds") is None:
        spec["terminationGracePeriodSeconds"] = 30
    for key in ("containers", "initContainers", "ephemeralContainers"):
        for c in spec.get(key) or []:
            _container(c)
    for v in spec.get("volumes") or []:
        _volume(v)
    return t


def _canonical(value: Any, key: str = "") -> Any:
    """Drop empty values (as omitempty does; an empty string too, e.g. a hostPath's
    defaulted type); quantities of resource maps as exact numbers."""
    if isinstance(value, dict):
        quantities = key in ("requests", "limits", "overhead")
        out: Dict = {}
        for k, v in value.items():
            if quantities and isinstance(v, (str, int, float)) and not isinstance(v, bool):
                try:
                    out[k] = ("q", str(parse_quantity(v)))
                    continue
                except QuantityError:
                    pass
            cv = _canonical(v, str(k))
            if cv is None or cv == "" or cv == {} or cv == []:
                continue
            out[k] = cv
        return out
    if isinstance(value, list):
        return [_canonical(v, key) for v in value]
    return value


def comparable(template: Dict, *, ignore_hash: bool = True) -> Any:
    """``template`` defaulted and canonicalized, ready for ``==``."""
    t = default_template(template)
    meta = t.get("metadata")
    if isinstance(meta, dict):
        meta.pop("creationTimestamp", None)
        if ignore_hash and isinstance(meta.get("labels"), dict):
            meta["labels"].pop(HASH_LABEL, None)
    return _canonical(t)


def same_template(a: Dict, b: Dict) -> bool:
    """EqualIgnoreHash after API defaulting."""
    return bool(comparable(a) == comparable(b))

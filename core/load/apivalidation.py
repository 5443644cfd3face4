"""Validation of a manifest as kube-apiserver would validate it on create.

A manifest ``kubectl apply`` would see refused is an input error, never a scheduling
answer (SPEC §1). The API server first decodes the body (core/load/decode.py: a value of
the wrong JSON type) and then validates the defaulted object; this module reproduces the
checks of pkg/apis/core/validation (ValidatePodCreate, ValidatePodTemplateSpec,
ValidatePodSpec and what they call), pkg/apis/apps/validation and pkg/apis/batch/validation
that concern what a pod spec commonly carries: names, labels and selectors, containers,
ports, resources (container and pod level), env, probes and lifecycle hooks, volumes and
mounts, tolerations, affinity, topology spread constraints, scheduling gates, resource
claims, and the workloads' replicas, selector and template. Not reproduced (yet): security
contexts, DNS config, host aliases, image pull secrets, OS-specific rules, the details of
each volume source beyond the name it requires, and annotation size limits.

Values the API server defaults (a port's protocol, a container's pull policy, the pod's
restart and DNS policies) are taken as defaulted. One difference from v1.36's validation is
deliberate (SPEC §1): the values of a required node-affinity requirement are not checked as
label values, so an invalid one is accepted and NodeAffinity simply matches no node.

The result is one InputError worded as kubectl prints the server's answer:
``Deployment "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal
to 0`` (several errors in brackets, as the server lists them), with the YAML line of the first.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

from kschedx.core.api.field_errors import (
    FieldError,
    duplicate,
    forbidden,
    invalid,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_label_value,
    is_qualified_name,
    is_valid_port_name,
    is_valid_port_num,
    not_found,
    not_supported,
    required,
)
from kschedx.core.api.quantity import parse_quantity
from kschedx.core.errors import InputError
from kschedx.core.load.decode import DecodeError, decode_check
from kschedx.core.load.locate import locate_line

Dict = dict[str, Any]
Errs = list[FieldError]

_NEGATIVE = "must be greater than or equal to 0"
_NOT_POSITIVE = "must be greater than zero"
_MAX_INT32 = 2**31 - 1


# --- quantities ----------------------------------------------------------------------------

_DECIMAL_SUFFIX = {-9: "n", -6: "u", -3: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P", 18: "E"}
_BINARY_SUFFIX = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"]


def quantity_string(text: Any) -> str:
    """The quantity's canonical text, as resource.Quantity.String() prints it: the
    format it was written in (binary, decimal exponent, decimal SI) with the largest unit
    that keeps the number whole; binary falls back to decimal below 1024 or for fractions."""
    return format_quantity(parse_quantity(text), _format_of(text))


def _format_of(text: Any) -> str:
    s = str(text).strip()
    if re.search(r"[KMGTPE]i$", s):
        return "binary"
    if re.search(r"[0-9.][eE][+-]?[0-9]+$", s):
        return "exponent"
    return "decimal"


def format_quantity(v: Fraction, fmt: str) -> str:
    """``v`` printed in format ``fmt`` ("binary", "exponent", "decimal") as Quantity.String() does."""
    # resource.Quantity keeps nano precision, rounding away from zero.
    nanos = v * 10**9
    whole = int(nanos) if nanos.denominator == 1 else (int(nanos) + (1 if nanos > 0 else -1))
    v = Fraction(whole, 10**9)
    if v == 0:
        return "0"
    sign = "-" if v < 0 else ""
    a = abs(v)
    if fmt == "binary" and a >= 1024 and a.denominator == 1:
        n, k = int(a), 0
        while k < 6 and n % 1024 == 0:
            n //= 1024
            k += 1
        return f"{sign}{n}{_BINARY_SUFFIX[k]}"
    e = -9
    m = int(a * 10**9)
    while e < 18 and m % 1000 == 0:
        m //= 1000
        e += 3
    if fmt == "exponent":
        return f"{sign}{m}e{e}" if e else f"{sign}{m}"
    return f"{sign}{m}{_DECIMAL_SUFFIX[e]}"


# --- small helpers ---------------------------------------------------------------------------

def _str(v: Any) -> str:
    return v if isinstance(v, str) else ""


def _list(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


def _map(v: Any) -> Dict:
    return v if isinstance(v, dict) else {}


def _items(v: Any) -> list[tuple[int, Dict]]:
    return [(i, x if isinstance(x, dict) else {}) for i, x in enumerate(_list(v))]


def _nonneg(v: Any, path: str) -> Errs:
    return [invalid(path, v, _NEGATIVE)] if isinstance(v, int) and v < 0 else []


def _labels(labels: Any, path: str) -> Errs:
    errs: Errs = []
    for k, v in _map(labels).items():
        errs += [invalid(path, str(k), m) for m in is_qualified_name(str(k))]
        errs += [invalid(path, _str(v), m) for m in is_label_value(_str(v))]
    return errs


def _label_name(name: str, path: str) -> Errs:
    return [invalid(path, name, m) for m in is_qualified_name(name)]


def label_selector(sel: Any, path: str) -> Errs:
    """metav1 validation's ValidateLabelSelector, invalid label values refused."""
    if not isinstance(sel, dict):
        return []
    errs = _labels(sel.get("matchLabels"), f"{path}.matchLabels")
    for i, expr in _items(sel.get("matchExpressions")):
        p = f"{path}.matchExpressions[{i}]"
        op, values = _str(expr.get("operator")), [_str(x) for x in _list(expr.get("values"))]
        if op in ("In", "NotIn"):
            if not values:
                errs.append(required(f"{p}.values", "must be specified when `operator` is 'In' or 'NotIn'"))
        elif op in ("Exists", "DoesNotExist"):
            if values:
                errs.append(forbidden(f"{p}.values", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
        else:
            errs.append(invalid(f"{p}.operator", op, "not a valid selector operator"))
        errs += _label_name(_str(expr.get("key")), f"{p}.key")
        for j, value in enumerate(values):
            errs += [invalid(f"{p}.values[{j}]", value, m) for m in is_label_value(value)]
    return errs


def _selector_matches(sel: Dict, labels: Dict) -> bool:
    for k, v in _map(sel.get("matchLabels")).items():
        if labels.get(k) != v:
            return False
    for expr in _list(sel.get("matchExpressions")):
        expr = _map(expr)
        key, op, values = _str(expr.get("key")), expr.get("operator"), _list(expr.get("values"))
        if op == "In" and labels.get(key) not in values:
            return False
        if op == "NotIn" and key in labels and labels.get(key) in values:
            return False
        if op == "Exists" and key not in labels:
            return False
        if op == "DoesNotExist" and key in labels:
            return False
    return True


def _selector_is_empty(sel: Dict) -> bool:
    return not _map(sel.get("matchLabels")) and not _list(sel.get("matchExpressions"))


# --- object metadata -------------------------------------------------------------------------

def object_meta(meta: Dict, path: str = "metadata", name_check: str = "subdomain") -> Errs:
    errs: Errs = []
    name, gen = _str(meta.get("name")), _str(meta.get("generateName"))
    check = is_dns1123_subdomain if name_check == "subdomain" else is_dns1123_label
    if gen:
        masked = gen[:-1] + "a" if gen.endswith("-") else gen
        errs += [invalid(f"{path}.generateName", gen, m) for m in check(masked)]
    if not name and not gen:
        errs.append(required(f"{path}.name", "name or generateName is required"))
    elif name:
        errs += [invalid(f"{path}.name", name, m) for m in check(name)]
    ns = _str(meta.get("namespace"))
    if ns:
        errs += [invalid(f"{path}.namespace", ns, m) for m in is_dns1123_label(ns)]
    errs += _labels(meta.get("labels"), f"{path}.labels")
    errs += _annotations(meta.get("annotations"), f"{path}.annotations")
    return errs


def _annotations(ann: Any, path: str) -> Errs:
    return [invalid(path, str(k), m) for k in _map(ann) for m in is_qualified_name(str(k).lower())]


# --- the pod spec ----------------------------------------------------------------------------

_STANDARD_CONTAINER_RESOURCES = {"cpu", "memory", "ephemeral-storage"}
_STANDARD_RESOURCES = _STANDARD_CONTAINER_RESOURCES | {
    "pods", "services", "replicationcontrollers", "resourcequotas", "secrets", "configmaps",
    "persistentvolumeclaims", "storage", "requests.cpu", "requests.memory", "requests.storage",
    "requests.ephemeral-storage", "limits.cpu", "limits.memory", "limits.ephemeral-storage",
}


def _is_hugepages(name: str) -> bool:
    return name.startswith("hugepages-")


def _is_native(name: str) -> bool:
    return "/" not in name or "kubernetes.io/" in name


def _is_extended(name: str) -> bool:
    if _is_native(name) or name.startswith("requests."):
        return False
    return not is_qualified_name("requests." + name)


def _resource_name(name: str, path: str) -> Errs:
    errs = [invalid(path, name, m) for m in is_qualified_name(name)]
    if errs:
        return errs
    if "/" not in name:
        if name not in _STANDARD_RESOURCES and not _is_hugepages(name):
            errs.append(invalid(path, name, "must be a standard resource type or fully qualified"))
            return errs
        if name not in _STANDARD_CONTAINER_RESOURCES and not _is_hugepages(name):
            errs.append(invalid(path, name, "must be a standard resource for containers"))
    elif not _is_native(name) and not _is_extended(name):
        errs.append(invalid(path, name, "doesn't follow extended resource name standard"))
    return errs


def _quantity_value(name: str, q: Any, path: str) -> Errs:
    errs: Errs = []
    text = quantity_string(q)
    v = parse_quantity(q)
    if v < 0:
        errs.append(invalid(path, text, _NEGATIVE))
    if _is_extended(name) and (v * 1000) % 1000 != 0:
        errs.append(invalid(path, text, "must be an integer"))
    return errs


def resources(res: Dict, path: str, claim_names: set[str]) -> Errs:
    errs: Errs = []
    limits, requests = _map(res.get("limits")), _map(res.get("requests"))
    for name, q in limits.items():
        p = f"{path}.limits[{name}]"
        errs += _resource_name(str(name), p)
        if q is not None:
            errs += _quantity_value(str(name), q, p)
    for name, q in requests.items():
        name = str(name)
        p = f"{path}.requests[{name}]"
        errs += _resource_name(name, p)
        if q is None:
            continue
        errs += _quantity_value(name, q, p)
        overcommit = _is_native(name) and not _is_hugepages(name)
        if name in limits and limits[name] is not None:
            req_v, lim_v = parse_quantity(q), parse_quantity(limits[name])
            if req_v != lim_v and not overcommit:
                errs.append(invalid(f"{path}.requests", quantity_string(q),
                                    f"must be equal to {name} limit of {quantity_string(limits[name])}"))
            elif req_v > lim_v:
                errs.append(invalid(f"{path}.requests", quantity_string(q),
                                    f"must be less than or equal to {name} limit of {quantity_string(limits[name])}"))
        elif not overcommit:
            errs.append(required(f"{path}.limits", "Limit must be set for non overcommitable resources"))
    seen: set[str] = set()
    for i, claim in _items(res.get("claims")):
        name = _str(claim.get("name"))
        p = f"{path}.claims[{i}]"
        if not name:
            errs.append(required(p))
            continue
        key = name + ("/" + _str(claim.get("request")) if claim.get("request") else "")
        if key in seen:
            errs.append(duplicate(p, key))
        seen.add(key)
        if name not in claim_names:
            detail = "must be one of the names in pod.spec.resourceClaims"
            detail += " which is empty" if not claim_names else ": " + ", ".join(sorted(claim_names))
            errs.append(not_found(p, name, detail))
    return errs


def _ports(ports: Any, path: str) -> Errs:
    errs: Errs = []
    names: set[str] = set()
    for i, port in _items(ports):
        p = f"{path}[{i}]"
        name = _str(port.get("name"))
        if name:
            msgs = is_valid_port_name(name)
            errs += [invalid(f"{p}.name", name, m) for m in msgs]
            if not msgs and name in names:
                errs.append(duplicate(f"{p}.name", name))
            names.add(name)
        cp = port.get("containerPort")
        if not cp:
            errs.append(required(f"{p}.containerPort"))
        else:
            errs += [invalid(f"{p}.containerPort", cp, m) for m in is_valid_port_num(cp)]
        hp = port.get("hostPort")
        if hp:
            errs += [invalid(f"{p}.hostPort", hp, m) for m in is_valid_port_num(hp)]
        proto = port.get("protocol") or "TCP"
        if proto not in ("SCTP", "TCP", "UDP"):
            errs.append(not_supported(f"{p}.protocol", proto, ["SCTP", "TCP", "UDP"]))
    return errs


def _host_port_conflicts(containers: list[tuple[int, Dict]], path: str) -> Errs:
    errs: Errs = []
    seen: set[str] = set()
    for ci, c in containers:
        for pi, port in _items(c.get("ports")):
            hp = port.get("hostPort")
            if not hp:
                continue
            key = f"{port.get('protocol') or 'TCP'}/{_str(port.get('hostIP'))}/{hp}"
            if key in seen:
                errs.append(duplicate(f"{path}[{ci}].ports[{pi}].hostPort", key))
            seen.add(key)
    return errs


def _container(c: Dict, path: str, volumes: set[str], claim_names: set[str]) -> Errs:
    errs: Errs = []
    name = _str(c.get("name"))
    if not name:
        errs.append(required(f"{path}.name"))
    else:
        errs += [invalid(f"{path}.name", name, m) for m in is_dns1123_label(name)]
    if not _str(c.get("image")):
        errs.append(required(f"{path}.image"))
    tmp = c.get("terminationMessagePolicy")
    if tmp and tmp not in ("File", "FallbackToLogsOnError"):
        errs.append(not_supported(f"{path}.terminationMessagePolicy", tmp, ["File", "FallbackToLogsOnError"]))
    errs += _ports(c.get("ports"), f"{path}.ports")
    for i, env in _items(c.get("env")):
        errs += _env(env, f"{path}.env[{i}]")
    for i, m in _items(c.get("volumeMounts")):
        mp = f"{path}.volumeMounts[{i}]"
        vname = _str(m.get("name"))
        if not vname:
            errs.append(required(f"{mp}.name"))
        elif vname not in volumes:
            errs.append(not_found(f"{mp}.name", vname))
        if not _str(m.get("mountPath")):
            errs.append(required(f"{mp}.mountPath"))
    pull = c.get("imagePullPolicy")
    if pull and pull not in ("Always", "IfNotPresent", "Never"):
        errs.append(not_supported(f"{path}.imagePullPolicy", pull, ["Always", "IfNotPresent", "Never"]))
    errs += resources(_map(c.get("resources")), f"{path}.resources", claim_names)
    return errs


def _env(env: Dict, path: str) -> Errs:
    errs: Errs = []
    name = _str(env.get("name"))
    if not name:
        errs.append(required(f"{path}.name"))
    elif "=" in name or any(not " " <= ch <= "~" for ch in name):
        # RelaxedEnvironmentVariableValidation is GA: any printable ASCII but '='.
        errs.append(invalid(f"{path}.name", name, "a valid environment variable name must consist only of "
                            "printable ASCII characters other than '='"))
    vf = env.get("valueFrom")
    if isinstance(vf, dict):
        sources = [k for k in ("fieldRef", "resourceFieldRef", "configMapKeyRef", "secretKeyRef", "fileKeyRef")
                   if vf.get(k) is not None]
        for key in ("configMapKeyRef", "secretKeyRef"):
            if isinstance(vf.get(key), dict) and not _str(vf[key].get("key")):
                errs.append(required(f"{path}.valueFrom.{key}.key"))
        if not sources:
            # EnvFiles is beta and on in v1.35, so fileKeyRef is among the choices.
            errs.append(invalid(f"{path}.valueFrom", "", "must specify one of: `fieldRef`, `resourceFieldRef`, "
                                "`configMapKeyRef`, `secretKeyRef` or `fileKeyRef`"))
        elif _str(env.get("value")):
            errs.append(invalid(f"{path}.valueFrom", "", "may not be specified when `value` is not empty"))
        elif len(sources) > 1:
            errs.append(invalid(f"{path}.valueFrom", "", "may not have more than one field specified at a time"))
    return errs


def _port_num_or_name(port: Any, path: str) -> Errs:
    if isinstance(port, str):
        return [invalid(path, port, m) for m in is_valid_port_name(port)]
    if isinstance(port, int):
        return [invalid(path, port, m) for m in is_valid_port_num(port)]
    return [invalid(path, 0, m) for m in is_valid_port_num(0)]


_HANDLERS = ("exec", "httpGet", "tcpSocket", "grpc", "sleep")


def _handler(h: Dict, path: str) -> Errs:
    """validateHandler: exactly one handler type, each with what it needs."""
    errs: Errs = []
    found = 0
    for kind in _HANDLERS:
        action = h.get(kind)
        if action is None:
            continue
        if found:
            errs.append(forbidden(f"{path}.{kind}", "may not specify more than 1 handler type"))
            continue
        found += 1
        action = _map(action)
        if kind == "exec" and not _list(action.get("command")):
            errs.append(required(f"{path}.exec.command"))
        elif kind == "httpGet":
            errs += _port_num_or_name(action.get("port"), f"{path}.httpGet.port")
            scheme = action.get("scheme") or "HTTP"
            if scheme not in ("HTTP", "HTTPS"):
                errs.append(not_supported(f"{path}.httpGet.scheme", scheme, ["HTTP", "HTTPS"]))
        elif kind in ("tcpSocket", "grpc"):
            errs += _port_num_or_name(action.get("port"), f"{path}.{kind}.port")
    if not found:
        errs.append(required(path, "must specify a handler type"))
    return errs


def _probe(probe: Dict, path: str, kind: str) -> Errs:
    errs = _handler(probe, path)
    for key in ("initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold"):
        errs += _nonneg(probe.get(key), f"{path}.{key}")
    tgps = probe.get("terminationGracePeriodSeconds")
    if isinstance(tgps, int) and tgps <= 0:
        errs.append(invalid(f"{path}.terminationGracePeriodSeconds", tgps, "must be greater than 0"))
    # successThreshold defaults to 1.
    st = probe.get("successThreshold") or 1
    if kind in ("livenessProbe", "startupProbe") and st != 1:
        errs.append(invalid(f"{path}.successThreshold", st, "must be 1"))
    if kind == "readinessProbe" and tgps is not None:
        errs.append(invalid(f"{path}.terminationGracePeriodSeconds", tgps, "must not be set for readinessProbes"))
    return errs


def _probes_and_lifecycle(c: Dict, path: str, init: bool) -> Errs:
    """Regular containers and sidecars may have probes and lifecycle hooks; other init
    containers may not."""
    errs: Errs = []
    if init and c.get("restartPolicy") != "Always":
        for key in ("lifecycle", "livenessProbe", "readinessProbe", "startupProbe"):
            if c.get(key) is not None:
                errs.append(forbidden(f"{path}.{key}", "may not be set for init containers without restartPolicy=Always"))
        return errs
    lifecycle = c.get("lifecycle")
    if isinstance(lifecycle, dict):
        for hook in ("postStart", "preStop"):
            if isinstance(lifecycle.get(hook), dict):
                errs += _handler(lifecycle[hook], f"{path}.lifecycle.{hook}")
    for key in ("livenessProbe", "readinessProbe", "startupProbe"):
        if isinstance(c.get(key), dict):
            errs += _probe(c[key], f"{path}.{key}", key)
    return errs


# validateVolumeSource's order, with the path names it uses (two differ from the JSON keys).
_VOLUME_SOURCES = (
    "emptyDir", "hostPath", "gitRepo", "gcePersistentDisk", "awsElasticBlockStore", "secret", "nfs", "iscsi",
    "glusterfs", "flocker", "persistentVolumeClaim", "rbd", "cinder", "cephfs", "quobyte", "downwardAPI", "fc",
    "flexVolume", "configMap", "azureFile", "vsphereVolume", "photonPersistentDisk", "portworxVolume", "azureDisk",
    "storageos", "projected", "scaleIO", "csi", "ephemeral", "image",
)
_VOLUME_PATH_NAMES = {"cephfs": "cephFS", "downwardAPI": "downwarAPI"}
# The one name each common source requires.
_VOLUME_REQUIRED = {"persistentVolumeClaim": "claimName", "secret": "secretName", "configMap": "name",
                    "hostPath": "path"}


def _volume_source(vol: Dict, path: str) -> Errs:
    """validateVolumeSource: one volume type (none at all is defaulted to emptyDir)."""
    errs: Errs = []
    found = False
    for key in _VOLUME_SOURCES:
        src = vol.get(key)
        if src is None:
            continue
        if found:
            errs.append(forbidden(f"{path}.{_VOLUME_PATH_NAMES.get(key, key)}", "may not specify more than 1 volume type"))
            continue
        found = True
        src = _map(src)
        need = _VOLUME_REQUIRED.get(key)
        if need is not None and not _str(src.get(need)):
            errs.append(required(f"{path}.{key}.{need}"))
        if key == "emptyDir" and src.get("sizeLimit") is not None and parse_quantity(src["sizeLimit"]) < 0:
            errs.append(forbidden(f"{path}.emptyDir.sizeLimit", "SizeLimit field must be a valid resource quantity"))
    return errs


def _container_restart_policy(c: Dict, path: str) -> Errs:
    # ContainerRestartRules is beta and on in v1.35: any container may carry one of these.
    rp = c.get("restartPolicy")
    if rp is not None and rp not in ("Always", "Never", "OnFailure"):
        return [not_supported(f"{path}.restartPolicy", rp, ["Always", "Never", "OnFailure"])]
    return []


def _effective_requests(c: Dict) -> Dict:
    """A container's requests after defaulting (a missing request takes its limit)."""
    res = _map(c.get("resources"))
    out = {k: v for k, v in _map(res.get("limits")).items() if v is not None}
    out.update({k: v for k, v in _map(res.get("requests")).items() if v is not None})
    return out


def _aggregate_requests(spec: Dict) -> dict[str, Fraction]:
    """resourcehelper.AggregateContainerRequests: the app containers and sidecars together,
    or the largest init container with the sidecars started before it."""
    total: dict[str, Fraction] = {}
    for _, c in _items(spec.get("containers")):
        for k, v in _effective_requests(c).items():
            total[k] = total.get(k, Fraction(0)) + parse_quantity(v)
    sidecars: dict[str, Fraction] = {}
    init_max: dict[str, Fraction] = {}
    for _, c in _items(spec.get("initContainers")):
        reqs = {k: parse_quantity(v) for k, v in _effective_requests(c).items()}
        if c.get("restartPolicy") == "Always":
            for k, v in reqs.items():
                total[k] = total.get(k, Fraction(0)) + v
                sidecars[k] = sidecars.get(k, Fraction(0)) + v
            need = dict(sidecars)
        else:
            need = dict(sidecars)
            for k, v in reqs.items():
                need[k] = need.get(k, Fraction(0)) + v
        for k, v in need.items():
            init_max[k] = max(init_max.get(k, Fraction(0)), v)
    for k, v in init_max.items():
        total[k] = max(total.get(k, Fraction(0)), v)
    return total


def _pod_resources(spec: Dict, path: str) -> Errs:
    """validatePodResources (PodLevelResources is beta and on in v1.35)."""
    res = _map(spec.get("resources"))
    errs: Errs = []
    if res.get("claims") is not None:
        errs.append(forbidden(f"{path}.claims", "claims may not be set for Resources at pod-level"))
    limits, requests = _map(res.get("limits")), _map(res.get("requests"))
    for part, quantities in (("limits", limits), ("requests", requests)):
        for name, q in quantities.items():
            name = str(name)
            p = f"{path}.{part}[{name}]"
            name_errs = [invalid(p, name, m) for m in is_qualified_name(name)]
            if not name_errs and "/" not in name and name not in _STANDARD_RESOURCES and not _is_hugepages(name):
                name_errs.append(invalid(p, name, "must be a standard resource type or fully qualified"))
            if not name_errs and name not in ("cpu", "memory") and not _is_hugepages(name):
                name_errs.append(not_supported(p, name, ["cpu", "hugepages-", "memory"]))
            errs += name_errs
            if q is None:
                continue
            errs += _quantity_value(name, q, p)
            if part == "requests" and limits.get(name) is not None:
                if parse_quantity(q) > parse_quantity(limits[name]):
                    errs.append(invalid(f"{path}.requests", quantity_string(q), f"must be less than or equal to "
                                        f"{name} limit of {quantity_string(limits[name])}"))
    # Pod-level requests default from pod-level limits; they must cover the containers.
    effective = {k: v for k, v in limits.items() if v is not None}
    effective.update({k: v for k, v in requests.items() if v is not None})
    # A sum of quantities keeps the format of its first term.
    formats: dict[str, str] = {}
    for _, c in [*_items(spec.get("containers")), *_items(spec.get("initContainers"))]:
        for k, q in _effective_requests(c).items():
            formats.setdefault(k, _format_of(q))
    for name, agg in _aggregate_requests(spec).items():
        if name in effective and agg > parse_quantity(effective[name]):
            errs.append(invalid(f"{path}.requests[{name}]", quantity_string(effective[name]),
                                f"must be greater than or equal to aggregate container requests of "
                                f"{format_quantity(agg, formats.get(name, 'decimal'))}"))
    for i, c in _items(spec.get("containers")):
        for name, lim in _map(_map(c.get("resources")).get("limits")).items():
            if lim is not None and limits.get(name) is not None and parse_quantity(lim) > parse_quantity(limits[name]):
                errs.append(invalid(f"{path}.containers[{i}][{name}].limits", quantity_string(lim),
                                    f"must be less than or equal to pod limits of {quantity_string(limits[name])}"))
    return errs


def _node_selector_term(term: Dict, path: str) -> Errs:
    errs: Errs = []
    for j, req in _items(term.get("matchExpressions")):
        p = f"{path}.matchExpressions[{j}]"
        op, values = _str(req.get("operator")), _list(req.get("values"))
        if op in ("In", "NotIn"):
            if not values:
                errs.append(required(f"{p}.values", "must be specified when `operator` is 'In' or 'NotIn'"))
        elif op in ("Exists", "DoesNotExist"):
            if values:
                errs.append(forbidden(f"{p}.values", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
        elif op in ("Gt", "Lt"):
            if len(values) != 1:
                errs.append(required(f"{p}.values", "must be specified single value when `operator` is 'Lt' or 'Gt'"))
        else:
            errs.append(invalid(f"{p}.operator", op, "not a valid selector operator"))
        errs += _label_name(_str(req.get("key")), f"{p}.key")
        # The values are deliberately not checked as label values (SPEC §1).
    for j, req in _items(term.get("matchFields")):
        p = f"{path}.matchFields[{j}]"
        op, values = _str(req.get("operator")), [_str(x) for x in _list(req.get("values"))]
        if op in ("In", "NotIn"):
            if len(values) != 1:
                errs.append(required(f"{p}.values",
                                     "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"))
        else:
            errs.append(invalid(f"{p}.operator", op, "not a valid selector operator"))
        if req.get("key") != "metadata.name":
            errs.append(invalid(f"{p}.key", _str(req.get("key")), "not a valid field selector key"))
        else:
            for i, v in enumerate(values):
                errs += [invalid(f"{p}.values[{i}]", v, m) for m in is_dns1123_subdomain(v)]
    return errs


def _pod_affinity_term(term: Dict, path: str) -> Errs:
    errs = label_selector(term.get("labelSelector"), f"{path}.labelSelector")
    errs += label_selector(term.get("namespaceSelector"), f"{path}.namespaceSelector")
    for ns in _list(term.get("namespaces")):
        errs += [invalid(f"{path}.namespace", _str(ns), m) for m in is_dns1123_label(_str(ns))]
    for key in ("matchLabelKeys", "mismatchLabelKeys"):
        for i, k in enumerate(_list(term.get(key))):
            errs += _label_name(_str(k), f"{path}.{key}[{i}]")
    tk = _str(term.get("topologyKey"))
    if not tk:
        errs.append(required(f"{path}.topologyKey", "can not be empty"))
    return errs + _label_name(tk, f"{path}.topologyKey")


def _pod_affinity(pa: Dict, path: str) -> Errs:
    errs: Errs = []
    req = "requiredDuringSchedulingIgnoredDuringExecution"
    pref = "preferredDuringSchedulingIgnoredDuringExecution"
    for i, term in _items(pa.get(req)):
        errs += _pod_affinity_term(term, f"{path}.{req}[{i}]")
    for i, wt in _items(pa.get(pref)):
        w = wt.get("weight") or 0
        if not 1 <= w <= 100:
            errs.append(invalid(f"{path}.{pref}[{i}].weight", w, "must be in the range 1-100"))
        errs += _pod_affinity_term(_map(wt.get("podAffinityTerm")), f"{path}.{pref}[{i}].podAffinityTerm")
    return errs


def _affinity(aff: Dict, path: str) -> Errs:
    errs: Errs = []
    na = aff.get("nodeAffinity")
    if isinstance(na, dict):
        npath = f"{path}.nodeAffinity"
        req = na.get("requiredDuringSchedulingIgnoredDuringExecution")
        if isinstance(req, dict):
            tpath = f"{npath}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
            terms = _items(req.get("nodeSelectorTerms"))
            if not terms:
                errs.append(required(tpath, "must have at least one node selector term"))
            for i, term in terms:
                errs += _node_selector_term(term, f"{tpath}[{i}]")
        ppath = f"{npath}.preferredDuringSchedulingIgnoredDuringExecution"
        for i, pt in _items(na.get("preferredDuringSchedulingIgnoredDuringExecution")):
            w = pt.get("weight") or 0
            if not 1 <= w <= 100:
                errs.append(invalid(f"{ppath}[{i}].weight", w, "must be in the range 1-100"))
            errs += _node_selector_term(_map(pt.get("preference")), f"{ppath}[{i}].preference")
    for key in ("podAffinity", "podAntiAffinity"):
        if isinstance(aff.get(key), dict):
            errs += _pod_affinity(aff[key], f"{path}.{key}")
    return errs


_TAINT_EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"]


def _tolerations(tols: Any, path: str) -> Errs:
    errs: Errs = []
    for i, t in _items(tols):
        p = f"{path}[{i}]"
        key, op, value, effect = (_str(t.get(k)) for k in ("key", "operator", "value", "effect"))
        if key:
            errs += _label_name(key, f"{p}.key")
        if not key and op != "Exists":
            errs.append(invalid(f"{p}.operator", op, "operator must be Exists when `key` is empty, which means "
                                "\"match all values and all keys\""))
        if t.get("tolerationSeconds") is not None and effect != "NoExecute":
            errs.append(invalid(f"{p}.effect", effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"))
        if op in ("Equal", ""):
            msgs = is_label_value(value)
            if msgs:
                errs.append(invalid(f"{p}.operator", value, ";".join(msgs)))
        elif op == "Exists":
            if value:
                errs.append(invalid(f"{p}.operator", value, "value must be empty when `operator` is 'Exists'"))
        elif op in ("Lt", "Gt"):
            # TaintTolerationComparisonOperators is alpha (off by default).
            errs.append(not_supported(f"{p}.operator", op, ["Equal", "Exists", "Lt", "Gt"]))
        else:
            errs.append(not_supported(f"{p}.operator", op, ["Equal", "Exists"]))
        if effect and effect not in _TAINT_EFFECTS:
            errs.append(not_supported(f"{p}.effect", effect, _TAINT_EFFECTS))
    return errs


def _spread_constraints(tscs: Any, path: str) -> Errs:
    errs: Errs = []
    items = _items(tscs)
    for i, c in items:
        p = f"{path}[{i}]"
        skew = c.get("maxSkew") or 0
        if skew <= 0:
            errs.append(invalid(f"{p}.maxSkew", skew, _NOT_POSITIVE))
        tk = _str(c.get("topologyKey"))
        if not tk:
            errs.append(required(f"{p}.topologyKey", "can not be empty"))
        wu = _str(c.get("whenUnsatisfiable"))
        if wu not in ("DoNotSchedule", "ScheduleAnyway"):
            errs.append(not_supported(f"{p}.whenUnsatisfiable", wu, ["DoNotSchedule", "ScheduleAnyway"]))
        for _j, other in items[i + 1:]:
            if _str(other.get("topologyKey")) == tk and _str(other.get("whenUnsatisfiable")) == wu:
                errs.append(duplicate(f"{p}.{{topologyKey, whenUnsatisfiable}}", f"{{{tk}, {wu}}}"))
                break
        md = c.get("minDomains")
        if md is not None:
            if md <= 0:
                errs.append(invalid(f"{p}.minDomains", md, _NOT_POSITIVE))
            if wu != "DoNotSchedule":
                errs.append(invalid(f"{p}.minDomains", md,
                                    f"can only use minDomains if whenUnsatisfiable=DoNotSchedule, not {wu}"))
        for pol in ("nodeAffinityPolicy", "nodeTaintsPolicy"):
            v = c.get(pol)
            if v is not None and v not in ("Honor", "Ignore"):
                errs.append(not_supported(f"{p}.{pol}", v, ["Honor", "Ignore"]))
        for j, k in enumerate(_list(c.get("matchLabelKeys"))):
            errs += _label_name(_str(k), f"{p}.matchLabelKeys[{j}]")
        errs += label_selector(c.get("labelSelector"), f"{p}.labelSelector")
    return errs


def pod_spec(spec: Dict, path: str, claim_template_volumes: tuple[str, ...] = ()) -> Errs:
    """ValidatePodSpec, for what a pod spec commonly carries (the spec as defaulted).
    ``claim_template_volumes``: a StatefulSet's claim templates, which its validation adds
    to the template's volumes first."""
    errs: Errs = []
    volumes: set[str] = set(claim_template_volumes)
    for i, vol in _items(spec.get("volumes")):
        errs += _volume_source(vol, f"{path}.volumes[{i}]")
        name = _str(vol.get("name"))
        p = f"{path}.volumes[{i}].name"
        if not name:
            errs.append(required(p))
        else:
            errs += [invalid(p, name, m) for m in is_dns1123_label(name)]
            if name in volumes:
                errs.append(duplicate(p, name))
        volumes.add(name)
    claim_names: set[str] = set()
    for i, claim in _items(spec.get("resourceClaims")):
        name = _str(claim.get("name"))
        p = f"{path}.resourceClaims[{i}]"
        errs += [invalid(f"{p}.name", name, m) for m in is_dns1123_label(name)]
        if name in claim_names:
            errs.append(duplicate(f"{p}.name", name))
        claim_names.add(name)
        sources = [k for k in ("resourceClaimName", "resourceClaimTemplateName") if claim.get(k)]
        if not sources:
            errs.append(invalid(p, claim, "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`"))
        elif len(sources) > 1:
            errs.append(invalid(p, claim, "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified"))
    containers = _items(spec.get("containers"))
    cpath = f"{path}.containers"
    if not containers:
        errs.append(required(cpath))
    names: set[str] = set()
    for i, c in containers:
        errs += _container(c, f"{cpath}[{i}]", volumes, claim_names)
        name = _str(c.get("name"))
        if name in names:
            errs.append(duplicate(f"{cpath}[{i}].name", name))
        names.add(name)
        errs += _probes_and_lifecycle(c, f"{cpath}[{i}]", init=False)
        errs += _container_restart_policy(c, f"{cpath}[{i}]")
    errs += _host_port_conflicts(containers, cpath)
    ipath = f"{path}.initContainers"
    for i, c in _items(spec.get("initContainers")):
        errs += _container(c, f"{ipath}[{i}]", volumes, claim_names)
        errs += _container_restart_policy(c, f"{ipath}[{i}]")
        name = _str(c.get("name"))
        if name in names:
            errs.append(duplicate(f"{ipath}[{i}].name", name))
        elif name:
            names.add(name)
        errs += _host_port_conflicts([(i, c)], ipath)
        errs += _probes_and_lifecycle(c, f"{ipath}[{i}]", init=True)
    if isinstance(spec.get("resources"), dict):
        errs += _pod_resources(spec, f"{path}.resources")
    rp = spec.get("restartPolicy") or "Always"
    if rp not in ("Always", "OnFailure", "Never"):
        errs.append(not_supported(f"{path}.restartPolicy", rp, ["Always", "OnFailure", "Never"]))
    dp = spec.get("dnsPolicy") or "ClusterFirst"
    if dp not in ("ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"):
        errs.append(not_supported(f"{path}.dnsPolicy", dp, ["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"]))
    errs += _labels(spec.get("nodeSelector"), f"{path}.nodeSelector")
    if isinstance(spec.get("affinity"), dict):
        errs += _affinity(spec["affinity"], f"{path}.affinity")
    gates: set[str] = set()
    for i, g in _items(spec.get("schedulingGates")):
        name = _str(g.get("name"))
        errs += [invalid(f"{path}.schedulingGates[{i}]", name, m) for m in is_qualified_name(name)]
        if name in gates:
            errs.append(duplicate(f"{path}.schedulingGates[{i}]", name))
        gates.add(name)
    errs += _spread_constraints(spec.get("topologySpreadConstraints"), f"{path}.topologySpreadConstraints")
    for key in ("serviceAccountName", "nodeName", "priorityClassName"):
        v = _str(spec.get(key))
        if v:
            errs += [invalid(f"{path}.{key}", v, m) for m in is_dns1123_subdomain(v)]
    ads = spec.get("activeDeadlineSeconds")
    if isinstance(ads, int) and not 1 <= ads <= _MAX_INT32:
        errs.append(invalid(f"{path}.activeDeadlineSeconds", ads, f"must be between 1 and {_MAX_INT32}, inclusive"))
    for key in ("hostname", "subdomain"):
        v = _str(spec.get(key))
        if v:
            errs += [invalid(f"{path}.{key}", v, m) for m in is_dns1123_label(v)]
    errs += _tolerations(spec.get("tolerations"), f"{path}.tolerations")
    pp = spec.get("preemptionPolicy")
    if pp is not None and pp not in ("PreemptLowerPriority", "Never"):
        errs.append(not_supported(f"{path}.preemptionPolicy", pp, ["PreemptLowerPriority", "Never"]))
    if isinstance(spec.get("overhead"), dict):
        for name, q in spec["overhead"].items():
            p = f"{path}.overhead[{name}]"
            errs += _resource_name(str(name), p)
            if q is not None:
                errs += _quantity_value(str(name), q, p)
    return errs


def pod_template(tpl: Dict, path: str, claim_template_volumes: tuple[str, ...] = ()) -> Errs:
    """ValidatePodTemplateSpec (the template's labels are checked under ``labels``, as upstream does)."""
    meta = _map(tpl.get("metadata"))
    errs = _labels(meta.get("labels"), f"{path}.labels")
    errs += _annotations(meta.get("annotations"), f"{path}.annotations")
    return errs + pod_spec(_map(tpl.get("spec")), f"{path}.spec", claim_template_volumes)


# --- the objects -----------------------------------------------------------------------------

def _selected_template(spec: Dict, path: str, kind_word: str, strict_selector: bool = True) -> Errs:
    """A workload's selector (required, valid, non-empty) and its template's labels."""
    errs: Errs = []
    sel = spec.get("selector")
    tpl = _map(spec.get("template"))
    if not isinstance(sel, dict):
        errs.append(required(f"{path}.selector"))
    else:
        errs += label_selector(sel, f"{path}.selector")
        if _selector_is_empty(sel) and strict_selector:
            errs.append(invalid(f"{path}.selector", sel, f"empty selector is invalid for {kind_word}"))
        labels = (_map(tpl.get("metadata"))).get("labels")
        if not _selector_is_empty(sel) and not _selector_matches(sel, _map(labels)):
            errs.append(invalid(f"{path}.template.metadata.labels", labels if isinstance(labels, dict) else None,
                                "`selector` does not match template `labels`"))
    return errs


def _always_restart(spec: Dict, path: str, owner: str) -> Errs:
    tspec = _map(_map(spec.get("template")).get("spec"))
    errs: Errs = []
    rp = tspec.get("restartPolicy") or "Always"
    if rp != "Always":
        errs.append(not_supported(f"{path}.template.spec.restartPolicy", rp, ["Always"]))
    if tspec.get("activeDeadlineSeconds") is not None:
        errs.append(forbidden(f"{path}.template.spec.activeDeadlineSeconds",
                              f"activeDeadlineSeconds in {owner} is not Supported"))
    return errs


def _job_spec(spec: Dict, path: str) -> Errs:
    errs: Errs = []
    for key in ("parallelism", "completions", "activeDeadlineSeconds", "backoffLimit"):
        errs += _nonneg(spec.get(key), f"{path}.{key}")
    errs += pod_template(_map(spec.get("template")), f"{path}.template")
    rp = _map(_map(spec.get("template")).get("spec")).get("restartPolicy") or ""
    if rp in ("Always", ""):
        errs.append(required(f"{path}.template.spec.restartPolicy", 'valid values: "OnFailure", "Never"'))
    elif rp not in ("OnFailure", "Never"):
        errs.append(not_supported(f"{path}.template.spec.restartPolicy", rp, ["OnFailure", "Never"]))
    return errs


def validate_object(obj: Dict) -> Errs:
    """The field errors the API server would report for creating ``obj`` (decoded already)."""
    kind = obj.get("kind")
    meta = _map(obj.get("metadata"))
    spec = _map(obj.get("spec"))
    if kind == "Pod":
        return object_meta(meta) + pod_spec(spec, "spec")
    if kind == "PodTemplate":
        return object_meta(meta) + pod_template(_map(obj.get("template")), "template")
    errs: Errs = []
    if kind == "Deployment":
        errs = object_meta(meta) + _nonneg(spec.get("replicas"), "spec.replicas")
        errs += _selected_template(spec, "spec", "deployment")
        errs += pod_template(_map(spec.get("template")), "spec.template") + _always_restart(spec, "spec", "ReplicaSet")
        for key in ("minReadySeconds", "revisionHistoryLimit", "progressDeadlineSeconds"):
            errs += _nonneg(spec.get(key), f"spec.{key}")
    elif kind == "ReplicaSet":
        errs = object_meta(meta) + _nonneg(spec.get("replicas"), "spec.replicas")
        errs += _nonneg(spec.get("minReadySeconds"), "spec.minReadySeconds")
        errs += _selected_template(spec, "spec", "deployment")
        errs += pod_template(_map(spec.get("template")), "spec.template") + _always_restart(spec, "spec", "ReplicaSet")
    elif kind == "ReplicationController":
        errs = object_meta(meta) + _nonneg(spec.get("replicas"), "spec.replicas")
        errs += _nonneg(spec.get("minReadySeconds"), "spec.minReadySeconds")
        # An RC without a selector gets its template's labels as selector (defaulting).
        tpl_labels = _map(_map(_map(spec.get("template")).get("metadata")).get("labels"))
        sel = _map(spec.get("selector")) or tpl_labels
        errs += _labels(sel, "spec.selector")
        if not sel:
            errs.append(required("spec.selector"))
        elif any(tpl_labels.get(k) != v for k, v in sel.items()):
            errs.append(invalid("spec.template.metadata.labels", tpl_labels or None,
                                "`selector` does not match template `labels`"))
        errs += pod_template(_map(spec.get("template")), "spec.template")
        errs += _always_restart(spec, "spec", "ReplicationController")
    elif kind == "StatefulSet":
        errs = object_meta(meta) + _nonneg(spec.get("replicas"), "spec.replicas")
        errs += _selected_template(spec, "spec", "statefulset")
        vcts = tuple(_str(_map(_map(v).get("metadata")).get("name")) for v in _list(spec.get("volumeClaimTemplates")))
        errs += pod_template(_map(spec.get("template")), "spec.template", vcts)
        errs += _always_restart(spec, "spec", "StatefulSet")
    elif kind == "DaemonSet":
        errs = object_meta(meta) + _selected_template(spec, "spec", "daemonset")
        errs += pod_template(_map(spec.get("template")), "spec.template") + _always_restart(spec, "spec", "DaemonSet")
    elif kind == "Job":
        errs = object_meta(meta) + _job_spec(spec, "spec")
        if spec.get("manualSelector") is True:
            errs += _selected_template(spec, "spec", "job", strict_selector=False)
    elif kind == "CronJob":
        errs = object_meta(meta)
        if len(_str(meta.get("name"))) > 52:
            errs.append(invalid("metadata.name", _str(meta.get("name")), "must be no more than 52 characters"))
        if not _str(spec.get("schedule")):
            errs.append(required("spec.schedule"))
        jt = _map(spec.get("jobTemplate"))
        jspec = _map(jt.get("spec"))
        errs += _job_spec(jspec, "spec.jobTemplate.spec")
        if jspec.get("selector") is not None:
            errs.append(invalid("spec.jobTemplate.spec.selector", jspec["selector"], "`selector` will be auto-generated"))
    return errs


def _location(path: str) -> tuple[str | int, ...]:
    """``spec.containers[0].resources.requests[cpu]`` as keys and indexes."""
    out: list[str | int] = []
    for name, sub in re.findall(r"([^.\[\]]+)|\[([^\]]*)\]", path):
        if name:
            out.append(name)
        else:
            out.append(int(sub) if sub.isdigit() else sub)
    return tuple(out)


def check_manifest(obj: Dict, path: str) -> None:
    """Raise InputError when the API server would refuse to create ``obj`` from file ``path``."""
    kind = str(obj.get("kind") or "")
    try:
        decode_check(obj)
    except DecodeError as e:
        version = str(obj.get("apiVersion") or "").rsplit("/", 1)[-1]
        raise InputError(f"{kind} in version {version!r} cannot be handled as a {kind}: {e.message}".replace(
            f"version {version!r}", f'version "{version}"'), path=path, line=locate_line(path, obj, e.path)) from None
    errs = validate_object(obj)
    if not errs:
        return
    name = _str(_map(obj.get("metadata")).get("name")) or _str(_map(obj.get("metadata")).get("generateName"))
    text = str(errs[0]) if len(errs) == 1 else "[" + ", ".join(str(e) for e in errs) + "]"
    raise InputError(f'{kind} "{name}" is invalid: {text}', path=path,
                     line=locate_line(path, obj, _location(errs[0].field)))

"""Decoding and validation of a KubeSchedulerConfiguration, with upstream-shaped messages.

kube-scheduler decodes its configuration strictly (unknown fields and wrong types are
errors), then validates the defaulted result and reports ``field.Error`` lists such as
``profiles[0].pluginConfig[1].args.hardPodAffinityWeight: Invalid value: 200: not in
valid range [0, 100]``.  This module reproduces both steps on plain dicts; the caller
turns the messages into one ``InputError`` naming the file.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from kschedx.core.api.field_errors import FieldError, duplicate, forbidden, go_quote, invalid, json_kind, not_supported, required
from kschedx.core.api.selector_errors import CHARACTERS, child, dns_subdomain_errors
from kschedx.core.api.selector_errors import label_value_errors as api_label_value_errors
from kschedx.core.api.selector_errors import qualified_name_errors as api_qualified_name_errors

Dict = dict[str, Any]

API_VERSION = "kubescheduler.config.k8s.io/v1"
KIND = "KubeSchedulerConfiguration"


# --------------------------------------------------------------------------- field errors


def index(path: str, i: int) -> str:
    return f"{path}[{i}]"


# --------------------------------------------------------------------------- names


def dns1123_subdomain_errors(value: str) -> list[str]:
    return dns_subdomain_errors(value, CHARACTERS)


def qualified_name_errors(value: str) -> list[str]:
    """``validation.IsQualifiedName``: an optional DNS-subdomain prefix and a name part."""
    return api_qualified_name_errors(value, "a qualified name", CHARACTERS)


def label_value_errors(value: str) -> list[str]:
    return api_label_value_errors(value, CHARACTERS)


def validate_label_name(path: str, name: str) -> list[FieldError]:
    return [invalid(path, name, m) for m in qualified_name_errors(name)]


# --------------------------------------------------------------------------- Go durations

_DURATION_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
_DURATION_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)")


def parse_duration(text: str) -> float | None:
    """Go's ``time.ParseDuration`` in seconds, or None when the text is not a duration."""
    s = text.strip()
    if not s:
        return None
    sign = 1.0
    if s[0] in "+-":
        sign = -1.0 if s[0] == "-" else 1.0
        s = s[1:]
    if s == "0":
        return 0.0
    pos = 0
    total = 0.0
    while pos < len(s):
        m = _DURATION_PART.match(s, pos)
        if m is None:
            return None
        total += float(m.group(1)) * _DURATION_UNITS[m.group(2)]
        pos = m.end()
    return sign * total if pos else None


# --------------------------------------------------------------------------- strict decoding

# A schema is a type name ("string", "int32", "int64", "float", "bool", "duration", "any"),
# ("list", schema), ("map", schema) or ("object", go_type_name, {field: schema}).
Schema = Any


def _obj(go_type: str, fields: Mapping[str, Schema]) -> Schema:
    return ("object", go_type, dict(fields))


def _list(item: Schema) -> Schema:
    return ("list", item)


_PLUGIN = _obj("Plugin", {"name": "string", "weight": "int32"})
_PLUGIN_SET = _obj("PluginSet", {"enabled": _list(_PLUGIN), "disabled": _list(_PLUGIN)})

# The extension points of ``Plugins`` (v1), in the order upstream's types declare them.
PLUGIN_SET_FIELDS = (
    "preEnqueue", "queueSort", "preFilter", "filter", "postFilter", "preScore", "score",
    "reserve", "permit", "preBind", "bind", "postBind", "multiPoint",
)
_PLUGINS = _obj("Plugins", {f: _PLUGIN_SET for f in PLUGIN_SET_FIELDS})
_PLUGIN_CONFIG = _obj("PluginConfig", {"name": "string", "args": "any"})
_PROFILE = _obj(
    "KubeSchedulerProfile",
    {"schedulerName": "string", "percentageOfNodesToScore": "int32", "plugins": _PLUGINS, "pluginConfig": _list(_PLUGIN_CONFIG)},
)
_EXTENDER = _obj(
    "Extender",
    {
        "urlPrefix": "string", "filterVerb": "string", "preemptVerb": "string", "prioritizeVerb": "string",
        "weight": "int64", "bindVerb": "string", "enableHTTPS": "bool",
        "tlsConfig": _obj(
            "ExtenderTLSConfig",
            {"insecure": "bool", "serverName": "string", "certFile": "string", "keyFile": "string",
             "caFile": "string", "certData": "string", "keyData": "string", "caData": "string"},
        ),
        "httpTimeout": "duration", "nodeCacheCapable": "bool",
        "managedResources": _list(_obj("ExtenderManagedResource", {"name": "string", "ignoredByScheduler": "bool"})),
        "ignorable": "bool",
    },
)
CONFIG_SCHEMA: Schema = _obj(
    "KubeSchedulerConfiguration",
    {
        "apiVersion": "string", "kind": "string", "parallelism": "int32",
        "leaderElection": _obj(
            "LeaderElectionConfiguration",
            {"leaderElect": "bool", "leaseDuration": "duration", "renewDeadline": "duration",
             "retryPeriod": "duration", "resourceLock": "string", "resourceName": "string",
             "resourceNamespace": "string"},
        ),
        "clientConnection": _obj(
            "ClientConnectionConfiguration",
            {"kubeconfig": "string", "acceptContentTypes": "string", "contentType": "string",
             "qps": "float", "burst": "int32"},
        ),
        "enableProfiling": "bool", "enableContentionProfiling": "bool",
        "percentageOfNodesToScore": "int32", "podInitialBackoffSeconds": "int64", "podMaxBackoffSeconds": "int64",
        "profiles": _list(_PROFILE), "extenders": _list(_EXTENDER), "delayCacheUntilActive": "bool",
    },
)

_RESOURCE_SPEC = _obj("ResourceSpec", {"name": "string", "weight": "int64"})
_SHAPE_POINT = _obj("UtilizationShapePoint", {"utilization": "int32", "score": "int32"})
_NSR = _obj("NodeSelectorRequirement", {"key": "string", "operator": "string", "values": _list("string")})
_NST = _obj("NodeSelectorTerm", {"matchExpressions": _list(_NSR), "matchFields": _list(_NSR)})
_LABEL_SELECTOR = _obj(
    "LabelSelector",
    {"matchLabels": ("map", "string"),
     "matchExpressions": _list(
         _obj("LabelSelectorRequirement", {"key": "string", "operator": "string", "values": _list("string")}))},
)
_TSC = _obj(
    "TopologySpreadConstraint",
    {"maxSkew": "int32", "topologyKey": "string", "whenUnsatisfiable": "string", "labelSelector": _LABEL_SELECTOR,
     "minDomains": "int32", "nodeAffinityPolicy": "string", "nodeTaintsPolicy": "string", "matchLabelKeys": _list("string")},
)
_META = {"apiVersion": "string", "kind": "string"}

# Typed args of the in-tree plugins (``<Plugin>Args`` in kubescheduler.config.k8s.io/v1).
ARGS_SCHEMAS: dict[str, Schema] = {
    "DefaultPreemption": _obj(
        "DefaultPreemptionArgs", {**_META, "minCandidateNodesPercentage": "int32", "minCandidateNodesAbsolute": "int32"}
    ),
    "InterPodAffinity": _obj(
        "InterPodAffinityArgs", {**_META, "hardPodAffinityWeight": "int32", "ignorePreferredTermsOfExistingPods": "bool"}
    ),
    "NodeAffinity": _obj(
        "NodeAffinityArgs",
        {**_META, "addedAffinity": _obj(
            "NodeAffinity",
            {"requiredDuringSchedulingIgnoredDuringExecution": _obj("NodeSelector", {"nodeSelectorTerms": _list(_NST)}),
             "preferredDuringSchedulingIgnoredDuringExecution": _list(
                 _obj("PreferredSchedulingTerm", {"weight": "int32", "preference": _NST}))},
        )},
    ),
    "NodeResourcesBalancedAllocation": _obj(
        "NodeResourcesBalancedAllocationArgs", {**_META, "resources": _list(_RESOURCE_SPEC)}
    ),
    "NodeResourcesFit": _obj(
        "NodeResourcesFitArgs",
        {**_META, "ignoredResources": _list("string"), "ignoredResourceGroups": _list("string"),
         "scoringStrategy": _obj(
             "ScoringStrategy",
             {"type": "string", "resources": _list(_RESOURCE_SPEC),
              "requestedToCapacityRatio": _obj("RequestedToCapacityRatioParam", {"shape": _list(_SHAPE_POINT)})},
         )},
    ),
    "PodTopologySpread": _obj(
        "PodTopologySpreadArgs", {**_META, "defaultConstraints": _list(_TSC), "defaultingType": "string"}
    ),
    "VolumeBinding": _obj("VolumeBindingArgs", {**_META, "bindTimeoutSeconds": "int64", "shape": _list(_SHAPE_POINT)}),
    "DynamicResources": _obj("DynamicResourcesArgs", {**_META, "filterTimeout": "duration", "bindingTimeout": "duration"}),
}

_INT_RANGES = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}


def _go_type(schema: Schema) -> str:
    if isinstance(schema, str):
        return {"string": "string", "int32": "int32", "int64": "int64", "float": "float32", "bool": "bool",
                "duration": "v1.Duration", "any": "interface {}"}[schema]
    if schema[0] == "list":
        return "[]" + _go_type(schema[1])
    if schema[0] == "map":
        return "map[string]" + _go_type(schema[1])
    return "v1." + str(schema[1])


class DecodeErrors:
    """Errors found while decoding: unknown fields are reported together, as upstream does."""

    def __init__(self) -> None:
        self.unknown: list[str] = []
        self.type_errors: list[str] = []

    def message(self) -> str | None:
        if self.type_errors:
            return self.type_errors[0]
        if self.unknown:
            return "strict decoding error: " + ", ".join(f"unknown field {go_quote(f)}" for f in self.unknown)
        return None


def decode(value: Any, schema: Schema, path: str, errs: DecodeErrors, struct: str = "", go_field: str = "") -> None:
    """Check ``value`` against ``schema`` like a strict JSON decoder into the Go types."""
    if value is None or schema == "any":
        return
    if isinstance(schema, str):
        ok: bool
        if schema == "string":
            ok = isinstance(value, str)
        elif schema in _INT_RANGES:
            lo, hi = _INT_RANGES[schema]
            ok = isinstance(value, int) and not isinstance(value, bool) and lo <= value <= hi
        elif schema == "float":
            ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        elif schema == "bool":
            ok = isinstance(value, bool)
        else:  # duration
            ok = isinstance(value, str) and parse_duration(value) is not None
            if isinstance(value, str) and not ok:
                errs.type_errors.append(f"{path}: time: invalid duration {go_quote(value)}")
                return
        if not ok:
            where = f"Go struct field {struct}.{go_field}" if struct else "Go value"
            # encoding/json names the literal when a number doesn't fit an integer field.
            what = (f"number {value}" if schema in _INT_RANGES and isinstance(value, (int, float))
                    and not isinstance(value, bool) else json_kind(value))
            errs.type_errors.append(f"json: cannot unmarshal {what} into {where} of type {_go_type(schema)}")
        return
    kind = schema[0]
    if kind == "list":
        if not isinstance(value, list):
            errs.type_errors.append(
                f"json: cannot unmarshal {json_kind(value)} into Go struct field {struct}.{go_field} of type {_go_type(schema)}"
            )
            return
        for i, item in enumerate(value):
            decode(item, schema[1], index(path, i), errs, struct, go_field)
        return
    if kind == "map":
        if not isinstance(value, dict):
            errs.type_errors.append(
                f"json: cannot unmarshal {json_kind(value)} into Go struct field {struct}.{go_field} of type {_go_type(schema)}"
            )
            return
        for k, v in value.items():
            decode(v, schema[1], child(path, str(k)), errs, struct, go_field)
        return
    _, go_type, fields = schema
    if not isinstance(value, dict):
        errs.type_errors.append(
            f"json: cannot unmarshal {json_kind(value)} into Go struct field {struct}.{go_field} of type {_go_type(schema)}"
            if struct
            else f"json: cannot unmarshal {json_kind(value)} into Go value of type {_go_type(schema)}"
        )
        return
    for k, v in value.items():
        sub = fields.get(k) if isinstance(k, str) else None
        if sub is None:
            errs.unknown.append(child(path, str(k)))
            continue
        decode(v, sub, child(path, k), errs, go_type, child(go_field, k) if struct else k)


# --------------------------------------------------------------------------- plugin args validation

SCORING_STRATEGIES = ("LeastAllocated", "MostAllocated", "RequestedToCapacityRatio")
MAX_CUSTOM_PRIORITY_SCORE = 10


def validate_function_shape(shape: list[Dict] | None, path: str) -> list[FieldError]:
    """``validateFunctionShape``: at least one point, utilization strictly increasing within
    [0, 100], score within [0, 10]."""
    errs: list[FieldError] = []
    points = shape or []
    if not points:
        return [required(path, "at least one point must be specified")]
    for i in range(1, len(points)):
        if int(points[i - 1].get("utilization") or 0) >= int(points[i].get("utilization") or 0):
            errs.append(invalid(child(index(path, i), "utilization"), int(points[i].get("utilization") or 0),
                                "values must be sorted in increasing order"))
            break
    for i, p in enumerate(points):
        u = int(p.get("utilization") or 0)
        s = int(p.get("score") or 0)
        if u < 0 or u > 100:
            errs.append(invalid(child(index(path, i), "utilization"), u, "not in valid range [0, 100]"))
        if s < 0 or s > MAX_CUSTOM_PRIORITY_SCORE:
            errs.append(invalid(child(index(path, i), "score"), s, f"not in valid range [0, {MAX_CUSTOM_PRIORITY_SCORE}]"))
    return errs


def _validate_resources(resources: list[Dict] | None, path: str) -> list[FieldError]:
    errs = []
    for i, r in enumerate(resources or []):
        w = int(r.get("weight") or 0)
        if w <= 0 or w > 100:
            errs.append(invalid(child(index(path, i), "weight"), w,
                                f"resource weight of {r.get('name') or ''} not in valid range (0, 100]"))
    return errs


def validate_node_resources_fit_args(args: Dict, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    for i, res in enumerate(args.get("ignoredResources") or []):
        errs.extend(validate_label_name(index(child(path, "ignoredResources"), i), str(res)))
    for i, group in enumerate(args.get("ignoredResourceGroups") or []):
        p = index(child(path, "ignoredResourceGroups"), i)
        if "/" in str(group):
            errs.append(invalid(p, group, "resource group name can't contain '/'"))
        errs.extend(validate_label_name(p, str(group)))
    sp = child(path, "scoringStrategy")
    strategy = args.get("scoringStrategy")
    if strategy is None:
        errs.append(required(sp, "ScoringStrategy field is required"))
        return errs
    stype = strategy.get("type") or ""
    if stype not in SCORING_STRATEGIES:
        errs.append(not_supported(child(sp, "type"), stype, SCORING_STRATEGIES))
    errs.extend(_validate_resources(strategy.get("resources"), child(sp, "resources")))
    rtcr = strategy.get("requestedToCapacityRatio")
    if stype == "RequestedToCapacityRatio":
        if rtcr is None:
            errs.append(required(child(sp, "requestedToCapacityRatio"),
                                 "must be specified when type is RequestedToCapacityRatio"))
        else:
            errs.extend(validate_function_shape(rtcr.get("shape"), child(child(sp, "requestedToCapacityRatio"), "shape")))
    elif rtcr is not None:
        errs.append(forbidden(child(sp, "requestedToCapacityRatio"), "must be nil when type is not RequestedToCapacityRatio"))
    return errs


def validate_balanced_allocation_args(args: Dict, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    seen: set[str] = set()
    for i, r in enumerate(args.get("resources") or []):
        p = index(child(path, "resources"), i)
        name = str(r.get("name") or "")
        if name in seen:
            errs.append(duplicate(child(p, "name"), name))
        seen.add(name)
        w = int(r.get("weight") or 0)
        if w != 1:
            errs.append(invalid(child(p, "weight"), w, "must be 1"))
    return errs


def validate_default_preemption_args(args: Dict, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    pct = int(args.get("minCandidateNodesPercentage") or 0)
    absolute = int(args.get("minCandidateNodesAbsolute") or 0)
    pp, ap = child(path, "minCandidateNodesPercentage"), child(path, "minCandidateNodesAbsolute")
    if pct < 0 or pct > 100:
        errs.append(invalid(pp, pct, "not in valid range [0, 100]"))
    if absolute < 0:
        errs.append(invalid(ap, absolute, "not in valid range [0, inf)"))
    if pct == 0 and absolute == 0:
        errs.append(invalid(pp, pct, "cannot be zero at the same time as minCandidateNodesAbsolute"))
        errs.append(invalid(ap, absolute, "cannot be zero at the same time as minCandidateNodesPercentage"))
    return errs


def validate_inter_pod_affinity_args(args: Dict, path: str) -> list[FieldError]:
    w = int(args.get("hardPodAffinityWeight") or 0)
    if w < 0 or w > 100:
        return [invalid(child(path, "hardPodAffinityWeight"), w, "not in valid range [0, 100]")]
    return []


_WHEN_UNSATISFIABLE = ("DoNotSchedule", "ScheduleAnyway")


def validate_pod_topology_spread_args(args: Dict, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    dtype = args.get("defaultingType") or ""
    constraints = args.get("defaultConstraints") or []
    dp = child(path, "defaultingType")
    if dtype not in ("System", "List"):
        errs.append(not_supported(dp, dtype, ["System", "List"]))
    elif dtype == "System" and constraints:
        errs.append(invalid(dp, dtype, "when .defaultConstraints are not empty"))
    cp = child(path, "defaultConstraints")
    for i, c in enumerate(constraints):
        p = index(cp, i)
        skew = int(c.get("maxSkew") or 0)
        if skew <= 0:
            errs.append(invalid(child(p, "maxSkew"), skew, "not in valid range (0, inf)"))
        key = str(c.get("topologyKey") or "")
        if not key:
            errs.append(required(child(p, "topologyKey"), "can not be empty"))
        else:
            errs.extend(validate_label_name(child(p, "topologyKey"), key))
        when = str(c.get("whenUnsatisfiable") or "")
        if not when:
            errs.append(required(child(p, "whenUnsatisfiable"), "can not be empty"))
        elif when not in _WHEN_UNSATISFIABLE:
            errs.append(not_supported(child(p, "whenUnsatisfiable"), when, sorted(_WHEN_UNSATISFIABLE)))
        if c.get("labelSelector") is not None:
            errs.append(forbidden(child(p, "labelSelector"),
                                  "constraint must not define a selector, as they deduced for each pod"))
        for j in range(i):
            other = constraints[j]
            if other.get("topologyKey") == c.get("topologyKey") and other.get("whenUnsatisfiable") == c.get("whenUnsatisfiable"):
                errs.append(duplicate(index(cp, i), f"{{{key}, {when}}}"))
                break
    return errs


_NODE_OPS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")


def _validate_requirement(expr: Dict, p: str) -> list[FieldError]:
    """``labels.NewRequirement`` for one node selector expression."""
    op = str(expr.get("operator") or "")
    if op not in _NODE_OPS:
        return [not_supported(child(p, "operator"), op, _NODE_OPS)]
    errs: list[FieldError] = []
    key = str(expr.get("key") or "")
    msgs = qualified_name_errors(key)
    if msgs:
        errs.append(invalid(child(p, "key"), key, "; ".join(msgs)))
    values = [str(v) for v in expr.get("values") or []]
    vp = child(p, "values")
    if op in ("In", "NotIn") and not values:
        errs.append(invalid(vp, values, "for 'in', 'notin' operators, values set can't be empty"))
    elif op in ("Exists", "DoesNotExist") and values:
        errs.append(invalid(vp, values, "values set must be empty for exists and does not exist"))
    elif op in ("Gt", "Lt"):
        if len(values) != 1:
            errs.append(invalid(vp, values, "for 'Gt', 'Lt' operators, exactly one value is required"))
        for i, v in enumerate(values):
            if not re.fullmatch(r"[+-]?\d+", v) or not -(2**63) <= int(v) < 2**63:
                errs.append(invalid(index(vp, i), v, "for 'Gt', 'Lt' operators, the value must be an integer"))
    for i, v in enumerate(values):
        for m in label_value_errors(v):
            errs.append(invalid(index(vp, i), v, m))
    return errs


def validate_node_selector_term(term: Dict, path: str) -> list[FieldError]:
    """``newNodeSelectorTerm``'s parse errors (an empty term is skipped, not an error)."""
    errs: list[FieldError] = []
    for i, e in enumerate(term.get("matchExpressions") or []):
        errs.extend(_validate_requirement(e, index(child(path, "matchExpressions"), i)))
    for i, e in enumerate(term.get("matchFields") or []):
        p = index(child(path, "matchFields"), i)
        op = str(e.get("operator") or "")
        values = list(e.get("values") or [])
        if op in ("In", "NotIn"):
            if len(values) != 1:
                errs.append(invalid(child(p, "values"), values, "must have one element"))
        else:
            errs.append(not_supported(child(p, "operator"), op, ["In", "NotIn"]))
    return errs


def validate_node_affinity_args(args: Dict, path: str) -> list[FieldError]:
    added = args.get("addedAffinity")
    if added is None:
        return []
    errs: list[FieldError] = []
    req = added.get("requiredDuringSchedulingIgnoredDuringExecution")
    if req is not None:
        rp = child(child(path, "addedAffinity"), "requiredDuringSchedulingIgnoredDuringExecution")
        for i, t in enumerate(req.get("nodeSelectorTerms") or []):
            t = t or {}
            if t.get("matchExpressions") or t.get("matchFields"):
                errs.extend(validate_node_selector_term(t, index(child(rp, "nodeSelectorTerms"), i)))
    pp = child(child(path, "addedAffinity"), "preferredDuringSchedulingIgnoredDuringExecution")
    for i, t in enumerate(added.get("preferredDuringSchedulingIgnoredDuringExecution") or []):
        pref = t.get("preference") or {}
        if not t.get("weight") or not (pref.get("matchExpressions") or pref.get("matchFields")):
            continue
        errs.extend(validate_node_selector_term(pref, index(pp, i)))
    return errs


def validate_volume_binding_args(args: Dict, path: str, storage_capacity_scoring: bool = False) -> list[FieldError]:
    errs: list[FieldError] = []
    timeout = int(args.get("bindTimeoutSeconds") or 0)
    if timeout < 0:
        errs.append(invalid(child(path, "bindTimeoutSeconds"), timeout,
                            "invalid BindTimeoutSeconds, should not be a negative value"))
    shape = args.get("shape")
    if storage_capacity_scoring:
        errs.extend(validate_function_shape(shape, child(path, "shape")))
    elif shape is not None:
        # The StorageCapacityScoring gate is alpha (off) in v1.35: upstream refuses a shape
        # rather than silently ignore it.
        errs.append(invalid(child(path, "shape"), shape,
                            "unexpected field `shape`, remove it or turn on the feature gate StorageCapacityScoring"))
    return errs


def validate_dynamic_resources_args(args: Dict, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    ft = args.get("filterTimeout")
    if ft is not None and (parse_duration(str(ft)) or 0.0) < 0:
        errs.append(invalid(child(path, "filterTimeout"), ft, "must be zero or positive"))
    bt = args.get("bindingTimeout")
    if bt is not None and (parse_duration(str(bt)) or 0.0) < 1:
        errs.append(invalid(child(path, "bindingTimeout"), bt, "must be at least 1 second"))
    return errs


# Validators ``validatePluginConfig`` applies to every pluginConfig entry.  NodeResourcesFit
# is missing on purpose: upstream's table keys it as "NodeResourcesFitArgs", so its args are
# only checked when the plugin is instantiated (see ``FACTORY_VALIDATORS``).
CONFIG_VALIDATORS: dict[str, Callable[..., list[FieldError]]] = {
    "DefaultPreemption": validate_default_preemption_args,
    "InterPodAffinity": validate_inter_pod_affinity_args,
    "NodeAffinity": validate_node_affinity_args,
    "NodeResourcesBalancedAllocation": validate_balanced_allocation_args,
    "PodTopologySpread": validate_pod_topology_spread_args,
    "VolumeBinding": validate_volume_binding_args,
    "DynamicResources": validate_dynamic_resources_args,
}

# Validators the plugins' factories run (with a nil path) when a profile enables them.
FACTORY_VALIDATORS: dict[str, Callable[..., list[FieldError]]] = {
    "NodeResourcesFit": validate_node_resources_fit_args,
    "NodeResourcesBalancedAllocation": validate_balanced_allocation_args,
    "PodTopologySpread": validate_pod_topology_spread_args,
    "NodeAffinity": validate_node_affinity_args,
    "VolumeBinding": validate_volume_binding_args,
    "InterPodAffinity": validate_inter_pod_affinity_args,
    "DefaultPreemption": validate_default_preemption_args,
}

# Validators whose checks depend on a feature gate, which they take as a third argument:
# VolumeBinding's shape is valid only with StorageCapacityScoring.
ARGS_GATES = {"VolumeBinding": "StorageCapacityScoring"}


def validate_args(table: dict[str, Callable[..., list[FieldError]]], name: str, args: Dict, path: str,
                  version: Any = None) -> list[FieldError]:
    """The errors ``table``'s validator for plugin ``name`` finds in ``args`` (none without
    one), with the gate it depends on as ``version`` sets it."""
    validator = table.get(name)
    if validator is None:
        return []
    gate = ARGS_GATES.get(name)
    if gate is None:
        return validator(args, path)
    return validator(args, path, bool(version is not None and version.enabled(gate)))


# Plugins removed from the v1 API; naming them is a validation error rather than "does not exist".
INVALID_PLUGINS = ("AzureDiskLimits", "CinderLimits", "EBSLimits", "GCEPDLimits")


def _invalid_plugin_detail() -> str:
    return f"was invalid in version {go_quote(API_VERSION)} (KubeSchedulerConfiguration is version {go_quote(API_VERSION)})"


# --------------------------------------------------------------------------- configuration validation


def _validate_percentage(path: str, value: Any) -> list[FieldError]:
    if value is not None and (int(value) < 0 or int(value) > 100):
        return [invalid(path, int(value), "not in valid range [0-100]")]
    return []


def _validate_leader_election(le: Dict) -> list[FieldError]:
    """``ValidateLeaderElectionConfiguration`` plus the scheduler's leases-only rule."""
    errs: list[FieldError] = []
    if not le.get("leaderElect"):
        return errs
    p = "leaderElection"
    lease = parse_duration(str(le.get("leaseDuration") or "0")) or 0.0
    renew = parse_duration(str(le.get("renewDeadline") or "0")) or 0.0
    retry = parse_duration(str(le.get("retryPeriod") or "0")) or 0.0
    if lease <= 0:
        errs.append(invalid(child(p, "leaseDuration"), le.get("leaseDuration"), "must be greater than zero"))
    if renew <= 0:
        errs.append(invalid(child(p, "renewDeadline"), le.get("renewDeadline"), "must be greater than zero"))
    if retry <= 0:
        errs.append(invalid(child(p, "retryPeriod"), le.get("retryPeriod"), "must be greater than zero"))
    if lease <= renew:
        errs.append(invalid(child(p, "leaseDuration"), le.get("renewDeadline"),
                            "LeaseDuration must be greater than RenewDeadline"))
    if not le.get("resourceLock"):
        errs.append(invalid(child(p, "resourceLock"), le.get("resourceLock") or "", "resourceLock is required"))
    if not le.get("resourceName"):
        errs.append(invalid(child(p, "resourceName"), le.get("resourceName") or "", "resourceName is required"))
    if le.get("resourceLock") and le.get("resourceLock") != "leases":
        errs.append(invalid(child(p, "resourceLock"), le.get("resourceLock"), 'resourceLock value must be "leases"'))
    return errs


def _is_extended_resource_name(name: str) -> bool:
    native = "/" not in name or "kubernetes.io/" in name
    if native or name.startswith("requests."):
        return False
    return not qualified_name_errors("requests." + name)


def validate_extenders(extenders: list[Dict]) -> list[FieldError]:
    errs: list[FieldError] = []
    binders = 0
    seen: set[str] = set()
    for i, ext in enumerate(extenders):
        p = index("extenders", i)
        if ext.get("prioritizeVerb") and int(ext.get("weight") or 0) <= 0:
            errs.append(invalid(child(p, "weight"), int(ext.get("weight") or 0), "must have a positive weight applied to it"))
        if ext.get("bindVerb"):
            binders += 1
        for j, res in enumerate(ext.get("managedResources") or []):
            rp = child(index(child(p, "managedResources"), j), "name")
            name = str(res.get("name") or "")
            msgs = qualified_name_errors(name)
            if msgs:
                errs.extend(invalid(rp, name, m) for m in msgs)
            elif not _is_extended_resource_name(name):
                errs.append(invalid(rp, name, "is an invalid extended resource name"))
            if name in seen:
                errs.append(invalid(rp, name, "duplicate extender managed resource name"))
            seen.add(name)
    if binders > 1:
        errs.append(invalid("extenders", f"found {binders} extenders implementing bind", "only one extender can implement bind"))
    return errs


def validate_configuration(cfg: Dict, version: Any = None) -> list[FieldError]:
    """``ValidateKubeSchedulerConfiguration`` on the defaulted configuration."""
    errs: list[FieldError] = []
    errs.extend(_validate_leader_election(cfg.get("leaderElection") or {}))
    burst = (cfg.get("clientConnection") or {}).get("burst")
    if burst is not None and int(burst) < 0:
        errs.append(invalid("clientConnection.burst", int(burst), "must be non-negative"))
    if int(cfg.get("parallelism") or 0) <= 0:
        errs.append(invalid("parallelism", int(cfg.get("parallelism") or 0), "should be an integer value greater than zero"))
    profiles: list[Dict] = cfg.get("profiles") or []
    if not profiles:
        errs.append(required("profiles"))
    else:
        seen: dict[str, int] = {}
        for i, prof in enumerate(profiles):
            p = index("profiles", i)
            errs.extend(validate_profile(p, prof, version))
            name = prof.get("schedulerName") or ""
            if name in seen:
                errs.append(duplicate(child(p, "schedulerName"), name))
            seen[name] = i
        errs.extend(_validate_common_queue_sort(profiles))
    errs.extend(_validate_percentage("percentageOfNodesToScore", cfg.get("percentageOfNodesToScore")))
    initial = int(cfg.get("podInitialBackoffSeconds") or 0)
    if initial <= 0:
        errs.append(invalid("podInitialBackoffSeconds", initial, "must be greater than 0"))
    if int(cfg.get("podMaxBackoffSeconds") or 0) < initial:
        errs.append(invalid("podMaxBackoffSeconds", int(cfg.get("podMaxBackoffSeconds") or 0),
                            "must be greater than or equal to PodInitialBackoffSeconds"))
    errs.extend(validate_extenders(cfg.get("extenders") or []))
    return errs


def validate_profile(path: str, prof: Dict, version: Any = None) -> list[FieldError]:
    errs: list[FieldError] = []
    if not prof.get("schedulerName"):
        errs.append(required(child(path, "schedulerName")))
    errs.extend(_validate_percentage(child(path, "percentageOfNodesToScore"), prof.get("percentageOfNodesToScore")))
    plugins = prof.get("plugins") or {}
    # multiPoint is not checked for removed plugins here (upstream doesn't either): naming
    # one there fails later, when the framework finds no such plugin.
    for point in PLUGIN_SET_FIELDS:
        if point == "multiPoint":
            continue
        for i, pl in enumerate((plugins.get(point) or {}).get("enabled") or []):
            if pl.get("name") in INVALID_PLUGINS:
                errs.append(invalid(index(child(child(child(path, "plugins"), point), "enabled"), i), pl.get("name"),
                                    _invalid_plugin_detail()))
    seen: set[str] = set()
    for i, pc in enumerate(prof.get("pluginConfig") or []):
        p = index(child(path, "pluginConfig"), i)
        name = str(pc.get("name") or "")
        if name in seen:
            errs.append(duplicate(p, name))
        seen.add(name)
        if name in INVALID_PLUGINS:
            errs.append(invalid(p, name, _invalid_plugin_detail()))
            continue
        errs.extend(validate_args(CONFIG_VALIDATORS, name, pc.get("args") or {}, child(p, "args"), version))
    return errs


def _validate_common_queue_sort(profiles: list[Dict]) -> list[FieldError]:
    """Every profile must sort the one shared queue the same way."""
    errs: list[FieldError] = []
    first = profiles[0].get("plugins") or {}
    canon = first.get("queueSort") or {}
    enabled = canon.get("enabled") or []
    qs_name = enabled[0].get("name") if enabled else ""
    if len(enabled) > 1:
        errs.append(invalid("profiles[0].plugins.queueSort.Enabled", len(enabled), "only one queue sort plugin can be enabled"))
    qs_args = None
    for pc in profiles[0].get("pluginConfig") or []:
        if qs_name and pc.get("name") == qs_name:
            qs_args = pc.get("args")
    for i in range(1, len(profiles)):
        curr = (profiles[i].get("plugins") or {}).get("queueSort") or {}
        if _plugin_set_key(curr) != _plugin_set_key(canon):
            errs.append(invalid(child(index("profiles", i), "plugins.queueSort"), curr, "must be the same for all profiles"))
        for pc in profiles[i].get("pluginConfig") or []:
            if pc.get("name") == qs_name and pc.get("args") != qs_args:
                errs.append(invalid(child(index("profiles", i), "pluginConfig.args"), pc.get("args"),
                                    "queueSort must be the same for all profiles"))
    return errs


def _plugin_set_key(ps: Dict) -> tuple[tuple[tuple[str, int], ...], tuple[str, ...]]:
    return (
        tuple((str(p.get("name")), int(p.get("weight") or 0)) for p in ps.get("enabled") or []),
        tuple(str(p.get("name")) for p in ps.get("disabled") or []),
    )

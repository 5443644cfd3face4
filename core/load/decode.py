"""The API server's decoding of a manifest: a value of the wrong JSON type is refused.

kube-apiserver decodes a request body with (a fork of) Go's encoding/json before it
validates anything, so ``replicas: "three"`` or ``labels: {version: 1.0}`` never reaches
validation: the request fails with ``Deployment in version "v1" cannot be handled as a
Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas
of type int32``. This module knows the Go types of the fields a pod-bearing object carries
(the ones kschedx reads and validates; a field it does not list is not checked, as it is
not read) and reports the first mismatch in those words. JSON null decodes to the zero
value, so null is never a decoding error.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kschedx.core.quantity import QuantityError, parse_quantity

_QUANTITY_REGEX_MSG = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"


@dataclass
class Struct:
    name: str  # the Go type's name, e.g. "PodSpec"
    pkg: str = "v1"
    fields: dict[str, Type] = field(default_factory=dict)

    @property
    def go(self) -> str:
        return f"{self.pkg}.{self.name}"


@dataclass(frozen=True)
class ListOf:
    item: Type


@dataclass(frozen=True)
class MapOf:
    value: Type
    go: str = "map[string]string"


# Scalars by Go type name; "quantity" is resource.Quantity, "intstr" intstr.IntOrString.
Type = str | Struct | ListOf | MapOf

_INT_RANGE = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}


def _s(go_name: str, /, **fields: Type) -> Struct:
    return Struct(go_name, "v1", dict(fields))


STR_MAP = MapOf("string")
RESOURCE_LIST = MapOf("quantity", "v1.ResourceList")
LABEL_SELECTOR = _s(
    "LabelSelector",
    matchLabels=STR_MAP,
    matchExpressions=ListOf(_s("LabelSelectorRequirement", key="string", operator="string", values=ListOf("string"))),
)
OBJECT_META = _s(
    "ObjectMeta", name="string", generateName="string", namespace="string", uid="string",
    labels=STR_MAP, annotations=STR_MAP,
)
_NODE_SELECTOR_REQ = _s("NodeSelectorRequirement", key="string", operator="string", values=ListOf("string"))
_NODE_SELECTOR_TERM = _s("NodeSelectorTerm", matchExpressions=ListOf(_NODE_SELECTOR_REQ),
                         matchFields=ListOf(_NODE_SELECTOR_REQ))
_POD_AFFINITY_TERM = _s(
    "PodAffinityTerm", labelSelector=LABEL_SELECTOR, namespaces=ListOf("string"), topologyKey="string",
    namespaceSelector=LABEL_SELECTOR, matchLabelKeys=ListOf("string"), mismatchLabelKeys=ListOf("string"),
)
_WEIGHTED_TERM = _s("WeightedPodAffinityTerm", weight="int32", podAffinityTerm=_POD_AFFINITY_TERM)
_POD_AFFINITY_FIELDS: dict[str, Type] = {
    "requiredDuringSchedulingIgnoredDuringExecution": ListOf(_POD_AFFINITY_TERM),
    "preferredDuringSchedulingIgnoredDuringExecution": ListOf(_WEIGHTED_TERM),
}
AFFINITY = _s(
    "Affinity",
    nodeAffinity=_s(
        "NodeAffinity",
        requiredDuringSchedulingIgnoredDuringExecution=_s("NodeSelector", nodeSelectorTerms=ListOf(_NODE_SELECTOR_TERM)),
        preferredDuringSchedulingIgnoredDuringExecution=ListOf(
            _s("PreferredSchedulingTerm", weight="int32", preference=_NODE_SELECTOR_TERM)
        ),
    ),
    podAffinity=Struct("PodAffinity", "v1", dict(_POD_AFFINITY_FIELDS)),
    podAntiAffinity=Struct("PodAntiAffinity", "v1", dict(_POD_AFFINITY_FIELDS)),
)
RESOURCES = _s(
    "ResourceRequirements", limits=RESOURCE_LIST, requests=RESOURCE_LIST,
    claims=ListOf(_s("ResourceClaim", name="string", request="string")),
)
CONTAINER = _s(
    "Container",
    name="string", image="string", imagePullPolicy="string", restartPolicy="string",
    command=ListOf("string"), args=ListOf("string"), workingDir="string",
    terminationMessagePolicy="string", stdin="bool", tty="bool",
    ports=ListOf(_s("ContainerPort", name="string", hostPort="int32", containerPort="int32", protocol="string",
                    hostIP="string")),
    env=ListOf(_s("EnvVar", name="string", value="string")),
    resources=RESOURCES,
    volumeMounts=ListOf(_s("VolumeMount", name="string", readOnly="bool", mountPath="string", subPath="string")),
)
POD_SPEC = _s(
    "PodSpec",
    volumes=ListOf(_s("Volume", name="string")),
    initContainers=ListOf(CONTAINER),
    containers=ListOf(CONTAINER),
    restartPolicy="string",
    terminationGracePeriodSeconds="int64",
    activeDeadlineSeconds="int64",
    dnsPolicy="string",
    nodeSelector=STR_MAP,
    serviceAccountName="string",
    nodeName="string",
    hostNetwork="bool", hostPID="bool", hostIPC="bool",
    hostname="string", subdomain="string",
    affinity=AFFINITY,
    schedulerName="string",
    tolerations=ListOf(_s("Toleration", key="string", operator="string", value="string", effect="string",
                          tolerationSeconds="int64")),
    priorityClassName="string",
    priority="int32",
    preemptionPolicy="string",
    overhead=RESOURCE_LIST,
    topologySpreadConstraints=ListOf(_s(
        "TopologySpreadConstraint", maxSkew="int32", topologyKey="string", whenUnsatisfiable="string",
        labelSelector=LABEL_SELECTOR, minDomains="int32", nodeAffinityPolicy="string", nodeTaintsPolicy="string",
        matchLabelKeys=ListOf("string"),
    )),
    runtimeClassName="string",
    schedulingGates=ListOf(_s("PodSchedulingGate", name="string")),
    resourceClaims=ListOf(_s("PodResourceClaim", name="string", resourceClaimName="string",
                             resourceClaimTemplateName="string")),
    resources=RESOURCES,
)
POD_TEMPLATE_SPEC = _s("PodTemplateSpec", metadata=OBJECT_META, spec=POD_SPEC)
_JOB_SPEC_FIELDS: dict[str, Type] = {
    "parallelism": "int32", "completions": "int32", "activeDeadlineSeconds": "int64", "backoffLimit": "int32",
    "selector": LABEL_SELECTOR, "manualSelector": "bool", "template": POD_TEMPLATE_SPEC, "completionMode": "string",
}
_JOB_SPEC = Struct("JobSpec", "v1", dict(_JOB_SPEC_FIELDS))
_ROLLING = _s("RollingUpdateDeployment", maxUnavailable="intstr", maxSurge="intstr")

SPECS: dict[str, Type] = {
    "Pod": POD_SPEC,
    "Deployment": _s(
        "DeploymentSpec", replicas="int32", selector=LABEL_SELECTOR, template=POD_TEMPLATE_SPEC,
        strategy=_s("DeploymentStrategy", type="string", rollingUpdate=_ROLLING),
        minReadySeconds="int32", revisionHistoryLimit="int32", paused="bool", progressDeadlineSeconds="int32",
    ),
    "ReplicaSet": _s("ReplicaSetSpec", replicas="int32", minReadySeconds="int32", selector=LABEL_SELECTOR,
                     template=POD_TEMPLATE_SPEC),
    "ReplicationController": _s("ReplicationControllerSpec", replicas="int32", minReadySeconds="int32",
                                selector=STR_MAP, template=POD_TEMPLATE_SPEC),
    "StatefulSet": _s(
        "StatefulSetSpec", replicas="int32", selector=LABEL_SELECTOR, template=POD_TEMPLATE_SPEC,
        serviceName="string", podManagementPolicy="string", minReadySeconds="int32",
        updateStrategy=_s("StatefulSetUpdateStrategy", type="string",
                          rollingUpdate=_s("RollingUpdateStatefulSetStrategy", partition="int32",
                                           maxUnavailable="intstr")),
        volumeClaimTemplates=ListOf(_s("PersistentVolumeClaim", metadata=OBJECT_META)),
    ),
    "DaemonSet": _s(
        "DaemonSetSpec", selector=LABEL_SELECTOR, template=POD_TEMPLATE_SPEC, minReadySeconds="int32",
        updateStrategy=_s("DaemonSetUpdateStrategy", type="string",
                          rollingUpdate=_s("RollingUpdateDaemonSet", maxUnavailable="intstr", maxSurge="intstr")),
    ),
    "Job": _JOB_SPEC,
    "CronJob": _s(
        "CronJobSpec", schedule="string", timeZone="string", startingDeadlineSeconds="int64",
        concurrencyPolicy="string", suspend="bool",
        jobTemplate=_s("JobTemplateSpec", metadata=OBJECT_META, spec=_JOB_SPEC),
        successfulJobsHistoryLimit="int32", failedJobsHistoryLimit="int32",
    ),
}


class DecodeError(Exception):
    """The first value the API server's JSON decoder would refuse; ``path`` is where it is
    (keys and list indexes), for finding its line."""

    def __init__(self, message: str, path: tuple[str | int, ...]) -> None:
        super().__init__(message)
        self.message = message
        self.path = path


def _json_kind(v: Any) -> str:
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    if isinstance(v, dict):
        return "object"
    return "string"  # dates and the like arrive as JSON strings


def _go_type(t: Type) -> str:
    if isinstance(t, Struct):
        return t.go
    if isinstance(t, ListOf):
        return "[]" + _go_type(t.item)
    if isinstance(t, MapOf):
        return t.go
    return {"quantity": "resource.Quantity", "intstr": "intstr.IntOrString"}.get(t, t)


def decode_check(obj: dict[str, Any]) -> None:
    """Raise DecodeError for the first field of ``obj`` the API server could not decode."""
    kind = str(obj.get("kind") or "")
    top = Struct(kind, "v1", {"metadata": OBJECT_META})
    spec = SPECS.get(kind)
    if spec is not None:
        top.fields["spec"] = spec
    if kind == "PodTemplate":
        top.fields["template"] = POD_TEMPLATE_SPEC
    _check_struct(obj, top, (), ())


def _fail(v: Any, struct: Struct, names: tuple[str, ...], t: Type, path: tuple[str | int, ...],
          value: str | None = None) -> None:
    what = value or _json_kind(v)
    raise DecodeError(
        f"json: cannot unmarshal {what} into Go struct field {struct.name}.{'.'.join(names)} of type {_go_type(t)}",
        path,
    )


def _check_struct(v: dict[str, Any], st: Struct, names: tuple[str, ...], path: tuple[str | int, ...]) -> None:
    for key, child in v.items():
        t = st.fields.get(key) if isinstance(key, str) else None
        if t is None or child is None:
            continue
        _check(child, t, st, (*names, key), (*path, key))


def _check(v: Any, t: Type, owner: Struct, names: tuple[str, ...], path: tuple[str | int, ...]) -> None:
    """``v`` (not None) against type ``t`` of field ``names`` of struct ``owner``."""
    if isinstance(t, Struct):
        if not isinstance(v, dict):
            _fail(v, owner, names, t, path)
        _check_struct(v, t, names, path)
    elif isinstance(t, ListOf):
        if not isinstance(v, list):
            _fail(v, owner, names, t, path)
        for i, item in enumerate(v):
            if item is not None:
                _check(item, t.item, owner, names, (*path, i))
    elif isinstance(t, MapOf):
        if not isinstance(v, dict):
            _fail(v, owner, names, t, path)
        for k, item in v.items():
            if item is not None:
                _check(item, t.value, owner, names, (*path, k))
    elif t == "string":
        if not isinstance(v, str):
            _fail(v, owner, names, t, path)
    elif t == "bool":
        if not isinstance(v, bool):
            _fail(v, owner, names, t, path)
    elif t in _INT_RANGE:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            _fail(v, owner, names, t, path)
        lo, hi = _INT_RANGE[t]
        if isinstance(v, float) or not lo <= v <= hi:
            _fail(v, owner, names, t, path, f"number {v}")
    elif t == "quantity":
        # resource.Quantity decodes a JSON string or number by parsing its text; anything
        # else fails the parse, and that error ends the decoding.
        if isinstance(v, bool) or not isinstance(v, (str, int, float)):
            raise DecodeError(_QUANTITY_REGEX_MSG, path)
        try:
            parse_quantity(v)
        except QuantityError:
            raise DecodeError(_QUANTITY_REGEX_MSG, path) from None
    elif t == "intstr":
        if isinstance(v, bool) or not isinstance(v, (str, int)):
            raise DecodeError(f"json: cannot unmarshal {_json_kind(v)} into Go value of type int32", path)

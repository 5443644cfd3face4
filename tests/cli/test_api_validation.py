"""Issue 16, class 11: input the API server would reject is exit 2, in the API server's words.

Each case names the upstream check it reproduces (v1.36.3 tree: pkg/apis/core/validation,
pkg/apis/apps/validation, pkg/apis/batch/validation, apimachinery's metav1 validation and
field errors; the decoding errors are encoding/json's as kube-apiserver returns them).
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from kschedx.cli.app import app
from kschedx.core.load.apivalidation import quantity_string

runner = CliRunner()

CLUSTER = """\
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata:
    name: n1
    labels: {kubernetes.io/hostname: n1, topology.kubernetes.io/zone: a}
  status:
    allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
- apiVersion: v1
  kind: Node
  metadata:
    name: n2
    labels: {kubernetes.io/hostname: n2, topology.kubernetes.io/zone: b}
  status:
    allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
"""

POD: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "probe", "labels": {"app": "probe"}},
    "spec": {
        "containers": [{
            "name": "app", "image": "nginx:1.27",
            "ports": [{"containerPort": 80, "name": "http"}],
            "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}, "limits": {"cpu": "1"}},
        }],
        "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "web", "effect": "NoSchedule"}],
        "topologySpreadConstraints": [{
            "maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule",
            "labelSelector": {"matchLabels": {"app": "probe"}},
        }],
        "affinity": {
            "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
                "topologyKey": "kubernetes.io/hostname",
                "labelSelector": {"matchExpressions": [{"key": "app", "operator": "In", "values": ["probe"]}]},
            }]},
            "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                {"matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["a", "b"]}]},
            ]}},
        },
        "nodeSelector": {"kubernetes.io/hostname": "n1"},
        "initContainers": [{"name": "init", "image": "busybox", "restartPolicy": "Always",
                            "ports": [{"containerPort": 9000, "hostPort": 9000}]}],
        "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "data"}},
                    {"name": "scratch", "emptyDir": {"sizeLimit": "1Gi"}}],
        "schedulingGates": [],
        "priorityClassName": "",
        "hostNetwork": False,
        "overhead": {"cpu": "10m"},
    },
}

DEPLOYMENT: dict[str, Any] = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web"},
    "spec": {
        "replicas": 2,
        "selector": {"matchLabels": {"app": "web"}},
        "template": {
            "metadata": {"labels": {"app": "web"}},
            "spec": {"containers": [{"name": "app", "image": "nginx", "resources": {"requests": {"cpu": "100m"}}}]},
        },
    },
}

JOB: dict[str, Any] = {
    "apiVersion": "batch/v1",
    "kind": "Job",
    "metadata": {"name": "batch"},
    "spec": {
        "parallelism": 2,
        "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "app", "image": "busybox"}]}},
    },
}


def _explain(tmp_path: Path, manifest: Any, name: str = "m.yaml") -> Any:
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(CLUSTER)
    path = tmp_path / name
    path.write_text(manifest if isinstance(manifest, str) else yaml.safe_dump(manifest, sort_keys=False))
    return runner.invoke(app, ["explain", str(path), "--cluster", str(cluster)]), str(path)


def _set(obj: dict[str, Any], where: str | tuple[str | int, ...], value: Any) -> dict[str, Any]:
    """A copy of ``obj`` with the field at ``where`` (``a.b[0].c``, or the keys) set to
    ``value``; an index one past a list's end appends."""
    out = copy.deepcopy(obj)
    keys: list[str | int] = (
        [int(i) if i else k for k, i in re.findall(r"([^.\[\]]+)|\[(\d+)\]", where)]
        if isinstance(where, str) else list(where)
    )
    cur: Any = out
    for k in keys[:-1]:
        cur = cur[k]
    if isinstance(cur, list) and keys[-1] == len(cur):
        cur.append(value)
    else:
        cur[keys[-1]] = value
    return out


_PYTHON_WORDS = ("Traceback", "Error:", "NoneType", "AttributeError", "TypeError", "ValueError", "KeyError",
                 "IndexError", "object has no attribute", "could not interpret the input")


def _assert_input_error(res: Any, *needles: str) -> str:
    assert res.exit_code == 2, (res.exit_code, res.output)
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    for word in _PYTHON_WORDS:
        assert word not in lines[0], lines[0]
    for n in needles:
        assert n in lines[0], lines[0]
    return str(lines[0])


def test_valid_manifests_are_accepted(tmp_path: Path) -> None:
    for i, m in enumerate((POD, DEPLOYMENT, JOB)):
        res, _ = _explain(tmp_path, m, f"ok{i}.yaml")
        assert res.exit_code in (0, 1), res.output


CASES = [
    # ValidateResourceQuantityValue -> ValidateNonnegativeQuantity; the path takes the resource as a key.
    ("negative-cpu", POD, "spec.containers[0].resources.requests.cpu", "-1",
     'Pod "probe" is invalid: spec.containers[0].resources.requests[cpu]: Invalid value: "-1": '
     "must be greater than or equal to 0"),
    # The value as resource.Quantity.String() prints it.
    ("negative-cpu-canonical", POD, "spec.containers[0].resources.requests.cpu", "-0.5",
     'requests[cpu]: Invalid value: "-500m": must be greater than or equal to 0'),
    # validateResourceRequirements: a request above its limit.
    ("request-above-limit", POD, "spec.containers[0].resources.requests.cpu", "2",
     'spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1'),
    # validateContainerPorts / IsValidPortNum.
    ("container-port-range", POD, "spec.containers[0].ports[0].containerPort", 70000,
     "spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive"),
    ("container-port-missing", POD, "spec.containers[0].ports[0].containerPort", 0,
     "spec.containers[0].ports[0].containerPort: Required value"),
    ("host-port-negative", POD, "spec.containers[0].ports[0].hostPort", -5,
     "spec.containers[0].ports[0].hostPort: Invalid value: -5: must be between 1 and 65535, inclusive"),
    ("port-protocol", POD, "spec.containers[0].ports[0].protocol", "HTTP",
     'spec.containers[0].ports[0].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"'),
    ("port-name", POD, "spec.containers[0].ports[0].name", "HTTP_PORT",
     'spec.containers[0].ports[0].name: Invalid value: "HTTP_PORT": must contain only alpha-numeric characters'),
    # validateTopologySpreadConstraints: maxSkew through ValidatePositiveField, whenUnsatisfiable NotSupported.
    ("max-skew-zero", POD, "spec.topologySpreadConstraints[0].maxSkew", 0,
     "spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero"),
    ("when-unsatisfiable", POD, "spec.topologySpreadConstraints[0].whenUnsatisfiable", "Never",
     'spec.topologySpreadConstraints[0].whenUnsatisfiable: Unsupported value: "Never": supported values: '
     '"DoNotSchedule", "ScheduleAnyway"'),
    ("spread-topology-key", POD, "spec.topologySpreadConstraints[0].topologyKey", "",
     "spec.topologySpreadConstraints[0].topologyKey: Required value: can not be empty"),
    # metav1 ValidateLabels in metadata.labels.
    ("label-value", POD, "metadata.labels.app", "bad value!",
     'metadata.labels: Invalid value: "bad value!": a valid label must be an empty string or consist of '
     "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"),
    ("label-key", POD, "metadata.labels", {"-app": "x"}, 'metadata.labels: Invalid value: "-app": name part'),
    # ValidateLabelSelectorRequirement in a pod anti-affinity term (AllowInvalidLabelValueInSelector=false on create).
    ("anti-affinity-selector-value", POD,
     "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector."
     "matchExpressions[0].values[0]", "a b",
     "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector."
     'matchExpressions[0].values[0]: Invalid value: "a b": a valid label must be'),
    ("anti-affinity-operator", POD,
     "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector."
     "matchExpressions[0].operator", "Equals",
     'matchExpressions[0].operator: Invalid value: "Equals": not a valid selector operator'),
    # validatePodAffinityTerm: topologyKey required, and a label name.
    ("affinity-topology-key-empty", POD,
     "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey", "",
     "requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Required value: can not be empty"),
    ("affinity-topology-key-invalid", POD,
     "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey", "a/b/c",
     'requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Invalid value: "a/b/c": a valid label key'),
    # ValidateNodeSelectorRequirement: operator and values count (values themselves are not label-checked).
    ("node-affinity-operator", POD,
     "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]."
     "matchExpressions[0].operator", "Is",
     'nodeSelectorTerms[0].matchExpressions[0].operator: Invalid value: "Is": not a valid selector operator'),
    ("node-affinity-no-terms", POD,
     "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms", [],
     "nodeSelectorTerms: Required value: must have at least one node selector term"),
    # ValidateTolerations.
    ("toleration-operator", POD, "spec.tolerations[0].operator", "Foo",
     'spec.tolerations[0].operator: Unsupported value: "Foo": supported values: "Equal", "Exists"'),
    ("toleration-effect", POD, "spec.tolerations[0].effect", "NoEvict",
     'spec.tolerations[0].effect: Unsupported value: "NoEvict": supported values: "NoSchedule", '
     '"PreferNoSchedule", "NoExecute"'),
    ("toleration-exists-value", POD, "spec.tolerations[0].operator", "Exists",
     "spec.tolerations[0].operator: Invalid value: \"web\": value must be empty when `operator` is 'Exists'"),
    # validateContainerCommon: name required and a DNS-1123 label; image required.
    ("container-name-empty", POD, "spec.containers[0].name", "", "spec.containers[0].name: Required value"),
    ("container-name-invalid", POD, "spec.containers[0].name", "App_1",
     'spec.containers[0].name: Invalid value: "App_1": a lowercase RFC 1123 label must consist of'),
    ("image-missing", POD, "spec.containers[0].image", "", "spec.containers[0].image: Required value"),
    # validateContainers: names unique.
    ("duplicate-container", POD, "spec.containers[1]", {"name": "app", "image": "busybox"},
     'spec.containers[1].name: Duplicate value: "app"'),
    # ValidateObjectMeta with ValidatePodName (DNS subdomain).
    ("pod-name", POD, "metadata.name", "Web_1",
     'Pod "Web_1" is invalid: metadata.name: Invalid value: "Web_1": a lowercase RFC 1123 subdomain must consist of'),
    # Extended resources cannot be overcommitted (IsOvercommitAllowed).
    ("extended-without-limit", POD, "spec.containers[0].resources.requests", {"example.com/gpu": 1},
     "spec.containers[0].resources.limits: Required value: Limit must be set for non overcommitable resources"),
    ("extended-fraction", POD, "spec.containers[0].resources.limits", {"example.com/gpu": "0.5"},
     'spec.containers[0].resources.limits[example.com/gpu]: Invalid value: "500m": must be an integer'),
    ("unknown-resource", POD, "spec.containers[0].resources.requests", {"gpu": 1},
     'requests[gpu]: Invalid value: "gpu": must be a standard resource type or fully qualified'),
    # validateContainerRestartPolicy (ContainerRestartRules is beta and on in v1.35).
    ("container-restart-policy", POD, "spec.containers[0].restartPolicy", "Sometimes",
     'spec.containers[0].restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "Never", '
     '"OnFailure"'),
    # validatePodResources / validatePodResourceConsistency (PodLevelResources is beta and on in v1.35).
    ("pod-level-below-containers", POD, "spec.resources", {"requests": {"cpu": "50m"}},
     'spec.resources.requests[cpu]: Invalid value: "50m": must be greater than or equal to aggregate container '
     "requests of 100m"),
    ("pod-level-unsupported", POD, "spec.resources", {"requests": {"ephemeral-storage": "1Gi"}},
     'spec.resources.requests[ephemeral-storage]: Unsupported value: "ephemeral-storage": supported values: "cpu", '
     '"hugepages-", "memory"'),
    # ValidateVolumes / validateVolumeSource.
    ("volume-two-types", POD, "spec.volumes[1]", {"name": "scratch", "emptyDir": {}, "hostPath": {"path": "/x"}},
     "spec.volumes[1].hostPath: Forbidden: may not specify more than 1 volume type"),
    ("volume-claim-name", POD, "spec.volumes[0].persistentVolumeClaim", {"readOnly": True},
     "spec.volumes[0].persistentVolumeClaim.claimName: Required value"),
    ("volume-mount-unknown", POD, "spec.containers[0].volumeMounts", [{"name": "cache", "mountPath": "/cache"}],
     'spec.containers[0].volumeMounts[0].name: Not found: "cache"'),
    # validateProbe / validateHandler / validateLivenessProbe.
    ("probe-without-handler", POD, "spec.containers[0].livenessProbe", {"periodSeconds": 5},
     "spec.containers[0].livenessProbe: Required value: must specify a handler type"),
    ("probe-port-missing", POD, "spec.containers[0].readinessProbe", {"httpGet": {"path": "/healthz"}},
     "spec.containers[0].readinessProbe.httpGet.port: Invalid value: 0: must be between 1 and 65535, inclusive"),
    ("liveness-success-threshold", POD, "spec.containers[0].livenessProbe",
     {"tcpSocket": {"port": 80}, "successThreshold": 3},
     "spec.containers[0].livenessProbe.successThreshold: Invalid value: 3: must be 1"),
    ("init-container-probe", POD, "spec.initContainers[0]",
     {"name": "init", "image": "busybox", "livenessProbe": {"exec": {"command": ["true"]}}},
     "spec.initContainers[0].livenessProbe: Forbidden: may not be set for init containers without restartPolicy=Always"),
    # validateEnvVarValueFrom.
    ("env-value-and-value-from", POD, "spec.containers[0].env",
     [{"name": "A", "value": "x", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}],
     'spec.containers[0].env[0].valueFrom: Invalid value: "": may not be specified when `value` is not empty'),
    # apps validation: ValidateDeploymentSpec.
    ("deployment-replicas", DEPLOYMENT, "spec.replicas", -1,
     'Deployment "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0'),
    ("deployment-selector-mismatch", DEPLOYMENT, "spec.template.metadata.labels", {"app": "other"},
     'spec.template.metadata.labels: Invalid value: {"app":"other"}: `selector` does not match template `labels`'),
    ("deployment-template-metadata-null", DEPLOYMENT, "spec.template.metadata", None,
     "spec.template.metadata.labels: Invalid value: null: `selector` does not match template `labels`"),
    ("deployment-restart-policy", DEPLOYMENT, "spec.template.spec.restartPolicy", "Never",
     'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"'),
    ("deployment-no-selector", DEPLOYMENT, "spec.selector", None, "spec.selector: Required value"),
    # batch validation: validateJobSpec.
    ("job-parallelism", JOB, "spec.parallelism", -2,
     'Job "batch" is invalid: spec.parallelism: Invalid value: -2: must be greater than or equal to 0'),
    ("job-restart-policy", JOB, "spec.template.spec.restartPolicy", "Always",
     'spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"'),
    # kube-apiserver's JSON decoding (encoding/json's UnmarshalTypeError) before any validation.
    ("replicas-string", DEPLOYMENT, "spec.replicas", "three",
     'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct '
     "field DeploymentSpec.spec.replicas of type int32"),
    ("replicas-fraction", DEPLOYMENT, "spec.replicas", 2.5,
     "json: cannot unmarshal number 2.5 into Go struct field DeploymentSpec.spec.replicas of type int32"),
    ("label-number", POD, "metadata.labels.version", 1.0,
     "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string"),
    ("containers-string", POD, "spec.containers", "nope",
     "json: cannot unmarshal string into Go struct field PodSpec.spec.containers of type []v1.Container"),
    ("container-port-string", POD, "spec.containers[0].ports[0].containerPort", "80",
     "json: cannot unmarshal string into Go struct field ContainerPort.spec.containers.ports.containerPort "
     "of type int32"),
    ("port-protocol-number", POD, "spec.containers[0].ports[0].protocol", 6,
     "json: cannot unmarshal number into Go struct field ContainerPort.spec.containers.ports.protocol of type "
     "v1.Protocol"),
    # Strict field validation (kubectl's default --validate=strict): unknown fields, with their indexes.
    ("unknown-field", POD, "spec.containers[0].resource", {"requests": {"cpu": 1}},
     'Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field '
     '"spec.containers[0].resource"'),
    ("unknown-field-deployment", DEPLOYMENT, "spec.template.spec.toleration", [],
     'strict decoding error: unknown field "spec.template.spec.toleration"'),
    ("quantity-bool", POD, "spec.containers[0].resources.requests.cpu", True,
     'Pod in version "v1" cannot be handled as a Pod: quantities must match the regular expression'),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_api_server_rejection(tmp_path: Path, case: tuple[str, dict[str, Any], str, Any, str]) -> None:
    _, base, field, value, needle = case
    manifest = _set(base, field, value)
    res, path = _explain(tmp_path, manifest)
    line = _assert_input_error(res, needle)
    # The file and the YAML line of the field (or of the nearest part of its path that exists).
    m = re.match(rf"error: {re.escape(path)}:(\d+): ", line)
    assert m, line
    text = Path(path).read_text().splitlines()
    assert 1 <= int(m.group(1)) <= len(text)
    # The line names the last element of the field the error reports.
    named = (re.search(r"Go struct field \S+\.(\w+) of type", line) or re.search(r"is invalid: \[?(\S+?): ", line)
             or re.search(r'unknown field "([^"]+)"', line))
    if named and value is not None:
        # (a missing field is located at the nearest part of its path that exists)
        parts = [p for p in re.findall(r"([^.\[\]]+)", named.group(1)) if not p.isdigit()][-2:]
        own = re.findall(r"([^.\[\]]+)", field)[-1]
        at = text[int(m.group(1)) - 1]
        item = re.search(r"\[\d+\]$", named.group(1)) is not None  # a list item: its own line
        assert item or any(p in at for p in [*parts, own]), (line, text)


def test_error_line_points_at_the_field(tmp_path: Path) -> None:
    manifest = """\
apiVersion: v1
kind: Pod
metadata:
  name: probe
spec:
  containers:
  - name: app
    image: nginx
    resources:
      requests:
        memory: 1Gi
        cpu: "-1"
"""
    res, path = _explain(tmp_path, manifest)
    _assert_input_error(res, f"{path}:12: ", 'requests[cpu]: Invalid value: "-1"')


def test_several_errors_are_listed_as_the_api_server_lists_them(tmp_path: Path) -> None:
    manifest = _set(_set(DEPLOYMENT, "spec.replicas", -1), "spec.template.spec.containers[0].name", "")
    res, _ = _explain(tmp_path, manifest)
    _assert_input_error(res, 'Deployment "web" is invalid: [spec.replicas: Invalid value: -1: must be greater than or '
                             "equal to 0, spec.template.spec.containers[0].name: Required value]")


def test_node_affinity_values_are_not_label_checked(tmp_path: Path) -> None:
    # SPEC §1: the API server accepts them; NodeAffinity then matches no node (exit 1, not 2).
    manifest = _set(POD, "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
                         "nodeSelectorTerms[0].matchExpressions[0].values[0]", "not a label value!")
    del manifest["spec"]["volumes"]  # no claim to look for
    res, _ = _explain(tmp_path, manifest)
    assert res.exit_code == 1, res.output
    assert "didn't match Pod's node affinity/selector" in " ".join(res.stdout.split())


def test_statefulset_claim_template_volumes_count_as_volumes(tmp_path: Path) -> None:
    sts = {
        "apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db"},
        "spec": {
            "selector": {"matchLabels": {"app": "db"}}, "serviceName": "db",
            "template": {"metadata": {"labels": {"app": "db"}}, "spec": {"containers": [
                {"name": "db", "image": "postgres", "volumeMounts": [{"name": "data", "mountPath": "/data"}]},
            ]}},
            "volumeClaimTemplates": [{"metadata": {"name": "data"},
                                      "spec": {"accessModes": ["ReadWriteOnce"],
                                               "resources": {"requests": {"storage": "1Gi"}}}}],
        },
    }
    res, _ = _explain(tmp_path, sts)
    assert res.exit_code in (0, 1), res.output
    bad = _set(sts, "spec.template.spec.containers[0].volumeMounts[0].name", "logs")
    res, _ = _explain(tmp_path, bad, "bad.yaml")
    _assert_input_error(res, 'spec.template.spec.containers[0].volumeMounts[0].name: Not found: "logs"')


def test_node_without_a_name_in_the_cluster_is_an_input_error(tmp_path: Path) -> None:
    cluster = tmp_path / "c.yaml"
    cluster.write_text("apiVersion: v1\nkind: Node\nmetadata:\n  labels: {a: b}\nstatus:\n  allocatable: {cpu: 1}\n")
    pod = tmp_path / "p.yaml"
    pod.write_text(yaml.safe_dump(POD))
    res = runner.invoke(app, ["explain", str(pod), "--cluster", str(cluster)])
    _assert_input_error(res, f"{cluster}:1: Node without metadata.name")


def test_check_reports_the_invalid_document_and_exits_2(tmp_path: Path) -> None:
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(CLUSTER)
    path = tmp_path / "all.yaml"
    path.write_text(yaml.safe_dump_all([DEPLOYMENT, _set(JOB, "spec.parallelism", -1)], sort_keys=False))
    res = runner.invoke(app, ["check", str(path), "--cluster", str(cluster), "-o", "json"])
    assert res.exit_code == 2, res.output
    assert "spec.parallelism: Invalid value: -1: must be greater than or equal to 0" in " ".join(res.stdout.split())


# --- every field of a pod spec, malformed: never Python's words ------------------------------

_BAD_VALUES: list[Any] = [None, "x", -1, True, [None], {"k": None}, 1.5]


def _paths(obj: Any, prefix: tuple[str | int, ...] = ()) -> list[tuple[str | int, ...]]:
    out: list[tuple[str | int, ...]] = []
    items = obj.items() if isinstance(obj, dict) else enumerate(obj) if isinstance(obj, list) else []
    for k, v in items:
        out.append((*prefix, k))
        out += _paths(v, (*prefix, k))
    return out


@pytest.mark.parametrize("base", [POD, DEPLOYMENT], ids=["pod", "deployment"])
def test_malformed_variants_never_surface_python_errors(tmp_path: Path, base: dict[str, Any]) -> None:
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(CLUSTER)
    checked = 0
    for field in _paths(base):
        if field in (("apiVersion",), ("kind",)):
            continue
        for value in _BAD_VALUES:
            path = tmp_path / "v.yaml"
            path.write_text(yaml.safe_dump(_set(base, field, value), sort_keys=False))
            res = runner.invoke(app, ["explain", str(path), "--cluster", str(cluster), "-o", "json"])
            assert res.exit_code in (0, 1, 2), (field, value, res.output)
            if res.exit_code == 2:
                lines = res.stderr.strip().splitlines()
                assert len(lines) == 1, (field, value, res.stderr)
                for word in _PYTHON_WORDS:
                    assert word not in lines[0], (field, value, lines[0])
            checked += 1
    assert checked > 100


def test_quantity_string_is_the_canonical_form() -> None:
    # resource.Quantity.String(): the written format, the largest whole unit.
    assert quantity_string("-1") == "-1"
    assert quantity_string("-0.5") == "-500m"
    assert quantity_string("1500") == "1500"
    assert quantity_string("2000") == "2k"
    assert quantity_string("1Gi") == "1Gi"
    assert quantity_string("1.5Gi") == "1536Mi"
    assert quantity_string("512") == "512"
    assert quantity_string("-100m") == "-100m"
    assert quantity_string("1e3") == "1e3"
    assert quantity_string(-2) == "-2"


# --- every field of the cluster source's objects, malformed: an answer, or one line naming
# --- the cluster file (never the manifest, never Python's words) ----------------------------

_STORED_NODE: dict[str, Any] = {
    "apiVersion": "v1", "kind": "Node",
    "metadata": {"name": "n3", "labels": {"kubernetes.io/hostname": "n3"}},
    "spec": {"unschedulable": False, "taints": [{"key": "k", "value": "v", "effect": "PreferNoSchedule"}]},
    "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
               "conditions": [{"type": "Ready", "status": "True"}]},
}
_STORED_POD: dict[str, Any] = {
    "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default", "labels": {"app": "x"}},
    "spec": {"nodeName": "n3", "priority": 5, "containers": [{"name": "c", "image": "i", "resources": {
        "requests": {"cpu": "1"}}, "ports": [{"containerPort": 80, "hostPort": 8080}]}],
        "tolerations": [{"key": "k", "operator": "Exists"}]},
    "status": {"phase": "Running"},
}
_STORED_PVC: dict[str, Any] = {
    "apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "data", "namespace": "default"},
    "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "fast", "volumeName": "pv-1",
             "resources": {"requests": {"storage": "1Gi"}}},
    "status": {"phase": "Bound"},
}
_STORED_SLICE: dict[str, Any] = {
    "apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "n3-gpu"},
    "spec": {"driver": "gpu.example.com", "nodeName": "n3", "pool": {"name": "n3", "generation": 1,
                                                                    "resourceSliceCount": 1},
             "devices": [{"name": "g0", "attributes": {"model": {"string": "a100"}},
                          "capacity": {"memory": {"value": "40Gi"}}}]},
}
_STORED_EVENT: dict[str, Any] = {
    "apiVersion": "v1", "kind": "Event", "metadata": {"name": "w.1", "namespace": "default"},
    "involvedObject": {"kind": "Pod", "name": "waiting", "namespace": "default"}, "reason": "FailedScheduling",
    "message": "0/3 nodes are available", "count": 2, "type": "Warning",
}
_WAITING: dict[str, Any] = {
    "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "waiting", "namespace": "default"},
    "spec": {"containers": [{"name": "c", "image": "i"}]}, "status": {"phase": "Pending"},
}
_STORED_BAD: list[Any] = [None, "x", 7, True, [None], {"k": None}]


@pytest.mark.parametrize("base", [_STORED_NODE, _STORED_POD, _STORED_PVC, _STORED_SLICE, _STORED_EVENT],
                         ids=["node", "pod", "pvc", "resourceslice", "event"])
def test_malformed_cluster_objects_never_surface_python_errors(tmp_path: Path, base: dict[str, Any]) -> None:
    manifest = tmp_path / "m.yaml"
    manifest.write_text(yaml.safe_dump(POD, sort_keys=False))
    others = [o for o in (_STORED_NODE, _STORED_POD, _STORED_PVC, _STORED_SLICE, _STORED_EVENT, _WAITING)
              if o is not base]
    cluster = tmp_path / "cluster.json"
    checked = 0
    for field in _paths(base):
        if field in (("apiVersion",), ("kind",)):
            continue
        for value in _STORED_BAD:
            cluster.write_text(json.dumps({"apiVersion": "v1", "kind": "List",
                                           "items": [*others, _set(base, field, value)]}))
            args = ["pending"] if base is _STORED_EVENT else ["explain", str(manifest), "-o", "json"]
            res = runner.invoke(app, [*args, "--snapshot", str(cluster)])
            assert res.exit_code in (0, 1, 2), (field, value, res.output)
            errors = [line for line in res.stderr.splitlines() if line.startswith("error:")]
            if res.exit_code == 2:
                assert len(errors) == 1 and errors[0].startswith(f"error: {cluster}"), (field, value, res.stderr)
                for word in _PYTHON_WORDS:
                    assert word not in errors[0], (field, value, errors[0])
            else:
                assert not errors, (field, value, res.stderr)
            if base is _STORED_EVENT:
                assert res.exit_code in (0, 1) and "default/waiting" in res.stdout, (field, value, res.output)
            checked += 1
    assert checked > 40

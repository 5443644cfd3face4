"""Admission and the volume controllers through the CLI: what the API server does to a
release's pods and claims before the scheduler sees them (core/admission), and the
volumes the PV controller binds first (core/explain/provision.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from typer.testing import CliRunner

from kschedx.cli.app import app

Dict = dict[str, Any]


def run(*args: str) -> Any:
    return CliRunner().invoke(app, list(args), env={"NO_COLOR": "1", "COLUMNS": "200"})


def node(name: str, zone: str, cpu: str = "2", memory: str = "4Gi") -> Dict:
    labels = {"kubernetes.io/hostname": name, "topology.kubernetes.io/zone": zone}
    alloc = {"cpu": cpu, "memory": memory, "pods": "110"}
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels},
            "status": {"capacity": alloc, "allocatable": alloc,
                       "conditions": [{"type": "Ready", "status": "True"}]}}


def storage_class(name: str, mode: str = "WaitForFirstConsumer", default: bool = False,
                  zones: list[str] | None = None, provisioner: str = "ebs.csi.aws.com") -> Dict:
    meta: Dict = {"name": name, "creationTimestamp": "2025-01-01T00:00:00Z"}
    if default:
        meta["annotations"] = {"storageclass.kubernetes.io/is-default-class": "true"}
    sc: Dict = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": meta,
                "provisioner": provisioner, "volumeBindingMode": mode}
    if zones:
        sc["allowedTopologies"] = [{"matchLabelExpressions": [
            {"key": "topology.kubernetes.io/zone", "values": zones}]}]
    return sc


def deployment(name: str, replicas: int = 1, ns: str = "default", volumes: list[Dict] | None = None,
               **resources: Dict) -> Dict:
    container: Dict = {"name": "app", "image": "nginx:1.27"}
    if resources:
        container["resources"] = resources
    spec: Dict = {"containers": [container]}
    if volumes:
        spec["volumes"] = volumes
        container["volumeMounts"] = [{"name": v["name"], "mountPath": f"/{v['name']}"} for v in volumes]
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": ns},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}}, "spec": spec}}}


def pvc(name: str, storage: str = "10Gi", ns: str = "default", **spec: Any) -> Dict:
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name, "namespace": ns},
            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": storage}}, **spec}}


def write(path: Path, *docs: Dict) -> str:
    path.write_text(yaml.safe_dump_all(list(docs), sort_keys=False))
    return str(path)


def check(tmp_path: Path, cluster: list[Dict], *manifest: Dict) -> tuple[int, Dict]:
    dump = write(tmp_path / "cluster.yaml", *cluster)
    files = write(tmp_path / "app.yaml", *manifest)
    res = run("check", files, "--snapshot", dump, "--kubernetes-version", "1.35", "-o", "json")
    assert res.exit_code in (0, 1), res.output
    return res.exit_code, json.loads(res.stdout)


def verdicts(data: Dict) -> dict[str, str]:
    return {f"{r['kind']}/{r['name']}": r["verdict"] for r in data["results"]}


def test_pvc_without_class_gets_the_default_class_and_fits(tmp_path: Path) -> None:
    cluster = [node("a", "z1"), node("b", "z2"), storage_class("gp3", default=True), storage_class("slow")]
    data_volume = [{"name": "data", "persistentVolumeClaim": {"claimName": "data"}}]
    code, data = check(tmp_path, cluster, pvc("data"), deployment("db", volumes=data_volume))
    assert code == 0, data
    assert verdicts(data) == {"Deployment/db": "fits"}
    volumes = data["results"][0]["explanation"]["steps"][0]["volumes"]
    assert any("class gp3 (WaitForFirstConsumer" in v for v in volumes), volumes


def test_limitrange_defaults_change_the_fit_verdict(tmp_path: Path) -> None:
    # 2 CPUs per node; the pod asks for nothing, the namespace's default request is 3 CPUs.
    lr = {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "defaults", "namespace": "default"},
          "spec": {"limits": [{"type": "Container", "defaultRequest": {"cpu": "3"}, "default": {"cpu": "4"}}]}}
    code, data = check(tmp_path, [node("a", "z1"), lr], deployment("web"))
    assert code == 1
    assert verdicts(data) == {"Deployment/web": "unschedulable"}
    assert "Insufficient cpu" in data["results"][0]["message"]
    code, data = check(tmp_path, [node("a", "z1")], deployment("web"))
    assert code == 0


def test_limitrange_max_violation_is_refused_in_the_api_servers_words(tmp_path: Path) -> None:
    lr = {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "caps", "namespace": "default"},
          "spec": {"limits": [{"type": "Container", "max": {"memory": "1Gi"}}]}}
    code, data = check(tmp_path, [node("a", "z1"), lr], deployment("web", limits={"memory": "2Gi"}))
    assert code == 1
    (result,) = data["results"]
    assert result["verdict"] == "unschedulable"
    assert result["rejected"].endswith(
        'is forbidden: maximum memory usage per Container is 1Gi, but limit is 2Gi')
    assert result["rejected"].startswith("ReplicaSet web-")
    assert ": FailedCreate: Error creating: pods \"web-" in result["rejected"]
    # explain: an input error naming the object, in the API server's words.
    res = run("explain", str(tmp_path / "app.yaml"), "--snapshot", str(tmp_path / "cluster.yaml"))
    assert res.exit_code == 2
    assert "is forbidden: maximum memory usage per Container is 1Gi, but limit is 2Gi" in res.output


def test_quota_rejection_exits_1_with_the_api_servers_message(tmp_path: Path) -> None:
    quota = {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "compute", "namespace": "default"},
             "spec": {"hard": {"pods": "4"}},
             "status": {"hard": {"pods": "4"}, "used": {"pods": "2"}}}
    code, data = check(tmp_path, [node("a", "z1"), quota], deployment("web", replicas=3,
                                                                      requests={"cpu": "100m"}))
    assert code == 1
    (result,) = data["results"]
    assert result["verdict"] == "partial"
    assert result["placed"] == 2
    # The third pod is never created: not Pending.
    assert (result["pending"], result["notCreated"]) == (0, 1)
    assert "is forbidden: exceeded quota: compute, requested: pods=1, used: pods=4, limited: pods=4" \
        in result["message"]
    # Nothing left at all: the workload doesn't run.
    quota["status"]["used"]["pods"] = "4"
    code, data = check(tmp_path, [node("a", "z1"), quota], deployment("web", replicas=3))
    assert code == 1
    assert data["results"][0]["rejected"].endswith(
        "is forbidden: exceeded quota: compute, requested: pods=1, used: pods=4, limited: pods=4")
    assert data["results"][0]["message"].startswith("doesn't run: ReplicaSet web-")
    for fmt in ("table", "markdown"):
        res = run("check", str(tmp_path / "app.yaml"), "--snapshot", str(tmp_path / "cluster.yaml"), "-o", fmt)
        assert res.exit_code == 1, res.output
        assert "exceeded quota: compute" in res.stdout.replace("\n", "")


def test_runtimeclass_overhead_changes_the_fit_verdict(tmp_path: Path) -> None:
    rc = {"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "metadata": {"name": "kata"}, "handler": "kata",
          "overhead": {"podFixed": {"cpu": "500m"}},
          "scheduling": {"nodeSelector": {"topology.kubernetes.io/zone": "z1"}}}
    app = deployment("vm", requests={"cpu": "1800m"})
    code, data = check(tmp_path, [node("a", "z1"), node("b", "z2", cpu="4"), rc], app)
    assert code == 0  # without the class, b has room
    app["spec"]["template"]["spec"]["runtimeClassName"] = "kata"
    code, data = check(tmp_path, [node("a", "z1"), node("b", "z2", cpu="4"), rc], app)
    assert code == 1
    message = data["results"][0]["message"]
    assert "Insufficient cpu" in message and "node(s) didn't match Pod's node affinity/selector" in message


def statefulset(name: str, replicas: int, storage_class_name: str | None = None) -> Dict:
    vct_spec: Dict = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "5Gi"}}}
    if storage_class_name is not None:
        vct_spec["storageClassName"] = storage_class_name
    return {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": name, "namespace": "default"},
            "spec": {"replicas": replicas, "serviceName": name, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [{"name": "db", "image": "postgres:16",
                                                           "resources": {"requests": {"cpu": "500m"}},
                                                           "volumeMounts": [{"name": "data", "mountPath": "/d"}]}]}},
                     "volumeClaimTemplates": [{"metadata": {"name": "data"}, "spec": vct_spec}]}}


def test_an_immediate_binding_statefulset_fits(tmp_path: Path) -> None:
    cluster = [node("a", "z1"), node("b", "z2"), storage_class("fast", mode="Immediate", default=True,
                                                                 zones=["z1", "z2"])]
    code, data = check(tmp_path, cluster, statefulset("db", 3))
    assert code == 0, data["results"][0]["message"]
    (result,) = data["results"]
    assert result["placed"] == 3
    notes = result["explanation"]["steps"][0]["notes"]
    assert any("ebs.csi.aws.com provisions its volume" in n and "it may land in z1, z2" in n for n in notes), notes
    # Every zone has room: the provisioner's pick doesn't matter.
    assert not any("the provisioner picks" in w for w in result["explanation"]["steps"][0]["warnings"])


def test_a_provisioned_zone_without_room_is_named_not_a_false_doesnt_fit(tmp_path: Path) -> None:
    # Only z1 has room for the pod; the class may provision in z1 or z2.
    cluster = [node("a", "z1"), node("b", "z2", cpu="100m"),
               storage_class("fast", mode="Immediate", zones=["z1", "z2"])]
    code, data = check(tmp_path, cluster, statefulset("db", 1, "fast"))
    assert code == 0, data["results"][0]["message"]
    step = data["results"][0]["explanation"]["steps"][0]
    assert step["selectedNode"] == "a"
    assert any("the provisioner picks where PVC default/data-db-0's volume lies (z1, z2): the pod fits only if it "
               "picks z1" in w for w in step["warnings"]), step["warnings"]
    # explain answers as kube-scheduler does now: the first attempt, before the binding.
    res = run("explain", str(tmp_path / "app.yaml"), "--snapshot", str(tmp_path / "cluster.yaml"), "-o", "json")
    assert res.exit_code == 1, res.output
    out = json.loads(res.stdout)
    assert "pod has unbound immediate PersistentVolumeClaims" in out["fitError"]
    assert any("PVC default/data-db-0 (class fast, Immediate)" in n and "first attempt" in n for n in out["notes"])


def test_an_immediate_claim_binds_the_smallest_matching_pv(tmp_path: Path) -> None:
    def pv(name: str, size: str, zone: str) -> Dict:
        return {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name},
                "spec": {"capacity": {"storage": size}, "accessModes": ["ReadWriteOnce"], "storageClassName": "",
                         "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                             {"key": "topology.kubernetes.io/zone", "operator": "In", "values": [zone]}]}]}}},
                "status": {"phase": "Available"}}
    cluster = [node("a", "z1"), node("b", "z2"), pv("big", "100Gi", "z1"), pv("small", "20Gi", "z2"),
               pv("tiny", "1Gi", "z1")]
    data_volume = [{"name": "data", "persistentVolumeClaim": {"claimName": "data"}}]
    code, data = check(tmp_path, cluster, pvc("data", storageClassName=""), deployment("db", volumes=data_volume))
    assert code == 0, data["results"][0]["message"]
    step = data["results"][0]["explanation"]["steps"][0]
    assert step["selectedNode"] == "b"  # where PV "small" lies
    assert any("binds it to the matching PV small" in n for n in step["notes"]), step["notes"]


def test_a_files_claim_over_its_storage_quota_is_not_created(tmp_path: Path) -> None:
    quota = {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "storage", "namespace": "default"},
             "spec": {"hard": {"requests.storage": "20Gi"}}}  # no status yet: counted from the namespace
    used = pvc("old", "15Gi", storageClassName="gp3")
    cluster = [node("a", "z1"), storage_class("gp3", default=True), used]
    data_volume = [{"name": "data", "persistentVolumeClaim": {"claimName": "data"}}]
    code, data = check(tmp_path, [*cluster, quota], pvc("data"), deployment("db", volumes=data_volume))
    assert code == 1
    by_kind = {r["kind"]: r for r in data["results"]}
    assert by_kind["PersistentVolumeClaim"]["rejected"] == (
        'persistentvolumeclaims "data" is forbidden: exceeded quota: storage, requested: requests.storage=10Gi, '
        "used: requests.storage=15Gi, limited: requests.storage=20Gi")
    assert 'persistentvolumeclaim "data" not found' in by_kind["Deployment"]["message"]


def test_a_statefulset_refused_by_quota_part_way_runs_its_first_ordinals(tmp_path: Path) -> None:
    # The quota admits two claims: the StatefulSet controller creates data-db-0 and db-0,
    # data-db-1 and db-1, then the claim of ordinal 2 is refused (FailedCreate) and neither
    # it nor its pod exists; the first two run (issue 45, item 1: a real control plane ran
    # 2 and never created 1).
    quota = {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "claims", "namespace": "default"},
             "spec": {"hard": {"persistentvolumeclaims": "2"}}}
    cluster = [node("a", "z1"), node("b", "z2"), storage_class("fast", mode="Immediate", default=True), quota]
    code, data = check(tmp_path, cluster, statefulset("db", 3))
    assert code == 1
    (result,) = data["results"]
    assert "rejected" not in result, result["message"]
    assert (result["replicas"], result["placed"], result["pending"], result["notCreated"]) == (3, 2, 0, 1)
    assert result["verdict"] == "partial"
    assert 'persistentvolumeclaims "data-db-2" is forbidden: exceeded quota: claims' in result["message"]
    assert data["release"]["pods"] == {"new": 3, "placed": 2, "pending": 0, "notCreated": 1}
    # Storage by size: 5Gi each under 6Gi, one ordinal runs and two are never created.
    by_size = {**quota, "spec": {"hard": {"requests.storage": "6Gi"}}}
    code, data = check(tmp_path, [*cluster[:3], by_size], statefulset("db", 3))
    (result,) = data["results"]
    assert (result["placed"], result["notCreated"], result["verdict"]) == (1, 2, "partial")

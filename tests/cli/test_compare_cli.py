"""--compare-version, --compare-config and --compare-feature-gates on explain and check."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from typer.testing import CliRunner

from kschedx.cli.app import app

ROOT = Path(__file__).resolve().parents[2]
# A v1.36 cluster where v1.36's balanced-allocation scoring (kubernetes#135573) picks another node.
CASE = ROOT / "tests" / "golden" / "cases" / "versions-v1.36-mixed-1-109"
POD, CLUSTER = str(CASE / "pod.yaml"), str(CASE / "cluster.yaml.gz")


def run(*args: str) -> Any:
    return CliRunner().invoke(app, list(args), env={"NO_COLOR": "1", "COLUMNS": "120"})


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_upgrade_moves_the_pod() -> None:
    res = run("explain", POD, "-c", CLUSTER, "--kubernetes-version", "1.35", "--compare-version", "1.36", "-o", "json")
    assert res.exit_code == 0, res.output  # the verdict (fits) is the same
    data = json.loads(res.stdout)
    assert set(data) == {"base", "compare", "changes"}
    assert data["base"]["kubernetesVersion"] == "v1.35" and data["compare"]["kubernetesVersion"] == "v1.36"
    assert data["base"]["selectedNode"] != data["compare"]["selectedNode"]
    [change] = data["changes"]
    assert change["what"] == "selectedNode"
    assert (change["base"], change["compare"]) == (data["base"]["selectedNode"], data["compare"]["selectedNode"])
    assert change["plugins"][0]["plugin"] == "NodeResourcesBalancedAllocation"
    table = _flat(run("explain", POD, "-c", CLUSTER, "--kubernetes-version", "1.35", "--compare-version",
                      "1.36").stdout)
    assert f"selected node {change['base']} → {change['compare']}" in table


def test_nothing_changes() -> None:
    res = run("explain", POD, "-c", CLUSTER, "--kubernetes-version", "1.35", "--compare-version", "1.34", "-o", "json")
    assert res.exit_code == 0
    data = json.loads(res.stdout)
    assert data["changes"] == []
    assert data["base"]["selectedNode"] == data["compare"]["selectedNode"]
    table = run("explain", POD, "-c", CLUSTER, "--kubernetes-version", "1.35", "--compare-version", "1.34")
    assert "No change" in table.stdout


def test_compare_config(tmp_path: Path) -> None:
    cfg = tmp_path / "no-balance.yaml"
    cfg.write_text(yaml.safe_dump({
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "profiles": [{"schedulerName": "default-scheduler", "plugins": {
            "multiPoint": {"disabled": [{"name": "NodeResourcesBalancedAllocation"}]}}}]}))
    res = run("explain", POD, "-c", CLUSTER, "--kubernetes-version", "1.35", "--compare-config", str(cfg), "-o", "json")
    data = json.loads(res.stdout)
    [change] = data["changes"]
    assert change["what"] == "selectedNode"
    assert change["plugins"][0]["plugin"] == "NodeResourcesBalancedAllocation"


def _dra_cluster(tmp_path: Path) -> tuple[str, str]:
    """One node whose only GPU is in a pool with one of its two slices published: v1.34's
    allocator takes it, v1.35's skips incomplete pools."""
    objs: list[dict[str, Any]] = [
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "a", "labels": {"kubernetes.io/hostname": "a"}},
         "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                    "nodeInfo": {"kubeletVersion": "v1.34.2"}}},
        {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
         "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]}},
        {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "a-gpu"},
         "spec": {"driver": "gpu.example.com", "nodeName": "a",
                  "pool": {"name": "a", "generation": 1, "resourceSliceCount": 2}, "devices": [{"name": "gpu-0"}]}},
        {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
         "metadata": {"name": "c", "namespace": "default", "uid": "c-uid"},
         "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]}}},
    ]
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
           "spec": {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "1"}}}],
                    "resourceClaims": [{"name": "gpu", "resourceClaimName": "c"}]}}
    cluster, manifest = tmp_path / "cluster.yaml", tmp_path / "pod.yaml"
    cluster.write_text(yaml.safe_dump_all(objs))
    manifest.write_text(yaml.safe_dump(pod))
    return str(manifest), str(cluster)


def test_check_exits_1_when_a_verdict_changes(tmp_path: Path) -> None:
    manifest, cluster = _dra_cluster(tmp_path)
    res = run("check", manifest, "-c", cluster, "--compare-version", "1.35", "-o", "json")
    assert res.exit_code == 1, res.output
    data = json.loads(res.stdout)
    assert data["base"]["summary"]["fits"] == 1  # inferred v1.34 from the kubelet
    verdicts = [c for c in data["changes"] if c["what"] == "verdict"]
    assert verdicts and verdicts[0]["base"] == "fits" and verdicts[0]["compare"] != "fits"
    same = run("check", manifest, "-c", cluster, "--compare-version", "1.34")
    assert same.exit_code == 0, same.output
    assert "No change" in same.stdout


def test_daemonset_reasons_between_versions(tmp_path: Path) -> None:
    """Per node of a DaemonSet: v1.33 names the untolerated taint (before kubernetes#134740)."""
    ds = {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent", "namespace": "default"},
          "spec": {"selector": {"matchLabels": {"app": "agent"}}, "template": {
              "metadata": {"labels": {"app": "agent"}},
              "spec": {"containers": [{"name": "c", "image": "agent:1", "resources": {"requests": {"cpu": "100m"}}}]}}}}
    manifest = tmp_path / "ds.yaml"
    manifest.write_text(yaml.safe_dump(ds))
    res = run("explain", str(manifest), "-c", str(ROOT / "examples" / "cluster.yaml"), "--compare-version", "1.33",
              "-o", "json")
    assert res.exit_code == 0, res.output
    changes = json.loads(res.stdout)["changes"]
    assert changes and all(c["what"] == "reasons" for c in changes)
    assert changes[0]["base"].endswith("untolerated taint(s)")
    assert "untolerated taint {" in changes[0]["compare"]


def _workloads(tmp_path: Path) -> Path:
    """Two Deployments of two copies and a DaemonSet; v1.33 names the untolerated taint."""
    def deployment(name: str) -> dict[str, Any]:
        return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": "shop"},
                "spec": {"replicas": 2, "selector": {"matchLabels": {"app": name}}, "template": {
                    "metadata": {"labels": {"app": name}},
                    "spec": {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "100m"}}}]}}}}
    ds = {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent", "namespace": "monitoring"},
          "spec": {"selector": {"matchLabels": {"app": "agent"}}, "template": {
              "metadata": {"labels": {"app": "agent"}},
              "spec": {"containers": [{"name": "c", "image": "agent:1", "resources": {"requests": {"cpu": "10m"}}}]}}}}
    d = tmp_path / "release"
    d.mkdir()
    (d / "api.yaml").write_text(yaml.safe_dump(deployment("api")))
    (d / "web.yaml").write_text(yaml.safe_dump(deployment("web")))
    (d / "agent.yaml").write_text(yaml.safe_dump(ds))
    return d


def test_check_comparison_names_each_workload_and_merges_its_copies(tmp_path: Path) -> None:
    release = str(_workloads(tmp_path))
    args = ("check", release, "-c", str(ROOT / "examples" / "cluster.yaml"), "--kubernetes-version", "1.35",
            "--compare-version", "1.33")
    res = run(*args, "-o", "json")
    assert res.exit_code == 0, res.output
    changes = json.loads(res.stdout)["changes"]
    assert {c["workload"] for c in changes} == {"Deployment/shop/api", "Deployment/shop/web", "DaemonSet/monitoring/agent"}
    # Per Deployment: one change per tainted node, the same for both copies, merged.
    api = [c for c in changes if c["workload"] == "Deployment/shop/api"]
    assert api and all(c["steps"] == [0, 1] and c["count"] == 2 and "pod" not in c for c in api)
    assert len(api) == len({c["node"] for c in api})
    agent = [c for c in changes if c["workload"] == "DaemonSet/monitoring/agent"]
    assert agent and all("steps" not in c for c in agent)

    table = run(*args)
    assert table.exit_code == 0, table.output
    assert f"{len(changes)} change(s) in 3 workload(s):" in _flat(table.stdout)
    # (the heading of each workload may wrap before its file at 100 columns)
    assert f"Deployment/shop/api ({release}/api.yaml)" in _flat(table.stdout)
    assert f"DaemonSet/monitoring/agent ({release}/agent.yaml)" in _flat(table.stdout)
    assert f"2 copies (#0–1): {api[0]['node']}: TaintToleration:" in _flat(table.stdout)

    md = run(*args, "-o", "markdown")
    assert md.exit_code == 0, md.output
    rows = [line for line in md.stdout.splitlines() if line.startswith("| `")]
    assert len(rows) == len(changes)
    assert sum(row.startswith("| `Deployment/shop/web ") for row in rows) == len(api)

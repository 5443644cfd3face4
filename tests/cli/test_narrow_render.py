"""Tables never lose a character: cloud-style node names (EKS, GKE, AKS) at 60 to 200
columns, table and wide, for explain (one cycle, replicas, DaemonSet), the legacy
algorithm and check. Every node name, reason and total must appear whole in the output once
its line breaks and runs of spaces are collapsed; no line is wider than the screen."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from kschedx.cli.app import app

WIDTHS = [60, 80, 100, 120, 200]

NAMES = {
    "eks": lambda i: f"ip-10-42-{i}-17.eu-west-1.compute.internal",
    "gke": lambda i: f"gke-prod-eu-default-pool-8f2a9c1d-x7k{'qrstuvwxyz'[i]}",
    "aks": lambda i: f"aks-nodepool1-12345678-vmss00000{i:x}",
}


def cluster(provider: str) -> dict[str, Any]:
    """Ten nodes: three tainted, one too small, one in another pool (for a selector), five
    that fit with different loads; and their pods."""
    name = NAMES[provider]
    items: list[dict[str, Any]] = []
    for i in range(10):
        labels = {"kubernetes.io/hostname": name(i), "topology.kubernetes.io/zone": f"eu-west-1{'abc'[i % 3]}",
                  "node-pool": "batch" if i == 4 else "general"}
        node: dict[str, Any] = {
            "apiVersion": "v1", "kind": "Node", "metadata": {"name": name(i), "labels": labels}, "spec": {},
            "status": {"allocatable": {"cpu": "500m" if i == 3 else "4", "memory": "16Gi", "pods": "110"},
                       "capacity": {"cpu": "4", "memory": "16Gi", "pods": "110"},
                       "conditions": [{"type": "Ready", "status": "True"}]},
        }
        if i < 3:
            node["spec"]["taints"] = [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]
        items.append(node)
        if i >= 5:
            items.append({"apiVersion": "v1", "kind": "Pod",
                          "metadata": {"name": f"busy-{i}", "namespace": "default", "labels": {"app": "busy"}},
                          "spec": {"nodeName": name(i), "containers": [{"name": "c", "image": "busy:1", "resources": {
                              "requests": {"cpu": f"{(i - 4) * 300}m", "memory": f"{i}Gi"}}}]},
                          "status": {"phase": "Running"}})
    return {"apiVersion": "v1", "kind": "List", "items": items}


POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "labels": {"app": "web"}},
       "spec": {"nodeSelector": {"node-pool": "general"},
                "containers": [{"name": "app", "image": "nginx:1.27",
                                "resources": {"requests": {"cpu": "1", "memory": "128Mi"}}}]}}
DEPLOYMENT = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
              "spec": {"replicas": 4, "selector": {"matchLabels": {"app": "web"}},
                       "template": {"metadata": {"labels": {"app": "web"}}, "spec": POD["spec"]}}}
DAEMONSET = {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent"},
             "spec": {"selector": {"matchLabels": {"app": "agent"}},
                      "template": {"metadata": {"labels": {"app": "agent"}}, "spec": {
                          "containers": [{"name": "c", "image": "agent:1",
                                          "resources": {"requests": {"cpu": "1"}}}]}}}}
PVC_POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "db"},
           "spec": {"containers": [{"name": "c", "image": "db:1"}],
                    "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "web"}}]}}
EPHEMERAL_POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "scratch"},
                 "spec": {"containers": [{"name": "c", "image": "db:1"}],
                          "volumes": [{"name": "data", "ephemeral": {"volumeClaimTemplate": {"spec": {
                              "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}}}]}}


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    d = tmp_path_factory.mktemp("cloud")
    out: dict[str, str] = {}
    for provider in NAMES:
        p = d / f"{provider}.yaml"
        p.write_text(yaml.safe_dump(cluster(provider)))
        out[provider] = str(p)
    for key, doc in (("pod", POD), ("deploy", DEPLOYMENT), ("ds", DAEMONSET), ("pvc", PVC_POD),
                     ("ephemeral", EPHEMERAL_POD)):
        p = d / f"{key}.yaml"
        p.write_text(yaml.safe_dump(doc))
        out[key] = str(p)
    return out


def run(width: int, *args: str) -> Any:
    return CliRunner().invoke(app, list(args), env={"NO_COLOR": "1", "COLUMNS": str(width)})


def flat(text: str) -> str:
    return " ".join(text.split())


def assert_fits_screen(out: str, width: int) -> None:
    for line in out.splitlines():
        assert len(line.rstrip()) <= width, line


def node_labels(out: str, names: list[str]) -> list[str]:
    """The names as the table writes them: without the shared domain when it says so."""
    m = re.search(r"Node names shortened: each ends in (\S+)", flat(out))
    if m is None:
        return names
    return [n[: -len(m.group(1))] for n in names]


def assert_whole(out: str, data: dict[str, Any]) -> None:
    text = flat(out)
    for name, label in zip(data["nodes"], node_labels(out, list(data["nodes"])), strict=True):
        assert re.search(rf"(^|\s){re.escape(label)}(\s|,|$)", text), (label, text)
        for reason in data["nodes"][name].get("reasons") or []:
            assert flat(reason) in text, (reason, text)
    for total in data["totals"].values():
        assert re.search(rf"\s{total}(\s|$)", text), total
    if data.get("fitError"):
        assert flat(data["fitError"]) in text
    for plugin in data["scorePlugins"]:
        assert plugin["name"] in text  # in the legend or the footer line
    assert "…" not in text  # Rich's mark of a cut cell


@pytest.mark.parametrize("provider", list(NAMES))
@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("fmt", ["table", "wide"])
def test_explain_keeps_every_name_and_reason(files: dict[str, str], provider: str, width: int, fmt: str) -> None:
    for pod in ("pod", "pvc", "ephemeral"):
        data = json.loads(run(width, "explain", files[pod], "--cluster", files[provider], "-o", "json").stdout)
        res = run(width, "explain", files[pod], "--cluster", files[provider], "-o", fmt)
        assert res.exit_code in (0, 1), res.output
        assert_fits_screen(res.stdout, width)
        assert_whole(res.stdout, data)
        if pod == "pvc":
            assert 'persistentvolumeclaim "web" not found' in flat(res.stdout)
        if pod == "ephemeral":
            assert "waiting for ephemeral volume controller to create the persistentvolumeclaim" in flat(res.stdout)


@pytest.mark.parametrize("provider", list(NAMES))
@pytest.mark.parametrize("width", WIDTHS)
def test_legacy_keeps_every_name_and_total(files: dict[str, str], provider: str, width: int) -> None:
    args = ("explain", files["pod"], "--cluster", files[provider], "--algorithm", "legacy-v1.12")
    data = json.loads(run(width, *args, "-o", "json").stdout)
    for fmt in ("table", "wide"):
        res = run(width, *args, "-o", fmt)
        assert res.exit_code == 0, res.output
        assert_fits_screen(res.stdout, width)
        assert_whole(res.stdout, data)


@pytest.mark.parametrize("provider", list(NAMES))
@pytest.mark.parametrize("width", WIDTHS)
def test_replicas_and_daemonset_keep_every_name(files: dict[str, str], provider: str, width: int) -> None:
    res = run(width, "explain", files["deploy"], "--cluster", files[provider], "--replicas", "auto")
    data = json.loads(run(width, "explain", files["deploy"], "--cluster", files[provider], "--replicas", "auto",
                          "-o", "json").stdout)
    assert res.exit_code == 0, res.output
    assert_fits_screen(res.stdout, width)
    text = flat(res.stdout)
    for step in data["steps"]:
        assert step["selectedNode"] in text
    res = run(width, "explain", files["ds"], "--cluster", files[provider])
    assert_fits_screen(res.stdout, width)
    text = flat(res.stdout)
    for i in range(10):
        assert NAMES[provider](i) in text
    assert "node(s) had untolerated taint(s)" in text and "Insufficient cpu" in text


@pytest.mark.parametrize("width", [40, *WIDTHS])
def test_check_prints_one_line_per_result(files: dict[str, str], tmp_path: Path, width: int) -> None:
    # A deep directory: each verdict names its file, and must still take one line.
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    deep.mkdir(parents=True)
    for key in ("pod", "deploy", "pvc", "ephemeral"):
        (deep / f"{key}.yaml").write_text(Path(files[key]).read_text())
    res = run(width, "check", str(deep), "--cluster", files["eks"])
    assert res.exit_code == 1, res.output
    lines = res.stdout.splitlines()
    assert len(lines) == 2 + 4 + 1, res.stdout  # the release verdict and order, four results, the summary
    assert all(str(deep) in line for line in lines[2:6])
    assert 'persistentvolumeclaim "web" not found' in res.stdout

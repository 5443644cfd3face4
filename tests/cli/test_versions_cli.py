"""--kubernetes-version and --feature-gates on explain, check and plugins."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from kschedx.cli.app import app

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "tests" / "golden" / "cases"
V133 = CASES / "versions-v1.33-taints-1-100"  # its kubelets are v1.33.3
CLUSTER = str(ROOT / "examples" / "cluster.yaml")  # kubelets v1.35.4
WEB = str(ROOT / "examples" / "pods" / "web-deployment.yaml")


def run(*args: str) -> Any:
    return CliRunner().invoke(app, list(args), env={"NO_COLOR": "1", "COLUMNS": "120"})


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_explain_infers_the_version_from_the_kubelets_and_says_so() -> None:
    res = run("explain", str(V133 / "pod.yaml"), "-c", str(V133 / "cluster.yaml.gz"), "-o", "json")
    data = json.loads(res.stdout)
    assert data["kubernetesVersion"] == "v1.33"
    assert any("inferred from the newest kubelet (v1.33.3)" in n for n in data["notes"])
    # v1.33 names the taint (before kubernetes#134740).
    assert "node(s) had untolerated taint {node.kubernetes.io/disk-pressure: }" in json.dumps(data)


def test_explain_with_the_flag() -> None:
    res = run("explain", str(V133 / "pod.yaml"), "-c", str(V133 / "cluster.yaml.gz"), "--kubernetes-version",
              "v1.35.4", "-o", "json")
    data = json.loads(res.stdout)
    assert data["kubernetesVersion"] == "v1.35"
    assert not any("kubelet" in n for n in data["notes"])
    assert "untolerated taint(s)" in json.dumps(data)


def test_unsupported_version_and_bad_gates_exit_2() -> None:
    res = run("explain", WEB, "-c", CLUSTER, "--kubernetes-version", "1.32")
    assert res.exit_code == 2
    assert "supported: v1.33, v1.34, v1.35, v1.36" in _flat(res.stderr)
    res = run("check", WEB, "-c", CLUSTER, "--feature-gates", "Bogus=true")
    assert res.exit_code == 2
    assert "unrecognized feature gate: Bogus" in _flat(res.stderr)
    res = run("plugins", "--kubernetes-version", "1.35", "--feature-gates", "DynamicResourceAllocation=false")
    assert res.exit_code == 2
    assert "feature is locked to true" in _flat(res.stderr)


def test_check_uses_the_version() -> None:
    res = run("check", WEB, "-c", CLUSTER, "--kubernetes-version", "1.36", "-o", "json")
    assert res.exit_code in (0, 1)
    data = json.loads(res.stdout)
    assert data["kubernetesVersion"] == "v1.36"
    assert json.loads(run("check", WEB, "-c", CLUSTER, "-o", "json").stdout)["kubernetesVersion"] == "v1.35"


def test_plugins_per_version() -> None:
    def report(*args: str) -> Any:
        res = run("plugins", "-o", "json", *args)
        assert res.exit_code == 0, res.output
        return json.loads(res.stdout)

    v133 = report("--kubernetes-version", "1.33")
    assert v133["kubernetesVersion"] == "v1.33"
    names = [p["name"] for p in v133["profiles"][0]["extensionPoints"]["filter"]["plugins"]]
    assert "DynamicResources" not in names
    on = report("--kubernetes-version", "1.33", "--feature-gates", "DynamicResourceAllocation=true")
    names = [p["name"] for p in on["profiles"][0]["extensionPoints"]["filter"]["plugins"]]
    assert "DynamicResources" in names
    v135 = report("--kubernetes-version", "1.35")
    scores = {p["name"]: p["weight"] for p in v135["profiles"][0]["extensionPoints"]["score"]["plugins"]}
    assert scores["DynamicResources"] == 2
    assert report()["kubernetesVersion"] == "v1.36"  # no cluster to ask: the newest supported


def test_one_story_about_versions() -> None:
    """--version, --help, the package description and README's first paragraph all name the
    supported range, and that a dump with no version runs as the newest."""
    import tomllib

    from kschedx.core.versions import NEWEST, SUPPORTED_VERSIONS

    span = f"{SUPPORTED_VERSIONS[0].lstrip('v')}–{NEWEST.lstrip('v')}"
    version = run("--version")
    assert version.exit_code == 0
    assert version.stdout.strip() == f"kschedx 0.1.0 (kube-scheduler {span}; a dump with no version to go by runs as " \
                                     f"{NEWEST.lstrip('v')})"
    helptext = _flat(run("--help").stdout)
    assert f"kube-scheduler {span} decisions" in helptext
    assert f"a dump with no version to go by runs as {NEWEST.lstrip('v')}, the newest" in helptext
    assert "v1.35" not in helptext
    description = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["description"]
    assert f"kube-scheduler {span} explainer" in description
    intro = _flat((ROOT / "README.md").read_text().split("\n\n")[2])
    assert f"as Kubernetes **{span}** run it" in intro and f"runs as {NEWEST.lstrip('v')}, the newest" in intro

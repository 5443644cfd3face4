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
    assert suite.failures == 1 and suite.errors == 1 and suite.tests == 6
    props = {(p.name, p.value) for p in suite.properties()}
    assert ("kubernetesVersion", "v1.35") in props
    assert any(name == "skipped" and "service.yaml" in value for name, value in props)
    assert not any(isinstance(r, Skipped) for c in suite for r in c.result)

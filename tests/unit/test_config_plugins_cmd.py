"""``kschedx plugins``: the configured plugins per extension point, as table, JSON and YAML."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from typer.testing import CliRunner

from kschedx.cli.app import app

CONFIG = """
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
percentageOfNodesToScore: 40
profiles:
- schedulerName: default-scheduler
- schedulerName: bin-packing
  plugins:
    score:
      enabled: [{name: NodeResourcesFit, weight: 5}]
      disabled: [{name: NodeResourcesBalancedAllocation}]
  pluginConfig:
  - name: NodeResourcesFit
    args: {scoringStrategy: {type: MostAllocated}}
extenders:
- {urlPrefix: "https://ext.example/sched", filterVerb: filter}
"""


def _write(tmp_path: Path, text: str) -> str:
    p = tmp_path / "config.yaml"
    p.write_text(text)
    return str(p)


def test_plugins_json_lists_points_weights_and_args(tmp_path: Path) -> None:
    runner = CliRunner()
    r = runner.invoke(app, ["plugins", "--config", _write(tmp_path, CONFIG), "--profile", "bin-packing", "-o", "json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    [prof] = data["profiles"]
    assert prof["schedulerName"] == "bin-packing"
    assert prof["percentageOfNodesToScore"] == 40
    score = prof["extensionPoints"]["score"]["plugins"]
    assert score[0] == {"name": "NodeResourcesFit", "weight": 5, "evaluated": True}
    assert "NodeResourcesBalancedAllocation" not in [p["name"] for p in score]
    assert prof["extensionPoints"]["bind"] == {"evaluated": False, "plugins": [{"name": "DefaultBinder", "evaluated": False}]}
    assert prof["pluginArgs"]["NodeResourcesFit"]["scoringStrategy"]["type"] == "MostAllocated"
    assert data["extenders"][0]["urlPrefix"] == "https://ext.example/sched"
    assert "https://ext.example/sched" in data["warnings"][0]


def test_plugins_yaml_and_table_without_config() -> None:
    runner = CliRunner()
    r = runner.invoke(app, ["plugins", "-o", "yaml"])
    assert r.exit_code == 0, r.output
    data = yaml.safe_load(r.stdout)
    assert [p["schedulerName"] for p in data["profiles"]] == ["default-scheduler"]
    r = runner.invoke(app, ["plugins", "--no-color"])
    assert r.exit_code == 0, r.output
    assert "TaintToleration" in r.stdout and "Plugin args" in r.stdout
    assert "hardPodAffinityWeight: 1" in r.stdout


def test_plugins_errors_exit_2(tmp_path: Path) -> None:
    runner = CliRunner()
    bad = _write(tmp_path, CONFIG.replace("weight: 5", "weight: five"))
    r = runner.invoke(app, ["plugins", "--config", bad])
    assert r.exit_code == 2
    assert "of type int32" in r.stderr and bad in r.stderr
    r = runner.invoke(app, ["plugins", "--profile", "nope"])
    assert r.exit_code == 2
    assert "no scheduler profile named 'nope'" in r.stderr

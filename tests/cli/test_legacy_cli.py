"""`--algorithm legacy-v1.12`, `--policy`, `--offline` and configured extenders through the CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from kschedx.cli.app import app
from tests.unit.extender_server import closed_port_url, extender

ROOT = Path(__file__).resolve().parents[2]
CLUSTER = str(ROOT / "examples" / "cluster.yaml")
WEB = str(ROOT / "examples" / "pods" / "web-deployment.yaml")


def run(*args: str) -> Any:
    return CliRunner().invoke(app, list(args), env={"NO_COLOR": "1", "COLUMNS": "120"})


def config_with(tmp_path: Path, url: str, **extra: Any) -> str:
    ext = {"urlPrefix": url, "filterVerb": "filter", "prioritizeVerb": "prioritize", "weight": 2, **extra}
    doc = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration", "extenders": [ext]}
    p = tmp_path / "sched.json"
    p.write_text(json.dumps(doc))
    return str(p)


def test_legacy_json_names_the_algorithm_and_priority_functions() -> None:
    res = run("explain", WEB, "--cluster", CLUSTER, "--algorithm", "legacy-v1.12", "-o", "json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["algorithm"] == "legacy-v1.12"
    assert [p["name"] for p in data["scorePlugins"]][:3] == [
        "SelectorSpreadPriority", "InterPodAffinityPriority", "LeastRequestedPriority"]
    assert data["selectedNode"] in data["bestNodes"]


def test_legacy_table_says_filtering_reuses_todays_plugins() -> None:
    res = run("explain", WEB, "--cluster", CLUSTER, "--algorithm", "legacy-v1.12", "-o", "wide")
    assert res.exit_code == 0, res.output
    assert "today's v1.35 filter" in " ".join(res.stdout.split())
    assert "Least" in res.stdout and "(0-10)" in res.stdout


def test_policy_file_selects_priorities(tmp_path: Path) -> None:
    p = tmp_path / "policy.yaml"
    p.write_text("kind: Policy\napiVersion: v1\npriorities:\n- {name: MostRequestedPriority, weight: 3}\n")
    res = run("explain", WEB, "--cluster", CLUSTER, "--policy", str(p), "-o", "json")
    assert res.exit_code == 0, res.output
    assert [(x["name"], x["weight"]) for x in json.loads(res.stdout)["scorePlugins"]] == [("MostRequestedPriority", 3)]


def test_bad_policy_is_an_input_error(tmp_path: Path) -> None:
    p = tmp_path / "policy.json"
    p.write_text('{"kind": "Policy", "priorities": [{"name": "Nope", "weight": 1}]}')
    res = run("explain", WEB, "--cluster", CLUSTER, "--policy", str(p))
    assert res.exit_code == 2
    assert "priorities[0].name" in res.output and "Traceback" not in res.output
    res = run("check", WEB, "--cluster", CLUSTER, "--policy", str(p))
    assert res.exit_code == 2


def test_unreachable_extender_exits_3_unless_offline(tmp_path: Path) -> None:
    cfg = config_with(tmp_path, closed_port_url())
    res = run("explain", WEB, "--cluster", CLUSTER, "--config", cfg)
    assert res.exit_code == 3, res.output
    assert "unreachable" in res.output
    res = run("explain", WEB, "--cluster", CLUSTER, "--config", cfg, "--offline", "-o", "json")
    assert res.exit_code == 0, res.output
    assert any("--offline" in w for w in json.loads(res.stdout)["warnings"])
    assert run("check", WEB, "--cluster", CLUSTER, "--config", cfg).exit_code == 3
    assert run("check", WEB, "--cluster", CLUSTER, "--config", cfg, "--offline").exit_code == 0


def test_configured_extender_shows_as_a_column(tmp_path: Path) -> None:
    def keep_all(body: Any) -> tuple[int, Any]:
        return 200, {"Nodes": body["Nodes"], "FailedNodes": {}}

    def prefer(body: Any) -> tuple[int, Any]:
        return 200, [{"Host": n["metadata"]["name"], "Score": 10} for n in body["Nodes"]["items"][:1]]

    with extender({"filter": keep_all, "prioritize": prefer}) as srv:
        cfg = config_with(tmp_path, srv.url)
        res = run("explain", WEB, "--cluster", CLUSTER, "--config", cfg, "-o", "json")
        table = run("explain", WEB, "--cluster", CLUSTER, "--config", cfg)
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    col = next(p for p in data["scorePlugins"] if p["name"] == f"extender:{srv.url}")
    assert col["weight"] == 2 and max(s["weighted"] for s in col["scores"].values()) == 200
    assert data["extenders"][0]["urlPrefix"] == srv.url
    assert "Ext 127.0.0.1" in table.stdout

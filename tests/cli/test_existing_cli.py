"""``kschedx explain KIND/NAME``: objects of the cluster dump, and pods that already exist."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from typer.testing import CliRunner

from kschedx.cli.app import app
from kschedx.core.load.files import load_objects

ROOT = Path(__file__).resolve().parents[2]
CLUSTER = str(ROOT / "examples" / "cluster.yaml")
PENDING = str(ROOT / "examples" / "pending.yaml")


def run(*args: str, stdin: str | None = None) -> Any:
    return CliRunner().invoke(app, list(args), input=stdin, env={"NO_COLOR": "1", "COLUMNS": "120"})


def flat(text: str) -> str:
    return " ".join(text.split())


def test_a_running_pod_by_reference_and_by_its_own_yaml() -> None:
    ref = run("explain", "po/web-jhpfjcnhhl-2blqj", "-n", "shop", "-c", CLUSTER, "-o", "json")
    assert ref.exit_code == 0, ref.output
    out = json.loads(ref.stdout)
    assert out["currentNode"] == "general-a1" and isinstance(out["agreesWithCurrentNode"], bool)
    raw = next(o for o, _ in load_objects(CLUSTER) if o["kind"] == "Pod"
               and o["metadata"]["name"] == "web-jhpfjcnhhl-2blqj")
    by_yaml = run("explain", "-", "-c", CLUSTER, "-o", "json", stdin=yaml.safe_dump(raw))
    assert by_yaml.exit_code == 0, by_yaml.output
    assert json.loads(by_yaml.stdout) == out
    table = run("explain", "pod/web-jhpfjcnhhl-2blqj", "-n", "shop", "-c", CLUSTER)
    assert "Now on general-a1 (Running):" in flat(table.stdout)


def test_a_cordoned_node_is_named_as_the_cause(tmp_path: Path) -> None:
    res = run("explain", "pod/web-6d4cf56db6-9wq7m", "-n", "shop", "-c", PENDING)
    assert res.exit_code == 0, res.output
    text = flat(res.stdout)
    assert "Now on node-b (Running): ≠ this cycle picks node-d" in text
    assert "node-b is infeasible now: NodeUnschedulable: node(s) were unschedulable" in text


def test_a_pending_pod_by_reference() -> None:
    res = run("explain", "pod/report-big-x7k2p", "-n", "batch", "-c", PENDING, "-o", "json")
    assert res.exit_code == 1
    out = json.loads(res.stdout)
    assert out["currentNode"] is None and out["agreesWithCurrentNode"] is None and out["currentPhase"] == "Pending"


def test_workload_references_go_down_the_workload_path(tmp_path: Path) -> None:
    deploy = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "hello", "namespace": "shop"},
              "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "hello"}},
                       "template": {"metadata": {"labels": {"app": "hello"}},
                                    "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}
    cron = {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "tick", "namespace": "batch"},
            "spec": {"schedule": "* * * * *", "jobTemplate": {"spec": {"template": {
                "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}}}}
    extra = tmp_path / "workloads.yaml"
    extra.write_text(yaml.safe_dump_all([deploy, cron]))
    for ref, ns, rule in (("deploy/hello", "shop", "Deployment:"), ("cj/tick", "batch", "CronJob:"),
                          ("sts/kafka", "data", "StatefulSet:"), ("ds/kube-proxy", "kube-system", "DaemonSet:"),
                          ("rs/web-jhpfjcnhhl", "shop", "ReplicaSet:")):
        res = run("explain", ref, "-n", ns, "-c", CLUSTER, "-c", str(extra), "-o", "json")
        assert res.exit_code in (0, 1), res.output
        notes = json.loads(res.stdout)["notes"]
        assert notes[0].startswith(rule), (ref, notes)


def test_reference_errors_are_exit_2() -> None:
    res = run("explain", "deploy/web", "-n", "shop", "-c", CLUSTER)
    assert res.exit_code == 2
    assert "holds no Deployment at all" in flat(res.output)
    res = run("explain", "pod/nope", "-n", "shop", "-c", CLUSTER)
    assert res.exit_code == 2 and 'pods "nope" not found in namespace "shop"' in flat(res.output)
    res = run("explain", "pod/web-jhpfjcnhhl-2blqj", "-n", "shop", "--doc", "x", "-c", CLUSTER)
    assert res.exit_code == 2 and "--doc" in res.output


def test_no_nodes_names_the_files(tmp_path: Path) -> None:
    objects = [o for o, _ in load_objects(PENDING) if o["kind"] != "Node"]
    dump = tmp_path / "nodeless.yaml"
    dump.write_text(yaml.safe_dump_all(objects))
    res = run("explain", "pod/report-big-x7k2p", "-n", "batch", "-c", str(dump), "-o", "json")
    assert res.exit_code == 1
    out = json.loads(res.stdout)
    assert out["fitError"] == "no nodes available to schedule pods"
    assert any(w.startswith(f"no Node in {dump}") for w in out["warnings"])
    table = run("explain", "pod/report-big-x7k2p", "-n", "batch", "-c", str(dump))
    assert "no nodes available to schedule pods" in flat(table.stdout + table.output)

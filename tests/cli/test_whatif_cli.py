"""`kschedx explain` with --replicas, what-if edits and DaemonSets, through Typer's CliRunner."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from .test_explain_cli import CLUSTER, TOO_BIG, WEB, assert_input_error, run, write

DAEMONSET = """\
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: log-agent, namespace: kube-system}
spec:
  selector: {matchLabels: {app: log-agent}}
  template:
    metadata: {labels: {app: log-agent}}
    spec:
      nodeSelector: {node-pool: general}
      containers:
      - name: agent
        image: fluent/fluent-bit:3.1
        resources: {requests: {cpu: "%s", memory: 256Mi}}
"""


def as_json(*args: str) -> tuple[int, Any]:
    res = run(*args, "-o", "json")
    assert res.exit_code in (0, 1), res.output
    return res.exit_code, json.loads(res.stdout)


def test_replicas_json_steps_bind_each_copy() -> None:
    code, data = as_json("explain", WEB, "--cluster", CLUSTER, "--replicas", "4")
    assert code == 0
    assert data["replicasRequested"] == 4 and data["replicasPlaced"] == 4
    steps = data["steps"]
    assert len(steps) == 4
    for i, step in enumerate(steps):
        assert step["pod"].endswith(f"-{i}")
        assert step["selectedNode"] == step["bestNodes"][0]
        assert data["summary"][i]["node"] == step["selectedNode"]
    # Each copy sees the previous ones: the first copy's node has one more pod in step 2.
    first = steps[0]["selectedNode"]
    if first in steps[1]["totals"]:
        assert steps[1]["totals"][first] <= steps[0]["totals"][first]


def test_replicas_auto_takes_the_workload_count() -> None:
    spec = yaml.safe_load(Path(WEB).read_text().split("---")[0])
    code, data = as_json("explain", WEB, "--cluster", CLUSTER, "--replicas", "auto")
    # web runs in the cluster with this template: auto is the replicas it misses.
    work = data["workload"]
    assert work["replicas"] == spec["spec"]["replicas"] and work["rule"] == "scale-up"
    assert data["replicasRequested"] == work["replicas"] - work["running"] == work["placed"] > 0


def test_replicas_stop_at_the_first_copy_that_does_not_fit() -> None:
    code, data = as_json("explain", TOO_BIG, "--cluster", CLUSTER, "--replicas", "3")
    assert code == 1
    assert data["replicasPlaced"] == 0 and len(data["steps"]) == 1
    assert data["steps"][0]["fitError"].startswith("0/12 nodes are available")


def test_replicas_table_has_one_row_per_copy() -> None:
    res = run("explain", WEB, "--cluster", CLUSTER, "--replicas", "3")
    assert res.exit_code == 0, res.output
    assert "Replica placement" in res.output and "Runner-up" in res.output and "Margin" in res.output
    assert "3 of 3 replicas placed" in res.output


def test_bad_replicas_value() -> None:
    assert_input_error(run("explain", WEB, "--cluster", CLUSTER, "--replicas", "lots"), "--replicas")


def test_cordon_and_without_node_change_the_verdicts() -> None:
    _, base = as_json("explain", WEB, "--cluster", CLUSTER)
    best = base["selectedNode"]
    _, cordoned = as_json("explain", WEB, "--cluster", CLUSTER, "--cordon", best)
    assert cordoned["nodes"][best] == {
        "feasible": False, "code": "UnschedulableAndUnresolvable", "plugin": "NodeUnschedulable",
        "reasons": ["node(s) were unschedulable"], "rejectedAt": "Filter",
    }
    assert cordoned["edits"] == [f"cordoned {best}"]
    _, removed = as_json("explain", WEB, "--cluster", CLUSTER, "--without-node", best)
    assert best not in removed["nodes"] and removed["numAllNodes"] == base["numAllNodes"] - 1


def test_drain_cordons_and_evicts() -> None:
    _, drained = as_json("explain", TOO_BIG, "--cluster", CLUSTER, "--drain", "highmem-a1")
    assert drained["nodes"]["highmem-a1"]["plugin"] == "NodeUnschedulable"
    assert drained["edits"][0].startswith("drained highmem-a1: cordoned, ")
    assert "0 pod(s) evicted" not in drained["edits"][0]


def test_add_node_makes_room(tmp_path: Path) -> None:
    tpl = write(tmp_path, "pool.yaml", yaml.safe_dump({
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": "xl", "labels": {"kubernetes.io/hostname": "xl",
                                               "topology.kubernetes.io/zone": "eu-west-1a"}},
        "status": {"capacity": {"cpu": "64", "memory": "512Gi", "pods": "110"}},
    }))
    code, data = as_json("explain", TOO_BIG, "--cluster", CLUSTER, "--add-node", tpl, "--add-node-count", "2")
    assert code == 0
    assert data["bestNodes"] == ["xl-0", "xl-1"] and data["selectedNode"] == "xl-0"
    assert any("tie" in w for w in data["warnings"])
    res = run("explain", TOO_BIG, "--cluster", CLUSTER, "--add-node", tpl)
    assert res.exit_code == 0 and "added 1 node(s)" in res.output


def test_unknown_node_in_an_edit_is_an_input_error() -> None:
    assert_input_error(run("explain", WEB, "--cluster", CLUSTER, "--cordon", "nope"), "--cordon nope")


def test_daemonset_per_node(tmp_path: Path) -> None:
    fits = write(tmp_path, "ds.yaml", DAEMONSET % "100m")
    code, data = as_json("explain", fits, "--cluster", CLUSTER)
    assert code == 0
    general = [n for n in data["nodes"] if n.startswith("general-")]
    assert all(data["nodes"][n]["fits"] for n in general)
    assert all(not v["targeted"] for n, v in data["nodes"].items() if not n.startswith("general-"))
    big = write(tmp_path, "big.yaml", DAEMONSET % "7")
    res = run("explain", big, "--cluster", CLUSTER)
    assert res.exit_code == 1
    assert "Daemon pod per node" in res.output and "pending" in res.output and "Insufficient cpu" in res.output


def test_node_focus_table_and_json() -> None:
    res = run("explain", WEB, "--cluster", CLUSTER, "--node", "gpu-a1")
    assert res.exit_code == 0, res.output
    assert "Node gpu-a1: not feasible (rejected at Filter)" in res.output
    assert "Filters, in order" in res.output and "← reported by the scheduler" in res.output
    assert "tolerate taint nvidia.com/gpu=present:NoSchedule" in res.output
    code, data = as_json("explain", WEB, "--cluster", CLUSTER, "--node", "gpu-a1")
    focus = data["focus"]
    assert focus["node"] == "gpu-a1" and focus["feasible"] is False
    reported = [f for f in focus["filters"] if f.get("reported")]
    assert [f["plugin"] for f in reported] == [data["nodes"]["gpu-a1"]["plugin"]] == ["TaintToleration"]
    best = data["selectedNode"]
    _, data = as_json("explain", WEB, "--cluster", CLUSTER, "--node", best)
    assert data["focus"]["rank"] == 1 and data["focus"]["hints"][0].startswith("the winner")
    assert "Scores and their inputs" in run("explain", WEB, "--cluster", CLUSTER, "--node", best).output


def test_node_focus_unknown_node() -> None:
    assert_input_error(run("explain", WEB, "--cluster", CLUSTER, "--node", "nope"), "--node nope")


def test_no_preemption_skips_post_filter() -> None:
    code, data = as_json("explain", TOO_BIG, "--cluster", CLUSTER)
    assert "preemption:" in data["fitError"]
    code, data = as_json("explain", TOO_BIG, "--cluster", CLUSTER, "--no-preemption")
    assert code == 1 and data["preemption"] is None
    assert data["fitError"] == data["fitErrorBeforePostFilter"] and "preemption:" not in data["fitError"]


def test_replica_tie_cell_counts_many_tied_nodes(tmp_path: Path) -> None:
    """Eight alike nodes tie for every copy: the Tie cell gives their count and the first
    names only (the table stays narrow however many tie); -o json still lists them all."""
    alloc = {"cpu": "4", "memory": "8Gi", "pods": "110"}
    nodes = [{"apiVersion": "v1", "kind": "Node",
              "metadata": {"name": f"a{i}", "labels": {"kubernetes.io/hostname": f"a{i}"}},
              "status": {"capacity": alloc, "allocatable": alloc, "conditions": [{"type": "Ready", "status": "True"}]}}
             for i in range(8)]
    cluster = write(tmp_path, "cluster.yaml", yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": nodes}))
    pod = write(tmp_path, "pod.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\n"
                "spec:\n  containers: [{name: c, image: nginx, resources: {requests: {cpu: 100m}}}]\n")
    # (--samples 0: the chains played with chance would name the nodes too, in their own block.)
    res = run("explain", pod, "--cluster", cluster, "--replicas", "2", "--samples", "0")
    assert res.exit_code == 0, res.output
    # Copy 0 ties with a1…a7 and copy 1 with a2…a7: neither row names the last tied nodes,
    # and the warnings sum the ties up instead of listing them per copy.
    assert "a1" in res.output and "a5" not in res.output and "a7" not in res.output
    assert "(the Tie column)" in " ".join(res.output.split())
    _, data = as_json("explain", pod, "--cluster", cluster, "--replicas", "2")
    assert data["steps"][0]["bestNodes"] == [f"a{i}" for i in range(8)]


def test_tie_cell_format() -> None:
    from kschedx.cli.render.steps import tie_cell

    assert tie_cell([]) == ""
    assert tie_cell(["a", "b", "c"]) == "a, b, c"
    assert tie_cell([f"n{i}" for i in range(300)]) == "300 nodes: n0, n1, n2, …"

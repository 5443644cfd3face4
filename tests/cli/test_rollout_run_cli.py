"""Changes to running workloads played to their end, through the CLI (issue 28, points 7 and
8): ``check`` says whether the rollout completes, ``explain --replicas auto`` shows the
first step and the whole sequence, and the pods land where the controller's pods would."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import yaml

from ..unit.helpers import node
from ..unit.test_rollout import NS, _deployment, _ds, _owner, _pod_of, _template
from .test_explain_cli import run

Dict = dict[str, Any]
WEB = {"app": "web"}


def _files(tmp_path: Path, cluster: list[Dict], manifest: Dict) -> tuple[str, str]:
    c = tmp_path / "cluster.yaml"
    c.write_text(yaml.safe_dump_all(cluster))
    m = tmp_path / "manifest.yaml"
    m.write_text(yaml.safe_dump(manifest))
    return str(c), str(m)


def _web_cluster(per_node: list[int], node_cpu: str | list[str] = "2", cpu: str = "1",
                 others: dict[str, str] | None = None) -> list[Dict]:
    """web's ReplicaSet web-6d4 with ``per_node[i]`` pods on node ni (as stored), and on
    nodes named in ``others`` a pod of something else requesting that much CPU."""
    cpus = node_cpu if isinstance(node_cpu, list) else [node_cpu] * len(per_node)
    tpl = _template({**WEB, "pod-template-hash": "6d4"}, cpu=cpu, stored=True)
    rs = {"apiVersion": "apps/v1", "kind": "ReplicaSet",
          "metadata": {"name": "web-6d4", "namespace": NS, "uid": "uid-ReplicaSet-web-6d4",
                       "ownerReferences": _owner("Deployment", "web"), "creationTimestamp": "2025-01-01T00:00:00Z"},
          "spec": {"replicas": sum(per_node), "selector": {"matchLabels": {**WEB, "pod-template-hash": "6d4"}},
                   "template": tpl}}
    out: list[Dict] = [node(f"n{i}", cpu=c) for i, c in enumerate(cpus)] + [rs]
    k = 0
    for i, count in enumerate(per_node):
        for _ in range(count):
            out.append(_pod_of(tpl, f"web-6d4-{k}", f"n{i}", ("ReplicaSet", "web-6d4")))
            k += 1
    for where, request in (others or {}).items():
        other = _template({"app": "other"}, cpu=request, stored=True)
        out.append(_pod_of(other, f"other-{where}", where, ("ReplicaSet", "other")))
    return out


def _check(tmp_path: Path, cluster: list[Dict], manifest: Dict) -> tuple[int, Dict]:
    c, m = _files(tmp_path, cluster, manifest)
    res = run("check", m, "--cluster", c, "-o", "json")
    (entry,) = json.loads(res.stdout)["results"]
    return res.exit_code, entry


# --------------------------------------------------------------------------- Deployment

def test_a_full_cluster_rolls_out_through_max_unavailable(tmp_path: Path) -> None:
    # Two 2-CPU nodes full of web's four 1-CPU pods: the surge pod finds no room, but
    # maxUnavailable (25% of 4: 1) lets one old pod go at a time, and each new pod takes
    # its place.
    code, entry = _check(tmp_path, _web_cluster([2, 2]), _deployment(4, image="web:2"))
    assert code == 0 and entry["verdict"] == "fits", entry["message"]
    rollout = entry["explanation"]["workload"]["rollout"]
    assert (rollout["completes"], rollout["done"], rollout["oldLeft"], rollout["stuckAfter"]) == (True, 4, 0, None)
    assert "surge blocked; relies on maxUnavailable: capacity drops to 3 of 4 during the rollout" in entry["message"]
    actions = [s["action"] for s in rollout["steps"]]
    assert actions.count("deleted") == 4 and actions.count("placed") == 4


def test_max_surge_100_percent_with_room_for_some_completes(tmp_path: Path) -> None:
    # 8 replicas, maxSurge 100%, maxUnavailable 0: room for 6 new pods beside the old ones;
    # as they become available the old ReplicaSet is scaled down and the last 2 fit.
    strategy = {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "100%", "maxUnavailable": 0}}
    code, entry = _check(tmp_path, _web_cluster([2, 2, 2, 2, 0], node_cpu=["3", "3", "3", "3", "2"]),
                         _deployment(8, image="web:2", strategy=strategy))
    assert code == 0, entry["message"]
    rollout = entry["explanation"]["workload"]["rollout"]
    assert rollout["completes"] and rollout["lowestAvailable"] == 8
    assert [s["action"] for s in rollout["steps"][:8]] == ["placed"] * 6 + ["pending"] * 2
    assert rollout["firstStep"] == "6 of 8 surge pod(s) placed; the rest wait for old pods to go"


def test_a_host_port_ingress_controller_rolls_out_through_max_unavailable(tmp_path: Path) -> None:
    ports = [{"containerPort": 80, "hostPort": 80}]
    tpl = _template({**WEB, "pod-template-hash": "6d4"}, stored=True, ports=ports)
    cluster = _web_cluster([1, 1, 1], node_cpu="4")
    for o in cluster:
        if o["kind"] == "ReplicaSet":
            o["spec"]["template"] = tpl
        elif o["kind"] == "Pod":
            o["spec"] = dict(copy.deepcopy(tpl["spec"]), nodeName=o["spec"]["nodeName"])
    dep = _deployment(3, image="web:2", strategy={"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1}})
    dep["spec"]["template"]["spec"]["containers"][0]["ports"] = ports
    code, entry = _check(tmp_path, cluster, dep)
    assert code == 0, entry["message"]
    rollout = entry["explanation"]["workload"]["rollout"]
    assert rollout["completes"] and rollout["done"] == 3
    # Each new pod waits for an old one to free port 80 on its node.
    first = rollout["steps"][0]
    assert first["action"] == "pending" and "free ports" in first["fitError"]


def test_a_rollout_that_passes_its_first_step_then_gets_stuck(tmp_path: Path) -> None:
    # CPU 1 -> 5 on three 8-CPU nodes running six 1-CPU pods: the first two surge pods fit,
    # then old pods go as maxUnavailable allows, and the new pods need 5 CPUs each: only
    # one fits per node.
    cluster = _web_cluster([2, 2, 2], node_cpu="8")
    code, entry = _check(tmp_path, cluster, _deployment(6, cpu="5"))
    assert code == 1 and entry["verdict"] != "fits", entry["message"]
    rollout = entry["explanation"]["workload"]["rollout"]
    assert not rollout["completes"] and rollout["stuckAfter"] == 3 and rollout["oldLeft"] > 0
    assert rollout["firstStep"].startswith("2 new pod(s) placed")
    assert "Insufficient cpu" in rollout["fitError"]
    assert f"stuck after 3 of 6, {rollout['oldLeft']} old pod(s) left" in entry["message"]
    # explain --replicas auto: the first step, then the whole sequence.
    c, m = tmp_path / "cluster.yaml", tmp_path / "manifest.yaml"
    table = run("explain", str(m), "--cluster", str(c), "--replicas", "auto")
    assert table.exit_code == 1
    text = " ".join(table.output.split())
    assert "Replica placement" in text and "Rollout to the end" in text and "web-6d4-0 deleted" in text
    # The HTML report: the first step placed its 2 copies, the rollout is stuck.
    html = run("explain", str(m), "--cluster", str(c), "--replicas", "auto", "-o", "html").stdout
    assert "✓ all fit</span> 2 of 2 replicas placed" in html and "✗ stuck</span> the rollout gets stuck" in html


def test_recreate_removes_every_old_pod_first(tmp_path: Path) -> None:
    code, entry = _check(tmp_path, _web_cluster([2, 2]), _deployment(4, image="web:2",
                                                                      strategy={"type": "Recreate"}))
    assert code == 0, entry["message"]
    rollout = entry["explanation"]["workload"]["rollout"]
    assert rollout["completes"] and rollout["lowestAvailable"] == 0
    assert [s["action"] for s in rollout["steps"][:4]] == ["deleted"] * 4
    # New pods of 3 CPUs find no 2-CPU node: every old pod is gone and nothing replaces it.
    code, entry = _check(tmp_path, _web_cluster([2, 2]), _deployment(4, cpu="3", strategy={"type": "Recreate"}))
    assert code == 1
    rollout = entry["explanation"]["workload"]["rollout"]
    assert (rollout["completes"], rollout["done"], rollout["oldLeft"], rollout["lost"]) == (False, 0, 0, 4)
    assert "it lost 4 pod(s) on the way" in entry["message"]


def test_a_scale_up_spreads_with_its_running_pods(tmp_path: Path) -> None:
    # n0 is big and holds web's 3 pods; n1 is small. By resources alone n0 wins, but the
    # new pod belongs to web's running ReplicaSet, so default spreading counts 3 pods on
    # n0 and none on n1, as the real scheduler does.
    cluster = _web_cluster([3, 0], node_cpu=["16", "4"], others={"n1": "1"})
    c, m = _files(tmp_path, cluster, _deployment(4))
    res = run("explain", m, "--cluster", c, "--replicas", "auto", "-o", "json")
    data = json.loads(res.stdout)
    assert data["workload"]["rule"] == "scale-up" and data["replicasPlaced"] == 1
    (step,) = data["summary"]
    assert step["pod"].startswith(f"{NS}/web-6d4-") and step["node"] == "n1"


# --------------------------------------------------------------------------- StatefulSet

def _db(replicas: int, cpu: str = "1", image: str = "db:1") -> Dict:
    return {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db", "namespace": NS},
            "spec": {"replicas": replicas, "serviceName": "db", "selector": {"matchLabels": {"app": "db"}},
                     "template": _template({"app": "db"}, image=image, cpu=cpu)}}


def _db_cluster() -> list[Dict]:
    """db-0 … db-2 of 1 CPU on three 2-CPU nodes; something else takes 1 CPU on n1 and n2."""
    sts = _db(3)
    sts["metadata"]["uid"] = "uid-StatefulSet-db"
    sts["status"] = {"currentRevision": "db-1", "updateRevision": "db-1"}
    out: list[Dict] = [node(f"n{i}", cpu="2") for i in range(3)] + [sts]
    for i in range(3):
        tpl = _template({"app": "db", "controller-revision-hash": "db-1"}, image="db:1")
        out.append(_pod_of(tpl, f"db-{i}", f"n{i}", ("StatefulSet", "db")))
    for n in ("n1", "n2"):
        out.append(_pod_of(_template({"app": "other"}), f"other-{n}", n, ("ReplicaSet", "other")))
    return out


def test_a_statefulset_step_removes_only_the_ordinal_it_replaces(tmp_path: Path) -> None:
    # db-2 goes to 2 CPUs: with db-2 deleted, n2 has 1 CPU free, as n0 has beside db-0 (which
    # stays): the new db-2 fits nowhere, and the rollout stops there, one pod down.
    code, entry = _check(tmp_path, _db_cluster(), _db(3, cpu="2"))
    assert code == 1, entry["message"]
    rollout = entry["explanation"]["workload"]["rollout"]
    assert [s["action"] for s in rollout["steps"]] == ["deleted", "pending"]
    assert rollout["steps"][0]["pod"] == f"{NS}/db-2" and rollout["blockedPod"] == f"{NS}/db-2"
    assert (rollout["done"], rollout["oldLeft"], rollout["lost"]) == (0, 2, 1)
    # The first step shown by explain: db-2 alone, Insufficient cpu on every node.
    c, m = tmp_path / "cluster.yaml", tmp_path / "manifest.yaml"
    res = run("explain", str(m), "--cluster", str(c), "--replicas", "auto", "-o", "json")
    data = json.loads(res.stdout)
    (step,) = data["summary"]
    assert step["pod"] == f"{NS}/db-2" and step["node"] is None
    # An image change fits: each ordinal goes back where it was, from the highest down.
    code, entry = _check(tmp_path, _db_cluster(), _db(3, image="db:2"))
    assert code == 0, entry["message"]
    rollout = entry["explanation"]["workload"]["rollout"]
    assert [s["pod"] for s in rollout["steps"] if s["action"] == "deleted"] == [f"{NS}/db-{i}" for i in (2, 1, 0)]


# --------------------------------------------------------------------------- DaemonSet

def _agent_cluster(cpus: list[str], ports: bool) -> list[Dict]:
    ds = _ds()
    ds["metadata"]["uid"] = "uid-DaemonSet-agent"
    if not ports:
        ds["spec"]["template"]["spec"]["containers"][0].pop("ports")
    out: list[Dict] = [node(f"n{i}", cpu=c) for i, c in enumerate(cpus)] + [ds]
    for i in range(len(cpus)):
        out.append(_pod_of(ds["spec"]["template"], f"agent-{i}", f"n{i}", ("DaemonSet", "agent")))
    return out


def test_a_daemonset_with_max_surge_starts_each_new_pod_beside_the_old_one(tmp_path: Path) -> None:
    surge = {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}}
    manifest = _ds(image="agent:2", strategy=surge)
    manifest["spec"]["template"]["spec"]["containers"][0].pop("ports")
    # Room for two daemon pods on n0 and n1, not on n2 (1 CPU).
    code, entry = _check(tmp_path, _agent_cluster(["4", "4", "1"], ports=False), manifest)
    assert code == 1, entry["message"]
    rollout = entry["explanation"]["workload"]["rollout"]
    assert (rollout["completes"], rollout["done"], rollout["oldLeft"], rollout["where"]) == (False, 2, 1, "n2")
    assert "stuck after 2 of 3, 1 old pod(s) left, on n2" in entry["message"]
    code, entry = _check(tmp_path, _agent_cluster(["4", "4", "4"], ports=False), manifest)
    assert code == 0 and entry["explanation"]["workload"]["rollout"]["lowestAvailable"] == 3
    # A host port cannot be shared with the old pod: every surge pod stays Pending.
    code, entry = _check(tmp_path, _agent_cluster(["4", "4", "4"], ports=True),
                         _ds(image="agent:2", strategy=surge))
    assert code == 1 and entry["explanation"]["workload"]["rollout"]["done"] == 0


# --------------------------------------------------------------------------- explain --replicas N

def test_explicit_replicas_on_a_running_workload_say_what_is_placed(tmp_path: Path) -> None:
    c, m = _files(tmp_path, _web_cluster([1, 1], node_cpu="8"), _deployment(3))
    res = run("explain", m, "--cluster", c, "--replicas", "4", "-o", "json")
    data = json.loads(res.stdout)
    note = data["workload"]["note"]
    assert data["workload"]["placed"] == 4
    assert note.startswith("--replicas 4: 4 new pod(s) placed beside the 2 running")
    assert note.endswith("; its controller would create 1 now")
    table = " ".join(run("explain", m, "--cluster", c, "--replicas", "4").output.split())
    assert "scale-up — --replicas 4: 4 new pod(s) placed beside the 2 running" in table
    assert "(2/3 running, 4 new placed)" in table


def test_a_statefulset_scale_up_numbers_its_copies_alike_everywhere(tmp_path: Path) -> None:
    # db runs 0…2; scaled to 5, db-3 fits beside db-0 on n0 and db-4 fits nowhere. The
    # table, its FitError line and the HTML report name the same copy and pod.
    c, m = _files(tmp_path, _db_cluster(), _db(5))
    table = " ".join(run("explain", m, "--cluster", c, "--replicas", "auto").output.split())
    assert f"Pods {NS}/db-{{3…4}}" in table
    assert f"FitError (copy 1, {NS}/db-4)" in table
    html = run("explain", m, "--cluster", c, "--replicas", "auto", "-o", "html").stdout
    assert f"Copy 1: {NS}/db-4, where the sequence stopped" in html and "copy 1 does not fit" in html


# --------------------------------------------------------------------------- in a release

def test_a_release_keeps_the_rollouts_end_state(tmp_path: Path) -> None:
    # web runs one 1-CPU pod on each of two 3-CPU nodes and goes to 2 CPUs: the rollout
    # completes, leaving 1 CPU free per node. A 1500m Pod placed after it in the release
    # fits after the first step (one node still holds only an old pod) but not after the
    # rollout's end, which is what the cluster will be.
    cluster = _web_cluster([1, 1], node_cpu="3")
    batch = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "batch", "namespace": NS},
             "spec": {"containers": [{"name": "c", "image": "batch:1", "resources": {"requests": {"cpu": "1500m"}}}]}}
    c, m = _files(tmp_path, cluster, _deployment(2, cpu="2"))
    (tmp_path / "manifest.yaml").write_text(yaml.safe_dump_all([_deployment(2, cpu="2"), batch]))
    res = run("check", m, "--cluster", c, "-o", "json")
    data = json.loads(res.stdout)
    web, pod = data["results"]
    assert web["explanation"]["workload"]["rollout"]["completes"], web["message"]
    assert pod["verdict"] == "unschedulable", pod["message"]
    assert pod["alone"]["verdict"] == "fits" and pod["alone"]["notAfter"] == ["Deployment/shop/web"]
    assert res.exit_code == 1
    separately = json.loads(run("check", m, "--cluster", c, "-o", "json", "--separately").stdout)
    assert [r["verdict"] for r in separately["results"]] == ["fits", "fits"]


def test_copy_numbers_agree_in_the_result_line_the_table_and_the_fit_error(tmp_path: Path) -> None:
    # Two copies of a pod no node can hold: copy 0 is where the sequence stops, in every line.
    big = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "big", "namespace": NS},
           "spec": {"containers": [{"name": "c", "image": "big:1", "resources": {"requests": {"cpu": "64"}}}]}}
    c, m = _files(tmp_path, [node("n0", cpu="2")], big)
    out = " ".join(run("explain", m, "--cluster", c, "--replicas", "2").stdout.split())
    assert "0 of 2 fit: copy 0 does not fit" in out
    assert f"FitError (copy 0, {NS}/big-0)" in out


def test_an_update_the_api_server_refuses_leaves_the_running_workload_as_it_is(tmp_path: Path) -> None:
    # db runs with 5Gi claims; a manifest asking for 10Gi changes its volumeClaimTemplates,
    # which ValidateStatefulSetUpdate forbids: kubectl apply fails, nothing changes.
    cluster = _db_cluster()
    stored = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "data"},
              "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "5Gi"}},
                       "volumeMode": "Filesystem"}, "status": {"phase": "Pending"}}
    cluster[3]["spec"]["volumeClaimTemplates"] = [stored]
    bigger = _db(3, image="db:2")
    bigger["spec"]["volumeClaimTemplates"] = [{"metadata": {"name": "data"}, "spec": {
        "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "10Gi"}}}}]
    c, m = _files(tmp_path, cluster, bigger)
    res = run("check", m, "--cluster", c, "-o", "json")
    assert res.exit_code == 1, res.output
    (entry,) = json.loads(res.stdout)["results"]
    assert entry["verdict"] == "unschedulable" and entry["new"] == 0
    assert entry["notApplied"] == (
        'StatefulSet.apps "db" is invalid: spec: Forbidden: updates to statefulset spec for fields other than '
        "'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', "
        "'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden")
    assert entry["message"].endswith("(the running StatefulSet stays as it is)")
    # The same claims written as 5120Mi, with a new count: the update is accepted.
    same = _db(2)
    same["spec"]["volumeClaimTemplates"] = [{"metadata": {"name": "data"}, "spec": {
        "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "5120Mi"}}}}]
    c, m = _files(tmp_path, cluster, same)
    (entry,) = json.loads(run("check", m, "--cluster", c, "-o", "json").stdout)["results"]
    assert "notApplied" not in entry and entry["replicas"] == 2, entry["message"]

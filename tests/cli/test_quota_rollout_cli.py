"""ResourceQuota where a release meets the workloads that already run (issue 28): what the
quota controller and admission see while a controller replaces pods, through the CLI.

A pod is charged once, when it is created (a running workload's Pending pods were charged
already); a pod its controller deletes gives its usage back once the deletion completes,
so a rollout through maxUnavailable proceeds at the quota while a surge pod is refused
(`exceeded quota`) as long as every old pod still counts; the DaemonSet controller's pods
are admitted like any other."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from ..unit.helpers import node
from ..unit.test_rollout import NS, _deployment, _ds, _pod_of, _template
from .test_explain_cli import run
from .test_rollout_run_cli import WEB, _db, _db_cluster, _files, _web_cluster

Dict = dict[str, Any]


def _quota(pods: int, name: str = "pods-quota") -> Dict:
    """A quota on the pod count without status: counted as the quota controller would."""
    return {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": name, "namespace": NS},
            "spec": {"hard": {"pods": str(pods)}}}


def _check(tmp_path: Path, cluster: list[Dict], manifest: Dict) -> tuple[int, Dict]:
    c, m = _files(tmp_path, cluster, manifest)
    res = run("check", m, "--cluster", c, "-o", "json")
    assert res.exit_code in (0, 1), res.output
    (entry,) = json.loads(res.stdout)["results"]
    return res.exit_code, entry


ROOMY = ["4", "4"]  # room for a surge pod: only the quota can stop it


def test_a_rollout_through_max_unavailable_proceeds_at_the_quota(tmp_path: Path) -> None:
    # Four pods, quota of four: each old pod deleted frees its slot before its
    # replacement is created.
    no_surge = {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 0, "maxUnavailable": 1}}
    cluster = [*_web_cluster([2, 2], ROOMY), _quota(4)]
    code, entry = _check(tmp_path, cluster, _deployment(4, image="web:2", strategy=no_surge))
    assert code == 0 and entry["verdict"] == "fits", entry["message"]
    rollout = entry["explanation"]["workload"]["rollout"]
    assert (rollout["completes"], rollout["done"], rollout["oldLeft"]) == (True, 4, 0)
    # Recreate: every old pod goes first, so the new ones fit in the quota too.
    code, entry = _check(tmp_path, cluster, _deployment(4, image="web:2", strategy={"type": "Recreate"}))
    assert code == 0 and entry["verdict"] == "fits", entry["message"]


def test_a_surge_pod_at_the_quota_is_refused_and_max_unavailable_carries_the_rollout(tmp_path: Path) -> None:
    # Default strategy (maxSurge 1, maxUnavailable 1 of 4): the surge pod is refused while
    # the four old pods count, an old pod is deleted within maxUnavailable, and the
    # controller's retried create then fits in the quota.
    cluster = [*_web_cluster([2, 2], ROOMY), _quota(4)]
    code, entry = _check(tmp_path, cluster, _deployment(4, image="web:2"))
    assert code == 0, entry["message"]
    rollout = entry["explanation"]["workload"]["rollout"]
    assert rollout["completes"] and rollout["done"] == 4
    first = next(s for s in rollout["steps"] if s["action"] != "deleted")
    assert first["action"] == "refused"  # the surge pod is never created
    assert "exceeded quota: pods-quota, requested: pods=1, used: pods=4, limited: pods=4" in first["fitError"]


def test_a_rollout_stuck_on_the_quota_says_so_in_the_api_servers_words(tmp_path: Path) -> None:
    # maxUnavailable 0: no old pod goes before a new one is available, and no new one can
    # be created while the old ones fill the quota.
    surge_only = {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}}
    cluster = [*_web_cluster([2, 2], ROOMY), _quota(4)]
    code, entry = _check(tmp_path, cluster, _deployment(4, image="web:2", strategy=surge_only))
    assert code == 1, entry["message"]
    rollout = entry["explanation"]["workload"]["rollout"]
    assert (rollout["completes"], rollout["done"], rollout["oldLeft"]) == (False, 0, 4)
    assert rollout["fitError"].startswith("ReplicaSet web-")
    assert ": FailedCreate: Error creating: pods \"web-" in rollout["fitError"]
    assert rollout["fitError"].endswith(
        "is forbidden: exceeded quota: pods-quota, requested: pods=1, used: pods=4, limited: pods=4")
    assert "exceeded quota: pods-quota" in entry["message"]
    assert "1 new pod(s) not created (web-" in entry["message"]
    # With one slot more the same rollout completes.
    code, entry = _check(tmp_path, [*_web_cluster([2, 2], ROOMY), _quota(5)],
                         _deployment(4, image="web:2", strategy=surge_only))
    assert code == 0, entry["message"]


def test_a_running_workloads_pending_pod_is_not_charged_again(tmp_path: Path) -> None:
    # web runs 2 of 3 pods; its third is Pending (it exists, so the quota of 3 counts it).
    # Applying the same Deployment places that Pending pod: no new pod is created.
    cluster = _web_cluster([1, 1], ROOMY)
    tpl = _template({**WEB, "pod-template-hash": "6d4"}, stored=True)
    cluster.append(_pod_of(tpl, "web-6d4-pending", None, ("ReplicaSet", "web-6d4")))
    rs = next(o for o in cluster if o["kind"] == "ReplicaSet")
    rs["spec"]["replicas"] = 3
    code, entry = _check(tmp_path, [*cluster, _quota(3)], _deployment(3))
    assert code == 0 and entry["verdict"] == "fits", entry["message"]
    assert entry["placed"] == 1
    # A fourth replica is a new pod: the quota refuses it.
    code, entry = _check(tmp_path, [*cluster, _quota(3)], _deployment(4))
    assert code == 1, entry["message"]
    assert "exceeded quota: pods-quota, requested: pods=1, used: pods=3, limited: pods=3" in entry["message"]


def test_daemonset_pods_are_charged_to_the_quota(tmp_path: Path) -> None:
    # Three nodes, room everywhere, a quota of two pods: the DaemonSet controller's third
    # create is refused and that node stays without its daemon pod.
    manifest = _ds()
    code, entry = _check(tmp_path, [node("n0"), node("n1"), node("n2"), _quota(2)], manifest)
    assert code == 1, entry["message"]
    assert entry["verdict"] == "partial" and entry["placed"] == 2, entry["message"]
    assert "not created on n2 (which nodes go without is the DaemonSet controller's draw: its node list has no " \
        "fixed order): DaemonSet agent: FailedCreate: Error creating: pods \"agent-" in entry["message"]
    assert entry["message"].endswith(
        "is forbidden: exceeded quota: pods-quota, requested: pods=1, used: pods=2, limited: pods=2")
    code, entry = _check(tmp_path, [node("n0"), node("n1"), node("n2"), _quota(3)], manifest)
    assert code == 0, entry["message"]


def test_a_release_counts_the_quota_as_the_rollout_leaves_it(tmp_path: Path) -> None:
    # web's four pods replaced one at a time (maxSurge 0): at the end four pods count, so
    # the release's new api Deployment still has the two slots of a quota of six.
    no_surge = {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 0, "maxUnavailable": 1}}
    api = _deployment(2, image="api:1")
    api["metadata"]["name"] = "api"
    api["spec"]["selector"]["matchLabels"] = {"app": "api"}
    api["spec"]["template"]["metadata"]["labels"] = {"app": "api"}
    c, _ = _files(tmp_path, [*_web_cluster([2, 2], ["8", "8"]), _quota(6)], api)
    m = tmp_path / "release.yaml"
    m.write_text(yaml.safe_dump_all([_deployment(4, image="web:2", strategy=no_surge), api]))
    res = run("check", str(m), "--cluster", c, "-o", "json")
    assert res.exit_code == 0, res.output
    results = {r["name"]: r for r in json.loads(res.stdout)["results"]}
    assert results["web"]["verdict"] == "fits", results["web"]["message"]
    assert results["api"]["verdict"] == "fits", results["api"]["message"]
    # A quota of five: the rollout still completes (each deletion frees a slot), api's
    # second pod is refused.
    c, _ = _files(tmp_path, [*_web_cluster([2, 2], ["8", "8"]), _quota(5)], api)
    res = run("check", str(m), "--cluster", c, "-o", "json")
    results = {r["name"]: r for r in json.loads(res.stdout)["results"]}
    assert results["web"]["verdict"] == "fits", results["web"]["message"]
    assert results["api"]["verdict"] == "partial", results["api"]["message"]
    assert "exceeded quota: pods-quota, requested: pods=1, used: pods=5, limited: pods=5" in results["api"]["message"]


def test_a_statefulset_rollout_at_the_quota_replaces_each_ordinal(tmp_path: Path) -> None:
    # Each ordinal's pod is deleted, and gone, before it is created again: five pods in
    # the namespace (db's three, two others), a quota of five, and the rollout completes
    # from db-2 down.
    code, entry = _check(tmp_path, [*_db_cluster(), _quota(5)], _db(3, image="db:2"))
    assert code == 0, entry["message"]
    rollout = entry["explanation"]["workload"]["rollout"]
    assert rollout["completes"] and [s["action"] for s in rollout["steps"]] == ["deleted", "placed"] * 3


def _release(tmp_path: Path, cluster: list[Dict], *manifests: Dict) -> tuple[int, Dict]:
    c, _ = _files(tmp_path, cluster, manifests[0])
    m = tmp_path / "release.yaml"
    m.write_text(yaml.safe_dump_all(list(manifests)))
    res = run("check", str(m), "--cluster", c, "-o", "json")
    assert res.exit_code in (0, 1), res.output
    return res.exit_code, json.loads(res.stdout)


def _api(replicas: int) -> Dict:
    api = _deployment(replicas, image="api:1", cpu="0")
    api["metadata"]["name"] = "api"
    api["spec"]["selector"]["matchLabels"] = {"app": "api"}
    api["spec"]["template"]["metadata"]["labels"] = {"app": "api"}
    return api


def test_a_daemon_pod_that_stays_pending_holds_its_quota(tmp_path: Path) -> None:
    # n0 has no room for the 1-CPU daemon pod, but its taints and affinity let it run
    # there: the DaemonSet controller creates it (Pending) and it counts in the quota of
    # two pods, which leaves api's pod out.
    code, data = _release(tmp_path, [node("n0", cpu="500m"), node("n1"), _quota(2)], _ds(), _api(1))
    assert code == 1
    agent, api = data["results"]
    assert (agent["placed"], agent["pending"], agent["notCreated"]) == (1, 1, 0), agent["message"]
    assert "pending on n0" in agent["message"]
    assert api["rejected"].endswith("exceeded quota: pods-quota, requested: pods=1, used: pods=2, limited: pods=2")
    # api never runs: no pod of it exists, none is Pending.
    assert data["release"]["pods"] == {"new": 2, "placed": 1, "pending": 1, "notCreated": 0}


def test_pending_copies_are_created_and_charged_refused_ones_are_not_pending(tmp_path: Path) -> None:
    # web: 4 copies of 1 CPU on one 2-CPU node, 2 placed; the ReplicaSet controller creates
    # the other 2 as well (Pending): 4 of the 5 pods of the quota. api's second pod is refused.
    code, data = _release(tmp_path, [node("n0", cpu="2"), _quota(5)], _deployment(4), _api(2))
    assert code == 1
    web, api = data["results"]
    assert (web["placed"], web["pending"], web["notCreated"]) == (2, 2, 0), web["message"]
    assert (api["placed"], api["pending"], api["notCreated"]) == (1, 0, 1), api["message"]
    assert "exceeded quota: pods-quota, requested: pods=1, used: pods=5, limited: pods=5" in api["message"]
    assert data["release"]["pods"] == {"new": 6, "placed": 3, "pending": 2, "notCreated": 1}
    assert data["release"]["notCreated"] == [{"workload": "Deployment/shop/api", "pods": 1}]
    out = " ".join(run("check", str(tmp_path / "release.yaml"), "--cluster", str(tmp_path / "cluster.yaml"))
                   .output.split())
    assert "Release: fits partly — 2 of 6 new pod(s) stay Pending, 1 not created (2 of 2 workload(s) short)" in out


def test_an_ordered_statefulset_creates_no_ordinal_after_a_pending_one(tmp_path: Path) -> None:
    # db-0 and db-1 fill the 2-CPU node, db-2 stays Pending: OrderedReady waits for it to
    # run and be ready, so db-3 is never created; Parallel creates it too (Pending).
    code, data = _release(tmp_path, [node("n0", cpu="2")], _db(4))
    (db,) = data["results"]
    assert code == 1 and (db["placed"], db["pending"], db["notCreated"]) == (2, 1, 1), db["message"]
    assert "; the 1 after it not created (OrderedReady: each ordinal once the one before runs)" in db["message"]
    parallel = _db(4)
    parallel["spec"]["podManagementPolicy"] = "Parallel"
    code, data = _release(tmp_path, [node("n0", cpu="2")], parallel)
    (db,) = data["results"]
    assert code == 1 and (db["placed"], db["pending"], db["notCreated"]) == (2, 2, 0), db["message"]
    assert data["release"]["pods"] == {"new": 4, "placed": 2, "pending": 2, "notCreated": 0}


def test_copies_after_a_pending_one_are_created_until_the_quota_refuses_them(tmp_path: Path) -> None:
    # 2 of web's 4 pods fit; the third is created and stays Pending (the third of the
    # quota's 3 pods), the fourth is refused: 1 Pending, 1 never created.
    code, data = _release(tmp_path, [node("n0", cpu="2"), _quota(3)], _deployment(4))
    (web,) = data["results"]
    assert code == 1 and (web["placed"], web["pending"], web["notCreated"]) == (2, 1, 1), web["message"]
    assert "Insufficient cpu" in web["message"]
    assert "; the 1 after it not created (ReplicaSet web-" in web["message"]
    assert web["message"].endswith("exceeded quota: pods-quota, requested: pods=1, used: pods=3, limited: pods=3)")

"""Existing objects: references, the identity of an explained pod, and agreement causes."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from kschedx.core.api.objects import ClusterObjects
from kschedx.core.errors import InputError
from kschedx.core.explain import front as engine
from kschedx.core.explain.existing import detached, find_object, take_out
from kschedx.core.load.references import REFERENCE_KINDS, parse_reference
from kschedx.core.snapshot import Snapshot

from .helpers import node, pod

Dict = dict[str, Any]
ROOT = Path(__file__).resolve().parents[2]


def objects_of(*objs: Dict) -> ClusterObjects:
    out = ClusterObjects()
    for o in objs:
        out.add(copy.deepcopy(o))
    return out


def explain(obj: Dict, objects: ClusterObjects, **kw: Any) -> Any:
    return engine.explain_object(copy.deepcopy(obj), "<manifest>", objects, **kw).steps[0]


@pytest.mark.parametrize("text,kind", [
    ("pod/a", "Pod"), ("po/a", "Pod"), ("pods/a", "Pod"), ("deployment/a", "Deployment"), ("deploy/a", "Deployment"),
    ("deployments.apps/a", "Deployment"), ("statefulset/a", "StatefulSet"), ("sts/a", "StatefulSet"),
    ("daemonset/a", "DaemonSet"), ("ds/a", "DaemonSet"), ("replicaset/a", "ReplicaSet"), ("rs/a", "ReplicaSet"),
    ("job/a", "Job"), ("cronjob/a", "CronJob"), ("cj/a", "CronJob"), ("Deployment/a", "Deployment"),
])
def test_reference_kinds(text: str, kind: str) -> None:
    ref = parse_reference(text)
    assert ref is not None and ref.kind.kind == kind and ref.name == "a"


def test_files_win_over_references(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "pod").mkdir()
    (tmp_path / "pod" / "x.yaml").write_text("kind: Pod\n")
    monkeypatch.chdir(tmp_path)
    assert parse_reference("pod/x.yaml") is None
    assert parse_reference("-") is None
    assert parse_reference("web.yaml") is None
    assert parse_reference("service/web") is None  # not a pod-bearing kind
    assert parse_reference("pod/Not_A_Name") is None


def test_api_paths() -> None:
    assert REFERENCE_KINDS["po"].path("ns", "p") == "/api/v1/namespaces/ns/pods/p"
    assert REFERENCE_KINDS["deploy"].path("ns", "d") == "/apis/apps/v1/namespaces/ns/deployments/d"
    assert REFERENCE_KINDS["cj"].path("ns", "c") == "/apis/batch/v1/namespaces/ns/cronjobs/c"


def test_reference_errors() -> None:
    objs = objects_of(node("n1"), pod("a", node_name="n1", namespace="x"))
    ref = parse_reference("pod/a")
    assert ref is not None
    with pytest.raises(InputError, match='pods "a" not found in namespace "default" of dump.yaml; there is one in '
                                         "namespace x"):
        find_object(objs, ref, "default", "dump.yaml")
    dref = parse_reference("ds/agent")
    assert dref is not None
    with pytest.raises(InputError, match="dump.yaml holds no DaemonSet at all"):
        find_object(objs, dref, "default", "dump.yaml")
    assert find_object(objs, ref, "x", "dump.yaml")["metadata"]["name"] == "a"


def test_take_out_removes_the_pod_and_its_claim_reservations() -> None:
    me = pod("me", "1", node_name="n1")
    claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
             "metadata": {"name": "c", "namespace": "default"},
             "status": {"reservedFor": [{"resource": "pods", "name": "me", "uid": "uid-default-me"},
                                        {"resource": "pods", "name": "other", "uid": "u2"}]}}
    objs = objects_of(node("n1"), me, pod("other", "1", node_name="n1"), claim)
    out, current = take_out(objs, pod("me"))
    assert current is not None and current.node == "n1" and current.phase == "Running"
    assert [p["metadata"]["name"] for p in out.of("Pod")] == ["other"]
    assert [e["name"] for e in out.of("ResourceClaim")[0]["status"]["reservedFor"]] == ["other"]
    # The caller's objects are untouched; by uid alone the pod is found too.
    assert len(objs.of("Pod")) == 2 and len(objs.of("ResourceClaim")[0]["status"]["reservedFor"]) == 2
    renamed = pod("renamed")
    renamed["metadata"]["uid"] = "uid-default-me"
    assert take_out(objs, renamed)[1] is not None
    assert take_out(objs, pod("stranger"))[1] is None


def test_detached_takes_the_pod_out_of_a_built_snapshot_and_puts_it_back() -> None:
    me = pod("me", "3", node_name="n1", labels={"app": "x"})
    nominated = pod("nom", "1")
    nominated["status"]["nominatedNodeName"] = "n1"
    objs = objects_of(node("n1"), me, nominated)
    snap = Snapshot(objs)
    ni = snap.get("n1")
    assert ni is not None
    before = dict(ni.requested)
    raw = objs.of("Pod")[0]
    with detached(snap, raw) as current:
        assert current.node == "n1"
        assert ni.requested.get("cpu") == 0 and not ni.pods
    assert ni.requested == before and len(ni.pods) == 1
    with detached(snap, objs.of("Pod")[1]):
        assert not snap.nominated["n1"]
    assert [p.name for p in snap.nominated["n1"]] == ["nom"]


def test_identity_in_a_shared_snapshot_equals_a_fresh_one() -> None:
    objs = engine.load_cluster_files([str(ROOT / "examples" / "cluster.yaml")])
    target = next(p for p in objs.of("Pod") if p["metadata"]["name"] == "web-jhpfjcnhhl-2blqj")
    fresh = explain(target, objs)
    snap = engine.build_snapshot(objs)
    pods_before = sum(len(ni.pods) for ni in snap.nodes())
    # A shared snapshot is check's: it asks for the odds an explanation tells unasked.
    shared = engine.explain_object(copy.deepcopy(target), "<manifest>", objs, snapshot=snap,
                                   options=engine.Options(odds=True)).steps[0]
    assert shared.to_json() == fresh.to_json()
    assert fresh.current is not None and fresh.current.node == "general-a1"
    assert sum(len(ni.pods) for ni in snap.nodes()) == pods_before


def test_a_running_pod_does_not_count_against_itself() -> None:
    # n1 is full with the pod itself; without identity it could not fit there.
    me = pod("me", "4", node_name="n1")
    me["spec"]["containers"][0]["ports"] = [{"containerPort": 80, "hostPort": 80}]
    objs = objects_of(node("n1", cpu="4"), me)
    res = explain(me, objs)
    assert res.selected_node == "n1"
    assert res.current.node == "n1" and res.current.agrees is True and not res.current.causes
    data = res.to_json()
    assert data["currentNode"] == "n1" and data["agreesWithCurrentNode"] is True


def test_cause_the_node_is_cordoned_now() -> None:
    me = pod("me", "1", node_name="n1")
    objs = objects_of(node("n1", unschedulable=True), node("n2"), me)
    res = explain(me, objs)
    assert res.current.agrees is False and res.selected_node == "n2"
    assert any(c.startswith("n1 is infeasible now: NodeUnschedulable: node(s) were unschedulable")
               for c in res.current.causes)


def test_cause_a_tie() -> None:
    me = pod("me", "1", node_name="n2")
    objs = objects_of(node("n1"), node("n2"), me)
    res = explain(me, objs)
    assert res.selected_node == "n1" and res.current.agrees is False
    assert any(c.startswith("a tie the scheduler broke at random: n2 is one of the 2 best nodes")
               for c in res.current.causes)


def test_cause_another_scheduler_a_static_pod_and_no_scheduled_event() -> None:
    me = pod("me", "1", node_name="n2", schedulerName="volcano")
    me["metadata"]["annotations"] = {"kubernetes.io/config.mirror": "abc"}
    objs = objects_of(node("n1"), node("n2"), me)
    res = explain(me, objs, options=engine.Options(profile="default-scheduler"))
    causes = " | ".join(res.current.causes)
    assert "a static pod" in causes and "schedulerName volcano; this cycle ran profile default-scheduler" in causes
    plain = pod("plain", "1", node_name="n2")
    started = {"kind": "Event", "metadata": {"name": "e", "namespace": "default"}, "reason": "Started",
               "involvedObject": {"kind": "Pod", "name": "plain", "namespace": "default"}}
    res = explain(plain, objects_of(node("n1"), node("n2"), plain, started))
    assert any("no Scheduled event" in c for c in res.current.causes)


def test_cause_the_node_is_gone_and_node_sampling() -> None:
    me = pod("me", "1", node_name="old")
    res = explain(me, objects_of(node("n1"), me))
    assert any("old is not a node of the cluster source any more" in c for c in res.current.causes)
    many = [node(f"n{i:03d}") for i in range(120)]
    me = pod("me", "1", node_name="n050")
    res = explain(me, objects_of(*many, me))
    assert res.current.agrees is False
    # 120 nodes alike: every window of 100 is a tie, and each node is chosen in 1/120 of cycles.
    assert "node sampling: the scheduler scores 100 of the 120 feasible nodes per cycle, and a cycle now chooses " \
           "n050 in 0.8% of cycles" in res.current.causes


def test_a_pending_pod_is_reported_pending() -> None:
    me = pod("me", "1")
    me["status"]["nominatedNodeName"] = "n1"
    res = explain(me, objects_of(node("n1"), me))
    assert res.current.node is None and res.current.agrees is None and res.current.nominated_node == "n1"
    data = res.to_json()
    assert data["currentNode"] is None and data["agreesWithCurrentNode"] is None


def test_no_nodes() -> None:
    me = pod("me", "1")
    out = engine.explain_object(me, "<manifest>", objects_of(), source="empty.yaml")
    res = out.steps[0]
    assert res.fit_error == "no nodes available to schedule pods" and not out.ok
    assert res.preemption is None and res.nodes == {}
    assert any(w.startswith("no Node in empty.yaml") for w in res.warnings)


def _scan(objects: ClusterObjects, ns: str, name: str, uid: str) -> object:
    """The definition find_pod's index must equal: the first pod by namespace/name or uid."""
    for p in objects.of("Pod"):
        meta = p.get("metadata") or {}
        if (meta.get("name") == name and (meta.get("namespace") or "default") == ns) or (uid and meta.get("uid") == uid):
            return p
    return None


def test_find_pod_index_equals_a_scan_through_changes() -> None:
    """ClusterObjects.find_pod (an index, for check and pending over large sources) returns what
    a scan of the pod list returns, also after appends, in-place replacement and a new list."""
    def raw(ns: str | None, name: str, uid: str = "") -> dict:
        meta: dict = {"name": name, **({"namespace": ns} if ns else {}), **({"uid": uid} if uid else {})}
        return {"kind": "Pod", "metadata": meta, "spec": {}}

    objs = ClusterObjects()
    for p in (raw(None, "a", "u1"), raw("x", "a", "u2"), raw("default", "a", "u3"), raw("x", "b", "u1"), raw("y", "c")):
        objs.add(p)
    probes = [("default", "a", ""), ("x", "a", ""), ("x", "b", ""), ("z", "nope", "u1"), ("x", "b", "u2"),
              ("y", "c", ""), ("y", "c", "u9"), ("q", "q", "")]

    def same() -> None:
        for ns, name, uid in probes:
            assert objs.find_pod(ns, name, uid) is _scan(objs, ns, name, uid), (ns, name, uid)

    same()
    objs.add(raw("q", "q"))
    same()
    pods = objs.by_kind["Pod"]
    pods[1] = raw("x", "a", "u2")  # replaced in place: the index must hand out the new object
    same()
    pods[0] = raw("moved", "elsewhere", "u7")  # in place, under another key
    same()
    objs.by_kind["Pod"] = [p for p in pods if (p["metadata"].get("namespace") != "x")]
    same()

"""What-if edits on the raw cluster objects, and the engine runs built on them."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from kschedx.core.api.objects import ClusterObjects
from kschedx.core.errors import InputError
from kschedx.core.explain.front import Options, explain_object, resolve_replicas
from kschedx.core.explain.report import summarize_step
from kschedx.core.explain.whatif import Edits, apply_edits
from kschedx.core.load.manifest import IncomingPod

from .helpers import node, pod


def cluster(*objs: dict) -> ClusterObjects:  # type: ignore[type-arg]
    out = ClusterObjects()
    for o in objs:
        out.add(o)
    return out


def daemon_pod(name: str, node_name: str) -> dict:  # type: ignore[type-arg]
    p = pod(name, cpu="10m", node_name=node_name)
    p["metadata"]["ownerReferences"] = [{"kind": "DaemonSet", "name": "ds", "apiVersion": "apps/v1", "uid": "x"}]
    return p


def names(objs: ClusterObjects, kind: str) -> list[str]:
    return [o["metadata"]["name"] for o in objs.of(kind)]


def test_no_edits_is_the_same_objects() -> None:
    objs = cluster(node("a"))
    out, lines = apply_edits(objs, Edits())
    assert out is objs and lines == []


def test_cordon_marks_the_node_unschedulable_without_touching_the_input() -> None:
    objs = cluster(node("a"), node("b"))
    out, lines = apply_edits(objs, Edits(cordon=["a"]))
    assert out.of("Node")[0]["spec"]["unschedulable"] is True
    assert "unschedulable" not in objs.of("Node")[0]["spec"]
    assert lines == ["cordoned a"]


def test_drain_evicts_all_but_daemon_and_static_pods_to_pending() -> None:
    static = pod("etcd", node_name="a")
    static["metadata"]["annotations"] = {"kubernetes.io/config.mirror": "abc"}
    objs = cluster(node("a"), pod("web", cpu="1", node_name="a"), daemon_pod("proxy", "a"), static,
                   pod("other", cpu="1", node_name="b"))
    out, lines = apply_edits(objs, Edits(drain=["a"]))
    by_name = {p["metadata"]["name"]: p for p in out.of("Pod")}
    assert "nodeName" not in by_name["web"]["spec"] and by_name["web"]["status"]["phase"] == "Pending"
    assert by_name["proxy"]["spec"]["nodeName"] == "a"
    assert by_name["etcd"]["spec"]["nodeName"] == "a"
    assert by_name["other"]["spec"]["nodeName"] == "b"
    assert out.of("Node")[0]["spec"]["unschedulable"] is True
    assert "1 pod(s) evicted" in lines[0]
    # The input is untouched.
    assert objs.of("Pod")[0]["spec"]["nodeName"] == "a"


def test_without_node_removes_the_node_and_its_pods() -> None:
    objs = cluster(node("a"), node("b"), pod("p1", node_name="a"), pod("p2", node_name="b"), pod("pending"))
    out, lines = apply_edits(objs, Edits(without=["a"]))
    assert names(out, "Node") == ["b"]
    assert names(out, "Pod") == ["p2", "pending"]
    assert lines == ["removed node a and its 1 pod(s)"]


def test_unknown_node_is_an_input_error() -> None:
    with pytest.raises(InputError, match="--cordon nope: no node of that name"):
        apply_edits(cluster(node("a")), Edits(cordon=["nope"]))


def test_add_node_copies_get_unique_names_and_hostname_labels(tmp_path: Path) -> None:
    tpl = tmp_path / "pool.yaml"
    tpl.write_text(yaml.safe_dump(node("a", labels={"pool": "new"})))
    out, lines = apply_edits(cluster(node("a"), node("a-1")), Edits(add_node_files=[str(tpl)], add_node_count=3))
    added = out.of("Node")[2:]
    assert [n["metadata"]["name"] for n in added] == ["a-0", "a-2", "a-3"]
    assert [n["metadata"]["labels"]["kubernetes.io/hostname"] for n in added] == ["a-0", "a-2", "a-3"]
    assert all(n["metadata"]["labels"]["pool"] == "new" for n in added)
    assert lines == [f"added 3 node(s) from {tpl}: a-0, a-2, a-3"]
    # One copy of a template whose name is free keeps the name.
    out, _ = apply_edits(cluster(node("x")), Edits(add_node_files=[str(tpl)]))
    assert names(out, "Node") == ["x", "a"]


def test_add_node_file_without_a_node(tmp_path: Path) -> None:
    f = tmp_path / "cm.yaml"
    f.write_text("kind: ConfigMap\nmetadata: {name: c}\n")
    with pytest.raises(InputError, match="no Node in the file"):
        apply_edits(cluster(node("a")), Edits(add_node_files=[str(f)]))


def test_resolve_replicas() -> None:
    inc = IncomingPod({}, "Deployment", "web", "", workload_replicas=4)
    assert resolve_replicas(None, inc) == 1
    assert resolve_replicas("auto", inc) == 4
    assert resolve_replicas("3", inc) == 3
    assert resolve_replicas("auto", IncomingPod({}, "Pod", "p", "")) == 1
    with pytest.raises(InputError):
        resolve_replicas("many", inc)
    with pytest.raises(InputError):
        resolve_replicas(0, inc)


def test_replicas_bind_each_copy_and_stop_at_the_first_that_does_not_fit() -> None:
    objs = cluster(node("a", cpu="2"), node("b", cpu="1"))
    # v1.35's balanced allocation (the nodes carry no kubelet version, which would mean v1.36).
    expl = explain_object(pod("w", cpu="900m"), "w.yaml", objs, replicas=5, options=Options(kubernetes_version="1.35"))
    assert expl.mode == "replicas" and expl.replicas_requested == 5
    placed = [s.selected_node for s in expl.steps]
    # a has the most room first; then b; then a again; then nothing fits.
    assert placed == ["a", "b", "a", None]
    assert expl.replicas_placed == 3 and not expl.ok
    assert [s.pod for s in expl.steps] == [f"default/w-{i}" for i in range(4)]
    assert expl.steps[-1].fit_error is not None and expl.steps[-1].fit_error.startswith("0/2 nodes are available")
    first = summarize_step(expl.steps[0])
    assert first.node == "a" and first.runner_up == "b" and first.margin == first.total - first.runner_up_total


def test_daemonset_is_explained_per_node() -> None:
    ds = {
        "apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent", "namespace": "default"},
        "spec": {"selector": {"matchLabels": {"app": "agent"}}, "template": {
            "metadata": {"labels": {"app": "agent"}},
            "spec": {"nodeSelector": {"pool": "web"},
                     "containers": [{"name": "c", "image": "agent:1", "resources": {"requests": {"cpu": "1500m"}}}]},
        }},
    }
    objs = cluster(node("big", cpu="2", labels={"pool": "web"}), node("small", cpu="1", labels={"pool": "web"}),
                   node("db", cpu="8", labels={"pool": "db"}),
                   node("tainted", cpu="8", labels={"pool": "web"},
                        taints=[{"key": "dedicated", "value": "x", "effect": "NoSchedule"}]),
                   node("cordoned", cpu="8", labels={"pool": "web"}, unschedulable=True))
    expl = explain_object(ds, "ds.yaml", objs)
    verdicts = {v.node: v for v in expl.daemon_nodes}
    assert expl.mode == "daemonset" and expl.daemonset == "agent"
    assert verdicts["big"].fits
    # Daemon pods tolerate the unschedulable taint, as the DaemonSet controller adds it.
    assert verdicts["cordoned"].fits
    assert not verdicts["small"].fits and verdicts["small"].targeted
    assert verdicts["small"].plugin == "NodeResourcesFit" and verdicts["small"].reasons == ["Insufficient cpu"]
    assert not verdicts["db"].targeted and verdicts["db"].plugin == "NodeAffinity"
    assert not verdicts["tainted"].targeted and verdicts["tainted"].plugin == "TaintToleration"
    assert not expl.ok
    data = expl.to_json()
    assert data["fitsOn"] == 2 and data["notTargeted"] == 2 and data["numNodes"] == 5


def test_daemonset_single_cycle_agrees_with_pinned_cycles() -> None:
    from kschedx.core.load.manifest import add_daemonset_tolerations, pin_to_node

    tpl_spec = {"nodeSelector": {"pool": "web"}, "hostNetwork": True,
                "containers": [{"name": "c", "image": "agent:1", "resources": {"requests": {"cpu": "1500m"}},
                                "ports": [{"containerPort": 9100, "hostPort": 9100}]}]}
    ds = {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent", "namespace": "default"},
          "spec": {"selector": {"matchLabels": {"app": "agent"}},
                   "template": {"metadata": {"labels": {"app": "agent"}}, "spec": tpl_spec}}}
    port_user = pod("exporter", cpu="10m", node_name="c")
    port_user["spec"]["containers"][0]["ports"] = [{"containerPort": 9100, "hostPort": 9100}]
    nodes = [node("a", cpu="2", labels={"pool": "web"}), node("b", cpu="1", labels={"pool": "web"}),
             node("c", cpu="4", labels={"pool": "web"}), node("d", labels={"pool": "db"}),
             node("e", cpu="8", labels={"pool": "web"}, taints=[{"key": "k", "effect": "NoExecute"}])]
    objs = cluster(*nodes, port_user)
    fast = {v.node: (v.fits, v.plugin) for v in explain_object(ds, "ds.yaml", objs).daemon_nodes}
    for n in ("a", "b", "c", "d", "e"):
        spec = dict(tpl_spec)
        add_daemonset_tolerations(spec)
        p = pin_to_node({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"agent-{n}", "labels": {"app": "agent"}},
                         "spec": spec}, n)
        result = explain_object(p, "p.yaml", objs).steps[0]
        verdict = result.nodes[n]
        assert fast[n] == (verdict.feasible, verdict.plugin), n
    assert fast == {"a": (True, None), "b": (False, "NodeResourcesFit"), "c": (False, "NodePorts"),
                    "d": (False, "NodeAffinity"), "e": (False, "TaintToleration")}


@pytest.mark.parametrize("terms", ["anti-affinity", "affinity", "spread"])
def test_daemonset_pinned_verdicts_equal_full_cycles(terms: str) -> None:
    """With pod (anti-)affinity or spread terms every node gets its own pinned cycle; those
    stop after Filter and share InterPodAffinity's counts, and must still give each node
    the verdict of a full, independent cycle of its pinned pod."""
    from kschedx.core.load.manifest import add_daemonset_tolerations, pin_to_node

    tpl_spec: dict = {  # type: ignore[type-arg]
        "containers": [{"name": "c", "image": "agent:1", "resources": {"requests": {"cpu": "500m"}}}]}
    selector = {"matchLabels": {"app": "agent"}}
    if terms == "anti-affinity":
        tpl_spec["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": selector, "topologyKey": "zone"}]}}
    elif terms == "affinity":
        tpl_spec["affinity"] = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "zone"}]}}
    else:
        tpl_spec["topologySpreadConstraints"] = [
            {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule", "labelSelector": selector}]
    ds = {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent", "namespace": "default"},
          "spec": {"selector": selector, "template": {"metadata": {"labels": {"app": "agent"}}, "spec": tpl_spec}}}
    nodes = [node(f"n{i}", cpu="2", labels={"zone": f"z{i % 3}"}) for i in range(7)]
    nodes.append(node("small", cpu="1", labels={"zone": "z0"}))
    nodes.append(node("nozone", cpu="4"))
    existing = [daemon_pod("agent-old", "n1"), pod("db", cpu="100m", node_name="n2"), pod("busy", cpu="1", node_name="small")]
    existing[0]["metadata"]["labels"] = {"app": "agent"}
    existing[1]["metadata"]["labels"] = {"app": "db"}
    objs = cluster(*nodes, *existing)
    fast = {v.node: (v.fits, v.plugin, v.code, v.reasons) for v in explain_object(ds, "ds.yaml", objs).daemon_nodes}
    for n in fast:
        spec = copy.deepcopy(tpl_spec)
        add_daemonset_tolerations(spec)
        p = pin_to_node({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"agent-{n}", "labels": {"app": "agent"}},
                         "spec": spec}, n)
        verdict = explain_object(p, "p.yaml", objs).steps[0].nodes[n]
        full = (verdict.feasible, verdict.plugin, verdict.code, verdict.reasons) if not verdict.feasible \
            else (True, None, None, [])
        assert fast[n] == full, n
    assert len({str(v) for v in fast.values()}) > 1  # a mix of verdicts, not all alike


def test_replica_memo_changes_no_decision() -> None:
    """Reusing node-local answers between replica cycles gives the very same cycles as
    running each copy from scratch on the same evolving cluster."""
    import copy
    from pathlib import Path as _Path

    from kschedx.core.api.model import PodInfo
    from kschedx.core.explain.front import build_snapshot, load_cluster_files, prepare_pod, run, run_replicas, select_profile

    root = _Path(__file__).resolve().parents[2] / "examples"
    objs = load_cluster_files([str(root / "cluster.yaml")])
    import tempfile

    from kschedx.core.explain.front import Options

    affine = _Path(tempfile.mkdtemp()) / "affine.yaml"
    affine.write_text(yaml.safe_dump({
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "affine", "namespace": "shop"},
        "spec": {"replicas": 12, "selector": {"matchLabels": {"app": "affine"}}, "template": {
            "metadata": {"labels": {"app": "affine"}},
            "spec": {"containers": [{"name": "c", "image": "nginx:1.27", "resources": {"requests": {"cpu": "100m"}}}],
                     "affinity": {
                         "podAntiAffinity": {
                             "requiredDuringSchedulingIgnoredDuringExecution": [
                                 {"labelSelector": {"matchLabels": {"app": "affine"}},
                                  "topologyKey": "kubernetes.io/hostname"}],
                             "preferredDuringSchedulingIgnoredDuringExecution": [
                                 {"weight": 30, "podAffinityTerm": {
                                     "labelSelector": {"matchLabels": {"app": "affine"}},
                                     "topologyKey": "topology.kubernetes.io/zone"}}]},
                         "podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                             {"weight": 50, "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": "web"}},
                                                                "topologyKey": "topology.kubernetes.io/zone"}}]}}}}}}))
    cases = [(str(root / "pods" / m), Options())
             for m in ("web-deployment.yaml", "zone-spread.yaml", "preferred-affinity.yaml", "anti-affinity.yaml")]
    cases.append((str(root / "pods" / "too-big.yaml"), Options(all_reasons=True)))
    cases.append((str(root / "pods" / "zone-spread.yaml"), Options(all_reasons=True)))
    cases.append((str(affine), Options()))
    for manifest, options in cases:
        inc = prepare_pod(manifest, objs)
        profile = select_profile(inc.pod, None)
        fast = [r.to_json() for r in run_replicas(build_snapshot(objs, inc), inc, profile, 12, options)]
        snap = build_snapshot(objs, inc)
        slow = []
        for i in range(12):
            pod_dict = copy.deepcopy(inc.pod)
            pod_dict["metadata"]["name"] = f"{inc.pod['metadata']['name']}-{i}"
            pod_dict["metadata"]["uid"] = f"kschedx-replica-{inc.pod['metadata']['name']}-{i}"
            step = IncomingPod(pod_dict, inc.source_kind, inc.source_name, inc.rule,
                               warnings=list(inc.warnings) if i == 0 else [])
            r = run(snap, step, profile, options)
            slow.append(r.to_json())
            if r.selected_node is None:
                break
            pod_dict["spec"]["nodeName"] = r.selected_node
            snap.add_pod(PodInfo(pod_dict))
        assert fast == slow, manifest

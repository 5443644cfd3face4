"""Workloads that already run (core/explain/rollout.py): each controller's rule on small clusters."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from kschedx.core.api.objects import ClusterObjects
from kschedx.core.api.template_defaults import same_template
from kschedx.core.explain.check import check_paths
from kschedx.core.explain.front import explain_object
from kschedx.core.explain.report import Explanation

from .helpers import node
from .test_volume_builders import pv, pvc, storage_class

Dict = dict[str, Any]
NS = "shop"


def _objects(*objs: Dict) -> ClusterObjects:
    out = ClusterObjects()
    for o in objs:
        out.add(o)
    return out


def _template(labels: dict[str, str], image: str = "web:1", cpu: str = "1", stored: bool = False,
              **spec: Any) -> Dict:
    """A pod template; ``stored``: with the fields the API server defaults, as a dump has it."""
    container: Dict = {"name": "c", "image": image, "resources": {"requests": {"cpu": cpu}}}
    if stored:
        container.update(imagePullPolicy="IfNotPresent", terminationMessagePath="/dev/termination-log",
                         terminationMessagePolicy="File")
        container["resources"] = {"requests": {"cpu": f"{int(cpu) * 1000}m"}}
        spec = {"dnsPolicy": "ClusterFirst", "restartPolicy": "Always", "schedulerName": "default-scheduler",
                "securityContext": {}, "terminationGracePeriodSeconds": 30, **spec}
    for key in ("ports",):
        if key in spec:
            ports = spec.pop(key)
            container["ports"] = [dict(p, protocol="TCP") if stored else dict(p) for p in ports]
    meta: Dict = {"labels": dict(labels)}
    if stored:
        meta["creationTimestamp"] = None
    return {"metadata": meta, "spec": {"containers": [container], **spec}}


def _owner(kind: str, name: str) -> list[Dict]:
    return [{"apiVersion": "apps/v1", "kind": kind, "name": name, "uid": f"uid-{kind}-{name}", "controller": True}]


def _pod_of(template: Dict, name: str, node_name: str | None, owner: tuple[str, str], phase: str = "Running",
            created: str = "2025-01-01T00:00:00Z") -> Dict:
    tpl = copy.deepcopy(template)
    spec = tpl["spec"]
    if node_name:
        spec["nodeName"] = node_name
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": NS, "uid": f"uid-{name}", "labels": tpl["metadata"]["labels"],
                     "ownerReferences": _owner(*owner), "creationTimestamp": created},
        "spec": spec, "status": {"phase": phase if node_name else "Pending"},
    }


def _explain(manifest: Dict, objects: ClusterObjects, replicas: str | None = "auto") -> Explanation:
    return explain_object(manifest, "workload.yaml", objects, replicas=replicas)


# --------------------------------------------------------------------------- templates

def test_templates_compare_after_api_defaulting() -> None:
    labels = {"app": "web"}
    assert same_template(_template(labels), _template(labels, stored=True))
    stored = _template({**labels, "pod-template-hash": "abc"}, stored=True)
    assert same_template(_template(labels), stored)  # EqualIgnoreHash
    assert not same_template(_template(labels, image="web:2"), stored)
    assert not same_template(_template(labels, cpu="2"), stored)
    # An untagged image is pulled Always: a stored IfNotPresent is a different template.
    assert not same_template(_template(labels, image="web"), _template(labels, image="web", stored=True))
    # Probes, volume sources and field references are defaulted too.
    written = _template(labels, volumes=[{"name": "cfg", "configMap": {"name": "cfg"}}, {"name": "tmp"},
                                         {"name": "h", "hostPath": {"path": "/var"}}])
    written["spec"]["containers"][0]["readinessProbe"] = {"httpGet": {"port": 8080}}
    written["spec"]["containers"][0]["env"] = [{"name": "N", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}}]
    stored = _template(labels, stored=True, volumes=[
        {"name": "cfg", "configMap": {"name": "cfg", "defaultMode": 420}}, {"name": "tmp", "emptyDir": {}},
        {"name": "h", "hostPath": {"path": "/var", "type": ""}}])
    stored["spec"]["containers"][0]["readinessProbe"] = {
        "httpGet": {"port": 8080, "path": "/", "scheme": "HTTP"}, "timeoutSeconds": 1, "periodSeconds": 10,
        "successThreshold": 1, "failureThreshold": 3}
    stored["spec"]["containers"][0]["env"] = [
        {"name": "N", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "spec.nodeName"}}}]
    assert same_template(written, stored)
    written["spec"]["containers"][0]["readinessProbe"]["periodSeconds"] = 5
    assert not same_template(written, stored)
    # A template is not a Pod: limits are not copied to requests.
    limits = _template(labels)
    limits["spec"]["containers"][0]["resources"] = {"limits": {"cpu": "1"}}
    stored = _template(labels, stored=True)
    stored["spec"]["containers"][0]["resources"] = {"limits": {"cpu": "1"}}
    assert same_template(limits, stored)
    stored["spec"]["containers"][0]["resources"]["requests"] = {"cpu": "1"}
    assert not same_template(limits, stored)


# --------------------------------------------------------------------------- Deployment

LABELS = {"app": "web"}


def _deployment(replicas: int, image: str = "web:1", strategy: Dict | None = None, cpu: str = "1") -> Dict:
    spec: Dict = {"replicas": replicas, "selector": {"matchLabels": dict(LABELS)},
                  "template": _template(LABELS, image=image, cpu=cpu)}
    if strategy is not None:
        spec["strategy"] = strategy
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": NS}, "spec": spec}


def _running_deployment(replicas: int, nodes: int = 3, node_cpu: str = "4", image: str = "web:1",
                        cpu: str = "1") -> ClusterObjects:
    """web's ReplicaSet web-6d4 with ``replicas`` pods spread over the nodes, as stored."""
    tpl = _template({**LABELS, "pod-template-hash": "6d4"}, image=image, cpu=cpu, stored=True)
    rs = {"apiVersion": "apps/v1", "kind": "ReplicaSet",
          "metadata": {"name": "web-6d4", "namespace": NS, "uid": "uid-ReplicaSet-web-6d4",
                       "ownerReferences": _owner("Deployment", "web"), "creationTimestamp": "2025-01-01T00:00:00Z"},
          "spec": {"replicas": replicas, "selector": {"matchLabels": {**LABELS, "pod-template-hash": "6d4"}},
                   "template": tpl}}
    nodes_ = [node(f"n{i}", cpu=node_cpu) for i in range(nodes)]
    pods = [_pod_of(tpl, f"web-6d4-{i}", f"n{i % nodes}", ("ReplicaSet", "web-6d4")) for i in range(replicas)]
    return _objects(*nodes_, rs, *pods)


def test_deployment_unchanged_and_running_places_nothing() -> None:
    out = _explain(_deployment(3), _running_deployment(3))
    w = out.workload
    assert w is not None and (w.rule, w.replicas, w.running, w.placed) == ("unchanged", 3, 3, 0)
    assert out.steps == [] and out.ok
    assert "already running 3/3" in w.note


def test_deployment_scale_up_places_only_the_missing() -> None:
    out = _explain(_deployment(5), _running_deployment(3))
    w = out.workload
    assert w is not None and (w.rule, w.replicas, w.running, w.placed) == ("scale-up", 5, 3, 2)
    assert len(out.steps) == 2 and out.ok


def test_deployment_scale_down_places_nothing() -> None:
    out = _explain(_deployment(2), _running_deployment(3))
    assert out.workload is not None and out.workload.rule == "unchanged" and out.workload.placed == 0
    assert out.steps == []


@pytest.mark.parametrize(("replicas", "surge", "placed"), [(4, None, 1), (10, None, 3), (10, "50%", 5), (4, 2, 2)])
def test_rolling_update_places_the_first_max_surge_pods(replicas: int, surge: Any, placed: int) -> None:
    strategy = None if surge is None else {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": surge}}
    out = _explain(_deployment(replicas, image="web:2", strategy=strategy), _running_deployment(replicas, nodes=5,
                                                                                                  node_cpu="8"))
    w = out.workload
    assert w is not None and (w.rule, w.running, w.placed) == ("rollout", 0, placed)
    assert len(out.steps) == placed
    # The new pods belong to a new ReplicaSet, not web-6d4.
    assert all("web-6d4" not in s.pod for s in out.steps)


def test_rolling_update_surges_beside_every_old_pod_and_recreate_removes_them_first() -> None:
    # Two 2-CPU nodes full of old 1-CPU pods: a surge pod finds no room while they run.
    full = _running_deployment(4, nodes=2, node_cpu="2")
    out = _explain(_deployment(4, image="web:2"), full)
    assert out.workload is not None and out.workload.placed == 0
    assert out.steps[0].fit_error is not None and "Insufficient cpu" in out.steps[0].fit_error
    # ... but maxUnavailable (25% of 4: 1) lets an old pod go at a time: the rollout completes.
    outcome = out.workload.outcome
    assert outcome is not None and outcome.completes and out.ok
    assert (outcome.done, outcome.old_left, outcome.lowest) == (4, 0, 3)
    assert "surge blocked; relies on maxUnavailable: capacity drops to 3 of 4" in outcome.summary()
    # Recreate: every old pod gone first, then all four new ones fit.
    out = _explain(_deployment(4, image="web:2", strategy={"type": "Recreate"}), full)
    w = out.workload
    assert w is not None and (w.rule, w.placed) == ("rollout", 4) and out.ok
    # maxSurge 0: maxUnavailable old pods go first, as many new ones take their room.
    out = _explain(_deployment(4, image="web:2", strategy={"type": "RollingUpdate", "rollingUpdate": {
        "maxSurge": 0, "maxUnavailable": 1}}), full)
    w = out.workload
    assert w is not None and (w.rule, w.placed) == ("rollout", 1) and out.ok
    assert len(w.remove) == 1


def test_rolling_scale_down_counts_replicaset_slots_without_a_pod_apart() -> None:
    # web-6d4 asks for 7 pods and 6 run; the manifest wants 3 of a new template with
    # maxSurge 1, maxUnavailable 0. reconcileOldReplicaSets first drops the slot without a
    # pod, then the available pods above minAvailable (6 - 3): 3 pods deleted, not 4, and
    # the new ReplicaSet gets 3 + 1 - 3 = 1 pod.
    objects = _running_deployment(7, nodes=3, node_cpu="8")
    objects.by_kind["Pod"] = [p for p in objects.by_kind["Pod"] if p["metadata"]["name"] != "web-6d4-6"]
    out = _explain(_deployment(3, image="web:2"), objects)
    w = out.workload
    assert w is not None and (w.rule, w.placed) == ("rollout", 1)
    assert len(w.remove) == 3
    assert "3 old pod(s) removed" in w.note


def test_paused_deployment_does_not_roll_out() -> None:
    dep = _deployment(3, image="web:2")
    dep["spec"]["paused"] = True
    out = _explain(dep, _running_deployment(3))
    w = out.workload
    assert w is not None and (w.rule, w.placed) == ("rollout", 0) and out.steps == [] and "paused" in w.note


def test_new_deployment_places_every_replica() -> None:
    out = _explain(_deployment(2), _objects(node("n0"), node("n1")))
    w = out.workload
    assert w is not None and (w.rule, w.replicas, w.running, w.placed) == ("new", 2, 0, 2)


def test_pending_pods_of_the_workload_still_need_a_node() -> None:
    objects = _running_deployment(3)
    objects.by_kind["Pod"][-1]["spec"].pop("nodeName")
    objects.by_kind["Pod"][-1]["status"]["phase"] = "Pending"
    out = _explain(_deployment(3), objects)
    w = out.workload
    assert w is not None and (w.rule, w.running, w.placed) == ("scale-up", 2, 1)


# --------------------------------------------------------------------------- StatefulSet

DB = {"app": "db"}


def _sts(replicas: int, image: str = "db:1", strategy: Dict | None = None) -> Dict:
    anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": dict(DB)}, "topologyKey": "kubernetes.io/hostname"}]}}
    spec: Dict = {
        "replicas": replicas, "serviceName": "db", "selector": {"matchLabels": dict(DB)},
        "template": _template(DB, image=image, affinity=anti),
        "volumeClaimTemplates": [{"metadata": {"name": "data"}, "spec": {
            "accessModes": ["ReadWriteOnce"], "storageClassName": "local", "resources": {"requests": {"storage": "10Gi"}}}}],
    }
    if strategy is not None:
        spec["updateStrategy"] = strategy
    return {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db", "namespace": NS}, "spec": spec}


def _running_sts(replicas: int, nodes: int | None = None) -> ClusterObjects:
    """db-0 … db-(N-1), one per node (required anti-affinity), each with its claim bound to
    a local volume on its node."""
    nodes = replicas if nodes is None else nodes
    sts = _sts(replicas)
    sts["metadata"]["uid"] = "uid-StatefulSet-db"
    sts["status"] = {"currentRevision": "db-1", "updateRevision": "db-1"}
    objs: list[Dict] = [node(f"n{i}") for i in range(nodes)]
    objs += [sts, storage_class("local", provisioner="kubernetes.io/no-provisioner")]
    for i in range(replicas):
        tpl = _template({**DB, "controller-revision-hash": "db-1"}, image="db:1",
                        affinity=sts["spec"]["template"]["spec"]["affinity"])
        tpl["spec"]["volumes"] = [{"name": "data", "persistentVolumeClaim": {"claimName": f"data-db-{i}"}}]
        objs.append(_pod_of(tpl, f"db-{i}", f"n{i}", ("StatefulSet", "db")))
        objs.append(pvc(f"data-db-{i}", namespace=NS, sc="local", volume_name=f"pv-{i}"))
        objs.append(pv(f"pv-{i}", sc="local", claim=(NS, f"data-db-{i}"), hostname=f"n{i}"))
    return _objects(*objs)


def test_statefulset_unchanged_places_nothing() -> None:
    out = _explain(_sts(3), _running_sts(3))
    w = out.workload
    assert w is not None and (w.rule, w.replicas, w.running, w.placed) == ("unchanged", 3, 3, 0)


def test_statefulset_image_change_replaces_the_highest_ordinal_in_place() -> None:
    # Anti-affinity leaves no node free while the old pods run; the replaced ordinal goes
    # back to its node, where its claim's local volume is.
    out = _explain(_sts(3, image="db:2"), _running_sts(3))
    w = out.workload
    assert w is not None and (w.rule, w.placed) == ("rollout", 1) and out.ok
    (step,) = out.steps
    assert step.pod == f"{NS}/db-2" and step.selected_node == "n2"
    assert "ordinal 2 replaced in place" in w.note


def test_statefulset_partition_and_on_delete_place_nothing() -> None:
    out = _explain(_sts(3, image="db:2", strategy={"type": "RollingUpdate", "rollingUpdate": {"partition": 3}}),
                   _running_sts(3))
    assert out.workload is not None and out.workload.placed == 0 and out.steps == []
    assert "partition 3" in out.workload.note
    out = _explain(_sts(3, image="db:2", strategy={"type": "RollingUpdate", "rollingUpdate": {"partition": 1}}),
                   _running_sts(3))
    assert [s.pod for s in out.steps] == [f"{NS}/db-2"]
    out = _explain(_sts(3, image="db:2", strategy={"type": "OnDelete"}), _running_sts(3))
    w = out.workload
    assert w is not None and (w.rule, w.placed) == ("rollout", 0) and out.steps == []
    assert "until they are deleted" in w.note


def test_statefulset_scale_up_places_the_next_ordinals_with_their_own_claims() -> None:
    objects = _running_sts(3, nodes=5)
    for i in (3, 4):  # free local volumes on the new nodes
        objects.add(pv(f"pv-{i}", sc="local", hostname=f"n{i}"))
    out = _explain(_sts(5), objects)
    w = out.workload
    assert w is not None and (w.rule, w.running, w.placed) == ("scale-up", 3, 2)
    assert [s.pod for s in out.steps] == [f"{NS}/db-3", f"{NS}/db-4"]
    assert [s.selected_node for s in out.steps] == ["n3", "n4"]


def test_statefulset_copies_are_named_by_ordinal_with_their_own_claims() -> None:
    objects = _objects(node("n0"), node("n1"), node("n2"), storage_class("local", default=True))
    sts = _sts(3)
    out = explain_object(sts, "sts.yaml", objects, replicas="3")
    assert [s.pod for s in out.steps] == [f"{NS}/db-0", f"{NS}/db-1", f"{NS}/db-2"]
    assert all(f"data-db-{i}" in " ".join(s.volumes) for i, s in enumerate(out.steps))


# --------------------------------------------------------------------------- DaemonSet

AGENT = {"app": "agent"}


def _ds(image: str = "agent:1", strategy: Dict | None = None) -> Dict:
    spec: Dict = {"selector": {"matchLabels": dict(AGENT)},
                  "template": _template(AGENT, image=image, cpu="1", ports=[{"containerPort": 9100,
                                                                             "hostPort": 9100}])}
    if strategy is not None:
        spec["updateStrategy"] = strategy
    return {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent", "namespace": NS}, "spec": spec}


def _running_ds(nodes: int = 3, with_pods: int | None = None) -> ClusterObjects:
    ds = _ds()
    ds["metadata"]["uid"] = "uid-DaemonSet-agent"
    objs: list[Dict] = [node(f"n{i}") for i in range(nodes)] + [ds]
    for i in range(nodes if with_pods is None else with_pods):
        tpl = _template(AGENT, image="agent:1", cpu="1", ports=[{"containerPort": 9100, "hostPort": 9100}])
        objs.append(_pod_of(tpl, f"agent-{i}", f"n{i}", ("DaemonSet", "agent")))
    return _objects(*objs)


def test_daemonset_unchanged_runs_everywhere_and_places_nothing() -> None:
    out = _explain(_ds(), _running_ds())
    w = out.workload
    assert w is not None and (w.rule, w.replicas, w.running, w.placed) == ("unchanged", 3, 3, 0) and out.ok
    assert all(v.running for v in out.daemon_nodes)


def test_daemonset_mid_rollout_replaces_the_pods_of_an_older_revision() -> None:
    objects = _running_ds()
    for rev, h in ((1, "old1"), (2, "new2")):
        objects.add({"apiVersion": "apps/v1", "kind": "ControllerRevision", "revision": rev,
                     "metadata": {"name": f"agent-{h}", "namespace": NS, "labels": {"controller-revision-hash": h},
                                  "ownerReferences": _owner("DaemonSet", "agent")}})
    for i, p in enumerate(objects.of("Pod")):
        p["metadata"]["labels"]["controller-revision-hash"] = "new2" if i < 2 else "old1"
    out = _explain(_ds(), objects)
    w = out.workload
    assert w is not None and (w.rule, w.replicas, w.running, w.placed) == ("rollout", 3, 2, 1) and out.ok
    assert [v.node for v in out.daemon_nodes if not v.running] == ["n2"]


def test_daemonset_on_a_new_node_places_only_there() -> None:
    out = _explain(_ds(), _running_ds(nodes=3, with_pods=2))
    w = out.workload
    assert w is not None and (w.rule, w.replicas, w.running, w.placed) == ("scale-up", 3, 2, 1) and out.ok


def test_daemonset_with_a_host_port_rolls_out_node_by_node() -> None:
    # The old pod holds the host port: only with it removed does the new one fit there.
    out = _explain(_ds(image="agent:2"), _running_ds())
    w = out.workload
    assert w is not None and (w.rule, w.replicas, w.placed) == ("rollout", 3, 3) and out.ok
    # With maxSurge the new pod starts beside the old one, whose port it cannot share.
    out = _explain(_ds(image="agent:2", strategy={"type": "RollingUpdate", "rollingUpdate": {
        "maxSurge": 1, "maxUnavailable": 0}}), _running_ds())
    assert out.workload is not None and out.workload.placed == 0 and not out.ok
    assert {v.plugin for v in out.daemon_nodes} == {"NodePorts"}
    # OnDelete: nothing moves.
    out = _explain(_ds(image="agent:2", strategy={"type": "OnDelete"}), _running_ds())
    assert out.workload is not None and out.workload.placed == 0 and out.ok


# --------------------------------------------------------------------------- Job

def _job(parallelism: int, completions: int | None = None) -> Dict:
    spec: Dict = {"parallelism": parallelism, "template": _template({"job": "train"}, restartPolicy="Never")}
    if completions is not None:
        spec["completions"] = completions
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "train", "namespace": NS}, "spec": spec}


def _running_job(active: int, succeeded: int = 0) -> ClusterObjects:
    job = _job(3)
    job["status"] = {"active": active, "succeeded": succeeded}
    tpl = _template({"job": "train"}, restartPolicy="Never")
    pods = [_pod_of(tpl, f"train-{i}", "n0", ("Job", "train")) for i in range(active)]
    pods += [_pod_of(tpl, f"train-done-{i}", "n0", ("Job", "train"), phase="Succeeded") for i in range(succeeded)]
    return _objects(node("n0", cpu="8"), job, *pods)


def test_job_places_parallelism_minus_active() -> None:
    out = _explain(_job(3), _running_job(1))
    w = out.workload
    assert w is not None and (w.rule, w.replicas, w.running, w.placed) == ("scale-up", 3, 1, 2)
    # Completions bound what is still to run: 5 wanted, 4 succeeded, none active.
    out = _explain(_job(3, completions=5), _running_job(0, succeeded=4))
    assert out.workload is not None and out.workload.placed == 1
    out = _explain(_job(3), _running_job(3))
    assert out.workload is not None and (out.workload.rule, out.workload.placed) == ("unchanged", 0)
    # A work-queue Job (no completions) starts nothing new once a pod has succeeded.
    out = _explain(_job(3), _running_job(1, succeeded=1))
    assert out.workload is not None and (out.workload.running, out.workload.placed) == (1, 0)


# --------------------------------------------------------------------------- check

def test_check_reports_replicas_running_and_placed(tmp_path: Path) -> None:
    import yaml

    manifest = tmp_path / "web.yaml"
    manifest.write_text(yaml.safe_dump_all([_deployment(3), _deployment(5) | {"metadata": {"name": "web", "namespace": NS}}]))
    # Two documents for one Deployment, each checked alone (a release would keep the last).
    report = check_paths([str(manifest)], _running_deployment(3), separately=True)
    first, second = (e.to_json() for e in report.entries)
    assert (first["verdict"], first["replicas"], first["running"], first["placed"]) == ("fits", 3, 3, 0)
    assert "already running 3/3" in first["message"]
    assert first["explanation"]["workload"]["rule"] == "unchanged"
    assert (second["replicas"], second["running"], second["placed"]) == (5, 3, 2)
    assert report.exit_code == 0


# --------------------------------------------------------------------------- to the end

def test_replicaset_scale_down_deletes_in_the_controllers_ranking() -> None:
    from collections import Counter

    from kschedx.core.explain.rollout_run import deletion_order

    tpl = _template(LABELS)
    ready = [{"type": "Ready", "status": "True", "lastTransitionTime": "2025-01-01T00:00:00Z"}]
    old = _pod_of(tpl, "old", "n0", ("ReplicaSet", "web-6d4"), created="2024-01-01T00:00:00Z")
    new = _pod_of(tpl, "new", "n1", ("ReplicaSet", "web-6d4"), created="2025-01-01T00:00:00Z")
    doubled = _pod_of(tpl, "doubled", "n2", ("ReplicaSet", "web-6d4"), created="2024-01-01T00:00:00Z")
    unready = _pod_of(tpl, "unready", "n0", ("ReplicaSet", "web-6d4"), created="2024-01-01T00:00:00Z")
    pending = _pod_of(tpl, "pending", None, ("ReplicaSet", "web-6d4"))
    for p in (old, new, doubled):
        p["status"]["conditions"] = ready
    unready["status"]["conditions"] = [{"type": "Ready", "status": "False"}]
    per_node = Counter({"n0": 1, "n1": 1, "n2": 3})
    names = [p["metadata"]["name"] for p in deletion_order([old, new, doubled, unready, pending], per_node, None)]
    # Unscheduled, then not ready, then the pod sharing its node with more siblings, then
    # the newest.
    assert names == ["pending", "unready", "doubled", "new", "old"]


def test_statefulset_max_unavailable_needs_its_feature_gate() -> None:
    from kschedx.core.explain.front import Options

    sts = _sts(4, image="db:2", strategy={"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 2}})
    for gates, batch in ((None, 1), ("MaxUnavailableStatefulSet=true", 2)):
        objects = _running_sts(4)
        out = explain_object(sts, "sts.yaml", objects, replicas="auto",
                             options=Options(kubernetes_version="1.35", feature_gates=gates))
        outcome = out.workload.outcome if out.workload is not None else None
        assert outcome is not None and outcome.completes and out.ok
        actions = [e.action for e in outcome.events]
        assert actions[:batch] == ["deleted"] * batch and actions[batch] == "placed"
        assert [e.pod for e in outcome.events if e.action == "deleted"] == [f"{NS}/db-{i}" for i in (3, 2, 1, 0)]


def test_daemonset_new_nodes_get_their_pod_whatever_the_strategy() -> None:
    from kschedx.core.explain.rollout_run import NodeStep, daemonset_outcome

    nodes = [NodeStep("a", True, True), NodeStep("b", False, False, "NodePorts: no free ports"),
             NodeStep("c", True, True)]
    # The new node b's pod stays Pending: with maxUnavailable 1 no old pod may go.
    out = daemonset_outcome(nodes, 0, 1, 0, "agent")
    assert (out.completes, out.done, out.old_left, out.where) == (False, 0, 2, "b")
    out = daemonset_outcome(nodes, 0, 2, 0, "agent")
    # With 2, b holds one slot and the old pods go one at a time through the other.
    assert (out.completes, out.done, out.old_left, out.lost) == (False, 2, 0, 0)


def test_a_new_count_with_a_new_template_scales_the_old_replicaset_first() -> None:
    # isScalingEvent: web-6d4 was last scaled for 3 replicas; the manifest asks for 4 of a
    # new image. The deployment controller first scales web-6d4 to 4 (an old-template pod),
    # then rolls out.
    objects = _running_deployment(3, nodes=2, node_cpu="8")
    (rs,) = objects.of("ReplicaSet")
    rs["metadata"]["annotations"] = {"deployment.kubernetes.io/desired-replicas": "3"}
    out = _explain(_deployment(4, image="web:2"), objects)
    outcome = out.workload.outcome if out.workload is not None else None
    assert outcome is not None and outcome.completes
    assert outcome.events[0].action == "placed" and outcome.events[0].pod == f"{NS}/web-6d4-scaled-0"
    assert outcome.first_step.startswith("a scaling event first: the old ReplicaSet web-6d4 scaled up to 4")
    assert sum(1 for e in outcome.events if e.action == "deleted") == 4
    # Without the annotation (no scaling event recorded), the rollout starts at once.
    rs["metadata"].pop("annotations")
    out = _explain(_deployment(4, image="web:2"), objects)
    assert out.workload is not None and out.workload.outcome is not None
    assert not out.workload.outcome.first_step.startswith("a scaling event")


def test_a_scaling_event_pod_refused_by_the_quota_does_not_exist() -> None:
    # A quota of 4 pods, 3 running: the scaling event to 5 creates web-6d4-scaled-0 and its
    # second pod is refused. That slot has no pod: cleanupUnhealthyReplicas scales it away
    # without deleting anything, so no quota is freed and the new ReplicaSet's pods stay
    # refused (maxScaledDown is 0 with them unavailable): stuck, the 4 old pods left.
    objects = _running_deployment(3, nodes=2, node_cpu="8")
    (rs,) = objects.of("ReplicaSet")
    rs["metadata"]["annotations"] = {"deployment.kubernetes.io/desired-replicas": "3"}
    objects.add({"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "pods-quota", "namespace": NS},
                 "spec": {"hard": {"pods": "4"}}})
    out = _explain(_deployment(5, image="web:2"), objects)
    outcome = out.workload.outcome if out.workload is not None else None
    assert outcome is not None and not outcome.completes
    assert (outcome.done, outcome.old_left) == (0, 4)
    assert [(e.action, e.pod) for e in outcome.events[:2]] == [("placed", f"{NS}/web-6d4-scaled-0"),
                                                                ("refused", f"{NS}/web-6d4-scaled-1")]
    assert not any(e.action == "deleted" for e in outcome.events)
    assert "exceeded quota: pods-quota, requested: pods=1, used: pods=4, limited: pods=4" in (outcome.blocked_on or "")


def test_a_rollout_of_a_higher_priority_workload_preempts_its_way_through() -> None:
    # Two 2-CPU nodes, each with one of web's pods and a pod of priority 0. maxUnavailable
    # 0: each surge pod fits only by preempting a low-priority pod, then an old web pod goes.
    objects = _running_deployment(2, nodes=2, node_cpu="2")
    objects.add({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"},
                 "value": 1000})
    for p in objects.of("Pod"):
        p["spec"].update(priorityClassName="high", priority=1000)
    (rs,) = objects.of("ReplicaSet")
    rs["spec"]["template"]["spec"].update(priorityClassName="high", priority=1000)
    for i in range(2):
        objects.add(_pod_of(_template({"app": "batch"}), f"batch-{i}", f"n{i}", ("ReplicaSet", "batch")))
    dep = _deployment(2, image="web:2", strategy={"type": "RollingUpdate", "rollingUpdate": {
        "maxSurge": 1, "maxUnavailable": 0}})
    dep["spec"]["template"]["spec"]["priorityClassName"] = "high"
    out = _explain(dep, objects)
    outcome = out.workload.outcome if out.workload is not None else None
    assert outcome is not None and outcome.completes, outcome and outcome.summary()
    assert [e.pod for e in outcome.events if e.action == "preempted"] == [f"{NS}/batch-0"]


def test_a_rollout_under_way_places_the_new_replicasets_pending_pods_first() -> None:
    # web-6d4 (old) runs 3 pods; the new ReplicaSet web-7f9 of image web:2 has one pod
    # Pending. The run schedules it first, and leaves the cluster source as it was.
    objects = _running_deployment(3, nodes=3, node_cpu="4")
    tpl = _template({**LABELS, "pod-template-hash": "7f9"}, image="web:2", stored=True)
    objects.add({"apiVersion": "apps/v1", "kind": "ReplicaSet",
                 "metadata": {"name": "web-7f9", "namespace": NS, "uid": "uid-ReplicaSet-web-7f9",
                              "ownerReferences": _owner("Deployment", "web"),
                              "creationTimestamp": "2025-02-01T00:00:00Z"},
                 "spec": {"replicas": 1, "selector": {"matchLabels": {**LABELS, "pod-template-hash": "7f9"}},
                          "template": tpl}})
    pending = _pod_of(tpl, "web-7f9-0", None, ("ReplicaSet", "web-7f9"))
    objects.add(pending)
    out = _explain(_deployment(3, image="web:2"), objects)
    outcome = out.workload.outcome if out.workload is not None else None
    assert outcome is not None and outcome.completes
    assert outcome.events[0].action == "placed" and outcome.events[0].pod == f"{NS}/web-7f9-0"
    assert "nodeName" not in pending["spec"]


def test_a_statefulset_scaled_down_with_a_new_template_deletes_its_surplus_first() -> None:
    out = _explain(_sts(3, image="db:2"), _running_sts(4))
    outcome = out.workload.outcome if out.workload is not None else None
    assert outcome is not None and outcome.completes
    deleted = [e.pod for e in outcome.events if e.action == "deleted"]
    assert deleted == [f"{NS}/db-{i}" for i in (3, 2, 1, 0)]
    assert [e.pod for e in outcome.events if e.action == "placed"] == [f"{NS}/db-{i}" for i in (2, 1, 0)]

"""Node-local answers shared between pods (core/framework/shared_answers.py).

Each node-local plugin signs a pod by exactly what it reads of it: pods that differ in a
field the plugin reads must not share its answers, pods that differ elsewhere do. And the
runs that share (``pending``, ``check``) must give exactly the results of fresh cycles.
"""

from __future__ import annotations

import copy
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kschedx.core.api.model import PodInfo
from kschedx.core.api.objects import ClusterObjects
from kschedx.core.config.profile import default_profile
from kschedx.core.explain.check import check_paths
from kschedx.core.explain.front import load_cluster_files
from kschedx.core.explain.pending import explain_pending
from kschedx.core.framework import shared_answers
from kschedx.core.framework.runtime import Framework
from kschedx.core.plugins import REGISTRY
from kschedx.core.snapshot import Snapshot
from kschedx.core.versions import SchedulerVersion

from .helpers import node, pod, snapshot

Dict = dict[str, Any]

NODE_LOCAL = sorted(n for n, cls in REGISTRY.items() if cls.node_local)


def test_every_node_local_plugin_signs_pods() -> None:
    assert NODE_LOCAL  # the framework has some
    for name in NODE_LOCAL:
        assert callable(getattr(REGISTRY[name], "pod_signature", None)), name


def _base() -> Dict:
    p = pod("p", cpu="500m", memory="256Mi", labels={"app": "a"})
    p["spec"]["containers"][0]["image"] = "registry.example.com/app:v1"
    return p


def _set(path: str, value: Any) -> Callable[[Dict], None]:
    def edit(p: Dict) -> None:
        *parents, last = path.split(".")
        d = p
        for k in parents:
            d = d.setdefault(k, {})
        d[last] = value
    return edit


def _container(path: str, value: Any) -> Callable[[Dict], None]:
    def edit(p: Dict) -> None:
        c = p["spec"]["containers"][0]
        *parents, last = path.split(".")
        for k in parents:
            c = c.setdefault(k, {})
        c[last] = value
    return edit


ALL_RESOURCES = {"NodeResourcesFit", "NodeResourcesBalancedAllocation"}
TAINTS = {"TaintToleration", "NodeUnschedulable"}

# (what changes, the edit, the node-local plugins that read it)
VARIANTS: list[tuple[str, Callable[[Dict], None], set[str]]] = [
    ("name", _set("metadata.name", "other"), set()),
    ("labels", _set("metadata.labels", {"app": "b", "x": "y"}), set()),
    ("namespace", _set("metadata.namespace", "team"), set()),
    ("spread", _set("spec.topologySpreadConstraints", [{
        "maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
        "labelSelector": {"matchLabels": {"app": "a"}}}]), set()),
    ("pod anti-affinity", _set("spec.affinity", {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "a"}}, "topologyKey": "kubernetes.io/hostname"}]}}), set()),
    ("priority", _set("spec.priority", 1000), set()),
    ("limits", _container("resources.limits", {"memory": "1Gi"}), set()),
    ("tolerations", _set("spec.tolerations", [{"key": "k", "operator": "Exists"}]), TAINTS),
    ("nodeName", _set("spec.nodeName", "n1"), {"NodeName"}),
    ("host port", _container("ports", [{"containerPort": 80, "hostPort": 8080}]), {"NodePorts"}),
    ("image", _container("image", "registry.example.com/app:v2"), {"ImageLocality"}),
    ("image volume", _set("spec.volumes", [{"name": "v", "image": {"reference": "registry.example.com/data:v1"}}]),
     {"ImageLocality"}),
    ("nodeSelector", _set("spec.nodeSelector", {"pool": "a"}), {"NodeAffinity"}),
    ("required node affinity", _set("spec.affinity", {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": "pool", "operator": "In", "values": ["a"]}]}]}}}),
     {"NodeAffinity"}),
    ("preferred node affinity", _set("spec.affinity", {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 5, "preference": {"matchExpressions": [{"key": "pool", "operator": "In", "values": ["a"]}]}}]}}),
     {"NodeAffinity"}),
    ("cpu request", _container("resources.requests.cpu", "1"), ALL_RESOURCES),
    ("memory request", _container("resources.requests.memory", "200Mi"), ALL_RESOURCES),
    ("extended request", _container("resources", {"requests": {"cpu": "500m", "memory": "256Mi", "example.com/f": "1"},
                                                  "limits": {"example.com/f": "1"}}),
     {"NodeResourcesFit"}),
    ("init container", _set("spec.initContainers", [{"name": "i", "image": "registry.example.com/app:v1",
                                                     "resources": {"requests": {"cpu": "2"}}}]),
     ALL_RESOURCES | {"ImageLocality"}),
    ("overhead", _set("spec.overhead", {"cpu": "250m"}), ALL_RESOURCES),
    ("restart rules", _container("restartPolicyRules", [{"action": "RestartAllContainers",
                                                         "exitCodes": {"operator": "In", "values": [42]}}]),
     {"NodeDeclaredFeatures"}),
]


def _keys(raw: Dict, version: str = "v1.36", args: dict[str, Dict] | None = None) -> dict[str, Any]:
    profile = default_profile(REGISTRY, version=SchedulerVersion(version))
    if args:
        profile.plugin_args.update(args)
    fw = Framework(profile, snapshot(node("n1")), REGISTRY)
    info = PodInfo(raw)
    return {name: shared_answers.plugin_key(pl, info, profile) for name, pl in fw.plugins.instances.items()
            if pl.node_local}


@pytest.mark.parametrize("what,edit,readers", VARIANTS, ids=[v[0] for v in VARIANTS])
def test_a_signature_changes_only_with_what_its_plugin_reads(
        what: str, edit: Callable[[Dict], None], readers: set[str]) -> None:
    base = _base()
    other = copy.deepcopy(base)
    edit(other)
    a, b = _keys(base), _keys(other)
    assert set(a) == set(NODE_LOCAL)  # v1.36 runs every node-local plugin
    changed = {name for name in a if a[name] != b[name]}
    assert changed == readers


def test_the_configuration_is_part_of_the_key() -> None:
    base = _base()
    plain = _keys(base)
    most = _keys(base, args={"NodeResourcesFit": {"scoringStrategy": {"type": "MostAllocated"}}})
    assert plain["NodeResourcesFit"] != most["NodeResourcesFit"]
    assert plain["TaintToleration"] == most["TaintToleration"]
    older = _keys(base, version="v1.35")
    # TaintToleration's reason and the image volumes differ by release: every key does.
    assert all(older[n] != plain[n] for n in older)


def test_generations_never_repeat() -> None:
    snap = snapshot(node("n1"), node("n2"))
    seen = {ni.generation for ni in snap.nodes()}
    ni = snap.get("n1")
    assert ni is not None
    p = PodInfo(pod("x", cpu="1", node_name="n1"))
    for _ in range(3):
        snap.add_pod(p)
        assert ni.generation not in seen
        seen.add(ni.generation)
        snap.remove_pod(p)
        assert ni.generation not in seen
        seen.add(ni.generation)
    clone = ni.clone()
    clone.add_pod(PodInfo(pod("y", cpu="1", node_name="n1")))
    assert clone.generation not in seen
    again = snapshot(node("n1"), node("n2"))
    assert not {n.generation for n in again.nodes()} & seen


# --------------------------------------------------------------------------- whole runs, shared or not


def _generated(tmp: Path, nodes: int, pending: int, workloads: int) -> Path:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    try:
        import generate_cluster
    finally:
        sys.path.pop(0)
    objs = generate_cluster.generate(nodes, pods_per_node=8)
    node_objs = [o for o in objs if o["kind"] == "Node"]
    objs += generate_cluster.pending_workloads(node_objs, pending, workloads, 5000)
    # Pending pods that differ from a neighbour in one field a node-local plugin reads.
    template = next(o for o in objs if o["kind"] == "Pod" and o["metadata"]["name"].startswith("pending-spread"))
    for what, edit, _readers in VARIANTS:
        variant = copy.deepcopy(template)
        edit(variant)
        if variant["spec"].get("nodeName"):
            continue  # not pending
        variant["metadata"]["name"] = "variant-" + what.replace(" ", "-").lower()
        variant["metadata"]["uid"] = "uid-variant-" + what.replace(" ", "-").lower()
        objs.append(variant)
    dump = tmp / "cluster.json"
    generate_cluster.write(objs, dump)
    return dump


def _cluster(path: Path) -> ClusterObjects:
    return load_cluster_files([str(path)])


@pytest.fixture(scope="module")
def pending_cluster(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _generated(tmp_path_factory.mktemp("shared"), 36, 160, 16)


def _both(run: Callable[[], Any], monkeypatch: pytest.MonkeyPatch) -> tuple[str, str, int]:
    """The JSON of ``run`` with shared answers and without, and how many tables were shared."""
    made: list[shared_answers.SharedAnswers] = []
    real = shared_answers.SharedAnswers

    def counting(snap: Snapshot) -> shared_answers.SharedAnswers:
        made.append(real(snap))
        return made[-1]

    monkeypatch.setattr(shared_answers, "SharedAnswers", counting)
    with_sharing = json.dumps(run().to_json(), sort_keys=True)
    tables = sum(len(a.filters) + len(a.scores) for a in made)
    monkeypatch.setattr(shared_answers, "ENABLED", False)
    without = json.dumps(run().to_json(), sort_keys=True)
    return with_sharing, without, tables


def test_pending_is_the_same_with_shared_answers(pending_cluster: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    objects = _cluster(pending_cluster)
    shared, fresh, tables = _both(lambda: explain_pending(objects), monkeypatch)
    assert tables > 0
    assert shared == fresh
    report = json.loads(shared)
    statuses = {p["status"] for p in report["pods"]}
    assert {"fits", "unschedulable", "gated", "nominated"} <= statuses


def test_check_is_the_same_with_shared_answers(tmp_path: Path, pending_cluster: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    objects = _cluster(pending_cluster)
    d = tmp_path / "manifests"
    d.mkdir()
    bound = next(o for o in objects.of("Pod") if (o.get("spec") or {}).get("nodeName")
                 and o["metadata"]["namespace"] != "kube-system")
    for i in range(12):
        spec: Dict = {"containers": [{"name": "app", "image": "registry.example.com/team-01/svc-1:v2.1",
                                      "resources": {"requests": {"cpu": ["200m", "40", "3"][i % 3],
                                                                 "memory": "256Mi"}}}],
                      "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                                                     "whenUnsatisfiable": "DoNotSchedule",
                                                     "labelSelector": {"matchLabels": {"app": f"m{i}"}}}],
                      "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                          {"labelSelector": {"matchLabels": {"app": f"m{i}"}},
                           "topologyKey": "kubernetes.io/hostname"}]}}}
        if i % 4 == 1:
            spec["tolerations"] = [{"key": "nvidia.com/gpu", "operator": "Exists"}]
        if i % 5 == 2:
            spec["nodeSelector"] = {"node-pool": "highmem"}
        doc = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": f"m{i}", "namespace": "team-01"},
               "spec": {"replicas": 1 + i % 3, "selector": {"matchLabels": {"app": f"m{i}"}},
                        "template": {"metadata": {"labels": {"app": f"m{i}"}}, "spec": spec}}}
        (d / f"m{i:02d}.json").write_text(json.dumps(doc))
    # A pod the cluster runs, checked again with a bigger request: it is taken off its node
    # for its own cycle, which must not be answered from before.
    again = {"apiVersion": "v1", "kind": "Pod",
             "metadata": {"name": bound["metadata"]["name"], "namespace": bound["metadata"]["namespace"]},
             "spec": {"containers": [{"name": "app", "image": "registry.example.com/team-01/svc-1:v2.1",
                                      "resources": {"requests": {"cpu": "200m", "memory": "256Mi"}}}]}}
    (d / "zz-again.json").write_text(json.dumps(again))
    shared, fresh, tables = _both(lambda: check_paths([str(d)], objects), monkeypatch)
    assert tables > 0
    assert shared == fresh
    verdicts = {e["verdict"] for e in json.loads(shared)["results"]}
    assert "fits" in verdicts and verdicts - {"fits"}


def test_pending_pods_alike_but_for_their_names_share_one_cycle(pending_cluster: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from kschedx.core.explain import front

    objects = _cluster(pending_cluster)
    real = front.run
    runs: list[str] = []

    def counting(*args: Any, **kwargs: Any) -> Any:
        runs.append(args[1].pod["metadata"]["name"])
        return real(*args, **kwargs)

    monkeypatch.setattr(front, "run", counting)
    report = explain_pending(objects)
    assert not [p.detail for p in report.pods if p.status == "error"]
    cycled = [p for p in report.pods if p.status not in ("gated", "other-scheduler")]
    # Each ReplicaSet's pods are alike: far fewer cycles than pods; StatefulSet pods (their
    # own labels), nominated pods and the variants get their own.
    assert len(runs) < len(cycled) // 2
    assert all(name in runs for name in (p.name for p in cycled if p.status == "nominated"))
    # Each variant differs from its template in one field (the name variant in its name alone).
    variants = [p.name for p in cycled if p.name.startswith("variant-")]
    assert "variant-name" in variants and "variant-name" not in runs
    assert [n for n in variants if n != "variant-name" and n not in runs] == []
    shared_report = json.dumps(report.to_json(), sort_keys=True)
    runs.clear()
    monkeypatch.setattr(shared_answers, "ENABLED", False)
    fresh = explain_pending(objects)
    assert len(runs) == len(cycled)
    assert json.dumps(fresh.to_json(), sort_keys=True) == shared_report


def test_a_release_reads_the_answer_columns_as_fresh_answers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Workloads signing alike read each node-local plugin's answers as a column over the
    nodes (core/framework/interface.py AnswerTable), answered again only where a node changed
    since: here every workload's copies fill the nodes the next workload's column was last
    answered on, so a column read stale would keep nodes feasible (and scores) that are not."""
    from kschedx.core.framework import interface

    nodes = [node(f"ip-10-0-{i}-17.eu-west-1.compute.internal", cpu="2", memory="8Gi",
                  labels={"topology.kubernetes.io/zone": f"eu-west-1{'abc'[i % 3]}"}) for i in range(6)]
    running = [pod(f"base-{i}", cpu="300m", memory="1Gi", node_name=nodes[i]["metadata"]["name"]) for i in range(3)]
    cluster = tmp_path / "cluster.json"
    cluster.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [*nodes, *running]}))
    d = tmp_path / "release"
    d.mkdir()
    for i in range(8):
        doc = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": f"w{i}", "namespace": "default"},
               "spec": {"replicas": 1 + i % 3, "selector": {"matchLabels": {"app": f"w{i}"}},
                        "template": {"metadata": {"labels": {"app": f"w{i}"}}, "spec": {"containers": [
                            {"name": "app", "image": "registry.example.com/app:v1",
                             "resources": {"requests": {"cpu": "700m", "memory": "512Mi"}}}]}}}}
        (d / f"w{i}.json").write_text(json.dumps(doc))

    def run() -> str:
        return json.dumps(check_paths([str(d)], load_cluster_files([str(cluster)])).to_json(), sort_keys=True)

    columns = run()
    monkeypatch.setattr(interface, "COLUMNS", False)
    assert run() == columns
    results = json.loads(columns)["results"]
    # The nodes filled up: the last workloads fit only partly or not at all.
    assert results[0]["verdict"] == "fits" and {r["verdict"] for r in results[5:]} - {"fits"}

"""What the controllers do while a release is applied (issue 45): a scale-down frees its
pods' room for the workloads placed after it, and ``kubectl apply`` over an HPA-managed
Deployment sets the manifest's count at once, the HPA's next sync its own later."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from .test_explain_cli import run, write
from .test_release_cli import by_name, deployment, flat, hpa

TPL = {"metadata": {"labels": {"app": "web"}},
       "spec": {"containers": [{"name": "c", "image": "nginx:1.27", "resources": {"requests": {"cpu": "1"}}}]}}


def _cluster(running: list[str], replicas: int) -> str:
    """Two nodes of 2 CPUs; Deployment shop/web running one 1-CPU pod per entry of
    ``running`` (the node it is on)."""
    items: list[Any] = [
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": n, "labels": {"kubernetes.io/hostname": n}},
         "status": {"allocatable": {"cpu": "2", "memory": "8Gi", "pods": "110"}, "nodeInfo": {"kubeletVersion": "v1.35.0"}}}
        for n in ("node-a", "node-b")]
    items.append({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "shop", "uid": "d1"},
                  "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "web"}}, "template": TPL}})
    labels = {"app": "web", "pod-template-hash": "abc"}
    items.append({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {
        "name": "web-abc", "namespace": "shop", "uid": "rs1", "labels": labels,
        "annotations": {"deployment.kubernetes.io/revision": "1"},
        "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "uid": "d1", "controller": True}]},
        "spec": {"replicas": replicas, "selector": {"matchLabels": labels},
                 "template": {"metadata": {"labels": labels}, "spec": TPL["spec"]}}})
    for i, node in enumerate(running):
        items.append({"apiVersion": "v1", "kind": "Pod", "metadata": {
            "name": f"web-abc-{i}", "namespace": "shop", "uid": f"web-{i}", "labels": labels,
            "creationTimestamp": f"2026-11-01T00:0{i}:00Z",
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-abc", "uid": "rs1",
                                 "controller": True}]},
            "spec": dict(TPL["spec"], nodeName=node),
            "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}})
    return str(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items}))


def check_json(*args: str) -> tuple[int, Any]:
    res = run("check", *args, "-o", "json")
    assert res.exit_code in (0, 1), res.output
    return res.exit_code, json.loads(res.stdout)


def test_a_scale_down_frees_room_for_the_workloads_after_it(tmp_path: Path) -> None:
    # web runs 3 of the 4 CPUs and is scaled down to 1; its controller deletes two pods
    # (node-a's first: it holds two of them), and api's 2 pods fit in the room they leave.
    cluster = write(tmp_path, "cluster.yaml", _cluster(["node-a", "node-a", "node-b"], 3))
    web = write(tmp_path, "web.yaml", deployment("web", 1, "1"))
    api = write(tmp_path, "api.yaml", deployment("api", 3, "1"))
    code, data = check_json(web, api, "--cluster", cluster)
    results = by_name(data)
    assert results["web"]["verdict"] == "fits" and "its controller deletes" in results["web"]["message"]
    assert (results["api"]["placed"], results["api"]["verdict"]) == (3, "fits") and code == 0


def test_apply_over_an_hpa_sets_the_manifest_count_first(tmp_path: Path) -> None:
    # web runs 3 (its HPA's count) on node-a, node-a, node-b; the manifest says 2. kubectl
    # apply scales it to 2 at once (a pod on node-a goes), api's 2 pods take the 2 free
    # CPUs, and the HPA's next sync asks for 3 again: that pod stays Pending. A real control
    # plane gave this; keeping the HPA's 3 throughout left api short instead (issue 45, item 3).
    cluster = write(tmp_path, "cluster.yaml", _cluster(["node-a", "node-a", "node-b"], 3))
    live_hpa = write(tmp_path, "hpa.yaml", hpa("web", "web", 2, 5, "{currentReplicas: 3, desiredReplicas: 3}"))
    web = write(tmp_path, "web.yaml", deployment("web", 2, "1"))
    api = write(tmp_path, "api.yaml", deployment("api", 2, "1"))
    code, data = check_json(web, api, "--cluster", cluster, "--cluster", live_hpa)
    results = by_name(data)
    assert code == 1
    assert (results["api"]["placed"], results["api"]["verdict"]) == (2, "fits")
    assert results["web"]["hpaAfterApply"] == {"applied": 2, "hpa": 3, "name": "web", "deleted": 1}
    assert (results["web"]["new"], results["web"]["pending"], results["web"]["verdict"]) == (1, 1, "unschedulable")
    assert data["release"]["unplacedTotal"] == 1
    # Which of them goes short is timing (the HPA's sync against api's pods): both ways.
    assert results["web"]["unplacedRange"] == [0, 1] and results["api"]["unplacedRange"] == [0, 1]
    assert data["release"]["chance"]["unplacedTotalRange"] == [1, 1]
    text = flat(run("check", web, api, "--cluster", cluster, "--cluster", live_hpa).stdout)
    assert "kubectl apply set replicas 2 first (its controller deleted 1 pod(s)), then HorizontalPodAutoscaler " \
        "web's next sync set 3" in text


THREE_NODES = """\
apiVersion: v1
kind: List
items:
""" + "".join(
    f"- apiVersion: v1\n  kind: Node\n  metadata: {{name: {n}, labels: {{kubernetes.io/hostname: {n}}}}}\n"
    f"  status: {{allocatable: {{cpu: \"{cpu}\", memory: 8Gi, pods: \"110\"}}, nodeInfo: {{kubeletVersion: v1.35.0}}}}\n"
    for n, cpu in (("node-a", "4"), ("node-b", "2"), ("node-c", "2")))


def test_a_workload_named_twice_is_placed_as_first_applied_then_scaled_down(tmp_path: Path) -> None:
    # kubectl apply -f sends both documents: the ReplicaSet creates the first one's 6 pods
    # and the scheduler places them; the second scales it to 2, and the ReplicaSet's ranking
    # deletes from the nodes holding more of them first. The 2 that stay are 2 of those 6,
    # not 2 placed afresh (issue 45, item 2).
    cluster = write(tmp_path, "cluster.yaml", THREE_NODES)
    web = write(tmp_path, "web.yaml", deployment("web", 6, "500m") + "---\n" + deployment("web", 2, "500m"))
    code, data = check_json(web, "--cluster", cluster)
    (result,) = data["results"]
    assert code == 0 and result["verdict"] == "fits"
    first = result["appliedFirst"]
    assert (first["replicas"], first["placed"]) == (6, 6) and len(first["stayOn"]) == 2
    assert (result["replicas"], result["new"], result["placed"], result["pending"]) == (2, 2, 2, 0)
    # The ranking deletes from the most crowded nodes: the two that stay are on different nodes.
    assert len(set(first["stayOn"])) == 2
    assert "its controller deletes" in result["message"] and "applied first: 6 replica(s), 6 placed" in \
        result["message"]


def test_the_unscheduled_pods_of_the_earlier_document_go_first(tmp_path: Path) -> None:
    # 10 pods of 1 CPU where 8 fit, then 9: the ReplicaSet deletes the unscheduled one
    # first, so 8 run and 1 stays Pending — not 9 placed afresh with one short.
    cluster = write(tmp_path, "cluster.yaml", THREE_NODES)
    web = write(tmp_path, "web.yaml", deployment("web", 10, "1") + "---\n" + deployment("web", 9, "1"))
    code, data = check_json(web, "--cluster", cluster)
    (result,) = data["results"]
    assert code == 1 and result["appliedFirst"]["placed"] == 8
    assert (result["new"], result["placed"], result["pending"], result["verdict"]) == (9, 8, 1, "partial")
    assert data["release"]["pods"]["pending"] == 1

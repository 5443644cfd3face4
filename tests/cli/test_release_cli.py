"""`kschedx check` places the documents of one run together, as one release (issue 28):
later workloads see the pods of earlier ones, in the scheduling queue's order; --separately
keeps one document at a time; replica counts as kubectl apply and an HPA leave them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .test_explain_cli import CLUSTER, WEB, run, write

TWO_NODES = """\
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: node-a, labels: {kubernetes.io/hostname: node-a, topology.kubernetes.io/zone: z1}}
  status: {allocatable: {cpu: "2", memory: 8Gi, pods: "110"}, nodeInfo: {kubeletVersion: v1.35.0}}
- apiVersion: v1
  kind: Node
  metadata: {name: node-b, labels: {kubernetes.io/hostname: node-b, topology.kubernetes.io/zone: z2}}
  status: {allocatable: {cpu: "2", memory: 8Gi, pods: "110"}, nodeInfo: {kubeletVersion: v1.35.0}}
"""


def deployment(name: str, replicas: int | None, cpu: str, extra: str = "") -> str:
    count = f"  replicas: {replicas}\n" if replicas is not None else ""
    return f"""\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: {name}, namespace: shop}}
spec:
{count}  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata: {{labels: {{app: {name}}}}}
    spec:
{extra}      containers:
      - name: c
        image: nginx:1.27
        resources: {{requests: {{cpu: "{cpu}"}}}}
"""


def hpa(name: str, target: str, low: int, high: int, status: str = "", api: str = "autoscaling/v2") -> str:
    text = f"""\
apiVersion: {api}
kind: HorizontalPodAutoscaler
metadata: {{name: {name}, namespace: shop}}
spec:
  scaleTargetRef: {{apiVersion: apps/v1, kind: Deployment, name: {target}}}
  minReplicas: {low}
  maxReplicas: {high}
"""
    return text + (f"status: {status}\n" if status else "")


def check_json(*args: str) -> tuple[int, Any]:
    res = run("check", *args, "-o", "json")
    assert res.exit_code in (0, 1), res.output
    return res.exit_code, json.loads(res.stdout)


def by_name(data: Any) -> dict[str, Any]:
    return {r["name"]: r for r in data["results"]}


def flat(text: str) -> str:
    return " ".join(text.split())


# --------------------------------------------------------------------------- placed together

def test_release_that_fits_manifest_by_manifest_but_not_together(tmp_path: Path) -> None:
    cluster = write(tmp_path, "cluster.yaml", TWO_NODES)
    api = write(tmp_path, "api.yaml", deployment("api", 3, "1"))
    web = write(tmp_path, "web.yaml", deployment("web", 2, "1"))
    # Each alone fits on the 4 CPUs; together 5 CPUs are asked for.
    res = run("check", api, web, "--cluster", cluster)
    assert res.exit_code == 1, res.output
    out = flat(res.output)
    assert "Release: fits partly — 1 of 5 new pod(s) stay Pending" in out
    assert "Deployment/shop/web" in out and "fits alone; not after Deployment/shop/api" in out
    assert "scheduling queue's order: priority (higher first), then the files' order, documents in order" in out
    # One manifest at a time, as before: both fit.
    alone = run("check", api, web, "--cluster", cluster, "--separately")
    assert alone.exit_code == 0, alone.output
    assert "Release" not in alone.output and "2 checked: 2 fit" in flat(alone.output)


def test_release_json_block(tmp_path: Path) -> None:
    cluster = write(tmp_path, "cluster.yaml", TWO_NODES)
    api = write(tmp_path, "api.yaml", deployment("api", 3, "1"))
    web = write(tmp_path, "web.yaml", deployment("web", 2, "1"))
    code, data = check_json(api, web, "--cluster", cluster)
    assert code == 1 and data["mode"] == "release"
    release = data["release"]
    assert release["order"] == ["Deployment/shop/api", "Deployment/shop/web"]
    assert release["verdict"] == "partial"
    assert release["counts"] == {"workloads": 2, "fits": 1, "partial": 1, "unschedulable": 0, "error": 0}
    assert release["pods"] == {"new": 5, "placed": 4, "pending": 1, "notCreated": 0}
    assert release["pending"] == [{"workload": "Deployment/shop/web", "pods": 1}]
    web_result = by_name(data)["web"]
    assert web_result["alone"] == {"verdict": "fits", "placed": 2, "notAfter": ["Deployment/shop/api"]}
    # The pods of api stay bound: web's one copy goes where room is left.
    assert (web_result["placed"], web_result["pending"]) == (1, 1)
    code, data = check_json(api, web, "--cluster", cluster, "--separately")
    assert code == 0 and data["mode"] == "separately" and "release" not in data


def test_higher_priority_is_placed_first_whatever_the_file_order(tmp_path: Path) -> None:
    cluster = write(tmp_path, "cluster.yaml", TWO_NODES)
    api = write(tmp_path, "a-api.yaml", deployment("api", 3, "1"))
    batch = write(tmp_path, "b-batch.yaml", deployment("batch", 1, "1500m", "      priorityClassName: high\n")
                  + "---\napiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: 1000\n")
    code, data = check_json(api, batch, "--cluster", cluster)
    assert code == 1
    assert data["release"]["order"] == ["Deployment/shop/batch", "Deployment/shop/api"]
    assert [r["name"] for r in data["results"]] == ["batch", "api"]
    results = by_name(data)
    assert results["batch"]["priority"] == 1000 and results["batch"]["verdict"] == "fits"
    # 1.5 CPUs taken first on one node: api finds room for 2 of its 3 copies.
    assert (results["api"]["verdict"], results["api"]["placed"]) == ("partial", 2)
    assert results["api"]["alone"]["notAfter"] == ["Deployment/shop/batch"]


def test_host_ports_of_an_earlier_workload_are_taken(tmp_path: Path) -> None:
    cluster = write(tmp_path, "cluster.yaml", TWO_NODES)
    port = "      hostNetwork: false\n"
    one = deployment("edge", 2, "100m", port).replace(
        "        resources:", "        ports: [{containerPort: 80, hostPort: 8080}]\n        resources:")
    two = one.replace("edge", "edge2")
    both = write(tmp_path, "both.yaml", one + "---\n" + two)
    code, data = check_json(both, "--cluster", cluster)
    assert code == 1
    second = by_name(data)["edge2"]
    assert second["verdict"] == "unschedulable" and "free ports" in second["message"]
    assert second["alone"]["verdict"] == "fits"


def test_daemon_pods_of_the_release_take_room(tmp_path: Path) -> None:
    cluster = write(tmp_path, "cluster.yaml", TWO_NODES)
    ds = write(tmp_path, "ds.yaml", """\
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: shop}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      containers:
      - name: c
        image: agent:1
        resources: {requests: {cpu: 1500m}}
""")
    web = write(tmp_path, "web.yaml", deployment("web", 1, "1"))
    code, data = check_json(ds, web, "--cluster", cluster)
    assert code == 1
    results = by_name(data)
    assert results["agent"]["verdict"] == "fits" and results["agent"]["new"] == 2
    assert results["web"]["verdict"] == "unschedulable"
    assert results["web"]["alone"]["notAfter"] == ["DaemonSet/shop/agent"]
    assert run("check", ds, web, "--cluster", cluster, "--separately").exit_code == 0


def test_documents_see_each_other_only_in_a_release(tmp_path: Path) -> None:
    # A scale-up, then a new Deployment of the same template: in a release the second
    # finds the first one's copies bound, alone it does not.
    other = Path(WEB).read_text().replace("\n  name: web\n", "\n  name: web-b\n")
    both = write(tmp_path, "both.yaml", Path(WEB).read_text() + "\n---\n" + other)
    code, data = check_json(both, "--cluster", CLUSTER)
    first, second = (r["explanation"] for r in data["results"])
    code, data = check_json(both, "--cluster", CLUSTER, "--separately")
    first_alone, second_alone = (r["explanation"] for r in data["results"])
    assert first == first_alone and second != second_alone


def test_markdown_and_html_carry_the_release_verdict(tmp_path: Path) -> None:
    cluster = write(tmp_path, "cluster.yaml", TWO_NODES)
    api = write(tmp_path, "api.yaml", deployment("api", 3, "1"))
    web = write(tmp_path, "web.yaml", deployment("web", 2, "1"))
    md = run("check", api, web, "--cluster", cluster, "-o", "markdown")
    assert md.exit_code == 1
    lines = md.stdout.splitlines()
    assert lines[0].startswith("**kschedx check** · Kubernetes v1.35 · cluster: ")
    assert lines[2].startswith("**⚠️ Release: fits partly") and "scheduling queue's order" in lines[4]
    assert any(line.startswith("| ⚠️ partly | `Deployment/shop/web` |") and "fits alone" in line for line in lines)
    page = run("check", api, web, "--cluster", cluster, "-o", "html")
    assert page.exit_code == 1
    assert "Release: fits partly" in page.stdout and "fits alone; not after Deployment/shop/api" in page.stdout


# --------------------------------------------------------------------------- replica counts

WEB_WITHOUT_REPLICAS = Path(WEB).read_text().replace("  replicas: 8\n", "")


def test_manifest_without_replicas_keeps_the_live_count(tmp_path: Path) -> None:
    assert "replicas: 8" not in WEB_WITHOUT_REPLICAS
    web = write(tmp_path, "web.yaml", WEB_WITHOUT_REPLICAS)
    code, data = check_json(web, "--cluster", CLUSTER)
    (result,) = data["results"]
    # web's ReplicaSet asks for 7 (6 run): the count stays, the missing pod is placed.
    assert (result["replicas"], result["running"], result["placed"]) == (7, 6, 1)
    assert result["explanation"]["workload"]["rule"] == "scale-up"
    assert result["replicasFrom"].startswith("replicas 7 kept from the live Deployment (as its ReplicaSets record it)")
    assert "replicas 7 kept from the live Deployment" in flat(run("check", web, "--cluster", CLUSTER).output)


def test_cluster_hpa_sets_the_count(tmp_path: Path) -> None:
    web = write(tmp_path, "web.yaml", WEB_WITHOUT_REPLICAS)
    live = write(tmp_path, "hpa.yaml", hpa("web", "web", 2, 10, "{currentReplicas: 7, desiredReplicas: 9}"))
    code, data = check_json(web, "--cluster", CLUSTER, "--cluster", live)
    (result,) = data["results"]
    assert (result["replicas"], result["running"], result["placed"]) == (9, 6, 3)
    assert result["replicasFrom"] == "replicas 9 from HorizontalPodAutoscaler web (desired)"
    # A manifest's own count does not win against the autoscaler either.
    code, data = check_json(WEB, "--cluster", CLUSTER, "--cluster", live)
    assert data["results"][0]["replicas"] == 9


def test_hpa_of_the_files_sets_the_count(tmp_path: Path) -> None:
    app = write(tmp_path, "app.yaml", WEB_WITHOUT_REPLICAS + "\n---\n" + hpa("web-hpa", "web", 8, 12))
    code, data = check_json(app, "--cluster", CLUSTER)
    (result,) = data["results"]
    assert (result["replicas"], result["placed"]) == (8, 2)
    assert result["replicasFrom"] == "replicas 8 from HorizontalPodAutoscaler web-hpa (minReplicas)"
    assert "HorizontalPodAutoscaler/shop/web-hpa" in data["overlaid"]


def test_hpa_status_written_in_a_file_is_ignored(tmp_path: Path) -> None:
    # The API server keeps an HPA's status to its controller: a manifest's is dropped.
    app = write(tmp_path, "app.yaml", WEB_WITHOUT_REPLICAS + "\n---\n" + hpa("web-hpa", "web", 2, 12, "{desiredReplicas: 11}"))
    code, data = check_json(app, "--cluster", CLUSTER)
    assert data["results"][0]["replicas"] == 7
    assert "no desired count yet" in data["results"][0]["replicasFrom"]


def test_hpa_clamps_to_max_and_last_applied_replicas_is_removed(tmp_path: Path) -> None:
    cluster = write(tmp_path, "cluster.yaml", TWO_NODES + """\
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: api
    namespace: shop
    annotations:
      kubectl.kubernetes.io/last-applied-configuration: '{"apiVersion":"apps/v1","kind":"Deployment","spec":{"replicas":3}}'
  spec: {replicas: 3, selector: {matchLabels: {app: api}}, template: {metadata: {labels: {app: api}}, spec: {containers: [{name: c, image: nginx:1.27}]}}}
""")
    api = write(tmp_path, "api.yaml", deployment("api", None, "100m"))
    without = write(tmp_path, "without.yaml", cluster_text := Path(cluster).read_text().replace(
        "    annotations:\n      kubectl.kubernetes.io/last-applied-configuration: "
        "'{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"spec\":{\"replicas\":3}}'\n", ""))
    assert "last-applied" not in cluster_text
    code, data = check_json(api, "--cluster", without)
    assert data["results"][0]["replicas"] == 3
    assert data["results"][0]["replicasFrom"].startswith("replicas 3 kept from the live Deployment: ")
    code, data = check_json(api, "--cluster", cluster)
    assert data["results"][0]["replicas"] == 1
    assert "kubectl apply removes it and the default 1 applies" in data["results"][0]["replicasFrom"]
    live = write(tmp_path, "hpa.yaml", hpa("api", "api", 2, 4, "{desiredReplicas: 6}", api="autoscaling/v1"))
    code, data = check_json(api, "--cluster", cluster, "--cluster", live)
    assert data["results"][0]["replicas"] == 4
    assert data["results"][0]["replicasFrom"] == "replicas 4 from HorizontalPodAutoscaler api (maxReplicas)"


def test_malformed_metadata_is_an_error_line_not_python_words(tmp_path: Path) -> None:
    bad = write(tmp_path, "bad.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata: x\nspec: {}\n")
    web = write(tmp_path, "web.yaml", deployment("web", 1, "100m"))
    res = run("check", bad, web, "--cluster", write(tmp_path, "cluster.yaml", TWO_NODES), "-o", "json")
    assert res.exit_code == 2, res.output
    results = json.loads(res.stdout)["results"]
    assert results[0]["verdict"] == "error" and "Error" not in results[0]["error"]
    assert results[1]["verdict"] == "fits"


def test_a_pod_the_cluster_already_runs_takes_no_second_place(tmp_path: Path) -> None:
    running = """\
- apiVersion: v1
  kind: Pod
  metadata: {name: big, namespace: shop, uid: uid-big}
  spec: {nodeName: node-a, containers: [{name: c, image: nginx:1.27, resources: {requests: {cpu: 1500m}}}]}
  status: {phase: Running}
- apiVersion: v1
  kind: Pod
  metadata: {name: small, namespace: shop, uid: uid-small}
  spec: {nodeName: node-a, containers: [{name: c, image: nginx:1.27, resources: {requests: {cpu: 100m}}}]}
  status: {phase: Running}
"""
    cluster = write(tmp_path, "cluster.yaml", TWO_NODES + running)
    pod = write(tmp_path, "big.yaml", """\
apiVersion: v1
kind: Pod
metadata: {name: big, namespace: shop}
spec: {containers: [{name: c, image: nginx:1.27, resources: {requests: {cpu: 1500m}}}]}
""")
    web = write(tmp_path, "web.yaml", deployment("web", 1, "1500m"))
    # Applying big again creates no pod: node-b keeps its room for web.
    code, data = check_json(pod, web, "--cluster", cluster)
    assert code == 0 and by_name(data)["web"]["verdict"] == "fits"


def test_spread_counts_see_the_pods_of_earlier_workloads(tmp_path: Path) -> None:
    cluster = write(tmp_path, "cluster.yaml", TWO_NODES)
    # Both workloads' pods carry tier=web; b spreads tier=web pods over the zones.
    first = deployment("a", 2, "100m", "      nodeSelector: {kubernetes.io/hostname: node-a}\n")
    second = deployment("b", 2, "100m", """\
      topologySpreadConstraints:
      - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule,
         labelSelector: {matchLabels: {tier: web}}}
""")
    both = write(tmp_path, "both.yaml", (first + "---\n" + second).replace("labels: {app: ", "labels: {tier: web, app: "))

    def nodes_of_b(*extra: str) -> list[str]:
        code, data = check_json(both, "--cluster", cluster, *extra)
        assert code == 0
        return sorted(s["node"] for s in by_name(data)["b"]["explanation"]["summary"])

    # a's two pods in zone z1 count: both of b's go to z2.
    assert nodes_of_b() == ["node-b", "node-b"]
    assert nodes_of_b("--separately") == ["node-a", "node-b"]


def test_a_read_write_once_pod_claim_taken_by_an_earlier_pod(tmp_path: Path) -> None:
    cluster = write(tmp_path, "cluster.yaml", TWO_NODES + """\
- apiVersion: v1
  kind: PersistentVolume
  metadata: {name: pv-data}
  spec: {capacity: {storage: 1Gi}, accessModes: [ReadWriteOncePod], storageClassName: "",
         claimRef: {namespace: shop, name: data}, hostPath: {path: /data}}
  status: {phase: Bound}
- apiVersion: v1
  kind: PersistentVolumeClaim
  metadata: {name: data, namespace: shop, annotations: {pv.kubernetes.io/bind-completed: "yes"}}
  spec: {accessModes: [ReadWriteOncePod], storageClassName: "", volumeName: pv-data,
         resources: {requests: {storage: 1Gi}}}
  status: {phase: Bound}
""")
    pods = write(tmp_path, "pods.yaml", "---\n".join(f"""\
apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: shop}}
spec:
  containers: [{{name: c, image: nginx:1.27}}]
  volumes: [{{name: d, persistentVolumeClaim: {{claimName: data}}}}]
""" for name in ("writer", "reader")))
    code, data = check_json(pods, "--cluster", cluster)
    assert code == 1
    reader = by_name(data)["reader"]
    assert reader["verdict"] == "unschedulable" and "ReadWriteOncePod" in reader["message"]
    assert reader["alone"]["notAfter"] == ["Pod/shop/writer"]
    assert check_json(pods, "--cluster", cluster, "--separately")[0] == 0


def test_directories_are_walked_in_kubectls_order(tmp_path: Path) -> None:
    # kubectl apply -f walks a directory level by level: app/ before app-extra.yaml,
    # though "app-" sorts before "app/" as a string.
    cluster = write(tmp_path, "cluster.yaml", TWO_NODES)
    d = tmp_path / "repo"
    (d / "app").mkdir(parents=True)
    write(d / "app", "api.yaml", deployment("api", 1, "100m"))
    write(d, "app-extra.yaml", deployment("extra", 1, "100m"))
    code, data = check_json(str(d), "--cluster", cluster)
    assert data["release"]["order"] == ["Deployment/shop/api", "Deployment/shop/extra"]


def cronjob(name: str, cpu: str) -> str:
    return f"""\
apiVersion: batch/v1
kind: CronJob
metadata: {{name: {name}, namespace: shop}}
spec:
  schedule: "0 3 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers:
          - name: c
            image: busybox
            resources: {{requests: {{cpu: "{cpu}"}}}}
"""


def test_a_cronjob_takes_no_room_and_is_checked_with_the_release_in_place(tmp_path: Path) -> None:
    # Applied first, the CronJob creates nothing (its Job comes on schedule): the
    # Deployment after it gets the room its 1.5-CPU pod would have taken, and the CronJob's
    # pod is checked last, on what the release leaves, and is not among its pods.
    cluster = write(tmp_path, "cluster.yaml", TWO_NODES)
    nightly = write(tmp_path, "a-nightly.yaml", cronjob("nightly", "1500m"))
    api = write(tmp_path, "b-api.yaml", deployment("api", 2, "1500m"))
    code, data = check_json(nightly, api, "--cluster", cluster)
    results = by_name(data)
    assert results["api"]["verdict"] == "fits" and results["api"]["placed"] == 2
    assert data["release"]["order"] == ["Deployment/shop/api", "CronJob/shop/nightly"]
    assert data["release"]["onSchedule"] == ["CronJob/shop/nightly"]
    assert data["release"]["pods"] == {"new": 2, "placed": 2, "pending": 0, "notCreated": 0}
    assert data["release"]["verdict"] == "fits"
    # When it runs, the release's pods hold 1.5 of each node's 2 CPUs: its pod can't fit,
    # which the exit code still says.
    assert results["nightly"]["verdict"] == "unschedulable" and code == 1
    res = run("check", nightly, api, "--cluster", cluster)
    assert "a CronJob creates its Job on schedule" in flat(res.stdout)


def statefulset(name: str, replicas: int, cpu: str, policy: str = "") -> str:
    return f"""\
apiVersion: apps/v1
kind: StatefulSet
metadata: {{name: {name}, namespace: shop}}
spec:
  serviceName: {name}
  replicas: {replicas}
{f"  podManagementPolicy: {policy}" + chr(10) if policy else ""}  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata: {{labels: {{app: {name}}}}}
    spec:
      containers:
      - name: c
        image: postgres
        resources: {{requests: {{cpu: "{cpu}"}}}}
"""


def test_an_ordered_ready_statefulset_leaves_one_pod_pending(tmp_path: Path) -> None:
    # OrderedReady (the default) creates db-1 only once db-0 runs: with db-1 Pending, db-2
    # and db-3 are never created, so one pod stays Pending, not three. Parallel creates all.
    cluster = write(tmp_path, "cluster.yaml", TWO_NODES)
    ordered = write(tmp_path, "db.yaml", statefulset("db", 4, "1500m"))
    code, data = check_json(ordered, "--cluster", cluster)
    db = by_name(data)["db"]
    assert code == 1 and db["verdict"] == "partial"
    assert (db["placed"], db["pending"], db["notCreated"]) == (2, 1, 1)
    assert data["release"]["pods"] == {"new": 4, "placed": 2, "pending": 1, "notCreated": 1}
    assert "not created (OrderedReady" in flat(db["message"])
    parallel = write(tmp_path, "db-parallel.yaml", statefulset("db", 4, "1500m", "Parallel"))
    _, data = check_json(parallel, "--cluster", cluster)
    assert data["release"]["pods"] == {"new": 4, "placed": 2, "pending": 2, "notCreated": 0}
    res = run("check", ordered, "--cluster", cluster, "-o", "markdown")
    assert "| 4 | 0 | 4 | 2 |" in res.stdout


def job(name: str, cpu: str, extra: str) -> str:
    return f"""\
apiVersion: batch/v1
kind: Job
metadata: {{name: {name}, namespace: shop}}
spec:
{extra}  template:
    spec:
      restartPolicy: Never
      containers:
      - name: c
        image: busybox
        resources: {{requests: {{cpu: "{cpu}"}}}}
"""


def test_what_controllers_hold_back_takes_no_room(tmp_path: Path) -> None:
    # A suspended Job and a paused Deployment create no pod until resumed; a Job starts no
    # more pods than completions; a Pod with scheduling gates stays Pending, said in words.
    cluster = write(tmp_path, "cluster.yaml", TWO_NODES)
    suspended = write(tmp_path, "a.yaml", job("later", "1500m", "  suspend: true\n  parallelism: 2\n"))
    paused = write(tmp_path, "b.yaml", deployment("frozen", 2, "1500m").replace("spec:\n", "spec:\n  paused: true\n", 1))
    few = write(tmp_path, "c.yaml", job("batch", "1", "  parallelism: 5\n  completions: 2\n"))
    api = write(tmp_path, "d.yaml", deployment("api", 2, "1"))
    gated = write(tmp_path, "e.yaml", """\
apiVersion: v1
kind: Pod
metadata: {name: gated, namespace: shop}
spec:
  schedulingGates: [{name: example.com/wait}]
  containers: [{name: c, image: nginx}]
""")
    code, data = check_json(suspended, paused, few, api, gated, "--cluster", cluster)
    results = by_name(data)
    assert [results[n]["new"] for n in ("later", "frozen", "batch", "api")] == [0, 0, 2, 2]
    assert results["later"]["verdict"] == results["frozen"]["verdict"] == "fits"
    assert "suspended" in results["later"]["message"] and "paused" in results["frozen"]["message"]
    assert results["api"]["placed"] == 2  # the held-back pods took none of the 4 CPUs
    assert results["gated"]["pending"] == 1 and "example.com/wait" in results["gated"]["message"]
    assert "None" not in results["gated"]["message"]
    assert data["release"]["pods"] == {"new": 5, "placed": 4, "pending": 1, "notCreated": 0} and code == 1


def _low_pod(name: str, node: str) -> str:
    return f"""\
- apiVersion: v1
  kind: Pod
  metadata:
    name: {name}
    namespace: shop
    labels: {{app: low}}
    ownerReferences: [{{apiVersion: apps/v1, kind: ReplicaSet, name: low-rs, uid: rs-low, controller: true}}]
  spec: {{nodeName: {node}, containers: [{{name: c, image: x, resources: {{requests: {{cpu: "1"}}}}}}]}}
  status: {{phase: Running}}
"""


def _preemption_cluster(with_room_elsewhere: bool) -> str:
    nodes = [("node-a", "2"), ("node-b", "2")] + ([("node-c", "1200m")] if with_room_elsewhere else [])
    text = "apiVersion: v1\nkind: List\nitems:\n"
    for name, cpu in nodes:
        text += (f"- apiVersion: v1\n  kind: Node\n  metadata: {{name: {name}, labels: {{kubernetes.io/hostname: {name}}}}}\n"
                 f"  status: {{allocatable: {{cpu: \"{cpu}\", memory: 8Gi, pods: \"110\"}}, "
                 "nodeInfo: {kubeletVersion: v1.35.0}}\n")
    text += ("- apiVersion: scheduling.k8s.io/v1\n  kind: PriorityClass\n  metadata: {name: high}\n  value: 1000\n"
             "- apiVersion: apps/v1\n  kind: ReplicaSet\n  metadata: {name: low-rs, namespace: shop, uid: rs-low}\n"
             "  spec:\n    replicas: 3\n    selector: {matchLabels: {app: low}}\n    template:\n"
             "      metadata: {labels: {app: low}}\n"
             "      spec: {containers: [{name: c, image: x, resources: {requests: {cpu: \"1\"}}}]}\n")
    return text + _low_pod("low-1", "node-a") + _low_pod("low-2", "node-a") + _low_pod("low-3", "node-b")


def test_a_release_pod_that_preempts_is_placed_and_its_victim_created_again(tmp_path: Path) -> None:
    # No node has 1.5 CPUs free; preempting low-3 frees node-b (one victim, fewer than
    # node-a's two). The scheduler evicts it and places the pod there; low-3's ReplicaSet
    # creates it again, and that pod goes where room is left: node-c, else nowhere.
    hi = write(tmp_path, "hi.yaml", deployment("hi", 1, "1500m", "      priorityClassName: high\n"))
    cluster = write(tmp_path, "roomy.yaml", _preemption_cluster(True))
    code, data = check_json(hi, "--cluster", cluster)
    result = by_name(data)["hi"]
    assert code == 0 and result["verdict"] == "fits" and result["preempted"] == ["shop/low-3"]
    assert data["release"]["preempted"] == [{
        "pod": "shop/low-3", "node": "node-b", "by": "Deployment/shop/hi", "recreatedBy": "ReplicaSet low-rs",
        "workload": "ReplicaSet/shop/low-rs", "placedOn": "node-c", "pending": False, "reason": None}]
    assert data["release"]["verdict"] == "fits"
    tight = write(tmp_path, "tight.yaml", _preemption_cluster(False))
    code, data = check_json(hi, "--cluster", tight)
    [victim] = data["release"]["preempted"]
    assert victim["pending"] and "Insufficient cpu" in victim["reason"]
    # A pod the cluster ran and runs no more is the release's shortfall (issue 45, item 4).
    assert code == 1 and data["release"]["verdict"] == "partial"
    assert data["release"]["evictedPending"] == 1 and data["release"]["unplacedTotal"] == 1
    res = run("check", hi, "--cluster", tight)
    text = flat(res.stdout)
    assert "Release: fits partly — all 1 new pod(s) placed; 1 running pod(s) of the cluster preempted and " \
        "Pending again" in text
    assert "1 pod(s) of other workloads preempted, 1 of them Pending again" in text
    assert "Preempted by Deployment/shop/hi: shop/low-3 on node-b; its ReplicaSet low-rs creates it again, Pending" in text
    # One manifest at a time, the pod is placed by preemption too; the victim is back after.
    code, data = check_json(hi, "--cluster", tight, "--separately")
    assert code == 0 and by_name(data)["hi"]["preempted"] == ["shop/low-3"]


def test_an_unchanged_workload_whose_pods_the_release_preempts_runs_short(tmp_path: Path) -> None:
    # low's Deployment is in the release unchanged; hi's pod preempts low-3 and its new pod
    # finds no node: low runs 2 of its 3 pods after the release (issue 45, item 4).
    cluster = _preemption_cluster(False).replace(
        "  metadata: {name: low-rs, namespace: shop, uid: rs-low}\n",
        "  metadata: {name: low-rs, namespace: shop, uid: rs-low, ownerReferences: [{apiVersion: apps/v1, "
        "kind: Deployment, name: low, uid: dep-low, controller: true}]}\n")
    cluster += ("- apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: low, namespace: shop, uid: dep-low}\n"
                "  spec:\n    replicas: 3\n    selector: {matchLabels: {app: low}}\n    template:\n"
                "      metadata: {labels: {app: low}}\n"
                "      spec: {containers: [{name: c, image: x, resources: {requests: {cpu: \"1\"}}}]}\n")
    tight = write(tmp_path, "tight.yaml", cluster)
    low = write(tmp_path, "low.yaml", deployment("low", 3, "1").replace("nginx:1.27", "x").replace(
        '      - name: c\n        image: x\n', '      - name: c\n        image: x\n'))
    hi = write(tmp_path, "hi.yaml", deployment("hi", 1, "1500m", "      priorityClassName: high\n"))
    code, data = check_json(low, hi, "--cluster", tight)
    results = by_name(data)
    assert code == 1
    assert results["hi"]["verdict"] == "fits" and results["hi"]["preempted"] == ["shop/low-3"]
    assert results["low"]["verdict"] == "partial" and results["low"]["evictedPending"] == 1
    assert "1 of its running pod(s) preempted by Deployment/shop/hi and Pending again" in results["low"]["message"]
    [victim] = data["release"]["preempted"]
    assert victim["workload"] == "Deployment/shop/low" and victim["pending"]
    assert data["release"]["verdict"] == "partial" and data["release"]["unplacedTotal"] == 1


def test_namespace_lifecycle_refuses_what_has_no_namespace(tmp_path: Path) -> None:
    # A cluster source that lists Namespaces says which exist: a workload in one it lacks
    # (and the files don't create) is refused as kubectl apply is; one being deleted too.
    cluster = write(tmp_path, "cluster.yaml", TWO_NODES + """\
- apiVersion: v1
  kind: Namespace
  metadata: {name: shop}
- apiVersion: v1
  kind: Namespace
  metadata: {name: old, deletionTimestamp: "2026-11-26T10:00:00Z"}
  status: {phase: Terminating}
""")
    here = write(tmp_path, "a.yaml", deployment("api", 1, "1"))
    gone = write(tmp_path, "b.yaml", deployment("web", 1, "1").replace("namespace: shop", "namespace: team"))
    dying = write(tmp_path, "c.yaml", deployment("cron", 1, "1").replace("namespace: shop", "namespace: old"))
    code, data = check_json(here, gone, dying, "--cluster", cluster)
    results = by_name(data)
    assert code == 1 and results["api"]["verdict"] == "fits"
    assert results["web"]["rejected"] == 'namespaces "team" not found'
    assert results["cron"]["rejected"] == ('deployments.apps "cron" is forbidden: unable to create new content in '
                                           "namespace old because it is being terminated")
    assert "2 workload(s) refused by the API server" in run("check", here, gone, dying, "--cluster", cluster).stdout
    # The files may create the namespace; a source without Namespaces can't tell.
    team = write(tmp_path, "ns.yaml", "apiVersion: v1\nkind: Namespace\nmetadata: {name: team}\n")
    code, data = check_json(team, gone, "--cluster", cluster)
    assert code == 0 and by_name(data)["web"]["verdict"] == "fits"
    code, data = check_json(gone, "--cluster", write(tmp_path, "bare.yaml", TWO_NODES))
    assert code == 0
    # The API server's own namespaces always exist, listed or not; so does one that holds
    # an object of the cluster source. A Service of the files creates no namespace.
    system = write(tmp_path, "f.yaml", deployment("sys", 1, "1").replace("namespace: shop", "namespace: default"))
    service = write(tmp_path, "g.yaml", "apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: team}\n"
                                         "spec: {selector: {app: web}, ports: [{port: 80}]}\n")
    code, data = check_json(system, service, gone, "--cluster", cluster)
    results = by_name(data)
    assert results["sys"]["verdict"] == "fits" and "rejected" in results["web"]


# --------------------------------------------------------------------------- the same object twice

def test_workload_named_twice_is_placed_once_as_the_later_document_says(tmp_path: Path) -> None:
    cluster = write(tmp_path, "cluster.yaml", TWO_NODES)
    base = write(tmp_path, "base.yaml", deployment("api", 2, "1"))
    copy = write(tmp_path, "copy.yaml", deployment("api", 3, "1"))
    # kubectl apply -f of both leaves one Deployment of 3 replicas: 3 of the 4 CPUs, it fits
    # (placed as two Deployments, 5 pods would ask for 5 CPUs).
    code, data = check_json(base, copy, "--cluster", cluster)
    assert code == 0, data
    assert data["release"]["order"] == ["Deployment/shop/api"]
    assert data["release"]["pods"] == {"new": 3, "placed": 3, "pending": 0, "notCreated": 0}
    assert data["release"]["counts"]["workloads"] == 1
    [result] = data["results"]
    assert (result["file"], result["replicas"], result["placed"]) == (copy, 3, 3)
    assert result["replaces"] == [{"file": base, "document": 1, "identical": False}]
    assert data["replaced"] == [{"workload": "Deployment/shop/api", "file": base, "document": 1,
                                 "replacedBy": {"file": copy, "document": 1}, "identical": False}]
    table = run("check", base, copy, "--cluster", cluster)
    assert table.exit_code == 0, table.output
    out = flat(table.output)
    assert "1 checked: 1 fit" in out and "Named twice (kubectl apply -f applies both in order" in out
    assert f"Deployment/shop/api in {base} (document 1): replaced by the later document in {copy} (document 1)" in out
    md = run("check", base, copy, "--cluster", cluster, "-o", "markdown")
    assert "Named twice (kubectl apply -f applies both in order" in md.output and "| 3 | 0 | 3 | 3 |" in md.output
    page = run("check", base, copy, "--cluster", cluster, "-o", "html")
    assert page.exit_code == 0 and "Named twice (kubectl apply" in page.stdout


def test_one_file_named_twice_is_one_release(tmp_path: Path) -> None:
    cluster = write(tmp_path, "cluster.yaml", TWO_NODES)
    claim = ("apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: data, namespace: shop}\n"
             "spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}\n---\n"
             "apiVersion: v1\nkind: Service\nmetadata: {name: api, namespace: shop}\n"
             "spec: {selector: {app: api}, ports: [{port: 80}]}\n---\n"
             "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: api, namespace: shop}\ndata: {a: b}\n---\n")
    app = write(tmp_path, "app.yaml", claim + deployment("api", 3, "1"))
    code, data = check_json(app, app, "--cluster", cluster)
    assert code == 0, data
    assert data["release"]["pods"] == {"new": 3, "placed": 3, "pending": 0, "notCreated": 0}
    assert data["replaced"] == [{"workload": "Deployment/shop/api", "file": app, "document": 4,
                                 "replacedBy": {"file": app, "document": 4}, "identical": True}]
    assert data["overlaid"] == ["PersistentVolumeClaim/shop/data", "Service/shop/api"]
    out = flat(run("check", app, app, "--cluster", cluster).output)
    assert "replaced by an identical later document" in out
    # --separately checks each document as if applied alone, the copy too.
    code, data = check_json(app, app, "--cluster", cluster, "--separately")
    assert code == 0 and [r["name"] for r in data["results"]] == ["api", "api"] and data["replaced"] == []


def test_later_document_without_replicas_after_one_with_them_gets_the_default(tmp_path: Path) -> None:
    cluster = write(tmp_path, "cluster.yaml", TWO_NODES)
    base = write(tmp_path, "base.yaml", deployment("api", 3, "1"))
    copy = write(tmp_path, "copy.yaml", deployment("api", None, "1"))
    # The second apply's three-way merge removes spec.replicas the first one set: 1 pod.
    code, data = check_json(base, copy, "--cluster", cluster)
    assert code == 0, data
    [result] = data["results"]
    assert (result["replicas"], result["placed"]) == (1, 1)
    assert "the earlier document of the same Deployment's last applied configuration sets spec.replicas" \
        in result["replicasFrom"]
    # The other way round, the later document's own count stands.
    code, data = check_json(copy, base, "--cluster", cluster)
    assert data["results"][0]["replicas"] == 3 and "replicasFrom" not in data["results"][0]


def pod(name: str, cpu: str, image: str = "nginx:1.27") -> str:
    return (f"apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, namespace: shop}}\nspec:\n  containers:\n"
            f"  - name: c\n    image: {image}\n    resources: {{requests: {{cpu: \"{cpu}\"}}}}\n")


def test_a_pod_named_twice_keeps_the_first_spec_when_the_update_is_refused(tmp_path: Path) -> None:
    cluster = write(tmp_path, "cluster.yaml", TWO_NODES)
    first = write(tmp_path, "a.yaml", pod("tool", "1"))
    bigger = write(tmp_path, "b.yaml", pod("tool", "3"))
    # The second apply would change the pod's requests: ValidatePodUpdate refuses it, and
    # the pod runs as the first document created it (3 CPUs would fit no 2-CPU node).
    code, data = check_json(first, bigger, "--cluster", cluster)
    assert code == 0, data
    [result] = data["results"]
    assert (result["file"], result["placed"]) == (first, 1)
    [note] = data["replaced"]
    assert (note["file"], note["keptBy"]["file"]) == (bigger, first)
    assert note["refused"] == ('Pod "tool" is invalid: spec: Forbidden: pod updates may not change fields other '
                               "than `spec.containers[*].image`,`spec.initContainers[*].image`,"
                               "`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing "
                               "tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it "
                               "was previously negative)")
    out = flat(run("check", first, bigger, "--cluster", cluster).output)
    assert f"Pod/shop/tool in {bigger} (document 1): not applied over the earlier document in {first}" in out
    # A new image is an update the API server allows: the later document stands.
    newer = write(tmp_path, "c.yaml", pod("tool", "1", image="nginx:1.28"))
    code, data = check_json(first, newer, "--cluster", cluster)
    assert code == 0 and data["results"][0]["file"] == newer
    assert data["replaced"][0]["replacedBy"]["file"] == newer and "refused" not in data["replaced"][0]


def test_a_workload_whose_later_document_changes_its_selector_keeps_the_earlier_one(tmp_path: Path) -> None:
    # Two examples of one Deployment name with other labels (kubernetes/examples' guestbook
    # and guestbook-go both hold redis-master): apps/v1 keeps spec.selector immutable, so the
    # second apply is refused and the first document's Deployment runs.
    cluster = write(tmp_path, "cluster.yaml", TWO_NODES)
    first = write(tmp_path, "a.yaml", deployment("api", 2, "1"))
    relabelled = write(tmp_path, "b.yaml", deployment("api", 3, "1").replace("app: api", "app: api2"))
    code, data = check_json(first, relabelled, "--cluster", cluster)
    assert code == 0, data
    [result] = data["results"]
    assert (result["file"], result["replicas"], result["placed"]) == (first, 2, 2)
    [note] = data["replaced"]
    assert note["keptBy"]["file"] == first and note["refused"] == (
        'Deployment.apps "api" is invalid: spec.selector: Invalid value: {"matchLabels":{"app":"api2"}}: '
        "field is immutable")
    # A StatefulSet's serviceName is fixed too; its replicas are not.
    sts = ("apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: db, namespace: shop}\nspec:\n"
           "  replicas: REPLICAS\n  serviceName: SERVICE\n  selector: {matchLabels: {app: db}}\n"
           "  template:\n    metadata: {labels: {app: db}}\n    spec:\n      containers:\n"
           "      - {name: c, image: db:1, resources: {requests: {cpu: '1'}}}\n")
    one = write(tmp_path, "db1.yaml", sts.replace("REPLICAS", "1").replace("SERVICE", "db"))
    renamed = write(tmp_path, "db2.yaml", sts.replace("REPLICAS", "2").replace("SERVICE", "db-headless"))
    code, data = check_json(one, renamed, "--cluster", cluster)
    assert data["results"][0]["file"] == one and "updates to statefulset spec for fields other than" in \
        data["replaced"][0]["refused"]
    scaled = write(tmp_path, "db3.yaml", sts.replace("REPLICAS", "3").replace("SERVICE", "db"))
    code, data = check_json(one, scaled, "--cluster", cluster)
    assert data["results"][0]["file"] == scaled and data["results"][0]["replicas"] == 3


def test_a_workload_named_twice_queues_where_its_pods_were_created(tmp_path: Path) -> None:
    # a.yaml creates api; b.yaml creates web; c.yaml holds api again, identical: api's pods
    # come from a.yaml's apply, so they reach the queue before web's and take the room
    # first. Two 2-CPU nodes: api's 2 pods of 1 CPU, then web finds room for 2 of its 3.
    cluster = write(tmp_path, "cluster.yaml", TWO_NODES)
    first = write(tmp_path, "a.yaml", deployment("api", 2, "1"))
    web = write(tmp_path, "b.yaml", deployment("web", 3, "1"))
    again = write(tmp_path, "c.yaml", deployment("api", 2, "1"))
    code, data = check_json(first, web, again, "--cluster", cluster)
    assert data["release"]["order"] == ["Deployment/shop/api", "Deployment/shop/web"]
    results = by_name(data)
    assert results["api"]["file"] == again and results["api"]["placed"] == 2
    assert (code, results["web"]["placed"], results["web"]["pending"]) == (1, 2, 1)
    # A new template in the later document, or a higher count, makes pods at that apply:
    # api then comes after web.
    changed = write(tmp_path, "d.yaml", deployment("api", 2, "1").replace("nginx:1.27", "nginx:1.28"))
    more = write(tmp_path, "e.yaml", deployment("api", 3, "1"))
    for later in (changed, more):
        code, data = check_json(first, web, later, "--cluster", cluster)
        assert data["release"]["order"] == ["Deployment/shop/web", "Deployment/shop/api"]
        assert by_name(data)["web"]["placed"] == 3


def _host_port_cluster() -> str:
    import yaml

    tpl = {"metadata": {"labels": {"app": "ing"}}, "spec": {"containers": [
        {"name": "c", "image": "ing:1", "ports": [{"containerPort": 80, "hostPort": 80}],
         "resources": {"requests": {"cpu": "100m"}}}]}}
    items: list[Any] = [
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"n{i}", "labels": {"kubernetes.io/hostname": f"n{i}"}},
         "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}, "nodeInfo": {"kubeletVersion": "v1.35.0"}}}
        for i in range(3)]
    items.append({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "ing", "namespace": "shop", "uid": "d1"},
                  "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "ing"}}, "template": tpl}})
    rs_tpl = {"metadata": {"labels": {"app": "ing", "pod-template-hash": "abc"}}, "spec": tpl["spec"]}
    items.append({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {
        "name": "ing-abc", "namespace": "shop", "uid": "rs1", "labels": rs_tpl["metadata"]["labels"],
        "annotations": {"deployment.kubernetes.io/desired-replicas": "3", "deployment.kubernetes.io/revision": "1"},
        "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "ing", "uid": "d1", "controller": True}]},
        "spec": {"replicas": 3, "selector": {"matchLabels": rs_tpl["metadata"]["labels"]}, "template": rs_tpl},
        "status": {"replicas": 3}})
    items += [{"apiVersion": "v1", "kind": "Pod", "metadata": {
        "name": f"ing-abc-{i}", "namespace": "shop", "labels": rs_tpl["metadata"]["labels"],
        "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "ing-abc", "uid": "rs1",
                             "controller": True}]},
        "spec": dict(tpl["spec"], nodeName=f"n{i}"),
        "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}} for i in range(3)]
    return str(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items}))


def test_a_rollout_counts_as_its_whole_run_in_the_release(tmp_path: Path) -> None:
    # The release keeps a rollout's end state, so its counts are the whole rollout's: a
    # hostPort rollout with maxUnavailable 1 brings up all 3 new pods; with the default
    # strategy the surge pod stays Pending and the 2 after it are never created.
    cluster = write(tmp_path, "cluster.yaml", _host_port_cluster())
    manifest = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: ing, namespace: shop}
spec:
  replicas: 3
  selector: {matchLabels: {app: ing}}
%s  template:
    metadata: {labels: {app: ing}}
    spec:
      containers:
      - name: c
        image: ing:2
        ports: [{containerPort: 80, hostPort: 80}]
        resources: {requests: {cpu: 100m}}
"""
    roomy = write(tmp_path, "roomy.yaml", manifest % "  strategy: {rollingUpdate: {maxSurge: 0, maxUnavailable: 1}}\n")
    code, data = check_json(roomy, "--cluster", cluster)
    assert code == 0 and data["release"]["pods"] == {"new": 3, "placed": 3, "pending": 0, "notCreated": 0}
    stuck = write(tmp_path, "stuck.yaml", manifest % "")
    code, data = check_json(stuck, "--cluster", cluster)
    assert code == 1 and data["release"]["pods"] == {"new": 3, "placed": 0, "pending": 1, "notCreated": 2}
    result = by_name(data)["ing"]
    assert (result["new"], result["pending"], result["notCreated"]) == (3, 1, 2)

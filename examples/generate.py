#!/usr/bin/env python3
"""Generate the example cluster dump and the example pods, deterministically.

    python examples/generate.py            # rewrites examples/cluster.yaml and examples/pods/*.yaml

The cluster: 12 nodes in 3 zones of one region, in three pools —
  general  (6 × 8 CPU / 32 GiB; general-c2 is cordoned for an upgrade),
  highmem  (3 × 16 CPU / 128 GiB; highmem-c1 carries a PreferNoSchedule taint),
  gpu      (3 × 32 CPU / 192 GiB / 4 NVIDIA L4, tainted nvidia.com/gpu=present:NoSchedule),
system DaemonSet pods on every node (kube-proxy, the Cilium CNI agent, node-exporter; the
NVIDIA device plugin on the GPU pool), a shop of Deployments with their ReplicaSets and
Services, StatefulSets (Kafka, Postgres, Prometheus) with bound volumes, GPU training
pods, finished Job pods (which occupy nothing), node images with sizes, PriorityClasses
and Namespaces — the objects `kubectl get ... -A -o yaml` would print, one `kind: List`
per resource type.

The example pods that scale an existing workload (web, catalog, search) share their pod
template with the ReplicaSet in the dump, so kschedx explains them as one more pod of that
ReplicaSet, and system default spreading counts the replicas already running.

Only the standard library and PyYAML; the same output on every run.
"""

from __future__ import annotations

import copy
import hashlib
import random
from pathlib import Path
from typing import Any

import yaml

Obj = dict[str, Any]

HERE = Path(__file__).resolve().parent
REGION = "eu-west-1"
ZONES = ["a", "b", "c"]
K8S = "v1.35.4"

rng = random.Random(20250901)


# --------------------------------------------------------------------------- helpers


def uid(*parts: str) -> str:
    h = hashlib.sha256("/".join(parts).encode()).hexdigest()
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-8{h[17:20]}-{h[20:32]}"


def digest(name: str) -> str:
    return "sha256:" + hashlib.sha256(name.encode()).hexdigest()


def short_hash(*parts: str, n: int = 10) -> str:
    alphabet = "bcdfghjklmnpqrstvwxz2456789"
    h = int(hashlib.sha256("/".join(parts).encode()).hexdigest(), 16)
    out = ""
    for _ in range(n):
        h, r = divmod(h, len(alphabet))
        out += alphabet[r]
    return out


def timestamp(days_ago: int, seconds: int = 0) -> str:
    # A fixed "now" keeps the dump stable: 2025-09-01T08:00:00Z.
    day = 243 - days_ago  # day of year 2025
    month_days = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
    month = 0
    while day > month_days[month]:
        day -= month_days[month]
        month += 1
    h, rem = divmod(8 * 3600 + seconds, 3600)
    m, s = divmod(rem, 60)
    return f"2025-{month + 1:02d}-{day:02d}T{h % 24:02d}:{m:02d}:{s:02d}Z"


DEFAULT_TOLERATIONS = [
    {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
    {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
]

PRIORITY = {
    None: 0,
    "system-node-critical": 2000001000,
    "system-cluster-critical": 2000000000,
    "shop-critical": 100000,
    "ml-training": 10000,
    "batch-low": 100,
}

# image → size in bytes (as the kubelet reports them in node.status.images)
IMAGE_SIZES: dict[str, int] = {}


def image(ref: str, size_mb: int) -> str:
    IMAGE_SIZES[ref] = size_mb * 1_000_000 + rng.randrange(1_000_000)
    return ref


IMG = {
    "pause": image("registry.k8s.io/pause:3.10", 1),
    "kube-proxy": image(f"registry.k8s.io/kube-proxy:{K8S}", 31),
    "cilium": image("quay.io/cilium/cilium:v1.16.5", 215),
    "node-exporter": image("quay.io/prometheus/node-exporter:v1.8.2", 12),
    "nvidia-plugin": image("nvcr.io/nvidia/k8s-device-plugin:v0.17.0", 140),
    "coredns": image("registry.k8s.io/coredns/coredns:v1.11.3", 18),
    "metrics-server": image("registry.k8s.io/metrics-server/metrics-server:v0.7.2", 20),
    "web": image("ghcr.io/acme/web:2.4.1", 180),
    "catalog": image("ghcr.io/acme/catalog:1.9.0", 240),
    "search": image("ghcr.io/acme/search:3.1.2", 410),
    "cart": image("ghcr.io/acme/cart:1.4.3", 95),
    "checkout": image("ghcr.io/acme/checkout:2.0.7", 120),
    "payments": image("ghcr.io/acme/payments:5.2.0", 130),
    "recommendations": image("ghcr.io/acme/recommendations:0.14.1", 760),
    "inventory": image("ghcr.io/acme/inventory:1.1.9", 110),
    "reviews": image("ghcr.io/acme/reviews:2.3.0", 90),
    "notifications": image("ghcr.io/acme/notifications:1.0.4", 70),
    "shipping": image("ghcr.io/acme/shipping:1.6.2", 85),
    "api-gateway": image("docker.io/envoyproxy/envoy:v1.31.2", 160),
    "redis": image("docker.io/library/redis:7.4.1", 45),
    "postgres": image("docker.io/library/postgres:16.4", 160),
    "kafka": image("docker.io/bitnami/kafka:3.8.0", 620),
    "prometheus": image("quay.io/prometheus/prometheus:v2.54.1", 110),
    "grafana": image("docker.io/grafana/grafana:11.2.0", 120),
    "trainer": image("nvcr.io/nvidia/pytorch:24.08-py3", 9800),
    "etl": image("ghcr.io/acme/etl:2025.08.3", 350),
}


def container(name: str, img: str, cpu: str | None, mem: str | None, *, limit_mem: bool = True,
              ports: list[Obj] | None = None, extra: Obj | None = None) -> Obj:
    c: Obj = {"name": name, "image": img, "imagePullPolicy": "IfNotPresent"}
    requests: Obj = {}
    if cpu:
        requests["cpu"] = cpu
    if mem:
        requests["memory"] = mem
    resources: Obj = {}
    if requests:
        resources["requests"] = requests
    if mem and limit_mem:
        resources["limits"] = {"memory": mem}
    c["resources"] = resources
    if ports:
        c["ports"] = ports
    if extra:
        c["resources"].setdefault("requests", {}).update(extra)
        c["resources"].setdefault("limits", {}).update(extra)
    return c


# --------------------------------------------------------------------------- the cluster


class Cluster:
    def __init__(self) -> None:
        self.nodes: list[Obj] = []
        self.pods: list[Obj] = []
        self.kinds: dict[str, list[Obj]] = {}
        self.free: dict[str, list[int]] = {}  # node → [milliCPU, memory bytes, gpus]
        self.node_images: dict[str, set[str]] = {}

    def add(self, obj: Obj) -> Obj:
        self.kinds.setdefault(obj["kind"], []).append(obj)
        return obj

    # ---- nodes

    def node(self, name: str, pool: str, zone: str, itype: str, cpu: int, mem_gi: int, *,
             gpus: int = 0, taints: list[Obj] | None = None, cordoned: bool = False, age: int = 30) -> Obj:
        labels = {
            "kubernetes.io/arch": "amd64",
            "kubernetes.io/os": "linux",
            "kubernetes.io/hostname": name,
            "node.kubernetes.io/instance-type": itype,
            "topology.kubernetes.io/region": REGION,
            "topology.kubernetes.io/zone": f"{REGION}{zone}",
            "node-pool": pool,
        }
        if gpus:
            labels["accelerator"] = "nvidia-l4"
        mem_ki = mem_gi * 1024 * 1024
        # Allocatable as a cloud kubelet reserves it: a slice of CPU, ~7 % of memory.
        cap: Obj = {"cpu": str(cpu), "memory": f"{mem_ki}Ki", "pods": "110",
                    "ephemeral-storage": "103079200Ki", "hugepages-1Gi": "0", "hugepages-2Mi": "0"}
        alloc_cpu_m = cpu * 1000 - (90 if cpu <= 8 else 110 if cpu <= 16 else 150)
        alloc_mem_ki = int(mem_ki * 0.93)
        alloc: Obj = {"cpu": f"{alloc_cpu_m}m", "memory": f"{alloc_mem_ki}Ki", "pods": "110",
                      "ephemeral-storage": "94998384074", "hugepages-1Gi": "0", "hugepages-2Mi": "0"}
        if gpus:
            cap["nvidia.com/gpu"] = str(gpus)
            alloc["nvidia.com/gpu"] = str(gpus)
        spec: Obj = {"providerID": f"aws:///{REGION}{zone}/i-0{short_hash(name, n=16)}"}
        all_taints = list(taints or [])
        if cordoned:
            spec["unschedulable"] = True
            all_taints.append({"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule",
                               "timeAdded": timestamp(0, -1800)})
        if all_taints:
            spec["taints"] = all_taints
        ready_since = timestamp(age)
        node: Obj = {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": name, "uid": uid("node", name), "labels": labels,
                         "creationTimestamp": timestamp(age)},
            "spec": spec,
            "status": {
                "capacity": cap,
                "allocatable": alloc,
                "conditions": [
                    {"type": t, "status": "False", "reason": r, "lastTransitionTime": ready_since}
                    for t, r in [("MemoryPressure", "KubeletHasSufficientMemory"),
                                 ("DiskPressure", "KubeletHasNoDiskPressure"),
                                 ("PIDPressure", "KubeletHasSufficientPID")]
                ] + [{"type": "Ready", "status": "True", "reason": "KubeletReady",
                      "lastTransitionTime": ready_since}],
                "nodeInfo": {"kubeletVersion": K8S, "containerRuntimeVersion": "containerd://1.7.22",
                             "osImage": "Bottlerocket OS 1.26.1 (aws-k8s-1.35)", "architecture": "amd64",
                             "operatingSystem": "linux"},
                "images": [],
            },
        }
        self.nodes.append(node)
        self.free[name] = [alloc_cpu_m, alloc_mem_ki * 1024, gpus]
        self.node_images[name] = {IMG["pause"]}
        return node

    # ---- pods

    def pod(self, name: str, ns: str, node: str | None, spec: Obj, *, labels: Obj | None = None,
            owner: Obj | None = None, phase: str = "Running", priority_class: str | None = None,
            age: int = 5) -> Obj:
        spec = copy.deepcopy(spec)
        spec.setdefault("schedulerName", "default-scheduler")
        spec.setdefault("restartPolicy", "Always")
        spec.setdefault("terminationGracePeriodSeconds", 30)
        if priority_class:
            spec["priorityClassName"] = priority_class
        spec["priority"] = PRIORITY[priority_class]
        spec["preemptionPolicy"] = "PreemptLowerPriority"
        tols = spec.setdefault("tolerations", [])
        for t in DEFAULT_TOLERATIONS:
            if not any(x.get("key") == t["key"] for x in tols):
                tols.append(dict(t))
        if node:
            spec["nodeName"] = node
        meta: Obj = {"name": name, "namespace": ns, "uid": uid("pod", ns, name),
                     "creationTimestamp": timestamp(age, rng.randrange(3600)), "labels": dict(labels or {})}
        if owner:
            meta["ownerReferences"] = [owner]
        status: Obj = {"phase": phase, "qosClass": "Burstable"}
        if node:
            status["hostIP"] = f"10.0.{self.node_index(node)}.{10 + rng.randrange(200)}"
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": status}
        self.pods.append(pod)
        if node and phase not in ("Succeeded", "Failed"):
            self.charge(node, spec)
        if node:
            for c in spec.get("containers", []) + spec.get("initContainers", []):
                self.node_images[node].add(c["image"])
        return pod

    def node_index(self, name: str) -> int:
        return next(i for i, n in enumerate(self.nodes) if n["metadata"]["name"] == name) + 1

    def charge(self, node: str, spec: Obj) -> None:
        from_q = {"m": 1, "": 1000}
        cpu = mem = gpu = 0
        for c in spec.get("containers", []):
            req = (c.get("resources") or {}).get("requests") or {}
            q = str(req.get("cpu", "0"))
            cpu += int(q[:-1]) * from_q["m"] if q.endswith("m") else int(float(q) * from_q[""])
            mem += parse_bytes(str(req.get("memory", "0")))
            gpu += int(req.get("nvidia.com/gpu", 0))
        free = self.free[node]
        free[0] -= cpu
        free[1] -= mem
        free[2] -= gpu
        if free[0] < 0 or free[1] < 0 or free[2] < 0:
            raise SystemExit(f"generator bug: {node} over-committed ({free})")

    def fits(self, node: str, spec: Obj) -> bool:
        saved = list(self.free[node])
        try:
            self.charge(node, spec)
            return True
        except SystemExit:
            return False
        finally:
            self.free[node] = saved

    # ---- workloads

    def daemonset(self, name: str, ns: str, nodes: list[str], tpl_spec: Obj, labels: Obj,
                  priority_class: str = "system-node-critical") -> None:
        ds_uid = uid("ds", ns, name)
        self.add({"apiVersion": "apps/v1", "kind": "DaemonSet",
                  "metadata": {"name": name, "namespace": ns, "uid": ds_uid, "labels": dict(labels)},
                  "spec": {"selector": {"matchLabels": dict(labels)},
                           "template": {"metadata": {"labels": dict(labels)}, "spec": copy.deepcopy(tpl_spec)}}})
        rev = short_hash(name, "rev", n=9)
        for node in nodes:
            spec = copy.deepcopy(tpl_spec)
            spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchFields": [
                    {"key": "metadata.name", "operator": "In", "values": [node]}]}]}}}
            self.pod(f"{name}-{short_hash(name, node, n=5)}", ns, node, spec,
                     labels={**labels, "controller-revision-hash": rev, "pod-template-generation": "3"},
                     owner=owner("DaemonSet", "apps/v1", name, ds_uid), priority_class=priority_class, age=20)

    def deployment(self, name: str, ns: str, template: Obj, placement: list[str], *, replicas: int | None = None,
                   service: bool = True, priority_class: str | None = None) -> str:
        """A Deployment's ReplicaSet and its pods on the given nodes; returns the hash."""
        labels = dict(template["metadata"]["labels"])
        h = short_hash(ns, name, "tpl")
        dep_uid = uid("deploy", ns, name)
        rs_name = f"{name}-{h}"
        rs_uid = uid("rs", ns, rs_name)
        rs_tpl = copy.deepcopy(template)
        rs_tpl["metadata"]["labels"]["pod-template-hash"] = h
        selector = {"matchLabels": {"app": labels["app"]}}
        n = replicas if replicas is not None else len(placement)
        self.add({
            "apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": {"name": rs_name, "namespace": ns, "uid": rs_uid,
                         "labels": dict(rs_tpl["metadata"]["labels"]),
                         "ownerReferences": [owner("Deployment", "apps/v1", name, dep_uid)]},
            "spec": {"replicas": n,
                     "selector": {"matchLabels": {**selector["matchLabels"], "pod-template-hash": h}},
                     "template": rs_tpl},
            "status": {"replicas": len(placement), "readyReplicas": len(placement)},
        })
        if service:
            self.add({"apiVersion": "v1", "kind": "Service",
                      "metadata": {"name": name, "namespace": ns, "uid": uid("svc", ns, name),
                                   "labels": {"app": labels["app"]}},
                      "spec": {"type": "ClusterIP", "selector": {"app": labels["app"]},
                               "ports": [{"name": "http", "port": 80, "targetPort": 8080, "protocol": "TCP"}]}})
        for node in placement:
            self.pod(f"{rs_name}-{short_hash(rs_name, node, str(len(self.pods)), n=5)}", ns, node,
                     template["spec"], labels=rs_tpl["metadata"]["labels"],
                     owner=owner("ReplicaSet", "apps/v1", rs_name, rs_uid), priority_class=priority_class)
        return h

    def statefulset(self, name: str, ns: str, template: Obj, placement: list[str], *, volume_gi: int = 0,
                    priority_class: str | None = None) -> None:
        labels = dict(template["metadata"]["labels"])
        ss_uid = uid("sts", ns, name)
        rev = f"{name}-{short_hash(ns, name, 'rev')}"
        spec: Obj = {"replicas": len(placement), "serviceName": name,
                     "selector": {"matchLabels": dict(labels)}, "template": copy.deepcopy(template)}
        if volume_gi:
            spec["volumeClaimTemplates"] = [{"metadata": {"name": "data"}, "spec": {
                "accessModes": ["ReadWriteOnce"], "storageClassName": "gp3",
                "resources": {"requests": {"storage": f"{volume_gi}Gi"}}}}]
        self.add({"apiVersion": "apps/v1", "kind": "StatefulSet",
                  "metadata": {"name": name, "namespace": ns, "uid": ss_uid, "labels": dict(labels)},
                  "spec": spec})
        self.add({"apiVersion": "v1", "kind": "Service",
                  "metadata": {"name": name, "namespace": ns, "uid": uid("svc", ns, name)},
                  "spec": {"clusterIP": "None", "selector": dict(labels),
                           "ports": [{"name": "main", "port": 9092 if name == "kafka" else 5432}]}})
        for i, node in enumerate(placement):
            pod_name = f"{name}-{i}"
            pspec = copy.deepcopy(template["spec"])
            if volume_gi:
                claim = f"data-{pod_name}"
                pspec.setdefault("volumes", []).append({"name": "data", "persistentVolumeClaim": {"claimName": claim}})
                zone = next(n for n in self.nodes if n["metadata"]["name"] == node)["metadata"]["labels"][
                    "topology.kubernetes.io/zone"]
                self.volume(claim, ns, volume_gi, zone, {**labels})
            self.pod(pod_name, ns, node, pspec,
                     labels={**labels, "controller-revision-hash": rev,
                             "statefulset.kubernetes.io/pod-name": pod_name, "apps.kubernetes.io/pod-index": str(i)},
                     owner=owner("StatefulSet", "apps/v1", name, ss_uid), priority_class=priority_class, age=12)

    def volume(self, claim: str, ns: str, size_gi: int, zone: str, labels: Obj) -> None:
        pv = f"pvc-{uid('pv', ns, claim)}"
        self.add({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                  "metadata": {"name": claim, "namespace": ns, "uid": uid("pvc", ns, claim), "labels": labels,
                               "annotations": {"volume.kubernetes.io/selected-node": "",
                                               "pv.kubernetes.io/bind-completed": "yes"}},
                  "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "gp3", "volumeName": pv,
                           "resources": {"requests": {"storage": f"{size_gi}Gi"}}},
                  "status": {"phase": "Bound", "capacity": {"storage": f"{size_gi}Gi"}}})
        self.add({"apiVersion": "v1", "kind": "PersistentVolume",
                  "metadata": {"name": pv, "uid": uid("pvobj", pv)},
                  "spec": {"capacity": {"storage": f"{size_gi}Gi"}, "accessModes": ["ReadWriteOnce"],
                           "persistentVolumeReclaimPolicy": "Delete", "storageClassName": "gp3",
                           "claimRef": {"kind": "PersistentVolumeClaim", "namespace": ns, "name": claim,
                                        "uid": uid("pvc", ns, claim)},
                           "csi": {"driver": "ebs.csi.aws.com", "volumeHandle": f"vol-0{short_hash(pv, n=16)}",
                                   "fsType": "ext4"},
                           "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                               {"key": "topology.ebs.csi.aws.com/zone", "operator": "In", "values": [zone]}]}]}}},
                  "status": {"phase": "Bound"}})

    # ---- output

    def finish_images(self) -> None:
        for node in self.nodes:
            name = node["metadata"]["name"]
            images = []
            for ref in sorted(self.node_images[name], key=lambda r: (-IMAGE_SIZES[r], r)):
                repo = ref.rsplit(":", 1)[0]
                images.append({"names": [f"{repo}@{digest(ref)}", ref], "sizeBytes": IMAGE_SIZES[ref]})
            node["status"]["images"] = images


def owner(kind: str, api: str, name: str, u: str) -> Obj:
    return {"apiVersion": api, "kind": kind, "name": name, "uid": u, "controller": True, "blockOwnerDeletion": True}


def parse_bytes(q: str) -> int:
    for suffix, mult in (("Ki", 2**10), ("Mi", 2**20), ("Gi", 2**30)):
        if q.endswith(suffix):
            return int(q[: -len(suffix)]) * mult
    return int(q)


def template(app: str, containers: list[Obj], *, extra_labels: Obj | None = None, **spec: Any) -> Obj:
    labels = {"app": app, "app.kubernetes.io/name": app, "app.kubernetes.io/part-of": "shop", **(extra_labels or {})}
    return {"metadata": {"labels": labels}, "spec": {"containers": containers, **spec}}


# --------------------------------------------------------------------------- build it


def build() -> tuple[Cluster, dict[str, Obj]]:
    cl = Cluster()
    gpu_taint = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
    for z in ZONES:
        for i in (1, 2):
            cl.node(f"general-{z}{i}", "general", z, "m6i.2xlarge", 8, 32, cordoned=(z == "c" and i == 2),
                    age=40 + i)
    for z in ZONES:
        taints = [{"key": "dedicated", "value": "analytics", "effect": "PreferNoSchedule"}] if z == "c" else None
        cl.node(f"highmem-{z}1", "highmem", z, "r6i.4xlarge", 16, 128, taints=taints, age=60)
    for z in ZONES:
        cl.node(f"gpu-{z}1", "gpu", z, "g6.8xlarge", 32, 128, gpus=4, taints=[gpu_taint], age=15)
    names = [n["metadata"]["name"] for n in cl.nodes]
    general = [n for n in names if n.startswith("general-") and n != "general-c2"]
    gpu_nodes = [n for n in names if n.startswith("gpu-")]

    for ns, labels in [("default", {}), ("kube-system", {}), ("kube-public", {}), ("kube-node-lease", {}),
                       ("shop", {"team": "commerce", "env": "prod"}), ("data", {"team": "data", "env": "prod"}),
                       ("monitoring", {"team": "platform"}), ("ml", {"team": "ml"}), ("batch", {"team": "data"})]:
        cl.add({"apiVersion": "v1", "kind": "Namespace",
                "metadata": {"name": ns, "uid": uid("ns", ns),
                             "labels": {"kubernetes.io/metadata.name": ns, **labels}},
                "spec": {"finalizers": ["kubernetes"]}, "status": {"phase": "Active"}})
    for name, value, desc in [("shop-critical", 100000, "Customer-facing shop services."),
                              ("ml-training", 10000, "GPU training jobs; may be preempted by the shop."),
                              ("batch-low", 100, "Nightly batch; first to go.")]:
        cl.add({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                "metadata": {"name": name, "uid": uid("pc", name)}, "value": value, "globalDefault": False,
                "preemptionPolicy": "PreemptLowerPriority", "description": desc})
    cl.add({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
            "metadata": {"name": "gp3", "uid": uid("sc", "gp3"),
                         "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}},
            "provisioner": "ebs.csi.aws.com", "volumeBindingMode": "WaitForFirstConsumer",
            "reclaimPolicy": "Delete", "allowVolumeExpansion": True, "parameters": {"type": "gp3"}})
    cl.add({"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver",
            "metadata": {"name": "ebs.csi.aws.com", "uid": uid("csidriver", "ebs")},
            "spec": {"attachRequired": True, "podInfoOnMount": False}})
    for n in names:
        zone = next(x for x in cl.nodes if x["metadata"]["name"] == n)["metadata"]["labels"][
            "topology.kubernetes.io/zone"]
        cl.add({"apiVersion": "storage.k8s.io/v1", "kind": "CSINode",
                "metadata": {"name": n, "uid": uid("csinode", n)},
                "spec": {"drivers": [{"name": "ebs.csi.aws.com", "nodeID": f"i-0{short_hash(n, n=16)}",
                                      "topologyKeys": ["topology.ebs.csi.aws.com/zone"],
                                      "allocatable": {"count": 25}}]}})
        # EBS labels its own zone key; volumes' node affinity uses it.
        next(x for x in cl.nodes if x["metadata"]["name"] == n)["metadata"]["labels"][
            "topology.ebs.csi.aws.com/zone"] = zone

    # ---- system DaemonSets on every node
    cl.daemonset("kube-proxy", "kube-system", names, {
        "hostNetwork": True, "priorityClassName": "system-node-critical",
        "containers": [container("kube-proxy", IMG["kube-proxy"], "100m", None)],
        "tolerations": [{"operator": "Exists"}]}, {"k8s-app": "kube-proxy"})
    cl.daemonset("cilium", "kube-system", names, {
        "hostNetwork": True, "priorityClassName": "system-node-critical",
        "containers": [container("cilium-agent", IMG["cilium"], "100m", "256Mi", limit_mem=False)],
        "tolerations": [{"operator": "Exists"}]}, {"k8s-app": "cilium"})
    cl.daemonset("node-exporter", "monitoring", names, {
        "hostNetwork": True, "hostPID": True,
        "containers": [container("node-exporter", IMG["node-exporter"], "50m", "64Mi",
                                 ports=[{"name": "metrics", "containerPort": 9100, "hostPort": 9100,
                                         "protocol": "TCP"}])],
        "tolerations": [{"operator": "Exists"}]}, {"app.kubernetes.io/name": "node-exporter"},
        priority_class="system-node-critical")
    cl.daemonset("nvidia-device-plugin", "kube-system", gpu_nodes, {
        "priorityClassName": "system-node-critical", "nodeSelector": {"accelerator": "nvidia-l4"},
        "containers": [container("nvidia-device-plugin", IMG["nvidia-plugin"], "50m", "64Mi")],
        "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]},
        {"app.kubernetes.io/name": "nvidia-device-plugin"})

    # ---- kube-system Deployments
    dns_tpl = {"metadata": {"labels": {"k8s-app": "kube-dns", "app": "kube-dns"}},
               "spec": {"priorityClassName": "system-cluster-critical",
                        "containers": [container("coredns", IMG["coredns"], "100m", "70Mi",
                                                 ports=[{"containerPort": 53, "protocol": "UDP", "name": "dns"}])],
                        "tolerations": [{"key": "CriticalAddonsOnly", "operator": "Exists"}]}}
    cl.deployment("coredns", "kube-system", dns_tpl, ["general-a1", "general-b2"],
                  priority_class="system-cluster-critical")
    ms_tpl = {"metadata": {"labels": {"k8s-app": "metrics-server", "app": "metrics-server"}},
              "spec": {"priorityClassName": "system-cluster-critical",
                       "containers": [container("metrics-server", IMG["metrics-server"], "100m", "200Mi")]}}
    cl.deployment("metrics-server", "kube-system", ms_tpl, ["general-b1"], priority_class="system-cluster-critical")

    # ---- the shop
    http = [{"name": "http", "containerPort": 8080, "protocol": "TCP"}]
    web_tpl = template("web", [container("web", IMG["web"], "250m", "256Mi", ports=http)],
                       priorityClassName="shop-critical")
    # Uneven after a zone-b node was replaced last week: default spreading will favour b and c.
    cl.deployment("web", "shop", web_tpl,
                  ["general-a1", "general-a1", "general-a2", "general-a2", "general-b1", "general-c1"],
                  replicas=7, priority_class="shop-critical")

    catalog_tpl = template(
        "catalog", [container("catalog", IMG["catalog"], "500m", "1Gi", ports=http)],
        priorityClassName="shop-critical",
        topologySpreadConstraints=[
            {"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule",
             "labelSelector": {"matchLabels": {"app": "catalog"}}},
            {"maxSkew": 2, "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "ScheduleAnyway",
             "labelSelector": {"matchLabels": {"app": "catalog"}}},
        ])
    # Zones a and b hold three replicas each, zone c two (its second node is cordoned).
    cl.deployment("catalog", "shop", catalog_tpl,
                  ["general-a1", "general-a2", "highmem-a1", "general-b1", "general-b2", "highmem-b1",
                   "general-c1", "highmem-c1"], replicas=9, priority_class="shop-critical")

    search_tpl = template(
        "search", [container("search", IMG["search"], "1", "2Gi", ports=http)],
        priorityClassName="shop-critical",
        affinity={"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "search"}}, "topologyKey": "kubernetes.io/hostname"}]}})
    cl.deployment("search", "shop", search_tpl, ["general-a2", "general-b1", "highmem-c1"], replicas=4,
                  priority_class="shop-critical")

    small = [
        ("cart", "200m", "256Mi", 3), ("checkout", "300m", "384Mi", 3), ("payments", "300m", "512Mi", 3),
        ("recommendations", "1", "3Gi", 2), ("inventory", "200m", "256Mi", 3), ("reviews", "100m", "192Mi", 2),
        ("notifications", "100m", "128Mi", 2), ("shipping", "150m", "192Mi", 2), ("api-gateway", "500m", "512Mi", 3),
    ]
    for app, cpu, mem, replicas in small:
        tpl = template(app, [container(app, IMG[app], cpu, mem, ports=http)], priorityClassName="shop-critical")
        placement = _spread(cl, general, tpl["spec"], replicas)
        cl.deployment(app, "shop", tpl, placement, priority_class="shop-critical")
    redis_tpl = template("redis", [container("redis", IMG["redis"], "250m", "1Gi",
                                             ports=[{"containerPort": 6379, "name": "redis"}])])
    cl.deployment("redis", "shop", redis_tpl, ["highmem-a1"])
    pg_tpl = {"metadata": {"labels": {"app": "postgres"}},
              "spec": {"containers": [container("postgres", IMG["postgres"], "2", "8Gi",
                                                ports=[{"containerPort": 5432, "name": "pg"}])],
                       "nodeSelector": {"node-pool": "highmem"}}}
    cl.statefulset("postgres", "shop", pg_tpl, ["highmem-b1"], volume_gi=200)

    # ---- data and monitoring
    kafka_tpl = {"metadata": {"labels": {"app": "kafka"}},
                 "spec": {"containers": [container("kafka", IMG["kafka"], "3", "24Gi",
                                                   ports=[{"containerPort": 9092, "name": "broker"}])],
                          "nodeSelector": {"node-pool": "highmem"},
                          "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                              {"labelSelector": {"matchLabels": {"app": "kafka"}},
                               "topologyKey": "kubernetes.io/hostname"}]}}}}
    cl.statefulset("kafka", "data", kafka_tpl, ["highmem-a1", "highmem-b1", "highmem-c1"], volume_gi=500)
    prom_tpl = {"metadata": {"labels": {"app": "prometheus"}},
                "spec": {"containers": [container("prometheus", IMG["prometheus"], "1", "6Gi")],
                         "nodeSelector": {"node-pool": "highmem"}}}
    cl.statefulset("prometheus", "monitoring", prom_tpl, ["highmem-c1"], volume_gi=100)
    graf_tpl = {"metadata": {"labels": {"app": "grafana"}},
                "spec": {"containers": [container("grafana", IMG["grafana"], "100m", "256Mi")]}}
    cl.deployment("grafana", "monitoring", graf_tpl, ["general-c1"])

    # ---- GPU training: gpu-a1 is full, gpu-b1 has one GPU in use, gpu-c1's job just finished.
    def trainer(gpus: int, cpu: str, mem: str) -> Obj:
        return {"containers": [container("trainer", IMG["trainer"], cpu, mem, extra={"nvidia.com/gpu": str(gpus)})],
                "nodeSelector": {"accelerator": "nvidia-l4"}, "restartPolicy": "Never",
                "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]}

    for job, node, gpus, phase in [("finetune-llama-7f", "gpu-a1", 2, "Running"),
                                   ("finetune-llama-8a", "gpu-a1", 2, "Running"),
                                   ("embed-catalog-2291", "gpu-b1", 1, "Running"),
                                   ("train-ranker-0831", "gpu-c1", 4, "Succeeded")]:
        job_uid = uid("job", "ml", job)
        cl.add({"apiVersion": "batch/v1", "kind": "Job",
                "metadata": {"name": job, "namespace": "ml", "uid": job_uid},
                "spec": {"template": {"spec": trainer(gpus, "8", "48Gi")}}})
        cl.pod(f"{job}-{short_hash(job, n=5)}", "ml", node, trainer(gpus, "8", "48Gi"),
               labels={"batch.kubernetes.io/job-name": job, "job-name": job,
                       "batch.kubernetes.io/controller-uid": job_uid, "controller-uid": job_uid},
               owner=owner("Job", "batch/v1", job, job_uid), phase=phase, priority_class="ml-training", age=1)

    # ---- nightly batch: finished pods of a CronJob, which occupy nothing.
    for day in range(1, 25):
        job = f"nightly-etl-{29270000 + day * 1440}"
        job_uid = uid("job", "batch", job)
        node = general[day % len(general)]
        spec = {"containers": [container("etl", IMG["etl"], "2", "4Gi")], "restartPolicy": "OnFailure"}
        cl.pod(f"{job}-{short_hash(job, n=5)}", "batch", node, spec,
               labels={"batch.kubernetes.io/job-name": job, "job-name": job, "controller-uid": job_uid},
               owner=owner("Job", "batch/v1", job, job_uid), phase="Succeeded", priority_class="batch-low",
               age=day)
    # ---- and one pod still waiting for a node (pending pods occupy nothing).
    cl.pod("checkout-migrate-x7k2p", "shop", None,
           {"containers": [container("migrate", IMG["checkout"], "4", "16Gi")], "restartPolicy": "Never"},
           labels={"app": "checkout-migrate"}, phase="Pending", age=0)

    cl.finish_images()

    # ---- the example pods
    pods: dict[str, Obj] = {}
    pods["web-deployment"] = deployment_manifest("web", "shop", web_tpl, 8)
    pods["zone-spread"] = deployment_manifest("catalog", "shop", catalog_tpl, 10)
    pods["anti-affinity"] = deployment_manifest("search", "shop", search_tpl, 5)
    pods["gpu-job"] = {
        "apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": "train-ranker-0901", "namespace": "ml"},
        "spec": {"backoffLimit": 2, "template": {
            "metadata": {"labels": {"app": "ranker-training"}},
            "spec": {"priorityClassName": "ml-training", "restartPolicy": "Never",
                     "nodeSelector": {"accelerator": "nvidia-l4"},
                     "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
                     "containers": [container("trainer", IMG["trainer"], "8", "48Gi",
                                              extra={"nvidia.com/gpu": "2"})]}}},
    }
    pods["too-big"] = {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "video-transcoder", "namespace": "shop", "labels": {"app": "video-transcoder"}},
        "spec": {"priorityClassName": "shop-critical",
                 "containers": [container("transcoder", "ghcr.io/acme/transcoder:0.3.0", "24", "96Gi")]},
    }
    pods["preferred-affinity"] = {
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "reports", "namespace": "data", "labels": {"app": "reports"}},
        "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "reports"}}, "template": {
            "metadata": {"labels": {"app": "reports"}},
            "spec": {"containers": [container("reports", IMG["etl"], "1", "6Gi")],
                     "affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                         {"weight": 80, "preference": {"matchExpressions": [
                             {"key": "node-pool", "operator": "In", "values": ["highmem"]}]}},
                         {"weight": 20, "preference": {"matchExpressions": [
                             {"key": "topology.kubernetes.io/zone", "operator": "In",
                              "values": [f"{REGION}b"]}]}},
                     ]}}}}},
    }
    return cl, pods


def _spread(cl: Cluster, nodes: list[str], spec: Obj, replicas: int) -> list[str]:
    """Place replicas round-robin from a seeded start, skipping nodes they don't fit on."""
    start = rng.randrange(len(nodes))
    out: list[str] = []
    i = 0
    while len(out) < replicas:
        node = nodes[(start + i) % len(nodes)]
        i += 1
        if cl.fits(node, spec):
            out.append(node)
        if i > 10 * len(nodes):
            raise SystemExit("generator bug: cluster too small")
    return out


def deployment_manifest(name: str, ns: str, tpl: Obj, replicas: int) -> Obj:
    labels = dict(tpl["metadata"]["labels"])
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name, "namespace": ns, "labels": {"app": labels["app"]}},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": labels["app"]}},
                     "template": copy.deepcopy(tpl)}}


POD_HEADERS = {
    "web-deployment": "Scaling up the shop's web Deployment (7 → 8 replicas). The template is the one its\n"
                      "ReplicaSet already runs, so this is one more pod of that ReplicaSet: system default\n"
                      "spreading (PodTopologySpread, hostname maxSkew 3 / zone maxSkew 5) counts the six web\n"
                      "pods running and favours the emptier zones and nodes; ImageLocality favours nodes that\n"
                      "already hold the 180 MB web image.",
    "gpu-job": "A GPU training Job: tolerates the GPU pool's taint and selects it with a nodeSelector.\n"
               "The other pools fail NodeAffinity; gpu-a1 has no free GPU; gpu-c1's finished job\n"
               "occupies nothing, so gpu-b1 and gpu-c1 fit.",
    "too-big": "A pod bigger than any node: 24 CPU and 96 GiB. Nothing fits, so the FitError lists every\n"
               "reason (cordoned node, GPU taint, Insufficient cpu / memory) and what preemption says.",
    "zone-spread": "One more catalog replica. Its hard zone constraint (maxSkew 1, DoNotSchedule) sees\n"
                   "3 replicas in zones a and b and 2 in zone c: only zone c is allowed\n"
                   "(PodTopologySpread rejects a and b).",
    "anti-affinity": "One more search replica: required pod anti-affinity on the hostname keeps it off every\n"
                     "node already running a search pod (InterPodAffinity).",
    "preferred-affinity": "A new Deployment preferring the highmem pool (weight 80) and zone b (weight 20):\n"
                          "preferred node affinity only scores (NodeAffinity column); it filters nothing.",
}


def dump(docs: list[Obj]) -> str:
    return yaml.safe_dump_all(docs, sort_keys=False, default_flow_style=False, width=120)


def main() -> None:
    cl, pods = build()
    order = ["Namespace", "PriorityClass", "StorageClass", "CSIDriver", "CSINode", "Node", "PersistentVolume",
             "PersistentVolumeClaim", "Service", "DaemonSet", "ReplicaSet", "StatefulSet", "Job", "Pod"]
    cl.kinds["Node"] = cl.nodes
    cl.kinds["Pod"] = cl.pods
    docs = [{"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": cl.kinds[k]}
            for k in order if cl.kinds.get(k)]
    header = ("# Example cluster dump for kschedx (generated by examples/generate.py; do not edit).\n"
              f"# {len(cl.nodes)} nodes in 3 zones, {len(cl.pods)} pods; one `kind: List` per resource type,\n"
              "# as `kubectl get <kind> -A -o yaml` prints them.\n")
    (HERE / "cluster.yaml").write_text(header + dump(docs))
    (HERE / "pods").mkdir(exist_ok=True)
    for name, obj in pods.items():
        text = "".join(f"# {line}\n" for line in POD_HEADERS[name].splitlines())
        (HERE / "pods" / f"{name}.yaml").write_text(text + dump([obj]))
    print(f"wrote {HERE / 'cluster.yaml'} ({len(cl.nodes)} nodes, {len(cl.pods)} pods) and {len(pods)} pods")


if __name__ == "__main__":
    main()

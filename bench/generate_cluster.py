#!/usr/bin/env python3
"""Generate a large, realistic cluster dump for the benchmarks (deterministic).

    python bench/generate_cluster.py --nodes 5000 --out bench/data/cluster-5000.json
    python bench/generate_cluster.py --nodes 500 --out bench/data/cluster-500.yaml

The cluster: NODES nodes over 3 zones in four pools (general, highmem, compute, and a
tainted GPU pool), each with ~25 images; ~30 running pods per node on average — the
DaemonSet pods (kube-proxy, node-exporter) on every node and the pods of ReplicaSets of
~50 replicas (≈ NODES × 0.6 ReplicaSets) spread over 40 namespaces, most behind a
Service, some with required pod anti-affinity, preferred pod affinity or zone spread
constraints — plus Namespaces and PriorityClasses. Written as one ``kind: List``, JSON or
YAML by the extension (``.gz`` allowed), the shape ``kubectl get ... -A -o json`` prints;
``--yaml-style multidoc`` writes YAML as a stream of one document per object (``---``).

``--pending N --pending-workloads W`` adds N pending pods of W workloads for ``kschedx
pending`` (see ``pending_workloads``): pods that fit, that can't (too big, a missing pool,
anti-affinity), on the GPU pool, gated, a few nominated, most with a FailedScheduling event.

Only the standard library (and PyYAML for .yaml); the same output on every run.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import re
import sys
from pathlib import Path
from typing import Any

Dict = dict[str, Any]

ZONES = ("eu-west-1a", "eu-west-1b", "eu-west-1c")
POOLS = (  # name, share, cpu, memory GiB, taint
    ("general", 0.60, "16", 64, None),
    ("highmem", 0.20, "16", 128, None),
    ("compute", 0.15, "32", 64, None),
    ("gpu", 0.05, "32", 192, {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}),
)
NAMESPACES = [f"team-{i:02d}" for i in range(40)]
CREATED = "2026-10-01T08:00:00Z"


def _uid(rng: random.Random) -> str:
    h = f"{rng.getrandbits(128):032x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def _images(rng: random.Random) -> list[tuple[str, int]]:
    out = []
    for i in range(300):
        size = rng.choice((20, 45, 90, 180, 350, 700, 1200)) * 1024 * 1024
        out.append((f"registry.example.com/team-{i % 40:02d}/svc-{i}:v{1 + i % 7}.{i % 13}", size))
    return out


def make_node(name: str, pool: tuple[Any, ...], zone: str, images: list[tuple[str, int]],
              rng: random.Random) -> Dict:
    pname, _share, cpu, mem, taint = pool
    held = rng.sample(images, 25)
    alloc_cpu = f"{int(cpu) * 1000 - 90}m"
    node: Dict = {
        "apiVersion": "v1", "kind": "Node",
        "metadata": {
            "name": name, "uid": _uid(rng), "creationTimestamp": CREATED, "resourceVersion": str(rng.randint(1, 10**7)),
            "labels": {
                "kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
                "topology.kubernetes.io/zone": zone, "topology.kubernetes.io/region": "eu-west-1",
                "node.kubernetes.io/instance-type": f"{pname}.{cpu}xlarge", "node-pool": pname,
            },
            "annotations": {"node.alpha.kubernetes.io/ttl": "0",
                            "volumes.kubernetes.io/controller-managed-attach-detach": "true"},
        },
        "spec": {"providerID": f"aws:///{zone}/i-{rng.getrandbits(64):016x}", "podCIDR": "10.0.0.0/24"},
        "status": {
            "capacity": {"cpu": cpu, "memory": f"{mem}Gi", "pods": "110", "ephemeral-storage": "100Gi"},
            "allocatable": {"cpu": alloc_cpu, "memory": f"{mem * 1024 - 1800}Mi", "pods": "110",
                            "ephemeral-storage": "95Gi"},
            "conditions": [
                {"type": t, "status": "False" if t != "Ready" else "True", "reason": f"Kubelet{t}",
                 "lastHeartbeatTime": CREATED, "lastTransitionTime": CREATED}
                for t in ("MemoryPressure", "DiskPressure", "PIDPressure", "Ready")
            ],
            "addresses": [{"type": "InternalIP",
                           "address": f"10.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}"},
                          {"type": "Hostname", "address": name}],
            "images": [{"names": [n, n.split(":")[0] + "@sha256:" + f"{rng.getrandbits(256):064x}"], "sizeBytes": s}
                       for n, s in held],
            "nodeInfo": {"kubeletVersion": "v1.35.4", "containerRuntimeVersion": "containerd://2.1.4",
                         "osImage": "Bottlerocket OS 1.40.0", "architecture": "amd64", "operatingSystem": "linux"},
        },
    }
    if taint:
        node["spec"]["taints"] = [dict(taint)]
        node["metadata"]["labels"]["accelerator"] = "nvidia-l4"
        node["status"]["capacity"]["nvidia.com/gpu"] = "4"
        node["status"]["allocatable"]["nvidia.com/gpu"] = "4"
    return node


def make_pod(name: str, ns: str, labels: Dict, owner: Dict, node: str, spec_extra: Dict, image: str,
             cpu: str, mem: str, rng: random.Random, priority: int = 0) -> Dict:
    spec: Dict = {
        "containers": [{
            "name": "app", "image": image, "imagePullPolicy": "IfNotPresent",
            "ports": [{"containerPort": 8080, "protocol": "TCP", "name": "http"}],
            "resources": {"requests": {"cpu": cpu, "memory": mem}, "limits": {"memory": mem}},
            "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File",
        }],
        "nodeName": node, "schedulerName": "default-scheduler", "priority": priority,
        "restartPolicy": "Always", "dnsPolicy": "ClusterFirst", "serviceAccountName": "default",
        "terminationGracePeriodSeconds": 30, "enableServiceLinks": True, "preemptionPolicy": "PreemptLowerPriority",
        "tolerations": [
            {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
            {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
        ],
        **spec_extra,
    }
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": ns, "uid": _uid(rng), "creationTimestamp": CREATED,
                     "resourceVersion": str(rng.randint(1, 10**7)), "labels": labels, "ownerReferences": [owner]},
        "spec": spec,
        "status": {
            "phase": "Running", "qosClass": "Burstable", "startTime": CREATED,
            "hostIP": "10.0.0.1", "podIP": f"10.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}",
            "conditions": [{"type": t, "status": "True", "lastTransitionTime": CREATED}
                           for t in ("PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled")],
            "containerStatuses": [{"name": "app", "ready": True, "restartCount": 0, "image": image,
                                   "imageID": "", "started": True, "state": {"running": {"startedAt": CREATED}}}],
        },
    }


def generate(num_nodes: int, pods_per_node: int = 30, seed: int = 5000) -> list[Dict]:
    rng = random.Random(seed)
    images = _images(rng)
    nodes: list[Dict] = []
    for i in range(num_nodes):
        r = (i * 7919) % 1000 / 1000
        acc = 0.0
        pool = POOLS[0]
        for p in POOLS:
            acc += p[1]
            if r < acc:
                pool = p
                break
        zone = ZONES[i % 3]
        nodes.append(make_node(f"ip-10-{i // 250}-{i % 250}-{pool[0]}.eu-west-1.compute.internal", pool, zone,
                               images, rng))
    schedulable = [n for n in nodes if "taints" not in n["spec"]]
    objs: list[Dict] = []
    objs += [{"apiVersion": "v1", "kind": "Namespace",
              "metadata": {"name": ns, "labels": {"kubernetes.io/metadata.name": ns, "team": ns[-2:]}}}
             for ns in [*NAMESPACES, "kube-system"]]
    objs.append({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                 "metadata": {"name": "business-critical"}, "value": 100000})
    objs += nodes

    pods: list[Dict] = []
    for ds, cpu, mem in (("kube-proxy", "100m", "64Mi"), ("node-exporter", "50m", "48Mi")):
        owner = {"apiVersion": "apps/v1", "kind": "DaemonSet", "name": ds, "uid": _uid(rng),
                 "controller": True, "blockOwnerDeletion": True}
        for n in nodes:
            name = n["metadata"]["name"]
            pods.append(make_pod(f"{ds}-{rng.getrandbits(20):05x}", "kube-system", {"k8s-app": ds}, owner, name,
                                 {"priorityClassName": "system-node-critical",
                                  "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                                      "nodeSelectorTerms": [{"matchFields": [
                                          {"key": "metadata.name", "operator": "In", "values": [name]}]}]}}}},
                                 f"registry.k8s.io/{ds}:v1.35.4", cpu, mem, rng, priority=2000001000))

    target = num_nodes * pods_per_node - len(pods)
    rs_index = 0
    while len(pods) < num_nodes * pods_per_node and target > 0:
        ns = NAMESPACES[rs_index % len(NAMESPACES)]
        app = f"svc-{rs_index}"
        h = f"{rng.getrandbits(40):010x}"[:10]
        rs_name = f"{app}-{h}"
        replicas = max(1, int(rng.gauss(50, 15)))
        labels = {"app": app, "tier": rng.choice(("web", "api", "worker")), "pod-template-hash": h}
        rs_uid = _uid(rng)
        image, _ = images[rs_index % len(images)]
        cpu = rng.choice(("100m", "250m", "500m"))
        mem = rng.choice(("128Mi", "256Mi", "512Mi"))
        extra: Dict = {}
        kind = rs_index % 20
        if kind == 0:  # required anti-affinity on hostname
            extra["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": "kubernetes.io/hostname"}]}}
        elif kind == 1:  # preferred affinity to a sibling service in the zone
            extra["affinity"] = {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 50, "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": f"svc-{rs_index - 1}"}},
                                                   "topologyKey": "topology.kubernetes.io/zone"}}]}}
        elif kind in (2, 3):
            extra["topologySpreadConstraints"] = [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                                                   "whenUnsatisfiable": "ScheduleAnyway",
                                                   "labelSelector": {"matchLabels": {"app": app}}}]
        owner = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": rs_name, "uid": rs_uid,
                 "controller": True, "blockOwnerDeletion": True}
        tpl_spec = {"containers": [{"name": "app", "image": image,
                                    "resources": {"requests": {"cpu": cpu, "memory": mem}}}], **extra}
        objs.append({"apiVersion": "apps/v1", "kind": "ReplicaSet",
                     "metadata": {"name": rs_name, "namespace": ns, "uid": rs_uid, "labels": labels,
                                  "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": app,
                                                       "uid": _uid(rng), "controller": True}]},
                     "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": app, "pod-template-hash": h}},
                              "template": {"metadata": {"labels": labels}, "spec": tpl_spec}},
                     "status": {"replicas": replicas, "readyReplicas": replicas}})
        if rs_index % 10 < 7:
            objs.append({"apiVersion": "v1", "kind": "Service",
                         "metadata": {"name": app, "namespace": ns, "uid": _uid(rng)},
                         "spec": {"selector": {"app": app}, "ports": [{"port": 80, "targetPort": 8080}],
                                  "type": "ClusterIP"}})
        hosts = rng.sample(schedulable, min(replicas, len(schedulable))) if kind == 0 else \
            [rng.choice(schedulable) for _ in range(replicas)]
        for host in hosts:
            pods.append(make_pod(f"{rs_name}-{rng.getrandbits(25):05x}", ns, dict(labels), owner,
                                 host["metadata"]["name"], extra, image, cpu, mem, rng))
        rs_index += 1
    return objs + pods


# The pending workloads cycle through these shapes (--pending): each says what its pods ask
# for and why they wait.
PENDING_SHAPES = (
    # name, kind, cpu, memory, what else
    ("spread", "Deployment", "200m", "256Mi", "zone-spread"),        # fits: a rollout not placed yet
    ("bigcpu", "Deployment", "48", "8Gi", ""),                        # Insufficient cpu everywhere
    ("db", "StatefulSet", "500m", "2Gi", "anti-affinity,highmem"),    # one per highmem node
    ("gpu", "Deployment", "1", "4Gi", "gpu"),                         # the tainted GPU pool
    ("nopool", "Deployment", "100m", "128Mi", "missing-pool"),        # a pool no node has
    ("batch", "ReplicaSet", "250m", "512Mi", "preferred-zone"),       # fits, scored by zone
    ("gated", "Deployment", "100m", "128Mi", "gated"),                # schedulingGates
    ("near", "Deployment", "100m", "256Mi", "pod-affinity"),          # next to svc-1's pods
)


def pending_workloads(nodes: list[Dict], count: int, workloads: int, seed: int) -> list[Dict]:
    """``count`` pending pods of ``workloads`` workloads (Deployments with their ReplicaSet,
    bare ReplicaSets, StatefulSets), in the shapes of PENDING_SHAPES; a few pods nominated
    to a node by an earlier preemption, and a FailedScheduling event for most of those the
    scheduler could not place."""
    rng = random.Random(seed + 1)  # its own stream: the rest of the cluster stays as it was
    images = _images(rng)
    objs: list[Dict] = []
    events: list[Dict] = []
    per = [count // workloads + (1 if w < count % workloads else 0) for w in range(workloads)]
    n_nodes = len(nodes)
    for w in range(workloads):
        shape, kind, cpu, mem, extra = PENDING_SHAPES[w % len(PENDING_SHAPES)]
        ns = NAMESPACES[(w * 7) % len(NAMESPACES)]
        app = f"pending-{shape}-{w}"
        image = images[(w * 13) % len(images)][0]
        labels: Dict = {"app": app, "tier": "api" if w % 2 else "worker"}
        spec: Dict = {"containers": [{"name": "app", "image": image, "ports": [{"containerPort": 8080}],
                                      "resources": {"requests": {"cpu": cpu, "memory": mem},
                                                    "limits": {"memory": mem}}}]}
        if "zone-spread" in extra:
            spec["topologySpreadConstraints"] = [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                                                  "whenUnsatisfiable": "DoNotSchedule",
                                                  "labelSelector": {"matchLabels": {"app": app}}}]
        if "anti-affinity" in extra:
            spec["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": "kubernetes.io/hostname"}]}}
        if "highmem" in extra:
            spec["nodeSelector"] = {"node-pool": "highmem"}
        if "gpu" in extra:
            spec["nodeSelector"] = {"accelerator": "nvidia-l4"}
            spec["tolerations"] = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
            spec["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] = "1"
            spec["containers"][0]["resources"]["requests"]["nvidia.com/gpu"] = "1"
        if "missing-pool" in extra:
            spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [
                    {"key": "node-pool", "operator": "In", "values": ["arm64"]}]}]}}}
        if "preferred-zone" in extra:
            spec["affinity"] = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 20, "preference": {"matchExpressions": [
                    {"key": "topology.kubernetes.io/zone", "operator": "In", "values": [ZONES[w % 3]]}]}}]}}
            spec["topologySpreadConstraints"] = [{"maxSkew": 2, "topologyKey": "kubernetes.io/hostname",
                                                  "whenUnsatisfiable": "ScheduleAnyway",
                                                  "labelSelector": {"matchLabels": {"app": app}}}]
        if "pod-affinity" in extra:
            spec["affinity"] = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {"matchLabels": {"app": "svc-1"}}, "topologyKey": "topology.kubernetes.io/zone",
                 "namespaces": [NAMESPACES[1]]}]}}
        gated = "gated" in extra
        if gated:
            spec["schedulingGates"] = [{"name": "example.com/quota-check"}]
        uid = _uid(rng)
        if kind == "StatefulSet":
            owner_obj: Dict = {"apiVersion": "apps/v1", "kind": "StatefulSet",
                               "metadata": {"name": app, "namespace": ns, "uid": uid, "labels": dict(labels)},
                               "spec": {"replicas": per[w], "serviceName": app,
                                        "selector": {"matchLabels": {"app": app}},
                                        "template": {"metadata": {"labels": dict(labels)}, "spec": spec}},
                               "status": {"replicas": per[w], "readyReplicas": 0}}
            objs.append(owner_obj)
            owner = {"apiVersion": "apps/v1", "kind": "StatefulSet", "name": app, "uid": uid,
                     "controller": True, "blockOwnerDeletion": True}
            names = [f"{app}-{i}" for i in range(per[w])]
        else:
            h = f"{rng.getrandbits(40):010x}"[:10]
            rs_name = app if kind == "ReplicaSet" else f"{app}-{h}"
            rs_labels = dict(labels) if kind == "ReplicaSet" else {**labels, "pod-template-hash": h}
            rs: Dict = {"apiVersion": "apps/v1", "kind": "ReplicaSet",
                        "metadata": {"name": rs_name, "namespace": ns, "uid": uid, "labels": rs_labels},
                        "spec": {"replicas": per[w], "selector": {"matchLabels": rs_labels},
                                 "template": {"metadata": {"labels": rs_labels}, "spec": spec}},
                        "status": {"replicas": per[w], "readyReplicas": 0}}
            if kind == "Deployment":
                dep_uid = _uid(rng)
                objs.append({"apiVersion": "apps/v1", "kind": "Deployment",
                             "metadata": {"name": app, "namespace": ns, "uid": dep_uid, "labels": dict(labels)},
                             "spec": {"replicas": per[w], "selector": {"matchLabels": {"app": app}},
                                      "template": {"metadata": {"labels": dict(labels)}, "spec": spec}},
                             "status": {"replicas": per[w], "readyReplicas": 0}})
                rs["metadata"]["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "Deployment", "name": app,
                                                      "uid": dep_uid, "controller": True, "blockOwnerDeletion": True}]
            objs.append(rs)
            labels = rs_labels
            owner = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": rs_name, "uid": uid,
                     "controller": True, "blockOwnerDeletion": True}
            names = [f"{rs_name}-{rng.getrandbits(25):05x}" for _ in range(per[w])]
        for i, name in enumerate(names):
            pod_labels = dict(labels)
            if kind == "StatefulSet":
                pod_labels.update({"statefulset.kubernetes.io/pod-name": name, "apps.kubernetes.io/pod-index": str(i)})
            pod = make_pod(name, ns, pod_labels, owner, "", json.loads(json.dumps(spec)), image, cpu, mem, rng)
            pod["spec"].pop("nodeName")
            pod["spec"]["containers"] = json.loads(json.dumps(spec["containers"]))
            pod["status"] = {"phase": "Pending", "qosClass": "Burstable"}
            if gated:
                pod["status"]["conditions"] = [{"type": "PodScheduled", "status": "False",
                                                "reason": "SchedulingGated", "lastTransitionTime": CREATED}]
                objs.append(pod)
                continue
            if (w + i) % 97 == 5:  # an earlier preemption nominated a node and waits for its victims
                pod["status"]["nominatedNodeName"] = nodes[(w * 31 + i) % n_nodes]["metadata"]["name"]
                pod["spec"]["priority"] = 100000
                pod["spec"]["priorityClassName"] = "business-critical"
            pod["status"]["conditions"] = [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                                            "lastTransitionTime": CREATED}]
            objs.append(pod)
            if i % 4 != 3:  # most have the scheduler's last word about them
                events.append({
                    "apiVersion": "v1", "kind": "Event",
                    "metadata": {"name": f"{name}.{rng.getrandbits(48):012x}", "namespace": ns,
                                 "creationTimestamp": CREATED},
                    "involvedObject": {"kind": "Pod", "namespace": ns, "name": name, "uid": pod["metadata"]["uid"],
                                       "apiVersion": "v1"},
                    "reason": "FailedScheduling", "type": "Warning", "source": {"component": "default-scheduler"},
                    "reportingComponent": "default-scheduler", "count": 1 + i % 5,
                    "firstTimestamp": CREATED, "lastTimestamp": CREATED,
                    "message": f"0/{n_nodes} nodes are available: {n_nodes} Insufficient cpu. preemption: "
                               f"0/{n_nodes} nodes are available: {n_nodes} No preemption victims found for "
                               "incoming pod.",
                })
    return objs + events


def write(objs: list[Dict], out: Path, style: str = "kubectl") -> None:
    doc = {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": objs}
    name = out.name[:-3] if out.name.endswith(".gz") else out.name
    if name.endswith((".yaml", ".yml")):
        if style == "kubectl":
            data = kubectl_yaml(doc).encode()
        elif style == "multidoc":
            data = multidoc_yaml(objs).encode()
        else:
            import yaml

            dumper: Any = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
            data = yaml.dump(doc, Dumper=dumper, sort_keys=False, default_flow_style=False).encode()
    else:
        data = json.dumps(doc, indent=4).encode()
    if out.name.endswith(".gz"):
        data = gzip.compress(data, compresslevel=5)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(data)


# --- YAML as `kubectl get -o yaml` writes it -------------------------------------------
# kubectl turns the JSON into YAML with sigs.k8s.io/yaml over go-yaml: keys sorted, two
# spaces per level, a block sequence not indented under its key, `{}` and `[]` for empty
# collections, a string double-quoted when it would read back as another type (or can't
# be plain), `|`-style for a string of several lines, and no line folding.

_GO_BOOLS = frozenset("y Y yes Yes YES n N no No NO true True TRUE false False FALSE on On ON off Off OFF".split())
_GO_NULLS = frozenset(("~", "null", "Null", "NULL", ""))
_INDICATORS = frozenset("-?:,[]{}#&*!|>'\"%@`")
_PLAIN_OK = re.compile(r"[\x21-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff ]*")
_quoting: dict[str, bool] = {}


def _needs_quotes(s: str) -> bool:
    known = _quoting.get(s)
    if known is None:
        known = _quoting[s] = _read_as_other_type(s) or s[0] in _INDICATORS or s[0] == " " or s[-1] == " " \
            or s[-1] == ":" or ": " in s or " #" in s or not _PLAIN_OK.fullmatch(s)
        if len(_quoting) > 100_000:
            _quoting.clear()
    return known


def _read_as_other_type(s: str) -> bool:
    """Whether go-yaml (YAML 1.1 bools, Go's number syntax) or PyYAML would read plain
    ``s`` as something other than a string."""
    if s in _GO_NULLS or s in _GO_BOOLS or s in ("<<", "="):
        return True
    if s[0] in "0123456789+-.":
        for parse in (lambda t: int(t, 0), float):
            try:
                parse(s)
                return True
            except ValueError:
                pass
    import yaml
    from yaml.nodes import ScalarNode

    return str(yaml.resolver.Resolver().resolve(ScalarNode, s, (True, False))) != "tag:yaml.org,2002:str"


_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r", "\x00": "\\0", "\x07": "\\a",
            "\x08": "\\b", "\x0b": "\\v", "\x0c": "\\f", "\x1b": "\\e", "\x85": "\\N", "\xa0": "\\_",
            "\u2028": "\\L", "\u2029": "\\P"}


def _double_quoted(s: str) -> str:
    out = []
    for ch in s:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ch < " " or "\x7f" <= ch < "\xa0" or ch in "\ufeff\ufffe\uffff" or "\ud800" <= ch <= "\udfff":
            out.append(f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _scalar(value: Any, indent: str) -> str:
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    s = str(value)
    if "\n" in s:
        body = s[:-1] if s.endswith("\n") else s
        lines = body.split("\n")
        if _PLAIN_OK.fullmatch(body.replace("\n", "")) and lines[0][:1] not in ("", " ") and lines[-1] \
                and not any(ln.endswith(" ") for ln in lines):
            return ("|" if s.endswith("\n") else "|-") + "".join("\n" + (indent + "  " + ln if ln else "")
                                                                  for ln in lines)
    return _double_quoted(s) if not s or _needs_quotes(s) else s


def _emit(value: Any, indent: str, out: list[str]) -> None:
    """``value`` (a mapping or a sequence) as block lines at ``indent``; the first line
    goes on to whatever ``out`` ends with (a "- " of the enclosing sequence, or nothing)."""
    first = True
    if isinstance(value, dict):
        for key in sorted(value, key=str):
            prefix = "" if first else indent
            first = False
            k = str(key)
            k = _double_quoted(k) if not k or _needs_quotes(k) or "\n" in k else k
            v = value[key]
            if isinstance(v, dict) and v:
                out.append(f"{prefix}{k}:\n{indent}  ")
                _emit(v, indent + "  ", out)
            elif isinstance(v, list) and v:
                out.append(f"{prefix}{k}:\n{indent}")
                _emit(v, indent, out)
            else:
                out.append(f"{prefix}{k}: {_flow_empty(v) if isinstance(v, dict | list) else _scalar(v, indent)}\n")
    else:
        for item in value:
            prefix = "- " if first else indent + "- "
            first = False
            if isinstance(item, dict | list) and item:
                out.append(prefix)
                _emit(item, indent + "  ", out)
            else:
                out.append(f"{prefix}{_flow_empty(item) if isinstance(item, dict | list) else _scalar(item, indent)}\n")


def _flow_empty(v: dict[Any, Any] | list[Any]) -> str:
    return "{}" if isinstance(v, dict) else "[]"


def kubectl_yaml(doc: Dict) -> str:
    """``doc`` (JSON-shaped) as `kubectl get -o yaml` prints it."""
    out: list[str] = []
    _emit(doc, "", out)
    return "".join(out)


def multidoc_yaml(objs: list[Dict]) -> str:
    """The objects as one YAML stream of documents, as tools and people concatenate them:
    each object written as kubectl writes it, ``---`` before each but the first, a
    comment naming each kind where it starts (as `helm template` names its sources)."""
    out: list[str] = []
    kind = None
    for i, obj in enumerate(objs):
        if i:
            out.append("---\n")
        if obj.get("kind") != kind:
            kind = obj.get("kind")
            out.append(f"# {kind}s\n")
        _emit(obj, "", out)
    return "".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--pods-per-node", type=int, default=30)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--seed", type=int, default=5000)
    ap.add_argument("--pending", type=int, default=0, metavar="N",
                    help="also N pending pods (kschedx pending's benchmark)")
    ap.add_argument("--pending-workloads", type=int, default=40, metavar="W",
                    help="the workloads the pending pods belong to")
    ap.add_argument("--yaml-style", choices=("kubectl", "multidoc", "pyyaml"), default="kubectl",
                    help="YAML as kubectl writes a List (default), the objects as a multi-document "
                    "stream (---), or a List as PyYAML's dumper writes it")
    args = ap.parse_args()
    objs = generate(args.nodes, args.pods_per_node, args.seed)
    if args.pending:
        nodes = [o for o in objs if o["kind"] == "Node"]
        objs += pending_workloads(nodes, args.pending, max(1, min(args.pending_workloads, args.pending)), args.seed)
    write(objs, args.out, args.yaml_style)
    kinds: dict[str, int] = {}
    for o in objs:
        kinds[o["kind"]] = kinds.get(o["kind"], 0) + 1
    print(f"wrote {args.out} ({args.out.stat().st_size / 1e6:.0f} MB): "
          + ", ".join(f"{v} {k}" for k, v in sorted(kinds.items())), file=sys.stderr)


if __name__ == "__main__":
    main()

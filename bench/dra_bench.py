"""The DRA row of the benchmark (issue 30): one scheduling cycle of a pod with a ResourceClaim
on a GPU cluster of N nodes with 8 devices each, as 1.36's allocator runs it against the
1.35 allocator's cycle on the same cluster, in the same run.

The cluster: N nodes, each with one ResourceSlice of 8 devices (full GPUs; on every other node
4 of them drawn from shared counters as partitions of two physical GPUs, the MIG shape 1.36
allocates and 1.35 leaves alone), a third of the nodes with 2 devices held by an allocated
claim, plus a CPU-only node pool. The pod asks for 2 GPUs of one model through a
ResourceClaimTemplate. Each figure is the best of several cycles after the first (which
builds the lazy per-snapshot indexes), each version in a fresh process.

    python bench/dra_bench.py --nodes 5000
"""

from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import Any

Dict = dict[str, Any]
DRIVER = "gpu.example.com"


def node(i: int) -> Dict:
    name = f"gpu-node-{i:05d}"
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name,
                                                  "topology.kubernetes.io/zone": f"z{i % 3}"}},
            "status": {"allocatable": {"cpu": "64", "memory": "512Gi", "pods": "110"},
                       "nodeInfo": {"kubeletVersion": "v1.36.3"},
                       "conditions": [{"type": "Ready", "status": "True"}]}}


def slices_of(i: int) -> list[Dict]:
    name = f"gpu-node-{i:05d}"
    devices: list[Dict] = []
    partitioned = i % 2 == 1
    for d in range(8):
        attrs = {"model": {"string": "h100" if i % 4 else "a100"}, "index": {"int": d}}
        dev: Dict = {"name": f"gpu-{d}", "attributes": attrs, "capacity": {"memory": {"value": "80Gi"}}}
        if partitioned and d >= 4:
            dev["consumesCounters"] = [{"counterSet": f"gpu-{(d - 4) // 2}-counters",
                                        "counters": {"memory": {"value": "40Gi"}}}]
            dev["capacity"] = {"memory": {"value": "40Gi"}}
        devices.append(dev)
    pool = {"name": name, "generation": 1, "resourceSliceCount": 2 if partitioned else 1}
    out = [{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"{name}-{DRIVER}"},
            "spec": {"driver": DRIVER, "nodeName": name, "pool": pool, "devices": devices}}]
    if partitioned:
        # The counter sets stand in a slice of their own in the same pool (a slice holds
        # devices or shared counters, not both).
        out.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
                    "metadata": {"name": f"{name}-{DRIVER}-counters"},
                    "spec": {"driver": DRIVER, "nodeName": name, "pool": pool,
                             "sharedCounters": [{"name": f"gpu-{k}-counters", "counters": {"memory": {"value": "80Gi"}}}
                                                for k in range(2)]}})
    return out


def held_claim(i: int) -> tuple[Dict, Dict]:
    name = f"gpu-node-{i:05d}"
    pod_name = f"trainer-{i:05d}"
    claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
             "metadata": {"name": f"{pod_name}-gpus", "namespace": "ml", "uid": f"claim-{i}"},
             "spec": {"devices": {"requests": [{"name": "gpus", "exactly": {
                 "deviceClassName": DRIVER, "allocationMode": "ExactCount", "count": 2}}]}},
             "status": {"allocation": {"devices": {"results": [
                 {"request": "gpus", "driver": DRIVER, "pool": name, "device": f"gpu-{d}"} for d in (0, 1)]},
                 "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
                     {"key": "metadata.name", "operator": "In", "values": [name]}]}]}},
                 "reservedFor": [{"resource": "pods", "name": pod_name, "uid": f"pod-{i}"}]}}
    pod = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": pod_name, "namespace": "ml", "uid": f"pod-{i}"},
           "spec": {"nodeName": name, "resourceClaims": [{"name": "gpus", "resourceClaimName": f"{pod_name}-gpus"}],
                    "containers": [{"name": "c", "image": "trainer:1",
                                    "resources": {"requests": {"cpu": "8"}, "claims": [{"name": "gpus"}]}}]},
           "status": {"phase": "Running"}}
    return claim, pod


def cluster(nodes: int) -> Dict:
    items: list[Dict] = [{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": DRIVER},
                          "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]}},
                         {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
                          "metadata": {"name": "two-h100", "namespace": "ml"},
                          "spec": {"spec": {"devices": {"requests": [{"name": "gpus", "exactly": {
                              "deviceClassName": DRIVER, "allocationMode": "ExactCount", "count": 2,
                              "selectors": [{"cel": {"expression":
                                             f'device.attributes["{DRIVER}"].model == "h100"'}}]}}]}}}}]
    for i in range(nodes):
        items += [node(i), *slices_of(i)]
        if i % 3 == 0:
            items += list(held_claim(i))
    return {"apiVersion": "v1", "kind": "List", "items": items}


POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "inference", "namespace": "ml"},
       "spec": {"resourceClaims": [{"name": "gpus", "resourceClaimTemplateName": "two-h100"}],
                "containers": [{"name": "c", "image": "inference:1",
                                "resources": {"requests": {"cpu": "4"}, "claims": [{"name": "gpus"}]}}]}}

CYCLE = """
import json, sys, time
from kschedx.core.explain import front as e
opts = e.resolve_version(e.Options(kubernetes_version=sys.argv[3]), e.load_cluster_files([sys.argv[1]]))
objs = e.load_cluster_files([sys.argv[1]])
inc = e.prepare_pod(sys.argv[2], objs)
snap = e.build_snapshot(objs, inc)
prof = e.select_profile(inc.pod, None, None, opts.version)
r = e.run(snap, inc, prof, opts)  # builds the lazy indexes
best = float("inf")
for _ in range(int(sys.argv[4])):
    t = time.process_time()
    r = e.run(snap, inc, prof, opts)
    best = min(best, time.process_time() - t)
print(json.dumps({"cycle": best, "selected": r.selected_node, "feasible": len(r.feasible_nodes)}))
"""


def run_cycle(dump: Path, pod: Path, version: str, repeat: int) -> Dict:
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(CYCLE), str(dump), str(pod), version, str(repeat)],
                         check=True, capture_output=True, text=True)
    result: Dict = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--repeat", type=int, default=5, help="cycles timed per version (the best is kept)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        dump = Path(d) / "dra-cluster.json.gz"
        with gzip.open(dump, "wt") as f:
            json.dump(cluster(args.nodes), f)
        pod = Path(d) / "pod.json"
        pod.write_text(json.dumps(POD))
        old = run_cycle(dump, pod, "1.35", args.repeat)
        new = run_cycle(dump, pod, "1.36", args.repeat)
    print(f"{args.nodes:,} nodes x 8 devices: one DRA cycle (CPU, best of {args.repeat})")
    print(f"  v1.35 allocator: {old['cycle']:.3f} s ({old['feasible']} feasible, best {old['selected']})")
    print(f"  v1.36 allocator: {new['cycle']:.3f} s ({new['feasible']} feasible, best {new['selected']})")
    print(f"  ratio 1.36 / 1.35: {new['cycle'] / old['cycle']:.2f}x (target: within 2x)")


if __name__ == "__main__":
    main()

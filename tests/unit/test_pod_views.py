"""The loader's views of the pods (``ClusterObjects.pod_infos``, core/load/files.py): made
while each pod of a JSON List is freshly decoded, each the PodInfo the snapshot would make
of that very object, and used by the snapshot for that object alone."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from kschedx.core.api.model import PodInfo
from kschedx.core.explain.front import load_cluster_files
from kschedx.core.load.files import load_cluster
from kschedx.core.snapshot import Snapshot

ROOT = Path(__file__).resolve().parents[2]

# The values a PodInfo works out when it is made (the others are read when first asked for).
EAGER = ("raw", "name", "namespace", "uid", "node_name", "phase", "priority", "spec", "status", "stored_labels",
         "requests", "non0_cpu", "non0_mem", "has_pod_affinity")


def _generated(tmp_path: Path, style: str = "json") -> Path:
    out = tmp_path / ("c.json" if style == "json" else "c.yaml")
    extra = [] if style == "json" else ["--yaml-style", style]
    subprocess.run([sys.executable, str(ROOT / "bench" / "generate_cluster.py"), "--nodes", "30", "--out", str(out),
                    *extra], check=True, capture_output=True)
    return out


def _summary(snap: Snapshot) -> list[Any]:
    return [(ni.name, [p.uid for p in ni.pods], ni.requested, list(ni.requested), ni.non0_cpu, ni.non0_mem,
             [p.uid for p in ni.pods_with_affinity], [p.uid for p in ni.pods_with_required_anti_affinity])
            for ni in snap.nodes()] + [sorted(snap.pods_by_uid), [p.uid for p in snap.orphan_pods]]


# (A List as PyYAML's dumper writes it is read another way, without views: the snapshot
# makes its PodInfos, as for a live cluster.)
@pytest.mark.parametrize("style", ["json", "kubectl", "multidoc"])
def test_every_view_is_the_podinfo_of_its_pod_and_the_snapshot_uses_it(tmp_path: Path, style: str) -> None:
    objects = load_cluster([str(_generated(tmp_path, style))])
    pods = objects.of("Pod")
    # A JSON List, the YAML fast path's Lists and streams: every pod has its view.
    assert pods and len(objects.pod_infos) == len(pods)
    for raw in pods:
        view = objects.pod_infos[id(raw)]
        fresh = PodInfo(raw)
        assert view.raw is raw
        assert [getattr(view, k) for k in EAGER] == [getattr(fresh, k) for k in EAGER]
        assert "controller_key" in view.__dict__  # worked out while the pod was fresh
        assert view.controller_key == fresh.controller_key
    snap = Snapshot(objects.copy())
    assert all(p is objects.pod_infos[id(p.raw)] for ni in snap.nodes() for p in ni.pods)
    # The same snapshot as one that makes every PodInfo itself.
    without = objects.copy()
    without.pod_infos = {}
    plain = Snapshot(without)
    assert _summary(snap) == _summary(plain)
    assert not any(p is objects.pod_infos.get(id(p.raw)) for ni in plain.nodes() for p in ni.pods)


def test_a_view_serves_its_own_object_only(tmp_path: Path) -> None:
    objects = load_cluster([str(_generated(tmp_path))])
    pods = objects.by_kind["Pod"]
    bound = next(i for i, raw in enumerate(pods) if (raw.get("spec") or {}).get("nodeName"))
    other = copy.deepcopy(pods[bound])
    other["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "3"}}
    pods[bound] = other  # an object laid over the loaded one: its own PodInfo
    snap = Snapshot(objects)
    got = snap.pods_by_uid[other["metadata"]["uid"]]
    assert got.raw is other and got.requests["cpu"] == 3000


def test_a_priority_filled_in_after_loading_drops_the_view(tmp_path: Path) -> None:
    pod = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": "p", "namespace": "default", "uid": "u1"},
           "spec": {"nodeName": "n1", "priorityClassName": "high", "containers": [{"name": "c", "image": "i"}]},
           "status": {"phase": "Running"}}
    items = [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
              "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}},
             {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"},
              "value": 1000},
             pod, {**copy.deepcopy(pod), "metadata": {"name": "q", "namespace": "default", "uid": "u2"},
                   "spec": {**pod["spec"], "priority": 7}}]
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    objects = load_cluster_files([str(path)])
    first, second = objects.of("Pod")
    assert id(first) not in objects.pod_infos and id(second) in objects.pod_infos
    snap = Snapshot(objects.copy())
    assert snap.pods_by_uid["u1"].priority == 1000 and snap.pods_by_uid["u2"].priority == 7

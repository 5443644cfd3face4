"""Running, unchanged workloads of the golden clusters pass ``check`` against their own
cluster without placing anything (issue 15, item 4).

Each Deployment is rebuilt from its current ReplicaSet (the ReplicaSet's template without
pod-template-hash, its replicas and selector), each StatefulSet is taken as it is. A
workload whose pods are not all bound and Running in the dump is skipped (its controller
would still create or place some); the test counts the ones it checked.
"""

from __future__ import annotations

import copy
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from kschedx.core.api.objects import ClusterObjects
from kschedx.core.explain.check import check_paths
from kschedx.core.explain.front import load_cluster_files

CASES = Path(__file__).resolve().parents[1] / "golden" / "cases"
HASH = "pod-template-hash"

Dict = dict[str, Any]


def _meta(o: Dict) -> Dict:
    return o.get("metadata") or {}


def _controller(o: Dict) -> tuple[str, str] | None:
    for ref in _meta(o).get("ownerReferences") or []:
        if ref.get("controller"):
            return str(ref.get("kind")), str(ref.get("name"))
    return None


def _revision(rs: Dict) -> int:
    try:
        return int((_meta(rs).get("annotations") or {}).get("deployment.kubernetes.io/revision") or 0)
    except ValueError:
        return 0


def _admissible(template: Dict) -> bool:
    """False for a stored template the API server would not admit as a new Deployment's: a
    container naming a resource claim the pod spec does not declare (some generated dra136
    ReplicaSets carry their pods' claim references without the pods' spec.resourceClaims)."""
    spec = template.get("spec") or {}
    declared = {c.get("name") for c in spec.get("resourceClaims") or []}
    containers = [*(spec.get("containers") or []), *(spec.get("initContainers") or [])]
    return all(c.get("name") in declared for ct in containers for c in (ct.get("resources") or {}).get("claims") or [])


def running_workloads(objects: ClusterObjects) -> list[Dict]:
    """The case's Deployments (from their current ReplicaSet) and StatefulSets whose pods
    all run, as manifests."""
    pods: dict[tuple[str, str, str], list[Dict]] = defaultdict(list)
    for p in objects.of("Pod"):
        ctl = _controller(p)
        if ctl is not None:
            pods[(_meta(p).get("namespace") or "default", *ctl)].append(p)

    def all_running(ns: str, kind: str, name: str, want: int, others: int = 0) -> bool:
        mine = [p for p in pods[(ns, kind, name)] if (p.get("status") or {}).get("phase") not in ("Succeeded", "Failed")]
        ok = all((p.get("spec") or {}).get("nodeName") and (p.get("status") or {}).get("phase") == "Running"
                 and not _meta(p).get("deletionTimestamp") for p in mine)
        return ok and len(mine) == want and others == 0 and want > 0

    out: list[Dict] = []
    by_dep: dict[tuple[str, str], list[Dict]] = defaultdict(list)
    for rs in objects.of("ReplicaSet"):
        ctl = _controller(rs)
        if ctl is not None and ctl[0] == "Deployment":
            by_dep[(_meta(rs).get("namespace") or "default", ctl[1])].append(rs)
    for (ns, dep), rss in sorted(by_dep.items()):
        current = max(rss, key=lambda r: (_revision(r), str(_meta(r).get("creationTimestamp") or "")))
        spec = current.get("spec") or {}
        replicas = int(spec.get("replicas") if spec.get("replicas") is not None else 1)
        others = sum(len([p for p in pods[(ns, "ReplicaSet", str(_meta(r).get("name")))]
                          if (p.get("status") or {}).get("phase") not in ("Succeeded", "Failed")])
                     for r in rss if r is not current)
        if not all_running(ns, "ReplicaSet", str(_meta(current).get("name")), replicas, others):
            continue
        template = copy.deepcopy(spec.get("template") or {})
        if not _admissible(template):
            continue
        ((template.get("metadata") or {}).get("labels") or {}).pop(HASH, None)
        selector = copy.deepcopy(spec.get("selector") or {})
        (selector.get("matchLabels") or {}).pop(HASH, None)
        out.append({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": dep, "namespace": ns},
                    "spec": {"replicas": replicas, "selector": selector, "template": template}})
    for sts in objects.of("StatefulSet"):
        spec = sts.get("spec") or {}
        replicas = int(spec.get("replicas") if spec.get("replicas") is not None else 1)
        ns = _meta(sts).get("namespace") or "default"
        if all_running(ns, "StatefulSet", str(_meta(sts).get("name")), replicas):
            out.append(copy.deepcopy(sts))
    return out


def _cases() -> list[Path]:
    """Every third golden case of each family (the suite's time budget; the families'
    clusters are generated alike, so a third of each still meets every kind of workload:
    the test below holds that)."""
    cases = [case for case in sorted(CASES.iterdir())
             if json.loads((case / "meta.json").read_text())["family"] != "versions"]
    return cases[::3]


# The cases are checked in this many parts, so that the suite's workers share them.
PARTS = 6


@pytest.mark.parametrize("part", range(PARTS))
def test_running_unchanged_workloads_place_nothing(tmp_path: Path, part: int) -> None:
    checked: dict[str, int] = defaultdict(int)
    skipped_cases = 0
    for case in _cases()[part::PARTS]:
        objects = load_cluster_files([str(case / "cluster.yaml.gz")])
        workloads = running_workloads(objects)
        if not workloads:
            skipped_cases += 1
            continue
        manifest = tmp_path / f"{case.name}.json"
        manifest.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": workloads}))
        report = check_paths([str(manifest)], objects)
        for entry in report.entries:
            where = f"{case.name}: {entry.workload}"
            assert entry.verdict == "fits", f"{where}: {entry.message()}"
            assert entry.placed == 0 and entry.running == entry.replicas > 0, f"{where}: {entry.message()}"
            assert entry.explanation is not None and entry.explanation.workload is not None
            assert entry.explanation.workload.rule == "unchanged", where
            checked[str(entry.kind)] += 1
    print(f"checked {dict(checked)} running workloads; {skipped_cases} cases had none")
    assert checked  # every part meets running workloads


def test_the_golden_clusters_run_deployments_and_statefulsets() -> None:
    """What the parts above check includes both kinds of workload."""
    kinds: set[str] = set()
    for case in _cases():
        kinds.update(str(w.get("kind")) for w in running_workloads(load_cluster_files([str(case / "cluster.yaml.gz")])))
        if {"Deployment", "StatefulSet"} <= kinds:
            return
    raise AssertionError(f"only {sorted(kinds)} run in the golden clusters")

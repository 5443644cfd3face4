"""``check`` of workloads that already run (rollouts, scale-ups) in release mode: a cycle
whose copy is the only one its template places in a row runs without the replica engine
(core/explain/front.py ENGINE_FROM), and every answer stays what the engine gives."""

from __future__ import annotations

import copy
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from kschedx.core.explain import front
from kschedx.core.explain.check import check_paths
from kschedx.core.explain.front import load_cluster_files
from kschedx.core.framework.replica_inc import ReplicaEngine

Dict = dict[str, Any]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Path:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    try:
        import generate_cluster
    finally:
        sys.path.pop(0)
    dump = tmp_path_factory.mktemp("rollouts") / "cluster.json"
    generate_cluster.write(generate_cluster.generate(60, pods_per_node=24), dump)
    return dump


def _manifests(objs: list[Dict], out: Path) -> None:
    """Rollouts of the Deployments that run (a new image; 1-4 replicas, some with a surge
    that creates several pods in a row, one Recreate), and scale-ups of others."""
    owned = [rs for rs in objs if ((rs.get("metadata") or {}).get("ownerReferences") or [{}])[0].get("kind")
             == "Deployment"]
    for i, rs in enumerate(owned[:16]):
        tpl = copy.deepcopy(rs["spec"]["template"])
        tpl["metadata"]["labels"] = {k: v for k, v in tpl["metadata"]["labels"].items() if k != "pod-template-hash"}
        spec: Dict = {"replicas": 1 + i % 4, "selector": {"matchLabels": {"app": tpl["metadata"]["labels"]["app"]}},
                      "template": tpl}
        if i < 12:
            tpl["spec"]["containers"][0]["image"] += "-next"
            if i % 3 == 1:
                spec["replicas"] = 6
                spec["strategy"] = {"rollingUpdate": {"maxSurge": 3, "maxUnavailable": 0}}
            elif i == 9:
                spec["strategy"] = {"type": "Recreate"}
        else:
            spec["replicas"] = rs["spec"]["replicas"] + 1 + i % 3  # a scale-up: same template, more pods
        dep = {"apiVersion": "apps/v1", "kind": "Deployment",
               "metadata": {"name": rs["metadata"]["ownerReferences"][0]["name"],
                            "namespace": rs["metadata"]["namespace"]}, "spec": spec}
        (out / f"m{i:02d}.yaml").write_text(yaml.safe_dump(dep, sort_keys=False))


def _check(cluster: Path, folder: Path, monkeypatch: pytest.MonkeyPatch, engine_from: int) -> tuple[Dict, int]:
    engines: list[ReplicaEngine] = []

    class Counted(ReplicaEngine):
        def __init__(self) -> None:
            super().__init__()
            engines.append(self)

    with monkeypatch.context() as m:
        m.setattr(front, "ENGINE_FROM", engine_from)
        m.setattr(front, "ReplicaEngine", Counted)
        report = check_paths([str(folder)], load_cluster_files([str(cluster)]))
    return report.to_json(), len(engines)


def test_rollouts_and_scale_ups_answer_as_with_the_engine_on_every_cycle(
        cluster: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    folder = tmp_path / "manifests"
    folder.mkdir()
    _manifests(json.loads(cluster.read_text())["items"], folder)
    lazy, lazy_engines = _check(cluster, folder, monkeypatch, front.ENGINE_FROM)
    eager, eager_engines = _check(cluster, folder, monkeypatch, 1)
    rules = [r["explanation"]["workload"]["rule"] for r in lazy["results"]]
    assert rules.count("rollout") == 12 and rules.count("scale-up") == 4
    assert lazy["release"]["pods"]["placed"] > 0
    assert any(r["explanation"]["workload"].get("rollout") for r in lazy["results"])
    assert lazy == eager
    # The shortcut was taken: the copies placed alone ran without an engine.
    assert lazy_engines < eager_engines


def test_rollouts_answer_as_without_their_shortcuts(
        cluster: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first step takes over the cycles its rollout began with, and the replica engine
    follows the pods the rollout deletes between its copies: the report is the one of every
    cycle run again, and the engine restarted after each deletion, with fewer cycles run and
    the cycles after a deletion updates of the one before."""
    import json

    folder = tmp_path / "manifests"
    folder.mkdir()
    _manifests(json.loads(cluster.read_text())["items"], folder)
    objs = load_cluster_files([str(cluster)])
    counts = {"cycles": 0, "updates": 0}
    run, update = front.run, ReplicaEngine._update

    def cycle(*args: Any, **kwargs: Any) -> Any:
        counts["cycles"] += 1
        return run(*args, **kwargs)

    def updated(self: ReplicaEngine, *args: Any) -> bool:
        # The nodes changed since the last cycle: the bound copy's and the deleted pods'.
        counts["updates"] += len(args[-1]) > 1
        return update(self, *args)

    def check() -> tuple[Dict, dict[str, int]]:
        counts.update(cycles=0, updates=0)
        with monkeypatch.context() as m:
            m.setattr(front, "run", cycle)
            m.setattr(ReplicaEngine, "_update", updated)
            report = check_paths([str(folder)], objs).to_json()
        return report, dict(counts)

    fast, fast_counts = check()
    remove = front._RolloutCluster._remove

    def remove_and_forget(self: Any, pi: Any) -> None:
        remove(self, pi)
        self.memo = None  # what the engine carried over starts again

    with monkeypatch.context() as m:
        m.setattr(front.FirstCycles, "reusable", lambda self, snapshot, remove: None)
        m.setattr(front._RolloutCluster, "_remove", remove_and_forget)
        slow, slow_counts = check()
    assert fast == slow
    assert fast_counts["cycles"] < slow_counts["cycles"]
    assert fast_counts["updates"] > 0 and slow_counts["updates"] == 0


def test_rollouts_read_their_pods_from_the_index_built_with_the_snapshot(
        cluster: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``check`` of workloads that run indexes the pods by controller while the snapshot is
    built: the plans read no pod again, and the report is the one of the plans indexing
    the pods themselves."""
    import json

    from kschedx.core.explain import check as check_module
    from kschedx.core.explain import rollout

    folder = tmp_path / "manifests"
    folder.mkdir()
    _manifests(json.loads(cluster.read_text())["items"], folder)
    objs = load_cluster_files([str(cluster)])
    filed = [0]
    scan = rollout.file_by_controller

    def counted(index: Any, pod: Dict) -> None:
        filed[0] += 1
        scan(index, pod)

    def check(seeded: bool) -> Dict:
        filed[0] = 0
        rollout._INDEX.clear()
        with monkeypatch.context() as m:
            m.setattr(rollout, "file_by_controller", counted)
            if not seeded:
                m.setattr(check_module, "any_may_run", lambda objects, objs: False)
            return check_paths([str(folder)], objs).to_json()

    seeded = check(True)
    assert filed[0] == 0  # no pod read again by the plans
    lazy = check(False)
    assert filed[0] == len(objs.of("Pod"))
    assert seeded == lazy

"""A rollout's copies with pods deleted between them (kschedx.core.framework.replica_inc
updating the nodes a removal changed, core/explain/front.py _RolloutCluster): every step
must equal an independent full cycle on a fresh snapshot holding the cluster as it is then
(the deleted pods gone, the copies bound so far), run without any memo."""

from __future__ import annotations

import copy
import random
from pathlib import Path
from typing import Any

import pytest
import yaml

from kschedx.core.api.model import PodInfo
from kschedx.core.api.objects import ClusterObjects
from kschedx.core.explain import front
from kschedx.core.explain.front import Options, build_snapshot, load_profiles, prepare_pod, run, select_profile
from kschedx.core.explain.report import summarize_step
from kschedx.core.framework.replica_inc import ReplicaEngine

from .test_replica_incremental import _cluster, _deployment, _issue_shape, _random_template

Dict = dict[str, Any]


def _old_replicas(objs: ClusterObjects, template: Dict, name: str, rng: random.Random, count: int) -> list[Dict]:
    """The workload's pods of its previous template (another image), bound on random nodes:
    what the rollout deletes (they count for spreading and their own terms)."""
    nodes = sorted(n["metadata"]["name"] for n in objs.of("Node") if n["metadata"]["name"].startswith("n"))
    olds = []
    for k in range(count):
        p = copy.deepcopy(template)
        p["metadata"].update(name=f"{name}-old-{k}", uid=f"uid-{name}-old-{k}")
        p["spec"]["nodeName"] = rng.choice(nodes)
        p["spec"]["containers"][0]["image"] = "registry.example.com/app:v0"
        p["status"] = {"phase": "Running"}
        objs.add(p)
        olds.append(p)
    return olds


def _rollout_compare(tmp_path: Path, doc: Dict, objs: ClusterObjects, rng: random.Random, n: int,
                     old: int = 8) -> int:
    """``n`` copies placed through the rollout's cluster, 0-3 pods (old replicas, other
    pods, earlier copies) deleted before each; each step against a full cycle. Returns how
    many steps after a deletion the engine updated rather than judged every node."""
    path = tmp_path / "pod.yaml"
    path.write_text(yaml.safe_dump(doc))
    inc = prepare_pod(str(path), objs)
    name = inc.pod["metadata"]["name"]
    olds = _old_replicas(objs, inc.pod, name, rng, old)
    others = [p for p in objs.of("Pod") if p["spec"].get("nodeName") and p not in olds]
    profiles, options = load_profiles(None, Options())
    profile = select_profile(inc.pod, None, profiles)
    cluster = front._RolloutCluster(build_snapshot(objs, inc), inc, profile, options, "<manifest>")
    updates = [0]
    update = ReplicaEngine._update

    def counted(self: ReplicaEngine, *args: Any) -> bool:
        updates[0] += 1
        return update(self, *args)

    gone: set[str] = set()
    bound: list[Dict] = []
    after_removal = 0
    with pytest.MonkeyPatch.context() as m:
        m.setattr(ReplicaEngine, "_update", counted)
        for i in range(n):
            live = [p for p in [*olds, *others, *bound] if p["metadata"]["uid"] not in gone]
            victims = rng.sample(live, min(len(live), rng.choice([0, 1, 1, 2, 3]))) if i else []
            for p in victims:
                cluster.delete(p)
                gone.add(p["metadata"]["uid"])
            pod_dict = copy.deepcopy(inc.pod)
            pod_dict["metadata"].update(name=f"{name}-{i}", uid=f"kschedx-rollout-{name}-{i}")
            pristine = copy.deepcopy(pod_dict)
            before = updates[0]
            r = cluster.place(pod_dict, n)
            if victims and updates[0] > before:
                after_removal += 1
            summary = summarize_step(r).to_json()
            fast = {**r.to_json(), "summary": summary}
            snap = build_snapshot(objs, inc)
            for uid in gone:
                pi = snap.pods_by_uid.get(uid)
                if pi is not None:
                    snap.remove_pod(pi)
            for b in bound:
                if b["metadata"]["uid"] not in gone:
                    snap.add_pod(PodInfo(copy.deepcopy(b)))
            slow_r = run(snap, front.copy_incoming(inc, pristine, i == 0), profile, options)
            slow = {**slow_r.to_json(), "summary": summarize_step(slow_r).to_json()}
            assert fast == slow, f"copy {i}"
            if r.selected_node is not None:
                bound.append(pod_dict)
    return after_removal


@pytest.mark.parametrize("seed", range(150))
def test_random_rollouts_with_deletions_equal_full_cycles(tmp_path: Path, seed: int) -> None:
    """Random templates (the replica engine's randomized mixes), their old replicas and other
    pods deleted between the copies: every step equals a full cycle."""
    rng = random.Random(1000 + seed)
    name = f"d{seed}"
    spec, cpu = _random_template(rng, name)
    doc = _deployment(name, spec, cpu)
    bare = rng.random() < 0.3  # a bare pod's copies: no default spreading
    objs = _cluster(racks=rng.random() < 0.5, affinity=rng.random() < 0.5)
    _rollout_compare(tmp_path, _pod_of(doc) if bare else doc, objs, rng, 20)


def _pod_of(deployment: Dict) -> Dict:
    tpl = deployment["spec"]["template"]
    meta = {"name": deployment["metadata"]["name"], "namespace": "default", **tpl["metadata"]}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": tpl["spec"]}


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("shape", ["default-spreading", "soft", "node-affinity", "hard", "bare"])
def test_rollout_shapes_update_after_deletions(tmp_path: Path, shape: str, seed: int) -> None:
    """The bench's pod shapes as rollouts: every step equals a full cycle, and the steps
    after a deletion are updates of the previous cycle, not full ones."""
    rng = random.Random(seed)
    objs = _cluster(racks=rng.random() < 0.5, affinity=rng.random() < 0.5)
    assert _rollout_compare(tmp_path, _issue_shape(shape, f"s{seed}"), objs, rng, 16) >= 5


def test_first_cycles_are_those_before_the_first_deletion_after_a_cycle(tmp_path: Path) -> None:
    """What the first step may take over from its rollout: the pods deleted before the
    rollout's first cycle, then its cycles up to the next deletion; only when the first step
    takes out the same pods, and only for the same copies."""
    objs = _cluster()
    path = tmp_path / "pod.yaml"
    path.write_text(yaml.safe_dump(_deployment("first", {}, "300m")))
    inc = prepare_pod(str(path), objs)
    profile = select_profile(inc.pod, None)
    snap = build_snapshot(objs, inc)
    web = {p["metadata"]["name"]: p for p in objs.of("Pod")}
    cluster = front._RolloutCluster(snap, inc, profile, Options(), "<manifest>")

    base = inc.pod["metadata"]["name"]

    def copy_named(i: int) -> Dict:
        pod_dict = copy.deepcopy(inc.pod)
        pod_dict["metadata"].update(name=f"{base}-{i}", uid=f"kschedx-rollout-{base}-{i}")
        return pod_dict

    cluster.delete(web["web-0"])
    placed = [cluster.place(copy_named(i), 3) for i in range(2)]
    cluster.delete(web["web-1"])
    cluster.place(copy_named(2), 3)
    cluster.restore()
    first = cluster.first
    assert first.removed == [PodInfo(web["web-0"]).uid]
    assert [key["metadata"]["name"] for key, _ in first.cycles] == [f"{base}-0", f"{base}-1"]
    assert [r for _, r in first.cycles] == placed
    assert first.reusable(snap, [web["web-0"]]) is first.cycles
    assert first.reusable(snap, []) is None
    assert first.reusable(snap, [web["web-0"], web["web-1"]]) is None
    # The first step's copies take the results over while they are the same copies.
    with front.taken_out(snap, [web["web-0"]]):
        steps = front.run_replicas(snap, inc, profile, 3, Options(), known=first.cycles)
        assert steps[:2] == placed and steps[0] is placed[0] and steps[1] is placed[1]
    other = copy.deepcopy(inc)
    other.pod["spec"]["containers"][0]["image"] = "registry.example.com/app:v2"
    with front.taken_out(snap, [web["web-0"]]):
        steps = front.run_replicas(snap, other, profile, 2, Options(), known=first.cycles)
        assert all(s is not p for s, p in zip(steps, placed, strict=True))

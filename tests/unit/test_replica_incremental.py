"""Replica runs update the previous copy's cycle (kschedx.core.framework.replica_inc): every
step must equal an independent full cycle on a fresh snapshot holding the copies bound
before it, run without any memo."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from kschedx.core.api.model import PodInfo
from kschedx.core.api.objects import ClusterObjects
from kschedx.core.explain.front import (
    Options,
    build_snapshot,
    load_profiles,
    prepare_pod,
    run,
    run_replicas,
    select_profile,
)
from kschedx.core.framework.replica_inc import LazyCycleResult
from kschedx.core.load.manifest import IncomingPod

from .helpers import node, pod

Dict = dict[str, Any]


def _cluster(nominated: bool = False) -> ClusterObjects:
    objs = ClusterObjects()
    zones = ["z0"] * 9 + ["z1"] * 7 + ["z2"] * 5
    for i, z in enumerate(zones):
        labels = {"topology.kubernetes.io/zone": z}
        if i % 3 == 0:
            labels["disk"] = "ssd"
        taints = [{"key": "soft", "value": "x", "effect": "PreferNoSchedule"}] if i % 4 == 1 else None
        if i == 7:
            taints = [{"key": "soft", "value": "x", "effect": "PreferNoSchedule"},
                      {"key": "soft2", "value": "y", "effect": "PreferNoSchedule"}]
        images = [{"names": ["registry.example.com/app:v1"], "sizeBytes": 400_000_000}] if i % 5 == 0 else None
        cpu = "1" if i % 6 == 2 else "4"
        objs.add(node(f"n{i:02d}", cpu=cpu, memory="8Gi", labels=labels, taints=taints, images=images))
    objs.add(node("nozone", cpu="4"))
    objs.add(node("cordoned", cpu="4", labels={"topology.kubernetes.io/zone": "z1"}, unschedulable=True))
    # Pods already running: a web tier in z0/z1, busy pods filling some nodes, and a guard
    # whose required anti-affinity keeps "guarded" pods off its zone.
    for i in range(6):
        objs.add(pod(f"web-{i}", cpu="200m", node_name=f"n{i * 2:02d}", labels={"app": "web"}))
    objs.add(pod("busy-a", cpu="3", node_name="n03"))
    objs.add(pod("busy-b", cpu="2500m", node_name="n10"))
    guard = pod("guard", cpu="100m", node_name="n17", labels={"app": "guard"})
    guard["spec"]["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"tier": "guarded"}}, "topologyKey": "topology.kubernetes.io/zone"}]}}
    objs.add(guard)
    if nominated:
        waiting = pod("waiting", cpu="3", labels={"app": "waiting"})
        waiting["status"]["nominatedNodeName"] = "n05"
        waiting["spec"]["priority"] = 1000
        objs.add(waiting)
    return objs


def _deployment(name: str, spec_extra: Dict, cpu: str = "300m", labels: Dict | None = None,
                image: str = "registry.example.com/app:v1") -> Dict:
    lab = {"app": name, **(labels or {})}
    spec: Dict = {"containers": [{"name": "c", "image": image, "resources": {"requests": {"cpu": cpu, "memory": "128Mi"}}}],
                  **spec_extra}
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": "default"},
            "spec": {"replicas": 1, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": lab}, "spec": spec}}}


def _spread(name: str, key: str, when: str = "DoNotSchedule", **extra: Any) -> Dict:
    return {"maxSkew": 1, "topologyKey": key, "whenUnsatisfiable": when,
            "labelSelector": {"matchLabels": {"app": name}}, **extra}


def _term(name: str, key: str) -> Dict:
    return {"labelSelector": {"matchLabels": {"app": name}}, "topologyKey": key}


ZONE = "topology.kubernetes.io/zone"
HOST = "kubernetes.io/hostname"

# name -> (template spec extras, cpu, extra labels, expect the incremental score path)
PODS: dict[str, tuple[Dict, str, Dict | None, bool]] = {
    # The benchmark's pod: zone spread DoNotSchedule and hostname anti-affinity to itself.
    "bench": ({"topologySpreadConstraints": [_spread("bench", ZONE)],
               "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                   _term("bench", HOST)]}}}, "300m", None, True),
    # Nothing but resources: nodes fill up and leave the feasible set (the system's default
    # soft spreading scores a Deployment's pods: ordinary scoring).
    "plain": ({}, "700m", None, False),
    # Anti-affinity per zone: a whole zone leaves with each copy.
    "zoneanti": ({"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        _term("zoneanti", ZONE)]}}}, "300m", None, False),
    # Affinity to the copies themselves: the first pod's exception ends with the first copy.
    "selfaff": ({"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        _term("selfaff", ZONE)]}}}, "600m", None, False),
    # Affinity to existing pods, per hostname.
    "webaff": ({"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        _term("web", ZONE)]}}}, "500m", None, False),
    # Spread per hostname with minDomains over zones, and the preferred node affinity and
    # PreferNoSchedule taints whose maxima move as nodes fill.
    "hostspread": ({"topologySpreadConstraints": [_spread("hostspread", HOST),
                                                  _spread("hostspread", ZONE, minDomains=4)],
                    "affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                        {"weight": 40, "preference": {"matchExpressions": [
                            {"key": "disk", "operator": "In", "values": ["ssd"]}]}}]}}},
                   "900m", None, True),
    # Kept off the guard's zone by an existing pod's anti-affinity.
    "guarded": ({"topologySpreadConstraints": [_spread("guarded", ZONE, maxSkew=2)]}, "400m",
                {"tier": "guarded"}, True),
    # A PreFilter that narrows the nodes (node affinity on metadata.name): ordinary cycles.
    "pinned": ({"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": [n]}]}
                              for n in ("n01", "n02", "n04", "n05", "n08")]}}}},
               "600m", None, False),
    # Spread over other pods (the copies don't count): each domain's answer stays.
    "webspread": ({"topologySpreadConstraints": [{**_spread("web", ZONE), "maxSkew": 2}]}, "500m", None, True),
    # An inline GCE disk: VolumeRestrictions judges it against the pods of each node and has
    # no incremental hook, so these copies take the ordinary cycle.
    "gcepd": ({"volumes": [{"name": "d", "gcePersistentDisk": {"pdName": "disk-1"}}]}, "500m", None, False),
    # Soft spread and preferred affinity: scores of whole domains move (ordinary scoring).
    "soft": ({"topologySpreadConstraints": [_spread("soft", ZONE, "ScheduleAnyway")],
              "affinity": {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                  {"weight": 60, "podAffinityTerm": _term("soft", HOST)}]},
                  "podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                      {"weight": 20, "podAffinityTerm": _term("web", ZONE)}]}}}, "500m", None, False),
}


def _full_cycles(objs: ClusterObjects, inc: IncomingPod, profile: Any, n: int, options: Options | None) -> list[Dict]:
    """Each copy on a fresh snapshot with the copies before it bound, no memo."""
    base = inc.pod["metadata"]["name"]
    bound: list[Dict] = []
    out: list[Dict] = []
    for i in range(n):
        snap = build_snapshot(objs, inc)
        for b in bound:
            snap.add_pod(PodInfo(copy.deepcopy(b)))
        pod_dict = copy.deepcopy(inc.pod)
        pod_dict["metadata"]["name"] = f"{base}-{i}"
        pod_dict["metadata"]["uid"] = f"kschedx-replica-{base}-{i}"
        step = IncomingPod(pod_dict, inc.source_kind, inc.source_name, inc.rule,
                           warnings=list(inc.warnings) if i == 0 else [])
        r = run(snap, step, profile, options)
        out.append(r.to_json())
        if r.selected_node is None:
            break
        pod_dict["spec"]["nodeName"] = r.selected_node
        bound.append(pod_dict)
    return out


def _compare(tmp_path: Path, doc: Dict, objs: ClusterObjects, n: int, options: Options | None = None,
             config: str | None = None) -> list[Any]:
    path = tmp_path / "pod.yaml"
    path.write_text(yaml.safe_dump(doc))
    inc = prepare_pod(str(path), objs)
    profiles, options = load_profiles(config, options or Options())
    profile = select_profile(inc.pod, None, profiles)
    steps = run_replicas(build_snapshot(objs, inc), inc, profile, n, options)
    deferred = [s for s in steps if "_build_score_plugins" in s.__dict__]
    fast = [s.to_json() for s in steps]
    slow = _full_cycles(objs, inc, profile, n, options)
    assert len(fast) == len(slow)
    for i, (a, b) in enumerate(zip(fast, slow, strict=True)):
        assert a == b, f"copy {i}"
    return deferred


@pytest.mark.parametrize("name", sorted(PODS))
def test_replica_steps_equal_full_cycles(tmp_path: Path, name: str) -> None:
    extra, cpu, labels, incremental = PODS[name]
    objs = _cluster()
    deferred = _compare(tmp_path, _deployment(name, copy.deepcopy(extra), cpu, labels), objs, 40)
    # The incremental path did the work (or, for soft constraints, the ordinary scoring).
    assert bool(deferred) == incremental


@pytest.mark.parametrize("name", sorted(PODS))
def test_bare_pod_copies_equal_full_cycles(tmp_path: Path, name: str) -> None:
    """The same templates as bare pods: no owner, so no default spreading; only explicit
    soft constraints leave the incremental scoring."""
    extra, cpu, labels, _ = PODS[name]
    doc = _deployment(name, copy.deepcopy(extra), cpu, labels)["spec"]["template"]
    bare = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default", **doc["metadata"]},
            "spec": doc["spec"]}
    deferred = _compare(tmp_path, bare, _cluster(), 40)
    assert bool(deferred) == (name not in ("soft", "pinned", "gcepd"))


def test_replica_steps_vary() -> None:
    """The cases above exercise what they claim: spread domains change, the feasible set
    shrinks to nothing, nodes tie."""
    objs = _cluster()
    import tempfile

    tmp = Path(tempfile.mkdtemp())
    path = tmp / "pod.yaml"
    path.write_text(yaml.safe_dump(_deployment("plain", {}, "700m")))
    inc = prepare_pod(str(path), objs)
    profile = select_profile(inc.pod, None)
    steps = run_replicas(build_snapshot(objs, inc), inc, profile, 200, Options())
    assert steps[-1].selected_node is None and len(steps) > 20
    feasible = [len(s.feasible_nodes) for s in steps]
    assert feasible[0] > feasible[-2] > 0
    assert any(len(s.best_nodes) > 1 for s in steps)
    assert isinstance(steps[3], LazyCycleResult)


def test_nominated_pods_take_the_ordinary_cycle(tmp_path: Path) -> None:
    objs = _cluster(nominated=True)
    extra, cpu, labels, _ = PODS["bench"]
    doc = _deployment("bench", copy.deepcopy(extra), cpu, labels)
    doc["spec"]["template"]["spec"]["priority"] = 2000
    assert _compare(tmp_path, doc, objs, 25) == []


def test_all_reasons_take_the_ordinary_cycle(tmp_path: Path) -> None:
    extra, cpu, labels, _ = PODS["zoneanti"]
    assert _compare(tmp_path, _deployment("zoneanti", copy.deepcopy(extra), cpu, labels), _cluster(), 10,
                    Options(all_reasons=True)) == []


CONFIG = """
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
- schedulerName: packer
  plugins:
    score:
      enabled:
      - {name: NodeResourcesFit, weight: 5}
      - {name: TaintToleration, weight: 3}
      - {name: ImageLocality, weight: 2}
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: %s
        resources: [{name: cpu, weight: 3}, {name: memory, weight: 1}]%s
"""


@pytest.mark.parametrize("strategy", ["MostAllocated", "LeastAllocated", "RequestedToCapacityRatio"])
def test_second_profile_with_weights_and_strategies(tmp_path: Path, strategy: str) -> None:
    shape = ("\n        requestedToCapacityRatio:\n          shape: [{utilization: 0, score: 0}, "
             "{utilization: 100, score: 10}]") if strategy == "RequestedToCapacityRatio" else ""
    config = tmp_path / "config.yaml"
    config.write_text(CONFIG % (strategy, shape))
    extra, cpu, labels, _ = PODS["bench"]
    doc = _deployment("bench", {**copy.deepcopy(extra), "schedulerName": "packer"}, cpu, labels)
    assert _compare(tmp_path, doc, _cluster(), 30, config=str(config))


def test_lazy_step_reads_and_assignments() -> None:
    """A step's deferred parts are built once, stay the same objects when read again, and
    can be replaced like any result's."""
    objs = _cluster()
    import tempfile

    path = Path(tempfile.mkdtemp()) / "pod.yaml"
    extra, cpu, labels, _ = PODS["bench"]
    doc = _deployment("bench", copy.deepcopy(extra), cpu, labels)["spec"]["template"]
    path.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "Pod",
                                    "metadata": {"name": "bench", "namespace": "default", **doc["metadata"]},
                                    "spec": doc["spec"]}))
    inc = prepare_pod(str(path), objs)
    steps = run_replicas(build_snapshot(objs, inc), inc, select_profile(inc.pod, None), 5, Options())
    step = steps[2]
    assert isinstance(step, LazyCycleResult) and "_build_totals" in step.__dict__
    assert step.best_total == step.totals[step.selected_node]  # without and with the totals built
    assert step.nodes is step.nodes and step.score_plugins is step.score_plugins
    assert step.feasible_nodes == [n for n in step.totals]
    step.totals = {"x": 1}
    assert step.totals == {"x": 1}

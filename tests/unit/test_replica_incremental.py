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
from kschedx.core.explain.report import summarize_step
from kschedx.core.framework.replica_inc import LazyCycleResult
from kschedx.core.load.manifest import IncomingPod

from .helpers import node, pod

Dict = dict[str, Any]


def _cluster(nominated: bool = False, racks: bool = False, affinity: bool = False) -> ClusterObjects:
    objs = ClusterObjects()
    zones = ["z0"] * 9 + ["z1"] * 7 + ["z2"] * 5
    for i, z in enumerate(zones):
        labels = {"topology.kubernetes.io/zone": z}
        if racks and i % 7 != 3:
            labels["rack"] = f"r{i % 4}"  # a custom key, missing on some nodes
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
    if affinity:
        # Existing pods whose terms match the copies: preferred affinity per zone, preferred
        # anti-affinity per hostname, and required affinity (hardPodAffinityWeight).
        fan = pod("fan", cpu="100m", node_name="n04", labels={"app": "fan"})
        fan["spec"]["affinity"] = {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 30, "podAffinityTerm": {"labelSelector": {"matchLabels": {"tier": "liked"}},
                                               "topologyKey": ZONE}}]},
            "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 70, "podAffinityTerm": {"labelSelector": {"matchLabels": {"tier": "liked"}},
                                                   "topologyKey": HOST}}]}}
        objs.add(fan)
        anchor = pod("anchor", cpu="100m", node_name="n16", labels={"app": "anchor"})
        anchor["spec"]["affinity"] = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"tier": "anchored"}}, "topologyKey": HOST}]}}
        objs.add(anchor)
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
    # soft spreading scores a Deployment's pods, incrementally too).
    "plain": ({}, "700m", None, True),
    # Anti-affinity per zone: a whole zone leaves with each copy.
    "zoneanti": ({"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        _term("zoneanti", ZONE)]}}}, "300m", None, True),
    # Affinity to the copies themselves: the first pod's exception ends with the first copy
    # (from then on the copies' hard affinity scores through InterPodAffinity: ordinary scoring).
    "selfaff": ({"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        _term("selfaff", ZONE)]}}}, "600m", None, True),
    # Affinity to existing pods, per hostname.
    "webaff": ({"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        _term("web", ZONE)]}}}, "500m", None, True),
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
    # Soft spread and preferred affinity: scores of whole domains move.
    "soft": ({"topologySpreadConstraints": [_spread("soft", ZONE, "ScheduleAnyway")],
              "affinity": {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                  {"weight": 60, "podAffinityTerm": _term("soft", HOST)}]},
                  "podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                      {"weight": 20, "podAffinityTerm": _term("web", ZONE)}]}}}, "500m", None, True),
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
        if inc.ordinal_pod is not None:  # a StatefulSet's ordinals
            pod_dict, claims = inc.ordinal_pod(i)
            assert not claims
            pod_dict["metadata"]["uid"] = f"kschedx-replica-{pod_dict['metadata']['name']}"
        else:
            pod_dict = copy.deepcopy(inc.pod)
            pod_dict["metadata"]["name"] = f"{base}-{i}"
            pod_dict["metadata"]["uid"] = f"kschedx-replica-{base}-{i}"
        step = IncomingPod(pod_dict, inc.source_kind, inc.source_name, inc.rule,
                           warnings=list(inc.warnings) if i == 0 else [])
        r = run(snap, step, profile, options)
        out.append({**r.to_json(), "summary": summarize_step(r).to_json()})
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
    # The table's summary first: a step answers it from what it kept, before its totals are built.
    summaries = [summarize_step(s).to_json() for s in steps]
    fast = [{**s.to_json(), "summary": sm} for s, sm in zip(steps, summaries, strict=True)]
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
    # The incremental path did the work.
    assert bool(deferred) == incremental


@pytest.mark.parametrize("name", sorted(PODS))
def test_bare_pod_copies_equal_full_cycles(tmp_path: Path, name: str) -> None:
    """The same templates as bare pods: no owner, so no default spreading."""
    extra, cpu, labels, _ = PODS[name]
    doc = _deployment(name, copy.deepcopy(extra), cpu, labels)["spec"]["template"]
    bare = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default", **doc["metadata"]},
            "spec": doc["spec"]}
    deferred = _compare(tmp_path, bare, _cluster(), 40)
    assert bool(deferred) == (name not in ("pinned", "gcepd"))


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


# --------------------------------------------------------------------------- soft spreading

def _spread_scored(steps: list[Any]) -> int:
    """How many incremental steps scored PodTopologySpread (not skipped)."""
    return sum(1 for s in steps for ps in s.score_plugins if ps.name == "PodTopologySpread" and not ps.skipped)


# name -> (template spec extras, cpu, copies)
SOFT: dict[str, tuple[Dict, str, int]] = {
    # Soft zone spread: the node without a zone is ignored (scored 0), nodes fill and leave.
    "softzone": ({"topologySpreadConstraints": [_spread("softzone", ZONE, "ScheduleAnyway")]}, "700m", 40),
    # Soft spread per hostname, zone and a custom key missing on some nodes, several skews.
    "softmany": ({"topologySpreadConstraints": [
        {**_spread("softmany", HOST, "ScheduleAnyway"), "maxSkew": 2},
        {**_spread("softmany", ZONE, "ScheduleAnyway"), "maxSkew": 3},
        _spread("softmany", "rack", "ScheduleAnyway")]}, "500m", 45),
    # A hard zone constraint with minDomains beside a soft hostname one: only the soft one scores.
    "softmin": ({"topologySpreadConstraints": [
        {**_spread("softmin", ZONE, minDomains=3), "maxSkew": 2},
        {**_spread("softmin", HOST, "ScheduleAnyway"), "maxSkew": 4}]}, "400m", 45),
    # Soft spread over other pods (the copies don't count): the scores stay, nodes tie.
    "softweb": ({"topologySpreadConstraints": [_spread("web", ZONE, "ScheduleAnyway")]}, "300m", 30),
    # Soft spread over the copies with tiny requests: nothing fills, the maximum climbs.
    "softtiny": ({"topologySpreadConstraints": [
        {**_spread("softtiny", HOST, "ScheduleAnyway"), "maxSkew": 1},
        {**_spread("softtiny", ZONE, "ScheduleAnyway"), "maxSkew": 2}]}, "10m", 60),
}


@pytest.mark.parametrize("name", sorted(SOFT))
def test_soft_spread_copies_equal_full_cycles(tmp_path: Path, name: str) -> None:
    extra, cpu, n = SOFT[name]
    doc = _deployment(name, copy.deepcopy(extra), cpu)["spec"]["template"]
    bare = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default", **doc["metadata"]},
            "spec": doc["spec"]}
    deferred = _compare(tmp_path, bare, _cluster(racks=True), n)
    assert _spread_scored(deferred) >= n // 2


def _owned(kind: str, name: str, cpu: str) -> Dict:
    doc = _deployment(name, {}, cpu)
    doc["kind"] = kind
    if kind == "StatefulSet":
        doc["spec"]["serviceName"] = name
    return doc


@pytest.mark.parametrize("kind", ["Deployment", "ReplicaSet", "StatefulSet", "Service"])
@pytest.mark.parametrize("cpu", ["700m", "20m"])
def test_system_default_spreading_copies_equal_full_cycles(tmp_path: Path, kind: str, cpu: str) -> None:
    """Pods without constraints of their own get the system's default soft spreading
    (hostname maxSkew 3, zone maxSkew 5; the node without a zone still spreads per
    hostname) from their controller's selector or a Service's."""
    objs = _cluster(racks=True)
    if kind == "Service":
        objs.add({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "svc", "namespace": "default"},
                  "spec": {"selector": {"app": "dflt"}}})
        doc = _deployment("dflt", {}, cpu)["spec"]["template"]
        doc = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "dflt", "namespace": "default",
                                                               **doc["metadata"]}, "spec": doc["spec"]}
    else:
        doc = _owned(kind, "dflt", cpu)
    n = 45 if cpu == "700m" else 70
    deferred = _compare(tmp_path, doc, objs, n)
    assert _spread_scored(deferred) >= 20


def test_default_spreading_without_a_selector_skips(tmp_path: Path) -> None:
    """A bare pod nothing selects: no default spreading, the scoring stays node-local."""
    doc = _deployment("lone", {}, "700m")["spec"]["template"]
    bare = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "lone", "namespace": "default",
                                                            **doc["metadata"]}, "spec": doc["spec"]}
    deferred = _compare(tmp_path, bare, _cluster(), 30)
    assert deferred and _spread_scored(deferred) == 0


def test_soft_spread_steps_vary(tmp_path: Path) -> None:
    """The soft cases exercise what they claim: the feasible set shrinks, PodTopologySpread's
    maximum moves, nodes tie on the total, and nodes lacking a key are scored 0."""
    objs = _cluster(racks=True)
    extra, cpu, n = SOFT["softzone"]
    doc = _deployment("softzone", copy.deepcopy(extra), cpu)["spec"]["template"]
    path = tmp_path / "pod.yaml"
    path.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "Pod",
                                    "metadata": {"name": "softzone", "namespace": "default", **doc["metadata"]},
                                    "spec": doc["spec"]}))
    inc = prepare_pod(str(path), objs)
    steps = run_replicas(build_snapshot(objs, inc), inc, select_profile(inc.pod, None), n, Options())
    feasible = [len(s.feasible_nodes) for s in steps]
    assert feasible[0] > feasible[-2]
    pts = [next(ps for ps in s.score_plugins if ps.name == "PodTopologySpread") for s in steps]
    maxima = {max(v.raw for v in ps.scores.values()) for ps in pts}
    assert len(maxima) > 3
    assert any(len(s.best_nodes) > 1 for s in steps)
    assert all(ps.scores["nozone"].normalized == 0 for ps in pts if "nozone" in ps.scores)
    assert any("nozone" in ps.scores for ps in pts)


# --------------------------------------------------------------------------- scored pod affinity

def _affinity_scored(steps: list[Any]) -> int:
    """How many incremental steps scored InterPodAffinity (not skipped)."""
    return sum(1 for s in steps for ps in s.score_plugins if ps.name == "InterPodAffinity" and not ps.skipped)


def _pref(weight: int, name: str, key: str) -> Dict:
    return {"weight": weight, "podAffinityTerm": _term(name, key)}


# name -> (template spec extras, cpu, extra labels, copies)
AFFINITY: dict[str, tuple[Dict, str, Dict | None, int]] = {
    # Preferred anti-affinity to the copies per hostname, preferred affinity to web per zone.
    "prefhost": ({"affinity": {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        _pref(60, "prefhost", HOST)]}, "podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            _pref(20, "web", ZONE)]}}}, "500m", None, 45),
    # Preferred anti-affinity to the copies per zone: whole zones move with each copy.
    "prefzone": ({"affinity": {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        _pref(100, "prefzone", ZONE)]}}}, "300m", None, 50),
    # Preferred affinity to the copies per zone with tiny requests: they pile up.
    "prefself": ({"affinity": {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        _pref(40, "prefself", ZONE), _pref(10, "prefself", HOST)]}}}, "50m", None, 60),
    # No terms of its own: existing pods' preferred terms match the copies.
    "liked": ({}, "400m", {"tier": "liked"}, 45),
    # No terms of its own: an existing pod's required affinity matches the copies.
    "anchored": ({}, "400m", {"tier": "anchored"}, 45),
}


@pytest.mark.parametrize("kind", ["Pod", "Deployment"])
@pytest.mark.parametrize("name", sorted(AFFINITY))
def test_scored_affinity_copies_equal_full_cycles(tmp_path: Path, name: str, kind: str) -> None:
    """InterPodAffinity scoring, alone (bare pods) or with the default spreading (a
    Deployment's pods)."""
    extra, cpu, labels, n = AFFINITY[name]
    doc = _deployment(name, copy.deepcopy(extra), cpu, labels)
    if kind == "Pod":
        t = doc["spec"]["template"]
        doc = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default", **t["metadata"]},
               "spec": t["spec"]}
    deferred = _compare(tmp_path, doc, _cluster(affinity=True), n)
    assert _affinity_scored(deferred) >= 20
    if kind == "Deployment":
        assert _spread_scored(deferred) >= 20


def test_hard_affinity_weight_of_the_copies(tmp_path: Path) -> None:
    """Copies with required affinity to each other: from the second copy on, the copies'
    required terms score through hardPodAffinityWeight."""
    extra, cpu, labels, _ = PODS["selfaff"]
    doc = _deployment("selfaff", copy.deepcopy(extra), "200m", labels)["spec"]["template"]
    bare = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "selfaff", "namespace": "default",
                                                            **doc["metadata"]}, "spec": doc["spec"]}
    deferred = _compare(tmp_path, bare, _cluster(), 40)
    assert _affinity_scored(deferred) >= 20


def _random_template(rng: Any, name: str) -> tuple[Dict, str]:
    """A template mixing what the engine updates per copy: soft and hard spreading over
    hostname, zone and a custom key, preferred and required (anti-)affinity to the copies,
    a node selector; requests that fill nodes so the feasible set shrinks and grows."""
    spec: Dict = {}
    spreads = []
    for key in rng.sample([HOST, ZONE, "rack"], rng.randint(0, 2)):
        when = rng.choice(["ScheduleAnyway", "ScheduleAnyway", "DoNotSchedule"])
        spreads.append({**_spread(name, key, when), "maxSkew": rng.randint(1, 3)})
    if spreads:
        spec["topologySpreadConstraints"] = spreads
    affinity: Dict = {}
    for kind in ("podAffinity", "podAntiAffinity"):
        prefs = [_pref(rng.randint(1, 100), name, rng.choice([HOST, ZONE])) for _ in range(rng.randint(0, 2))]
        if prefs:
            affinity.setdefault(kind, {})["preferredDuringSchedulingIgnoredDuringExecution"] = prefs
    if rng.random() < 0.3:
        affinity.setdefault("podAntiAffinity", {})["requiredDuringSchedulingIgnoredDuringExecution"] = [
            _term(name, HOST)]
    if affinity:
        spec["affinity"] = affinity
    if rng.random() < 0.2:
        spec["nodeSelector"] = {"disk": "ssd"}
    return spec, rng.choice(["150m", "400m", "700m", "1100m"])


# 160 random mixes: each of the shapes above meets the others many times over (the suite's
# time budget took the count down from 400).
@pytest.mark.parametrize("seed", range(160))
def test_random_templates_equal_full_cycles(tmp_path: Path, seed: int) -> None:
    """Random mixes of the cases above, as Deployments (default spreading when they have no
    constraints) and bare pods: every step equals a full cycle, whichever path it took."""
    import random

    rng = random.Random(seed)
    name = f"r{seed}"
    spec, cpu = _random_template(rng, name)
    doc = _deployment(name, spec, cpu)
    if rng.random() < 0.4:
        tpl = doc["spec"]["template"]
        doc = {"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": name, "namespace": "default", **tpl["metadata"]}, "spec": tpl["spec"]}
    _compare(tmp_path, doc, _cluster(racks=rng.random() < 0.5, affinity=rng.random() < 0.5), 30)


def _issue_shape(shape: str, name: str) -> Dict:
    """The pod shapes users run most (the bench's rows), on the test cluster."""
    spec: Dict = {}
    if shape in ("soft", "hard", "bare"):
        spec["topologySpreadConstraints"] = [_spread(name, ZONE, "ScheduleAnyway" if shape == "soft" else "DoNotSchedule")]
    if shape == "hard":
        spec["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [_term(name, HOST)]}}
    elif shape in ("soft", "bare"):
        spec["affinity"] = {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            _pref(100, name, HOST)]}}
    elif shape == "node-affinity":
        spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": ZONE, "operator": "In", "values": ["z0", "z2"]}]}]}}}
    doc = _deployment(name, spec, "150m")
    if shape == "bare":
        tpl = doc["spec"]["template"]
        doc = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default", **tpl["metadata"]},
               "spec": tpl["spec"]}
    return doc


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("shape", ["default-spreading", "soft", "node-affinity", "hard", "bare"])
def test_issue_shapes_equal_full_cycles(tmp_path: Path, shape: str, seed: int) -> None:
    """Each shape of the bench: every step (and its table summary: runner-up, ties) equals a
    full cycle on a fresh snapshot; enough copies that nodes fill, tie and take several."""
    import random

    rng = random.Random(seed)
    objs = _cluster(racks=rng.random() < 0.5, affinity=rng.random() < 0.5)
    deferred = _compare(tmp_path, _issue_shape(shape, f"s{seed}"), objs, 45 if shape != "hard" else 25)
    assert deferred  # the incremental path took the steps


def test_runner_up_among_nodes_tied_below_the_best(tmp_path: Path) -> None:
    """One node wins alone (it holds the image) while several tie behind it: each step's
    runner-up is the first of them by name, as a summary over the full cycle's totals."""
    objs = ClusterObjects()
    objs.add(node("img", cpu="4", memory="8Gi",
                  images=[{"names": ["registry.example.com/app:v1"], "sizeBytes": 900_000_000}]))
    for i in range(5):
        objs.add(node(f"n{i}", cpu="4", memory="8Gi"))
    doc = _deployment("solo", {}, "100m")["spec"]["template"]
    bare = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "solo", "namespace": "default", **doc["metadata"]},
            "spec": doc["spec"]}
    deferred = _compare(tmp_path, bare, objs, 4)
    alone = [s for s in deferred if s.best_nodes == ["img"]]
    assert alone
    assert all(summarize_step(s).runner_up == "n0" for s in alone)


def test_default_spreading_scores_each_class_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """PodTopologySpread scores a copy once per scoring class present (a zone and a hostname
    count), not once per node of the zone the binding changed (30 nodes here)."""
    from kschedx.core.plugins import podtopologyspread as pts

    objs = ClusterObjects()
    for i in range(90):
        objs.add(node(f"n{i:02d}", cpu="8", memory="16Gi", labels={ZONE: f"z{i % 3}"}))
    path = tmp_path / "pod.yaml"
    path.write_text(yaml.safe_dump(_issue_shape("default-spreading", "cls")))
    inc = prepare_pod(str(path), objs)
    calls = [0]
    raw_score = pts._raw_score

    def counted(s: Any, parts: Any) -> int:
        calls[0] += 1
        return raw_score(s, parts)

    monkeypatch.setattr(pts, "_raw_score", counted)
    steps = run_replicas(build_snapshot(objs, inc), inc, select_profile(inc.pod, None), 30)
    engine = [s for s in steps if "_build_score_plugins" in s.__dict__]
    assert len(engine) >= 25
    # The first copy's full cycle scores its 90 nodes; each engine step at most the 3 zones
    # times the hostname counts 0 and 1.
    assert calls[0] <= 90 + 6 * len(engine)


REORDERED = """
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    filter:
      disabled: [{name: PodTopologySpread}]
      enabled: [{name: PodTopologySpread}]
"""


def _hard_zone_soft_rack(name: str) -> Dict:
    """A hard zone spread with soft spreads over racks and disks, keys some nodes lack
    (ignored in scoring while feasible, scored by the other key while not): the nodes of a
    zone coming back must be classed again."""
    spreads = [_spread(name, ZONE), _spread(name, "rack", "ScheduleAnyway"), _spread(name, "disk", "ScheduleAnyway")]
    return _deployment(name, {"topologySpreadConstraints": spreads}, "150m")


@pytest.mark.parametrize("reordered", [False, True])
@pytest.mark.parametrize("shape", ["hard", "bare", "hard-zone-soft-rack"])
def test_flipping_spread_domains_change_verdicts_in_bulk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         shape: str, reordered: bool) -> None:
    """A hard zone spread's domains flip between fitting and not as copies land: their nodes
    that fail nothing else change verdict in bulk, and every step still equals a full cycle
    (also with InterPodAffinity filtering before PodTopologySpread)."""
    from kschedx.core.framework.replica_inc import ReplicaEngine

    bulk = [0]
    original = ReplicaEngine._bulk_verdicts

    def counted(self: ReplicaEngine, which: list[int], old: Any, st: Any) -> None:
        bulk[0] += len(which)
        original(self, which, old, st)

    monkeypatch.setattr(ReplicaEngine, "_bulk_verdicts", counted)
    config = None
    if reordered:
        path = tmp_path / "config.yaml"
        path.write_text(REORDERED)
        config = str(path)
    objs = _cluster(racks=True, affinity=True)
    doc = _hard_zone_soft_rack("flip") if shape == "hard-zone-soft-rack" else _issue_shape(shape, "flip")
    assert _compare(tmp_path, doc, objs, 30, config=config)
    assert bulk[0] > 0

"""The pod amounts memo (core/api/model.py ``_pod_amounts``): pods share one computation
only when every part it reads is equal in value and type, so a cached answer is always
the answer computing it afresh gives."""

from __future__ import annotations

import datetime
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from kschedx.core.api import model
from kschedx.core.api.quantity import QuantityError, parse_quantity
from kschedx.core.load.files import load_cluster
from kschedx.core.snapshot import HostPortInfo, NodeInfo, Snapshot

ROOT = Path(__file__).resolve().parents[2]


def _fresh(spec: dict[str, Any], status: dict[str, Any]) -> tuple[dict[str, int], int, int]:
    reqs = model.pod_requests(spec, status)
    non0 = model.pod_requests(spec, status, model.non_zero_defaults(spec, reqs))
    return (model.tracked_resources(reqs), model.amount("cpu", non0.get("cpu", Fraction(0))),
            model.amount("memory", non0.get("memory", Fraction(0))))


def _spec(requests: dict[Any, Any], name: Any = "app") -> dict[str, Any]:
    return {"containers": [{"name": name, "resources": {"requests": requests}}]}


CASES = [
    (_spec({"cpu": "1"}), {}),
    (_spec({"cpu": 1}), {}),
    (_spec({"cpu": 1.0}), {}),
    (_spec({"cpu": "1", "memory": "1Gi"}), {}),
    (_spec({"memory": "1Gi", "cpu": "1"}), {}),
    (_spec({"cpu": "1"}, name=1), {"containerStatuses": [{"name": "1", "resources": {"requests": {"cpu": "3"}}}]}),
    (_spec({"cpu": "1"}), {"containerStatuses": [{"name": "app", "resources": {"requests": {"cpu": "3"}}}]}),
    (_spec({"cpu": "1"}), {"containerStatuses": [{"name": "app", "resources": {"requests": {"cpu": "3"}}}],
                           "conditions": [{"type": "PodResizePending", "reason": "Infeasible"}]}),
    (_spec({"cpu": "1"}), {"containerStatuses": [{"name": "app"}]}),
    (_spec({"cpu": "1"}), {"containerStatuses": [{"name": "app"}],
                           "conditions": [{"type": "PodResizePending", "reason": "Infeasible"}]}),
    (_spec({"cpu": "1"}), {"containerStatuses": [{"name": "app", "resources": {}}],
                           "conditions": [{"type": "PodResizePending", "reason": "Infeasible"}]}),
    (_spec({"cpu": "1"}), {"containerStatuses": [{"name": "app", "resources": {"requests": {"cpu": "3"}}},
                                                 {"name": "app", "resources": None}]}),
    ({"containers": [{"name": "a"}], "initContainers": [{"name": "i", "restartPolicy": "Always"}]},
     {"initContainerStatuses": [{"name": "i", "resources": {"requests": {"cpu": "2"}},
                                 "allocatedResources": {"cpu": "3"}}]}),
    ({"containers": [{"name": "a", "resources": {"requests": {"cpu": "1"}}}], "overhead": {"cpu": "250m"}}, {}),
    ({"containers": [{"name": "a"}], "resources": {"requests": {"cpu": "2"}}}, {}),
    ({"containers": [{"name": "a"}], "initContainers": [{"name": "i", "restartPolicy": "Always",
                                                         "resources": {"requests": {"memory": "1Gi"}}}]}, {}),
    (_spec({}), {}),
    # Status entries of init containers match app containers of the same name too.
    (_spec({"cpu": "1"}), {"initContainerStatuses": [{"name": "app", "resources": {"requests": {"cpu": "2"}}}]}),
    (_spec({"cpu": "1"}), {"containerStatuses": [{"name": "app", "resources": {},
                                                  "allocatedResources": {"cpu": "4"}}]}),
    (_spec({"cpu": "1"}), {"containerStatuses": [{"name": "other", "resources": {"requests": {"cpu": "3"}}}]}),
    ({"containers": [{"name": "a", "resources": {"limits": {"memory": "1Gi"}}},
                     {"name": "b", "resources": {"requests": {"memory": "1Gi", "cpu": "2"}}}, {"name": "c"}]}, {}),
    ({"containers": [{"name": "a", "resources": {"requests": {"example.com/gpu": "1", "cpu": "2"}}}]}, {}),
    ({"containers": [{"name": "a", "resources": {"requests": None, "limits": {}}}]}, {}),
    ({"containers": [{"name": "a", "resources": {"requests": {"cpu": "1"}}}], "overhead": {}, "resources": {}}, {}),
    ({"containers": [{"resources": {"requests": {"cpu": "1"}}}]}, {"containerStatuses": [{"resources": {}}]}),
    # The common pod's shortcut (one container, one status without resources), each part
    # present, empty, null or of another type.
    ({"containers": [{"name": "a", "resources": {"limits": {"cpu": "1"}}}]}, {"containerStatuses": [{"name": "a"}]}),
    ({"containers": [{"name": "a", "resources": {"requests": {"cpu": "1"}, "limits": {"cpu": "2"}}}]},
     {"containerStatuses": [{"name": "a", "resources": None}]}),
    ({"containers": [{"name": "a", "resources": {"requests": {}, "limits": {"memory": "1Gi"}}}]},
     {"containerStatuses": [{"name": "a"}]}),
    ({"containers": [{"name": "a", "resources": {"requests": None, "limits": None}}]}, {"containerStatuses": [{}]}),
    ({"containers": [{"name": "a", "resources": {}}]}, {"containerStatuses": [{"name": "a"}]}),
    ({"containers": [{"name": "a"}]}, {"containerStatuses": [{"name": "a"}]}),
    ({"containers": [{"name": 1, "resources": {"requests": {"cpu": "1"}}}]}, {"containerStatuses": [{"name": 1}]}),
    ({"containers": [{"name": "a", "resources": {"requests": {"cpu": 1}}}]}, {"containerStatuses": [{"name": "a"}]}),
    ({"containers": [{"name": "a", "resources": {"requests": {"cpu": "1"}}}]},
     {"containerStatuses": [{"name": "a"}], "initContainerStatuses": [{"name": "a", "resources": {
         "requests": {"cpu": "5"}}}]}),
]


@pytest.mark.parametrize("order", [1, -1])
def test_every_cached_answer_is_the_fresh_one(order: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(model, "_AMOUNTS_CACHE", {})
    monkeypatch.setattr(model, "_FAST_AMOUNTS_CACHE", {})
    for spec, status in CASES[::order] * 2:
        got, want = model._pod_amounts(spec, status), _fresh(spec, status)
        assert got == want and list(got[0]) == list(want[0])


def _outcome(fn: Any, spec: dict[str, Any], status: dict[str, Any] | None = None) -> Any:
    try:
        return fn(spec, status or {})
    except (QuantityError, TypeError, ValueError) as e:
        return type(e).__name__, str(e)


def test_equal_looking_values_of_other_types_are_not_confused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(model, "_AMOUNTS_CACHE", {})
    monkeypatch.setattr(model, "_FAST_AMOUNTS_CACHE", {})
    # 1 and True, NaN, a value marshal cannot write (a YAML timestamp), null: each its own
    # key, computed (or refused) instead of taking the answer of an earlier pod.
    for value in (1, True, 1.0, "1", float("nan"), datetime.datetime(2026, 1, 1), None, "1", ["1"]) * 2:
        spec = _spec({"cpu": value})
        assert _outcome(model._pod_amounts, spec) == _outcome(_fresh, spec)
        # and as the common pod, with its one container status (the shortcut's shape)
        status = {"containerStatuses": [{"name": "app"}]}
        assert _outcome(model._pod_amounts, spec, status) == _outcome(_fresh, spec, status)


def test_every_pod_of_a_generated_cluster_and_the_example(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "c.json"
    subprocess.run([sys.executable, str(ROOT / "bench" / "generate_cluster.py"), "--nodes", "30", "--out", str(out)],
                   check=True, capture_output=True)
    monkeypatch.setattr(model, "_AMOUNTS_CACHE", {})
    monkeypatch.setattr(model, "_FAST_AMOUNTS_CACHE", {})
    pods = load_cluster([str(out)]).of("Pod") + load_cluster([str(ROOT / "examples" / "cluster.yaml")]).of("Pod")
    for pod in pods:
        spec, status = pod.get("spec") or {}, pod.get("status") or {}
        assert model._pod_amounts(spec, status) == _fresh(spec, status)
    assert len(model._AMOUNTS_CACHE) < len(pods) / 10  # the memo is shared, as intended


def test_a_parsed_number_does_not_answer_for_true() -> None:
    # parse_quantity's own memo: without typed keys, True found the entry of 1.
    from kschedx.core.api.quantity import parse_quantity

    assert parse_quantity(1) == 1
    with pytest.raises(QuantityError):
        parse_quantity(True)


# ------------------------------------------------------------------ the whole snapshot
# Every PodInfo value and NodeInfo aggregate the snapshot builds (memoized keys, shared
# label dicts, the host-port shortcut, the per-node sums taken once) against a plain
# computation from the raw objects, pod by pod.


def _ref_host_ports(spec: dict[str, Any]) -> tuple[tuple[str, str, int], ...]:
    out = []
    sidecars = [c for c in spec.get("initContainers") or [] if c.get("restartPolicy") == "Always"]
    for c in sidecars + (spec.get("containers") or []):
        for p in c.get("ports") or []:
            hp = int(p.get("hostPort") or 0)
            if hp == 0 and spec.get("hostNetwork"):
                hp = int(p.get("containerPort") or 0)
            if hp > 0:
                out.append((p.get("hostIP") or "0.0.0.0", p.get("protocol") or "TCP", hp))
    return tuple(out)


def _ref_pod(raw: dict[str, Any]) -> dict[str, Any]:
    meta, spec, status = raw.get("metadata") or {}, raw.get("spec") or {}, raw.get("status") or {}
    name = meta.get("name") or meta.get("generateName") or ""
    ns = meta.get("namespace") or "default"
    aff = spec.get("affinity") or {}
    requests, cpu, mem = _fresh(spec, status)
    return {
        "name": name, "namespace": ns, "uid": meta.get("uid") or f"{ns}/{name}",
        "labels": {str(k): str(v) for k, v in (meta.get("labels") or {}).items()},
        "annotations": meta.get("annotations") or {}, "node_name": spec.get("nodeName") or "",
        "nominated_node_name": status.get("nominatedNodeName") or "", "phase": status.get("phase") or "",
        "priority": int(spec.get("priority") or 0), "scheduler_name": spec.get("schedulerName") or "default-scheduler",
        "deletion_timestamp": meta.get("deletionTimestamp"), "spec": spec, "status": status, "raw": raw,
        "requests": requests, "non0_cpu": cpu, "non0_mem": mem,
        "spec_requests": model.tracked_resources(model.pod_requests(spec)),
        "host_ports": _ref_host_ports(spec), "affinity": aff,
        "has_pod_affinity": aff.get("podAffinity") is not None or aff.get("podAntiAffinity") is not None,
        "has_required_anti_affinity": bool((aff.get("podAntiAffinity") or {}).get(
            "requiredDuringSchedulingIgnoredDuringExecution")),
        "tolerations": model.parse_tolerations(spec.get("tolerations")),
        "required_node_selector": model.parse_node_selector(
            (aff.get("nodeAffinity") or {}).get("requiredDuringSchedulingIgnoredDuringExecution")),
        "controller_ref": next((dict(r) for r in meta.get("ownerReferences") or [] if r.get("controller")), None),
        "terminal": (status.get("phase") or "") in ("Succeeded", "Failed"), "key": f"{ns}/{name}",
    }


def _clusters(tmp_path: Path) -> list[Any]:
    out = tmp_path / "c.json"
    subprocess.run([sys.executable, str(ROOT / "bench" / "generate_cluster.py"), "--nodes", "40", "--out", str(out)],
                   check=True, capture_output=True)
    return [load_cluster([str(out)]), load_cluster([str(ROOT / "examples" / "cluster.yaml")]),
            load_cluster([str(ROOT / "examples" / "cluster.yaml"), str(ROOT / "examples" / "pending.yaml")])]


def test_every_podinfo_value_equals_a_plain_computation(tmp_path: Path) -> None:
    checked = 0
    for objs in _clusters(tmp_path):
        snap = Snapshot(objs.copy())
        pods = list(snap.all_pods()) + snap.orphan_pods + [p for ps in snap.nominated.values() for p in ps]
        pods += [model.PodInfo(raw) for raw in objs.of("Pod")]  # terminal and unbound ones too
        for pod in pods:
            ref = _ref_pod(pod.raw)
            for name, want in ref.items():
                assert getattr(pod, name) == want, (pod.key, name)
                assert type(getattr(pod, name)) is type(want), (pod.key, name)
            # Read twice: a lazy value is computed once and kept.
            assert pod.host_ports is pod.host_ports and pod.affinity is pod.affinity
            checked += 1
    assert checked > 1000


def test_every_nodeinfo_aggregate_equals_a_plain_computation(tmp_path: Path) -> None:
    for objs in _clusters(tmp_path):
        snap = Snapshot(objs.copy())
        nodes = {(n.get("metadata") or {}).get("name"): n for n in objs.of("Node")}
        assert [ni.name for ni in snap.nodes()] == list(nodes)
        on_node: dict[str, list[dict[str, Any]]] = {name: [] for name in nodes}
        orphans, nominated, by_uid, by_ns = [], {}, {}, {}
        for raw in objs.of("Pod"):
            ref = _ref_pod(raw)
            if ref["terminal"]:
                continue
            if ref["node_name"]:
                if ref["node_name"] not in nodes:
                    orphans.append(ref["key"])
                    continue
                on_node[ref["node_name"]].append(ref)
                by_uid[ref["uid"]] = ref["key"]
                by_ns.setdefault(ref["namespace"], {})[ref["uid"]] = ref["key"]
            elif ref["nominated_node_name"] in nodes:
                nominated.setdefault(ref["nominated_node_name"], []).append(ref["key"])
        generations = set()
        for ni in snap.nodes():
            refs = on_node[ni.name]
            requested: dict[str, int] = {}
            ports = HostPortInfo()
            for ref in refs:
                for k, v in ref["requests"].items():
                    if k != "pods":
                        requested[k] = requested.get(k, 0) + v
                for ip, proto, port in ref["host_ports"]:
                    ports.add(ip, proto, port)
            assert [p.key for p in ni.pods] == [r["key"] for r in refs]
            assert ni.requested == requested and list(ni.requested) == list(requested), ni.name
            assert ni.non0_cpu == sum(r["non0_cpu"] for r in refs)
            assert ni.non0_mem == sum(r["non0_mem"] for r in refs)
            assert ni.used_ports.ports == ports.ports
            assert [p.key for p in ni.pods_with_affinity] == [r["key"] for r in refs if r["has_pod_affinity"]]
            assert [p.key for p in ni.pods_with_required_anti_affinity] == [
                r["key"] for r in refs if r["has_pod_affinity"] and r["has_required_anti_affinity"]]
            raw = nodes[ni.name]
            status = raw.get("status") or {}
            alloc = status.get("allocatable")
            alloc = status.get("capacity") if alloc is None else alloc
            want_alloc = model.tracked_resources({str(k): parse_quantity(v) for k, v in (alloc or {}).items()})
            assert ni.allocatable == want_alloc and ni.node.allowed_pods == want_alloc.get("pods", 0)
            assert ni.node.labels == {str(k): str(v) for k, v in ((raw.get("metadata") or {}).get("labels") or {}).items()}
            assert ni.node.images == [(tuple(str(n) for n in i.get("names") or []), int(i.get("sizeBytes") or 0))
                                      for i in status.get("images") or [] if i.get("names")]
            assert ni.node.taints == model.parse_taints((raw.get("spec") or {}).get("taints"))
            assert ni.node.unschedulable == bool((raw.get("spec") or {}).get("unschedulable"))
            generations.add(ni.generation)
            # The sums equal those of adding the pods one by one on an empty node.
            fresh = NodeInfo(ni.node)
            for p in ni.pods:
                fresh.add_pod(p)
            assert (fresh.requested, list(fresh.requested), fresh.non0_cpu, fresh.non0_mem, fresh.used_ports.ports) == (
                ni.requested, list(ni.requested), ni.non0_cpu, ni.non0_mem, ni.used_ports.ports)
        assert len(generations) == len(snap.nodes())  # a number per node state, never shared
        assert [p.key for p in snap.orphan_pods] == orphans
        assert {k: [p.key for p in v] for k, v in snap.nominated.items()} == nominated
        assert {u: p.key for u, p in snap.pods_by_uid.items()} == by_uid
        assert {ns: {u: p.key for u, p in d.items()} for ns, d in snap.pods_by_namespace.items()} == by_ns


@pytest.mark.parametrize("spec", [
    {"containers": [{"name": "a", "ports": [{"containerPort": 80, "hostPort": 8080}]}]},
    {"containers": [{"name": "a", "ports": [{"containerPort": 80, "hostPort": "8080"}]}]},
    {"containers": [{"name": "a", "ports": [{"containerPort": 80, "hostPort": 0}]}]},
    {"containers": [{"name": "a", "ports": [{"containerPort": 80}]}], "hostNetwork": True},
    {"containers": [{"name": "a", "ports": [{"containerPort": 80, "protocol": "UDP", "hostIP": "10.0.0.1",
                                             "hostPort": 53}]}]},
    {"containers": [{"name": "a"}], "initContainers": [{"name": "s", "restartPolicy": "Always",
                                                        "ports": [{"containerPort": 9, "hostPort": 9}]}]},
    {"containers": [{"name": "a"}], "initContainers": [{"name": "i", "ports": [{"containerPort": 9, "hostPort": 9}]}]},
    {"containers": [{"name": "a", "ports": []}, {"name": "b", "ports": [{"containerPort": 1, "hostPort": 2}]}]},
    {"containers": []}, {},
])
def test_host_ports_of_every_shape(spec: dict[str, Any]) -> None:
    assert model.PodInfo({"spec": spec}).host_ports == _ref_host_ports(spec)


@pytest.mark.parametrize("labels", [None, {}, {"a": "b"}, {"a": 1}, {"a": True}, {"a": "1"}, {1: "a"}, {"a": "True"},
                                    {"a": 1.0}, {"b": "c", "a": "b"}, {"a": "b", "b": "c"}])
def test_labels_shared_only_when_equal_strings(labels: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(model, "_LABELS_CACHE", {})
    for every in [{"a": 1}, {"a": True}, {"a": "1"}, {"b": "c", "a": "b"}, {"a": "b", "b": "c"}, labels] * 2:
        got = model.PodInfo({"metadata": {"labels": every}}).labels
        want = {str(k): str(v) for k, v in (every or {}).items()}
        assert got == want and list(got.items()) == list(want.items())


def _port_pod(name: str, node: str, *ports: int, ip: str = "") -> dict[str, Any]:
    return {"metadata": {"name": name, "namespace": "d", "uid": name},
            "spec": {"nodeName": node, "containers": [{"name": "c", "ports": [
                {"containerPort": p, "hostPort": p, **({"hostIP": ip} if ip else {})} for p in ports]}]}}


def test_used_ports_read_early_or_late_agree() -> None:
    from kschedx.core.api.objects import ClusterObjects

    def objects() -> ClusterObjects:
        objs = ClusterObjects()
        objs.add({"kind": "Node", "metadata": {"name": "n1"}, "status": {"allocatable": {"pods": "10"}}})
        for raw in (_port_pod("a", "n1", 80), _port_pod("b", "n1", 80, 81, ip="10.0.0.1"), _port_pod("c", "n1")):
            objs.add({"kind": "Pod", **raw})
        return objs

    def edits(snap: Snapshot) -> None:
        snap.remove_pod(snap.pods_by_uid["a"])
        snap.add_pod(model.PodInfo(_port_pod("d", "n1", 90, ip="10.0.0.2")))

    early, late = Snapshot(objects()), Snapshot(objects())
    assert early.by_name["n1"].used_ports.check_conflict("", "TCP", 80)
    before = early.by_name["n1"].clone()
    edits(early)
    clone = late.by_name["n1"].clone()
    edits(late)
    want = HostPortInfo()
    for ip, proto, port in (("10.0.0.1", "TCP", 80), ("10.0.0.1", "TCP", 81), ("10.0.0.2", "TCP", 90)):
        want.add(ip, proto, port)
    assert early.by_name["n1"].used_ports.ports == late.by_name["n1"].used_ports.ports == want.ports
    # Clones taken before the edits keep the ports of the pods they had.
    assert before.used_ports.ports == clone.used_ports.ports == {"0.0.0.0": {("TCP", 80): 1},
                                                                 "10.0.0.1": {("TCP", 80): 1, ("TCP", 81): 1}}

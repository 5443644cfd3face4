"""DynamicResources: claims allocated from ResourceSlices per node, as kube-scheduler v1.35."""

from __future__ import annotations

from typing import Any

from kschedx.core.api.objects import ClusterObjects
from kschedx.core.explain.front import explain_object
from kschedx.core.framework.result import CycleResult

from .helpers import node, pod

Dict = dict[str, Any]
DRIVER = "gpu.example.com"


def device_class(name: str = DRIVER, expr: str = f'device.driver == "{DRIVER}"') -> Dict:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": name},
            "spec": {"selectors": [{"cel": {"expression": expr}}]}}


def gpu(name: str, model: str, memory: int = 80) -> Dict:
    return {"name": name, "attributes": {"model": {"string": model}, "memory": {"int": memory}},
            "capacity": {"memory": {"value": f"{memory}Gi"}}}


def slice_for(node_name: str, *devices: Dict) -> Dict:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
            "metadata": {"name": f"{node_name}-{DRIVER}"},
            "spec": {"driver": DRIVER, "nodeName": node_name,
                     "pool": {"name": node_name, "generation": 1, "resourceSliceCount": 1},
                     "devices": list(devices)}}


def claim(name: str, requests: list[Dict], constraints: list[Dict] | None = None,
          allocation: Dict | None = None) -> Dict:
    devices: Dict = {"requests": requests}
    if constraints:
        devices["constraints"] = constraints
    out: Dict = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                 "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}"},
                 "spec": {"devices": devices}}
    if allocation is not None:
        out["status"] = {"allocation": allocation, "reservedFor": [{"resource": "pods", "name": "other", "uid": "o"}]}
    return out


def exactly(name: str, count: int = 1, selector: str | None = None, mode: str = "ExactCount") -> Dict:
    ex: Dict = {"deviceClassName": DRIVER, "allocationMode": mode}
    if mode == "ExactCount":
        ex["count"] = count
    if selector:
        ex["selectors"] = [{"cel": {"expression": selector}}]
    return {"name": name, "exactly": ex}


def claiming_pod(*claim_names: str) -> Dict:
    p = pod("trainer", cpu="100m")
    p["spec"]["resourceClaims"] = [{"name": f"c{i}", "resourceClaimName": n} for i, n in enumerate(claim_names)]
    return p


def run(incoming: Dict, *objs: Dict) -> CycleResult:
    cluster = ClusterObjects()
    for o in objs:
        cluster.add(o)
    return explain_object(incoming, "pod.yaml", cluster).steps[0]


def test_exact_count_allocates_devices_on_the_node_and_names_them() -> None:
    r = run(claiming_pod("two"), node("a"), node("b"), device_class(),
            slice_for("a", gpu("gpu-0", "h100"), gpu("gpu-1", "h100")),
            slice_for("b", gpu("gpu-0", "h100")),
            claim("two", [exactly("gpus", 2)]))
    assert r.nodes["b"].reasons == ["cannot allocate all claims"]
    assert r.nodes["b"].code == "UnschedulableAndUnresolvable"
    assert r.selected_node == "a"
    assert [(d["claim"], d["request"], d["device"]) for d in r.device_allocations] == [
        ("default/two", "gpus", "gpu-0"), ("default/two", "gpus", "gpu-1")]


def test_match_attribute_keeps_devices_of_one_model() -> None:
    constraint = [{"matchAttribute": f"{DRIVER}/model", "requests": ["gpus"]}]
    r = run(claiming_pod("pair"), node("mixed"), node("same"), device_class(),
            slice_for("mixed", gpu("gpu-0", "a100"), gpu("gpu-1", "h100")),
            slice_for("same", gpu("gpu-0", "a100"), gpu("gpu-1", "h100"), gpu("gpu-2", "h100")),
            claim("pair", [exactly("gpus", 2)], constraint))
    assert not r.nodes["mixed"].feasible
    assert r.selected_node == "same"
    assert sorted(d["device"] for d in r.device_allocations) == ["gpu-1", "gpu-2"]


def test_cel_selector_and_allocation_mode_all() -> None:
    big = exactly("big", selector=f'device.attributes["{DRIVER}"].memory >= 80')
    r = run(claiming_pod("big"), node("a"), node("b"), device_class(),
            slice_for("a", gpu("gpu-0", "l4", memory=24)), slice_for("b", gpu("gpu-0", "h100")),
            claim("big", [big]))
    assert not r.nodes["a"].feasible and r.selected_node == "b"
    r = run(claiming_pod("all"), node("a"), device_class(),
            slice_for("a", gpu("gpu-0", "l4"), gpu("gpu-1", "l4"), gpu("gpu-2", "l4")),
            claim("all", [exactly("every", mode="All")]))
    assert [d["device"] for d in r.device_allocations] == ["gpu-0", "gpu-1", "gpu-2"]


def test_devices_allocated_to_other_claims_are_unavailable() -> None:
    taken = {"devices": {"results": [{"request": "x", "driver": DRIVER, "pool": "a", "device": "gpu-0"}]},
             "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
                 {"key": "metadata.name", "operator": "In", "values": ["a"]}]}]}}
    r = run(claiming_pod("mine"), node("a"), device_class(), slice_for("a", gpu("gpu-0", "h100")),
            claim("theirs", [exactly("x")], allocation=taken), claim("mine", [exactly("gpu")]))
    assert r.selected_node is None
    assert r.nodes["a"].reasons == ["cannot allocate all claims"]
    assert r.fit_error is not None
    assert r.fit_error.startswith("0/1 nodes are available: 1 cannot allocate all claims. still not schedulable")


def test_first_available_scores_the_preferred_subrequest() -> None:
    prioritized = {"name": "gpu", "firstAvailable": [
        {"name": "h100", "deviceClassName": DRIVER, "selectors": [
            {"cel": {"expression": f'device.attributes["{DRIVER}"].model == "h100"'}}]},
        {"name": "any", "deviceClassName": DRIVER},
    ]}
    r = run(claiming_pod("pref"), node("a"), node("b"), device_class(),
            slice_for("a", gpu("gpu-0", "l4")), slice_for("b", gpu("gpu-0", "h100")),
            claim("pref", [prioritized]))
    dra = next(p for p in r.score_plugins if p.name == "DynamicResources")
    assert dra.scores["b"].raw > dra.scores["a"].raw
    assert dra.scores["b"].normalized == 100
    assert r.selected_node == "b"
    assert [d["request"] for d in r.device_allocations] == ["gpu/h100"]


def test_missing_device_class_rejects_the_pod_for_every_node() -> None:
    r = run(claiming_pod("c"), node("a"), slice_for("a", gpu("gpu-0", "h100")), claim("c", [exactly("gpu")]))
    assert r.pre_filter.code == "UnschedulableAndUnresolvable"
    assert r.pre_filter.reasons == [f"request gpu: device class {DRIVER} does not exist"]


def test_focus_names_the_devices_or_says_why_not() -> None:
    from kschedx.core.explain.front import Options

    cluster = ClusterObjects()
    for o in (node("a"), node("b"), device_class(), slice_for("a", gpu("gpu-0", "h100")), claim("one", [exactly("gpu")])):
        cluster.add(o)
    ok = explain_object(claiming_pod("one"), "p.yaml", cluster, options=Options(focus="a")).steps[0].focus
    assert ok is not None and ok.devices == [
        f"claim default/one, request gpu: device {DRIVER}/a/gpu-0 (slice a-{DRIVER})"]
    bad = explain_object(claiming_pod("one"), "p.yaml", cluster, options=Options(focus="b")).steps[0].focus
    assert bad is not None and bad.devices == [
        "claim default/one, request gpu: no device on this node matches its class and selectors"]


def _focus_devices(focus: str, *objs: Dict, claim_name: str) -> list[str]:
    from kschedx.core.explain.front import Options

    cluster = ClusterObjects()
    for o in objs:
        cluster.add(o)
    story = explain_object(claiming_pod(claim_name), "p.yaml", cluster, options=Options(focus=focus)).steps[0].focus
    assert story is not None
    return story.devices


def test_focus_says_why_each_request_fails() -> None:
    taken = {"devices": {"results": [{"request": "x", "driver": DRIVER, "pool": "a", "device": "gpu-0"}]}}
    base = (node("a"), device_class(), slice_for("a", gpu("gpu-0", "a100"), gpu("gpu-1", "h100")),
            claim("theirs", [exactly("x")], allocation=taken))
    a100 = exactly("gpu", selector=f'device.attributes["{DRIVER}"].model == "a100"')
    assert _focus_devices("a", *base, claim("mine", [a100]), claim_name="mine") == [
        "claim default/mine, request gpu: 1 matching device(s), all allocated to other claims"]
    assert _focus_devices("a", *base, claim("mine", [exactly("gpus", 2)]), claim_name="mine") == [
        "claim default/mine, request gpus: needs 2, only 1 of 2 matching device(s) free"]
    pair = claim("mine", [exactly("gpus", 2)], [{"matchAttribute": f"{DRIVER}/model", "requests": ["gpus"]}])
    free = (node("a"), device_class(), slice_for("a", gpu("gpu-0", "a100"), gpu("gpu-1", "h100")))
    assert _focus_devices("a", *free, pair, claim_name="mine") == [
        "each request alone could be met here, but not all together (a matchAttribute constraint, "
        "or requests competing for the same devices)"]


def test_replicas_take_devices_one_after_another() -> None:
    template = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
                "metadata": {"name": "one-gpu", "namespace": "default"},
                "spec": {"spec": {"devices": {"requests": [exactly("gpu")]}}}}
    p = pod("worker", cpu="100m")
    p["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimTemplateName": "one-gpu"}]
    cluster = ClusterObjects()
    for o in (node("a"), device_class(), template, slice_for("a", gpu("gpu-0", "l4"), gpu("gpu-1", "l4"))):
        cluster.add(o)
    expl = explain_object(p, "p.yaml", cluster, replicas=3)
    assert [s.selected_node for s in expl.steps] == ["a", "a", None]
    assert [d["device"] for s in expl.steps[:2] for d in s.device_allocations] == ["gpu-0", "gpu-1"]
    assert expl.steps[2].nodes["a"].reasons == ["cannot allocate all claims"]
    # The caller's objects are untouched: a fresh run places the first copy again.
    assert not any((c.get("status") or {}).get("allocation") for c in cluster.of("ResourceClaim"))
    assert explain_object(p, "p.yaml", cluster).steps[0].selected_node == "a"

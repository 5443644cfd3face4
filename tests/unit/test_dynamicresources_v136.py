"""DynamicResources as kube-scheduler v1.36 runs it (issue 30): the incubating allocator's
features, extended resources backed by DRA, binding conditions, and their feature gates.

Each test names the upstream function (k8s.io/dynamic-resource-allocation/structured's
incubating allocator, or the scheduler's dynamicresources / noderesources plugins) whose
behaviour it pins down.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

from kschedx.core.api.objects import ClusterObjects
from kschedx.core.explain.front import Options, explain_object
from kschedx.core.framework.result import CycleResult
from kschedx.core.plugins.dynamicresources_capacity import (
    DeviceCapacity,
    Policy,
    consumed_capacity,
    request_fits,
    violates_policy,
)
from kschedx.core.plugins.dynamicresources_extended import ExtendedResourceResolver, create_requests

from .helpers import node, pod
from .test_dynamicresources import DRIVER, claim, claiming_pod, device_class, exactly

Dict = dict[str, Any]
GI = 1 << 30


def node136(name: str, **kw: Any) -> Dict:
    n = node(name, **kw)
    n["status"]["nodeInfo"] = {"kubeletVersion": "v1.36.3"}
    return n


def run(incoming: Dict, *objs: Dict, gates: str | None = None, config: str | None = None) -> CycleResult:
    cluster = ClusterObjects()
    for o in objs:
        cluster.add(o)
    opts = Options(feature_gates=gates)
    return explain_object(incoming, "pod.yaml", cluster, options=opts, config=config).steps[0]


def a_slice(name: str, node_name: str | None, devices: list[Dict], pool: str | None = None,
            counters: list[Dict] | None = None, count: int = 1, **spec: Any) -> Dict:
    body: Dict = {"driver": DRIVER, "pool": {"name": pool or node_name or name, "generation": 1,
                                             "resourceSliceCount": count}, **spec}
    if node_name:
        body["nodeName"] = node_name
    if counters is not None:
        body["sharedCounters"] = counters
    else:
        body["devices"] = devices
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": name}, "spec": body}


def dev(name: str, kind: str, consumes: int | None = None, **extra: Any) -> Dict:
    d: Dict = {"name": name, "attributes": {"type": {"string": kind}}, **extra}
    if consumes is not None:
        d["consumesCounters"] = [{"counterSet": "gpu-0", "counters": {"memory": {"value": f"{consumes}Gi"}}}]
    return d


def allocated(name: str, device: str, pool: str, reserved: bool = True, **result: Any) -> Dict:
    c = claim(name, [exactly("gpu")], allocation={
        "devices": {"results": [{"request": "gpu", "driver": DRIVER, "pool": pool, "device": device, **result}]},
        "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
            {"key": "metadata.name", "operator": "In", "values": [pool]}]}]}})
    if not reserved:
        c["status"].pop("reservedFor")
    return c


def mig_cluster() -> list[Dict]:
    """One GPU of 80Gi on node a, offered whole or as two 40Gi partitions; one is taken."""
    return [
        node136("a"), device_class(),
        a_slice("a-counters", "a", [], counters=[{"name": "gpu-0", "counters": {"memory": {"value": "80Gi"}}}], count=2),
        a_slice("a-devices", "a", [dev("gpu-0", "gpu", 80), dev("mig-0", "mig", 40), dev("mig-1", "mig", 40)],
                count=2),
        allocated("held", "mig-0", "a"),
    ]


def test_partitions_draw_on_shared_counters_check_available_counters() -> None:
    """``checkAvailableCounters``: a partition fits in what the allocated one left of the
    GPU's counter set; the whole GPU, which needs all of it, does not."""
    whole = run(claiming_pod("want"), *mig_cluster(),
                claim("want", [exactly("gpu", selector='device.attributes["gpu.example.com"].type == "gpu"')]))
    assert whole.kubernetes_version == "v1.36"
    assert whole.nodes["a"].reasons == ["cannot allocate all claims"]
    part = run(claiming_pod("want"), *mig_cluster(),
               claim("want", [exactly("gpu", selector='device.attributes["gpu.example.com"].type == "mig"')]))
    assert part.selected_node == "a"
    assert [d["device"] for d in part.device_allocations] == ["mig-1"]


def test_partitionable_devices_gate_off_ignores_counter_slices_gather_pools() -> None:
    """``GatherPools`` / ``allocateDevice``: with DRAPartitionableDevices off, slices with
    shared counters are skipped and devices consuming counters are never picked."""
    r = run(claiming_pod("want"), *mig_cluster(),
            claim("want", [exactly("gpu", selector='device.attributes["gpu.example.com"].type == "mig"')]),
            gates="DRAPartitionableDevices=false")
    assert r.nodes["a"].reasons == ["cannot allocate all claims"]


def shared_gpu(policy: Dict | None = None) -> Dict:
    cap: Dict = {"value": "40Gi"}
    if policy:
        cap["requestPolicy"] = policy
    return dev("shared-0", "shared", allowMultipleAllocations=True, capacity={"memory": cap})


def share_claim(name: str, memory: str) -> Dict:
    r = exactly("gpu")
    r["exactly"]["capacity"] = {"requests": {"memory": memory}}
    return claim(name, [r])


def test_consumable_capacity_shares_a_device_cmp_request_over_capacity() -> None:
    """``CmpRequestOverCapacity`` with the allocated shares' aggregated capacity: 30Gi of
    40Gi are taken, 8Gi more fit, 16Gi do not; the share carries a shareID and what it consumed."""
    base = [node136("a"), device_class(), a_slice("a", "a", [shared_gpu()]),
            allocated("other", "shared-0", "a", shareID="s-1", consumedCapacity={"memory": "30Gi"})]
    fits = run(claiming_pod("want"), *base, share_claim("want", "8Gi"))
    assert fits.selected_node == "a"
    [d] = fits.device_allocations
    assert d["device"] == "shared-0" and d["consumedCapacity"] == {"memory": "8Gi"} and d["shareID"]
    too_big = run(claiming_pod("want"), *base, share_claim("want", "16Gi"))
    assert too_big.nodes["a"].reasons == ["cannot allocate all claims"]


def test_capacity_requests_are_an_error_without_the_gate() -> None:
    """``Allocate``'s validation: capacity requests with DRAConsumableCapacity off are an error."""
    r = run(claiming_pod("want"), node136("a"), device_class(), a_slice("a", "a", [shared_gpu()]),
            share_claim("want", "8Gi"), gates="DRAConsumableCapacity=false")
    assert r.nodes["a"].code == "Error"
    assert r.nodes["a"].reasons == ['running "DynamicResources" filter plugin: claim default/want, request gpu: '
                                    "has capacity requests, but the DRAConsumableCapacity feature is disabled"]


def test_request_policy_rounds_up_and_bounds_calculate_consumed_capacity() -> None:
    """``calculateConsumedCapacity`` / ``violatesPolicy``: a valid range rounds a request up
    to min + k*step and rejects one above max; valid values round up to the next listed value."""
    rng = DeviceCapacity(Fraction(40 * GI), Policy(default=Fraction(4 * GI), range_min=Fraction(4 * GI),
                                                   range_max=Fraction(16 * GI), range_step=Fraction(4 * GI),
                                                   has_range=True))
    assert consumed_capacity(Fraction(5 * GI), rng) == 8 * GI
    assert consumed_capacity(Fraction(2 * GI), rng) == 4 * GI
    assert consumed_capacity(None, rng) == 4 * GI  # the default
    assert violates_policy(Fraction(20 * GI), rng.policy)
    assert request_fits({}, {"memory": Fraction(20 * GI)}, {"memory": rng}, {}) is False
    assert request_fits({}, {"cores": Fraction(1)}, {"memory": rng}, {}) is None  # unknown capacity
    values = DeviceCapacity(Fraction(100), Policy(valid_values=(Fraction(10), Fraction(50))))
    assert consumed_capacity(Fraction(20), values) == 50


def test_binding_condition_pools_come_last_gather_pools() -> None:
    """``GatherPools``: pools whose devices have binding conditions are tried after the
    others, whatever their names; with the gates off such devices are never picked."""
    fabric = a_slice("aaa", None, [dev("fgpu-0", "gpu", bindingConditions=["Attached"], bindsToNode=True)],
                     pool="aaa-fabric", allNodes=True)
    local = a_slice("zzz", "a", [dev("gpu-0", "gpu")], pool="zzz-local")
    r = run(claiming_pod("want"), node136("a"), device_class(), fabric, local, claim("want", [exactly("gpu")]))
    assert [d["device"] for d in r.device_allocations] == ["gpu-0"]
    only_fabric = run(claiming_pod("want"), node136("a"), device_class(), fabric, claim("want", [exactly("gpu")]))
    [d] = only_fabric.device_allocations
    assert d["device"] == "fgpu-0" and d["bindingConditions"] == ["Attached"]
    off = run(claiming_pod("want"), node136("a"), device_class(), fabric, claim("want", [exactly("gpu")]),
              gates="DRADeviceBindingConditions=false")
    assert off.nodes["a"].reasons == ["cannot allocate all claims"]


def test_failed_binding_frees_the_claim_is_claim_ready_for_binding() -> None:
    """``isClaimReadyForBinding`` in Filter: a true failure condition makes the allocated claim
    unavailable on every node, and PostFilter deallocates it."""
    c = allocated("mine", "fgpu-0", "a", reserved=False, bindingConditions=["Attached"],
                  bindingFailureConditions=["Failed"])
    c["status"]["devices"] = [{"driver": DRIVER, "pool": "a", "device": "fgpu-0",
                               "conditions": [{"type": "Failed", "status": "True", "reason": "X", "message": ""}]}]
    r = run(claiming_pod("mine"), node136("a"), node136("b"), device_class(), c)
    assert r.nodes["a"].reasons == ["resourceclaim not available on the node"]
    assert r.fit_error is not None and "deallocation of ResourceClaim completed" in r.fit_error


def test_claim_on_a_node_that_is_gone_post_filter() -> None:
    """``Filter`` / ``PostFilter``: a claim allocated for a node no longer there is unavailable
    everywhere; unreserved, PostFilter deallocates it, reserved by another pod it cannot."""
    free = allocated("mine", "gpu-0", "gone", reserved=False)
    r = run(claiming_pod("mine"), node136("a"), device_class(), free)
    assert r.nodes["a"].reasons == ["resourceclaim not available on the node"]
    assert r.fit_error == ("0/1 nodes are available: 1 resourceclaim not available on the node. deallocation of "
                           "ResourceClaim completed, preemption: 0/1 nodes are available: 1 Preemption is not "
                           "helpful for scheduling.")
    held = run(claiming_pod("mine"), node136("a"), device_class(), allocated("mine", "gpu-0", "gone"))
    assert held.fit_error is not None and "still not schedulable" in held.fit_error


def test_device_taints_need_tolerations_taint_prevents_allocation() -> None:
    """``taintPreventsAllocation``: on by default in v1.36 (DRADeviceTaints); off, taints are ignored."""
    tainted = a_slice("a", "a", [dev("gpu-0", "gpu", taints=[{"key": "broken", "effect": "NoSchedule"}])])
    want = claim("want", [exactly("gpu")])
    assert run(claiming_pod("want"), node136("a"), device_class(), tainted, want).nodes["a"].reasons == [
        "cannot allocate all claims"]
    tolerating = exactly("gpu")
    tolerating["exactly"]["tolerations"] = [{"key": "broken", "operator": "Exists"}]
    ok = run(claiming_pod("want"), node136("a"), device_class(), tainted, claim("want", [tolerating]))
    assert ok.selected_node == "a"
    off = run(claiming_pod("want"), node136("a"), device_class(), tainted, want, gates="DRADeviceTaints=false")
    assert off.selected_node == "a"


def test_device_taint_rules_taint_selected_devices_with_their_gate() -> None:
    """``ListWithDeviceTaintRules``: with DRADeviceTaintRules on, a rule's taint applies to
    the devices its selector names (off by default in v1.36: the rule is ignored)."""
    rule = {"apiVersion": "resource.k8s.io/v1beta2", "kind": "DeviceTaintRule", "metadata": {"name": "r"},
            "spec": {"deviceSelector": {"driver": DRIVER, "pool": "a", "device": "gpu-0"},
                     "taint": {"key": "maint", "effect": "NoExecute"}}}
    objs = [node136("a"), device_class(), a_slice("a", "a", [dev("gpu-0", "gpu")]), rule,
            claim("want", [exactly("gpu")])]
    assert run(claiming_pod("want"), *objs).selected_node == "a"
    on = run(claiming_pod("want"), *objs, gates="DRADeviceTaintRules=true")
    assert on.nodes["a"].reasons == ["cannot allocate all claims"]


def distinct_claim() -> Dict:
    return claim("want", [exactly("one"), exactly("two")],
                 constraints=[{"requests": ["one", "two"], "distinctAttribute": f"{DRIVER}/type"}])


def test_distinct_attribute_constraint() -> None:
    """``distinctAttributeConstraint``: two requests' devices must differ in the attribute;
    the stable allocator (v1.35's default) knows no such constraint and errors."""
    same = a_slice("a", "a", [dev("gpu-0", "gpu"), dev("gpu-1", "gpu")])
    mixed = a_slice("b", "b", [dev("gpu-0", "gpu"), dev("mig-0", "mig")])
    r = run(claiming_pod("want"), node136("a"), node136("b"), device_class(), same, mixed, distinct_claim())
    assert r.nodes["a"].reasons == ["cannot allocate all claims"]
    assert r.selected_node == "b"
    v135 = run(claiming_pod("want"), node136("a"), device_class(), same, distinct_claim(),
               gates="DRAConsumableCapacity=false,DRADeviceBindingConditions=false")
    assert v135.nodes["a"].code == "Error"
    assert v135.nodes["a"].reasons == ['running "DynamicResources" filter plugin: claim default/want, '
                                       "constraint #0: empty constraint (unsupported constraint type?)"]


def gpu_class() -> Dict:
    c = device_class()
    c["spec"]["extendedResourceName"] = "example.com/gpu"
    return c


def gpu_pod(n: int = 1) -> Dict:
    p = pod("trainer", cpu="100m")
    p["spec"]["containers"][0]["resources"]["requests"]["example.com/gpu"] = str(n)
    p["spec"]["containers"][0]["resources"]["limits"] = {"example.com/gpu": str(n)}
    return p


def test_extended_resources_backed_by_dra_should_delegate_resource_to_dra() -> None:
    """``shouldDelegateResourceToDRA`` / ``filterExtendedResources``: NodeResourcesFit leaves
    example.com/gpu to DynamicResources on nodes without a device plugin for it; a node with
    the plugin (allocatable > 0) is NodeResourcesFit's to judge."""
    objs = [node136("a"), node136("b"), node136("c", extra={"example.com/gpu": "1"}), gpu_class(),
            a_slice("a", "a", [dev("gpu-0", "gpu"), dev("gpu-1", "gpu")])]
    r = run(gpu_pod(2), *objs)
    assert r.nodes["a"].feasible and r.nodes["c"].feasible is False
    assert r.nodes["b"].plugin == "DynamicResources" and r.nodes["b"].reasons == ["cannot allocate all claims"]
    assert r.nodes["c"].plugin == "NodeResourcesFit" and r.nodes["c"].reasons == ["Insufficient example.com/gpu"]
    assert [(d["request"], d["device"]) for d in r.device_allocations] == [
        ("container-0-request-1", "gpu-0"), ("container-0-request-1", "gpu-1")]
    off = run(gpu_pod(2), *objs, gates="DRAExtendedResource=false")
    assert off.nodes["a"].reasons == ["Insufficient example.com/gpu"]


def test_only_extended_resources_post_filter_text() -> None:
    """``PostFilter``: the special claim is a claim, so "still not schedulable" (not "no new
    claims to deallocate") when nothing fits."""
    r = run(gpu_pod(3), node136("a"), gpu_class(), a_slice("a", "a", [dev("gpu-0", "gpu")]))
    assert r.fit_error is not None
    assert "cannot allocate all claims. still not schedulable" in r.fit_error


def test_extended_resource_scoring_counts_class_devices_calculate_dra_resource_totals(tmp_path: Path) -> None:
    """``calculateDRAResourceTotals``: a scored extended resource served by DRA is sized by
    the class's devices on the node and how many are allocated."""
    cfg = tmp_path / "config.yaml"
    cfg.write_text(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"
        "- schedulerName: default-scheduler\n  pluginConfig:\n  - name: NodeResourcesFit\n    args:\n"
        "      scoringStrategy:\n        type: LeastAllocated\n        resources:\n"
        "        - {name: example.com/gpu, weight: 1}\n")
    objs = [node136("a"), node136("b"), gpu_class(),
            a_slice("a", "a", [dev(f"gpu-{i}", "gpu") for i in range(4)]),
            a_slice("b", "b", [dev(f"gpu-{i}", "gpu") for i in range(4)]),
            allocated("held", "gpu-0", "b"), allocated("held2", "gpu-1", "b")]
    r = run(gpu_pod(1), *objs, config=str(cfg))
    fit = next(p for p in r.score_plugins if p.name == "NodeResourcesFit")
    # a: 1 of 4 after the pod -> (4-1)*100/4 = 75; b: 3 of 4 -> 25.
    assert fit.scores["a"].raw == 75 and fit.scores["b"].raw == 25


def test_special_claim_requests_create_requests_and_mappings() -> None:
    """``createRequestsAndMappings``: one request per container and resource, named by
    container index and the resource's position among its requests; an init container
    reuses what the app containers after it request and only asks for the rest."""
    resolver = ExtendedResourceResolver([gpu_class()])
    spec = {"initContainers": [{"name": "i", "resources": {"requests": {"example.com/gpu": "3", "cpu": "1"}}}],
            "containers": [{"name": "c", "resources": {"requests": {"example.com/gpu": "2"}}}]}
    reqs = create_requests(spec, {"example.com/gpu": 3}, resolver)
    assert [(r["name"], r["exactly"]["count"]) for r in reqs] == [
        ("container-0-request-1", 1), ("container-1-request-0", 2)]


def test_first_available_score_with_an_allocated_claim_compute_score() -> None:
    """v1.36's ``computeScore``: an allocated claim next to a prioritized list no longer makes
    Score fail (v1.35 reported "number of allocations ... is smaller than number of claims")."""
    first = {"name": "gpu", "firstAvailable": [
        {"name": "big", "deviceClassName": DRIVER, "selectors": [
            {"cel": {"expression": 'device.attributes["gpu.example.com"].type == "big"'}}]},
        {"name": "any", "deviceClassName": DRIVER}]}
    p = claiming_pod("mine", "want")
    r = run(p, node136("a"), device_class(), a_slice("a", "a", [dev("gpu-0", "gpu"), dev("gpu-1", "gpu")]),
            allocated("mine", "gpu-0", "a"), claim("want", [first]))
    assert r.selected_node == "a"
    dra = next(s for s in r.score_plugins if s.name == "DynamicResources")
    assert dra.scores["a"].raw == 7


def test_replicas_see_the_special_claims_of_earlier_copies() -> None:
    """The claim PreBind creates for a copy's extended resources (named from its
    generateName) holds its devices for the next copy's cycle."""
    cluster = ClusterObjects()
    for o in (node136("a"), gpu_class(), a_slice("a", "a", [dev("gpu-0", "gpu"), dev("gpu-1", "gpu")])):
        cluster.add(o)
    steps = explain_object(gpu_pod(1), "pod.yaml", cluster, replicas=3).steps
    assert [s.selected_node for s in steps] == ["a", "a", None]
    assert [d["device"] for s in steps[:2] for d in s.device_allocations] == ["gpu-0", "gpu-1"]


def test_focus_says_why_each_device_was_not_picked() -> None:
    """``--node``: per device, what rules it out on its own (issue 30, point 2)."""
    devices = [dev("gpu-0", "gpu", taints=[{"key": "broken", "value": "ecc", "effect": "NoSchedule"}]),
               shared_gpu(), dev("fgpu-0", "gpu", bindingConditions=["Attached"])]
    objs = [node136("a"), device_class(), a_slice("a", "a", devices),
            allocated("other", "shared-0", "a", shareID="s-1", consumedCapacity={"memory": "36Gi"}),
            share_claim("want", "8Gi")]
    cluster = ClusterObjects()
    for o in objs:
        cluster.add(o)
    opts = Options(focus="a", feature_gates="DRADeviceBindingConditions=false")
    story = explain_object(claiming_pod("want"), "pod.yaml", cluster, options=opts).steps[0].focus
    assert story is not None
    why = {c["device"].rsplit("/", 1)[1]: c.get("why") for c in story.device_candidates}
    assert why == {
        "gpu-0": "taint broken=ecc:NoSchedule not tolerated by the request",
        "shared-0": "capacity memory exhausted: needs 8Gi, 4Gi left of 40Gi",
        "fgpu-0": "has binding conditions, and DRADeviceBindingConditions is off",
    }
    assert story.devices == ["claim default/want, request gpu: 2 matching device(s), none usable here (gpu-0: "
                             "taint broken=ecc:NoSchedule not tolerated by the request)"]


def test_cel_sees_allow_multiple_allocations_with_consumable_capacity() -> None:
    """cel.Device: ``device.allowMultipleAllocations`` exists in the selector environment once
    DRAConsumableCapacity is on (v1.36), false for devices that don't set it."""
    multi = exactly("gpu", selector="device.allowMultipleAllocations")
    objs = [node136("a"), device_class(), a_slice("a", "a", [dev("gpu-0", "gpu"), shared_gpu()]),
            claim("want", [multi])]
    r = run(claiming_pod("want"), *objs)
    assert [d["device"] for d in r.device_allocations] == ["shared-0"]


def test_binding_conditions_note_the_pre_bind_wait() -> None:
    """``PreBind``: with devices that have binding conditions the pod is bound only once
    they hold; the explanation says so."""
    fabric = a_slice("f", None, [dev("fgpu-0", "gpu", bindingConditions=["Attached"])], pool="fabric", allNodes=True)
    r = run(claiming_pod("want"), node136("a"), device_class(), fabric, claim("want", [exactly("gpu")]))
    assert any("binding waits in PreBind" in n and "fabric/fgpu-0 (Attached)" in n for n in r.notes)

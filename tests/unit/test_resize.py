"""In-place pod resize (GA in v1.35): how a pod already on a node is counted.

Reproduces v1.35.4's component-helpers ``resource.PodRequests`` with ``UseStatusResources``
(vendor/k8s.io/component-helpers/resource/helpers.go: ``AggregateContainerRequests``,
``determineEffectiveRequests``, ``IsPodResizeInfeasible``, ``applyNonMissing``) as the scheduler
calls it from ``PodInfo.CalculateResource`` (pkg/scheduler/framework/types.go), and NodeResourcesFit's
PreFilter ``computePodResourceRequest`` (plugins/noderesources/fit.go), which sizes the incoming
pod from its spec alone.
"""

from __future__ import annotations

from typing import Any

from kschedx.core.api.model import DEFAULT_MEMORY_REQUEST, PodInfo, resize_infeasible

from .helpers import cycle, node, pod, snapshot

Dict = dict[str, Any]
MI = 2**20


def _ctr(name: str, **res: Dict) -> Dict:
    return {"name": name, "image": "x", "resources": res}


def _status(name: str, actuated: Dict | None, allocated: Dict | None = None) -> Dict:
    cs: Dict = {"name": name}
    if actuated is not None:
        cs["resources"] = {"requests": actuated}
    if allocated is not None:
        cs["allocatedResources"] = allocated
    return cs


def _running(
    containers: list[Dict],
    statuses: list[Dict],
    condition: tuple[str, str | None] | None = None,
    init: list[Dict] | None = None,
    init_statuses: list[Dict] | None = None,
) -> PodInfo:
    status: Dict = {"phase": "Running", "containerStatuses": statuses}
    if init_statuses:
        status["initContainerStatuses"] = init_statuses
    if condition:
        cond: Dict = {"type": condition[0], "status": "True"}
        if condition[1]:
            cond["reason"] = condition[1]
        status["conditions"] = [{"type": "Ready", "status": "True"}, cond]
    spec: Dict = {"containers": containers, "nodeName": "n"}
    if init:
        spec["initContainers"] = init
    return PodInfo({"metadata": {"name": "r", "namespace": "default"}, "spec": spec, "status": status})


def test_upsize_in_progress_counts_the_larger_desired_size() -> None:
    # determineEffectiveRequests: max(spec, actuated, allocated) per resource.
    p = _running(
        [_ctr("a", requests={"cpu": "400m", "memory": "1536Mi"})],
        [_status("a", {"cpu": "200m", "memory": "768Mi"}, {"cpu": "200m", "memory": "768Mi"})],
        ("PodResizeInProgress", None),
    )
    assert p.requests == {"cpu": 400, "memory": 1536 * MI}


def test_downsize_in_progress_keeps_the_old_larger_size() -> None:
    p = _running(
        [_ctr("a", requests={"cpu": "500m", "memory": "4096Mi"})],
        [_status("a", {"cpu": "1", "memory": "8Gi"}, {"cpu": "1", "memory": "8Gi"})],
        ("PodResizeInProgress", None),
    )
    assert p.requests == {"cpu": 1000, "memory": 8192 * MI}


def test_allocated_counts_even_when_the_kubelet_has_not_actuated_it() -> None:
    # The kubelet admitted the resize (allocated) before the runtime applied it (actuated).
    p = _running(
        [_ctr("a", requests={"cpu": "1"})],
        [_status("a", {"cpu": "500m"}, {"cpu": "1500m"})],
        ("PodResizeInProgress", None),
    )
    assert p.requests["cpu"] == 1500


def test_deferred_resize_still_counts_the_desired_size() -> None:
    # Only Infeasible drops the spec; Deferred may be granted at any moment.
    p = _running(
        [_ctr("a", requests={"cpu": "300m"})],
        [_status("a", {"cpu": "100m"}, {"cpu": "100m"})],
        ("PodResizePending", "Deferred"),
    )
    assert not resize_infeasible(p.status)
    assert p.requests["cpu"] == 300


def test_infeasible_resize_counts_only_what_the_node_granted() -> None:
    # IsPodResizeInfeasible -> max(actuated, allocated), the spec is ignored.
    p = _running(
        [_ctr("a", requests={"cpu": "8", "memory": "4096Mi"}, limits={"cpu": "16", "memory": "4096Mi"})],
        [_status("a", {"cpu": "4", "memory": "2048Mi"}, {"cpu": "4", "memory": "2048Mi"})],
        ("PodResizePending", "Infeasible"),
    )
    assert resize_infeasible(p.status)
    assert p.requests == {"cpu": 4000, "memory": 2048 * MI}


def test_infeasible_resize_of_a_container_without_status_resources_keeps_its_spec() -> None:
    p = _running(
        [_ctr("a", requests={"cpu": "2"}), _ctr("b", requests={"cpu": "1"})],
        [_status("a", {"cpu": "500m"}), _status("b", None)],
        ("PodResizePending", "Infeasible"),
    )
    assert p.requests["cpu"] == 500 + 1000


def test_no_status_resources_means_spec() -> None:
    # A kubelet that does not report resources: the container keeps its spec.
    p = _running([_ctr("a", requests={"cpu": "300m"})], [_status("a", None, {"cpu": "1"})])
    assert p.requests["cpu"] == 300


def test_empty_status_block_keeps_non_zero_defaults_for_missing_requests() -> None:
    # An empty resources block is non-nil upstream: effective requests are max of empties, and
    # applyNonMissing then fills the scoring defaults (100m, 200Mi) only for what is missing.
    p = _running([_ctr("a")], [{"name": "a", "resources": {"requests": {}}, "allocatedResources": {}}])
    assert p.requests == {}
    assert (p.non0_cpu, p.non0_mem) == (100, DEFAULT_MEMORY_REQUEST)


def test_status_adds_a_resource_the_spec_does_not_request() -> None:
    p = _running([_ctr("a", requests={"cpu": "100m"})], [_status("a", {"cpu": "100m", "memory": "64Mi"})])
    assert p.requests == {"cpu": 100, "memory": 64 * MI}
    assert p.non0_mem == 64 * MI  # present, so no 200Mi default


def test_sidecars_use_status_plain_init_containers_do_not() -> None:
    sidecar = _ctr("side", requests={"cpu": "100m"})
    sidecar["restartPolicy"] = "Always"
    plain = _ctr("setup", requests={"cpu": "50m"})
    p = _running(
        [_ctr("a", requests={"cpu": "200m"})],
        [_status("a", {"cpu": "200m"})],
        init=[plain, sidecar],
        init_statuses=[_status("setup", {"cpu": "5"}), _status("side", {"cpu": "300m"}, {"cpu": "300m"})],
    )
    # app 200m + sidecar max(100m, 300m) = 500m; the finished init container's status is ignored
    assert p.requests["cpu"] == 500


def test_first_pod_resize_pending_condition_decides() -> None:
    st = {"conditions": [{"type": "PodResizePending", "reason": "Deferred"},
                         {"type": "PodResizePending", "reason": "Infeasible"}]}
    assert not resize_infeasible(st)
    assert resize_infeasible({"conditions": [{"type": "PodResizePending", "reason": "Infeasible"}]})
    assert not resize_infeasible({"conditions": [{"type": "PodResizeInProgress"}]})


def test_node_requested_uses_the_effective_size() -> None:
    # Through the real cycle: the resizing pod occupies max(spec, status) on its node, so a pod
    # that would fit beside the old size no longer does; an Infeasible resize frees the difference.
    def resizing(condition: tuple[str, str]) -> Dict:
        p = pod("r", cpu="3", node_name="n1")
        p["status"].update({
            "containerStatuses": [_status("c", {"cpu": "1"}, {"cpu": "1"})],
            "conditions": [{"type": condition[0], "status": "True", "reason": condition[1]}],
        })
        return p

    incoming = pod("p", cpu="2")
    r = cycle(snapshot(node("n1", cpu="4"), resizing(("PodResizePending", "Deferred"))), incoming)
    assert r.nodes["n1"].reasons == ["Insufficient cpu"]
    r = cycle(snapshot(node("n1", cpu="4"), resizing(("PodResizePending", "Infeasible"))), incoming)
    assert r.nodes["n1"].feasible


def test_incoming_pod_filter_ignores_its_status_but_scores_with_it() -> None:
    # fit.go computePodResourceRequest (PreFilter) has no UseStatusResources; the scorers'
    # calculatePodResourceRequest (resource_allocation.go) does.
    incoming = pod("p", cpu="1")
    incoming["status"]["containerStatuses"] = [_status("c", {"cpu": "3"}, {"cpu": "3"})]
    info = PodInfo(incoming)
    assert info.spec_requests["cpu"] == 1000
    assert info.requests["cpu"] == 3000
    r = cycle(snapshot(node("n1", cpu="2")), incoming)
    assert r.nodes["n1"].feasible


def test_deprecated_status_resize_field_alone_does_not_make_it_infeasible() -> None:
    # v1.35 reads only the PodResizePending condition; status.resize is the pre-1.33 field.
    p = _running([_ctr("a", requests={"cpu": "2"})], [_status("a", {"cpu": "1"}, {"cpu": "1"})])
    p.status["resize"] = "Infeasible"
    assert not resize_infeasible(p.status)
    assert p.requests["cpu"] == 2000


def test_pod_level_requests_win_and_pod_level_status_is_ignored_in_v135() -> None:
    # PodRequests: pod-level requests replace the container sum for cpu/memory; their status
    # counterpart needs InPlacePodLevelResourcesVerticalScaling (alpha, off in v1.35).
    raw: Dict = {
        "metadata": {"name": "r"},
        "spec": {"nodeName": "n", "resources": {"requests": {"cpu": "1"}},
                 "containers": [_ctr("a", requests={"cpu": "300m", "memory": "64Mi"})]},
        "status": {"phase": "Running", "resources": {"requests": {"cpu": "2"}}, "allocatedResources": {"cpu": "2"},
                   "containerStatuses": [_status("a", {"cpu": "500m", "memory": "128Mi"})]},
    }
    p = PodInfo(raw)
    assert p.requests["cpu"] == 1000  # pod level, neither 500m nor the pod-level status 2
    assert p.requests["memory"] == 128 * MI  # not set at pod level: the container's effective request

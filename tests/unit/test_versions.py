"""Kubernetes versions: choosing the release, feature gates, and each version difference
(named by the upstream change that made it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kschedx.core.api.model import PodInfo
from kschedx.core.api.objects import ClusterObjects
from kschedx.core.config.profile import default_profile
from kschedx.core.errors import InputError
from kschedx.core.framework.runtime import Framework
from kschedx.core.load.dra_versions import to_v1
from kschedx.core.load.files import load_cluster
from kschedx.core.load.snapshot_file import write_snapshot
from kschedx.core.plugins import REGISTRY
from kschedx.core.versions import (
    SchedulerVersion,
    choose_version,
    parse_feature_gates,
    parse_version,
)

from .helpers import node, pod, snapshot


def _run(version: str, *objs: dict[str, Any], incoming: dict[str, Any], gates: dict[str, bool] | None = None) -> Any:
    v = SchedulerVersion(version, gates or {})
    fw = Framework(default_profile(REGISTRY, version=v), snapshot(*objs), REGISTRY)
    return fw.run_cycle(PodInfo(incoming), all_reasons=True)


def _kubelet(n: dict[str, Any], version: str) -> dict[str, Any]:
    n["status"]["nodeInfo"] = {"kubeletVersion": version}
    return n


# --------------------------------------------------------------------------- choosing


def test_parse_version_accepts_prefix_and_patch_and_names_the_supported_ones() -> None:
    assert parse_version("1.33") == "v1.33"
    assert parse_version("v1.36.3") == "v1.36"
    assert parse_version("1.34.7-gke.100") == "v1.34"
    with pytest.raises(InputError, match=r"v1\.32 is not supported \(supported: v1\.33, v1\.34, v1\.35, v1\.36, v1\.37\)"):
        parse_version("1.32")
    with pytest.raises(InputError, match="not a Kubernetes version"):
        parse_version("latest")


def test_choose_version_order() -> None:
    nodes = [_kubelet(node("a"), "v1.33.3"), _kubelet(node("b"), "v1.34.1"), node("c")]
    assert choose_version("1.36", "v1.35.4", nodes).name == "v1.36"  # the flag wins, without a note
    assert choose_version("1.36", "v1.35.4", nodes).note is None
    server = choose_version(None, "v1.35.4", nodes)
    assert server.name == "v1.35" and "the API server's version (v1.35.4)" in (server.note or "")
    kubelets = choose_version(None, None, nodes)
    assert kubelets.name == "v1.34" and "newest kubelet (v1.34.1)" in (kubelets.note or "")
    nothing = choose_version(None, None, [node("c")])
    assert nothing.name == "v1.36" and "newest supported" in (nothing.note or "")
    with pytest.raises(InputError, match="v1.30.2, which kschedx does not reproduce"):
        choose_version(None, "v1.30.2", nodes)


def test_feature_gates_in_kube_schedulers_words() -> None:
    assert parse_feature_gates("DynamicResourceAllocation=true, DRAPrioritizedList=false", "v1.33") == {
        "DynamicResourceAllocation": True, "DRAPrioritizedList": False}
    with pytest.raises(InputError, match="unrecognized feature gate: NoSuchGate"):
        parse_feature_gates("NoSuchGate=true", "v1.35")
    # DynamicResourceAllocation went GA and locked in v1.35.
    with pytest.raises(InputError, match="cannot set feature gate DynamicResourceAllocation to false, feature is "
                                         "locked to true"):
        parse_feature_gates("DynamicResourceAllocation=false", "v1.35")
    with pytest.raises(InputError, match="missing bool value for DynamicResourceAllocation"):
        parse_feature_gates("DynamicResourceAllocation", "v1.33")
    with pytest.raises(InputError, match='invalid value of DynamicResourceAllocation=yes'):
        parse_feature_gates("DynamicResourceAllocation=yes", "v1.33")


# --------------------------------------------------------------------------- differences


def test_taint_reason_names_the_taint_before_kubernetes_134740() -> None:
    taint = [{"key": "dedicated", "value": "infra", "effect": "NoSchedule"}]
    n = node("a", taints=taint)
    old = _run("v1.33", n, incoming=pod("p", cpu="1"))
    assert old.nodes["a"].reasons == ["node(s) had untolerated taint {dedicated: infra}"]
    assert "1 node(s) had untolerated taint {dedicated: infra}" in (old.fit_error or "")
    new = _run("v1.34", n, incoming=pod("p", cpu="1"))
    assert new.nodes["a"].reasons == ["node(s) had untolerated taint(s)"]


def test_fit_unresolvable_when_beyond_allocatable_from_kubernetes_131345() -> None:
    n = node("a", cpu="2")
    assert _run("v1.33", n, incoming=pod("p", cpu="3")).nodes["a"].code == "Unschedulable"
    assert _run("v1.34", n, incoming=pod("p", cpu="3")).nodes["a"].code == "UnschedulableAndUnresolvable"


def test_balanced_allocation_scores_the_improvement_from_kubernetes_135573() -> None:
    # cpu 1/4 used, memory 4/8: the pod's 1 cpu + 0 memory brings the node into balance.
    n = node("a", cpu="4", memory="8Gi")
    other = pod("o", cpu="1", memory="4Gi", node_name="a")
    incoming = pod("p", cpu="1", memory="1Ki")

    def score(version: str) -> int:
        result = _run(version, n, other, incoming=incoming)
        plugin = next(p for p in result.score_plugins if p.name == "NodeResourcesBalancedAllocation")
        return int(plugin.scores["a"].raw)

    # v1.35: balance with the pod only: fractions 0.5 and ~0.5 -> ~100.
    assert score("v1.35") == 99
    # v1.36: 50 + (50 + 99 - 87) // 2 (without the pod: 0.25 vs 0.5 -> 87).
    assert score("v1.36") == 50 + (50 + 99 - 87) // 2


def test_dynamic_resources_by_version() -> None:
    """DynamicResources: not a default plugin while DynamicResourceAllocation is off (v1.33,
    KEP-4381 beta), no Score before the prioritized-list scoring (kubernetes#134711, v1.35)."""
    p33 = default_profile(REGISTRY, version=SchedulerVersion("v1.33"))
    assert "DynamicResources" not in p33.points["filter"]
    p33_on = default_profile(REGISTRY, version=SchedulerVersion("v1.33", {"DynamicResourceAllocation": True}))
    assert "DynamicResources" in p33_on.points["filter"]
    assert "DynamicResources" not in p33_on.points["score"]
    p34 = default_profile(REGISTRY, version=SchedulerVersion("v1.34"))
    assert "DynamicResources" in p34.points["filter"] and "DynamicResources" not in p34.points["score"]
    p35 = default_profile(REGISTRY, version=SchedulerVersion("v1.35"))
    assert p35.weights["DynamicResources"] == 2
    # Without the plugin there is no DRA PostFilter message in the FitError.
    result = _run("v1.33", node("a", cpu="1"), incoming=pod("p", cpu="2"))
    assert "no new claims to deallocate" not in (result.fit_error or "")
    result = _run("v1.35", node("a", cpu="1"), incoming=pod("p", cpu="2"))
    assert "no new claims to deallocate" in (result.fit_error or "")


def _dra_objects(slice_count: int) -> list[dict[str, Any]]:
    cls = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
           "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]}}
    slc = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "a-gpu"},
           "spec": {"driver": "gpu.example.com", "nodeName": "a",
                    "pool": {"name": "a", "generation": 1, "resourceSliceCount": slice_count},
                    "devices": [{"name": "gpu-0"}]}}
    claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
             "metadata": {"name": "c", "namespace": "default", "uid": "c-uid"},
             "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]}}}
    return [cls, slc, claim]


def test_incomplete_pools_are_skipped_by_the_v1_35_allocator() -> None:
    incoming = pod("p", cpu="1", resourceClaims=[{"name": "gpu", "resourceClaimName": "c"}])
    objs = [node("a"), *_dra_objects(slice_count=2)]  # one of two slices published
    assert _run("v1.35", *objs, incoming=incoming).nodes["a"].reasons == ["cannot allocate all claims"]
    assert _run("v1.34", *objs, incoming=incoming).nodes["a"].feasible


def test_v1beta1_objects_of_a_v1_33_cluster_read_as_v1() -> None:
    claim = {"apiVersion": "resource.k8s.io/v1beta1", "kind": "ResourceClaim", "metadata": {"name": "c"},
             "spec": {"devices": {"requests": [{"name": "gpu", "deviceClassName": "gpu", "count": 2,
                                                "allocationMode": "ExactCount"}]}}}
    slc = {"apiVersion": "resource.k8s.io/v1beta1", "kind": "ResourceSlice", "metadata": {"name": "s"},
           "spec": {"devices": [{"name": "gpu-0", "basic": {"attributes": {"model": {"string": "a100"}}}}]}}
    assert to_v1(claim)["spec"]["devices"]["requests"] == [
        {"name": "gpu", "exactly": {"deviceClassName": "gpu", "count": 2, "allocationMode": "ExactCount"}}]
    assert to_v1(slc)["spec"]["devices"] == [{"name": "gpu-0", "attributes": {"model": {"string": "a100"}}}]
    assert to_v1(claim)["apiVersion"] == "resource.k8s.io/v1"
    assert claim["apiVersion"] == "resource.k8s.io/v1beta1"  # the input is left alone


def test_snapshot_records_the_server_version(tmp_path: Path) -> None:
    objects = ClusterObjects()
    objects.add(_kubelet(node("a"), "v1.33.1"))
    objects.server_version = "v1.34.2"
    out = tmp_path / "snap.json"
    write_snapshot(objects, str(out))
    loaded = load_cluster([str(out)])
    assert loaded.server_version == "v1.34.2"
    assert choose_version(None, loaded.server_version, loaded.of("Node")).name == "v1.34"
    doc = json.loads(out.read_text())
    assert doc["metadata"]["annotations"] == {"kschedx.io/server-version": "v1.34.2"}


# --------------------------------------------------------------------------- configuration


def _config(raw_profile: dict[str, Any], version: str, gates: dict[str, bool] | None = None) -> Any:
    from kschedx.core.config.profile import configuration_from_dict

    raw = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
           "profiles": [{"schedulerName": "default-scheduler", **raw_profile}]}
    return configuration_from_dict(raw, REGISTRY, version=SchedulerVersion(version, gates or {}))


def test_dynamic_resources_args_per_version() -> None:
    """DynamicResourcesArgs from v1.34 (kubernetes#132033), bindingTimeout from v1.35
    (kubernetes#134905), defaulted and allowed only with its gates (on by default in v1.36)."""
    from kschedx.core.config.profile import ConfigError

    args = {"pluginConfig": [{"name": "DynamicResources", "args": {"filterTimeout": "5s"}}]}
    # v1.33 has no typed args for DynamicResources: nothing decoded or defaulted.
    assert "DynamicResources" not in _config(args, "v1.33", {"DynamicResourceAllocation": True}).profiles[
        "default-scheduler"].plugin_args
    assert _config({}, "v1.34").profiles["default-scheduler"].plugin_args["DynamicResources"] == {"filterTimeout": "10s"}
    assert _config({}, "v1.36").profiles["default-scheduler"].plugin_args["DynamicResources"] == {
        "filterTimeout": "10s", "bindingTimeout": "10m0s"}
    binding = {"pluginConfig": [{"name": "DynamicResources", "args": {"bindingTimeout": "60s"}}]}
    with pytest.raises(ConfigError, match='unknown field "bindingTimeout"'):
        _config(binding, "v1.34")
    with pytest.raises(ConfigError, match="bindingTimeout: Forbidden: DRADeviceBindingConditions or "
                                          "DRAResourceClaimDeviceStatus feature gate is disabled"):
        _config(binding, "v1.35")
    ok = _config(binding, "v1.35", {"DRADeviceBindingConditions": True})
    assert ok.profiles["default-scheduler"].plugin_args["DynamicResources"]["bindingTimeout"] == "60s"


def test_placement_plugin_sets_from_v1_36() -> None:
    from kschedx.core.config.profile import ConfigError

    placement = {"plugins": {"placementScore": {"enabled": []}}}
    _config(placement, "v1.36")
    with pytest.raises(ConfigError, match='unknown field "profiles\\[0\\].plugins.placementScore"'):
        _config(placement, "v1.35")


def test_device_taints_from_v1_36() -> None:
    """DRADeviceTaints (KEP-5055), on by default from v1.36: a NoSchedule-tainted device goes
    only to a request that tolerates the taint; v1.35 (gate off) doesn't look at taints."""
    objs = _dra_objects(slice_count=1)
    objs[1]["spec"]["devices"][0]["taints"] = [{"key": "maintenance", "value": "true", "effect": "NoSchedule"}]
    incoming = pod("p", cpu="1", resourceClaims=[{"name": "gpu", "resourceClaimName": "c"}])
    assert _run("v1.35", node("a"), *objs, incoming=incoming).nodes["a"].feasible
    assert not _run("v1.36", node("a"), *objs, incoming=incoming).nodes["a"].feasible
    assert _run("v1.35", node("a"), *objs, incoming=incoming, gates={"DRADeviceTaints": True}).nodes["a"].reasons == [
        "cannot allocate all claims"]
    objs[2]["spec"]["devices"]["requests"][0]["exactly"]["tolerations"] = [
        {"key": "maintenance", "operator": "Exists", "effect": "NoSchedule"}]
    assert _run("v1.36", node("a"), *objs, incoming=incoming).nodes["a"].feasible


def test_node_declared_features_from_v1_36() -> None:
    """NodeDeclaredFeatures (KEP-5328): a default plugin from v1.36 (its gate on); a pod with a
    RestartAllContainers restart rule goes only to nodes declaring the feature."""
    p35 = default_profile(REGISTRY, version=SchedulerVersion("v1.35"))
    p36 = default_profile(REGISTRY, version=SchedulerVersion("v1.36"))
    assert "NodeDeclaredFeatures" not in p35.points["filter"] and "NodeDeclaredFeatures" in p36.filter
    incoming = pod("p", cpu="1")
    incoming["spec"]["containers"][0]["restartPolicyRules"] = [
        {"action": "RestartAllContainers", "exitCodes": {"operator": "In", "values": [42]}}]
    old, new = node("old"), node("new")
    new["status"]["declaredFeatures"] = ["RestartAllContainersOnContainerExits"]
    r36 = _run("v1.36", old, new, incoming=incoming)
    assert r36.nodes["old"].reasons == ["node(s) didn't match Pod's required features"]
    assert r36.nodes["old"].code == "UnschedulableAndUnresolvable" and r36.nodes["new"].feasible
    assert _run("v1.35", old, new, incoming=incoming).nodes["old"].feasible
    r35 = _run("v1.35", old, new, incoming=incoming, gates={"NodeDeclaredFeatures": True})
    assert r35.nodes["old"].reasons == [
        "node declared features check failed - unsatisfied requirements: RestartAllContainersOnContainerExits"]
    # A pod needing nothing is not filtered (PreFilter skips the plugin).
    assert _run("v1.36", old, incoming=pod("q", cpu="1")).nodes["old"].feasible


def test_image_volumes_count_for_image_locality_from_v1_36() -> None:
    """kubernetes#130231 (v1.36): ImageLocality counts the images of image volumes too."""
    big = [{"names": ["registry.example/model:v1"], "sizeBytes": 500 * 1024 * 1024}]
    incoming = pod("p", cpu="1", volumes=[{"name": "m", "image": {"reference": "registry.example/model:v1"}}])

    def score(version: str) -> int:
        result = _run(version, node("a", images=big), node("b"), incoming=incoming)
        plugin = next(p for p in result.score_plugins if p.name == "ImageLocality")
        return int(plugin.scores["a"].raw)

    assert score("v1.35") == 0
    assert score("v1.36") > 0
    # kubernetes#138951 (1.37): the image volume raises the score's threshold too, so the same
    # image is worth less than on v1.36 (one container and one image volume: twice the bar).
    assert 0 < score("v1.37") < score("v1.36")


def test_rwop_conflict_wording_before_kubernetes_129145() -> None:
    from .test_volume_builders import claim_volume, pv, pvc, storage_class

    objs = [node("a"), storage_class(), pv("v", claim=("default", "solo"), access_modes=["ReadWriteOncePod"]),
            pvc("solo", volume_name="v", access_modes=["ReadWriteOncePod"]),
            pod("user", node_name="a", volumes=[claim_volume("solo")])]
    incoming = pod("p", volumes=[claim_volume("solo")])
    assert _run("v1.33", *objs, incoming=incoming).nodes["a"].reasons == [
        "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode"]
    assert _run("v1.34", *objs, incoming=incoming).nodes["a"].reasons == [
        "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already in-use by "
        "another pod"]


def test_all_alpha_and_all_beta() -> None:
    gates = parse_feature_gates("AllAlpha=true,DRADeviceTaints=false", "v1.35")
    assert gates["NodeDeclaredFeatures"] is True  # alpha in v1.35
    assert gates["DRADeviceTaints"] is False  # set explicitly: the toggle doesn't override it
    assert "DRAPrioritizedList" not in gates  # beta in v1.35
    assert parse_feature_gates("AllBeta=false", "v1.36")["DRADeviceTaints"] is False  # beta in v1.36
    assert not SchedulerVersion("v1.36", parse_feature_gates("AllBeta=false", "v1.36")).enabled("DRADeviceTaints")


def test_dra_features_off_in_v1_33_are_errors() -> None:
    """DRAPrioritizedList and DRAAdminAccess are off in v1.33 (KEP-4816 and KEP-5018 beta in
    v1.34): a claim using them fails allocation with the allocator's words."""
    objs = _dra_objects(slice_count=1)
    objs[2]["spec"]["devices"]["requests"] = [
        {"name": "gpu", "firstAvailable": [{"name": "one", "deviceClassName": "gpu"}]}]
    incoming = pod("p", cpu="1", resourceClaims=[{"name": "gpu", "resourceClaimName": "c"}])
    on = {"DynamicResourceAllocation": True}
    r33 = _run("v1.33", node("a"), *objs, incoming=incoming, gates=on)
    assert "has subrequests, but the DRAPrioritizedList feature is disabled" in json.dumps(r33.to_json())
    assert _run("v1.34", node("a"), *objs, incoming=incoming).nodes["a"].feasible
    objs[2]["spec"]["devices"]["requests"] = [{"name": "gpu", "exactly": {"deviceClassName": "gpu",
                                                                          "adminAccess": True}}]
    r33 = _run("v1.33", node("a"), *objs, incoming=incoming, gates=on)
    assert "admin access is requested, but the feature is disabled" in json.dumps(r33.to_json())


def test_invalid_pools_fail_v1_34_allocation() -> None:
    """A pool with a duplicate device name: v1.35 skips it (and says so when nothing else
    fits); v1.34's search fails the whole allocation once it reaches the pool."""
    objs = _dra_objects(slice_count=1)
    objs[1]["spec"]["devices"] = [{"name": "gpu-0"}, {"name": "gpu-0"}]
    incoming = pod("p", cpu="1", resourceClaims=[{"name": "gpu", "resourceClaimName": "c"}])
    r35 = _run("v1.35", node("a"), *objs, incoming=incoming)
    assert r35.nodes["a"].reasons == ["invalid resource pools were encountered"]
    r34 = _run("v1.34", node("a"), *objs, incoming=incoming)
    assert "pool a is invalid: duplicate device name gpu-0" in json.dumps(r34.to_json())


def test_device_taint_rules_need_device_taints_from_v1_36() -> None:
    """kube-scheduler refuses DRADeviceTaintRules on with DRADeviceTaints off (issue 46)."""
    with pytest.raises(InputError, match=r"DRADeviceTaintRules is enabled, but depends on features that are "
                                         r"disabled: \[DRADeviceTaints\] \(kube-scheduler v1.36\)"):
        parse_feature_gates("DRADeviceTaintRules=true,DRADeviceTaints=false", "v1.36")
    assert parse_feature_gates("DRADeviceTaintRules=true", "v1.36") == {"DRADeviceTaintRules": True}
    assert parse_feature_gates("DRADeviceTaints=false", "v1.36") == {"DRADeviceTaints": False}

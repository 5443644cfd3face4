"""The admission plugins one by one, and the chain's order and run state (core/admission)."""

from __future__ import annotations

from typing import Any

import pytest

from kschedx.core.admission import PLUGINS, Admission, Forbidden, Refused
from kschedx.core.admission.quantities import Quantity
from kschedx.core.admission.runtimeclass import merge_tolerations
from kschedx.core.api.objects import ClusterObjects
from kschedx.core.errors import InputError
from kschedx.core.load.admission import apply_defaults
from kschedx.core.versions import SchedulerVersion

from .helpers import cluster_objects as objects

Dict = dict[str, Any]




def pod(name: str = "p", ns: str = "default", **resources: Dict) -> Dict:
    c: Dict = {"name": "app", "image": "nginx"}
    if resources:
        c["resources"] = resources
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns},
            "spec": {"containers": [c]}}


def limit_range(*items: Dict, ns: str = "default", name: str = "limits") -> Dict:
    return {"kind": "LimitRange", "metadata": {"name": name, "namespace": ns}, "spec": {"limits": list(items)}}


def quota(hard: Dict, used: Dict | None = None, *, name: str = "q", ns: str = "default", **spec: Any) -> Dict:
    q: Dict = {"kind": "ResourceQuota", "metadata": {"name": name, "namespace": ns}, "spec": {"hard": hard, **spec}}
    if used is not None:
        q["status"] = {"hard": hard, "used": used}
    return q


def test_order_is_upstreams() -> None:
    assert [p.name for p in PLUGINS] == ["LimitRanger", "Priority", "DefaultTolerationSeconds",
                                         "DefaultStorageClass", "RuntimeClass", "ResourceQuota"]


def test_quantity_prints_in_its_canonical_form() -> None:
    assert [str(Quantity.parse(t)) for t in ("500m", "1.5", "2000", "1Gi", "1536Mi", "1000", "0.1", "1e3")] == \
        ["500m", "1500m", "2k", "1Gi", "1536Mi", "1k", "100m", "1e3"]
    assert str(Quantity.parse("1Gi") + Quantity.parse("512Mi")) == "1536Mi"


def test_priority_and_default_tolerations() -> None:
    objs = objects(
        {"kind": "PriorityClass", "metadata": {"name": "low"}, "value": 10, "globalDefault": True},
        {"kind": "PriorityClass", "metadata": {"name": "lower"}, "value": 5, "globalDefault": True},
        {"kind": "PriorityClass", "metadata": {"name": "high"}, "value": 1000, "preemptionPolicy": "Never"},
    )
    p = {"metadata": {"name": "p"}, "spec": {"containers": []}}
    apply_defaults(p)
    Admission(objs).admit_pod(p)
    assert p["spec"]["priority"] == 5  # the lowest of several global defaults
    assert p["metadata"]["namespace"] == "default"
    assert {t["key"] for t in p["spec"]["tolerations"]} == {"node.kubernetes.io/not-ready",
                                                            "node.kubernetes.io/unreachable"}
    p2 = {"metadata": {"name": "p"}, "spec": {"priorityClassName": "high", "tolerations": [{"operator": "Exists"}]}}
    Admission(objs).admit_pod(p2)
    assert p2["spec"]["priority"] == 1000
    assert p2["spec"]["preemptionPolicy"] == "Never"
    assert len(p2["spec"]["tolerations"]) == 1  # a wildcard toleration already covers both
    p3 = {"metadata": {"name": "p"}, "spec": {"priorityClassName": "system-node-critical"}}
    Admission(ClusterObjects()).admit_pod(p3)
    assert p3["spec"]["priority"] == 2000001000
    with pytest.raises(InputError, match="^no PriorityClass with name nope was found"):
        Admission(ClusterObjects()).admit_pod({"metadata": {"name": "x"}, "spec": {"priorityClassName": "nope"}})


def _class(name: str, created: str | None, default: bool = True) -> Dict:
    meta: Dict = {"name": name, "annotations": {"storageclass.kubernetes.io/is-default-class": str(default).lower()}}
    if created:
        meta["creationTimestamp"] = created
    return {"kind": "StorageClass", "metadata": meta, "provisioner": "x"}


def claim(name: str = "data", ns: str = "default", storage: str = "1Gi", **spec: Any) -> Dict:
    return {"kind": "PersistentVolumeClaim", "metadata": {"name": name, "namespace": ns},
            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": storage}}, **spec}}


def test_default_storage_class() -> None:
    objs = objects(_class("old", "2024-01-01T00:00:00Z"), _class("b", "2025-01-01T00:00:00Z"),
                   _class("a", "2025-01-01T00:00:00Z"), _class("off", None, default=False))
    c = claim()
    Admission(objs).admit_claim(c)
    assert c["spec"]["storageClassName"] == "a"  # newest, then first by name
    explicit = claim(storageClassName="")
    Admission(objs).admit_claim(explicit)
    assert explicit["spec"]["storageClassName"] == ""
    # A default class of the checked files is created now: newer than every stored one.
    objs.add(_class("from-files", None))
    c2 = claim()
    Admission(objs).admit_claim(c2)
    assert c2["spec"]["storageClassName"] == "from-files"
    none = claim()
    Admission(ClusterObjects()).admit_claim(none)
    assert "storageClassName" not in none["spec"]


def test_limitranger_defaults_fill_what_is_missing() -> None:
    lr = limit_range({"type": "Container", "default": {"cpu": "1", "memory": "512Mi"},
                      "defaultRequest": {"cpu": "500m"}})
    p = pod(limits={"memory": "1Gi"})
    Admission(objects(lr)).admit_pod(p)
    res = p["spec"]["containers"][0]["resources"]
    # Its own memory limit is its request (API defaulting); cpu comes from the LimitRange.
    assert res == {"limits": {"memory": "1Gi", "cpu": "1"}, "requests": {"memory": "1Gi", "cpu": "500m"}}
    assert p["metadata"]["annotations"]["kubernetes.io/limit-ranger"] == \
        "LimitRanger plugin set: cpu request for container app; cpu limit for container app"
    # Only `default` given: the request defaults to it (SetDefaults_LimitRangeItem).
    p2 = pod()
    Admission(objects(limit_range({"type": "Container", "default": {"cpu": "2"}}))).admit_pod(p2)
    assert p2["spec"]["containers"][0]["resources"] == {"limits": {"cpu": "2"}, "requests": {"cpu": "2"}}
    # Another namespace's LimitRange does nothing here.
    p3 = pod(ns="other")
    Admission(objects(lr)).admit_pod(p3)
    assert "resources" not in p3["spec"]["containers"][0]


def test_limitranger_rejections_in_the_api_servers_words() -> None:
    lr = limit_range({"type": "Container", "max": {"cpu": "2"}, "min": {"memory": "100Mi"}})
    with pytest.raises(Forbidden) as e:
        Admission(objects(lr)).admit_pod(pod("big", limits={"cpu": "3", "memory": "1Gi"}))
    assert e.value.detail == 'pods "big" is forbidden: maximum cpu usage per Container is 2, but limit is 3'
    with pytest.raises(Forbidden) as e:
        Admission(objects(lr)).admit_pod(pod("two", limits={"cpu": "3"}, requests={"memory": "10Mi"}))
    assert e.value.detail == ('pods "two" is forbidden: [minimum memory usage per Container is 100Mi, but request '
                              'is 10Mi, maximum cpu usage per Container is 2, but limit is 3]')
    ratio = limit_range({"type": "Container", "maxLimitRequestRatio": {"cpu": "2"}})
    with pytest.raises(Forbidden, match=r"cpu max limit to request ratio per Container is 2, but provided ratio "
                                        r"is 4\.000000"):
        Admission(objects(ratio)).admit_pod(pod(requests={"cpu": "250m"}, limits={"cpu": "1"}))
    per_pod = limit_range({"type": "Pod", "max": {"memory": "1Gi"}})
    two = pod(limits={"memory": "768Mi"})
    two["spec"]["containers"].append({"name": "side", "resources": {"limits": {"memory": "512Mi"}}})
    with pytest.raises(Forbidden, match="maximum memory usage per Pod is 1Gi, but limit is 1280Mi"):
        Admission(objects(per_pod)).admit_pod(two)
    pvc_lr = limit_range({"type": "PersistentVolumeClaim", "max": {"storage": "5Gi"}})
    with pytest.raises(Forbidden, match='persistentvolumeclaims "data" is forbidden: maximum storage usage per '
                                        "PersistentVolumeClaim is 5Gi, but request is 10Gi"):
        Admission(objects(pvc_lr)).admit_claim(claim(storage="10Gi"))


def test_runtimeclass_overhead_selector_tolerations() -> None:
    rc = {"kind": "RuntimeClass", "metadata": {"name": "kata"}, "handler": "kata",
          "overhead": {"podFixed": {"cpu": "250m", "memory": "120Mi"}},
          "scheduling": {"nodeSelector": {"sandbox": "true"},
                         "tolerations": [{"key": "sandbox", "operator": "Exists", "effect": "NoSchedule"}]}}
    p = pod()
    p["spec"]["runtimeClassName"] = "kata"
    p["spec"]["nodeSelector"] = {"zone": "a"}
    Admission(objects(rc)).admit_pod(p)
    assert p["spec"]["overhead"] == {"cpu": "250m", "memory": "120Mi"}
    assert p["spec"]["nodeSelector"] == {"zone": "a", "sandbox": "true"}
    assert {"key": "sandbox", "operator": "Exists", "effect": "NoSchedule"} in p["spec"]["tolerations"]
    clash = pod("c")
    clash["spec"].update(runtimeClassName="kata", nodeSelector={"sandbox": "false"})
    with pytest.raises(Forbidden, match=r'pods "c" is forbidden: conflict: runtimeClass.scheduling.nodeSelector\[sandbox\] '
                                        r"= true; pod.spec.nodeSelector\[sandbox\] = false"):
        Admission(objects(rc)).admit_pod(clash)
    missing = pod("m")
    missing["spec"]["runtimeClassName"] = "gvisor"
    with pytest.raises(Forbidden, match='pod rejected: RuntimeClass "gvisor" not found'):
        Admission(objects(rc)).admit_pod(missing)


def test_merge_tolerations_drops_covered_ones() -> None:
    wide = {"key": "k", "operator": "Exists"}
    narrow = {"key": "k", "operator": "Equal", "value": "v", "effect": "NoSchedule"}
    assert merge_tolerations([narrow], [wide]) == [wide]
    assert merge_tolerations([wide], [narrow, wide]) == [wide]


def test_quota_exceeded_message_and_run_ledger() -> None:
    q = quota({"pods": "3", "requests.cpu": "2"}, {"pods": "2", "requests.cpu": "1500m"}, name="compute")
    run = Admission(objects(q))
    with pytest.raises(Forbidden) as e:
        run.admit_pod(pod("web-1", requests={"cpu": "1"}))
    assert e.value.detail == ('pods "web-1" is forbidden: exceeded quota: compute, requested: requests.cpu=1, '
                              "used: requests.cpu=1500m, limited: requests.cpu=2")
    run.admit_pod(pod("web-2", requests={"cpu": "250m"}))  # fits, and is counted
    with pytest.raises(Forbidden, match="exceeded quota: compute, requested: pods=1, used: pods=3, limited: pods=3$"):
        run.admit_pod(pod("web-3", requests={"cpu": "250m"}))
    # A new run starts from the quota's status again.
    Admission(objects(q)).admit_pod(pod("web-3", requests={"cpu": "250m"}))


def test_quota_constraints_scopes_and_computed_usage() -> None:
    q = quota({"limits.cpu": "4", "limits.memory": "4Gi"}, {"limits.cpu": "0", "limits.memory": "0"}, name="lim")
    with pytest.raises(Forbidden, match="failed quota: lim: must specify limits.cpu for: app; limits.memory for: app"):
        Admission(objects(q)).admit_pod(pod())
    # A BestEffort-scoped quota ignores a pod with requests; a PriorityClass scope by class.
    be = quota({"pods": "0"}, {"pods": "0"}, name="be", scopes=["BestEffort"])
    Admission(objects(be)).admit_pod(pod(requests={"cpu": "1"}))
    with pytest.raises(Forbidden, match="exceeded quota: be"):
        Admission(objects(be)).admit_pod(pod())
    hi = quota({"pods": "0"}, {"pods": "0"}, name="hi",
               scopeSelector={"matchExpressions": [{"scopeName": "PriorityClass", "operator": "In", "values": ["high"]}]})
    Admission(objects(hi)).admit_pod(pod())
    high = pod()
    high["spec"]["priorityClassName"] = "high"
    with pytest.raises(Forbidden, match="exceeded quota: hi"):
        Admission(objects(hi, {"kind": "PriorityClass", "metadata": {"name": "high"}, "value": 9})).admit_pod(high)
    # A quota without status (from the checked files): used is counted from the namespace.
    running = pod("old", requests={"cpu": "1"})
    running["spec"]["nodeName"] = "n1"
    done = pod("done", requests={"cpu": "1"})
    done["status"] = {"phase": "Succeeded"}
    fresh = quota({"pods": "1"}, name="count")
    with pytest.raises(Forbidden, match="requested: pods=1, used: pods=1, limited: pods=1"):
        Admission(objects(fresh, running, done)).admit_pod(pod("new"))
    # Claims: count and storage, per class too.
    cq = quota({"requests.storage": "10Gi", "gp3.storageclass.storage.k8s.io/persistentvolumeclaims": "1"},
               {"requests.storage": "8Gi", "gp3.storageclass.storage.k8s.io/persistentvolumeclaims": "0"}, name="st")
    with pytest.raises(Forbidden, match='persistentvolumeclaims "data" is forbidden: exceeded quota: st, requested: '
                                        "requests.storage=5Gi, used: requests.storage=8Gi, limited: requests.storage=10Gi"):
        Admission(objects(cq)).admit_claim(claim(storage="5Gi", storageClassName="gp3"))


def test_computed_quota_usage_leaves_out_pods_past_their_deletion_grace_period() -> None:
    """QuotaV1Pod: a pod stuck terminating stops counting (but in count/pods) once its
    deletion timestamp plus grace period lies behind the quota controller's clock, here the
    latest moment the source records (a node's heartbeat)."""
    stuck = pod("stuck", requests={"cpu": "1"})
    stuck["spec"]["nodeName"] = "lost"
    stuck["metadata"].update(deletionTimestamp="2026-05-01T10:00:30Z", deletionGracePeriodSeconds=30)
    node = {"kind": "Node", "metadata": {"name": "n1"},
            "status": {"conditions": [{"type": "Ready", "status": "True",
                                       "lastHeartbeatTime": "2026-05-01T10:05:00Z"}]}}
    fresh = quota({"pods": "1", "requests.cpu": "1", "count/pods": "2"}, name="compute")
    run = Admission(objects(fresh, stuck, node))
    assert {k: str(v) for k, v in run.quota_status(fresh)[1].items()} == \
        {"pods": "0", "requests.cpu": "0", "count/pods": "1"}
    run.admit_pod(pod("new", requests={"cpu": "1"}))
    # Still within its grace period at the latest recorded moment: it counts.
    node["status"]["conditions"][0]["lastHeartbeatTime"] = "2026-05-01T10:00:45Z"
    with pytest.raises(Forbidden, match="exceeded quota: compute, requested: pods=1,requests.cpu=1, used: "
                                        "pods=1,requests.cpu=1"):
        Admission(objects(fresh, stuck, node)).admit_pod(pod("new", requests={"cpu": "1"}))
    # A source that records no moment at all: the pod counts (the grace period can't be said to be over).
    del node["status"]
    with pytest.raises(Forbidden, match="exceeded quota: compute"):
        Admission(objects(fresh, stuck, node)).admit_pod(pod("new", requests={"cpu": "1"}))


def test_quota_counts_overhead_and_pod_level_resources_by_release() -> None:
    rc = {"kind": "RuntimeClass", "metadata": {"name": "kata"}, "handler": "kata", "overhead": {"podFixed": {"cpu": "500m"}}}
    q = quota({"requests.cpu": "1"}, {"requests.cpu": "0"})
    p = pod(requests={"cpu": "750m"})
    p["spec"]["runtimeClassName"] = "kata"
    with pytest.raises(Forbidden, match="requested: requests.cpu=1250m"):
        Admission(objects(rc, q)).admit_pod(p)
    # Pod-level resources (PodLevelResources: beta and on from 1.34) replace the containers' sum.
    lim = quota({"limits.cpu": "2"}, {"limits.cpu": "0"})
    level = pod()
    level["spec"]["resources"] = {"limits": {"cpu": "1"}}
    Admission(objects(lim), SchedulerVersion("v1.34")).admit_pod(level)
    with pytest.raises(Forbidden, match="must specify limits.cpu for: app"):
        Admission(objects(lim), SchedulerVersion("v1.33")).admit_pod(level)


def test_charge_quota_off_admits_without_counting() -> None:
    q = quota({"pods": "1"}, {"pods": "1"})
    run = Admission(objects(q))
    run.admit_pod(pod(), charge_quota=False)
    with pytest.raises(Forbidden):
        run.charge_pod(pod())


def test_runtimeclass_unknown_to_a_source_without_any_is_a_warning() -> None:
    p = pod()
    p["spec"]["runtimeClassName"] = "kata"
    warnings = Admission(ClusterObjects()).admit_pod(p)
    assert warnings == ["RuntimeClass kata is not in the cluster source: its overhead and scheduling are not applied"]
    assert "overhead" not in p["spec"]


def test_a_stored_pod_is_not_admitted_again() -> None:
    """A LimitRange created after the pod neither fills its defaults nor refuses it."""
    lr = limit_range({"type": "Container", "max": {"cpu": "1"}, "default": {"cpu": "1"}})
    stored = pod(limits={"cpu": "2"})
    stored["metadata"].update(uid="u1", creationTimestamp="2025-01-01T00:00:00Z")
    Admission(objects(lr)).admit_stored_pod(stored)
    assert stored["spec"]["containers"][0]["resources"] == {"limits": {"cpu": "2"}}
    assert stored["spec"]["priority"] == 0 and len(stored["spec"]["tolerations"]) == 2


def test_overhead_without_a_class_is_refused_where_classes_are_known() -> None:
    rc = {"kind": "RuntimeClass", "metadata": {"name": "runc"}, "handler": "runc"}
    p = pod("o")
    p["spec"]["overhead"] = {"cpu": "10m"}
    with pytest.raises(Forbidden, match="pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead"):
        Admission(objects(rc)).admit_pod(p)
    Admission(ClusterObjects()).admit_pod(p)  # a source without classes: taken as written
    assert p["spec"]["overhead"] == {"cpu": "10m"}


def test_a_default_limit_below_the_request_makes_the_pod_invalid() -> None:
    lr = limit_range({"type": "Container", "default": {"cpu": "1"}})
    with pytest.raises(Refused) as e:
        Admission(objects(lr)).admit_pod(pod("w", requests={"cpu": "2"}))
    assert e.value.detail == ('Pod "w" is invalid: spec.containers[0].resources.requests: Invalid value: "2": '
                              "must be less than or equal to cpu limit of 1")

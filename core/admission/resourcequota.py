"""ResourceQuota (apiserver's admission/plugin/resourcequota with the pod and claim
evaluators of pkg/quota/v1/evaluator/core), the last validating plugin.

For each ResourceQuota of the namespace (by name) that matches the object — it limits a
resource the object's kind uses, and every scope (``spec.scopes`` and
``spec.scopeSelector``: Terminating, NotTerminating, BestEffort, NotBestEffort,
PriorityClass, CrossNamespacePodAffinity for pods; VolumeAttributesClass for claims where
that gate is on) matches — the object must first satisfy the quota's constraints (a quota
on cpu or memory needs every container to request/limit them: ``failed quota: NAME: must
specify …``), then its usage added to the quota's must stay within ``hard``:
``exceeded quota: NAME, requested: …, used: …, limited: …``.

``hard`` and ``used`` are the quota's status as the quota controller keeps it; a quota
without status (one of the checked files, say) is counted as the controller would count it:
hard from the spec, used from the namespace's pods and claims — a pod that has finished, or
whose deletion's grace period had run out by the moment the cluster source was taken
(QuotaV1Pod), counts only in ``count/pods``. What this run admitted is
added on top (:class:`QuotaLedger`, kept by the run's Admission), so later pods of the same
run see the earlier ones.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from kschedx.core.admission.interface import CLAIMS, PODS, Request, Run
from kschedx.core.admission.podresources import container_resources, containers, pod_level_resources_set, pod_totals
from kschedx.core.admission.quantities import Quantity, ResourceList, add, mask, negated, pretty, resource_list
from kschedx.core.api.objects import ClusterObjects

Dict = dict[str, Any]

ONE = Quantity.parse(1)
POD_RESOURCES = frozenset({
    "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory", "requests.ephemeral-storage",
    "limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods", "count/pods",
})
# Quota on these needs each container to name them (the evaluator's validationSet).
CONSTRAINED = frozenset({"cpu", "memory", "requests.cpu", "requests.memory", "limits.cpu", "limits.memory"})
CLAIM_RESOURCES = ("persistentvolumeclaims", "requests.storage")
STORAGE_CLASS_SUFFIX = ".storageclass.storage.k8s.io/"


def _is_native(name: str) -> bool:
    """IsNativeResource: no domain, or a kubernetes.io one."""
    return "/" not in name or "kubernetes.io/" in name


def compute_usage(requests: Mapping[str, Quantity], limits: Mapping[str, Quantity]) -> ResourceList:
    """podComputeUsageHelper: what a pod's (or one container's) requests and limits count as."""
    out: ResourceList = {"pods": ONE}
    for res in ("cpu", "memory", "ephemeral-storage"):
        if res in requests:
            out[res] = requests[res]
            out[f"requests.{res}"] = requests[res]
        if res in limits:
            out[f"limits.{res}"] = limits[res]
    for res, q in requests.items():
        if res.startswith("hugepages-"):
            out[res] = q
            out[f"requests.{res}"] = q
        elif not _is_native(res):
            out[f"requests.{res}"] = q
    return out


def _terminal(pod: Dict) -> bool:
    return ((pod.get("status") or {}).get("phase")) in ("Succeeded", "Failed")


def _timestamp(text: Any) -> float | None:
    if not isinstance(text, str) or not text:
        return None
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def _grace(meta: Dict) -> int | None:
    grace = meta.get("deletionGracePeriodSeconds")
    return grace if isinstance(grace, int) and not isinstance(grace, bool) else None


def deletion_expired(pod: Dict, now: float | None) -> bool:
    """QuotaV1Pod's second test: the pod is marked for deletion (deletionTimestamp and
    deletionGracePeriodSeconds set) and ``now`` is past the deletion timestamp plus the
    grace period — a pod stuck terminating (its node lost, say) no longer holds quota."""
    meta = pod.get("metadata") or {}
    deleted, grace = _timestamp(meta.get("deletionTimestamp")), _grace(meta)
    return now is not None and deleted is not None and grace is not None and now > deleted + grace


def source_time(objects: ClusterObjects) -> float | None:
    """The quota controller's "now" as far as a cluster source tells it: the latest moment
    it records — a pod's creation or condition change, a deletion request (the deletion
    timestamp is the request plus the grace period), a node's heartbeat. None when it
    records none."""
    times: list[float] = []
    for pod in objects.of("Pod"):
        meta = pod.get("metadata") or {}
        times.extend(t for t in [_timestamp(meta.get("creationTimestamp"))] if t is not None)
        deleted, grace = _timestamp(meta.get("deletionTimestamp")), _grace(meta)
        if deleted is not None and grace is not None:
            times.append(deleted - grace)
        times.extend(t for c in (pod.get("status") or {}).get("conditions") or [] if isinstance(c, dict)
                     for t in [_timestamp(c.get("lastTransitionTime"))] if t is not None)
    for node in objects.of("Node"):
        times.extend(t for c in (node.get("status") or {}).get("conditions") or [] if isinstance(c, dict)
                     for t in [_timestamp(c.get("lastHeartbeatTime"))] if t is not None)
    return max(times) if times else None


def pod_usage(pod: Dict, pod_level: bool, now: float | None = None) -> ResourceList:
    """PodUsageFunc: count/pods always; the rest only for a pod that has not finished and
    whose deletion's grace period had not run out by ``now``."""
    usage: ResourceList = {"count/pods": ONE}
    if _terminal(pod) or deletion_expired(pod, now):
        return usage
    requests, limits = pod_totals(pod.get("spec") or {}, pod_level, overhead=True)
    return add(usage, compute_usage(requests, limits))


def claim_class(claim: Dict) -> str:
    annotations = (claim.get("metadata") or {}).get("annotations") or {}
    if "volume.beta.kubernetes.io/storage-class" in annotations:
        return str(annotations["volume.beta.kubernetes.io/storage-class"])
    return str((claim.get("spec") or {}).get("storageClassName") or "")


def claim_usage(claim: Dict) -> ResourceList:
    usage: ResourceList = {"persistentvolumeclaims": ONE, "count/persistentvolumeclaims": ONE}
    cls = claim_class(claim)
    if cls:
        usage[f"{cls}{STORAGE_CLASS_SUFFIX}persistentvolumeclaims"] = ONE
    storage = resource_list(((claim.get("spec") or {}).get("resources") or {}).get("requests")).get("storage")
    allocated = resource_list((claim.get("status") or {}).get("allocatedResources")).get("storage")
    if storage is not None and allocated is not None and allocated.amount > storage.amount:
        storage = allocated
    if storage is not None:
        storage = Quantity(Quantity.parse(storage.value()).amount, storage.format)  # rounded up to whole bytes
        usage["requests.storage"] = storage
        if cls:
            usage[f"{cls}{STORAGE_CLASS_SUFFIX}requests.storage"] = storage
    return usage


def matching_resources(resource: str, names: list[str]) -> list[str]:
    if resource == PODS:
        return [n for n in names if n in POD_RESOURCES or n.startswith(("hugepages-", "requests.hugepages-"))
                or (n.startswith("requests.") and not _is_native(n[len("requests."):]))]
    return [n for n in names if n == "count/persistentvolumeclaims" or n in CLAIM_RESOURCES
            or any(n.endswith(STORAGE_CLASS_SUFFIX + r) for r in CLAIM_RESOURCES)]


def scope_selectors(quota: Dict) -> list[Dict]:
    """GetScopeSelectorsFromQuota: spec.scopes as Exists requirements, then scopeSelector's."""
    spec = quota.get("spec") or {}
    out: list[Dict] = [{"scopeName": s, "operator": "Exists"} for s in spec.get("scopes") or []]
    out += [e for e in ((spec.get("scopeSelector") or {}).get("matchExpressions") or []) if isinstance(e, dict)]
    return out


def _selector_matches(req: Dict, labels: Mapping[str, str]) -> bool:
    key, op, values = str(req.get("scopeName")), req.get("operator"), [str(v) for v in req.get("values") or []]
    if op == "In":
        return key in labels and labels[key] in values
    if op == "NotIn":
        return key not in labels or labels[key] not in values
    if op == "Exists":
        return key in labels
    if op == "DoesNotExist":
        return key not in labels
    return False


def is_best_effort(spec: Dict, pod_level: bool) -> bool:
    """GetPodQOS is BestEffort: no positive cpu or memory request or limit anywhere."""
    parts = [container_resources(c) for f in ("containers", "initContainers") for c in containers(spec, f)]
    if pod_level and pod_level_resources_set(spec):
        res = spec.get("resources") or {}
        parts.append((resource_list(res.get("requests")), resource_list(res.get("limits"))))
    return not any(q.amount > 0 for lists in parts for rl in lists for k, q in rl.items() if k in ("cpu", "memory"))


def _cross_namespace(spec: Dict) -> bool:
    affinity = spec.get("affinity") or {}
    for kind in ("podAffinity", "podAntiAffinity"):
        stanza = affinity.get(kind) or {}
        terms = list(stanza.get("requiredDuringSchedulingIgnoredDuringExecution") or [])
        preferred = stanza.get("preferredDuringSchedulingIgnoredDuringExecution") or []
        terms += [(w or {}).get("podAffinityTerm") or {} for w in preferred]
        if any(t.get("namespaces") or t.get("namespaceSelector") is not None for t in terms if isinstance(t, dict)):
            return True
    return False


def pod_matches_scope(selector: Dict, pod: Dict, pod_level: bool) -> bool:
    spec = pod.get("spec") or {}
    scope = selector.get("scopeName")
    deadline = spec.get("activeDeadlineSeconds")
    terminating = deadline is not None and int(deadline) >= 0
    if scope == "Terminating":
        return terminating
    if scope == "NotTerminating":
        return not terminating
    if scope == "BestEffort":
        return is_best_effort(spec, pod_level)
    if scope == "NotBestEffort":
        return not is_best_effort(spec, pod_level)
    if scope == "PriorityClass":
        name = str(spec.get("priorityClassName") or "")
        if selector.get("operator") == "Exists":
            return bool(name)
        return _selector_matches(selector, {"PriorityClass": name} if name else {})
    if scope == "CrossNamespacePodAffinity":
        return _cross_namespace(spec)
    return False


def claim_matches_scope(selector: Dict, claim: Dict, vac_scope: bool) -> bool:
    if not vac_scope or selector.get("scopeName") != "VolumeAttributesClass":
        return False
    name = str((claim.get("spec") or {}).get("volumeAttributesClassName") or "")
    if selector.get("operator") == "Exists":
        return bool(name)
    return _selector_matches(selector, {"VolumeAttributesClass": name} if name else {})


class ResourceQuota:
    name = "ResourceQuota"

    def mutate(self, req: Request, run: Run) -> list[str]:
        return []

    def _matches(self, quota: Dict, req: Request, run: Run) -> bool:
        for selector in scope_selectors(quota):
            if req.resource == PODS and not pod_matches_scope(selector, req.obj, run.pod_level_resources):
                return False
            if req.resource == CLAIMS and not claim_matches_scope(selector, req.obj, run.volume_attributes_class):
                return False
        return True

    def validate(self, req: Request, run: Run) -> None:
        if req.resource not in (PODS, CLAIMS):
            return
        pertinent: list[tuple[Dict, ResourceList, ResourceList]] = []
        for quota in run.resource_quotas(req.namespace):
            hard, used = run.quota_status(quota)
            restricted = matching_resources(req.resource, list(hard))
            if not restricted or not self._matches(quota, req, run):
                continue
            qname = str((quota.get("metadata") or {}).get("name") or "")
            if req.resource == PODS and not (run.pod_level_resources and pod_level_resources_set(req.spec)):
                missing = self._missing(req.spec, set(restricted) & CONSTRAINED)
                if missing:
                    raise req.forbid(f"failed quota: {qname}: must specify {missing}")
            if any(r in hard and r not in used for r in restricted):
                raise req.forbid(f"status unknown for quota: {qname}, resources: {','.join(sorted(restricted))}")
            pertinent.append((quota, hard, used))
        if not pertinent:
            return
        usage = pod_usage(req.obj, run.pod_level_resources) if req.resource == PODS else claim_usage(req.obj)
        usage = {k: v for k, v in usage.items() if v.amount != 0}
        if not usage:
            return
        updates = []
        for quota, hard, used in pertinent:
            requested = mask(usage, hard)
            new_used = add(used, requested)
            exceeded = [k for k in requested if k in hard and new_used[k].amount > hard[k].amount]
            if exceeded:
                raise req.forbid(f"exceeded quota: {run.quota_key(quota)[1]}, requested: {pretty(mask(requested, exceeded))}, "
                                 f"used: {pretty(mask(used, exceeded))}, limited: {pretty(mask(hard, exceeded))}")
            updates.append((run.quota_key(quota), requested))
        for key, requested in updates:
            run.ledger.charge(key, requested)

    def release(self, pod: Dict, run: Run) -> None:
        """A pod is gone from storage (its controller deleted it, or preemption did): the
        quota controller's replenishment recounts its namespace, so what the pod counted
        in each quota that matches it is given back. Until then it still counted
        (QuotaV1Pod: a terminating pod is charged until its grace period has passed), so
        this is the state once the deletion completed — what a controller's retried
        create finds."""
        req = Request(PODS, pod)
        quotas = run.resource_quotas(req.namespace)
        if not quotas:
            return  # nothing counted it (a rollout deletes thousands of pods in quota-free namespaces)
        usage = pod_usage(pod, run.pod_level_resources)
        for quota in quotas:
            hard, _ = run.quota_status(quota)
            if matching_resources(PODS, list(hard)) and self._matches(quota, req, run):
                run.ledger.charge(run.quota_key(quota), negated(mask(usage, hard)))

    @staticmethod
    def _missing(spec: Dict, required: set[str]) -> str:
        """enforcePodContainerConstraints over every container: what each one leaves out."""
        missing: dict[str, set[str]] = {}
        for field_name in ("containers", "initContainers"):
            for c in containers(spec, field_name):
                have = set(compute_usage(*container_resources(c)))
                for r in required - have:
                    missing.setdefault(r, set()).add(str(c.get("name") or ""))
        return "; ".join(f"{r} for: {','.join(sorted(missing[r]))}" for r in sorted(missing))


def computed_status(quota: Dict, objects: ClusterObjects, pod_level: bool, vac_scope: bool,
                    now: float | None = None) -> tuple[ResourceList, ResourceList]:
    """A quota's hard and used as the quota controller would record them at ``now``."""
    ns = str((quota.get("metadata") or {}).get("namespace") or "default")
    hard = resource_list((quota.get("spec") or {}).get("hard"))
    used: ResourceList = {k: Quantity.parse(0) for k in hard}
    selectors = scope_selectors(quota)
    pod_names = matching_resources(PODS, list(hard))
    claim_names = matching_resources(CLAIMS, list(hard))
    if pod_names:
        for pod in objects.of("Pod"):
            if str((pod.get("metadata") or {}).get("namespace") or "default") != ns:
                continue
            if all(pod_matches_scope(s, pod, pod_level) for s in selectors):
                used = add(used, mask(pod_usage(pod, pod_level, now), pod_names))
    if claim_names:
        for claim in objects.of("PersistentVolumeClaim"):
            if str((claim.get("metadata") or {}).get("namespace") or "default") != ns:
                continue
            if all(claim_matches_scope(s, claim, vac_scope) for s in selectors):
                used = add(used, mask(claim_usage(claim), claim_names))
    return hard, used

"""The incoming pod: a Pod manifest, or the pod a workload's controllers would create.

The scheduler sees the controller's pod, not the template, so each workload kind is
expanded the way its controller does it (SPEC §1): labels the controller adds, the owner
reference, and owner objects the default spreading constraints must see.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kschedx.core.api.objects import ClusterObjects, controlled_by
from kschedx.core.api.template_defaults import same_template
from kschedx.core.errors import InputError
from kschedx.core.load.files import load_objects

Dict = dict[str, Any]

WORKLOAD_KINDS = (
    "Pod", "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "ReplicationController",
    "Job", "CronJob", "PodTemplate",
)

_SAFE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"


def _fnv32a(data: bytes) -> int:
    h = 0x811C9DC5
    for b in data:
        h ^= b
        h = (h * 0x01000193) & 0xFFFFFFFF
    return h


def template_hash(template: Dict) -> str:
    """A pod-template-hash in the controller's alphabet (FNV-32a of the template)."""
    digest = str(_fnv32a(json.dumps(template, sort_keys=True, separators=(",", ":")).encode()))
    return "".join(_SAFE_ALPHABET[ord(c) % len(_SAFE_ALPHABET)] for c in digest)


@dataclass
class IncomingPod:
    pod: Dict
    source_kind: str
    source_name: str
    rule: str
    extra_objects: list[Dict] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    bound_node: str | None = None
    daemonset: bool = False
    workload_replicas: int | None = None
    # A StatefulSet's pod of another ordinal (the pod and the Pending claims it needs), and
    # the ordinals its copies take (None: 0 … N-1).
    ordinal_pod: Callable[[int], tuple[Dict, list[Dict]]] | None = None
    ordinals: list[int] | None = None
    # The run's admission (core/admission.Admission) that admitted the pod: each copy the
    # controller creates is charged against the namespace's quotas there.
    admission: Any = None
    # What the controllers did besides creating the pod (volumes bound or provisioned).
    notes: list[str] = field(default_factory=list)
    # A StatefulSet of podManagementPolicy OrderedReady: its controller creates the next
    # ordinal only once the one before runs and is ready.
    one_at_a_time: bool = False
    # Per claim (NS/NAME) the PV controller bound before the pod's cycle: what happened and
    # where a provisioned volume may lie (core/explain/provision.py).
    volumes_provided: dict[str, tuple[str, Any]] = field(default_factory=dict)
    # The pod's name stands for one its controller makes up (NAME-abcde for NAME-x7k2p): no
    # stored pod is this one, so there is none to look up.
    generated_name: bool = False


def select_document(path: str, doc_name: str | None) -> Dict:
    objs = load_objects(path)
    bearing = [(o, line) for o, line in objs if o.get("kind") in WORKLOAD_KINDS]
    if doc_name is not None:
        named = [
            (o, line) for o, line in bearing
            if (o.get("metadata") or {}).get("name") == doc_name
            or f"{o.get('kind')}/{(o.get('metadata') or {}).get('name')}" == doc_name
        ]
        if not named:
            raise InputError(f"no pod-bearing document named {doc_name!r}", path=path)
        if len(named) > 1:
            raise InputError(f"several documents are named {doc_name!r}; use KIND/NAME", path=path)
        return named[0][0]
    if not bearing:
        kinds = sorted({str(o["kind"]) if isinstance(o.get("kind"), str) else f"an object without kind (document {i})"
                        for i, (o, _) in enumerate(objs, start=1)})
        what = ", ".join(kinds) if kinds else "no object"
        raise InputError(
            f"no Pod or workload in the manifest (found {what}); expected one of {', '.join(WORKLOAD_KINDS)}",
            path=path,
        )
    if len(bearing) > 1:
        names = ", ".join(f"{o.get('kind')}/{(o.get('metadata') or {}).get('name')}" for o, _ in bearing)
        raise InputError(f"several pod-bearing documents ({names}); choose one with --doc NAME", path=path)
    return bearing[0][0]


def load_manifests(path: str) -> list[Dict]:
    """Every pod-bearing document of a file (for ``check``)."""
    objs = [o for o, _ in load_objects(path) if o.get("kind") in WORKLOAD_KINDS]
    if not objs:
        raise InputError("no Pod or workload in the manifest", path=path)
    return objs


def _template(obj: Dict, path: str, *keys: str) -> Dict:
    cur: Any = obj
    for k in keys:
        cur = (cur or {}).get(k) if isinstance(cur, dict) else None
    if not isinstance(cur, dict) or not isinstance(cur.get("spec"), dict):
        kind = obj.get("kind")
        name = (obj.get("metadata") or {}).get("name")
        raise InputError(f"{kind} {name!r} has no pod template ({'.'.join(keys)})", path=path)
    return copy.deepcopy(cur)


def _owner(kind: str, api: str, name: str, uid: str) -> Dict:
    return {"apiVersion": api, "kind": kind, "name": name, "uid": uid, "controller": True, "blockOwnerDeletion": True}


def _uid(kind: str, ns: str, name: str) -> str:
    h = f"{_fnv32a(f'{kind}/{ns}/{name}'.encode()):08x}"
    return f"{h}-0000-4000-8000-{h}{h[:4]}"


def _find(objects: ClusterObjects, kind: str, ns: str, name: str) -> Dict | None:
    for o in objects.of(kind):
        m = o.get("metadata") or {}
        if m.get("name") == name and (m.get("namespace") or "default") == ns:
            return o
    return None


def _pod_from_template(tpl: Dict, ns: str, name: str) -> Dict:
    meta = dict(tpl.get("metadata") or {})
    meta["name"] = name
    meta["namespace"] = ns
    meta["labels"] = dict(meta.get("labels") or {})
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": tpl["spec"], "status": {"phase": "Pending"}}


ClaimAdmitter = Callable[[Dict, str], list[Dict]]


def expand(obj: Dict, objects: ClusterObjects, path: str, namespace: str | None,
           admit_claim: ClaimAdmitter | None = None) -> IncomingPod:
    """The pod a controller would create for ``obj`` (a copy; ``obj`` is untouched).

    ``admit_claim(claim, pod_name)``, when given, creates each claim a StatefulSet's
    controller creates: API-server admission (the default StorageClass, quotas) and what
    the PV controller does with it; it changes the claim in place, may raise, and returns
    the objects created with it (a PersistentVolume bound to it)."""
    obj = copy.deepcopy(obj)
    kind = obj.get("kind") or ""
    meta = obj.get("metadata") or {}
    name = meta.get("name") or meta.get("generateName") or ""
    ns = namespace or meta.get("namespace") or "default"
    if kind != "Pod" and not name:
        raise InputError(f"{kind} has no metadata.name", path=path)

    if kind == "Pod":
        if not isinstance(obj.get("spec"), dict):
            raise InputError(f"Pod {name!r} has no spec", path=path)
        pod = obj
        pod.setdefault("metadata", {})["namespace"] = ns
        if not pod["metadata"].get("name"):
            pod["metadata"]["name"] = (pod["metadata"].get("generateName") or "pod-") + "xxxxx"
        inc = IncomingPod(pod, kind, name, "Pod: explained as written")
        node = (pod.get("spec") or {}).get("nodeName")
        if node:
            inc.bound_node = node
            inc.warnings.append(
                f"the pod already has spec.nodeName={node}: it would never reach the scheduler; "
                "explained as if nodeName were unset"
            )
            del pod["spec"]["nodeName"]
        return inc

    if kind == "PodTemplate":
        tpl = _template(obj, path, "template")
        return IncomingPod(_pod_from_template(tpl, ns, name), kind, name, "PodTemplate: its template as a pod")

    if kind == "Deployment":
        return _deployment(obj, objects, path, ns, name)

    if kind in ("ReplicaSet", "ReplicationController"):
        tpl = _template(obj, path, "spec", "template")
        api = "apps/v1" if kind == "ReplicaSet" else "v1"
        uid = meta.get("uid") or _uid(kind, ns, name)
        pod = _pod_from_template(tpl, ns, f"{name}-abcde")
        pod["metadata"]["ownerReferences"] = [_owner(kind, api, name, uid)]
        inc = IncomingPod(pod, kind, name, f"{kind}: a pod owned by {kind} {name}", generated_name=True)
        if _find(objects, kind, ns, name) is None:
            owner = copy.deepcopy(obj)
            owner["metadata"]["namespace"] = ns
            owner["metadata"].setdefault("uid", uid)
            inc.extra_objects.append(owner)
            inc.rule += " (added to the snapshot for default spreading)"
        inc.workload_replicas = int((obj.get("spec") or {}).get("replicas", 1) or 0)
        return inc

    if kind == "StatefulSet":
        return _statefulset(obj, objects, path, ns, name, admit_claim)

    if kind == "Job":
        tpl = _template(obj, path, "spec", "template")
        return _job_pod(tpl, ns, name, meta.get("uid") or _uid("Job", ns, name), obj, "Job")

    if kind == "CronJob":
        tpl = _template(obj, path, "spec", "jobTemplate", "spec", "template")
        job_name = f"{name}-29000000"
        inc = _job_pod(tpl, ns, job_name, _uid("Job", ns, job_name), (obj.get("spec") or {}).get("jobTemplate") or {}, "CronJob")
        inc.source_name = name
        inc.rule = f"CronJob: the pod of its next Job {job_name}"
        return inc

    if kind == "DaemonSet":
        tpl = _template(obj, path, "spec", "template")
        uid = meta.get("uid") or _uid(kind, ns, name)
        pod = _pod_from_template(tpl, ns, f"{name}-abcde")
        pod["metadata"]["ownerReferences"] = [_owner("DaemonSet", "apps/v1", name, uid)]
        add_daemonset_tolerations(pod["spec"])
        inc = IncomingPod(
            pod, kind, name,
            "DaemonSet: one pod per node, pinned by a required matchFields metadata.name node affinity",
            generated_name=True,
        )
        inc.daemonset = True
        return inc

    raise InputError(f"unsupported kind {kind!r}", path=path)


def _deployment(obj: Dict, objects: ClusterObjects, path: str, ns: str, name: str) -> IncomingPod:
    spec = obj.get("spec") or {}
    tpl = _template(obj, path, "spec", "template")
    selector = spec.get("selector")
    if not isinstance(selector, dict):
        raise InputError(f"Deployment {name!r} has no spec.selector", path=path)
    # Reuse the Deployment's ReplicaSet for the same template if the cluster has it
    # (FindNewReplicaSet: the oldest whose stored template equals the manifest's after API
    # defaulting, the hash label aside), so a scale-up's pods join their running siblings.
    existing: Dict | None = None
    owned = controlled_by(objects.of("ReplicaSet"), ns, "Deployment", name)
    owned.sort(key=lambda r: (str((r.get("metadata") or {}).get("creationTimestamp") or ""),
                              str((r.get("metadata") or {}).get("name") or "")))
    for rs in owned:
        rtpl = ((rs.get("spec") or {}).get("template")) or {}
        if ((rtpl.get("metadata") or {}).get("labels") or {}).get("pod-template-hash") and same_template(rtpl, tpl):
            existing = rs
            break
    if existing is not None:
        em = existing["metadata"]
        hash_ = ((existing["spec"]["template"].get("metadata") or {}).get("labels") or {})["pod-template-hash"]
        rs_name, rs_uid = em["name"], em.get("uid") or _uid("ReplicaSet", ns, em["name"])
        rule = f"Deployment: a pod of its existing ReplicaSet {rs_name}"
        extra: list[Dict] = []
    else:
        hash_ = template_hash(tpl)
        rs_name = f"{name}-{hash_}"
        rs_uid = _uid("ReplicaSet", ns, rs_name)
        rs_selector = copy.deepcopy(selector)
        rs_selector.setdefault("matchLabels", {})["pod-template-hash"] = hash_
        rs_tpl = copy.deepcopy(tpl)
        rs_tpl.setdefault("metadata", {}).setdefault("labels", {})["pod-template-hash"] = hash_
        dep_uid = (obj.get("metadata") or {}).get("uid") or _uid("Deployment", ns, name)
        rs = {
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "metadata": {
                "name": rs_name, "namespace": ns, "uid": rs_uid,
                "labels": dict(rs_tpl["metadata"]["labels"]),
                "ownerReferences": [_owner("Deployment", "apps/v1", name, dep_uid)],
            },
            "spec": {"replicas": spec.get("replicas", 1), "selector": rs_selector, "template": rs_tpl},
        }
        extra = [rs]
        rule = (
            f"Deployment: a pod of a new ReplicaSet {rs_name} (pod-template-hash={hash_}), "
            "added to the snapshot so default spreading sees it"
        )
    pod = _pod_from_template(tpl, ns, f"{rs_name}-abcde")
    pod["metadata"]["labels"]["pod-template-hash"] = hash_
    pod["metadata"]["ownerReferences"] = [_owner("ReplicaSet", "apps/v1", rs_name, rs_uid)]
    inc = IncomingPod(pod, "Deployment", name, rule, extra_objects=extra, generated_name=True)
    inc.workload_replicas = int(spec.get("replicas", 1) if spec.get("replicas") is not None else 1)
    return inc


def _statefulset(obj: Dict, objects: ClusterObjects, path: str, ns: str, name: str,
                 admit_claim: ClaimAdmitter | None) -> IncomingPod:
    spec = obj.get("spec") or {}
    tpl = _template(obj, path, "spec", "template")
    uid = (obj.get("metadata") or {}).get("uid") or _uid("StatefulSet", ns, name)
    for vct in spec.get("volumeClaimTemplates") or []:
        if not (vct.get("metadata") or {}).get("name"):
            raise InputError(f"StatefulSet {name!r} has a volumeClaimTemplate without a name", path=path)
    # Each ordinal's claims are created (and admitted) once, however often its pod is asked for.
    made: dict[int, list[Dict]] = {}

    def ordinal_pod(ordinal: int) -> tuple[Dict, list[Dict]]:
        pod, claims = _statefulset_pod(spec, tpl, objects, ns, name, uid, ordinal)
        if ordinal not in made:
            created = list(claims)
            if admit_claim is not None:
                for claim in claims:
                    created += admit_claim(claim, pod["metadata"]["name"])
            made[ordinal] = created
        return pod, made[ordinal]

    pod, claims = ordinal_pod(0)
    inc = IncomingPod(pod, "StatefulSet", name, f"StatefulSet: pod {name}-0")
    inc.ordinal_pod = ordinal_pod
    inc.one_at_a_time = spec.get("podManagementPolicy") != "Parallel"
    inc.workload_replicas = int(spec.get("replicas", 1) if spec.get("replicas") is not None else 1)
    if _find(objects, "StatefulSet", ns, name) is None:
        owner = copy.deepcopy(obj)
        owner["metadata"]["namespace"] = ns
        owner["metadata"].setdefault("uid", uid)
        inc.extra_objects.append(owner)
        inc.rule += ", owned by the StatefulSet (added to the snapshot)"
    inc.extra_objects.extend(claims)
    pvcs = [c["metadata"]["name"] for c in claims if c.get("kind") == "PersistentVolumeClaim"]
    if pvcs:
        inc.rule += "; new PVC(s) " + ", ".join(pvcs)
    return inc


def _statefulset_pod(
    spec: Dict, tpl: Dict, objects: ClusterObjects, ns: str, name: str, uid: str, ordinal: int,
) -> tuple[Dict, list[Dict]]:
    """The StatefulSet's pod NAME-ordinal and the claims TEMPLATE-NAME-ordinal it mounts
    that the cluster doesn't have yet (Pending, as the controller creates them)."""
    pod_name = f"{name}-{ordinal}"
    pod = _pod_from_template(copy.deepcopy(tpl), ns, pod_name)
    labels = pod["metadata"]["labels"]
    labels["statefulset.kubernetes.io/pod-name"] = pod_name
    labels["apps.kubernetes.io/pod-index"] = str(ordinal)
    labels["controller-revision-hash"] = f"{name}-{template_hash(tpl)}"
    pod["metadata"]["ownerReferences"] = [_owner("StatefulSet", "apps/v1", name, uid)]
    sel_labels = ((spec.get("selector") or {}).get("matchLabels")) or {}
    made: list[Dict] = []
    # The controller mounts one claim per template (first), then the template's other volumes.
    claim_volumes: list[Dict] = []
    template_names: set[str] = set()
    for vct in spec.get("volumeClaimTemplates") or []:
        vmeta = vct.get("metadata") or {}
        tname = str(vmeta.get("name"))
        claim = f"{tname}-{pod_name}"
        template_names.add(tname)
        claim_volumes.append({"name": tname, "persistentVolumeClaim": {"claimName": claim}})
        if _find(objects, "PersistentVolumeClaim", ns, claim) is not None:
            continue
        pvc_spec = copy.deepcopy(vct.get("spec") or {})
        annotations = dict(vmeta.get("annotations") or {})
        pvc_labels = dict(vmeta.get("labels") or {})
        pvc_labels.update(sel_labels)
        pvc_meta: Dict = {"name": claim, "namespace": ns, "labels": pvc_labels, "uid": _uid("PVC", ns, claim)}
        if annotations:
            pvc_meta["annotations"] = annotations
        made.append(
            {
                "apiVersion": "v1",
                "kind": "PersistentVolumeClaim",
                "metadata": pvc_meta,
                "spec": pvc_spec,
                "status": {"phase": "Pending"},
            }
        )
    if claim_volumes:
        others = [v for v in pod["spec"].get("volumes") or [] if v.get("name") not in template_names]
        pod["spec"]["volumes"] = claim_volumes + others
    return pod, made


def _job_pod(tpl: Dict, ns: str, job_name: str, job_uid: str, job: Dict, kind: str) -> IncomingPod:
    pod = _pod_from_template(tpl, ns, f"{job_name}-abcde")
    labels = pod["metadata"]["labels"]
    labels["batch.kubernetes.io/controller-uid"] = job_uid
    labels["batch.kubernetes.io/job-name"] = job_name
    labels["controller-uid"] = job_uid
    labels["job-name"] = job_name
    pod["metadata"]["ownerReferences"] = [_owner("Job", "batch/v1", job_name, job_uid)]
    inc = IncomingPod(pod, kind, job_name, f"Job: a pod of Job {job_name}", generated_name=True)
    par = (job.get("spec") or {}).get("parallelism")
    inc.workload_replicas = int(par) if par is not None else 1
    return inc


def add_daemonset_tolerations(spec: Dict) -> None:
    """The tolerations the DaemonSet controller adds to every daemon pod."""
    tols = list(spec.get("tolerations") or [])
    wanted = [
        ("node.kubernetes.io/not-ready", "NoExecute"),
        ("node.kubernetes.io/unreachable", "NoExecute"),
        ("node.kubernetes.io/disk-pressure", "NoSchedule"),
        ("node.kubernetes.io/memory-pressure", "NoSchedule"),
        ("node.kubernetes.io/pid-pressure", "NoSchedule"),
        ("node.kubernetes.io/unschedulable", "NoSchedule"),
    ]
    if spec.get("hostNetwork"):
        wanted.append(("node.kubernetes.io/network-unavailable", "NoSchedule"))
    for key, effect in wanted:
        if not any(t.get("key") == key and t.get("effect") == effect for t in tols):
            tols.append({"key": key, "operator": "Exists", "effect": effect})
    spec["tolerations"] = tols


def pin_to_node(pod: Dict, node: str) -> Dict:
    """A copy of a daemon pod pinned to ``node`` the way the DaemonSet controller does it."""
    pod = copy.deepcopy(pod)
    spec = pod.setdefault("spec", {})
    aff = spec.setdefault("affinity", {})
    na = aff.setdefault("nodeAffinity", {})
    pin = {"key": "metadata.name", "operator": "In", "values": [node]}
    req = na.get("requiredDuringSchedulingIgnoredDuringExecution")
    if not req or not req.get("nodeSelectorTerms"):
        na["requiredDuringSchedulingIgnoredDuringExecution"] = {"nodeSelectorTerms": [{"matchFields": [pin]}]}
    else:
        for term in req["nodeSelectorTerms"]:
            term["matchFields"] = [pin]
    return pod

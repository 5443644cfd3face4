"""The replica count a workload ends up with after ``kubectl apply`` of its manifest.

The manifest's ``spec.replicas`` is not the whole story:

- a manifest without ``spec.replicas`` for a workload that exists leaves the live count
  alone (kubectl's three-way merge removes only fields the last applied configuration
  had: if the live object's ``kubectl.kubernetes.io/last-applied-configuration`` holds
  ``spec.replicas``, the field is removed and the API server's default 1 applies);
- a HorizontalPodAutoscaler whose ``scaleTargetRef`` names the workload then sets the
  count as its controller's next sync does (pkg/controller/podautoscaler
  reconcileAutoscaler): a target at 0 with minReplicas above 0 is left alone (scaling
  disabled); otherwise the count is clamped to minReplicas..maxReplicas, and within them
  the HPA's last computed ``status.desiredReplicas`` stands for what its metrics ask
  (without one, nothing moves the count inside the range).

A release may hold the same workload twice (a base and a copy, one file named twice):
``kubectl apply -f`` sends both, in order, and the later one is applied over what the
earlier one left — its last applied configuration included, so a later document without
``spec.replicas`` after one that set it leaves the default 1 (``applied_before``).

``resolve_replica_count`` returns the object with that count written into
``spec.replicas`` and the line that says where it came from (None when the manifest's own
count, or the default for a new workload, stands).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from kschedx.core.api.objects import ClusterObjects, controlled_by

Dict = dict[str, Any]

HPA = "HorizontalPodAutoscaler"
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"

# Kinds with a scale subresource whose count is spec.replicas.
SCALED_KINDS = ("Deployment", "StatefulSet", "ReplicaSet", "ReplicationController")


def _field(obj: Any, key: str) -> Dict:
    """A map-valued field, or an empty one for anything else (the manifest's own check,
    core/load/apivalidation.py, reports malformed objects in the API server's words)."""
    value = obj.get(key) if isinstance(obj, dict) else None
    return value if isinstance(value, dict) else {}


def _name_ns(obj: Dict, default_ns: str) -> tuple[str, str]:
    meta = _field(obj, "metadata")
    return str(meta.get("name") or ""), str(meta.get("namespace") or default_ns)


def _count(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return None


def _live(objects: ClusterObjects, kind: str, ns: str, name: str) -> Dict | None:
    for o in objects.workloads.get(kind, ()):
        if _name_ns(o, "default") == (name, ns):
            return o
    return None


def _targeting(objects: ClusterObjects, kind: str, ns: str, name: str) -> list[Dict]:
    out = []
    for hpa in objects.of(HPA):
        ref = _field(_field(hpa, "spec"), "scaleTargetRef")
        if ref.get("kind") == kind and ref.get("name") == name and _name_ns(hpa, "default")[1] == ns:
            out.append(hpa)
    return out


DESIRED_ANNOTATION = "deployment.kubernetes.io/desired-replicas"
# Marks the stand-in of a Deployment known only through its ReplicaSets.
FROM_REPLICASETS = "kschedx/from-replicasets"
# Marks the stand-in of a workload as an earlier document of the same run left it: the
# document itself stands for its last applied configuration.
APPLIED_EARLIER = "kschedx/applied-earlier"


def _from_replicasets(objects: ClusterObjects, ns: str, name: str) -> Dict | None:
    """A Deployment the source holds only through its ReplicaSets (a dump of ReplicaSets and
    pods): its count as they record it, the deployment controller's desired-replicas
    annotation of the newest, else the sum of their spec.replicas (what a settled
    Deployment asks for)."""
    owned = controlled_by(objects.workloads.get("ReplicaSet", []), ns, "Deployment", name)
    if not owned:
        return None
    newest = max(owned, key=lambda r: str(_field(r, "metadata").get("creationTimestamp") or ""))
    count = _count(_field(_field(newest, "metadata"), "annotations").get(DESIRED_ANNOTATION))
    if count is None:
        count = sum(_count(_field(rs, "spec").get("replicas")) or 0 for rs in owned)
    return {"metadata": {"name": name, "namespace": ns}, "spec": {"replicas": count}, FROM_REPLICASETS: True}


def _applied_replicas(live: Dict) -> bool:
    """Whether the live object's last applied configuration (client-side apply) set
    spec.replicas: then applying a manifest without it removes the field."""
    earlier = live.get(APPLIED_EARLIER)
    if isinstance(earlier, dict):
        return "replicas" in _field(earlier, "spec")
    text = _field(_field(live, "metadata"), "annotations").get(LAST_APPLIED)
    if not isinstance(text, str):
        return False
    try:
        last = json.loads(text)
    except ValueError:
        return False
    return isinstance(last, dict) and isinstance(last.get("spec"), dict) and "replicas" in last["spec"]


def _after_apply(obj: Dict, live: Dict | None, kind: str) -> tuple[int, str | None]:
    """spec.replicas once the manifest is applied, and why when the manifest doesn't say it."""
    own = _count(_field(obj, "spec").get("replicas"))
    if own is not None:
        return own, None
    if live is None:
        return 1, None
    before = "the earlier document of the same" if live.get(APPLIED_EARLIER) else "the live"
    if _applied_replicas(live):
        return 1, (f"replicas 1: {before} {kind}'s last applied configuration sets spec.replicas and the manifest "
                   "doesn't, so kubectl apply removes it and the default 1 applies")
    count = _count(_field(live, "spec").get("replicas"))
    if count is None:
        return 1, None
    how = " (as its ReplicaSets record it)" if live.get(FROM_REPLICASETS) else ""
    return count, (f"replicas {count} kept from {before} {kind}{how}: the manifest sets none, and kubectl apply "
                   "leaves it")


def _hpa_count(hpa: Dict, current: int) -> tuple[int, str]:
    """The count the HPA controller's next sync leaves, and which of its figures decided it."""
    spec = _field(hpa, "spec")
    name = _name_ns(hpa, "default")[0]
    low = _count(spec.get("minReplicas"))
    low = 1 if low is None else low
    high = _count(spec.get("maxReplicas"))
    high = max(low, high) if high is not None else max(low, current)
    if current == 0 and low != 0:
        return 0, f"replicas 0 kept: HorizontalPodAutoscaler {name} does not scale a target at zero (ScalingDisabled)"
    desired = _count(_field(hpa, "status").get("desiredReplicas"))
    proposal, what = (desired, "desired") if desired is not None and desired > 0 else (current, None)
    if proposal < low:
        return low, f"replicas {low} from HorizontalPodAutoscaler {name} (minReplicas)"
    if proposal > high:
        return high, f"replicas {high} from HorizontalPodAutoscaler {name} (maxReplicas)"
    if what is None:
        return proposal, (f"replicas {proposal} from HorizontalPodAutoscaler {name} (no desired count yet: the "
                          f"count applied, within minReplicas {low} and maxReplicas {high})")
    return proposal, f"replicas {proposal} from HorizontalPodAutoscaler {name} (desired)"


def resolve_replica_count(obj: Dict, objects: ClusterObjects, namespace: str | None = None,
                          applied_before: Sequence[Dict] = (), hpa: bool = True) -> tuple[Dict, str | None]:
    """``obj`` with the count it runs at after ``kubectl apply`` (a shallow copy when it
    changes), and the line saying where that count came from. ``applied_before``: earlier
    documents of the run for the same object, applied first in this order. Without
    ``hpa``: the count the apply itself leaves, before an HPA's next sync."""
    if str(obj.get("kind") or "") not in SCALED_KINDS:
        return obj, None
    kind, ns, name, live = _target(obj, objects, namespace)
    live = _after_earlier(applied_before, live, kind)
    count, why = _after_apply(obj, live, kind)
    hpas = _targeting(objects, kind, ns, name) if hpa else []
    if len(hpas) > 1:
        names = ", ".join(sorted(_name_ns(h, ns)[0] for h in hpas))
        why = (f"replicas {count}: several HorizontalPodAutoscalers target the {kind} ({names}); their controller "
               "scales none of them (AmbiguousSelector)")
    elif hpas:
        count, why = _hpa_count(hpas[0], count)
    if why is None:
        return obj, None
    spec = dict(_field(obj, "spec"), replicas=count)
    return dict(obj, spec=spec), why


def _target(obj: Dict, objects: ClusterObjects, namespace: str | None) -> tuple[str, str, str, Dict | None]:
    """The scaled workload ``obj`` names: (kind, namespace, name, the live object: its own,
    or for a Deployment what its ReplicaSets record; None when the cluster has none)."""
    kind = str(obj.get("kind") or "")
    name, ns = _name_ns(obj, namespace or "default")
    if namespace:
        ns = namespace
    live = _live(objects, kind, ns, name)
    if live is None and kind == "Deployment":
        live = _from_replicasets(objects, ns, name)
    return kind, ns, name, live


def _after_earlier(applied_before: Sequence[Dict], live: Dict | None, kind: str) -> Dict | None:
    """The object the next apply merges into: what the earlier documents' applies left of
    ``live``, in their order."""
    for earlier in applied_before:
        left, _ = _after_apply(earlier, live, kind)
        live = {"spec": {"replicas": left}, APPLIED_EARLIER: earlier}
    return live


def scales_down(obj: Dict, objects: ClusterObjects, namespace: str | None = None) -> bool:
    """Whether applying ``obj`` lowers the replica count of a workload the cluster runs (its
    controller deletes pods at once: the room is free before any new pod can race for it)."""
    if str(obj.get("kind") or "") not in SCALED_KINDS:
        return False
    kind, ns, name, live = _target(obj, objects, namespace)
    running = _count(_field(live, "spec").get("replicas")) if live is not None else None
    if running is None:
        return False
    count, _ = _after_apply(obj, live, kind)
    hpas = _targeting(objects, kind, ns, name)
    if len(hpas) == 1:
        count = min(count, _hpa_count(hpas[0], count)[0])
    return count < running


def reset_by_apply(obj: Dict, objects: ClusterObjects, namespace: str | None = None,
                   applied_before: Sequence[Dict] = ()) -> tuple[int, int, str] | None:
    """A running workload whose manifest writes a count its HPA then changes: ``kubectl
    apply`` sets spec.replicas to the manifest's count at once (its controller scales to
    it), and the HPA's next sync, up to its sync period (15 s) later, sets its own count.
    Returns (the count applied, the HPA's, the HPA's name) when the HPA then raises the
    count; None when the apply leaves the HPA's count (the manifest writes none, or the
    same), the HPA lowers it (the end state is the HPA's count), or no single HPA scales it."""
    if str(obj.get("kind") or "") not in SCALED_KINDS:
        return None
    kind, ns, name, live = _target(obj, objects, namespace)
    hpas = _targeting(objects, kind, ns, name)
    if live is None or len(hpas) != 1 or _count(_field(obj, "spec").get("replicas")) is None:
        return None
    applied, _ = _after_apply(obj, _after_earlier(applied_before, live, kind), kind)
    scaled, _ = _hpa_count(hpas[0], applied)
    if scaled <= applied:
        return None
    return applied, scaled, _name_ns(hpas[0], ns)[0]


def hpa_status_as_applied(before: ClusterObjects, after: ClusterObjects) -> None:
    """The HorizontalPodAutoscalers of the files (in ``after``, laid over ``before``) with the
    status ``kubectl apply`` leaves them: the API server ignores a status written in a
    manifest (it has its own subresource), so one that replaces a live HPA keeps the live
    status, and a new one has none yet."""
    live = {_name_ns(h, "default"): h for h in before.of(HPA)}
    known = {id(h) for h in before.of(HPA)}
    hpas = after.of(HPA)
    for i, hpa in enumerate(hpas):
        if id(hpa) in known:
            continue
        old = live.get(_name_ns(hpa, "default"))
        status = old.get("status") if old is not None else None
        hpas[i] = {k: v for k, v in hpa.items() if k != "status"}
        if status:
            hpas[i]["status"] = status

"""What the API server refuses when ``kubectl apply -f`` sends a second document for an
object the same run created: the update's validation (pkg/apis/core/validation
ValidatePodUpdate, pkg/apis/apps/validation, pkg/apis/batch/validation) forbids changing
what stays fixed for the object's life, and the object stays as the earlier document left
it. :func:`update_refusal` gives the refusal in the API server's words, or None when the
later document may replace the earlier one.

The documents are compared as written: an update that only spells out a default the other
leaves to the API server (a StatefulSet's podManagementPolicy) is not a change.
"""

from __future__ import annotations

import json
from typing import Any

from kschedx.core.api.quantity import QuantityError, parse_quantity

Dict = dict[str, Any]

# The fields ValidatePodUpdate lets an update change, as its message lists them.
POD_UPDATE_FIELDS = ("`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,"
                     "`spec.tolerations` (only additions to existing tolerations),"
                     "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)")

# The StatefulSet spec fields an update may change (ValidateStatefulSetUpdate).
STATEFULSET_MUTABLE = ("replicas", "ordinals", "template", "updateStrategy", "revisionHistoryLimit",
                       "persistentVolumeClaimRetentionPolicy", "minReadySeconds")
STATEFULSET_FORBIDDEN = ("spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', "
                         "'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' "
                         "and 'minReadySeconds' are forbidden")

# The resource a refusal names (its group, as the API server's StatusError does).
_QUALIFIED = {"Pod": "Pod", "Deployment": "Deployment.apps", "ReplicaSet": "ReplicaSet.apps",
              "DaemonSet": "DaemonSet.apps", "StatefulSet": "StatefulSet.apps", "Job": "Job.batch"}


def _map(obj: Any, key: str) -> Dict:
    value = obj.get(key) if isinstance(obj, dict) else None
    return value if isinstance(value, dict) else {}


def _selector_json(selector: Any) -> str:
    """A LabelSelector as Go's encoding/json writes it (field order, map keys sorted,
    empty fields left out): the value an immutable-field error shows."""
    if not isinstance(selector, dict):
        return "null"
    out: Dict = {}
    if selector.get("matchLabels"):
        out["matchLabels"] = selector["matchLabels"]
    if selector.get("matchExpressions"):
        out["matchExpressions"] = [
            {k: e[k] for k in ("key", "operator", "values") if isinstance(e, dict) and e.get(k) not in (None, [])}
            for e in selector["matchExpressions"]]
    return json.dumps(out, sort_keys=True, separators=(",", ":"))


def _fixed_pod_part(spec: Dict) -> Dict:
    """A pod spec without what an update may change."""
    out = {k: v for k, v in spec.items()
           if k not in ("activeDeadlineSeconds", "tolerations", "schedulingGates", "terminationGracePeriodSeconds")}
    for key in ("containers", "initContainers"):
        if isinstance(out.get(key), list):
            out[key] = [{k: v for k, v in c.items() if k != "image"} if isinstance(c, dict) else c for c in out[key]]
    return out


def _pod_refusal(a: Dict, b: Dict) -> str | None:
    """ValidatePodUpdate: the first rule the new spec ``b`` breaks, over the old ``a``."""
    gates_a, gates_b = a.get("schedulingGates") or [], b.get("schedulingGates") or []
    if any(g not in gates_a for g in gates_b):
        return "spec.schedulingGates: Forbidden: only deletion is allowed, but found new scheduling gate"
    tolerations_b = b.get("tolerations") or []
    if any(t not in tolerations_b for t in a.get("tolerations") or []):
        return "spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds"
    if a.get("activeDeadlineSeconds") is not None and b.get("activeDeadlineSeconds") is None:
        return 'spec.activeDeadlineSeconds: Invalid value: "null": must not update from a positive integer to nil value'
    grace_a, grace_b = a.get("terminationGracePeriodSeconds"), b.get("terminationGracePeriodSeconds")
    grace_ok = grace_a == grace_b or (isinstance(grace_a, int) and grace_a < 0 and grace_b == 1)
    if _fixed_pod_part(a) != _fixed_pod_part(b) or not grace_ok:
        return f"spec: Forbidden: pod updates may not change fields other than {POD_UPDATE_FIELDS}"
    return None


def _spec_refusal(kind: str, a: Dict, b: Dict) -> str | None:
    """The rule of ``kind``'s update validation the new spec ``b`` breaks, over ``a``."""
    if kind == "Pod":
        return _pod_refusal(a, b)
    if kind in ("Deployment", "ReplicaSet", "DaemonSet", "Job") and a.get("selector") != b.get("selector"):
        return f"spec.selector: Invalid value: {_selector_json(b.get('selector'))}: field is immutable"
    if kind == "StatefulSet":
        def fixed(spec: Dict) -> Dict:
            out = {k: v for k, v in spec.items() if k not in STATEFULSET_MUTABLE}
            out.setdefault("podManagementPolicy", "OrderedReady")
            return out
        return STATEFULSET_FORBIDDEN if fixed(a) != fixed(b) else None
    if kind == "Job" and a.get("template") != b.get("template") and not a.get("suspend"):
        # The template of a Job that is not suspended stays as created (validatePodTemplateUpdate).
        return "spec.template: Invalid value: core.PodTemplateSpec{…}: field is immutable"
    return None


def update_refusal(old: Dict, new: Dict) -> str | None:
    """Why the API server refuses ``new`` applied over the object ``old`` created (None
    when the update is allowed), as ``KIND "NAME" is invalid: FIELD: …``."""
    kind = str(new.get("kind") or "")
    a, b = old.get("spec"), new.get("spec")
    if kind not in _QUALIFIED or not isinstance(a, dict) or not isinstance(b, dict) or a == b:
        return None
    reason = _spec_refusal(kind, a, b)
    if reason is None:
        return None
    return f'{_QUALIFIED[kind]} "{_map(new, "metadata").get("name")}" is invalid: {reason}'


def _selector_differs(a: Any, b: Any) -> bool:
    """Two label selectors differ as the API server compares them (a missing list or map
    equals an empty one)."""
    def norm(s: Any) -> tuple[Any, Any]:
        s = s if isinstance(s, dict) else {}
        return s.get("matchLabels") or {}, s.get("matchExpressions") or []
    return norm(a) != norm(b)


def _claim_template_view(template: Any, keys: Dict) -> Any:
    """The parts of a volumeClaimTemplate that ``keys`` (the manifest's own template) sets:
    its name, requested storage (as an amount), and access modes, class, volume mode and
    selector where written; the API server's defaults elsewhere are not compared."""
    meta, spec = _map(template, "metadata"), _map(template, "spec")
    given = _map(keys, "spec")
    storage = _map(_map(spec, "resources"), "requests").get("storage")
    try:
        amount: Any = parse_quantity(storage) if storage is not None else None
    except QuantityError:
        amount = storage
    view: Dict = {"name": meta.get("name"), "storage": amount}
    for key in ("accessModes", "storageClassName", "volumeMode", "selector"):
        if key in given:
            view[key] = spec.get(key)
    return view


def live_update_refusal(new: Dict, live: Dict) -> str | None:
    """Why the API server refuses ``kubectl apply`` of ``new`` over the object the cluster
    runs (None when it accepts it). Only what the manifest writes is compared (a field it
    leaves out, the three-way merge leaves as it is), and only where the cluster's stored
    object can be compared without the API server's defaulting: a Deployment's,
    ReplicaSet's or DaemonSet's selector; a StatefulSet's selector, serviceName,
    podManagementPolicy and volumeClaimTemplates (names, requested storage, and what the
    manifest writes of access modes, class, volume mode and selector)."""
    kind = str(new.get("kind") or "")
    a, b = _map(live, "spec"), _map(new, "spec")
    reason: str | None = None
    if kind in ("Deployment", "ReplicaSet", "DaemonSet"):
        if "selector" in b and _selector_differs(a.get("selector"), b.get("selector")):
            reason = f"spec.selector: Invalid value: {_selector_json(b.get('selector'))}: field is immutable"
    elif kind == "StatefulSet":
        fixed = ("selector" in b and _selector_differs(a.get("selector"), b.get("selector"))) or \
            ("serviceName" in b and (a.get("serviceName") or "") != (b.get("serviceName") or "")) or \
            ("podManagementPolicy" in b and (a.get("podManagementPolicy") or "OrderedReady") != b["podManagementPolicy"])
        if not fixed and "volumeClaimTemplates" in b:
            mine = [t for t in b.get("volumeClaimTemplates") or [] if isinstance(t, dict)]
            theirs = [t for t in a.get("volumeClaimTemplates") or [] if isinstance(t, dict)]
            fixed = len(mine) != len(theirs) or any(
                _claim_template_view(x, m) != _claim_template_view(m, m) for x, m in zip(theirs, mine, strict=True))
        reason = STATEFULSET_FORBIDDEN if fixed else None
    if reason is None:
        return None
    return f'{_QUALIFIED[kind]} "{_map(new, "metadata").get("name")}" is invalid: {reason}'

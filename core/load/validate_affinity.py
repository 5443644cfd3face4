"""The API server's validation of pod (anti-)affinity selectors in an incoming manifest.

``kubectl apply`` of a pod (or a workload's pod template) whose pod (anti-)affinity
``labelSelector`` / ``namespaceSelector`` has an invalid label key or value, an unknown
operator or a values list that does not fit the operator is rejected by the API server
(pkg/apis/core/validation ``validatePodAffinityTerm`` -> metav1 validation
``ValidateLabelSelector``; invalid values are allowed only on update of a pod that already
had them). So such a manifest is bad input, reported in the API server's words. Pods of the
cluster source are taken as stored instead; the scheduler's own parse error applies to them
(InterPodAffinity's PreFilter, see kschedx.core.affinity).

Node-affinity requirement values are not label-validated by the API server, so they are
not checked here: NodeAffinity simply matches no node with such a term.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kschedx.core.errors import InputError
from kschedx.core.selector_errors import go_quote, label_key_errors, label_value_errors

Dict = dict[str, Any]

# Where each kind keeps the pod spec the API server validates.
_POD_SPEC_PATH: dict[str, tuple[str, ...]] = {
    "Pod": ("spec",),
    "PodTemplate": ("template", "spec"),
    "Deployment": ("spec", "template", "spec"),
    "ReplicaSet": ("spec", "template", "spec"),
    "ReplicationController": ("spec", "template", "spec"),
    "StatefulSet": ("spec", "template", "spec"),
    "DaemonSet": ("spec", "template", "spec"),
    "Job": ("spec", "template", "spec"),
    "CronJob": ("spec", "jobTemplate", "spec", "template", "spec"),
}


def _selector_errors(sel: Any, path: str) -> Iterator[str]:
    """metav1 validation ``ValidateLabelSelector``, one message per field error."""
    if not isinstance(sel, dict):
        return
    labels = sel.get("matchLabels") or {}
    if isinstance(labels, dict):
        for k, v in labels.items():
            for msg in label_key_errors(str(k)):
                yield f"{path}.matchLabels: Invalid value: {go_quote(str(k))}: {msg}"
            for msg in label_value_errors("" if v is None else str(v)):
                yield f"{path}.matchLabels: Invalid value: {go_quote(str(v))}: {msg}"
    exprs = sel.get("matchExpressions") or []
    if not isinstance(exprs, list):
        return
    for i, e in enumerate(exprs):
        if not isinstance(e, dict):
            continue
        where = f"{path}.matchExpressions[{i}]"
        op = e.get("operator")
        values = e.get("values") or []
        if not isinstance(values, list):
            values = []
        if op in ("In", "NotIn"):
            if not values:
                yield f"{where}.values: Required value: must be specified when `operator` is 'In' or 'NotIn'"
        elif op in ("Exists", "DoesNotExist"):
            if values:
                yield f"{where}.values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"
        else:
            yield f"{where}.operator: Invalid value: {go_quote(str(op or ''))}: not a valid selector operator"
        key = str(e.get("key") or "")
        for msg in label_key_errors(key):
            yield f"{where}.key: Invalid value: {go_quote(key)}: {msg}"
        for j, v in enumerate(values):
            for msg in label_value_errors(str(v)):
                yield f"{where}.values[{j}]: Invalid value: {go_quote(str(v))}: {msg}"


def _term_errors(term: Any, path: str) -> Iterator[str]:
    if isinstance(term, dict):
        yield from _selector_errors(term.get("labelSelector"), f"{path}.labelSelector")
        yield from _selector_errors(term.get("namespaceSelector"), f"{path}.namespaceSelector")


def affinity_selector_errors(spec: Any, path: str) -> Iterator[str]:
    """Every field error of the pod (anti-)affinity selectors of a pod spec at ``path``."""
    affinity = spec.get("affinity") if isinstance(spec, dict) else None
    if not isinstance(affinity, dict):
        return
    for kind in ("podAffinity", "podAntiAffinity"):
        stanza = affinity.get(kind)
        if not isinstance(stanza, dict):
            continue
        base = f"{path}.affinity.{kind}"
        required = stanza.get("requiredDuringSchedulingIgnoredDuringExecution") or []
        for i, term in enumerate(required if isinstance(required, list) else []):
            yield from _term_errors(term, f"{base}.requiredDuringSchedulingIgnoredDuringExecution[{i}]")
        preferred = stanza.get("preferredDuringSchedulingIgnoredDuringExecution") or []
        for i, w in enumerate(preferred if isinstance(preferred, list) else []):
            if isinstance(w, dict):
                yield from _term_errors(
                    w.get("podAffinityTerm"),
                    f"{base}.preferredDuringSchedulingIgnoredDuringExecution[{i}].podAffinityTerm",
                )


def check_affinity_selectors(obj: Dict, path: str) -> None:
    """Raise InputError with the API server's first field error, naming ``path`` (the file)."""
    keys = _POD_SPEC_PATH.get(str(obj.get("kind") or ""))
    if keys is None:
        return
    spec: Any = obj
    for k in keys:
        spec = spec.get(k) if isinstance(spec, dict) else None
    for err in affinity_selector_errors(spec, ".".join(keys)):
        raise InputError(err, path=path)

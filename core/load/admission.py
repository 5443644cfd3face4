"""What the API server's registry does to an incoming pod besides admission plugins
(those are :mod:`kschedx.core.admission`):

- defaulting: the namespace (``-n``, else the manifest's, else ``default``) and
  ``schedulerName``;
- the pod strategy's matchLabelKeys / mismatchLabelKeys merge into pod (anti-)affinity
  label selectors (see ``merge_affinity_label_keys``): it runs in the registry's
  PrepareForCreate, not in an admission plugin, so it stays beside the other registry
  steps.
Container requests from limits and node allocatable from capacity are defaulted where
they are read (see :mod:`kschedx.core.api.model`).
"""

from __future__ import annotations

from typing import Any

Dict = dict[str, Any]


def apply_defaults(pod: Dict, namespace: str | None = None) -> None:
    """The pod's namespace and schedulerName as the API server stores them (in place)."""
    meta = pod.setdefault("metadata", {})
    if namespace:
        meta["namespace"] = namespace
    elif not meta.get("namespace"):
        meta["namespace"] = "default"
    spec = pod.setdefault("spec", {})
    if not spec.get("schedulerName"):
        spec["schedulerName"] = "default-scheduler"


def _merge_label_keys(term: Dict, labels: Dict) -> None:
    selector = term.get("labelSelector")
    if not isinstance(selector, dict):
        return  # a nil selector matches nothing and the API server leaves it nil
    exprs = selector.get("matchExpressions")
    if not isinstance(exprs, list):
        exprs = []
    added = False
    for field, op in (("matchLabelKeys", "In"), ("mismatchLabelKeys", "NotIn")):
        for key in term.get(field) or ():
            if not isinstance(key, str) or key not in labels:
                continue
            req = {"key": key, "operator": op, "values": [str(labels[key])]}
            # Idempotent: a manifest copied from a stored pod already carries the merge.
            if req not in exprs:
                exprs.append(req)
                added = True
    if added:
        selector["matchExpressions"] = exprs


def merge_affinity_label_keys(pod: Dict) -> None:
    """What the API server does to a pod on create (pkg/registry/core/pod/strategy.go,
    mutatePodAffinity): each pod (anti-)affinity term's matchLabelKeys become ``key In
    (value)`` and its mismatchLabelKeys ``key NotIn (value)`` requirements of its
    labelSelector, with the pod's own label values. The scheduler then uses the stored
    selector as it is, so pods of the cluster source are never merged again."""
    affinity = (pod.get("spec") or {}).get("affinity")
    if not isinstance(affinity, dict):
        return
    labels = (pod.get("metadata") or {}).get("labels") or {}
    if not isinstance(labels, dict):
        return
    for kind in ("podAffinity", "podAntiAffinity"):
        stanza = affinity.get(kind)
        if not isinstance(stanza, dict):
            continue
        for term in stanza.get("requiredDuringSchedulingIgnoredDuringExecution") or ():
            if isinstance(term, dict):
                _merge_label_keys(term, labels)
        for weighted in stanza.get("preferredDuringSchedulingIgnoredDuringExecution") or ():
            term = weighted.get("podAffinityTerm") if isinstance(weighted, dict) else None
            if isinstance(term, dict):
                _merge_label_keys(term, labels)

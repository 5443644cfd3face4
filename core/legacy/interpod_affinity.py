"""InterPodAffinityPriority.

For every pod on every node of the cluster, each topology domain gains or loses weight:
the incoming pod's preferred affinity (+weight) and anti-affinity (−weight) terms that
match the existing pod, the existing pod's required affinity terms that match the
incoming pod (+hardPodAffinitySymmetricWeight, default 1), and its preferred affinity
(+weight) and anti-affinity (−weight) terms that match the incoming pod. A term adds its
weight to every scored node sharing the existing pod's node's value of the term's
topology key. The raw score is that sum; the final score is
10 × (count − min) / (max − min), with min ≤ 0 ≤ max, truncated."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kschedx.core.api.model import PodInfo
from kschedx.core.api.selectors import LabelSelector, SelectorError, parse_label_selector
from kschedx.core.legacy import MAX_PRIORITY
from kschedx.core.legacy.base import PriorityError, PriorityFunction
from kschedx.core.legacy.meta import Meta
from kschedx.core.snapshot import NodeInfo

_SELECTORS: dict[int, tuple[Any, LabelSelector]] = {}


def _selector(term: Mapping[str, Any]) -> LabelSelector:
    """The term's compiled label selector, cached by the term's identity (the same dicts
    are met once per pod on every node)."""
    raw = term.get("labelSelector")
    hit = _SELECTORS.get(id(term))
    if hit is not None and hit[0] is raw:
        return hit[1]
    try:
        sel = parse_label_selector(raw)
    except SelectorError as e:
        raise PriorityError(str(e)) from None
    if len(_SELECTORS) > 100_000:
        _SELECTORS.clear()
    _SELECTORS[id(term)] = (raw, sel)
    return sel


def _term_matches(term: Mapping[str, Any], owner: PodInfo, other: PodInfo) -> bool:
    """Whether ``other`` is selected by ``owner``'s term (namespaces default to the owner's)."""
    namespaces = term.get("namespaces") or ()
    if namespaces:
        if other.namespace not in [str(n) for n in namespaces]:
            return False
    elif other.namespace != owner.namespace:
        return False
    return _selector(term).matches(other.labels)


class InterPodAffinityPriority(PriorityFunction):
    function = "InterPodAffinityPriority"
    has_reduce = True

    def map_all(self, meta: Meta, nodes: list[NodeInfo]) -> dict[str, int]:
        counts = {n.name: 0 for n in nodes}
        pod = meta.pod
        aff = pod.affinity
        pa = aff.get("podAffinity")
        paa = aff.get("podAntiAffinity")
        weight_hard = meta.hard_pod_affinity_weight

        # Weight per topology domain (key, value); spread onto the scored nodes at the end,
        # which adds the same weights as visiting every node for each matching term.
        domains: dict[tuple[str, str], int] = {}

        def add(term: Mapping[str, Any], fixed: NodeInfo, weight: int) -> None:
            key = str(term.get("topologyKey") or "")
            if not key:
                return
            value = fixed.node.labels.get(key)
            if value is None:
                return
            domains[(key, value)] = domains.get((key, value), 0) + weight

        def preferred(terms: Any, owner: PodInfo, other: PodInfo, fixed: NodeInfo, sign: int) -> None:
            for wt in terms or []:
                term = (wt or {}).get("podAffinityTerm") or {}
                if _term_matches(term, owner, other):
                    add(term, fixed, int((wt or {}).get("weight") or 0) * sign)

        for ni in meta.all_nodes:
            for existing in ni.pods:
                eaff = existing.affinity
                epa = eaff.get("podAffinity")
                epaa = eaff.get("podAntiAffinity")
                if pa is not None:
                    preferred(pa.get("preferredDuringSchedulingIgnoredDuringExecution"), pod, existing, ni, 1)
                if paa is not None:
                    preferred(paa.get("preferredDuringSchedulingIgnoredDuringExecution"), pod, existing, ni, -1)
                if epa is not None:
                    if weight_hard > 0:
                        for term in epa.get("requiredDuringSchedulingIgnoredDuringExecution") or []:
                            if _term_matches(term or {}, existing, pod):
                                add(term or {}, ni, weight_hard)
                    preferred(epa.get("preferredDuringSchedulingIgnoredDuringExecution"), existing, pod, ni, 1)
                if epaa is not None:
                    preferred(epaa.get("preferredDuringSchedulingIgnoredDuringExecution"), existing, pod, ni, -1)
        for (key, value), weight in domains.items():
            for n in nodes:
                if n.node.labels.get(key) == value:
                    counts[n.name] += weight
        return counts

    def reduce(self, meta: Meta, scores: dict[str, int]) -> dict[str, int]:
        hi = max([0, *scores.values()])
        lo = min([0, *scores.values()])
        out = {}
        for name, c in scores.items():
            f = 0.0
            if hi - lo > 0:
                f = float(MAX_PRIORITY) * ((c - lo) / (hi - lo))
            out[name] = int(f)
        return out

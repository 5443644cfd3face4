"""Pod (anti-)affinity terms compiled once per pod, as the scheduler's PodInfo holds them.

A term selects pods by label in a set of namespaces: the term's ``namespaces`` list, or
its ``namespaceSelector`` over namespace labels, or — when it has neither — the pod's own
namespace. A nil label selector (or namespace selector) matches nothing; an empty one
matches everything. ``matchLabelKeys`` / ``mismatchLabelKeys`` are not read here: the API
server merges them into the label selector when the pod is created (for the incoming
manifest kschedx does that in admission) and the scheduler uses the stored selector as it is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kschedx.core.selectors import NOTHING, LabelSelector, parse_label_selector

Labels = Mapping[str, str]


@dataclass(frozen=True, slots=True)
class AffinityTerm:
    namespaces: frozenset[str]
    selector: LabelSelector
    topology_key: str
    namespace_selector: LabelSelector

    def matches(self, namespace: str, labels: Labels, namespace_labels: Labels | None) -> bool:
        """``AffinityTerm.Matches``: the pod is in one of the term's namespaces (by name or by
        the namespace selector over ``namespace_labels``) and its labels match."""
        if namespace in self.namespaces or self.namespace_selector.matches(namespace_labels or {}):
            return self.selector.matches(labels)
        return False

    def with_namespaces(self, names: Sequence[str]) -> AffinityTerm:
        """The term with its namespace selector resolved to names (and then matching no
        other namespace), as PreFilter/PreScore merge the incoming pod's terms."""
        return AffinityTerm(self.namespaces | frozenset(names), self.selector, self.topology_key, NOTHING)


@dataclass(frozen=True, slots=True)
class WeightedTerm:
    term: AffinityTerm
    weight: int


@dataclass(frozen=True, slots=True)
class PodAffinityTerms:
    required_affinity: tuple[AffinityTerm, ...] = ()
    required_anti_affinity: tuple[AffinityTerm, ...] = ()
    preferred_affinity: tuple[WeightedTerm, ...] = ()
    preferred_anti_affinity: tuple[WeightedTerm, ...] = ()


NO_TERMS = PodAffinityTerms()


def compile_term(term: Mapping[str, Any], namespace: str) -> AffinityTerm:
    names = [str(n) for n in term.get("namespaces") or ()]
    ns_selector_spec = term.get("namespaceSelector")
    if not names and ns_selector_spec is None:
        names = [namespace]
    return AffinityTerm(
        frozenset(names),
        parse_label_selector(term.get("labelSelector")),
        str(term.get("topologyKey") or ""),
        parse_label_selector(ns_selector_spec),
    )


def _weighted(items: Sequence[Mapping[str, Any]] | None, namespace: str) -> tuple[WeightedTerm, ...]:
    return tuple(
        WeightedTerm(compile_term(w.get("podAffinityTerm") or {}, namespace), int(w.get("weight") or 0))
        for w in items or ()
    )


def compile_pod_terms(affinity: Mapping[str, Any], namespace: str) -> PodAffinityTerms:
    """Every pod (anti-)affinity term of a pod's ``spec.affinity``."""
    pa = affinity.get("podAffinity") or {}
    paa = affinity.get("podAntiAffinity") or {}
    if not pa and not paa:
        return NO_TERMS
    return PodAffinityTerms(
        tuple(compile_term(t, namespace) for t in pa.get("requiredDuringSchedulingIgnoredDuringExecution") or ()),
        tuple(compile_term(t, namespace) for t in paa.get("requiredDuringSchedulingIgnoredDuringExecution") or ()),
        _weighted(pa.get("preferredDuringSchedulingIgnoredDuringExecution"), namespace),
        _weighted(paa.get("preferredDuringSchedulingIgnoredDuringExecution"), namespace),
    )

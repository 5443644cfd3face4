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

from kschedx.core.api.selector_errors import aggregate
from kschedx.core.api.selectors import NOTHING, LabelSelector, SelectorError, parse_label_selector

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
    # The selector parse errors as the scheduler's PodInfo.Update aggregates them; a list
    # with an error is left empty, as upstream leaves it nil.
    parse_error: str | None = None


NO_TERMS = PodAffinityTerms()


def compile_term(term: Mapping[str, Any], namespace: str) -> AffinityTerm:
    """``newAffinityTerm``. Raises SelectorError for a selector ``labels.NewRequirement`` rejects."""
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


def _required(items: Sequence[Mapping[str, Any]] | None, namespace: str) -> tuple[AffinityTerm, ...]:
    return tuple(compile_term(t, namespace) for t in items or ())


def _weighted(items: Sequence[Mapping[str, Any]] | None, namespace: str) -> tuple[WeightedTerm, ...]:
    return tuple(
        WeightedTerm(compile_term(w.get("podAffinityTerm") or {}, namespace), int(w.get("weight") or 0))
        for w in items or ()
    )


def compile_pod_terms(affinity: Mapping[str, Any], namespace: str) -> PodAffinityTerms:
    """Every pod (anti-)affinity term of a pod's ``spec.affinity``.

    As upstream's ``PodInfo.Update``: each of the four lists is compiled on its own; one
    whose selector does not parse is dropped (left empty) and its error recorded under the
    list's name, the errors joined as ``utilerrors.NewAggregate`` joins them.
    """
    pa = affinity.get("podAffinity") or {}
    paa = affinity.get("podAntiAffinity") or {}
    if not pa and not paa:
        return NO_TERMS
    errors: list[str] = []

    def each(name: str, compile_list: Any, items: Any) -> Any:
        try:
            return compile_list(items, namespace)
        except SelectorError as e:
            errors.append(f"{name}: {e}")
            return ()

    required = "requiredDuringSchedulingIgnoredDuringExecution"
    preferred = "preferredDuringSchedulingIgnoredDuringExecution"
    terms = PodAffinityTerms(
        each("requiredAffinityTerms", _required, pa.get(required)),
        each("requiredAntiAffinityTerms", _required, paa.get(required)),
        each("preferredAffinityTerms", _weighted, pa.get(preferred)),
        each("preferredAntiAffinityTerms", _weighted, paa.get(preferred)),
    )
    if errors:
        return PodAffinityTerms(
            terms.required_affinity, terms.required_anti_affinity, terms.preferred_affinity,
            terms.preferred_anti_affinity, aggregate(errors),
        )
    return terms

"""NodeAffinity: nodeSelector and required node affinity filter; preferred terms score."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

from kschedx.core.api.model import PodInfo
from kschedx.core.api.selector_errors import aggregate
from kschedx.core.api.selectors import (
    NodeSelector,
    NodeSelectorTerm,
    parse_node_selector,
    parse_node_selector_term,
)
from kschedx.core.framework.interface import CycleState, Plugin, PreFilterResult, Status, default_normalize
from kschedx.core.framework.shared_answers import canonical
from kschedx.core.snapshot import NodeInfo

NAME = "NodeAffinity"
ERR_REASON_POD = "node(s) didn't match Pod's node affinity/selector"
ERR_REASON_ENFORCED = "node(s) didn't match scheduler-enforced node affinity"
ERR_REASON_CONFLICT = "pod affinity terms conflict"


@dataclass
class _Required:
    node_selector: dict[str, str] | None
    affinity: NodeSelector | None

    def matches(self, node: NodeInfo) -> bool:
        labels = node.node.labels
        if self.node_selector:
            for k, v in self.node_selector.items():
                if labels.get(k) != v:
                    return False
        if self.affinity is not None and not self.affinity.matches(node.name, labels):
            return False
        return True


def _weighted_terms(items: list[dict[str, Any]] | None) -> tuple[list[tuple[int, NodeSelectorTerm]], str | None]:
    """``nodeaffinity.NewPreferredSchedulingTerms``: terms of weight 0 or with an empty
    preference are dropped unparsed; any other term that does not parse makes the whole
    list an error (every term's field errors, flattened and joined as an aggregate)."""
    out = []
    errors: list[str] = []
    for i, t in enumerate(items or []):
        w = int(t.get("weight") or 0)
        pref = t.get("preference") or {}
        if w == 0 or (not pref.get("matchExpressions") and not pref.get("matchFields")):
            continue
        term = parse_node_selector_term(pref, f"[{i}]")
        if term.errors:
            errors.extend(term.errors)
        else:
            out.append((w, term))
    if errors:
        return [], aggregate(errors)
    return out, None


class NodeAffinity(Plugin):
    name = NAME
    normalize_reverse = False  # NormalizeScore is default_normalize(reverse=False)
    node_local = True
    passes_after_removal = True  # reads no pod

    def __init__(self, handle: Any, args: dict[str, Any] | None = None) -> None:
        super().__init__(handle, args)
        added = (self.args.get("addedAffinity") or {}) if self.args else {}
        self.added_selector: NodeSelector | None = parse_node_selector(
            added.get("requiredDuringSchedulingIgnoredDuringExecution")
        )
        # The configuration's terms were validated with it.
        self.added_preferred, _ = _weighted_terms(added.get("preferredDuringSchedulingIgnoredDuringExecution"))
        # Upstream keeps the added preferred terms only when the list is non-empty, and
        # PreScore skips when neither the pod nor the args have any.
        self.has_added_preferred = bool(added.get("preferredDuringSchedulingIgnoredDuringExecution"))

    def pod_signature(self, pod: PodInfo) -> Hashable:
        """What PreFilter, Filter, PreScore and Score read of the pod
        (core/framework/shared_answers.py): its nodeSelector and node affinity."""
        return canonical([pod.spec.get("nodeSelector"), pod.affinity.get("nodeAffinity")])

    @staticmethod
    def _required(pod: PodInfo) -> _Required:
        ns = pod.spec.get("nodeSelector")
        return _Required({str(k): str(v) for k, v in ns.items()} if ns else None, pod.required_node_selector)

    def pre_filter(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> tuple[PreFilterResult | None, Status]:
        na = (pod.affinity.get("nodeAffinity") or {})
        required = na.get("requiredDuringSchedulingIgnoredDuringExecution")
        if required is None and self.added_selector is None and pod.spec.get("nodeSelector") is None:
            return None, Status.skip()
        state.data[NAME] = self._required(pod)
        terms = (required or {}).get("nodeSelectorTerms") or []
        if required is None or not terms:
            return None, Status.success()
        names: set[str] | None = None
        for t in terms:
            term_names: set[str] | None = None
            for r in (t or {}).get("matchFields") or []:
                if r.get("key") == "metadata.name" and r.get("operator") == "In":
                    s = {str(v) for v in r.get("values") or []}
                    term_names = s if term_names is None else term_names & s
            if term_names is None:
                return None, Status.success()  # terms are ORed: this one admits every node
            names = term_names if names is None else names | term_names
        if names is not None and not names:
            return None, Status.unresolvable(ERR_REASON_CONFLICT)
        if names:
            return PreFilterResult(names), Status.success()
        return None, Status.success()

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status:
        if self.added_selector is not None and not self.added_selector.matches(node.name, node.node.labels):
            return Status.unresolvable(ERR_REASON_ENFORCED)
        req: _Required | None = state.data.get(NAME)
        if req is None:
            req = self._required(pod)
        if not req.matches(node):
            return Status.unresolvable(ERR_REASON_POD)
        return Status.success()

    @staticmethod
    def _preferred(pod: PodInfo) -> tuple[list[tuple[int, NodeSelectorTerm]] | None, str | None]:
        """``getPodPreferredNodeAffinity``: None when the pod has no preferred list."""
        na = pod.affinity.get("nodeAffinity") or {}
        preferred = na.get("preferredDuringSchedulingIgnoredDuringExecution")
        if preferred is None:
            return None, None
        return _weighted_terms(preferred)

    def pre_score(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> Status:
        if not nodes:
            return Status.success()
        terms, error = self._preferred(pod)
        if error is not None:
            return Status.error(error)
        if terms is None and not self.has_added_preferred:
            return Status.skip()
        state.data[NAME + "/score"] = terms or []
        return Status.success()

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> tuple[int, Status]:
        terms: list[tuple[int, NodeSelectorTerm]] | None = state.data.get(NAME + "/score")
        if terms is None:
            # Score enabled without PreScore: upstream parses the pod's preferred terms here.
            terms, error = self._preferred(pod)
            if error is not None:
                return 0, Status.error(error)
        total = 0
        labels = node.node.labels
        for w, t in self.added_preferred:
            if t.matches(node.name, labels):
                total += w
        for w, t in terms or ():
            if t.matches(node.name, labels):
                total += w
        return total, Status.success()

    def normalize_score(self, state: CycleState, pod: PodInfo, scores: dict[str, int]) -> Status:
        default_normalize(scores, reverse=False)
        return Status.success()

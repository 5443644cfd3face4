"""Nominated pods: what pending pods with ``status.nominatedNodeName`` did to each node's verdict.

Upstream (v1.35.4 pkg/scheduler/framework/runtime/framework.go, ``RunFilterPluginsWithNominatedPods``
and ``addGENominatedPods``) runs a node's filters twice when pods are nominated to it: first with
the nominated pods of equal or higher priority added to the node (the incoming pod must not take
room kept for them), then, if that passed, without them (they may still land elsewhere, and a
filter like pod affinity must not rely on them).  Lower-priority nominated pods are ignored: the
incoming pod may take what was freed for them.  The cycle records which pass decided
(``Framework.filter_with_nominated``); this module turns that into the per-node story every
output format shows, and never changes a verdict.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kschedx.core.model import PodInfo

if TYPE_CHECKING:
    from kschedx.core.framework import CycleState
    from kschedx.core.result import CycleResult
    from kschedx.core.snapshot import NodeInfo, Snapshot

# Which pass of the two decided a node's verdict (Framework.filter_with_nominated records it).
FAILED_WITH = "failed with them"  # the first pass, nominated pods added, rejected the node
FAILED_WITHOUT = "failed without them"  # passed with them, the second pass without them rejected it
PASSED_BOTH = "passed both"


@dataclass
class NominatedPod:
    pod: str
    priority: int
    counted: bool

    def to_json(self) -> dict[str, Any]:
        return {"pod": self.pod, "priority": self.priority, "counted": self.counted}


@dataclass
class NominatedOnNode:
    """The pods nominated to one node and what they did to its filters."""

    node: str
    pods: list[NominatedPod]
    # FAILED_WITH, FAILED_WITHOUT, PASSED_BOTH; None: no pod counted (filters ran once, without
    # them) or the node never reached Filter.
    outcome: str | None = None
    # With FAILED_WITH: whether the filters pass once the counted pods are left out, i.e. the
    # nominated pods alone cost the pod this node.
    fits_without: bool | None = None
    counted: list[NominatedPod] = field(init=False)
    ignored: list[NominatedPod] = field(init=False)

    def __post_init__(self) -> None:
        self.counted = [p for p in self.pods if p.counted]
        self.ignored = [p for p in self.pods if not p.counted]

    def describe(self, pod_priority: int) -> str:
        """One plain sentence for the table, the node story and the JSON."""
        parts: list[str] = []
        if self.counted:
            names = ", ".join(f"{p.pod} (priority {p.priority})" for p in self.counted)
            parts.append(f"counted {names}: priority >= the pod's {pod_priority}")
        if self.ignored:
            names = ", ".join(f"{p.pod} (priority {p.priority})" for p in self.ignored)
            parts.append(f"ignored {names}: lower priority than the pod's {pod_priority}, "
                         "whose room the pod may take")
        text = "; ".join(parts)
        they = "it" if len(self.counted) == 1 else "them"
        if self.outcome == FAILED_WITH:
            if self.fits_without:
                text += f"; the node fails only with {they} counted: without {they} the filters pass"
            else:
                text += f"; the filters fail with {they} counted (and would fail without {they} too)"
        elif self.outcome == FAILED_WITHOUT:
            text += (f"; the filters pass with {they} but fail without {they}: the scheduler requires both, "
                     "since a nominated pod may still land elsewhere")
        elif self.outcome == PASSED_BOTH:
            text += f"; the filters pass with and without {they}"
        return text

    def hint(self) -> str | None:
        """For --node: what would free the node, when the nominated pods alone cost it."""
        if self.outcome != FAILED_WITH or not self.fits_without:
            return None
        names = ", ".join(p.pod for p in self.counted)
        top = max(p.priority for p in self.counted)
        return (f"the room is kept for nominated {_pods(len(self.counted))} {names}: the node fits once "
                f"{'it is' if len(self.counted) == 1 else 'they are'} bound or gone, or if the pod's priority "
                f"were above {top}")

    def to_json(self, pod_priority: int) -> dict[str, Any]:
        return {
            "pods": [p.to_json() for p in self.pods],
            "outcome": self.outcome,
            "fitsWithout": self.fits_without,
            "summary": self.describe(pod_priority),
        }


def _pods(n: int) -> str:
    return "pod" if n == 1 else "pods"


def counts_on_node(nominated: PodInfo, pod: PodInfo) -> bool:
    """``addGENominatedPods``: equal or higher priority, and not the pod itself."""
    return nominated.priority >= pod.priority and nominated.uid != pod.uid


def nominated_story(
    snapshot: Snapshot,
    pod: PodInfo,
    result: CycleResult,
    passes: dict[str, str],
    filter_without: Any,
) -> dict[str, NominatedOnNode]:
    """Per node with nominated pods (other than the pod itself): which counted, which were
    ignored, and which pass decided.  ``filter_without(node)`` runs the filters without the
    nominated pods (True: the node passes); it is called only for nodes rejected in the pass
    with them, to tell whether they alone cost the pod the node."""
    out: dict[str, NominatedOnNode] = {}
    for node_name, pods in snapshot.nominated.items():
        listed = [NominatedPod(p.key, p.priority, counts_on_node(p, pod)) for p in pods if p.uid != pod.uid]
        if not listed:
            continue
        story = NominatedOnNode(node_name, listed)
        verdict = result.nodes.get(node_name)
        if story.counted and verdict is not None and verdict.rejected_at != "PreFilter":
            story.outcome = passes.get(node_name, PASSED_BOTH if verdict.feasible else None)
            if story.outcome == FAILED_WITH:
                story.fits_without = bool(filter_without(node_name))
        out[node_name] = story
    return out


def run_without(fw: Any, state: CycleState, pod: PodInfo, node: NodeInfo) -> bool:
    """The filters on the node as it is, nominated pods left out (upstream's second pass)."""
    return not fw.run_filter(state, pod, node)


def prefer_nominated_node(result: CycleResult, pod: PodInfo) -> None:
    """The pod's own ``status.nominatedNodeName`` (set when it preempted in an earlier cycle).

    ``findNodesThatFitPod`` (schedule_one.go, ``evaluateNominatedNode``) filters that node first
    and, when it passes, returns it as the only feasible node: ``schedulePod`` then binds it
    without filtering the other nodes or scoring.  kschedx has evaluated every node (shown for
    the explanation) and makes the nominated node the choice; when it fails, the scheduler goes
    on over all nodes as usual."""
    name = pod.nominated_node_name
    verdict = result.nodes.get(name) if name else None
    if verdict is None:
        return  # not nominated, or to a node that is gone: upstream evaluates every node
    if not verdict.feasible:
        result.warnings.append(
            f"the pod is nominated to {name} (status.nominatedNodeName) but that node fails the filters now: "
            "the scheduler tries it first, then evaluates every node as shown"
        )
        return
    if result.single_feasible_node:
        return  # the single-feasible-node shortcut says it already
    result.best_nodes = [name]
    result.selected_node = name
    result.warnings.append(
        f"the pod is nominated to {name} (status.nominatedNodeName, from an earlier preemption): the scheduler "
        "filters that node first and, as it passes, binds the pod there without filtering the other nodes or "
        "scoring; their verdicts and scores are shown for the explanation only"
    )

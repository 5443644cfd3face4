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

from typing import TYPE_CHECKING, Any

from kschedx.core.api.model import PodInfo
from kschedx.core.framework.result import FAILED_WITH, PASSED_BOTH, CycleResult, NominatedOnNode, NominatedPod

if TYPE_CHECKING:
    from kschedx.core.framework.interface import CycleState
    from kschedx.core.snapshot import NodeInfo, Snapshot


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

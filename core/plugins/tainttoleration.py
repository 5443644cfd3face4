"""TaintToleration: NoSchedule/NoExecute taints filter; untolerated PreferNoSchedule taints score."""

from __future__ import annotations

from collections.abc import Hashable

from kschedx.core.api.model import PodInfo
from kschedx.core.api.selectors import Toleration, find_untolerated_taint, tolerates
from kschedx.core.framework.interface import CycleState, Plugin, Status, default_normalize
from kschedx.core.snapshot import NodeInfo

NAME = "TaintToleration"
ERR_REASON_UNTOLERATED = "node(s) had untolerated taint(s)"
_FILTER_EFFECTS = frozenset({"NoSchedule", "NoExecute"})


class TaintToleration(Plugin):
    name = NAME
    normalize_reverse = True  # NormalizeScore is default_normalize(reverse=True)
    node_local = True
    passes_after_removal = True  # reads no pod

    def pod_signature(self, pod: PodInfo) -> Hashable:
        """What Filter and Score read of the pod (core/framework/shared_answers.py)."""
        return pod.tolerations

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status:
        taint = find_untolerated_taint(node.node.taints, pod.tolerations, _FILTER_EFFECTS)
        if taint is None:
            return Status.success()
        if not self.version.at_least(34):
            # Until kubernetes#134740 (v1.35, backported to v1.34 patch releases) the reason
            # named the taint; since then it doesn't, as taints may carry sensitive values.
            return Status.unresolvable(f"node(s) had untolerated taint {{{taint.key}: {taint.value}}}")
        return Status.unresolvable(ERR_REASON_UNTOLERATED)

    def filter_nodes(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> list[tuple[int, Status]]:
        """:meth:`filter`'s failures among ``nodes`` (their positions), in bulk: a node
        without taints always passes."""
        out: list[tuple[int, Status]] = []
        for i, ni in enumerate(nodes):
            if ni.node.taints:
                st = self.filter(state, pod, ni)
                if not st.is_success:
                    out.append((i, st))
        return out

    def pre_score(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> Status:
        # Only tolerations that can tolerate PreferNoSchedule (effect empty or PreferNoSchedule) count.
        state.data[NAME] = [t for t in pod.tolerations if t.effect in ("", "PreferNoSchedule")]
        return Status.success()

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> tuple[int, Status]:
        tols: list[Toleration] | None = state.data.get(NAME)
        if tols is None:  # PreScore disabled: upstream's Score fails reading its state
            return 0, Status.error(f'failed to read "PreScore{NAME}" from cycleState: not found')
        count = 0
        for taint in node.node.taints:
            if taint.effect == "PreferNoSchedule" and not tolerates(tols, taint):
                count += 1
        return count, Status.success()

    def score_nodes(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> list[int] | None:
        """:meth:`score` of each node in bulk (a node without taints scores 0); None
        without the PreScore state (node by node: each fails)."""
        if state.data.get(NAME) is None:
            return None
        score = self.score
        return [score(state, pod, ni)[0] if ni.node.taints else 0 for ni in nodes]

    def uniform_score(self, state: CycleState, pod: PodInfo) -> int | None:
        """0 on every node when no node has a PreferNoSchedule taint (most clusters);
        None otherwise, or without the PreScore state (each node's Score fails)."""
        if state.data.get(NAME) is None or "PreferNoSchedule" in self.handle.snapshot.taint_effects():
            return None
        return 0

    def normalize_score(self, state: CycleState, pod: PodInfo, scores: dict[str, int]) -> Status:
        default_normalize(scores, reverse=True)
        return Status.success()

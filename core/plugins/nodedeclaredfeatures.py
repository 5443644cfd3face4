"""NodeDeclaredFeatures (KEP-5328; alpha in v1.35 with its gate off, on by default in v1.36):
a pod that needs a node feature goes only to nodes that declare it in
``status.declaredFeatures``.

Which features a new pod needs is inferred from its spec, per release's feature registry
(component-helpers/nodedeclaredfeatures): ``RestartAllContainersOnContainerExits`` for a
container restart rule with action ``RestartAllContainers`` (v1.35+), and
``UserNamespacesHostNetworkSupport`` for ``hostNetwork`` with ``hostUsers: false`` (v1.36+).
The registry's other features matter only to pod updates (resizes), not to scheduling.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from kschedx.core.api.model import PodInfo
from kschedx.core.framework.interface import CycleState, Plugin, PreFilterResult, Status
from kschedx.core.snapshot import NodeInfo

NAME = "NodeDeclaredFeatures"
GATE = "NodeDeclaredFeatures"
ERR_REASON = "node(s) didn't match Pod's required features"


def required_features(spec: dict[str, Any], minor: int) -> list[str]:
    """The node features a pod with ``spec`` needs to be scheduled (release 1.``minor``)."""
    out = []
    containers = list(spec.get("containers") or []) + list(spec.get("initContainers") or [])
    if any(rule.get("action") == "RestartAllContainers"
           for c in containers for rule in (c.get("restartPolicyRules") or []) if isinstance(rule, dict)):
        out.append("RestartAllContainersOnContainerExits")
    if minor >= 36 and spec.get("hostNetwork") and spec.get("hostUsers") is False:
        out.append("UserNamespacesHostNetworkSupport")
    return out


class NodeDeclaredFeatures(Plugin):
    name = NAME
    node_local = True
    passes_after_removal = True  # reads no pod

    def pod_signature(self, pod: PodInfo) -> Hashable:
        """What PreFilter and Filter read of the pod (core/framework/shared_answers.py)."""
        if not self.version.enabled(GATE):
            return None
        return tuple(required_features(pod.spec, self.version.minor))

    def pre_filter(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> tuple[PreFilterResult | None, Status]:
        if not self.version.enabled(GATE):
            return None, Status.skip()
        reqs = required_features(pod.spec, self.version.minor)
        if not reqs:
            return None, Status.skip()
        state.data[NAME] = reqs
        return None, Status.success()

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status:
        reqs: list[str] | None = state.data.get(NAME)
        if not reqs:
            return Status.success()
        declared = (node.node.raw.get("status") or {}).get("declaredFeatures") or []
        missing = [r for r in reqs if r not in declared]
        if not missing:
            return Status.success()
        if not self.version.at_least(36):
            # v1.35's alpha named the unsatisfied requirements; v1.36 reports them generically.
            return Status.unresolvable(f"node declared features check failed - unsatisfied requirements: "
                                       f"{', '.join(missing)}")
        return Status.unresolvable(ERR_REASON)

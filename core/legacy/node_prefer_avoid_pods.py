"""NodePreferAvoidPodsPriority (weight 10000 by default): 0 on a node whose
``scheduler.alpha.kubernetes.io/preferAvoidPods`` annotation names the pod's controlling
ReplicationController or ReplicaSet (kind and uid), 10 everywhere else — including for
pods without such a controller and on nodes whose annotation does not parse."""

from __future__ import annotations

import json

from kschedx.core.legacy import MAX_PRIORITY
from kschedx.core.legacy.base import PriorityFunction
from kschedx.core.legacy.meta import Meta
from kschedx.core.snapshot import NodeInfo

ANNOTATION = "scheduler.alpha.kubernetes.io/preferAvoidPods"


def avoided_controllers(annotations: dict[str, str]) -> list[tuple[str, str]] | None:
    """(kind, uid) of every controller the annotation lists; None when it does not parse."""
    text = annotations.get(ANNOTATION)
    if text is None:
        return []
    try:
        doc = json.loads(text)
        out = []
        for entry in doc.get("preferAvoidPods") or []:
            ctrl = ((entry or {}).get("podSignature") or {}).get("podController") or {}
            out.append((str(ctrl.get("kind") or ""), str(ctrl.get("uid") or "")))
        return out
    except (ValueError, AttributeError, TypeError):
        return None


class NodePreferAvoidPodsPriority(PriorityFunction):
    function = "NodePreferAvoidPodsPriority"

    def map(self, meta: Meta, node: NodeInfo) -> int:
        ref = meta.pod.controller_ref
        if ref is None or ref.get("kind") not in ("ReplicationController", "ReplicaSet"):
            return MAX_PRIORITY
        annotations = (node.node.raw.get("metadata") or {}).get("annotations") or {}
        avoided = avoided_controllers(annotations)
        if not avoided:
            return MAX_PRIORITY
        for kind, uid in avoided:
            if kind == ref.get("kind") and uid == str(ref.get("uid") or ""):
                return 0
        return MAX_PRIORITY

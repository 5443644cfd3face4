"""ServiceAntiAffinity (a Policy argument ``serviceAntiAffinity: {label: L}``): spread the
pods of the pod's first Service over the values of node label L.

map: on each node, the pods of the pod's namespace (not being deleted) matching the first
Service's selector. reduce: with N such pods in total (on every scored node, labelled or
not) and C of them on nodes sharing this node's value of L, 10 × (N − C) / N (10 when N
is 0); nodes without label L score 0."""

from __future__ import annotations

from kschedx.core.legacy import MAX_PRIORITY
from kschedx.core.legacy.base import PriorityFunction
from kschedx.core.legacy.meta import Meta
from kschedx.core.legacy.selectors import first_service_selector
from kschedx.core.snapshot import NodeInfo


class ServiceAntiAffinityPriority(PriorityFunction):
    function = "ServiceAntiAffinity"
    has_reduce = True

    @property
    def label(self) -> str:
        return str(self.args.get("label") or "")

    def map(self, meta: Meta, node: NodeInfo) -> int:
        sel = first_service_selector(meta)
        if sel is None:
            return 0
        return sum(
            1
            for p in node.pods
            if p.namespace == meta.pod.namespace and p.deletion_timestamp is None and sel.matches(p.labels)
        )

    def reduce(self, meta: Meta, scores: dict[str, int]) -> dict[str, int]:
        total = 0
        values: dict[str, str] = {}
        per_value: dict[str, int] = {}
        for name, count in scores.items():
            total += count
            ni = meta.snapshot.get(name)
            if ni is None or self.label not in ni.node.labels:
                continue
            v = ni.node.labels[self.label]
            values[name] = v
            per_value[v] = per_value.get(v, 0) + count
        out = {}
        for name in scores:
            if name not in values:
                out[name] = 0
                continue
            f = float(MAX_PRIORITY)
            if total > 0:
                f = MAX_PRIORITY * ((total - per_value[values[name]]) / total)
            out[name] = int(f)
        return out

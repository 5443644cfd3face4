"""The objects of a cluster source, by kind, as the loaders produce them.

Raw API dicts as stored (a dump, the live API), grouped by kind; the loaders fill it and the
snapshot, the what-if edits and the explanation read it. It knows nothing of scheduling.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

Dict = dict[str, Any]


# The controllers' kinds: what a workload manifest is matched against (core/explain/rollout.py).
WORKLOAD_KINDS = frozenset(
    {"Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job", "CronJob", "ReplicationController"}
)


@dataclass
class ClusterObjects:
    """Every object of a cluster dump, by kind (raw API dicts, in input order)."""

    by_kind: dict[str, list[Dict]] = field(default_factory=lambda: defaultdict(list))
    skipped_kinds: dict[str, int] = field(default_factory=dict)
    # The workload objects by kind (the same dicts as in by_kind).
    workloads: dict[str, list[Dict]] = field(default_factory=lambda: defaultdict(list))
    # The API server's version (gitVersion), when the source records it: the live cluster's
    # /version, or a file written by ``kschedx snapshot``.
    server_version: str | None = None

    def of(self, kind: str) -> list[Dict]:
        return self.by_kind.get(kind, [])

    def add(self, obj: Dict) -> None:
        kind = obj.get("kind") or ""
        self.by_kind[kind].append(obj)
        if kind in WORKLOAD_KINDS:
            self.workloads[kind].append(obj)

    def copy(self) -> ClusterObjects:
        return ClusterObjects(defaultdict(list, {k: list(v) for k, v in self.by_kind.items()}), dict(self.skipped_kinds),
                              defaultdict(list, {k: list(v) for k, v in self.workloads.items()}),
                              self.server_version)

"""Node-local plugin answers shared by every cycle run on one snapshot.

A node-local plugin's Filter verdict and Score on a node depend on the node and on a few
fields of the pod only (its tolerations, its requests, its node affinity, ...). Each such
plugin names them: ``pod_signature(pod)`` returns a hashable value of exactly what its
PreFilter, Filter, PreScore and Score read of the pod. Two pods with equal signatures get
equal answers from that plugin on a node in the same state, whatever else differs between
them (name, labels, spread constraints, pod affinity, another workload altogether), so
``pending`` (one cycle per pending pod) and ``check`` (the copies of every manifest) answer
each (plugin, signature, node) once per node state instead of once per cycle.

An answer is keyed by the plugin's configuration as well (its args, the release and feature
gates, whether its PreFilter and PreScore run), and kept with the node's ``generation``,
which never repeats (core/snapshot.py): binding a copy, detaching a pod or taking a copy off
again gives the node a new generation, so no edit of the snapshot is ever answered from
before it. Answers that depend on the node set as a whole (ImageLocality counts the nodes
holding each image) are dropped when the snapshot's node set changes.

The tables are handed to the cycle's :class:`ReplicaMemo`, whose lookups the framework
already does for the copies of one replica run.
"""

from __future__ import annotations

import json
from collections.abc import Hashable
from typing import Any
from weakref import WeakKeyDictionary

from kschedx.core.api.model import PodInfo
from kschedx.core.framework.interface import AnswerTable, Plugin, ReplicaMemo
from kschedx.core.snapshot import Snapshot

# node -> (generation, answer), and the answers as a column
Table = AnswerTable

# Off only for the tests that compare shared answers with fresh cycles.
ENABLED = True


def canonical(value: Any) -> str:
    """A stable text of a JSON-like value (plugin args, raw pod fields) for a cache key."""
    try:
        return json.dumps(value, sort_keys=True, separators=(",", ":"), default=repr)
    except (TypeError, ValueError):
        # Keys of mixed types (YAML allows them) can't be sorted: the plain repr tells equal
        # values apart just as well, only equal dicts written in another order don't match.
        return repr(value)


def _configuration(pl: Plugin, profile: Any) -> Hashable:
    """What besides the pod decides a plugin's answers: its class, args, release, gates, and
    whether the profile runs its PreFilter and PreScore (without them its Filter and Score
    answer differently, e.g. an error for a missing state)."""
    version = pl.version
    # One profile serves many cycles: its args are written as text once per args object
    # (kept alive by the cache, so its id stays its own).
    hit = _ARGS_TEXT.get(id(pl.args))
    if hit is None or hit[0] is not pl.args:
        if len(_ARGS_TEXT) > 4096:
            _ARGS_TEXT.clear()
        hit = _ARGS_TEXT[id(pl.args)] = (pl.args, canonical(pl.args))
    return (
        type(pl).__module__, type(pl).__qualname__, pl.name, hit[1],
        version.name, tuple(sorted(version.overrides.items())),
        pl.name in getattr(profile, "pre_filter", ()), pl.name in getattr(profile, "pre_score", ()),
    )


_ARGS_TEXT: dict[int, tuple[dict[str, Any], str]] = {}


def plugin_key(pl: Plugin, pod: PodInfo, profile: Any) -> Hashable | None:
    """The key of a node-local plugin's answers for ``pod``; None when the plugin cannot
    sign pods (its answers are then kept for the one memo only)."""
    sign = getattr(pl, "pod_signature", None)
    if sign is None or not pl.node_local:
        return None
    return (_configuration(pl, profile), sign(pod))


class SharedAnswers:
    """The answer tables of one snapshot, by plugin key."""

    # The snapshot is handed to bind, never kept: these tables are the value of a
    # WeakKeyDictionary keyed by the snapshot, and a reference from the value to the key
    # would keep both alive for good.
    def __init__(self, snapshot: Snapshot) -> None:
        self._nodes = snapshot.node_infos
        self._count = len(snapshot.node_infos)
        self.filters: dict[Hashable, Table] = {}
        self.scores: dict[Hashable, Table] = {}

    def _check_nodes(self, snap: Snapshot) -> None:
        # remove_node replaces the node list, add_node extends it: either way the answers
        # that count nodes cluster-wide are stale, so all go.
        if snap.node_infos is not self._nodes or len(snap.node_infos) != self._count:
            self._nodes = snap.node_infos
            self._count = len(snap.node_infos)
            self.filters.clear()
            self.scores.clear()

    def bind(self, snapshot: Snapshot, memo: ReplicaMemo, fw: Any, pod: PodInfo) -> None:
        """Point ``memo`` at the tables for ``pod`` under ``fw``'s plugins, for the cycle
        about to run on ``snapshot`` (called before every cycle: each copy is signed anew).
        A profile with a node-local plugin that cannot sign pods keeps the memo's own tables."""
        self._check_nodes(snapshot)
        profile = fw.profile
        keys: dict[str, Hashable] = {}
        for pl in [*fw.plugins.filter, *(pl for pl, _w in fw.plugins.score)]:
            if pl.node_local and pl.name not in keys:
                k = plugin_key(pl, pod, profile)
                if k is None:
                    return
                keys[pl.name] = k
        memo.scores = {pl.name: self.scores.setdefault(keys[pl.name], AnswerTable())
                       for pl, _w in fw.plugins.score if pl.node_local}
        filters = self.filters

        def filter_table(local: list[Plugin]) -> Table:
            return filters.setdefault(tuple(keys[pl.name] for pl in local), AnswerTable())

        memo.filter_tables = filter_table


_SHARED: WeakKeyDictionary[Snapshot, SharedAnswers] = WeakKeyDictionary()


def share(snapshot: Snapshot) -> None:
    """Let every cycle on ``snapshot`` share node-local answers (``pending``, ``check``)."""
    if ENABLED and snapshot not in _SHARED:
        _SHARED[snapshot] = SharedAnswers(snapshot)


def shared(snapshot: Snapshot) -> SharedAnswers | None:
    return _SHARED.get(snapshot)

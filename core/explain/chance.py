"""Where a run of copies lands when the scheduler's chance is played out (``--replicas N``).

Each copy's cycle scans from where the last one stopped (the start index moves on by the
nodes the scan processed) and breaks its ties at random; the first copy's start is
unknowable from outside, so it is drawn uniformly. One sample plays the whole chain: copy
after copy, each bound where its own draw put it. :func:`replica_chance` plays ``samples``
chains from one seed (the same output on every run) and reports, per node and per zone,
the expected number of copies and the range seen, with the sampling error of the
expectations; when no cycle of the chain depends on chance (every window is the whole
feasible set and no tie is broken), one chain is the answer and it is exact.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from kschedx.core.api.model import PodInfo
from kschedx.core.config.profile import Profile
from kschedx.core.framework.sampling import zone_name
from kschedx.core.snapshot import Snapshot

# Samples played by default, and the seed they start from (--samples, --seed).
DEFAULT_SAMPLES = 100
DEFAULT_SEED = 0
# Without --samples, as many chains as keep copies × nodes × chains within this budget
# (each copy's cycle costs about its node count), at least MIN_SAMPLES.
NODE_CYCLES_BUDGET = 2_000_000
MIN_SAMPLES = 4


def auto_samples(replicas: int, num_nodes: int) -> int:
    """The default number of chains: DEFAULT_SAMPLES on a small run, fewer (down to
    MIN_SAMPLES) as copies × nodes grow; the error bound printed says what they are worth."""
    work = max(replicas * num_nodes, 1)
    return max(MIN_SAMPLES, min(DEFAULT_SAMPLES, NODE_CYCLES_BUDGET // work))


@dataclass
class Spread:
    """Copies on one node (or zone) over the samples."""

    name: str
    mean: float
    low: int
    high: int

    def to_json(self) -> dict[str, Any]:
        return {"expected": self.mean, "min": self.low, "max": self.high}


@dataclass
class ReplicaChance:
    samples: int
    seed: int
    exact: bool
    # The 95 % half-width of the widest per-node expectation (0 when exact).
    error_bound: float
    nodes: list[Spread] = field(default_factory=list)
    zones: list[Spread] = field(default_factory=list)
    placed_low: int = 0
    placed_high: int = 0
    # Why the copies' chance was not played (None: it was).
    skipped: str | None = None

    def to_json(self) -> dict[str, Any]:
        if self.skipped is not None:
            return {"skipped": self.skipped}
        return {
            "samples": self.samples, "seed": self.seed, "exact": self.exact, "errorBound": self.error_bound,
            "placedRange": [self.placed_low, self.placed_high],
            "nodes": {s.name: s.to_json() for s in self.nodes},
            "zones": {s.name: s.to_json() for s in self.zones},
        }


def _spreads(counts: list[dict[str, int]], names: list[str]) -> list[Spread]:
    out = []
    n = len(counts)
    for name in names:
        seen = [c.get(name, 0) for c in counts]
        out.append(Spread(name, sum(seen) / n, min(seen), max(seen)))
    return sorted(out, key=lambda s: (-s.mean, s.name))


def replica_chance(snapshot: Snapshot, incoming: Any, profile: Profile, replicas: int, options: Any, path: str,
                   samples: int = DEFAULT_SAMPLES, seed: int = DEFAULT_SEED,
                   run_replicas: Callable[..., list[Any]] | None = None) -> ReplicaChance:
    """Play the chain of ``replicas`` copies ``samples`` times (see the module's docstring)
    with ``run_replicas`` (front's, which calls this module: handed over, not imported).
    The snapshot is left as it was: each chain's copies are taken off again."""
    if run_replicas is None:
        raise ValueError("replica_chance needs the run_replicas that places the copies")
    if incoming.ordinal_pod is not None or incoming.pod.get("spec", {}).get("resourceClaims"):
        # Their copies add claims to the cluster's objects as they go: not played out here.
        return ReplicaChance(0, seed, False, 0.0, skipped="the copies bring claims of their own (a StatefulSet's "
                             "volume claims, or resource claims): their chance is not played out")
    num_all = len(snapshot.nodes())
    rng = random.Random(seed)
    counts: list[dict[str, int]] = []
    exact = False
    for s in range(max(samples, 1)):
        added: list[PodInfo] = []
        chain = replace(options, scan_start=rng.randrange(num_all) if num_all else 0, rng=rng, odds=False)
        try:
            steps = run_replicas(snapshot, incoming, profile, replicas, chain, path, added)
        finally:
            for pod in added:
                snapshot.remove_pod(pod)
        placed: dict[str, int] = {}
        for step in steps:
            if step.selected_node is not None:
                placed[step.selected_node] = placed.get(step.selected_node, 0) + 1
        counts.append(placed)
        if s == 0 and all(step.draw is None or (step.draw.whole and step.draw.tied == 1) for step in steps):
            exact = True  # no cycle depended on the start or a tie: every chain is this one
            break
    nodes = sorted({n for c in counts for n in c})
    zone_of = {n: zone_name(ni.node.labels) if (ni := snapshot.get(n)) is not None else "" for n in nodes}
    zone_counts: list[dict[str, int]] = [{} for _ in counts]
    for c, z in zip(counts, zone_counts, strict=True):
        for n, k in c.items():
            z[zone_of[n]] = z.get(zone_of[n], 0) + k
    totals = [sum(c.values()) for c in counts]
    bound = 0.0
    if not exact and len(counts) > 1:
        for n in nodes:
            seen = [c.get(n, 0) for c in counts]
            mean = sum(seen) / len(seen)
            var = sum((x - mean) ** 2 for x in seen) / (len(seen) - 1)
            bound = max(bound, 1.96 * math.sqrt(var / len(seen)))
    return ReplicaChance(len(counts), seed, exact, bound, _spreads(counts, nodes),
                         _spreads(zone_counts, sorted({z for c in zone_counts for z in c})),
                         min(totals, default=0), max(totals, default=0))

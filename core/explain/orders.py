"""What a release's outcome owes to chance: the order in which the controllers create the
workloads' pods, and the scheduler's own draws (the scan's start index, ties).

``check`` places a release in one order, the queue's as far as it is knowable (priority,
then the order ``kubectl apply -f`` sends the documents). A real control plane does not keep
it: every controller creates its pods at once (a ReplicaSet in slow-start batches of 1, 2,
4, …, a DaemonSet's pods together), so pods of equal priority reach the queue interleaved,
and each cycle scans from wherever the last one stopped and breaks its ties at random.
Measured on a real control plane, the total a release leaves Pending did not vary between
runs, but which workload went short did.

This module holds the samples that ``check`` plays (core/explain/check.py ``_sample``):
each one shuffles the workloads of every priority level, draws the first cycle's start
index uniformly and plays the release with the scheduler's chance (each cycle's start
moves on by the nodes its scan processed, ties drawn), then records each workload's
unplaced pods. Whole workloads are shuffled, not single pods: one workload's pods all
before another's are the extreme interleavings (its fewest and most left Pending), so the
range seen bounds what the interleaved runs of a real cluster give, which fall inside it.
The samples are seeded: the same output on every run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# ``check`` without --samples plays chance only where the order it shows leaves pods
# unplaced (there the split between workloads is the open question), as many samples as
# keep new pods × nodes × samples within the budget, MIN to MAX of them.
CHECK_SAMPLES_MAX = 16
CHECK_SAMPLES_MIN = 4
NODE_CYCLES_BUDGET = 2_000_000


def auto_check_samples(new_pods: int, num_nodes: int) -> int:
    """The default number of sampled orders for a release of ``new_pods`` new pods."""
    work = max(new_pods * num_nodes, 1)
    return max(CHECK_SAMPLES_MIN, min(CHECK_SAMPLES_MAX, NODE_CYCLES_BUDGET // work))


@dataclass
class Sample:
    """One sampled release: the workloads in the order their pods were played, the first
    cycle's scan start, and each workload's unplaced pods."""

    order: list[str]
    scan_start: int
    unplaced: dict[str, int]

    @property
    def total(self) -> int:
        return sum(self.unplaced.values())

    def to_json(self) -> dict[str, Any]:
        return {"order": list(self.order), "scanStart": self.scan_start, "unplaced": dict(self.unplaced)}


@dataclass
class OrderChance:
    """The release's samples beside the order shown (``shown``: each workload's unplaced
    pods in it)."""

    samples: list[Sample]
    seed: int
    shown: dict[str, int]
    # Why no sample was played (None: they were).
    skipped: str | None = None
    # No order to shuffle and no cycle's choice left to chance: the one sample played is
    # every sample.
    exact: bool = False

    def seen(self, workload: str) -> list[int]:
        """The workload's unplaced pods in the order shown and in every sample."""
        return [self.shown.get(workload, 0), *(s.unplaced.get(workload, 0) for s in self.samples)]

    def unplaced_range(self, workload: str) -> tuple[int, int]:
        seen = self.seen(workload)
        return min(seen), max(seen)

    def varies(self, workload: str) -> bool:
        low, high = self.unplaced_range(workload)
        return low != high

    def fits_in(self, workload: str) -> int:
        """Of the samples, those in which every new pod of the workload was placed."""
        return sum(1 for s in self.samples if s.unplaced.get(workload, 0) == 0)

    def first_failing(self, workload: str) -> int | None:
        """The first sample in which the workload goes short (1-based), if any."""
        for k, s in enumerate(self.samples, 1):
            if s.unplaced.get(workload, 0):
                return k
        return None

    @property
    def totals(self) -> list[int]:
        return [sum(self.shown.values()), *(s.total for s in self.samples)]

    def to_json(self) -> dict[str, Any]:
        if self.skipped is not None:
            return {"skipped": self.skipped}
        totals = self.totals
        return {"samples": len(self.samples), "seed": self.seed, "exact": self.exact,
                "unplacedTotalRange": [min(totals), max(totals)],
                "orders": [s.to_json() for s in self.samples]}

    def entry_json(self, workload: str) -> dict[str, Any]:
        """A workload's part (``check -o json`` results[]): its range where it varies, and
        how often each count was seen."""
        if self.skipped is not None or not self.samples:
            return {}
        low, high = self.unplaced_range(workload)
        counts: dict[str, int] = {}
        for s in self.samples:
            k = str(s.unplaced.get(workload, 0))
            counts[k] = counts.get(k, 0) + 1
        out: dict[str, Any] = {"unplacedSeen": dict(sorted(counts.items(), key=lambda kv: int(kv[0]))),
                               "fitsInSamples": self.fits_in(workload)}
        if low != high:
            out["unplacedRange"] = [low, high]
        return out

    def words(self, workload: str, shown: int) -> str | None:
        """What the samples add to the workload's verdict line, if anything."""
        if self.skipped is not None or not self.samples:
            return None
        low, high = self.unplaced_range(workload)
        n = len(self.samples)
        fits = self.fits_in(workload)
        if low == high:
            return None
        if shown == 0:
            k = self.first_failing(workload)
            return (f"fits in {fits} of {n} sampled orders ({percent(fits, n)}); in the others up to {high} pod(s) "
                    f"unplaced, e.g. sample {k} ({self.describe(k, workload)})")
        return f"the order decides: {low}–{high} pod(s) unplaced over {n} sampled orders (fits in {fits})"

    def describe(self, k: int | None, workload: str | None = None) -> str:
        """Sample ``k`` (1-based) in words: where ``workload`` came in its order (else the
        first few workloads, by name), and its first scan's start. ``-o json`` lists
        every sample's whole order."""
        if k is None:
            return ""
        s = self.samples[k - 1]
        scan = f"the first scan from node index {s.scan_start}"
        if workload is not None and workload in s.order:
            return f"it came {_nth(s.order.index(workload) + 1)} of {len(s.order)} workloads, {scan}"
        names = [w.rsplit("/", 1)[-1] for w in s.order]
        shown = ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
        return f"{shown} in that order, {scan}"


def _nth(k: int) -> str:
    """1st, 2nd, 3rd, 4th, …, 11th, 12th, 13th, 21st."""
    suffix = "th" if 10 <= k % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(k % 10, "th")
    return f"{k}{suffix}"


def percent(part: int, whole: int) -> str:
    """A share in whole percents, never rounded to 0 % or 100 % when it is neither."""
    if whole <= 0:
        return "0 %"
    value = 100 * part / whole
    if 0 < value < 1:
        return "<1 %"
    if 99 < value < 100:
        return ">99 %"
    return f"{round(value)} %"

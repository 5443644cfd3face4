"""summarize_step's runner-up equals the one a full ranking of the totals gives."""

from __future__ import annotations

import random
from types import SimpleNamespace
from typing import Any

from kschedx.core.explain.report import summarize_step


def ranked_runner_up(totals: dict[str, int], node: str) -> tuple[Any, Any]:
    ranked = sorted(totals.items(), key=lambda kv: (-kv[1], kv[0]))
    return next(((n, t) for n, t in ranked if n != node), (None, None))


def test_runner_up_is_the_best_other_node_ties_by_name() -> None:
    rng = random.Random(7)
    for _ in range(300):
        names = [f"n{i:03d}" for i in rng.sample(range(1000), rng.randint(1, 12))]
        totals = {n: rng.randint(0, 5) * 10 for n in names}
        top = max(totals.values())
        best = sorted(n for n, t in totals.items() if t == top)
        result: Any = SimpleNamespace(pod="default/p", selected_node=best[0], totals=totals, best_nodes=best)
        s = summarize_step(result)
        assert (s.runner_up, s.runner_up_total) == ranked_runner_up(totals, best[0])
        assert s.tie == best[1:]

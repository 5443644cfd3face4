"""The "Where it lands" block: what the real scheduler leaves to chance in one cycle, as
lines of plain text that the table and the HTML report both show (core.framework.sampling
works the odds out; this module only words them)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from kschedx.core.framework.result import CycleResult, PreemptionOutcome

# The most likely nodes listed by name; the rest are counted.
SHOWN = 5


def percent(p: Fraction | float) -> str:
    """A probability as a person reads it: 31.2 %, 0.35 %, never "0.0 %" for a chance that exists."""
    x = float(p) * 100
    if x == 0:
        return "0 %"
    if x >= 99.95 and p != 1:
        return f"{x:.2f} %"
    if x >= 0.1:
        return f"{x:.1f} %"
    return f"{x:.2g} %"


def _ranked(odds: dict[str, Fraction]) -> list[tuple[str, Fraction]]:
    return sorted(odds.items(), key=lambda kv: (-kv[1], kv[0]))


def lands(result: CycleResult, focus: str | None = None) -> dict[str, Any] | None:
    """The block as data: its title, the most likely nodes ({node, share, text}), the rest
    counted (None: nobody else can win) and the sentences after them; None without odds."""
    s = result.sampling
    if s is None or not s.odds or (s.num_feasible == 1 and not s.nominated_shortcut):
        return None  # (a single feasible node: the warnings say it is bound without scoring)
    if s.nominated_shortcut:
        (node,) = s.odds
        return {"title": f"Where it lands: on {node} in every cycle", "scope": "", "rows": [], "rest": None,
                "lines": [f"the pod is nominated to {node} (status.nominatedNodeName) and the node passes its "
                          "filters: the scheduler binds it there without scanning or scoring the others"]}
    if s.same_window_for_every_start:
        scope = (f"every cycle scores all {s.num_feasible} feasible nodes"
                 + (f", no more than the {s.num_nodes_to_find} the scan looks for" if s.num_scanned >= 100 else ""))
        # Chance only breaks ties here: one line says it all.
        if len(s.odds) == 1:
            (node,) = s.odds
            title = f"Where it lands: on {node} in every cycle ({scope})"
        else:
            title = (f"Where it lands: on one of the {len(s.odds)} tied nodes at random, "
                     f"{percent(Fraction(1, len(s.odds)))} each ({scope})")
        return {"title": title, "scope": scope, "rows": [], "rest": None, "lines": []}
    else:
        scope = (f"the scheduler scores {s.window_size} of the {s.num_feasible} feasible nodes per cycle: the first "
                 f"{s.num_nodes_to_find} feasible ones its scan meets, from a start that moves on every cycle")
    ties = ", ties split evenly" if any(len(r.top) > 1 for r in s.starts) else ""
    ranked = _ranked(s.odds)
    rows = [{"node": n, "share": float(p), "text": percent(p)} for n, p in ranked[:SHOWN]]
    rest = None
    if len(ranked) > SHOWN:
        left = sum((p for _, p in ranked[SHOWN:]), Fraction(0))
        rest = {"count": len(ranked) - SHOWN, "share": float(left), "text": percent(left)}
    lines: list[str] = []
    if len(s.zones) > 1 or (s.zones and "" not in s.zones):
        lines.append("by zone: " + ", ".join(f"{z or '(no zone)'} {percent(p)}" for z, p in _ranked(s.zones)))
    can_win = len(s.odds)
    best = result.best_nodes
    best_text = best[0] if len(best) == 1 else f"one of the {len(best)} tied at the top"
    lines.append(f"{can_win} node{'s' if can_win != 1 else ''} can win; the best of all ({best_text}) "
                 f"is chosen in {percent(s.best_of_all)} of cycles")
    current = result.current.node if result.current is not None else None
    if current and current != focus:
        lines.append(f"it runs on {current} now: a cycle now would choose {current} in "
                     f"{percent(s.odds.get(current, Fraction(0)))} of cycles")
    if focus is not None and result.nodes.get(focus) is not None and result.nodes[focus].feasible:
        lines.extend(_focus_lines(result, focus))
    about = f"odds over every start of the scan{ties}; {scope}"
    return {"title": f"Where it lands ({about})", "scope": about, "rows": rows, "rest": rest, "lines": lines}


def where_it_lands(result: CycleResult, focus: str | None = None) -> list[str]:
    """The block as lines of text (the first is its title); none without odds."""
    view = lands(result, focus)
    if view is None:
        return []
    out = [view["title"]]
    out.extend(f"  {r['text']:>8}  {r['node']}" for r in view["rows"])
    rest = view["rest"]
    if rest is not None:
        out.append(f"  {rest['text']:>8}  {rest['count']} more node{'s' if rest['count'] != 1 else ''}")
    out.extend(f"  {line}" for line in view["lines"])
    return out


def _focus_lines(result: CycleResult, node: str) -> list[str]:
    s = result.sampling
    assert s is not None
    won, held, beaten = s.story_of(node)
    out = [f"{node}: chosen in {percent(won)} of cycles; scored in {percent(held)}"]
    if beaten:
        names = ", ".join(f"{n} ({percent(p)})" for n, p in _ranked(beaten)[:SHOWN])
        more = len(beaten) - SHOWN
        out.append(f"when it is scored but not chosen, the window held a better node: {names}"
                   + (f" and {more} more" if more > 0 else ""))
    if held < 1 and not s.same_window_for_every_start:
        out.append(f"in the other {percent(1 - held)} of cycles the scan stops before reaching it")
    return out


def preemption_odds(p: PreemptionOutcome) -> list[str]:
    """The nominated node's odds over DryRunPreemption's random offset (none when one node always wins)."""
    if not p.nominated_odds or len(p.nominated_odds) < 2:
        return []
    ranked = _ranked(p.nominated_odds)
    shown = ", ".join(f"{n} {percent(x)}" for n, x in ranked[:SHOWN])
    more = len(ranked) - SHOWN
    return [f"the scheduler's dry run starts at a random node and stops at {p.num_candidates} candidates "
            f"of {p.num_potential_nodes} nodes: it nominates {shown}" + (f" and {more} more" if more > 0 else "")]


def copies_land(chance: Any) -> list[str]:
    """--replicas: where the copies land with the scheduler's chance played out (the first
    line is the block's title); none when it was not played."""
    if chance is None:
        return []
    if chance.skipped is not None:
        return [f"Where the copies land: {chance.skipped}"]
    if chance.exact:
        title = ("Where the copies land: as above in every chain (no cycle of it depends on the scan's start "
                 "or a tie)")
        return [title]
    out = [f"Where the copies land ({chance.samples} chains played with the scheduler's chance: the scan's start, "
           f"moving on every cycle, and ties; seed {chance.seed}; each expectation within ±{chance.error_bound:.2f} "
           "at 95 %)"]
    for s in chance.nodes[:SHOWN]:
        out.append(f"  {s.mean:8.2f}  {s.name}  ({s.low}–{s.high})")
    if len(chance.nodes) > SHOWN:
        out.append(f"  {len(chance.nodes) - SHOWN} more nodes receive copies in some chains")
    if chance.zones:
        out.append("  by zone: " + ", ".join(f"{z.name or '(no zone)'} {z.mean:.2f} ({z.low}–{z.high})"
                                             for z in chance.zones))
    placed = (f"{chance.placed_low} in every chain" if chance.placed_low == chance.placed_high
              else f"{chance.placed_low}–{chance.placed_high}")
    out.append(f"  copies placed: {placed}")
    return out

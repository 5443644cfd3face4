"""Comparison of a kschedx cycle (the ``-o json`` shape) with a golden expected.json.

Only the fields the golden README lists as "must match" are compared; the rest is
informational.  Returns human-readable differences (empty when the cycle conforms).
"""

from __future__ import annotations

from typing import Any


def compare_cycle(expected: dict[str, Any], actual: dict[str, Any]) -> list[str]:
    diffs: list[str] = []
    exp_nodes = expected.get("nodes") or {}
    act_nodes = actual.get("nodes") or {}
    if set(exp_nodes) != set(act_nodes):
        diffs.append(f"node set differs: missing {sorted(set(exp_nodes) - set(act_nodes))}, "
                     f"extra {sorted(set(act_nodes) - set(exp_nodes))}")
    for name, ev in sorted(exp_nodes.items()):
        av = act_nodes.get(name)
        if av is None:
            continue
        if ev.get("feasible") != av.get("feasible"):
            diffs.append(f"node {name}: feasible expected {ev.get('feasible')} got {av.get('feasible')} "
                         f"({av.get('plugin')}: {av.get('reasons')}; expected {ev.get('plugin')}: {ev.get('reasons')})")
            continue
        if not ev.get("feasible"):
            for key in ("plugin", "code", "reasons"):
                e, a = ev.get(key), av.get(key)
                if key == "plugin":
                    e, a = e or "", a or ""
                if e != a:
                    diffs.append(f"node {name}: {key} expected {e!r} got {a!r}")
    exp_sp = {p["name"]: p for p in expected.get("scorePlugins") or []}
    act_sp = {p["name"]: p for p in actual.get("scorePlugins") or []}
    if exp_sp and list(exp_sp) != list(act_sp):
        diffs.append(f"score plugins expected {list(exp_sp)} got {list(act_sp)}")
    for name, ep in exp_sp.items():
        ap = act_sp.get(name)
        if ap is None:
            continue
        for key in ("skipped", "weight"):
            if ep.get(key) != ap.get(key):
                diffs.append(f"score {name}: {key} expected {ep.get(key)} got {ap.get(key)}")
        es, as_ = ep.get("scores") or {}, ap.get("scores") or {}
        for node, e in sorted(es.items()):
            a = as_.get(node)
            if a is None:
                diffs.append(f"score {name} {node}: missing")
                continue
            for key in ("raw", "normalized", "weighted"):
                if e.get(key) != a.get(key):
                    diffs.append(f"score {name} {node}: {key} expected {e.get(key)} got {a.get(key)}")
        extra = set(as_) - set(es)
        if extra:
            diffs.append(f"score {name}: unexpected nodes {sorted(extra)}")
    if (expected.get("totals") or {}) != (actual.get("totals") or {}):
        et, at = expected.get("totals") or {}, actual.get("totals") or {}
        bad = sorted(n for n in set(et) | set(at) if et.get(n) != at.get(n))
        diffs.append(f"totals differ on {bad[:5]}: expected {[et.get(n) for n in bad[:5]]} got {[at.get(n) for n in bad[:5]]}")
    if sorted(expected.get("bestNodes") or []) != sorted(actual.get("bestNodes") or []):
        diffs.append(f"bestNodes expected {expected.get('bestNodes')} got {actual.get('bestNodes')}")
    if expected.get("fitError") != actual.get("fitError"):
        diffs.append(f"fitError expected {expected.get('fitError')!r}\n                 got {actual.get('fitError')!r}")
    diffs.extend(_compare_preemption(expected.get("preemption"), actual.get("preemption")))
    diffs.extend(_compare_sampling(expected, actual))
    return diffs


# The chance family's odds are exact fractions in both; floats are compared to this.
ODDS_TOLERANCE = 1e-9


def _compare_odds(what: str, exp: dict[str, float], act: dict[str, float]) -> list[str]:
    bad = sorted(n for n in set(exp) | set(act) if abs(float(exp.get(n, 0.0)) - float(act.get(n, 0.0))) > ODDS_TOLERANCE)
    if not bad:
        return []
    shown = ", ".join(f"{n}: expected {exp.get(n, 0.0):.12g} got {act.get(n, 0.0):.12g}" for n in bad[:6])
    return [f"{what} differ on {len(bad)} node(s): {shown}"]


def _compare_sampling(expected: dict[str, Any], actual: dict[str, Any]) -> list[str]:
    """The chance family: each node's odds over every start of the filter scan (and ties),
    and the nominated node's odds over preemption's random offset."""
    exp = expected.get("sampling")
    if not exp:
        return []
    act = actual.get("sampling")
    if not isinstance(act, dict):
        return ["sampling: expected odds, got no sampling result"]
    diffs = _compare_odds("sampling odds", exp.get("odds") or {}, act.get("odds") or {})
    exp_pre = exp.get("preemptionOdds")
    if exp_pre and exp_pre.get("odds"):
        act_pre = (actual.get("preemption") or {}).get("nominatedOdds") or {}
        diffs.extend(_compare_odds("preemption nominatedOdds", exp_pre["odds"], act_pre))
    return diffs


def _compare_preemption(exp: dict[str, Any] | None, act: dict[str, Any] | None) -> list[str]:
    if not exp or not exp.get("evaluated") or not exp.get("candidates"):
        return []
    if not act:
        return ["preemption: expected candidates, got no preemption result"]
    diffs = []

    def cands(p: dict[str, Any]) -> set[tuple[str, tuple[str, ...], int]]:
        return {(c["node"], tuple(sorted(c["victims"])), int(c["numPDBViolations"])) for c in p.get("candidates") or []}

    if cands(exp) != cands(act):
        diffs.append(f"preemption candidates differ: expected {sorted(cands(exp))} got {sorted(cands(act))}")
    tied = exp.get("tiedBestNodes") or ([exp["nominatedNode"]] if exp.get("nominatedNode") else [])
    if act.get("nominatedNode") not in tied:
        diffs.append(f"nominated node expected one of {tied} got {act.get('nominatedNode')}")
    else:
        exp_c = {c["node"]: sorted(c["victims"]) for c in exp.get("candidates") or []}
        if sorted(act.get("victims") or []) != exp_c.get(act.get("nominatedNode"), sorted(act.get("victims") or [])):
            diffs.append(f"victims on {act.get('nominatedNode')} differ")
    return diffs


def compare(expected: dict[str, Any], actual: dict[str, Any]) -> list[str]:
    """Compare a whole case: a single cycle, or ``{"steps": [...]}`` step by step."""
    if "steps" in expected:
        steps_e = expected["steps"]
        steps_a = actual.get("steps") if "steps" in actual else [actual]
        diffs = []
        if len(steps_e) != len(steps_a):
            diffs.append(f"steps: expected {len(steps_e)} got {len(steps_a)}")
        for i, (e, a) in enumerate(zip(steps_e, steps_a, strict=False)):
            diffs.extend(f"step {i}: {d}" for d in compare_cycle(e, a))
        return diffs
    return compare_cycle(expected, actual)

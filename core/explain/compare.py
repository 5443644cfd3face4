"""Upgrade and tuning impact: the same pods on the same cluster under two scheduler setups.

A setup is a Kubernetes release, a KubeSchedulerConfiguration and feature gates
(``--compare-version``, ``--compare-config``, ``--compare-feature-gates``; whatever is not
given for the comparison is the base's). Both run through the one engine; ``changes`` lists
only what differs, per cycle: the verdict, the selected node (with the score plugins that
moved the winner), the ties, each node's filter reasons, and the FitError.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any

from kschedx.core.explain.report import Explanation
from kschedx.core.framework.result import CycleResult

Dict = dict[str, Any]


@dataclass(frozen=True)
class Setup:
    kubernetes_version: str | None = None
    config: str | None = None
    feature_gates: str | None = None


def compare_setup(base: Setup, *, version: str | None, config: str | None, gates: str | None) -> Setup:
    """The comparison's setup: the base's with the given parts replaced. The base's gates
    carry over only within the same release (another release has its own gates)."""
    same_release = version is None
    return Setup(
        kubernetes_version=version if version is not None else base.kubernetes_version,
        config=config if config is not None else base.config,
        feature_gates=gates if gates is not None else (base.feature_gates if same_release else None),
    )


def options_for(options: Any, setup: Setup) -> Any:
    """Engine options (kschedx.core.explain.front.Options) for ``setup``: the version is resolved
    again for each setup."""
    return replace(options, kubernetes_version=setup.kubernetes_version, feature_gates=setup.feature_gates,
                   version=None, version_note=None)


@dataclass
class Comparison:
    base: Explanation
    compare: Explanation
    changes: list[Dict] = field(default_factory=list)

    @property
    def verdict_changed(self) -> bool:
        return any(c["what"] == "verdict" for c in self.changes)

    def to_json(self) -> Dict:
        return {"base": self.base.to_json(), "compare": self.compare.to_json(), "changes": list(self.changes)}


def _verdict(result: CycleResult) -> str:
    return "fits" if result.selected_node is not None else "unschedulable"


def _node_reason(result: CycleResult, node: str) -> str | None:
    v = result.nodes.get(node)
    if v is None or v.feasible:
        return None
    return f"{v.plugin or ''}: {'; '.join(v.reasons)}"


def _weighted(result: CycleResult, node: str) -> dict[str, int]:
    return {p.name: p.scores[node].weighted for p in result.score_plugins if not p.skipped and node in p.scores}


def _movers(a: CycleResult, b: CycleResult, old: str, new: str) -> list[Dict]:
    """Per score plugin, how far ``new`` was ahead of ``old`` (weighted) in each setup; the
    plugins whose lead changed, the largest change first."""
    out: list[Dict] = []
    a_old, a_new, b_old, b_new = _weighted(a, old), _weighted(a, new), _weighted(b, old), _weighted(b, new)
    for name in dict.fromkeys([*a_new, *b_new, *a_old, *b_old]):
        lead_a = a_new.get(name, 0) - a_old.get(name, 0)
        lead_b = b_new.get(name, 0) - b_old.get(name, 0)
        if lead_a != lead_b:
            out.append({"plugin": name, "base": lead_a, "compare": lead_b})
    out.sort(key=lambda m: -abs(m["compare"] - m["base"]))
    return out


def cycle_changes(a: CycleResult, b: CycleResult, where: Dict) -> list[Dict]:
    changes: list[Dict] = []
    if _verdict(a) != _verdict(b):
        changes.append({**where, "what": "verdict", "base": _verdict(a), "compare": _verdict(b)})
    if a.selected_node != b.selected_node and a.selected_node is not None and b.selected_node is not None:
        changes.append({**where, "what": "selectedNode", "base": a.selected_node, "compare": b.selected_node,
                        "plugins": _movers(a, b, a.selected_node, b.selected_node)})
    if a.best_nodes != b.best_nodes and (len(a.best_nodes) > 1 or len(b.best_nodes) > 1):
        changes.append({**where, "what": "ties", "base": list(a.best_nodes), "compare": list(b.best_nodes)})
    for node in sorted(set(a.nodes) | set(b.nodes)):
        ra, rb = _node_reason(a, node), _node_reason(b, node)
        if ra != rb:
            changes.append({**where, "what": "reasons", "node": node, "base": ra, "compare": rb})
    if a.fit_error != b.fit_error:
        changes.append({**where, "what": "fitError", "base": a.fit_error, "compare": b.fit_error})
    return changes


def compare_explanations(a: Explanation, b: Explanation) -> Comparison:
    out = Comparison(a, b)
    if a.mode == "daemonset" and b.mode == "daemonset":
        fb = {v.node: v for v in b.daemon_nodes}
        for va in a.daemon_nodes:
            vb = fb.get(va.node)
            if vb is None:
                continue
            if va.fits != vb.fits:
                out.changes.append({"node": va.node, "what": "verdict", "base": "fits" if va.fits else "unschedulable",
                                    "compare": "fits" if vb.fits else "unschedulable"})
            ra = None if va.fits else f"{va.plugin or ''}: {'; '.join(va.reasons)}"
            rb = None if vb.fits else f"{vb.plugin or ''}: {'; '.join(vb.reasons)}"
            if ra != rb:
                out.changes.append({"node": va.node, "what": "reasons", "base": ra, "compare": rb})
        return out
    for i, (sa, sb) in enumerate(zip(a.steps, b.steps, strict=False)):
        where: Dict = {"pod": sb.pod}
        if a.mode == "replicas":
            where["step"] = i
        out.changes.extend(cycle_changes(sa, sb, where))
    if a.mode == "replicas" and a.replicas_placed != b.replicas_placed:
        out.changes.append({"what": "verdict" if a.ok != b.ok else "replicasPlaced",
                            "base": a.replicas_placed, "compare": b.replicas_placed})
    return out


def change_text(ch: Dict) -> str:
    """What one change is, without where (the step or workload) it happened."""
    where = f"{ch['node']}: " if "node" in ch and ch["what"] != "reasons" else ""
    what = ch["what"]
    if what == "selectedNode":
        movers = ", ".join(f"{m['plugin']} {m['base']:+d} → {m['compare']:+d}" for m in ch["plugins"][:3])
        return (f"{where}selected node {ch['base']} → {ch['compare']}"
                + (f" (lead of the new winner: {movers})" if movers else ""))
    if what == "reasons":
        return f"{ch['node']}: {ch['base'] or 'feasible'} → {ch['compare'] or 'feasible'}"
    if what == "ties":
        return f"{where}ties {', '.join(ch['base'])} → {', '.join(ch['compare'])}"
    if what == "fitError":
        return f"{where}FitError {ch['base'] or '(none)'} → {ch['compare'] or '(none)'}"
    return f"{where}{what} {ch['base']} → {ch['compare']}"


def summary_lines(c: Comparison) -> list[str]:
    """One line per change, for the table output."""
    return [(f"step {ch['step']}: " if "step" in ch else "") + change_text(ch) for ch in c.changes]


def copies_text(steps: list[int]) -> str:
    """Which copies (replica steps, numbered as the replica table's # column) a change
    happened to: "copy #2", "3 copies (#0–2)", "2 copies (#0, #3)"."""
    if len(steps) == 1:
        return f"copy #{steps[0]}"
    run = steps == list(range(steps[0], steps[0] + len(steps)))
    which = f"#{steps[0]}–{steps[-1]}" if run else ", ".join(f"#{s}" for s in steps)
    return f"{len(steps)} copies ({which})"


def merge_copies(changes: list[Dict]) -> list[Dict]:
    """Changes equal but for the copy they happened to (its step and pod name) as one,
    with the copies' steps and their count; the first one's place in the order."""
    out: list[Dict] = []
    merged: dict[str, Dict] = {}
    for ch in changes:
        if "step" not in ch:
            out.append(ch)
            continue
        same = json.dumps({k: v for k, v in ch.items() if k not in ("step", "pod")}, sort_keys=True, default=str)
        first = merged.get(same)
        if first is None:
            first = merged[same] = {k: v for k, v in ch.items() if k != "step"} | {"steps": [], "count": 0}
            out.append(first)
        elif "pod" in first:
            del first["pod"]  # the copies' pods differ by name
        first["steps"].append(ch["step"])
        first["count"] += 1
    return out


# --------------------------------------------------------------------------- running both setups


def explain_compared(manifest: str, objects: Any, *, options: Any, config: str | None, compare: Setup,
                     **kwargs: Any) -> Comparison:
    """``explain_objects`` under the base setup and under ``compare`` on the same cluster."""
    from kschedx.core.explain.front import Options, explain_objects

    options = options or Options()
    base = Setup(options.kubernetes_version, config, options.feature_gates)
    a = explain_objects(manifest, objects, options=options_for(options, base), config=base.config, **kwargs)
    b = explain_objects(manifest, objects, options=options_for(options, compare), config=compare.config, **kwargs)
    return compare_explanations(a, b)


@dataclass
class CheckComparison:
    base: Any  # kschedx.core.explain.check.CheckReport
    compare: Any
    changes: list[Dict] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        """2 an input error in either run, 1 a verdict changed, else 0."""
        if 2 in (self.base.exit_code, self.compare.exit_code):
            return 2
        return 1 if any(c["what"] == "verdict" for c in self.changes) else 0

    def to_json(self) -> Dict:
        return {"base": self.base.to_json(), "compare": self.compare.to_json(), "changes": list(self.changes)}


def check_compared(paths: list[str], objects: Any, *, options: Any, config: str | None, compare: Setup,
                   **kwargs: Any) -> CheckComparison:
    """``check_paths`` under both setups; per document, what its verdict and cycles changed."""
    from kschedx.core.explain.check import check_paths
    from kschedx.core.explain.front import Options

    options = options or Options()
    base = Setup(options.kubernetes_version, config, options.feature_gates)
    a = check_paths(paths, objects, options=options_for(options, base), config=base.config, **kwargs)
    b = check_paths(paths, objects, options=options_for(options, compare), config=compare.config, **kwargs)
    out = CheckComparison(a, b)
    for ea, eb in zip(a.entries, b.entries, strict=False):
        # Each change names its workload (kind/namespace/name, as the verdict lines do).
        doc = {"workload": ea.workload, "file": ea.file, "kind": ea.kind, "namespace": ea.namespace, "name": ea.name}
        if ea.verdict != eb.verdict:
            out.changes.append({**doc, "what": "verdict", "base": ea.verdict, "compare": eb.verdict})
        if ea.explanation is not None and eb.explanation is not None:
            inner = [{**doc, **c} for c in compare_explanations(ea.explanation, eb.explanation).changes
                     if c["what"] != "verdict"]
            if len(ea.explanation.steps) == 1:  # a single copy: its pod name says enough
                inner = [{k: v for k, v in c.items() if k != "step"} for c in inner]
            out.changes.extend(merge_copies(inner))
    return out


def check_change_lines(c: CheckComparison) -> list[tuple[str, list[str]]]:
    """Per workload with changes (in the run's order): its heading and one line per change,
    merged copies with their count."""
    groups: dict[str, tuple[str, list[str]]] = {}
    for ch in c.changes:
        heading = f"{ch['workload']} ({ch['file']})" if ch.get("kind") else ch["workload"]
        lines = groups.setdefault(heading, (heading, []))[1]
        copies = f"{copies_text(ch['steps'])}: " if "steps" in ch else ""
        lines.append(copies + change_text(ch))
    return list(groups.values())

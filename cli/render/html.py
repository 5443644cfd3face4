"""``-o html``: one self-contained HTML file per run — an explanation, a check or the
pending pods — with inline SVG charts, readable with JavaScript off, in light and dark
mode and printed.

The pictures are built from the same data ``-o json`` writes (the ``to_json()`` of the
result objects): this module turns those dicts into small view dicts (rows, bar
geometry, tooltips) and Jinja2 templates (``templates/``, autoescaping on) write the
markup, so every name, label, reason and message from the cluster or a manifest is
escaped by the template engine rather than by hand. Jinja2 is imported only here, and
this module only when ``-o html`` is chosen, so ``kschedx --help`` stays fast.

A Content-Security-Policy in the page forbids loading anything (no network, no other
file) and allows only the page's own script, by its hash: even a string that somehow
escaped escaping could not run.
"""

from __future__ import annotations

import base64
import hashlib
import sys
from collections import Counter
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jinja2 import Environment

    from kschedx.core.explain.check import CheckReport
    from kschedx.core.explain.report import Explanation

from kschedx.cli.render.odds import copies_land, lands, preemption_odds

TEMPLATES = Path(__file__).with_name("templates")

# How many nodes the score breakdown shows: the best ones and their nearest rivals.
TOP_SCORED = 20
# A check report holds an explanation per manifest: its node tables stop after this many
# rows (the best nodes first), so 50 manifests on 5,000 nodes stay a file one can open;
# `explain -o html` has them all.
CHECK_TABLE_ROWS = 200

# One colour per score plugin, kept across every chart of a report (assigned in the order
# plugins are first met). Mid-tone colours that read on a white and a near-black page;
# green and red, which mean feasible and rejected elsewhere in the report, come last.
PALETTE = (
    "#4e79a7", "#f28e2b", "#76b7b2", "#b07aa1", "#edc948", "#9c755f",
    "#ff9da7", "#86bcb6", "#d37295", "#8cd17d", "#59a14f", "#e15759",
)

# Geometry of the horizontal bar charts (SVG user units, ~px).
ROW_H = 22
BAR_H = 15
CHART_W = 760
CHAR_W = 7.3  # a 12px monospace character, to size the label column
# Labels up to this long keep the bars at their full width; a longer one widens the chart
# (no name is ever cut: the domain node names share is dropped instead, and said so).
MAX_LABEL_CHARS = 40

Dict = dict[str, Any]


class Palette:
    def __init__(self) -> None:
        self.colours: dict[str, str] = {}

    def __call__(self, plugin: str) -> str:
        if plugin not in self.colours:
            self.colours[plugin] = PALETTE[len(self.colours) % len(PALETTE)]
        return self.colours[plugin]


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _label_width(labels: Iterable[str]) -> int:
    longest = max((len(s) for s in labels), default=8)
    return int(max(8, longest) * CHAR_W) + 12


def node_suffix(names: Iterable[str]) -> str:
    """The dotted domain every node name ends with (the tables' rule), "" if none."""
    from kschedx.cli.render.table import common_suffix

    return common_suffix(sorted(set(names)))


def short(name: str, suffix: str) -> str:
    return name[: -len(suffix)] if suffix and name.endswith(suffix) else name


# --------------------------------------------------------------------------- charts


def bar_rows(rows: list[Dict], scale_max: float, *, extra_right: int = 60) -> Dict:
    """Horizontal bars: each row {"label", "title", "segments": [{"value", "colour",
    "title", "cls"}], "text", "cls"} gets its y and each segment its x and width."""
    label_w = _label_width(r["label"] for r in rows)
    bar_w = max(120, CHART_W - max(label_w, int(MAX_LABEL_CHARS * CHAR_W) + 12) - extra_right)
    scale = bar_w / scale_max if scale_max > 0 else 0.0
    for i, r in enumerate(rows):
        r["y"] = i * ROW_H + 4
        r["short"] = r["label"]
        x = float(label_w)
        for s in r["segments"]:
            w = max(0.0, float(s["value"])) * scale
            s["x"] = round(x, 1)
            s["w"] = round(w, 1)
            x += w
        r["end"] = round(x + 6, 1)
    return {"rows": rows, "label_w": label_w, "bar_w": bar_w, "width": max(CHART_W, label_w + bar_w + extra_right),
            "height": len(rows) * ROW_H + 8, "bar_h": BAR_H}


def funnel(c: Dict) -> list[Dict]:
    """Where the nodes went: all → rejected at PreFilter → rejected by Filter (a row per
    plugin and reasons, each node in one row) → feasible → best; one row each with the share
    of all nodes for its bar."""
    nodes: dict[str, Dict] = c["nodes"]
    n_all = int(c.get("numAllNodes") or len(nodes))
    pf = c["preFilter"]

    def row(stage: str, count: int, cls: str, plugin: str = "", reason: str = "") -> Dict:
        return {"stage": stage, "count": count, "cls": cls, "plugin": plugin, "reason": reason,
                "reasons": reason.split("; ") if reason else [],
                "frac": min(1.0, count / n_all) if n_all else 0.0,
                "title": f"{stage}{': ' + plugin if plugin else ''}{': ' + reason if reason else ''}: "
                         f"{plural(count, 'node')}"}

    rows = [row("all nodes", n_all, "all")]
    if pf["code"] != "Success" and pf.get("plugin"):
        rows.append(row("rejected at PreFilter", n_all, "bad", pf["plugin"], "; ".join(pf["reasons"])))
    else:
        pre = Counter("; ".join(v["reasons"]) for v in nodes.values()
                      if not v["feasible"] and v.get("rejectedAt") == "PreFilter")
        for reason, k in sorted(pre.items(), key=lambda kv: (-kv[1], kv[0])):
            rows.append(row("rejected at PreFilter", k, "bad", "", reason))
    # Each node once, under its plugin and all its reasons together, so the rows add up to
    # the nodes (the FitError counts a node once per reason instead).
    counts: Counter[tuple[str, str]] = Counter()
    for v in nodes.values():
        if v["feasible"] or v.get("rejectedAt") == "PreFilter":
            continue
        counts[("; ".join(dict.fromkeys(v["reasons"] or [""])), v.get("plugin") or "")] += 1
    for (reason, plugin), k in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        rows.append(row("rejected by Filter", k, "bad", plugin, reason))
    feasible = int(c.get("numFeasibleNodes", sum(1 for v in nodes.values() if v["feasible"])))
    rows.append(row("feasible", feasible, "ok"))
    rows.append(row("best total", len(c.get("bestNodes") or []), "best"))
    return rows


def score_breakdown(c: Dict, palette: Palette, *, top: int = TOP_SCORED, focus: str | None = None) -> Dict | None:
    """One stacked bar per node (the best and their nearest rivals) by each plugin's
    weighted score; each segment's tooltip says raw → normalized → weighted."""
    totals: dict[str, int] = c["totals"]
    if not totals:
        return None
    ranked = sorted(totals, key=lambda n: (-totals[n], n))
    shown = ranked[:top]
    if focus is not None and focus in totals and focus not in shown:
        shown.append(focus)
    best = set(c.get("bestNodes") or [])
    plugins = [p for p in c["scorePlugins"] if not p["skipped"]]
    suffix = node_suffix(shown) if len(shown) > 1 else ""
    rows: list[Dict] = []
    for n in shown:
        segs = []
        for p in plugins:
            s = p["scores"].get(n)
            if s is None:
                continue
            segs.append({
                "value": s["weighted"], "colour": palette(p["name"]), "cls": "seg",
                "title": f"{n} · {p['name']}: raw {s['raw']} → normalized {s['normalized']} → weighted "
                         f"{s['weighted']} (× {p['weight']})",
            })
        mark = "★ " if n in best else ""
        rows.append({"label": mark + short(n, suffix), "title": f"{n}: total {totals[n]}", "segments": segs,
                     "text": str(totals[n]),
                     "cls": "best" if n in best else ("focus" if n == focus else "")})
    chart = bar_rows(rows, max(max(totals[n] for n in shown), 1))
    chart["legend"] = [{"name": p["name"], "colour": palette(p["name"]), "weight": p["weight"]} for p in plugins]
    chart["shown"] = len(shown)
    chart["of"] = len(totals)
    chart["suffix"] = suffix
    chart["decided"] = what_decided(c, ranked, plugins)
    return chart


def what_decided(c: Dict, ranked: list[str], plugins: list[Dict]) -> Dict | None:
    """The best node against the runner-up (the best node of a lower total): each plugin's
    weighted score on both, the plugins that differ first (largest difference first), so a
    plugin whose weight dominates every bar (TaintToleration's 300 on all nodes alike) does
    not hide what decided the winner."""
    totals: dict[str, int] = c["totals"]
    if not ranked:
        return None
    winner = ranked[0]
    runner = next((n for n in ranked if totals[n] < totals[winner]), None)
    if runner is None:
        return None
    rows = []
    for p in plugins:
        a, b = p["scores"].get(winner), p["scores"].get(runner)
        if a is None or b is None:
            continue
        rows.append({"plugin": p["name"], "weight": p["weight"], "winner": a["weighted"], "runner": b["weighted"],
                     "diff": a["weighted"] - b["weighted"],
                     "detail": f"raw {a['raw']} vs {b['raw']}, normalized {a['normalized']} vs {b['normalized']}"})
    differ = sorted((r for r in rows if r["diff"]), key=lambda r: (-abs(r["diff"]), r["plugin"]))
    same = [r for r in rows if not r["diff"]]
    return {"winner": winner, "runner": runner, "winner_total": totals[winner], "runner_total": totals[runner],
            "margin": totals[winner] - totals[runner], "differ": differ, "same": same}


def histogram(c: Dict, *, bins: int = 24) -> Dict | None:
    """The distribution of totals over every feasible node."""
    totals = list(c["totals"].values())
    if len(totals) < 2:
        return None
    lo, hi = min(totals), max(totals)
    n = min(bins, hi - lo + 1, max(6, len(totals)))
    width = (hi - lo + 1) / n
    counts = [0] * n
    for t in totals:
        counts[min(n - 1, int((t - lo) / width))] += 1
    top_count = max(counts)
    best = max(totals)
    w, h, pad_l, pad_b = CHART_W, 170, 44, 22
    bw = (w - pad_l - 8) / n
    bars = []
    for i, k in enumerate(counts):
        a = lo + int(i * width + 0.999999)
        b = lo + int((i + 1) * width + 0.999999) - 1
        bh = (h - pad_b - 10) * k / top_count
        rng = f"{a}" if a >= b else f"{a}–{b}"
        bars.append({"x": round(pad_l + i * bw + 1, 1), "w": round(max(bw - 2, 1), 1), "y": round(h - pad_b - bh, 1),
                     "h": round(bh, 1), "title": f"total {rng}: {plural(k, 'node')}",
                     "cls": "best" if a <= best <= b else "hist"})
    return {"bars": bars, "width": w, "height": h, "pad_l": pad_l, "base": h - pad_b, "lo": lo, "hi": hi,
            "top": top_count, "n": len(totals)}


# --------------------------------------------------------------------------- one cycle


def _verdict(c: Dict) -> Dict:
    n_all = int(c.get("numAllNodes") or len(c["nodes"]))
    if c.get("schedulingGates") is not None:
        return {"cls": "bad", "mark": "⏸", "word": "gated",
                "text": "PreEnqueue keeps the pod out of the scheduling queue: " + ("; ".join(c["schedulingGates"])
                                                                                   or "it has scheduling gates")}
    if c.get("error"):
        return {"cls": "bad", "mark": "✗", "word": "scheduler error", "text": c["error"]}
    if c.get("selectedNode") is None:
        return {"cls": "bad", "mark": "✗", "word": "unschedulable", "text": f"no node fits (0 of {plural(n_all, 'node')})"}
    best = c["bestNodes"]
    feasible = int(c.get("numFeasibleNodes", len(c["totals"])))
    total = c["totals"].get(best[0], 0)
    if len(best) == 1:
        text = f"on {feasible} of {plural(n_all, 'node')}; best: {best[0]} (total {total})"
    else:
        text = f"on {feasible} of {plural(n_all, 'node')}; {len(best)}-way tie at {total}: {', '.join(best)}"
    return {"cls": "ok", "mark": "✓", "word": "fits", "text": text}


def _node_table(c: Dict, limit: int | None = None) -> Dict:
    """Every node's verdict and weighted scores: feasible by total, then the rejected ones
    grouped by plugin and reason; the first ``limit`` rows when given."""
    nodes: dict[str, Dict] = c["nodes"]
    totals: dict[str, int] = c["totals"]
    plugins = [p for p in c["scorePlugins"] if not p["skipped"]]
    best = set(c.get("bestNodes") or [])
    feasible = sorted((n for n, v in nodes.items() if v["feasible"]), key=lambda n: (-totals.get(n, 0), n))
    rows: list[Dict] = []
    for n in feasible:
        cells = []
        for p in plugins:
            s = p["scores"].get(n)
            cells.append("" if s is None else s["weighted"])
        rows.append({"node": n, "best": n in best, "ok": True, "verdict": "feasible", "plugin": "", "code": "",
                     "reason": "", "scores": cells, "total": totals.get(n, "")})
    rejected = sorted((n for n, v in nodes.items() if not v["feasible"]),
                      key=lambda n: (nodes[n].get("plugin") or "", "\n".join(nodes[n]["reasons"]), n))
    for n in rejected:
        v = nodes[n]
        rows.append({"node": n, "best": False, "ok": False, "verdict": f"rejected at {v.get('rejectedAt') or 'Filter'}",
                     "plugin": v.get("plugin") or "", "code": v.get("code") or "",
                     "reason": "; ".join(v["reasons"]), "scores": None, "total": ""})
    more = len(rows) - limit if limit is not None and len(rows) > limit else 0
    return {"plugins": [p["name"] for p in plugins], "weights": [p["weight"] for p in plugins],
            "rows": rows[:limit] if more else rows, "total": len(rows), "more": more,
            "skipped": [p["name"] for p in c["scorePlugins"] if p["skipped"]]}


def _preemption(c: Dict) -> Dict | None:
    p = c.get("preemption")
    if not p or not (p.get("evaluated") or p.get("message")):
        return None
    lost = p.get("candidatesLost") or {}
    pdb = {d["pod"]: d for d in p.get("victimDetails") or []}
    return {
        "eligible": p["eligible"], "message": p.get("message") or "", "nominated": p.get("nominatedNode"),
        "tied": [n for n in p.get("tiedBestNodes") or [] if n != p.get("nominatedNode")],
        "victims": [{"pod": v, "priority": pdb.get(v, {}).get("priority"), "pdb": bool(pdb.get(v, {}).get("violatesPDB"))}
                    for v in p.get("victims") or []],
        "odds": [],  # explanation_view fills them in for a single cycle
        "candidates": [{"node": cd["node"], "victims": cd["victims"], "pdb": cd["numPDBViolations"],
                        "nominated": cd["node"] == p.get("nominatedNode"), "lost": lost.get(cd["node"], "")}
                       for cd in p.get("candidates") or []],
    }


def cycle_view(c: Dict, palette: Palette, *, ident: str, source: str | None = None, title: str | None = None,
               top: int | None = None, table_limit: int | None = None) -> Dict:
    """Everything the page shows about one scheduling cycle, from its ``to_json()``.
    ``top``: nodes in the score breakdown; ``table_limit``: rows of the node table."""
    focus = c.get("focus")
    pf = c["preFilter"]
    prefilter = None
    if c.get("schedulingGates") is None and pf["code"] != "Success" and pf.get("plugin"):
        prefilter = f"{pf['plugin']} rejected the pod for every node: {'; '.join(pf['reasons'])}"
    elif pf.get("nodeNames") is not None:
        prefilter = (f"{', '.join(pf.get('pluginsWithNodes') or []) or 'PreFilter'} narrowed the candidates to "
                     f"{plural(len(pf['nodeNames']), 'node')}")
    return {
        "id": ident,
        "title": title,
        "pod": c["pod"], "priority": c.get("podPriority"), "version": c["kubernetesVersion"], "profile": c["profile"],
        "algorithm": c.get("algorithm", "v1.35"), "source": source,
        "notes": c.get("notes") or [], "edits": c.get("edits") or [], "warnings": c.get("warnings") or [],
        "verdict": _verdict(c), "prefilter": prefilter,
        "selected": c.get("selectedNode"), "best": c.get("bestNodes") or [],
        "fit_error": c.get("fitError"),
        "single": c.get("singleFeasibleNode", False),
        "funnel": funnel(c),
        "scores": score_breakdown(c, palette, top=top or TOP_SCORED, focus=focus["node"] if focus else None),
        "histogram": histogram(c),
        "preemption": _preemption(c),
        "lands": None,  # explanation_view fills it in for a single cycle
        "focus": focus,
        "devices": c.get("deviceAllocations") or [],
        "volumes": c.get("volumes") or [],
        "extenders": [{"url": e.get("urlPrefix", ""),
                       "detail": ", ".join(f"{k}: {v}" for k, v in e.items() if k not in ("urlPrefix", "calls")),
                       "calls": [str(x) for x in e.get("calls") or []]} for e in c.get("extenders") or []],
        "table": _node_table(c, table_limit),
    }


# --------------------------------------------------------------------------- runs


def _copies_chart(summary: list[Dict]) -> Dict | None:
    per_node = Counter(s["node"] for s in summary if s["node"])
    if not per_node:
        return None
    suffix = node_suffix(per_node) if len(per_node) > 1 else ""
    rows = [{"label": short(n, suffix), "title": f"{n}: {plural(k, 'copy')}" if k == 1 else f"{n}: {k} copies", "cls": "ok",
             "text": str(k), "segments": [{"value": k, "cls": "ok", "colour": None, "title": f"{n}: {k}"}]}
            for n, k in sorted(per_node.items(), key=lambda kv: (-kv[1], kv[0]))]
    chart = bar_rows(rows, max(per_node.values()))
    chart["suffix"] = suffix
    return chart


def _rollout_view(expl: Explanation) -> Dict | None:
    """A running workload's change played to its end: its verdict and steps."""
    outcome = expl.workload.outcome if expl.workload is not None else None
    if outcome is None:
        return None
    return {"completes": outcome.completes, "summary": outcome.summary(),
            "steps": [e.line() for e in outcome.events]}


def explanation_view(expl: Explanation, palette: Palette, *, ident: str = "x", source: str | None = None,
                     top: int | None = None, table_limit: int | None = None) -> Dict:
    """One ``explain`` run: a single cycle, replica steps or a DaemonSet."""

    def cycle(c: Dict, ident: str, title: str | None = None) -> Dict:
        return cycle_view(c, palette, ident=ident, source=source, title=title, top=top, table_limit=table_limit)

    if expl.mode == "single":
        step = expl.steps[0]
        view = cycle(step.to_json(), ident)
        # Where it lands: the odds, worded as the table words them (cli/render/odds.py).
        view["lands"] = lands(step, step.focus.node if step.focus is not None else None)
        if view["preemption"] is not None and step.preemption is not None:
            view["preemption"]["odds"] = preemption_odds(step.preemption)
        return {"mode": "single", "id": ident, "cycle": view}
    if expl.mode == "replicas":
        data = expl.to_json_stream()  # the summary without encoding every step
        summary: list[Dict] = data["summary"]
        placed, want = expl.replicas_placed, expl.replicas_requested
        cycles = [cycle(expl.steps[0].to_json(), f"{ident}-c0", f"Copy 0: {expl.steps[0].pod}")]
        stopped = None
        last = expl.steps[-1]
        if last.selected_node is None:
            k = len(expl.steps) - 1
            stopped = {"index": k, "pod": last.pod, "fit_error": last.fit_error or last.error or ""}
            if k > 0:
                cycles.append(cycle(last.to_json(), f"{ident}-c{k}", f"Copy {k}: {last.pod}, where the sequence stopped"))
        first = expl.steps[0]
        return {
            "mode": "replicas", "id": ident, "pod": first.pod, "version": first.kubernetes_version,
            "profile": first.profile, "source": source, "notes": first.notes, "edits": expl.edits,
            "warnings": list(dict.fromkeys(w for s in expl.steps for w in s.warnings)),
            # The first step's verdict; a rollout run to its end has its own row (rollout).
            "placed": placed, "want": want, "ok": placed == want, "stopped": stopped,
            "rollout": _rollout_view(expl),
            "steps": [{"i": i, **s} for i, s in enumerate(summary)],
            "copies": _copies_chart(summary), "cycles": cycles,
            "chance": copies_land(expl.chance),
        }
    data = expl.to_json()
    first = expl.first
    rows = sorted(data["nodes"].items(),
                  key=lambda kv: (0 if kv[1]["targeted"] and not kv[1]["fits"] else 1 if kv[1]["fits"] else 2, kv[0]))
    fits = data["fitsOn"]
    untargeted = data["notTargeted"]
    failing = data["numNodes"] - fits - untargeted
    segs = [{"value": fits, "cls": "ok", "colour": None, "title": f"runs on {plural(fits, 'node')}"},
            {"value": failing, "cls": "bad", "colour": None, "title": f"pending on {plural(failing, 'node')}"},
            {"value": untargeted, "cls": "muted", "colour": None, "title": f"not targeted on {plural(untargeted, 'node')}"}]
    bar = bar_rows([{"label": "nodes", "title": f"{data['numNodes']} nodes", "cls": "", "segments": segs,
                     "text": str(data["numNodes"])}], max(data["numNodes"], 1))
    return {
        "mode": "daemonset", "id": ident, "daemonset": data["daemonSet"], "pod": data["pod"],
        "version": data["kubernetesVersion"], "profile": data["profile"], "source": source,
        "notes": data["notes"], "edits": data["edits"], "warnings": data["warnings"], "priority": first.pod_priority,
        "ok": expl.ok, "fits": fits, "untargeted": untargeted, "failing": failing, "total": data["numNodes"],
        "bar": bar, "rollout": _rollout_view(expl),
        "nodes": [{"node": n, **v} for n, v in rows],
    }


# --------------------------------------------------------------------------- pages


@cache
def _environment() -> Environment:
    import jinja2
    from markupsafe import Markup

    from kschedx.cli.render.safe import html_visible

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        autoescape=True,  # every value is escaped unless marked safe: only our own CSS and script are
        # Every value written: control and bidi characters made visible before escaping
        # (our own Markup — CSS, script — is left as it is).
        finalize=lambda v: html_visible(v) if isinstance(v, str) and not isinstance(v, Markup) else v,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals["plural"] = plural
    env.filters["keep_words"] = keep_words
    return env


def keep_words(text: Any) -> Any:
    """``text`` escaped, each word with a hyphen in it kept on one line: browsers break
    after a hyphen before a letter, which cut node names apart
    (``ip-10-0-1-88.eu-`` / ``west-1.compute.internal``); lines still break between words."""
    from markupsafe import Markup, escape

    from kschedx.cli.render.safe import html_visible

    parts = []
    # As every other value of the page: cluster text with its controls made visible.
    for word in html_visible(str(text if text is not None else "")).split(" "):
        parts.append(Markup('<span class="nw">{}</span>').format(word) if "-" in word else escape(word))
    return Markup(" ").join(parts)


@cache
def _assets() -> tuple[str, str, str]:
    css = (TEMPLATES / "report.css").read_text(encoding="utf-8")
    script = (TEMPLATES / "report.js").read_text(encoding="utf-8")
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    return css, script, f"'sha256-{digest}'"


def _page(template: str, **context: Any) -> str:
    from markupsafe import Markup

    from kschedx import __version__

    css, script, script_hash = _assets()
    # Only our own stylesheet and script are marked safe; everything else is escaped.
    return _environment().get_template(template).render(
        css=Markup(css), script=Markup(script), script_hash=script_hash, version=__version__, **context,
    )


def explanation_html(expl: Explanation, *, source: str | None = None, top: int | None = None) -> str:
    """``explain -o html``; ``top``: how many nodes the score breakdown shows (default 20)."""
    palette = Palette()
    view = explanation_view(expl, palette, source=source, top=top)
    title = view["daemonset"] if view["mode"] == "daemonset" else (view.get("pod") or view["cycle"]["pod"])
    return _page("explain.html.j2", title=f"kschedx explain {title}", run=view)


def check_html(report: CheckReport, *, source: str | None = None) -> str:
    palette = Palette()
    entries = []
    for i, e in enumerate(report.entries):
        run = (explanation_view(e.explanation, palette, ident=f"e{i}", source=source, table_limit=CHECK_TABLE_ROWS)
               if e.explanation else None)
        entries.append({"i": i, "id": f"e{i}", "verdict": e.verdict, "workload": e.workload, "file": e.file,
                        "kind": e.kind, "replicas": e.replicas, "placed": e.placed,
                        "running": getattr(e, "running", None), "message": e.message(), "run": run,
                        "priority": e.priority})
    counts = Counter(e["verdict"] for e in entries)
    order = (("fits", "ok"), ("partial", "warn"), ("unschedulable", "bad"), ("error", "bad"))
    segs = [{"value": counts.get(k, 0), "cls": cls, "colour": None, "title": f"{k}: {counts.get(k, 0)}"}
            for k, cls in order]
    bar = bar_rows([{"label": "manifests", "title": f"{len(entries)} checked", "cls": "", "segments": segs,
                     "text": str(len(entries))}], max(len(entries), 1))
    release = None
    from kschedx.cli.render.check import order_note, replaced_line

    if report.mode == "release":
        release = {"verdict": report.release_verdict, "line": report.release_line(), "order": order_note(report),
                   "preempted": [p.line() for p in report.preempted]}
    return _page("check.html.j2", title="kschedx check", entries=entries, counts=counts, bar=bar, source=source,
                 release=release, replaced=replaced_line(report) if report.replaced else None)


PENDING_CLASSES = ("fits", "unschedulable", "gated", "nominated", "other-scheduler")


def _pending_row(i: int, r: Dict) -> Dict:
    pod = r.get("pod") or "/".join(str(x) for x in (r.get("namespace"), r.get("name")) if x)
    agreement = r.get("agreement", r.get("agrees"))
    if isinstance(agreement, bool):
        mark = {"cls": "ok", "mark": "✓", "text": "same as the scheduler's event"} if agreement else \
               {"cls": "bad", "mark": "≠", "text": "differs from the scheduler's event"}
    elif agreement is None or agreement == "":
        mark = {"cls": "muted", "mark": "–", "text": "no FailedScheduling event"}
    else:
        mark = {"cls": "muted", "mark": "·", "text": str(agreement)}
    return {"i": i, "pod": pod, "class": str(r.get("class") or ""), "node": r.get("node") or "",
            "fit_error": r.get("fitError") or r.get("fit_error") or "",
            "event": r.get("eventMessage") or r.get("event") or "", "agreement": mark}


def pending_html(rows: list[Dict], *, source: str | None = None, kubernetes_version: str | None = None,
                 explain_command: str | None = None) -> str:
    """``pending -o html``: one row per pending pod. Each row is a plain dict: ``pod``
    ("NAMESPACE/NAME", or ``namespace`` and ``name``), ``class`` (fits, unschedulable,
    gated, nominated, other-scheduler), ``node``, ``fitError``, ``agreement`` (True: kschedx's
    FitError equals the pod's latest FailedScheduling event, False: it differs, None: no
    event) and optionally ``eventMessage``. ``explain_command``: the command that explains
    one of the pods alone, with ``{ref}`` for ``pod/NAME -n NAMESPACE``, shown under each pod."""
    view = [_pending_row(i, r) for i, r in enumerate(rows)]
    for r in view:
        ns, _, name = r["pod"].rpartition("/")
        r["explain"] = explain_command.replace("{ref}", f"pod/{name} -n {ns or 'default'}") if explain_command else ""
    counts = Counter(r["class"] for r in view)
    cls = {"fits": "ok", "unschedulable": "bad", "gated": "warn", "nominated": "best"}
    classes = list(PENDING_CLASSES) + sorted(set(counts) - set(PENDING_CLASSES))
    segs = [{"value": counts.get(k, 0), "cls": cls.get(k, "muted"), "colour": None, "title": f"{k}: {counts.get(k, 0)}"}
            for k in classes]
    bar = bar_rows([{"label": "pending pods", "title": f"{len(view)} pending", "cls": "", "segments": segs,
                     "text": str(len(view))}], max(len(view), 1))
    return _page("pending.html.j2", title="kschedx pending", rows=view, counts=counts, classes=classes, bar=bar,
                 source=source, kubernetes=kubernetes_version)


def _write(text: str) -> None:
    sys.stdout.flush()
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is not None:
        buffer.write(text.encode("utf-8"))
        buffer.flush()
    else:  # a text-only stdout (some test harnesses)
        sys.stdout.write(text)


def render_explanation_html(expl: Explanation, *, source: str | None = None, top: int | None = None) -> None:
    _write(explanation_html(expl, source=source, top=top))


def render_check_html(report: CheckReport, *, source: str | None = None) -> None:
    _write(check_html(report, source=source))


def render_pending_html(rows: list[Dict], *, source: str | None = None, kubernetes_version: str | None = None,
                        explain_command: str | None = None) -> None:
    _write(pending_html(rows, source=source, kubernetes_version=kubernetes_version, explain_command=explain_command))

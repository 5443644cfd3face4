"""The human-readable explanation: a header, the feasible nodes with their scores, the
nodes filtered out grouped by reason, then FitError, preemption, notes and warnings.

Everything shown comes from the :class:`CycleResult`; this module only orders and
formats it. The pure helpers (``short_name``, ``order_nodes``, ``NodeRows``) are kept
free of Rich so they can be tested on their own.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rich import box
from rich.cells import cell_len
from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from kschedx.cli.render import bigtable
from kschedx.cli.render.bigtable import BigTable
from kschedx.cli.render.console import make_console
from kschedx.core.result import CycleResult, NodeVerdict, PluginScores, PreemptionOutcome

# Column titles that fit a 100-column terminal; the wide legend spells them out.
SHORT_NAMES = {
    "TaintToleration": "Taint",
    "NodeAffinity": "NodeAff",
    "NodeResourcesFit": "Fit",
    "VolumeBinding": "VolBind",
    "PodTopologySpread": "Spread",
    "InterPodAffinity": "PodAff",
    "DynamicResources": "DRA",
    "NodeResourcesBalancedAllocation": "Balanced",
    "ImageLocality": "Image",
    # The v1.12 priority functions (--algorithm legacy-v1.12).
    "SelectorSpreadPriority": "Spread",
    "ServiceSpreadingPriority": "SvcSpread",
    "InterPodAffinityPriority": "PodAff",
    "LeastRequestedPriority": "Least",
    "MostRequestedPriority": "Most",
    "BalancedResourceAllocation": "Balanced",
    "RequestedToCapacityRatioPriority": "ReqCap",
    "NodePreferAvoidPodsPriority": "Avoid",
    "NodeAffinityPriority": "NodeAff",
    "TaintTolerationPriority": "Taint",
    "ImageLocalityPriority": "Image",
    "EqualPriority": "Equal",
}

CODE_SHORT = {
    "Unschedulable": "Unschedulable",
    "UnschedulableAndUnresolvable": "Unresolvable",
}

# Styles (ignored when colour is off; Rich drops them all off a terminal).
S_LABEL = "bold"
S_OK = "bold green"
S_BAD = "bold red"
S_BEST = "bold green"
S_DIM = "dim"
S_WARN = "yellow"
S_PLUGIN = "magenta"


def span(text: str, style: str = "") -> Text:
    """A Text whose style covers only ``text``: what is appended later keeps its own style
    (``Text(x, style=...)`` would make the style the base of the whole line)."""
    t = Text()
    t.append(text, style=style)
    return t


def short_name(plugin: str) -> str:
    if plugin.startswith("extender:"):
        # A scheduler extender's column: its host (and port) is enough to tell them apart.
        from urllib.parse import urlsplit

        return "Ext " + (urlsplit(plugin[len("extender:"):]).netloc or plugin[len("extender:"):])
    return SHORT_NAMES.get(plugin, plugin)


def failure_key(v: NodeVerdict) -> tuple[str, str, tuple[str, ...]]:
    return (v.plugin or "", v.code or "", tuple(v.reasons))


@dataclass
class NodeRows:
    """The order rows are shown in: feasible by total (desc) then name, then infeasible
    nodes grouped by (plugin, code, reasons), biggest group first."""

    feasible: list[str] = field(default_factory=list)
    groups: list[list[str]] = field(default_factory=list)

    @property
    def infeasible(self) -> list[str]:
        return [n for g in self.groups for n in g]

    def __len__(self) -> int:
        return len(self.feasible) + sum(len(g) for g in self.groups)

    def limit(self, top: int | None) -> NodeRows:
        """The first ``top`` rows in display order (all of them when ``top`` is None)."""
        if top is None or top >= len(self):
            return self
        feasible = self.feasible[:top]
        left = top - len(feasible)
        groups: list[list[str]] = []
        for g in self.groups:
            if left <= 0:
                break
            groups.append(g[:left])
            left -= len(groups[-1])
        return NodeRows(feasible, groups)


def order_nodes(result: CycleResult) -> NodeRows:
    feasible = sorted(
        (n for n, v in result.nodes.items() if v.feasible),
        key=lambda n: (-result.totals.get(n, 0), n),
    )
    by_key: dict[tuple[str, str, tuple[str, ...]], list[str]] = {}
    for name, v in result.nodes.items():
        if not v.feasible:
            by_key.setdefault(failure_key(v), []).append(name)
    groups = sorted(by_key.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    return NodeRows(feasible, [sorted(nodes) for _, nodes in groups])


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


# --------------------------------------------------------------------------- header


def _verdict(result: CycleResult) -> Text:
    n_all = result.num_all_nodes
    n_ok = len(result.feasible_nodes)
    if result.gated is not None:
        t = span("⏸ gated", style=S_BAD)
        t.append(": PreEnqueue keeps the pod out of the scheduling queue")
        t.append(f" ({'; '.join(result.gated) or 'it has scheduling gates'})")
        return t
    if result.error:
        t = span("✗ scheduler error", style=S_BAD)
        t.append(f": {result.error}")
        return t
    if not result.schedulable:
        t = span("✗ unschedulable", style=S_BAD)
        t.append(f": no node fits (0 of {_plural(n_all, 'node')})")
        return t
    best = result.best_nodes
    t = span("✓ fits", style=S_OK)
    t.append(f" on {n_ok} of {_plural(n_all, 'node')}; ")
    total = result.totals.get(best[0], 0)
    if len(best) == 1:
        t.append("best: ")
        t.append(best[0], style=S_BEST)
        t.append(f" (total {total})")
    else:
        t.append(f"{len(best)}-way tie at {total}: ")
        for i, n in enumerate(best):
            if i:
                t.append(", ")
            t.append(n, style=S_BEST)
        t.append(" (a tie: see the warning)")
    return t


def _header(result: CycleResult) -> Table:
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style=S_LABEL, no_wrap=True)
    grid.add_column(overflow="fold")
    pod = span(result.pod, style="bold")
    pod.append(f"  priority {result.pod_priority}", style=S_DIM)
    grid.add_row("Pod", pod)
    grid.add_row("Profile", Text(result.profile))
    for i, note in enumerate(result.notes):
        grid.add_row("Rule" if i == 0 else "", Text(note))
    for i, edit in enumerate(result.edits):
        grid.add_row("Edits" if i == 0 else "", Text(edit))
    pf = result.pre_filter
    if result.gated is None and pf.code != "Success" and pf.plugin is not None:
        t = span("✗ ", style=S_BAD)
        t.append(pf.plugin or "PreFilter", style=S_PLUGIN)
        t.append(f" rejected the pod for every node: {'; '.join(pf.reasons)}")
        grid.add_row("PreFilter", t)
    elif pf.node_names is not None:
        t = span(", ".join(pf.plugins_with_nodes) or "PreFilter", style=S_PLUGIN)
        t.append(f" narrowed the candidates to {_plural(len(pf.node_names), 'node')}")
        grid.add_row("PreFilter", t)
    grid.add_row("Result", _verdict(result))
    if result.current is not None:
        from kschedx.cli.render.current import current_line

        grid.add_row("Now", current_line(result, S_OK, S_BAD))
    return grid


# --------------------------------------------------------------------------- scores


def _score_columns(result: CycleResult) -> tuple[list[PluginScores], list[PluginScores]]:
    shown = [p for p in result.score_plugins if not p.skipped]
    skipped = [p for p in result.score_plugins if p.skipped]
    return shown, skipped


def _column_style(values: list[int]) -> tuple[int | None, bool]:
    """(the value to highlight as the column's best, whether the column is flat)."""
    if not values:
        return None, True
    hi, lo = max(values), min(values)
    return (hi if hi != lo else None), hi == lo


FOCUS_NOTE = " ◂ spec.nodeName"
FOCUS_NOTE_WIDTH = cell_len(FOCUS_NOTE)


def _node_label(name: str, result: CycleResult, best: bool, labels: dict[str, str]) -> Text:
    t = span("★ " if best else "  ", style=S_BEST if best else "")
    t.append(labels.get(name, name), style=S_BEST if best else "")
    if result.focus_node == name:
        t.append(FOCUS_NOTE, style=S_DIM)
    return t


def _feasible_table(
    result: CycleResult, names: list[str], wide: bool, labels: dict[str, str], node_width: int, widths: list[int]
) -> Table:
    """Scores of the feasible nodes: the weighted score per plugin, and in wide mode a dim
    second line per node with the plugin's raw score → its normalized score."""
    shown, _ = _score_columns(result)
    best = set(result.best_nodes)
    table = Table(
        box=box.SIMPLE_HEAD,
        title=Text(f"Feasible nodes ({len(result.feasible_nodes)})", style=S_LABEL),
        title_justify="left",
        pad_edge=False,
        show_edge=False,
    )
    styles = {}
    for p in shown:
        values = [p.scores[n].weighted for n in result.feasible_nodes if n in p.scores]
        styles[p.name] = _column_style(values)

    rows: list[list[RenderableType]] = []
    for n in names:
        cells: list[RenderableType] = [_node_label(n, result, n in best, labels)]
        for p in shown:
            s = p.scores.get(n)
            if s is None:
                cells.append(Text("–", style=S_DIM))
                continue
            hi, flat = styles[p.name]
            t = span(str(s.weighted), style=S_DIM if flat else ("green" if s.weighted == hi else ""))
            if wide:
                t.append(f"\n{s.raw}→{s.normalized}", style=S_DIM)
            cells.append(t)
        total = result.totals.get(n, 0)
        cells.append(Text(str(total), style=S_BEST if n in best else ""))
        rows.append(cells)

    # Every column gets the width of its widest cell, worked out from the values: Rich would
    # otherwise measure each of thousands of cells. The node column may still fold as a
    # last resort; numbers never do.
    titles = [f"{short_name(p.name)}\n×{p.weight}" if wide else short_name(p.name) for p in shown]
    table.add_column("Node", overflow="fold", min_width=min(node_width, widths[0]), width=max(node_width, widths[0]))
    for title, width in zip(titles, widths[1:-1], strict=True):
        table.add_column(title, justify="right", no_wrap=True, width=width)
    table.add_column("Total", justify="right", no_wrap=True, style="bold", width=widths[-1])
    for cells in rows:
        table.add_row(*cells)
    return table


def big(table: Table) -> RenderableType:
    """Thousands of rows print through BigTable (the same text, much faster)."""
    return BigTable(table) if table.row_count > bigtable.BIG_TABLE_ROWS else table


def _feasible_widths(result: CycleResult, names: list[str], wide: bool, labels: dict[str, str]) -> list[int]:
    """The widest cell (or title) of each column of the feasible table, in terminal cells:
    the node, each shown score plugin, the total."""
    shown, _ = _score_columns(result)
    # As _node_label writes them: a 2-cell marker, the label, the spec.nodeName note.
    widths = [max([len("Node"), *(2 + cell_len(labels.get(n, n)) + (FOCUS_NOTE_WIDTH if n == result.focus_node else 0)
                                  for n in names)])]
    for p in shown:
        titles = [short_name(p.name), f"×{p.weight}"] if wide else [short_name(p.name)]
        w = max(len(t) for t in titles)
        scores = p.scores
        for n in names:
            s = scores.get(n)
            if s is None:
                w = max(w, 1)  # "–"
                continue
            w = max(w, len(str(s.weighted)), len(f"{s.raw}→{s.normalized}") if wide else 0)
        widths.append(w)
    widths.append(max([len("Total"), *(len(str(result.totals.get(n, 0))) for n in names)]))
    return widths


def common_suffix(names: list[str]) -> str:
    """The dotted domain every node name ends with (".eu-west-1.compute.internal"), if any."""
    if len(names) < 2:
        return ""
    first = names[0]
    dot = first.find(".")
    while dot != -1:
        suffix = first[dot:]
        if all(n.endswith(suffix) and len(n) > len(suffix) for n in names):
            return suffix
        dot = first.find(".", dot + 1)
    return ""


def _fits(console: Console, widths: list[int]) -> bool:
    """Whether columns this wide fit the screen, with the feasible table's padding (one
    space each side but the outer edges) and one-character column dividers."""
    return sum(widths) + 3 * (len(widths) - 1) <= console.width


def _node_width(names: list[str], labels: dict[str, str], console: Console) -> int:
    """Room for the longest node label ("★ " included), so names fold only when they
    would take more than half the screen."""
    longest = max((len(labels.get(n, n)) for n in names), default=4) + 2
    return min(longest, max(console.width // 2, 12))


# --------------------------------------------------------------------------- filtered out


def _infeasible_table(
    result: CycleResult, groups: list[list[str]], wide: bool, total: int, labels: dict[str, str], node_width: int
) -> Table:
    table = Table(
        box=box.SIMPLE_HEAD,
        title=Text(f"Filtered out ({total})", style=S_LABEL),
        title_justify="left",
        pad_edge=False,
        show_edge=False,
    )
    table.add_column("Node", overflow="fold", min_width=node_width)
    table.add_column("Rejected by", no_wrap=True, style=S_PLUGIN)
    if wide:
        table.add_column("Code", no_wrap=True)
    table.add_column("Reason", overflow="fold", ratio=1)
    for gi, group in enumerate(groups):
        if gi:
            table.add_section()
        for i, n in enumerate(group):
            v = result.nodes[n]
            label = _node_label(n, result, False, labels)
            if i and not v.all_failures:
                # Same plugin and reason as the row above: say it once per group.
                row: list[RenderableType] = [label, ""]
                if wide:
                    row.append("")
                row.append("")
                table.add_row(*row)
                continue
            plugin = v.plugin or ("(PreFilter)" if v.rejected_at == "PreFilter" else "?")
            reason = Text("; ".join(v.reasons))
            for extra in (v.all_failures or [])[1:]:
                reason.append(f"\nalso {extra.get('plugin')}: {'; '.join(extra.get('reasons') or [])}", style=S_DIM)
            row = [label, Text(plugin)]
            if wide:
                row.append(Text(CODE_SHORT.get(v.code or "", v.code or ""), style=S_DIM))
            row.append(reason)
            table.add_row(*row)
    return table


# --------------------------------------------------------------------------- footer


def _preemption(p: PreemptionOutcome, wide: bool) -> list[RenderableType]:
    head = span("Preemption ", style=S_LABEL)
    if not p.eligible:
        head.append("not eligible", style=S_DIM)
        if p.message:
            head.append(f": {p.message}")
        return [head]
    if not p.candidates:
        head.append("no node can be freed by evicting lower-priority pods")
        if p.message:
            head.append(f": {p.message}", style=S_DIM)
        return [head]
    head.append(f"{_plural(len(p.candidates), 'candidate node')}; ")
    if p.nominated_node:
        head.append("would nominate ")
        head.append(p.nominated_node, style=S_BEST)
        if p.victim_details:
            head.append(", evicting:")
        elif p.victims:
            head.append(f", evicting {', '.join(p.victims)}")
    if len(p.tied_best_nodes) > 1:
        head.append(f" (tied with {', '.join(n for n in p.tied_best_nodes if n != p.nominated_node)})", style=S_DIM)
    out: list[RenderableType] = [head]
    for v in p.victim_details:
        line = Text(f"  • {v['pod']}  priority {v['priority']}")
        if v.get("violatesPDB"):
            line.append("  violates a PodDisruptionBudget", style=S_WARN)
        out.append(line)
    if p.lost_by:
        why: dict[str, list[str]] = {}
        for node, rule in sorted(p.lost_by.items()):
            why.setdefault(rule, []).append(node)
        for rule, nodes in why.items():
            out.append(Text(f"  {_plural(len(nodes), 'other candidate')} lost on {rule}: {', '.join(nodes)}",
                            style=S_DIM))
    if wide:
        t = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
        t.add_column("Candidate", no_wrap=True)
        t.add_column("PDB violations", justify="right")
        t.add_column("Victims", overflow="fold", ratio=1)
        for c in p.candidates:
            t.add_row(c.node, str(c.num_pdb_violations), ", ".join(c.victims))
        out.append(t)
    return out


def _nominated(result: CycleResult, labels: dict[str, str]) -> list[RenderableType]:
    """Pending pods nominated to nodes: which counted in each node's filters (kschedx.core.nominated)."""
    out: list[RenderableType] = [span("Nominated pods (pending, status.nominatedNodeName):", style=S_LABEL)]
    for node, story in sorted(result.nominated.items()):
        t = Text(f"  {labels.get(node, node)}: ")
        t.append(story.describe(result.pod_priority), style=S_DIM)
        out.append(t)
    out.append(Text(""))
    return out


def _legend(result: CycleResult) -> Text:
    shown, _ = _score_columns(result)
    t = Text("Columns: ", style=S_DIM)
    for i, p in enumerate(shown):
        if i:
            t.append(" · ", style=S_DIM)
        t.append(f"{short_name(p.name)}={p.name}", style=S_DIM)
    t.append(
        ".\nEach cell: the weighted score (normalized × the weight under the title; Total sums them), "
        + ("and below it the plugin's raw score → its score after NormalizeScore (0-100)."
           if result.algorithm == "v1.35" else
           "and below it the priority function's map score → its reduced score (0-10); extenders: their 0-10 "
           "score."),
        style=S_DIM,
    )
    return t


def build(
    result: CycleResult, console: Console, *, wide: bool = False, top: int | None = None
) -> list[RenderableType]:
    """Everything the table view prints, in order, as Rich renderables."""
    parts: list[RenderableType] = [_header(result), Text("")]
    rows = order_nodes(result)
    shown = rows.limit(top)
    labels: dict[str, str] = {}
    suffix_note: Text | None = None
    listed = shown.feasible + shown.infeasible
    node_width = _node_width(listed, labels, console)
    suffix = common_suffix(list(result.nodes))
    widths = _feasible_widths(result, shown.feasible, wide, labels) if shown.feasible else []
    if suffix and shown.feasible and not _fits(console, widths):
        # Cloud node names share a long domain; drop it rather than fold every name.
        labels = {n: n[: -len(suffix)] for n in result.nodes}
        node_width = _node_width(listed, labels, console)
        widths = _feasible_widths(result, shown.feasible, wide, labels)
        suffix_note = Text(f"Node names shortened: each ends in {suffix}", style=S_DIM)
    if shown.feasible and result.error and not result.score_plugins:
        # The cycle stopped at a plugin's error before scoring: these nodes only passed Filter.
        parts.append(Text(f"Passed every filter ({len(rows.feasible)}), not scored: the cycle stopped at the error",
                          style=S_LABEL))
        parts.append(Text("  " + ", ".join(labels.get(n, n) for n in shown.feasible)))
        parts.append(Text(""))
    elif shown.feasible:
        table = _feasible_table(result, shown.feasible, wide, labels, node_width, widths)
        parts.append(big(table))
        _, skipped = _score_columns(result)
        if skipped:
            parts.append(Text("Skipped by PreScore (no score): " + ", ".join(p.name for p in skipped), style=S_DIM))
        if not wide:
            parts.append(Text("Scores are weighted (normalized × weight); -o wide shows raw and normalized.",
                              style=S_DIM))
        parts.append(Text(""))
    if shown.groups:
        parts.append(big(_infeasible_table(result, shown.groups, wide, len(rows.infeasible), labels, node_width)))
        if wide:
            parts.append(Text("Unresolvable = UnschedulableAndUnresolvable: preemption cannot help on that node.",
                              style=S_DIM))
        parts.append(Text(""))
    hidden = len(rows) - len(shown)
    if hidden:
        parts.append(Text(f"… {_plural(hidden, 'more node')} not shown (--top {top})", style=S_DIM))
    if suffix_note is not None:
        parts.append(suffix_note)
    if wide and shown.feasible:
        parts.append(_legend(result))
    if result.nominated:
        parts.extend(_nominated(result, labels))
    if result.fit_error:
        t = span("FitError ", style=S_BAD)
        t.append(result.fit_error)
        parts.append(t)
    if result.preemption is not None and (result.preemption.evaluated or result.preemption.message):
        parts.extend(_preemption(result.preemption, wide))
    for w in result.warnings:
        t = span("warning: ", style=S_WARN)
        t.append(w, style=S_DIM)
        parts.append(t)
    # No trailing blank line.
    while parts and isinstance(parts[-1], Text) and not parts[-1].plain:
        parts.pop()
    return parts


def render_table(
    result: CycleResult,
    *,
    wide: bool = False,
    top: int | None = None,
    no_color: bool = False,
    console: Console | None = None,
) -> None:
    console = console or make_console(no_color=no_color)
    console.print(Group(*build(result, console, wide=wide, top=top)))

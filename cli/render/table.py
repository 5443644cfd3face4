"""The human-readable explanation: a header, the feasible nodes with their scores, the
nodes filtered out grouped by reason, then FitError, preemption, notes and warnings.

Everything shown comes from the :class:`CycleResult`; this module only orders and
formats it. The pure helpers (``short_name``, ``order_nodes``, ``NodeRows``) are kept
free of Rich so they can be tested on their own.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rich.cells import cell_len
from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from kschedx.cli.render import bigtable, fit
from kschedx.cli.render.bigtable import BigTable
from kschedx.cli.render.console import make_console
from kschedx.cli.render.odds import preemption_odds, where_it_lands
from kschedx.core.framework.result import CycleResult, NodeVerdict, PluginScores, PreemptionOutcome

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


# The tied best nodes named in the Result line; the table marks every one.
TIES_NAMED = 5


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
        for i, n in enumerate(best[:TIES_NAMED]):
            if i:
                t.append(", ")
            t.append(n, style=S_BEST)
        if len(best) > TIES_NAMED:
            t.append(f" and {len(best) - TIES_NAMED} more (★ in the table)")
        t.append(" (a tie: the scheduler picks one at random)")
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


TINY_NAMES = {
    # Still shorter column titles, for a narrow screen (the legend line spells them out).
    "TaintToleration": "Tnt",
    "NodeAffinity": "NAff",
    "NodeResourcesFit": "Fit",
    "VolumeBinding": "Vol",
    "PodTopologySpread": "Spr",
    "InterPodAffinity": "PAff",
    "DynamicResources": "DRA",
    "NodeResourcesBalancedAllocation": "Bal",
    "ImageLocality": "Img",
    "SelectorSpreadPriority": "Spr",
    "ServiceSpreadingPriority": "SSpr",
    "InterPodAffinityPriority": "PAff",
    "LeastRequestedPriority": "Lst",
    "MostRequestedPriority": "Mst",
    "BalancedResourceAllocation": "Bal",
    "RequestedToCapacityRatioPriority": "RCR",
    "NodePreferAvoidPodsPriority": "Avd",
    "NodeAffinityPriority": "NAff",
    "TaintTolerationPriority": "Tnt",
    "ImageLocalityPriority": "Img",
    "EqualPriority": "Eq",
}


def _title(plugin: str, tiny: bool) -> str:
    return (TINY_NAMES.get(plugin) if tiny else None) or short_name(plugin)


def _feasible_rows(
    result: CycleResult, names: list[str], wide: bool, labels: dict[str, str], columns: list[PluginScores],
    tiny: bool,
) -> tuple[list[fit.Col], list[list[RenderableType]]]:
    """Scores of the feasible nodes: the weighted score per plugin, and in wide mode a dim
    second line per node with the plugin's raw score → its normalized score."""
    best = set(result.best_nodes)
    styles = {}
    for p in columns if names else []:
        values = [p.scores[n].weighted for n in result.feasible_nodes if n in p.scores]
        styles[p.name] = _column_style(values)
    rows: list[list[RenderableType]] = []
    for n in names:
        cells: list[RenderableType] = [_node_label(n, result, n in best, labels)]
        for p in columns:
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
    cols = [fit.Col("Node", key="")]
    for p in columns:
        title = _title(p.name, tiny)
        cols.append(fit.Col(f"{title}\n×{p.weight}" if wide else title, justify="right", key=title))
    cols.append(fit.Col("Total", justify="right", style="bold"))
    return cols, rows


def big(table: RenderableType) -> RenderableType:
    """Thousands of rows print through BigTable (the same text, much faster)."""
    return BigTable(table) if isinstance(table, Table) and table.row_count > bigtable.BIG_TABLE_ROWS else table


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


def _score_columns_shown(result: CycleResult, wide: bool) -> tuple[list[PluginScores], list[PluginScores]]:
    """The score columns of the table, and those left out because every feasible node has
    0 there (the default table only: -o wide shows them all)."""
    shown, _ = _score_columns(result)
    if wide:
        return shown, []
    feasible = result.feasible_nodes
    zero = [p for p in shown if all(p.scores[n].weighted == 0 for n in feasible if n in p.scores)]
    return [p for p in shown if p not in zero], zero


# --------------------------------------------------------------------------- filtered out


def _infeasible_rows(
    result: CycleResult, groups: list[list[str]], wide: bool, labels: dict[str, str]
) -> tuple[list[fit.Col], list[list[RenderableType]], list[int]]:
    cols = [fit.Col("Node", key=""), fit.Col("Rejected by", style=S_PLUGIN, key="")]
    if wide:
        cols.append(fit.Col("Code", key=""))
    cols.append(fit.Col("Reason", wrap=True, key=""))
    rows: list[list[RenderableType]] = []
    ends: list[int] = []
    for gi, group in enumerate(groups):
        if gi:
            ends.append(len(rows) - 1)
        for i, n in enumerate(group):
            v = result.nodes[n]
            label = _node_label(n, result, False, labels)
            if i and not v.all_failures:
                # Same plugin and reason as the row above: say it once per group.
                row: list[RenderableType] = [label, ""]
                if wide:
                    row.append("")
                row.append("")
                rows.append(row)
                continue
            plugin = v.plugin or ("(PreFilter)" if v.rejected_at == "PreFilter" else "?")
            reason = Text("; ".join(v.reasons))
            for extra in (v.all_failures or [])[1:]:
                reason.append(f"\nalso {extra.get('plugin')}: {'; '.join(extra.get('reasons') or [])}", style=S_DIM)
            row = [label, Text(plugin)]
            if wide:
                row.append(Text(CODE_SHORT.get(v.code or "", v.code or ""), style=S_DIM))
            row.append(reason)
            rows.append(row)
    return cols, rows, ends


def _infeasible_stacked(
    result: CycleResult, groups: list[list[str]], wide: bool, labels: dict[str, str]
) -> RenderableType:
    """Filtered-out nodes on a narrow screen: each reason once, the nodes it rejected under it."""
    out: list[RenderableType] = []
    for group in groups:
        singles = [n for n in group if result.nodes[n].all_failures]
        rest = [n for n in group if n not in singles]
        for members in ([[n] for n in singles] + ([rest] if rest else [])):
            v = result.nodes[members[0]]
            plugin = v.plugin or ("(PreFilter)" if v.rejected_at == "PreFilter" else "?")
            head = span(plugin, style=S_PLUGIN)
            if wide:
                head.append(f" ({CODE_SHORT.get(v.code or '', v.code or '')})", style=S_DIM)
            head.append(": " + "; ".join(v.reasons))
            for extra in (v.all_failures or [])[1:]:
                head.append(f"\nalso {extra.get('plugin')}: {'; '.join(extra.get('reasons') or [])}", style=S_DIM)
            out.append(fit.Hanging(head))
            nodes = Text(" " * fit.INDENT)
            for i, n in enumerate(members):
                if i:
                    nodes.append(", ")
                nodes.append(labels.get(n, n))
            out.append(fit.Hanging(nodes))
    return Group(*out)


# --------------------------------------------------------------------------- footer


def _preemption(p: PreemptionOutcome, wide: bool, width: int) -> list[RenderableType]:
    head = span("Preemption ", style=S_LABEL)
    if not p.eligible:
        head.append("not eligible", style=S_DIM)
        if p.message:
            head.append(f": {p.message}")
        return [fit.Hanging(head)]
    if not p.candidates:
        head.append("no node can be freed by evicting lower-priority pods")
        if p.message:
            head.append(f": {p.message}", style=S_DIM)
        return [fit.Hanging(head)]
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
    out: list[RenderableType] = [fit.Hanging(head)]
    for v in p.victim_details:
        line = Text(f"  • {v['pod']}  priority {v['priority']}")
        if v.get("violatesPDB"):
            line.append("  violates a PodDisruptionBudget", style=S_WARN)
        out.append(fit.Hanging(line))
    out.extend(fit.Hanging(Text(f"  {line}")) for line in preemption_odds(p))
    if p.lost_by:
        why: dict[str, list[str]] = {}
        for node, rule in sorted(p.lost_by.items()):
            why.setdefault(rule, []).append(node)
        for rule, nodes in why.items():
            out.append(fit.Hanging(Text(f"  {_plural(len(nodes), 'other candidate')} lost on {rule}: "
                                        f"{', '.join(nodes)}", style=S_DIM)))
    if wide:
        cols = [fit.Col("Candidate", key=""), fit.Col("PDB violations", justify="right"),
                fit.Col("Victims", wrap=True)]
        rows: list[list[RenderableType]] = [
            [c.node, str(c.num_pdb_violations), ", ".join(c.victims)] for c in p.candidates]
        out.append(fit.table_or_stacked(cols, rows, width))
    return out


def _nominated(result: CycleResult, labels: dict[str, str]) -> list[RenderableType]:
    """Pending pods nominated to nodes: which counted in each node's filters (kschedx.core.framework.nominated)."""
    out: list[RenderableType] = [span("Nominated pods (pending, status.nominatedNodeName):", style=S_LABEL)]
    for node, story in sorted(result.nominated.items()):
        t = Text(f"  {labels.get(node, node)}: ")
        t.append(story.describe(result.pod_priority), style=S_DIM)
        out.append(fit.Hanging(t))
    out.append(Text(""))
    return out


def _legend(result: CycleResult, columns: list[PluginScores], tiny: bool, wide: bool) -> Text:
    """One line naming the plugin behind each shortened column title (and, in wide mode,
    what the two numbers of a cell are)."""
    t = Text("Columns: ", style=S_DIM)
    for i, p in enumerate(columns):
        if i:
            t.append(" · ", style=S_DIM)
        t.append(f"{_title(p.name, tiny)}={p.name}", style=S_DIM)
    if not wide:
        t.append(".", style=S_DIM)
        return t
    t.append(
        ".\nEach cell: the weighted score (normalized × the weight under the title; Total sums them), "
        + ("and below it the plugin's raw score → its score after NormalizeScore (0-100)."
           if result.algorithm == "v1.35" else
           "and below it the priority function's map score → its reduced score (0-10); extenders: their 0-10 "
           "score."),
        style=S_DIM,
    )
    return t


def _left_out(skipped: list[PluginScores], zero: list[PluginScores]) -> Text | None:
    """The one footer line naming the score plugins that have no column."""
    said: list[str] = []
    if skipped:
        said.append("Skipped by PreScore (no score): " + ", ".join(p.name for p in skipped))
    if zero:
        said.append("0 on every node (no column): " + ", ".join(p.name for p in zero))
    return Text("; ".join(said), style=S_DIM) if said else None


def _feasible_measures(result: CycleResult, names: list[str], wide: bool,
                       columns: list[PluginScores]) -> list[tuple[int, int]]:
    """What fit.measure would say of the feasible rows, worked out from the numbers (Rich
    need not measure thousands of cells): the node column (filled in per variant), each
    score column, the total. Every character here is one cell wide."""
    out = [(0, 0)]
    for p in columns:
        scores = p.scores
        w = 0
        for n in names:
            s = scores.get(n)
            if s is None:
                w = max(w, 1)  # "–"
                continue
            w = max(w, len(str(s.weighted)), len(f"{s.raw}→{s.normalized}") if wide else 0)
        out.append((w, w))
    total = max((len(str(result.totals.get(n, 0))) for n in names), default=0)
    out.append((total, total))
    return out


def _label_width(names: list[str], result: CycleResult, labels: dict[str, str]) -> int:
    """The node column's width as _node_label writes it: a 2-cell marker, the label, the
    spec.nodeName note."""
    return max((2 + cell_len(labels.get(n, n)) + (FOCUS_NOTE_WIDTH if n == result.focus_node else 0) for n in names),
               default=0)


def _with_labels(rows: list[list[RenderableType]], names: list[str], result: CycleResult, best: set[str],
                 labels: dict[str, str]) -> list[list[RenderableType]]:
    """The rows with their node cell written with these labels."""
    return [[_node_label(n, result, n in best, labels), *row[1:]] for n, row in zip(names, rows, strict=True)]


def build(
    result: CycleResult, console: Console, *, wide: bool = False, top: int | None = None
) -> list[RenderableType]:
    """Everything the table view prints, in order, as Rich renderables."""
    parts: list[RenderableType] = [_header(result), Text("")]
    lands = where_it_lands(result, result.focus.node if result.focus is not None else None)
    if lands:
        parts.append(span(lands[0], style=S_LABEL))
        parts.extend(fit.Hanging(Text(line)) for line in lands[1:])
        parts.append(Text(""))
    rows = order_nodes(result)
    shown = rows.limit(top)
    width = console.width
    columns, zero = _score_columns_shown(result, wide)
    _, skipped = _score_columns(result)
    best = set(result.best_nodes)
    infeasible = shown.infeasible

    # The table is tried with the full node names and the usual titles first; then with the
    # domain every node name shares left out (noted below), then with the shortest titles.
    suffix = common_suffix(list(result.nodes))
    short_labels = {n: n[: -len(suffix)] for n in result.nodes} if suffix else {}
    variants: list[tuple[dict[str, str], bool]] = [({}, False)]
    if suffix:
        variants.append((short_labels, False))
    variants.append((short_labels, True))
    f_rows: list[list[RenderableType]] = []
    i_cols: list[fit.Col] = []
    i_rows: list[list[RenderableType]] = []
    ends: list[int] = []
    if shown.feasible:
        _, f_rows = _feasible_rows(result, shown.feasible, wide, {}, columns, False)
    if shown.groups:
        i_cols, i_rows, ends = _infeasible_rows(result, shown.groups, wide, {})
    labels: dict[str, str] = {}
    tiny = False
    # First the variant that leaves the reasons room (a third of the screen), then any that fits.
    # The cells are measured once; only the node column changes from one variant to the next.
    # The widths are planned for each variant first, and the tables built for the chosen one.
    f_meas = _feasible_measures(result, shown.feasible, wide, columns) if shown.feasible else []
    i_meas = fit.measure(i_cols, i_rows) if shown.groups else []
    chosen: tuple[dict[str, str], bool, bool] | None = None
    for roomy, (labels, tiny) in [(True, v) for v in variants] + [(False, v) for v in variants]:
        f_cols, _ = _feasible_rows(result, [], wide, labels, columns, tiny)
        node = _label_width(shown.feasible, result, labels)
        f_ok = not shown.feasible or fit.plan_widths(
            f_cols, [], width, fit.GAPS[-1], measures=[(node, node), *f_meas[1:]]) is not None
        node = _label_width(infeasible, result, labels)
        i_ok = not shown.groups or fit.plan_widths(
            i_cols, [], width, fit.GAPS[-1], roomy=roomy, measures=[(node, node), *i_meas[1:]]) is not None
        if f_ok and i_ok:
            chosen = (labels, tiny, roomy)
            break
    labels, tiny, roomy = chosen if chosen is not None else (variants[-1][0], False, False)
    f_table: Table | None = None
    i_table: Table | None = None
    if shown.feasible and chosen is not None:
        f_cols, _ = _feasible_rows(result, [], wide, labels, columns, tiny)
        node = _label_width(shown.feasible, result, labels)
        f_table = fit.fit_table(f_cols, _with_labels(f_rows, shown.feasible, result, best, labels) if labels else f_rows,
                                width, measures=[(node, node), *f_meas[1:]])
    if shown.groups:
        node = _label_width(infeasible, result, labels)
        i_table = fit.fit_table(i_cols, _with_labels(i_rows, infeasible, result, set(), labels) if labels else i_rows,
                                width, sections=ends, roomy=roomy, measures=[(node, node), *i_meas[1:]])
    if f_table is None:
        tiny = False  # the stacked form has room for the usual titles

    if shown.feasible and result.error and not result.score_plugins:
        # The cycle stopped at a plugin's error before scoring: these nodes only passed Filter.
        parts.append(Text(f"Passed every filter ({len(rows.feasible)}), not scored: the cycle stopped at the error",
                          style=S_LABEL))
        parts.append(fit.Hanging(Text("  " + ", ".join(labels.get(n, n) for n in shown.feasible))))
        parts.append(Text(""))
    elif shown.feasible:
        parts.append(Text(f"Feasible nodes ({len(result.feasible_nodes)})", style=S_LABEL))
        f_cols, _ = _feasible_rows(result, [], wide, labels, columns, tiny)
        parts.append(big(f_table) if f_table is not None else
                     fit.stacked(f_cols, _with_labels(f_rows, shown.feasible, result, best, labels)))
        left_out = _left_out(skipped, zero)
        if left_out is not None:
            parts.append(fit.Hanging(left_out))
        if columns:
            parts.append(fit.Hanging(_legend(result, columns, tiny, wide)))
        if not wide:
            parts.append(fit.Hanging(Text("Scores are weighted (normalized × weight); -o wide shows raw and "
                                          "normalized.", style=S_DIM)))
        parts.append(Text(""))
    if shown.groups:
        parts.append(Text(f"Filtered out ({len(rows.infeasible)})", style=S_LABEL))
        parts.append(big(i_table) if i_table is not None else _infeasible_stacked(result, shown.groups, wide, labels))
        if wide:
            parts.append(fit.Hanging(Text("Unresolvable = UnschedulableAndUnresolvable: preemption cannot help on "
                                          "that node.", style=S_DIM)))
        parts.append(Text(""))
    hidden = len(rows) - len(shown)
    if hidden:
        parts.append(Text(f"… {_plural(hidden, 'more node')} not shown (--top {top})", style=S_DIM))
    if labels:
        parts.append(fit.Hanging(Text(f"Node names shortened: each ends in {suffix}", style=S_DIM)))
    if result.nominated:
        parts.extend(_nominated(result, labels))
    if result.fit_error:
        t = span("FitError ", style=S_BAD)
        t.append(result.fit_error)
        parts.append(fit.Hanging(t))
    if result.preemption is not None and (result.preemption.evaluated or result.preemption.message):
        parts.extend(_preemption(result.preemption, wide, width))
    for w in result.warnings:
        t = span("warning: ", style=S_WARN)
        t.append(w, style=S_DIM)
        parts.append(fit.Hanging(t))
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

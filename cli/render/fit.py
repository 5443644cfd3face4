"""Layout that never loses a character: tables whose column widths are worked out here, from
the cells, so that Rich never has to squeeze them, and a stacked form for screens too
narrow for the table.

Rich shrinks a table that is wider than the screen by cutting its widest columns, then all
of them evenly: numbers and node names get an ellipsis, words are split mid-way and, for
cells squeezed below their padding, whole lines disappear. Here a column that must not
wrap (a node name, a number, a plugin) gets the width of its widest cell; a column of prose
gets at least its longest word, and the rest of the room up to its longest line; when even
that does not fit, the caller gets ``None`` (or the stacked form) instead of a cut table.
Words then wrap whole, with a hanging indent.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rich import box
from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

# Between two columns: a one-cell divider and one cell of padding each side (the usual
# look), or, on a tight screen, the divider and one cell of padding.
GAPS = (3, 2)
# The stacked form indents each record's details this much under its first line.
INDENT = 4
# The width of a screen without limit (a table built before the screen is known).
UNLIMITED = 10_000


@dataclass
class Col:
    """One column: its header (lines split by ``\\n``), alignment, whether its words may
    wrap onto more lines, its style, and the word naming its values in the stacked form."""

    header: str
    justify: str = "left"
    wrap: bool = False
    style: str = ""
    key: str | None = None

    @property
    def label(self) -> str:
        return self.key if self.key is not None else " ".join(self.header.split())


def _plain(cell: RenderableType) -> str:
    if isinstance(cell, Text):
        return cell.plain
    return str(cell) if cell is not None else ""


def _longest_line(text: str) -> int:
    return max((cell_len(line) for line in text.split("\n")), default=0)


def _longest_word(text: str) -> int:
    return max((cell_len(word) for word in text.split()), default=0)


def measure(cols: Sequence[Col], rows: Sequence[Sequence[RenderableType]]) -> list[tuple[int, int]]:
    """Per column, from its cells only (not the header): the least width it can take (its
    longest word if it wraps, else its longest line) and the width it would like (its
    longest line). Measured once; a table is often tried at several layouts."""
    out: list[tuple[int, int]] = []
    for c, col in enumerate(cols):
        texts = [_plain(row[c]) for row in rows]
        most = max((_longest_line(t) for t in texts), default=0)
        least = max((_longest_word(t) for t in texts), default=0) if col.wrap else most
        out.append((least, most))
    return out


def plan_widths(cols: Sequence[Col], rows: Sequence[Sequence[RenderableType]], width: int, gap: int,
                *, roomy: bool = False, measures: Sequence[tuple[int, int]] | None = None) -> list[int] | None:
    """The content width of each column (padding excluded) so that the table takes at most
    ``width`` cells with ``gap`` cells between columns; None when it cannot without cutting
    a cell that must not wrap or splitting a word. ``roomy``: None also when a column of
    prose would get less than a third of the screen (and less than its longest line).
    ``measures``: what :func:`measure` says of the rows, when already known."""
    if measures is None:
        measures = measure(cols, rows)
    least: list[int] = []
    most: list[int] = []
    for col, (cell_least, cell_most) in zip(cols, measures, strict=True):
        head = _longest_line(col.header)
        least.append(max(head, 1, cell_least))
        most.append(max(head, 1, cell_most))
        if col.wrap and roomy:
            least[-1] = max(least[-1], min(most[-1], width // 3))
    spare = width - sum(least) - gap * (len(cols) - 1)
    if spare < 0:
        return None
    widths = list(least)
    for c, col in enumerate(cols):
        if col.wrap and spare > 0:
            extra = min(spare, most[c] - least[c])
            widths[c] += extra
            spare -= extra
    return widths


def make_table(cols: Sequence[Col], rows: Sequence[Sequence[RenderableType]], widths: Sequence[int], gap: int,
               *, sections: Iterable[int] = ()) -> Table:
    """A Rich table with exactly these content widths (Rich then has nothing to shrink).
    ``sections``: the rows after which a section rule goes."""
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False,
                  padding=(0, 1) if gap >= 3 else (0, 1, 0, 0))
    for col, w in zip(cols, widths, strict=True):
        table.add_column(col.header, justify=col.justify, style=col.style or None,  # type: ignore[arg-type]
                         no_wrap=not col.wrap, overflow="fold", width=w, min_width=w)
    ends = set(sections)
    for i, row in enumerate(rows):
        table.add_row(*row, end_section=i in ends)
    return table


def fit_table(cols: Sequence[Col], rows: Sequence[Sequence[RenderableType]], width: int,
              *, sections: Iterable[int] = (), roomy: bool = False,
              measures: Sequence[tuple[int, int]] | None = None) -> Table | None:
    """The table at ``width`` with the widest gaps that fit, or None when it does not fit."""
    if measures is None:
        measures = measure(cols, rows)
    for gap in GAPS:
        widths = plan_widths(cols, rows, width, gap, roomy=roomy, measures=measures)
        if widths is not None:
            return make_table(cols, rows, widths, gap, sections=sections)
    return None


def _flat(cell: RenderableType) -> Text:
    """A cell's text on one line (the lines of a multi-line cell joined by a space)."""
    t = cell.copy() if isinstance(cell, Text) else Text(_plain(cell))
    parts = [p for p in t.split("\n") if p.plain]
    if len(parts) <= 1:
        return parts[0] if parts else Text()
    # "300" over "0→100" (wide scores) reads as "300 (0→100)".
    return parts[0] + Text(" (") + Text(", ").join(parts[1:]) + Text(")")


def stacked(cols: Sequence[Col], rows: Sequence[Sequence[RenderableType]]) -> Group:
    """The table for a narrow screen: each row's first cell on a line of its own, the other
    cells under it as ``Header value`` pairs, words wrapped whole with a hanging indent."""
    out: list[RenderableType] = []
    for row in rows:
        head = _flat(row[0])
        if cols[0].key:  # a bare number ("#") reads better with its name: "copy 3"
            head = Text(f"{cols[0].key} ") + head
        out.append(Hanging(head, INDENT))
        details = Text()
        for col, cell in zip(cols[1:], row[1:], strict=True):
            value = _flat(cell)
            if not value.plain.strip():
                continue
            if details.plain:
                details.append(" · ", style="dim")
            if col.label:
                details.append(f"{col.label} ", style="dim")
            details.append_text(value)
        if details.plain:
            out.append(Hanging(Text(" " * INDENT) + details, INDENT))
    return Group(*out)


def table_or_stacked(cols: Sequence[Col], rows: Sequence[Sequence[RenderableType]], width: int,
                     *, sections: Iterable[int] = ()) -> RenderableType:
    table = fit_table(cols, rows, width, sections=sections)
    return table if table is not None else stacked(cols, rows)


class Hanging:
    """Text whose words wrap whole, the lines after the first indented by ``indent`` cells
    (each ``\\n``-separated paragraph on its own). A word longer than the line is folded
    (the only way to show it all)."""

    def __init__(self, text: Text, indent: int = INDENT) -> None:
        self.text = text
        self.indent = indent

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(min(options.max_width, _longest_word(self.text.plain) + self.indent),
                           max(_longest_line(self.text.plain), 1))

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = max(options.max_width, 1)
        indent = self.indent if width > self.indent + 8 else 0
        for paragraph in self.text.split("\n", allow_blank=True):
            first = paragraph.wrap(console, width, overflow="fold", no_wrap=False)
            if len(first) <= 1:
                yield from first
                continue
            head = first[0]
            yield head
            # The rest of the paragraph after the first line and the spaces that ended it.
            plain = paragraph.plain
            offset = len(head.plain)
            while offset < len(plain) and plain[offset] == " ":
                offset += 1
            rest = paragraph[offset:]
            for line in rest.wrap(console, width - indent, overflow="fold"):
                yield Text(" " * indent) + line

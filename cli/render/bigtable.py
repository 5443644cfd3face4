"""Rendering tables of thousands of rows at the speed of text.

Rich lays a table out well but renders every cell through its full pipeline (padding,
wrapping, justification, one renderable per cell): about 0.3 ms a row, so a 5,000-node
cluster's table took longer to print than the scheduling cycle it explains. For tables
this big, ``BigTable`` lets Rich do what it does once per table — the column widths, the
title, the header and the rule under it — and then lays out each row itself: cells that
fit on their lines are padded and justified as plain text; only a cell that has to wrap
goes through Rich's own wrapping. The result is the same text Rich prints for the same
table (tests compare the two); it applies to the tables this package builds (no row
styles, no footer, top-aligned cells, the box's row separator between sections).
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.console import Console, ConsoleOptions, RenderResult
from rich.segment import Segment
from rich.style import Style
from rich.table import Table
from rich.text import Text

# Below this many rows Rich renders the table itself.
BIG_TABLE_ROWS = 200


class BigTable:
    """A Rich renderable that prints ``table`` as Rich would, faster for many rows."""

    def __init__(self, table: Table) -> None:
        self.table = table

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        table = self.table
        # Rich's own layout: every column's width, padding included (as Table does it:
        # the box's column dividers come off the width first).
        max_width = table.width if table.width is not None else options.max_width
        widths = table._calculate_column_widths(console, options.update_width(max_width - table._extra_width))
        columns = table.columns
        pads = _pads(table)
        inner = [w - lp - rp for w, (lp, rp) in zip(widths, pads, strict=True)]
        if min(inner) < 1 or sum(widths) + table._extra_width > options.max_width:
            # Squeezed below its padding or wider than the screen even so (a very narrow
            # terminal): Rich's own rendering.
            yield from console.render(table, options)
            return
        # The frame gets exactly its width, so that Rich doesn't shrink it a second time.
        yield from console.render(_frame(table, inner), options.update_width(sum(widths) + table._extra_width))
        separator = table.box.get_row(widths, "row", edge=table.show_edge) if table.box else ""
        column_cells = [column._cells for column in columns]
        styles = [console.get_style(column.style or "") for column in columns]
        border_style = console.get_style(table.style or "") + console.get_style(table.border_style or "")
        new_line = Segment.line()
        box = table.box
        n_rows = len(table.rows)
        for index, row in enumerate(table.rows):
            divider = (box.foot_vertical if index == n_rows - 1 else box.mid_vertical) if box else ""
            cells: list[list[Text]] = []
            for c, column in enumerate(columns):
                cells.append(_cell_lines(console, column_cells[c][index], inner[c], column.justify, column.overflow,
                                         bool(column.no_wrap)))
            height = max(len(lines) for lines in cells)
            left, right = ((box.foot_left, box.foot_right) if index == n_rows - 1 else (box.mid_left, box.mid_right)) \
                if (box and table.show_edge) else ("", "")
            for line_no in range(height):
                if left:
                    yield Segment(left, border_style)
                for c, lines in enumerate(cells):
                    if c:
                        yield Segment(divider, border_style)
                    # The column's style is the cell's base style, under the text's own.
                    base = styles[c]
                    lp, rp = pads[c]
                    if lp:
                        yield Segment(" " * lp, base)
                    if line_no < len(lines):
                        yield from _justified(console, lines[line_no], inner[c], columns[c].justify, base)
                    else:
                        yield Segment(" " * inner[c], base)
                    if rp:
                        yield Segment(" " * rp, base)
                if right:
                    yield Segment(right, border_style)
                yield new_line
            if row.end_section and index < len(table.rows) - 1 and separator:
                yield Segment(separator, border_style)
                yield new_line


def _cell_lines(console: Console, renderable: object, width: int, justify: str | None, overflow: str | None,
                no_wrap: bool) -> list[Text]:
    text = renderable if isinstance(renderable, Text) else Text(str(renderable))
    lines = text.split("\n", allow_blank=True) if "\n" in text.plain else [text]
    out: list[Text] = []
    for line in lines:
        if line.cell_len <= width or no_wrap:
            if line.cell_len > width:
                line = line.copy()
                line.truncate(width, overflow=overflow or "ellipsis")  # type: ignore[arg-type]
            out.append(line)
        else:
            out.extend(line.wrap(console, width, justify=justify or "left",  # type: ignore[arg-type]
                                 overflow=overflow or "fold"))  # type: ignore[arg-type]
    return out


def _justified(console: Console, piece: Text, width: int, justify: str | None, base: Style) -> Iterable[Segment]:
    """``piece`` as segments over ``width`` cells, aligned as Rich aligns a cell (the
    alignment's spaces take the text's base style), on top of the cell's ``base`` style."""
    text_style = base + console.get_style(piece.style) if piece.style else base
    gap = width - piece.cell_len
    before = gap if justify == "right" else (gap // 2 if justify == "center" else 0)
    if before > 0:
        yield Segment(" " * before, text_style)
    for seg in piece.render(console):
        yield Segment(seg.text, text_style + seg.style if seg.style else text_style)
    after = gap - before
    if after > 0:
        yield Segment(" " * after, text_style)


def _pads(table: Table) -> list[tuple[int, int]]:
    """Each column's (left, right) padding, as Rich pads cells: none at the outer edges
    unless the table pads them."""
    left_pad, right_pad = table.padding[3], table.padding[1]
    last = len(table.columns) - 1
    return [
        ((left_pad if (i or table.pad_edge) else 0), (right_pad if (i < last or table.pad_edge) else 0))
        for i in range(len(table.columns))
    ]


def _frame(table: Table, inner: list[int]) -> Table:
    """The table's title, header and the rule under it: the same table without rows, its
    columns fixed at the widths (padding excluded) Rich worked out for the full one."""
    frame = Table(
        box=table.box, title=table.title, title_justify=table.title_justify, title_style=table.title_style,
        pad_edge=table.pad_edge, show_edge=table.show_edge, show_header=table.show_header,
        header_style=table.header_style, padding=table.padding, expand=False, style=table.style,
        border_style=table.border_style,
    )
    for column, width in zip(table.columns, inner, strict=True):
        frame.add_column(column.header, justify=column.justify, style=column.style, header_style=column.header_style,
                         no_wrap=True, overflow=column.overflow, width=width, min_width=width)
    return frame

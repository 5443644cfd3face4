"""Line-oriented output (check verdicts, pending pods, warnings): one record per line.

Off a terminal each record is written on exactly one line, whatever ``COLUMNS`` or the
length of the paths in it, so that ``grep``, ``wc -l`` and CI logs see whole records. On a
terminal a long record wraps at word boundaries with a hanging indent, so the next record
still starts at the left edge.

Commands hand records over as Rich ``Text`` (styled) or plain strings::

    from kschedx.cli.lines import print_records
    print_records([Text("✓ web  fits"), "3 checked"], no_color=no_color)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.text import Text

# On a terminal, the lines after a record's first are indented this much.
HANGING_INDENT = 4


def one_line(record: Text | str) -> Text:
    """The record as a Text on a single line: line breaks inside it become spaces."""
    from rich.text import Text

    text = Text(record) if isinstance(record, str) else record
    if "\n" not in text.plain:
        return text
    return Text(" ").join(text.split("\n"))


def print_records(records: Iterable[Text | str], *, no_color: bool = False, stderr: bool = False) -> None:
    """Print each record on its own line (see the module's docstring)."""
    from kschedx.cli.render.console import make_console
    from kschedx.cli.render.fit import Hanging

    console = make_console(no_color=no_color, stderr=stderr)
    terminal = console.is_terminal
    for record in records:
        text = one_line(record)
        if terminal:
            console.print(Hanging(text, HANGING_INDENT))
        else:
            # soft_wrap: Rich inserts no line breaks and crops nothing.
            console.print(text, soft_wrap=True)

"""The one Rich console wrapper every human-readable renderer uses.

Colour only on a terminal; ``--no-color`` and ``NO_COLOR`` turn it off there too. Off a
terminal (a pipe, a file, a test runner) Rich writes plain text; the width is then
``COLUMNS`` when set, else as wide as the content needs: a pipe has no screen to fit, and
``grep`` or a CI log should see each row and each sentence on one line.
"""

from __future__ import annotations

import os
import shutil
import sys
from typing import TextIO

from rich.console import Console

# Wide enough for any row or sentence (Rich needs a number).
DEFAULT_PIPE_WIDTH = 10_000
# The narrowest screen rendered for: below it (``COLUMNS=1``, a tiny terminal) the output is
# laid out for this width and lines wrap, instead of one character a line.
MIN_WIDTH = 40


def _env_width() -> int | None:
    try:
        width = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        return None
    return max(width, MIN_WIDTH) if width > 0 else None


def screen_width(stream: TextIO) -> int | None:
    """The width to render for on ``stream``: a terminal's (at least MIN_WIDTH), None when
    it is no terminal."""
    try:
        if not stream.isatty():
            return None
    except (AttributeError, ValueError):
        return None
    return max(shutil.get_terminal_size().columns, MIN_WIDTH)


def make_console(*, no_color: bool = False, stderr: bool = False) -> Console:
    stream: TextIO = sys.stderr if stderr else sys.stdout
    width = screen_width(stream) or _env_width() or DEFAULT_PIPE_WIDTH
    return Console(
        file=stream,
        no_color=no_color or os.environ.get("NO_COLOR", "") != "",
        width=width,
        highlight=False,  # never guess colours from content (node names, numbers)
        emoji=False,
        markup=False,  # reasons contain brackets, e.g. "plugin(s) [NodeAffinity]"
        soft_wrap=False,
    )

"""The one Rich console wrapper every human-readable renderer uses.

Colour only on a terminal; ``--no-color`` and ``NO_COLOR`` turn it off there too. Off a
terminal (a pipe, a file, a test runner) Rich writes plain text; the width is then
``COLUMNS`` when set, else as wide as the content needs: a pipe has no screen to fit, and
``grep`` or a CI log should see each row and each sentence on one line.
"""

from __future__ import annotations

import os
import sys
from typing import TextIO

from rich.console import Console

from kschedx.cli.render.safe import unguarded

# Wide enough for any row or sentence (Rich needs a number).
DEFAULT_PIPE_WIDTH = 10_000


def _env_width() -> int | None:
    try:
        width = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        return None
    return width if width > 0 else None


def make_console(*, no_color: bool = False, stderr: bool = False) -> Console:
    # Below the stream guard: the text is made safe as Rich takes it (cli/render/safe.py),
    # and Rich's colours must pass.
    stream: TextIO = unguarded(sys.stderr if stderr else sys.stdout)
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):
        tty = False
    width = None if tty else (_env_width() or DEFAULT_PIPE_WIDTH)
    return Console(
        file=stream,
        no_color=no_color or os.environ.get("NO_COLOR", "") != "",
        width=width,
        highlight=False,  # never guess colours from content (node names, numbers)
        emoji=False,
        markup=False,  # reasons contain brackets, e.g. "plugin(s) [NodeAffinity]"
        soft_wrap=False,
    )

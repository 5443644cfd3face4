"""The one Rich console wrapper every human-readable renderer uses.

Colour only on a terminal; ``--no-color`` and ``NO_COLOR`` turn it off there too. Off a
terminal (a pipe, a file, a test runner) Rich writes plain text; the width is then
``COLUMNS`` when set, else as wide as the content needs: a pipe has no screen to fit, and
``grep`` or a CI log should see each row and each sentence on one line.

Rich pads every cell of a table or grid to its column's width, so a line ends in the
blanks of its last column; written through ``TrimmedLines``, no line ends in blanks (a pager
in a narrower terminal would show them as an empty continuation line).
"""

from __future__ import annotations

import os
import shutil
import sys
from typing import Any, TextIO

from rich.console import Console

from kschedx.cli.render.safe import unguarded

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


_SGR_BODY = frozenset("0123456789;")


def _trim_line(line: str) -> str:
    """``line`` without its trailing blanks; colour codes among them are kept, so a style is
    still closed where Rich closed it."""
    end = len(line)
    codes: list[str] = []
    while end:
        c = line[end - 1]
        if c == " " or c == "\t":
            end -= 1
        elif c == "m" and (start := line.rfind("\x1b[", 0, end)) != -1 and _SGR_BODY.issuperset(line[start + 2:end - 1]):
            codes.append(line[start:end])
            end = start
        else:
            break
    return line if end == len(line) else line[:end] + "".join(reversed(codes))


def _trim_line_ends(text: str) -> str:
    """``text`` (whole lines) with the blanks at the end of each line removed."""
    return "\n".join(_trim_line(line) if line[-1:] in (" ", "\t", "m") else line for line in text.split("\n"))


class TrimmedLines:
    """A text stream that writes whole lines without their trailing blanks; a line not yet
    ended is held until its newline or a flush (then written as it is)."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._held = ""

    def write(self, text: str) -> int:
        pending = self._held + text
        cut = pending.rfind("\n") + 1
        self._held = pending[cut:]
        if cut:
            self._stream.write(_trim_line_ends(pending[:cut]))
        return len(text)

    def flush(self) -> None:
        if self._held:
            self._stream.write(self._held)
            self._held = ""
        self._stream.flush()

    def __getattr__(self, name: str) -> Any:  # isatty, fileno, encoding, ...
        return getattr(self._stream, name)


class _Console(Console):
    """Rich's console, except that a reader leaving the pipe (``kschedx check ... | head``)
    ends the run the way the ``kschedx`` entry point ends it for every other write (exit
    141, as a shell reports SIGPIPE), not with Rich's own exit 1: a CI step must not read a
    closed pipe as "doesn't fit"."""

    def on_broken_pipe(self) -> None:
        raise BrokenPipeError


def make_console(*, no_color: bool = False, stderr: bool = False) -> Console:
    # Below the stream guard: the text is made safe as Rich takes it (cli/render/safe.py),
    # and Rich's colours must pass.
    stream: TextIO = unguarded(sys.stderr if stderr else sys.stdout)
    width = screen_width(stream) or _env_width() or DEFAULT_PIPE_WIDTH
    return _Console(
        file=TrimmedLines(stream),  # type: ignore[arg-type]  # a TextIO in all Rich uses
        no_color=no_color or os.environ.get("NO_COLOR", "") != "",
        width=width,
        highlight=False,  # never guess colours from content (node names, numbers)
        emoji=False,
        markup=False,  # reasons contain brackets, e.g. "plugin(s) [NodeAffinity]"
        soft_wrap=False,
    )

"""Terminal safety: text from the cluster never reaches a terminal or a pipe raw.

Node names, label values, reasons, Event messages and annotations come from whoever may
write them (anyone allowed to create Events writes their messages), and a dump is taken as
stored, unvalidated. An escape sequence among them could recolour, move the cursor, retitle
the window or hide lines (the class of CVE-2021-25743). kubectl escapes such text since
v1.23 (cli-runtime's printers): ESC shows as ``^[`` and a carriage return as ``\\r``.
:func:`terminal_safe` does the same and goes further, for the other characters a terminal
acts on: every C0 control but tab and newline in caret notation (BEL ``^G``), DEL ``^?``,
and the 8-bit C1 controls as the ESC sequence each stands for (CSI, U+009B, ``^[[``).

It is applied in two places, which between them see every character a human-readable
format writes: :func:`guard_streams` wraps stdout and stderr (plain lines, markdown,
``warning:``/``error:`` lines), and :func:`guard_rich_text` routes every Rich ``Text``
through it when its content is set (tables, wide, line output), before Rich measures it,
so columns stay aligned and Rich's own colours still reach the terminal. Rich consoles
write to the unwrapped stream (:func:`unguarded`); markup is off in every console
(cli/render/console.py), so ``[bold]`` in a node name prints as it is. JSON escapes
control characters by its format and is written to the byte stream below (:func:`json_safe`
adds the escapes JSON allows but encoders skip: DEL and C1); YAML's emitter escapes them.
:func:`html_visible` is the HTML report's: the same, plus the Unicode bidirectional
controls shown as ``<U+202E>`` marks (they reorder what a reader sees).
"""

from __future__ import annotations

import re
import sys
from typing import Any, TextIO

# What a terminal acts on: C0 but tab and newline, DEL, C1.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# Embedding, override and isolate controls: they reorder the text around them on screen.
_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069]")


def _caret(match: re.Match[str]) -> str:
    c = ord(match.group())
    if c == 0x0D:
        return "\\r"  # kubectl's
    if c == 0x7F:
        return "^?"
    if c >= 0x80:
        return "^[" + chr(c - 0x40)  # a C1 control is the 7-bit ESC sequence it abbreviates
    return "^" + chr(c + 0x40)  # ESC is ^[, as kubectl writes it


def terminal_safe(text: str) -> str:
    """``text`` with every character a terminal would act on made visible (see the module
    docstring); the same object when there is none."""
    return _UNSAFE.sub(_caret, text) if _UNSAFE.search(text) else text


# DEL and the C1 controls as UTF-8: JSON allows them raw in strings (and encoders leave them
# so), a terminal may act on them. In JSON text they can only be inside strings.
_JSON_UNSAFE = re.compile(b"\x7f|\xc2[\x80-\x9f]")


def json_safe(data: bytes) -> bytes:
    """UTF-8 JSON text with DEL and C1 controls written as ``\\u00XX`` (the same JSON value)."""
    if not _JSON_UNSAFE.search(data):
        return data
    return _JSON_UNSAFE.sub(lambda m: b"\\u%04x" % ord(m.group().decode("utf-8")), data)


def html_visible(text: str) -> str:
    """For the HTML report: :func:`terminal_safe`, and bidi controls as ``<U+XXXX>``."""
    text = terminal_safe(text)
    return _BIDI.sub(lambda m: f"<U+{ord(m.group()):04X}>", text) if _BIDI.search(text) else text


class GuardedStream:
    """A text stream whose writes pass through :func:`terminal_safe`; everything else
    (``buffer``, ``fileno``, ``isatty``, ``flush``, ``encoding``) is the wrapped stream's."""

    def __init__(self, stream: TextIO) -> None:
        self.unguarded = stream

    def write(self, text: str) -> int:
        self.unguarded.write(terminal_safe(text))
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.unguarded, name)


def guard_streams() -> None:
    """Wrap sys.stdout and sys.stderr (once) for this command's run."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is not None and not isinstance(stream, GuardedStream):
            setattr(sys, name, GuardedStream(stream))


def unguarded(stream: TextIO) -> TextIO:
    """The stream below a guard: for Rich, whose text is made safe as it is set and whose
    colours must pass."""
    return stream.unguarded if isinstance(stream, GuardedStream) else stream


def guard_rich_text() -> None:
    """Make every Rich Text terminal-safe as its content is set. Rich already passes all
    of it through one function to drop a few control codes (BEL, BS, VT, FF, CR); this makes
    that function :func:`terminal_safe`, which keeps those visible and covers ESC and the rest."""
    import rich.text

    def rich_safe(text: str, _translate_table: Any = None) -> str:  # Rich's signature
        return terminal_safe(text)

    # Text looks the function up in its module at each use.
    setattr(rich.text, "strip_control_codes", rich_safe)  # noqa: B010

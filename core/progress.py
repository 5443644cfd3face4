"""Progress of long steps (reading and decoding a large dump, building the snapshot,
listing a live cluster), for whoever listens.

The engine never prints; it reports here and the CLI, on a terminal, draws a progress bar
on stderr. A report is a phase ("decoding cluster.json (840 MB)") and, when the step can
tell, how far it is (``done`` of ``total`` units); without a listener a report costs one
function call, so loops report every few thousand items, not every item.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

Listener = Callable[[str, "int | None", "int | None"], None]

_listener: Listener | None = None


def report(phase: str, done: int | None = None, total: int | None = None) -> None:
    """Say what the engine is doing now and, if known, how much of it is done."""
    if _listener is not None:
        _listener(phase, done, total)


def listening_now() -> bool:
    """Whether anyone listens (to skip the work of measuring progress otherwise)."""
    return _listener is not None


@contextmanager
def listening(fn: Listener) -> Iterator[None]:
    """Send the reports made inside the block to ``fn``."""
    global _listener
    previous, _listener = _listener, fn
    try:
        yield
    finally:
        _listener = previous

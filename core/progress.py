"""Progress of long steps (loading a large dump, building the snapshot), for whoever listens.

The engine never prints; it reports phases here and the CLI, on a terminal, shows them in
a spinner on stderr. Without a listener a report costs one function call.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

_listener: Callable[[str], None] | None = None


def report(phase: str) -> None:
    """Say what the engine is doing now (a short phrase: "decoding cluster.json")."""
    if _listener is not None:
        _listener(phase)


@contextmanager
def listening(fn: Callable[[str], None]) -> Iterator[None]:
    """Send the reports made inside the block to ``fn``."""
    global _listener
    previous, _listener = _listener, fn
    try:
        yield
    finally:
        _listener = previous

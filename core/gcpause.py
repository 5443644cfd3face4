"""Pausing Python's cyclic garbage collector while large object graphs are built.

Loading a 150,000-pod dump creates tens of millions of dicts, lists and strings. Each
allocation counts towards the collector's thresholds, so CPython runs full collections
over an ever-growing heap while parsing: about half of the load time, for nothing, since
these objects live until the process ends and hold no cycles to free. Building them with
the collector paused, then freezing them (``gc.freeze``: moved to a generation the
collector never scans again), keeps later collections as cheap as in a small process.
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import ParamSpec, TypeVar


@contextmanager
def gc_paused(freeze: bool = True) -> Iterator[None]:
    """Run the block with the cyclic collector off (re-entrant); on the way out turn it back
    on if it was on, and freeze what was built so that it is never scanned again."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if freeze:
            gc.freeze()
        if was_enabled:
            gc.enable()


P = ParamSpec("P")
R = TypeVar("R")


def without_gc(fn: Callable[P, R]) -> Callable[P, R]:
    """Run ``fn`` with the cyclic collector paused (nothing frozen afterwards).

    For the scheduling cycles and their rendering: they allocate hundreds of thousands of
    short-lived objects (statuses, verdicts, scores, table cells) that reference counting
    frees on its own, yet each allocation burst triggers collections that traverse every
    live object not frozen: 40% of a replica run at 5,000 nodes went there."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        with gc_paused(freeze=False):
            return fn(*args, **kwargs)

    return wrapper


def without_gc_frozen(fn: Callable[P, R]) -> Callable[P, R]:
    """As :func:`without_gc`, and freeze what is left on the way out (see :func:`gc_paused`).

    For commands that run hundreds of cycles and keep their results (``pending``, ``check``):
    the collector otherwise resumes with millions of result objects young and counted, and
    its first full collection over them costs as much as a few cycles."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        with gc_paused(freeze=True):
            return fn(*args, **kwargs)

    return wrapper

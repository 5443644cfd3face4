"""What every command shares: exit codes and the mapping of engine errors to them.

Kept free of heavy imports (no rich, yaml or engine at import time) so that
``kschedx --help`` starts fast.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from rich.console import Console

EXIT_FITS = 0
EXIT_UNSCHEDULABLE = 1
EXIT_INPUT = 2
EXIT_CLUSTER = 3


def fail(message: str, code: int = EXIT_INPUT) -> typer.Exit:
    """Print one ``error:`` line on stderr and return the Exit to raise."""
    sys.stderr.write(f"error: {message}\n")
    sys.stderr.flush()
    return typer.Exit(code)


# What a command that reads a dump or a live cluster suggests when there is no cluster.
DUMP_OR_KUBECONFIG = "pass --snapshot FILE (a dump; --cluster FILE works too) or a kubeconfig with --kubeconfig PATH"


def require_dumps(paths: list[str] | None) -> None:
    """A dump that does not exist, said in words a kubectl user reads right: kubectl's own
    global ``--cluster NAME`` names a kubeconfig cluster, ours a file."""
    import os

    for p in paths or []:
        if p != "-" and not os.path.exists(p):
            raise fail(f"{p}: no such file (--snapshot/--cluster takes a dump file, e.g. one `kschedx snapshot` "
                       "wrote; to read a kubeconfig cluster, leave it out and use --context NAME)")


@contextmanager
def engine_errors(debug: bool, what: str, cluster_hint: str = "") -> Iterator[None]:
    """Turn engine failures into one stderr line and the SPEC's exit code.

    ``what`` names the input being processed, for failures the engine did not
    anticipate (a field of the wrong type deep in a manifest, say): the user still
    learns which file to look at, and ``--debug`` shows the traceback. ``cluster_hint``
    follows a cluster access error: what to do, in the options this command has.
    """
    from kschedx.core.errors import ClusterAccessError, InputError

    try:
        yield
    except (typer.Exit, typer.Abort):
        raise
    except InputError as e:
        if debug:
            raise
        raise fail(str(e), EXIT_INPUT) from None
    except ClusterAccessError as e:
        if debug:
            raise
        raise fail(f"{e}; {cluster_hint}" if cluster_hint and e.hint else str(e), EXIT_CLUSTER) from None
    except KeyboardInterrupt:
        raise fail("interrupted", 130) from None
    except Exception as e:  # noqa: BLE001 - the last line of defence against tracebacks
        if debug:
            raise
        detail = str(e) or type(e).__name__
        raise fail(
            f"{what}: could not interpret the input ({type(e).__name__}: {detail}); "
            "rerun with --debug for the traceback",
            EXIT_INPUT,
        ) from None


# A bar appears only once a step has run this long, so quick runs never flash one.
PROGRESS_DELAY = 0.4


@contextmanager
def progress_bar(console: Console | None = None, delay: float = PROGRESS_DELAY) -> Iterator[None]:
    """On a terminal, a progress bar on stderr for the engine's long steps (reading,
    decoding and indexing a large dump, listing a live cluster, placing many copies):
    what it is doing, how far it is when the step can tell (a moving pulse when not), and
    the time spent. Nothing at all on a pipe, so CI logs and redirected output stay clean;
    the bar is removed when the block ends."""
    if console is None and not sys.stderr.isatty():  # the common non-interactive case, without importing rich
        yield
        return
    from rich.console import Console as RichConsole

    from kschedx.cli.render.safe import unguarded

    # The bar's own cursor controls must pass the stream guard; its text is kschedx's.
    console = console or RichConsole(file=unguarded(sys.stderr))
    if not console.is_terminal:
        yield
        return
    import threading

    from rich.progress import BarColumn, Progress, SpinnerColumn, TaskProgressColumn, TextColumn, TimeElapsedColumn

    from kschedx.core.progress import listening

    bar = Progress(
        SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), TaskProgressColumn(), TimeElapsedColumn(),
        console=console, transient=True,
    )
    task = bar.add_task("starting", total=None)
    determinate = False
    lock = threading.Lock()
    shown = False
    ended = False

    def show() -> None:
        nonlocal shown
        with lock:
            if not ended and not shown:
                bar.start()
                shown = True

    def on_report(phase: str, done: int | None, total: int | None) -> None:
        nonlocal task, determinate
        if determinate and total is None:
            # Rich can't take a task back to "size unknown" (None means "unchanged" to
            # update): start a fresh, pulsing one for this phase.
            bar.remove_task(task)
            task = bar.add_task(phase, total=None)
            determinate = False
            return
        determinate = total is not None
        bar.update(task, description=phase, total=total, completed=done or 0)

    timer = threading.Timer(delay, show)
    timer.daemon = True
    timer.start()
    try:
        with listening(on_report):
            yield
    finally:
        timer.cancel()
        with lock:
            ended = True
            if shown:
                bar.stop()

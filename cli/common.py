"""What every command shares: exit codes and the mapping of engine errors to them.

Kept free of heavy imports (no rich, yaml or engine at import time) so that
``kschedx --help`` starts fast.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

import typer

EXIT_FITS = 0
EXIT_UNSCHEDULABLE = 1
EXIT_INPUT = 2
EXIT_CLUSTER = 3


def fail(message: str, code: int = EXIT_INPUT) -> typer.Exit:
    """Print one ``error:`` line on stderr and return the Exit to raise."""
    sys.stderr.write(f"error: {message}\n")
    sys.stderr.flush()
    return typer.Exit(code)


@contextmanager
def engine_errors(debug: bool, what: str) -> Iterator[None]:
    """Turn engine failures into one stderr line and the SPEC's exit code.

    ``what`` names the input being processed, for failures the engine did not
    anticipate (a field of the wrong type deep in a manifest, say): the user still
    learns which file to look at, and ``--debug`` shows the traceback.
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
        raise fail(str(e), EXIT_CLUSTER) from None
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


@contextmanager
def progress_spinner() -> Iterator[None]:
    """On a terminal, a spinner on stderr naming what the engine is doing (long loads);
    nothing at all otherwise, so pipes and CI logs stay clean."""
    if not sys.stderr.isatty():
        yield
        return
    from rich.console import Console

    from kschedx.core.progress import listening

    with Console(stderr=True).status("starting", spinner="dots") as status:
        with listening(lambda phase: status.update(phase)):
            yield

"""The Typer application: global options and command registration, nothing else.

Each command lives in its own module under ``kschedx.cli.commands`` and is registered
here with one line. Command modules import the engine, Rich and YAML lazily, inside the
command, so ``kschedx --help`` stays fast.
"""

from __future__ import annotations

import os
import sys
from typing import Annotated

import typer

from kschedx import __version__
from kschedx.cli.commands import check as check_cmd
from kschedx.cli.commands import completion as completion_cmd
from kschedx.cli.commands import explain as explain_cmd
from kschedx.cli.commands import pending as pending_cmd
from kschedx.cli.commands import plugins as plugins_cmd
from kschedx.cli.commands import snapshot as snapshot_cmd

app = typer.Typer(
    name="kschedx",
    # The supported releases are core/versions.py's SUPPORTED_VERSIONS (tests/cli/test_versions_cli.py
    # holds this text to them; importing the engine here would slow every --help down).
    help="Explain kube-scheduler 1.33–1.36 decisions offline: where would this pod land, and why not on node X? "
    "Each run reproduces the cluster's own release (--kubernetes-version chooses another); a dump with no "
    "version to go by runs as 1.36, the newest.",
    no_args_is_help=True,
    # --install-completion / --show-completion for bash, zsh, fish (and PowerShell).
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        from kschedx.core.versions import NEWEST, SUPPORTED_VERSIONS

        first, newest = SUPPORTED_VERSIONS[0].lstrip("v"), NEWEST.lstrip("v")
        print(f"kschedx {__version__} (kube-scheduler {first}–{newest}; a dump with no version to go by runs as "
              f"{newest})")
        raise typer.Exit(0)


@app.callback()
def main_callback(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """kschedx: a what-if explainer for kube-scheduler 1.33–1.36."""
    from kschedx.cli.render.safe import guard_streams

    # Cluster text never reaches the terminal raw, whatever writes it (cli/render/safe.py).
    guard_streams()


app.command("explain", no_args_is_help=True)(explain_cmd.explain)
app.command("check", no_args_is_help=True)(check_cmd.check)
app.command("pending")(pending_cmd.pending)
app.command("plugins")(plugins_cmd.plugins)
app.command("snapshot", no_args_is_help=True)(snapshot_cmd.snapshot)
app.command("completion", no_args_is_help=True)(completion_cmd.completion)


def _prog_name() -> str:
    # Invoked by kubectl as a plugin, the binary is kubectl-kschedx; show what the user typed.
    base = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "kschedx"
    return "kubectl kschedx" if base.startswith("kubectl-") else "kschedx"


def _writable_in_any_encoding() -> None:
    """Output in an encoding that lacks some characters (``PYTHONIOENCODING=ascii``, a C
    locale) shows them escaped (``\\u2713``) rather than ending the run with an error."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")


def main() -> None:
    _writable_in_any_encoding()
    try:
        app(prog_name=_prog_name())
    except BrokenPipeError:
        _reader_left()
    except SystemExit:
        # Click ends a write to a closed pipe with exit 1 (and pacifies the streams): a CI
        # step would read that as "doesn't fit". Its wrapper on stdout tells it apart.
        if type(sys.stdout).__name__ == "PacifyFlushWrapper" or type(sys.stderr).__name__ == "PacifyFlushWrapper":
            _reader_left()
        raise


def _reader_left() -> None:
    """`kschedx explain ... | head`: the reader left; exit quietly, as a shell reports SIGPIPE."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    sys.exit(141)


if __name__ == "__main__":
    main()

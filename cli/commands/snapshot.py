"""``kschedx snapshot``: write the live cluster's scheduling-relevant objects to a file."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from kschedx.cli.common import engine_errors, progress_bar
from kschedx.cli.options import Context, Debug, Kubeconfig


def snapshot(
    output: Annotated[
        str,
        typer.Option("--output", "-o", metavar="FILE", show_default=False,
                     help="Where to write: .json or .yaml (.gz to compress). Use it later with --snapshot FILE."),
    ],
    kubeconfig: Kubeconfig = None,
    context: Context = None,
    debug: Debug = False,
) -> None:
    """Snapshot the live cluster (read-only list calls) for offline use with --snapshot FILE.

    Managed fields, last-applied annotations, env values and container commands are left
    out. Exit codes: 0 written, 2 the file can't be written, 3 cluster access error.
    """
    with engine_errors(debug, output, "pass a kubeconfig with --kubeconfig PATH (and --context NAME)"), \
            progress_bar():
        from kschedx.core.load.live import load_live
        from kschedx.core.load.snapshot_file import write_snapshot

        live = load_live(kubeconfig, context)
        n = write_snapshot(live.objects, output)
    for w in [*live.warnings, *live.objects.load_warnings]:
        sys.stderr.write(f"warning: {w}\n")
    sys.stderr.write(f"wrote {n} objects from {live.server} to {output}\n")

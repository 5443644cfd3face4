"""``kschedx snapshot``: write the live cluster's scheduling-relevant objects to a file."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from kschedx.cli.common import engine_errors, progress_bar
from kschedx.cli.options import Context, Debug, Kubeconfig, RequestTimeout


def snapshot(
    output: Annotated[
        str,
        typer.Option("--output", "-o", metavar="FILE", show_default=False,
                     help="Where to write: .json or .yaml (.gz to compress). Use it later with --snapshot FILE."),
    ],
    kubeconfig: Kubeconfig = None,
    context: Context = None,
    request_timeout: RequestTimeout = None,
    debug: Debug = False,
) -> None:
    """Snapshot the live cluster (read-only list calls) for offline use with --snapshot FILE.

    Managed fields, last-applied annotations, env values and container commands are left
    out. Of the Events, only each pending pod's latest FailedScheduling one is kept (what
    `pending` compares). Exit codes: 0 written, 2 the file can't be written, 3 cluster
    access error.
    """
    with engine_errors(debug, output, "pass a kubeconfig with --kubeconfig PATH (and --context NAME)"), \
            progress_bar():
        from kschedx.core.explain.pending import events_pending_compares
        from kschedx.core.load.live import load_live
        from kschedx.core.load.live_http import parse_request_timeout
        from kschedx.core.load.snapshot_file import SnapshotWriter

        # Written as it is listed, put in place once complete (core/load/snapshot_file.py).
        with SnapshotWriter(output) as writer:
            live = load_live(kubeconfig, context, request_timeout=parse_request_timeout(request_timeout),
                             events=True, sink=writer)
            n = writer.finish(events_pending_compares(live.objects))
    for w in [*live.warnings, *live.objects.load_warnings]:
        sys.stderr.write(f"warning: {w}\n")
    sys.stderr.write(f"wrote {n} objects from {live.server} to {output}\n")

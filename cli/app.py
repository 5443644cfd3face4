"""The Typer application. Commands parse options, call the engine, and hand results to a renderer."""

from __future__ import annotations

import os
import sys
from enum import Enum
from typing import Annotated

import typer

from kschedx import __version__

app = typer.Typer(
    name="kschedx",
    help="Explain kube-scheduler v1.35 decisions offline: where would this pod land, and why not on node X?",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

EXIT_FITS = 0
EXIT_UNSCHEDULABLE = 1
EXIT_INPUT = 2
EXIT_CLUSTER = 3


class Output(str, Enum):
    table = "table"
    wide = "wide"
    json = "json"
    yaml = "yaml"


def _fail(message: str, code: int) -> typer.Exit:
    sys.stderr.write(f"error: {message}\n")
    return typer.Exit(code)


def _version(value: bool) -> None:
    if value:
        print(f"kschedx {__version__} (kube-scheduler v1.35 semantics)")
        raise typer.Exit(0)


@app.callback()
def main_callback(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """kschedx: a what-if explainer for kube-scheduler v1.35."""


@app.command()
def explain(
    manifest: Annotated[str, typer.Argument(help="Pod or workload manifest (path, or - for stdin).")],
    cluster: Annotated[
        list[str] | None,
        typer.Option("--cluster", "-c", help="Cluster dump (YAML/JSON, .gz ok); repeatable."),
    ] = None,
    doc: Annotated[str | None, typer.Option("--doc", help="Pick the document NAME (or KIND/NAME).")] = None,
    namespace: Annotated[str | None, typer.Option("--namespace", "-n", help="Namespace of the pod.")] = None,
    profile: Annotated[str | None, typer.Option("--profile", help="Scheduler profile name.")] = None,
    output: Annotated[Output, typer.Option("--output", "-o", help="table, wide, json or yaml.")] = Output.table,
    all_reasons: Annotated[
        bool, typer.Option("--all-reasons", help="Run every filter on every node, not just up to the first failure.")
    ] = False,
    top: Annotated[int | None, typer.Option("--top", help="Show only the first K node rows.")] = None,
    no_color: Annotated[bool, typer.Option("--no-color", help="Disable colours.")] = False,
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks on errors.")] = False,
) -> None:
    """Explain where a pod would land, and why not elsewhere."""
    from kschedx.core.errors import ClusterAccessError, InputError

    try:
        from kschedx.core import explain as engine

        if not cluster:
            raise _fail("no cluster given: pass --cluster FILE (live clusters are not supported yet)", EXIT_INPUT)
        options = engine.Options(profile=profile, all_reasons=all_reasons)
        result = engine.explain_files(manifest, cluster, doc=doc, namespace=namespace, options=options)
    except InputError as e:
        if debug:
            raise
        raise _fail(str(e), EXIT_INPUT) from None
    except ClusterAccessError as e:
        if debug:
            raise
        raise _fail(str(e), EXIT_CLUSTER) from None

    from kschedx.cli.render import render_result

    render_result(result, output.value, top=top, no_color=no_color or bool(os.environ.get("NO_COLOR")))
    if result.error:
        raise typer.Exit(EXIT_INPUT)
    raise typer.Exit(EXIT_FITS if result.schedulable else EXIT_UNSCHEDULABLE)


def main() -> None:
    app()


if __name__ == "__main__":
    main()

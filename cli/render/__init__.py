"""Output formats behind one entry point: ``render_result(result, fmt)``.

One module per format (``table`` for table and wide, ``json_yaml``); each is imported only
when chosen, so ``-o json`` never loads Rich's tables and consoles. Importing this package
makes every Rich Text terminal-safe before any renderer builds one (:mod:`.safe`).
"""

from __future__ import annotations

from kschedx.cli.render.safe import guard_rich_text
from kschedx.core.explain.report import Explanation
from kschedx.core.framework.result import CycleResult
from kschedx.core.gcpause import without_gc

guard_rich_text()

FORMATS = ("table", "wide", "json", "yaml")


@without_gc
def render_result(result: CycleResult, fmt: str, *, top: int | None = None, no_color: bool = False) -> None:
    if fmt == "json":
        from kschedx.cli.render.json_yaml import render_json

        render_json(result)
    elif fmt == "yaml":
        from kschedx.cli.render.json_yaml import render_yaml

        render_yaml(result)
    elif fmt in ("table", "wide"):
        from kschedx.cli.render.table import render_table

        render_table(result, wide=(fmt == "wide"), top=top, no_color=no_color)
        if fmt == "wide" and result.volumes:
            from kschedx.cli.render.focus import render_volumes

            render_volumes(result, no_color=no_color)
        if result.device_allocations:
            from kschedx.cli.render.focus import render_devices

            render_devices(result, no_color=no_color)
        if result.focus is not None:
            from kschedx.cli.render.focus import render_focus

            render_focus(result.focus, no_color=no_color)
    else:
        raise ValueError(f"unknown output format {fmt!r}")


@without_gc
def render_explanation(expl: Explanation, fmt: str, *, top: int | None = None, no_color: bool = False) -> None:
    """One cycle as :func:`render_result`; replica steps and DaemonSets as their own tables."""
    if expl.mode == "single" or fmt in ("json", "yaml"):
        if expl.mode == "single":
            render_result(expl.steps[0], fmt, top=top, no_color=no_color)
            return
        from kschedx.cli.render.json_yaml import render_json, render_yaml

        (render_json if fmt == "json" else render_yaml)(expl)
        return
    from kschedx.cli.render.steps import render_steps

    render_steps(expl, no_color=no_color)

#!/usr/bin/env python3
"""Write docs/reference/commands.md from the kschedx Typer app itself.

    python tools/gen_cli_reference.py           # rewrite the page
    python tools/gen_cli_reference.py --check   # exit 1 when the page is stale

Every command, argument and option comes from the command tree Typer builds (its own
click, typer._click, from Typer 0.17 on: so nothing here names click's classes), with
its help text, value name, default and whether it repeats, so the reference cannot drift
from `kschedx COMMAND --help`. tests/e2e/test_docs_reference.py fails when the committed
page differs from what this prints, or when an option has no help text.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import typer.main

REPO = Path(__file__).resolve().parents[1]
PAGE = REPO / "docs" / "reference" / "commands.md"

INTRO = """\
# Commands and options

This page is generated from the command-line app (`python tools/gen_cli_reference.py`);
the test suite fails when it differs from what the app accepts, so it is always the
options of this version. `kschedx COMMAND --help` prints the same in the terminal.
What each output format holds is in [Output formats](output.md), what each exit code
means in [Exit codes](exit-codes.md).
"""


def _is_argument(param: Any) -> bool:
    return bool(param.param_type_name == "argument")


def _cell(text: str) -> str:
    """One markdown table cell: one line, pipes escaped outside code spans (a table keeps a
    pipe between backticks as it is, and would show the escape there)."""
    parts = " ".join(text.split()).split("`")
    return "`".join(part if i % 2 else part.replace("|", "\\|") for i, part in enumerate(parts))


def _names(param: Any) -> str:
    if _is_argument(param):
        return f"`{param.human_readable_name}`"
    # Short names first, as --help lists them.
    opts = [o for o in param.opts if not o.startswith("--")] + [o for o in param.opts if o.startswith("--")]
    return ", ".join(f"`{o}`" for o in [*opts, *param.secondary_opts])


def _value(param: Any) -> str:
    """An option's value name (none for a flag)."""
    metavar = None if getattr(param, "is_flag", False) else getattr(param, "metavar", None)
    return f"`{metavar}`" if metavar else ""


def _default(param: Any) -> str:
    default: Any = param.default
    if default is None or callable(default) or default is False or default == () or default == []:
        return ""
    if getattr(param, "is_flag", False):
        return ""
    return f"`{default}`"


def _help(param: Any) -> str:
    return getattr(param, "help", None) or ""


def missing_help(app: typer.Typer) -> list[str]:
    """Every argument or option of the app and of its commands that has no help text."""
    group = typer.main.get_command(app)
    places = [("kschedx", group.params), *((f"kschedx {n}", c.params) for n, c in group.commands.items())]
    return [f"{where} {p.opts[-1] if p.opts else p.name}" for where, params in places for p in params
            if not getattr(p, "hidden", False) and not _help(p).strip()]


def _rows(params: list[Any]) -> list[str]:
    """One table row per shown parameter: an argument's name and help, an option's names,
    value name, default and help."""
    rows = []
    for param in params:
        if getattr(param, "hidden", False):
            continue
        text = _help(param)
        if getattr(param, "multiple", False) and "repeatable" not in text.lower():
            text += " Repeatable."
        if _is_argument(param):
            rows.append(f"| {_names(param)} | {_cell(text)} |")
        else:
            rows.append(f"| {_names(param)} | {_value(param)} | {_default(param)} | {_cell(text)} |")
    return rows


ARGUMENTS = ["| Argument | What it is |", "|---|---|"]
OPTIONS = ["| Option | Value | Default | What it does |", "|---|---|---|---|"]


def render(app: typer.Typer) -> str:
    group = typer.main.get_command(app)
    root = group.context_class(group, info_name="kschedx")
    out = [INTRO, "## kschedx", "", "```text", group.get_usage(root).replace("Usage: ", ""), "```", ""]
    out += [_cell(group.help or ""), "", "Commands: " + ", ".join(f"[`{n}`](#kschedx-{n})" for n in group.commands), ""]
    out += [*OPTIONS, *_rows(group.params), ""]
    for name, command in group.commands.items():
        ctx = command.context_class(command, info_name=f"kschedx {name}")
        out += [f"## kschedx {name}", "", "```text", command.get_usage(ctx).replace("Usage: ", ""), "```", ""]
        # The command's docstring as --help prints it: paragraphs, each on one line.
        for paragraph in (command.help or "").split("\n\n"):
            if paragraph.strip():
                out += [" ".join(paragraph.split()), ""]
        arguments = [p for p in command.params if _is_argument(p)]
        options = [p for p in command.params if not _is_argument(p)]
        if arguments:
            out += [*ARGUMENTS, *_rows(arguments), ""]
        if options:
            out += [*OPTIONS, *_rows(options), ""]
        out += ["`-h`, `--help` prints this in the terminal.", ""]
    return "\n".join(out).rstrip("\n") + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the page is stale")
    args = parser.parse_args()
    from kschedx.cli.app import app

    text = render(app)
    if args.check:
        if PAGE.read_text(encoding="utf-8") != text:
            print(f"{PAGE.relative_to(REPO)} is stale: run python tools/gen_cli_reference.py", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(text, encoding="utf-8")
    print(f"wrote {PAGE.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

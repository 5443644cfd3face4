"""The command reference (docs/reference/commands.md) is generated from the Typer app by
tools/gen_cli_reference.py: it must be what the generator prints today, and every option of
every command must have help text for it to print."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Annotated

import typer

from kschedx.cli.app import app

REPO = Path(__file__).resolve().parents[2]


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_cli_reference", REPO / "tools" / "gen_cli_reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("gen_cli_reference", module)
    spec.loader.exec_module(module)
    return module


GEN = _generator()


def test_the_reference_is_not_stale() -> None:
    committed = (REPO / "docs" / "reference" / "commands.md").read_text(encoding="utf-8")
    assert committed == GEN.render(app), "docs/reference/commands.md is stale: run python tools/gen_cli_reference.py"


def test_every_option_has_help_text() -> None:
    assert GEN.missing_help(app) == []


def test_an_option_without_help_is_found() -> None:
    # The check itself: a command with an undocumented option is reported by name.
    probe = typer.Typer()

    @probe.command("first")
    def first(quiet: Annotated[bool, typer.Option("--quiet", help="Say less.")] = False,
              limit: Annotated[int, typer.Option("--limit")] = 3) -> None:
        pass

    @probe.command("second")
    def second() -> None:
        pass

    assert GEN.missing_help(probe) == ["kschedx first --limit"]


def test_every_command_and_option_is_in_the_reference() -> None:
    text = (REPO / "docs" / "reference" / "commands.md").read_text(encoding="utf-8")
    group = typer.main.get_command(app)
    for name, command in group.commands.items():  # type: ignore[attr-defined]
        assert f"## kschedx {name}" in text
        for param in command.params:
            for opt in param.opts:
                shown = f"`{opt}`" if opt.startswith("-") else f"`{param.human_readable_name}`"
                assert shown in text, (name, opt)

"""Piped output has no line ending in blanks: Rich pads each table and grid cell to its
column's width, and a pager in a narrower terminal shows such a line's blanks as an empty
continuation line. Every human-readable format of every command, with COLUMNS unset (as wide
as the content) and at 80 columns."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from kschedx.cli.app import app

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples"
CLUSTER = str(EX / "cluster.yaml")

COMMANDS = {
    "explain": ["explain", str(EX / "pods" / "zone-spread.yaml"), "--snapshot", CLUSTER],
    "explain-wide": ["explain", str(EX / "pods" / "zone-spread.yaml"), "--snapshot", CLUSTER, "-o", "wide"],
    "explain-unfit": ["explain", str(EX / "pods" / "too-big.yaml"), "--snapshot", CLUSTER],
    "explain-node": ["explain", str(EX / "pods" / "zone-spread.yaml"), "--snapshot", CLUSTER, "--node", "general-a1"],
    "replicas": ["explain", str(EX / "pods" / "web-deployment.yaml"), "--snapshot", CLUSTER, "--replicas", "3"],
    "compare": ["explain", str(EX / "pods" / "zone-spread.yaml"), "--snapshot", CLUSTER, "--compare-version", "1.33"],
    "check": ["check", str(EX / "pods"), "--snapshot", CLUSTER],
    "check-markdown": ["check", str(EX / "pods"), "--snapshot", CLUSTER, "-o", "markdown"],
    "pending": ["pending", "--snapshot", str(EX / "pending.yaml")],
    "plugins": ["plugins"],
}


@pytest.mark.parametrize("columns", [None, "80"])
@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_no_line_ends_in_blanks(name: str, columns: str | None) -> None:
    env = {"NO_COLOR": "1", "COLUMNS": columns}
    res = CliRunner().invoke(app, COMMANDS[name], env=env)
    assert res.exit_code in (0, 1), res.stderr + res.stdout
    lines = res.stdout.splitlines()
    assert len(lines) > 3
    padded = [line for line in lines if line != line.rstrip()]
    assert not padded, f"{len(padded)} line(s) end in blanks, e.g. {padded[0]!r}"

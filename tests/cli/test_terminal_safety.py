"""Terminal safety (issue 29.5): escape sequences from cluster data — a node name, a label
value, a taint value (which becomes a reason), an Event message — never reach the output
raw, in any format of explain, check and pending, through the real CLI, piped and with
--no-color; JSON and YAML keep them by their own escaping; the HTML report shows bidi
controls; Rich markup in a name prints as it is."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from kschedx.cli.app import app
from kschedx.cli.render.safe import html_visible, terminal_safe
from kschedx.core.load.files import load_objects

ROOT = Path(__file__).resolve().parents[2]
DUMP = ROOT / "examples" / "pending.yaml"

RED_NODE = "node-\x1b[31md"  # the node every pod fits on
MARKUP_NODE = "[bold]node-b"  # Rich markup must print as it is
TAINT_VALUE = "gpu\x1b]0;owned\x07"  # becomes the taint reason of node-c
LABEL_VALUE = "zone-a\x1b[2J"
EVENT_TAIL = " \x1b[8mhidden\x1b[0m\r\x9b1A"
# What a terminal would act on; none of it may be written.
RAW = ("\x1b", "\x07", "\r", "\x9b")


def hostile_dump(tmp_path: Path, node_d: str = RED_NODE) -> str:
    objects = [o for o, _line in load_objects(str(DUMP))]
    renamed = {"node-d": node_d, "node-b": MARKUP_NODE}
    for o in objects:
        meta = o["metadata"]
        if o["kind"] == "Node":
            meta["name"] = renamed.get(meta["name"], meta["name"])
            if meta["name"] == "node-a":
                meta["labels"]["topology.kubernetes.io/zone"] = LABEL_VALUE
            for taint in (o.get("spec") or {}).get("taints") or []:
                if taint.get("value") == "gpu":
                    taint["value"] = TAINT_VALUE
        spec = o.get("spec") or {}
        if o["kind"] == "Pod" and spec.get("nodeName") in renamed:
            spec["nodeName"] = renamed[spec["nodeName"]]
        if o["kind"] == "Event":
            o["message"] += EVENT_TAIL
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}))
    return str(path)


POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "probe", "namespace": "shop"},
       "spec": {"containers": [{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": "100m"}}}]}}


def manifest(tmp_path: Path) -> str:
    path = tmp_path / "probe.yaml"
    path.write_text(yaml.safe_dump(POD))
    return str(path)


def run(*args: str) -> Any:
    return CliRunner().invoke(app, [*args, "--no-color", "--kubernetes-version", "1.35"],
                              env={"NO_COLOR": "1", "COLUMNS": "200"})


def assert_safe(res: Any) -> str:
    assert res.exit_code in (0, 1), res.output
    for raw in RAW:
        assert raw not in res.stdout and raw not in res.stderr, (raw, res.output)
    return str(res.stdout)


@pytest.mark.parametrize("fmt", ["table", "wide"])
def test_explain_escapes_node_names_and_reasons(tmp_path: Path, fmt: str) -> None:
    out = assert_safe(run("explain", manifest(tmp_path), "-c", hostile_dump(tmp_path), "-o", fmt))
    assert "node-^[[31md" in out
    assert MARKUP_NODE in out


def test_explain_focus_on_a_node_shows_its_taint_escaped(tmp_path: Path) -> None:
    out = assert_safe(run("explain", manifest(tmp_path), "-c", hostile_dump(tmp_path), "--node", "node-c"))
    assert "gpu^[]0;owned^G" in out


@pytest.mark.parametrize("fmt", ["table", "markdown"])
def test_check_escapes(tmp_path: Path, fmt: str) -> None:
    out = assert_safe(run("check", manifest(tmp_path), "-c", hostile_dump(tmp_path), "-o", fmt))
    assert "node-^[[31md" in out


@pytest.mark.parametrize("fmt", ["table", "wide", "markdown"])
def test_pending_escapes_node_names_and_event_messages(tmp_path: Path, fmt: str) -> None:
    out = assert_safe(run("pending", "-c", hostile_dump(tmp_path), "-o", fmt))
    assert "node-^[[31md" in out
    if fmt == "wide":
        assert "^[[8mhidden^[[0m" in out and "^[[1A" in out  # the Event message


def test_json_and_yaml_keep_the_text_by_their_own_escaping(tmp_path: Path) -> None:
    dump = hostile_dump(tmp_path)
    as_json = assert_safe(run("pending", "-c", dump, "-o", "json"))
    as_yaml = assert_safe(run("pending", "-c", dump, "-o", "yaml"))
    for data in (json.loads(as_json), yaml.safe_load(as_yaml)):
        fits = next(p for p in data["pods"] if p["status"] == "fits")
        assert fits["node"] == RED_NODE
        assert fits["event"]["message"].endswith(EVENT_TAIL)
    assert "\\u001b" in as_json and "\\u009b" in as_json
    assert "\\e" in as_yaml


def test_warnings_and_errors_on_stderr_are_escaped(tmp_path: Path) -> None:
    res = run("explain", manifest(tmp_path), "-c", hostile_dump(tmp_path), "--node", "no-\x1b[31mnode")
    for raw in RAW:
        assert raw not in res.stderr
    assert "no-^[[31mnode" in res.stderr


def test_the_html_report_shows_bidi_controls_and_escapes(tmp_path: Path) -> None:
    dump = hostile_dump(tmp_path, node_d="node-\u202ed<b>")
    out = assert_safe(run("pending", "-c", dump, "-o", "html"))
    assert "\u202e" not in out and "<b>" not in out
    assert "node-&lt;U+202E&gt;d&lt;b&gt;" in out


def test_the_escaping_itself() -> None:
    assert terminal_safe("a\x1b[1mb\rc") == "a^[[1mb\\rc"  # kubectl's two
    assert terminal_safe("\x07\x08\x00\x7f\x9b\x9d") == "^G^H^@^?^[[^[]"
    assert terminal_safe("tab\tand\nnewline stay, ü and 中 too") == "tab\tand\nnewline stay, ü and 中 too"
    assert html_visible("x\u2066y\u202a") == "x<U+2066>y<U+202A>"

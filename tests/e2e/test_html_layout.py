"""The HTML reports as a person sees them in a narrow browser window (headless Chromium), on a
cluster with EKS node names: no node name is cut in a chart, none breaks across lines in any
table (browsers break after a hyphen: ``ip-10-42-5-17.eu-`` / ``west-1.compute.internal``),
and "Where the nodes went" adds up to the nodes.

A small page of the test's own loads each report in a frame and measures its layout (the
report's own Content-Security-Policy allows no other script); the test reads what it
measured once it is there (one browser for the module, tests/e2e/cdp.py)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from kschedx.cli.app import app
from tests.cli.test_narrow_render import DEPLOYMENT, NAMES, POD, cluster
from tests.cli.test_pending_narrow import pending_cluster

from .cdp import Browser, chromium

EKS = NAMES["eks"]

MEASURE = """<!doctype html><meta charset="utf-8"><title>measure</title>
<iframe id="f" src="REPORT" style="width:640px;height:4000px;border:0"></iframe><pre id="out">pending</pre>
<script>
document.getElementById("f").addEventListener("load", () => {
  const d = document.getElementById("f").contentDocument;
  d.querySelectorAll("details").forEach(x => x.open = true);
  const lines = el => {
    const r = d.createRange(); r.selectNodeContents(el);
    return new Set([...r.getClientRects()].filter(x => x.width > 0).map(x => Math.round(x.top))).size;
  };
  const out = {broken: [], labels: [], funnel: [], nodeCells: 0};
  d.querySelectorAll("td.node, .nw").forEach(e => {
    out.nodeCells += 1;
    if (lines(e) > 1) out.broken.push(e.textContent);
  });
  d.querySelectorAll("svg text").forEach(t => out.labels.push(t.textContent));
  d.querySelectorAll("table.funnel tbody tr").forEach(tr => {
    const c = tr.querySelectorAll("td");
    out.funnel.push([c[0].textContent, Number(c[3].textContent)]);
  });
  document.getElementById("out").textContent = JSON.stringify(out);
});
</script>
"""


def _cli(*args: str) -> str:
    res = CliRunner().invoke(app, list(args), env={"NO_COLOR": "1", "COLUMNS": "100"})
    assert res.exit_code in (0, 1), res.stderr + res.stdout
    return res.stdout


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    chromium()
    tmp = tmp_path_factory.mktemp("layout")
    dump = tmp / "eks.yaml"
    dump.write_text(yaml.safe_dump(cluster("eks")))
    pend = tmp / "eks-pending.yaml"
    pend.write_text(yaml.safe_dump(pending_cluster("eks")))
    apps = tmp / "apps"
    apps.mkdir()
    (apps / "pod.yaml").write_text(yaml.safe_dump(POD))
    (apps / "deploy.yaml").write_text(yaml.safe_dump(DEPLOYMENT))
    # Short of both CPU and memory on the loaded nodes: two reasons on one node.
    big = {**POD, "spec": {"containers": [{"name": "app", "image": "nginx:1.27",
                                           "resources": {"requests": {"cpu": "3500m", "memory": "15Gi"}}}]}}
    (tmp / "big.yaml").write_text(yaml.safe_dump(big))
    pages = {
        "explain": _cli("explain", str(apps / "pod.yaml"), "--snapshot", str(dump), "-o", "html"),
        "replicas": _cli("explain", str(apps / "deploy.yaml"), "--snapshot", str(dump), "--replicas", "6", "-o",
                         "html"),
        "big": _cli("explain", str(tmp / "big.yaml"), "--snapshot", str(dump), "-o", "html"),
        "check": _cli("check", str(apps), "--snapshot", str(dump), "-o", "html"),
        "pending": _cli("pending", "--snapshot", str(pend), "-o", "html"),
    }
    out = {}
    for name, html in pages.items():
        (tmp / f"{name}.html").write_text(html, encoding="utf-8")
        page = tmp / f"measure-{name}.html"
        page.write_text(MEASURE.replace("REPORT", f"{name}.html"), encoding="utf-8")
        out[name] = page
    return out


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    # The measuring page reads its frame's document: both are files.
    with Browser("--allow-file-access-from-files") as b:
        yield b


def measure(browser: Browser, page: Path) -> dict[str, Any]:
    tab = browser.open(page.resolve().as_uri(), 700, 900)
    try:
        seen = tab.wait_for("(t => t !== 'pending' && JSON.parse(t))(document.getElementById('out').textContent)")
    finally:
        tab.close()
    return dict(seen)


@pytest.mark.parametrize("name", ["explain", "replicas", "check", "pending"])
def test_no_node_name_breaks_or_is_cut(reports: dict[str, Path], name: str, browser: Browser) -> None:
    seen = measure(browser, reports[name])
    assert seen["nodeCells"] > 0
    assert seen["broken"] == []
    assert not [t for t in seen["labels"] if "…" in t]
    text = reports[name].with_name(f"{name}.html").read_text(encoding="utf-8")
    if name in ("explain", "replicas"):
        # Chart labels: whole names, or names without the domain the page says they share.
        assert "Node names are shown without the domain they all end in" in text
        shown = [t.removeprefix("★ ") for t in seen["labels"] if t.startswith(("ip-", "★ ip-"))]
        assert shown and all(re.fullmatch(r"ip-10-42-\d-17", t) for t in shown), shown


def test_where_the_nodes_went_adds_up(reports: dict[str, Path], browser: Browser) -> None:
    text = reports["big"].with_name("big.html").read_text(encoding="utf-8")
    assert "Insufficient cpu; Insufficient memory" in text  # four nodes short of both
    seen = measure(browser, reports["big"])
    rows = dict(seen["funnel"][:1])
    total = rows["all nodes"]
    assert total == 10
    spent = sum(k for stage, k in seen["funnel"] if stage in ("rejected at PreFilter", "rejected by Filter", "feasible"))
    assert spent == total


def test_what_decided_the_winner_is_shown(reports: dict[str, Path]) -> None:
    text = reports["explain"].with_name("explain.html").read_text(encoding="utf-8")
    assert "What decided the winner" in text
    assert EKS(5) in text  # the winner, whole

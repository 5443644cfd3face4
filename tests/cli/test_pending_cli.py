"""``kschedx pending`` on a dump with pending pods and their FailedScheduling events."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from kschedx.cli.app import app
from kschedx.core.explain.pending import latest_failed_scheduling, messages_agree, parse_selector
from kschedx.core.load.files import load_objects

ROOT = Path(__file__).resolve().parents[2]
DUMP = str(ROOT / "examples" / "pending.yaml")


def run(*args: str, columns: str = "100") -> Any:
    return CliRunner().invoke(app, list(args), env={"NO_COLOR": "1", "COLUMNS": columns})


def pods_json(*args: str) -> tuple[int, dict[str, Any]]:
    res = run("pending", "-c", DUMP, "-o", "json", *args)
    return res.exit_code, json.loads(res.stdout)


def test_every_class_of_pending_pod() -> None:
    code, out = pods_json()
    assert code == 1
    by_pod = {p["pod"]: p for p in out["pods"]}
    assert {k: v["status"] for k, v in by_pod.items()} == {
        "batch/export-q9w3e": "gated",
        "batch/report-big-x7k2p": "unschedulable",
        "default/render-0": "other-scheduler",
        "ml/train-7c9d-1": "nominated",
        "shop/web-6d4cf56db6-r8t5z": "fits",
    }
    assert by_pod["shop/web-6d4cf56db6-r8t5z"]["node"] == "node-d"
    assert by_pod["ml/train-7c9d-1"]["node"] == "node-a" and by_pod["ml/train-7c9d-1"]["selectedNode"] == "node-d"
    assert by_pod["batch/export-q9w3e"]["schedulingGates"] == ["example.com/quota"]
    assert by_pod["batch/report-big-x7k2p"]["fitError"].startswith("0/4 nodes are available: ")
    # Pods that are running, or being deleted, are not pending.
    assert not any(p.startswith("shop/api") for p in by_pod)


def test_the_latest_failed_scheduling_event_is_compared() -> None:
    _code, out = pods_json()
    by_pod = {p["pod"]: p for p in out["pods"]}
    report = by_pod["batch/report-big-x7k2p"]
    # Two events for this pod: the newer one is compared, and says what kschedx says.
    assert report["event"]["time"] == "2025-08-01T10:05:00Z" and report["event"]["count"] == 7
    assert report["eventAgrees"] is True and report["event"]["message"] == report["fitError"]
    # The web pod's last event said it did not fit; it fits now: flagged.
    assert by_pod["shop/web-6d4cf56db6-r8t5z"]["eventAgrees"] is False
    assert by_pod["batch/export-q9w3e"]["event"] is None and by_pod["batch/export-q9w3e"]["eventAgrees"] is None
    assert out["eventsCompared"] == 2 and out["eventsAgree"] == 1


def test_agreement_marks_in_the_table() -> None:
    res = run("pending", "-c", DUMP)
    assert res.exit_code == 1
    rows = {line.split()[0]: line.split() for line in res.stdout.splitlines()[1:]}
    assert rows["batch/report-big-x7k2p"][1:4] == ["unschedulable", "-", "="]
    assert rows["shop/web-6d4cf56db6-r8t5z"][1:4] == ["fits", "node-d", "≠"]
    assert rows["batch/export-q9w3e"][3] == "-"


@pytest.mark.parametrize("columns", ["30", "80", "400"])
@pytest.mark.parametrize("fmt", ["table", "wide"])
def test_one_record_per_line_whatever_the_width(fmt: str, columns: str) -> None:
    res = run("pending", "-c", DUMP, "-o", fmt, columns=columns)
    lines = res.stdout.splitlines()
    assert lines[0].split()[0] == "POD"
    assert len(lines) == 1 + 5
    assert sorted(line.split()[0] for line in lines[1:]) == sorted(
        ["batch/export-q9w3e", "batch/report-big-x7k2p", "default/render-0", "ml/train-7c9d-1",
         "shop/web-6d4cf56db6-r8t5z"])
    # Nothing is cut off a terminal: the whole FitError is on its pod's line.
    report = next(line for line in lines if line.startswith("batch/report-big"))
    assert report.endswith("3 Preemption is not helpful for scheduling.") or fmt == "wide"


def test_wide_shows_priority_and_the_event_message() -> None:
    res = run("pending", "-c", DUMP, "-o", "wide")
    assert res.exit_code == 1
    head = res.stdout.splitlines()[0].split()
    assert head[:3] == ["POD", "PRIORITY", "STATUS"] and "MESSAGE" in head
    train = next(line for line in res.stdout.splitlines() if line.startswith("ml/train"))
    assert train.split()[1] == "100000"


def test_markdown_and_yaml() -> None:
    md = run("pending", "-c", DUMP, "-o", "markdown")
    assert md.exit_code == 1
    lines = md.stdout.splitlines()
    assert lines[0].startswith("**kschedx pending** · Kubernetes v1.") and f"cluster: `{DUMP}`" in lines[0]
    assert "5 Pending: " in lines[0]
    assert lines[2].startswith("| POD | PRIORITY | STATUS |") and lines[3].startswith("|---|")
    assert sum(1 for line in lines if line.startswith("| ") and "/" in line.split("|")[1]) == 5
    assert "agrees for 1 of 2" in md.stdout
    y = run("pending", "-c", DUMP, "-o", "yaml")
    assert y.exit_code == 1
    assert yaml.safe_load(y.stdout) == json.loads(run("pending", "-c", DUMP, "-o", "json").stdout)


def test_exit_codes_and_filters() -> None:
    code, out = pods_json("-l", "app=web")
    assert code == 0 and [p["pod"] for p in out["pods"]] == ["shop/web-6d4cf56db6-r8t5z"]
    code, out = pods_json("-n", "batch")
    assert code == 1 and out["byStatus"] == {"gated": 1, "unschedulable": 1}
    code, out = pods_json("-l", "tier=batch,app notin (export)")
    assert [p["pod"] for p in out["pods"]] == ["batch/report-big-x7k2p"]
    code, out = pods_json("-n", "nowhere")
    assert code == 0 and out["pods"] == []
    bad = run("pending", "-c", DUMP, "-l", "app in (web")
    assert bad.exit_code == 2 and "-l app in (web" in bad.output


def test_a_nominated_pod_does_not_block_itself(tmp_path: Path) -> None:
    """train-7c9d-1 is nominated to node-a: its own nomination must not count against it."""
    objects = [o for o, _ in load_objects(DUMP)]
    for o in objects:
        if o["kind"] == "Node" and o["metadata"]["name"] == "node-d":
            o["status"]["allocatable"]["cpu"] = o["status"]["capacity"]["cpu"] = "4"
        if o["kind"] == "Pod" and o["metadata"]["name"] == "web-6d4cf56db6-4xk2p":
            objects.remove(o)  # its victim is gone: node-a has 4 CPU free now
    dump = tmp_path / "dump.yaml"
    dump.write_text(yaml.safe_dump_all(objects))
    res = run("pending", "-c", str(dump), "-o", "json", "-n", "ml")
    out = json.loads(res.stdout)
    assert res.exit_code == 0, res.output
    assert out["pods"][0]["status"] == "nominated" and out["pods"][0]["selectedNode"] == "node-a"


def test_no_nodes(tmp_path: Path) -> None:
    objects = [o for o, _ in load_objects(DUMP) if o["kind"] != "Node"]
    dump = tmp_path / "nodeless.yaml"
    dump.write_text(yaml.safe_dump_all(objects))
    res = run("pending", "-c", str(dump), "-o", "json")
    assert res.exit_code == 1
    out = json.loads(res.stdout)
    report = next(p for p in out["pods"] if p["pod"] == "batch/report-big-x7k2p")
    assert report["fitError"] == "no nodes available to schedule pods"
    assert any(str(dump) in w and "no Node" in w for w in out["warnings"])


def test_event_helpers() -> None:
    base = {"kind": "Event", "reason": "FailedScheduling", "involvedObject": {"kind": "Pod", "name": "p"}}
    old = dict(copy.deepcopy(base), message="old", lastTimestamp="2025-01-01T10:00:00Z")
    newer = dict(copy.deepcopy(base), message="series", eventTime="2025-01-01T09:00:00.000000Z",
                 series={"count": 3, "lastObservedTime": "2025-01-01T11:00:00.000000Z"})
    other = dict(copy.deepcopy(base), reason="Scheduled", message="assigned", lastTimestamp="2025-01-02T00:00:00Z")
    got = latest_failed_scheduling([old, newer, other])
    assert got is not None and got.message == "series" and got.count == 3
    assert latest_failed_scheduling([other]) is None
    long = "0/5 nodes are available: " + "x" * 2000
    assert messages_agree(long, long[:1021] + "...")
    assert not messages_agree(long, "0/5 nodes are available: y...")
    sel = parse_selector("a=b,c!=d,e in (x, y),f notin (z),g,!h")
    assert sel.matches({"a": "b", "c": "e", "e": "y", "f": "q", "g": ""})
    assert not sel.matches({"a": "b", "c": "e", "e": "y", "f": "q", "g": "", "h": "1"})


def test_a_terminal_wraps_long_rows_and_wide_never_does() -> None:
    from kschedx.cli.render.pending import render_lines
    from kschedx.core.explain import front as engine
    from kschedx.core.explain.pending import explain_pending

    report = explain_pending(engine.load_cluster_files([DUMP]))
    one_line = render_lines(report, wide=False, width=None)
    for width in (60, 80, 100, 120, 200):
        wrapped = render_lines(report, wide=False, width=width)
        # Nothing is cut: the same words, only the line breaks differ.
        assert " ".join(wrapped).split() == " ".join(one_line).split()
        assert all(len(line) <= width for line in wrapped), width
        # Each record starts at the left edge; its continuation lines are indented.
        starts = [line for line in wrapped if not line.startswith(" ")]
        assert [line.split()[0] for line in starts] == [line.split()[0] for line in one_line]
    whole = render_lines(report, wide=True, width=None)
    assert any(line.rstrip().endswith("Preemption is not helpful for scheduling.") for line in whole)


# --------------------------------------------------------------------------- versions and comparisons


def test_kubernetes_version_and_feature_gates() -> None:
    code, out = pods_json("--kubernetes-version", "v1.33.3")
    assert code == 1 and out["kubernetesVersion"] == "v1.33"
    report = next(p for p in out["pods"] if p["pod"] == "batch/report-big-x7k2p")
    # v1.33's TaintToleration names the taint; the v1.35 event no longer agrees.
    assert "1 node(s) had untolerated taint {dedicated: gpu}" in report["fitError"]
    assert report["eventAgrees"] is False
    _code, out = pods_json("--kubernetes-version", "1.35")
    assert out["kubernetesVersion"] == "v1.35"
    report = next(p for p in out["pods"] if p["pod"] == "batch/report-big-x7k2p")
    assert "1 node(s) had untolerated taint(s)" in report["fitError"] and report["eventAgrees"] is True
    # DRA is off by default on 1.33; turned on, its words are back in the FitError.
    _code, out = pods_json("--kubernetes-version", "1.33", "--feature-gates", "DynamicResourceAllocation=true")
    report = next(p for p in out["pods"] if p["pod"] == "batch/report-big-x7k2p")
    assert "no new claims to deallocate" in report["fitError"]
    y = run("pending", "-c", DUMP, "-o", "yaml", "--kubernetes-version", "1.34")
    assert yaml.safe_load(y.stdout)["kubernetesVersion"] == "v1.34"
    for bad in (("--kubernetes-version", "1.20"), ("--kubernetes-version", "1.33", "--feature-gates", "NoSuchGate=true")):
        res = run("pending", "-c", DUMP, *bad)
        assert res.exit_code == 2 and "Traceback" not in res.output, res.output


def test_compare_version_shows_the_fit_error_that_changes() -> None:
    res = run("pending", "-c", DUMP, "--kubernetes-version", "1.35", "--compare-version", "1.33", "-o", "json")
    assert res.exit_code == 0, res.output  # a FitError's words change, no pod's verdict
    out = json.loads(res.stdout)
    assert set(out) == {"base", "compare", "changes"}
    assert out["base"]["kubernetesVersion"] == "v1.35" and out["compare"]["kubernetesVersion"] == "v1.33"
    assert [(c["pod"], c["what"]) for c in out["changes"]] == [("batch/report-big-x7k2p", "fitError")]
    change = out["changes"][0]
    assert "untolerated taint(s)" in change["base"] and "untolerated taint {dedicated: gpu}" in change["compare"]
    text = run("pending", "-c", DUMP, "--kubernetes-version", "1.35", "--compare-version", "1.33", columns="60")
    assert text.exit_code == 0
    lines = text.stdout.splitlines()
    assert lines[0].split() == ["Base", ":", "Kubernetes", "v1.35,", "config", "(defaults)"]
    assert lines[2] == "1 change(s):" and len(lines) == 4  # one line per change, whatever the width
    assert change["base"] in lines[3] and change["compare"] in lines[3]


def test_compare_version_with_nothing_changing() -> None:
    res = run("pending", "-c", DUMP, "--kubernetes-version", "1.35", "--compare-version", "1.34", "-o", "json")
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["changes"] == [] and out["compare"]["kubernetesVersion"] == "v1.34"
    text = run("pending", "-c", DUMP, "--kubernetes-version", "1.35", "--compare-version", "1.34")
    assert text.exit_code == 0 and "No change" in text.stdout


def test_compare_config_exits_1_when_a_verdict_changes(tmp_path: Path) -> None:
    config = tmp_path / "no-fit.yaml"
    config.write_text(yaml.safe_dump({
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "profiles": [{"schedulerName": "default-scheduler",
                      "plugins": {"multiPoint": {"disabled": [{"name": "NodeResourcesFit"}]}}}]}))
    res = run("pending", "-c", DUMP, "--compare-config", str(config), "-o", "json")
    assert res.exit_code == 1, res.output
    changes = {(c["pod"], c["what"]): c for c in json.loads(res.stdout)["changes"]}
    assert changes[("batch/report-big-x7k2p", "status")] == {
        "pod": "batch/report-big-x7k2p", "what": "status", "base": "unschedulable", "compare": "fits"}
    assert changes[("batch/report-big-x7k2p", "fitError")]["compare"] is None
    assert changes[("batch/report-big-x7k2p", "selectedNode")]["base"] is None
    assert not any(pod.startswith("batch/export") for pod, _ in changes)  # gated under both
    text = run("pending", "-c", DUMP, "--compare-config", str(config))
    assert text.exit_code == 1
    assert "batch/report-big-x7k2p: status unschedulable → fits" in text.stdout
    # Compare feature gates: 1.33 with DRA turned on, the FitError gains DRA's words.
    gates = run("pending", "-c", DUMP, "--kubernetes-version", "1.33", "--compare-feature-gates",
                "DynamicResourceAllocation=true", "-o", "json")
    assert gates.exit_code == 0, gates.output
    (change,) = json.loads(gates.stdout)["changes"]
    assert "no new claims" not in change["base"] and "no new claims to deallocate" in change["compare"]

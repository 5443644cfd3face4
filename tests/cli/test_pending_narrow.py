"""``kschedx pending`` with EKS, GKE and AKS-style node names at 60 to 200 columns (issue 17):
piped, each pod is exactly one line after the header; on a terminal a long row wraps with a
hanging indent. Either way every pod name, node name and FitError appears whole once line
breaks and runs of spaces are collapsed."""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import pytest
import yaml

from .test_narrow_render import EPHEMERAL_POD, NAMES, POD, PVC_POD, WIDTHS, cluster, flat, run


def pending(doc: dict[str, Any], name: str, **spec: Any) -> dict[str, Any]:
    pod = copy.deepcopy(doc)
    pod["metadata"] = {"name": name, "namespace": "default"}
    pod["spec"].update(spec)
    pod["status"] = {"phase": "Pending"}
    return pod


def pending_cluster(provider: str) -> dict[str, Any]:
    dump = cluster(provider)
    big = pending(POD, "web-6d4cf56db6-too-big-for-any-node",
                  containers=[{"name": "app", "image": "nginx:1.27", "resources": {"requests": {"cpu": "64"}}}])
    dump["items"] += [
        pending(POD, "web-6d4cf56db6-r8t5z"),
        big,
        pending(PVC_POD, "db-0"),
        pending(EPHEMERAL_POD, "scratch-0"),
        pending(POD, "gated-0", schedulingGates=[{"name": "example.com/quota"}]),
    ]
    return dump


@pytest.fixture(scope="module")
def dumps(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    d = tmp_path_factory.mktemp("pending-cloud")
    out = {}
    for provider in NAMES:
        p = d / f"{provider}.yaml"
        p.write_text(yaml.safe_dump(pending_cluster(provider)))
        out[provider] = str(p)
    return out


def assert_whole(text: str, data: dict[str, Any]) -> None:
    """Every pod, node, FitError and detail whole in ``text``; node names may stand without
    the domain they share when a closing line says which."""
    text = flat(text)
    m = re.search(r"Node names shortened: each ends in (\S+)", text)
    for p in data["pods"]:
        assert p["pod"] in text
        for value in (p["node"], p["fitError"], p["detail"]):
            if value:
                if m and value == p["node"]:
                    value = value.removesuffix(m.group(1))
                assert flat(value) in text, (value, text)
    assert "…" not in text


@pytest.mark.parametrize("width", [80, 100])
def test_a_terminal_keeps_each_record_on_one_line_group(dumps: dict[str, str], width: int) -> None:
    """At 80 and 100 columns the POD, STATUS, NODE and EVENT of a pod (and the header's) stay
    on its first line, the node's shared domain dropped; the detail follows, indented."""
    from kschedx.cli.lines import HANGING_INDENT
    from kschedx.cli.render.pending import render_lines
    from kschedx.core.explain import front as engine
    from kschedx.core.explain.pending import explain_pending

    report = explain_pending(engine.load_cluster_files([dumps["eks"]]))
    lines = render_lines(report, wide=False, width=width)
    assert lines[-1] == "Node names shortened: each ends in .eu-west-1.compute.internal"
    firsts = [line for line in lines[:-1] if not line.startswith(" ")]
    assert firsts[0].split() == ["POD", "STATUS", "NODE", "EVENT"]
    assert lines[1] == " " * HANGING_INDENT + "DETAIL"
    by_pod = {line.split()[0]: line.split() for line in firsts[1:]}
    assert len(by_pod) == len(report.pods)
    for p in report.pods:
        cells = by_pod[p.key]
        assert len(cells) == 4 and cells[1] == p.status
        assert cells[2] == (p.node.removesuffix(".eu-west-1.compute.internal") if p.node else "-")
    assert all(len(line) <= width for line in lines)


@pytest.mark.parametrize("provider", list(NAMES))
@pytest.mark.parametrize("width", WIDTHS)
def test_piped_pending_is_one_whole_line_per_pod(dumps: dict[str, str], provider: str, width: int) -> None:
    data = json.loads(run(width, "pending", "-c", dumps[provider], "-o", "json").stdout)
    assert len(data["pods"]) == 5
    statuses = {p["pod"]: p["status"] for p in data["pods"]}
    assert statuses["default/web-6d4cf56db6-r8t5z"] == "fits" and statuses["default/gated-0"] == "gated"
    assert {statuses[f"default/{n}"] for n in ("db-0", "scratch-0", "web-6d4cf56db6-too-big-for-any-node")} == {
        "unschedulable"}
    for fmt in ("table", "wide"):
        res = run(width, "pending", "-c", dumps[provider], "-o", fmt)
        assert res.exit_code == 1, res.output
        lines = res.stdout.splitlines()
        assert len(lines) == 1 + len(data["pods"])  # the header and one line per pod
        assert sorted(line.split()[0] for line in lines[1:]) == sorted(statuses)
        assert_whole(res.stdout, data)
    text = flat(run(width, "pending", "-c", dumps[provider]).stdout)
    assert 'persistentvolumeclaim "web" not found' in text
    assert "waiting for ephemeral volume controller to create the persistentvolumeclaim" in text


@pytest.mark.parametrize("provider", list(NAMES))
@pytest.mark.parametrize("width", WIDTHS)
def test_a_terminal_wraps_pending_rows_losing_nothing(dumps: dict[str, str], provider: str, width: int) -> None:
    from kschedx.cli.lines import HANGING_INDENT
    from kschedx.cli.render.pending import render_lines
    from kschedx.core.explain import front as engine
    from kschedx.core.explain.pending import explain_pending

    report = explain_pending(engine.load_cluster_files([dumps[provider]]))
    data = report.to_json()
    for wide in (False, True):
        lines = render_lines(report, wide=wide, width=None if wide else width)
        assert_whole("\n".join(lines), data)
        lines = [line for line in lines if not line.startswith("Node names shortened: ")]
        if wide:
            continue
        # A row starts at the left edge; what does not fit goes on indented lines below it,
        # and only a word longer than a line (none here) could overflow the screen.
        assert sum(1 for line in lines if not line.startswith(" ")) == 1 + len(data["pods"])
        assert all(line.startswith(" " * HANGING_INDENT) for line in lines if line.startswith(" "))
        longest_word = max(len(w) for line in lines for w in line.split())
        assert all(len(line) <= max(width, longest_word + HANGING_INDENT) for line in lines)


def test_narrow_rows_put_the_detail_below_wide_ones_beside(dumps: dict[str, str]) -> None:
    from kschedx.cli.lines import HANGING_INDENT
    from kschedx.cli.render.pending import render_lines
    from kschedx.core.explain import front as engine
    from kschedx.core.explain.pending import explain_pending

    report = explain_pending(engine.load_cluster_files([dumps["eks"]]))
    fit_error = next(p.fit_error for p in report.pods if p.name.endswith("too-big-for-any-node"))
    assert fit_error is not None
    narrow = render_lines(report, wide=False, width=60)
    # At 60 columns the EKS name leaves no room beside it: the FitError starts on its own line.
    assert any(line == " " * HANGING_INDENT + fit_error[: len(line) - HANGING_INDENT] for line in narrow)
    wide = render_lines(report, wide=False, width=200)
    start = wide[0].index("DETAIL")
    row = next(i for i, line in enumerate(wide) if "too-big-for-any-node" in line)
    assert wide[row][start:].startswith("0/10 nodes are available: ")
    assert wide[row + 1].startswith(" " * start) and not wide[row + 1][start].isspace()

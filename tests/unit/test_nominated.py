"""Nominated pods: pending pods with ``status.nominatedNodeName`` in a node's filters.

Reproduces v1.35.4 pkg/scheduler/framework/runtime/framework.go ``RunFilterPluginsWithNominatedPods``
(two passes: with the nominated pods, then, only if that passed, without them) and
``addGENominatedPods`` (only pods of equal or higher priority, never the pod itself, each added to
the node and to the PreFilter state through ``RunPreFilterExtensionAddPod``), and checks that the
table, JSON and ``--node`` outputs say which nominated pods counted and which were ignored.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from kschedx.cli.app import app
from kschedx.core.framework.result import FAILED_WITH, FAILED_WITHOUT, PASSED_BOTH

from .helpers import cycle, node, pod, snapshot

Dict = dict[str, Any]


def _nominated(name: str, node_name: str, priority: int, cpu: str = "3", **kw: Any) -> Dict:
    p = pod(name, cpu=cpu, priority=priority, **kw)
    p["status"]["nominatedNodeName"] = node_name
    return p


def test_equal_or_higher_priority_nominated_pods_take_their_room() -> None:
    snap = snapshot(
        node("n1", cpu="4"), node("n2", cpu="4"), node("n3", cpu="4"),
        _nominated("higher", "n1", 100), _nominated("equal", "n2", 10), _nominated("lower", "n3", 9),
    )
    r = cycle(snap, pod("p", cpu="2", priority=10))
    assert r.nodes["n1"].reasons == ["Insufficient cpu"]
    assert r.nodes["n2"].reasons == ["Insufficient cpu"]
    # A lower-priority nominated pod is ignored: the incoming pod may take room freed for it.
    assert r.nodes["n3"].feasible
    assert r.nominated["n1"].outcome == FAILED_WITH and r.nominated["n1"].fits_without
    assert [p.pod for p in r.nominated["n1"].counted] == ["default/higher"]
    assert [p.pod for p in r.nominated["n3"].ignored] == ["default/lower"]
    assert r.nominated["n3"].outcome is None  # nothing counted: one pass, without them


def test_scores_do_not_count_nominated_pods() -> None:
    # Nominated pods only enter Filter; both nodes score alike although one has a nominated pod.
    snap = snapshot(node("n1", cpu="8"), node("n2", cpu="8"), _nominated("nom", "n1", 100, cpu="1"))
    r = cycle(snap, pod("p", cpu="1", priority=0))
    assert r.nodes["n1"].feasible and r.totals["n1"] == r.totals["n2"]
    assert r.nominated["n1"].outcome == PASSED_BOTH


def test_second_pass_without_nominated_pods_must_pass_too() -> None:
    # Required pod affinity to a pod that is only nominated: the pass with it passes, the pass
    # without it fails, and upstream requires both.
    nom = _nominated("db", "n1", 100, cpu="100m", labels={"app": "db"})
    incoming = pod("web", cpu="100m", priority=0)
    incoming["spec"]["affinity"] = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "kubernetes.io/hostname"}]}}
    bound = pod("db0", cpu="100m", node_name="n2", labels={"app": "db"})
    r = cycle(snapshot(node("n1"), node("n2"), nom, bound), incoming)
    assert not r.nodes["n1"].feasible and r.nodes["n1"].plugin == "InterPodAffinity"
    assert r.nodes["n2"].feasible
    assert r.nominated["n1"].outcome == FAILED_WITHOUT
    assert "fail without it" in r.nominated["n1"].describe(0)


def test_a_pod_never_counts_against_itself() -> None:
    me = _nominated("p", "n1", 0, cpu="2")
    r = cycle(snapshot(node("n1", cpu="3"), me), me)
    assert r.nodes["n1"].feasible
    assert "n1" not in r.nominated


def test_nominated_pods_to_unknown_nodes_and_bound_pods_are_not_nominated() -> None:
    ghost = _nominated("ghost", "gone", 100)
    bound = pod("bound", cpu="3", node_name="n2")
    bound["status"]["nominatedNodeName"] = "n1"
    r = cycle(snapshot(node("n1", cpu="4"), node("n2", cpu="8"), ghost, bound), pod("p", cpu="2"))
    assert r.nodes["n1"].feasible
    assert r.nominated == {}


def _write(tmp: Path, *objs: Dict) -> str:
    path = tmp / "objs.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": list(objs)}))
    return str(path)


def test_outputs_say_which_nominated_pods_counted(tmp_path: Path) -> None:
    cluster = _write(tmp_path, node("n1", cpu="4"), node("n2", cpu="4"),
                     _nominated("high", "n1", 1000), _nominated("low", "n2", -5))
    manifest = tmp_path / "pod.json"
    manifest.write_text(json.dumps(pod("p", cpu="2", priority=0)))
    runner = CliRunner()

    out = runner.invoke(app, ["explain", str(manifest), "-c", cluster, "-o", "json"])
    data = json.loads(out.stdout)
    nominated = data["nominatedPods"]
    assert nominated["n1"]["pods"] == [{"pod": "default/high", "priority": 1000, "counted": True}]
    assert nominated["n1"]["outcome"] == FAILED_WITH and nominated["n1"]["fitsWithout"] is True
    assert nominated["n2"]["pods"] == [{"pod": "default/low", "priority": -5, "counted": False}]

    out = runner.invoke(app, ["explain", str(manifest), "-c", cluster, "--no-color"])
    text = " ".join(out.stdout.split())
    assert "Nominated pods (pending, status.nominatedNodeName):" in text
    assert "n1: counted default/high (priority 1000): priority >= the pod's 0" in text
    assert "n2: ignored default/low (priority -5): lower priority than the pod's 0" in text

    out = runner.invoke(app, ["explain", str(manifest), "-c", cluster, "--no-color", "--node", "n1"])
    text = " ".join(out.stdout.split())
    assert "Nominated pods on this node: • counted default/high (priority 1000)" in text
    assert "the node fits once it is bound or gone, or if the pod's priority were above 1000" in text


def test_the_pods_own_nominated_node_is_taken_when_it_passes() -> None:
    # schedule_one.go evaluateNominatedNode: the nominated node is filtered first; when it passes
    # it is the only feasible node, bound without scoring, even if another node would score higher.
    snap = snapshot(node("big", cpu="16"), node("nominated", cpu="2"))
    incoming = _nominated("p", "nominated", 0, cpu="1")
    r = cycle(snap, incoming)
    assert r.totals["big"] > r.totals["nominated"]  # scores are still shown for the explanation
    assert r.selected_node == "nominated" and r.best_nodes == ["nominated"]
    assert any("the pod is nominated to nominated" in w and "without filtering the other nodes" in w
               for w in r.warnings)


def test_a_nominated_node_that_no_longer_fits_falls_back_to_every_node() -> None:
    snap = snapshot(node("big", cpu="16"), node("nominated", cpu="2"), pod("hog", cpu="2", node_name="nominated"))
    r = cycle(snap, _nominated("p", "nominated", 0, cpu="1"))
    assert r.selected_node == "big"
    assert any("fails the filters now" in w for w in r.warnings)


def test_legacy_v112_has_no_nominated_node_shortcut() -> None:
    # PreferNominatedNode came long after v1.12: the classic pipeline scores every feasible node.
    from kschedx.core.api.model import PodInfo
    from kschedx.core.config.profile import default_profile
    from kschedx.core.legacy.runner import run_legacy
    from kschedx.core.plugins import REGISTRY

    snap = snapshot(node("big", cpu="16"), node("nominated", cpu="2"))
    r = run_legacy(snap, PodInfo(_nominated("p", "nominated", 0, cpu="1")), default_profile(REGISTRY), None, [])
    assert r.selected_node == "big"
    assert not any("nominated to" in w for w in r.warnings)

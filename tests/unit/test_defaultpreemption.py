"""DefaultPreemption: eligibility, the dry run, PDBs and the choice of the node."""

from __future__ import annotations

from typing import Any

from kschedx.core.api.model import PodInfo
from kschedx.core.api.selectors import parse_label_selector
from kschedx.core.plugins.defaultpreemption import (
    _PDB,
    num_candidates,
    pick_one_node,
    split_by_pdb_violation,
)

from .helpers import cycle, node, pod, snapshot

Dict = dict[str, Any]


def victim(name: str, priority: int, start: str = "2026-01-01T00:00:00Z", **kw: Any) -> Dict:
    p = pod(name, cpu=kw.pop("cpu", "1"), node_name=kw.pop("node_name", "n1"), priority=priority, **kw)
    p["status"]["startTime"] = start
    return p


def info(name: str, priority: int, start: str = "2026-01-01T00:00:00Z", labels: dict[str, str] | None = None) -> PodInfo:
    return PodInfo(victim(name, priority, start, labels=labels or {}))


def test_num_candidates() -> None:
    assert num_candidates(50, 10, 100) == 50       # all nodes when fewer than the absolute minimum
    assert num_candidates(5000, 10, 100) == 500    # 10 % of a large cluster
    assert num_candidates(500, 10, 100) == 100     # at least the absolute minimum
    assert num_candidates(500, 50, 10) == 250


def test_pick_one_node_rules_in_order() -> None:
    # 1. fewest PDB violations
    v = {"a": [info("x", 10)], "b": [info("y", 10)]}
    assert pick_one_node(v, {"a": 1, "b": 0}) == ["b"]
    # 2. the lowest highest-priority victim
    v = {"a": [info("x", 20), info("x2", 1)], "b": [info("y", 10), info("y2", 9)]}
    assert pick_one_node(v, {"a": 0, "b": 0}) == ["b"]
    # 3. the smallest sum of priorities
    v = {"a": [info("x", 10), info("x2", 5)], "b": [info("y", 10), info("y2", 3)]}
    assert pick_one_node(v, {"a": 0, "b": 0}) == ["b"]
    # 4. the fewest victims (priorities offset so negatives still order)
    v = {"a": [info("x", -5), info("x2", -5)], "b": [info("y", -5)]}
    assert pick_one_node(v, {"a": 0, "b": 0}) == ["b"]
    # 5. the latest start among the most important victims
    v = {"a": [info("x", 10, "2026-01-01T00:00:00Z")], "b": [info("y", 10, "2026-02-01T00:00:00Z")]}
    assert pick_one_node(v, {"a": 0, "b": 0}) == ["b"]
    # Still tied: every tied node, by name.
    v = {"b": [info("x", 10)], "a": [info("y", 10)]}
    assert pick_one_node(v, {"a": 0, "b": 0}) == ["a", "b"]
    # Why the others lost: the first rule each lost on.
    v = {"a": [info("x", 10)], "b": [info("y", 10)], "c": [info("z", 20)]}
    lost: dict[str, str] = {}
    assert pick_one_node(v, {"a": 1, "b": 0, "c": 0}, lost) == ["b"]
    assert lost == {"a": "more PodDisruptionBudget violations", "c": "a higher-priority victim"}


def test_pdb_violations_count_down_in_order_and_skip_disrupted_pods() -> None:
    pdb = _PDB("default", parse_label_selector({"matchLabels": {"app": "db"}}), 1, frozenset({"db-2"}))
    pods = [info("db-0", 5, labels={"app": "db"}), info("db-1", 5, labels={"app": "db"}),
            info("db-2", 5, labels={"app": "db"}), info("web", 5, labels={"app": "web"}), info("bare", 5)]
    violating, others = split_by_pdb_violation(pods, [pdb])
    assert [p.name for p in violating] == ["db-1"]
    assert [p.name for p in others] == ["db-0", "db-2", "web", "bare"]
    # An empty selector matches no pod.
    empty = _PDB("default", parse_label_selector({}), 0, frozenset())
    assert split_by_pdb_violation(pods, [empty])[0] == []


def test_not_helpful_and_no_victims() -> None:
    tainted = node("t", cpu="1", taints=[{"key": "k", "effect": "NoSchedule"}])
    empty = node("e", cpu="1")
    busy = node("b", cpu="1")
    snap = snapshot(tainted, empty, busy, victim("same", 100, cpu="900m", node_name="b"),
                    victim("fill", 0, cpu="900m", node_name="e"))
    # Priority 100: "fill" (0) is a victim on e; "same" (100) is not lower on b.
    r = cycle(snap, pod("p", cpu="500m", priority=100))
    assert r.preemption is not None and r.preemption.nominated_node == "e"
    assert r.fit_error == "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu."
    # Priority 0: nobody is lower anywhere.
    r = cycle(snap, pod("p", cpu="500m", priority=0))
    assert r.fit_error == (
        "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu. "
        "no new claims to deallocate, preemption: 0/3 nodes are available: "
        "1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.")


def test_preemption_policy_never() -> None:
    snap = snapshot(node("n1", cpu="1"), victim("low", 0, cpu="900m"))
    r = cycle(snap, pod("p", cpu="500m", priority=100, preemptionPolicy="Never"))
    assert r.fit_error == ("0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, "
                           "preemption: not eligible due to preemptionPolicy=Never.")
    assert r.preemption is not None and not r.preemption.eligible


def test_reprieve_keeps_the_most_important_pods_and_pdb_violators_first() -> None:
    pdb = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "db", "namespace": "default"},
           "spec": {"selector": {"matchLabels": {"app": "db"}}}, "status": {"disruptionsAllowed": 0}}
    snap = snapshot(
        node("n1", cpu="4"),
        victim("db", 10, cpu="1", labels={"app": "db"}),
        victim("high", 50, cpu="1", labels={"app": "x"}),
        victim("mid", 30, cpu="1", labels={"app": "x"}, start="2026-01-02T00:00:00Z"),
        victim("old", 30, cpu="1", labels={"app": "x"}, start="2026-01-01T00:00:00Z"),
        pdb,
    )
    # The pod needs 2 CPUs: two of the four must go. The PDB-protected db is reprieved
    # first, then high (50), then old (30, started earlier) — mid is the one that fits last.
    r = cycle(snap, pod("p", cpu="2", priority=100))
    assert r.preemption is not None
    assert r.preemption.nominated_node == "n1"
    assert sorted(r.preemption.victims) == ["default/mid", "default/old"]
    assert r.preemption.candidates[0].num_pdb_violations == 0
    # Needing 3 CPUs: the protected pod is still reprieved first, so the others all go.
    r = cycle(snap, pod("p", cpu="3", priority=100))
    assert r.preemption is not None
    assert sorted(r.preemption.victims) == ["default/high", "default/mid", "default/old"]
    assert r.preemption.candidates[0].num_pdb_violations == 0
    # Needing the whole node, the protected pod goes too: one PDB violation.
    r = cycle(snap, pod("p", cpu="4", priority=100))
    assert r.preemption is not None
    assert sorted(r.preemption.victims) == ["default/db", "default/high", "default/mid", "default/old"]
    assert r.preemption.candidates[0].num_pdb_violations == 1
    details = {d["pod"]: (d["priority"], d["violatesPDB"]) for d in r.preemption.victim_details}
    assert details == {"default/high": (50, False), "default/old": (30, False), "default/mid": (30, False),
                       "default/db": (10, True)}
    # Victims most important first: high, then old (started earlier) before mid, then db.
    assert [d["pod"] for d in r.preemption.victim_details] == [
        "default/high", "default/old", "default/mid", "default/db"]

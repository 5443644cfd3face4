"""The odds of one cycle (core/framework/sampling.py): the node tree's scan order, the
windows the scan scores, and the odds by window parameters held equal to windows scored
from scratch and to every start index run by the definition, on random clusters."""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

import pytest

from kschedx.core.api.model import PodInfo
from kschedx.core.framework.runtime import num_feasible_nodes_to_find
from kschedx.core.framework.sampling import (
    scan_order,
    start_weights,
    window_weights,
    zone_key,
)
from kschedx.core.snapshot import Snapshot

from .helpers import cluster_objects, framework, node, pod

ZONE = "topology.kubernetes.io/zone"
BETA = "failure-domain.beta.kubernetes.io/zone"


def _names(snap: Snapshot) -> list[str]:
    nodes = snap.nodes()
    return [nodes[i].name for i in scan_order(nodes)]


def test_scan_order_is_zones_round_robin_in_name_order() -> None:
    # Dumped out of name order; zone c's first node comes first by name, then a, then b.
    objs = [
        node("n5", labels={ZONE: "b"}), node("n1", labels={ZONE: "c"}), node("n3", labels={ZONE: "a"}),
        node("n2", labels={ZONE: "a"}), node("n4", labels={ZONE: "c"}), node("n6", labels={ZONE: "a"}),
        node("n0", labels={}),  # no zone: the zone "" (first by name, so first of all)
    ]
    snap = Snapshot(cluster_objects(*objs))
    # zones by first node in name order: "" (n0), c (n1), a (n2), b (n5)
    assert _names(snap) == ["n0", "n1", "n2", "n5", "n4", "n3", "n6"]


def test_zone_key_reads_the_beta_labels_first() -> None:
    assert zone_key({ZONE: "a", BETA: "b"}) == ":\x00:b"
    assert zone_key({"topology.kubernetes.io/region": "r", ZONE: "a"}) == "r:\x00:a"
    assert zone_key({}) == ""


def test_start_weights_and_windows() -> None:
    # 10 start indices over a scan of 4 nodes (a PreFilterResult's): positions 0 and 1 get 3.
    assert start_weights(4, 10) == [3, 3, 2, 2]
    # Feasible at scan positions 1 and 3 of 5: the first takes positions 4, 0, 1 (wrapping).
    assert window_weights([1, 3], [1] * 5) == [3, 2]


def test_the_adaptive_number_of_nodes_to_find() -> None:
    assert num_feasible_nodes_to_find(99, None) == 99
    assert num_feasible_nodes_to_find(260, None) == 124  # (50 - 2) % of 260
    assert num_feasible_nodes_to_find(5000, None) == 500  # 10 %
    assert num_feasible_nodes_to_find(350, 10) == 100  # at least 100


def _random_cluster(seed: int) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """130-190 nodes. What makes a window's scores differ from all nodes' comes in bands of
    the name order (a run of the scan): a zone, the preferred disk, the "rack" key, the
    PreferNoSchedule taint and the pods the pod avoids each hold for some bands only, so
    that windows differ in their maxima, minima, domains and ignored nodes."""
    rng = random.Random(seed)
    zones = ["eu-1a", "eu-1b", "eu-1c"][: rng.choice((2, 3))]
    count = rng.randrange(130, 190)

    def band() -> range:
        width = rng.randrange(count // 8, count // 3)
        first = rng.randrange(count - width)
        return range(first, first + width)

    extra_zone, nvme, no_rack, busy, avoided = band(), band(), band(), band(), band()
    objs: list[dict[str, Any]] = []
    for i in range(count):
        name = f"node-{i:03d}"
        labels: dict[str, str] = {ZONE: "eu-1d" if i in extra_zone else rng.choice(zones)}
        if i not in no_rack:
            labels["rack"] = f"r{rng.randrange(4)}"
        labels["disk"] = "nvme" if i in nvme and rng.random() < 0.5 else rng.choice(("ssd", "hdd"))
        taints = []
        if i in busy and rng.random() < 0.5:
            taints.append({"key": "busy", "value": "x", "effect": "PreferNoSchedule"})
            if rng.random() < 0.5:
                taints.append({"key": "noisy", "value": "x", "effect": "PreferNoSchedule"})
        elif rng.random() < 0.1:
            taints.append({"key": "busy", "value": "x", "effect": "PreferNoSchedule"})
        if rng.random() < 0.1:
            taints.append({"key": "gpu", "value": "x", "effect": "NoSchedule"})
        objs.append(node(name, cpu=rng.choice(("2", "4", "8")), memory="16Gi", labels=labels, taints=taints))
        for k in range(rng.randrange(3)):
            app = "db" if i in avoided and rng.random() < 0.6 else rng.choice(("web", "cache"))
            objs.append(pod(f"{name}-p{k}", cpu=rng.choice(("100m", "500m", "1")), memory="256Mi", node_name=name,
                            labels={"app": app}))
    spread = [
        {"maxSkew": rng.choice((1, 2)), "topologyKey": key, "whenUnsatisfiable": "ScheduleAnyway",
         "labelSelector": {"matchLabels": {"app": "web"}}}
        for key in rng.sample([ZONE, "kubernetes.io/hostname", "rack"], rng.choice((1, 2, 3)))
    ]
    affinity = {
        "nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": rng.randrange(50, 100), "preference": {"matchExpressions": [
                {"key": "disk", "operator": "In", "values": ["nvme"]}]}},
            {"weight": rng.randrange(1, 50), "preference": {"matchExpressions": [
                {"key": "disk", "operator": "In", "values": ["ssd"]}]}}]},
        "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": rng.randrange(1, 100), "podAffinityTerm": {
                "topologyKey": rng.choice(("kubernetes.io/hostname", "rack")),
                "labelSelector": {"matchLabels": {"app": "db"}}}}]},
    }
    incoming = pod("incoming", cpu="250m", memory="128Mi", labels={"app": "web"},
                   topologySpreadConstraints=spread, affinity=affinity)
    return objs, incoming


def _odds(objs: list[dict[str, Any]], incoming: dict[str, Any], method: str,
          record: list[dict[str, int]] | None = None) -> Any:
    fw = framework(Snapshot(cluster_objects(*objs)))
    fw.sampling = True
    fw.sampling_method = method
    fw.sampling_record = record
    result = fw.run_cycle(PodInfo(incoming))
    assert result.error is None
    return result


@pytest.mark.parametrize("seed", range(8))
def test_window_odds_equal_windows_scored_from_scratch(seed: int) -> None:
    objs, incoming = _random_cluster(seed)
    fast_totals: list[dict[str, int]] = []
    scratch_totals: list[dict[str, int]] = []
    fast = _odds(objs, incoming, "windows", fast_totals)
    s = fast.sampling
    assert s is not None and s.method == "windows"
    assert s.num_feasible > s.num_nodes_to_find, "the windows must be smaller than the feasible set"
    scratch = _odds(objs, incoming, "scratch", scratch_totals).sampling
    # Every node's total in every window, not only the winners.
    assert len(fast_totals) == s.num_feasible
    assert fast_totals == scratch_totals
    assert s.odds == scratch.odds
    assert [r.to_json() for r in s.starts] == [r.to_json() for r in scratch.starts]
    assert sum(s.odds.values()) == 1
    assert s.best_of_all == sum((s.odds.get(n, Fraction(0)) for n in fast.best_nodes), Fraction(0))


@pytest.mark.parametrize("seed", [0, 3])
def test_window_odds_equal_every_start_run_by_the_definition(seed: int) -> None:
    objs, incoming = _random_cluster(seed)
    assert _odds(objs, incoming, "windows").sampling.odds == _odds(objs, incoming, "definition").sampling.odds


def test_a_tie_is_split_evenly_over_every_window() -> None:
    # 120 nodes alike: every window of 100 is a 100-way tie, and each node is in 100 of
    # the 120 windows, so each wins 100 × 1/100 of 120 starts.
    objs = [node(f"n{i:03d}", labels={ZONE: "abc"[i % 3]}) for i in range(120)]
    result = _odds(objs, pod("p", cpu="100m"), "windows")
    s = result.sampling
    assert (s.num_feasible, s.num_nodes_to_find) == (120, 100)
    assert set(s.odds.values()) == {Fraction(1, 120)} and len(s.odds) == 120
    assert s.best_of_all == 1  # every node ties at the top of all


def test_the_window_decides_where_it_lands() -> None:
    # Only n000..n019 prefer-match; the other windows' best nodes are every node alike.
    objs = [node(f"n{i:03d}", labels={ZONE: "a", "disk": "nvme" if i < 20 else "hdd"}) for i in range(130)]
    affinity = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 10, "preference": {"matchExpressions": [{"key": "disk", "operator": "In", "values": ["nvme"]}]}}]}}
    s = _odds(objs, pod("p", cpu="100m", affinity=affinity), "windows").sampling
    assert s.num_nodes_to_find == 100
    # The windows opening at n020..n030 (n020..n119 to n030..n129) hold no nvme node: there
    # all 100 nodes tie, none of them a best node of all.
    lost = Fraction(11, 130)
    assert s.best_of_all == 1 - lost
    assert sum(p for n, p in s.odds.items() if n >= "n020") == lost


def _offset_odds_by_definition(potential: list[str], victims: dict[str, Any], violations: dict[str, int],
                               wanted: int) -> dict[str, Fraction]:
    """DryRunPreemption from every offset, node by node, then pickOneNodeForPreemption."""
    from kschedx.core.plugins.defaultpreemption import pick_one_node

    odds: dict[str, Fraction] = {}
    for offset in range(len(potential)):
        found: dict[str, Any] = {}
        for i in range(len(potential)):
            name = potential[(offset + i) % len(potential)]
            if name in victims:
                found[name] = victims[name]
                if any(violations[n] == 0 for n in found) and len(found) >= wanted:
                    break
        if not found:
            continue
        tied = pick_one_node(found, {n: violations[n] for n in found})
        for n in tied:
            odds[n] = odds.get(n, Fraction(0)) + Fraction(1, len(tied) * len(potential))
    return odds


@pytest.mark.parametrize("seed", range(30))
def test_preemption_offset_odds_equal_every_offset_run_by_the_definition(seed: int) -> None:
    from kschedx.core.plugins.defaultpreemption import offset_odds

    rng = random.Random(seed)
    potential = [f"n{i:02d}" for i in range(rng.randrange(3, 40))]
    victims: dict[str, Any] = {}
    violations: dict[str, int] = {}
    for name in potential:
        if rng.random() < 0.3:
            continue  # no victims found there
        pods = [PodInfo(pod(f"{name}-v{k}", cpu="1", node_name=name, priorityClassName="x"))
                for k in range(rng.randrange(1, 3))]
        for p in pods:
            p.priority = rng.choice((0, 10, 100))
            p.status["startTime"] = f"2026-01-0{rng.randrange(1, 4)}T00:00:00Z"
        victims[name] = sorted(pods, key=lambda p: -p.priority)
        violations[name] = rng.choice((0, 0, 1, 2))
    wanted = rng.randrange(1, len(potential) + 1)
    got, runs = offset_odds(potential, victims, violations, wanted)
    assert got == _offset_odds_by_definition(potential, victims, violations, wanted)
    if got:
        assert sum(got.values()) == 1
        assert runs[0][0] == 0 and runs[-1][1] == len(potential) - 1


def _chain_case(objs: list[dict[str, Any]], incoming: dict[str, Any], replicas: int, samples: int) -> Any:
    from kschedx.core.config.profile import default_profile
    from kschedx.core.explain import front as engine
    from kschedx.core.explain.chance import replica_chance
    from kschedx.core.plugins import REGISTRY

    snap = Snapshot(cluster_objects(*objs))
    inc = engine.IncomingPod(incoming, "Pod", "test", "")
    before = {ni.name: len(ni.pods) for ni in snap.nodes()}
    got = replica_chance(snap, inc, default_profile(REGISTRY), replicas, engine.Options(), "<test>", samples, 7,
                         engine.run_replicas)
    assert {ni.name: len(ni.pods) for ni in snap.nodes()} == before  # every chain's copies taken off again
    return got


def test_a_one_copy_chain_lands_as_the_odds_say() -> None:
    objs, incoming = _random_cluster(1)
    odds = _odds(objs, incoming, "windows").sampling.odds
    got = _chain_case(objs, incoming, 1, 400)
    assert not got.exact and got.samples == 400
    means = {s.name: s.mean for s in got.nodes}
    # Within four standard errors of the exact odds (the printed bound is 1.96 of them).
    assert all(abs(means.get(n, 0.0) - float(p)) <= 4 / 1.96 * got.error_bound + 1e-9 for n, p in odds.items())
    assert set(means) <= set(odds)


def test_the_scan_moves_on_by_the_nodes_processed() -> None:
    from kschedx.core.explain import front as engine

    objs = [node(f"n{i:03d}", labels={ZONE: "a"}) for i in range(130)]
    snap = Snapshot(cluster_objects(*objs))
    inc = engine.IncomingPod(pod("p", cpu="100m"), "Pod", "p", "")
    steps = engine.run_replicas(snap, inc, engine.select_profile(inc.pod, None), 2,
                                engine.Options(scan_start=0, rng=random.Random(3)), "<test>")
    first, second = steps
    # From start 0 the scan meets n000..n099 (100 feasible nodes to find): 100 processed.
    assert (first.draw.start, first.draw.processed, first.draw.whole) == (0, 100, False)
    assert first.selected_node < "n100"
    # The next cycle scans from n100: its window is n100..n129 and n000..n069.
    assert second.draw.start == 100
    index = int(second.selected_node[1:])
    assert index >= 100 or index < 70


def test_the_default_number_of_chains_shrinks_with_the_run() -> None:
    from kschedx.core.explain.chance import auto_samples

    assert auto_samples(10, 150) == 100
    assert auto_samples(100, 5000) == 4  # 500,000 node-cycles a chain: the floor
    assert auto_samples(40, 1000) == 50

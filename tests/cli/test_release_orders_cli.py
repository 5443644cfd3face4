"""`check` says what a release owes to chance (issue 43, item 6): the order in which the
controllers create the workloads' pods and the scheduler's draws decide which workload goes
short; the samples give each workload's unplaced pods as a range, the total, and exit 1
where a sampled order fails even though the order shown fits."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .test_explain_cli import run, write
from .test_release_cli import TWO_NODES, by_name, deployment, flat

UNEVEN = """\
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: node-big, labels: {kubernetes.io/hostname: node-big}}
  status: {allocatable: {cpu: "2", memory: 8Gi, pods: "110"}, nodeInfo: {kubeletVersion: v1.35.0}}
- apiVersion: v1
  kind: Node
  metadata: {name: node-small, labels: {kubernetes.io/hostname: node-small}}
  status: {allocatable: {cpu: "1", memory: 8Gi, pods: "110"}, nodeInfo: {kubeletVersion: v1.35.0}}
"""


def check_json(*args: str) -> tuple[int, Any]:
    res = run("check", *args, "-o", "json")
    assert res.exit_code in (0, 1), res.output
    return res.exit_code, json.loads(res.stdout)


def test_which_workload_goes_short_depends_on_the_order(tmp_path: Path) -> None:
    # 4 CPUs for 5 pods of 1 CPU: one pod stays Pending whatever the order, but whose
    # depends on which Deployment's pods reach the queue first.
    cluster = write(tmp_path, "cluster.yaml", TWO_NODES)
    api = write(tmp_path, "api.yaml", deployment("api", 3, "1"))
    web = write(tmp_path, "web.yaml", deployment("web", 2, "1"))
    code, data = check_json(api, web, "--cluster", cluster)
    assert code == 1
    release = data["release"]
    assert release["unplacedTotal"] == 1
    assert release["chance"]["unplacedTotalRange"] == [1, 1]
    assert release["chance"]["samples"] == 16 and release["chance"]["seed"] == 0
    results = by_name(data)
    # The order shown: api first, web short by one; over the samples each may go short.
    assert (results["api"]["unplaced"], results["web"]["unplaced"]) == (0, 1)
    assert results["api"]["unplacedRange"] == [0, 1] and results["web"]["unplacedRange"] == [0, 1]
    seen_api, seen_web = results["api"]["unplacedSeen"], results["web"]["unplacedSeen"]
    assert sum(seen_api.values()) == sum(seen_web.values()) == 16
    assert seen_api["1"] == seen_web["0"] and seen_api["1"] > 0  # whoever comes second goes short
    for sample in release["chance"]["orders"]:
        assert sum(sample["unplaced"].values()) == 1
        assert sample["unplaced"][sample["order"][-1]] == 1
    # Said in the table too, and the same on every run (seeded).
    res = run("check", api, web, "--cluster", cluster)
    text = flat(res.stdout)
    assert "which workloads go short depends on the order" in text
    assert "the total stays 1" in text and "Deployment/shop/api 0–1" in text
    assert run("check", api, web, "--cluster", cluster).stdout == res.stdout
    other = json.loads(run("check", api, web, "--cluster", cluster, "--seed", "7", "-o", "json").stdout)
    assert other["release"]["chance"]["seed"] == 7


def test_an_order_that_fits_where_a_sampled_one_does_not_exits_1(tmp_path: Path) -> None:
    # big (2 CPUs) first lands on node-big and small goes to node-small: fits. The other way
    # round small takes node-big (more room left there) and big fits nowhere.
    cluster = write(tmp_path, "cluster.yaml", UNEVEN)
    big = write(tmp_path, "big.yaml", deployment("big", 1, "2"))
    small = write(tmp_path, "small.yaml", deployment("small", 1, "1"))
    # It fits as shown, but small's cycle found one node left: the room is full, so the
    # orders are sampled by default; --samples 0 keeps to the order shown.
    code, data = check_json(big, small, "--cluster", cluster, "--samples", "0")
    assert code == 0 and "chance" not in data["release"]
    code, data = check_json(big, small, "--cluster", cluster)
    assert code == 1 and data["release"]["chance"]["samples"] == 16
    code, data = check_json(big, small, "--cluster", cluster, "--samples", "8")
    assert code == 1
    assert data["release"]["verdict"] == "fits" and data["release"]["unplacedTotal"] == 0
    assert data["release"]["chance"]["unplacedTotalRange"] == [0, 1]
    assert by_name(data)["big"]["unplacedRange"] == [0, 1]
    text = flat(run("check", big, small, "--cluster", cluster, "--samples", "8").stdout)
    assert "but not in every order" in text
    assert "small, big in that order" in text
    # CI reads it too: a SARIF warning and a JUnit failure for the workload, exit 1.
    sarif = run("check", big, small, "--cluster", cluster, "--samples", "8", "-o", "sarif")
    assert sarif.exit_code == 1
    results = json.loads(sarif.stdout)["runs"][0]["results"]
    assert [(r["ruleId"], r["level"]) for r in results] == [("fits-by-order", "warning")]
    junit = run("check", big, small, "--cluster", cluster, "--samples", "8", "-o", "junit")
    assert junit.exit_code == 1 and 'type="order-dependent"' in junit.stdout


def test_nothing_left_to_chance_is_played_once(tmp_path: Path) -> None:
    # One workload, one node: no order to shuffle, no tie, no window.
    cluster = write(tmp_path, "cluster.yaml", UNEVEN.split("- apiVersion: v1\n  kind: Node\n  metadata: {name: node-small")[0])
    app = write(tmp_path, "app.yaml", deployment("app", 3, "1"))
    code, data = check_json(app, "--cluster", cluster)
    assert code == 1
    chance = data["release"]["chance"]
    assert chance["exact"] is True and chance["samples"] == 1
    assert "the same in every order" in flat(run("check", app, "--cluster", cluster).stdout)


def test_samples_leave_the_order_shown_as_it_was(tmp_path: Path) -> None:
    # Every sample is played on the same snapshot and taken off again: the order shown, its
    # preemptions and rollouts read the same with and without them.
    root = Path(__file__).resolve().parents[2]
    release = str(root / "examples" / "release-app")
    cluster = str(root / "examples" / "cluster.yaml")
    _, without = check_json(release, "--cluster", cluster, "--samples", "0", "--detail")
    _, with_samples = check_json(release, "--cluster", cluster, "--samples", "6", "--detail")
    assert with_samples["release"]["chance"]["samples"] == 6

    def shown(data: Any) -> Any:
        for r in data["results"]:
            for key in ("unplacedRange", "unplacedSeen", "fitsInSamples", "message"):
                r.pop(key, None)
        data["release"].pop("chance", None)
        return data

    assert shown(with_samples) == shown(without)


def test_separately_each_workload_plays_its_own_draws(tmp_path: Path) -> None:
    cluster = write(tmp_path, "cluster.yaml", TWO_NODES)
    api = write(tmp_path, "api.yaml", deployment("api", 5, "1"))
    code, data = check_json(api, "--cluster", cluster, "--separately", "--samples", "3")
    assert code == 1
    result = data["results"][0]
    assert result["unplaced"] == 1 and result["unplacedSeen"] == {"1": 3}


def test_a_release_with_room_to_spare_plays_no_samples(tmp_path: Path) -> None:
    # 2 of 4 CPUs asked for: every cycle has both nodes to choose from, nothing is short.
    cluster = write(tmp_path, "cluster.yaml", TWO_NODES)
    api = write(tmp_path, "api.yaml", deployment("api", 1, "1"))
    web = write(tmp_path, "web.yaml", deployment("web", 1, "1"))
    code, data = check_json(api, web, "--cluster", cluster)
    assert code == 0 and "chance" not in data["release"] and "unplacedSeen" not in data["results"][0]

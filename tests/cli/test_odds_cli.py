"""`kschedx explain` telling what the real scheduler leaves to chance (issue 43): the odds
in JSON, the "Where it lands" block in the table at any width and in the HTML report, one
node's share with --node, and preemption's odds over the dry run's random offset. On two
public golden cases of the chance family (260 nodes; 263 nodes where only preemption helps)."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from kschedx.cli.app import app

CASES = Path(__file__).resolve().parents[1] / "golden" / "cases"
SOFT = CASES / "chance-1"  # 124 of 256 feasible nodes scored per cycle
PREEMPT = CASES / "chance-37"


def run(case: Path, *args: str, columns: int = 100) -> Any:
    res = CliRunner().invoke(app, ["explain", str(case / "pod.yaml"), "-c", str(case / "cluster.yaml.gz"), *args],
                             env={"NO_COLOR": "1", "COLUMNS": str(columns)})
    return res


def test_json_gives_each_node_its_odds_as_an_exact_fraction() -> None:
    res = run(SOFT, "-o", "json")
    assert res.exit_code == 0, res.output
    s = json.loads(res.stdout)["sampling"]
    assert (s["numNodesToFind"], s["numFeasibleNodes"], s["windowSize"]) == (124, 256, 124)
    assert s["sameWindowForEveryStart"] is False
    exact = {n: Fraction(*f) for n, f in s["oddsExact"].items()}
    assert sum(exact.values()) == 1
    assert exact["general-75"] == Fraction(31, 65)  # as the real framework's scan from every start
    assert all(abs(s["odds"][n] - float(p)) < 1e-12 for n, p in exact.items())
    assert s["bestOfAllOdds"] == pytest.approx(31 / 65)
    assert sum(s["zones"].values()) == pytest.approx(1)


@pytest.mark.parametrize("columns", [60, 200])
def test_the_table_says_where_it_lands(columns: int) -> None:
    res = run(SOFT, columns=columns)
    assert res.exit_code == 0, res.output
    out = res.stdout
    assert "Where it lands" in out
    lines = out.splitlines()
    # The most likely node first, with its share.
    first = next(i for i, line in enumerate(lines) if line.startswith("Where it lands"))
    rows = [line.split() for line in lines[first:first + 12] if line.strip().endswith("general-75")]
    assert rows and rows[0][:2] == ["47.7", "%"]
    assert "5 nodes can win" in " ".join(out.split())
    assert all(len(line) <= columns for line in lines)


def test_one_node_in_focus_gets_its_share_and_who_beat_it() -> None:
    res = run(SOFT, "--node", "general-99")
    assert res.exit_code == 0, res.output
    text = " ".join(res.stdout.split())
    assert "general-99: chosen in 9.2 % of cycles" in text
    assert "the window held a better node: general-75" in text
    focus = json.loads(run(SOFT, "--node", "general-99", "-o", "json").stdout)["focus"]
    assert focus["odds"] == pytest.approx(6 / 65)
    assert 0 < focus["scoredIn"] < 1 and "general-75" in focus["beatenBy"]


def test_the_html_report_has_the_block(tmp_path: Path) -> None:
    res = run(SOFT, "-o", "html")
    assert res.exit_code == 0, res.output
    page = res.stdout
    assert "<h3>Where it lands</h3>" in page and "47.7 %" in page


def test_preemption_odds_over_the_random_offset() -> None:
    data = json.loads(run(PREEMPT, "-o", "json").stdout)
    pre = data["preemption"]
    exact = {n: Fraction(*f) for n, f in pre["nominatedOddsExact"].items()}
    assert sum(exact.values()) == 1 and len(exact) == 6
    assert exact["gke-prod-main-general-6d99a6ec-d1o3"] == Fraction(5, 13)
    assert (pre["numCandidates"], pre["numPotentialNodes"]) == (100, 260)
    assert len(pre["candidates"]) == 258  # every candidate, not one draw of 100
    text = " ".join(run(PREEMPT).stdout.split())
    assert "stops at 100 candidates of 260 nodes: it nominates gke-prod-main-general-6d99a6ec-d1o3 38.5 %" in text


def test_replicas_play_the_chain_with_chance() -> None:
    spread = CASES / "chance-2"  # soft hostname spreading over 150 nodes: windows of 100
    data = json.loads(run(spread, "--replicas", "4", "--samples", "30", "--seed", "5", "-o", "json").stdout)
    chance = data["chance"]
    assert (chance["samples"], chance["seed"], chance["exact"]) == (30, 5, False)
    assert chance["placedRange"] == [4, 4]
    assert sum(n["expected"] for n in chance["nodes"].values()) == pytest.approx(4)
    assert sum(z["expected"] for z in chance["zones"].values()) == pytest.approx(4)
    assert all(n["min"] <= n["expected"] <= n["max"] for n in chance["nodes"].values())
    again = json.loads(run(spread, "--replicas", "4", "--samples", "30", "--seed", "5", "-o", "json").stdout)
    assert again["chance"] == chance  # seeded: the same output on every run
    text = " ".join(run(spread, "--replicas", "4", "--samples", "30", "--seed", "5").stdout.split())
    assert "Where the copies land (30 chains played with the scheduler's chance" in text
    assert "copies placed: 4 in every chain" in text
    assert "chance" not in json.loads(run(spread, "--replicas", "4", "--samples", "0", "-o", "json").stdout)

"""A workload the example cluster already runs, through the CLI: the rule in JSON and in
the table, and ``--replicas auto`` placing only what the controller would create."""

from __future__ import annotations

import json
from pathlib import Path

from .test_explain_cli import CLUSTER, WEB, run, write


def _web(tmp_path: Path, old: str, new: str) -> str:
    text = Path(WEB).read_text()
    assert old in text
    return write(tmp_path, "web.yaml", text.replace(old, new))


def test_unchanged_workload_places_nothing(tmp_path: Path) -> None:
    web = _web(tmp_path, "replicas: 8", "replicas: 6")
    res = run("explain", web, "--cluster", CLUSTER, "--replicas", "auto", "-o", "json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["replicasRequested"] == data["replicasPlaced"] == 0 and data["steps"] == []
    assert data["workload"] == {"kind": "Deployment", "name": "web", "rule": "unchanged", "replicas": 6,
                                "running": 6, "placed": 0, "note": data["workload"]["note"]}
    table = run("explain", web, "--cluster", CLUSTER, "--replicas", "auto")
    assert table.exit_code == 0
    assert "nothing to place" in " ".join(table.output.split())


def test_changed_image_is_a_rolling_update_and_check_says_so(tmp_path: Path) -> None:
    web = _web(tmp_path, "web:2.4.1", "web:2.5.0")
    res = run("check", web, "--cluster", CLUSTER, "-o", "json")
    (result,) = json.loads(res.stdout)["results"]
    assert result["explanation"]["workload"]["rule"] == "rollout"
    # maxSurge 25% of 8 is 2; web's ReplicaSet asks for 7, so 8 + 2 - 7 = 3 new pods.
    assert (result["replicas"], result["running"], result["placed"]) == (8, 0, 3)
    single = run("explain", web, "--cluster", CLUSTER)
    assert "Deployment web: rollout" in " ".join(single.output.split())

"""`kschedx explain --node NODE` on a DRA pod: per claim and request, every device the node
reaches, picked or why not (issue 30, point 2), with the MIG-style example of the README."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from kschedx.cli.app import app

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "dra"
CLUSTER = str(EXAMPLES / "mig-cluster.yaml")


def run(*args: str) -> Any:
    return CliRunner().invoke(app, list(args), env={"NO_COLOR": "1", "COLUMNS": "200"})


def candidates(pod: str) -> list[dict[str, Any]]:
    res = run("explain", str(EXAMPLES / pod), "--cluster", CLUSTER, "--node", "gpu-node-1", "-o", "json")
    assert res.exit_code in (0, 1), res.output  # 1: the pod fits nowhere
    out = json.loads(res.output)
    return [{k: v for k, v in c.items() if k != "claim"} for c in out["focus"]["deviceCandidates"]]


def test_partition_fits_and_says_why_the_others_were_not_picked() -> None:
    assert candidates("partition-pod.yaml") == [
        {"request": "gpu", "device": "gpu.example.com/gpu-node-1/gpu-0", "picked": False,
         "why": 'request selector #0 is false: device.attributes["gpu.example.com"].profile == "3g.40gb" '
                '(saw gpu.example.com/profile="full")'},
        {"request": "gpu", "device": "gpu.example.com/gpu-node-1/gpu-0-mig-3g-0", "picked": False,
         "why": "already allocated to claim default/running-job-gpu"},
        {"request": "gpu", "device": "gpu.example.com/gpu-node-1/gpu-0-mig-3g-1", "picked": True},
    ]


def test_whole_gpu_is_out_of_counters_and_the_summary_stays_upstreams() -> None:
    got = candidates("whole-gpu-pod.yaml")
    assert got[0] == {"request": "gpu", "device": "gpu.example.com/gpu-node-1/gpu-0", "picked": False,
                      "why": "counters exhausted: counter set gpu-0 memory: needs 80Gi, 40Gi left; "
                             "counter set gpu-0 slices: needs 7, 4 left"}
    res = run("explain", str(EXAMPLES / "whole-gpu-pod.yaml"), "--cluster", CLUSTER, "--node", "gpu-node-1")
    assert res.exit_code == 1
    assert "Why each device was or was not picked:" in res.output
    assert "exhausted" in res.output

"""The progress bar for long steps: what the engine reports, and what the CLI draws."""

from __future__ import annotations

import gzip
import io
import time
from pathlib import Path

import pytest
from rich.console import Console

from kschedx.cli.common import progress_bar
from kschedx.core.explain import front as engine
from kschedx.core.load import files
from kschedx.core.progress import listening, report

ROOT = Path(__file__).resolve().parents[2]
CLUSTER = ROOT / "examples" / "cluster.yaml"
POD = ROOT / "examples" / "pods" / "anti-affinity.yaml"


def terminal() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, force_terminal=True, width=120, color_system=None), out


def test_bar_shows_phase_and_share_on_a_terminal() -> None:
    console, out = terminal()
    with progress_bar(console, delay=0):
        time.sleep(0.2)  # past the delay: the bar is up
        report("decoding big.json (840 MB)", 420, 840)
    text = out.getvalue()
    assert "decoding big.json (840 MB)" in text
    assert "50%" in text
    assert "━" in text  # the bar itself


def test_no_bar_off_a_terminal() -> None:
    out = io.StringIO()
    with progress_bar(Console(file=out, force_terminal=False), delay=0):
        time.sleep(0.1)
        report("reading", 1, 2)
    assert out.getvalue() == ""


def test_no_bar_for_quick_runs() -> None:
    console, out = terminal()
    with progress_bar(console, delay=5):
        report("reading", 1, 2)
    assert out.getvalue() == ""


def test_engine_reports_how_far_each_long_step_is(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Small chunks make the example behave like a large dump.
    monkeypatch.setattr(files, "_CHUNK", 4096)
    gz = tmp_path / "cluster.yaml.gz"
    gz.write_bytes(gzip.compress(CLUSTER.read_bytes()))
    seen: list[tuple[str, int | None, int | None]] = []
    with listening(lambda phase, done, total: seen.append((phase, done, total))):
        plain = engine.load_cluster_files([str(CLUSTER)])
        zipped = engine.load_cluster_files([str(gz)])
        inc = engine.prepare_pod(str(POD), plain)
        snap = engine.build_snapshot(plain, inc)
        engine.run_replicas(snap, inc, engine.select_profile(inc.pod, None), 3)
    assert len(plain.of("Pod")) == len(zipped.of("Pod"))

    def phases(prefix: str) -> list[tuple[int | None, int | None]]:
        return [(d, t) for p, d, t in seen if p.startswith(prefix)]

    size = CLUSTER.stat().st_size
    reading = phases("reading cluster.yaml")
    assert len(reading) > 2 and reading[-1] == (size, size)
    assert [d for d, _ in reading] == sorted(d for d, _ in reading if d is not None)
    unzip = phases("decompressing cluster.yaml.gz")
    assert unzip and unzip[-1] == (gz.stat().st_size, gz.stat().st_size)
    assert phases("parsing cluster.yaml (YAML)")
    snapshot = phases("building the snapshot")
    assert snapshot and all(t == len(plain.of("Pod")) for _, t in snapshot)
    assert phases("placing ") == [(0, 3), (1, 3), (2, 3)]


def test_a_phase_of_unknown_size_after_a_measured_one_pulses() -> None:
    console, out = terminal()
    with progress_bar(console, delay=0):
        time.sleep(0.2)
        report("reading big.json", 840, 840)
        time.sleep(0.2)
        report("decoding big.json")
    last = out.getvalue().rsplit("reading big.json", 1)[-1]
    assert "decoding big.json" in last
    assert "%" not in last.split("decoding big.json", 1)[1]  # no share for a step of unknown size

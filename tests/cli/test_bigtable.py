"""BigTable must print what Rich prints for the same table: character for character, and
with the same style on every visible character."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import pytest
from rich.console import Console, Group, RenderableType
from rich.segment import Segment

from kschedx.cli.render import bigtable
from kschedx.cli.render import steps as steps_view
from kschedx.cli.render import table as table_view
from kschedx.core.explain import front as engine
from kschedx.core.explain.front import Options
from kschedx.core.framework.result import CycleResult

ROOT = Path(__file__).resolve().parents[2]
PODS = sorted((ROOT / "examples" / "pods").glob("*.yaml"))


@pytest.fixture(scope="module")
def results() -> list[CycleResult]:
    objects = engine.load_cluster_files([str(ROOT / "examples" / "cluster.yaml")])
    out = []
    for pod in PODS:
        for all_reasons in (False, True):
            expl = engine.explain_objects(str(pod), objects, options=Options(all_reasons=all_reasons))
            out.append(expl.steps[0])
    return out


def styled_chars(result: CycleResult, *, big: bool, wide: bool, width: int, monkeypatch: pytest.MonkeyPatch,
                 ) -> list[tuple[str, str]]:
    monkeypatch.setattr(bigtable, "BIG_TABLE_ROWS", 0 if big else 10**9)
    console = Console(file=io.StringIO(), width=width, force_terminal=True, color_system="truecolor",
                      highlight=False, markup=False, emoji=False)
    segments: list[Segment] = list(console.render(Group(*table_view.build(result, console, wide=wide))))
    chars = []
    for seg in segments:
        for ch in seg.text:
            # Spaces only show a background; other characters their whole style.
            style = seg.style.background_style if (seg.style and not ch.strip()) else seg.style
            chars.append((ch, str(style or "none")))
    return chars


@pytest.mark.parametrize("width", [30, 40, 60, 100, 200])
@pytest.mark.parametrize("wide", [False, True])
def test_big_table_prints_what_rich_prints(results: list[CycleResult], wide: bool, width: int,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    assert len(results) >= 8
    for result in results:
        rich_out = styled_chars(result, big=False, wide=wide, width=width, monkeypatch=monkeypatch)
        fast_out = styled_chars(result, big=True, wide=wide, width=width, monkeypatch=monkeypatch)
        assert "".join(c for c, _ in fast_out) == "".join(c for c, _ in rich_out), result.pod
        assert fast_out == rich_out, result.pod


def test_big_tables_take_the_fast_path(results: list[CycleResult], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bigtable, "BIG_TABLE_ROWS", 3)
    console = Console(file=io.StringIO(), width=100)
    parts = table_view.build(results[0], console)
    assert any(isinstance(p, bigtable.BigTable) for p in parts)


def _render_chars(parts_of: Callable[[], list[RenderableType]], *, big: bool, width: int,
                  monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    monkeypatch.setattr(bigtable, "BIG_TABLE_ROWS", 0 if big else 10**9)
    console = Console(file=io.StringIO(), width=width, force_terminal=True, color_system="truecolor",
                      highlight=False, markup=False, emoji=False)
    chars = []
    for seg in console.render(Group(*parts_of())):
        for ch in seg.text:
            style = seg.style.background_style if (seg.style and not ch.strip()) else seg.style
            chars.append((ch, str(style or "none")))
    return chars


@pytest.mark.parametrize("width", [40, 80, 120])
def test_replica_and_daemonset_tables_print_what_rich_prints(width: int, monkeypatch: pytest.MonkeyPatch) -> None:
    objects = engine.load_cluster_files([str(ROOT / "examples" / "cluster.yaml")])
    replicas = engine.explain_objects(str(PODS[0]), objects, replicas=6)
    daemon = {
        "apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent", "namespace": "default"},
        "spec": {"selector": {"matchLabels": {"app": "agent"}}, "template": {
            "metadata": {"labels": {"app": "agent"}},
            "spec": {"containers": [{"name": "c", "image": "agent:1", "resources": {"requests": {"cpu": "2"}}}]}}},
    }
    daemonset = engine.explain_object(daemon, "ds.yaml", objects)
    for build in (lambda: steps_view.build_replicas(replicas, width), lambda: steps_view.build_daemonset(daemonset, width)):
        fast = _render_chars(build, big=True, width=width, monkeypatch=monkeypatch)
        slow = _render_chars(build, big=False, width=width, monkeypatch=monkeypatch)
        assert "".join(c for c, _ in fast) == "".join(c for c, _ in slow)
        assert fast == slow

"""Scheduler extenders against a small extender served on 127.0.0.1: filter and
prioritize results in the explanation and totals (v1.35 and the legacy pipeline),
nodeCacheCapable, managedResources, ignorable, and the failure modes."""

from __future__ import annotations

from typing import Any

import pytest

from kschedx.core.api.objects import ClusterObjects
from kschedx.core.errors import ClusterAccessError
from kschedx.core.explain import front as engine
from kschedx.core.framework.extenders import Extender
from kschedx.core.framework.result import CycleResult
from tests.unit.extender_server import closed_port_url, extender, node_names
from tests.unit.helpers import node, pod

Dict = dict[str, Any]


def cluster() -> ClusterObjects:
    objs = ClusterObjects()
    for n in ("a", "b", "c"):
        objs.add(node(n, extra={"example.com/fpga": "2"}))
    return objs


def explain(exts: list[Extender], *, algorithm: str | None = None, offline: bool = False,
            incoming: Dict | None = None) -> CycleResult:
    opts = engine.Options(extenders=exts, algorithm=algorithm, offline=offline)
    expl = engine.explain_object(incoming or pod("web", cpu="100m"), "pod.yaml", cluster(), options=opts)
    return expl.steps[0]


def ext(url: str, **kw: Any) -> Extender:
    return Extender(url_prefix=url, **kw)


def reject(names: dict[str, str], key: str = "FailedNodes") -> Any:
    def handler(body: Any) -> tuple[int, Any]:
        keep = [n for n in node_names(body) if n not in names]
        if body.get("NodeNames") is not None or body.get("nodenames") is not None:
            return 200, {"NodeNames": keep, key: names}
        items = [n for n in (body.get("Nodes") or body.get("nodes"))["items"] if n["metadata"]["name"] in keep]
        return 200, {"Nodes": {"items": items}, key: names}
    return handler


def test_filter_narrows_the_feasible_nodes_with_the_extenders_reason() -> None:
    with extender({"filter": reject({"b": "no licence seat left"})}) as srv:
        r = explain([ext(srv.url, filter_verb="filter")])
    column = f"extender:{srv.url}"
    assert r.nodes["b"].feasible is False
    assert (r.nodes["b"].plugin, r.nodes["b"].code, r.nodes["b"].reasons) == (
        column, "Unschedulable", ["no licence seat left"])
    assert sorted(r.feasible_nodes) == ["a", "c"]
    assert "b" not in r.totals
    [(path, body)] = srv.requests
    assert path == "/scheduler/filter"
    # v1.35's ExtenderArgs has no JSON tags: Pod, Nodes (a NodeList), NodeNames null.
    assert body["Pod"]["metadata"]["name"] == "web"
    assert [n["metadata"]["name"] for n in body["Nodes"]["items"]] == ["a", "b", "c"]
    assert body["NodeNames"] is None
    assert r.extenders[0]["calls"][0]["filteredOut"] == ["b"]


def test_node_cache_capable_extenders_get_names_and_unresolvable_failures() -> None:
    with extender({"filter": reject({"c": "zone quota exhausted"}, "FailedAndUnresolvableNodes")}) as srv:
        r = explain([ext(srv.url, filter_verb="filter", node_cache_capable=True)])
    body = srv.requests[0][1]
    assert body["NodeNames"] == ["a", "b", "c"] and body["Nodes"] is None
    assert (r.nodes["c"].code, r.nodes["c"].reasons) == ("UnschedulableAndUnresolvable", ["zone quota exhausted"])


def test_every_node_filtered_out_gives_the_fit_error_with_the_extenders_reason() -> None:
    msg = "no GPU budget"
    with extender({"filter": reject({"a": msg, "b": msg, "c": msg})}) as srv:
        r = explain([ext(srv.url, filter_verb="filter")])
    assert r.selected_node is None
    assert r.fit_error is not None and r.fit_error.startswith("0/3 nodes are available: 3 no GPU budget.")


def test_prioritize_scores_are_scaled_by_ten_and_weighted() -> None:
    def scores(body: Any) -> tuple[int, Any]:
        return 200, [{"Host": "a", "Score": 2}, {"Host": "b", "Score": 8}, {"Host": "c", "Score": 0}]

    with extender({"prioritize": scores}) as srv:
        plain = explain([])
        r = explain([ext(srv.url, prioritize_verb="prioritize", weight=3)])
    col = next(p for p in r.score_plugins if p.name == f"extender:{srv.url}")
    assert col.weight == 3
    assert (col.scores["b"].raw, col.scores["b"].normalized, col.scores["b"].weighted) == (8, 80, 240)
    assert r.totals == {n: plain.totals[n] + {"a": 60, "b": 240, "c": 0}[n] for n in "abc"}
    assert r.selected_node == "b"


def test_uninterested_extenders_are_not_called() -> None:
    with extender({"filter": reject({"a": "x"})}) as srv:
        r = explain([ext(srv.url, filter_verb="filter", managed_resources=["example.com/fpga"])])
    assert srv.requests == []
    assert r.extenders[0]["interested"] is False
    assert sorted(r.feasible_nodes) == ["a", "b", "c"]


def test_managed_resources_make_an_extender_interested() -> None:
    p = pod("web", cpu="100m")
    p["spec"]["containers"][0]["resources"]["limits"] = {"example.com/fpga": "1"}
    with extender({"filter": reject({"a": "no fpga"})}) as srv:
        r = explain([ext(srv.url, filter_verb="filter", managed_resources=["example.com/fpga"])], incoming=p)
    assert len(srv.requests) == 1
    assert r.nodes["a"].reasons == ["no fpga"]


def test_unreachable_non_ignorable_extender_is_a_cluster_access_error() -> None:
    with pytest.raises(ClusterAccessError, match="unreachable.*--offline"):
        explain([ext(closed_port_url(), filter_verb="filter")])


def test_unreachable_ignorable_extender_is_skipped_with_a_warning() -> None:
    url = closed_port_url()
    r = explain([ext(url, filter_verb="filter", prioritize_verb="prioritize", weight=1, ignorable=True)])
    assert sorted(r.feasible_nodes) == ["a", "b", "c"]
    assert any("unreachable" in w and "ignorable" in w for w in r.warnings)


def test_offline_never_calls_an_extender() -> None:
    with extender({"filter": reject({"a": "x"})}) as srv:
        r = explain([ext(srv.url, filter_verb="filter")], offline=True)
    assert srv.requests == []
    assert sorted(r.feasible_nodes) == ["a", "b", "c"]
    assert any("was not called (--offline)" in w for w in r.warnings)


def test_filter_errors_fail_the_cycle_unless_ignorable() -> None:
    with extender({"filter": lambda body: (500, {})}) as srv:
        r = explain([ext(srv.url, filter_verb="filter")])
        assert r.error is not None and "code 500" in r.error and r.selected_node is None
        r = explain([ext(srv.url, filter_verb="filter", ignorable=True)])
        assert r.error is None and sorted(r.feasible_nodes) == ["a", "b", "c"]
        assert any("ignorable" in w for w in r.warnings)


def test_an_error_field_in_the_filter_result_fails_the_cycle() -> None:
    with extender({"filter": lambda body: (200, {"Error": "backend down"})}) as srv:
        r = explain([ext(srv.url, filter_verb="filter")])
    assert r.error == f"extender {srv.url} filter: backend down"


def test_a_filter_result_naming_an_unknown_node_fails_the_cycle() -> None:
    with extender({"filter": lambda body: (200, {"NodeNames": ["zz"]})}) as srv:
        r = explain([ext(srv.url, filter_verb="filter", node_cache_capable=True)])
    assert r.error is not None and "claims a filtered node 'zz'" in r.error


def test_prioritize_errors_are_ignored_with_a_warning() -> None:
    with extender({"prioritize": lambda body: (500, {})}) as srv:
        plain = explain([])
        r = explain([ext(srv.url, prioritize_verb="prioritize", weight=2)])
    assert r.totals == plain.totals
    assert not any(p.name.startswith("extender:") for p in r.score_plugins)
    assert any("prioritize failed" in w for w in r.warnings)


def test_only_filter_and_prioritize_are_ever_called() -> None:
    def ok_filter(body: Any) -> tuple[int, Any]:
        return 200, {"Nodes": body["Nodes"]}

    with extender({"filter": ok_filter, "prioritize": lambda b: (200, [])}) as srv:
        explain([ext(srv.url, filter_verb="filter", prioritize_verb="prioritize", weight=1, bind_verb="bind",
                     preempt_verb="preempt")])
    assert srv.paths() == ["/scheduler/filter", "/scheduler/prioritize"]


def test_legacy_pipeline_uses_v112_requests_and_unscaled_scores() -> None:
    def scores(body: Any) -> tuple[int, Any]:
        return 200, [{"host": "a", "score": 7}]

    with extender({"filter": reject({"c": "busy"}), "prioritize": scores}) as srv:
        r = explain([ext(srv.url, filter_verb="filter", prioritize_verb="prioritize", weight=2)],
                    algorithm="legacy-v1.12")
    (_, fbody), (_, pbody) = srv.requests
    assert set(fbody) == {"pod", "nodes"} and set(pbody) == {"pod", "nodes"}
    assert [n["metadata"]["name"] for n in pbody["nodes"]["items"]] == ["a", "b"]
    assert r.algorithm == "legacy-v1.12"
    col = next(p for p in r.score_plugins if p.name.startswith("extender:"))
    assert (col.scores["a"].raw, col.scores["a"].normalized, col.scores["a"].weighted) == (7, 7, 14)
    assert col.scores["b"].weighted == 0
    assert r.nodes["c"].reasons == ["busy"]


def test_legacy_extenders_filtering_every_node_give_a_fit_error() -> None:
    with extender({"filter": reject({"a": "busy", "b": "busy", "c": "busy"})}) as srv:
        r = explain([ext(srv.url, filter_verb="filter")], algorithm="legacy-v1.12")
    assert r.fit_error == "0/3 nodes are available: 3 busy."
    assert r.selected_node is None


def test_policy_file_extenders_are_called_by_the_legacy_pipeline(tmp_path: Any) -> None:
    import json

    with extender({"prioritize": lambda body: (200, [{"host": "c", "score": 10}])}) as srv:
        policy = tmp_path / "policy.json"
        policy.write_text(json.dumps({"kind": "Policy", "priorities": [],
                                      "extenders": [{"urlPrefix": srv.url, "prioritizeVerb": "prioritize",
                                                     "weight": 5, "nodeCacheCapable": True}]}))
        opts = engine.Options(policy=str(policy))
        r = engine.explain_object(pod("web", cpu="100m"), "pod.yaml", cluster(), options=opts).steps[0]
    # An extender is configured, so no EqualPriority: the extender alone decides.
    assert [p.name for p in r.score_plugins] == [f"extender:{srv.url}"]
    assert r.totals == {"a": 0, "b": 0, "c": 50} and r.selected_node == "c"
    assert srv.requests[0][1] == {"pod": srv.requests[0][1]["pod"], "nodenames": ["a", "b", "c"]}


def test_ignored_by_scheduler_resources_skip_the_fit_check(tmp_path: Any) -> None:
    cfg = tmp_path / "sched.yaml"
    cfg.write_text(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
        "extenders:\n- urlPrefix: http://127.0.0.1:9/x\n  filterVerb: filter\n"
        "  managedResources: [{name: example.com/widget, ignoredByScheduler: true}]\n"
    )
    p = pod("web", cpu="100m")
    p["spec"]["containers"][0]["resources"]["limits"] = {"example.com/widget": "1"}
    opts = engine.Options(offline=True)
    r = engine.explain_object(p, "pod.yaml", cluster(), options=opts, config=str(cfg)).steps[0]
    # No node offers example.com/widget, yet NodeResourcesFit ignores it as the extender manages it.
    assert sorted(r.feasible_nodes) == ["a", "b", "c"]


def test_extender_settings_from_config_and_policy() -> None:
    cfg = Extender.from_dict({"urlPrefix": "https://e/x", "httpTimeout": "1500ms", "enableHTTPS": True,
                              "managedResources": [{"name": "example.com/a"}], "ignorable": True})
    assert (cfg.timeout, cfg.enable_https, cfg.managed_resources, cfg.ignorable) == (1.5, True, ["example.com/a"], True)
    pol = Extender.from_dict({"urlPrefix": "http://e", "httpTimeout": 2_000_000_000, "enableHttps": True}, "policy")
    assert (pol.timeout, pol.enable_https) == (2.0, True)
    assert Extender.from_dict({"urlPrefix": "http://e"}).timeout == 5.0


def test_node_focus_tells_an_extender_rejection() -> None:
    with extender({"filter": reject({"b": "no licence seat left"})}) as srv:
        opts = engine.Options(extenders=[ext(srv.url, filter_verb="filter")], focus="b")
        r = engine.explain_object(pod("web", cpu="100m"), "pod.yaml", cluster(), options=opts).steps[0]
    assert r.focus is not None
    assert (r.focus.feasible, r.focus.rejected_at) == (False, "Extender")
    assert r.focus.hints[0] == f"extender:{srv.url} filtered it out: no licence seat left"

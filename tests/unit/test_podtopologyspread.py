"""PodTopologySpread: counting, filtering, default constraints and the score arithmetic."""

from __future__ import annotations

import math
from typing import Any

import pytest

from kschedx.core.api.model import PodInfo
from kschedx.core.config.profile import Profile
from kschedx.core.errors import InputError
from kschedx.core.framework.interface import Code, CycleState, Status
from kschedx.core.framework.runtime import Framework
from kschedx.core.plugins import REGISTRY
from kschedx.core.plugins.podtopologyspread import (
    ERR_REASON_CONSTRAINTS_NOT_MATCH,
    ERR_REASON_NODE_LABEL_NOT_MATCH,
    PRE_FILTER_KEY,
    PodTopologySpread,
    PreFilterState,
    go_round,
)
from kschedx.core.snapshot import Snapshot

from .helpers import node, pod, snapshot

Dict = dict[str, Any]
NAME = "PodTopologySpread"
ZONE = "topology.kubernetes.io/zone"
HOST = "kubernetes.io/hostname"


def zoned(name: str, zone: str | None, **kw: Any) -> Dict:
    labels = {ZONE: zone} if zone is not None else {}
    labels.update(kw.pop("labels", {}))
    return node(name, labels=labels, **kw)


def app_pod(name: str, node_name: str | None = None, app: str = "web", **kw: Any) -> Dict:
    labels = {"app": app, **kw.pop("labels", {})}
    return pod(name, node_name=node_name, labels=labels, **kw)


def tsc(key: str = ZONE, skew: int = 1, when: str = "DoNotSchedule", selector: Dict | None = None,
        **extra: Any) -> Dict:
    c: Dict = {"maxSkew": skew, "topologyKey": key, "whenUnsatisfiable": when,
               "labelSelector": {"matchLabels": {"app": "web"}} if selector is None else selector}
    c.update(extra)
    return c


def incoming(*constraints: Dict, labels: Dict | None = None, **spec: Any) -> PodInfo:
    p = pod("in", labels={"app": "web"} if labels is None else labels, **spec)
    if constraints:
        p["spec"]["topologySpreadConstraints"] = list(constraints)
    return PodInfo(p)


def plugin(snap: Snapshot, args: Dict | None = None) -> tuple[Framework, PodTopologySpread]:
    prof = Profile(pre_filter=[NAME], filter=[NAME], pre_score=[NAME], score=[(NAME, 2)],
                   plugin_args={NAME: args} if args is not None else {})
    fw = Framework(prof, snap, REGISTRY)
    pl = fw.plugins.instances[NAME]
    assert isinstance(pl, PodTopologySpread)
    return fw, pl


def run_filter(snap: Snapshot, p: PodInfo, args: Dict | None = None) -> dict[str, Status]:
    _, pl = plugin(snap, args)
    state = CycleState()
    _, st = pl.pre_filter(state, p, snap.nodes())
    assert st.is_success, st
    return {ni.name: pl.filter(state, p, ni) for ni in snap.nodes()}


def run_score(snap: Snapshot, p: PodInfo, args: Dict | None = None,
              feasible: list[str] | None = None) -> tuple[dict[str, int], dict[str, int]] | None:
    _, pl = plugin(snap, args)
    state = CycleState()
    nodes = [ni for ni in snap.nodes() if feasible is None or ni.name in feasible]
    st = pl.pre_score(state, p, nodes)
    if st.is_skip:
        return None
    assert st.is_success, st
    raw = {}
    for ni in nodes:
        s, st = pl.score(state, p, ni)
        assert st.is_success
        raw[ni.name] = s
    norm = dict(raw)
    assert pl.normalize_score(state, p, norm).is_success
    return raw, norm


def verdicts(res: dict[str, Status]) -> dict[str, str]:
    return {n: "ok" if s.is_success else f"{s.code.label}: {s.message}" for n, s in res.items()}


REJECT = f"Unschedulable: {ERR_REASON_CONSTRAINTS_NOT_MATCH}"
MISSING = f"UnschedulableAndUnresolvable: {ERR_REASON_NODE_LABEL_NOT_MATCH}"


# --------------------------------------------------------------------------- hard constraints


def test_max_skew_counts_self_match_and_missing_label() -> None:
    snap = snapshot(
        zoned("a1", "a"), zoned("a2", "a"), zoned("b1", "b"), zoned("nolabel", None),
        app_pod("p1", "a1"), app_pod("p2", "a2"), app_pod("p3", "b1"),
        app_pod("other-app", "b1", app="db"),
        app_pod("other-ns", "b1", namespace="kube-system"),
        app_pod("on-unlabelled", "nolabel"),  # its node has no zone: not in any domain
    )
    res = verdicts(run_filter(snap, incoming(tsc())))
    # zone a: 2 + 1 (self) - min 1 = 2 > 1; zone b: 1 + 1 - 1 = 1.
    assert res == {"a1": REJECT, "a2": REJECT, "b1": "ok", "nolabel": MISSING}
    # A pod its own selector doesn't match adds nothing to the skew: a = 2 - 1 = 1.
    res = verdicts(run_filter(snap, incoming(tsc(), labels={"app": "other"})))
    assert res["a1"] == "ok"
    # maxSkew 2 tolerates zone a.
    assert verdicts(run_filter(snap, incoming(tsc(skew=2))))["a1"] == "ok"


def test_terminating_pods_are_not_counted() -> None:
    gone = app_pod("gone", "a1")
    gone["metadata"]["deletionTimestamp"] = "2025-01-01T00:00:00Z"
    snap = snapshot(zoned("a1", "a"), zoned("b1", "b"), app_pod("p1", "a1"), gone, app_pod("p3", "b1"))
    assert verdicts(run_filter(snap, incoming(tsc())))["a1"] == "ok"


def test_min_domains_forces_global_minimum_to_zero() -> None:
    snap = snapshot(zoned("a1", "a"), zoned("b1", "b"), app_pod("p1", "a1"), app_pod("p2", "b1"))
    # Two domains, each with one pod: skew 1 + 1 - 1 = 1 is fine...
    assert verdicts(run_filter(snap, incoming(tsc()))) == {"a1": "ok", "b1": "ok"}
    # ...but with minDomains 3 the global minimum is 0, so 1 + 1 - 0 = 2 > 1 everywhere.
    assert verdicts(run_filter(snap, incoming(tsc(minDomains=3)))) == {"a1": REJECT, "b1": REJECT}
    assert verdicts(run_filter(snap, incoming(tsc(minDomains=2)))) == {"a1": "ok", "b1": "ok"}


def test_node_affinity_policy() -> None:
    snap = snapshot(
        zoned("a1", "a", labels={"pool": "x"}), zoned("b1", "b", labels={"pool": "x"}),
        zoned("c1", "c", labels={"pool": "y"}),
        app_pod("p1", "a1"), app_pod("p2", "b1"),
    )
    # Honor (default): zone c is outside the pod's nodeSelector, so the minimum is 1.
    honor = verdicts(run_filter(snap, incoming(tsc(), nodeSelector={"pool": "x"})))
    assert honor["a1"] == "ok" and honor["b1"] == "ok"
    # Ignore: the empty zone c counts, minimum 0: 1 + 1 - 0 = 2 > 1.
    ignore = verdicts(run_filter(snap, incoming(tsc(nodeAffinityPolicy="Ignore"), nodeSelector={"pool": "x"})))
    assert ignore["a1"] == REJECT and ignore["b1"] == REJECT and ignore["c1"] == "ok"
    # Required node affinity is honoured the same way as the nodeSelector.
    aff = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "pool", "operator": "In", "values": ["x"]}]}]}}}
    assert verdicts(run_filter(snap, incoming(tsc(), affinity=aff)))["a1"] == "ok"


def test_node_taints_policy() -> None:
    taint = [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]
    snap = snapshot(
        zoned("a1", "a"), zoned("b1", "b"), zoned("c1", "c", taints=taint),
        app_pod("p1", "a1"), app_pod("p2", "b1"),
    )
    # Ignore (default): the tainted, empty zone c is a domain, minimum 0.
    assert verdicts(run_filter(snap, incoming(tsc())))["a1"] == REJECT
    # Honor: zone c's only node has an untolerated taint, so it is no domain; minimum 1.
    assert verdicts(run_filter(snap, incoming(tsc(nodeTaintsPolicy="Honor"))))["a1"] == "ok"
    # Honor with a toleration: zone c counts again.
    tol = [{"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}]
    assert verdicts(run_filter(snap, incoming(tsc(nodeTaintsPolicy="Honor"), tolerations=tol)))["a1"] == REJECT


def test_match_label_keys_narrow_the_selector() -> None:
    snap = snapshot(
        zoned("a1", "a"), zoned("b1", "b"),
        app_pod("old1", "a1", labels={"pod-template-hash": "old"}),
        app_pod("old2", "a1", labels={"pod-template-hash": "old"}),
        app_pod("new1", "b1", labels={"pod-template-hash": "new"}),
    )
    me = {"app": "web", "pod-template-hash": "new"}
    # Without matchLabelKeys the old revision counts: a = 2 + 1 - 1 = 2 > 1.
    assert verdicts(run_filter(snap, incoming(tsc(), labels=me)))["a1"] == REJECT
    # With it only the new revision counts: a = 0 + 1 - 0 = 1, b = 1 + 1 - 0 = 2 > 1.
    res = verdicts(run_filter(snap, incoming(tsc(matchLabelKeys=["pod-template-hash"]), labels=me)))
    assert res == {"a1": "ok", "b1": REJECT}
    # A key the pod doesn't carry is ignored.
    res = verdicts(run_filter(snap, incoming(tsc(matchLabelKeys=["missing"]), labels=me)))
    assert res["a1"] == REJECT


def test_empty_and_nil_selectors() -> None:
    snap = snapshot(zoned("a1", "a"), zoned("b1", "b"), app_pod("p1", "a1"), app_pod("p2", "a1"))
    # `labelSelector: {}` counts no pod in v1.35 but matches the pod itself: skew 1 everywhere.
    assert verdicts(run_filter(snap, incoming(tsc(selector={})))) == {"a1": "ok", "b1": "ok"}
    # No labelSelector matches nothing, not even the pod: skew 0.
    no_sel = tsc()
    del no_sel["labelSelector"]
    assert verdicts(run_filter(snap, incoming(no_sel))) == {"a1": "ok", "b1": "ok"}
    # An explicit selector sees both pods: a = 2 + 1 - 0 = 3 > 1.
    assert verdicts(run_filter(snap, incoming(tsc())))["a1"] == REJECT


def test_pre_filter_skip_and_error() -> None:
    snap = snapshot(zoned("a1", "a"))
    _, pl = plugin(snap)
    _, st = pl.pre_filter(CycleState(), incoming(), snap.nodes())
    assert st.is_skip  # no constraints and the system defaults are soft only
    _, st = pl.pre_filter(CycleState(), incoming(tsc(when="ScheduleAnyway")), snap.nodes())
    assert st.is_skip
    bad = tsc(selector={"matchExpressions": [{"key": "app", "operator": "Bogus"}]})
    _, st = pl.pre_filter(CycleState(), incoming(bad), snap.nodes())
    assert st.code == Code.ERROR


def test_add_and_remove_pod_update_a_cloned_state() -> None:
    snap = snapshot(zoned("a1", "a"), zoned("b1", "b"), app_pod("p1", "a1"), app_pod("p2", "b1"))
    _, pl = plugin(snap)
    p = incoming(tsc())
    state = CycleState()
    pl.pre_filter(state, p, snap.nodes())
    a1, b1 = snap.get("a1"), snap.get("b1")
    assert a1 is not None and b1 is not None
    assert pl.filter(state, p, a1).is_success

    added = state.clone()
    assert pl.add_pod(added, p, PodInfo(app_pod("nom", "a1")), a1).is_success
    s: PreFilterState = added.data[PRE_FILTER_KEY]
    assert s.counts[0] == {"a": 2, "b": 1} and s.min_match(0) == 1
    assert pl.filter(added, p, a1).code == Code.UNSCHEDULABLE
    # The original state is untouched by the clone's update.
    assert state.data[PRE_FILTER_KEY].counts[0] == {"a": 1, "b": 1}
    assert pl.filter(state, p, a1).is_success

    # Pods of other namespaces or not matching the selector change nothing.
    assert pl.add_pod(added, p, PodInfo(app_pod("x", "a1", namespace="other")), a1).is_success
    assert pl.add_pod(added, p, PodInfo(app_pod("y", "a1", app="db")), a1).is_success
    assert s.counts[0] == {"a": 2, "b": 1}

    removed = state.clone()
    assert pl.remove_pod(removed, p, PodInfo(app_pod("p2", "b1")), b1).is_success
    r: PreFilterState = removed.data[PRE_FILTER_KEY]
    assert r.counts[0] == {"a": 1, "b": 0} and r.min_match(0) == 0
    # a = 1 + 1 - 0 = 2 > 1 once b is empty.
    assert pl.filter(removed, p, a1).code == Code.UNSCHEDULABLE
    assert pl.filter(removed, p, b1).is_success


def test_nominated_pods_count_through_the_framework() -> None:
    nominated = app_pod("nom", None)
    nominated["status"]["nominatedNodeName"] = "a1"
    nominated["spec"]["priority"] = 10
    snap = snapshot(zoned("a1", "a"), zoned("b1", "b"), nominated)
    fw, _ = plugin(snap)
    r = fw.run_cycle(incoming(tsc()))
    assert not r.nodes["a1"].feasible and r.nodes["a1"].reasons == [ERR_REASON_CONSTRAINTS_NOT_MATCH]
    assert r.nodes["b1"].feasible


# --------------------------------------------------------------------------- scoring


def test_score_formula_by_hand() -> None:
    snap = snapshot(
        zoned("n1", "a"), zoned("n2", "a"), zoned("n3", "b"),
        app_pod("p1", "n1"), app_pod("p2", "n1"), app_pod("p3", "n3"),
    )
    # Zone only, maxSkew 1: weight ln(2 domains + 2); a = 2 * ln 4 = 2.77 -> 3, b = ln 4 -> 1.
    out = run_score(snap, incoming(tsc(when="ScheduleAnyway")))
    assert out is not None
    raw, norm = out
    assert raw == {"n1": 3, "n2": 3, "n3": 1}
    # 100 * (max + min - s) // max: 100 * 1 // 3 = 33 and 100 * 3 // 3 = 100.
    assert norm == {"n1": 33, "n2": 33, "n3": 100}

    # Plus hostname maxSkew 2 (weight ln(3 nodes + 2), counted per node, + maxSkew-1 = 1).
    out = run_score(snap, incoming(tsc(when="ScheduleAnyway"), tsc(HOST, skew=2, when="ScheduleAnyway")))
    assert out is not None
    raw, norm = out
    w_zone, w_host = math.log(4), math.log(5)
    assert raw == {
        "n1": go_round(2 * w_zone + 2 * w_host + 1),  # 6.99 -> 7
        "n2": go_round(2 * w_zone + 0 * w_host + 1),  # 3.77 -> 4
        "n3": go_round(1 * w_zone + 1 * w_host + 1),  # 3.996 -> 4
    } == {"n1": 7, "n2": 4, "n3": 4}
    assert norm == {"n1": 100 * 4 // 7, "n2": 100, "n3": 100}


def test_score_counts_only_domains_of_feasible_nodes_and_weights_by_them() -> None:
    snap = snapshot(
        zoned("n1", "a"), zoned("n2", "b"), zoned("n3", "c"),
        app_pod("p1", "n1"), app_pod("p2", "n3"), app_pod("p3", "n3"),
    )
    # Only n1 and n2 passed Filter: 2 domains -> weight ln 4; zone c is not counted at all.
    out = run_score(snap, incoming(tsc(when="ScheduleAnyway")), feasible=["n1", "n2"])
    assert out is not None
    assert out[0] == {"n1": go_round(math.log(4)), "n2": 0}
    assert out[1] == {"n1": 0, "n2": 100}


def test_score_nodes_lacking_a_key_are_ignored() -> None:
    snap = snapshot(zoned("n1", "a"), zoned("n2", "b"), zoned("bare", None), app_pod("p1", "n1"))
    out = run_score(snap, incoming(tsc(when="ScheduleAnyway")))
    assert out is not None
    raw, norm = out
    assert raw["bare"] == 0 and norm["bare"] == 0
    assert norm["n2"] == 100 and norm["n1"] == 100 * (1 + 0 - 1) // 1


def test_all_zero_scores_normalize_to_max() -> None:
    snap = snapshot(zoned("n1", "a"), zoned("n2", "b"))
    out = run_score(snap, incoming(tsc(when="ScheduleAnyway")))
    assert out == ({"n1": 0, "n2": 0}, {"n1": 100, "n2": 100})


def test_pre_score_skips_without_soft_constraints() -> None:
    snap = snapshot(zoned("n1", "a"))
    # Own constraints, all hard: no soft ones, and the defaults don't apply.
    assert run_score(snap, incoming(tsc())) is None
    # No constraints and nothing selects the pod: no default spreading either.
    assert run_score(snap, incoming()) is None


def test_system_default_spreading_with_a_service() -> None:
    svc = {"kind": "Service", "metadata": {"name": "web", "namespace": "default"},
           "spec": {"selector": {"app": "web"}}}
    snap = snapshot(
        zoned("n1", "a"), zoned("n2", "a"), zoned("bare", None), svc,
        app_pod("p1", "n1"), app_pod("p2", "n1"), app_pod("p3", "bare"),
        app_pod("db", "n2", app="db"),
    )
    out = run_score(snap, incoming())
    assert out is not None
    raw, norm = out
    # System defaults don't require every key: "bare" (no zone) still gets hostname spreading,
    # and its missing zone is the domain "" for the zone weight (2 domains: "a" and "").
    w_host, w_zone = math.log(3 + 2), math.log(2 + 2)
    assert raw == {
        "n1": go_round(2 * w_host + 2 + 2 * w_zone + 4),
        "n2": go_round(0 * w_host + 2 + 2 * w_zone + 4),
        "bare": go_round(1 * w_host + 2),
    }
    top, low = max(raw.values()), min(raw.values())
    assert norm == {n: 100 * (top + low - v) // top for n, v in raw.items()}
    # A Service in another namespace or selecting other labels gives no default spreading.
    svc2 = {"kind": "Service", "metadata": {"name": "web", "namespace": "other"},
            "spec": {"selector": {"app": "web"}}}
    svc3 = {"kind": "Service", "metadata": {"name": "db", "namespace": "default"},
            "spec": {"selector": {"app": "db"}}}
    assert run_score(snapshot(zoned("n1", "a"), svc2, svc3), incoming()) is None


def test_system_default_spreading_with_a_replicaset() -> None:
    rs = {"apiVersion": "apps/v1", "kind": "ReplicaSet",
          "metadata": {"name": "web-abc", "namespace": "default", "uid": "rs-uid"},
          "spec": {"selector": {"matchLabels": {"app": "web", "pod-template-hash": "abc"}}}}
    me = {"app": "web", "pod-template-hash": "abc"}
    owner = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-abc", "uid": "rs-uid",
              "controller": True}]
    snap = snapshot(
        zoned("n1", "a"), zoned("n2", "b"), rs,
        app_pod("same", "n1", labels={"pod-template-hash": "abc"}),
        app_pod("older", "n2", labels={"pod-template-hash": "old"}),  # not selected by the RS
    )
    p = pod("in", labels=me)
    p["metadata"]["ownerReferences"] = owner
    out = run_score(snap, PodInfo(p))
    assert out is not None
    raw, norm = out
    w_host, w_zone = math.log(2 + 2), math.log(2 + 2)
    assert raw == {"n1": go_round(w_host + 2 + w_zone + 4), "n2": go_round(2 + 4)}
    assert norm["n2"] == 100 and norm["n1"] < 100
    # Owned by a kind the helper doesn't know (e.g. a Job): no selector, no spreading.
    owner[0]["kind"], owner[0]["apiVersion"] = "Job", "batch/v1"
    assert run_score(snap, PodInfo(p)) is None


def test_list_defaulting_uses_the_args_constraints() -> None:
    rs = {"apiVersion": "apps/v1", "kind": "ReplicaSet",
          "metadata": {"name": "web-abc", "namespace": "default"},
          "spec": {"selector": {"matchLabels": {"app": "web"}}}}
    p = pod("in", labels={"app": "web"})
    p["metadata"]["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                                         "name": "web-abc", "controller": True}]
    snap = snapshot(zoned("n1", "a"), zoned("n2", "b"), zoned("bare", None), rs,
                    app_pod("p1", "n1"), app_pod("p2", "n1"))
    args = {"defaultingType": "List", "defaultConstraints": [
        {"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule"},
        {"maxSkew": 2, "topologyKey": ZONE, "whenUnsatisfiable": "ScheduleAnyway"},
    ]}
    # The hard default applies in Filter with the ReplicaSet's selector.
    res = verdicts(run_filter(snap, PodInfo(p), args))
    assert res == {"n1": REJECT, "n2": "ok", "bare": MISSING}
    # The soft one scores; List defaults require every key, so "bare" is ignored.
    out = run_score(snap, PodInfo(p), args)
    assert out is not None
    raw, norm = out
    assert raw == {"n1": go_round(2 * math.log(4) + 1), "n2": 1, "bare": 0}
    assert norm["bare"] == 0 and norm["n2"] == 100
    # An empty List: no default spreading at all.
    assert run_score(snap, PodInfo(p), {"defaultingType": "List"}) is None


def test_args_validation() -> None:
    with pytest.raises(InputError, match="must be empty"):
        plugin(snapshot(), {"defaultConstraints": [{"maxSkew": 1, "topologyKey": ZONE,
                                                    "whenUnsatisfiable": "ScheduleAnyway"}]})
    with pytest.raises(InputError, match="labelSelector"):
        plugin(snapshot(), {"defaultingType": "List", "defaultConstraints": [
            {"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "ScheduleAnyway", "labelSelector": {}}]})
    with pytest.raises(InputError, match="defaultingType"):
        plugin(snapshot(), {"defaultingType": "Sometimes"})


def test_go_round_halves_away_from_zero() -> None:
    assert [go_round(x) for x in (0.5, 1.5, 2.5, 2.4999, 0.49999999999999994)] == [1, 2, 3, 2, 0]

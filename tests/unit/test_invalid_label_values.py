"""Invalid label keys/values in selectors (issue 16, class 4).

Upstream (v1.35.4): every selector requirement is built by apimachinery
``labels.NewRequirement`` (pkg/labels/selector.go), which validates the key
(``content.IsLabelKey``) and each value (``content.IsLabelValue``).
- NodeAffinity: component-helpers scheduling/corev1/nodeaffinity ``newNodeSelectorTerm`` keeps
  the parse errors on the term, ``nodeSelectorTerm.match`` never matches such a term, and the
  plugin's Filter ignores the errors ("for backwards compatibility") -> the node is rejected
  unless another term matches. Preferred terms: ``NewPreferredSchedulingTerms`` fails as a
  whole, so ``NodeAffinity.PreScore`` returns the error.
- InterPodAffinity: ``framework.NewPodInfo`` (pkg/scheduler/framework/types.go
  ``PodInfo.Update``) aggregates the parse errors per term list; ``PreFilter`` (filtering.go)
  rejects the pod UnschedulableAndUnresolvable with "parsing pod: %+v", which the FitError
  carries. Pods already on nodes are added with their failing list left nil.
- An incoming manifest with such a pod (anti-)affinity selector is rejected by the API server
  (pkg/apis/core/validation ``validatePodAffinityTerm`` -> metav1 ``ValidateLabelSelector``):
  input error. Node-affinity values are not label-validated by the API server.
"""

from __future__ import annotations

from typing import Any

import pytest

from kschedx.core.api.model import PodInfo
from kschedx.core.api.objects import ClusterObjects
from kschedx.core.api.selector_errors import aggregate, requirement_errors
from kschedx.core.errors import InputError
from kschedx.core.explain.front import prepare_object

from .helpers import cycle, framework, node, pod, snapshot

Dict = dict[str, Any]
HOST = "kubernetes.io/hostname"
VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "
    "regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)


def required_node_affinity(p: Dict, *terms: list[Dict]) -> Dict:
    p["spec"]["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": t} for t in terms]}}}
    return p


def zoned() -> list[Dict]:
    return [node("a1", labels={"zone": "a"}), node("b1", labels={"zone": "b"})]


def test_node_affinity_term_with_invalid_value_matches_no_node() -> None:
    """nodeaffinity.go newNodeSelectorTerm / nodeSelectorTerm.match; node_affinity.go Filter."""
    bad = required_node_affinity(pod("p"), [{"key": "zone", "operator": "In", "values": ["a", "not valid"]}])
    r = cycle(snapshot(*zoned()), bad)
    assert r.feasible_nodes == []
    assert r.nodes["a1"].plugin == "NodeAffinity"
    assert r.nodes["a1"].reasons == ["node(s) didn't match Pod's node affinity/selector"]
    # Terms are ORed: a valid second term still admits its nodes.
    either = required_node_affinity(pod("p"), [{"key": "zone", "operator": "In", "values": ["a b"]}],
                                    [{"key": "zone", "operator": "In", "values": ["b"]}])
    assert cycle(snapshot(*zoned()), either).feasible_nodes == ["b1"]


def test_node_affinity_gt_value_must_be_a_valid_label_value_too() -> None:
    """labels.NewRequirement checks Gt/Lt values as integers and as label values: "-1" parses
    as an integer but is not a label value, so the term is an error and matches nothing."""
    nodes = [node("a1", labels={"gen": "5"})]
    neg = required_node_affinity(pod("p"), [{"key": "gen", "operator": "Gt", "values": ["-1"]}])
    assert cycle(snapshot(*nodes), neg).feasible_nodes == []
    pos = required_node_affinity(pod("p"), [{"key": "gen", "operator": "Gt", "values": ["1"]}])
    assert cycle(snapshot(*nodes), pos).feasible_nodes == ["a1"]


def test_node_affinity_gt_reads_node_labels_as_go_integers() -> None:
    """selector.go Requirement.Matches: strconv.ParseInt of the node's value; "5_0" is a valid
    label value but not a Go integer, so Gt does not match it."""
    term = [{"key": "gen", "operator": "Gt", "values": ["4"]}]
    nodes = [node("a1", labels={"gen": "5"}), node("b1", labels={"gen": "5_0"})]
    assert cycle(snapshot(*nodes), required_node_affinity(pod("p"), term)).feasible_nodes == ["a1"]


def test_node_affinity_invalid_key_makes_the_term_fail() -> None:
    """labels.NewRequirement validates the key with content.IsLabelKey."""
    bad = required_node_affinity(pod("p"), [{"key": "zone/x/y", "operator": "Exists"}])
    assert cycle(snapshot(*zoned()), bad).feasible_nodes == []


def test_preferred_node_affinity_with_invalid_value_is_a_prescore_error() -> None:
    """nodeaffinity.go NewPreferredSchedulingTerms (errors flattened into one aggregate, terms of
    weight 0 skipped unparsed); node_affinity.go PreScore returns fwk.AsStatus(err)."""
    p = pod("p")
    p["spec"]["affinity"] = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 0, "preference": {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["x y"]}]}},
        {"weight": 5, "preference": {"matchExpressions": [
            {"key": "zone", "operator": "In", "values": ["a b"]},
            {"key": "gen", "operator": "Gt", "values": ["x"]},
        ]}},
    ]}}
    r = cycle(snapshot(*zoned()), p)
    assert r.error == (
        'running PreScore plugin "NodeAffinity": '
        f'[[1].matchExpressions[0].values[0][zone]: Invalid value: "a b": {VALUE_MSG}, '
        """[1].matchExpressions[1].values[0]: Invalid value: "x": for 'Gt', 'Lt' operators, the value must be an integer]"""
    )


def test_requirement_error_text_matches_new_requirement() -> None:
    """selector.go NewRequirement + validateLabelKey/validateLabelValue, field.Error.Error()
    and utilerrors aggregate formatting (one error bare, several in brackets)."""
    assert requirement_errors("app", "=", ["a b"]) == [f'values[0][app]: Invalid value: "a b": {VALUE_MSG}']
    errs = requirement_errors("-k", "in", ["ok", "x" * 64])
    assert errs[0].startswith('key: Invalid value: "-k": name part must consist of alphanumeric characters')
    assert errs[1] == f'values[1][-k]: Invalid value: "{"x" * 64}": must be no more than 63 bytes'
    assert aggregate(errs) == "[" + ", ".join(errs) + "]"
    assert aggregate([errs[0], errs[0]]) == errs[0]


def anti(p: Dict, selector: Dict, kind: str = "podAntiAffinity") -> Dict:
    p["spec"].setdefault("affinity", {})[kind] = {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": selector, "topologyKey": HOST}]}
    return p


def test_interpodaffinity_prefilter_rejects_a_stored_pod_with_an_invalid_selector() -> None:
    """filtering.go PreFilter: NewPodInfo error -> UnschedulableAndUnresolvable "parsing pod: ...",
    the PodInfo.Update wrapping ("requiredAntiAffinityTerms: ...") and the FitError built from
    the PreFilter message."""
    p = anti(pod("stored", labels={"app": "web"}), {"matchLabels": {"app": "a b"}})
    r = framework(snapshot(*zoned())).run_cycle(PodInfo(p))
    reason = f'parsing pod: requiredAntiAffinityTerms: values[0][app]: Invalid value: "a b": {VALUE_MSG}'
    assert r.pre_filter.code == "UnschedulableAndUnresolvable"
    assert r.pre_filter.plugin == "InterPodAffinity"
    assert r.pre_filter.reasons == [reason]
    assert r.fit_error is not None
    assert r.fit_error.startswith(f"0/2 nodes are available: {reason}.")


def test_interpodaffinity_aggregates_errors_of_several_term_lists() -> None:
    """types.go PodInfo.Update: one error per failing list, joined by utilerrors.NewAggregate."""
    p = anti(pod("stored"), {"matchExpressions": [{"key": "app", "operator": "In", "values": ["a b"]}]})
    p = anti(p, {"matchLabels": {"tier": "x/y"}}, kind="podAffinity")
    r = framework(snapshot(*zoned())).run_cycle(PodInfo(p))
    [reason] = r.pre_filter.reasons
    assert reason == (
        "parsing pod: [requiredAffinityTerms: values[0][tier]: Invalid value: \"x/y\": " + VALUE_MSG
        + ", requiredAntiAffinityTerms: values[0][app]: Invalid value: \"a b\": " + VALUE_MSG + "]"
    )


def test_existing_pod_with_invalid_anti_affinity_selector_blocks_nothing() -> None:
    """types.go: NodeInfo adds a pod with ``podInfo, _ := NewPodInfo(pod)``, the failing list
    nil: its required anti-affinity is not enforced, its other terms still are."""
    existing = anti(pod("old", node_name="a1", labels={"app": "web"}), {"matchLabels": {"app": "a b"}})
    r = cycle(snapshot(*zoned(), existing), pod("new", labels={"app": "web"}))
    assert r.feasible_nodes == ["a1", "b1"]
    valid = anti(pod("old", node_name="a1", labels={"app": "web"}), {"matchLabels": {"app": "web"}})
    valid = anti(valid, {"matchLabels": {"x": "bad value"}}, kind="podAffinity")
    r = cycle(snapshot(*zoned(), valid), pod("new", labels={"app": "web"}))
    assert r.feasible_nodes == ["b1"]


def manifest(kind: str, spec_affinity: Dict) -> Dict:
    pod_spec = {"containers": [{"name": "c", "image": "x"}], "affinity": spec_affinity}
    if kind == "Pod":
        return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": pod_spec}
    return {"apiVersion": "apps/v1", "kind": kind, "metadata": {"name": "d"},
            "spec": {"selector": {"matchLabels": {"app": "d"}},
                     "template": {"metadata": {"labels": {"app": "d"}}, "spec": pod_spec}}}


def test_incoming_manifest_with_invalid_affinity_selector_is_an_input_error() -> None:
    """The API server rejects it on create (metav1 validation ValidateLabelSelector with
    AllowInvalidLabelValueInSelector false): field path and message in its words."""
    aff = {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 1, "podAffinityTerm": {"topologyKey": HOST, "labelSelector": {
            "matchExpressions": [{"key": "app", "operator": "In", "values": ["ok", "a b"]}]}}}]}}
    with pytest.raises(InputError) as e:
        prepare_object(manifest("Deployment", aff), "d.yaml", ClusterObjects())
    assert str(e.value) == (
        'd.yaml: Deployment "d" is invalid: spec.template.spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]'
        f'.podAffinityTerm.labelSelector.matchExpressions[0].values[1]: Invalid value: "a b": {VALUE_MSG}'
    )
    aff2 = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"topologyKey": HOST, "labelSelector": {"matchLabels": {"app": "a b"}}}]}}
    with pytest.raises(InputError) as e:
        prepare_object(manifest("Pod", aff2), "p.yaml", ClusterObjects())
    assert str(e.value) == (
        'p.yaml: Pod "p" is invalid: spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]'
        f'.labelSelector.matchLabels: Invalid value: "a b": {VALUE_MSG}'
    )


def test_incoming_manifest_with_invalid_node_affinity_value_is_accepted() -> None:
    """The API server does not label-validate node selector values (ValidateNodeSelectorRequirement)."""
    aff = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a b"]}]}]}}}
    inc = prepare_object(manifest("Pod", aff), "p.yaml", ClusterObjects())
    assert cycle(snapshot(*zoned()), inc.pod).feasible_nodes == []


def test_single_feasible_node_is_bound_despite_a_prescore_error() -> None:
    """schedule_one.go schedulePod: with one feasible node the scheduler returns it without
    running PreScore/Score, so NodeAffinity's preferred-term parse error never surfaces."""
    p = pod("p")
    p["spec"]["affinity"] = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 5, "preference": {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a b"]}]}}]}}
    r = cycle(snapshot(node("a1", labels={"zone": "a"})), p)
    assert r.error is None
    assert r.selected_node == "a1"
    [na] = [ps for ps in r.score_plugins if ps.name == "NodeAffinity"]
    assert na.skipped
    assert any(w.startswith("NodeAffinity PreScore would fail") for w in r.warnings)

import pytest

from kschedx.core.api.selectors import (
    SelectorError,
    Taint,
    Toleration,
    find_untolerated_taint,
    parse_label_selector,
    parse_node_selector,
    parse_node_selector_term,
)


def test_nil_selector_matches_nothing_empty_matches_everything() -> None:
    assert not parse_label_selector(None).matches({"a": "b"})
    assert parse_label_selector({}).matches({"a": "b"})
    assert parse_label_selector({}).empty


def test_match_labels_and_expressions() -> None:
    sel = parse_label_selector(
        {
            "matchLabels": {"app": "web"},
            "matchExpressions": [
                {"key": "tier", "operator": "In", "values": ["fe", "be"]},
                {"key": "canary", "operator": "DoesNotExist"},
                {"key": "env", "operator": "NotIn", "values": ["dev"]},
                {"key": "team", "operator": "Exists"},
            ],
        }
    )
    assert sel.matches({"app": "web", "tier": "fe", "team": "x"})
    assert sel.matches({"app": "web", "tier": "be", "team": "x", "env": "prod"})
    assert not sel.matches({"app": "web", "tier": "fe", "team": "x", "env": "dev"})
    assert not sel.matches({"app": "web", "tier": "fe", "team": "x", "canary": "1"})
    assert not sel.matches({"app": "web", "tier": "fe"})
    assert not sel.matches({"app": "api", "tier": "fe", "team": "x"})


def test_not_in_matches_missing_key() -> None:
    sel = parse_label_selector({"matchExpressions": [{"key": "env", "operator": "NotIn", "values": ["dev"]}]})
    assert sel.matches({})


@pytest.mark.parametrize(
    "expr",
    [
        {"key": "a", "operator": "Bogus", "values": ["x"]},
        {"key": "a", "operator": "In", "values": []},
        {"key": "a", "operator": "Exists", "values": ["x"]},
        {"key": "", "operator": "Exists"},
    ],
)
def test_invalid_label_selectors(expr: dict[str, object]) -> None:
    with pytest.raises(SelectorError):
        parse_label_selector({"matchExpressions": [expr]})


def test_node_selector_gt_lt_and_fields() -> None:
    term = parse_node_selector_term(
        {
            "matchExpressions": [{"key": "cores", "operator": "Gt", "values": ["4"]}],
            "matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}],
        }
    )
    assert term.matches("n1", {"cores": "8"})
    assert not term.matches("n2", {"cores": "8"})
    assert not term.matches("n1", {"cores": "4"})
    assert not term.matches("n1", {"cores": "many"})
    lt = parse_node_selector_term({"matchExpressions": [{"key": "cores", "operator": "Lt", "values": ["4"]}]})
    assert lt.matches("n", {"cores": "2"})
    assert not lt.matches("n", {})


def test_empty_term_matches_nothing_and_terms_are_ored() -> None:
    assert not parse_node_selector_term({}).matches("n", {"a": "b"})
    ns = parse_node_selector(
        {
            "nodeSelectorTerms": [
                {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]},
                {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["b"]}]},
            ]
        }
    )
    assert ns is not None
    assert ns.matches("n", {"zone": "b"})
    assert not ns.matches("n", {"zone": "c"})
    assert parse_node_selector(None) is None
    empty = parse_node_selector({"nodeSelectorTerms": []})
    assert empty is not None and not empty.matches("n", {})


def test_invalid_node_term_never_matches() -> None:
    bad = parse_node_selector_term({"matchExpressions": [{"key": "a", "operator": "Gt", "values": ["x"]}]})
    assert not bad.matches("n", {"a": "5"})


def test_tolerations() -> None:
    taint = Taint("dedicated", "gpu", "NoSchedule")
    assert Toleration("dedicated", "Equal", "gpu", "NoSchedule").tolerates(taint)
    assert Toleration("dedicated", "", "gpu", "").tolerates(taint)
    assert not Toleration("dedicated", "Equal", "cpu", "NoSchedule").tolerates(taint)
    assert Toleration("dedicated", "Exists", "", "").tolerates(taint)
    assert Toleration("", "Exists", "", "").tolerates(taint)
    assert not Toleration("dedicated", "Exists", "", "NoExecute").tolerates(taint)
    assert not Toleration("other", "Exists", "", "").tolerates(taint)
    effects = frozenset({"NoSchedule", "NoExecute"})
    soft = Taint("x", "", "PreferNoSchedule")
    assert find_untolerated_taint([soft, taint], [], effects) == taint
    assert find_untolerated_taint([soft], [], effects) is None

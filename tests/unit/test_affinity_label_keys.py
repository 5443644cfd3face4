"""matchLabelKeys / mismatchLabelKeys of pod (anti-)affinity (issue 16, class 2).

The API server merges them into ``labelSelector`` once, when a pod is created
(kubernetes pkg/registry/core/pod/strategy.go ``PrepareForCreate`` -> ``mutatePodAffinity``
-> ``applyMatchLabelKeysAndMismatchLabelKeys``, which leaves a nil selector nil). The v1.35.4
scheduler never reads the two fields (k8s.io/kube-scheduler framework/types.go ``newAffinityTerm``
uses ``term.LabelSelector`` only), so kschedx merges for the incoming manifest in admission,
idempotently, and takes the pods of the cluster source as stored.
"""

from __future__ import annotations

import copy
from typing import Any

from kschedx.core.api.model import PodInfo
from kschedx.core.load.admission import merge_affinity_label_keys

from .helpers import cycle, node, pod, snapshot

Dict = dict[str, Any]
HOST = "kubernetes.io/hostname"


def anti(p: Dict, **term_extra: Any) -> Dict:
    term = {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": HOST, **term_extra}
    p["spec"]["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}
    return p


def test_merge_appends_in_and_notin_requirements_once() -> None:
    """strategy.go applyLabelKeysToLabelSelector: ``key In (value)`` / ``key NotIn (value)``
    appended to matchExpressions for each key the pod carries; a second pass adds nothing
    (a manifest exported from the cluster already carries the merge)."""
    p = anti(pod("n", labels={"app": "web", "version": "2", "track": "a"}),
             matchLabelKeys=["version", "absent"], mismatchLabelKeys=["track"])
    merge_affinity_label_keys(p)
    once = copy.deepcopy(p)
    merge_affinity_label_keys(p)
    assert p == once
    sel = p["spec"]["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0]["labelSelector"]
    assert sel["matchExpressions"] == [
        {"key": "version", "operator": "In", "values": ["2"]},
        {"key": "track", "operator": "NotIn", "values": ["a"]},
    ]


def test_nil_selector_stays_nil_and_matches_nothing() -> None:
    """strategy.go applyMatchLabelKeysAndMismatchLabelKeys returns early for a nil labelSelector."""
    p = pod("n", labels={"version": "2"})
    term = {"topologyKey": HOST, "matchLabelKeys": ["version"]}
    p["spec"]["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}
    merge_affinity_label_keys(p)
    assert "labelSelector" not in term
    snap = snapshot(node("a1"), pod("v2", node_name="a1", labels={"version": "2"}))
    assert cycle(snap, p).feasible_nodes == ["a1"]


def test_admission_merges_preferred_terms_too() -> None:
    """mutatePodAffinity walks required and preferred terms of both stanzas."""
    p = pod("n", labels={"app": "web", "version": "2"})
    term = {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": HOST, "matchLabelKeys": ["version"]}
    p["spec"]["affinity"] = {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 10, "podAffinityTerm": term}]}}
    merge_affinity_label_keys(p)
    assert term["labelSelector"]["matchExpressions"] == [{"key": "version", "operator": "In", "values": ["2"]}]


def test_stored_pod_selector_is_used_as_it_is() -> None:
    """An existing pod's required anti-affinity (kube-scheduler framework/types.go newAffinityTerm: the stored
    labelSelector only) is not re-merged with its current labels: its matchLabelKeys were
    merged at its creation, so a label changed since does not narrow its selector."""
    # The stored pod was created as version 1 and relabelled to 3 later; its stored selector
    # is app=web (it had no version label when created, so nothing was merged).
    existing = anti(pod("old", node_name="a1", labels={"app": "web", "version": "3"}), matchLabelKeys=["version"])
    snap = snapshot(node("a1"), node("a2"), existing)
    incoming = pod("n", labels={"app": "web", "version": "2"})
    r = cycle(snap, incoming)
    assert r.feasible_nodes == ["a2"]
    assert r.nodes["a1"].plugin == "InterPodAffinity"
    assert r.nodes["a1"].reasons == ["node(s) didn't satisfy existing pods anti-affinity rules"]


def test_pod_info_does_not_merge() -> None:
    """The compiled terms carry the labelSelector alone; matchLabelKeys is the API server's job."""
    p = anti(pod("n", labels={"app": "web", "version": "2"}), matchLabelKeys=["version"])
    [t] = PodInfo(p).pod_terms.required_anti_affinity
    assert t.selector.matches({"app": "web", "version": "1"})

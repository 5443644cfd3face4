"""InterPodAffinity: filters, scores and their edge cases, through the real framework."""

from __future__ import annotations

from typing import Any

import yaml

from kschedx.core.api.model import PodInfo
from kschedx.core.config.profile import configuration_from_dict
from kschedx.core.framework.result import CycleResult
from kschedx.core.framework.runtime import Framework
from kschedx.core.load.admission import merge_affinity_label_keys
from kschedx.core.plugins import REGISTRY
from kschedx.core.plugins.interpodaffinity import ERR_AFFINITY, ERR_ANTI_AFFINITY, ERR_EXISTING_ANTI_AFFINITY
from kschedx.core.snapshot import Snapshot

from .helpers import cycle, node, pod, snapshot

Dict = dict[str, Any]
ZONE = "topology.kubernetes.io/zone"
HOST = "kubernetes.io/hostname"


def term(labels: dict[str, str], key: str = HOST, **extra: Any) -> Dict:
    return {"labelSelector": {"matchLabels": labels}, "topologyKey": key, **extra}


def with_affinity(p: Dict, kind: str, required: list[Dict] | None = None,
                  preferred: list[tuple[int, Dict]] | None = None) -> Dict:
    section: Dict = {}
    if required:
        section["requiredDuringSchedulingIgnoredDuringExecution"] = required
    if preferred:
        section["preferredDuringSchedulingIgnoredDuringExecution"] = [
            {"weight": w, "podAffinityTerm": t} for w, t in preferred]
    p["spec"].setdefault("affinity", {})[kind] = section
    return p


def zones() -> list[Dict]:
    return [node("a1", labels={ZONE: "a"}), node("a2", labels={ZONE: "a"}),
            node("b1", labels={ZONE: "b"}), node("nozone")]


def verdicts(r: CycleResult) -> dict[str, tuple[str | None, list[str]]]:
    return {n: (v.plugin, v.reasons) for n, v in r.nodes.items() if not v.feasible}


def raw(r: CycleResult) -> dict[str, int]:
    [ps] = [p for p in r.score_plugins if p.name == "InterPodAffinity"]
    return {n: s.raw for n, s in ps.scores.items()}


def normalized(r: CycleResult) -> dict[str, int]:
    [ps] = [p for p in r.score_plugins if p.name == "InterPodAffinity"]
    return {n: s.normalized for n, s in ps.scores.items()}


def test_required_affinity_needs_a_matching_pod_in_the_domain_and_the_key() -> None:
    snap = snapshot(*zones(), pod("db", node_name="a1", labels={"app": "db"}))
    incoming = with_affinity(pod("web", labels={"app": "web"}), "podAffinity", [term({"app": "db"}, ZONE)])
    r = cycle(snap, incoming)
    assert r.feasible_nodes == ["a1", "a2"]
    assert verdicts(r)["b1"] == ("InterPodAffinity", [ERR_AFFINITY])
    assert verdicts(r)["nozone"] == ("InterPodAffinity", [ERR_AFFINITY])
    assert r.nodes["b1"].code == "UnschedulableAndUnresolvable"


def test_first_pod_of_a_group_may_go_anywhere_with_the_key() -> None:
    incoming = with_affinity(pod("web-0", labels={"app": "web"}), "podAffinity", [term({"app": "web"}, ZONE)])
    r = cycle(snapshot(*zones()), incoming)
    assert r.feasible_nodes == ["a1", "a2", "b1"]
    assert verdicts(r)["nozone"] == ("InterPodAffinity", [ERR_AFFINITY])
    # A pod not matching its own term gets no such pass.
    other = with_affinity(pod("x", labels={"app": "x"}), "podAffinity", [term({"app": "web"}, ZONE)])
    assert cycle(snapshot(*zones()), other).feasible_nodes == []


def test_required_anti_affinity_and_symmetry() -> None:
    snap = snapshot(*zones(), pod("web-0", node_name="a1", labels={"app": "web"}))
    incoming = with_affinity(pod("web-1", labels={"app": "web"}), "podAntiAffinity", [term({"app": "web"}, ZONE)])
    r = cycle(snap, incoming)
    assert verdicts(r)["a1"] == ("InterPodAffinity", [ERR_ANTI_AFFINITY])
    assert verdicts(r)["a2"] == ("InterPodAffinity", [ERR_ANTI_AFFINITY])
    assert r.nodes["a1"].code == "Unschedulable"
    assert sorted(r.feasible_nodes) == ["b1", "nozone"]
    # Symmetry: the existing pod's anti-affinity keeps a pod without terms of its own away.
    guard = with_affinity(pod("guard", node_name="b1", labels={"app": "guard"}), "podAntiAffinity",
                          [term({"app": "web"}, HOST)])
    r = cycle(snapshot(*zones(), guard), pod("web-2", labels={"app": "web"}))
    assert verdicts(r) == {"b1": ("InterPodAffinity", [ERR_EXISTING_ANTI_AFFINITY])}


def test_namespaces_and_namespace_selector() -> None:
    ns = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": n, "labels": {"team": t}}}
          for n, t in (("prod", "shop"), ("dev", "shop"), ("other", "infra"))]
    existing = [pod("db-prod", namespace="prod", node_name="a1", labels={"app": "db"}),
                pod("db-other", namespace="other", node_name="b1", labels={"app": "db"})]
    # Default: the pod's own namespace only (none of its namespace's pods is a db).
    plain = with_affinity(pod("w", namespace="dev", labels={"app": "w"}), "podAntiAffinity", [term({"app": "db"})])
    assert cycle(snapshot(*zones(), *ns, *existing), plain).feasible_nodes == ["a1", "a2", "b1", "nozone"]
    # A namespace selector picks namespaces by their labels.
    sel = with_affinity(pod("w", namespace="dev", labels={"app": "w"}), "podAntiAffinity",
                        [term({"app": "db"}, namespaceSelector={"matchLabels": {"team": "shop"}})])
    assert verdicts(cycle(snapshot(*zones(), *ns, *existing), sel)) == {"a1": ("InterPodAffinity", [ERR_ANTI_AFFINITY])}
    # An empty namespace selector selects every namespace.
    every = with_affinity(pod("w", namespace="dev", labels={"app": "w"}), "podAntiAffinity",
                          [term({"app": "db"}, namespaceSelector={})])
    assert set(verdicts(cycle(snapshot(*zones(), *ns, *existing), every))) == {"a1", "b1"}
    # Explicit namespaces.
    listed = with_affinity(pod("w", namespace="dev", labels={"app": "w"}), "podAntiAffinity",
                           [term({"app": "db"}, namespaces=["other"])])
    assert set(verdicts(cycle(snapshot(*zones(), *ns, *existing), listed))) == {"b1"}


def test_match_and_mismatch_label_keys() -> None:
    """The incoming manifest gets the API server's merge (pod strategy mutatePodAffinity)."""
    existing = [pod("v1", node_name="a1", labels={"app": "web", "version": "1"}),
                pod("v2", node_name="b1", labels={"app": "web", "version": "2"})]
    same = with_affinity(pod("n", labels={"app": "web", "version": "2"}), "podAntiAffinity",
                         [term({"app": "web"}, HOST, matchLabelKeys=["version"])])
    merge_affinity_label_keys(same)
    assert set(verdicts(cycle(snapshot(*zones(), *existing), same))) == {"b1"}
    other = with_affinity(pod("n", labels={"app": "web", "version": "2"}), "podAntiAffinity",
                          [term({"app": "web"}, HOST, mismatchLabelKeys=["version"])])
    merge_affinity_label_keys(other)
    assert set(verdicts(cycle(snapshot(*zones(), *existing), other))) == {"a1"}


def test_preferred_terms_and_min_max_normalization() -> None:
    existing = [pod("db", node_name="a1", labels={"app": "db"}), pod("cache", node_name="b1", labels={"app": "cache"})]
    incoming = with_affinity(pod("w", labels={"app": "w"}), "podAffinity", preferred=[(80, term({"app": "db"}, ZONE))])
    incoming = with_affinity(incoming, "podAntiAffinity", preferred=[(30, term({"app": "cache"}, ZONE))])
    r = cycle(snapshot(*zones(), *existing), incoming)
    assert raw(r) == {"a1": 80, "a2": 80, "b1": -30, "nozone": 0}
    # (score - min) / (max - min) * 100, truncated.
    assert normalized(r) == {"a1": 100, "a2": 100, "b1": 0, "nozone": 27}


def run_with(config: str, snap: Snapshot, incoming: Dict) -> CycleResult:
    header = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration"}
    loaded = configuration_from_dict({**header, **yaml.safe_load(config)}, REGISTRY)
    return Framework(loaded.profiles["default-scheduler"], snap, REGISTRY).run_cycle(PodInfo(incoming))


def test_existing_pods_terms_hard_weight_and_ignoring_their_preferences() -> None:
    hard = with_affinity(pod("h", node_name="a1", labels={"app": "h"}), "podAffinity", [term({"app": "w"}, ZONE)])
    soft = with_affinity(pod("s", node_name="b1", labels={"app": "s"}), "podAffinity",
                         preferred=[(7, term({"app": "w"}, ZONE))])
    snap = snapshot(*zones(), hard, soft)
    incoming = pod("w", labels={"app": "w"})
    assert raw(cycle(snap, incoming)) == {"a1": 1, "a2": 1, "b1": 7, "nozone": 0}
    args = """
profiles:
- pluginConfig:
  - name: InterPodAffinity
    args: {hardPodAffinityWeight: 5}
"""
    assert raw(run_with(args, snap, incoming)) == {"a1": 5, "a2": 5, "b1": 7, "nozone": 0}
    ignore = """
profiles:
- pluginConfig:
  - name: InterPodAffinity
    args: {ignorePreferredTermsOfExistingPods: true}
"""
    # Without preferred terms of its own the incoming pod skips scoring altogether.
    r = run_with(ignore, snap, incoming)
    assert next(p for p in r.score_plugins if p.name == "InterPodAffinity").skipped


def test_prefilter_and_prescore_skip_when_nothing_applies() -> None:
    r = cycle(snapshot(*zones(), pod("x", node_name="a1", labels={"app": "x"})), pod("w", labels={"app": "w"}))
    assert "InterPodAffinity" in r.pre_filter.skipped_plugins
    assert next(p for p in r.score_plugins if p.name == "InterPodAffinity").skipped


def test_nominated_and_preemption_use_add_and_remove_pod() -> None:
    # A lower-priority pod with anti-affinity against the incoming pod blocks its node;
    # preemption evicts it (RemovePod lifts the count) and nominates the node.
    guard = with_affinity(pod("guard", cpu="100m", node_name="a1", labels={"app": "guard"}), "podAntiAffinity",
                          [term({"app": "web"}, HOST)])
    snap = snapshot(node("a1", labels={ZONE: "a"}), guard)
    incoming = pod("web", cpu="100m", labels={"app": "web"}, priority=1000)
    r = cycle(snap, incoming)
    assert r.selected_node is None
    assert r.preemption is not None and r.preemption.nominated_node == "a1"
    assert r.preemption.victims == ["default/guard"]

"""OpportunisticBatching (KEP-5598; beta and on by default from v1.35): when it would apply.

v1.35.4's scheduler (framework/runtime/batch.go, schedule_one.go) keeps, after a full
cycle, the score-sorted list of the other feasible nodes together with the pod's
signature. The next pod takes the head of that list as a hint, checks only that node's
filters and binds it there without scoring, when all of this holds:

* the profile can sign pods: no extenders, and every PreFilter, Filter, PreScore and Score
  plugin implements SignPod (all in-tree plugins do);
* the pod is signable: no pod (anti-)affinity (InterPodAffinity), no topology spread
  constraints and no default constraints in PodTopologySpread's args (the default
  ``defaultingType: System`` has two, so the default profile never batches), no DRA
  resource claims (DynamicResources);
* its signature equals the previous pod's: copies of one template do, except a
  StatefulSet's, whose pod-name and pod-index labels and claims differ per pod;
* it is the very next scheduling cycle after the previous pod's, which succeeded, within
  500 ms of the list being stored;
* the node chosen for the previous pod now rejects this pod (one pod per node): else the
  stored scores cannot be reused;
* the hinted node passes this pod's filters (else a full cycle runs and its list replaces
  the stored one).

The cycle-order and 500 ms conditions depend on the live queue and clock, so kschedx runs
a full cycle for every copy and, where the rest holds, says which node the batched path
would take (the list order stands in for the scheduler's random tie-break by name).
"""

from __future__ import annotations

from typing import Any

from kschedx.core.config.profile import Profile
from kschedx.core.framework.result import CycleResult
from kschedx.core.versions import SchedulerVersion, baseline

# The in-tree plugins of v1.35.4 that implement SignPlugin.
SIGNABLE_PLUGINS = frozenset({
    "DynamicResources", "ImageLocality", "InterPodAffinity", "NodeAffinity", "NodeDeclaredFeatures", "NodeName",
    "NodePorts", "NodeResourcesBalancedAllocation", "NodeResourcesFit", "NodeUnschedulable", "NodeVolumeLimits",
    "PodTopologySpread", "TaintToleration", "VolumeBinding", "VolumeRestrictions", "VolumeZone",
})

GATE = "OpportunisticBatching"
_FEATURE = "OpportunisticBatching (KEP-5598, beta, on by default in v1.35)"


def batching_on(version: SchedulerVersion | None) -> bool:
    """Whether the chosen release runs OpportunisticBatching: its gate exists from v1.35
    (on by default) and --feature-gates may turn it off. A release without it (v1.33,
    v1.34) gets no note about it at all."""
    return (version or baseline()).enabled(GATE)


def unsignable_reason(profile: Profile, pod: dict[str, Any], extenders: bool) -> str | None:
    """Why v1.35.4 cannot sign ``pod`` under ``profile`` (None: it can)."""
    if extenders:
        return "the profile has extenders configured"
    points = {*profile.pre_filter, *profile.filter, *profile.pre_score, *(n for n, _ in profile.score)}
    missing = sorted(points - SIGNABLE_PLUGINS)
    if missing:
        return f"plugin(s) {', '.join(missing)} cannot sign pods"
    spec = pod.get("spec") or {}
    aff = spec.get("affinity") or {}
    if "DynamicResources" in points and spec.get("resourceClaims"):
        return "DynamicResources: pods with dra resource claims are not signable"
    if "InterPodAffinity" in points and (aff.get("podAffinity") or aff.get("podAntiAffinity")):
        return "InterPodAffinity: pods with InterPodAffinity are not signable"
    if "PodTopologySpread" in points:
        if spec.get("topologySpreadConstraints"):
            return "PodTopologySpread: pods with topology constraints are not signable"
        args = profile.plugin_args.get("PodTopologySpread") or {}
        if args.get("defaultingType", "System") == "System" or args.get("defaultConstraints"):
            return "PodTopologySpread: pods with default topology constraints are not signable"
    return None


def _sorted_rest(step: CycleResult) -> list[str]:
    feasible = [n for n, total in step.totals.items() if step.nodes.get(n) is not None and step.nodes[n].feasible]
    ranked = sorted(feasible, key=lambda n: (-step.totals[n], n))
    return [n for n in ranked if n != step.selected_node]


def annotate_replicas(steps: list[CycleResult], profile: Profile, pod: dict[str, Any], extenders: bool,
                      source_kind: str = "Pod") -> None:
    """Note on the first copy whether batching can apply; warn on each copy the batched path
    would place without a full cycle, naming the node it would take."""
    if len(steps) < 2:
        return
    reason = unsignable_reason(profile, pod, extenders)
    if reason is None and source_kind == "StatefulSet":
        # Every StatefulSet pod has its own pod-name and pod-index labels and its own claims,
        # so consecutive pods never share a signature (InterPodAffinity signs the labels,
        # the volume plugins the volumes).
        reason = "each StatefulSet pod has its own labels and claims, so no two share a signature"
    if reason is not None:
        steps[0].notes.append(f"{_FEATURE} does not apply to these copies: {reason}")
        return
    steps[0].notes.append(
        f"{_FEATURE} applies to these copies: a copy scheduled in the cycle right after the previous one "
        "(within 500 ms) skips the full cycle when the previous copy's node no longer fits it; kschedx runs "
        "full cycles and warns where the batched path would differ"
    )
    stored: list[str] = []
    for i, step in enumerate(steps):
        prev = steps[i - 1] if i else None
        if prev is not None and prev.selected_node is not None and stored:
            verdict = step.nodes.get(prev.selected_node)
            if verdict is not None and not verdict.feasible:
                hint = stored.pop(0)
                hinted = step.nodes.get(hint)
                if hinted is not None and hinted.feasible:
                    if hint == step.selected_node:
                        step.notes.append(f"{_FEATURE}: copy {i}: the batched path would also bind {hint} (the next "
                                          "node of the previous copy's score list), without scoring")
                    else:
                        step.warnings.append(
                            f"{_FEATURE}: copy {i}: {prev.selected_node} (copy {i - 1}'s node) no longer fits it, "
                            "so in consecutive cycles "
                            f"the real scheduler would bind {hint} (the next node of the previous copy's score "
                            f"list) without scoring; a full cycle picks {step.selected_node}"
                        )
                    continue  # the stored list carries on to the next copy
        if step.selected_node is None or step.single_feasible_node:
            stored = []
        else:
            stored = _sorted_rest(step)

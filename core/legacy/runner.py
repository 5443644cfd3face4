"""One v1.12 scheduling attempt: filter, extender filters, priority functions (map, then
reduce), extender prioritize, totals.

Filtering reuses the v1.35 filter plugins of the selected profile (or, with a Policy's
predicates list, the plugins standing in for those predicates); v1.12 had no PreScore /
Score plugins, no scheduling gates and no preemption step in this explanation.
"""

from __future__ import annotations

from dataclasses import replace

from kschedx.core.api.model import PodInfo
from kschedx.core.config.profile import Profile
from kschedx.core.framework.extenders import WIRE_V112, Extender, run_extender_filters, run_extender_prioritize
from kschedx.core.framework.interface import Code, NodeStatusMap, Status, fit_error_message
from kschedx.core.framework.result import CycleResult, NodeScore, PluginScores
from kschedx.core.framework.runtime import Framework
from kschedx.core.legacy import ALGORITHM, MAX_PRIORITY
from kschedx.core.legacy.base import PriorityError, PriorityFunction
from kschedx.core.legacy.equal import EqualPriority
from kschedx.core.legacy.meta import Meta
from kschedx.core.legacy.policy import Policy
from kschedx.core.legacy.registry import default_priorities
from kschedx.core.plugins import REGISTRY
from kschedx.core.snapshot import Snapshot

V112_PERCENTAGE_OF_NODES_TO_SCORE = 50


def filter_profile(profile: Profile, policy: Policy | None) -> Profile:
    """The profile's PreFilter and Filter plugins only (narrowed to the Policy's
    predicates when it lists them)."""
    keep = policy.filter_plugins() if policy is not None else None

    def pick(names: list[str]) -> list[str]:
        return list(names) if keep is None else [n for n in names if n in keep]

    return replace(
        profile,
        pre_enqueue=[],
        pre_filter=pick(profile.pre_filter),
        filter=pick(profile.filter),
        post_filter=[],
        pre_score=[],
        score=[],
    )


def run_priorities(
    priorities: list[PriorityFunction], meta: Meta, nodes: list[str]
) -> tuple[list[PluginScores], dict[str, int]]:
    """Each priority's map and reduce over ``nodes``; (columns, weighted totals)."""
    infos = [ni for ni in (meta.snapshot.get(n) for n in nodes) if ni is not None]
    totals = {ni.name: 0 for ni in infos}
    columns: list[PluginScores] = []
    for pf in priorities:
        raw, reduced = pf.run(meta, infos)
        col = PluginScores(pf.name, pf.weight, False)
        for ni in infos:
            r, v = raw[ni.name], reduced[ni.name]
            col.scores[ni.name] = NodeScore(r, v, v * pf.weight)
            totals[ni.name] += v * pf.weight
        columns.append(col)
    return columns, totals


def run_legacy(
    snapshot: Snapshot,
    pod: PodInfo,
    profile: Profile,
    policy: Policy | None,
    extenders: list[Extender],
    *,
    all_reasons: bool = False,
    extenders_configured: bool | None = None,
) -> CycleResult:
    """``extenders_configured``: whether any extender is configured at all (with --offline
    none is called, yet their presence still rules out the EqualPriority fallback)."""
    if extenders_configured is None:
        extenders_configured = bool(extenders)
    fprofile = filter_profile(profile, policy)
    fw = Framework(fprofile, snapshot, REGISTRY)
    fw.nominated_node_first = False  # v1.12's generic scheduler had no such shortcut
    result = fw.run_cycle(pod, all_reasons=all_reasons, run_post_filter=False)
    result.algorithm = ALGORITHM
    # v1.12 stopped filtering after max(50 % of the nodes, 100) feasible ones (from 100 nodes on).
    n = result.num_all_nodes
    result.num_feasible_nodes_to_find = n if n < 100 else max(n * V112_PERCENTAGE_OF_NODES_TO_SCORE // 100, 100)
    result.score_plugins = []
    result.totals = {}
    result.best_nodes = []
    result.selected_node = None
    filters = list(dict.fromkeys(fprofile.pre_filter + fprofile.filter))
    result.notes.append(
        "legacy v1.12 pipeline: v1.12 priority functions (map/reduce, 0-10 × weight); filtering by today's "
        f"v1.35 filter plugins ({', '.join(filters) or 'none: every node passes'})"
    )
    if policy is not None:
        result.notes.append(f"Policy {policy.path}")
        result.warnings.extend(policy.warnings)
    if result.error is not None:
        return result

    feasible_infos = [ni for ni in snapshot.nodes() if result.nodes.get(ni.name) and result.nodes[ni.name].feasible]
    if feasible_infos and extenders:
        passed = run_extender_filters(extenders, pod, feasible_infos, result, None, WIRE_V112)
        if passed is None:
            return result
        if len(passed) != len(feasible_infos):
            feasible_infos = passed
            if not feasible_infos:
                # The FitError counts every rejected node's reasons, the extenders' included.
                statuses = NodeStatusMap()
                for name, v in result.nodes.items():
                    if not v.feasible:
                        code = Code.UNSCHEDULABLE_AND_UNRESOLVABLE if v.code == "UnschedulableAndUnresolvable" \
                            else Code.UNSCHEDULABLE
                        statuses.statuses[name] = Status(code, list(v.reasons), v.plugin or "")
                result.fit_error = fit_error_message(result.num_all_nodes, "", statuses, "")
                result.fit_error_before_post_filter = result.fit_error
    if not feasible_infos:
        result.single_feasible_node = False
        return result
    result.fit_error = None
    result.fit_error_before_post_filter = None
    result.single_feasible_node = len(feasible_infos) == 1

    priorities = policy.priorities if policy is not None and policy.priorities is not None else default_priorities()
    if not priorities and not extenders_configured:
        priorities = [EqualPriority("EqualPriority", 1)]
        result.notes.append("no priority function and no extender configured: EqualPriority scores every node 1")
    meta = Meta(pod, snapshot, policy.hard_pod_affinity_weight if policy is not None else 1)
    names = [ni.name for ni in feasible_infos]
    try:
        columns, totals = run_priorities(priorities, meta, names)
    except PriorityError as e:
        result.error = f"running priority functions: {e}"
        return result
    result.score_plugins = columns
    if extenders:
        run_extender_prioritize(extenders, pod, feasible_infos, result, totals, WIRE_V112, 1)
    result.totals = totals
    best = max(totals.values())
    result.best_nodes = sorted(n for n, t in totals.items() if t == best)
    result.selected_node = result.best_nodes[0]
    return result


__all__ = ["MAX_PRIORITY", "filter_profile", "run_legacy", "run_priorities"]

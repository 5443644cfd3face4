"""Scheduler profiles: which plugins run at each extension point, with weights and args.

Without a configuration file the v1.35 default profile applies: the default plugins are
enabled through ``multiPoint`` in upstream order, so each plugin joins every extension
point it implements.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

DEFAULT_SCHEDULER_NAME = "default-scheduler"

# (name, score weight) in the order of the v1.35 default multiPoint list.
DEFAULT_MULTIPOINT: list[tuple[str, int]] = [
    ("SchedulingGates", 0),
    ("PrioritySort", 0),
    ("NodeUnschedulable", 0),
    ("NodeName", 0),
    ("TaintToleration", 3),
    ("NodeAffinity", 2),
    ("NodePorts", 0),
    ("NodeResourcesFit", 1),
    ("VolumeRestrictions", 0),
    ("NodeVolumeLimits", 0),
    ("VolumeBinding", 1),
    ("VolumeZone", 0),
    ("PodTopologySpread", 2),
    ("InterPodAffinity", 2),
    ("DynamicResources", 2),
    ("DefaultPreemption", 0),
    ("NodeResourcesBalancedAllocation", 1),
    ("ImageLocality", 1),
    ("DefaultBinder", 0),
]

EXTENSION_POINTS = {
    "preEnqueue": "pre_enqueue",
    "preFilter": "pre_filter",
    "filter": "filter",
    "postFilter": "post_filter",
    "preScore": "pre_score",
    "score": "score",
}


@dataclass
class Profile:
    scheduler_name: str = DEFAULT_SCHEDULER_NAME
    pre_enqueue: list[str] = field(default_factory=list)
    pre_filter: list[str] = field(default_factory=list)
    filter: list[str] = field(default_factory=list)
    post_filter: list[str] = field(default_factory=list)
    pre_score: list[str] = field(default_factory=list)
    score: list[tuple[str, int]] = field(default_factory=list)
    plugin_args: dict[str, dict[str, Any]] = field(default_factory=dict)
    percentage_of_nodes_to_score: int | None = None


def profile_from_multipoint(
    multipoint: list[tuple[str, int]],
    registry: dict[str, Any],
    scheduler_name: str = DEFAULT_SCHEDULER_NAME,
    plugin_args: dict[str, dict[str, Any]] | None = None,
) -> Profile:
    """Enable each plugin at every extension point it implements, keeping list order."""
    p = Profile(scheduler_name=scheduler_name, plugin_args=dict(plugin_args or {}))
    for name, weight in multipoint:
        cls = registry.get(name)
        if cls is None:
            continue  # plugins with nothing to evaluate offline (PrioritySort, DefaultBinder)
        if hasattr(cls, "pre_enqueue"):
            p.pre_enqueue.append(name)
        if hasattr(cls, "pre_filter"):
            p.pre_filter.append(name)
        if hasattr(cls, "filter"):
            p.filter.append(name)
        if hasattr(cls, "post_filter"):
            p.post_filter.append(name)
        if hasattr(cls, "pre_score"):
            p.pre_score.append(name)
        if hasattr(cls, "score"):
            p.score.append((name, weight or 1))
    return p


def default_profile(registry: dict[str, Any], scheduler_name: str = DEFAULT_SCHEDULER_NAME) -> Profile:
    return profile_from_multipoint(DEFAULT_MULTIPOINT, registry, scheduler_name)


def load_config_file(path: str, registry: dict[str, Any]) -> dict[str, Profile]:
    """Profiles of a KubeSchedulerConfiguration file (full merging rules: see issue 5)."""
    from kschedx.core.errors import InputError
    from kschedx.core.load.files import load_objects

    docs = load_objects(path)
    if len(docs) != 1 or docs[0][0].get("kind") != "KubeSchedulerConfiguration":
        raise InputError("expected one KubeSchedulerConfiguration document", path=path)
    cfg = docs[0][0]
    profiles: dict[str, Profile] = {}
    for prof in cfg.get("profiles") or [{}]:
        name = prof.get("schedulerName") or DEFAULT_SCHEDULER_NAME
        args = {pc["name"]: dict(pc.get("args") or {}) for pc in prof.get("pluginConfig") or []}
        p = profile_from_multipoint(DEFAULT_MULTIPOINT, registry, name, args)
        profiles[name] = p
    return profiles

"""Defaulting of a KubeSchedulerConfiguration (v1), as kube-scheduler v1.35 applies it on load.

Three things happen before validation: the configuration's own fields get their defaults,
each profile's ``plugins`` is merged into the default plugin set (``mergePlugins``), and
every typed plugin args object gets its per-plugin defaults.  Everything works on plain
dicts with upstream's field names, so the defaulted args can be handed to the plugins as is.
"""

from __future__ import annotations

import copy
from typing import Any

from kschedx.core.config.validation import PLUGIN_SET_FIELDS
from kschedx.core.config.versions import has_typed_args_in
from kschedx.core.versions import SchedulerVersion, baseline

Dict = dict[str, Any]

DEFAULT_SCHEDULER_NAME = "default-scheduler"

# (name, score weight or None) in the order of v1.35's default multiPoint list, with the
# feature-gated plugins that are on by default in v1.35 (SchedulingGates, DynamicResources)
# already in place.
DEFAULT_MULTIPOINT_PLUGINS: tuple[tuple[str, int | None], ...] = (
    ("SchedulingGates", None),
    ("PrioritySort", None),
    ("NodeUnschedulable", None),
    ("NodeName", None),
    ("TaintToleration", 3),
    ("NodeAffinity", 2),
    ("NodePorts", None),
    ("NodeResourcesFit", 1),
    ("VolumeRestrictions", None),
    ("NodeVolumeLimits", None),
    ("VolumeBinding", None),
    ("VolumeZone", None),
    ("PodTopologySpread", 2),
    ("InterPodAffinity", 2),
    ("DynamicResources", 2),
    ("DefaultPreemption", None),
    ("NodeResourcesBalancedAllocation", 1),
    ("ImageLocality", 1),
    ("DefaultBinder", None),
)


def default_plugins(version: SchedulerVersion | None = None) -> Dict:
    """The default ``plugins`` of ``version`` (v1.35 without one): everything enabled
    through ``multiPoint``."""
    version = version or baseline()
    enabled = []
    for name, weight in DEFAULT_MULTIPOINT_PLUGINS:
        if name == "DynamicResources" and not version.enabled("DynamicResourceAllocation"):
            # Added to the defaults only with the DynamicResourceAllocation gate, off by
            # default until v1.34 (KEP-4381, structured parameters GA in v1.34).
            continue
        p: Dict = {"name": name}
        if weight is not None and not (name == "DynamicResources" and not version.at_least(35)):
            # DynamicResources has a default weight from v1.35, when it got its Score (the
            # prioritized-list scoring, kubernetes#134711); before it had none.
            p["weight"] = weight
        enabled.append(p)
    for gate, name in (("NodeDeclaredFeatures", "NodeDeclaredFeatures"), ("GangScheduling", "GangScheduling")):
        # Alpha plugins appended to the defaults when their gate is switched on (v1.35+).
        if version.enabled(gate) and name in _KNOWN_ALPHA_PLUGINS:
            enabled.append({"name": name})
    return {"multiPoint": {"enabled": enabled}}


_KNOWN_ALPHA_PLUGINS = frozenset({"NodeDeclaredFeatures", "GangScheduling"})


# --------------------------------------------------------------------------- merging


def merge_plugin_set(default: Dict, custom: Dict) -> Dict:
    """``mergePluginSet``: drop disabled defaults (all of them with ``*``), replace a default
    the user re-enabled in place (keeping the default's position, taking the user's entry
    with its weight), then append the user's other plugins in their order.  Duplicates the
    user listed are kept: the framework rejects them later."""
    disabled: list[Dict] = []
    disabled_names: set[str] = set()
    for p in list(custom.get("disabled") or []) + list(default.get("disabled") or []):
        disabled.append({"name": p.get("name")})
        disabled_names.add(str(p.get("name")))
    custom_enabled: list[Dict] = list(custom.get("enabled") or [])
    by_name: dict[str, tuple[int, Dict]] = {}
    for i, p in enumerate(custom_enabled):
        by_name[str(p.get("name"))] = (i, p)  # the last occurrence wins, as in upstream's map
    replaced: set[int] = set()
    enabled: list[Dict] = []
    if "*" not in disabled_names:
        for p in default.get("enabled") or []:
            name = str(p.get("name"))
            if name in disabled_names:
                continue
            if name in by_name:
                i, cp = by_name[name]
                p = cp
                replaced.add(i)
            enabled.append(dict(p))
    for i, p in enumerate(custom_enabled):
        if i not in replaced:
            enabled.append(dict(p))
    out: Dict = {"enabled": enabled}
    if disabled:
        out["disabled"] = disabled
    return out


def merge_plugins(default: Dict, custom: Dict | None) -> Dict:
    """``mergePlugins``: merge every extension point's set, multiPoint included."""
    if custom is None:
        return default
    merged: Dict = {}
    for point in PLUGIN_SET_FIELDS:
        merged[point] = merge_plugin_set(default.get(point) or {}, custom.get(point) or {})
    return merged


# --------------------------------------------------------------------------- plugin args


def _default_resources() -> list[Dict]:
    return [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]


def _default_fit(a: Dict) -> None:
    if a.get("scoringStrategy") is None:
        a["scoringStrategy"] = {"type": "LeastAllocated", "resources": _default_resources()}
    strategy = a["scoringStrategy"]
    if not strategy.get("resources"):
        strategy["resources"] = _default_resources()
    for r in strategy["resources"]:
        if not r.get("weight"):
            r["weight"] = 1


def _default_balanced(a: Dict) -> None:
    if not a.get("resources"):
        a["resources"] = _default_resources()
        return
    for r in a["resources"]:
        if not r.get("weight"):
            r["weight"] = 1


def _default_spread(a: Dict) -> None:
    if not a.get("defaultingType"):
        a["defaultingType"] = "System"


def _default_inter_pod_affinity(a: Dict) -> None:
    # A pointer upstream: an explicit 0 stays 0, only a missing value becomes 1.
    if a.get("hardPodAffinityWeight") is None:
        a["hardPodAffinityWeight"] = 1


def _default_volume_binding(a: Dict) -> None:
    if a.get("bindTimeoutSeconds") is None:
        a["bindTimeoutSeconds"] = 600
    # The shape is defaulted only with the StorageCapacityScoring gate, alpha (off) in v1.35.


def _default_preemption(a: Dict) -> None:
    if a.get("minCandidateNodesPercentage") is None:
        a["minCandidateNodesPercentage"] = 10
    if a.get("minCandidateNodesAbsolute") is None:
        a["minCandidateNodesAbsolute"] = 100


def _default_dynamic_resources(a: Dict) -> None:
    if a.get("filterTimeout") is None:
        a["filterTimeout"] = "10s"


ARGS_DEFAULTERS = {
    "NodeResourcesFit": _default_fit,
    "NodeResourcesBalancedAllocation": _default_balanced,
    "PodTopologySpread": _default_spread,
    "InterPodAffinity": _default_inter_pod_affinity,
    "NodeAffinity": lambda a: None,
    "VolumeBinding": _default_volume_binding,
    "DefaultPreemption": _default_preemption,
    "DynamicResources": _default_dynamic_resources,
}


def default_args(name: str, args: Dict | None, version: SchedulerVersion | None = None) -> Dict:
    """A plugin's args with its defaults applied (a copy; ``apiVersion``/``kind`` dropped),
    as ``version`` (v1.35 without one) defaults them."""
    # A null field is an unset pointer upstream, so it gets the default like a missing one.
    a = {k: v for k, v in copy.deepcopy(args or {}).items() if k not in ("apiVersion", "kind") and v is not None}
    fn = ARGS_DEFAULTERS.get(name)
    if fn is not None:
        fn(a)
    if name == "VolumeBinding" and version is not None and version.enabled("StorageCapacityScoring") \
            and not a.get("shape"):
        a["shape"] = [{"utilization": 0, "score": 10}, {"utilization": 100, "score": 0}]
    if name == "DynamicResources" and version is not None:
        from kschedx.core.config.versions import default_dynamic_resources_args

        default_dynamic_resources_args(a, args or {}, version)
    return a


def has_typed_args(name: str) -> bool:
    return name in ARGS_DEFAULTERS


# --------------------------------------------------------------------------- the configuration


def _default_profile(prof: Dict, version: SchedulerVersion | None = None) -> None:
    prof["plugins"] = merge_plugins(default_plugins(version), prof.get("plugins"))
    existing: set[str] = set()
    configs: list[Dict] = []
    for pc in prof.get("pluginConfig") or []:
        name = str(pc.get("name") or "")
        existing.add(name)
        entry: Dict = {"name": name, "args": pc.get("args")}
        if has_typed_args(name) and has_typed_args_in(name, version):
            entry["args"] = default_args(name, pc.get("args"), version)
        configs.append(entry)
    # Upstream appends default args for every enabled plugin that has a typed args kind.
    names: set[str] = set()
    for point in PLUGIN_SET_FIELDS:
        for p in (prof["plugins"].get(point) or {}).get("enabled") or []:
            names.add(str(p.get("name")))
    for name in sorted(names):
        if name not in existing and has_typed_args(name) and has_typed_args_in(name, version):
            configs.append({"name": name, "args": default_args(name, None, version)})
    prof["pluginConfig"] = configs


def default_configuration(raw: Dict, version: SchedulerVersion | None = None) -> Dict:
    """``SetDefaults_KubeSchedulerConfiguration`` on a decoded v1 configuration (a copy)."""
    cfg = copy.deepcopy(raw)
    if cfg.get("parallelism") is None:
        cfg["parallelism"] = 16
    profiles = cfg.get("profiles") or []
    if not profiles:
        profiles = [{}]
    profiles = [dict(p or {}) for p in profiles]
    # The default name applies only to a lone profile; validation requires the others' names.
    if len(profiles) == 1 and profiles[0].get("schedulerName") is None:
        profiles[0]["schedulerName"] = DEFAULT_SCHEDULER_NAME
    for prof in profiles:
        _default_profile(prof, version)
    cfg["profiles"] = profiles
    if cfg.get("percentageOfNodesToScore") is None:
        cfg["percentageOfNodesToScore"] = 0
    le = dict(cfg.get("leaderElection") or {})
    if not le.get("resourceLock"):
        le["resourceLock"] = "leases"
    if not le.get("resourceNamespace"):
        le["resourceNamespace"] = "kube-system"
    if not le.get("resourceName"):
        le["resourceName"] = "kube-scheduler"
    if le.get("leaderElect") is None:
        le["leaderElect"] = True
    for key, value in (("leaseDuration", "15s"), ("renewDeadline", "10s"), ("retryPeriod", "2s")):
        if not le.get(key):
            le[key] = value
    cfg["leaderElection"] = le
    cc = dict(cfg.get("clientConnection") or {})
    if not cc.get("contentType"):
        cc["contentType"] = "application/vnd.kubernetes.protobuf"
    if not cc.get("qps"):
        cc["qps"] = 50.0
    if not cc.get("burst"):
        cc["burst"] = 100
    cfg["clientConnection"] = cc
    if cfg.get("podInitialBackoffSeconds") is None:
        cfg["podInitialBackoffSeconds"] = 1
    if cfg.get("podMaxBackoffSeconds") is None:
        cfg["podMaxBackoffSeconds"] = 10
    if cfg.get("enableProfiling") is None:
        cfg["enableProfiling"] = True
    if cfg["enableProfiling"] and cfg.get("enableContentionProfiling") is None:
        cfg["enableContentionProfiling"] = True
    cfg["extenders"] = list(cfg.get("extenders") or [])
    return cfg

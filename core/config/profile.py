"""Scheduler profiles: which plugins run at each extension point, with weights and args.

A KubeSchedulerConfiguration (``kubescheduler.config.k8s.io/v1``) goes through the steps
kube-scheduler v1.35 applies to it: strict decoding, defaulting (default plugins merged
with the profile's ``plugins``, plugin args defaulted), validation, and finally the
framework's construction of each profile, which expands ``multiPoint`` into every
extension point a plugin implements and settles the score weights.  Without a file the
same steps run on an empty configuration, giving the v1.35 default profile.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from kschedx.core.api.field_errors import go_quote
from kschedx.core.api.selector_errors import aggregate
from kschedx.core.config.defaults import (
    DEFAULT_MULTIPOINT_PLUGINS,
    DEFAULT_SCHEDULER_NAME,
    default_args,
    default_configuration,
    has_typed_args,
)
from kschedx.core.config.validation import (
    API_VERSION,
    FACTORY_VALIDATORS,
    KIND,
    DecodeErrors,
    decode,
    index,
    validate_args,
    validate_configuration,
)
from kschedx.core.config.versions import (
    args_schemas,
    config_schema,
    dynamic_resources_args_errors,
    has_typed_args_in,
)
from kschedx.core.errors import InputError
from kschedx.core.versions import SchedulerVersion, baseline

Dict = dict[str, Any]

# (name, score weight) of the default multiPoint list; a weight of 0 means "unset".
DEFAULT_MULTIPOINT: list[tuple[str, int]] = [(n, w or 0) for n, w in DEFAULT_MULTIPOINT_PLUGINS]

# Extension points in the order a pod meets them (the order ``kschedx plugins`` shows).
EXTENSION_POINT_ORDER = (
    "preEnqueue", "queueSort", "preFilter", "filter", "postFilter", "preScore", "score",
    "reserve", "permit", "preBind", "bind", "postBind",
)

# The order in which the framework builds the extension points; errors surface in it.
_FRAMEWORK_ORDER = (
    "preFilter", "filter", "postFilter", "reserve", "preScore", "score",
    "preBind", "bind", "postBind", "permit", "preEnqueue", "queueSort",
)

# Go interface names, as upstream's framework errors print them.
_INTERFACE = {
    "preEnqueue": "PreEnqueuePlugin", "queueSort": "QueueSortPlugin", "preFilter": "PreFilterPlugin",
    "filter": "FilterPlugin", "postFilter": "PostFilterPlugin", "preScore": "PreScorePlugin",
    "score": "ScorePlugin", "reserve": "ReservePlugin", "permit": "PermitPlugin",
    "preBind": "PreBindPlugin", "bind": "BindPlugin", "postBind": "PostBindPlugin",
}

# The extension points the engine evaluates, mapped to the plugin methods that run them.
EXTENSION_POINTS = {
    "preEnqueue": "pre_enqueue",
    "preFilter": "pre_filter",
    "filter": "filter",
    "postFilter": "post_filter",
    "preScore": "pre_score",
    "score": "score",
}

# Every in-tree plugin of v1.35 and the extension points its upstream implementation has.
# The engine runs a plugin at a point only when its class implements the matching method;
# the rest (queue sort, reserve, permit, binding) has no effect on where a pod lands.
PLUGIN_EXTENSION_POINTS: dict[str, frozenset[str]] = {
    "PrioritySort": frozenset({"queueSort"}),
    "SchedulingGates": frozenset({"preEnqueue"}),
    "NodeUnschedulable": frozenset({"filter"}),
    "NodeName": frozenset({"filter"}),
    "TaintToleration": frozenset({"filter", "preScore", "score"}),
    "NodeAffinity": frozenset({"preFilter", "filter", "preScore", "score"}),
    "NodePorts": frozenset({"preFilter", "filter"}),
    "NodeResourcesFit": frozenset({"preFilter", "filter", "preScore", "score"}),
    "VolumeRestrictions": frozenset({"preFilter", "filter"}),
    "NodeVolumeLimits": frozenset({"preFilter", "filter"}),
    "VolumeBinding": frozenset({"preFilter", "filter", "reserve", "preBind", "preScore", "score"}),
    "VolumeZone": frozenset({"preFilter", "filter"}),
    "PodTopologySpread": frozenset({"preFilter", "filter", "preScore", "score"}),
    "InterPodAffinity": frozenset({"preFilter", "filter", "preScore", "score"}),
    "DynamicResources": frozenset(
        {"preEnqueue", "preFilter", "filter", "postFilter", "preScore", "score", "reserve", "preBind"}
    ),
    "DefaultPreemption": frozenset({"preEnqueue", "postFilter"}),
    "NodeResourcesBalancedAllocation": frozenset({"preScore", "score"}),
    "ImageLocality": frozenset({"score"}),
    "DefaultBinder": frozenset({"bind"}),
    # Alpha in v1.35, their feature gates off by default: they can be configured but do nothing.
    "NodeDeclaredFeatures": frozenset({"preFilter", "filter"}),
    "GangScheduling": frozenset({"preEnqueue", "permit"}),
}



def plugin_extension_points(version: SchedulerVersion | None = None) -> dict[str, frozenset[str]]:
    """The in-tree plugins of ``version`` and their extension points (v1.35 without one)."""
    version = version or baseline()
    points = dict(PLUGIN_EXTENSION_POINTS)
    if not version.at_least(35):
        # DynamicResources got PreScore/Score with the prioritized-list scoring
        # (kubernetes#134711, KEP-4816) in v1.35; NodeDeclaredFeatures (KEP-5328) and
        # GangScheduling (KEP-4671) were registered from v1.35.
        points["DynamicResources"] = points["DynamicResources"] - {"preScore", "score"}
        del points["NodeDeclaredFeatures"], points["GangScheduling"]
    return points


_MAX_NODE_SCORE = 100
_MAX_TOTAL_SCORE = 2**63 - 1


@dataclass
class Profile:
    """One scheduler profile as the framework holds it.

    The engine lists (``pre_filter``, ``score``, ...) hold the plugins the engine runs, in
    order; ``points`` holds every extension point's plugins as upstream configures them,
    and ``plugin_args`` the defaulted args by plugin name (upstream field names).
    """

    scheduler_name: str = DEFAULT_SCHEDULER_NAME
    pre_enqueue: list[str] = field(default_factory=list)
    pre_filter: list[str] = field(default_factory=list)
    filter: list[str] = field(default_factory=list)
    post_filter: list[str] = field(default_factory=list)
    pre_score: list[str] = field(default_factory=list)
    score: list[tuple[str, int]] = field(default_factory=list)
    plugin_args: dict[str, dict[str, Any]] = field(default_factory=dict)
    percentage_of_nodes_to_score: int | None = None
    points: dict[str, list[str]] = field(default_factory=dict)
    weights: dict[str, int] = field(default_factory=dict)
    # The kube-scheduler release (and feature gates) the profile belongs to.
    version: SchedulerVersion = field(default_factory=baseline)

    def not_evaluated(self, registry: dict[str, Any]) -> dict[str, list[str]]:
        """Per engine extension point, the configured plugins kschedx does not run there."""
        out: dict[str, list[str]] = {}
        for point, method in EXTENSION_POINTS.items():
            missing = [n for n in self.points.get(point, []) if not hasattr(registry.get(n), method)]
            if missing:
                out[point] = missing
        return out


@dataclass
class LoadedConfig:
    """A loaded, defaulted and validated KubeSchedulerConfiguration."""

    path: str | None
    profiles: dict[str, Profile]
    percentage_of_nodes_to_score: int
    extenders: list[Dict]
    defaulted: Dict
    version: SchedulerVersion = field(default_factory=baseline)

    def extender_warnings(self) -> list[str]:
        return extender_warnings(self.extenders)


class ConfigError(Exception):
    """A configuration problem; the loader adds the file name."""


# --------------------------------------------------------------------------- framework construction


def _names(ps: Dict | None, key: str) -> list[str]:
    return [str(p.get("name")) for p in (ps or {}).get(key) or []]


def build_profile(prof: Dict, global_percentage: int, registry: dict[str, Any],
                  version: SchedulerVersion | None = None) -> Profile:
    """What ``NewFramework`` makes of one defaulted, validated profile.

    Raises ConfigError with upstream's message when the framework would refuse it.
    """
    version = version or baseline()
    ext_points = plugin_extension_points(version)
    name = str(prof.get("schedulerName") or "")
    plugins: Dict = prof.get("plugins") or {}
    args_by_name: dict[str, Dict] = {}
    for pc in prof.get("pluginConfig") or []:
        pname = str(pc.get("name"))
        if has_typed_args(pname) and has_typed_args_in(pname, version):
            args_by_name[pname] = pc.get("args") or {}

    def fail(msg: str) -> ConfigError:
        return ConfigError(f"creating profile for scheduler name {name}: {msg}")

    needed: set[str] = set()
    for point in (*_FRAMEWORK_ORDER, "multiPoint"):
        needed.update(_names(plugins.get(point), "enabled"))
    # Plugin factories run first; some validate their args only there.
    for pname in sorted(needed):
        if pname in ext_points and pname in FACTORY_VALIDATORS:
            a = args_by_name.get(pname) or default_args(pname, None, version)
            errs = validate_args(FACTORY_VALIDATORS, pname, a, "", version)
            if errs:
                raise fail(f"initializing plugin {go_quote(pname)}: {aggregate(errs)}")

    lists: dict[str, list[str]] = {}
    for point in _FRAMEWORK_ORDER:
        seen: list[str] = []
        for pname in _names(plugins.get(point), "enabled"):
            if pname not in ext_points:
                raise fail(f"{_INTERFACE[point]} {go_quote(pname)} does not exist")
            if point not in ext_points[pname]:
                raise fail(f"plugin {go_quote(pname)} does not extend {_INTERFACE[point]} plugin")
            if pname in seen:
                raise fail(f"plugin {go_quote(pname)} already registered as {go_quote(_INTERFACE[point])}")
            seen.append(pname)
        lists[point] = seen

    multipoint = _names(plugins.get("multiPoint"), "enabled")
    if multipoint:
        for point in _FRAMEWORK_ORDER:
            disabled = set(_names(plugins.get(point), "disabled"))
            if "*" in disabled:
                continue
            explicit = lists[point]
            overrides: list[str] = []
            expanded: list[str] = []
            for pname in multipoint:
                if pname not in ext_points:
                    raise fail(f"{_INTERFACE[point]} {go_quote(pname)} does not exist")
                if point not in ext_points[pname] or pname in disabled:
                    continue
                if pname in explicit:
                    # Set explicitly at this point: the user's entry wins over multiPoint's.
                    if pname not in overrides:
                        overrides.append(pname)
                    continue
                if pname in expanded:
                    raise fail(f"plugin {go_quote(pname)} already registered as {go_quote(_INTERFACE[point])}")
                expanded.append(pname)
            # Overridden plugins first (in their explicit order), then multiPoint's, then the
            # rest of the explicit ones.
            first = [p for p in explicit if p in overrides]
            rest = [p for p in explicit if p not in overrides]
            lists[point] = first + expanded + rest

    if len(lists["queueSort"]) != 1:
        raise fail(
            f"only one queue sort plugin required for profile with scheduler name {go_quote(name)}, "
            f"but got {len(lists['queueSort'])}"
        )
    if not lists["bind"]:
        raise fail(f"at least one bind plugin is needed for profile with scheduler name {go_quote(name)}")

    # Score weights: an explicit score entry wins over multiPoint's; 0 (unset) means 1.
    weights: dict[str, int] = {}
    total = 0
    entries = list((plugins.get("score") or {}).get("enabled") or []) + list(
        (plugins.get("multiPoint") or {}).get("enabled") or []
    )
    for e in entries:
        pname = str(e.get("name"))
        if "score" not in ext_points.get(pname, ()) or pname in weights:
            continue
        w = int(e.get("weight") or 0) or 1
        if w * _MAX_NODE_SCORE > _MAX_TOTAL_SCORE - total:
            raise fail("total score of Score plugins could overflow")
        total += w * _MAX_NODE_SCORE
        weights[pname] = w

    plugin_args: dict[str, dict[str, Any]] = {}
    for pname in sorted(needed):
        if has_typed_args(pname) and has_typed_args_in(pname, version):
            plugin_args[pname] = copy.deepcopy(args_by_name.get(pname) or default_args(pname, None, version))

    pct = prof.get("percentageOfNodesToScore")
    profile = Profile(
        scheduler_name=name,
        plugin_args=plugin_args,
        percentage_of_nodes_to_score=int(pct) if pct is not None else global_percentage,
        points={p: list(lists[p]) for p in EXTENSION_POINT_ORDER},
        weights={p: weights[p] for p in lists["score"]},
        version=version,
    )
    for point, method in EXTENSION_POINTS.items():
        runnable = [p for p in lists[point] if hasattr(registry.get(p), method)]
        if point == "score":
            profile.score = [(p, weights[p]) for p in runnable]
        else:
            setattr(profile, method, runnable)
    return profile


# --------------------------------------------------------------------------- loading


def _decode_args(prof: Dict, i: int, version: SchedulerVersion | None = None) -> None:
    schemas = args_schemas(version)
    for j, pc in enumerate(prof.get("pluginConfig") or []):
        name = str(pc.get("name") or "")
        schema = schemas.get(name)
        args = pc.get("args")
        if schema is None or args is None:
            continue
        where = f"{index('profiles', i)}.{index('pluginConfig', j)}.args"
        kind = args.get("kind") if isinstance(args, dict) else None
        if kind is not None and kind != name + "Args":
            raise ConfigError(f"args for plugin {name} were not of type {name}Args.kubescheduler.config.k8s.io, got {kind}")
        api = args.get("apiVersion") if isinstance(args, dict) else None
        if api is not None and api != API_VERSION:
            raise ConfigError(f"decoding args for plugin {name} ({where}): unsupported apiVersion {go_quote(str(api))}")
        errs = DecodeErrors()
        decode(args, schema, "", errs)
        msg = errs.message()
        if msg:
            raise ConfigError(f"decoding args for plugin {name} ({where}): {msg}")


def configuration_from_dict(raw: Dict, registry: dict[str, Any], path: str | None = None,
                            version: SchedulerVersion | None = None) -> LoadedConfig:
    """Decode, default, validate and build a configuration given as a dict (for ``version``,
    v1.35 without one)."""
    version = version or baseline()
    if not isinstance(raw, dict):
        raise ConfigError("expected a KubeSchedulerConfiguration (a mapping)")
    api = raw.get("apiVersion")
    kind = raw.get("kind")
    if not kind:
        raise ConfigError("Object 'Kind' is missing: expected kind: KubeSchedulerConfiguration")
    if kind != KIND:
        raise ConfigError(f"expected kind {KIND}, got {go_quote(str(kind))}")
    if api != API_VERSION:
        raise ConfigError(
            f"unsupported apiVersion {go_quote(str(api or ''))}: kube-scheduler {version.name} reads only {API_VERSION} "
            f"(no kind {go_quote(KIND)} is registered for that version)"
        )
    errs = DecodeErrors()
    decode(raw, config_schema(version), "", errs)
    msg = errs.message()
    if msg:
        raise ConfigError(msg)
    for i, prof in enumerate(raw.get("profiles") or []):
        _decode_args(prof or {}, i, version)

    cfg = default_configuration(raw, version)
    verrs = dynamic_resources_args_errors(cfg, validate_configuration(cfg, version), version)
    if verrs:
        raise ConfigError(aggregate(verrs))

    global_pct = int(cfg.get("percentageOfNodesToScore") or 0)
    profiles: dict[str, Profile] = {}
    first_qs: tuple[str, Any] | None = None
    for prof in cfg["profiles"]:
        p = build_profile(prof, global_pct, registry, version)
        qs = p.points["queueSort"][0]
        qs_args = next((pc.get("args") for pc in prof.get("pluginConfig") or [] if pc.get("name") == qs), None)
        if first_qs is None:
            first_qs = (qs, qs_args)
        elif first_qs[0] != qs:
            raise ConfigError(
                f"different queue sort plugins for profile {go_quote(p.scheduler_name)}: {go_quote(qs)}, "
                f"first: {go_quote(first_qs[0])}"
            )
        elif first_qs[1] != qs_args:
            raise ConfigError(f"different queue sort plugin args for profile {go_quote(p.scheduler_name)}")
        profiles[p.scheduler_name] = p
    return LoadedConfig(path, profiles, global_pct, list(cfg.get("extenders") or []), cfg, version)


def load_config(path: str, registry: dict[str, Any], version: SchedulerVersion | None = None) -> LoadedConfig:
    """Load a KubeSchedulerConfiguration file (YAML or JSON); errors name the file."""
    from kschedx.core.load.files import load_objects

    docs = load_objects(path)
    if len(docs) != 1:
        raise InputError(f"expected one KubeSchedulerConfiguration document, found {len(docs)}", path=path)
    doc, _ = docs[0]
    try:
        return configuration_from_dict(doc, registry, path, version)
    except ConfigError as e:
        raise InputError(str(e), path=path) from None


def load_config_file(path: str, registry: dict[str, Any]) -> dict[str, Profile]:
    """The profiles of a configuration file by scheduler name."""
    return load_config(path, registry).profiles


def default_config(registry: dict[str, Any], version: SchedulerVersion | None = None) -> LoadedConfig:
    """The defaults of ``version`` (v1.35 without one), as if an empty configuration had been given."""
    return configuration_from_dict({"apiVersion": API_VERSION, "kind": KIND}, registry, version=version)


def default_profile(registry: dict[str, Any], scheduler_name: str = DEFAULT_SCHEDULER_NAME,
                    version: SchedulerVersion | None = None) -> Profile:
    raw = {"apiVersion": API_VERSION, "kind": KIND, "profiles": [{"schedulerName": scheduler_name}]}
    return configuration_from_dict(raw, registry, version=version).profiles[scheduler_name]


def profile_from_multipoint(
    multipoint: list[tuple[str, int]],
    registry: dict[str, Any],
    scheduler_name: str = DEFAULT_SCHEDULER_NAME,
    plugin_args: dict[str, dict[str, Any]] | None = None,
) -> Profile:
    """A profile enabling exactly these plugins through multiPoint (tests, custom setups).

    Queue sort and binding are added when missing so that the framework accepts it.
    """
    enabled: list[Dict] = [{"name": n, "weight": w} if w else {"name": n} for n, w in multipoint]
    names = {n for n, _ in multipoint}
    if "PrioritySort" not in names:
        enabled.append({"name": "PrioritySort"})
    if "DefaultBinder" not in names:
        enabled.append({"name": "DefaultBinder"})
    prof = {
        "schedulerName": scheduler_name,
        "plugins": {"multiPoint": {"enabled": enabled}},
        "pluginConfig": [{"name": n, "args": default_args(n, a)} for n, a in (plugin_args or {}).items()],
    }
    p = build_profile(prof, 0, registry)
    p.percentage_of_nodes_to_score = None
    return p


def extender_warnings(extenders: list[Dict]) -> list[str]:
    """One warning per configured extender: kschedx cannot call it offline."""
    out = []
    for ext in extenders:
        verbs = []
        for key, label in (("filterVerb", "filter"), ("prioritizeVerb", "prioritize"),
                           ("preemptVerb", "preempt"), ("bindVerb", "bind")):
            if ext.get(key):
                verbs.append(f"{label}={ext[key]}")
        detail = ", ".join(verbs) if verbs else "no verbs"
        if ext.get("prioritizeVerb"):
            detail += f", weight {int(ext.get('weight') or 0)}"
        flags = []
        if ext.get("ignorable"):
            flags.append("ignorable")
        managed = [str(r.get("name")) for r in ext.get("managedResources") or []]
        if managed:
            flags.append("manages " + ", ".join(managed))
        extra = f"; {'; '.join(flags)}" if flags else ""
        out.append(
            f"scheduler extender {ext.get('urlPrefix') or '<no urlPrefix>'} ({detail}{extra}) is not evaluated "
            "offline (--offline); otherwise explain and check call its filter and prioritize verbs as the "
            "scheduler does"
        )
    return out


# Extension points that decide nothing about where a pod lands: kschedx lists them only.
_PLACEMENT_NEUTRAL = frozenset({"queueSort", "reserve", "permit", "preBind", "bind", "postBind"})


def plugins_report(
    loaded: LoadedConfig, registry: dict[str, Any], profile: str | None = None
) -> dict[str, Any]:
    """The configured plugins of each profile (or of ``profile``), per extension point in
    order, with score weights and effective args: the data behind ``kschedx plugins``."""
    if profile is not None and profile not in loaded.profiles:
        known = ", ".join(sorted(loaded.profiles))
        raise InputError(f"no scheduler profile named {profile!r} (profiles: {known})", path=loaded.path)
    selected = [loaded.profiles[profile]] if profile is not None else list(loaded.profiles.values())
    out_profiles = []
    for p in selected:
        points: dict[str, Any] = {}
        for point in EXTENSION_POINT_ORDER:
            method = EXTENSION_POINTS.get(point)
            entries = []
            for name in p.points.get(point, []):
                entry: dict[str, Any] = {"name": name}
                if point == "score":
                    entry["weight"] = p.weights[name]
                entry["evaluated"] = method is not None and hasattr(registry.get(name), method)
                entries.append(entry)
            points[point] = {"evaluated": point not in _PLACEMENT_NEUTRAL, "plugins": entries}
        out_profiles.append({
            "schedulerName": p.scheduler_name,
            "percentageOfNodesToScore": p.percentage_of_nodes_to_score,
            "extensionPoints": points,
            "pluginArgs": copy.deepcopy(p.plugin_args),
        })
    return {
        "kubernetesVersion": loaded.version.name,
        "config": loaded.path,
        "percentageOfNodesToScore": loaded.percentage_of_nodes_to_score,
        "profiles": out_profiles,
        "extenders": copy.deepcopy(loaded.extenders),
        "warnings": loaded.extender_warnings(),
    }

"""The KubeSchedulerConfiguration (v1) each release accepts.

The file format is the same kubescheduler.config.k8s.io/v1 in every supported release, but
fields came and went:

- ``DynamicResourcesArgs`` exists from v1.34 (``filterTimeout``, kubernetes#132033): on v1.33
  DynamicResources takes no typed args, so they are neither decoded nor defaulted.
- ``DynamicResourcesArgs.bindingTimeout`` exists from v1.35 (kubernetes#134905, KEP-5007).
- ``Plugins.placementGenerate`` and ``placementScore`` exist from v1.36 (the workload
  placement extension points of workload-aware scheduling, KEP-4671).

Older releases decode strictly, so a field they don't have is an unknown-field error there.
"""

from __future__ import annotations

from typing import Any

from kschedx.core.api.field_errors import FieldError, forbidden
from kschedx.core.api.selector_errors import child
from kschedx.core.config.validation import ARGS_SCHEMAS, CONFIG_SCHEMA, index
from kschedx.core.versions import SchedulerVersion, baseline

Schema = Any


def has_typed_args_in(name: str, version: SchedulerVersion | None) -> bool:
    """Whether ``version`` has a typed args kind for plugin ``name`` (besides the table in
    config_defaults, which is v1.35's)."""
    version = version or baseline()
    return not (name == "DynamicResources" and not version.at_least(34))


def args_schemas(version: SchedulerVersion | None) -> dict[str, Schema]:
    version = version or baseline()
    schemas = dict(ARGS_SCHEMAS)
    if not version.at_least(34):
        del schemas["DynamicResources"]
    elif not version.at_least(35):
        kind, go_type, fields = schemas["DynamicResources"]
        schemas["DynamicResources"] = (kind, go_type, {k: v for k, v in fields.items() if k != "bindingTimeout"})
    return schemas


def _with_plugin_sets(schema: Schema, extra: tuple[str, ...]) -> Schema:
    """A copy of ``schema`` whose ``Plugins`` objects have the ``extra`` plugin sets."""
    if not isinstance(schema, tuple):
        return schema
    if schema[0] == "object":
        _, go_type, fields = schema
        new = {k: _with_plugin_sets(v, extra) for k, v in fields.items()}
        if go_type == "Plugins":
            plugin_set = fields["multiPoint"]
            new.update({f: plugin_set for f in extra})
        return ("object", go_type, new)
    if schema[0] == "list":
        return ("list", _with_plugin_sets(schema[1], extra))
    return schema


_CONFIG_136 = _with_plugin_sets(CONFIG_SCHEMA, ("placementGenerate", "placementScore"))


def config_schema(version: SchedulerVersion | None) -> Schema:
    version = version or baseline()
    return _CONFIG_136 if version.at_least(36) else CONFIG_SCHEMA


# DynamicResourcesArgs' fields are defaulted and allowed only with their feature gates
# (kubernetes#132033: filterTimeout with DRASchedulerFilterTimeout; kubernetes#134905:
# bindingTimeout with DRADeviceBindingConditions and DRAResourceClaimDeviceStatus, both on
# by default from v1.36).
_DRA_ARG_GATES = {
    "filterTimeout": (("DRASchedulerFilterTimeout",), "DRASchedulingFilterTimeout feature gate is disabled"),
    "bindingTimeout": (("DRADeviceBindingConditions", "DRAResourceClaimDeviceStatus"),
                       "DRADeviceBindingConditions or DRAResourceClaimDeviceStatus feature gate is disabled"),
}
_DRA_ARG_DEFAULTS = {"filterTimeout": "10s", "bindingTimeout": "10m0s"}


def _gates_on(version: SchedulerVersion, gates: tuple[str, ...]) -> bool:
    return all(version.enabled(g) for g in gates)


def default_dynamic_resources_args(defaulted: dict[str, Any], given: dict[str, Any], version: SchedulerVersion) -> None:
    """Redo DynamicResourcesArgs' gated defaults for ``version`` (``given``: the user's args)."""
    for fld, (gates, _) in _DRA_ARG_GATES.items():
        if given.get(fld) is not None:
            continue
        if _gates_on(version, gates):
            defaulted[fld] = _DRA_ARG_DEFAULTS[fld]
        else:
            defaulted.pop(fld, None)


def dynamic_resources_args_errors(cfg: dict[str, Any], errs: list[FieldError],
                                  version: SchedulerVersion | None) -> list[FieldError]:
    """``errs`` with DynamicResourcesArgs checked as ``version``'s gates allow: a field whose
    gate is off is Forbidden (and not checked further)."""
    version = version or baseline()
    out = list(errs)
    if not has_typed_args_in("DynamicResources", version):
        return out
    for i, prof in enumerate(cfg.get("profiles") or []):
        for j, pc in enumerate(prof.get("pluginConfig") or []):
            if pc.get("name") != "DynamicResources" or not isinstance(pc.get("args"), dict):
                continue
            path = child(index(child(index("profiles", i), "pluginConfig"), j), "args")
            for fld, (gates, detail) in _DRA_ARG_GATES.items():
                if pc["args"].get(fld) is None or _gates_on(version, gates):
                    continue
                out = [e for e in out if e.field != child(path, fld)]
                out.append(forbidden(child(path, fld), detail))
    return out

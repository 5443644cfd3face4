"""A v1.12 scheduler Policy file (``kind: Policy``, JSON or YAML): which predicates and
priority functions run, with weights and arguments, the extenders, and
hardPodAffinitySymmetricWeight. Validation errors name the field."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kschedx.core.errors import InputError
from kschedx.core.framework.extenders import Extender
from kschedx.core.legacy.base import PriorityFunction
from kschedx.core.legacy.registry import BY_ARGUMENT, BY_NAME, PREDICATE_PLUGINS
from kschedx.core.legacy.requested_to_capacity_ratio import ShapeError

Dict = dict[str, Any]

MAX_TOTAL_PRIORITY = 2**63 - 1
MAX_PRIORITY = 10
MAX_WEIGHT = MAX_TOTAL_PRIORITY // MAX_PRIORITY


@dataclass
class Policy:
    path: str
    # None: the key is absent (the default filters run); []: no filter runs.
    predicates: list[str] | None
    priorities: list[PriorityFunction] | None
    extenders: list[Extender] = field(default_factory=list)
    hard_pod_affinity_weight: int = 1
    warnings: list[str] = field(default_factory=list)

    def filter_plugins(self) -> set[str] | None:
        """The v1.35 filter plugins standing in for the predicates (None: the profile's)."""
        if self.predicates is None:
            return None
        out: set[str] = set()
        for name in self.predicates:
            out.update(PREDICATE_PLUGINS.get(name, ()))
        return out


def _int(value: Any, where: str, path: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"{where}: Invalid value: {value!r}: must be an integer", path=path)
    return value


def _list(doc: Dict, key: str, path: str) -> list[Any] | None:
    if key not in doc or doc[key] is None:
        return None
    value = doc[key]
    if not isinstance(value, list):
        raise InputError(f"{key}: Invalid value: must be a list", path=path)
    return value


def _priority(entry: Any, i: int, path: str) -> PriorityFunction:
    where = f"priorities[{i}]"
    if not isinstance(entry, dict):
        raise InputError(f"{where}: Invalid value: must be an object with name and weight", path=path)
    name = entry.get("name")
    if not isinstance(name, str) or not name:
        raise InputError(f"{where}.name: Required value: a priority needs a name", path=path)
    weight = _int(entry.get("weight", 0), f"{where}.weight", path)
    if weight <= 0 or weight >= MAX_WEIGHT:
        raise InputError(
            f"{where}.weight: Invalid value: {weight}: Priority {name} should have a positive weight applied to it "
            "or it has overflown",
            path=path,
        )
    arg = entry.get("argument")
    if arg is not None:
        if not isinstance(arg, dict):
            raise InputError(f"{where}.argument: Invalid value: must be an object", path=path)
        given = [k for k in BY_ARGUMENT if arg.get(k) is not None]
        unknown = sorted(set(arg) - set(BY_ARGUMENT))
        if unknown:
            raise InputError(
                f"{where}.argument.{unknown[0]}: Unsupported value: supported arguments are "
                + ", ".join(BY_ARGUMENT),
                path=path,
            )
        if len(given) > 1:
            raise InputError(f"{where}.argument: Invalid value: only one argument may be set, got {given}", path=path)
        if given:
            key = given[0]
            value = arg[key]
            if not isinstance(value, dict):
                raise InputError(f"{where}.argument.{key}: Invalid value: must be an object", path=path)
            if key in ("serviceAntiAffinity", "labelPreference") and not value.get("label"):
                raise InputError(f"{where}.argument.{key}.label: Required value", path=path)
            if key == "requestedToCapacityRatioArguments":
                shape = value.get("shape")
                if shape is not None and (
                    not isinstance(shape, list) or not all(isinstance(p, dict) for p in shape)
                ):
                    raise InputError(
                        f"{where}.argument.{key}.shape: Invalid value: a list of {{utilization, score}} points",
                        path=path,
                    )
                for j, p in enumerate(shape or []):
                    for f in ("utilization", "score"):
                        _int(p.get(f, 0), f"{where}.argument.{key}.shape[{j}].{f}", path)
                try:
                    return BY_ARGUMENT[key](name, weight, {"shape": shape if shape is not None else []})
                except ShapeError as e:
                    raise InputError(f"{where}.argument.{key}.shape: Invalid value: {e}", path=path) from None
            return BY_ARGUMENT[key](name, weight, dict(value))
    cls = BY_NAME.get(name)
    if cls is None:
        raise InputError(
            f"{where}.name: Unsupported value: {name!r}: no v1.12 priority function of that name "
            f"(supported: {', '.join(sorted(BY_NAME))}; or give an argument: {', '.join(BY_ARGUMENT)})",
            path=path,
        )
    return cls(name, weight)


def _extender(entry: Any, i: int, path: str) -> Extender:
    where = f"extenders[{i}]"
    if not isinstance(entry, dict):
        raise InputError(f"{where}: Invalid value: must be an object", path=path)
    if not entry.get("urlPrefix"):
        raise InputError(f"{where}.urlPrefix: Required value", path=path)
    ext = Extender.from_dict(entry, source="policy")
    if ext.prioritize_verb and ext.weight <= 0:
        raise InputError(
            f"{where}.weight: Invalid value: {ext.weight}: Priority for extender {ext.url_prefix} should have a "
            "positive weight applied to it",
            path=path,
        )
    return ext


def policy_from_dict(doc: Any, path: str) -> Policy:
    if not isinstance(doc, dict):
        raise InputError("a Policy must be a mapping", path=path)
    kind = doc.get("kind")
    if kind is not None and kind != "Policy":
        raise InputError(f"kind: Invalid value: {kind!r}: expected Policy (a v1.12 scheduler policy)", path=path)
    preds_raw = _list(doc, "predicates", path)
    predicates: list[str] | None = None
    warnings: list[str] = []
    if preds_raw is not None:
        predicates = []
        for i, p in enumerate(preds_raw):
            if not isinstance(p, dict) or not isinstance(p.get("name"), str) or not p.get("name"):
                raise InputError(f"predicates[{i}].name: Required value", path=path)
            name = p["name"]
            if p.get("argument") is not None:
                warnings.append(
                    f"predicate {name} (an argument-built v1.12 predicate) has no v1.35 filter plugin and is not "
                    "evaluated"
                )
                continue
            if name not in PREDICATE_PLUGINS:
                raise InputError(
                    f"predicates[{i}].name: Unsupported value: {name!r}: no v1.12 predicate of that name "
                    f"(supported: {', '.join(sorted(PREDICATE_PLUGINS))})",
                    path=path,
                )
            predicates.append(name)
    prios_raw = _list(doc, "priorities", path)
    priorities: list[PriorityFunction] | None = None
    if prios_raw is not None:
        priorities = []
        seen: set[str] = set()
        for i, entry in enumerate(prios_raw):
            pf = _priority(entry, i, path)
            if pf.name in seen:
                raise InputError(f"priorities[{i}].name: Duplicate value: {pf.name!r}", path=path)
            seen.add(pf.name)
            priorities.append(pf)
    ext_raw = _list(doc, "extenders", path) or _list(doc, "extenderConfigs", path) or []
    extenders = [_extender(e, i, path) for i, e in enumerate(ext_raw)]
    binders = sum(1 for e in extenders if e.bind_verb)
    if binders > 1:
        raise InputError(f"extenders: Invalid value: Only one extender can implement bind, found {binders}", path=path)
    hard = doc.get("hardPodAffinitySymmetricWeight")
    weight = 1
    if hard is not None:
        hard = _int(hard, "hardPodAffinitySymmetricWeight", path)
        if hard < 0 or hard > 100:
            raise InputError(
                f"hardPodAffinitySymmetricWeight: Invalid value: {hard}: must be in the range 0-100", path=path
            )
        if hard != 0:
            weight = hard
    return Policy(path, predicates, priorities, extenders, weight, warnings)


def load_policy(path: str) -> Policy:
    from kschedx.core.load.files import load_objects

    docs = load_objects(path)
    if len(docs) != 1:
        raise InputError(f"expected one Policy document, found {len(docs)}", path=path)
    doc, _ = docs[0]
    return policy_from_dict(doc, path)

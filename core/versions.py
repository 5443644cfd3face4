"""Which kube-scheduler kschedx reproduces: the Kubernetes minor version and its feature gates.

One engine serves every supported release. A behaviour that differs between releases is a
small switch in the plugin (or the defaulting) that owns it, asking :class:`SchedulerVersion`
``at_least(minor)`` or ``enabled(gate)``; each switch names the upstream change behind it.

The version is chosen (``choose_version``) in this order: ``--kubernetes-version``; the
server version a ``kschedx snapshot`` file or the live cluster's ``/version`` records; the
newest kubelet version among the dump's Nodes (a control plane is never older than its
kubelets); else the newest supported release. ``--feature-gates`` then overrides that
release's gate defaults, in kube-scheduler's own syntax and with its own errors.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kschedx.core.errors import InputError
from kschedx.core.feature_gates_data import GATES

SUPPORTED_VERSIONS: tuple[str, ...] = ("v1.33", "v1.34", "v1.35", "v1.36", "v1.37")
# The newest release reproduced from its own source: the one taken when nothing says which.
NEWEST = "v1.36"
# Releases run as the newest checked scheduler with their own default gates, until their
# source can be read: 1.37 turns on what v1.36.3 has behind gates (StorageCapacityScoring and
# VolumeLimitScaling beta and on, DRADeviceTaints and DRADeviceTaintRules GA), and
# kubernetes#138951 counts image volumes in ImageLocality's threshold.
PROVISIONAL: dict[str, tuple[str, dict[str, tuple[bool, bool, str]]]] = {
    "v1.37": ("v1.36", {
        "StorageCapacityScoring": (True, False, "BETA"),
        "VolumeLimitScaling": (True, False, "BETA"),
        "DRADeviceTaints": (True, True, "GA"),
        "DRADeviceTaintRules": (True, True, "GA"),
    }),
}
RELEASE_GATES: dict[str, dict[str, tuple[bool, bool, str]]] = {
    **GATES, **{name: {**GATES[base], **changes} for name, (base, changes) in PROVISIONAL.items()}}


def provisional_note(name: str) -> str | None:
    """The line a provisional release carries wherever it is used."""
    if name not in PROVISIONAL:
        return None
    base = PROVISIONAL[name][0]
    return (f"{name[1:]}: {base[1:]}.3's scheduler with {name[1:]}'s defaults; exact once {name[1:]}'s source is "
            "checked")
# What the engine assumes when nobody chose a version (the Python API without one).
BASELINE = "v1.35"

_VERSION = re.compile(r"^\s*v?(\d+)\.(\d+)(?:\.(\d+))?(?:[-+][0-9A-Za-z.+-]*)?\s*$")


def minor_of(text: str) -> tuple[int, int] | None:
    """(major, minor) of a version string such as ``v1.35.4`` or ``1.35``."""
    m = _VERSION.match(text)
    return (int(m.group(1)), int(m.group(2))) if m else None


def parse_version(text: str, flag: str = "--kubernetes-version") -> str:
    """``1.33``, ``v1.33`` or ``v1.33.3`` -> ``v1.33``; anything else is an InputError naming
    the supported versions."""
    supported = ", ".join(SUPPORTED_VERSIONS)
    mm = minor_of(str(text))
    if mm is None:
        raise InputError(f"{flag} {text}: not a Kubernetes version (give X.Y: {supported})")
    name = f"v{mm[0]}.{mm[1]}"
    if name not in SUPPORTED_VERSIONS:
        raise InputError(f"{flag} {text}: Kubernetes {name} is not supported (supported: {supported})")
    return name


@dataclass(frozen=True)
class SchedulerVersion:
    """A kube-scheduler release with its effective feature gates."""

    name: str = BASELINE
    # Gates set explicitly (--feature-gates), over the release's defaults.
    overrides: Mapping[str, bool] = field(default_factory=dict)

    @property
    def minor(self) -> int:
        return int(self.name.rsplit(".", 1)[1])

    def at_least(self, minor: int) -> bool:
        """This release is 1.``minor`` or newer."""
        return self.minor >= minor

    def enabled(self, gate: str) -> bool:
        if gate in self.overrides:
            return self.overrides[gate]
        spec = RELEASE_GATES[self.name].get(gate)
        return bool(spec and spec[0])

    def gate_values(self) -> dict[str, bool]:
        """Every gate of the release with its effective value."""
        return {g: self.enabled(g) for g in RELEASE_GATES[self.name]}


def baseline() -> SchedulerVersion:
    return SchedulerVersion(BASELINE)


# Gates that kube-scheduler's flag parsing refuses on without the gates they build on
# (component-base featuregate dependencies; the DRA ones kschedx reads).
GATE_DEPENDENCIES: dict[str, tuple[str, ...]] = {
    "DRADeviceTaintRules": ("DRADeviceTaints",),
}


def parse_feature_gates(text: str | None, version: str) -> dict[str, bool]:
    """``KEY=BOOL,...`` as kube-scheduler's ``--feature-gates`` takes it; the errors in its words."""
    out: dict[str, bool] = {}
    if not text:
        return out
    known = RELEASE_GATES[version]
    errors: list[str] = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        key, sep, raw = item.partition("=")
        key, raw = key.strip(), raw.strip()
        where = f'invalid argument "{text}" for "--feature-gates" flag'
        if not sep:
            raise InputError(f"{where}: missing bool value for {key}")
        value = _go_bool(raw)
        if value is None:
            raise InputError(f'{where}: invalid value of {key}={raw}, err: strconv.ParseBool: parsing "{raw}": '
                             "invalid syntax")
        out[key] = value
    for key, value in sorted(out.items()):
        spec = known.get(key)
        if spec is None:
            errors.append(f"unrecognized feature gate: {key}")
        elif spec[1] and value != spec[0]:
            errors.append(f"cannot set feature gate {key} to {str(value).lower()}, feature is locked to "
                          f"{str(spec[0]).lower()}")
    effective = {g: out.get(g, spec[0]) for g, spec in known.items()}
    # Declared dependencies came with v1.36's feature specs.
    mm = minor_of(version)
    for gate, needs in sorted(GATE_DEPENDENCIES.items()) if mm is not None and mm >= (1, 36) else []:
        off = [n for n in needs if n in effective and not effective[n]]
        if effective.get(gate) and off:
            errors.append(f"{gate} is enabled, but depends on features that are disabled: [{', '.join(off)}]")
    if errors:
        joined = errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"
        raise InputError(f'invalid argument "{text}" for "--feature-gates" flag: {joined} '
                         f"(kube-scheduler {version})")
    # AllAlpha / AllBeta switch every gate of that stage the flag doesn't set itself.
    for toggle, stage in (("AllAlpha", "ALPHA"), ("AllBeta", "BETA")):
        if toggle in out:
            for gate, (_default, locked, gate_stage) in known.items():
                if gate_stage == stage and gate not in out and not locked and gate not in ("AllAlpha", "AllBeta"):
                    out[gate] = out[toggle]
    return out


def _go_bool(raw: str) -> bool | None:
    """strconv.ParseBool."""
    if raw in ("1", "t", "T", "TRUE", "true", "True"):
        return True
    if raw in ("0", "f", "F", "FALSE", "false", "False"):
        return False
    return None


# --------------------------------------------------------------------------- choosing


@dataclass(frozen=True)
class VersionChoice:
    name: str
    # One line saying where the version came from (None: the user chose it).
    note: str | None = None


def _newest_kubelet(nodes: list[dict[str, Any]]) -> tuple[tuple[int, int], str] | None:
    best: tuple[tuple[int, int], str] | None = None
    for n in nodes:
        raw = ((n.get("status") or {}).get("nodeInfo") or {}).get("kubeletVersion")
        if not isinstance(raw, str):
            continue
        mm = minor_of(raw)
        if mm is not None and (best is None or mm > best[0]):
            best = (mm, raw)
    return best


def choose_version(explicit: str | None, server_version: str | None, nodes: list[dict[str, Any]],
                   source: str = "the cluster") -> VersionChoice:
    """The release to reproduce; see the module docstring for the order."""
    choice = _choose(explicit, server_version, nodes, source)
    extra = provisional_note(choice.name)
    if extra is None:
        return choice
    return VersionChoice(choice.name, f"{choice.note}; {extra}" if choice.note else extra)


def _choose(explicit: str | None, server_version: str | None, nodes: list[dict[str, Any]],
            source: str) -> VersionChoice:
    supported = ", ".join(SUPPORTED_VERSIONS)
    if explicit:
        return VersionChoice(parse_version(explicit))
    if server_version:
        mm = minor_of(server_version)
        name = f"v{mm[0]}.{mm[1]}" if mm else server_version
        if name not in SUPPORTED_VERSIONS:
            raise InputError(f"{source} runs Kubernetes {server_version}, which kschedx does not reproduce "
                             f"(supported: {supported}); pick one with --kubernetes-version")
        return VersionChoice(name, f"Kubernetes {name}: the API server's version ({server_version})")
    newest = _newest_kubelet(nodes)
    if newest is not None:
        (major, minor), raw = newest
        name = f"v{major}.{minor}"
        if name in SUPPORTED_VERSIONS:
            return VersionChoice(name, f"Kubernetes {name}: inferred from the newest kubelet ({raw}) among the "
                                 "nodes (the control plane is never older); set --kubernetes-version to change it")
        # Kubelets newer than every supported release: the newest one is the closest.
        last = SUPPORTED_VERSIONS[-1]
        pick = last if (major, minor) > (1, int(last.rsplit(".", 1)[1])) else SUPPORTED_VERSIONS[0]
        return VersionChoice(pick, f"Kubernetes {pick}: the newest kubelet is {raw}, which kschedx does not "
                             f"reproduce (supported: {supported}); set --kubernetes-version to change it")
    return VersionChoice(NEWEST, f"Kubernetes {NEWEST}: no server or kubelet version in {source}, so the newest "
                         "supported release; set --kubernetes-version to change it")

"""What every admission plugin sees and how it refuses: one request (the object being
created, its resource and namespace), the run (:class:`Run`: what the cluster holds, the
release's gates, the quota usage admitted so far), and :class:`Forbidden`, the API
server's 403 in its own words (``pods "NAME" is forbidden: REASON``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from kschedx.core.admission.quantities import ResourceList, add
from kschedx.core.errors import InputError

Dict = dict[str, Any]

PODS, CLAIMS = "pods", "persistentvolumeclaims"


class Refused(InputError):
    """The API server refused to create the object; ``prefix`` tells who asked for it, as
    its FailedCreate event does (``ReplicaSet web-7f9c: FailedCreate: Error creating: ``);
    the API server's own words stay in ``api_message``."""

    def __init__(self, api_message: str, *, prefix: str = "", path: str | None = None) -> None:
        self.api_message = api_message
        super().__init__(prefix + api_message, path=path)

    def reported(self, prefix: str, path: str | None) -> Refused:
        return Refused(self.api_message, prefix=prefix, path=path)


class Forbidden(Refused):
    """An admission plugin's refusal (admission.NewForbidden): ``pods "NAME" is forbidden: REASON``."""

    def __init__(self, resource: str, name: str, reason: str, *, prefix: str = "", path: str | None = None) -> None:
        self.resource = resource
        self.name = name
        self.reason = reason
        super().__init__(f'{resource} "{name}" is forbidden: {reason}', prefix=prefix, path=path)


@dataclass
class Request:
    """One create request as admission sees it."""

    resource: str  # PODS or CLAIMS
    obj: Dict

    @property
    def meta(self) -> Dict:
        meta = self.obj.setdefault("metadata", {})
        return meta if isinstance(meta, dict) else {}

    @property
    def namespace(self) -> str:
        return str(self.meta.get("namespace") or "default")

    @property
    def name(self) -> str:
        """The name the refusal names: validating plugins run after name generation; the
        generateName prefix when there is no name yet (extractResourceName)."""
        return str(self.meta.get("name") or self.meta.get("generateName") or "Unknown")

    @property
    def spec(self) -> Dict:
        spec = self.obj.setdefault("spec", {})
        return spec if isinstance(spec, dict) else {}

    def forbid(self, reason: str) -> Forbidden:
        return Forbidden(self.resource, self.name, reason)


@dataclass
class QuotaLedger:
    """Usage this run's admitted objects added, per quota (namespace, name)."""

    charged: dict[tuple[str, str], ResourceList] = field(default_factory=dict)

    def charge(self, key: tuple[str, str], usage: ResourceList) -> None:
        self.charged[key] = add(self.charged.get(key, {}), usage)

    def saved(self) -> dict[tuple[str, str], ResourceList]:
        """The usage as it is now, for :meth:`restore` (a simulated run taken back)."""
        return {k: dict(v) for k, v in self.charged.items()}

    def restore(self, saved: dict[tuple[str, str], ResourceList]) -> None:
        self.charged = {k: dict(v) for k, v in saved.items()}


class Run(Protocol):
    """What the plugins read from the run's admission (core/admission/chain.py's Admission)."""

    priority_classes: dict[str, Dict]
    default_storage_class: str | None
    runtime_classes: dict[str, Dict]
    ledger: QuotaLedger

    @property
    def pod_level_resources(self) -> bool: ...

    @property
    def volume_attributes_class(self) -> bool: ...

    def limit_ranges(self, namespace: str) -> list[Dict]: ...

    def resource_quotas(self, namespace: str) -> list[Dict]: ...

    def quota_key(self, quota: Dict) -> tuple[str, str]: ...

    def quota_status(self, quota: Dict) -> tuple[ResourceList, ResourceList]: ...


class AdmissionPlugin(Protocol):
    """One upstream admission plugin: ``mutate`` runs in the mutating phase, ``validate``
    in the validating phase (each may do nothing); both raise :class:`Forbidden`."""

    name: str

    def mutate(self, req: Request, run: Run) -> list[str]: ...

    def validate(self, req: Request, run: Run) -> None: ...


def aggregate(errors: list[str]) -> str:
    """utilerrors.NewAggregate(...).Error(): one message as it is, several deduplicated in
    brackets."""
    seen: list[str] = []
    for e in errors:
        if e not in seen:
            seen.append(e)
    return seen[0] if len(seen) == 1 else "[" + ", ".join(seen) + "]"

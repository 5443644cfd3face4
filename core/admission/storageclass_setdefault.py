"""DefaultStorageClass (plugin/pkg/admission/storage/storageclass/setdefault): a claim that
names no class at all — neither ``spec.storageClassName`` (an explicit ``""`` is a choice)
nor the beta ``volume.beta.kubernetes.io/storage-class`` annotation — gets the default
StorageClass. Several classes marked default (``storageclass.kubernetes.io/is-default-class``
or its beta twin set to ``"true"``): the newest by creationTimestamp, equally new ones the
first by name (GetDefaultClass, since v1.26). A class of the checked files has no
creationTimestamp yet: it is created now, so it counts as the newest. No default class:
the claim keeps no class (the PV controller may give it one later).
"""

from __future__ import annotations

from typing import Any

from kschedx.core.admission.interface import CLAIMS, Request, Run
from kschedx.core.api.objects import ClusterObjects

Dict = dict[str, Any]

IS_DEFAULT = ("storageclass.kubernetes.io/is-default-class", "storageclass.beta.kubernetes.io/is-default-class")
BETA_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class"
# Sorts after every RFC 3339 timestamp: not created yet, so newer than any stored class.
_NOT_CREATED_YET = "~"


def default_storage_class(objects: ClusterObjects) -> str | None:
    defaults: list[tuple[str, str]] = []
    for sc in objects.of("StorageClass"):
        m = sc.get("metadata") or {}
        ann = m.get("annotations") or {}
        if any(ann.get(k) == "true" for k in IS_DEFAULT):
            defaults.append((str(m.get("creationTimestamp") or _NOT_CREATED_YET), str(m.get("name") or "")))
    if not defaults:
        return None
    # RFC 3339 UTC timestamps of the API order as strings.
    newest = max(ts for ts, _ in defaults)
    return min(name for ts, name in defaults if ts == newest)


def has_class(claim: Dict) -> bool:
    """PersistentVolumeClaimHasClass: the beta annotation or a storageClassName, even ""."""
    annotations = (claim.get("metadata") or {}).get("annotations") or {}
    return BETA_CLASS_ANNOTATION in annotations or (claim.get("spec") or {}).get("storageClassName") is not None


class DefaultStorageClass:
    name = "DefaultStorageClass"

    def mutate(self, req: Request, run: Run) -> list[str]:
        if req.resource != CLAIMS or has_class(req.obj):
            return []
        default = run.default_storage_class
        if default:
            req.spec["storageClassName"] = default
        return []

    def validate(self, req: Request, run: Run) -> None:
        return None

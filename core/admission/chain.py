"""The admission chain and one run's admission state.

:class:`Admission` is created once per run over the cluster objects the run sees (the
cluster with the checked files laid over it) and handed to every place that creates an
object: :meth:`Admission.admit_pod` for a pod (a Pod manifest, or each pod a workload's
controller creates), :meth:`Admission.admit_claim` for a PersistentVolumeClaim. Both run
the plugins as the API server does — every mutating step in upstream's order, the
object's validation (where LimitRanger changed a pod's resources), then every validating
step in the same order — change the object in place, and raise
:class:`~kschedx.core.admission.interface.Refused` (mostly its :class:`Forbidden`) when
the API server would refuse it.
What the run admitted is remembered (the quota usage it adds, :class:`QuotaLedger`), so a
release's later objects are admitted after its earlier ones; ``charge_quota=False`` admits
without counting (a pod that already exists, or one shown but not created), and
:meth:`Admission.release_pod` gives back what a pod the run deleted counted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from kschedx.core.admission.defaulttolerationseconds import DefaultTolerationSeconds
from kschedx.core.admission.interface import CLAIMS, PODS, AdmissionPlugin, QuotaLedger, Refused, Request
from kschedx.core.admission.limitranger import ANNOTATION as LIMIT_RANGER_ANNOTATION
from kschedx.core.admission.limitranger import LimitRanger
from kschedx.core.admission.priority import Priority, priority_classes
from kschedx.core.admission.quantities import ResourceList, add, resource_list
from kschedx.core.admission.resourcequota import ResourceQuota, computed_status, source_time
from kschedx.core.admission.runtimeclass import RuntimeClass
from kschedx.core.admission.storageclass_setdefault import DefaultStorageClass, default_storage_class
from kschedx.core.api.objects import ClusterObjects
from kschedx.core.load.apivalidation import validate_object
from kschedx.core.versions import SchedulerVersion

Dict = dict[str, Any]

# kube-apiserver's default plugins that act on pods and claims, in AllOrderedPlugins order
# (ResourceQuota always last).
PLUGINS: tuple[AdmissionPlugin, ...] = (
    LimitRanger(), Priority(), DefaultTolerationSeconds(), DefaultStorageClass(), RuntimeClass(), ResourceQuota(),
)


def _by_namespace(objects: ClusterObjects, kind: str) -> dict[str, list[Dict]]:
    out: dict[str, list[Dict]] = {}
    for o in sorted(objects.of(kind), key=lambda o: str((o.get("metadata") or {}).get("name") or "")):
        out.setdefault(str((o.get("metadata") or {}).get("namespace") or "default"), []).append(o)
    return out


@dataclass
class Admission:
    """One run's admission: the objects it reads and the quota usage it has added."""

    objects: ClusterObjects
    version: SchedulerVersion | None = None
    ledger: QuotaLedger = field(default_factory=QuotaLedger)

    def __post_init__(self) -> None:
        self.priority_classes = priority_classes(self.objects)
        self.default_storage_class = default_storage_class(self.objects)
        self.runtime_classes = {str((rc.get("metadata") or {}).get("name") or ""): rc
                                for rc in self.objects.of("RuntimeClass")}
        self._limit_ranges = _by_namespace(self.objects, "LimitRange")
        self._quotas = _by_namespace(self.objects, "ResourceQuota")
        self._status: dict[tuple[str, str], tuple[ResourceList, ResourceList]] = {}

    @property
    def pod_level_resources(self) -> bool:
        return self.version.enabled("PodLevelResources") if self.version is not None else False

    @property
    def volume_attributes_class(self) -> bool:
        return self.version.enabled("VolumeAttributesClass") if self.version is not None else True

    @cached_property
    def now(self) -> float | None:
        """The quota controller's clock for quotas counted here (resourcequota.source_time)."""
        return source_time(self.objects)

    def limit_ranges(self, namespace: str) -> list[Dict]:
        return self._limit_ranges.get(namespace, [])

    def resource_quotas(self, namespace: str) -> list[Dict]:
        return self._quotas.get(namespace, [])

    @staticmethod
    def quota_key(quota: Dict) -> tuple[str, str]:
        meta = quota.get("metadata") or {}
        return str(meta.get("namespace") or "default"), str(meta.get("name") or "")

    def quota_status(self, quota: Dict) -> tuple[ResourceList, ResourceList]:
        """hard, and used plus what this run charged."""
        key = self.quota_key(quota)
        if key not in self._status:
            status = quota.get("status") or {}
            if status.get("hard") is not None:
                self._status[key] = resource_list(status.get("hard")), resource_list(status.get("used"))
            else:
                self._status[key] = computed_status(quota, self.objects, self.pod_level_resources,
                                                    self.volume_attributes_class, self.now)
        hard, used = self._status[key]
        return hard, add(used, self.ledger.charged.get(key, {}))

    def _run(self, req: Request, charge_quota: bool) -> list[str]:
        warnings: list[str] = []
        for plugin in PLUGINS:
            warnings += plugin.mutate(req, self)
        if req.resource == PODS and LIMIT_RANGER_ANNOTATION in (req.meta.get("annotations") or {}):
            # The API server validates the object between the two phases: a default limit
            # below the container's own request makes the pod invalid.
            errors = validate_object(req.obj)
            if errors:
                text = str(errors[0]) if len(errors) == 1 else "[" + ", ".join(str(e) for e in errors) + "]"
                raise Refused(f'Pod "{req.name}" is invalid: {text}')
        for plugin in PLUGINS:
            if charge_quota or not isinstance(plugin, ResourceQuota):
                plugin.validate(req, self)
        return warnings

    def admit_pod(self, pod: Dict, *, charge_quota: bool = True) -> list[str]:
        """Admit a pod being created (changed in place); returns warnings."""
        return self._run(Request(PODS, pod), charge_quota)

    def admit_stored_pod(self, pod: Dict) -> list[str]:
        """A pod the API server already stored (it has a uid and a creationTimestamp) went
        through admission when it was created and is explained as stored: only what a
        hand-written dump may lack is derived again (Priority, DefaultTolerationSeconds,
        both idempotent on a stored pod)."""
        req = Request(PODS, pod)
        warnings: list[str] = []
        for plugin in PLUGINS:
            if isinstance(plugin, Priority | DefaultTolerationSeconds):
                warnings += plugin.mutate(req, self)
        return warnings

    def admit_claim(self, claim: Dict, *, charge_quota: bool = True) -> list[str]:
        """Admit a PersistentVolumeClaim being created (changed in place); returns warnings."""
        return self._run(Request(CLAIMS, claim), charge_quota)

    def release_pod(self, pod: Dict) -> None:
        """A pod the run deleted: its quota usage is given back (ResourceQuota.release)."""
        quota = PLUGINS[-1]
        assert isinstance(quota, ResourceQuota)
        quota.release(pod, self)

    def charge_pod(self, pod: Dict) -> None:
        """Only ResourceQuota, for a copy of an admitted pod that is created too (raises
        Forbidden once the quota is used up)."""
        PLUGINS[-1].validate(Request(PODS, pod), self)

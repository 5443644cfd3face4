"""Admission: what the API server does to a pod or a PersistentVolumeClaim on create,
before any controller or the scheduler sees it — kube-apiserver's default admission
plugins that change or refuse such objects, one module per plugin named after upstream's
folder under plugin/pkg/admission/, run in upstream's order behind one interface
(:mod:`.interface`): LimitRanger, Priority, DefaultTolerationSeconds, DefaultStorageClass
(``storageclass_setdefault``), RuntimeClass, ResourceQuota.

Use: one :class:`Admission` per run (``Admission(objects, version)``), then
``admit_pod(pod)`` / ``admit_claim(claim)`` for every object the run creates, in the
order they are created; ``charge_pod(pod)`` for each further copy of an admitted pod. The
run's quota usage accumulates in ``Admission.ledger``. A refusal is :class:`Refused`
(an :class:`~kschedx.core.errors.InputError` in the API server's words; an admission
plugin's is its :class:`Forbidden`).

API defaulting (namespace, schedulerName, requests from limits) and the pod strategy's
matchLabelKeys merge stay in :mod:`kschedx.core.load.admission`: they are the registry's,
not admission plugins.

May import: layer 1 of :mod:`kschedx.core`, ``api``, ``load`` and itself.
"""

from kschedx.core.admission.chain import PLUGINS, Admission
from kschedx.core.admission.interface import Forbidden, QuotaLedger, Refused

__all__ = ["PLUGINS", "Admission", "Forbidden", "QuotaLedger", "Refused"]

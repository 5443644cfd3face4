"""Which Services and controllers a pod belongs to, as v1.12's listers answered it."""

from __future__ import annotations

from kschedx.core.api.selectors import LabelSelector, SelectorError, parse_label_selector, selector_from_set
from kschedx.core.legacy.meta import Meta


def _in_namespace(obj: dict[str, object], namespace: str) -> bool:
    meta = obj.get("metadata") or {}
    assert isinstance(meta, dict)
    return (meta.get("namespace") or "default") == namespace


def pod_services(meta: Meta) -> list[LabelSelector]:
    """Selectors of the Services in the pod's namespace whose selector matches the pod (a
    Service without a selector matches nothing), in the dump's order."""
    out = []
    for svc in meta.snapshot.objects.of("Service"):
        if not _in_namespace(svc, meta.pod.namespace):
            continue
        sel = (svc.get("spec") or {}).get("selector")
        if sel is None:
            continue
        s = selector_from_set({str(k): str(v) for k, v in sel.items()})
        if s.matches(meta.pod.labels):
            out.append(s)
    return out


def pod_selectors(meta: Meta) -> list[LabelSelector]:
    """v1.12's getSelectors: the pod's Services, then its ReplicationControllers,
    ReplicaSets and StatefulSets (controllers with an empty selector match nothing, and a
    pod without labels has no controllers)."""
    hit = meta.cache.get("pod_selectors")
    if hit is not None:
        cached: list[LabelSelector] = hit
        return cached
    out = list(pod_services(meta))
    labels = meta.pod.labels
    if labels:
        for rc in meta.snapshot.objects.of("ReplicationController"):
            if not _in_namespace(rc, meta.pod.namespace):
                continue
            sel = (rc.get("spec") or {}).get("selector") or {}
            s = selector_from_set({str(k): str(v) for k, v in sel.items()})
            if s.empty or not s.matches(labels):
                continue
            out.append(s)
        for kind in ("ReplicaSet", "StatefulSet"):
            for obj in meta.snapshot.objects.of(kind):
                if not _in_namespace(obj, meta.pod.namespace):
                    continue
                try:
                    s = parse_label_selector((obj.get("spec") or {}).get("selector"))
                except SelectorError:
                    continue
                if s.empty or not s.matches(labels):
                    continue
                out.append(s)
    meta.cache["pod_selectors"] = out
    return out


def first_service_selector(meta: Meta) -> LabelSelector | None:
    services = pod_services(meta)
    return services[0] if services else None

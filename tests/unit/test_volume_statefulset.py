"""A StatefulSet's pod NAME-0 and its new Pending claims, as the controller and admission create them."""

from __future__ import annotations

from typing import Any

from kschedx.core.admission import Admission
from kschedx.core.api.objects import ClusterObjects
from kschedx.core.config.profile import default_profile
from kschedx.core.explain.front import build_snapshot, pod_info, run
from kschedx.core.load.manifest import expand
from kschedx.core.plugins import REGISTRY
from kschedx.core.plugins.volumebinding import ERR_UNBOUND_IMMEDIATE

from .helpers import node
from .test_volume_builders import storage_class


def _sts(template_spec: dict[str, Any] | None = None, annotations: dict[str, str] | None = None) -> dict[str, Any]:
    vct_meta: dict[str, Any] = {"name": "data", "labels": {"tier": "db"}}
    if annotations:
        vct_meta["annotations"] = annotations
    return {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": "db", "namespace": "prod"},
        "spec": {
            "replicas": 3,
            "selector": {"matchLabels": {"app": "db"}},
            "template": {
                "metadata": {"labels": {"app": "db"}},
                "spec": {
                    "containers": [{"name": "c", "image": "postgres:16"}],
                    "volumes": [{"name": "config", "configMap": {"name": "cfg"}}],
                },
            },
            "volumeClaimTemplates": [
                {
                    "metadata": vct_meta,
                    "spec": template_spec
                    or {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "10Gi"}}},
                }
            ],
        },
    }


def _expand(sts: dict[str, Any], objects: ClusterObjects, path: str) -> Any:
    """The controller's pod and claims, the claims admitted as the API server does it."""
    run = Admission(objects)
    return expand(sts, objects, path, None, lambda claim, pod: run.admit_claim(claim))


def _objects(*objs: dict[str, Any]) -> ClusterObjects:
    out = ClusterObjects()
    for o in objs:
        out.add(o)
    return out


def _claims(inc: Any) -> list[dict[str, Any]]:
    return [o for o in inc.extra_objects if o["kind"] == "PersistentVolumeClaim"]


def test_claim_volume_first_and_pending_claim_with_selector_labels() -> None:
    objects = _objects(storage_class("gp3", default=True))
    inc = _expand(_sts(), objects, "sts.yaml")
    assert inc.pod["metadata"]["name"] == "db-0"
    assert [v["name"] for v in inc.pod["spec"]["volumes"]] == ["data", "config"]
    assert inc.pod["spec"]["volumes"][0]["persistentVolumeClaim"] == {"claimName": "data-db-0"}
    (claim,) = _claims(inc)
    assert claim["metadata"]["name"] == "data-db-0"
    assert claim["metadata"]["namespace"] == "prod"
    assert claim["metadata"]["labels"] == {"tier": "db", "app": "db"}
    assert claim["spec"]["storageClassName"] == "gp3"
    assert claim["status"] == {"phase": "Pending"}


def test_default_class_choice_and_explicit_classes() -> None:
    objects = _objects(
        storage_class("old", default=True, created="2024-01-01T00:00:00Z"),
        storage_class("new-b", default=True, created="2025-01-01T00:00:00Z"),
        storage_class("new-a", default=True, created="2025-01-01T00:00:00Z"),
        storage_class("plain"),
    )
    # The newest default class wins; among equally new ones the first by name.
    assert _claims(_expand(_sts(), objects, "sts.yaml"))[0]["spec"]["storageClassName"] == "new-a"
    # An explicit empty class is a choice: no default is filled in.
    spec = {"accessModes": ["ReadWriteOnce"], "storageClassName": ""}
    assert _claims(_expand(_sts(spec), objects, "sts.yaml"))[0]["spec"]["storageClassName"] == ""
    # So is the beta class annotation, which the claim keeps.
    claim = _claims(_expand(_sts(annotations={"volume.beta.kubernetes.io/storage-class": "plain"}), objects, "x"))[0]
    assert "storageClassName" not in claim["spec"]
    assert claim["metadata"]["annotations"] == {"volume.beta.kubernetes.io/storage-class": "plain"}
    # No default class at all: the claim keeps no class.
    assert "storageClassName" not in _claims(_expand(_sts(), _objects(), "sts.yaml"))[0]["spec"]


def test_existing_claim_is_reused() -> None:
    existing = {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": "data-db-0", "namespace": "prod"},
        "spec": {"storageClassName": "gp3"},
    }
    inc = _expand(_sts(), _objects(storage_class("gp3", default=True), existing), "sts.yaml")
    assert _claims(inc) == []
    assert inc.pod["spec"]["volumes"][0]["persistentVolumeClaim"] == {"claimName": "data-db-0"}


def _explain(*objs: dict[str, Any]) -> Any:
    objects = _objects(node("a"), node("b"), *objs)
    inc = _expand(_sts(), objects, "sts.yaml")
    snap = build_snapshot(objects, inc)
    return run(snap, inc, default_profile(REGISTRY), path="sts.yaml"), pod_info(inc)


def test_new_claim_is_provisioned_or_waits_for_immediate_binding() -> None:
    result, _ = _explain(storage_class("gp3", default=True))
    assert sorted(n for n, v in result.nodes.items() if v.feasible) == ["a", "b"]
    result, _ = _explain(storage_class("gp3", default=True, mode="Immediate"))
    assert result.pre_filter.plugin == "VolumeBinding"
    assert result.pre_filter.reasons == [ERR_UNBOUND_IMMEDIATE]

"""What the API server refuses when a manifest is applied over an object that exists
(core/explain/updates.py): its update validation's immutable fields."""

from __future__ import annotations

from typing import Any

from kschedx.core.explain.updates import live_update_refusal, update_refusal

Dict = dict[str, Any]


def _deployment(labels: Dict, image: str = "web:1") -> Dict:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
            "spec": {"selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": labels}, "spec": {"containers": [{"name": "c", "image": image}]}}}}


def test_a_selector_is_fixed_a_template_is_not() -> None:
    old = _deployment({"app": "web"})
    assert update_refusal(old, _deployment({"app": "web"}, image="web:2")) is None
    assert live_update_refusal(_deployment({"app": "web"}, image="web:2"), old) is None
    refusal = 'Deployment.apps "web" is invalid: spec.selector: Invalid value: {"matchLabels":{"app":"web","tier":"x"}}: ' \
        "field is immutable"
    assert update_refusal(old, _deployment({"tier": "x", "app": "web"})) == refusal
    assert live_update_refusal(_deployment({"tier": "x", "app": "web"}), old) == refusal


def test_a_pods_update_may_change_its_images_and_add_tolerations_only() -> None:
    pod: Dict = {"kind": "Pod", "metadata": {"name": "p"},
                 "spec": {"containers": [{"name": "c", "image": "a:1"}], "tolerations": [{"key": "k", "operator": "Exists"}]}}
    newer = {**pod, "spec": {**pod["spec"], "containers": [{"name": "c", "image": "a:2"}],
                             "tolerations": [*pod["spec"]["tolerations"], {"key": "j", "operator": "Exists"}]}}
    assert update_refusal(pod, newer) is None
    fewer = {**pod, "spec": {**pod["spec"], "tolerations": []}}
    assert update_refusal(pod, fewer) == ('Pod "p" is invalid: spec.tolerations: Forbidden: existing toleration can '
                                          "not be modified except its tolerationSeconds")
    bigger = {**pod, "spec": {**pod["spec"], "containers": [{"name": "c", "image": "a:1",
                                                             "resources": {"requests": {"cpu": "2"}}}]}}
    assert "pod updates may not change fields other than" in (update_refusal(pod, bigger) or "")


def test_a_statefulset_default_written_out_is_no_change() -> None:
    sts: Dict = {"kind": "StatefulSet", "metadata": {"name": "db"},
                 "spec": {"serviceName": "db", "selector": {"matchLabels": {"app": "db"}}, "template": {}}}
    explicit = {**sts, "spec": {**sts["spec"], "podManagementPolicy": "OrderedReady", "replicas": 5}}
    assert update_refusal(sts, explicit) is None
    assert live_update_refusal(explicit, sts) is None
    parallel = {**sts, "spec": {**sts["spec"], "podManagementPolicy": "Parallel"}}
    assert "updates to statefulset spec for fields other than" in (update_refusal(sts, parallel) or "")
    assert "updates to statefulset spec for fields other than" in (live_update_refusal(parallel, sts) or "")

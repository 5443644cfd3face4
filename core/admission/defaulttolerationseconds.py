"""DefaultTolerationSeconds (plugin/pkg/admission/defaulttolerationseconds): a pod that
does not tolerate the not-ready / unreachable NoExecute taints gets a toleration of each
for 300 s (the API server's --default-not-ready-toleration-seconds and
--default-unreachable-toleration-seconds)."""

from __future__ import annotations

from typing import Any

from kschedx.core.admission.interface import PODS, Request, Run

Dict = dict[str, Any]

DEFAULT_TOLERATION_SECONDS = 300
NOT_READY = "node.kubernetes.io/not-ready"
UNREACHABLE = "node.kubernetes.io/unreachable"


def add_default_tolerations(spec: Dict) -> None:
    tolerations = list(spec.get("tolerations") or [])
    not_ready = unreachable = False
    for t in tolerations:
        key = t.get("key") or ""
        effect = t.get("effect") or ""
        if effect not in ("", "NoExecute"):
            continue
        if key in ("", NOT_READY):
            not_ready = True
        if key in ("", UNREACHABLE):
            unreachable = True
    if not not_ready:
        tolerations.append(
            {"key": NOT_READY, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": DEFAULT_TOLERATION_SECONDS}
        )
    if not unreachable:
        tolerations.append(
            {"key": UNREACHABLE, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": DEFAULT_TOLERATION_SECONDS}
        )
    spec["tolerations"] = tolerations


class DefaultTolerationSeconds:
    name = "DefaultTolerationSeconds"

    def mutate(self, req: Request, run: Run) -> list[str]:
        if req.resource == PODS:
            add_default_tolerations(req.spec)
        return []

    def validate(self, req: Request, run: Run) -> None:
        return None

"""The ResourceClaims of a pod, as the scheduler looks them up (``resourceclaim.Name``).

A claim comes from ``resourceClaimName`` or, for ``resourceClaimTemplateName``, from the
pod's ``status.resourceClaimStatuses``.  A pod explained before the resourceclaim
controller has seen it has no such status yet: the claim is then generated from the
template exactly as the controller would create it (name, owner reference, pod-claim
annotation, template labels and spec) and the caller is told so in a warning.
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from kschedx.core.api.model import PodInfo

Dict = dict[str, Any]

POD_CLAIM_NAME_ANNOTATION = "resource.kubernetes.io/pod-claim-name"
# The apiserver's alphabet for generated name suffixes (no vowels, no confusable digits).
_SUFFIX_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"


class ClaimLookupError(Exception):
    """The pod cannot be scheduled until its claims exist (upstream: UnschedulableAndUnresolvable)."""


@dataclass
class PodClaims:
    """The claims of one pod in spec order (claims the pod chose not to have are left out)."""

    claims: list[Dict] = field(default_factory=list)
    pod_claim_names: list[str] = field(default_factory=list)
    generated: list[Dict] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    error: str | None = None


def _meta(obj: Dict) -> Dict:
    m = obj.get("metadata")
    return m if isinstance(m, dict) else {}


class ClaimCatalog:
    """ResourceClaims and ResourceClaimTemplates of the cluster, by namespace and name."""

    def __init__(self, claims: Iterable[Dict], templates: Iterable[Dict]) -> None:
        self.claims: dict[tuple[str, str], Dict] = {}
        self.templates: dict[tuple[str, str], Dict] = {}
        for c in claims:
            m = _meta(c)
            self.claims[(m.get("namespace") or "default", m.get("name") or "")] = c
        for t in templates:
            m = _meta(t)
            self.templates[(m.get("namespace") or "default", m.get("name") or "")] = t

    def owned_claim(self, pod: PodInfo, pod_claim: str) -> Dict | None:
        """A claim the controller created earlier for this pod claim (``findPodResourceClaim``)."""
        for (ns, _name), c in self.claims.items():
            if ns != pod.namespace:
                continue
            m = _meta(c)
            if (m.get("annotations") or {}).get(POD_CLAIM_NAME_ANNOTATION) != pod_claim:
                continue
            if is_controlled_by(c, pod):
                return c
        return None


def is_controlled_by(claim: Dict, pod: PodInfo) -> bool:
    for ref in _meta(claim).get("ownerReferences") or []:
        if ref.get("controller"):
            return bool(str(ref.get("uid") or "") == pod.uid)
    return False


def generated_claim_name(pod_name: str, pod_claim: str, seed: str) -> str:
    """``<pod>-<claim>-xxxxx`` as the controller asks for it with generateName.

    Long names are cut proportionally, as the controller does, so both parts stay
    recognizable; the 5-character suffix is derived from the pod so runs are repeatable.
    """
    base = f"{pod_name}-{pod_claim}-"
    max_base = 57
    if len(base) > max_base:
        total = len(base)
        base = pod_name[: len(pod_name) * max_base // total] + "-" + pod_claim[: len(pod_claim) * max_base // total]
    digest = hashlib.sha256(f"{seed}/{pod_claim}".encode()).digest()
    suffix = "".join(_SUFFIX_ALPHABET[b % len(_SUFFIX_ALPHABET)] for b in digest[:5])
    return base + suffix


def claim_from_template(pod: PodInfo, pod_claim: str, template: Dict) -> Dict:
    """The ResourceClaim the resourceclaim controller creates for a pod claim."""
    tspec = ((template.get("spec") or {}).get("metadata")) or {}
    annotations = dict(tspec.get("annotations") or {})
    annotations[POD_CLAIM_NAME_ANNOTATION] = pod_claim
    name = generated_claim_name(pod.name, pod_claim, pod.uid)
    meta: Dict = {
        "name": name,
        "namespace": pod.namespace,
        "uid": f"kschedx-generated-{name}",
        "annotations": annotations,
        "ownerReferences": [
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "name": pod.name,
                "uid": pod.uid,
                "controller": True,
                "blockOwnerDeletion": True,
            }
        ],
    }
    if tspec.get("labels"):
        meta["labels"] = dict(tspec["labels"])
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": meta,
        "spec": copy.deepcopy(((template.get("spec") or {}).get("spec")) or {}),
    }


def resolve(pod: PodInfo, catalog: ClaimCatalog) -> PodClaims:
    """``foreachPodResourceClaim`` with the resourceclaim controller's work done first."""
    out = PodClaims()
    statuses = {
        str(s.get("name") or ""): s for s in (pod.status.get("resourceClaimStatuses") or []) if isinstance(s, dict)
    }
    for pc in pod.spec.get("resourceClaims") or []:
        pc_name = str(pc.get("name") or "")
        if pc.get("resourceClaimName") is not None:
            claim_name: str | None = str(pc["resourceClaimName"])
            check_owner = False
        elif pc.get("resourceClaimTemplateName") is not None:
            check_owner = True
            st = statuses.get(pc_name)
            if st is not None:
                raw_name = st.get("resourceClaimName")
                claim_name = str(raw_name) if raw_name is not None else None
            else:
                claim_name = _controller_create(pod, pc_name, str(pc["resourceClaimTemplateName"]), catalog, out)
                if claim_name is None and out.error is None:
                    out.error = f'pod "{pod.namespace}/{pod.name}": ResourceClaim not created yet'
                if out.error is not None:
                    return out
        else:
            out.error = (
                f'pod "{pod.namespace}/{pod.name}", spec.resourceClaim "{pc_name}": none of the supported fields are set'
            )
            return out
        if claim_name is None:
            continue  # the claim was intentionally not created; valid, skipped
        claim = catalog.claims.get((pod.namespace, claim_name))
        if claim is None:
            claim = next((g for g in out.generated if _meta(g).get("name") == claim_name), None)
        if claim is None:
            out.error = f'could not find ResourceClaim "{pod.namespace}/{claim_name}"'
            return out
        if _meta(claim).get("deletionTimestamp"):
            out.error = f'resourceclaim "{claim_name}" is being deleted'
            return out
        if check_owner and not is_controlled_by(claim, pod):
            out.error = (
                f"ResourceClaim {pod.namespace}/{claim_name} was not created for pod "
                f"{pod.namespace}/{pod.name} (pod is not owner)"
            )
            return out
        out.claims.append(claim)
        out.pod_claim_names.append(pc_name)
    return out


def _controller_create(pod: PodInfo, pc_name: str, template_name: str, catalog: ClaimCatalog, out: PodClaims) -> str | None:
    existing = catalog.owned_claim(pod, pc_name)
    if existing is not None:
        name = str(_meta(existing).get("name") or "")
        out.warnings.append(
            f"pod claim {pc_name!r} has no status yet; using ResourceClaim {pod.namespace}/{name}, "
            "which the resourceclaim controller already created for it"
        )
        return name
    template = catalog.templates.get((pod.namespace, template_name))
    if template is None:
        out.warnings.append(
            f"ResourceClaimTemplate {pod.namespace}/{template_name} of pod claim {pc_name!r} does not exist: "
            "the resourceclaim controller cannot create the claim"
        )
        return None
    claim = claim_from_template(pod, pc_name, template)
    out.generated.append(claim)
    name = str(claim["metadata"]["name"])
    out.warnings.append(
        f"generated ResourceClaim {pod.namespace}/{name} from ResourceClaimTemplate {template_name} "
        f"for pod claim {pc_name!r}, as the resourceclaim controller would create it"
    )
    return name

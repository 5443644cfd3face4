"""RuntimeClass (plugin/pkg/admission/runtimeclass), for a pod naming ``runtimeClassName``:

- mutating: ``spec.overhead`` becomes the class's ``overhead.podFixed`` (a different
  overhead already on the pod is refused); the class's ``scheduling.nodeSelector`` is
  merged into the pod's (the same key with another value is refused) and its
  ``scheduling.tolerations`` merged with the pod's (MergeTolerations: a toleration another
  one already covers is dropped);
- validating: the overhead must equal the class's; an overhead without a class that
  defines one is refused.

A class that does not exist is refused (``pod rejected: RuntimeClass "X" not found``).
A cluster source holding no RuntimeClass at all (an older dump, no RBAC to list them)
can't tell a missing class from one it did not read: a warning instead, and the pod's
own overhead is taken as written.
The overhead then counts in NodeResourcesFit, quotas and NodeResourcesBalancedAllocation.
"""

from __future__ import annotations

from typing import Any

from kschedx.core.admission.interface import PODS, Request, Run
from kschedx.core.admission.quantities import resource_list

Dict = dict[str, Any]


def _same_quantities(a: Any, b: Any) -> bool:
    """Semantic equality of two ResourceLists (quantities by value)."""
    qa, qb = resource_list(a), resource_list(b)
    return qa.keys() == qb.keys() and all(qa[k].amount == qb[k].amount for k in qa)


def _is_superset(ss: Dict, t: Dict) -> bool:
    """Whether toleration ``ss`` tolerates everything ``t`` does (isSuperset)."""
    if ss == t:
        return True
    if t.get("key", "") != ss.get("key", "") and (ss.get("key") or ss.get("operator") != "Exists"):
        return False
    if t.get("effect", "") != ss.get("effect", "") and ss.get("effect"):
        return False
    if ss.get("effect") == "NoExecute" and ss.get("tolerationSeconds") is not None:
        if t.get("tolerationSeconds") is None or int(t["tolerationSeconds"]) > int(ss["tolerationSeconds"]):
            return False
    op = ss.get("operator") or "Equal"
    if op == "Equal":
        return (t.get("operator") or "Equal") == "Equal" and t.get("value", "") == ss.get("value", "")
    return op == "Exists"


def merge_tolerations(first: list[Dict], second: list[Dict]) -> list[Dict]:
    """MergeTolerations: both lists, without the tolerations another one covers (of equal
    ones the first stays)."""
    every = [t for t in [*first, *second] if isinstance(t, dict)]
    merged: list[Dict] = []
    for i, t in enumerate(every):
        if any(_is_superset(m, t) for m in merged):
            continue
        if any(t != later and _is_superset(later, t) for later in every[i + 1:]):
            continue
        merged.append(t)
    return merged


class RuntimeClass:
    name = "RuntimeClass"

    def _class(self, req: Request, run: Run) -> Dict | None:
        name = req.spec.get("runtimeClassName")
        if not name:
            return None
        rc = run.runtime_classes.get(str(name))
        if rc is None and run.runtime_classes:
            raise req.forbid(f'pod rejected: RuntimeClass "{name}" not found')
        return rc

    def mutate(self, req: Request, run: Run) -> list[str]:
        if req.resource != PODS:
            return []
        rc = self._class(req, run)
        if rc is None:
            name = req.spec.get("runtimeClassName")
            # A source without any RuntimeClass (an older dump, no RBAC to list them) can't
            # tell a missing class from one it did not read.
            return [f"RuntimeClass {name} is not in the cluster source: its overhead and scheduling are not "
                    "applied"] if name else []
        spec = req.spec
        overhead = (rc.get("overhead") or {}).get("podFixed")
        if overhead is not None:
            if spec.get("overhead") and not _same_quantities(spec["overhead"], overhead):
                raise req.forbid("pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead")
            spec["overhead"] = dict(overhead)
        scheduling = rc.get("scheduling")
        if isinstance(scheduling, dict):
            selector = dict(spec.get("nodeSelector") or {})
            for key, value in (scheduling.get("nodeSelector") or {}).items():
                if key in selector and selector[key] != value:
                    raise req.forbid(f"conflict: runtimeClass.scheduling.nodeSelector[{key}] = {value}; "
                                     f"pod.spec.nodeSelector[{key}] = {selector[key]}")
                selector[key] = value
            if selector:
                spec["nodeSelector"] = selector
            merged = merge_tolerations(list(spec.get("tolerations") or []), list(scheduling.get("tolerations") or []))
            if merged:
                spec["tolerations"] = merged
        return []

    def validate(self, req: Request, run: Run) -> None:
        if req.resource != PODS or not run.runtime_classes:
            return  # a source without RuntimeClasses can't tell which overhead is right
        rc = self._class(req, run)
        if rc is None and req.spec.get("runtimeClassName"):
            return  # not in the source (see mutate)
        overhead = (rc.get("overhead") or {}).get("podFixed") if rc is not None else None
        if overhead is not None:
            if not _same_quantities(overhead, req.spec.get("overhead")):
                raise req.forbid("pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead")
        elif req.spec.get("overhead") is not None:
            raise req.forbid("pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead")

"""DeviceTaintRules (DRADeviceTaintRules, beta and off by default in v1.36).

A DeviceTaintRule adds its taint to every device its selector picks (driver, pool, device
names); the scheduler's ResourceSlice lister (``ListWithDeviceTaintRules``) hands the
allocator slices with those taints added, so tolerations decide as for a slice's own taints.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

Dict = dict[str, Any]


def _selected(selector: Dict, driver: str, pool: str, device: str) -> bool:
    for field, value in (("driver", driver), ("pool", pool), ("device", device)):
        want = selector.get(field)
        if want is not None and want != value:
            return False
    return True


def apply_taint_rules(slices: Iterable[Dict], rules: Iterable[Dict]) -> list[Dict]:
    """The slices with the rules' taints added to the devices they select (copies where changed)."""
    active = [r for r in rules if isinstance((r.get("spec") or {}).get("taint"), dict)]
    out: list[Dict] = []
    for sl in slices:
        if not active:
            out.append(sl)
            continue
        spec = sl.get("spec") or {}
        driver = str(spec.get("driver") or "")
        pool = str((spec.get("pool") or {}).get("name") or "")
        changed: Dict | None = None
        for i, dev in enumerate(spec.get("devices") or []):
            name = str(dev.get("name") or "")
            extra = [dict(r["spec"]["taint"]) for r in active
                     if _selected((r.get("spec") or {}).get("deviceSelector") or {}, driver, pool, name)]
            if not extra:
                continue
            if changed is None:
                changed = copy.deepcopy(sl)
            target = changed["spec"]["devices"][i]
            target["taints"] = list(target.get("taints") or []) + extra
        out.append(changed if changed is not None else sl)
    return out

"""core/api/objects.py controlled_by: a Deployment's ReplicaSets found through an index kept
across the manifests of a run, answering as a scan of the list does whatever happened to it."""

from __future__ import annotations

import random
from typing import Any

from kschedx.core.api import objects as objects_module
from kschedx.core.api.objects import controlled_by

Dict = dict[str, Any]


def _rs(name: str, ns: str | None, owner: str, controller: Any = True, kind: str = "Deployment") -> Dict:
    meta: Dict = {"name": name, "ownerReferences": [{"kind": kind, "name": owner, "controller": controller}]}
    if ns is not None:
        meta["namespace"] = ns
    return {"kind": "ReplicaSet", "metadata": meta}


def _scan(items: list[Dict], ns: str, kind: str, name: str) -> list[Dict]:
    out = []
    for o in items:
        m = o.get("metadata") or {}
        if (m.get("namespace") or "default") == ns and any(
                isinstance(r, dict) and r.get("controller") and r.get("kind") == kind and r.get("name") == name
                for r in m.get("ownerReferences") or []):
            out.append(o)
    return out


def test_answers_as_a_scan_while_lists_grow_are_copied_and_change() -> None:
    rng = random.Random(7)
    owners = [f"d{i}" for i in range(6)]

    def some() -> Dict:
        return _rs(f"rs{rng.random()}", rng.choice(["a", "b", None]), rng.choice(owners),
                   rng.choice([True, True, False, None]), rng.choice(["Deployment", "Deployment", "StatefulSet"]))

    objects_module._CONTROLLED.clear()
    items = [some() for _ in range(40)]
    for step in range(300):
        what = rng.random()
        if what < 0.3:
            items.append(some())  # grows in place
        elif what < 0.55:
            items = [*items, some()]  # a copy with one more (a release's next workload)
        elif what < 0.6:
            items = [o for o in items if rng.random() < 0.9]  # filtered into a new list
        elif what < 0.65 and items:
            items[rng.randrange(len(items))] = some()  # another object in its place
        elif what < 0.7:
            items[:] = [o for o in items if rng.random() < 0.9] + [some()]  # refilled in place
        elif what < 0.75 and items:
            # Changed in place: another owner for one of them.
            items[rng.randrange(len(items))]["metadata"]["ownerReferences"][0]["name"] = rng.choice(owners)
            objects_module._CONTROLLED.clear()  # the index is told (the one case it cannot see)
        for ns in ("a", "b", "default"):
            for kind in ("Deployment", "StatefulSet"):
                for name in owners:
                    got = controlled_by(items, ns, kind, name)
                    assert got == _scan(items, ns, kind, name), step
                    assert all(any(g is o for o in items) for g in got)


def test_a_hit_changed_in_place_is_looked_up_again() -> None:
    objects_module._CONTROLLED.clear()
    items = [_rs("one", "a", "web"), _rs("two", "a", "web")]
    assert controlled_by(items, "a", "Deployment", "web") == items
    items[0]["metadata"]["ownerReferences"][0]["name"] = "api"
    assert controlled_by(items, "a", "Deployment", "web") == [items[1]]
    assert controlled_by(items, "a", "Deployment", "api") == [items[0]]

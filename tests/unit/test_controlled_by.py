"""core/api/objects.py: controlled_by (a Deployment's ReplicaSets), named and in_namespace
found through indexes kept across the manifests of a run, answering as a scan of the list
does whatever happened to it; and a ClusterObjects overlay sharing its lists until it adds."""

from __future__ import annotations

import random
from typing import Any

from kschedx.core.api import objects as objects_module
from kschedx.core.api.objects import ClusterObjects, controlled_by, in_namespace, named

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


def test_named_and_in_namespace_answer_as_a_scan_while_lists_grow_and_change() -> None:
    rng = random.Random(11)
    names = [f"n{i}" for i in range(5)]

    def some() -> Dict:
        meta: Dict = {"name": rng.choice(names)}
        ns = rng.choice(["a", "b", None])
        if ns is not None:
            meta["namespace"] = ns
        return {"kind": "Service", "metadata": meta}

    objects_module._NAMED.clear()
    objects_module._NAMESPACED.clear()
    items = [some() for _ in range(30)]
    for step in range(200):
        what = rng.random()
        if what < 0.4:
            items.append(some())
        elif what < 0.7:
            items = [*items, some()]
        elif what < 0.8:
            items = [o for o in items if rng.random() < 0.9]
        elif items:
            items[rng.randrange(len(items))] = some()
        for ns in ("a", "b", "default"):
            members = [o for o in items if (o["metadata"].get("namespace") or "default") == ns]
            assert in_namespace(items, ns) == members, step
            for name in names:
                last = [o for o in members if o["metadata"]["name"] == name][-1:]
                assert named(items, ns, name) is (last[0] if last else None), step


def test_an_overlay_shares_lists_until_it_adds_and_never_changes_its_base() -> None:
    base = ClusterObjects()
    pod = {"kind": "Pod", "metadata": {"name": "p"}}
    deploy = {"kind": "Deployment", "metadata": {"name": "d"}}
    base.add(pod)
    base.add(deploy)
    over = base.overlay()
    assert over.of("Pod") is base.of("Pod")  # shared, not copied
    extra = {"kind": "Deployment", "metadata": {"name": "e"}}
    over.add(extra)
    over.add({"kind": "Pod", "metadata": {"name": "q"}})
    assert base.of("Deployment") == [deploy] and base.workloads["Deployment"] == [deploy]
    assert base.of("Pod") == [pod]
    assert over.of("Deployment") == [deploy, extra] and over.workloads["Deployment"] == [deploy, extra]
    assert [p["metadata"]["name"] for p in over.of("Pod")] == ["p", "q"]
    again = over.overlay()
    again.add({"kind": "Pod", "metadata": {"name": "r"}})
    assert len(over.of("Pod")) == 2 and len(again.of("Pod")) == 3

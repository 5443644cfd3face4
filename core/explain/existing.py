"""Objects that already exist in the cluster source: kubectl-style references to them, and
the identity of a pod being explained.

The real scheduler never has the pod it schedules in its cache. A pod that is explained
while the cluster source holds it (same namespace and name, or same uid) is therefore taken
out before its cycle, with everything it holds: its requests and host ports on its node,
its volumes, its place in spread and (anti-)affinity counts, its nomination, and the
reservation of its ResourceClaims for it. What the cycle decides is then compared with
where the pod is now.
"""

from __future__ import annotations

import copy
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from kschedx.core.api.objects import ClusterObjects, pod_key
from kschedx.core.errors import InputError
from kschedx.core.framework.result import CurrentPlacement, CycleResult
from kschedx.core.load.references import Reference, parse_reference, unexplained_kind

if TYPE_CHECKING:
    from kschedx.core.api.model import PodInfo
    from kschedx.core.config.profile import Profile
    from kschedx.core.explain.report import Explanation
    from kschedx.core.snapshot import Snapshot

Dict = dict[str, Any]


def find_object(objects: ClusterObjects, ref: Reference, namespace: str, source: str) -> Dict:
    """The object ``ref`` names in a loaded cluster source, or an InputError in kubectl's
    words (and whether the source holds that kind at all)."""
    kind = ref.kind.kind
    candidates = objects.of(kind)
    for o in candidates:
        meta = o.get("metadata") or {}
        if meta.get("name") == ref.name and (meta.get("namespace") or "default") == namespace:
            return copy.deepcopy(o)
    if not candidates:
        raise InputError(f"{ref}: {source} holds no {kind} at all (dump it with "
                         f"kubectl get {ref.kind.resource} -A -o yaml)")
    elsewhere = sorted({(o.get("metadata") or {}).get("namespace") or "default"
                        for o in candidates if (o.get("metadata") or {}).get("name") == ref.name})
    hint = f"; there is one in namespace {', '.join(elsewhere)} (use -n)" if elsewhere else ""
    raise InputError(f'{ref}: {ref.kind.qualified} "{ref.name}" not found in namespace "{namespace}" '
                     f"of {source}{hint}")


ReferenceLookup = Callable[[Reference, str], Dict]


def resolve_manifest(
    manifest: str,
    objects: ClusterObjects,
    *,
    doc: str | None = None,
    namespace: str | None = None,
    source: str = "the cluster",
    lookup: ReferenceLookup | None = None,
) -> Dict:
    """The object to explain: a document of the manifest file (or stdin), or the object a
    reference names, from ``lookup`` (the live cluster's GET) or else the loaded source."""
    from kschedx.core.load.manifest import select_document

    ref = parse_reference(manifest)
    if ref is None:
        unexplained = unexplained_kind(manifest)
        if unexplained is not None:
            raise InputError(unexplained)
        return select_document(manifest, doc)
    if doc is not None:
        raise InputError(f"{ref}: --doc picks a document of a manifest file, not of a reference")
    ns = namespace or "default"
    if lookup is not None:
        return lookup(ref, ns)
    return find_object(objects, ref, ns, source)


# --------------------------------------------------------------------------- identity


def find_existing(objects: ClusterObjects, pod: Dict) -> Dict | None:
    """The cluster source's copy of ``pod``: same namespace and name, or same uid."""
    return objects.find_pod(*pod_key(pod))


def _phase(raw: Dict) -> str:
    return str((raw.get("status") or {}).get("phase") or ("Running" if (raw.get("spec") or {}).get("nodeName")
                                                            else "Pending"))


def _names_pod(entry: Dict, ns: str, name: str, uid: str) -> bool:
    if entry.get("resource") not in (None, "", "pods") or entry.get("apiGroup"):
        return False
    return bool((uid and entry.get("uid") == uid) or entry.get("name") == name)


def _strip_reservations(claims: list[Dict], raw: Dict) -> list[Dict] | None:
    """The claims with ``raw``'s reservedFor entries removed; None when none names it."""
    ns, name, uid = pod_key(raw)
    out: list[Dict] = []
    changed = False
    for c in claims:
        if ((c.get("metadata") or {}).get("namespace") or "default") == ns:
            reserved = (c.get("status") or {}).get("reservedFor") or []
            kept = [e for e in reserved if not _names_pod(e, ns, name, uid)]
            if len(kept) != len(reserved):
                c = dict(c, status=dict(c.get("status") or {}, reservedFor=kept))
                changed = True
        out.append(c)
    return out if changed else None


def take_out(objects: ClusterObjects, pod: Dict) -> tuple[ClusterObjects, CurrentPlacement | None]:
    """``objects`` without the cluster's copy of ``pod`` (and its claim reservations), and
    where that copy is now; ``objects`` itself when the source does not hold the pod."""
    raw = find_existing(objects, pod)
    if raw is None:
        return objects, None
    out = objects.copy()
    out.by_kind["Pod"] = [p for p in out.of("Pod") if p is not raw]
    claims = _strip_reservations(out.of("ResourceClaim"), raw)
    if claims is not None:
        out.by_kind["ResourceClaim"] = claims
    return out, _placement(raw)


def _placement(raw: Dict) -> CurrentPlacement:
    spec = raw.get("spec") or {}
    status = raw.get("status") or {}
    return CurrentPlacement(
        node=spec.get("nodeName") or None,
        phase=_phase(raw),
        nominated_node=status.get("nominatedNodeName") or None,
        scheduler_name=spec.get("schedulerName") or "default-scheduler",
        raw=raw,
    )


@contextmanager
def detached(snapshot: Snapshot, raw: Dict) -> Iterator[CurrentPlacement]:
    """The pod ``raw`` (a Pod of ``snapshot.objects``) taken out of a built snapshot for the
    duration of the block, and put back afterwards: for commands that run many cycles on one
    snapshot (``pending``, ``check``), where rebuilding it per pod would cost pods × pods."""
    ns, name, uid = pod_key(raw)
    bound = _first_bound(snapshot, ns, name, uid, raw)
    nominated: list[tuple[str, int, PodInfo]] = []
    for node, pods in snapshot.nominated.items():
        for i, p in enumerate(pods):
            if p.raw is raw or (p.namespace == ns and p.name == name):
                nominated.append((node, i, p))
    claims = snapshot.objects.of("ResourceClaim")
    stripped = _strip_reservations(claims, raw)
    if bound is not None:
        snapshot.remove_pod(bound)
    for node, i, _p in reversed(nominated):
        del snapshot.nominated[node][i]
    if stripped is not None:
        snapshot.objects.by_kind["ResourceClaim"] = stripped
    try:
        yield _placement(raw)
    finally:
        if stripped is not None:
            snapshot.objects.by_kind["ResourceClaim"] = claims
        for node, i, p in nominated:
            snapshot.nominated[node].insert(i, p)
        if bound is not None and snapshot.get(bound.node_name) is not None:
            snapshot.add_pod(bound)


def detach_changes_nothing(snapshot: Snapshot, raw: Dict) -> bool:
    """Whether ``detached(snapshot, raw)`` would leave the snapshot as it is: no bound copy of
    the pod, no nominated entry of it (or of its uid), no claim reserved for it."""
    ns, name, uid = pod_key(raw)
    if _first_bound(snapshot, ns, name, uid, raw) is not None:
        return False
    for pods in snapshot.nominated.values():
        for p in pods:
            if p.raw is raw or (p.namespace == ns and p.name == name) or (uid and p.uid == uid):
                return False
    return _strip_reservations(snapshot.objects.of("ResourceClaim"), raw) is None


def _first_bound(snapshot: Snapshot, ns: str, name: str, uid: str, raw: Dict) -> PodInfo | None:
    """The first bound pod of namespace ``ns`` (in the snapshot's order) that is ``raw``, or
    has its name, or its uid: one look-up in a per-snapshot index instead of a pass over
    the namespace's pods for every pod ``pending`` explains."""
    index = _BOUND.get(snapshot)
    if index is None or index[0] != snapshot.generation:
        by_ns: dict[str, tuple[dict[Any, tuple[int, PodInfo]], ...]] = {}
        for namespace, pods in snapshot.pods_by_namespace.items():
            by_raw: dict[Any, tuple[int, PodInfo]] = {}
            by_name: dict[Any, tuple[int, PodInfo]] = {}
            by_uid: dict[Any, tuple[int, PodInfo]] = {}
            for pos, p in enumerate(pods.values()):
                by_raw.setdefault(id(p.raw), (pos, p))
                by_name.setdefault(p.name, (pos, p))
                if p.uid:
                    by_uid.setdefault(p.uid, (pos, p))
            by_ns[namespace] = (by_raw, by_name, by_uid)
        index = _BOUND[snapshot] = (snapshot.generation, by_ns)
    tables = index[1].get(ns)
    if tables is None:
        return None
    hits = [tables[0].get(id(raw)), tables[1].get(name), tables[2].get(uid) if uid else None]
    found = [h for h in hits if h is not None and (h[1].raw is raw or h[1].name == name or (uid and h[1].uid == uid))]
    return min(found, key=lambda h: h[0])[1] if found else None


_BOUND: weakref.WeakKeyDictionary[Snapshot, tuple[int, dict[str, tuple[dict[Any, tuple[int, PodInfo]], ...]]]] = \
    weakref.WeakKeyDictionary()


# --------------------------------------------------------------------------- agreement


def pod_events(objects: ClusterObjects, raw: Dict, events: list[Dict] | None = None) -> list[Dict]:
    """The events of the cluster source about pod ``raw`` (its uid decides when both have one),
    among ``events`` when given (a subset of the source's Events holding all of them)."""
    ns, name, uid = pod_key(raw)
    out = []
    for e in objects.of("Event") if events is None else events:
        inv = e.get("involvedObject") or e.get("regarding") or {}
        if inv.get("kind") not in (None, "Pod") or inv.get("name") != name:
            continue
        if (inv.get("namespace") or (e.get("metadata") or {}).get("namespace") or "default") != ns:
            continue
        if uid and inv.get("uid") and inv.get("uid") != uid:
            continue
        out.append(e)
    return out


def events_by_pod_name(objects: ClusterObjects) -> dict[str, list[Dict]]:
    """The source's Events by the name of the object they are about, in their order: for
    ``pod_events`` over many pods."""
    out: dict[str, list[Dict]] = {}
    for e in objects.of("Event"):
        inv = e.get("involvedObject") or e.get("regarding") or {}
        name = inv.get("name") if isinstance(inv, dict) else None
        if isinstance(name, str):  # no pod has another kind of name
            out.setdefault(name, []).append(e)
    return out


# Upstream evaluates every node of clusters below this size (minFeasibleNodesToFind).
_MIN_NODES_SAMPLED = 100


def assess(
    current: CurrentPlacement,
    result: CycleResult,
    profiles: set[str] | None = None,
    events: list[Dict] | None = None,
) -> CurrentPlacement:
    """Whether the cycle agrees with where the pod is, and when not, the likely causes
    kschedx can see from the cluster source."""
    if current.node is None:
        current.agrees = None
        verdict = result.nodes.get(current.nominated_node or "")
        if verdict is not None and verdict.feasible and result.selected_node != current.nominated_node:
            result.warnings.append(
                f"the pod is nominated to {current.nominated_node}, which passes every filter: the real scheduler "
                "tries a nominated node first and binds it without scoring the others")
        return current
    node = current.node
    current.agrees = result.selected_node == node
    if current.agrees:
        return current
    causes = current.causes
    verdict = result.nodes.get(node)
    raw = current.raw
    meta = raw.get("metadata") or {}
    annotations = meta.get("annotations") or {}
    if "kubernetes.io/config.mirror" in annotations:
        causes.append(f"a static pod: the kubelet of {node} runs it from its manifest, no scheduler placed it")
    elif events and not any(e.get("reason") == "Scheduled" for e in events):
        # The kubelet sets PodScheduled on every pod it runs, so only the scheduler's own
        # "Scheduled" event tells a scheduled pod from one created with spec.nodeName.
        causes.append("its events hold no Scheduled event from a scheduler: it was likely created with "
                      "spec.nodeName, without the scheduler")
    if current.scheduler_name != result.profile:
        causes.append(f"it names schedulerName {current.scheduler_name}; this cycle ran profile {result.profile}")
    elif profiles is not None and current.scheduler_name not in profiles:
        causes.append(f"no profile of this configuration is named {current.scheduler_name}")
    if verdict is None:
        causes.append(f"{node} is not a node of the cluster source any more")
    elif not verdict.feasible:
        why = "; ".join(verdict.reasons) or verdict.code or "rejected"
        causes.append(f"{node} is infeasible now: {verdict.plugin or verdict.rejected_at}: {why} "
                      "(tainted, cordoned, full or changed since the pod was placed)")
    elif node in result.best_nodes:
        causes.append(f"a tie the scheduler broke at random: {node} is one of the {len(result.best_nodes)} best "
                      f"nodes at total {result.totals.get(node)}")
    elif node in result.totals and result.selected_node is not None:
        causes.append(f"{node} scores {result.totals[node]} now against {result.totals.get(result.selected_node)} "
                      f"on {result.selected_node}: the cluster changed since the pod was placed")
    k = result.num_feasible_nodes_to_find
    sampling = result.sampling
    if sampling is not None and verdict is not None and verdict.feasible:
        # The odds say how likely the scheduler's own choice was, whatever the cycle's best.
        share = sampling.odds.get(node)
        if not sampling.same_window_for_every_start and share:
            causes.append(f"node sampling: the scheduler scores {sampling.window_size} of the "
                          f"{sampling.num_feasible} feasible nodes per cycle, and a cycle now chooses {node} in "
                          f"{float(share):.1%} of cycles")
        elif not sampling.same_window_for_every_start:
            causes.append(f"node sampling: the scheduler scores {sampling.window_size} of the "
                          f"{sampling.num_feasible} feasible nodes per cycle, yet no window now would choose {node}: "
                          "the cluster changed since the pod was placed")
    elif sampling is None and result.num_all_nodes >= _MIN_NODES_SAMPLED and k is not None \
            and k < result.num_all_nodes:
        causes.append(f"node sampling: the scheduler stops after {k} feasible nodes of {result.num_all_nodes} "
                      "(percentageOfNodesToScore), so it may never have seen the best node")
    return current


def annotate(
    out: Explanation,
    current: CurrentPlacement | None,
    snapshot: Snapshot,
    source: str,
    profiles: dict[str, Profile] | None = None,
) -> Explanation:
    """What an explanation learns from the cluster source beyond the cycle: where the pod is
    now (on its first cycle), and a source without any Node."""
    if current is not None and out.steps and out.mode != "daemonset":
        if current.node is not None:
            # The pod is the cluster's own: "would never reach the scheduler" is not news here.
            for result in out.steps[:1]:
                result.warnings = [
                    f"the pod runs on {current.node}: explained as the cycle the scheduler would run for it now, "
                    "taken out of the cluster with everything it holds" if "already has spec.nodeName" in w else w
                    for w in result.warnings
                ]
        events = pod_events(snapshot.objects, current.raw)
        out.steps[0].current = assess(current, out.steps[0], set(profiles) if profiles else None, events)
    if not snapshot.nodes():
        for result in [*out.steps, *([out.daemon_template] if out.daemon_template else [])]:
            result.warnings.append(f"no Node in {source}: the scheduler has no node to schedule the pod onto")
    return out


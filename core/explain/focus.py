"""``explain --node NODE``: the whole story of one node.

Every filter plugin's verdict on the node (not only the first failure; the one the
scheduler reports is marked), the inputs behind each score plugin's number, and a
plain-language hint: the smallest single change that makes the node feasible, or what it
would take to win. The verdicts and scores come from the cycle itself (run with every
failing filter recorded); this module only reads the pod, the node and the snapshot to
describe them, and never changes a decision.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from difflib import get_close_matches
from fractions import Fraction
from typing import Any

from kschedx.core.api.model import PodInfo, pod_level_requests
from kschedx.core.api.selectors import parse_node_selector_term, tolerates
from kschedx.core.framework.interface import PluginSet
from kschedx.core.framework.result import FAIL, NOT_RUN, PASS, SKIPPED, CycleResult, FilterCheck, NodeStory, ScoreDetail
from kschedx.core.plugins.imagelocality import normalized_image_name
from kschedx.core.plugins.noderesources_allocation import allocation_vectors, pod_request_list
from kschedx.core.plugins.noderesources_fit import fits_request, score_requests
from kschedx.core.snapshot import NodeInfo, Snapshot

# --------------------------------------------------------------------------- formatting


def fmt_amount(resource: str, value: int) -> str:
    """An amount as a person reads it: millicores for cpu, binary units for bytes."""
    if resource == "cpu":
        return f"{value}m"
    if resource in ("memory", "ephemeral-storage") or resource.startswith("hugepages-"):
        for unit, size in (("Gi", 1 << 30), ("Mi", 1 << 20), ("Ki", 1 << 10)):
            if value >= size:
                q = Fraction(value, size)
                return f"{float(q):.1f}{unit}".replace(".0" + unit, unit)
        return f"{value}"
    return str(value)


def _pct(num: int, den: int) -> str:
    return f"{num * 100 // den}%" if den else "n/a"


# --------------------------------------------------------------------------- filters


def filter_checks(result: CycleResult, plugins: PluginSet, node: str) -> tuple[list[FilterCheck], str | None]:
    verdict = result.nodes.get(node)
    skipped = set(result.pre_filter.skipped_plugins)
    checks: list[FilterCheck] = []
    if verdict is not None and not verdict.feasible and verdict.rejected_at == "PreFilter":
        for pl in plugins.filter:
            checks.append(FilterCheck(pl.name, SKIPPED if pl.name in skipped else NOT_RUN))
        return checks, "PreFilter"
    failures: dict[str, dict[str, Any]] = {}
    if verdict is not None and not verdict.feasible:
        for f in verdict.all_failures or [{"plugin": verdict.plugin, "code": verdict.code, "reasons": verdict.reasons}]:
            failures[str(f["plugin"])] = f
    for pl in plugins.filter:
        if pl.name in skipped:
            checks.append(FilterCheck(pl.name, SKIPPED))
        elif pl.name in failures:
            f = failures[pl.name]
            checks.append(FilterCheck(pl.name, FAIL, str(f["code"]), list(f["reasons"]),
                                      reported=verdict is not None and pl.name == verdict.plugin))
        else:
            checks.append(FilterCheck(pl.name, PASS))
    return checks, ("Filter" if failures else None)


# --------------------------------------------------------------------------- score inputs


def _resource_facts(pod: PodInfo, ni: NodeInfo, resources: Any, use_requested: bool) -> list[str]:
    if use_requested:
        reqs = pod_request_list(pod, resources, use_requested=True)
    else:
        reqs = score_requests(pod, resources)
    requested, allocatable = allocation_vectors(ni, resources, reqs, use_requested=use_requested)
    # The other way of counting (NodeResourcesFit scores with the non-zero defaults, the
    # balanced allocation with the requests as written): said when the two figures differ.
    other_reqs = pod_request_list(pod, resources, use_requested=not use_requested)
    other, _ = allocation_vectors(ni, resources, other_reqs, use_requested=not use_requested)
    out = []
    for i, r in enumerate(resources):
        if allocatable[i] == 0:
            continue
        fact = (f"{r.name}: {fmt_amount(r.name, requested[i])} of {fmt_amount(r.name, allocatable[i])} "
                f"requested with this pod ({_pct(requested[i], allocatable[i])}; the pod asks "
                f"{fmt_amount(r.name, reqs[i])}), weight {r.weight}")
        if other[i] != requested[i] and r.name in ("cpu", "memory"):
            if use_requested:
                fact += (f" — the requests as written; NodeResourcesFit counts {fmt_amount(r.name, other[i])}, "
                         "taking a container without a request as 100m CPU / 200Mi memory")
            else:
                fact += (f" — counting a container without a request as 100m CPU / 200Mi memory (the scheduler's "
                         f"non-zero defaults); as written the requests are {fmt_amount(r.name, other[i])}")
        out.append(fact)
    return out


def _taint_facts(pod: PodInfo, ni: NodeInfo) -> list[str]:
    tols = [t for t in pod.tolerations if t.effect in ("", "PreferNoSchedule")]
    bad = [str(t) for t in ni.node.taints if t.effect == "PreferNoSchedule" and not tolerates(tols, t)]
    if not bad:
        return ["no untolerated PreferNoSchedule taint"]
    return [f"untolerated PreferNoSchedule taint {t}" for t in bad]


def _node_affinity_facts(pod: PodInfo, ni: NodeInfo) -> list[str]:
    na = pod.affinity.get("nodeAffinity") or {}
    out = []
    for i, t in enumerate(na.get("preferredDuringSchedulingIgnoredDuringExecution") or []):
        term = parse_node_selector_term(t.get("preference") or {})
        hit = term.matches(ni.name, ni.node.labels)
        out.append(f"preferred term {i + 1} (weight {t.get('weight')}): {'matched' if hit else 'not matched'}")
    return out or ["the pod has no preferred node affinity terms"]


def _image_facts(pod: PodInfo, ni: NodeInfo, snapshot: Snapshot) -> list[str]:
    sizes = ni.node.image_sizes
    spread = snapshot.image_num_nodes()
    total = len(snapshot.nodes())
    out = []
    for c in (pod.spec.get("initContainers") or []) + (pod.spec.get("containers") or []):
        name = normalized_image_name(str(c.get("image") or ""))
        if name in sizes:
            out.append(f"{name}: on the node ({fmt_amount('memory', sizes[name])}), "
                       f"on {spread.get(name, 0)} of {total} nodes")
        else:
            out.append(f"{name}: not on the node")
    return out


def _domain_counts(c: Any, pod: PodInfo, snapshot: Snapshot) -> dict[str, int]:
    """Matching pods per domain of ``c``'s topology key, over the nodes its inclusion
    policies count (as PodTopologySpread's PreFilter counts them)."""
    from kschedx.core.plugins.podtopologyspread_common import InclusionPolicy, matching_pods_per_node

    per_node = matching_pods_per_node(snapshot, pod.namespace, c.selector)
    policy = InclusionPolicy(pod)
    domains: dict[str, int] = {}
    for other in snapshot.nodes():
        v = other.node.labels.get(c.topology_key)
        if v is not None and policy.eligible([c], other)[0]:
            domains[v] = domains.get(v, 0) + per_node.get(other.name, 0)
    return domains


def _spread_facts(pl: Any, pod: PodInfo, ni: NodeInfo, snapshot: Snapshot) -> list[str]:
    out = []
    for action in ("DoNotSchedule", "ScheduleAnyway"):
        for c in pl._constraints(pod, action):
            value = ni.node.labels.get(c.topology_key)
            if value is None:
                out.append(f"{action} {c.topology_key} (maxSkew {c.max_skew}): the node has no such label")
                continue
            domains = _domain_counts(c, pod, snapshot)
            low = min(domains.values()) if domains else 0
            out.append(
                f"{action} {c.topology_key} (maxSkew {c.max_skew}, selector {c.selector.describe()}): "
                f"{domains.get(value, 0)} matching pod(s) in {value}; the emptiest of {len(domains)} domain(s) "
                f"has {low}"
            )
    return out or ["no spread constraint applies to the pod"]


def _spread_hints(pl: Any, pod: PodInfo, ni: NodeInfo, snapshot: Snapshot) -> list[str]:
    out = []
    for c in pl._constraints(pod, "DoNotSchedule"):
        value = ni.node.labels.get(c.topology_key)
        if value is None:
            out.append(f"label the node {c.topology_key}=<domain> (the spread constraint needs the key)")
            continue
        domains = _domain_counts(c, pod, snapshot)
        low = min(domains.values()) if domains and len(domains) >= c.min_domains else 0
        here = domains.get(value, 0) + (1 if c.selector.matches(pod.labels) else 0)
        if here - low <= c.max_skew:
            continue
        roomy = sorted(d for d, n in domains.items() if n + 1 - low <= c.max_skew)
        out.append(
            f"{c.topology_key}: with this pod {value} would hold {here} matching pod(s) against {low} in the "
            f"emptiest domain, a skew of {here - low} > maxSkew {c.max_skew}; raise maxSkew to {here - low}, "
            f"use whenUnsatisfiable: ScheduleAnyway, or let it land in {', '.join(roomy[:3]) or 'another domain'}"
        )
    return out


def _pods_in_domain(t: Any, key_value: str, snapshot: Snapshot) -> int:
    """Pods matching an incoming pod's term (namespaces merged) on the nodes of one domain."""
    n = 0
    for other in snapshot.nodes():
        if other.node.labels.get(t.topology_key) == key_value:
            n += sum(1 for p in other.pods if t.matches(p.namespace, p.labels, None))
    return n


def _pod_affinity_facts(pod: PodInfo, ni: NodeInfo, snapshot: Snapshot) -> list[str]:
    """The incoming pod's preferred (anti-)affinity terms: how many matching pods share the
    node's domain of each term's topology key."""
    from kschedx.core.plugins.interpodaffinity import merge_namespaces

    out = []
    terms = pod.pod_terms
    for kind, weighted, sign in (("affinity", terms.preferred_affinity, "+"),
                                 ("anti-affinity", terms.preferred_anti_affinity, "-")):
        for i, w in enumerate(weighted):
            t = merge_namespaces(snapshot, w.term)
            value = ni.node.labels.get(t.topology_key)
            if value is None:
                out.append(f"preferred {kind} term {i + 1} ({sign}{w.weight}): the node has no {t.topology_key} label")
                continue
            out.append(f"preferred {kind} term {i + 1} ({sign}{w.weight}, selector {t.selector.describe()}): "
                       f"{_pods_in_domain(t, value, snapshot)} matching pod(s) in {t.topology_key}={value}")
    return out or ["no preferred terms of its own: the score comes from existing pods' terms"]


def _pod_affinity_hints(pod: PodInfo, ni: NodeInfo, snapshot: Snapshot, reason: str) -> list[str]:
    from kschedx.core.plugins.interpodaffinity import ERR_AFFINITY, ERR_ANTI_AFFINITY, merge_namespaces

    out = []
    terms = pod.pod_terms
    if reason == ERR_AFFINITY:
        for t in (merge_namespaces(snapshot, t) for t in terms.required_affinity):
            value = ni.node.labels.get(t.topology_key)
            if value is None:
                out.append(f"the node needs a {t.topology_key} label (required pod affinity)")
            elif _pods_in_domain(t, value, snapshot) == 0:
                out.append(f"a pod matching {t.selector.describe()} must run in {t.topology_key}={value} "
                           "(required pod affinity)")
    elif reason == ERR_ANTI_AFFINITY:
        for t in (merge_namespaces(snapshot, t) for t in terms.required_anti_affinity):
            value = ni.node.labels.get(t.topology_key)
            if value is not None and (n := _pods_in_domain(t, value, snapshot)):
                out.append(f"move the {n} pod(s) matching {t.selector.describe()} out of {t.topology_key}={value}, "
                           "or relax the required pod anti-affinity")
    else:
        out.append("an existing pod's required anti-affinity matches this pod in the node's domain: change the "
                   "pod's labels or move that pod")
    return out or [f"make InterPodAffinity pass: {reason}"]


def score_details(result: CycleResult, plugins: PluginSet, pod: PodInfo, ni: NodeInfo,
                  snapshot: Snapshot) -> list[ScoreDetail]:
    out = []
    by_name = {pl.name: pl for pl, _w in plugins.score}
    for ps in result.score_plugins:
        s = ps.scores.get(ni.name)
        d = ScoreDetail(ps.name, ps.weight, ps.skipped, s.raw if s else None, s.normalized if s else None,
                        s.weighted if s else None)
        pl = by_name.get(ps.name)
        if not ps.skipped and s is not None and pl is not None:
            if ps.name == "NodeResourcesFit":
                d.facts = [f"strategy {getattr(pl, 'strategy', 'LeastAllocated')}",
                           *_resource_facts(pod, ni, pl.resources, use_requested=False)]  # type: ignore[attr-defined]
                if pod_level_requests(pod.spec):
                    d.facts.append("the pod's spec.resources are not counted by this score (upstream's "
                                   "Fit scorer reads container requests only)")
            elif ps.name == "NodeResourcesBalancedAllocation":
                d.facts = _resource_facts(pod, ni, pl.resources, use_requested=True)  # type: ignore[attr-defined]
            elif ps.name == "TaintToleration":
                d.facts = _taint_facts(pod, ni)
            elif ps.name == "NodeAffinity":
                d.facts = _node_affinity_facts(pod, ni)
            elif ps.name == "ImageLocality":
                d.facts = _image_facts(pod, ni, snapshot)
            elif ps.name == "PodTopologySpread":
                d.facts = _spread_facts(pl, pod, ni, snapshot)
            elif ps.name == "InterPodAffinity":
                d.facts = _pod_affinity_facts(pod, ni, snapshot)
            elif ps.name == "VolumeBinding":
                # StorageCapacityScoring: the classes the plugin's last Score weighed here.
                d.facts = pl.score_facts(ni.name)  # type: ignore[attr-defined]
        out.append(d)
    return out


# --------------------------------------------------------------------------- volumes


def _claim_volumes(pod: PodInfo, snapshot: Snapshot) -> Iterator[tuple[str, Any, Any]]:
    """Each claim-backed volume of the pod: a heading, its claim (None when missing) and
    the volume objects to look the rest up in."""
    from kschedx.core.plugins.volume_objects import claim_name_of, pod_volumes, volume_objects

    vo = None
    for v in pod_volumes(pod):
        found = claim_name_of(pod, v)
        if found is None:
            continue
        if vo is None:
            vo = volume_objects(snapshot)
        name, ephemeral = found
        yield f"volume {v.get('name')}: {'ephemeral ' if ephemeral else ''}claim {name}", vo.claim(pod.namespace, name), vo


def volume_facts(pod: PodInfo, ni: NodeInfo, snapshot: Snapshot) -> list[str]:
    """Each claim-backed volume of the pod and what it means on this node: the bound PV's
    node affinity and zone, or for a pending claim its class, binding mode and topology."""
    labels = ni.node.labels
    out = []
    for head, claim, vo in _claim_volumes(pod, snapshot):
        if claim is None:
            out.append(f"{head} does not exist")
            continue
        if claim.fully_bound:
            pv = vo.volume(claim.volume_name)
            if pv is None:
                out.append(f"{head} is bound to PV {claim.volume_name}, which does not exist")
                continue
            where = "matches this node" if pv.affinity_matches(labels) else "does NOT match this node"
            aff = f"its node affinity {where}" if pv.node_affinity is not None else "it has no node affinity"
            zone = pv.labels.get("topology.kubernetes.io/zone") or pv.labels.get("failure-domain.beta.kubernetes.io/zone")
            zone_txt = ""
            if zone:
                node_zone = labels.get("topology.kubernetes.io/zone") or labels.get("failure-domain.beta.kubernetes.io/zone")
                zone_txt = f"; PV zone {zone}, node zone {node_zone or 'none'}"
            out.append(f"{head} is bound to PV {pv.name} ({pv.storage_class or 'no class'}): {aff}{zone_txt}")
            continue
        cls_name = claim.storage_class
        sc = vo.storage_class(cls_name) if cls_name else None
        if sc is None:
            out.append(f"{head} is pending with storage class {cls_name or '(none)'}, "
                       f"{'which does not exist' if cls_name else 'so only a pre-provisioned PV can bind it'}")
            continue
        mode = "WaitForFirstConsumer" if sc.delay_binding else "Immediate (must be bound before scheduling)"
        topo = ("its allowedTopologies allow this node" if sc.topology_allows(labels)
                else "its allowedTopologies exclude this node")
        out.append(f"{head} is pending: class {sc.name}, {mode}, provisioner {sc.provisioner or 'none'}; {topo}")
    return out


def volume_summary(pod: PodInfo, snapshot: Snapshot) -> list[str]:
    """Each claim-backed volume of the pod and how many nodes it leaves possible: a bound
    PV's node affinity, a pending claim's class topology (for ``-o wide``)."""
    nodes = snapshot.nodes()
    out = []
    for head, claim, vo in _claim_volumes(pod, snapshot):
        if claim is None:
            out.append(f"{head} does not exist (VolumeBinding rejects the pod for every node)")
        elif claim.fully_bound:
            pv = vo.volume(claim.volume_name)
            if pv is None:
                out.append(f"{head} is bound to PV {claim.volume_name}, which does not exist")
            elif pv.node_affinity is None:
                out.append(f"{head} is bound to PV {pv.name}: no node affinity, any node")
            else:
                ok = sum(1 for ni in nodes if pv.affinity_matches(ni.node.labels))
                out.append(f"{head} is bound to PV {pv.name}: its node affinity allows {ok} of {len(nodes)} node(s)")
        else:
            cls_name = claim.storage_class
            sc = vo.storage_class(cls_name) if cls_name else None
            if sc is None:
                out.append(f"{head} is pending, storage class {cls_name or '(none)'}"
                           f"{' does not exist' if cls_name else ''}")
            elif not sc.delay_binding:
                out.append(f"{head} is pending with Immediate binding (class {sc.name}): "
                           "the pod waits until the PV controller binds it")
            else:
                ok = sum(1 for ni in nodes if sc.topology_allows(ni.node.labels))
                out.append(f"{head} is pending, class {sc.name} (WaitForFirstConsumer, {sc.provisioner}): "
                           f"its allowedTopologies allow {ok} of {len(nodes)} node(s); bound where the pod lands")
    return out


def device_facts(plugins: PluginSet, node: str) -> list[str]:
    """DynamicResources on this node: the device each request of the pod's claims would get."""
    from kschedx.core.plugins.dynamicresources import device_allocations

    dra = plugins.instances.get("DynamicResources")
    state = getattr(dra, "last_state", None)
    if state is None or not state.claims:
        return []
    out = [f"claim {d['claim']}, request {d['request'] or '-'}: device {d['driver']}/{d['pool']}/{d['device']}"
           + (f" (slice {d['slice']})" if d.get("slice") else "")
           for d in device_allocations(state, node)]
    if not out and state.to_allocate():
        ni = plugins.instances["DynamicResources"].handle.snapshot.get(node)
        if state.allocator is not None and ni is not None:
            from kschedx.core.plugins.dynamicresources_explain import explain_node

            out.extend(explain_node(state.allocator, node, ni.node.labels))
        if not out:
            out.append("the pod's unallocated claims cannot all be allocated from the devices this node can reach")
    return out


def device_candidates(plugins: PluginSet, node: str) -> list[dict[str, Any]]:
    """DynamicResources on this node: every device each request could use, picked or why not
    (core/plugins/dynamicresources_explain.py)."""
    dra = plugins.instances.get("DynamicResources")
    state = getattr(dra, "last_state", None)
    if dra is None or state is None or state.allocator is None or not state.to_allocate():
        return []
    ni = dra.handle.snapshot.get(node)
    if ni is None:
        return []
    from kschedx.core.plugins.dynamicresources_explain import device_candidates as candidates
    from kschedx.core.plugins.dynamicresources_explain import holders_of

    alloc = state.allocator
    node_claim = state.node_extended_claims.get(node)
    if node_claim is not None:
        alloc = alloc._variant([node_claim if i == state.extended_index else c
                                for i, c in enumerate(state.claims) if i in state.to_allocate()])
    holders = holders_of(list(dra.handle.objects.of("ResourceClaim")))
    return candidates(alloc, node, ni.node.labels, state.node_allocations.get(node), holders)


# --------------------------------------------------------------------------- hints


def _largest_allocatable(snapshot: Snapshot, resource: str) -> tuple[int, str | None]:
    """The most of ``resource`` any node has allocatable, and the first node (by name) with it."""
    best, where = 0, None
    for other in snapshot.node_infos:
        amount = other.node.allocatable.get(resource, 0)
        if amount > best or (amount == best and where is not None and other.name < where):
            best, where = amount, other.name
    return best, where


def _fit_hints(pod: PodInfo, ni: NodeInfo, snapshot: Snapshot | None = None) -> list[str]:
    out = []
    for m in fits_request(pod.spec_requests, ni):
        largest, on = _largest_allocatable(snapshot, m.resource) if snapshot is not None and m.resource != "pods" \
            else (m.capacity, ni.name)
        if m.resource != "pods" and m.requested > largest:
            # No node anywhere could take it, however empty: the request itself is the problem.
            requested = f"the pod requests {fmt_amount(m.resource, m.requested)} {m.resource}"
            if on is None:
                out.append(f"{requested}, and no node of the cluster offers {m.resource}: add nodes that do, "
                           "or drop the request")
            else:
                out.append(f"{requested}, larger than any node's allocatable (largest: "
                           f"{fmt_amount(m.resource, largest)} on {on}): lower the request to at most that, "
                           "or add a larger node")
        elif m.resource == "pods":
            out.append(f"the node runs its maximum of {m.capacity} pods: remove one pod from it")
        elif m.capacity == 0:
            out.append(f"the node has no {m.resource} at all: pick a node that offers it, or drop the request")
        elif m.unresolvable:
            free = m.capacity - m.used
            text = (f"the pod requests {fmt_amount(m.resource, m.requested)} {m.resource} but the node has only "
                    f"{fmt_amount(m.resource, m.capacity)} allocatable")
            if m.used <= 0:
                text += ": lower the request to at most that"
            elif free > 0:
                # Down to the allocatable would still not fit: its pods hold the rest.
                text += (f", {fmt_amount(m.resource, m.used)} of it already requested by its pods: lower the "
                         f"request to at most {fmt_amount(m.resource, free)} (what they leave free)")
            else:
                text += (f", all of it already requested by its pods: lower the request to at most "
                         f"{fmt_amount(m.resource, m.capacity)} and free that much on the node")
            out.append(text)
        else:
            need = m.requested - (m.capacity - m.used)
            out.append(f"free {fmt_amount(m.resource, need)} {m.resource} on the node (the pod requests "
                       f"{fmt_amount(m.resource, m.requested)}, {fmt_amount(m.resource, max(m.capacity - m.used, 0))} "
                       f"is free), or lower the request by that much")
    return out


UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable"


def _taint_hints(pod: PodInfo, ni: NodeInfo) -> list[str]:
    # Uncordoning also lifts the unschedulable taint the node lifecycle controller set.
    return [f"tolerate taint {t}" for t in ni.node.taints
            if t.effect in ("NoSchedule", "NoExecute") and not tolerates(pod.tolerations, t)
            and not (ni.node.unschedulable and t.key == UNSCHEDULABLE_TAINT)]


def _cluster_labels(snapshot: Snapshot) -> dict[str, set[str]]:
    """Every label key on the cluster's nodes, with the values it takes."""
    out: dict[str, set[str]] = {}
    for other in snapshot.node_infos:
        for k, v in other.node.labels.items():
            out.setdefault(k, set()).add(v)
    return out


def _closest(word: str, candidates: Iterable[str]) -> str | None:
    found = get_close_matches(word, sorted(candidates), n=1, cutoff=0.6)
    return found[0] if found else None


def _label_hint(key: str, value: str, cluster: dict[str, set[str]]) -> str:
    """How to give the node ``key=value``: or, when no node at all has that label, the
    spelling the cluster has (a typo in the manifest is likelier than a missing label)."""
    if key not in cluster:
        near = _closest(key, cluster)
        return f"no node has label {key}" + (f" — did you mean {near}?" if near else f": label the node {key}={value}")
    if value not in cluster[key]:
        near = _closest(value, cluster[key])
        values = ", ".join(sorted(cluster[key])[:5]) + (" …" if len(cluster[key]) > 5 else "")
        return (f"no node has {key}={value} (nodes have {key}={values})"
                + (f" — did you mean {key}={near}?" if near else f": label the node {key}={value}"))
    return f"label the node {key}={value}"


def _affinity_hints(pod: PodInfo, ni: NodeInfo, snapshot: Snapshot | None = None) -> list[str]:
    labels = ni.node.labels
    cluster = _cluster_labels(snapshot) if snapshot is not None else {}
    out = [_label_hint(k, str(v), cluster) if snapshot is not None else f"label the node {k}={v}"
           for k, v in (pod.spec.get("nodeSelector") or {}).items() if labels.get(k) != str(v)]
    na = pod.affinity.get("nodeAffinity") or {}
    req = na.get("requiredDuringSchedulingIgnoredDuringExecution") or {}
    terms = req.get("nodeSelectorTerms") or []
    if terms and not any(parse_node_selector_term(t).matches(ni.name, labels) for t in terms):
        exprs = terms[0].get("matchExpressions") or []
        want = ", ".join(f"{e.get('key')} {e.get('operator')} {e.get('values') or ''}".strip() for e in exprs)
        out.append(f"give the node labels matching a required node affinity term (term 1: {want or 'matchFields'})")
        for e in exprs:
            key = str(e.get("key"))
            if e.get("operator") in ("In", "Exists") and cluster and key not in cluster:
                near = _closest(key, cluster)
                out.append(f"no node has label {key}" + (f" — did you mean {near}?" if near else ""))
            elif e.get("operator") == "In" and key in cluster and not set(map(str, e.get("values") or [])) & cluster[key]:
                near = next((n for v in e.get("values") or [] if (n := _closest(str(v), cluster[key]))), None)
                out.append(f"no node has {key} in {e.get('values')}" + (f" — did you mean {near}?" if near else ""))
    return out or ["the node fails the scheduler-enforced node affinity of the profile (addedAffinity)"]


def failure_hints(failed: list[FilterCheck], pod: PodInfo, ni: NodeInfo, plugins: PluginSet,
                  snapshot: Snapshot) -> list[str]:
    """What to change so that each failing filter passes; one change only when one fails."""
    hints: list[str] = []
    changes = 0
    for f in failed:
        before = len(hints)
        if f.code == "Error":
            # Not a verdict on the node: the plugin could not decide, and the cycle stops there.
            hints.append(f"{f.plugin} returned Error, which stops the whole scheduling cycle (not only this node): "
                         "remove its cause; the pod is retried after a backoff")
        elif f.plugin == "NodeUnschedulable":
            hints.append(f"uncordon the node (kubectl uncordon {ni.name}) or tolerate "
                         "node.kubernetes.io/unschedulable:NoSchedule")
        elif f.plugin == "TaintToleration":
            hints.extend(_taint_hints(pod, ni))
        elif f.plugin == "NodeAffinity":
            hints.extend(_affinity_hints(pod, ni, snapshot))
        elif f.plugin == "NodeResourcesFit":
            hints.extend(_fit_hints(pod, ni, snapshot) or [f"{f.plugin}: {'; '.join(f.reasons)}"])
        elif f.plugin == "PodTopologySpread" and "PodTopologySpread" in plugins.instances:
            hints.extend(_spread_hints(plugins.instances["PodTopologySpread"], pod, ni, snapshot)
                         or [f"make {f.plugin} pass: {'; '.join(f.reasons)}"])
        elif f.plugin == "InterPodAffinity":
            hints.extend(_pod_affinity_hints(pod, ni, snapshot, f.reasons[0] if f.reasons else ""))
        elif f.plugin == "NodePorts":
            ports = ", ".join(f"{p}/{proto}" for _ip, proto, p in pod.host_ports)
            hints.append(f"free the host port(s) the pod asks for ({ports}) on the node, or drop hostPort")
        else:
            hints.append(f"make {f.plugin} pass: {'; '.join(f.reasons)}")
        changes += len(hints) - before
    if changes > 1:
        hints.insert(0, f"{changes} changes are needed here (no single one makes the node feasible): all of these")
    return hints


def winner_hints(result: CycleResult, node: str) -> list[str]:
    best = result.best_nodes
    total = result.totals[node]
    if node in best:
        others = sorted((t for n, t in result.totals.items() if n not in best), reverse=True)
        if len(best) > 1:
            return [f"ties with {', '.join(n for n in best if n != node)} at {total}: one more point on any "
                    "score plugin would make it the sole winner"]
        if not others:
            return ["the only feasible node"]
        return [f"the winner, {total - others[0]} ahead of the runner-up"]
    winner = best[0]
    gap = result.totals[winner] - total
    deficits = []
    for ps in result.score_plugins:
        mine, theirs = ps.scores.get(node), ps.scores.get(winner)
        if mine and theirs and theirs.weighted > mine.weighted:
            deficits.append((theirs.weighted - mine.weighted, ps.name))
    deficits.sort(reverse=True)
    parts = ", ".join(f"{name} −{d}" for d, name in deficits[:3])
    return [f"needs {gap + 1} more total points to beat {winner} ({result.totals[winner]} vs {total}); "
            f"it trails most on {parts}" if parts else f"needs {gap + 1} more total points to beat {winner}"]


def node_story(result: CycleResult, plugins: PluginSet, pod: PodInfo, snapshot: Snapshot, node: str) -> NodeStory:
    ni = snapshot.get(node)
    assert ni is not None
    filters, rejected_at = filter_checks(result, plugins, node)
    verdict = result.nodes.get(node)
    feasible = verdict is not None and verdict.feasible
    scores = score_details(result, plugins, pod, ni, snapshot) if feasible else []
    if feasible and result.totals:
        ranked = sorted(result.totals, key=lambda n: (-result.totals[n], n))
        rank: int | None = ranked.index(node) + 1
        hints = winner_hints(result, node)
        total: int | None = result.totals[node]
    else:
        rank, total = None, None
        if rejected_at == "PreFilter" and verdict is not None:
            hints = [f"cut before Filter by {verdict.plugin or 'a PreFilter node set'}: {'; '.join(verdict.reasons)}"]
        else:
            hints = failure_hints([f for f in filters if f.outcome == FAIL], pod, ni, plugins, snapshot)
    story = NodeStory(node, feasible, rejected_at, filters, scores, total, rank,
                      result.best_nodes[0] if result.best_nodes else None, hints, volume_facts(pod, ni, snapshot),
                      device_facts(plugins, node))
    story.device_candidates = device_candidates(plugins, node)
    nominated = result.nominated.get(node)
    if nominated is not None:
        story.nominated = nominated.describe(result.pod_priority)
        hint = nominated.hint()
        if hint is not None:
            story.hints.insert(0, hint)
    return story

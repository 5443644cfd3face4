"""The engine's front door: load inputs, build the snapshot, run one cycle, return the result.

The CLI calls only this module (and the loaders), so everything a user can ask for is
also available as a Python API.
"""

from __future__ import annotations

import copy
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from typing import Any

from kschedx.core.api.model import PodInfo
from kschedx.core.api.objects import ClusterObjects
from kschedx.core.api.quantity import QuantityError
from kschedx.core.api.selectors import SelectorError
from kschedx.core.config.profile import Profile, default_profile
from kschedx.core.errors import InputError
from kschedx.core.explain import existing
from kschedx.core.explain.report import DaemonNodeVerdict, Explanation, daemon_verdict, finish_plan
from kschedx.core.explain.rollout import WorkloadPlan, plan_workload, resolve_count, taken_out
from kschedx.core.explain.whatif import Edits, apply_edits
from kschedx.core.framework import shared_answers
from kschedx.core.framework.interface import ReplicaMemo
from kschedx.core.framework.replica_inc import ReplicaEngine
from kschedx.core.framework.result import CycleResult
from kschedx.core.framework.runtime import Framework
from kschedx.core.gcpause import gc_paused, without_gc
from kschedx.core.load.admission import admit, resolve_cluster_pod_priorities
from kschedx.core.load.apivalidation import check_manifest
from kschedx.core.load.files import load_cluster
from kschedx.core.load.manifest import IncomingPod, expand, pin_to_node, select_document
from kschedx.core.load.validate import check_pod_shape
from kschedx.core.plugins import REGISTRY
from kschedx.core.progress import report
from kschedx.core.snapshot import Snapshot
from kschedx.core.versions import SchedulerVersion, choose_version, parse_feature_gates

Dict = dict[str, Any]


@dataclass
class Options:
    profile: str | None = None
    all_reasons: bool = False
    post_filter: bool = True
    extra_warnings: list[str] = field(default_factory=list)
    # --node: the node whose whole story is told (every filter, score inputs, hints).
    focus: str | None = None
    # --algorithm: "v1.35" (the framework; the default) or "legacy-v1.12" (implied by --policy).
    algorithm: str | None = None
    # --policy: a v1.12 Policy file; load_profiles puts the loaded Policy in legacy_policy.
    policy: str | None = None
    legacy_policy: Any = None
    # Scheduler extenders (kschedx.core.framework.extenders.Extender) of --config; --offline: never call them.
    extenders: list[Any] = field(default_factory=list)
    offline: bool = False
    # False: stop after Filter and the extenders' filters, without PostFilter, scores or the
    # extras of a full explanation (volumes, notes): what a per-node verdict needs.
    scores: bool = True
    # --kubernetes-version (None: from the cluster, see core.versions.choose_version) and
    # --feature-gates (KEY=BOOL,...); resolve_version fills in the release and its note.
    kubernetes_version: str | None = None
    feature_gates: str | None = None
    version: SchedulerVersion | None = None
    version_note: str | None = None


def load_cluster_files(paths: list[str]) -> ClusterObjects:
    objects = load_cluster(paths)
    resolve_cluster_pod_priorities(objects)
    return objects


def load_live_cluster(kubeconfig: str | None, context: str | None) -> tuple[ClusterObjects, list[str]]:
    """The live cluster's objects (read-only listing, see core.load.live) and the warnings
    about kinds that could not be listed."""
    from kschedx.core.load.live import load_live

    live = load_live(kubeconfig, context)
    resolve_cluster_pod_priorities(live.objects)
    return live.objects, live.warnings


def prepare_pod(
    manifest: str, objects: ClusterObjects, *, doc: str | None = None, namespace: str | None = None
) -> IncomingPod:
    """The incoming pod as the scheduler would receive it (workload expanded, admitted)."""
    obj = select_document(manifest, doc)
    return prepare_object(obj, manifest, objects, namespace=namespace)


def prepare_object(obj: Dict, path: str, objects: ClusterObjects, *, namespace: str | None = None) -> IncomingPod:
    check_manifest(obj, path)  # what the API server would refuse never reaches a cycle
    inc = expand(obj, objects, path, namespace)
    check_pod_shape(inc.pod, path)
    try:
        inc.warnings.extend(admit(inc.pod, objects, namespace))
    except InputError as e:
        raise InputError(e.detail, path=path) from None
    return inc


def resolve_version(options: Options | None, objects: ClusterObjects, source: str = "the cluster") -> Options:
    """The options with the kube-scheduler release to reproduce chosen (``--kubernetes-version``,
    else the cluster's own) and ``--feature-gates`` checked against it."""
    options = options or Options()
    if options.version is not None:
        return options
    nodes = objects.of("Node")
    choice = choose_version(options.kubernetes_version, objects.server_version, nodes, source)
    gates = parse_feature_gates(options.feature_gates, choice.name)
    return replace(options, version=SchedulerVersion(choice.name, gates), version_note=choice.note)


def select_profile(pod: Dict, profile_name: str | None, profiles: dict[str, Profile] | None = None,
                   version: SchedulerVersion | None = None) -> Profile:
    name = profile_name or (pod.get("spec") or {}).get("schedulerName") or "default-scheduler"
    if profiles is None:
        profiles = {"default-scheduler": default_profile(REGISTRY, version=version)}
    prof = profiles.get(name)
    if prof is None:
        known = ", ".join(sorted(profiles))
        raise InputError(f"no scheduler profile named {name!r} (profiles: {known})")
    return prof


def build_snapshot(objects: ClusterObjects, incoming: IncomingPod | None = None) -> Snapshot:
    # A copy of the lists: replica steps record claims in the snapshot's objects, and the
    # caller's objects may serve further runs (check, the next document).
    objects = objects.copy()
    if incoming is not None and incoming.extra_objects:
        for o in incoming.extra_objects:
            objects.add(o)
    with gc_paused():
        return Snapshot(objects)


def pod_info(incoming: IncomingPod, path: str = "<manifest>") -> PodInfo:
    try:
        return PodInfo(incoming.pod)
    except (QuantityError, SelectorError, ValueError) as e:
        raise InputError(str(e), path=path) from None


@without_gc
def run(
    snapshot: Snapshot,
    incoming: IncomingPod,
    profile: Profile,
    options: Options | None = None,
    path: str = "<manifest>",
    memo: ReplicaMemo | None = None,
) -> CycleResult:
    options = options or Options()
    pod = pod_info(incoming, path)
    if memo is None:  # a replica run reports its own progress, copy by copy
        report(f"scheduling {pod.key}")
    if options.algorithm not in (None, "v1.35"):
        return _run_legacy(snapshot, incoming, pod, profile, options, path)
    fw = Framework(profile, snapshot, REGISTRY)
    answers = shared_answers.shared(snapshot)
    if answers is not None:
        # pending and check: node-local answers come from the snapshot's shared tables.
        memo = memo if memo is not None else ReplicaMemo()
        answers.bind(snapshot, memo, fw, pod)
    fw.memo = memo
    if not options.offline:
        fw.extenders = list(options.extenders)
    if options.focus is not None and snapshot.get(options.focus) is None:
        raise InputError(f"--node {options.focus}: no node of that name in the cluster")
    all_reasons = options.all_reasons or options.focus is not None
    try:
        result = fw.run_cycle(pod, all_reasons=all_reasons, run_post_filter=options.post_filter and options.scores,
                              run_score=options.scores)
    except (QuantityError, SelectorError) as e:
        raise InputError(str(e), path=path) from None
    if not options.scores:
        return result
    return _finish(result, fw, snapshot, incoming, pod, options)


def _run_legacy(
    snapshot: Snapshot, incoming: IncomingPod, pod: PodInfo, profile: Profile, options: Options, path: str
) -> CycleResult:
    """--algorithm legacy-v1.12: the v1.12 priority functions after today's filters."""
    from kschedx.core.legacy.runner import run_legacy

    if options.focus is not None:
        raise InputError("--node is not available with --algorithm legacy-v1.12")
    extenders = [] if options.offline else list(options.extenders)
    try:
        result = run_legacy(snapshot, pod, profile, options.legacy_policy, extenders, all_reasons=options.all_reasons,
                            extenders_configured=bool(options.extenders))
    except (QuantityError, SelectorError) as e:
        raise InputError(str(e), path=path) from None
    return _finish(result, None, snapshot, incoming, pod, options)


def _finish(
    result: CycleResult,
    fw: Framework | None,
    snapshot: Snapshot,
    incoming: IncomingPod,
    pod: PodInfo,
    options: Options,
) -> CycleResult:
    """What every cycle's result gets: claims, volumes, the node story, notes and warnings."""
    if options.offline and options.extenders:
        from kschedx.core.framework.extenders import offline_warnings

        result.warnings.extend(offline_warnings(options.extenders))
    dra = fw.plugins.instances.get("DynamicResources") if fw is not None else None
    if dra is not None and result.selected_node is not None:
        from kschedx.core.plugins.dynamicresources import claims_after_binding, device_allocations

        dra_state = getattr(dra, "last_state", None)
        result.device_allocations = device_allocations(dra_state, result.selected_node)
        result.bound_claims = claims_after_binding(dra_state, result.selected_node, pod)
    if pod.spec.get("volumes"):
        from kschedx.core.explain.focus import volume_summary

        result.volumes = volume_summary(pod, snapshot)
    if options.focus is not None and fw is not None:
        from kschedx.core.explain.focus import node_story

        result.focus = node_story(result, fw.plugins, pod, snapshot, options.focus)
        verdict = result.nodes.get(options.focus)
        if verdict is not None and verdict.rejected_at == "Extender":
            # Every filter plugin passed; a scheduler extender's filter turned the node down.
            result.focus.feasible = False
            result.focus.rejected_at = "Extender"
            result.focus.hints.insert(
                0, f"{verdict.plugin} filtered it out: {'; '.join(verdict.reasons) or '(no reason given)'}"
            )
    result.notes.append(incoming.rule)
    if options.version_note:
        result.notes.append(options.version_note)
    result.warnings.extend(incoming.warnings)
    result.warnings.extend(options.extra_warnings)
    if incoming.bound_node:
        result.focus_node = incoming.bound_node
    if len(result.best_nodes) > 1:
        result.warnings.append(
            f"{len(result.best_nodes)} nodes tie at total {_best_total(result)} "
            f"({', '.join(result.best_nodes)}): the real scheduler picks one of them at random; "
            f"kschedx reports the first by name"
        )
    if result.single_feasible_node:
        skipped = "PreScore and Score" if result.algorithm == "v1.35" else "the priority functions"
        result.warnings.append(
            f"only {result.selected_node} is feasible: the real scheduler binds it without running "
            f"{skipped}; the scores are shown for the explanation only"
        )
    n = result.num_all_nodes
    k = result.num_feasible_nodes_to_find or n
    if k < n:
        result.warnings.append(
            f"the real scheduler stops filtering after {k} feasible nodes of {n} "
            "(percentageOfNodesToScore); kschedx evaluated every node"
        )
    if snapshot.objects.skipped_kinds:
        kinds = ", ".join(f"{k} ({v})" for k, v in sorted(snapshot.objects.skipped_kinds.items()))
        result.warnings.append(f"skipped objects of kinds the scheduler doesn't read: {kinds}")
    return result


def _best_total(result: CycleResult) -> int:
    """The winning total (a replica step answers without building every node's total)."""
    best = getattr(result, "best_total", None)
    return int(best) if best is not None else result.totals[result.best_nodes[0]]


def load_profiles(config: str | None, options: Options | None) -> tuple[dict[str, Profile] | None, Options | None]:
    """The profiles of a KubeSchedulerConfiguration file (None: the defaults), and the
    options with the file's extenders and the --policy file loaded."""
    profiles: dict[str, Profile] | None = None
    if config is not None:
        from kschedx.core.config.profile import load_config
        from kschedx.core.framework.extenders import extenders_from

        loaded = load_config(config, REGISTRY, options.version if options is not None else None)
        profiles = loaded.profiles
        if loaded.extenders:
            options = options or Options()
            options = replace(options, extenders=[*options.extenders, *extenders_from(loaded.extenders)])
            _ignore_extender_resources(profiles, loaded.extenders)
    if options is not None:
        options = _resolve_algorithm(options)
    return profiles, options


LEGACY_ALGORITHM = "legacy-v1.12"
ALGORITHMS = ("v1.35", LEGACY_ALGORITHM)


def _resolve_algorithm(options: Options) -> Options:
    """Check --algorithm, load --policy (which implies the legacy pipeline)."""
    if options.algorithm is not None and options.algorithm not in ALGORITHMS:
        raise InputError(f"--algorithm {options.algorithm}: unknown (choose one of {', '.join(ALGORITHMS)})")
    if options.policy is None or options.legacy_policy is not None:
        return options
    if options.algorithm == "v1.35":
        raise InputError("--policy is a v1.12 Policy file: it needs --algorithm legacy-v1.12")
    from kschedx.core.legacy.policy import load_policy

    policy = load_policy(options.policy)
    return replace(
        options, algorithm=LEGACY_ALGORITHM, legacy_policy=policy, extenders=[*options.extenders, *policy.extenders]
    )


def _ignore_extender_resources(profiles: dict[str, Profile], extenders: list[Dict]) -> None:
    """Resources an extender manages with ignoredByScheduler become NodeResourcesFit's
    ignoredResources in every profile (replacing the configured list), as kube-scheduler
    sets them up."""
    ignored = [
        str(r.get("name"))
        for e in extenders
        for r in e.get("managedResources") or []
        if r.get("ignoredByScheduler")
    ]
    if not ignored:
        return
    for prof in profiles.values():
        args = prof.plugin_args.get("NodeResourcesFit")
        if args is not None:
            args["ignoredResources"] = list(ignored)


def explain_files(
    manifest: str,
    cluster: list[str],
    *,
    doc: str | None = None,
    namespace: str | None = None,
    options: Options | None = None,
    config: str | None = None,
) -> CycleResult:
    """Explain one manifest against cluster dump files (the default profile without ``config``)."""
    objects = load_cluster_files(cluster)
    obj = select_document(manifest, doc)
    incoming = prepare_object(obj, manifest, objects, namespace=namespace)
    plan = plan_workload(obj, incoming, objects)
    options = resolve_version(options, objects, ", ".join(cluster))
    profiles, options = load_profiles(config, options)
    profile = select_profile(incoming.pod, options.profile if options else None, profiles,
                             options.version if options else None)
    try:
        snapshot = build_snapshot(objects, incoming)
    except (QuantityError, SelectorError) as e:
        # A bad quantity of a node or pod in the dump: the message names the object.
        raise InputError(str(e), path=", ".join(cluster)) from None
    with taken_out(snapshot, plan.remove if plan is not None else []):
        result = run(snapshot, incoming, profile, options, manifest)
    if plan is not None:
        finish_plan(plan, Explanation("single", [result]))
    return result


def resolve_replicas(replicas: int | str | None, incoming: IncomingPod) -> int:
    """``--replicas``: a count, or ``auto`` for the workload's own (a Pod's is 1)."""
    if replicas is None:
        return 1
    if isinstance(replicas, str):
        if replicas.strip().lower() == "auto":
            return incoming.workload_replicas if incoming.workload_replicas is not None else 1
        try:
            replicas = int(replicas)
        except ValueError:
            raise InputError(f"--replicas takes a number or 'auto', not {replicas!r}") from None
    if replicas < 1:
        if incoming.workload_replicas == 0 and replicas == 0:
            return 0
        raise InputError("--replicas must be at least 1")
    return replicas


def explain_objects(
    manifest: str,
    objects: ClusterObjects,
    *,
    doc: str | None = None,
    edits: Edits | None = None,
    lookup: existing.ReferenceLookup | None = None,
    **kwargs: Any,
) -> Explanation:
    """Explain a manifest file's pod-bearing document, or the object a reference such as
    ``pod/NAME`` names (found by ``lookup``, else in ``objects``), against loaded cluster
    objects, after the what-if edits."""
    objects, edit_lines = apply_edits(objects, edits or Edits())
    obj = existing.resolve_manifest(manifest, objects, doc=doc, namespace=kwargs.get("namespace"),
                                    source=kwargs.get("source", "the cluster"), lookup=lookup)
    return explain_object(obj, manifest, objects, edit_lines=edit_lines, **kwargs)


@without_gc
def explain_object(
    obj: Dict,
    path: str,
    objects: ClusterObjects,
    *,
    namespace: str | None = None,
    options: Options | None = None,
    config: str | None = None,
    replicas: int | str | None = None,
    edit_lines: list[str] | None = None,
    source: str = "the cluster",
    snapshot: Snapshot | None = None,
) -> Explanation:
    """One pod-bearing object: one cycle, the replica steps, or (for a DaemonSet) one
    pinned cycle per node.

    ``snapshot``, when given, is a snapshot of ``objects`` to run on instead of building a
    new one (``check`` builds one for all its documents): the document's own objects are
    laid over it and the replica copies it binds are taken off again afterwards.
    """
    incoming = prepare_object(obj, path, objects, namespace=namespace)
    plan = plan_workload(obj, incoming, objects)
    options = resolve_version(options, objects, source)
    profiles, options = load_profiles(config, options)
    profile = select_profile(incoming.pod, options.profile if options else None, profiles,
                             options.version if options else None)
    if snapshot is None:
        # Identity: the scheduler never has the pod it schedules in its cache.
        objects, current = existing.take_out(objects, incoming.pod)
        try:
            snapshot = build_snapshot(objects, incoming)
        except (QuantityError, SelectorError) as e:
            # A bad quantity of a node or pod in the dump: the message names the object.
            raise InputError(str(e), path=source) from None
        out = _explain_on(snapshot, incoming, profile, options, path, replicas, edit_lines or [], plan=plan)
        return existing.annotate(out, current, snapshot, source, profiles)
    base_objects = snapshot.objects
    snapshot.objects = objects.copy()
    for o in incoming.extra_objects:
        snapshot.objects.add(o)
    added: list[PodInfo] = []
    try:
        raw = existing.find_existing(objects, incoming.pod)
        with existing.detached(snapshot, raw) if raw is not None else nullcontext() as current:
            out = _explain_on(snapshot, incoming, profile, options, path, replicas, edit_lines or [], added, plan)
        return existing.annotate(out, current, snapshot, source, profiles)
    finally:
        for p in added:
            snapshot.remove_pod(p)
        snapshot.objects = base_objects


def _explain_on(
    snapshot: Snapshot,
    incoming: IncomingPod,
    profile: Profile,
    options: Options | None,
    path: str,
    replicas: int | str | None,
    edit_lines: list[str],
    added: list[PodInfo] | None = None,
    plan: WorkloadPlan | None = None,
) -> Explanation:
    # A workload that already runs: the pods its controller deletes first are taken out.
    with taken_out(snapshot, plan.remove if plan is not None else []):
        if incoming.daemonset:
            out = _explain_daemonset(snapshot, incoming, profile, options, path, edit_lines, plan)
        elif replicas is None and (plan is None or incoming.ordinal_pod is None):
            out = Explanation("single", [run(snapshot, incoming, profile, options, path)], edit_lines)
        else:
            count = 1 if replicas is None else resolve_count(plan, replicas, resolve_replicas(replicas, incoming))
            if plan is not None and incoming.ordinal_pod is not None:
                incoming.ordinals = plan.ordinals_for(count)
            steps = run_replicas(snapshot, incoming, profile, count, options, path, added)
            if replicas is not None and (options is None or options.algorithm in (None, "v1.35")):
                from kschedx.core.explain.batching import annotate_replicas

                annotate_replicas(steps, profile, incoming.pod, bool(options and options.extenders), incoming.source_kind)
            out = Explanation("replicas" if replicas is not None else "single", steps, edit_lines,
                              replicas_requested=count)
    if plan is not None:
        finish_plan(plan, out)
    for result in [*out.steps, *([out.daemon_template] if out.daemon_template else [])]:
        result.edits = list(edit_lines)
    return out


def _explain_daemonset(
    snapshot: Snapshot,
    incoming: IncomingPod,
    profile: Profile,
    options: Options | None,
    path: str,
    edit_lines: list[str],
    plan: WorkloadPlan | None = None,
) -> Explanation:
    """Per node, whether the daemon pod its controller pins there (a required matchFields
    metadata.name node affinity) would be scheduled.

    The pin only narrows the candidates to that node, so for a pod whose verdict on a node
    does not depend on the other nodes — no spread constraints and no pod (anti-)affinity
    terms of its own — one unpinned cycle gives every node's verdict at once. Otherwise
    (the pin changes which domains count) each node gets its own pinned cycle.
    """
    # A node in focus is a one-node story; per node, the daemon verdicts tell it already.
    options = replace(options, focus=None) if options is not None else None
    # A DaemonSet that runs: nodes keeping their pod are not judged again; on a rollout each
    # node's old pod is gone before the new one is placed there (all at once for the
    # unpinned cycle, whose verdict on a node depends on that node's pods only).
    keep = plan.daemon_running if plan is not None else set()
    old = plan.daemon_old if plan is not None else {}
    with taken_out(snapshot, [p for pods in old.values() for p in pods]):
        template = run(snapshot, incoming, profile, options, path)
    out = Explanation("daemonset", [], edit_lines, daemonset=incoming.source_name, daemon_template=template)
    spec = incoming.pod.get("spec") or {}
    affinity = spec.get("affinity") or {}
    if not spec.get("topologySpreadConstraints") and not affinity.get("podAffinity") \
            and not affinity.get("podAntiAffinity"):
        out.daemon_nodes = [DaemonNodeVerdict(ni.name, True, True, running=True) if ni.name in keep
                            else daemon_verdict(ni.name, template) for ni in snapshot.nodes()]
        return out
    # Only the verdict on the pinned node matters: no scores, no preemption. The pinned pods
    # differ from each other by the pin alone, which InterPodAffinity's PreFilter counts
    # never look at, so the memo lets them be counted once (each node is filtered only in
    # its own cycle, so the memo's per-node filter answers are its own too).
    verdict_options = replace(options or Options(), scores=False)
    # Removing a node's old pod changes the counts the memo would carry over.
    memo = ReplicaMemo() if not old else None
    nodes = snapshot.nodes()
    for i, ni in enumerate(nodes):
        if not i & 63:
            report(f"pinning {incoming.source_name or 'the daemon pod'} to each node", i, len(nodes))
        if ni.name in keep:
            out.daemon_nodes.append(DaemonNodeVerdict(ni.name, True, True, running=True))
            continue
        pinned = IncomingPod(pin_to_node(incoming.pod, ni.name), incoming.source_kind, incoming.source_name,
                             incoming.rule)
        with taken_out(snapshot, old.get(ni.name, [])):
            result = run(snapshot, pinned, profile, verdict_options, path, memo)
        out.daemon_nodes.append(daemon_verdict(ni.name, result))
    return out


def explain_paths(
    manifest: str,
    cluster: list[str],
    **kwargs: Any,
) -> Explanation:
    """:func:`explain_objects` over cluster dump files."""
    return explain_objects(manifest, load_cluster_files(cluster), source=", ".join(cluster), **kwargs)


def clone_pod_dict(pod: Dict) -> Dict:
    return copy.deepcopy(pod)


@without_gc
def run_replicas(
    snapshot: Snapshot,
    incoming: IncomingPod,
    profile: Profile,
    replicas: int,
    options: Options | None = None,
    path: str = "<manifest>",
    added: list[PodInfo] | None = None,
) -> list[CycleResult]:
    """Place ``replicas`` copies one after another, each bound to its cycle's selected node
    (the bound copies are appended to ``added`` when given).

    Copies are named NAME-0 … NAME-{N-1}; the sequence stops at the first copy that does
    not fit.  The snapshot is updated incrementally (the caller's snapshot is modified).
    """
    base_name = (incoming.pod.get("metadata") or {}).get("name") or "pod"
    steps: list[CycleResult] = []
    # The copies differ only by name and uid: node-local answers carry over between cycles,
    # and each cycle updates the previous copy's (kschedx.core.framework.replica_inc).
    memo = ReplicaMemo()
    memo.engine = ReplicaEngine()
    ordinals = incoming.ordinals or list(range(replicas))
    for i in range(replicas):
        report(f"placing {base_name}: copy {i + 1} of {replicas}", i, replicas)
        if incoming.ordinal_pod is not None:
            # A StatefulSet's copies are its ordinals, each with its own claims.
            pod_dict, claims = incoming.ordinal_pod(ordinals[i] if i < len(ordinals) else i)
            _add_claims(snapshot.objects, claims)
            meta = pod_dict["metadata"]
            meta["uid"] = f"kschedx-replica-{meta['name']}"
        else:
            pod_dict = copy.deepcopy(incoming.pod)
            meta = pod_dict.setdefault("metadata", {})
            meta["name"] = f"{base_name}-{i}"
            meta["uid"] = f"kschedx-replica-{base_name}-{i}"
        step_in = IncomingPod(pod_dict, incoming.source_kind, incoming.source_name, incoming.rule,
                              warnings=list(incoming.warnings) if i == 0 else [])
        result = run(snapshot, step_in, profile, options, path, memo)
        steps.append(result)
        if result.selected_node is None:
            break
        pod_dict["spec"]["nodeName"] = result.selected_node
        bound = PodInfo(pod_dict)
        snapshot.add_pod(bound)
        memo.bound.append((bound, result.selected_node))
        if added is not None:
            added.append(bound)
        _record_claims(snapshot.objects, result.bound_claims)
    return steps


def _add_claims(objects: ClusterObjects, claims: list[Dict]) -> None:
    """Add the claims the cluster doesn't hold yet (a StatefulSet copy's new PVCs)."""
    if not claims:
        return
    have = {((c.get("metadata") or {}).get("namespace"), (c.get("metadata") or {}).get("name"))
            for c in objects.of("PersistentVolumeClaim")}
    for c in claims:
        if (c["metadata"].get("namespace"), c["metadata"].get("name")) not in have:
            objects.add(c)


def _record_claims(objects: ClusterObjects, claims: list[Dict]) -> None:
    """Put allocated claims into the cluster (replacing their unallocated versions), so the
    next cycle's DynamicResources sees their devices taken."""
    if not claims:
        return
    def key(c: Dict) -> tuple[str, str]:
        meta = c.get("metadata") or {}
        return (meta.get("namespace") or "default", meta.get("name") or "")
    new = {key(c): c for c in claims}
    kept = [c for c in objects.of("ResourceClaim") if key(c) not in new]
    objects.by_kind["ResourceClaim"] = kept + list(new.values())


def explain_case_json(
    manifest: str,
    cluster: list[str],
    *,
    config: str | None = None,
    replicas: int = 1,
    options: Options | None = None,
    objects: ClusterObjects | None = None,
) -> dict[str, Any]:
    """A golden-style run: the JSON shape of one cycle, or ``{"steps": [...]}`` for replicas.
    ``objects``: what ``load_cluster_files(cluster)`` returned before (a run never changes
    them), for runs of one dump after another."""
    if objects is None:
        objects = load_cluster_files(cluster)
    incoming = prepare_pod(manifest, objects)
    options = resolve_version(options, objects, ", ".join(cluster))
    profiles, options = load_profiles(config, options)
    profile = select_profile(incoming.pod, options.profile if options else None, profiles,
                             options.version if options else None)
    snapshot = build_snapshot(objects, incoming)
    if replicas > 1:
        return {"steps": [r.to_json() for r in run_replicas(snapshot, incoming, profile, replicas, options, manifest)]}
    return run(snapshot, incoming, profile, options, manifest).to_json()

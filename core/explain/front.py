"""The engine's front door: load inputs, build the snapshot, run one cycle, return the result.

The CLI calls only this module (and the loaders), so everything a user can ask for is
also available as a Python API.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from kschedx.core.admission import Admission, Refused
from kschedx.core.admission.priority import resolve_cluster_pod_priorities
from kschedx.core.api.model import PodInfo, pod_uid
from kschedx.core.api.objects import WORKLOAD_KINDS, ClusterObjects, ControllerIndex
from kschedx.core.api.quantity import QuantityError
from kschedx.core.api.selectors import SelectorError
from kschedx.core.config.profile import Profile, default_profile
from kschedx.core.errors import InputError
from kschedx.core.explain import existing
from kschedx.core.explain.replicas import resolve_replica_count
from kschedx.core.explain.report import (
    FAILED_CREATE,
    TIE_WARNING_END,
    DaemonNodeVerdict,
    Explanation,
    daemon_verdict,
    finish_plan,
)
from kschedx.core.explain.rollout import (
    NEW,
    SCALE_UP,
    UNCHANGED,
    WorkloadPlan,
    keep_controller_index,
    plan_workload,
    resolve_count,
    taken_out,
)
from kschedx.core.explain.rollout_run import (
    DaemonSetRollout,
    DeploymentRollout,
    NodeStep,
    RolloutOutcome,
    StatefulSetRollout,
    daemonset_outcome,
    run_deployment,
    run_statefulset,
)
from kschedx.core.explain.whatif import Edits, apply_edits
from kschedx.core.framework import shared_answers
from kschedx.core.framework.interface import ReplicaMemo
from kschedx.core.framework.replica_inc import ReplicaEngine
from kschedx.core.framework.result import CycleResult, PreFilterOutcome
from kschedx.core.framework.runtime import Framework
from kschedx.core.gcpause import gc_paused, without_gc
from kschedx.core.load.admission import apply_defaults, merge_affinity_label_keys
from kschedx.core.load.apivalidation import check_manifest
from kschedx.core.load.files import load_cluster
from kschedx.core.load.manifest import IncomingPod, expand, pin_to_node, select_document
from kschedx.core.load.references import parse_reference
from kschedx.core.load.validate import check_pod_shape
from kschedx.core.plugins import REGISTRY
from kschedx.core.progress import report
from kschedx.core.snapshot import Snapshot
from kschedx.core.versions import SchedulerVersion, choose_version, parse_feature_gates

if TYPE_CHECKING:
    from kschedx.core.load.live_http import Connection

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
    # The odds of what the cycle leaves to chance (the scan's start, ties): result.sampling.
    # None: as the command does (explain works them out; check and pending do not).
    odds: bool | None = None
    # One draw of chance: the scan's start index and the random source of ties (a replica
    # chain's sample, core/explain/chance.py); the cycle chooses as the scheduler would.
    scan_start: int | None = None
    rng: Any = None
    # --samples and --seed of the replica chains (None: no chains played; -1: as many as
    # core/explain/chance.py auto_samples gives for the run's size).
    samples: int | None = None
    seed: int = 0


@dataclass
class Kept:
    """What a run left bound on a shared snapshot (``check``'s release mode, where each
    workload's pods stay for the next): the pods it bound and the pods its controller
    deleted first. ``check`` takes them off again to see a workload alone."""

    bound: list[PodInfo] = field(default_factory=list)
    removed: list[PodInfo] = field(default_factory=list)
    # Of ``removed``, the pods of other workloads its copies preempted.
    preempted: list[PodInfo] = field(default_factory=list)


@dataclass
class RolloutEnd:
    """The pods a rollout played to its end left bound and deleted (release mode keeps that
    end state for the workloads placed after it)."""

    added: list[PodInfo] = field(default_factory=list)
    removed: list[PodInfo] = field(default_factory=list)
    # The quota usage at the end (the pods it created charged, those it deleted given back).
    quota: dict[tuple[str, str], Any] | None = None


@dataclass
class FirstCycles:
    """The cycles a rollout played to its end ran before anything but its own new copies
    changed the snapshot: the pods it deleted before them (uids) and each copy (compared
    without its uid and node, :func:`copy_key`) with its cycle's result. The first step shown
    afterwards starts from the same snapshot when it takes out the same pods, and its copies
    are the same cycles as long as they are the same copies: their results are taken over
    rather than computed twice."""

    removed: list[str] = field(default_factory=list)
    cycles: list[tuple[Dict, CycleResult]] = field(default_factory=list)
    open: bool = True  # still following the rollout's first cycles

    def reusable(self, snapshot: Snapshot, remove: list[Dict]) -> list[tuple[Dict, CycleResult]] | None:
        """The cycles the first step can take over once ``remove`` is taken out of
        ``snapshot`` (None when it takes out other pods than the rollout did)."""
        if not self.cycles:
            return None
        found = map(pod_uid, remove)
        if sorted(uid for uid in found if uid in snapshot.pods_by_uid) != sorted(self.removed):
            return None
        return self.cycles


def copy_key(pod: Dict) -> Dict | None:
    """What makes two copies of a template the same cycle: the pod but for its uid and node
    (None when its uid matters to the cycle: claims generated for the pod are owned by it)."""
    meta = pod.get("metadata") or {}
    spec = pod.get("spec") or {}
    if spec.get("resourceClaims") or any(isinstance(v, dict) and "ephemeral" in v for v in spec.get("volumes") or []):
        return None
    return {**pod, "metadata": {k: v for k, v in meta.items() if k != "uid"},
            "spec": {k: v for k, v in spec.items() if k != "nodeName"}}


def load_cluster_files(paths: list[str]) -> ClusterObjects:
    objects = load_cluster(paths)
    resolve_cluster_pod_priorities(objects)
    return objects


def connect_live(kubeconfig: str | None, context: str | None, request_timeout: str | None = None) -> Connection:
    """The run's one client of the live cluster (core.load.live.connect): the kubeconfig is
    read and an exec credential plugin run once, however many reads follow.
    ``request_timeout`` is the --request-timeout flag's text (None: the default)."""
    from kschedx.core.load.live import connect
    from kschedx.core.load.live_http import parse_request_timeout

    return connect(kubeconfig, context, parse_request_timeout(request_timeout))


def load_live_cluster(connection: Connection, *, events: bool = False) -> tuple[ClusterObjects, list[str]]:
    """The live cluster's objects (read-only listing, see core.load.live; with ``events``,
    the pods' FailedScheduling Events too) and the warnings about kinds that could not be
    listed."""
    from kschedx.core.load.live import load_live

    live = load_live(connection=connection, events=events)
    resolve_cluster_pod_priorities(live.objects)
    return live.objects, live.warnings


def prepare_pod(
    manifest: str, objects: ClusterObjects, *, doc: str | None = None, namespace: str | None = None
) -> IncomingPod:
    """The incoming pod as the scheduler would receive it (workload expanded, admitted)."""
    obj = select_document(manifest, doc)
    return prepare_object(obj, manifest, objects, namespace=namespace)


def prepare_object(obj: Dict, path: str, objects: ClusterObjects, *, namespace: str | None = None,
                   admission: Admission | None = None, version: SchedulerVersion | None = None,
                   volumes: dict[str, tuple[str, Any]] | None = None, provide_volumes: bool = False
                   ) -> IncomingPod:
    """The pod the scheduler would receive for ``obj``: the pod its controller creates,
    defaulted and admitted by ``admission`` (the run's; a new one over ``objects`` when not
    given), with the claims a StatefulSet creates admitted too and bound as the PV
    controller binds them. Quota is charged where pods are created (:func:`charge_quota`),
    not here; a refusal raises :class:`~kschedx.core.admission.Refused` naming who asked
    (FailedCreate). ``volumes``: what :func:`admit_claims` bound for the run's other claims.

    ``provide_volumes``: the StatefulSet's new Immediate claims are bound first, as the PV
    controller does before the pod's next attempt (``check``: will it run?); without it the
    cycle is the scheduler's first attempt (``explain``, as kube-scheduler answers now) and a
    note says what the PV controller will do."""
    if parse_reference(path) is None:
        # What the API server would refuse never reaches a cycle; a pod a reference names
        # (pod/NAME) is taken as stored, whatever today's validation says of it (SPEC §1).
        check_manifest(obj, path)
    run = admission if admission is not None else Admission(objects, version)
    owner = f"{obj.get('kind')} {(obj.get('metadata') or {}).get('name')}"

    provided: dict[str, tuple[str, Any]] = dict(volumes or {})

    def admit_claim(claim: Dict, pod_name: str) -> list[Dict]:
        try:
            run.admit_claim(claim)
        except Refused as e:
            claim_name = (claim.get("metadata") or {}).get("name")
            raise e.reported(f"{owner}: FailedCreate: create Claim {claim_name} for Pod {pod_name} in {owner} "
                             "failed error: ", path) from None
        return _provide(claim, objects, provided, provide_volumes)

    inc = expand(obj, objects, path, namespace, admit_claim)
    check_pod_shape(inc.pod, path)
    inc.volumes_provided = provided
    inc.warnings.extend(_admit_pod(run, inc.pod, namespace, path))
    inc.admission = run
    ordinal_pod = inc.ordinal_pod
    if ordinal_pod is not None:
        def admitted_ordinal_pod(ordinal: int) -> tuple[Dict, list[Dict]]:
            pod, claims = ordinal_pod(ordinal)
            _admit_pod(run, pod, namespace, path)
            return pod, claims

        inc.ordinal_pod = admitted_ordinal_pod
    return inc


def _provide(claim: Dict, objects: ClusterObjects, provided: dict[str, tuple[str, Any]], apply: bool = True
             ) -> list[Dict]:
    """The PV controller's part for a new claim: bound (in place) to a matching or a
    provisioned PV, which is returned; nothing when the claim is left to the scheduler.
    Without ``apply`` (explain: the scheduler's first attempt) only the note is kept."""
    from kschedx.core.explain.provision import provide

    done = provide(claim, objects)
    if done is None:
        return []
    meta = claim.get("metadata") or {}
    key = f"{meta.get('namespace') or 'default'}/{meta.get('name')}"
    if not apply:
        provided[key] = (done.first_attempt_note(), None)
        return []
    claim.clear()
    claim.update(done.claim)
    provided[key] = (done.retry_note(), done.choice)
    return [done.volume]


def lay_extra_objects(objects: ClusterObjects, extra: list[Dict]) -> None:
    """Add a document's own objects; a claim or volume it holds replaces the stored one of the
    same name (a claim the PV controller bound, the volume it bound it to)."""
    for o in extra:
        kind = o.get("kind")
        if kind == "PersistentVolumeClaim":
            key = _claim_key(o)
            objects.by_kind[kind] = [c for c in objects.of(kind) if _claim_key(c) != key]
        elif kind == "PersistentVolume":
            name = (o.get("metadata") or {}).get("name")
            objects.by_kind[kind] = [v for v in objects.of(kind) if (v.get("metadata") or {}).get("name") != name]
        objects.add(o)


def admit_claims(objects: ClusterObjects, applied: list[str], run: Admission
                 ) -> tuple[list[tuple[str, str, Refused]], dict[str, tuple[str, Any]]]:
    """The PersistentVolumeClaims among ``applied`` (KIND/NS/NAME, as lay_over names what it
    laid over), created as ``kubectl apply`` creates them: each is admitted and handed to the
    PV controller (a copy replaces it in ``objects``, with the PV it is bound to); a refused
    claim is not created. Returns the refusals (namespace, name, Refused) and what the PV
    controller did per claim (for ``prepare_object(volumes=...)``)."""
    wanted = {tuple(a.split("/")[1:]) for a in applied if a.startswith("PersistentVolumeClaim/")}
    provided: dict[str, tuple[str, Any]] = {}
    if not wanted:
        return [], provided
    # Not created yet: the quotas' usage, counted for one without status, leaves them out.
    stored = objects.of("PersistentVolumeClaim")
    new = [c for c in stored if _claim_key(c) in wanted]
    objects.by_kind["PersistentVolumeClaim"] = [c for c in stored if _claim_key(c) not in wanted]
    refused: list[tuple[str, str, Refused]] = []
    for claim in new:
        claim = copy.deepcopy(claim)
        try:
            run.admit_claim(claim)
        except Refused as e:
            refused.append((*_claim_key(claim), e))
            continue
        lay_extra_objects(objects, [claim, *_provide(claim, objects, provided)])
    return refused, provided


def _claim_key(claim: Dict) -> tuple[str, str]:
    meta = claim.get("metadata") or {}
    return str(meta.get("namespace") or "default"), str(meta.get("name") or "")


def _admit_pod(run: Admission, pod: Dict, namespace: str | None, path: str) -> list[str]:
    """API defaulting, the mutating and validating admission plugins (quota apart), then the
    registry's matchLabelKeys merge."""
    apply_defaults(pod, namespace)
    meta = pod.get("metadata") or {}
    try:
        if meta.get("uid") and meta.get("creationTimestamp"):
            warnings = run.admit_stored_pod(pod)
        else:
            warnings = run.admit_pod(pod, charge_quota=False)
    except Refused as e:
        raise failed_create(e, pod, path) from None
    except InputError as e:
        raise InputError(e.detail, path=path) from None
    merge_affinity_label_keys(pod)
    return warnings


def failed_create(e: Refused, pod: Dict, path: str) -> Refused:
    """The refusal as the pod's creator reports it: a controller's FailedCreate event, or
    the API server's answer to a Pod created by hand."""
    owner = next((r for r in (pod.get("metadata") or {}).get("ownerReferences") or [] if r.get("controller")), None)
    if owner is None:
        return e.reported("", path)
    who = f"{owner.get('kind')} {owner.get('name')}"
    if owner.get("kind") == "StatefulSet":
        pod_name = (pod.get("metadata") or {}).get("name")
        return e.reported(f"{who}: FailedCreate: create Pod {pod_name} in {who} failed error: ", path)
    return e.reported(f"{who}: FailedCreate: Error creating: ", path)


def charge_quota(incoming: IncomingPod, pod: Dict, path: str) -> None:
    """Count one created pod against its namespace's quotas (raises Refused when over)."""
    run: Admission | None = incoming.admission
    if run is None:
        return
    try:
        run.charge_pod(pod)
    except Refused as e:
        raise failed_create(e, pod, path) from None


def release_quota(admission: Admission | None, snapshot: Snapshot, pods: list[Dict]) -> None:
    """The pods among ``pods`` still on ``snapshot`` are deleted by their controller: what
    they counted in their quotas is given back before the new pods are created (the
    controller's create is retried until the deletion has completed)."""
    if admission is None:
        return
    for raw in pods:
        if snapshot.pods_by_uid.get(pod_uid(raw)) is not None:
            admission.release_pod(raw)


def rejected_result(pod: Dict, message: str, snapshot: Snapshot, profile: Profile,
                    options: Options | None) -> CycleResult:
    """A copy the API server refused: no cycle ran; its FitError line is the refusal."""
    meta = pod.get("metadata") or {}
    version = options.version.name if options is not None and options.version is not None else "v1.35"
    return CycleResult(
        kubernetes_version=version, profile=profile.scheduler_name,
        pod=f"{meta.get('namespace') or 'default'}/{meta.get('name')}",
        pod_priority=int((pod.get("spec") or {}).get("priority") or 0), num_all_nodes=len(snapshot.nodes()),
        pre_filter=PreFilterOutcome(), nodes={}, score_plugins=[], totals={}, best_nodes=[],
        selected_node=None, single_feasible_node=False, fit_error=message, error=message, refused=True,
    )


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


def build_snapshot(objects: ClusterObjects, incoming: IncomingPod | None = None,
                   index_controllers: bool = False) -> Snapshot:
    """A snapshot of ``objects``. With ``index_controllers`` (``check`` of workloads that may
    run already) their pods are indexed by controller as they are read, for the plans to
    find each workload's pods in (core/explain/rollout.py ``keep_controller_index``)."""
    pods = objects.of("Pod")
    # A copy of the lists: replica steps record claims in the snapshot's objects, and the
    # caller's objects may serve further runs (check, the next document).
    objects = objects.copy()
    extra = incoming.extra_objects if incoming is not None else None
    if extra:
        lay_extra_objects(objects, extra)
    # The copy holds the caller's pods, in order, unless objects were laid over it.
    controllers: ControllerIndex | None = {} if index_controllers and not extra else None
    with gc_paused():
        snapshot = Snapshot(objects, controllers)
    if controllers is not None:
        keep_controller_index(pods, controllers)
    return snapshot


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
    fw.sampling = bool(options.odds)
    fw.scan_start, fw.rng = options.scan_start, options.rng
    if not options.offline:
        fw.extenders = list(options.extenders)
    if options.focus is not None and snapshot.get(options.focus) is None:
        from kschedx.core.explain.nodenames import resolve_node_name

        # Resolved once for the run: the copies of --replicas then find the node by its name.
        options.focus = resolve_node_name(options.focus, [n.name for n in snapshot.nodes()], "--node")
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
        waits = [d for d in result.device_allocations if d.get("bindingConditions")]
        if waits:
            # PreBind waits for them (DRADeviceBindingConditions): binding is not immediate.
            named = ", ".join(f"{d['driver']}/{d['pool']}/{d['device']} ({', '.join(d['bindingConditions'])})"
                              for d in waits)
            result.notes.append(f"DynamicResources: binding waits in PreBind until the binding conditions of {named} "
                                "are true (up to the 10-minute binding timeout; a failure condition ends the wait "
                                "and the pod is scheduled again)")
    if pod.spec.get("volumes"):
        from kschedx.core.explain.focus import volume_summary

        result.volumes = volume_summary(pod, snapshot)
    if options.focus is not None and fw is not None:
        from kschedx.core.explain.focus import node_story

        result.focus = node_story(result, fw.plugins, pod, snapshot, options.focus)
        if result.sampling is not None and result.focus.feasible:
            result.focus.odds, result.focus.scored_in, result.focus.beaten_by = \
                result.sampling.story_of(options.focus)
        verdict = result.nodes.get(options.focus)
        if verdict is not None and verdict.rejected_at == "Extender":
            # Every filter plugin passed; a scheduler extender's filter turned the node down.
            result.focus.feasible = False
            result.focus.rejected_at = "Extender"
            result.focus.hints.insert(
                0, f"{verdict.plugin} filtered it out: {'; '.join(verdict.reasons) or '(no reason given)'}"
            )
    result.notes.append(incoming.rule)
    result.notes.extend(incoming.notes)
    if incoming.volumes_provided:
        from kschedx.core.explain.provision import zone_warnings

        claims = [f"{pod.namespace}/{v['persistentVolumeClaim']['claimName']}" for v in pod.spec.get("volumes") or []
                  if isinstance((v or {}).get("persistentVolumeClaim"), dict)]
        done = [incoming.volumes_provided[c] for c in claims if c in incoming.volumes_provided]
        result.notes.extend(note for note, _ in done)
        result.warnings.extend(zone_warnings(result, snapshot, [choice for _, choice in done if choice is not None]))
    if options.version_note:
        result.notes.append(options.version_note)
    result.warnings.extend(incoming.warnings)
    result.warnings.extend(options.extra_warnings)
    if incoming.bound_node:
        result.focus_node = incoming.bound_node
    if len(result.best_nodes) > 1:
        result.warnings.append(
            f"{len(result.best_nodes)} nodes tie at total {_best_total(result)} "
            f"({', '.join(result.best_nodes)}){TIE_WARNING_END}"
        )
    if result.single_feasible_node:
        skipped = "PreScore and Score" if result.algorithm == "v1.35" else "the priority functions"
        result.warnings.append(
            f"only {result.selected_node} is feasible: the real scheduler binds it without running "
            f"{skipped}; the scores are shown for the explanation only"
        )
    n = result.num_all_nodes
    k = result.num_feasible_nodes_to_find or n
    sampling = result.sampling
    if sampling is not None:
        if not sampling.same_window_for_every_start:
            result.warnings.append(
                f"the real scheduler scores only {sampling.window_size} of the {sampling.num_feasible} feasible nodes "
                "per cycle (percentageOfNodesToScore): the table scores every node, and \"Where it lands\" gives the "
                "odds of each node being chosen")
    elif k < n:
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
    options = resolve_version(options, objects, ", ".join(cluster))
    incoming = prepare_object(obj, manifest, objects, namespace=namespace, version=options.version)
    plan = plan_workload(obj, incoming, objects)
    profiles, options = load_profiles(config, options)
    profile = select_profile(incoming.pod, options.profile if options else None, profiles,
                             options.version if options else None)
    try:
        snapshot = build_snapshot(objects, incoming)
    except (QuantityError, SelectorError) as e:
        # A bad quantity of a node or pod in the dump: the message names the object.
        raise InputError(str(e), path=", ".join(cluster)) from None
    with taken_out(snapshot, plan.remove if plan is not None else []):
        result = run(snapshot, incoming, profile, explaining(options), manifest)
    if plan is not None:
        finish_plan(plan, Explanation("single", [result]))
    return result


def explaining(options: Options | None) -> Options:
    """The options of an explanation: unless told otherwise, it tells the odds of its cycle
    (check and pending, which run many cycles, leave them out)."""
    if options is None or options.odds is None:
        return replace(options or Options(), odds=True)
    return options


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
    keep: Kept | None = None,
    admission: Admission | None = None,
    volumes: dict[str, tuple[str, Any]] | None = None,
    provide_volumes: bool = False,
    preempt: bool = False,
    applied_before: Sequence[Dict] = (),
    hpa: bool = True,
) -> Explanation:
    """One pod-bearing object: one cycle, the replica steps, or (for a DaemonSet) one
    pinned cycle per node. Without ``hpa`` the count is the one ``kubectl apply`` sets,
    before an HPA's next sync (core/explain/replicas.py reset_by_apply).

    ``preempt`` (with ``snapshot``): replica copies that fit only by preemption evict
    their victims and are placed (see :func:`run_replicas`); with ``keep`` the victims
    stay evicted and are listed in ``keep.preempted``.

    ``applied_before``: earlier documents of a release for the same object, which
    ``kubectl apply`` sends first (their last applied configuration decides a count the
    object's own document leaves out, core/explain/replicas.py).

    ``admission``: the run's (quota usage of earlier objects counts); a new one otherwise.
    ``volumes``: what the PV controller did with the run's claims (:func:`admit_claims`);
    ``provide_volumes``: see :func:`prepare_object`.

    ``snapshot``, when given, is a snapshot of ``objects`` to run on instead of building a
    new one (``check`` builds one for all its documents): the document's own objects are
    laid over it and the replica copies it binds are taken off again afterwards; with
    ``keep`` they stay, as does what the run changed (the pods its controller deleted,
    the daemon pods, the ReplicaSet, StatefulSet and claims it added to ``snapshot.objects``),
    and ``keep`` lists the pods.
    """
    obj, replicas_from = resolve_replica_count(obj, objects, namespace, applied_before, hpa)
    options = resolve_version(options, objects, source)
    incoming = prepare_object(obj, path, objects, namespace=namespace, admission=admission, version=options.version,
                              volumes=volumes, provide_volumes=provide_volumes)
    if replicas_from:
        incoming.rule += f"; {replicas_from}"
    plan = plan_workload(obj, incoming, objects)
    if plan is not None and replicas_from:
        plan.note = f"{replicas_from}; {plan.note}" if plan.note else replicas_from
    profiles, options = load_profiles(config, options)
    profile = select_profile(incoming.pod, options.profile if options else None, profiles,
                             options.version if options else None)
    # Identity: the scheduler never has the pod it schedules in its cache. When a running
    # workload's controller creates pods (a scale-up, a rollout) they are new ones: what it
    # deletes is in the plan, and a StatefulSet's NAME-0 stays unless the plan replaces it.
    # (A pod whose name stands for a generated one is no stored pod: none to look up.)
    identity = (plan is None or plan.rule in (NEW, UNCHANGED)) and not incoming.generated_name
    if snapshot is None:
        options = explaining(options)
        objects, current = existing.take_out(objects, incoming.pod) if identity else (objects, None)
        if current is not None:
            incoming.admission = None  # a pod that exists was counted in its quotas already
        try:
            snapshot = build_snapshot(objects, incoming)
        except (QuantityError, SelectorError) as e:
            # A bad quantity of a node or pod in the dump: the message names the object.
            raise InputError(str(e), path=source) from None
        out = _explain_on(snapshot, incoming, profile, options, path, replicas, edit_lines or [], plan=plan)
        out.replicas_from = replicas_from
        return existing.annotate(out, current, snapshot, source, profiles)
    base_objects = snapshot.objects
    snapshot.objects = objects.overlay()
    lay_extra_objects(snapshot.objects, incoming.extra_objects)
    added: list[PodInfo] = []
    evicted: list[PodInfo] | None = [] if preempt else None
    # A change played to its end (a rollout): in a release its end state stays, not its
    # first step's; the first step is still explained on the cluster as it was.
    end = RolloutEnd() if keep is not None and _whole_rollout(plan, replicas) and not incoming.daemonset else None
    if keep is not None and plan is not None and end is None:
        # The pods the controller deletes stay deleted (taken_out finds them gone).
        gone = [*plan.remove, *(p for pods in plan.daemon_old.values() for p in pods)]
        release_quota(incoming.admission, snapshot, gone)
        keep.removed.extend(_remove_for_good(snapshot, gone))
    raw: Dict | None = None
    try:
        raw = existing.find_existing(objects, incoming.pod) if identity else None
        if raw is not None:
            incoming.admission = None  # a pod that exists was counted in its quotas already
        with existing.detached(snapshot, raw) if raw is not None else nullcontext() as current:
            out = _explain_on(snapshot, incoming, profile, options, path, replicas, edit_lines or [], added, plan,
                              end, evicted)
            out.preempted = [pi.key for pi in evicted or []]
            if keep is not None and out.mode == "daemonset":
                added.extend(_bind_daemon_pods(snapshot, incoming, out))
        out.replicas_from = replicas_from
        return existing.annotate(out, current, snapshot, source, profiles)
    finally:
        if evicted and keep is not None and raw is None and end is None:
            keep.removed.extend(evicted)
            keep.preempted.extend(evicted)
        elif evicted:
            # Kept nowhere, or a rollout whose end state (played apart) replaces its first
            # step: the victims of the copies are back.
            for p in evicted:
                snapshot.add_pod(p)
        if keep is not None and raw is not None:
            # A pod the cluster already holds stays as it is: applying it creates none.
            for p in added:
                snapshot.remove_pod(p)
        elif keep is not None and end is not None:
            # The rollout's end state replaces its first step's.
            for p in added:
                snapshot.remove_pod(p)
            for p in end.removed:
                snapshot.remove_pod(p)
            for p in end.added:
                snapshot.add_pod(p)
            keep.removed.extend(end.removed)
            keep.bound.extend(end.added)
            if end.quota is not None and incoming.admission is not None:
                incoming.admission.ledger.restore(end.quota)
        elif keep is not None:
            keep.bound.extend(added)
            if plan is not None and plan.rule in (UNCHANGED, SCALE_UP):
                # The controller creates no new owner for a workload that keeps its template.
                _drop(snapshot.objects, [o for o in incoming.extra_objects if o.get("kind") in WORKLOAD_KINDS])
        else:
            for p in added:
                snapshot.remove_pod(p)
            snapshot.objects = base_objects


def _drop(objects: ClusterObjects, gone: list[Dict]) -> None:
    ids = {id(o) for o in gone}
    if not ids:
        return
    for by in (objects.by_kind, objects.workloads):
        for kind, items in list(by.items()):
            if any(id(o) in ids for o in items):
                by[kind] = [o for o in items if id(o) not in ids]


def _remove_for_good(snapshot: Snapshot, pods: list[Dict]) -> list[PodInfo]:
    """Take ``pods`` off the snapshot and return what was taken."""
    removed: list[PodInfo] = []
    for raw in pods:
        pi = snapshot.pods_by_uid.get(pod_uid(raw))
        if pi is not None:
            snapshot.remove_pod(pi)
            removed.append(pi)
    return removed


def _bind_daemon_pods(snapshot: Snapshot, incoming: IncomingPod, out: Explanation) -> list[PodInfo]:
    """The DaemonSet's new pods, bound on every node where it fits (and runs none yet): what
    the pods placed after it find there."""
    meta = incoming.pod.get("metadata") or {}
    spec = incoming.pod.get("spec") or {}
    bound: list[PodInfo] = []
    for v in out.daemon_nodes:
        if not v.fits or v.running or snapshot.get(v.node) is None:
            continue
        name = f"{incoming.source_name}-{v.node}"
        pod = dict(incoming.pod, metadata=dict(meta, name=name, uid=f"kschedx-daemon-{meta.get('namespace')}-{name}"),
                   spec=dict(spec, nodeName=v.node))
        pi = PodInfo(pod)
        snapshot.add_pod(pi)
        bound.append(pi)
    return bound


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
    end: RolloutEnd | None = None,
    evicted: list[PodInfo] | None = None,
) -> Explanation:
    # A change to a workload that runs, with --replicas auto (and in check): the whole
    # rollout, played on the snapshot and taken off it again before the first step is shown
    # (``end`` records its end state).
    whole = _whole_rollout(plan, replicas)
    known: list[tuple[Dict, CycleResult]] | None = None
    if whole and plan is not None and not incoming.daemonset:
        first = FirstCycles()
        plan.outcome = _run_rollout(snapshot, incoming, profile, options, path, plan, end, first)
        if incoming.ordinal_pod is None and (options is None or options.focus is None):
            # The first step is where the rollout began: its cycles are taken over.
            known = first.reusable(snapshot, plan.remove)
    # A workload that already runs: the pods its controller deletes first are taken out,
    # and their quota usage given back.
    release_quota(incoming.admission, snapshot, plan.remove if plan is not None else [])
    with taken_out(snapshot, plan.remove if plan is not None else []):
        if incoming.daemonset:
            out = _explain_daemonset(snapshot, incoming, profile, options, path, edit_lines, plan)
        elif replicas is None and (plan is None or incoming.ordinal_pod is None):
            if plan is None or plan.to_place > len(plan.stored_pending):
                charge_quota(incoming, incoming.pod, path)
            out = Explanation("single", [run(snapshot, incoming, profile, options, path)], edit_lines)
        else:
            count = 1 if replicas is None else resolve_count(plan, replicas, resolve_replicas(replicas, incoming))
            if plan is not None and incoming.ordinal_pod is not None:
                incoming.ordinals = plan.ordinals_for(count)
            # --replicas with --samples: the copies' chance is played out after the steps.
            chains = replicas is not None and options is not None and bool(options.samples) and not whole \
                and options.algorithm in (None, "v1.35") and not options.extenders
            bound: list[PodInfo] | None = added if added is not None else [] if chains else None
            already = len(bound) if bound is not None else 0
            steps = run_replicas(snapshot, incoming, profile, count, options, path, bound,
                                 plan.stored_pending if plan is not None else [],
                                 refusal_stops_all=plan is None or plan.outcome is None, evicted=evicted,
                                 known=known)
            if replicas is not None and (options is None or options.algorithm in (None, "v1.35")):
                from kschedx.core.explain.batching import annotate_replicas, batching_on

                if batching_on(options.version if options is not None else None):
                    annotate_replicas(steps, profile, incoming.pod, bool(options and options.extenders),
                                      incoming.source_kind)
            out = Explanation("replicas" if replicas is not None else "single", steps, edit_lines,
                              replicas_requested=count)
            if chains and bound is not None and options is not None and options.samples:  # (narrowed for mypy)
                from kschedx.core.explain.chance import auto_samples, replica_chance

                # The steps' copies are bound on the snapshot: the chains start without them.
                mine = bound[already:]
                for pi in mine:
                    snapshot.remove_pod(pi)
                samples = options.samples if options.samples > 0 else auto_samples(count, len(snapshot.nodes()))
                try:
                    out.chance = replica_chance(snapshot, incoming, profile, count, options, path,
                                                samples, options.seed, run_replicas)
                finally:
                    for pi in mine:
                        snapshot.add_pod(pi)
            if plan is None or plan.outcome is None:  # a rollout's end says what it leaves
                stored = plan.stored_pending if plan is not None else []
                out.not_created, out.not_created_why = _create_the_rest(incoming, steps, count, stored, path)
    if whole and plan is not None and isinstance(plan.start, DaemonSetRollout):
        plan.outcome = _daemonset_rollout(out, plan.start, incoming)
    if plan is not None:
        finish_plan(plan, out)
    for result in [*out.steps, *([out.daemon_template] if out.daemon_template else [])]:
        result.edits = list(edit_lines)
    return out


def _ordinal_stand_in(pod: Dict, ordinal: int) -> Dict:
    """A StatefulSet's pod NAME-ordinal as named where it was never created (its claim was
    refused): the first ordinal's pod under that name, for the refused step's line."""
    out = clone_pod_dict(pod)
    meta = out.setdefault("metadata", {})
    base = str(meta.get("name") or "pod").rsplit("-", 1)[0]
    meta["name"] = f"{base}-{ordinal}"
    return out


def _create_the_rest(incoming: IncomingPod, steps: list[CycleResult], count: int, stored: list[str],
                     path: str) -> tuple[int, str | None]:
    """The copies after the one the sequence stopped at: how many never exist, and why
    when the copy that stopped it was created (Pending): the API server's refusal of a
    later one, or :data:`ORDERED_READY`.

    A refused copy means every later one is refused too (the quota only fills up). After a
    copy that found no node, a ReplicaSet's, Job's or Parallel StatefulSet's controller
    creates the rest anyway (they stay Pending), each charged to the quota until one is
    refused, and the skipped ones are retried against the same full quota; an OrderedReady
    StatefulSet's controller creates none while that ordinal is not running and ready
    (stateful_set_control.go processReplica)."""
    left = count - sum(1 for s in steps if s.selected_node is not None)
    if not left or not steps:
        return 0, None
    if steps[-1].refused:
        return left, None
    if incoming.one_at_a_time:
        return left - 1, ORDERED_READY if left > 1 else None
    run: Admission | None = incoming.admission
    meta = incoming.pod.get("metadata") or {}
    if run is None or not run.resource_quotas(str(meta.get("namespace") or "default")):
        return 0, None  # no quota to refuse any: all are created
    base = meta.get("name") or "pod"
    created = 0
    refusal: str | None = None
    for i in range(len(steps), count):
        try:
            if incoming.ordinal_pod is not None:
                # Creating the ordinal's claims may be refused first (FailedCreate too).
                pod = incoming.ordinal_pod((incoming.ordinals or [])[i] if i < len(incoming.ordinals or []) else i)[0]
                exists = pod["metadata"]["name"] in stored
            else:
                pod = copy.deepcopy(incoming.pod)
                pod.setdefault("metadata", {})["name"] = f"{base}-{i}"
                exists = i < len(stored)
            if not exists:
                charge_quota(incoming, pod, path)
        except Refused as e:
            refusal = e.detail
            break
        created += 1
    return left - 1 - created, refusal


# Why the copies after a Pending ordinal of an OrderedReady StatefulSet are not created.
ORDERED_READY = "OrderedReady: each ordinal once the one before runs"


def _whole_rollout(plan: WorkloadPlan | None, replicas: int | str | None) -> bool:
    """Whether the change of a running workload is played to its end (--replicas auto)."""
    return plan is not None and plan.start is not None and isinstance(replicas, str) \
        and replicas.strip().lower() == "auto"


# The replica engine (core/framework/replica_inc.py) is started for a template once this
# many of its copies are placed in a row (the copy about to be placed and those known to
# follow it included). Its first cycle judges every node and keeps what it needs to
# update the next copy's cycle, which costs more than an ordinary cycle: a copy placed
# alone (a rollout's new pod between deletions of old ones, a workload of one replica)
# runs the ordinary cycle. Both give the same answer; 1 starts it for every copy.
ENGINE_FROM = 2


class _RolloutCluster:
    """The snapshot under a simulated rollout (core/explain/rollout_run.py Cluster): real
    cycles bind new pods, deletions take pods out, and :meth:`restore` puts it all back.

    Consecutive copies of one template share a ReplicaMemo as replica steps do, the pods
    deleted or evicted between them recorded in it (the replica engine updates their
    nodes); a failed cycle or another template starts a new one."""

    def __init__(self, snapshot: Snapshot, incoming: IncomingPod, profile: Profile, options: Options | None,
                 path: str) -> None:
        self.snapshot, self.incoming, self.profile, self.path = snapshot, incoming, profile, path
        self.options = replace(options, focus=None) if options is not None else None
        self.memo: ReplicaMemo | None = None
        self.added: list[PodInfo] = []
        self.removed: list[PodInfo] = []
        self.claims = snapshot.objects.by_kind.get("ResourceClaim")
        self.cycles = 0
        self.owner: str | None = None
        # Quota: a pod is charged when its creation is admitted (once; a refused create is
        # tried again later, as the controller retries it), and a deleted pod gives its
        # usage back. The workload's own Pending pods exist already.
        self.admission: Admission | None = incoming.admission
        self.quota_before = self.admission.ledger.saved() if self.admission is not None else None
        self.quota_end: dict[tuple[str, str], Any] | None = None
        self.created: set[str] = set()
        self.stored: set[str] = set()
        self.first = FirstCycles()

    def _create(self, pod: Dict) -> CycleResult | None:
        """The API server's answer to creating ``pod``: None when it is created (or
        exists), else the refusal as a result without a cycle."""
        meta = pod.get("metadata") or {}
        key = str(meta.get("uid") or meta.get("name"))
        if self.admission is None or key in self.created or meta.get("name") in self.stored:
            return None
        try:
            charge_quota(self.incoming, pod, self.path)
        except Refused as e:
            return rejected_result(pod, e.detail, self.snapshot, self.profile, self.options)
        self.created.add(key)
        return None

    def place(self, pod: Dict, more: int = 0) -> CycleResult:
        refused = self._create(pod)
        if refused is not None:
            self.first.open = False
            return refused
        owner = ((pod.get("metadata") or {}).get("ownerReferences") or [{}])[0].get("name")
        if owner != self.owner:  # another template: nothing carries over
            self.memo, self.owner = None, owner
        if self.memo is None:
            self.memo = ReplicaMemo()
        if self.memo.engine is None and len(self.memo.bound) + 1 + more >= ENGINE_FROM:
            self.memo.engine = ReplicaEngine()
        self.cycles += 1
        report(f"rolling out {self.incoming.source_name}: cycle {self.cycles}")
        step = copy_incoming(self.incoming, pod, self.cycles == 1)
        result = run(self.snapshot, step, self.profile, self.options, self.path, self.memo)
        if self.first.open:
            key = copy_key(pod)
            if key is None or result.refused:
                self.first.open = False
            else:
                self.first.cycles.append((key, result))
                self.first.open = result.selected_node is not None
        if result.selected_node is None:
            self.memo = None
            return result
        pod["spec"]["nodeName"] = result.selected_node
        bound = PodInfo(pod)
        self.snapshot.add_pod(bound)
        self.memo.bound.append((bound, result.selected_node))
        self.added.append(bound)
        _record_claims(self.snapshot.objects, result.bound_claims)
        return result

    def delete(self, pod: Dict) -> None:
        pi = self.snapshot.pods_by_uid.get(pod_uid(pod))
        if pi is not None:
            self._remove(pi)
        if self.admission is not None:
            # Every pod a controller deletes exists (bound or Pending): it counted until now.
            self.admission.release_pod(pod)

    def evict(self, node: str, victims: list[str]) -> list[str]:
        return [pi.key for pi in _evict(self.snapshot, node, victims, self.admission, self._remove)]

    def _remove(self, pi: PodInfo) -> None:
        generation = self.snapshot.generation
        self.snapshot.remove_pod(pi)
        self.removed.append(pi)
        if self.first.open:
            if self.first.cycles:
                self.first.open = False  # the rollout's first cycles end here
            else:
                self.first.removed.append(pi.uid)
        if self.memo is not None and self.snapshot.generation != generation:
            self.memo.removed_pod(pi, pi.node_name)

    def restore(self) -> None:
        if self.admission is not None and self.quota_before is not None:
            self.quota_end = self.admission.ledger.saved()
            self.admission.ledger.restore(self.quota_before)
        for pi in reversed(self.added):
            self.snapshot.remove_pod(pi)
        for pi in self.removed:
            self.snapshot.add_pod(pi)
        if self.claims is not None:
            self.snapshot.objects.by_kind["ResourceClaim"] = self.claims


def _run_rollout(snapshot: Snapshot, incoming: IncomingPod, profile: Profile, options: Options | None, path: str,
                 plan: WorkloadPlan, end: RolloutEnd | None = None,
                 first: FirstCycles | None = None) -> RolloutOutcome | None:
    """The change of a running Deployment or StatefulSet played to its end on the snapshot,
    then taken off again; ``end`` gets the pods it left bound and deleted, ``first`` the
    cycles it began with."""
    cluster = _RolloutCluster(snapshot, incoming, profile, options, path)
    if first is not None:
        cluster.first = first
    cluster.stored = set(plan.stored_pending)
    base = (incoming.pod.get("metadata") or {}).get("name") or "pod"

    def copy_of(i: int) -> Dict:
        pod = copy.deepcopy(incoming.pod)
        meta = pod.setdefault("metadata", {})
        meta["name"] = f"{base}-{i}"
        meta["uid"] = f"kschedx-rollout-{base}-{i}"
        return pod

    def ordinal(i: int) -> Dict:
        assert incoming.ordinal_pod is not None
        pod, claims = incoming.ordinal_pod(i)
        _add_claims(snapshot.objects, claims)
        pod["metadata"]["uid"] = f"kschedx-rollout-{pod['metadata']['name']}"
        return pod

    try:
        if isinstance(plan.start, DeploymentRollout):
            return run_deployment(plan.start, copy_of, cluster)
        if isinstance(plan.start, StatefulSetRollout) and incoming.ordinal_pod is not None:
            version = options.version if options is not None else None
            gate = version is not None and version.enabled("MaxUnavailableStatefulSet")
            return run_statefulset(plan.start, ordinal, cluster, plan.start.bound(gate))
        return None
    finally:
        cluster.restore()
        if end is not None:
            end.added.extend(cluster.added)
            end.removed.extend(cluster.removed)
            end.quota = cluster.quota_end


def _daemonset_rollout(out: Explanation, start: DaemonSetRollout, incoming: IncomingPod) -> RolloutOutcome:
    """The DaemonSet's rollout from its per-node verdicts (each taken with that node's old
    pod gone, or beside it under maxSurge)."""
    targeted = [v for v in out.daemon_nodes if v.targeted or v.running]
    surge, unavailable = start.bounds(len(targeted))
    steps = [NodeStep(v.node, v.fits, v.node in start.old_nodes,
                      f"{v.plugin}: {'; '.join(v.reasons)}" if not v.fits else None)
             for v in sorted(targeted, key=lambda v: v.node) if not v.running]
    kept = sum(1 for v in targeted if v.running)
    return daemonset_outcome(steps, surge, unavailable, kept, incoming.source_name or "daemon pod")


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
        _create_daemon_pods(out, snapshot, incoming, plan, path)
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
    _create_daemon_pods(out, snapshot, incoming, plan, path)
    return out


def _create_daemon_pods(out: Explanation, snapshot: Snapshot, incoming: IncomingPod, plan: WorkloadPlan | None,
                        path: str) -> None:
    """The DaemonSet controller creates a pod for each node that should run one (its node
    affinity and taints allow it: nodeShouldRunDaemonPod), whether or not the pod then
    finds room there (a Pending daemon pod counts in the quota too), and each create goes
    through ResourceQuota like any pod's: one refused leaves that node without its daemon
    pod (FailedCreate). A node's old daemon pod counts until it is deleted: first without
    maxSurge, after the new one with it.

    Which nodes go without when the quota runs out is not fixed upstream: the controller
    walks its node lister's list (an informer cache, in Go map order) and creates each
    slow-start batch concurrently. The nodes are taken here in the snapshot's order, and
    the verdict says the choice is the controller's (check.py)."""
    if incoming.admission is None:
        return
    start = plan.start if plan is not None else None
    surge = isinstance(start, DaemonSetRollout) and start.bounds(sum(1 for v in out.daemon_nodes if v.targeted))[0] > 0
    old = plan.daemon_old if plan is not None else {}
    for k, v in enumerate(out.daemon_nodes):
        if not v.targeted or v.running:
            continue
        if not surge:
            release_quota(incoming.admission, snapshot, old.get(v.node, []))
        try:
            charge_quota(incoming, pin_to_node(incoming.pod, v.node), path)
        except Refused as e:
            out.daemon_nodes[k] = DaemonNodeVerdict(v.node, False, True, "ResourceQuota", FAILED_CREATE, [e.detail])
            continue
        if surge:
            release_quota(incoming.admission, snapshot, old.get(v.node, []))


def explain_paths(
    manifest: str,
    cluster: list[str],
    **kwargs: Any,
) -> Explanation:
    """:func:`explain_objects` over cluster dump files."""
    return explain_objects(manifest, load_cluster_files(cluster), source=", ".join(cluster), **kwargs)


def clone_pod_dict(pod: Dict) -> Dict:
    """A copy of a decoded manifest whose dicts and lists are all new (their scalars are
    immutable and shared): what ``copy.deepcopy`` gives for such data, at a fraction of its
    cost (no memo, no dispatch), which a replica run pays once per copy."""
    copied: Dict = _tree_copy(pod)
    return copied


def _tree_copy(value: Any) -> Any:
    kind = type(value)
    if kind is dict:
        return {k: _tree_copy(v) for k, v in value.items()}
    if kind is list:
        return [_tree_copy(v) for v in value]
    if kind is str or kind is int or kind is bool or kind is float or value is None:
        return value
    return copy.deepcopy(value)  # anything else a decoder made: the general copy


@without_gc
def run_replicas(
    snapshot: Snapshot,
    incoming: IncomingPod,
    profile: Profile,
    replicas: int,
    options: Options | None = None,
    path: str = "<manifest>",
    added: list[PodInfo] | None = None,
    stored_pending: list[str] | None = None,
    refusal_stops_all: bool = True,
    evicted: list[PodInfo] | None = None,
    known: list[tuple[Dict, CycleResult]] | None = None,
) -> list[CycleResult]:
    """Place ``replicas`` copies one after another, each bound to its cycle's selected node
    (the bound copies are appended to ``added`` when given). ``stored_pending``: the
    workload's own Pending pods (a StatefulSet's by ordinal name, else the first copies),
    which exist already and are not charged to a quota again. A refused first copy means
    the workload does not run (raised) unless ``refusal_stops_all`` is off (a rollout whose
    whole run says how it ends: its first step is shown refused). ``known``: cycles already
    run on this snapshot in this order (a rollout's first ones, :class:`FirstCycles`), each
    with its copy: a copy equal to its counterpart takes that cycle's result.

    Copies are named NAME-0 … NAME-{N-1}; the sequence stops at the first copy that does
    not fit.  The snapshot is updated incrementally (the caller's snapshot is modified).

    With ``evicted`` (``check``), a copy that fits only by preemption is placed as the
    scheduler places it once its victims are gone: the nominated node's victims are taken
    off the snapshot (appended to ``evicted``, their quota given back) and the copy is
    scheduled again, its step that second cycle, noting the preemption.
    """
    base_name = (incoming.pod.get("metadata") or {}).get("name") or "pod"
    steps: list[CycleResult] = []
    if options is not None and options.odds:
        # A copy's odds depend on the copies before it: the chains of core/explain/chance.py
        # tell them, not each copy's cycle alone.
        options = replace(options, odds=False)
    # The copies differ only by name and uid: node-local answers carry over between cycles,
    # and each cycle updates the previous copy's (kschedx.core.framework.replica_inc).
    memo = ReplicaMemo()
    # ``options.scan_start`` given (a chain of core/explain/chance.py, a sampled release in
    # check): the copies are one chain of the scheduler's draws, each copy's scan starting
    # where the last one's stopped.
    start = options.scan_start if options is not None else None
    if replicas >= ENGINE_FROM and start is None:
        memo.engine = ReplicaEngine()
    ordinals = incoming.ordinals or list(range(replicas))
    for i in range(replicas):
        report(f"placing {base_name}: copy {i + 1} of {replicas}", i, replicas)
        if incoming.ordinal_pod is not None:
            # A StatefulSet's copies are its ordinals, each with its own claims.
            ordinal = ordinals[i] if i < len(ordinals) else i
            try:
                pod_dict, claims = incoming.ordinal_pod(ordinal)
            except Refused as e:
                # Its claim (or pod) refused: FailedCreate, and the ordinals before it run.
                if i == 0 and refusal_stops_all:
                    raise
                steps.append(rejected_result(_ordinal_stand_in(incoming.pod, ordinal), e.detail, snapshot, profile,
                                             options))
                break
            _add_claims(snapshot.objects, claims)
            meta = pod_dict["metadata"]
            meta["uid"] = f"kschedx-replica-{meta['name']}"
        else:
            pod_dict = clone_pod_dict(incoming.pod)
            meta = pod_dict.setdefault("metadata", {})
            meta["name"] = f"{base_name}-{i}"
            meta["uid"] = f"kschedx-replica-{base_name}-{i}"
        step_in = copy_incoming(incoming, pod_dict, i == 0)
        stored = stored_pending or []
        exists = meta["name"] in stored if incoming.ordinal_pod is not None else i < len(stored)
        try:
            if not exists:
                charge_quota(incoming, pod_dict, path)
        except Refused as e:
            if i == 0 and refusal_stops_all:
                raise  # nothing is created: the workload does not run
            steps.append(rejected_result(pod_dict, e.detail, snapshot, profile, options))
            break
        if known is not None and (i >= len(known) or copy_key(pod_dict) != known[i][0]):
            known = None  # another copy: from here on the snapshot is not the one they ran on
        if start is not None and options is not None:
            options = replace(options, scan_start=start)
        result = known[i][1] if known is not None else run(snapshot, step_in, profile, options, path, memo)
        if start is not None and result.draw is not None:
            start = (start + result.draw.processed) % max(len(snapshot.nodes()), 1)
        if result.selected_node is None and evicted is not None:
            gone = _preempt(snapshot, result, incoming.admission)
            if gone:
                evicted.extend(gone)
                known = None  # the snapshot is no longer the one the rollout's cycles ran on
                memo = ReplicaMemo()  # the victims' nodes changed: nothing carries over
                if replicas - i >= ENGINE_FROM:
                    memo.engine = ReplicaEngine()
                first = result
                result = run(snapshot, step_in, profile, options, path, memo)
                assert first.preemption is not None
                result.notes.append(f"placed after preemption: {first.preemption.nominated_node} was nominated "
                                    f"and its victims evicted ({', '.join(pi.key for pi in gone)})")
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


def _preempt(snapshot: Snapshot, result: CycleResult, admission: Admission | None) -> list[PodInfo]:
    """Evict the victims of the node ``result``'s preemption nominated (taken off the
    snapshot, their quota usage given back); the pods evicted."""
    pre = result.preemption
    if pre is None or not pre.nominated_node or not pre.victims:
        return []
    return _evict(snapshot, pre.nominated_node, pre.victims, admission)


def _evict(snapshot: Snapshot, node: str, victims: list[str], admission: Admission | None,
           remove: Callable[[PodInfo], None] | None = None) -> list[PodInfo]:
    """Take the pods ``victims`` (namespace/name) on ``node`` off the snapshot (through
    ``remove`` when given: a rollout records each removal), their quota usage given back;
    the pods found."""
    info = snapshot.get(node)
    wanted = set(victims)
    gone = [pi for pi in (info.pods if info is not None else []) if pi.key in wanted]
    for pi in gone:
        (remove or snapshot.remove_pod)(pi)
        if admission is not None:
            admission.release_pod(pi.raw)
    return gone


def copy_incoming(incoming: IncomingPod, pod: Dict, first: bool) -> IncomingPod:
    """A copy ``pod`` of ``incoming``'s template, as its controller creates it: the
    template's notes and provided volumes, its warnings on the first copy only."""
    return IncomingPod(pod, incoming.source_kind, incoming.source_name, incoming.rule,
                       warnings=list(incoming.warnings) if first else [], notes=list(incoming.notes),
                       volumes_provided=incoming.volumes_provided)


def _add_claims(objects: ClusterObjects, claims: list[Dict]) -> None:
    """Add the claims the cluster doesn't hold yet (a StatefulSet copy's new PVCs, and the
    volumes the PV controller bound them to)."""
    if not claims:
        return

    def key(o: Dict) -> tuple[Any, Any, Any]:
        return o.get("kind"), (o.get("metadata") or {}).get("namespace"), (o.get("metadata") or {}).get("name")

    have = {key(o) for kind in ("PersistentVolumeClaim", "PersistentVolume") for o in objects.of(kind)}
    for c in claims:
        if key(c) not in have:
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
    return run(snapshot, incoming, profile, explaining(options), manifest).to_json()

"""The scheduling cycle: runs a profile's plugins over a snapshot and records every decision."""

from __future__ import annotations

from collections.abc import Iterable
from itertools import compress, repeat
from operator import add, attrgetter, mul
from typing import Any

from kschedx.core.api.model import PodInfo
from kschedx.core.api.objects import ClusterObjects
from kschedx.core.config.profile import Profile
from kschedx.core.framework.interface import (
    MAX_NODE_SCORE,
    MIN_NODE_SCORE,
    AnswerTable,
    Code,
    CycleState,
    NodeRefs,
    NodeStatusMap,
    Plugin,
    PluginSet,
    PreFilterResult,
    ReplicaMemo,
    Status,
    default_normalize_values,
    filter_failure,
    filter_failures,
    fit_error_message,
    go_string_list,
    node_name_of,
    normalize_values_by,
    raw_scores,
)
from kschedx.core.framework.nominated import nominated_story, prefer_nominated_node, run_without
from kschedx.core.framework.plugin_errors import (
    add_pod_error_message,
    cycle_error_warning,
    filter_error_warning,
)
from kschedx.core.framework.replica_inc import LazyCycleResult
from kschedx.core.framework.result import (
    FAILED_WITH,
    FAILED_WITHOUT,
    PASSED_BOTH,
    ColumnPluginScores,
    CycleResult,
    NodeVerdict,
    PluginScores,
    PreemptionOutcome,
    PreFilterOutcome,
)
from kschedx.core.snapshot import NodeInfo, Snapshot

# Upstream's ErrNoNodesAvailable (scheduler.go).
NO_NODES_AVAILABLE = "no nodes available to schedule pods"


def num_feasible_nodes_to_find(num_all: int, percentage: int | None) -> int:
    """How many feasible nodes upstream looks for before it stops filtering."""
    min_feasible, min_pct = 100, 5
    if num_all < min_feasible:
        return num_all
    pct = percentage or 0
    if pct == 0:
        pct = 50 - num_all // 125
        if pct < min_pct:
            pct = min_pct
    n = num_all * pct // 100
    return max(n, min_feasible)


# The verdict of every feasible node (one object: it says nothing of the node).
_FEASIBLE = NodeVerdict(True)
_generation_of = attrgetter("generation")


class Framework:
    """A profile bound to a snapshot; implements the plugins' ``Handle``."""

    def __init__(self, profile: Profile, snapshot: Snapshot, registry: dict[str, type[Plugin]]) -> None:
        self.profile = profile
        # The kube-scheduler release this framework reproduces (plugins read it as handle.version).
        self.version = profile.version
        self.snapshot = snapshot
        self.objects: ClusterObjects = snapshot.objects
        # Warnings plugins raise during a cycle (bound to the cycle result's list).
        self.warnings: list[str] = []
        self.plugins = PluginSet(profile, self, registry)
        # Scheduler extenders (kschedx.core.framework.extenders.Extender), called after Filter and Score.
        self.extenders: list[Any] = []
        # Node-local answers shared by the cycles of one replica run (None: no reuse).
        self.memo: ReplicaMemo | None = None
        # The pod's own nominated node is tried first (evaluateNominatedNode, not in v1.12).
        self.nominated_node_first = True
        # Work out the odds of what the cycle leaves to chance (result.sampling; core.framework.sampling).
        self.sampling = False
        # How the windows are scored (core.framework.sampling.METHODS; the tests compare them).
        self.sampling_method = "windows"
        # Given a list, each scan window's totals are recorded in it (the tests compare methods by them).
        self.sampling_record: list[dict[str, int]] | None = None
        # One draw of chance (a replica chain's sample): the scan's start index and the random
        # source of the ties; the cycle then chooses as the scheduler would from that start
        # (result.draw, result.selected_node).
        self.scan_start: int | None = None
        self.rng: Any = None

    # ------------------------------------------------------------------ Handle

    def run_pre_filter_add_pod(self, state: CycleState, pod: PodInfo, to_add: PodInfo, node: NodeInfo) -> Status:
        for pl in self.plugins.extensions:
            if pl.name in state.skip_filter:
                continue
            st: Status = pl.add_pod(state, pod, to_add, node)
            if not st.is_success:
                return Status(Code.ERROR, [add_pod_error_message(pl.name, st.message)], pl.name)
        return Status.success()

    def run_pre_filter_remove_pod(
        self, state: CycleState, pod: PodInfo, to_remove: PodInfo, node: NodeInfo
    ) -> Status:
        for pl in self.plugins.extensions:
            if pl.name in state.skip_filter:
                continue
            st: Status = pl.remove_pod(state, pod, to_remove, node)
            if not st.is_success:
                return Status(Code.ERROR, [add_pod_error_message(pl.name, st.message, "RemovePod")], pl.name)
        return Status.success()

    def run_filter(
        self, state: CycleState, pod: PodInfo, node: NodeInfo, all_reasons: bool = False,
        memo: ReplicaMemo | None = None, plugins: list[Plugin] | None = None,
        split: tuple[list[Plugin], list[Plugin]] | None = None, head: list[Status] | None = None,
    ) -> list[Status]:
        """Filter plugins in order; the first failure decides (all failures with ``all_reasons``).

        With ``memo`` (a snapshot node, in a replica run) the verdicts of the node-local
        plugins that come first are reused on a node whose generation is unchanged since an
        earlier cycle (they have no side effects, so running them all once costs nothing
        but time); ``split``: ``memo.split`` of the plugins, taken once by a caller filtering
        every node, and ``head`` the memo's answer for the node, read from its column by
        such a caller. ``plugins`` runs a subset instead of the profile's Filter plugins."""
        failures: list[Status] = []
        if plugins is None:
            plugins = self.plugins.filter
        if memo is not None:
            # The leading run of node-local plugins is answered by one lookup per node.
            local, rest = split if split is not None else memo.split(plugins, state.skip_filter)
            for st0 in head if head is not None else memo.head(state, pod, local, node):
                if not st0.is_rejected:
                    return [st0]
                failures.append(st0)
                if not all_reasons:
                    return failures
            plugins = rest
        for pl in plugins:
            if pl.name in state.skip_filter:
                continue
            st: Status = pl.filter(state, pod, node)  # type: ignore[attr-defined]
            if not st.is_success:
                st = filter_failure(st, pl.name)
                if not st.is_rejected:
                    return [st]
                failures.append(st)
                if not all_reasons:
                    break
        return failures

    def _filter_in_bulk(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo], heads: list[list[Status]],
                        plugins: list[Plugin]) -> dict[int, Status]:
        """The first failure of ``plugins`` on each node (by position) whose leading
        node-local answers ``heads`` pass: each plugin judges the nodes still passing at once
        (``filter_nodes`` where it has it), which gives what ``run_filter`` gives node by
        node without ``all_reasons``."""
        failed: dict[int, Status] = {}
        passing = [k for k, head in enumerate(heads) if not head]
        for pl in plugins:
            if not passing:
                break
            if pl.name in state.skip_filter:
                continue
            got = filter_failures(pl, state, pod, list(map(nodes.__getitem__, passing)))
            if got:
                for j, st in got:
                    failed[passing[j]] = filter_failure(st, pl.name)
                passing = [k for k in passing if k not in failed]
        return failed

    def _nominated_for(self, pod: PodInfo, node: NodeInfo) -> list[PodInfo]:
        if not self.snapshot.nominated:
            return []
        return [
            p
            for p in self.snapshot.nominated.get(node.name, ())
            if p.priority >= pod.priority and p.uid != pod.uid
        ]

    def run_filter_with_nominated(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status:
        failures = self.filter_with_nominated(state, pod, node)
        return failures[0] if failures else Status.success()

    def filter_with_nominated(
        self, state: CycleState, pod: PodInfo, node: NodeInfo, all_reasons: bool = False,
        memo: ReplicaMemo | None = None, passes: dict[str, str] | None = None,
    ) -> list[Status]:
        """``RunFilterPluginsWithNominatedPods``: first with equal-or-higher priority nominated
        pods added to the node, then (if that passed) without them.  ``passes`` records, per
        node with such pods, which pass decided (kschedx.core.framework.nominated)."""
        nominated = self._nominated_for(pod, node) if self.snapshot.nominated.get(node.name) else None
        if nominated:
            st2 = state.clone()
            n2 = node.clone()
            for p in nominated:
                n2.add_pod(p)
                s = self.run_pre_filter_add_pod(st2, pod, p, n2)
                if not s.is_success:
                    return [s]
            failures = self.run_filter(st2, pod, n2, all_reasons)
            if failures:
                if passes is not None:
                    passes[node.name] = FAILED_WITH
                return failures
        failures = self.run_filter(state, pod, node, all_reasons, memo)
        if nominated and passes is not None:
            passes[node.name] = FAILED_WITHOUT if failures else PASSED_BOTH
        return failures

    # ------------------------------------------------------------------ the cycle

    def run_cycle(
        self,
        pod: PodInfo,
        *,
        all_reasons: bool = False,
        run_post_filter: bool = True,
        run_score: bool = True,
    ) -> CycleResult:
        snapshot = self.snapshot
        nodes = snapshot.nodes()
        num_all = len(nodes)
        result = (CycleResult if self.memo is None or self.memo.engine is None else LazyCycleResult)(
            kubernetes_version=self.version.name,
            profile=self.profile.scheduler_name,
            pod=pod.key,
            pod_priority=pod.priority,
            num_all_nodes=num_all,
            pre_filter=PreFilterOutcome(),
            nodes={},
            score_plugins=[],
            totals={},
            best_nodes=[],
            selected_node=None,
            single_feasible_node=False,
            fit_error=None,
            num_feasible_nodes_to_find=num_feasible_nodes_to_find(
                num_all, self.profile.percentage_of_nodes_to_score
            ),
        )
        self.warnings = result.warnings

        # PreEnqueue: a gated pod never enters the scheduling queue.
        for pl in self.plugins.pre_enqueue:
            st: Status = pl.pre_enqueue(pod)  # type: ignore[attr-defined]
            if not st.is_success:
                result.gated = list(st.reasons)
                result.error = None
                result.pre_filter.code = st.code.label
                result.pre_filter.plugin = pl.name
                result.pre_filter.reasons = list(st.reasons)
                return result

        # schedulePod: with no node at all the cycle stops before PreFilter, and the pod's
        # event says so instead of a "0/0 nodes are available" FitError.
        if num_all == 0:
            result.fit_error = NO_NODES_AVAILABLE
            return result

        state = CycleState()
        statuses = NodeStatusMap()
        unschedulable_plugins: set[str] = set()

        # ---------------------------------------------------------- PreFilter
        merged = PreFilterResult()
        plugins_with_nodes: list[str] = []
        prefilter_status: Status | None = None
        for pl in self.plugins.pre_filter:
            res, st = pl.pre_filter(state, pod, nodes)  # type: ignore[attr-defined]
            if st.is_skip:
                state.skip_filter.add(pl.name)
                result.pre_filter.skipped_plugins.append(pl.name)
                continue
            if not st.is_success:
                prefilter_status = st.with_plugin(pl.name)
                if st.is_rejected:
                    unschedulable_plugins.add(pl.name)
                break
            if res is not None and res.node_names is not None:
                plugins_with_nodes.append(pl.name)
                merged = merged.merge(res)
                if not merged.node_names:
                    if len(plugins_with_nodes) == 1:
                        msg = f"node(s) didn't satisfy plugin {plugins_with_nodes[0]}"
                    else:
                        msg = f"node(s) didn't satisfy plugin(s) {go_string_list(plugins_with_nodes)} simultaneously"
                    prefilter_status = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, [msg], "")
                    unschedulable_plugins.update(plugins_with_nodes)
                    break
        result.pre_filter.skipped_plugins.sort()
        result.pre_filter.plugins_with_nodes = list(plugins_with_nodes)

        prefilter_msg = ""
        # The feasible nodes as a replica run's engine found them (None: the ordinary Filter loop).
        fast: list[NodeInfo] | None = None
        engine: Any = None
        if prefilter_status is not None:
            if prefilter_status.code == Code.ERROR:
                result.error = f'running PreFilter plugin "{prefilter_status.plugin}": {prefilter_status.message}'
                result.warnings.append(cycle_error_warning(result.error))
                result.pre_filter.code = "Error"
                result.pre_filter.plugin = prefilter_status.plugin
                result.pre_filter.reasons = list(prefilter_status.reasons)
                return result
            result.pre_filter.code = prefilter_status.code.label
            result.pre_filter.plugin = prefilter_status.plugin
            result.pre_filter.reasons = list(prefilter_status.reasons)
            prefilter_msg = prefilter_status.message
            statuses.absent = prefilter_status
            for ni in nodes:
                result.nodes[ni.name] = NodeVerdict(
                    False, prefilter_status.code.label, prefilter_status.plugin,
                    list(prefilter_status.reasons), "PreFilter",
                )
            feasible: list[NodeInfo] = []
        else:
            candidates = nodes
            if merged.node_names is not None:
                result.pre_filter.node_names = sorted(merged.node_names)
                cut = Status(
                    Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                    [f"node(s) didn't satisfy plugin(s) {go_string_list(sorted(plugins_with_nodes))}"],
                    "",
                )
                statuses.absent = cut
                if not run_score:
                    # Verdicts only (a DaemonSet's pod pinned to one node, once per node):
                    # the nodes cut here are not recorded, which keeps those runs linear.
                    by_name = snapshot.by_name
                    candidates = [by_name[n] for n in sorted(merged.node_names) if n in by_name]
                else:
                    # One verdict object for every cut node: they are alike and never changed.
                    cut_verdict = NodeVerdict(False, cut.code.label, "", list(cut.reasons), "PreFilter")
                    candidates = []
                    for ni in nodes:
                        if ni.name in merged.node_names:
                            candidates.append(ni)
                        else:
                            result.nodes[ni.name] = cut_verdict

            # ------------------------------------------------------ Filter
            feasible = []
            passes: dict[str, str] = {}
            errors: list[str] = []
            engine = self.memo.engine if self.memo is not None else None
            if (engine is not None and merged.node_names is None and not all_reasons and not snapshot.nominated
                    and not self.extenders):
                # A copy of a replica run: the previous copy's verdicts, updated (replica_inc).
                fast = engine.filter(self, state, pod, self.memo)
            if fast is not None:
                feasible = fast
                engine.fill_nodes(result)
                unschedulable_plugins.update(engine.unschedulable_plugins())
                candidates = []
            rmemo = self.memo
            # The usual cycle (no nominated pod anywhere, a memo of the node-local answers):
            # RunFilterPlugins per node with the plugin lists taken once, not per node.
            plain = rmemo is not None and not snapshot.nominated
            split = rmemo.split(self.plugins.filter, state.skip_filter) if plain and rmemo is not None else None
            # Every node a candidate: the node-local answers read as the memo's column, the
            # nodes changed since judged in bulk.
            heads = rmemo.head_column(state, pod, split[0], nodes, list(map(_generation_of, nodes))) \
                if split is not None and rmemo is not None and candidates is nodes else None
            # And the plugins after them plugin by plugin over the nodes still passing (the
            # first failure decides, as node by node).
            later = self._filter_in_bulk(state, pod, nodes, heads, split[1]) \
                if heads is not None and split is not None and not all_reasons else None
            judged: Iterable[tuple[int, NodeInfo]] = enumerate(candidates)
            if later is not None and heads is not None:
                # Every node judged in bulk: the feasible ones in one go, in node order, and
                # the failing ones (a head failure, or a later plugin's) visited below.
                failing = sorted({*compress(range(len(heads)), heads), *later})
                result.nodes.update(dict.fromkeys(map(node_name_of, candidates), _FEASIBLE))  # alike, never changed
                unfailed = [True] * len(candidates)
                for k in failing:
                    unfailed[k] = False
                feasible = list(compress(candidates, unfailed))
                state.keep_positions(snapshot, feasible, list(compress(range(len(candidates)), unfailed)))
                judged = zip(failing, map(candidates.__getitem__, failing), strict=True)
            for k, ni in judged:
                if later is not None and heads is not None:
                    head = heads[k]
                    failures = [head[0]] if head else [later[k]]
                elif plain:
                    failures = self.run_filter(state, pod, ni, all_reasons, rmemo, split=split,
                                               head=heads[k] if heads is not None else None)
                else:
                    failures = self.filter_with_nominated(state, pod, ni, all_reasons, rmemo, passes)
                if not failures:
                    feasible.append(ni)
                    result.nodes[ni.name] = _FEASIBLE  # alike for every feasible node, never changed
                    continue
                first = failures[0]
                if not first.is_rejected:
                    # The real cycle ends here (see kschedx.core.framework.plugin_errors); the other nodes
                    # are still evaluated, for the explanation.
                    errors.append(ni.name)
                    result.nodes[ni.name] = NodeVerdict(False, Code.ERROR.label, first.plugin, [first.message],
                                                        "Filter")
                    continue
                statuses.statuses[ni.name] = first
                unschedulable_plugins.add(first.plugin)
                verdict = NodeVerdict(False, first.code.label, first.plugin, list(first.reasons), "Filter")
                if all_reasons:
                    verdict.all_failures = [
                        {"plugin": f.plugin, "code": f.code.label, "reasons": list(f.reasons)} for f in failures
                    ]
                result.nodes[ni.name] = verdict
            if snapshot.nominated:
                result.nominated = nominated_story(
                    snapshot, pod, result, passes,
                    lambda name: run_without(self, state, pod, snapshot.by_name[name]),
                )
            if errors:
                errors.sort()
                result.error = result.nodes[errors[0]].reasons[0]
                result.warnings.append(filter_error_warning(result.error, errors))
                return result

        if feasible and self.extenders:
            # findNodesThatPassExtenders: the extenders' filters narrow the feasible nodes.
            from kschedx.core.framework.extenders import WIRE_V135, run_extender_filters

            passed = run_extender_filters(self.extenders, pod, feasible, result, statuses, WIRE_V135)
            if passed is None:
                return result
            feasible = passed

        result.unschedulable_plugins = sorted(p for p in unschedulable_plugins if p)

        if not feasible:
            if self.sampling and run_score:
                from kschedx.core.framework.sampling import Sampling

                result.sampling = Sampling(num_all, num_all, result.num_feasible_nodes_to_find or num_all, 0)
            before = fit_error_message(num_all, prefilter_msg, statuses, "")
            result.fit_error_before_post_filter = before
            post_msg = ""
            if run_post_filter and self.plugins.post_filter:
                post_msg, outcome = self._run_post_filter(state, pod, statuses)
                result.preemption = outcome
            result.fit_error = fit_error_message(num_all, prefilter_msg, statuses, post_msg)
            return result

        # ---------------------------------------------------------- PreScore / Score
        result.single_feasible_node = len(feasible) == 1
        if not run_score:  # only the verdicts were asked for (a DaemonSet's pinned cycles)
            return result
        num_to_find = result.num_feasible_nodes_to_find or num_all
        if merged.node_names is not None:
            num_to_find = num_feasible_nodes_to_find(len(merged.node_names & snapshot.by_name.keys()),
                                                     self.profile.percentage_of_nodes_to_score)
        if not self.plugins.score and not self.extenders:
            num_to_find = 1  # nothing scores: the scan stops at the first feasible node
        # The windows of the scan are scored alone for the odds; where they must be scored
        # from scratch, from a copy of the state PreScore starts with.
        odds = self.sampling and fast is None
        drawing = self.scan_start is not None and fast is None
        pre_score_state = state.clone() if (odds or drawing) and len(feasible) > num_to_find else None
        if not self._pre_score(state, pod, feasible, result):
            return result
        if fast is not None and engine.score(self, state, pod, feasible, result, self.memo):
            if self.nominated_node_first:
                prefer_nominated_node(result, pod)
            return result
        if not self._score(state, pod, feasible, result):
            return result
        totals = result.totals
        best = max(totals.values())
        result.best_nodes = sorted(n for n, t in totals.items() if t == best)
        result.selected_node = result.best_nodes[0]
        if odds:
            self._odds(state, pre_score_state, pod, result, feasible, merged, num_to_find)
        if self.nominated_node_first:
            prefer_nominated_node(result, pod)
        if drawing:
            self._draw(pre_score_state, pod, result, feasible, merged, num_to_find)
        return result

    def _draw(self, pre_score_state: CycleState | None, pod: PodInfo, result: CycleResult,
              feasible: list[NodeInfo], merged: PreFilterResult, num_to_find: int) -> None:
        """The cycle from ``scan_start`` as the scheduler runs it: ``result.draw`` and the
        node it chooses as ``selected_node`` (a nominated node that passes is taken at once,
        and the start index stays)."""
        from kschedx.core.framework.sampling import Draw, draw

        assert self.scan_start is not None
        nominated = self._nominated_passes(pod, result)
        if nominated is not None:
            result.draw = Draw(nominated, 0, 1)
        else:
            result.draw = draw(self, pre_score_state, pod, result, feasible, self._scanned(merged), num_to_find,
                               self.scan_start, self.rng)
        result.selected_node = result.draw.node

    def _nominated_passes(self, pod: PodInfo, result: CycleResult) -> str | None:
        """The pod's own nominated node when it passes the filters: the scheduler takes it
        without a scan (evaluateNominatedNode)."""
        nominated = pod.nominated_node_name
        verdict = result.nodes.get(nominated) if nominated and self.nominated_node_first else None
        return nominated if verdict is not None and verdict.feasible else None

    def _scanned(self, merged: PreFilterResult) -> list[NodeInfo]:
        """The nodes the filter scan walks: a PreFilterResult's, else all, in the snapshot's order."""
        nodes = self.snapshot.nodes()
        return nodes if merged.node_names is None else [ni for ni in nodes if ni.name in merged.node_names]

    def _pre_score(self, state: CycleState, pod: PodInfo, feasible: list[NodeInfo], result: CycleResult) -> bool:
        """RunPreScorePlugins over ``feasible``; False when one failed (``result.error`` says how)."""
        for pl in self.plugins.pre_score:
            st = pl.pre_score(state, pod, feasible)  # type: ignore[attr-defined]
            if st.is_skip:
                state.skip_score.add(pl.name)
            elif not st.is_success:
                if result.single_feasible_node:
                    # Upstream binds a single feasible node without PreScore, so the error
                    # never happens there: show the plugin as not scoring instead.
                    state.skip_score.add(pl.name)
                    result.warnings.append(f"{pl.name} PreScore would fail ({st.message}); "
                                           "with one feasible node the scheduler never runs it")
                    continue
                result.error = f'running PreScore plugin "{pl.name}": {st.message}'
                result.warnings.append(cycle_error_warning(result.error))
                return False
        return True

    def _score(self, state: CycleState, pod: PodInfo, feasible: list[NodeInfo], result: CycleResult) -> bool:
        """RunScorePlugins, NormalizeScore and the weights over ``feasible`` (and the extenders'
        priorities): ``result.score_plugins`` and ``result.totals``. False when one failed."""
        snapshot = self.snapshot
        names = list(map(node_name_of, feasible))
        # The weighted totals in ``names``' order, summed plugin by plugin in bulk.
        sums: list[int] = [0] * len(names)
        refs: NodeRefs | None = None  # the feasible nodes' places in the node list, taken once
        for pl, weight in self.plugins.score:
            ps = PluginScores(pl.name, weight, pl.name in state.skip_score)
            result.score_plugins.append(ps)
            if ps.skipped:
                continue
            if refs is None:
                refs = NodeRefs.of(snapshot, feasible, state)
            # A node-local plugin's raw scores come from its memo table's column.
            table = self.memo.scores.setdefault(pl.name, AnswerTable()) \
                if self.memo is not None and pl.node_local else None
            got, failure = raw_scores(pl, state, pod, refs, table, snapshot.node_infos)
            if failure is not None and result.single_feasible_node:
                # As for PreScore above: upstream never scores a single feasible node.
                result.warnings.append(f"{pl.name} Score would fail ({failure.message}); "
                                       "with one feasible node the scheduler never runs it")
                ps.skipped = True
            elif failure is not None:
                result.error = f'running Score plugins: plugin "{pl.name}" failed with: {failure.message}'
                result.warnings.append(cycle_error_warning(result.error))
                return False
            if ps.skipped or got is None:
                continue
            if not hasattr(pl, "normalize_score"):
                values = got
            elif pl.normalize_reverse is not None:  # NormalizeScore is default_normalize: on the list
                values = default_normalize_values(got, pl.normalize_reverse)
            elif hasattr(pl, "replica_normalizer") and (norm := pl.replica_normalizer(state)) is not None:
                values = normalize_values_by(norm, names, got)  # NormalizeScore in parts: on the list
            else:
                normalized = dict(zip(names, got, strict=True))
                st = pl.normalize_score(state, pod, normalized)
                if not st.is_success:
                    result.error = f'running Normalize on Score plugins: plugin "{pl.name}" failed with: {st.message}'
                    result.warnings.append(cycle_error_warning(result.error))
                    return False
                values = list(map(normalized.__getitem__, names))
            if values and (min(values) < MIN_NODE_SCORE or max(values) > MAX_NODE_SCORE):
                v = next(v for v in values if v < MIN_NODE_SCORE or v > MAX_NODE_SCORE)  # the first, in node order
                result.error = (
                    f'applying score defaultWeights on Score plugins: plugin "{pl.name}" returns an invalid '
                    f"score {v}, it should in the range of [{MIN_NODE_SCORE}, {MAX_NODE_SCORE}] after normalizing"
                )
                result.warnings.append(cycle_error_warning(result.error))
                return False
            weighted = values if weight == 1 else list(map(mul, values, repeat(weight)))
            # The per-node scores are made when somebody reads them.
            result.score_plugins[-1] = ColumnPluginScores(pl.name, weight, False, names, got, values, weighted)
            sums = list(map(add, sums, weighted))
        totals = dict(zip(names, sums, strict=True))
        if self.extenders:
            # prioritizeNodes: each extender's 0-10 score × 10 × its weight joins the totals.
            from kschedx.core.framework.extenders import WIRE_V135, run_extender_prioritize

            run_extender_prioritize(self.extenders, pod, feasible, result, totals, WIRE_V135, 10)
        result.totals = totals
        return True

    def window_totals(self, state: CycleState, pod: PodInfo, window: list[NodeInfo]) -> list[int] | None:
        """PreScore, Score and NormalizeScore run on ``window`` alone (a scan's feasible nodes),
        from ``state`` as Filter left it: each node's total, in ``window``'s order (None: a
        plugin failed)."""
        scratch = CycleResult(self.version.name, self.profile.scheduler_name, pod.key, pod.priority, len(window),
                              PreFilterOutcome(), {}, [], {}, [], None, len(window) == 1, None)
        # What plugins warn of while scoring a window stays with the scratch result: the
        # cycle's own scoring warned of it already.
        warnings, self.warnings = self.warnings, scratch.warnings
        try:
            if not self._pre_score(state, pod, window, scratch) or not self._score(state, pod, window, scratch):
                return None
        finally:
            self.warnings = warnings
        return [scratch.totals[ni.name] for ni in window]

    def _odds(self, state: CycleState, pre_score_state: CycleState | None, pod: PodInfo, result: CycleResult,
              feasible: list[NodeInfo], merged: PreFilterResult, num_to_find: int) -> None:
        """``result.sampling``: each node's odds over the scan's starts and the ties."""
        from kschedx.core.framework.sampling import WindowScoringFailed, nominated_odds, window_odds

        scanned = self._scanned(merged)
        nominated = self._nominated_passes(pod, result)
        if nominated is not None:
            result.sampling = nominated_odds(result, num_to_find, len(scanned), nominated)
            return
        try:
            result.sampling = window_odds(self, state, pre_score_state, pod, result, feasible, scanned, num_to_find,
                                          self.sampling_method, self.sampling_record)
        except WindowScoringFailed as e:
            result.warnings.append(f"the odds of the scan's windows are not given: {e}")

    def _run_post_filter(
        self, state: CycleState, pod: PodInfo, statuses: NodeStatusMap
    ) -> tuple[str, PreemptionOutcome | None]:
        """``RunPostFilterPlugins``: the first success or unresolvable status ends the run;
        rejections' reasons are joined."""
        reasons: list[str] = []
        outcome: PreemptionOutcome | None = None
        for pl in self.plugins.post_filter:
            res: Any
            res, st = pl.post_filter(state, pod, statuses)  # type: ignore[attr-defined]
            if isinstance(res, PreemptionOutcome):
                outcome = res
            if st.is_success:
                return "", outcome
            if st.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                return st.message, outcome
            if not st.is_rejected:
                return st.message, outcome
            reasons.extend(st.reasons)
        return ", ".join(reasons), outcome

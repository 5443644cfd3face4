"""VolumeBinding: the pod's PersistentVolumeClaims must be bindable on the node.

PreFilter sorts the pod's claims (PVC volumes and generic ephemeral volumes) into fully
bound claims, unbound WaitForFirstConsumer claims and unbound "immediate" claims (an
Immediate class, a missing class, or a claim pre-bound to a PV but not yet completed);
immediate claims make the pod unschedulable everywhere. Bound claims whose PVs are pinned
to hostnames narrow the node set. Filter then checks per node, as the volume binder does:

- bound claims: the PV exists and its required node affinity matches the node (after
  in-tree to CSI topology translation when the node's CSINode says the plugin migrated);
- delayed claims: a claim already provisioned for another node (selected-node annotation)
  rules the node out; otherwise the smallest available PV that matches (class, capacity,
  access modes, volume mode, attributes class, selector, node affinity) is taken, and
  claims without one must be dynamically provisionable here (a provisioner, the class's
  allowedTopologies, and CSIStorageCapacity when the CSI driver tracks capacity).

Scoring belongs to StorageCapacityScoring (alpha, off in v1.35): PreScore always skips.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from kschedx.core.api.model import PodInfo
from kschedx.core.api.quantity import format_amount
from kschedx.core.api.selectors import LabelSelector, SelectorError, parse_node_selector
from kschedx.core.framework.interface import CycleState, Plugin, PreFilterResult, Status
from kschedx.core.plugins import volume_intree as intree
from kschedx.core.plugins.noderesources_allocation import broken_linear
from kschedx.core.plugins.volume_objects import (
    Claim,
    Volume,
    VolumeObjects,
    access_modes_satisfied,
    claim_name_of,
    ephemeral_ownership_error,
    not_found,
    pod_volumes,
    volume_objects,
)
from kschedx.core.snapshot import NodeInfo

NAME = "VolumeBinding"
SCORER = NAME + "/scorer"  # PreScore's shape function, for Score

ERR_REASON_BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind"
ERR_REASON_NODE_CONFLICT = "node(s) didn't match PersistentVolume's node affinity"
ERR_REASON_NOT_ENOUGH_SPACE = "node(s) did not have enough free storage"
ERR_REASON_PV_NOT_EXIST = "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"
ERR_UNBOUND_IMMEDIATE = "pod has unbound immediate PersistentVolumeClaims"


def uses_plugin(pod: PodInfo) -> bool:
    return any(v.get("persistentVolumeClaim") is not None or v.get("ephemeral") is not None for v in pod_volumes(pod))


@dataclass
class _Candidate:
    """A PV that passes every node-independent check for a claim, in lister order."""

    volume: Volume
    prebound: bool


@dataclass
class _DelayedClaim:
    claim: Claim
    # None when the claim's selector is invalid (the error is reported at Filter, as upstream).
    candidates: list[_Candidate] | None
    selector_error: str = ""


@dataclass
class PodVolumes:
    """What the binder decided for one node: PVs to bind and claims to provision."""

    static_bindings: list[tuple[str, str]] = field(default_factory=list)  # (claim key, PV name)
    dynamic_provisions: list[str] = field(default_factory=list)  # claim keys
    # For StorageCapacityScoring: the objects behind the two lists above.
    static_objects: list[tuple[Claim, Volume]] = field(default_factory=list)
    dynamic_objects: list[tuple[Claim, Any]] = field(default_factory=list)  # (claim, CapacityInfo | None)


@dataclass
class VolumeBindingState:
    bound: list[Claim]
    delayed: list[_DelayedClaim]
    # Per node: the binding decision of feasible nodes, the reasons of rejected ones.
    pod_volumes_by_node: dict[str, PodVolumes] = field(default_factory=dict)
    reasons_by_node: dict[str, list[str]] = field(default_factory=dict)

    def clone(self) -> VolumeBindingState:
        # Upstream shares the state between clones (it only accumulates per-node results).
        return self


class VolumeBinding(Plugin):
    name = NAME

    def _objects(self) -> VolumeObjects:
        return volume_objects(self.handle.snapshot)

    # ------------------------------------------------------------------ PreFilter

    def _check_claims_exist(self, vo: VolumeObjects, pod: PodInfo) -> tuple[bool, str | None]:
        """``podHasPVCs``: (has claims, first error) for missing, lost, deleting or foreign claims."""
        has = False
        for vol in pod_volumes(pod):
            ref = claim_name_of(pod, vol)
            if ref is None:
                continue
            name, ephemeral = ref
            has = True
            claim = vo.claim(pod.namespace, name)
            if claim is None:
                if ephemeral:
                    return has, f'waiting for ephemeral volume controller to create the persistentvolumeclaim "{name}"'
                return has, not_found("persistentvolumeclaim", name)
            if claim.phase == "Lost":
                return has, f'persistentvolumeclaim "{claim.name}" bound to non-existent persistentvolume "{claim.volume_name}"'
            if claim.deleting:
                return has, f'persistentvolumeclaim "{claim.name}" is being deleted'
            if ephemeral:
                err = ephemeral_ownership_error(pod, claim)
                if err:
                    return has, err
        return has, None

    def pre_filter(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> tuple[PreFilterResult | None, Status]:
        vo = self._objects()
        has, err = self._check_claims_exist(vo, pod)
        if err is not None:
            return None, Status.unresolvable(err)
        if not has:
            state.data[NAME] = VolumeBindingState([], [])
            return None, Status.skip()

        bound: list[Claim] = []
        delayed: list[Claim] = []
        immediate: list[Claim] = []
        for vol in pod_volumes(pod):
            ref = claim_name_of(pod, vol)
            if ref is None:
                continue
            claim = vo.claim(pod.namespace, ref[0])
            if claim is None:  # checked above
                continue
            if claim.fully_bound:
                bound.append(claim)
                continue
            cls_name = claim.storage_class
            sc = vo.storage_class(cls_name) if cls_name else None
            # A claim pre-bound to a PV but not completed counts as immediate: the PV controller binds it.
            if sc is not None and sc.delay_binding and not claim.volume_name:
                delayed.append(claim)
            else:
                immediate.append(claim)
        if immediate:
            return None, Status.unresolvable(ERR_UNBOUND_IMMEDIATE)

        # No PreFilterResult: v1.35 doesn't narrow the node set by local PVs' hostnames, every
        # node is filtered (the golden data shows node affinity conflicts from Filter).
        state.data[NAME] = VolumeBindingState(bound, [self._delayed(vo, c) for c in delayed])
        return None, Status.success()

    @staticmethod
    def _delayed(vo: VolumeObjects, claim: Claim) -> _DelayedClaim:
        """The node-independent half of ``FindMatchingVolume`` for one claim, done once per cycle."""
        try:
            selector: LabelSelector | None = claim.selector()
        except SelectorError as e:
            return _DelayedClaim(claim, None, f"error creating internal label selector for claim: {claim.key}: {e}")
        requested = claim.request if claim.request is not None else Fraction(0)
        cls = claim.storage_class
        out: list[_Candidate] = []
        for pv in vo.volumes_by_class.get(cls, ()):
            if pv.claim_ref is not None and not pv.bound_to(claim):
                continue
            if pv.capacity < requested:
                continue
            if pv.volume_mode != claim.volume_mode:
                continue
            if pv.vac != claim.vac:
                continue
            if pv.deleting:
                continue
            if pv.bound_to(claim):
                # A PV pre-bound to this claim decides the match by itself (node affinity only).
                out.append(_Candidate(pv, True))
                continue
            if pv.phase != "Available":
                continue
            if selector is not None and not selector.matches(pv.labels):
                continue
            if pv.storage_class != cls:
                continue
            if not access_modes_satisfied(claim, pv):
                continue
            out.append(_Candidate(pv, False))
        return _DelayedClaim(claim, out)

    # ------------------------------------------------------------------ Filter

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status:
        st: VolumeBindingState | None = state.data.get(NAME)
        if st is None:
            return Status.error(f'reading "{NAME}" from cycleState: not found')
        vo = self._objects()
        try:
            pv_result, reasons = self._find_pod_volumes(vo, st, node)
        except _FilterError as e:
            return Status.error(str(e))
        if reasons:
            st.reasons_by_node[node.name] = reasons
            return Status.unresolvable(*reasons)
        st.pod_volumes_by_node[node.name] = pv_result
        return Status.success()

    def _find_pod_volumes(self, vo: VolumeObjects, st: VolumeBindingState, node: NodeInfo) -> tuple[PodVolumes, list[str]]:
        """``FindPodVolumes`` for one node: the binding decision or the conflict reasons."""
        result = PodVolumes()
        labels = node.node.labels
        bound_ok = True
        pvs_found = True
        unbound_ok = True
        enough_space = True

        if st.bound:
            bound_ok, pvs_found = self._check_bound(vo, st.bound, node)

        if st.delayed:
            to_match: list[_DelayedClaim] = []
            to_provision: list[Claim] = []
            fast_fail = False
            for d in st.delayed:
                sel = d.claim.selected_node
                if sel is not None:
                    if sel != node.name:
                        fast_fail = True
                        break
                    to_provision.append(d.claim)
                else:
                    to_match.append(d)
            if fast_fail:
                unbound_ok = False
            else:
                if to_match:
                    unbound_ok, bindings, unmatched, sobjs = self._find_matching(to_match, labels)
                    result.static_bindings = bindings
                    result.static_objects = sobjs
                    to_provision.extend(unmatched)
                if to_provision:
                    unbound_ok, enough_space, provisions = self._check_provisions(vo, to_provision, node)
                    result.dynamic_provisions = [c.key for c, _ in provisions]
                    result.dynamic_objects = provisions

        reasons: list[str] = []
        if not bound_ok:
            reasons.append(ERR_REASON_NODE_CONFLICT)
        if not unbound_ok:
            reasons.append(ERR_REASON_BIND_CONFLICT)
        if not enough_space:
            reasons.append(ERR_REASON_NOT_ENOUGH_SPACE)
        if not pvs_found:
            reasons.append(ERR_REASON_PV_NOT_EXIST)
        return result, reasons

    @staticmethod
    def _check_bound(vo: VolumeObjects, claims: list[Claim], node: NodeInfo) -> tuple[bool, bool]:
        """``checkBoundClaims``: (node affinity satisfied, every PV found)."""
        csinode = vo.csinode(node.name)
        labels = node.node.labels
        for claim in claims:
            pv = vo.volume(claim.volume_name)
            if pv is None:
                return True, False
            if not _translated_affinity_matches(pv, csinode, labels):
                return False, True
        return True, True

    @staticmethod
    def _find_matching(
        claims: list[_DelayedClaim], labels: dict[str, str]
    ) -> tuple[bool, list[tuple[str, str]], list[Claim], list[tuple[Claim, Volume]]]:
        """``findMatchingVolumes``: smallest claims first, each takes the smallest fitting PV."""
        chosen: set[str] = set()
        bindings: list[tuple[str, str]] = []
        unmatched: list[Claim] = []
        objs: list[tuple[Claim, Volume]] = []
        found_all = True
        for d in sorted(claims, key=lambda d: d.claim.request_sort_key()):
            if d.candidates is None:
                raise _FilterError(d.selector_error)
            pv = _match_on_node(d.candidates, chosen, labels)
            if pv is None:
                unmatched.append(d.claim)
                found_all = False
                continue
            chosen.add(pv.name)
            bindings.append((d.claim.key, pv.name))
            objs.append((d.claim, pv))
        return found_all, bindings, unmatched, objs

    @staticmethod
    def _check_provisions(vo: VolumeObjects, claims: list[Claim], node: NodeInfo) -> tuple[bool, bool, list[tuple[Claim, Any]]]:
        """``checkVolumeProvisions``: (provisionable, enough capacity, claims to provision)."""
        labels = node.node.labels
        out: list[tuple[Claim, Any]] = []
        for claim in claims:
            cls_name = claim.storage_class
            if not cls_name:
                raise _FilterError(f'no class for claim "{claim.key}"')
            sc = vo.storage_class(cls_name)
            if sc is None:
                raise _FilterError(f'failed to find storage class "{cls_name}"')
            if sc.provisioner in ("", "kubernetes.io/no-provisioner"):
                return False, True, []
            if not sc.topology_allows(labels):
                return False, True, []
            enough, cap = _has_enough_capacity(vo, sc.provisioner, claim, cls_name, labels)
            if not enough:
                return True, False, []
            out.append((claim, cap))
        return True, True, out

    # ------------------------------------------------------------------ PreScore / Score

    def _shape(self) -> list[tuple[int, int]] | None:
        """The scoring shape as (utilization, score × 10) points, None without
        StorageCapacityScoring (no scorer: PreScore skips)."""
        if not self.version.enabled("StorageCapacityScoring"):
            return None
        points = self.args.get("shape") or DEFAULT_SHAPE
        return [(int(p.get("utilization") or 0), int(p.get("score") or 0) * 10) for p in points]

    def pre_score(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> Status:
        # What each node's Score weighed, for --node (score_facts): kept as numbers and
        # formatted only when asked for.
        self.weighed: dict[str, list[tuple[str, int, int, list[tuple[Any, ...]], int, int]]] = {}
        shape = self._shape()
        if shape is None:
            return Status.skip()
        if state.data.get(NAME) is None:
            return Status.error(f'reading "{NAME}" from cycleState: not found')
        state.data[SCORER] = broken_linear(shape)  # once per cycle, not per node
        return Status.success()

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> tuple[int, Status]:
        """StorageCapacityScoring: per storage class, how full the node's volumes would be
        (the static PVs Filter matched, else the pools its provisioning found room in),
        mapped through the shape; the node's score is the classes' average, rounded half up.
        A node with nothing to bind or provision scores 0."""
        scorer = state.data.get(SCORER)
        st: VolumeBindingState | None = state.data.get(NAME)
        found = st.pod_volumes_by_node.get(node.name) if st is not None else None
        if scorer is None or found is None:
            return 0, Status.success()
        # class -> [requested, capacity, what it weighed: ("pv", name, size, claim) or
        # ("pool", claim, namespace, name, size)]
        classes: dict[str, list[Any]] = {}
        if found.static_objects:
            for claim, vol in found.static_objects:
                row = classes.setdefault(vol.spec_class, [0, 0, []])
                row[0] += _value(claim.request)
                row[1] += _value(vol.capacity)
                row[2].append(("pv", vol.name, _value(vol.capacity), claim.key))
        else:
            for claim, cap in found.dynamic_objects:
                if cap is None:
                    continue  # a driver without capacity tracking: not scored
                row = classes.setdefault(claim.spec_class or "", [0, 0, []])
                row[1] = _value(cap.capacity)  # the last claim's pool stands (upstream assigns)
                row[0] += _value(claim.request)
                row[2].append(("pool", claim.key, cap.namespace, cap.name, row[1]))
        weighed = getattr(self, "weighed", None)
        total = 0
        for cls, (requested, capacity, what) in classes.items():
            used = 100 if capacity == 0 or requested > capacity else requested * 100 // capacity
            part = scorer(used)
            total += part
            if weighed is not None:
                weighed.setdefault(node.name, []).append((cls, requested, capacity, what, used, part))
        if not classes:
            if weighed is not None:
                weighed[node.name] = []
            return 0, Status.success()
        return (2 * total + len(classes)) // (2 * len(classes)), Status.success()

    def score_facts(self, node_name: str) -> list[str]:
        """What the last cycle's Score weighed on the node, in words (none: not scored)."""
        rows = getattr(self, "weighed", {}).get(node_name)
        if rows is None:
            return []
        if not rows:
            return ["nothing to bind or provision with tracked capacity here: 0"]
        out = []
        for cls, requested, capacity, what, used, part in rows:
            items = [f"PV {w[1]} ({_size(w[2])}) for claim {w[3]}" if w[0] == "pv"
                     else f"claim {w[1]} provisioned from CSIStorageCapacity {w[2]}/{w[3]} ({_size(w[4])})"
                     for w in what]
            out.append(f"class {cls or '(none)'}: {'; '.join(items)}: {_size(requested)} of {_size(capacity)} "
                       f"requested, utilization {used} %, score {part}")
        return out


# VolumeBindingArgs' shape when StorageCapacityScoring is on and none is given: the emptier
# the better.
DEFAULT_SHAPE = [{"utilization": 0, "score": 10}, {"utilization": 100, "score": 0}]


def _value(q: Fraction | None) -> int:
    """A quantity as ``Quantity.Value()`` gives it: rounded up to an integer; none is 0."""
    if q is None:
        return 0
    return -((-q.numerator) // q.denominator)


def _size(amount: int) -> str:
    return format_amount("ephemeral-storage", amount)


class _FilterError(Exception):
    """An error of the binder (upstream ``AsStatus(err)``): the cycle stops with it."""


def _match_on_node(candidates: list[_Candidate], chosen: set[str], labels: dict[str, str]) -> Volume | None:
    """The node-dependent half of ``FindMatchingVolume``, keeping its scan order.

    A PV pre-bound to the claim ends the scan: it is the match if its node affinity fits
    the node, otherwise there is no match at all. Else the smallest fitting PV wins (the
    first one among equals).
    """
    best: Volume | None = None
    for c in candidates:
        pv = c.volume
        if pv.name in chosen:
            continue
        fits = pv.affinity_matches(labels)
        if c.prebound:
            return pv if fits else None
        if not fits:
            continue
        if best is None or best.capacity > pv.capacity:
            best = pv
    return best


def _translated_affinity_matches(pv: Volume, csinode: Any, labels: dict[str, str]) -> bool:
    """``tryTranslatePVToCSI`` + ``CheckNodeAffinity`` for a bound PV."""
    p = intree.plugin_of(pv.spec)
    if p is None or not intree.migrated_on_node_for_binding(csinode, p.plugin):
        return pv.affinity_matches(labels)
    try:
        intree.volume_handle(p, pv.spec.get(p.source) or {}, pv.labels)
    except intree.TranslationError as e:
        raise _FilterError(f"could not translate pv: {e}") from None
    required = intree.translated_affinity(pv, p)
    sel = parse_node_selector(required)
    return sel is None or sel.matches("", labels)


def _has_enough_capacity(vo: VolumeObjects, provisioner: str, claim: Claim, cls_name: str,
                         labels: dict[str, str]) -> tuple[bool, Any]:
    """``hasEnoughCapacity``: only CSI drivers that opt into storage capacity tracking are
    checked; with the CSIStorageCapacity that has room (None: not checked)."""
    if claim.request is None:
        return True, None
    driver = vo.csidrivers.get(provisioner)
    if driver is None or not (driver.get("spec") or {}).get("storageCapacity"):
        return True, None
    size = -((-claim.request.numerator) // claim.request.denominator)
    for cap in vo.capacities:
        if cap.storage_class != cls_name or cap.limit is None:
            continue
        limit = -((-cap.limit.numerator) // cap.limit.denominator)
        if limit < size:
            continue
        if cap.topology is not None and cap.topology.matches(labels):
            return True, cap
    return False, None

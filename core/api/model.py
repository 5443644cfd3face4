"""Thin typed views over Kubernetes API dicts, with the values the scheduler derives computed once.

``PodInfo`` and ``NodeView`` keep the original dict (``raw``) and expose what the plugins
read.  Resource arithmetic follows the component-helpers ``PodRequests`` rules that
kube-scheduler v1.35 uses: init containers, restartable (sidecar) init containers,
pod-level resources, pod overhead, the non-zero defaults used for scoring, and the status
resources of a pod in the middle of an in-place resize.
"""

from __future__ import annotations

import marshal
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Generic, TypeVar, overload

from kschedx.core.api.objects import controller_key
from kschedx.core.api.quantity import QuantityError, parse_quantity
from kschedx.core.api.selectors import (
    NodeSelector,
    Taint,
    Toleration,
    parse_node_selector,
    parse_taints,
    parse_tolerations,
)

if TYPE_CHECKING:
    from kschedx.core.api.affinity import PodAffinityTerms

Dict = dict[str, Any]
T = TypeVar("T")


class cached_property(Generic[T]):  # noqa: N801 - a drop-in for functools.cached_property
    """``functools.cached_property`` without its lock: Python 3.11 takes an RLock on every
    first read (3.12 dropped it), and building a 150,000-pod snapshot reads three of these
    per pod. The same protocol otherwise: computed on first read, then stored in the
    instance's ``__dict__``, where later reads find it without calling this descriptor."""

    def __init__(self, func: Callable[[Any], T]) -> None:
        self.func = func
        self.attrname = func.__name__
        self.__doc__ = func.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.attrname = name

    @overload
    def __get__(self, instance: None, owner: type | None = None) -> cached_property[T]: ...

    @overload
    def __get__(self, instance: object, owner: type | None = None) -> T: ...

    def __get__(self, instance: object | None, owner: type | None = None) -> T | cached_property[T]:
        if instance is None:
            return self
        value = instance.__dict__[self.attrname] = self.func(instance)
        return value


DEFAULT_MILLI_CPU_REQUEST = 100  # 0.1 core
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024  # 200 MiB

_NATIVE_UNPREFIXED = {"cpu", "memory", "ephemeral-storage", "pods", "storage"}


def is_hugepages(name: str) -> bool:
    return name.startswith("hugepages-")


def is_extended_resource(name: str) -> bool:
    """A resource outside the kubernetes.io domain, e.g. ``nvidia.com/gpu``."""
    if "/" not in name or "kubernetes.io/" in name:
        return False
    return not name.startswith("requests.")


def is_scalar_resource(name: str) -> bool:
    """Resources NodeInfo tracks in its scalar map (extended, hugepages, prefixed native, attachable)."""
    return (
        is_extended_resource(name)
        or is_hugepages(name)
        or "kubernetes.io/" in name
        or name.startswith("attachable-volumes-")
    )


def amount(name: str, q: Fraction) -> int:
    """Round like Go: MilliValue for cpu, Value for everything else (both round up)."""
    if name == "cpu":
        q = q * 1000
    return -((-q.numerator) // q.denominator)


def tracked_resources(reqs: Mapping[str, Fraction]) -> dict[str, int]:
    """The integer amounts NodeInfo's ``Resource.Add`` keeps; unknown unprefixed names are dropped."""
    out: dict[str, int] = {}
    for name, q in reqs.items():
        if name in ("cpu", "memory", "ephemeral-storage", "pods") or is_scalar_resource(name):
            out[name] = amount(name, q)
    return out


def _quantities(spec: Mapping[str, Any] | None, what: str) -> dict[str, Fraction]:
    out: dict[str, Fraction] = {}
    for k, v in (spec or {}).items():
        try:
            out[str(k)] = parse_quantity(v)
        except QuantityError as e:
            raise QuantityError(f"{what}: resource {k!r}: {e}") from None
    return out


def container_requests(c: Mapping[str, Any], what: str = "container") -> dict[str, Fraction]:
    """A container's requests after API defaulting (a missing request takes its limit)."""
    res = c.get("resources") or {}
    reqs = _quantities(res.get("requests"), f"{what} requests")
    for k, v in _quantities(res.get("limits"), f"{what} limits").items():
        reqs.setdefault(k, v)
    return reqs


def _add(into: dict[str, Fraction], other: Mapping[str, Fraction]) -> None:
    for k, v in other.items():
        into[k] = into.get(k, Fraction(0)) + v


def _max(into: dict[str, Fraction], other: Mapping[str, Fraction]) -> None:
    for k, v in other.items():
        cur = into.get(k)
        if cur is None or v > cur:
            into[k] = v


_POD_LEVEL_SUPPORTED = ("cpu", "memory")


def pod_level_requests(spec: Mapping[str, Any]) -> dict[str, Fraction]:
    """Pod-level requests (spec.resources) for the resources that support them, after defaulting."""
    res = spec.get("resources") or {}
    if not res:
        return {}
    reqs = _quantities(res.get("requests"), "pod requests")
    for k, v in _quantities(res.get("limits"), "pod limits").items():
        reqs.setdefault(k, v)
    return {k: v for k, v in reqs.items() if k in _POD_LEVEL_SUPPORTED or is_hugepages(k)}


def resize_infeasible(status: Mapping[str, Any] | None) -> bool:
    """The first PodResizePending condition says Infeasible (component-helpers ``IsPodResizeInfeasible``)."""
    for cond in (status or {}).get("conditions") or []:
        if cond.get("type") == "PodResizePending":
            return bool(cond.get("reason") == "Infeasible")
    return False


def _status_requests(status: Mapping[str, Any] | None) -> dict[str, tuple[dict[str, Fraction], dict[str, Fraction]]]:
    """Per container name with a ``resources`` block in its status: (actuated, allocated) requests.

    A status without ``resources`` (null or absent, as from a kubelet that does not report it)
    leaves the container at its spec; an empty block still counts, as a non-nil pointer does
    upstream."""
    out: dict[str, tuple[dict[str, Fraction], dict[str, Fraction]]] = {}
    if not status:
        return out
    for cs in (status.get("containerStatuses") or []) + (status.get("initContainerStatuses") or []):
        res = cs.get("resources")
        if res is None:
            continue
        name = str(cs.get("name", ""))
        out[name] = (
            _quantities(res.get("requests"), f"status of container {name!r}: resources.requests"),
            _quantities(cs.get("allocatedResources"), f"status of container {name!r}: allocatedResources"),
        )
    return out


def pod_requests(
    spec: Mapping[str, Any],
    status: Mapping[str, Any] | None = None,
    non_missing: Mapping[str, Fraction] | None = None,
) -> dict[str, Fraction]:
    """The pod's effective requests (``PodRequests`` in component-helpers).

    With ``status`` the in-place resize rules apply (``UseStatusResources``, on in v1.35 where
    InPlacePodVerticalScaling is GA): a container (or sidecar) whose status reports resources
    counts max(spec, actuated, allocated) per resource, or only max(actuated, allocated) while
    the resize is Infeasible, since the kubelet will never grant it.  Plain init containers are
    finished and keep their spec.  Pod-level status resources need
    InPlacePodLevelResourcesVerticalScaling, alpha and off in v1.35, so ``spec.resources`` is
    taken as written.

    ``non_missing`` gives defaults for cpu/memory that a container does not request at all
    (an explicit zero stays zero); the scheduler uses it for its "non-zero" requests.
    """
    infeasible = resize_infeasible(status)
    status_res = _status_requests(status)

    def one(c: Mapping[str, Any], use_status: bool) -> dict[str, Fraction]:
        reqs = container_requests(c)
        st = status_res.get(c.get("name", "")) if use_status else None
        if st is not None:
            actuated, allocated = st
            if infeasible:
                reqs = dict(actuated)
            _max(reqs, actuated)
            _max(reqs, allocated)
        if non_missing:
            for k, v in non_missing.items():
                reqs.setdefault(k, v)
        return reqs

    reqs: dict[str, Fraction] = {}
    for c in spec.get("containers") or []:
        _add(reqs, one(c, True))

    restartable: dict[str, Fraction] = {}
    init_max: dict[str, Fraction] = {}
    for c in spec.get("initContainers") or []:
        sidecar = c.get("restartPolicy") == "Always"
        cr = one(c, sidecar)
        if sidecar:
            # Sidecars keep running next to the app containers and the later init containers.
            _add(reqs, cr)
            _add(restartable, cr)
            cr = dict(restartable)
        else:
            tmp = dict(cr)
            _add(tmp, restartable)
            cr = tmp
        _max(init_max, cr)
    _max(reqs, init_max)

    pod_level = pod_level_requests(spec)
    if pod_level:
        reqs.update(pod_level)

    overhead = _quantities(spec.get("overhead"), "overhead")
    if overhead:
        _add(reqs, overhead)
    return reqs


def non_zero_defaults(spec: Mapping[str, Any], reqs: Mapping[str, Fraction]) -> dict[str, Fraction]:
    """Per-container defaults for missing cpu/memory requests, as NodeInfo applies them."""
    defaults = {"cpu": Fraction(DEFAULT_MILLI_CPU_REQUEST, 1000), "memory": Fraction(DEFAULT_MEMORY_REQUEST)}
    if not pod_level_requests(spec):
        return defaults
    # With pod-level requests the defaults only fill what neither level sets.
    return {k: v for k, v in defaults.items() if k not in reqs}


_AMOUNTS_CACHE: dict[bytes | str, tuple[dict[str, int], int, int]] = {}


def _items_or_none(d: Any) -> tuple[Any, ...] | None:
    """A requests-like map as a tuple of its items (() when empty or null), None when it is
    neither a dict nor empty (left to the general key and its errors)."""
    if not d:
        return ()
    if type(d) is not dict:
        return None
    return tuple(d.items())


def _amounts_key(spec: Mapping[str, Any], status: Mapping[str, Any]) -> tuple[Any, ...] | None:
    """The memo key of the common pod without marshal: each container's name and the items
    of its requests and limits, and those of the status entries with resources (with the
    resize verdict), for a pod without init containers, overhead or pod-level resources.
    None for any other shape, which the general key takes.

    The most common pod of all (one container, its one status without resources; a
    snapshot asks for each of 150,000 pods) has its key built first, without the general
    walk: the key the walk gives it."""
    if spec.get("initContainers") or spec.get("overhead") or spec.get("resources"):
        return None
    containers = spec.get("containers")
    if type(containers) is not list:
        return None
    statuses = status.get("containerStatuses")
    if len(containers) == 1 and type(statuses) is list and len(statuses) == 1 \
            and not status.get("initContainerStatuses"):
        c, cs = containers[0], statuses[0]
        if type(c) is dict and type(cs) is dict and cs.get("resources") is None:
            res = c.get("resources")
            if type(res) is dict:
                req, lim = res.get("requests"), res.get("limits")
                if (type(req) is dict or not req) and (type(lim) is dict or not lim):
                    return ((c.get("name"), tuple(req.items()) if req else (), tuple(lim.items()) if lim else ()),),
    parts: list[Any] = []
    for c in containers:
        if type(c) is not dict:
            return None
        res = c.get("resources")
        if not res:
            parts.append((c.get("name"), (), ()))
            continue
        if type(res) is not dict:
            return None
        # _items_or_none inlined: this loop runs for every container of every pod.
        req = res.get("requests")
        if req:
            if type(req) is not dict:
                return None
            req = tuple(req.items())
        else:
            req = ()
        lim = res.get("limits")
        if lim:
            if type(lim) is not dict:
                return None
            lim = tuple(lim.items())
        else:
            lim = ()
        parts.append((c.get("name"), req, lim))
    css = status.get("containerStatuses")
    ics = status.get("initContainerStatuses")
    if not (css or ics):
        return (tuple(parts),)
    if (css and type(css) is not list) or (ics and type(ics) is not list):
        return None
    resized: list[Any] = []
    for cs in (css or []) + (ics or []):
        if type(cs) is not dict:
            return None
        r = cs.get("resources")
        if r is None:
            continue
        if type(r) is not dict:
            return None
        actuated = _items_or_none(r.get("requests"))
        allocated = _items_or_none(cs.get("allocatedResources"))
        if actuated is None or allocated is None:
            return None
        resized.append((cs.get("name"), actuated, allocated))
    if not resized:
        return (tuple(parts),)
    return (tuple(parts), tuple(resized), resize_infeasible(status))


def _all_strings(key: tuple[Any, ...]) -> bool:
    """Every name, resource name and quantity in an ``_amounts_key`` is a str."""
    for group in key[:2]:
        for name, a, b in group:
            if type(name) is not str:
                return False
            for k, v in a + b:
                if type(k) is not str or type(v) is not str:
                    return False
    return True


_FAST_AMOUNTS_CACHE: dict[tuple[Any, ...], tuple[dict[str, int], int, int]] = {}


def _pod_amounts(spec: Mapping[str, Any], status: Mapping[str, Any]) -> tuple[dict[str, int], int, int]:
    """The pod's tracked requests and its non-zero cpu and memory, memoized by the parts of
    the spec and status they depend on: the pods of one template share one computation, so
    a 150,000-pod snapshot does the Fraction arithmetic a few thousand times, not per pod.
    The returned dict is shared between those pods and must not be changed.

    The common pod's key is a tuple of the strings it reads (``_amounts_key``), kept only
    when all of them are strings: a str never equals a value of another type, so a lookup
    finds only an entry read from the same strings. Other pods take the marshal key."""
    key = _amounts_key(spec, status)
    if key is not None:
        try:
            hit = _FAST_AMOUNTS_CACHE.get(key)
        except TypeError:  # an unhashable quantity (bad YAML): the general key says what it is
            key = None
        else:
            if hit is not None:
                return hit
    hit = _marshal_keyed_amounts(spec, status)
    if key is not None and len(_FAST_AMOUNTS_CACHE) < 200_000 and _all_strings(key):
        _FAST_AMOUNTS_CACHE[key] = hit
    return hit


def _marshal_keyed_amounts(
    spec: Mapping[str, Any], status: Mapping[str, Any],
) -> tuple[dict[str, int], int, int]:
    """``_pod_amounts`` keyed by the marshal bytes of the parts it reads, for any pod."""
    # A container status without ``resources`` is passed over (``_status_requests``), and
    # the resize conditions only matter for the statuses that have them.
    css = status.get("containerStatuses")
    ics = status.get("initContainerStatuses")
    resized = None
    if css or ics:
        resized = [
            [(cs.get("name"), cs.get("resources"), cs.get("allocatedResources"))
             for cs in css or () if cs.get("resources") is not None],
            [(cs.get("name"), cs.get("resources"), cs.get("allocatedResources"))
             for cs in ics or () if cs.get("resources") is not None],
        ]
        if not (resized[0] or resized[1]):
            resized = None
    inits = spec.get("initContainers")
    parts: tuple[Any, ...] | list[Any]
    if resized is None and not inits:
        # The common pod: no status resources and no init containers, so container names
        # (only matched against statuses) and restart policies (only read on init
        # containers) can't change the answer; the key is the resources alone. A tuple
        # here, a list in the other key, so the two kinds of key never meet.
        parts = (tuple([c.get("resources") for c in spec.get("containers") or ()]),
                 spec.get("overhead"), spec.get("resources"))
    else:
        parts = [
            [(c.get("name"), c.get("resources"), c.get("restartPolicy")) for c in spec.get("containers") or ()],
            [(c.get("name"), c.get("resources"), c.get("restartPolicy")) for c in inits or ()],
            spec.get("overhead"),
            spec.get("resources"),
            resized,
            resize_infeasible(status) if resized is not None else None,
        ]
    try:
        # marshal's format 2 writes every value with its exact type and no back-references,
        # so equal bytes mean equal parts; three times faster than repr.
        key: bytes | str = marshal.dumps(parts, 2)
    except ValueError:  # a value marshal cannot write (a YAML timestamp): its repr
        key = repr(parts)
    hit = _AMOUNTS_CACHE.get(key)
    if hit is None:
        reqs = pod_requests(spec, status)
        non0 = pod_requests(spec, status, non_zero_defaults(spec, reqs))
        hit = (
            tracked_resources(reqs),
            amount("cpu", non0.get("cpu", Fraction(0))),
            amount("memory", non0.get("memory", Fraction(0))),
        )
        if len(_AMOUNTS_CACHE) < 200_000:
            _AMOUNTS_CACHE[key] = hit
    return hit


_LABELS_CACHE: dict[tuple[tuple[Any, Any], ...], dict[str, str]] = {}


def _pod_labels(labels: Mapping[Any, Any] | None) -> dict[str, str]:
    """``metadata.labels`` with keys and values as strings, one dict shared by the pods with
    the same labels (the replicas of one template): fewer dicts to build and to keep.

    Only all-string label sets are kept: a string never compares equal to another type,
    so a lookup can only find the entry of labels that are the same strings (``1`` and
    ``True`` would find each other's entry, and their strings differ). The shared dict
    must not be changed."""
    if not labels:
        return {}
    try:
        key = tuple(labels.items())
        hit = _LABELS_CACHE.get(key)
    except TypeError:  # an unhashable value (bad YAML): converted below, not kept
        key, hit = (), None
    if hit is not None:
        return hit
    out = {str(k): str(v) for k, v in labels.items()}
    if key and len(_LABELS_CACHE) < 100_000 and all(type(k) is str and type(v) is str for k, v in key):
        _LABELS_CACHE[key] = out
    return out


_NO_PORTS: tuple[tuple[str, str, int], ...] = ()


def _host_ports(spec: Mapping[str, Any]) -> tuple[tuple[str, str, int], ...]:
    """``PodInfo.host_ports`` of a spec; most pods of a snapshot ask for no host port, and
    they are told so by a look at each container's ports alone."""
    if not spec.get("hostNetwork") and not spec.get("initContainers"):
        # Without hostNetwork a port counts only with a hostPort that is not 0 or missing
        # (``int(x or 0)`` below), i.e. a true one; any such port takes the full path.
        containers = spec.get("containers")
        if containers is not None and type(containers) is not list:
            return _host_ports_full(spec)  # whatever the full path makes of it
        for c in containers or ():
            ports = c.get("ports")
            if ports:
                for p in ports:
                    if p.get("hostPort"):
                        return _host_ports_full(spec)
        return _NO_PORTS
    return _host_ports_full(spec)


def _host_ports_full(spec: Mapping[str, Any]) -> tuple[tuple[str, str, int], ...]:
    out: list[tuple[str, str, int]] = []
    host_network = bool(spec.get("hostNetwork"))
    sidecars = [c for c in spec.get("initContainers") or [] if c.get("restartPolicy") == "Always"]
    for c in sidecars + (spec.get("containers") or []):
        for p in c.get("ports") or []:
            hp = int(p.get("hostPort") or 0)
            if hp == 0 and host_network:
                hp = int(p.get("containerPort") or 0)
            if hp <= 0:
                continue
            out.append((p.get("hostIP") or "0.0.0.0", p.get("protocol") or "TCP", hp))
    return tuple(out)


def pod_uid(raw: Dict) -> str:
    """:class:`PodInfo`'s uid of a stored pod, without parsing the rest of it (a rollout
    looks up thousands of old pods by it)."""
    meta = raw.get("metadata") or {}
    return meta.get("uid") or f"{meta.get('namespace') or 'default'}/{meta.get('name') or meta.get('generateName') or ''}"


_TERMS_CACHE: dict[tuple[str, bytes], PodAffinityTerms] = {}
# A PodInfo's ``controller_key`` not read yet (never a key: those have a namespace).
CONTROLLER_UNREAD: tuple[str, str, str] = ("", "", "")


class PodInfo:
    """A pod as the scheduler sees it: identity, placement, and derived scheduling inputs."""

    def __init__(self, raw: Dict) -> None:
        self.raw = raw
        meta = raw.get("metadata") or {}
        spec = raw.get("spec") or {}
        status = raw.get("status") or {}
        name: str = meta.get("name") or meta.get("generateName") or ""
        namespace: str = meta.get("namespace") or "default"
        self.name = name
        self.namespace = namespace
        self.uid: str = meta.get("uid") or f"{namespace}/{name}"
        # labels, annotations, nominated_node_name, scheduler_name and deletion_timestamp
        # are read on first use (below): a snapshot's cycles look at a few of its pods.
        self.node_name: str = spec.get("nodeName") or ""
        self.phase: str = status.get("phase") or ""
        priority = spec.get("priority")
        # (an int as stored needs no int(); bool is not int here, so True still becomes 1)
        self.priority: int = priority if type(priority) is int else int(priority or 0)
        self.spec = spec
        self.status = status
        # The stored labels as they are (``labels`` makes strings of them when first read):
        # a label index over thousands of pods reads them here, not through raw.metadata.
        self.stored_labels: Any = meta.get("labels")
        # Any pod affinity or anti-affinity stanza (upstream's PodsWithAffinity): every
        # snapshot asks it of every pod it places.
        affinity = spec.get("affinity")
        self.has_pod_affinity: bool = type(affinity) is dict and (
            affinity.get("podAffinity") is not None or affinity.get("podAntiAffinity") is not None)
        self.requests: dict[str, int]
        self.non0_cpu: int
        self.non0_mem: int
        self.requests, self.non0_cpu, self.non0_mem = _pod_amounts(spec, status)
        # Its first controller reference's namespace, kind and name (core/api/objects.py
        # ``controller_key``), read here only for a PodInfo a loader makes (``make_early``).
        self.controller_key: tuple[str, str, str] | None = CONTROLLER_UNREAD

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @cached_property
    def labels(self) -> dict[str, str]:
        """``metadata.labels`` as strings (a dict shared with equal label sets: don't change it)."""
        return _pod_labels((self.raw.get("metadata") or {}).get("labels"))

    @cached_property
    def annotations(self) -> dict[str, str]:
        annotations: dict[str, str] = (self.raw.get("metadata") or {}).get("annotations") or {}
        return annotations

    @cached_property
    def nominated_node_name(self) -> str:
        name: str = self.status.get("nominatedNodeName") or ""
        return name

    @cached_property
    def scheduler_name(self) -> str:
        name: str = self.spec.get("schedulerName") or "default-scheduler"
        return name

    @cached_property
    def deletion_timestamp(self) -> str | None:
        ts: str | None = (self.raw.get("metadata") or {}).get("deletionTimestamp")
        return ts

    @cached_property
    def spec_requests(self) -> dict[str, int]:
        """The requests of the spec alone, without the in-place resize status rules.

        NodeResourcesFit's PreFilter (``computePodResourceRequest``) sizes the incoming pod this
        way: a pod being scheduled runs nowhere, so a status copied along with a manifest taken
        from a cluster must not change what it asks of a node."""
        if not _status_requests(self.status):
            return self.requests
        return tracked_resources(pod_requests(self.spec))

    @cached_property
    def tolerations(self) -> tuple[Toleration, ...]:
        return parse_tolerations(self.spec.get("tolerations"))

    @cached_property
    def affinity(self) -> Dict:
        return self.spec.get("affinity") or {}

    @cached_property
    def pod_terms(self) -> PodAffinityTerms:
        """The pod (anti-)affinity terms, compiled once per distinct stanza and namespace:
        the pods of one workload share one (frozen) compilation."""
        from kschedx.core.api.affinity import compile_pod_terms

        affinity = self.affinity
        stanzas = (affinity.get("podAffinity"), affinity.get("podAntiAffinity"))
        if stanzas == (None, None):
            return compile_pod_terms(affinity, self.namespace)
        try:
            # Equal marshal bytes are equal values, types included (as _pod_amounts' key).
            key = (self.namespace, marshal.dumps(stanzas))
        except ValueError:  # a value marshal can't write (YAML dates): compiled alone
            return compile_pod_terms(affinity, self.namespace)
        hit = _TERMS_CACHE.get(key)
        if hit is None:
            hit = compile_pod_terms(affinity, self.namespace)
            if len(_TERMS_CACHE) < 100_000:
                _TERMS_CACHE[key] = hit
        return hit

    @cached_property
    def has_required_anti_affinity(self) -> bool:
        """Required pod anti-affinity terms (upstream's PodsWithRequiredAntiAffinity)."""
        paa = self.affinity.get("podAntiAffinity") or {}
        return bool(paa.get("requiredDuringSchedulingIgnoredDuringExecution"))

    @cached_property
    def required_node_selector(self) -> NodeSelector | None:
        na = self.affinity.get("nodeAffinity") or {}
        return parse_node_selector(na.get("requiredDuringSchedulingIgnoredDuringExecution"))

    @cached_property
    def host_ports(self) -> tuple[tuple[str, str, int], ...]:
        """(hostIP, protocol, hostPort) of every container port that asks for a host port.

        As upstream's ``GetHostPorts``: sidecars (restartable init containers) and the app
        containers only, since other init containers have exited by then. A hostNetwork
        pod's ports default ``hostPort`` to ``containerPort`` (API defaulting, SetDefaults_Pod),
        which a hand-written manifest or dump does not carry yet.
        """
        return _host_ports(self.spec)

    @cached_property
    def controller_ref(self) -> Dict | None:
        for ref in (self.raw.get("metadata") or {}).get("ownerReferences") or []:
            if ref.get("controller"):
                return dict(ref)
        return None

    @property
    def terminal(self) -> bool:
        return self.phase in ("Succeeded", "Failed")

    def __repr__(self) -> str:
        return f"PodInfo({self.key} on {self.node_name or '-'})"


# PodInfos made while a source's pods are decoded, by the id of each pod's dict.
EarlyPodInfos = dict[int, PodInfo]


def make_early(early: EarlyPodInfos, pod: Dict) -> None:
    """``pod``'s PodInfo made now and kept in ``early`` for the snapshot (``take_early``).

    A loader calls this as each pod is decoded, while its dicts are still in the CPU's
    cache: made then, 150,000 PodInfos cost a fraction of what the snapshot pays to read
    the same pods again long after, strewn over gigabytes. Whoever changes a loaded pod in
    place before the snapshot is built drops its entry (``early.pop(id(pod))``). A pod
    PodInfo can't read is left for the snapshot, which reads it again and says why."""
    try:
        info = PodInfo(pod)
    except Exception:  # noqa: BLE001 - reported where the snapshot reads the pod again
        return
    info.controller_key = controller_key(pod)
    if info.has_pod_affinity:
        # What every snapshot and its first cycle read of a pod with (anti-)affinity terms.
        try:
            info.has_required_anti_affinity  # noqa: B018 - kept once computed
            info.pod_terms  # noqa: B018
        except Exception:  # noqa: BLE001 - a bad term: the cycle reading it says why
            pass
    early[id(pod)] = info


def take_early(early: EarlyPodInfos, pod: Dict) -> PodInfo:
    """``pod``'s PodInfo from ``early`` (taken out: the next snapshot makes its own), or
    a new one. The entry keeps its dict alive, so no other object can have its id while
    it is there; the identity check costs nothing and guards against a mistake."""
    info = early.pop(id(pod), None)
    if info is not None and info.raw is pod:
        return info
    return PodInfo(pod)


class NodeView:
    """A node: labels, taints, allocatable amounts, images."""

    def __init__(self, raw: Dict) -> None:
        self.raw = raw
        meta = raw.get("metadata") or {}
        spec = raw.get("spec") or {}
        status = raw.get("status") or {}
        self.name: str = meta.get("name") or ""
        self.labels: dict[str, str] = {str(k): str(v) for k, v in (meta.get("labels") or {}).items()}
        self.unschedulable: bool = bool(spec.get("unschedulable"))
        self.taints: tuple[Taint, ...] = parse_taints(spec.get("taints"))
        alloc = status.get("allocatable")
        if alloc is None:
            alloc = status.get("capacity")  # API defaulting: allocatable defaults to capacity
        self.allocatable: dict[str, int] = _node_allocatable(alloc, self.name)
        self.allowed_pods: int = self.allocatable.get("pods", 0)
        self.status = status

    @cached_property
    def images(self) -> list[tuple[tuple[str, ...], int]]:
        """Each image's names and size, in the stored order (read when first asked for)."""
        images: list[tuple[tuple[str, ...], int]] = []
        for img in self.status.get("images") or []:
            names = tuple(map(str, img.get("names") or []))
            if names:
                images.append((names, int(img.get("sizeBytes") or 0)))
        return images

    @cached_property
    def image_sizes(self) -> dict[str, int]:
        """Each image name the node holds -> its size (the last of its images to list the
        name wins, as a pass over ``images`` in order leaves it), read once from the stored
        list: the snapshot counts the names, ImageLocality looks up a pod's few."""
        sizes: dict[str, int] = {}
        for img in self.status.get("images") or []:
            names = img.get("names")
            if names:
                size = int(img.get("sizeBytes") or 0)
                for n in names:
                    sizes[n if type(n) is str else str(n)] = size
        return sizes

    def __repr__(self) -> str:
        return f"NodeView({self.name})"


# A node pool's nodes share their allocatable map: each distinct one (all strings, so a
# key equal only to the same text) is parsed once.
_ALLOCATABLE: dict[tuple[tuple[str, str], ...], dict[str, int]] = {}


def _node_allocatable(alloc: Any, name: str) -> dict[str, int]:
    """The node's tracked allocatable amounts (a dict of its own)."""
    key = None
    if type(alloc) is dict:
        key = tuple(alloc.items())
        if not all(type(k) is str and type(v) is str for k, v in key):
            key = None
        else:
            hit = _ALLOCATABLE.get(key)
            if hit is not None:
                return dict(hit)
    got = tracked_resources(_quantities(alloc, f"node {name} allocatable"))
    if key is not None and len(_ALLOCATABLE) < 10_000:
        _ALLOCATABLE[key] = dict(got)
    return got

"""Scheduler extenders: HTTP filter and prioritize calls, as kube-scheduler makes them.

An extender is configured in a KubeSchedulerConfiguration (``extenders:``) or a v1.12
Policy file. kschedx calls only the filter and prioritize verbs — never preempt or bind —
with the same request bodies the scheduler sends (``ExtenderArgs``: the pod and either
the candidate nodes or, for ``nodeCacheCapable`` extenders, their names) and reads the
same answers (``ExtenderFilterResult``, ``HostPriorityList``).

Two wire dialects exist: v1.35's extender/v1 types carry no JSON tags (``Pod``,
``Nodes``, ``NodeNames``; answers ``Host``/``Score``), v1.12's were lower-case
(``pod``, ``nodes``, ``nodenames``; ``host``/``score``). Answers are read
case-insensitively, as Go's decoder does.
"""

from __future__ import annotations

import json
import ssl
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kschedx.core.api.model import PodInfo
from kschedx.core.framework.interface import Code, NodeStatusMap, Status
from kschedx.core.framework.result import CycleResult, NodeScore, NodeVerdict, PluginScores
from kschedx.core.snapshot import NodeInfo

Dict = dict[str, Any]

WIRE_V135 = "v1.35"
WIRE_V112 = "v1.12"
DEFAULT_TIMEOUT = 5.0  # seconds, the scheduler's default extender timeout
MAX_EXTENDER_PRIORITY = 10


class ExtenderError(Exception):
    """An extender answered, but not usefully (HTTP status, bad JSON, an error field)."""


class ExtenderUnreachable(ExtenderError):
    """No answer at all: connection refused, DNS failure, timeout, TLS failure."""


def _duration_seconds(value: Any, policy: bool) -> float:
    if value in (None, "", 0):
        return DEFAULT_TIMEOUT
    if policy and isinstance(value, int | float):
        # A v1.12 Policy's httpTimeout is a time.Duration: nanoseconds.
        return float(value) / 1e9 or DEFAULT_TIMEOUT
    from kschedx.core.config.validation import parse_duration

    secs = parse_duration(str(value))
    return secs if secs else DEFAULT_TIMEOUT


@dataclass
class Extender:
    url_prefix: str
    filter_verb: str = ""
    prioritize_verb: str = ""
    preempt_verb: str = ""
    bind_verb: str = ""
    weight: int = 0
    enable_https: bool = False
    tls: Dict = field(default_factory=dict)
    timeout: float = DEFAULT_TIMEOUT
    node_cache_capable: bool = False
    managed_resources: list[str] = field(default_factory=list)
    ignorable: bool = False
    source: str = "config"

    @staticmethod
    def from_dict(d: Mapping[str, Any], source: str = "config") -> Extender:
        """From a KubeSchedulerConfiguration's (``source="config"``) or a v1.12 Policy's
        (``source="policy"``) extender entry."""
        policy = source == "policy"
        return Extender(
            url_prefix=str(d.get("urlPrefix") or ""),
            filter_verb=str(d.get("filterVerb") or ""),
            prioritize_verb=str(d.get("prioritizeVerb") or ""),
            preempt_verb=str(d.get("preemptVerb") or ""),
            bind_verb=str(d.get("bindVerb") or ""),
            weight=int(d.get("weight") or 0),
            enable_https=bool(d.get("enableHTTPS") or d.get("enableHttps")),
            tls=dict(d.get("tlsConfig") or {}),
            timeout=_duration_seconds(d.get("httpTimeout"), policy),
            node_cache_capable=bool(d.get("nodeCacheCapable")),
            managed_resources=[str((r or {}).get("name") or "") for r in d.get("managedResources") or []],
            ignorable=bool(d.get("ignorable")),
            source=source,
        )

    @property
    def name(self) -> str:
        return self.url_prefix

    @property
    def column(self) -> str:
        """The score column / filter 'plugin' this extender is shown as."""
        return f"extender:{self.url_prefix}"

    def is_interested(self, pod: PodInfo) -> bool:
        """No managed resources: every pod; otherwise pods whose containers or init
        containers request or limit one of them."""
        if not self.managed_resources:
            return True
        managed = set(self.managed_resources)
        for c in (pod.spec.get("containers") or []) + (pod.spec.get("initContainers") or []):
            res = (c or {}).get("resources") or {}
            for part in ("requests", "limits"):
                if managed & set((res.get(part) or {}).keys()):
                    return True
        return False

    # ------------------------------------------------------------------ wire

    def _args(self, pod: PodInfo, nodes: list[NodeInfo], wire: str) -> Dict:
        names = [n.name for n in nodes]
        node_list = {"metadata": {}, "items": [n.node.raw for n in nodes]}
        if wire == WIRE_V112:
            out: Dict = {"pod": pod.raw}
            if self.node_cache_capable:
                out["nodenames"] = names
            else:
                out["nodes"] = node_list
            return out
        return {
            "Pod": pod.raw,
            "Nodes": None if self.node_cache_capable else node_list,
            "NodeNames": names if self.node_cache_capable else None,
        }

    def _ssl_context(self, scheme: str) -> ssl.SSLContext | None:
        if scheme != "https":
            return None
        tls = self.tls
        ca_file = tls.get("caFile") or None
        ca_data = tls.get("caData") or None
        if tls.get("insecure") or (self.enable_https and not ca_file and not ca_data):
            ctx = ssl.create_default_context()
            ctx.check_hostname = False
            ctx.verify_mode = ssl.CERT_NONE
        else:
            cadata = None
            if isinstance(ca_data, str):
                import base64

                try:
                    cadata = base64.b64decode(ca_data).decode()
                except ValueError:
                    cadata = ca_data
            ctx = ssl.create_default_context(cafile=ca_file, cadata=cadata)
        if tls.get("certFile") and tls.get("keyFile"):
            ctx.load_cert_chain(str(tls["certFile"]), str(tls["keyFile"]))
        return ctx

    def send(self, verb: str, payload: Dict) -> Any:
        """POST ``payload`` as JSON to ``urlPrefix/verb`` and decode the answer."""
        url = self.url_prefix.rstrip("/") + "/" + verb
        parsed = urllib.parse.urlsplit(url)
        if parsed.scheme not in ("http", "https") or not parsed.hostname:
            raise ExtenderUnreachable(f"extender URL {url!r} is not an http(s) URL")
        handlers: list[urllib.request.BaseHandler] = []
        if parsed.hostname in ("localhost", "127.0.0.1", "::1"):
            # Like Go's ProxyFromEnvironment: loopback is never proxied.
            handlers.append(urllib.request.ProxyHandler({}))
        try:
            ctx = self._ssl_context(parsed.scheme)
        except (OSError, ssl.SSLError, ValueError) as e:
            raise ExtenderUnreachable(f"TLS set-up for extender {self.url_prefix}: {e}") from None
        if ctx is not None:
            handlers.append(urllib.request.HTTPSHandler(context=ctx))
        opener = urllib.request.build_opener(*handlers)
        body = json.dumps(payload).encode("utf-8")
        req = urllib.request.Request(url, data=body, method="POST", headers={"Content-Type": "application/json"})
        try:
            with opener.open(req, timeout=self.timeout) as resp:
                status = resp.status
                data = resp.read()
        except urllib.error.HTTPError as e:
            raise ExtenderError(f"failed {verb} with extender at URL {url}, code {e.code}") from None
        except (urllib.error.URLError, OSError, TimeoutError) as e:
            reason = getattr(e, "reason", e)
            raise ExtenderUnreachable(f"extender at URL {url} is unreachable: {reason}") from None
        if status != 200:
            raise ExtenderError(f"failed {verb} with extender at URL {url}, code {status}")
        try:
            return json.loads(data or b"null")
        except ValueError as e:
            raise ExtenderError(f"extender at URL {url}: the {verb} answer is not JSON: {e}") from None

    # ------------------------------------------------------------------ verbs

    def filter(self, pod: PodInfo, nodes: list[NodeInfo], wire: str) -> FilterOutcome:
        """The extender's verdict on ``nodes``: the names passing, and failure messages."""
        if not self.filter_verb:
            return FilterOutcome([n.name for n in nodes], {}, {})
        answer = self.send(self.filter_verb, self._args(pod, nodes, wire))
        if not isinstance(answer, dict):
            raise ExtenderError(f"extender {self.url_prefix}: the filter answer is not an object")
        err = _get(answer, "Error")
        if err:
            raise ExtenderError(str(err))
        known = {n.name for n in nodes}
        passed: list[str] = []
        names = _get(answer, "NodeNames")
        node_list = _get(answer, "Nodes")
        if self.node_cache_capable and names is not None:
            candidates = [str(n) for n in names]
        elif node_list is not None:
            items = _get(node_list, "Items") if isinstance(node_list, dict) else None
            candidates = [str(((i or {}).get("metadata") or {}).get("name") or "") for i in items or []]
        else:
            candidates = []
        for name in candidates:
            if name not in known:
                raise ExtenderError(
                    f"extender {self.url_prefix!r} claims a filtered node {name!r} which is not found in the "
                    "input node list"
                )
            passed.append(name)
        failed = {str(k): str(v) for k, v in (_get(answer, "FailedNodes") or {}).items()}
        unresolvable = {}
        if wire == WIRE_V135:
            unresolvable = {str(k): str(v) for k, v in (_get(answer, "FailedAndUnresolvableNodes") or {}).items()}
        return FilterOutcome(passed, failed, unresolvable)

    def prioritize(self, pod: PodInfo, nodes: list[NodeInfo], wire: str) -> dict[str, int]:
        """The extender's 0-10 score per node name (only the hosts it returns)."""
        if not self.prioritize_verb:
            return {n.name: 0 for n in nodes}
        answer = self.send(self.prioritize_verb, self._args(pod, nodes, wire))
        if answer is None:
            return {}
        if not isinstance(answer, list):
            raise ExtenderError(f"extender {self.url_prefix}: the prioritize answer is not a list")
        out: dict[str, int] = {}
        for hp in answer:
            if not isinstance(hp, dict):
                raise ExtenderError(f"extender {self.url_prefix}: a prioritize entry is not an object")
            host = str(_get(hp, "Host") or "")
            try:
                score = int(_get(hp, "Score") or 0)
            except (TypeError, ValueError):
                raise ExtenderError(f"extender {self.url_prefix}: score of {host!r} is not a number") from None
            # Several entries for one host add up, as the scheduler sums them.
            out[host] = out.get(host, 0) + score
        return out


@dataclass
class FilterOutcome:
    passed: list[str]
    failed: dict[str, str]
    unresolvable: dict[str, str]


def _get(obj: Mapping[str, Any], key: str) -> Any:
    """A JSON object's field as Go decodes it: the exact key, else any case-insensitive match."""
    if key in obj:
        return obj[key]
    low = key.lower()
    for k, v in obj.items():
        if isinstance(k, str) and k.lower() == low:
            return v
    return None


def extenders_from(items: list[Dict] | None, source: str = "config") -> list[Extender]:
    return [Extender.from_dict(d, source) for d in items or []]


# --------------------------------------------------------------------------- in a cycle


def _report(result: CycleResult, ext: Extender) -> Dict:
    for r in result.extenders:
        if r.get("urlPrefix") == ext.url_prefix:
            return r
    r = {
        "urlPrefix": ext.url_prefix,
        "filterVerb": ext.filter_verb or None,
        "prioritizeVerb": ext.prioritize_verb or None,
        "weight": ext.weight,
        "ignorable": ext.ignorable,
        "nodeCacheCapable": ext.node_cache_capable,
        "managedResources": list(ext.managed_resources),
        "interested": True,
        "calls": [],
    }
    result.extenders.append(r)
    return r


def _unreachable(ext: Extender, verb: str, e: ExtenderUnreachable, result: CycleResult, rep: Dict) -> None:
    """An extender that cannot be reached: skipped when ignorable (or for prioritize when
    ``tolerate``), a cluster-access error otherwise."""
    rep["calls"].append({"verb": verb, "outcome": "unreachable", "message": str(e)})
    if ext.ignorable:
        result.warnings.append(f"{e}; the extender is ignorable, so it was skipped as the scheduler would skip it")
        return
    from kschedx.core.errors import ClusterAccessError

    raise ClusterAccessError(
        f"{e} (a non-ignorable scheduler extender: the real scheduler could not schedule without it; "
        "pass --offline to explain without calling extenders)"
    )


def run_extender_filters(
    extenders: list[Extender],
    pod: PodInfo,
    feasible: list[NodeInfo],
    result: CycleResult,
    statuses: NodeStatusMap | None,
    wire: str,
) -> list[NodeInfo] | None:
    """Narrow the feasible nodes through each interested extender's filter, in order
    (each sees the survivors of the previous one; none is called once no node is left).

    Rejected nodes get an Unschedulable (or, from ``failedAndUnresolvableNodes``,
    UnschedulableAndUnresolvable) verdict naming the extender. Returns the new feasible
    list, or None when a non-ignorable extender failed (``result.error`` says why)."""
    for ext in extenders:
        if not feasible:
            break
        rep = _report(result, ext)
        if not ext.is_interested(pod):
            rep["interested"] = False
            continue
        if not ext.filter_verb:
            continue
        try:
            out = ext.filter(pod, feasible, wire)
        except ExtenderUnreachable as e:
            _unreachable(ext, "filter", e, result, rep)
            continue
        except ExtenderError as e:
            rep["calls"].append({"verb": "filter", "outcome": "error", "message": str(e)})
            if ext.ignorable:
                result.warnings.append(
                    f"extender {ext.url_prefix} filter failed ({e}); it is ignorable, so it was skipped"
                )
                continue
            result.error = f"extender {ext.url_prefix} filter: {e}"
            return None
        passed = set(out.passed)
        removed = []
        for ni in feasible:
            if ni.name in passed:
                continue
            removed.append(ni.name)
            if ni.name in out.unresolvable:
                code, reasons = Code.UNSCHEDULABLE_AND_UNRESOLVABLE, [out.unresolvable[ni.name]]
            elif ni.name in out.failed:
                code, reasons = Code.UNSCHEDULABLE, [out.failed[ni.name]]
            else:
                # Dropped without a message: the scheduler records no status for it.
                result.nodes[ni.name] = NodeVerdict(False, Code.UNSCHEDULABLE.label, ext.column, [], "Extender")
                continue
            result.nodes[ni.name] = NodeVerdict(False, code.label, ext.column, reasons, "Extender")
            if statuses is not None:
                statuses.statuses[ni.name] = Status(code, list(reasons), "")
        rep["calls"].append({"verb": "filter", "outcome": "ok", "filteredOut": removed})
        feasible = [ni for ni in feasible if ni.name in passed]
    return feasible


def run_extender_prioritize(
    extenders: list[Extender],
    pod: PodInfo,
    feasible: list[NodeInfo],
    result: CycleResult,
    totals: dict[str, int],
    wire: str,
    scale: int,
) -> None:
    """Add each interested extender's prioritize scores: one column per extender, the
    0-10 score × ``scale`` (10 on the v1.35 framework's 0-100 range, 1 in v1.12) × its
    weight added to the totals. A failing prioritize call contributes nothing, as
    upstream ignores it (an unreachable non-ignorable extender still stops kschedx)."""
    for ext in extenders:
        if not ext.prioritize_verb or not feasible:
            continue
        rep = _report(result, ext)
        if not ext.is_interested(pod):
            rep["interested"] = False
            continue
        try:
            scores = ext.prioritize(pod, feasible, wire)
        except ExtenderUnreachable as e:
            _unreachable(ext, "prioritize", e, result, rep)
            continue
        except ExtenderError as e:
            rep["calls"].append({"verb": "prioritize", "outcome": "error", "message": str(e)})
            result.warnings.append(
                f"extender {ext.url_prefix} prioritize failed ({e}): the scheduler ignores the error, so it adds "
                "no score"
            )
            continue
        rep["calls"].append({"verb": "prioritize", "outcome": "ok", "scores": dict(scores)})
        col = PluginScores(ext.column, ext.weight, False)
        for ni in feasible:
            s = scores.get(ni.name, 0)
            col.scores[ni.name] = NodeScore(s, s * scale, s * scale * ext.weight)
            totals[ni.name] = totals.get(ni.name, 0) + s * scale * ext.weight
        result.score_plugins.append(col)


def offline_warnings(extenders: list[Extender]) -> list[str]:
    return [
        f"scheduler extender {e.url_prefix} was not called (--offline): the real scheduler would also consult it"
        + (" (ignorable)" if e.ignorable else "")
        for e in extenders
    ]

"""Reading a live cluster through kubeconfig, read-only: list calls only, paginated.

Configuration comes from the official kubernetes client, exactly as kubectl finds it:
``--kubeconfig``, else ``$KUBECONFIG`` (several files merged), else ``~/.kube/config``,
with ``--context``; inside a pod, the service account. Every auth the client supports
(client certificates, tokens, exec plugins) works. The client is imported here only, so
offline runs never load it.

Each kind the pipeline reads is listed in pages of ``limit`` objects (following the
``continue`` token), several kinds at a time. Objects stay plain dicts as the API returns
them (list items get their ``kind`` and ``apiVersion`` back), so the engine sees the same
thing as from a ``kubectl get -o json`` dump. A kind the user may not list, or the server
doesn't serve, becomes a warning — except nodes and pods, without which nothing can be
explained (ClusterAccessError, exit 3).
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from queue import Full, Queue
from typing import Any, Protocol

import yaml

from kschedx.core.api.objects import ClusterObjects
from kschedx.core.errors import ClusterAccessError, InputError
from kschedx.core.gcpause import gc_paused
from kschedx.core.load.live_http import (
    DEFAULT_REQUEST_TIMEOUT,
    Connection,
    ExecCredentialFailed,
    get,
    install_exec_plugin_runner,
    quiet_client,
    unreachable,
)
from kschedx.core.load.live_pages import decode_items, split_page
from kschedx.core.load.stored import Sources, merge_duplicates
from kschedx.core.progress import report

Dict = dict[str, Any]

# kind, apiVersion, collection path (all namespaces)
RESOURCES: tuple[tuple[str, str, str], ...] = (
    ("Node", "v1", "/api/v1/nodes"),
    ("Pod", "v1", "/api/v1/pods"),
    ("Namespace", "v1", "/api/v1/namespaces"),
    ("PersistentVolume", "v1", "/api/v1/persistentvolumes"),
    ("PersistentVolumeClaim", "v1", "/api/v1/persistentvolumeclaims"),
    ("Service", "v1", "/api/v1/services"),
    ("ReplicationController", "v1", "/api/v1/replicationcontrollers"),
    ("StorageClass", "storage.k8s.io/v1", "/apis/storage.k8s.io/v1/storageclasses"),
    ("CSINode", "storage.k8s.io/v1", "/apis/storage.k8s.io/v1/csinodes"),
    ("CSIDriver", "storage.k8s.io/v1", "/apis/storage.k8s.io/v1/csidrivers"),
    ("CSIStorageCapacity", "storage.k8s.io/v1", "/apis/storage.k8s.io/v1/csistoragecapacities"),
    ("ReplicaSet", "apps/v1", "/apis/apps/v1/replicasets"),
    ("StatefulSet", "apps/v1", "/apis/apps/v1/statefulsets"),
    ("Deployment", "apps/v1", "/apis/apps/v1/deployments"),
    ("DaemonSet", "apps/v1", "/apis/apps/v1/daemonsets"),
    ("Job", "batch/v1", "/apis/batch/v1/jobs"),
    ("CronJob", "batch/v1", "/apis/batch/v1/cronjobs"),
    ("ControllerRevision", "apps/v1", "/apis/apps/v1/controllerrevisions"),
    ("PodDisruptionBudget", "policy/v1", "/apis/policy/v1/poddisruptionbudgets"),
    ("PriorityClass", "scheduling.k8s.io/v1", "/apis/scheduling.k8s.io/v1/priorityclasses"),
    ("ResourceSlice", "resource.k8s.io/v1", "/apis/resource.k8s.io/v1/resourceslices"),
    ("ResourceClaim", "resource.k8s.io/v1", "/apis/resource.k8s.io/v1/resourceclaims"),
    ("ResourceClaimTemplate", "resource.k8s.io/v1", "/apis/resource.k8s.io/v1/resourceclaimtemplates"),
    ("DeviceClass", "resource.k8s.io/v1", "/apis/resource.k8s.io/v1/deviceclasses"),
    # Beta and off by default in 1.36 (v1alpha3 before): a server without it answers 404.
    ("DeviceTaintRule", "resource.k8s.io/v1beta2", "/apis/resource.k8s.io/v1beta2/devicetaintrules"),
    ("LimitRange", "v1", "/api/v1/limitranges"),
    ("ResourceQuota", "v1", "/api/v1/resourcequotas"),
    ("RuntimeClass", "node.k8s.io/v1", "/apis/node.k8s.io/v1/runtimeclasses"),
    ("HorizontalPodAutoscaler", "autoscaling/v2", "/apis/autoscaling/v2/horizontalpodautoscalers"),
)
REQUIRED_KINDS = frozenset({"Node", "Pod"})
# Kinds of APIs off by default on the servers kschedx reads: a 404 only means they are off.
OPTIONAL_APIS = frozenset({"DeviceTaintRule"})
PAGE_SIZE = 500

# What each missing kind means for the explanation.
_WITHOUT = {
    "Namespace": "namespace selectors of pod affinity terms see no namespace labels",
    "PersistentVolume": "volume plugins are evaluated without PersistentVolumes",
    "PersistentVolumeClaim": "volume plugins are evaluated without PersistentVolumeClaims",
    "StorageClass": "volume plugins are evaluated without StorageClasses",
    "CSINode": "NodeVolumeLimits is evaluated without CSI attach limits",
    "Service": "system default spreading doesn't see Services",
    "ReplicaSet": "system default spreading doesn't see ReplicaSets",
    "StatefulSet": "system default spreading doesn't see StatefulSets",
    "ReplicationController": "system default spreading doesn't see ReplicationControllers",
    "PodDisruptionBudget": "preemption is evaluated without PodDisruptionBudgets",
    "PriorityClass": "pod priorities come from the pods' spec.priority only",
    "Deployment": "a Deployment manifest is not matched with the one that runs",
    "DaemonSet": "a DaemonSet manifest is not matched with the one that runs",
    "Job": "a Job manifest is not matched with the one that runs",
    "ControllerRevision": "a running DaemonSet's pods all count as of its current template",
    "LimitRange": "admission applies no LimitRange defaults or limits",
    "ResourceQuota": "admission checks no ResourceQuota",
    "RuntimeClass": "a RuntimeClass's overhead and scheduling are not applied to the pods naming it",
    "HorizontalPodAutoscaler": "replica counts ignore HorizontalPodAutoscalers",
    "DeviceTaintRule": "devices are matched without the taints DeviceTaintRules add (DRADeviceTaintRules)",
    "Event": "no pending pod is compared with its FailedScheduling events",
}


@dataclass
class LiveCluster:
    objects: ClusterObjects
    warnings: list[str] = field(default_factory=list)
    # Requests made: (path, query) — for tests and --debug.
    requests: list[tuple[str, str]] = field(default_factory=list)
    context: str | None = None
    server: str | None = None


def _api_client(kubeconfig: str | None, context: str | None) -> tuple[Any, str | None]:
    try:
        from kubernetes import client, config
        from kubernetes.config.config_exception import ConfigException
    except ImportError:  # pragma: no cover - kubernetes is a dependency
        raise ClusterAccessError("the kubernetes client is not installed (pip install kubernetes)") from None
    cfg = client.Configuration()
    # $KUBECONFIG is read now, not when the client was imported (it may hold several
    # files, merged like kubectl does).
    if kubeconfig and not os.path.exists(kubeconfig):
        # Given on the command line: a typo, not "no cluster" (the client would call it invalid).
        raise InputError("no such file", path=kubeconfig)
    kubeconfig = kubeconfig or os.environ.get("KUBECONFIG") or None
    try:
        config.load_kube_config(
            config_file=kubeconfig, context=context, client_configuration=cfg)
    except (ConfigException, OSError, ValueError, TypeError, yaml.YAMLError) as e:
        if kubeconfig and not any(os.path.exists(p) for p in kubeconfig.split(os.pathsep) if p):
            raise ClusterAccessError(f"$KUBECONFIG {kubeconfig}: no such file") from None
        if kubeconfig or context or isinstance(e, yaml.YAMLError):
            where = f"kubeconfig {kubeconfig}" if kubeconfig else "kubeconfig"
            raise ClusterAccessError(f"{where}: {kubectl_words(e, kubeconfig)}") from None
        try:
            config.load_incluster_config(client_configuration=cfg)
        except ConfigException:
            default = os.path.expanduser("~/.kube/config")
            if os.path.exists(default):  # there, but unusable (empty, say), and not inside a cluster
                raise ClusterAccessError(f"kubeconfig {default}: {kubectl_words(e, default)}") from None
            raise ClusterAccessError(
                f"no cluster to read: no kubeconfig ($KUBECONFIG, ~/.kube/config) and not inside a cluster ({e})"
            ) from None
    return client.ApiClient(cfg), cfg.host


# The Python client's words for an unusable kubeconfig, and client-go's (what kubectl and every
# Go client print) for the same case (client-go tools/clientcmd: ErrEmptyConfig,
# errContextNotFound, the loader's "error loading config file").
_NO_CONTEXT = re.compile(r"Expected object with name (.*) in .*contexts list")
EMPTY_CONFIG = "invalid configuration: no configuration has been provided, try setting KUBERNETES_MASTER environment variable"


def kubectl_words(e: Exception, kubeconfig: str | None) -> str:
    """An unusable kubeconfig in client-go's words: empty (no file content, no current
    context), a context that is not there, YAML that does not parse; else the client's."""
    if isinstance(e, yaml.YAMLError):
        mark = getattr(e, "problem_mark", None)
        problem = getattr(e, "problem", None) or str(e)
        line = f"line {mark.line + 1}: " if mark is not None else ""
        path = kubeconfig or os.path.expanduser("~/.kube/config")
        return f'error loading config file "{path}": yaml: {line}{problem}'
    text = str(e)
    missing = _NO_CONTEXT.search(text)
    if "file is empty" in text or "Expected key current-context" in text or (missing and not missing.group(1)):
        return EMPTY_CONFIG
    if missing:
        return f"invalid configuration: context was not found for specified context: {missing.group(1)}"
    return text


def connect(kubeconfig: str | None, context: str | None,
            request_timeout: float | None = DEFAULT_REQUEST_TIMEOUT) -> Connection:
    """The run's client (see :func:`_api_client`), its requests and exec credential plugins
    bounded by ``request_timeout`` (None: unbounded), its library quiet."""
    quiet_client()
    install_exec_plugin_runner(request_timeout)
    try:
        api, host = _api_client(kubeconfig, context)
    except ExecCredentialFailed as e:
        # The client runs the plugin while it loads the kubeconfig; kubectl, at the first request.
        raise unreachable(f"getting credentials: {e}") from None
    return Connection(api, host or "", request_timeout)


def _status_message(body: Any) -> str:
    try:
        status = json.loads(body)
        return str(status.get("message") or "")
    except (TypeError, ValueError, AttributeError):
        return ""


# Events are many; pending compares only each pending pod's FailedScheduling events, so
# the server filters them (core/v1 Events take these field selectors).
FAILED_SCHEDULING = ("Event", "v1", "/api/v1/events")
FAILED_SCHEDULING_SELECTOR = "involvedObject.kind=Pod,reason=FailedScheduling"


class ListingSink(Protocol):
    """Who receives the objects as they are decoded (``kschedx snapshot`` writes them out
    while the rest is listed): the server's version and the kinds to be listed, each
    page's objects in listing order, then the end of each kind (listed in full, or not
    listable)."""

    def begin(self, server_version: str | None, kinds: Iterable[str]) -> None: ...

    def page(self, kind: str, items: list[Dict]) -> None: ...

    def done(self, kind: str) -> None: ...


# Pages split and waiting for the decoder, at most (beyond them the listing threads wait).
QUEUED_PAGES = 8


def load_live(kubeconfig: str | None = None, context: str | None = None, page_size: int = PAGE_SIZE,
              workers: int = 4, on_page: Callable[[str, int], None] | None = None, *,
              request_timeout: float | None = DEFAULT_REQUEST_TIMEOUT, events: bool = False,
              connection: Connection | None = None, sink: ListingSink | None = None) -> LiveCluster:
    """List every kind the pipeline reads (and, with ``events``, the FailedScheduling Events
    of pods: one filtered list); see the module docstring for errors and warnings.

    Each kind is listed by a thread of its own (``workers`` at a time) that asks for the
    next page as soon as one has arrived and been split (core/load/live_pages.py); this
    thread decodes the pages meanwhile, with the cyclic collector paused, and hands each
    page's objects to ``sink``."""
    conn = connection or connect(kubeconfig, context, request_timeout)
    host = conn.server
    out = LiveCluster(ClusterObjects(), context=context, server=host)
    sources = Sources(out.objects)
    sources.begin(host or "the cluster")
    out.objects.server_version = _server_version(conn)
    resources = _resources_for(out.objects.server_version) + ((FAILED_SCHEDULING,) if events else ())
    # Per kind: items listed so far, and the kind's size once known (the server's
    # remainingItemCount on a page, or the final count). The bar covers all kinds at once.
    listed: dict[str, int] = {}
    expected: dict[str, int | None] = {r[0]: None for r in resources}

    def progress(kind: str, count: int, remaining: int | None, last: bool) -> None:
        listed[kind] = count
        expected[kind] = count if last else (count + remaining if remaining is not None else expected[kind])
        known = [v for v in expected.values() if v is not None]
        total = sum(known) if len(known) == len(expected) else None
        nodes, pods = listed.get("Node", 0), listed.get("Pod", 0)
        report(f"listing the cluster ({nodes} nodes, {pods} pods)", sum(listed.values()), total)

    # What the listing threads hand the decoder: ("page", kind, Page), ("error", kind,
    # "CODE:message") for a kind the server refused, ("raise", exception) to end the run.
    queue: Queue[tuple[Any, ...]] = Queue(QUEUED_PAGES)
    stop = threading.Event()

    def hand_over(message: tuple[Any, ...]) -> bool:
        while not stop.is_set():
            try:
                queue.put(message, timeout=0.1)
                return True
            except Full:
                continue
        return False

    def list_kind(kind: str, api_version: str, path: str) -> None:
        token = ""
        selector = [("fieldSelector", FAILED_SCHEDULING_SELECTOR)] if kind == "Event" else []
        try:
            while not stop.is_set():
                query = [("limit", str(page_size)), *selector] + ([("continue", token)] if token else [])
                out.requests.append((path, "&".join(f"{k}={v}" for k, v in query)))
                status, data = get(conn, path, query)
                if status >= 400:
                    hand_over(("error", kind, f"{status}:{_status_message(data)}"))
                    return
                page = split_page(data, host, path, kind, api_version)
                del data
                if not hand_over(("page", kind, page)) or not page.token:
                    return
                token = page.token
        except BaseException as e:  # noqa: BLE001 - handed to the decoder, which raises it
            hand_over(("raise", e))

    items_of: dict[str, list[Dict]] = {kind: [] for kind, _v, _p in resources}
    errors: dict[str, str] = {}
    where = {kind: (api_version, path) for kind, api_version, path in resources}
    if sink is not None:
        sink.begin(out.objects.server_version, [kind for kind, _v, _p in resources])
    with ThreadPoolExecutor(max_workers=workers) as pool, gc_paused():
        futures = [pool.submit(list_kind, *r) for r in resources]
        try:
            unfinished = len(resources)
            while unfinished:
                handed = queue.get()
                if handed[0] == "raise":
                    raise handed[1]
                kind = handed[1]
                items = items_of[kind]
                if handed[0] == "error":
                    errors[kind] = handed[2]
                    progress(kind, len(items), None, True)
                    last = True
                else:
                    page = handed[2]
                    api_version, path = where[kind]
                    # (no snapshot is built from what is written to a file as it is read)
                    decoded = decode_items(page, host, path, kind, api_version,
                                           out.objects.early_pods if sink is None else None)
                    out.objects.skipped_events += page.skipped
                    items.extend(decoded)
                    last = not page.token
                    progress(kind, len(items), page.remaining, last)
                    if on_page is not None:
                        on_page(kind, len(items))
                    if sink is not None:
                        sink.page(kind, decoded)
                if last:
                    unfinished -= 1
                    if sink is not None:
                        sink.done(kind)
        except BaseException:
            # The first failure ends the run: lists not yet started never start, those
            # under way stop after their current request.
            stop.set()
            for f in futures:
                f.cancel()
            raise
    for kind, _api_version, _path in resources:
        error = errors.get(kind)
        if error is not None:
            code, _, message = error.partition(":")
            plural = next(p for k, _v, p in resources if k == kind).rsplit("/", 1)[-1]
            if code == "401":
                raise ClusterAccessError(f"the cluster at {host} refused the credentials (401 Unauthorized)")
            if kind in REQUIRED_KINDS:
                raise ClusterAccessError(f"cannot list {plural}: {message or 'HTTP ' + code} "
                                         f"(kschedx needs list on nodes and pods; its RBAC: docs/guides/live-clusters.md)")
            if code == "403":
                what = _WITHOUT.get(kind, f"explained without {plural}")
                out.warnings.append(f"no permission to list {plural}: {what}")
            elif code == "404":
                if kind in OPTIONAL_APIS:
                    continue  # an API the server may not serve at all: nothing to say
                out.warnings.append(f"the server does not serve {plural}; explained without them")
            else:
                out.warnings.append(f"listing {plural} failed ({message or 'HTTP ' + code}); explained without them")
            continue
        for item in items_of[kind]:
            out.objects.add(item)
    out.objects.load_warnings.extend(merge_duplicates(sources))
    return out


def _server_version(conn: Connection) -> str | None:
    """The server's gitVersion (GET /version), None when the server does not tell it: the
    version is then inferred from the kubelets. A server that can't be reached ends the
    run here (ClusterAccessError), before any list."""
    status, data = get(conn, "/version", [])
    if status >= 400:
        return None
    try:
        version = json.loads(data).get("gitVersion")
    except (ValueError, AttributeError):
        return None
    return version if isinstance(version, str) and version else None


def _resources_for(server_version: str | None) -> tuple[tuple[str, str, str], ...]:
    """What to list: a v1.33 server serves resource.k8s.io as v1beta1/v1beta2 only (v1 came
    with v1.34), so its DRA kinds are listed as v1beta1 and converted on load."""
    from kschedx.core.versions import minor_of

    mm = minor_of(server_version or "")
    if mm is not None and mm < (1, 36):
        # DeviceTaintRule was served as v1alpha3 before 1.36.
        resources = tuple((k, a.replace("v1beta2", "v1alpha3"), p.replace("/v1beta2/", "/v1alpha3/"))
                          if k == "DeviceTaintRule" else (k, a, p) for k, a, p in RESOURCES)
    else:
        resources = RESOURCES
    if mm is None or mm >= (1, 34):
        return resources
    return tuple((k, a.replace("/v1", "/v1beta1"), p.replace("resource.k8s.io/v1/", "resource.k8s.io/v1beta1/"))
                 if a == "resource.k8s.io/v1" else (k, a, p) for k, a, p in resources)

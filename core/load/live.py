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
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import yaml

from kschedx.core.api.objects import ClusterObjects
from kschedx.core.errors import ClusterAccessError, InputError
from kschedx.core.load.dra_versions import OLD_VERSIONS as OLD_DRA_VERSIONS
from kschedx.core.load.dra_versions import to_v1 as dra_to_v1
from kschedx.core.load.live_http import (
    DEFAULT_REQUEST_TIMEOUT,
    Connection,
    ExecCredentialFailed,
    get,
    go_json_error,
    install_exec_plugin_runner,
    quiet_client,
    unreachable,
)
from kschedx.core.load.stored import PageError, Sources, StoredDecodeError, decode_page, decode_stored, merge_duplicates
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
    ("LimitRange", "v1", "/api/v1/limitranges"),
    ("ResourceQuota", "v1", "/api/v1/resourcequotas"),
    ("RuntimeClass", "node.k8s.io/v1", "/apis/node.k8s.io/v1/runtimeclasses"),
    ("HorizontalPodAutoscaler", "autoscaling/v2", "/apis/autoscaling/v2/horizontalpodautoscalers"),
)
REQUIRED_KINDS = frozenset({"Node", "Pod"})
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
        config.load_kube_config(  # type: ignore[no-untyped-call]
            config_file=kubeconfig, context=context, client_configuration=cfg)
    except (ConfigException, OSError, ValueError, TypeError, yaml.YAMLError) as e:
        if kubeconfig and not any(os.path.exists(p) for p in kubeconfig.split(os.pathsep) if p):
            raise ClusterAccessError(f"$KUBECONFIG {kubeconfig}: no such file") from None
        if kubeconfig or context or isinstance(e, yaml.YAMLError):
            where = f"kubeconfig {kubeconfig}" if kubeconfig else "kubeconfig"
            raise ClusterAccessError(f"{where}: {kubectl_words(e, kubeconfig)}") from None
        try:
            config.load_incluster_config(client_configuration=cfg)  # type: ignore[no-untyped-call]
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


def load_live(kubeconfig: str | None = None, context: str | None = None, page_size: int = PAGE_SIZE,
              workers: int = 4, on_page: Callable[[str, int], None] | None = None, *,
              request_timeout: float | None = DEFAULT_REQUEST_TIMEOUT, events: bool = False,
              connection: Connection | None = None) -> LiveCluster:
    """List every kind the pipeline reads (and, with ``events``, the FailedScheduling Events
    of pods: one filtered list); see the module docstring for errors and warnings."""
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

    def list_kind(kind: str, api_version: str, path: str) -> tuple[str, list[Dict], str | None]:
        items: list[Dict] = []
        token = ""
        selector = [("fieldSelector", FAILED_SCHEDULING_SELECTOR)] if kind == "Event" else []
        while True:
            query = [("limit", str(page_size)), *selector] + ([("continue", token)] if token else [])
            out.requests.append((path, "&".join(f"{k}={v}" for k, v in query)))
            status, data = get(conn, path, query)
            if status >= 400:
                progress(kind, len(items), None, True)
                return kind, items, f"{status}:{_status_message(data)}"
            try:
                page, meta, skipped = decode_page(data, kind, api_version)
                out.objects.skipped_events += skipped
            except PageError:
                _json_object(data, host, path)  # not JSON: the server and path, in Go's decoder words
                raise ClusterAccessError(f"{host}{path}: the answer is no list of {kind} objects") from None
            except StoredDecodeError as e:
                url = f"{host}{path}?{'&'.join(f'{k}={v}' for k, v in query)}"
                raise ClusterAccessError(f"{url}: {e}") from None
            items.extend(page)
            token = meta.get("continue") or ""
            remaining = meta.get("remainingItemCount")
            progress(kind, len(items), remaining if isinstance(remaining, int) else None, not token)
            if on_page is not None:
                on_page(kind, len(items))
            if not token:
                return kind, items, None

    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(list_kind, *r) for r in resources]
        try:
            results = [f.result() for f in futures]
        except BaseException:
            # The first failure ends the run: lists not yet started never start.
            for f in futures:
                f.cancel()
            raise
    for kind, items, error in results:
        if error is not None:
            code, _, message = error.partition(":")
            plural = next(p for k, _v, p in resources if k == kind).rsplit("/", 1)[-1]
            if code == "401":
                raise ClusterAccessError(f"the cluster at {host} refused the credentials (401 Unauthorized)")
            if kind in REQUIRED_KINDS:
                raise ClusterAccessError(f"cannot list {plural}: {message or 'HTTP ' + code} "
                                         f"(kschedx needs list on nodes and pods; see the README's RBAC)")
            if code == "403":
                what = _WITHOUT.get(kind, f"explained without {plural}")
                out.warnings.append(f"no permission to list {plural}: {what}")
            elif code == "404":
                out.warnings.append(f"the server does not serve {plural}; explained without them")
            else:
                out.warnings.append(f"listing {plural} failed ({message or 'HTTP ' + code}); explained without them")
            continue
        for item in items:
            if item.get("apiVersion") in OLD_DRA_VERSIONS:
                item = dra_to_v1(item)
                try:
                    item = decode_stored(item)
                except StoredDecodeError as e:
                    raise ClusterAccessError(f"{host}{next(p for k, _v, p in resources if k == kind)}: {e}") from None
            out.objects.add(item)
    out.objects.load_warnings.extend(merge_duplicates(sources))
    return out


def _json_object(data: bytes, host: str, path: str) -> Dict:
    """A response body that must be a JSON object; anything else is the server's fault
    (exit 3), said with Go's decoder words."""
    try:
        got = json.loads(data)
    except ValueError as e:
        raise ClusterAccessError(f"the server {host} answered GET {path} with a body that is not JSON "
                                 f"({go_json_error(data, e)})") from None
    if not isinstance(got, dict):
        raise ClusterAccessError(f"the server {host} answered GET {path} with JSON that is not an object") from None
    return got


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
    if mm is None or mm >= (1, 34):
        return RESOURCES
    return tuple((k, a.replace("/v1", "/v1beta1"), p.replace("resource.k8s.io/v1/", "resource.k8s.io/v1beta1/"))
                 if a == "resource.k8s.io/v1" else (k, a, p) for k, a, p in RESOURCES)

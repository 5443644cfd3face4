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
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from kschedx.core.api.objects import ClusterObjects
from kschedx.core.errors import ClusterAccessError, InputError
from kschedx.core.load.dra_versions import OLD_VERSIONS as OLD_DRA_VERSIONS
from kschedx.core.load.dra_versions import to_v1 as dra_to_v1
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
    except (ConfigException, OSError, ValueError, TypeError) as e:
        if kubeconfig and not any(os.path.exists(p) for p in kubeconfig.split(os.pathsep) if p):
            raise ClusterAccessError(f"$KUBECONFIG {kubeconfig}: no such file") from None
        if kubeconfig or context:
            where = f"kubeconfig {kubeconfig}" if kubeconfig else "kubeconfig"
            raise ClusterAccessError(f"{where}: {e}") from None
        try:
            config.load_incluster_config(client_configuration=cfg)  # type: ignore[no-untyped-call]
        except ConfigException:
            raise ClusterAccessError(
                f"no cluster to read: no kubeconfig ($KUBECONFIG, ~/.kube/config) and not inside a cluster ({e})"
            ) from None
    return client.ApiClient(cfg), cfg.host


def _status_message(body: Any) -> str:
    try:
        status = json.loads(body)
        return str(status.get("message") or "")
    except (TypeError, ValueError, AttributeError):
        return ""


def _get(api: Any, path: str, query: list[tuple[str, str]]) -> tuple[int, bytes]:
    """One GET through the client's own auth, TLS and proxy handling; (status, body).
    Clients from v30 on serialize the request first; older ones take it in call_api."""
    headers = {"Accept": "application/json"}
    if hasattr(api, "param_serialize"):
        method, url, hdrs, _body, _post = api.param_serialize(
            "GET", path, query_params=query, header_params=headers, auth_settings=["BearerToken"])
        resp = api.call_api(method, url, header_params=hdrs)
        resp.read()
        return int(resp.status), bytes(resp.data)
    resp = api.call_api(path, "GET", query_params=query, header_params=headers, auth_settings=["BearerToken"],
                        _preload_content=False, _return_http_data_only=True)
    return int(resp.status), bytes(resp.data)


def load_live(kubeconfig: str | None = None, context: str | None = None, page_size: int = PAGE_SIZE,
              workers: int = 4, on_page: Callable[[str, int], None] | None = None) -> LiveCluster:
    """List every kind the pipeline reads; see the module docstring for errors and warnings."""
    from kubernetes.client.exceptions import ApiException
    from urllib3.exceptions import HTTPError

    api, host = _api_client(kubeconfig, context)
    out = LiveCluster(ClusterObjects(), context=context, server=host)
    sources = Sources(out.objects)
    sources.begin(host or "the cluster")
    out.objects.server_version = _server_version(api)
    resources = _resources_for(out.objects.server_version)
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
        while True:
            query = [("limit", str(page_size))] + ([("continue", token)] if token else [])
            out.requests.append((path, "&".join(f"{k}={v}" for k, v in query)))
            try:
                status, data = _get(api, path, query)
            except ApiException as e:
                progress(kind, len(items), None, True)
                return kind, items, f"{e.status}:{_status_message(e.body) or e.reason}"
            if status >= 400:
                progress(kind, len(items), None, True)
                return kind, items, f"{status}:{_status_message(data)}"
            try:
                page, meta, skipped = decode_page(data, kind, api_version)
                out.objects.skipped_events += skipped
            except (StoredDecodeError, PageError) as e:
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

    try:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            results = list(pool.map(lambda r: list_kind(*r), resources))
    except HTTPError as e:
        raise ClusterAccessError(f"cannot reach the cluster at {host}: {e}") from None
    except OSError as e:
        raise ClusterAccessError(f"cannot reach the cluster at {host}: {e}") from None
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


def _server_version(api: Any) -> str | None:
    """The server's gitVersion (GET /version), None when it can't be read: the version
    is then inferred from the kubelets."""
    try:
        status, data = _get(api, "/version", [])
        if status >= 400:
            return None
        version = json.loads(data).get("gitVersion")
        return version if isinstance(version, str) and version else None
    except Exception:  # noqa: BLE001 - any failure only loses the hint
        return None


def _resources_for(server_version: str | None) -> tuple[tuple[str, str, str], ...]:
    """What to list: a v1.33 server serves resource.k8s.io as v1beta1/v1beta2 only (v1 came
    with v1.34), so its DRA kinds are listed as v1beta1 and converted on load."""
    from kschedx.core.versions import minor_of

    mm = minor_of(server_version or "")
    if mm is None or mm >= (1, 34):
        return RESOURCES
    return tuple((k, a.replace("/v1", "/v1beta1"), p.replace("resource.k8s.io/v1/", "resource.k8s.io/v1beta1/"))
                 if a == "resource.k8s.io/v1" else (k, a, p) for k, a, p in RESOURCES)

"""Single reads of a live cluster, read-only: one object by its API path (a reference such
as ``pod/NAME``), and the events of one pod (a list with a fieldSelector).

Uses the same client set-up as the listing (core.load.live); only GETs are sent.
"""

from __future__ import annotations

import json
from typing import Any

from kschedx.core.errors import ClusterAccessError, InputError
from kschedx.core.load.live import _api_client, _get, _status_message
from kschedx.core.load.references import Reference
from kschedx.core.load.stored import StoredDecodeError, decode_stored

Dict = dict[str, Any]


class LiveReader:
    """One API client for the run's single reads (the kubeconfig is read once)."""

    def __init__(self, kubeconfig: str | None, context: str | None) -> None:
        self.api, self.host = _api_client(kubeconfig, context)
        # Requests made: (path, query), for tests and --debug.
        self.requests: list[tuple[str, str]] = []
        self.skipped_events = 0  # Events that did not decode

    def _read(self, path: str, query: list[tuple[str, str]]) -> tuple[int, Dict]:
        from kubernetes.client.exceptions import ApiException
        from urllib3.exceptions import HTTPError

        self.requests.append((path, "&".join(f"{k}={v}" for k, v in query)))
        try:
            status, data = _get(self.api, path, query)
            body: str | bytes = data
        except ApiException as e:
            status, body = int(e.status or 0), e.body or b""
        except (HTTPError, OSError) as e:
            raise ClusterAccessError(f"cannot reach the cluster at {self.host}: {e}") from None
        if status == 401:
            raise ClusterAccessError(f"the cluster at {self.host} refused the credentials (401 Unauthorized)")
        if status >= 400:
            return status, {"message": _status_message(body)}
        try:
            got = json.loads(body)
        except ValueError:
            raise ClusterAccessError(f"the cluster at {self.host} answered {path} with something that is not JSON") \
                from None
        return status, got if isinstance(got, dict) else {}

    def get(self, ref: Reference, namespace: str) -> Dict:
        """The object ``ref`` names (one GET of its API path)."""
        path = ref.kind.path(namespace, ref.name)
        status, obj = self._read(path, [])
        if status == 404:
            raise InputError(f'{ref}: {ref.kind.qualified} "{ref.name}" not found in namespace "{namespace}" '
                             f"of the live cluster")
        if status >= 400:
            raise ClusterAccessError(f"cannot get {ref.kind.qualified} {namespace}/{ref.name}: "
                                     f"{obj.get('message') or 'HTTP ' + str(status)}")
        obj.setdefault("kind", ref.kind.kind)
        obj.setdefault("apiVersion", ref.kind.group_version)
        try:
            return decode_stored(obj)
        except StoredDecodeError as e:
            raise ClusterAccessError(f"{self.host}{path}: {e}") from None

    def pod_events(self, namespace: str, name: str) -> list[Dict]:
        """The events of one pod (a list filtered by the server); [] when not allowed."""
        selector = f"involvedObject.kind=Pod,involvedObject.name={name}"
        status, page = self._read(f"/api/v1/namespaces/{namespace}/events", [("fieldSelector", selector)])
        if status >= 400:
            return []
        items = []
        for item in page.get("items") or []:
            if isinstance(item, dict):
                item.setdefault("kind", "Event")
                item.setdefault("apiVersion", "v1")
                try:
                    items.append(decode_stored(item))
                except StoredDecodeError:
                    self.skipped_events += 1  # only `pending` reads Events: left out, noted once
        return items

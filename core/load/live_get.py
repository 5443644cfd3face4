"""Single reads of a live cluster, read-only: one object by its API path (a reference such
as ``pod/NAME``).

Uses the same client set-up as the listing (core.load.live); only GETs are sent, each
bounded in time like the listing's.
"""

from __future__ import annotations

from typing import Any

from kschedx.core.errors import ClusterAccessError, InputError
from kschedx.core.load.live import _status_message
from kschedx.core.load.live_http import Connection, get
from kschedx.core.load.live_pages import json_object as _json_object
from kschedx.core.load.references import Reference
from kschedx.core.load.stored import StoredDecodeError, decode_stored

Dict = dict[str, Any]


class LiveReader:
    """The run's single reads, through its connection (core.load.live.connect)."""

    def __init__(self, connection: Connection) -> None:
        self.conn = connection
        self.host = connection.server
        # Requests made: (path, query), for tests and --debug.
        self.requests: list[tuple[str, str]] = []

    def _read(self, path: str, query: list[tuple[str, str]]) -> tuple[int, Dict]:
        self.requests.append((path, "&".join(f"{k}={v}" for k, v in query)))
        status, body = get(self.conn, path, query)
        if status == 401:
            raise ClusterAccessError(f"the cluster at {self.host} refused the credentials (401 Unauthorized)")
        if status >= 400:
            return status, {"message": _status_message(body)}
        return status, _json_object(body, self.host, path)

    def names(self, path: str, limit: int = 500) -> list[str]:
        """The names of the first ``limit`` objects a list path holds (shell completion: one
        bounded page, as kubectl's completion lists what it completes)."""
        status, body = self._read(path, [("limit", str(limit))])
        if status >= 400:
            return []
        items = body.get("items")
        return sorted(str((i.get("metadata") or {}).get("name") or "") for i in items
                      if isinstance(i, dict)) if isinstance(items, list) else []

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

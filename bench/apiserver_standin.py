#!/usr/bin/env python3
"""A stand-in for a Kubernetes API server: the pages of a cluster dump, served at a fixed rate.

    python bench/apiserver_standin.py bench/data/cluster-1000.json --rate 40 --certs DIR

For the live-read benchmark (bench/bench_live.py): each kind of the dump is cut into the
pages a real API server answers a paginated list with (``limit`` / ``continue``, items
without kind and apiVersion, compact JSON, a managedFields entry on each object as real
servers return them), recorded once as bytes; the pages are then sent over HTTPS at
``--rate`` MB/s for all connections together, as a server whose own delivery speed is
fixed. It answers GETs only, on 127.0.0.1 only, accepts any bearer token, and stops after
``--lifetime`` seconds. It prints its URL on the first line of stdout once it listens.
"""

from __future__ import annotations

import argparse
import json
import ssl
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

from kschedx.core.load.live import FAILED_SCHEDULING, RESOURCES

_CHUNK = 1 << 16
# What the API server records of the last writers of an object (``kubectl get -o json``
# shows it): about 1 KB per pod.
MANAGED_FIELDS = [
    {"manager": "kube-controller-manager", "operation": "Update", "apiVersion": "v1",
     "time": "2026-10-01T08:00:00Z", "fieldsType": "FieldsV1",
     "fieldsV1": {"f:metadata": {"f:generateName": {}, "f:labels": {".": {}, "f:app": {}, "f:pod-template-hash": {}},
                                 "f:ownerReferences": {".": {}, "k:{\"uid\":\"0\"}": {}}},
                  "f:spec": {"f:containers": {"k:{\"name\":\"app\"}": {".": {}, "f:image": {}, "f:name": {},
                                                                       "f:resources": {".": {}, "f:requests": {}}}},
                             "f:dnsPolicy": {}, "f:restartPolicy": {}, "f:schedulerName": {}}}},
    {"manager": "kubelet", "operation": "Update", "apiVersion": "v1", "time": "2026-10-01T08:00:05Z",
     "fieldsType": "FieldsV1", "subresource": "status",
     "fieldsV1": {"f:status": {"f:conditions": {"k:{\"type\":\"Ready\"}": {".": {}, "f:status": {}, "f:type": {}}},
                               "f:containerStatuses": {}, "f:hostIP": {}, "f:phase": {}, "f:podIP": {},
                               "f:startTime": {}}}},
]


class RateLimit:
    """Bytes leave at ``rate`` bytes per second, whatever the number of connections."""

    def __init__(self, rate: float) -> None:
        self.rate = rate
        self.lock = threading.Lock()
        self.free_at = 0.0

    def wait(self, n: int) -> None:
        with self.lock:
            now = time.monotonic()
            self.free_at = max(self.free_at, now) + n / self.rate
            until = self.free_at
        time.sleep(max(0.0, until - time.monotonic()))


def record_pages(dump: Path, page_size: int) -> dict[tuple[str, str], bytes]:
    """(collection path, continue token) -> the page's bytes, for every kind the dump has."""
    doc = json.loads(dump.read_bytes())
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for o in doc.get("items") or []:
        by_kind.setdefault(o.get("kind", ""), []).append(o)
    pages: dict[tuple[str, str], bytes] = {}
    for kind, api_version, path in (*RESOURCES, FAILED_SCHEDULING):
        objs = by_kind.get(kind, [])
        for start in range(0, max(len(objs), 1), page_size):
            items = []
            for o in objs[start:start + page_size]:
                item = {k: v for k, v in o.items() if k not in ("kind", "apiVersion")}
                item["metadata"] = dict(item.get("metadata") or {}, managedFields=MANAGED_FIELDS)
                items.append(item)
            meta: dict[str, Any] = {"resourceVersion": "424242"}
            if start + page_size < len(objs):
                meta["continue"] = f"page-{start + page_size}"
                meta["remainingItemCount"] = len(objs) - start - page_size
            body = {"kind": f"{kind}List", "apiVersion": api_version, "metadata": meta, "items": items}
            pages[(path, "" if start == 0 else f"page-{start}")] = json.dumps(body, separators=(",", ":")).encode()
    return pages


def serve(pages: dict[tuple[str, str], bytes], limit: RateLimit, certs: Path, version: str) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as the API server

        def log_message(self, *args: Any) -> None:
            pass

        def _send(self, code: int, body: bytes) -> None:
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            for i in range(0, len(body), _CHUNK):
                piece = body[i:i + _CHUNK]
                limit.wait(len(piece))
                self.wfile.write(piece)

        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            url = urlparse(self.path)
            query = parse_qs(url.query)
            if url.path == "/version":
                self._send(200, json.dumps({"major": "1", "minor": version.split(".")[1],
                                            "gitVersion": version}).encode())
                return
            page = pages.get((url.path, (query.get("continue") or [""])[0]))
            if page is None:
                self._send(404, json.dumps({"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": 404,
                                            "reason": "NotFound", "message": "not found"}).encode())
                return
            self._send(200, page)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(str(certs / "srv.crt"), str(certs / "srv.key"))
    httpd.socket = ctx.wrap_socket(httpd.socket, server_side=True)
    return httpd


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dump", type=Path)
    ap.add_argument("--rate", type=float, default=40.0, help="MB/s for all connections together")
    ap.add_argument("--certs", type=Path, required=True, help="directory with srv.crt and srv.key for 127.0.0.1")
    ap.add_argument("--page-size", type=int, default=500)
    ap.add_argument("--version", default="v1.35.4")
    ap.add_argument("--lifetime", type=float, default=900.0, help="seconds before the server stops on its own")
    args = ap.parse_args()
    pages = record_pages(args.dump, args.page_size)
    httpd = serve(pages, RateLimit(args.rate * 1e6), args.certs, args.version)
    total = sum(len(p) for p in pages.values())
    print(f"https://127.0.0.1:{httpd.server_address[1]} {total}", flush=True)
    threading.Timer(args.lifetime, httpd.shutdown).start()
    httpd.serve_forever()


if __name__ == "__main__":
    main()

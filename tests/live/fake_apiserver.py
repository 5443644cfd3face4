"""A tiny HTTPS server speaking the Kubernetes list API, for the live-cluster tests.

It serves the objects of a cluster dump under the real collection paths with limit /
continue pagination, resourceVersion, bearer-token auth (401 with a Status body), and 403
Status bodies for the resources a test forbids; single objects under their own paths
(``/api/v1/namespaces/NS/pods/NAME``, ``/apis/apps/v1/namespaces/NS/deployments/NAME``),
a namespace's events filtered by an ``involvedObject`` fieldSelector, and the cluster-wide
events list filtered by any ``a.b=v`` fieldSelector (``reason=FailedScheduling``). Every
request's method is logged (anything but GET is refused), so tests can prove kschedx only
reads. It listens on 127.0.0.1 only, with a certificate from a CA the tests generate.

:class:`MisbehavingServer` is the server that does not answer properly: it accepts and
never answers, closes at once, answers bytes that are not HTTP (or not TLS), stalls after
the TLS handshake, or answers 200 with a body that is not JSON — over http or https.
"""

from __future__ import annotations

import json
import socket
import ssl
import subprocess
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

from kschedx.core.load.live import RESOURCES


def make_certs(d: Path) -> tuple[Path, Path, Path]:
    """A CA and a server certificate for 127.0.0.1 (openssl CLI)."""
    def run(*args: str) -> None:
        subprocess.run(["openssl", *args], cwd=d, check=True, capture_output=True)

    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.crt", "-days", "1",
        "-subj", "/CN=kschedx-test-ca")
    run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "srv.key", "-out", "srv.csr", "-subj", "/CN=127.0.0.1")
    (d / "san.cnf").write_text("subjectAltName=IP:127.0.0.1\n")
    run("x509", "-req", "-in", "srv.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-out", "srv.crt",
        "-days", "1", "-extfile", "san.cnf")
    return d / "ca.crt", d / "srv.crt", d / "srv.key"


def _status(code: int, reason: str, message: str) -> dict[str, Any]:
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message,
            "reason": reason, "code": code}


def _selected(obj: dict[str, Any], query: dict[str, list[str]]) -> bool:
    """Whether ``obj`` passes the request's fieldSelector (``a.b=v`` terms, all of them)."""
    for term in (query.get("fieldSelector") or [""])[0].split(","):
        if "=" not in term:
            continue
        path, value = term.split("=", 1)
        got: Any = obj
        for key in path.split("."):
            got = got.get(key) if isinstance(got, dict) else None
        if got != value:
            return False
    return True


class FakeAPIServer:
    def __init__(self, objects: list[dict[str, Any]], certs: tuple[Path, Path, Path], token: str = "good-token") -> None:
        self.token = token
        self.forbidden: set[str] = set()
        self.missing: set[str] = set()
        # Bodies answered (200) for these collection paths instead of their pages, as recorded.
        self.raw: dict[str, bytes] = {}
        self.requests: list[tuple[str, dict[str, list[str]]]] = []
        self.methods: list[str] = []
        self.objects = list(objects)
        # What GET /version answers (None: 404, as from a server that hides it).
        self.git_version: str | None = "v1.35.4"
        by_kind: dict[str, list[dict[str, Any]]] = {}
        for o in objects:
            by_kind.setdefault(o.get("kind", ""), []).append(o)
        self.collections = {path: (kind, by_kind.get(kind, [])) for kind, _v, path in RESOURCES}
        self.collections["/api/v1/events"] = ("Event", by_kind.get("Event", []))
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def _send(self, code: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _refuse(self) -> None:
                server.methods.append(self.command)
                self._send(405, _status(405, "MethodNotAllowed", "the fake API server only reads"))

            do_POST = do_PUT = do_PATCH = do_DELETE = _refuse  # noqa: N815

            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                url = urlparse(self.path)
                query = parse_qs(url.query)
                server.requests.append((url.path, query))
                server.methods.append("GET")
                if self.headers.get("Authorization") != f"Bearer {server.token}":
                    self._send(401, _status(401, "Unauthorized", "Unauthorized"))
                    return
                single = server.namespaced(url.path, query)
                if single is not None:
                    self._send(*single)
                    return
                if url.path == "/version" and server.git_version:
                    self._send(200, {"major": "1", "minor": server.git_version.split(".")[1],
                                     "gitVersion": server.git_version})
                    return
                if url.path in server.raw:
                    data = server.raw[url.path]
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                    return
                if url.path not in server.collections or url.path in server.missing:
                    self._send(404, _status(404, "NotFound", "the server could not find the requested resource"))
                    return
                kind, items = server.collections[url.path]
                items = [o for o in items if _selected(o, query)]
                plural = url.path.rsplit("/", 1)[-1]
                if plural in server.forbidden:
                    self._send(403, _status(403, "Forbidden", f'{plural} is forbidden: User "test" cannot list '
                                            f'resource "{plural}" at the cluster scope'))
                    return
                limit = int(query.get("limit", ["0"])[0] or 0) or len(items) or 1
                start = int(query.get("continue", ["0"])[0] or 0)
                page = items[start:start + limit]
                nxt = start + limit
                meta: dict[str, Any] = {"resourceVersion": "12345"}
                if nxt < len(items):
                    meta["continue"] = str(nxt)
                list_items = [{k: v for k, v in o.items() if k not in ("kind", "apiVersion")} for o in page]
                self._send(200, {"kind": f"{kind}List", "apiVersion": "v1", "metadata": meta, "items": list_items})

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(str(certs[1]), str(certs[2]))
        self.httpd.socket = ctx.wrap_socket(self.httpd.socket, server_side=True)
        self.url = f"https://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02},
                                       daemon=True)  # shutdown() waits a poll: 0.5 s by default

    def namespaced(self, path: str, query: dict[str, list[str]]) -> tuple[int, dict[str, Any]] | None:
        """A GET of one object, or a namespace's events list; None for other paths."""
        parts = path.strip("/").split("/")
        # api/v1/namespaces/NS/PLURAL[/NAME] or apis/GROUP/VERSION/namespaces/NS/PLURAL[/NAME]
        rest = parts[2:] if parts[:1] == ["api"] else parts[3:]
        if len(rest) < 3 or rest[0] != "namespaces":
            return None
        ns, plural = rest[1], rest[2]
        kind_of = {o.get("kind", "").lower() + "s": o.get("kind", "") for o in self.objects}
        if len(rest) == 3 and plural == "events":
            wanted = dict(f.split("=", 1) for f in (query.get("fieldSelector") or [""])[0].split(",") if "=" in f)
            items = [e for e in self.objects if e.get("kind") == "Event"
                     and (e.get("metadata") or {}).get("namespace") == ns
                     and all((e.get("involvedObject") or {}).get(k.split(".", 1)[1]) == v for k, v in wanted.items())]
            return 200, {"kind": "EventList", "apiVersion": "v1", "metadata": {"resourceVersion": "12345"},
                         "items": [{k: v for k, v in e.items() if k not in ("kind", "apiVersion")} for e in items]}
        if len(rest) == 3 and plural in kind_of:
            # A namespace's list (shell completion asks for one page of it).
            items = [o for o in self.objects if o.get("kind") == kind_of[plural]
                     and ((o.get("metadata") or {}).get("namespace") or "default") == ns]
            limit = int(query.get("limit", ["0"])[0] or 0) or len(items) or 1
            return 200, {"kind": f"{kind_of[plural]}List", "apiVersion": "v1", "metadata": {"resourceVersion": "1"},
                         "items": [{k: v for k, v in o.items() if k not in ("kind", "apiVersion")}
                                   for o in items[:limit]]}
        if len(rest) != 4:
            return None
        name = rest[3]
        for o in self.objects:
            meta = o.get("metadata") or {}
            if kind_of.get(plural) == o.get("kind") and meta.get("name") == name and meta.get("namespace") == ns:
                return 200, o
        return 404, _status(404, "NotFound", f'{plural} "{name}" not found')

    def __enter__(self) -> FakeAPIServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class MisbehavingServer:
    """A server on 127.0.0.1 that misbehaves in one way (``mode``), over https when ``certs``
    are given: ``stall`` accepts and never answers (over https: never completes the TLS
    handshake), ``stall-headers`` completes the handshake and reads the request but never
    answers, ``stall-body`` sends the headers of a 200 and then nothing, ``close`` closes each
    connection at once, ``garbage`` answers bytes that are neither HTTP nor TLS, ``not-json``
    answers 200 with a body that is not JSON, ``endless`` answers 200 with a body that never
ends (for at most 20 s). Connections are held until the server stops."""

    def __init__(self, mode: str, certs: tuple[Path, Path, Path] | None = None) -> None:
        self.mode = mode
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.tls: ssl.SSLContext | None = None
        if certs is not None:
            self.tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            self.tls.load_cert_chain(str(certs[1]), str(certs[2]))
        self.url = f"{'https' if certs else 'http'}://127.0.0.1:{self.sock.getsockname()[1]}"
        self.accepted = 0
        self.held: list[socket.socket] = []
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self) -> None:
        while not self.stopping.is_set():
            try:
                conn, _addr = self.sock.accept()
            except (TimeoutError, OSError):
                continue
            self.accepted += 1
            self.held.append(conn)
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn: socket.socket) -> None:
        try:
            if self.mode == "stall":
                return  # never a byte, never a handshake
            if self.mode == "close":
                conn.close()
                return
            if self.mode == "garbage":
                conn.sendall(b"garbage, not a protocol\r\n\r\n")
                conn.close()
                return
            if self.tls is not None:
                conn.settimeout(5)
                conn = self.tls.wrap_socket(conn, server_side=True)
                self.held.append(conn)
            conn.settimeout(5)
            conn.recv(65536)  # the request
            if self.mode == "stall-headers":
                return
            if self.mode == "endless":
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n[")
                chunk = b"0," * 32768
                deadline = time.monotonic() + 20  # bounded: the test's client gives up long before
                while not self.stopping.is_set() and time.monotonic() < deadline:
                    conn.sendall(chunk)
                return
            if self.mode == "stall-body":
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
                return
            body = b"<html>garbage</html>"
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n"
                         b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
            conn.close()
        except OSError:
            pass

    def __enter__(self) -> MisbehavingServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stopping.set()
        self.thread.join()
        for conn in self.held:
            try:
                conn.close()
            except OSError:
                pass
        self.sock.close()

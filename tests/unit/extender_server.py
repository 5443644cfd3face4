"""A scheduler extender for tests: an HTTP server on 127.0.0.1 (loopback only) whose
verbs answer from Python functions, recording every request it receives."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

# A verb's handler: the decoded request body -> (HTTP status, JSON answer).
Handler = Callable[[Any], tuple[int, Any]]


class ExtenderServer:
    def __init__(self, verbs: dict[str, Handler]) -> None:
        self.verbs = verbs
        self.requests: list[tuple[str, Any]] = []
        server = self

        class _H(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"null")
                verb = self.path.rsplit("/", 1)[-1]
                server.requests.append((self.path, body))
                handler = server.verbs.get(verb)
                status, answer = handler(body) if handler else (404, {"error": "no such verb"})
                data = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), _H)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/scheduler"
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    def paths(self) -> list[str]:
        return [p for p, _ in self.requests]


@contextmanager
def extender(verbs: dict[str, Handler]) -> Iterator[ExtenderServer]:
    srv = ExtenderServer(verbs)
    srv.thread.start()
    try:
        yield srv
    finally:
        srv.httpd.shutdown()
        srv.httpd.server_close()


def closed_port_url() -> str:
    """A loopback URL nothing listens on."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return f"http://127.0.0.1:{port}/scheduler"


def node_names(body: Any) -> list[str]:
    """The candidate node names of a request, whichever dialect and form it uses."""
    for key in ("NodeNames", "nodenames"):
        if body.get(key) is not None:
            return list(body[key])
    for key in ("Nodes", "nodes"):
        if body.get(key) is not None:
            return [n["metadata"]["name"] for n in body[key]["items"]]
    return []

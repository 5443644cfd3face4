"""One GET to the live API server, bounded in time, failing in kubectl's words.

kubectl's ``--request-timeout`` bounds each request (connection, TLS handshake, headers
and body); kschedx takes the same flag with the same syntax and, unlike kubectl, bounds
requests by default (:data:`DEFAULT_REQUEST_TIMEOUT`) so that a server that accepts and
never answers cannot hang a CI job. A failure to reach the server is reported as kubectl
reports it (``The connection to the server HOST was refused - did you specify the right
host or port?``, ``Unable to connect to the server: ...`` with Go's words for the cause),
never in urllib3's. Exec credential plugins run under the same bound and fail as client-go's
do (``getting credentials: exec: executable X failed with exit code N``). The client
library's own log lines and warnings are silenced: kschedx reports every failure itself.
"""

from __future__ import annotations

import json
import logging
import re
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from kschedx.core.errors import ClusterAccessError, InputError

# kschedx asks for pages of 500 objects, which a healthy API server answers in a second or
# two even on the largest clusters: 30s only ever cuts off a server that is stalled, and a
# stalled server ends the run after that long instead of hanging it. (The server cuts its
# own requests at 1m: a busy one can be given up to that with --request-timeout.)
DEFAULT_REQUEST_TIMEOUT = 30.0
# Connecting — TCP and the TLS handshake — gets client-go's TLS handshake bound, 10s, as it
# does under kubectl whatever --request-timeout says (a smaller one wins).
CONNECT_TIMEOUT = 10.0
# Bodies are read in pieces so that the request's deadline holds for a slow trickle too.
_CHUNK = 1 << 16

_TIMEOUT_SYNTAX = ("Invalid timeout value. Timeout must be a single integer in seconds, or an integer followed by "
                   "a corresponding time unit (e.g. 1s | 2m | 3h)")
# Go's time.ParseDuration units, in seconds.
_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
_PART = re.compile(r"(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)")


def parse_request_timeout(value: str | None) -> float | None:
    """``--request-timeout`` as kubectl reads it: a whole number of seconds, or a Go
    duration (``1s``, ``2m``, ``1m30s``, ``500ms``); ``0`` means no timeout (None). Not
    given: :data:`DEFAULT_REQUEST_TIMEOUT`."""
    if value is None:
        return DEFAULT_REQUEST_TIMEOUT
    text = value.strip()
    if text.isdigit():
        seconds = float(int(text))
    else:
        body = text[1:] if text.startswith("+") else text
        parts = _PART.findall(body)
        if body == "0":
            parts = [("0", "s")]
        elif not parts or "".join(n + u for n, u in parts) != body:
            raise InputError(f"--request-timeout {value!r}: {_TIMEOUT_SYNTAX}")
        seconds = sum(float(n) * _UNITS[u] for n, u in parts)
    return seconds if seconds > 0 else None


@dataclass
class Connection:
    """The client of one run: the kubernetes ApiClient (auth, TLS, proxy from the
    kubeconfig), the server's URL and the bound on each request (None: none)."""

    api: Any
    server: str
    timeout: float | None = DEFAULT_REQUEST_TIMEOUT


def server_address(server: str) -> str:
    """HOST[:PORT] of the server's URL, as kubectl names it in its messages."""
    return urlsplit(server).netloc or server


def unreachable(detail: str) -> ClusterAccessError:
    return ClusterAccessError(f"Unable to connect to the server: {detail}", hint=False)


# --------------------------------------------------------------------------- quiet client


def quiet_client() -> None:
    """No log lines or warnings from the client library and urllib3: the kubeconfig loader
    logs exec failures on the root logger (which Python then prints as ``ERROR:root:...``),
    urllib3 warns about unverified TLS, which kubectl does not."""
    root = logging.getLogger()
    if not root.handlers:
        # logging.error() configures a stderr handler on a root logger that has none.
        root.addHandler(logging.NullHandler())
    for name in ("kubernetes", "urllib3"):
        logger = logging.getLogger(name)
        if not logger.handlers:
            logger.addHandler(logging.NullHandler())
        logger.propagate = False
    import warnings

    import urllib3

    warnings.filterwarnings("ignore", category=urllib3.exceptions.InsecureRequestWarning)


# --------------------------------------------------------------------------- exec plugins


class ExecCredentialFailed(BaseException):
    """An exec credential plugin failed. A BaseException because the client's kubeconfig
    loader turns every Exception of a plugin into a log line and goes on without
    credentials; this one must reach kschedx to be reported."""


def install_exec_plugin_runner(timeout: float | None) -> None:
    """Make the client run exec credential plugins kschedx's way: bounded by ``timeout``
    (unless a person may be answering its prompts), failures in client-go's words."""
    from kubernetes.config import kube_config
    from kubernetes.config.exec_provider import ExecProvider

    # The client is not read by mypy (pyproject.toml): its classes are Any here.
    class BoundedExecProvider(ExecProvider):  # type: ignore[misc]
        def __init__(self, exec_config: Any, cwd: Any, cluster: Any = None) -> None:
            super().__init__(exec_config, cwd, cluster)
            self.interactive_mode = exec_config.safe_get("interactiveMode") or "IfAvailable"
            self.install_hint = exec_config.safe_get("installHint") or ""

        def run(self, previous_response: Any = None) -> Any:
            return run_exec_plugin(self, timeout)

    # The loader looks the class up in its module at each use.
    setattr(kube_config, "ExecProvider", BoundedExecProvider)  # noqa: B010


def run_exec_plugin(provider: Any, timeout: float | None) -> dict[str, Any]:
    """Run one exec credential plugin (client.authentication.k8s.io) and return its status.
    ``provider`` holds what the kubeconfig says: args, env, cwd, apiVersion, cluster."""
    command = provider.args[0]
    interactive = provider.interactive_mode != "Never" and _stdin_is_terminal()
    spec: dict[str, Any] = {"interactive": interactive}
    if provider.cluster is not None:  # provideClusterInfo
        cluster = dict(provider.cluster.value)
        for ext in cluster.get("extensions") or []:
            if isinstance(ext, dict) and ext.get("name") == "client.authentication.k8s.io/exec":
                cluster["config"] = ext.get("extension")
        spec["cluster"] = cluster
    env = dict(provider.env)
    env["KUBERNETES_EXEC_INFO"] = json.dumps({"apiVersion": provider.api_version, "kind": "ExecCredential",
                                              "spec": spec})
    try:
        proc = subprocess.Popen(provider.args, stdout=subprocess.PIPE, stdin=None if interactive else
                                subprocess.DEVNULL, cwd=provider.cwd, env=env)
    except FileNotFoundError:
        # kubectl follows this with the kubeconfig's installHint: here on the same line.
        hint = " ".join(str(provider.install_hint).split())
        raise ExecCredentialFailed(f"exec: executable {command} not found" + (f" ({hint})" if hint else "")) \
            from None
    except OSError as e:
        raise ExecCredentialFailed(f"exec: {e.strerror or e}") from None
    try:
        # A plugin that may be prompting a person is theirs to end (Ctrl-C).
        out, _ = proc.communicate(timeout=None if interactive else timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise ExecCredentialFailed(f"exec: executable {command} did not finish within {_seconds(timeout)} "
                                   "(--request-timeout)") from None
    if proc.returncode != 0:
        # Go reports -1 for a process ended by a signal.
        code = proc.returncode if proc.returncode > 0 else -1
        raise ExecCredentialFailed(f"exec: executable {command} failed with exit code {code}")
    try:
        cred = json.loads(out)
    except ValueError as e:
        raise ExecCredentialFailed(f"decoding stdout: {go_json_error(out, e)}") from None
    if not isinstance(cred, dict):
        raise ExecCredentialFailed("decoding stdout: not an ExecCredential object")
    if cred.get("apiVersion") != provider.api_version:
        raise ExecCredentialFailed(f"exec plugin is configured to use API version {provider.api_version}, "
                                   f"plugin returned version {cred.get('apiVersion')}")
    status = cred.get("status")
    if not isinstance(status, dict):
        raise ExecCredentialFailed("exec plugin didn't return a status field")
    if not status.get("token") and not (status.get("clientCertificateData") and status.get("clientKeyData")):
        raise ExecCredentialFailed("exec plugin didn't return a token or cert/key pair")
    return status


def go_json_error(data: bytes, e: ValueError) -> str:
    """What Go's encoding/json says of a body that does not decode (the common cases), for
    messages in kubectl's words rather than Python's."""
    text = data.decode("utf-8", "replace")
    pos = e.pos if isinstance(e, json.JSONDecodeError) else 0
    if pos >= len(text.rstrip()):
        return "unexpected end of JSON input"
    where = "looking for beginning of value" if not text[:pos].strip() else f"at offset {pos}"
    return f"invalid character {text[pos]!r} {where}"


def _stdin_is_terminal() -> bool:
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except (AttributeError, ValueError):
        return False


def _seconds(timeout: float | None) -> str:
    return f"{timeout:g}s" if timeout is not None else "the time allowed"


# --------------------------------------------------------------------------- GET


def get(conn: Connection, path: str, query: list[tuple[str, str]]) -> tuple[int, bytes]:
    """One GET through the client's auth, TLS and proxy handling: (status, body). Bounded by
    ``conn.timeout`` from the first byte sent to the last byte read; never retried. A
    failure to reach the server or to get credentials is a ClusterAccessError in kubectl's
    words."""
    import urllib3
    from kubernetes.client.exceptions import ApiException

    deadline = time.monotonic() + conn.timeout if conn.timeout is not None else None
    timeout = urllib3.Timeout(connect=min(conn.timeout, CONNECT_TIMEOUT), total=conn.timeout) \
        if conn.timeout is not None else urllib3.Timeout(connect=CONNECT_TIMEOUT, read=None)
    headers = {"Accept": "application/json"}
    api = conn.api
    try:
        if hasattr(api, "param_serialize"):
            # Clients from v30 on: the request is serialized first (auth headers included).
            _m, url, hdrs, _b, _p = api.param_serialize("GET", path, query_params=query, header_params=headers,
                                                       auth_settings=["BearerToken"])
            resp = api.rest_client.pool_manager.request("GET", url, headers=hdrs, timeout=timeout,
                                                        preload_content=False, retries=False)
        else:
            bound = (min(conn.timeout, CONNECT_TIMEOUT), conn.timeout) if conn.timeout is not None else None
            resp = api.call_api(path, "GET", query_params=query, header_params=headers,
                                auth_settings=["BearerToken"], _preload_content=False,
                                _return_http_data_only=True, _request_timeout=bound)
        return int(resp.status), _read_body(resp, deadline)
    except ExecCredentialFailed as e:
        raise unreachable(f"getting credentials: {e}") from None
    except ApiException as e:
        if not e.status:  # the client's wrapping of a transport failure (TLS)
            raise unreachable_for(conn.server, e) from None
        # Clients before v30 raise an HTTP error status instead of returning it.
        body = e.body or b""
        return int(e.status), body.encode() if isinstance(body, str) else bytes(body)
    except _BodyTooLarge:
        raise ClusterAccessError(f"the server {server_address(conn.server)} answered GET {path} with a body larger "
                                 f"than {MAX_RESPONSE >> 20} MiB: no list page is that large", hint=False) from None
    except (urllib3.exceptions.HTTPError, OSError, _BodyTimeout, _BodyCut) as e:
        raise unreachable_for(conn.server, e) from None


# The largest answer kschedx takes from the server: a page of 500 objects is at most 500
# times etcd's 1.5 MiB object limit (750 MiB); a body past this bound is no list page (a
# misbehaving server or proxy streaming without end) and would only exhaust memory.
MAX_RESPONSE = 1 << 30


def _read_body(resp: Any, deadline: float | None) -> bytes:
    from urllib3 import exceptions as u3

    chunks = []
    size = 0
    try:
        while True:
            if deadline is not None and time.monotonic() > deadline:
                raise _BodyTimeout
            chunk = resp.read(_CHUNK)
            if not chunk:
                break
            size += len(chunk)
            if size > MAX_RESPONSE:
                raise _BodyTooLarge
            chunks.append(chunk)
    except (u3.ReadTimeoutError, TimeoutError):
        raise _BodyTimeout from None
    except (u3.ProtocolError, OSError):
        raise _BodyCut from None
    finally:
        resp.release_conn()
    return b"".join(chunks)


class _BodyTooLarge(Exception):
    """The body grew past MAX_RESPONSE."""


class _BodyCut(Exception):
    """The connection ended before the body did."""


class _BodyTimeout(Exception):
    """The request's deadline passed while its body was still arriving."""


def unreachable_for(server: str, error: BaseException) -> ClusterAccessError:
    """A transport failure in the words kubectl prints for it (Go's net/http, net and tls
    errors)."""
    import ssl

    from kubernetes.client.exceptions import ApiException
    from urllib3 import exceptions as u3

    chain = _chain(error)
    address = server_address(server)
    text = " ".join(str(e) for e in chain)
    if any(isinstance(e, ConnectionRefusedError) for e in chain):
        return ClusterAccessError(f"The connection to the server {address} was refused - "
                                  "did you specify the right host or port?", hint=False)
    if any(isinstance(e, (u3.NameResolutionError, socket.gaierror)) for e in chain):
        return unreachable(f"dial tcp: lookup {urlsplit(server).hostname}: no such host")
    if isinstance(error, _BodyTimeout):
        return unreachable("net/http: request canceled (Client.Timeout or context cancellation while "
                                   "reading body)")
    if isinstance(error, _BodyCut):
        return unreachable("unexpected EOF")
    if "handshake operation timed out" in text:
        return unreachable("net/http: TLS handshake timeout")
    if any(isinstance(e, u3.ConnectTimeoutError) for e in chain):
        return unreachable(f"dial tcp {address}: i/o timeout")
    if any(isinstance(e, (u3.ReadTimeoutError, TimeoutError, socket.timeout)) for e in chain):
        return unreachable("net/http: request canceled (Client.Timeout exceeded while awaiting headers)")
    bad_status = next((e for e in chain if type(e).__name__ == "BadStatusLine"), None)
    if bad_status is not None:
        first = str(bad_status).strip().splitlines()[0] if str(bad_status).strip() else ""
        return unreachable(f'net/http: HTTP/1.x transport connection broken: malformed HTTP response '
                                   f'{json.dumps(first)}')
    if any(isinstance(e, (u3.SSLError, ssl.SSLError)) for e in chain) or \
            (isinstance(error, ApiException) and str(error.reason or "").startswith("SSLError")):
        return unreachable(_tls_words(text, urlsplit(server).hostname or address))
    if any(isinstance(e, (u3.ProtocolError, ConnectionError, EOFError)) for e in chain):
        return unreachable("EOF")
    innermost = chain[-1]
    return unreachable(str(innermost) or type(innermost).__name__)


def _tls_words(text: str, host: str) -> str:
    if "certificate verify failed" in text or "CERTIFICATE_VERIFY_FAILED" in text:
        if "mismatch" in text or "not valid for" in text:
            return f"tls: failed to verify certificate: x509: certificate is not valid for {host}"
        if "expired" in text:
            return "tls: failed to verify certificate: x509: certificate has expired or is not yet valid"
        return "tls: failed to verify certificate: x509: certificate signed by unknown authority"
    if "WRONG_VERSION_NUMBER" in text or "wrong version number" in text or "record layer failure" in text \
            or "packet length too long" in text or "unknown protocol" in text:
        return "tls: first record does not look like a TLS handshake"
    if "EOF" in text or "UNEXPECTED_EOF" in text:
        return "EOF"
    reason = re.sub(r"\s*\(_ssl\.c:\d+\)", "", text.split("] ", 1)[-1]).strip()
    return f"tls: {reason}"


def _chain(error: BaseException) -> list[BaseException]:
    """The error, what caused it and what it wraps (urllib3's ``reason``), outermost first."""
    out: list[BaseException] = []
    todo: list[BaseException | None] = [error]
    while todo:
        e = todo.pop(0)
        if e is None or any(e is seen for seen in out):
            continue
        out.append(e)
        reason = getattr(e, "reason", None)
        todo.extend([reason if isinstance(reason, BaseException) else None, e.__cause__, e.__context__])
        todo.extend(a for a in getattr(e, "args", ()) if isinstance(a, BaseException))
    return out

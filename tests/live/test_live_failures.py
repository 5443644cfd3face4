"""Live access fails in bounded time and in kubectl's words (issue 29.4): servers that stall,
close early or answer garbage, refused connections, exec credential plugins that fail or
hang, and the --request-timeout flag — all through the real CLI, on 127.0.0.1 only."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from kschedx.cli.app import app
from kschedx.core.errors import InputError
from kschedx.core.load.live_http import DEFAULT_REQUEST_TIMEOUT, parse_request_timeout

from .fake_apiserver import MisbehavingServer, make_certs
from .test_live import PENDING_DUMP, WEB, certs, server  # noqa: F401 - fixtures
from .test_live import kubeconfig as good_kubeconfig

# Small, so that each stall costs a fraction of a second; the default is 60s.
FAST = "500ms"


def kubeconfig(path: Path, url: str, ca: Path | None = None, user: dict[str, Any] | None = None) -> Path:
    cluster: dict[str, Any] = {"server": url}
    if ca is not None:
        cluster["certificate-authority"] = str(ca)
    path.write_text(yaml.safe_dump({
        "apiVersion": "v1", "kind": "Config", "current-context": "t",
        "clusters": [{"name": "c", "cluster": cluster}],
        "users": [{"name": "u", "user": user or {"token": "t"}}],
        "contexts": [{"name": "t", "context": {"cluster": "c", "user": "u"}}],
    }))
    return path


def run(*args: str) -> Any:
    return CliRunner().invoke(app, list(args), env={"NO_COLOR": "1", "COLUMNS": "100"})


def one_clean_error(res: Any) -> str:
    """The run ended with exit 3 and one error line, none of Python's or the library's words."""
    assert res.exit_code == 3, res.output
    lines = [line for line in res.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), res.output
    for leak in ("Traceback", "ERROR:root", "urllib3", "HTTPConnectionPool", "MaxRetryError", "Errno"):
        assert leak not in res.output
    return str(lines[0])


@pytest.mark.parametrize(("mode", "tls", "words"), [
    ("stall", False, "Unable to connect to the server: net/http: request canceled (Client.Timeout exceeded while "
                     "awaiting headers)"),
    ("stall", True, "Unable to connect to the server: net/http: TLS handshake timeout"),
    ("stall-headers", True, "Unable to connect to the server: net/http: request canceled (Client.Timeout exceeded "
                            "while awaiting headers)"),
    ("stall-body", False, "Unable to connect to the server: net/http: request canceled (Client.Timeout or context "
                          "cancellation while reading body)"),
    ("close", False, "Unable to connect to the server: EOF"),
    ("close", True, "Unable to connect to the server: EOF"),
    ("garbage", False, 'Unable to connect to the server: net/http: HTTP/1.x transport connection broken: malformed '
                       'HTTP response "garbage, not a protocol"'),
    ("garbage", True, "Unable to connect to the server: tls: first record does not look like a TLS handshake"),
    ("not-json", False, "with a body that is not JSON (invalid character '<' looking for beginning of value)"),
    ("not-json", True, "with a body that is not JSON (invalid character '<' looking for beginning of value)"),
])
def test_a_misbehaving_server_ends_the_run_in_kubectls_words(tmp_path: Path, certs: tuple[Path, Path, Path],  # noqa: F811
                                                              mode: str, tls: bool, words: str) -> None:
    with MisbehavingServer(mode, certs if tls else None) as srv:
        kc = kubeconfig(tmp_path / "kc", srv.url, certs[0] if tls else None)
        res = run("explain", WEB, "--kubeconfig", str(kc), "--request-timeout", FAST)
        assert srv.accepted >= 1
    assert words in one_clean_error(res)


def test_a_stalled_server_is_left_after_one_timeout_not_one_per_kind(tmp_path: Path) -> None:
    """The first request (/version) that gets no answer ends the run: the kinds are not
    each tried in turn (which would take the timeout 25 times over)."""
    with MisbehavingServer("stall") as srv:
        kc = kubeconfig(tmp_path / "kc", srv.url)
        res = run("snapshot", "-o", str(tmp_path / "s.json"), "--kubeconfig", str(kc), "--request-timeout", FAST)
        assert srv.accepted == 1
    assert "Client.Timeout exceeded" in one_clean_error(res)
    assert not (tmp_path / "s.json").exists()


def test_every_command_that_reads_the_cluster_takes_the_flag(tmp_path: Path) -> None:
    with MisbehavingServer("stall-headers") as srv:
        kc = str(kubeconfig(tmp_path / "kc", srv.url))
        for command in (["explain", WEB], ["explain", WEB, "--compare-version", "1.34"],
                        ["explain", "pod/web-1", "-n", "shop"], ["check", WEB], ["pending"],
                        ["snapshot", "-o", str(tmp_path / "s.json")]):
            res = run(*command, "--kubeconfig", kc, "--request-timeout", FAST)
            assert "Client.Timeout exceeded while awaiting headers" in one_clean_error(res), command


def test_a_refused_connection_is_kubectls_sentence(tmp_path: Path) -> None:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    kc = kubeconfig(tmp_path / "kc", f"https://127.0.0.1:{port}")
    for command in (["explain", WEB], ["check", WEB], ["pending"], ["snapshot", "-o", str(tmp_path / "s.json")]):
        res = run(*command, "--kubeconfig", str(kc))
        assert one_clean_error(res) == (f"error: The connection to the server 127.0.0.1:{port} was refused - "
                                        "did you specify the right host or port?")


def test_a_wrong_ca_is_kubectls_x509_words(tmp_path: Path, server: Any, certs: tuple[Path, Path, Path]) -> None:  # noqa: F811
    other_ca = make_certs(tmp_path)[0]
    res = run("explain", WEB, "--kubeconfig", str(good_kubeconfig(tmp_path / "kc", server, other_ca)))
    assert one_clean_error(res) == ("error: Unable to connect to the server: tls: failed to verify certificate: "
                                    "x509: certificate signed by unknown authority")


# --------------------------------------------------------------------------- exec credential plugins


def exec_user(*args: str, mode: str = "Never") -> dict[str, Any]:
    return {"exec": {"apiVersion": "client.authentication.k8s.io/v1", "command": args[0], "args": list(args[1:]),
                     "interactiveMode": mode}}


def test_an_exec_plugin_that_fails_is_reported_as_kubectl_does(tmp_path: Path, server: Any,  # noqa: F811
                                                               certs: tuple[Path, Path, Path]) -> None:  # noqa: F811
    plugin = tmp_path / "fail.py"
    plugin.write_text("import sys\nsys.exit(1)\n")
    kc = kubeconfig(tmp_path / "kc", server.url, certs[0], user=exec_user(sys.executable, str(plugin)))
    res = run("explain", WEB, "--kubeconfig", str(kc))
    assert one_clean_error(res) == (f"error: Unable to connect to the server: getting credentials: exec: executable "
                                    f"{sys.executable} failed with exit code 1")
    assert server.requests == []  # no request without credentials


def test_an_exec_plugin_that_is_not_installed(tmp_path: Path, server: Any, certs: tuple[Path, Path, Path]) -> None:  # noqa: F811
    kc = kubeconfig(tmp_path / "kc", server.url, certs[0], user=exec_user("kschedx-no-such-plugin"))
    res = run("pending", "--kubeconfig", str(kc))
    assert one_clean_error(res) == ("error: Unable to connect to the server: getting credentials: exec: executable "
                                    "kschedx-no-such-plugin not found")
    user = exec_user("kschedx-no-such-plugin")
    user["exec"]["installHint"] = "Install it with:\n  brew install kschedx-plugin\n"
    res = run("pending", "--kubeconfig", str(kubeconfig(tmp_path / "kc", server.url, certs[0], user=user)))
    assert one_clean_error(res).endswith("exec: executable kschedx-no-such-plugin not found (Install it with: brew "
                                         "install kschedx-plugin)")


def test_an_exec_plugin_that_hangs_is_bounded_by_the_request_timeout(tmp_path: Path, server: Any,  # noqa: F811
                                                                     certs: tuple[Path, Path, Path]) -> None:  # noqa: F811
    plugin = tmp_path / "hang.py"
    plugin.write_text("import time\nwhile True:\n    time.sleep(1)\n")
    kc = kubeconfig(tmp_path / "kc", server.url, certs[0], user=exec_user(sys.executable, str(plugin)))
    res = run("snapshot", "-o", str(tmp_path / "s.json"), "--kubeconfig", str(kc), "--request-timeout", FAST)
    assert one_clean_error(res) == (f"error: Unable to connect to the server: getting credentials: exec: executable "
                                    f"{sys.executable} did not finish within 0.5s (--request-timeout)")


def test_an_exec_plugin_answering_garbage(tmp_path: Path, server: Any, certs: tuple[Path, Path, Path]) -> None:  # noqa: F811
    plugin = tmp_path / "garbage.py"
    plugin.write_text("print('not json')\n")
    kc = kubeconfig(tmp_path / "kc", server.url, certs[0], user=exec_user(sys.executable, str(plugin)))
    res = run("check", WEB, "--kubeconfig", str(kc))
    assert one_clean_error(res).endswith("getting credentials: decoding stdout: invalid character 'n' looking for "
                                         "beginning of value")


# --------------------------------------------------------------------------- the flag


@pytest.mark.parametrize(("text", "seconds"), [
    (None, DEFAULT_REQUEST_TIMEOUT), ("0", None), ("0s", None), ("5", 5.0), ("1s", 1.0), ("2m", 120.0),
    ("1m30s", 90.0), ("500ms", 0.5), ("1.5h", 5400.0),
])
def test_request_timeout_takes_kubectls_syntax(text: str | None, seconds: float | None) -> None:
    assert parse_request_timeout(text) == seconds


@pytest.mark.parametrize("text", ["abc", "5x", "1s2", "-1s", "", "s"])
def test_a_bad_request_timeout_is_kubectls_error_exit_2(tmp_path: Path, text: str) -> None:
    with pytest.raises(InputError):
        parse_request_timeout(text)
    kc = kubeconfig(tmp_path / "kc", "https://127.0.0.1:1")
    res = run("pending", "--kubeconfig", str(kc), "--request-timeout", text)
    assert res.exit_code == 2, res.output
    assert "Invalid timeout value. Timeout must be a single integer in seconds, or an integer followed by a " \
           "corresponding time unit (e.g. 1s | 2m | 3h)" in res.output


def test_no_timeout_with_0_still_reads_a_good_server(tmp_path: Path, server: Any,  # noqa: F811
                                                     certs: tuple[Path, Path, Path]) -> None:  # noqa: F811
    kc = good_kubeconfig(tmp_path / "kc", server, certs[0])
    res = run("explain", WEB, "--kubeconfig", str(kc), "--request-timeout", "0", "-o", "json")
    assert res.exit_code == 0, res.output


def test_insecure_skip_tls_verify_prints_no_library_warning(tmp_path: Path, server: Any) -> None:  # noqa: F811
    """kubectl says nothing of an unverified server it was told not to verify; nor does
    kschedx (urllib3 would warn on every request)."""
    kc = tmp_path / "kc"
    kc.write_text(yaml.safe_dump({
        "apiVersion": "v1", "kind": "Config", "current-context": "t",
        "clusters": [{"name": "c", "cluster": {"server": server.url, "insecure-skip-tls-verify": True}}],
        "users": [{"name": "u", "user": {"token": "good-token"}}],
        "contexts": [{"name": "t", "context": {"cluster": "c", "user": "u"}}],
    }))
    # A process of its own: pytest would catch the warning before it reached stderr.
    res = subprocess.run([sys.executable, "-c", "import sys; from kschedx.cli.app import main; sys.argv[0] = "
                          "'kschedx'; main()", "explain", WEB, "--kubeconfig", str(kc), "-o", "json"],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stderr == ""


def test_an_exec_plugin_runs_once_a_run(tmp_path: Path, server: Any, certs: tuple[Path, Path, Path]) -> None:  # noqa: F811
    """A reference (one GET) and the listing share the run's one client: a cloud login
    helper is not run twice."""
    runs = tmp_path / "runs"
    plugin = tmp_path / "token.py"
    plugin.write_text(f"import json\nopen({str(runs)!r}, 'a').write('run\\n')\n"
                      "print(json.dumps({'apiVersion': 'client.authentication.k8s.io/v1', 'kind': 'ExecCredential', "
                      "'status': {'token': 'good-token'}}))\n")
    kc = kubeconfig(tmp_path / "kc", server.url, certs[0], user=exec_user(sys.executable, str(plugin)))
    res = run("explain", "pod/web-jhpfjcnhhl-2blqj", "-n", "shop", "--kubeconfig", str(kc), "-o", "json")
    assert res.exit_code == 0, res.output
    assert runs.read_text() == "run\n"


def test_an_endless_body_is_refused_past_the_bound(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A server (or proxy) streaming a body without end: past MAX_RESPONSE the run ends
    with one line, exit 3, before memory runs out (the bound is lowered for the test)."""
    from kschedx.core.load import live_http

    monkeypatch.setattr(live_http, "MAX_RESPONSE", 4 << 20)
    with MisbehavingServer("endless") as srv:
        kc = kubeconfig(tmp_path / "kc", srv.url)
        res = run("explain", WEB, "--kubeconfig", str(kc), "--request-timeout", "10s")
    line = one_clean_error(res)
    assert "answered GET /version with a body larger than 4 MiB: no list page is that large" in line, line

"""End to end: the installed ``kschedx`` console script, as a user runs it."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
CLUSTER = str(EXAMPLES / "cluster.yaml")
PODS = EXAMPLES / "pods"


def _script(name: str) -> str:
    # The console scripts pip installed next to this interpreter (a venv's bin/), else on PATH.
    here = Path(sys.executable).parent / name
    found = str(here) if here.exists() else shutil.which(name)
    if found is None:
        pytest.fail(f"the {name} console script is not installed (pip install -e '.[test]')")
    return found


def kschedx(*args: str, stdin: str | None = None, prog: str = "kschedx") -> subprocess.CompletedProcess[str]:
    env = {"PATH": str(Path(sys.executable).parent), "NO_COLOR": "1", "COLUMNS": "100", "HOME": str(ROOT)}
    return subprocess.run([_script(prog), *args], capture_output=True, text=True, input=stdin, env=env, timeout=120)


def test_help_and_version() -> None:
    res = kschedx("--help")
    assert res.returncode == 0
    assert "explain" in res.stdout and "plugins" in res.stdout
    assert kschedx("--version").stdout.startswith("kschedx ")


@pytest.mark.parametrize("pod", sorted(p.name for p in PODS.glob("*.yaml")))
def test_every_example_is_explained(pod: str) -> None:
    res = kschedx("explain", str(PODS / pod), "--cluster", CLUSTER)
    assert res.returncode in (0, 1), res.stderr
    assert "Traceback" not in res.stderr
    assert "Profile" in res.stdout and "default-scheduler" in res.stdout
    if res.returncode == 1:
        assert "0/12 nodes are available:" in res.stdout.replace("\n", " ")


def test_json_output_and_exit_codes() -> None:
    fits = kschedx("explain", str(PODS / "web-deployment.yaml"), "--cluster", CLUSTER, "-o", "json")
    assert fits.returncode == 0, fits.stderr
    data = json.loads(fits.stdout)
    assert data["selectedNode"] == data["bestNodes"][0]
    assert data["totals"][data["selectedNode"]] == max(data["totals"].values())

    big = kschedx("explain", str(PODS / "too-big.yaml"), "--cluster", CLUSTER, "-o", "json")
    assert big.returncode == 1
    out = json.loads(big.stdout)
    assert out["selectedNode"] is None and out["fitError"].startswith("0/12 nodes are available: ")


def test_manifest_from_stdin() -> None:
    text = (PODS / "too-big.yaml").read_text()
    res = kschedx("explain", "-", "--cluster", CLUSTER, "-o", "json", stdin=text)
    assert res.returncode == 1, res.stderr
    assert json.loads(res.stdout)["pod"] == "shop/video-transcoder"


def test_bad_input_is_one_line_and_exit_2(tmp_path: Path) -> None:
    missing = tmp_path / "missing.yaml"
    res = kschedx("explain", str(missing), "--cluster", CLUSTER)
    assert res.returncode == 2
    assert res.stderr.strip().count("\n") == 0 and str(missing) in res.stderr
    bad = tmp_path / "bad.yaml"
    bad.write_text("kind: Pod\nmetadata: {name: x\n")
    res = kschedx("explain", str(bad), "--cluster", CLUSTER)
    assert res.returncode == 2 and "Traceback" not in res.stderr and f"{bad}:" in res.stderr


def test_works_as_a_kubectl_plugin() -> None:
    res = kschedx("--help", prog="kubectl-kschedx")
    assert res.returncode == 0
    assert "kubectl kschedx" in res.stdout


def test_pending_and_references_through_the_console_script() -> None:
    dump = str(EXAMPLES / "pending.yaml")
    res = kschedx("pending", "--cluster", dump)
    assert res.returncode == 1, res.stderr
    lines = res.stdout.splitlines()
    assert len(lines) == 6 and lines[0].split()[:2] == ["POD", "STATUS"]  # piped: one line per pod
    ok = kschedx("pending", "--cluster", dump, "-l", "app=web", "-o", "json")
    assert ok.returncode == 0 and json.loads(ok.stdout)["wouldFit"] == 1
    ref = kschedx("explain", "pod/web-6d4cf56db6-9wq7m", "-n", "shop", "--cluster", dump, "-o", "json")
    assert ref.returncode == 0, ref.stderr
    out = json.loads(ref.stdout)
    assert out["currentNode"] == "node-b" and out["agreesWithCurrentNode"] is False


@pytest.mark.parametrize("args", [
    ["check", str(EXAMPLES / "release-app"), "--cluster", CLUSTER],
    ["explain", str(PODS / "web-deployment.yaml"), "--cluster", CLUSTER],
    ["explain", str(PODS / "web-deployment.yaml"), "--cluster", CLUSTER, "-o", "json"],
])
def test_a_reader_that_leaves_ends_the_run_with_141(args: list[str]) -> None:
    # `kschedx check ... | head`: the pipe's reader is gone before kschedx writes. The run
    # ends as a shell reports SIGPIPE (141), quietly; never with Rich's exit 1, which a CI
    # step would read as "doesn't fit".
    env = {"PATH": str(Path(sys.executable).parent), "NO_COLOR": "1", "HOME": str(ROOT)}
    proc = subprocess.Popen([_script("kschedx"), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 141, err
    assert "Traceback" not in err and "Broken pipe" not in err

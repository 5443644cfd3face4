"""kubectl habits: shell completion, -f/--filename, --snapshot FILE (with --cluster FILE still
accepted), and error messages that name only options the command has."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from kschedx.cli.app import app

ROOT = Path(__file__).resolve().parents[2]
CLUSTER = str(ROOT / "examples" / "cluster.yaml")
WEB = str(ROOT / "examples" / "pods" / "web-deployment.yaml")
PODS = str(ROOT / "examples" / "pods")


def run(*args: str, env: dict[str, str] | None = None) -> Any:
    return CliRunner().invoke(app, list(args), env={"NO_COLOR": "1", "COLUMNS": "100", **(env or {})})


def kschedx(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kschedx.cli.app", *args], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, check=False)


@pytest.mark.parametrize(("shell", "marker"), [("bash", "complete -o default -F"), ("zsh", "#compdef kschedx"),
                                               ("fish", "complete --command kschedx")])
def test_completion_scripts(shell: str, marker: str) -> None:
    res = run("completion", shell)
    assert res.exit_code == 0, res.output
    assert marker in res.stdout and "_KSCHEDX_COMPLETE" in res.stdout


def test_completion_answers_commands_and_options() -> None:
    env = {"_KSCHEDX_COMPLETE": "complete_bash", "COMP_WORDS": "kschedx ex", "COMP_CWORD": "1"}
    assert kschedx(env=env).stdout.split() == ["explain"]
    env = {**env, "COMP_WORDS": "kschedx explain --sn", "COMP_CWORD": "2"}
    assert kschedx(env=env).stdout.split() == ["--snapshot"]
    assert "--install-completion" in run("--help").stdout


def test_filename_and_snapshot_options_read_as_kubectl_users_expect() -> None:
    want = run("explain", WEB, "--cluster", CLUSTER, "-o", "json")
    assert want.exit_code == 0, want.output
    for args in (("-f", WEB, "--snapshot", CLUSTER), ("--filename", WEB, "-c", CLUSTER)):
        got = run("explain", *args, "-o", "json")
        assert got.exit_code == 0, got.output
        assert json.loads(got.stdout) == json.loads(want.stdout)
    both = run("explain", WEB, "-f", WEB, "--snapshot", CLUSTER)
    assert both.exit_code == 2 and "MANIFEST, -f/--filename FILE or -k/--kustomize DIR" in both.stderr
    check = run("check", "-f", PODS, "--snapshot", CLUSTER, "-o", "json")
    assert check.exit_code == 1, check.output
    assert len(json.loads(check.stdout)["results"]) == 6
    assert run("check", "--snapshot", CLUSTER).exit_code == 2


def test_a_kubeconfig_cluster_name_given_as_a_dump() -> None:
    # `kubectl kschedx explain pod.yaml --cluster prod-eks`: kubectl's --cluster names a cluster.
    res = run("explain", WEB, "--cluster", "prod-eks")
    assert res.exit_code == 2
    assert res.stderr.startswith("error: prod-eks: no such file") and "--context NAME" in res.stderr


def test_missing_kubeconfig_is_no_such_file(tmp_path: Path) -> None:
    missing = str(tmp_path / "missing")
    res = run("explain", WEB, "--kubeconfig", missing)
    assert res.exit_code == 2
    assert res.stderr.strip() == f"error: {missing}: no such file"
    res = run("explain", WEB, env={"KUBECONFIG": missing, "KUBERNETES_SERVICE_HOST": ""})
    assert res.exit_code == 3 and f"$KUBECONFIG {missing}: no such file" in res.stderr


def test_messages_name_only_the_commands_options(tmp_path: Path) -> None:
    env = {"KUBECONFIG": str(tmp_path / "none"), "KUBERNETES_SERVICE_HOST": ""}
    snap = run("snapshot", "-o", str(tmp_path / "out.json"), env=env)
    assert snap.exit_code == 3
    assert "--kubeconfig" in snap.stderr and "--cluster" not in snap.stderr and "--snapshot" not in snap.stderr
    explain = run("explain", WEB, env=env)
    assert explain.exit_code == 3 and "--snapshot FILE" in explain.stderr


def test_help_does_not_load_the_engine_or_rich_for_completion() -> None:
    out = subprocess.run([sys.executable, "-c", "import sys, kschedx.cli.app\n"
                          "print([m for m in ('rich', 'yaml', 'kubernetes', 'kschedx.core.explain.front') "
                          "if m in sys.modules])"], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"

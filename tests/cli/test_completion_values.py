"""Completion answers what users type most, from the cluster dump and config on the command
line: node names, TYPE/NAME references in the -n namespace, --kubernetes-version values and
profile names (bash protocol: COMP_WORDS / COMP_CWORD, the installed command)."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from .test_kubectl_conventions import kschedx

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples"
CLUSTER = str(EX / "cluster.yaml")
POD = str(EX / "pods" / "zone-spread.yaml")


def complete(*words: str) -> list[str]:
    """The candidates for the last of ``words`` (an empty string: a new word)."""
    # Quoted as a shell would leave them (a clone path may hold blanks); an empty last word
    # is the new word being typed.
    line = shlex.join(("kschedx", *words[:-1])) + " " + (shlex.quote(words[-1]) if words[-1] else "")
    env = {"_KSCHEDX_COMPLETE": "complete_bash", "COMP_WORDS": line,
           "COMP_CWORD": str(len(words))}
    res = kschedx(env=env)
    assert res.returncode == 0, res.stderr
    return [line for line in res.stdout.splitlines() if line]


@pytest.mark.parametrize("flag", ["--node", "--cordon", "--drain", "--without-node"])
def test_node_names_from_the_dump(flag: str) -> None:
    assert complete("explain", POD, "--snapshot", CLUSTER, flag, "gpu") == ["gpu-a1", "gpu-b1", "gpu-c1"]
    assert len(complete("explain", POD, "--snapshot", CLUSTER, flag, "")) == 12


def test_references_in_the_namespace() -> None:
    assert complete("explain", "--snapshot", CLUSTER, "-n", "kube-system", "pod/core") == [
        "pod/coredns-zcx8l66fqk-28xnt", "pod/coredns-zcx8l66fqk-jhgq9"]
    assert complete("explain", "--snapshot", CLUSTER, "pod/core") == []  # not in the default namespace
    assert "deploy/" in complete("explain", "--snapshot", CLUSTER, "de")


def test_manifest_paths() -> None:
    got = complete("explain", str(EX / "pods" / "zone"))
    assert got == [POD]


def test_versions_and_profiles(tmp_path: Path) -> None:
    assert complete("explain", POD, "--kubernetes-version", "") == ["1.33", "1.34", "1.35", "1.36", "1.37"]
    assert complete("check", POD, "--compare-version", "1.3") == ["1.33", "1.34", "1.35", "1.36", "1.37"]
    assert complete("explain", POD, "--profile", "") == ["default-scheduler"]
    config = tmp_path / "config.yaml"
    config.write_text("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"
                      "- schedulerName: default-scheduler\n- schedulerName: batch-scheduler\n")
    assert complete("explain", POD, "--config", str(config), "--profile", "") == [
        "batch-scheduler", "default-scheduler"]
    assert complete("plugins", "--config", str(config), "--profile", "b") == ["batch-scheduler"]


def test_a_broken_dump_offers_nothing(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("kind: [\n")
    assert complete("explain", POD, "--snapshot", str(bad), "--node", "") == []

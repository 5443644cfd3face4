"""What a newcomer reads when something is off (issue 31.8): a reference to a kind kschedx
does not explain, an empty or unusable kubeconfig (in client-go's words, as kubectl says
them), a pod larger than any node, and counts of one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml
from typer.testing import CliRunner

from kschedx.cli.app import app

ROOT = Path(__file__).resolve().parents[2]
CLUSTER = str(ROOT / "examples" / "cluster.yaml")
WEB = str(ROOT / "examples" / "pods" / "web-deployment.yaml")
NO_IN_CLUSTER = {"KUBERNETES_SERVICE_HOST": "", "NO_COLOR": "1", "COLUMNS": "200"}


def run(*args: str, env: dict[str, str] | None = None) -> Any:
    return CliRunner().invoke(app, list(args), env={**NO_IN_CLUSTER, **(env or {})})


def test_a_reference_to_a_kind_kschedx_does_not_explain_names_the_kinds_it_does() -> None:
    for ref, kind in (("svc/frontend", "svc"), ("service/frontend", "service"), ("configmaps/settings", "configmaps")):
        res = run("explain", ref, "--snapshot", CLUSTER)
        assert res.exit_code == 2, res.output
        assert res.stderr.startswith(f"error: {ref}: no such file, and kschedx explains pods and the workloads that "
                                     f"create them, not {kind}: ")
        assert "deployment (deploy), statefulset (sts), daemonset (ds)" in res.stderr
    # A path that is not there stays a missing file.
    res = run("explain", "deploy/web.yaml.missing/x.yaml", "--snapshot", CLUSTER)
    assert res.exit_code == 2 and res.stderr.strip() == "error: deploy/web.yaml.missing/x.yaml: no such file"


EMPTY = "invalid configuration: no configuration has been provided, try setting KUBERNETES_MASTER environment variable"


def test_an_empty_kubeconfig_in_kubectls_words(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.write_text("")
    bare = tmp_path / "bare"
    bare.write_text("apiVersion: v1\nkind: Config\n")
    unset = tmp_path / "unset"
    unset.write_text('apiVersion: v1\nkind: Config\ncurrent-context: ""\nclusters: []\ncontexts: []\n')
    for config in (empty, bare, unset):
        res = run("explain", WEB, "--kubeconfig", str(config))
        assert res.exit_code == 3, res.output
        assert res.stderr.startswith(f"error: kubeconfig {config}: {EMPTY}"), res.stderr
        assert "Expected" not in res.stderr and "contexts list" not in res.stderr
    res = run("explain", WEB, env={"KUBECONFIG": str(empty)})
    assert res.exit_code == 3 and EMPTY in res.stderr, res.stderr


def test_a_missing_context_and_broken_yaml_in_kubectls_words(tmp_path: Path) -> None:
    config = tmp_path / "config"
    config.write_text(yaml.safe_dump({
        "apiVersion": "v1", "kind": "Config", "current-context": "prod",
        "clusters": [{"name": "c", "cluster": {"server": "https://127.0.0.1:1"}}],
        "contexts": [{"name": "dev", "context": {"cluster": "c", "user": "u"}}], "users": [{"name": "u", "user": {}}]}))
    res = run("explain", WEB, "--kubeconfig", str(config))
    assert res.exit_code == 3
    assert f"kubeconfig {config}: invalid configuration: context was not found for specified context: prod" in res.stderr
    broken = tmp_path / "broken"
    broken.write_text("clusters: [\n")
    res = run("explain", WEB, "--kubeconfig", str(broken))
    assert res.exit_code == 3, res.output
    assert f'error loading config file "{broken}": yaml: line 2: ' in res.stderr
    assert "ParserError" not in res.stderr


def test_a_pod_larger_than_any_node_is_told_so(tmp_path: Path) -> None:
    pod = yaml.safe_load((ROOT / "examples" / "pods" / "too-big.yaml").read_text())
    pod["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "100", "memory": "1Gi"}}
    manifest = tmp_path / "huge.yaml"
    manifest.write_text(yaml.safe_dump(pod))
    res = run("explain", str(manifest), "--snapshot", CLUSTER, "--node", "general-a1", "-o", "json")
    assert res.exit_code == 1, res.output
    hints = json.loads(res.stdout)["focus"]["hints"]
    # gpu-a1 has the most cpu of the cluster's nodes (31850m).
    assert hints == ["the pod requests 100000m cpu, larger than any node's allocatable (largest: 31850m on gpu-a1): "
                     "lower the request to at most that, or add a larger node"]
    # A request that some other node could hold keeps the node's own advice.
    pod["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "20", "memory": "1Gi"}}
    manifest.write_text(yaml.safe_dump(pod))
    res = run("explain", str(manifest), "--snapshot", CLUSTER, "--node", "general-a1", "-o", "json")
    [hint] = json.loads(res.stdout)["focus"]["hints"]
    assert "larger than any node" not in hint and "lower the request to at most" in hint


def test_one_copy_reads_as_one(tmp_path: Path) -> None:
    table = run("explain", WEB, "--snapshot", CLUSTER, "--replicas", "1")
    assert table.exit_code == 0, table.output
    assert "{0…0}" not in table.stdout and "1 of 1 replica placed" in table.stdout
    assert "shop/web-jhpfjcnhhl-abcde-0" in table.stdout
    html = run("explain", WEB, "--snapshot", CLUSTER, "--replicas", "1", "-o", "html")
    assert html.exit_code == 0, html.output
    assert "(1 copies)" not in html.stdout and "{0…0}" not in html.stdout and "1 of 1 replica placed" in html.stdout
    two = run("explain", WEB, "--snapshot", CLUSTER, "--replicas", "2")
    assert "shop/web-jhpfjcnhhl-abcde-{0…1}" in two.stdout and "2 of 2 replicas placed" in two.stdout


def test_a_daemonset_on_a_one_node_cluster(tmp_path: Path) -> None:
    cluster = tmp_path / "one-node.yaml"
    cluster.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "Node", "metadata": {
        "name": "solo", "labels": {"kubernetes.io/hostname": "solo"}},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}))
    ds = tmp_path / "ds.yaml"
    ds.write_text(yaml.safe_dump({"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent"},
                                  "spec": {"selector": {"matchLabels": {"app": "agent"}}, "template": {
                                      "metadata": {"labels": {"app": "agent"}},
                                      "spec": {"containers": [{"name": "c", "image": "agent:1"}]}}}}))
    res = run("explain", str(ds), "--snapshot", str(cluster))
    assert res.exit_code == 0, res.output
    assert "runs on 1 of 1 node" in res.stdout and "1 of 1 nodes" not in res.stdout


def test_an_empty_default_kubeconfig_in_kubectls_words(tmp_path: Path) -> None:
    (tmp_path / ".kube").mkdir()
    (tmp_path / ".kube" / "config").write_text("")
    # A process of its own: the client fixes its default kubeconfig path when first imported.
    env = {k: v for k, v in os.environ.items() if k not in ("KUBECONFIG", "KUBERNETES_SERVICE_HOST")}
    res = subprocess.run([sys.executable, "-m", "kschedx.cli.app", "explain", WEB], capture_output=True, text=True,
                         env={**env, "HOME": str(tmp_path), "NO_COLOR": "1"}, check=False)
    assert res.returncode == 3, res.stderr
    assert res.stderr.startswith(f"error: kubeconfig {tmp_path / '.kube' / 'config'}: {EMPTY}"), res.stderr

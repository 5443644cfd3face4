"""Completion without --snapshot reads the live cluster of --kubeconfig, as kubectl's
completion does: node names and references in the -n namespace from one bounded list
request; an unreachable server offers nothing and never hangs the shell."""

from __future__ import annotations

import shlex
from pathlib import Path

from kschedx.core.load.files import load_objects

from ..cli.test_kubectl_conventions import kschedx
from .fake_apiserver import FakeAPIServer
from .test_live import CLUSTER, certs, kubeconfig  # noqa: F401  (certs: the fixture)


def complete(*words: str) -> list[str]:
    line = shlex.join(("kschedx", *words[:-1])) + " " + (shlex.quote(words[-1]) if words[-1] else "")
    env = {"_KSCHEDX_COMPLETE": "complete_bash", "COMP_WORDS": line, "COMP_CWORD": str(len(words))}
    res = kschedx(env=env)
    assert res.returncode == 0, res.stderr
    return [w for w in res.stdout.splitlines() if w]


def test_nodes_and_references_from_the_live_cluster(tmp_path: Path, certs: tuple[Path, Path, Path]) -> None:  # noqa: F811
    objects = [o for o, _line in load_objects(str(CLUSTER))]
    with FakeAPIServer(objects, certs) as srv:
        kc = str(kubeconfig(tmp_path / "kc", srv, certs[0]))
        assert complete("explain", "x.yaml", "--kubeconfig", kc, "--node", "gpu") == ["gpu-a1", "gpu-b1", "gpu-c1"]
        assert complete("explain", "--kubeconfig", kc, "-n", "kube-system", "pod/core") == [
            "pod/coredns-zcx8l66fqk-28xnt", "pod/coredns-zcx8l66fqk-jhgq9"]
        lists = [(p, q) for p, q in srv.requests if p in ("/api/v1/nodes", "/api/v1/namespaces/kube-system/pods")]
        assert lists and all(q.get("limit") == ["500"] for _p, q in lists)


def test_an_unreachable_server_offers_nothing(tmp_path: Path) -> None:
    kc = tmp_path / "kc"
    kc.write_text("apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: 'https://127.0.0.1:9'}\n"
                  "contexts:\n- name: c\n  context: {cluster: c, user: u}\ncurrent-context: c\n"
                  "users:\n- name: u\n  user: {token: t}\n")
    assert complete("explain", "x.yaml", "--kubeconfig", str(kc), "--node", "") == []

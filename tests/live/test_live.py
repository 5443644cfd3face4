"""Live clusters through kubeconfig, against a local HTTPS API server the tests start."""

from __future__ import annotations

import gzip
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from kschedx.cli.app import app
from kschedx.core.load.files import load_objects
from kschedx.core.load.live import load_live

from .fake_apiserver import FakeAPIServer, make_certs

ROOT = Path(__file__).resolve().parents[2]
CLUSTER = ROOT / "examples" / "cluster.yaml"
WEB = str(ROOT / "examples" / "pods" / "web-deployment.yaml")
TOO_BIG = str(ROOT / "examples" / "pods" / "too-big.yaml")


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    return make_certs(tmp_path_factory.mktemp("certs"))


@pytest.fixture
def server(certs: tuple[Path, Path, Path]) -> Iterator[FakeAPIServer]:
    objects = [o for o, _line in load_objects(str(CLUSTER))]
    with FakeAPIServer(objects, certs) as srv:
        yield srv


def kubeconfig(path: Path, server: FakeAPIServer, ca: Path, token: str = "good-token",
               user: dict[str, Any] | None = None, contexts: tuple[str, ...] = ("test",), current: str = "test") -> Path:
    cfg = {
        "apiVersion": "v1", "kind": "Config", "current-context": current,
        "clusters": [{"name": "c", "cluster": {"server": server.url, "certificate-authority": str(ca)}}],
        "users": [{"name": "u", "user": user or {"token": token}}],
        "contexts": [{"name": n, "context": {"cluster": "c", "user": "u"}} for n in contexts],
    }
    path.write_text(yaml.safe_dump(cfg))
    return path


def run(*args: str, env: dict[str, str] | None = None) -> Any:
    return CliRunner().invoke(app, list(args), env={"NO_COLOR": "1", "COLUMNS": "100", **(env or {})})


def test_live_explain_equals_the_snapshot_of_that_listing(tmp_path: Path, server: FakeAPIServer,
                                                         certs: tuple[Path, Path, Path]) -> None:
    kc = kubeconfig(tmp_path / "kc", server, certs[0])
    live = run("explain", WEB, "--kubeconfig", str(kc), "-o", "json")
    assert live.exit_code == 0, live.output
    snap = tmp_path / "snap.json.gz"
    res = run("snapshot", "--kubeconfig", str(kc), "-o", str(snap))
    assert res.exit_code == 0, res.output
    offline = run("explain", WEB, "--cluster", str(snap), "-o", "json")
    assert offline.exit_code == 0, offline.output
    assert json.loads(live.stdout) == json.loads(offline.stdout)
    # Read-only: nothing but GETs of collections (and of /version) reached the server.
    assert all(path.startswith(("/api/", "/apis/")) or path == "/version" for path, _q in server.requests)
    assert json.loads(live.stdout)["kubernetesVersion"] == "v1.35"


def test_the_servers_version_is_used_and_recorded(tmp_path: Path, server: FakeAPIServer,
                                                  certs: tuple[Path, Path, Path]) -> None:
    """The live server's /version picks the release (over the kubelets' v1.35.4), and a
    snapshot records it so that explaining the file reproduces the same release."""
    server.git_version = "v1.34.2"
    kc = kubeconfig(tmp_path / "kc", server, certs[0])
    live = json.loads(run("explain", WEB, "--kubeconfig", str(kc), "-o", "json").stdout)
    assert live["kubernetesVersion"] == "v1.34"
    assert "Kubernetes v1.34: the API server's version (v1.34.2)" in live["notes"]
    snap = tmp_path / "snap.yaml"
    assert run("snapshot", "--kubeconfig", str(kc), "-o", str(snap)).exit_code == 0
    offline = json.loads(run("explain", WEB, "--cluster", str(snap), "-o", "json").stdout)
    assert offline == live
    server.git_version = None  # no /version: the kubelets decide
    live = json.loads(run("explain", WEB, "--kubeconfig", str(kc), "-o", "json").stdout)
    assert live["kubernetesVersion"] == "v1.35"


def test_lists_are_paginated(tmp_path: Path, server: FakeAPIServer, certs: tuple[Path, Path, Path]) -> None:
    kc = kubeconfig(tmp_path / "kc", server, certs[0])
    live = load_live(str(kc), page_size=20)
    pods = [q for p, q in server.requests if p == "/api/v1/pods"]
    assert len(pods) > 2 and all(q["limit"] == ["20"] for q in pods)
    assert [q.get("continue") for q in pods][:3] == [None, ["20"], ["40"]]
    expected = sum(1 for o, _l in load_objects(str(CLUSTER)) if o.get("kind") == "Pod")
    assert len(live.objects.of("Pod")) == expected
    assert all(p["kind"] == "Pod" and p["apiVersion"] == "v1" for p in live.objects.of("Pod"))


def test_partial_rbac_is_a_warning_but_pods_are_required(tmp_path: Path, server: FakeAPIServer,
                                                         certs: tuple[Path, Path, Path]) -> None:
    kc = kubeconfig(tmp_path / "kc", server, certs[0])
    server.forbidden = {"persistentvolumes"}
    server.missing = {"/apis/resource.k8s.io/v1/resourceslices"}
    res = run("explain", WEB, "--kubeconfig", str(kc), "-o", "json")
    assert res.exit_code == 0, res.output
    warnings = json.loads(res.stdout)["warnings"]
    assert "no permission to list persistentvolumes: volume plugins are evaluated without PersistentVolumes" in warnings
    assert "the server does not serve resourceslices; explained without them" in warnings
    server.forbidden = {"pods"}
    res = run("explain", WEB, "--kubeconfig", str(kc))
    assert res.exit_code == 3
    assert "cannot list pods" in res.output and "forbidden" in res.output


def test_bad_token_and_wrong_ca_exit_3(tmp_path: Path, server: FakeAPIServer, certs: tuple[Path, Path, Path]) -> None:
    bad = kubeconfig(tmp_path / "bad", server, certs[0], token="wrong")
    res = run("explain", WEB, "--kubeconfig", str(bad))
    assert res.exit_code == 3 and "401" in res.output and "Traceback" not in res.output
    other_ca = make_certs(tmp_path)[0]
    wrong = kubeconfig(tmp_path / "wrong-ca", server, other_ca)
    res = run("explain", WEB, "--kubeconfig", str(wrong))
    assert res.exit_code == 3 and "Unable to connect to the server: tls: failed to verify certificate" in res.output


def test_exec_plugin_credentials(tmp_path: Path, server: FakeAPIServer, certs: tuple[Path, Path, Path]) -> None:
    plugin = tmp_path / "get-token.py"
    plugin.write_text("import json\nprint(json.dumps({'apiVersion': 'client.authentication.k8s.io/v1', "
                      "'kind': 'ExecCredential', 'status': {'token': 'good-token'}}))\n")
    user = {"exec": {"apiVersion": "client.authentication.k8s.io/v1", "command": sys.executable,
                     "args": [str(plugin)], "interactiveMode": "Never"}}
    kc = kubeconfig(tmp_path / "kc", server, certs[0], user=user)
    res = run("explain", TOO_BIG, "--kubeconfig", str(kc), "-o", "json")
    assert res.exit_code == 1, res.output
    assert json.loads(res.stdout)["fitError"].startswith("0/12 nodes are available")


def test_kubeconfig_env_merged_and_context(tmp_path: Path, server: FakeAPIServer, certs: tuple[Path, Path, Path]) -> None:
    # Two files in $KUBECONFIG: the first sets the current context to one the second defines.
    base = kubeconfig(tmp_path / "base", server, certs[0], contexts=("prod",), current="prod")
    first = tmp_path / "first"
    first.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "Config", "current-context": "prod",
                                     "clusters": [], "users": [], "contexts": []}))
    env = {"KUBECONFIG": f"{first}:{base}"}
    res = run("explain", WEB, "-o", "json", env=env)
    assert res.exit_code == 0, res.output
    res = run("explain", WEB, "--context", "nope", "-o", "json", env=env)
    assert res.exit_code == 3 and "nope" in res.output


def test_snapshot_redacts(tmp_path: Path, server: FakeAPIServer, certs: tuple[Path, Path, Path]) -> None:
    kc = kubeconfig(tmp_path / "kc", server, certs[0])
    pods = server.collections["/api/v1/pods"][1]
    pods[0]["metadata"]["managedFields"] = [{"manager": "kubectl"}]
    pods[0]["metadata"].setdefault("annotations", {})["kubectl.kubernetes.io/last-applied-configuration"] = "{secret}"
    pods[0]["spec"]["containers"][0]["env"] = [{"name": "PASSWORD", "value": "hunter2"}]
    pods[0]["spec"]["containers"][0]["command"] = ["run", "--token=abc"]
    out = tmp_path / "snap.yaml.gz"
    res = run("snapshot", "--kubeconfig", str(kc), "-o", str(out))
    assert res.exit_code == 0, res.output
    text = gzip.decompress(out.read_bytes()).decode()
    assert "hunter2" not in text and "--token=abc" not in text and "{secret}" not in text
    assert "managedFields" not in text and "PASSWORD" in text
    doc = yaml.safe_load(text)
    assert doc["kind"] == "List" and {o["kind"] for o in doc["items"]} >= {"Node", "Pod", "ReplicaSet"}


# --------------------------------------------------------------------------- existing objects

PENDING_DUMP = ROOT / "examples" / "pending.yaml"


def test_a_pod_reference_is_one_get_of_that_pod(tmp_path: Path, server: FakeAPIServer,
                                               certs: tuple[Path, Path, Path]) -> None:
    kc = kubeconfig(tmp_path / "kc", server, certs[0])
    live = run("explain", "pod/web-jhpfjcnhhl-2blqj", "-n", "shop", "--kubeconfig", str(kc), "-o", "json")
    assert live.exit_code == 0, live.output
    out = json.loads(live.stdout)
    assert out["pod"] == "shop/web-jhpfjcnhhl-2blqj" and out["currentNode"] == "general-a1"
    gets = [p for p, _q in server.requests if p == "/api/v1/namespaces/shop/pods/web-jhpfjcnhhl-2blqj"]
    assert len(gets) == 1
    assert set(server.methods) == {"GET"}
    # The same answer as from a dump of the same cluster.
    offline = run("explain", "pod/web-jhpfjcnhhl-2blqj", "-n", "shop", "-c", str(CLUSTER), "-o", "json")
    # The same answer; only the note on where the version came from differs (the server's
    # /version live, the kubelets offline).
    expected = json.loads(offline.stdout)
    assert [n for n in expected.pop("notes") if "Kubernetes v" not in n] == [n for n in out.pop("notes") if "Kubernetes v" not in n]
    assert expected == out


def test_a_workload_reference_is_a_get_of_its_api_path(tmp_path: Path, certs: tuple[Path, Path, Path]) -> None:
    objects = [o for o, _line in load_objects(str(CLUSTER))]
    deploy = {"apiVersion": "apps/v1", "kind": "Deployment",
              "metadata": {"name": "hello", "namespace": "shop", "uid": "d-1"},
              "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "hello"}},
                       "template": {"metadata": {"labels": {"app": "hello"}},
                                    "spec": {"containers": [{"name": "c", "image": "nginx",
                                                             "resources": {"requests": {"cpu": "100m"}}}]}}}}
    with FakeAPIServer([*objects, deploy], certs) as srv:
        kc = kubeconfig(tmp_path / "kc", srv, certs[0])
        res = run("explain", "deploy/hello", "-n", "shop", "--kubeconfig", str(kc), "-o", "json")
        assert res.exit_code == 0, res.output
        assert json.loads(res.stdout)["pod"].startswith("shop/hello-")
        # One GET of the object itself; the cluster-wide deployments list (read for workloads
        # that already run) is the only other request that names the kind.
        named = [p for p, _q in srv.requests if "deployments" in p]
        assert named.count("/apis/apps/v1/namespaces/shop/deployments/hello") == 1
        assert set(named) <= {"/apis/apps/v1/namespaces/shop/deployments/hello", "/apis/apps/v1/deployments"}
        missing = run("explain", "sts/nope", "-n", "shop", "--kubeconfig", str(kc))
        assert missing.exit_code == 2
        assert 'statefulsets.apps "nope" not found in namespace "shop"' in " ".join(missing.output.split())
        assert set(srv.methods) == {"GET"}


def _pending_cluster_with_more_events() -> list[dict[str, Any]]:
    """examples/pending.yaml (two FailedScheduling events for one pod, one for another) and
    events pending never compares: another reason, and a FailedScheduling event of a pod
    that has since been scheduled."""
    objects = [o for o, _line in load_objects(str(PENDING_DUMP))]
    running = next(o for o in objects if o.get("kind") == "Pod" and (o.get("spec") or {}).get("nodeName"))
    meta = running["metadata"]
    for i, reason in enumerate(("Scheduled", "FailedScheduling")):
        objects.append({"kind": "Event", "apiVersion": "v1",
                        "metadata": {"name": f"{meta['name']}.{i}", "namespace": meta.get("namespace", "default")},
                        "involvedObject": {"kind": "Pod", "name": meta["name"],
                                           "namespace": meta.get("namespace", "default")},
                        "reason": reason, "message": "0/4 nodes are available: old news.",
                        "lastTimestamp": "2024-01-01T00:00:00Z"})
    return objects


def test_pending_reads_the_failed_scheduling_events_in_one_list(tmp_path: Path, certs: tuple[Path, Path, Path]) -> None:
    with FakeAPIServer(_pending_cluster_with_more_events(), certs) as srv:
        kc = kubeconfig(tmp_path / "kc", srv, certs[0])
        live = run("pending", "--kubeconfig", str(kc), "-o", "json")
        assert live.exit_code == 1, live.output
        event_reads = [(p, q["fieldSelector"][0]) for p, q in srv.requests if p.endswith("/events")]
        assert set(srv.methods) == {"GET"}
    # One list for the run, filtered by the server, never one per pending pod.
    assert event_reads == [("/api/v1/events", "involvedObject.kind=Pod,reason=FailedScheduling")]
    # Live, the release is the server's (/version: v1.35.4); the dump names none, so offline
    # it is given.
    assert json.loads(live.stdout)["kubernetesVersion"] == "v1.35"
    offline = run("pending", "-c", str(PENDING_DUMP), "-o", "json", "--kubernetes-version", "1.35")
    assert json.loads(live.stdout) == json.loads(offline.stdout)
    assert json.loads(live.stdout)["eventsCompared"] == 2


def test_pending_without_permission_on_events_says_so(tmp_path: Path, certs: tuple[Path, Path, Path]) -> None:
    with FakeAPIServer(_pending_cluster_with_more_events(), certs) as srv:
        srv.forbidden = {"events"}
        res = run("pending", "--kubeconfig", str(kubeconfig(tmp_path / "kc", srv, certs[0])), "-o", "json")
    assert res.exit_code == 1, res.output
    out = json.loads(res.stdout)
    assert out["eventsCompared"] == 0
    assert "no permission to list events: no pending pod is compared with its FailedScheduling events" \
        in out["warnings"]


def test_a_snapshot_keeps_each_pending_pods_latest_failed_scheduling_event(tmp_path: Path,
                                                                          certs: tuple[Path, Path, Path]) -> None:
    with FakeAPIServer(_pending_cluster_with_more_events(), certs) as srv:
        kc = kubeconfig(tmp_path / "kc", srv, certs[0])
        live = run("pending", "--kubeconfig", str(kc), "-o", "json")
        snap = tmp_path / "snap.yaml"
        assert run("snapshot", "--kubeconfig", str(kc), "-o", str(snap)).exit_code == 0
    events = [o for o in yaml.safe_load(snap.read_text())["items"] if o["kind"] == "Event"]
    # Only the latest of report-big's two, and web's one: no other reason, no scheduled pod.
    assert sorted(e["metadata"]["name"] for e in events) == ["report-big-x7k2p.003f256e",
                                                             "web-6d4cf56db6-r8t5z.0529993a"]
    offline = run("pending", "--snapshot", str(snap), "-o", "json")
    assert json.loads(offline.stdout) == json.loads(live.stdout)
    assert json.loads(offline.stdout)["eventsCompared"] == 2


def test_admission_objects_are_listed_live(tmp_path: Path, certs: tuple[Path, Path, Path]) -> None:
    """LimitRanges, ResourceQuotas and RuntimeClasses are read from the live cluster and used by
    admission; without the permission to list them, a warning says what is left out."""
    objects = [o for o, _line in load_objects(str(CLUSTER))]
    quota = {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "cap", "namespace": "shop"},
             "spec": {"hard": {"pods": "1"}}, "status": {"hard": {"pods": "1"}, "used": {"pods": "1"}}}
    with FakeAPIServer([*objects, quota], certs) as srv:
        kc = kubeconfig(tmp_path / "kc", srv, certs[0])
        res = run("explain", WEB, "--kubeconfig", str(kc))
        assert res.exit_code == 2
        assert "exceeded quota: cap, requested: pods=1, used: pods=1, limited: pods=1" in " ".join(res.output.split())
        assert "/api/v1/resourcequotas" in [p for p, _q in srv.requests]
        srv.forbidden = {"resourcequotas", "limitranges"}
        res = run("explain", WEB, "--kubeconfig", str(kc), "-o", "json")
        assert res.exit_code == 0, res.output
        warnings = json.loads(res.stdout)["warnings"]
        assert "no permission to list resourcequotas: admission checks no ResourceQuota" in warnings
        assert "no permission to list limitranges: admission applies no LimitRange defaults or limits" in warnings


def test_device_taint_rules_are_read_from_dumps_and_listed_live(tmp_path: Path, certs: tuple[Path, Path, Path]) -> None:
    """DeviceTaintRules (resource.k8s.io/v1beta2 in 1.36) taint the devices they select when
    DRADeviceTaintRules is on (issue 46): read from a dump and from the live cluster alike;
    a server that does not serve the API (it is off by default) answers 404, said nothing of."""
    case = ROOT / "tests" / "golden" / "cases" / "gates137-30"
    dump = case / "cluster.yaml.gz"
    objects = [o for o, _line in load_objects(str(dump))]
    assert any(o.get("kind") == "DeviceTaintRule" for o in objects)
    pod = str(case / "pod.yaml")
    gates = ("--kubernetes-version", "1.36", "--feature-gates", "DRADeviceTaintRules=true", "-o", "json")

    def tainted(out: str) -> list[str]:
        nodes = json.loads(out)["nodes"]
        return sorted(n for n, v in nodes.items() if v.get("reasons") == ["cannot allocate all claims"]
                      and n.startswith("gpu"))

    from_dump = run("explain", pod, "--snapshot", str(dump), *gates)
    assert from_dump.exit_code == 0, from_dump.output
    assert tainted(from_dump.stdout) == ["gpu-03", "gpu-04", "gpu-05"]
    with FakeAPIServer(objects, certs) as srv:
        srv.git_version = "v1.36.3"
        kc = kubeconfig(tmp_path / "kc", srv, certs[0])
        live = run("explain", pod, "--kubeconfig", str(kc), *gates)
        assert live.exit_code == 0, live.output
        assert tainted(live.stdout) == ["gpu-03", "gpu-04", "gpu-05"]
        assert "/apis/resource.k8s.io/v1beta2/devicetaintrules" in [p for p, _q in srv.requests]
        # A snapshot of the listing keeps them.
        snap = tmp_path / "snap.yaml"
        assert run("snapshot", "--kubeconfig", str(kc), "-o", str(snap)).exit_code == 0
        assert "kind: DeviceTaintRule" in snap.read_text()
    without = [o for o in objects if o.get("kind") != "DeviceTaintRule"]
    with FakeAPIServer(without, certs) as srv:
        srv.git_version = "v1.36.3"
        srv.missing = {"/apis/resource.k8s.io/v1beta2/devicetaintrules"}
        kc = kubeconfig(tmp_path / "kc2", srv, certs[0])
        res = run("explain", pod, "--kubeconfig", str(kc), *gates)
        assert res.exit_code == 0, res.output
        assert not any("devicetaintrules" in w for w in json.loads(res.stdout)["warnings"])

"""`kubectl cluster-info dump` as a cluster source: its stdout form (lists one after another,
container logs between them) and its --output-directory tree explain exactly as the same
objects in one `kind: List` dump."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from kschedx.cli.app import app

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "cluster.yaml"
PODS = ROOT / "examples" / "pods"

# What cluster-info dump lists per namespace, in its order, and the file each goes to.
PER_NAMESPACE = [("Event", "events"), ("ReplicationController", "replication-controllers"), ("Service", "services"),
                 ("DaemonSet", "daemonsets"), ("Deployment", "deployments"), ("ReplicaSet", "replicasets"),
                 ("Pod", "pods")]


def run(*args: str) -> Any:
    return CliRunner().invoke(app, list(args), env={"NO_COLOR": "1", "COLUMNS": "100"})


def _list(kind: str, items: list[dict[str, Any]] | None) -> dict[str, Any]:
    return {"kind": f"{kind}List", "apiVersion": "v1", "metadata": {"resourceVersion": "4711"}, "items": items}


def _logs(pods: list[dict[str, Any]]) -> str:
    out = []
    for pod in pods:
        for c in pod["spec"]["containers"]:
            ns, name = pod["metadata"]["namespace"], pod["metadata"]["name"]
            out.append(f"==== START logs for container {c['name']} of pod {ns}/{name} ====\n"
                       '{"level":"info","msg":"listening on :8080"}\n[notice] { not json\n'
                       f"==== END logs for container {c['name']} of pod {ns}/{name} ====\n")
    return "".join(out)


@pytest.fixture(scope="module")
def dumps(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    objects = [o for doc in yaml.safe_load_all(EXAMPLE.read_text()) for o in doc["items"]]
    nodes = [o for o in objects if o["kind"] == "Node"]
    namespaces = sorted({o["metadata"]["namespace"] for o in objects if o["kind"] == "Pod"})
    d = tmp_path_factory.mktemp("cluster-info")
    out = d / "out"
    (out).mkdir()
    stdout = [json.dumps(_list("Node", nodes), indent=4)]
    same: list[dict[str, Any]] = list(nodes)
    (out / "nodes.json").write_text(stdout[0])
    for ns in namespaces:
        (out / ns).mkdir()
        for kind, file in PER_NAMESPACE:
            items = [o for o in objects if o["kind"] == kind and o["metadata"].get("namespace") == ns]
            same.extend(items)
            # kubectl writes an empty list as `items: null` when the server sends none.
            text = json.dumps(_list(kind, items or None), indent=4)
            stdout.append(text)
            (out / ns / f"{file}.json").write_text(text)
            if kind == "Pod":
                stdout.append(_logs(items))
                for pod in items:
                    (out / ns / pod["metadata"]["name"]).mkdir()
                    (out / ns / pod["metadata"]["name"] / "logs.txt").write_text(_logs([pod]))
    (d / "dump.txt").write_text("\n".join(stdout))
    (d / "list.yaml").write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": same}))
    # What cluster-info dump does not list (PriorityClasses, StorageClasses, PVs, ...), as
    # `kubectl get priorityclasses,storageclasses,... -o yaml` would add it: given to both.
    kinds = {"Node", *(k for k, _ in PER_NAMESPACE)}
    rest = [o for o in objects if o["kind"] not in kinds]
    (d / "rest.yaml").write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": rest}))
    return {"stdout": str(d / "dump.txt"), "dir": str(out), "list": str(d / "list.yaml"), "rest": str(d / "rest.yaml")}


@pytest.mark.parametrize("pod", ["web-deployment.yaml", "zone-spread.yaml", "too-big.yaml"])
def test_both_forms_explain_as_the_list_dump(dumps: dict[str, str], pod: str) -> None:
    want = run("explain", str(PODS / pod), "--cluster", dumps["list"], "--cluster", dumps["rest"], "-o", "json")
    assert want.exit_code in (0, 1), want.output
    for form in ("stdout", "dir"):
        got = run("explain", str(PODS / pod), "--cluster", dumps[form], "--cluster", dumps["rest"], "-o", "json")
        assert got.exit_code == want.exit_code, got.output
        assert json.loads(got.stdout) == json.loads(want.stdout), form


def test_items_null_is_an_empty_list(tmp_path: Path) -> None:
    empty = tmp_path / "empty.yaml"
    empty.write_text("apiVersion: v1\nkind: PodList\nmetadata: {resourceVersion: '1'}\nitems: null\n")
    res = run("explain", str(PODS / "web-deployment.yaml"), "--cluster", str(EXAMPLE), "--cluster", str(empty),
              "-o", "json")
    assert res.exit_code == 0, res.output
    assert "PodList" not in res.stdout  # not reported as a kind the pipeline skipped


def test_an_object_without_kind_is_named(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"kind": "List", "apiVersion": "v1", "items": [
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "a"}},
        {"apiVersion": "v1", "metadata": {"name": "b"}}]}))
    res = run("explain", str(PODS / "web-deployment.yaml"), "--cluster", str(bad))
    assert res.exit_code == 2
    assert f"{bad}: object 2 (b) has no kind" in res.stderr
    pod = tmp_path / "pod.yaml"
    pod.write_text("apiVersion: v1\nmetadata: {name: x}\n")
    res = run("explain", str(pod), "--cluster", str(EXAMPLE))
    assert res.exit_code == 2
    assert "found an object without kind (document 1)" in res.stderr and "None" not in res.stderr

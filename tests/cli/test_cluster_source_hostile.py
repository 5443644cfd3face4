"""A hostile cluster source through the real CLI: objects of the wrong type, duplicates,
broken Events, files that change or are too large, deep nesting, and a hostile
environment (closed stdin, an ASCII-only output, a one-column screen)."""

from __future__ import annotations

import copy
import gzip
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from kschedx.cli.app import app
from kschedx.core.api.objects import ClusterObjects
from kschedx.core.errors import InputError
from kschedx.core.load import files, jsonmap
from kschedx.core.load.snapshot_file import write_snapshot

runner = CliRunner()
PYTHON_WORDS = ("Traceback", "NoneType", "AttributeError", "TypeError", "ValueError", "KeyError", "RecursionError",
                "MemoryError", "IndexError", "object has no attribute", "could not interpret the input")

NODE: dict[str, Any] = {
    "apiVersion": "v1", "kind": "Node",
    "metadata": {"name": "n1", "labels": {"kubernetes.io/hostname": "n1"}},
    "spec": {"taints": [{"key": "dedicated", "value": "x", "effect": "PreferNoSchedule"}]},
    "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
               "capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"}},
}
POD: dict[str, Any] = {
    "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "busy", "namespace": "default", "uid": "u-1"},
    "spec": {"nodeName": "n1", "priority": 0,
             "containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "3"}}}]},
    "status": {"phase": "Running"},
}
SLICE: dict[str, Any] = {
    "apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "n1-gpu"},
    "spec": {"driver": "gpu.example.com", "nodeName": "n1", "pool": {"name": "n1", "generation": 1,
                                                                    "resourceSliceCount": 1},
             "devices": [{"name": "gpu-0", "attributes": {"model": {"string": "a100"}}}]},
}
PVC: dict[str, Any] = {
    "apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "data", "namespace": "default"},
    "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
}
EVENT: dict[str, Any] = {
    "apiVersion": "v1", "kind": "Event", "metadata": {"name": "waiting.1", "namespace": "default"},
    "involvedObject": {"kind": "Pod", "name": "waiting", "namespace": "default"},
    "reason": "FailedScheduling", "message": "0/1 nodes are available: 1 Insufficient cpu.", "count": 1,
    "type": "Warning",
}
WAITING: dict[str, Any] = {
    "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "waiting", "namespace": "default"},
    "spec": {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "2"}}}]},
    "status": {"phase": "Pending"},
}
INCOMING = """\
apiVersion: v1
kind: Pod
metadata: {name: incoming, namespace: default}
spec:
  containers: [{name: c, image: nginx, resources: {requests: {cpu: "1"}}}]
"""


def dump(path: Path, *objects: dict[str, Any]) -> str:
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": list(objects)}, indent=1))
    return str(path)


def changed(obj: dict[str, Any], where: tuple[str | int, ...], value: Any) -> dict[str, Any]:
    out = copy.deepcopy(obj)
    cur: Any = out
    for k in where[:-1]:
        cur = cur[k]
    cur[where[-1]] = value
    return out


def explain(tmp_path: Path, *snapshots: str, extra: tuple[str, ...] = ()) -> Any:
    manifest = tmp_path / "incoming.yaml"
    manifest.write_text(INCOMING)
    args = ["explain", str(manifest), *[a for s in snapshots for a in ("--snapshot", s)], "-o", "json", *extra]
    return runner.invoke(app, args, env={"NO_COLOR": "1"})


def one_error_line(res: Any, code: int = 2) -> str:
    assert res.exit_code == code, (res.exit_code, res.output)
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    for word in PYTHON_WORDS:
        assert word not in lines[0], lines[0]
    assert "incoming.yaml" not in lines[0], lines[0]  # the manifest is never blamed for the cluster
    return str(lines[0])


# --- 1. stored objects decode as the API server's types ------------------------------------

WRONG_TYPES = [
    (NODE, ("metadata", "labels"), ["a"], "Node n1: json: cannot unmarshal array into Go struct field "
     "ObjectMeta.metadata.labels of type map[string]string"),
    (NODE, ("status", "allocatable"), "4", "Node n1: json: cannot unmarshal string into Go struct field "
     "NodeStatus.status.allocatable of type v1.ResourceList"),
    (NODE, ("spec", "taints"), {"key": "a"}, "Node n1: json: cannot unmarshal object into Go struct field "
     "NodeSpec.spec.taints of type []v1.Taint"),
    (NODE, ("spec", "unschedulable"), "yes", "Node n1: json: cannot unmarshal string into Go struct field "
     "NodeSpec.spec.unschedulable of type bool"),
    (NODE, ("spec", "taints", 0, "effect"), 3, "Node n1: json: cannot unmarshal number into Go struct field "
     "Taint.spec.taints.effect of type v1.TaintEffect"),
    (POD, ("spec", "containers"), {"name": "c"}, "Pod default/busy: json: cannot unmarshal object into Go struct "
     "field PodSpec.spec.containers of type []v1.Container"),
    (POD, ("spec", "priority"), "high", "Pod default/busy: json: cannot unmarshal string into Go struct field "
     "PodSpec.spec.priority of type int32"),
    (POD, ("spec", "nodeName"), 1, "Pod default/busy: json: cannot unmarshal number into Go struct field "
     "PodSpec.spec.nodeName of type string"),
    (SLICE, ("spec", "devices"), "x", "ResourceSlice n1-gpu: json: cannot unmarshal string into Go struct field "
     "ResourceSliceSpec.spec.devices of type []v1.Device"),
    (PVC, ("spec", "accessModes"), "ReadWriteOnce", "PersistentVolumeClaim default/data: json: cannot unmarshal "
     "string into Go struct field PersistentVolumeClaimSpec.spec.accessModes of type []v1.PersistentVolumeAccessMode"),
]


# The kinds admission and the replica counts read are decoded as their types too.
LIMIT_RANGE: dict[str, Any] = {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "lr", "namespace": "default"},
                               "spec": {"limits": [{"type": "Container", "default": {"cpu": "500m"}}]}}
QUOTA: dict[str, Any] = {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "q", "namespace": "default"},
                         "spec": {"hard": {"pods": "10"}}}
RUNTIME_CLASS: dict[str, Any] = {"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "metadata": {"name": "kata"},
                                 "handler": "kata", "overhead": {"podFixed": {"cpu": "250m"}}}
HPA: dict[str, Any] = {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
                       "metadata": {"name": "web", "namespace": "default"},
                       "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "web"}, "maxReplicas": 5}}
WRONG_TYPES += [
    (LIMIT_RANGE, ("spec", "limits"), {"type": "Container"}, "LimitRange default/lr: json: cannot unmarshal object "
     "into Go struct field LimitRangeSpec.spec.limits of type []v1.LimitRangeItem"),
    (QUOTA, ("spec", "hard"), ["pods"], "ResourceQuota default/q: json: cannot unmarshal array into Go struct field "
     "ResourceQuotaSpec.spec.hard of type v1.ResourceList"),
    (RUNTIME_CLASS, ("handler",), 1, "RuntimeClass kata: json: cannot unmarshal number into Go struct field "
     "RuntimeClass.handler of type string"),
    (HPA, ("spec", "maxReplicas"), "five", "HorizontalPodAutoscaler default/web: json: cannot unmarshal string into "
     "Go struct field HorizontalPodAutoscalerSpec.spec.maxReplicas of type int32"),
]


@pytest.mark.parametrize("case", WRONG_TYPES, ids=lambda c: ".".join(map(str, c[1])) + f"={c[2]!r}")
def test_a_stored_value_of_the_wrong_type_is_an_error_naming_the_dump(tmp_path: Path, case: Any) -> None:
    base, where, value, message = case
    objects = [NODE, POD, SLICE, PVC, LIMIT_RANGE, QUOTA, RUNTIME_CLASS, HPA]
    bad = [changed(o, where, value) if o is base else o for o in objects]
    path = dump(tmp_path / "cluster.json", *bad)
    line = one_error_line(explain(tmp_path, path))
    assert line.startswith(f"error: {path}:"), line
    assert line.endswith(message), line


def test_the_error_gives_the_line_of_the_field_in_a_yaml_dump(tmp_path: Path) -> None:
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump_all([NODE, changed(POD, ("spec", "priority"), "high")], sort_keys=False))
    line = one_error_line(explain(tmp_path, str(path)))
    number = next(i for i, text in enumerate(path.read_text().splitlines(), 1) if "priority: high" in text)
    assert line.startswith(f"error: {path}:{number}: Pod default/busy: json: cannot unmarshal string"), line


def test_a_cluster_info_dump_folder_names_the_file_inside_it(tmp_path: Path) -> None:
    root = tmp_path / "dump"
    (root / "default").mkdir(parents=True)
    dump(root / "nodes.json", NODE)
    bad = dump(root / "default" / "pods.json", changed(POD, ("spec", "nodeName"), 1))
    line = one_error_line(explain(tmp_path, str(root)))
    assert line.startswith(f"error: {bad}:") and "Pod default/busy" in line, line


def test_null_is_the_zero_value_and_unknown_fields_are_dropped(tmp_path: Path) -> None:
    # encoding/json: null leaves the zero value; a field the type lacks is not an error.
    node = changed(changed(NODE, ("spec", "taints"), None), ("status", "futureField"), {"x": [1]})
    res = explain(tmp_path, dump(tmp_path / "c.json", node, changed(POD, ("spec", "priority"), None)))
    assert res.exit_code == 0, res.output


def test_a_stored_pod_is_never_validated_again(tmp_path: Path) -> None:
    # Today's validation refuses this selector value; the stored pod is explained as stored
    # and InterPodAffinity's PreFilter turns it down in its own words (SPEC §1).
    pending = copy.deepcopy(WAITING)
    pending["spec"]["affinity"] = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "bad value!"}}, "topologyKey": "kubernetes.io/hostname"}]}}
    path = dump(tmp_path / "c.json", NODE, pending)
    res = runner.invoke(app, ["explain", "pod/waiting", "--snapshot", path, "-o", "json"], env={"NO_COLOR": "1"})
    assert res.exit_code == 1, res.output
    assert "is invalid" not in res.output
    assert "InterPodAffinity" in res.stdout and "bad value!" in res.stdout


# --- 2. one object per identity ------------------------------------------------------------

def test_a_pod_in_two_overlapping_dumps_counts_once(tmp_path: Path) -> None:
    # 3 of 4 CPUs used by one pod; counted twice it would leave no room for 1 more.
    first = dump(tmp_path / "a.json", NODE, POD)
    second = dump(tmp_path / "b.json", POD)
    res = explain(tmp_path, first, second)
    assert res.exit_code == 0, res.output
    assert res.stderr.strip() == ""  # identical copies: merged silently
    res = explain(tmp_path, dump(tmp_path / "twice.json", NODE, POD, POD))
    assert res.exit_code == 0, res.output


def test_differing_copies_take_the_later_one_with_one_warning(tmp_path: Path) -> None:
    first = dump(tmp_path / "a.json", NODE, POD)
    smaller = changed(POD, ("spec", "containers", 0, "resources", "requests", "cpu"), "500m")
    second = dump(tmp_path / "b.json", smaller, changed(NODE, ("metadata", "labels"), {"zone": "b"}))
    res = runner.invoke(app, ["explain", str(_manifest(tmp_path)), "--snapshot", first, "--snapshot", second],
                        env={"NO_COLOR": "1", "COLUMNS": "400"})
    assert res.exit_code == 0, res.output
    warnings = [w for w in res.output.splitlines() if "differ between" in w]
    assert len(warnings) == 1, res.output
    assert first in warnings[0] and second in warnings[0] and "Node n1" in warnings[0]
    assert "Pod default/busy" in warnings[0]


def test_two_different_nodes_of_one_name_are_one_node_and_a_warning(tmp_path: Path) -> None:
    path = dump(tmp_path / "c.json", NODE, changed(NODE, ("status", "allocatable", "cpu"), "8"))
    res = runner.invoke(app, ["explain", str(_manifest(tmp_path)), "--snapshot", path, "-o", "json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert "holds 1 object(s) twice with different content (Node n1)" in " ".join(out["warnings"])


def _manifest(tmp_path: Path) -> Path:
    path = tmp_path / "incoming.yaml"
    path.write_text(INCOMING)
    return path


def test_events_that_do_not_decode_are_left_out_with_one_note(tmp_path: Path) -> None:
    bad = [changed(EVENT, ("count",), "x"), changed(changed(EVENT, ("metadata", "name"), "w.2"),
                                                       ("involvedObject",), "waiting")]
    for path in (dump(tmp_path / "c.json", NODE, POD, WAITING, *bad),
                 str(_yaml(tmp_path / "c.yaml", NODE, POD, WAITING, *bad))):
        res = runner.invoke(app, ["pending", "--snapshot", path], env={"NO_COLOR": "1"})
        assert res.exit_code == 1, res.output
        notes = [line for line in res.stderr.splitlines() if "could not be decoded" in line]
        assert len(notes) == 1 and notes[0].startswith(f"warning: 2 Event(s) of {path}"), res.stderr
        assert "default/waiting" in res.stdout


def _yaml(path: Path, *objects: dict[str, Any]) -> Path:
    path.write_text(yaml.safe_dump_all(list(objects), sort_keys=False))
    return path


# --- 3. files and sizes --------------------------------------------------------------------

def test_a_dump_truncated_while_it_is_read_is_an_error_naming_it(tmp_path: Path) -> None:
    path = Path(dump(tmp_path / "c.json", NODE, POD))
    with open(path, "rb") as f:
        before = os.fstat(f.fileno())
        os.truncate(path, before.st_size // 2)  # a refresh rewriting it in place
        with pytest.raises(InputError) as e:
            jsonmap._read_private(f, before, str(path))
    assert str(e.value).startswith(f"{path}: the file changed while it was read")


def test_the_dump_is_read_not_mapped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A mapping of the file dies of SIGBUS when the file shrinks under it: never map a file.
    real = jsonmap.mmap.mmap

    def only_anonymous(fileno: int, *args: Any, **kwargs: Any) -> Any:
        assert fileno == -1, "a file was mapped"
        return real(fileno, *args, **kwargs)

    monkeypatch.setattr(jsonmap.mmap, "mmap", only_anonymous)
    res = explain(tmp_path, dump(tmp_path / "c.json", NODE, POD))
    assert res.exit_code == 0, res.output


def test_snapshot_file_is_replaced_atomically(tmp_path: Path) -> None:
    path = tmp_path / "snap.json"
    path.write_text("old")
    os.chmod(path, 0o640)
    with open(path, "rb") as reader:  # a `check` reading the old file keeps it whole
        assert write_snapshot(ClusterObjects(), str(path)) == 0
        assert reader.read() == b"old"
    assert json.loads(path.read_bytes())["items"] == []
    assert os.stat(path).st_mode & 0o777 == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["snap.json"]  # no temporary file left
    with pytest.raises(InputError):
        write_snapshot(ClusterObjects(), str(tmp_path / "missing-dir" / "s.json"))


def test_a_gzip_bomb_and_endless_stdin_end_with_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for module in (files, jsonmap):
        monkeypatch.setattr(module, "MAX_INPUT", 1 << 20)
    monkeypatch.setattr(files, "_CHUNK", 1 << 16)
    bomb = tmp_path / "bomb.json.gz"
    bomb.write_bytes(gzip.compress(b'{"kind": "List", "items": [' + b" " * (4 << 20) + b"]}"))
    line = one_error_line(explain(tmp_path, str(bomb)))
    assert line.startswith(f"error: {bomb}: larger than") and "GiB" in line, line
    big = json.dumps({"apiVersion": "v1", "kind": "List", "items": [NODE] * 10000})
    res = runner.invoke(app, ["explain", str(_manifest(tmp_path)), "--snapshot", "-"], input=big)
    assert one_error_line(res).startswith("error: -: larger than")


def test_a_file_of_nul_bytes_is_refused_from_its_first_bytes(tmp_path: Path) -> None:
    nul = tmp_path / "zeros.json"
    nul.write_bytes(b"\0" * (1 << 20))
    line = one_error_line(explain(tmp_path, str(nul)))
    assert line == f"error: {nul}: neither YAML nor JSON: binary data (a NUL byte in its first bytes)"


def test_a_large_invalid_json_dump_is_reported_without_reparsing(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(files, "_TEXT_FALLBACK_LIMIT", 1000)
    path = tmp_path / "cut.json"
    text = json.dumps({"apiVersion": "v1", "kind": "List", "items": [NODE] * 50}, indent=1)
    path.write_text(text[: len(text) // 2])  # a List's head and no end
    line = one_error_line(explain(tmp_path, str(path)))
    assert line.startswith(f"error: {path}:") and "invalid JSON" in line, line


@pytest.mark.parametrize("where", ["dump", "item", "manifest"])
def test_deep_nesting_is_an_input_error_not_a_recursion_error(tmp_path: Path, where: str) -> None:
    deep = '{"a":' * 5000 + "1" + "}" * 5000
    cluster = tmp_path / "c.json"
    manifest = _manifest(tmp_path)
    if where == "dump":
        cluster.write_text("[" * 5000 + "]" * 5000)
    elif where == "item":
        cluster.write_text('{"apiVersion": "v1", "kind": "List", "items": [' + deep + "]}")
    else:
        dump(cluster, NODE)
        manifest.write_text(deep)
    res = runner.invoke(app, ["explain", str(manifest), "--snapshot", str(cluster)])
    bad = manifest if where == "manifest" else cluster
    assert res.exit_code == 2, res.output
    assert res.stderr.strip() == f"error: {bad}: nested too deeply (over about 1,000 levels of lists and mappings; " \
                                 "Kubernetes objects are a few dozen deep)"


# --- the environment (subprocesses: a real closed descriptor, a real encoding) --------------

def _kschedx(args: list[str], env: dict[str, str] | None = None, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "PYTHONIOENCODING", "NO_COLOR")}
    return subprocess.run([sys.executable, "-m", "kschedx.cli.app", *args], env={**base, **(env or {})},
                          capture_output=True, text=True, encoding="utf-8", errors="replace", timeout=120,
                          **kwargs)


def test_empty_and_closed_stdin_end_cleanly(tmp_path: Path) -> None:
    cluster = dump(tmp_path / "c.json", NODE)
    empty = _kschedx(["explain", "-", "--snapshot", cluster], stdin=subprocess.DEVNULL)
    assert empty.returncode == 2 and empty.stderr.startswith("error: -: no Pod or workload"), empty.stderr
    closed = _kschedx(["explain", "-", "--snapshot", cluster], preexec_fn=lambda: os.close(0))
    assert closed.returncode == 2, closed.stderr
    assert closed.stderr == "error: -: standard input is closed (nothing to read)\n"


def test_an_ascii_only_output_ends_cleanly(tmp_path: Path) -> None:
    cluster = dump(tmp_path / "c.json", NODE)
    res = _kschedx(["explain", str(_manifest(tmp_path)), "--snapshot", cluster],
                   env={"PYTHONIOENCODING": "ascii", "NO_COLOR": "1"})
    assert res.returncode == 0, res.stderr
    assert res.stderr == ""
    assert "\\u2713 fits" in res.stdout  # the check mark, escaped


def test_a_one_column_screen_renders_at_the_minimum_width(tmp_path: Path) -> None:
    cluster = dump(tmp_path / "c.json", changed(NODE, ("metadata", "name"), "node-with-a-long-name"))
    res = _kschedx(["explain", str(_manifest(tmp_path)), "--snapshot", cluster], env={"COLUMNS": "1", "NO_COLOR": "1"})
    assert res.returncode == 0, res.stderr
    assert "node-with-a-long-name" in res.stdout  # not one character a line
    assert "default-scheduler" in res.stdout


# --- live: the same decoding, exit 3 naming the URL ----------------------------------------

def test_a_live_object_of_the_wrong_type_is_exit_3_naming_the_url(tmp_path: Path) -> None:
    from tests.live.fake_apiserver import FakeAPIServer, make_certs

    (tmp_path / "certs").mkdir()
    certs = make_certs(tmp_path / "certs")
    with FakeAPIServer([changed(NODE, ("metadata", "labels"), ["a"]), POD], certs) as server:
        kc = tmp_path / "kc"
        kc.write_text(yaml.safe_dump({
            "apiVersion": "v1", "kind": "Config", "current-context": "t",
            "clusters": [{"name": "c", "cluster": {"server": server.url, "certificate-authority": str(certs[0])}}],
            "users": [{"name": "u", "user": {"token": "good-token"}}],
            "contexts": [{"name": "t", "context": {"cluster": "c", "user": "u"}}]}))
        res = runner.invoke(app, ["explain", str(_manifest(tmp_path)), "--kubeconfig", str(kc)])
    line = one_error_line(res, 3)
    assert line == (f"error: {server.url}/api/v1/nodes: Node n1: json: cannot unmarshal array "
                    "into Go struct field ObjectMeta.metadata.labels of type map[string]string"), line


def test_a_file_of_a_lists_first_line_is_refused_from_its_first_bytes(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "lines.json"
    path.write_text('{"apiVersion": "v1", "kind": "List", "items": [\n' * 200_000)

    def never(*args: Any) -> Any:
        raise AssertionError("the whole file was read")

    monkeypatch.setattr(jsonmap, "_read_private", never)
    monkeypatch.setattr(files, "_read_pieces", never)
    line = one_error_line(explain(tmp_path, str(path)))
    assert line.startswith(f"error: {path}: nested too deeply"), line


def test_the_items_of_a_typed_list_are_checked_as_their_lists_kind(tmp_path: Path) -> None:
    # The API's own NodeList: its items carry no kind and apiVersion of their own.
    path = tmp_path / "nodes.json"
    item = {k: v for k, v in changed(NODE, ("spec", "unschedulable"), "yes").items() if k not in ("kind", "apiVersion")}
    path.write_text(json.dumps({"kind": "NodeList", "apiVersion": "v1", "items": [item]}))
    line = one_error_line(explain(tmp_path, str(path)))
    assert line.endswith("Node n1: json: cannot unmarshal string into Go struct field NodeSpec.spec.unschedulable "
                         "of type bool"), line

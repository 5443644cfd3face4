"""Decoding JSON List dumps from a mapping, item by item (core/load/jsonmap.py): the same
documents and objects as decoding the file's bytes at once, for every shape of file."""

from __future__ import annotations

import copy
import gzip
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest
import yaml

from kschedx.core.api.objects import share_strings
from kschedx.core.errors import InputError
from kschedx.core.load import files, jsonmap
from kschedx.core.load.files import load_cluster, parse_bytes, parse_file, read_bytes

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "cluster.yaml"


def _whole(path: Path) -> Any:
    """What the ordinary path makes of the file: its bytes decoded at once."""
    return parse_bytes(read_bytes(str(path)), str(path))


def _outcome(path: Path) -> Any:
    try:
        objs = load_cluster([str(path)])
    except InputError as e:
        return str(e)
    return dict(objs.by_kind), objs.skipped_kinds, objs.server_version


def _same_load(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """load_cluster gives the same objects or the same error with and without the mapping."""
    mapped = _outcome(path)
    with monkeypatch.context() as m:
        m.setattr(files, "decode_list_file", lambda *_args: None)
        whole = _outcome(path)
    assert mapped == whole


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("gen") / "cluster.json"
    subprocess.run([sys.executable, str(ROOT / "bench" / "generate_cluster.py"), "--nodes", "30", "--out", str(out)],
                   check=True, capture_output=True)
    return out


@pytest.mark.parametrize("indent", [None, 4])
def test_generated_dump_decodes_to_the_same_values(generated: Path, tmp_path: Path, indent: int | None,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    # A small window makes the pages be released many times over, as for an 840 MB dump.
    monkeypatch.setattr(jsonmap, "WINDOW", 4096)
    released: list[int] = []
    real = jsonmap._release

    def spy(m: Any, end: int) -> None:
        released.append(end)
        real(m, end)

    monkeypatch.setattr(jsonmap, "_release", spy)
    path = tmp_path / "c.json"
    path.write_text(json.dumps(json.loads(generated.read_text()), indent=indent))
    expected = msgspec.json.decode(path.read_bytes())
    doc = jsonmap.decode_list_file(str(path))
    assert doc == expected
    size = path.stat().st_size
    # What is decoded, in order (the file is read into memory that is handed back as it goes).
    steps = list(released)
    assert parse_file(str(path)) == _whole(path)
    assert len(steps) > 10 and steps == sorted(steps) and steps[-1] == size
    _same_load(path, monkeypatch)


def test_example_cluster_as_json_loads_like_the_yaml(tmp_path: Path) -> None:
    docs = [d for d in yaml.safe_load_all(EXAMPLE.read_text()) if d]
    items = [i for d in docs for i in (d.get("items") if d.get("kind") == "List" else [d])]
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}}))
    assert parse_file(str(path)) == _whole(path)
    from_json = load_cluster([str(path)])
    from_yaml = load_cluster([str(EXAMPLE)])
    assert dict(from_json.by_kind) == dict(from_yaml.by_kind)
    assert from_json.skipped_kinds == from_yaml.skipped_kinds


@pytest.mark.parametrize("text", [
    '{"kind": "List", "apiVersion": "v1", "items": [], "metadata": {}}',
    '{"kind": "List", "items": null}',
    '{"items": [{"kind": "Node", "metadata": {"name": "a"}}]}',
    '{"kind": "NodeList", "items": [{"metadata": {"name": "a"}}, {"metadata": {"name": "b"}}]}',
    '{"kind":"List","metadata":{"annotations":{"kschedx.io/server-version":"v1.34.2"}},"items":[{"kind":"Node",'
    '"metadata":{"name":"a"}}]}',
    '{"kind": "List", "items": [{"kind": "Node"}], "items": [{"kind": "Pod", "metadata": {}}]}',  # the last wins
    '\n\n  {"kind": "List", "items": [{"kind": "Pod", "metadata": {"name": "p", "labels": {"a": "1"}}}, '
    '{"kind": "Pod", "metadata": {"name": "q"}, "spec": {"priority": 1.5e3, "x": [true, false, null]}}]}\n',
])
def test_list_documents_take_the_mapped_path(tmp_path: Path, text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "c.json"
    path.write_text(text)
    assert jsonmap.decode_list_file(str(path)) == msgspec.json.decode(text)
    assert parse_file(str(path)) == _whole(path)
    _same_load(path, monkeypatch)
    if "server-version" in text:
        assert load_cluster([str(path)]).server_version == "v1.34.2"


@pytest.mark.parametrize("text", [
    '{"kind": "Node", "metadata": {"name": "a"}}',  # one object, not a List
    '{"kind": "List", "items": [], "extra": 1}',  # a field a List does not have
    '{"kind": "List", "items": {"a": 1}}',  # items not an array
    '[{"kind": "Node", "metadata": {"name": "a"}}, {"kind": "Node", "metadata": {"name": "b"}}]',
    '{"kind": "Node", "metadata": {"name": "a"}}\n{"kind": "Node", "metadata": {"name": "b"}}\n',  # concatenated
    "kind: List\nitems: []\n",  # YAML
    "",
])
def test_other_files_take_the_ordinary_path(tmp_path: Path, text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "c.json"
    path.write_text(text)
    assert jsonmap.decode_list_file(str(path)) is None
    assert parse_file(str(path)) == _whole(path)
    _same_load(path, monkeypatch)


def test_missing_files_and_directories_are_left_to_the_ordinary_path(tmp_path: Path) -> None:
    assert jsonmap.decode_list_file(str(tmp_path / "missing.json")) is None
    assert jsonmap.decode_list_file(str(tmp_path)) is None
    with pytest.raises(InputError, match="no such file"):
        parse_file(str(tmp_path / "missing.json"))


@pytest.mark.parametrize("name", ["c.json.gz", "c.json"])
def test_gzip_list_decodes_from_anonymous_memory(generated: Path, tmp_path: Path, name: str,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    # Decompressed in small pieces and handed back in small windows: every page given
    # back must already be decoded, or the items after it would read zeros.
    monkeypatch.setattr(jsonmap, "WINDOW", 4096)
    monkeypatch.setattr(jsonmap, "_GZ_CHUNK", 1000)
    path = tmp_path / name  # gzip is recognised by its magic bytes too
    path.write_bytes(gzip.compress(json.dumps(json.loads(generated.read_text()), indent=2).encode()))
    expected = msgspec.json.decode(gzip.decompress(path.read_bytes()))
    assert jsonmap.decode_list_file(str(path)) == expected
    assert parse_file(str(path)) == _whole(path)
    _same_load(path, monkeypatch)


# Named ids: gzip writes the time into its header, so ids made of the bytes would differ
# between the pytest-xdist workers' collections (which must be equal).
@pytest.mark.parametrize("data", [
    gzip.compress(b'{"kind": "List", "items": [{"kind": "Node", "metadata": {"name": "a"}}]}')
    + gzip.compress(b" "),  # two members
    gzip.compress(b'{"kind": "List", "items": [{"kind": "Node", "metadata": {"name": "a"}}]}')[:-12],  # truncated
    gzip.compress(b'{"kind": "List", "items": [{"kind": "Node", "metadata": {"name": "a"}}]}')[:-4] + b"\0\0\0\0",
    gzip.compress(b"kind: List\nitems: [{kind: Node, metadata: {name: a}}]\n"),  # YAML
    gzip.compress(b'{"kind": "Node", "metadata": {"name": "a"}}'),  # not a List
    gzip.compress(b""),
    b'{"kind": "List", "items": []}',  # named .gz, not compressed
], ids=["two-members", "truncated", "wrong-size", "yaml", "not-a-list", "empty", "not-compressed"])
def test_other_gzip_files_take_the_ordinary_path(tmp_path: Path, data: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "c.json.gz"
    path.write_bytes(data)
    assert jsonmap.decode_list_file(str(path)) is None
    _same_load(path, monkeypatch)


@pytest.mark.parametrize("text", [
    '{"kind": "List", "items": [{"kind": "Node",}]}',
    '{"kind": "List", "items": [{"kind": "Node"}]',
    '{"kind": "List", "items": [{"kind": "Node", "metadata": {"name": "\xff"}}]}',
])
def test_invalid_json_is_left_to_the_ordinary_path(tmp_path: Path, text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # The ordinary path reports the error, or reads the text as YAML (a trailing comma).
    path = tmp_path / "c.json"
    path.write_bytes(text.encode("latin-1"))
    assert jsonmap.decode_list_file(str(path)) is None
    _same_load(path, monkeypatch)


def _strict(a: Any, b: Any) -> bool:
    """Equal value for value, type for type and in the same key order (== takes 1 for True)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_strict(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_strict(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def test_shared_strings_change_no_value(generated: Path) -> None:
    items = msgspec.json.decode(generated.read_bytes())["items"]
    fresh = msgspec.json.decode(generated.read_bytes())["items"]
    for item in items:
        share_strings(item)
    assert _strict(items, fresh)
    pods = [i for i in items if i["kind"] == "Pod"]
    # The repeated values are now one object each.
    first: dict[str, str] = {}
    for p in pods:
        for v in (p["spec"]["nodeName"], p["metadata"]["namespace"], p["spec"]["containers"][0]["image"],
                  p["metadata"]["ownerReferences"][0]["uid"], p["spec"]["tolerations"][0]["key"], p["kind"]):
            assert first.setdefault(v, v) is v


@pytest.mark.parametrize("obj", [
    {"kind": "Pod"},
    {"kind": "Pod", "metadata": None, "spec": [], "status": "x"},
    {"kind": "Pod", "apiVersion": 1, "metadata": {"namespace": True, "ownerReferences": [None, {"uid": 5}, "x"]},
     "spec": {"nodeName": 1.5, "containers": {"name": "c"}, "tolerations": [{"key": "k", "tolerationSeconds": 300,
                                                                              "operator": None}]},
     "status": {"phase": ["Running"], "conditions": [{"type": "Ready", "status": True, "lastProbeTime": None},
                                                     {"type": "X", "n": 1}, 7],
                "containerStatuses": [{"name": "c", "ready": True, "restartCount": 0}]}},
    {"kind": "Pod", "spec": {"containers": [None, 1, {"name": 1}, {"name": "a", "image": None}],
                             "tolerations": ({"key": "k"},)}},
    {"kind": "Node", "status": {"images": [{"names": ["a", "b"], "sizeBytes": 1}]}},
    {"kind": "ConfigMap", "data": {"a": "b"}},
])
def test_shared_strings_leave_odd_values_alone(obj: dict[str, Any]) -> None:
    before = copy.deepcopy(obj)
    share_strings(obj)
    assert _strict(obj, before)


def test_loaded_dump_holds_the_shared_strings(generated: Path) -> None:
    objs = load_cluster([str(generated)])
    pods = objs.of("Pod")
    same = [p for p in pods if p["spec"]["nodeName"] == pods[0]["spec"]["nodeName"]]
    assert len(same) > 1 and all(p["spec"]["nodeName"] is same[0]["spec"]["nodeName"] for p in same)

"""Live list pages decoded by msgspec straight into kschedx's objects (core/load/live_pages.py),
the listing overlapped with the decoding, and ``snapshot`` written as it lists."""

from __future__ import annotations

import copy
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
import yaml

from kschedx.core.api.objects import ClusterObjects
from kschedx.core.errors import ClusterAccessError
from kschedx.core.load import live
from kschedx.core.load.dra_versions import OLD_VERSIONS, to_v1
from kschedx.core.load.files import load_objects
from kschedx.core.load.live_pages import decode_items, split_page
from kschedx.core.load.snapshot_file import SnapshotWriter, redact, write_snapshot

from .fake_apiserver import FakeAPIServer, make_certs
from .test_live import CLUSTER, WEB, kubeconfig, run

HOST = "https://10.0.0.1:6443"
OBJECTS = [o for o, _line in load_objects(str(CLUSTER))]


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    return make_certs(tmp_path_factory.mktemp("certs"))


@pytest.fixture
def server(certs: tuple[Path, Path, Path]) -> Iterator[FakeAPIServer]:
    with FakeAPIServer(OBJECTS, certs) as srv:
        yield srv


def recorded_page(kind: str, api_version: str, objs: list[dict[str, Any]], meta: dict[str, Any]) -> bytes:
    """A list page as the API server writes it: items without kind and apiVersion."""
    items = [{k: v for k, v in o.items() if k not in ("kind", "apiVersion")} for o in objs]
    return json.dumps({"kind": f"{kind}List", "apiVersion": api_version, "metadata": meta, "items": items}).encode()


def old_path(data: bytes, kind: str, api_version: str) -> list[dict[str, Any]]:
    """What the listing made of a page before: json.loads, kind and apiVersion put back, old
    DRA versions converted."""
    out = []
    for item in json.loads(data).get("items") or []:
        item.setdefault("kind", kind)
        item.setdefault("apiVersion", api_version)
        out.append(to_v1(item) if item["apiVersion"] in OLD_VERSIONS else item)
    return out


def new_path(data: bytes, kind: str, api_version: str, path: str = "/api/v1/pods") -> list[dict[str, Any]]:
    return decode_items(split_page(data, HOST, path, kind, api_version), HOST, path, kind, api_version)


CLAIM_V1BETA1 = {
    "apiVersion": "resource.k8s.io/v1beta1", "kind": "ResourceClaim",
    "metadata": {"name": "gpu", "namespace": "ml", "uid": "c-1"},
    "spec": {"devices": {"requests": [{"name": "gpu", "deviceClassName": "gpu", "count": 2,
                                       "allocationMode": "ExactCount"}]}},
}


@pytest.mark.parametrize("kind", sorted({o["kind"] for o in OBJECTS}))
def test_a_recorded_page_decodes_to_the_same_objects_as_before(kind: str) -> None:
    objs = [o for o in OBJECTS if o["kind"] == kind]
    api_version = objs[0]["apiVersion"]
    data = recorded_page(kind, api_version, objs, {"resourceVersion": "7"})
    # Equal values with the same key order, item by item.
    assert json.dumps(new_path(data, kind, api_version)) == json.dumps(old_path(data, kind, api_version))


def test_old_dra_versions_are_converted_as_before() -> None:
    data = recorded_page("ResourceClaim", "resource.k8s.io/v1beta1", [CLAIM_V1BETA1], {})
    got = new_path(data, "ResourceClaim", "resource.k8s.io/v1beta1", "/apis/resource.k8s.io/v1beta1/resourceclaims")
    assert got == old_path(data, "ResourceClaim", "resource.k8s.io/v1beta1")
    assert got[0]["apiVersion"] == "resource.k8s.io/v1"


def test_the_strings_pods_repeat_are_shared() -> None:
    pods = [o for o in OBJECTS if o["kind"] == "Pod" and o["spec"].get("nodeName") == "general-a1"]
    assert len(pods) >= 2
    got = new_path(recorded_page("Pod", "v1", pods, {}), "Pod", "v1")
    assert got[0]["spec"]["nodeName"] is got[1]["spec"]["nodeName"]
    assert got[0]["metadata"]["namespace"] is got[1]["metadata"]["namespace"]


def test_the_continue_token_and_remaining_count_are_read() -> None:
    page = split_page(recorded_page("Pod", "v1", OBJECTS[:1], {"continue": "abc", "remainingItemCount": 41}),
                      HOST, "/api/v1/pods", "Pod", "v1")
    assert (page.token, page.remaining, len(page.items)) == ("abc", 41, 1)
    last = split_page(b'{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":null}',
                      HOST, "/api/v1/pods", "Pod", "v1")
    assert (last.token, last.remaining, last.items) == ("", None, [])


@pytest.mark.parametrize(("body", "words"), [
    (b'{"kind":"PodList","metadata":{},"items":{"a":1}}',
     "with a list that does not decode: json: cannot unmarshal object into Go struct field PodList.items of type "
     "[]v1.Pod"),
    (b'{"kind":"PodList","metadata":{},"items":["a"]}',
     "with a list that does not decode: json: cannot unmarshal string into Go struct field PodList.items of type "
     "v1.Pod"),
    (b'{"kind":"PodList","metadata":[],"items":[]}',
     "with a list that does not decode: json: cannot unmarshal array into Go struct field PodList.metadata of type "
     "v1.ListMeta"),
    (b'{"kind":"PodList","metadata":{"continue":5},"items":[]}',
     "with a list that does not decode: json: cannot unmarshal number into Go struct field "
     "ListMeta.metadata.continue of type string"),
    (b'{"kind":"PodList","metadata":{"remainingItemCount":"x"},"items":[]}',
     "with a list that does not decode: json: cannot unmarshal string into Go struct field "
     "ListMeta.metadata.remainingItemCount of type int64"),
    (b"<html>", "with a body that is not JSON (invalid character '<' looking for beginning of value)"),
    (b'{"items": [', "with a body that is not JSON (unexpected end of JSON input)"),
    (b"[]", "with JSON that is not an object"),
])
def test_a_page_of_the_wrong_shape_is_the_servers_fault_naming_the_url(body: bytes, words: str) -> None:
    with pytest.raises(ClusterAccessError) as e:
        new_path(body, "Pod", "v1")
    assert str(e.value) == f"the server {HOST} answered GET /api/v1/pods {words}"


def test_a_page_of_the_wrong_type_ends_the_run_exit_3(tmp_path: Path, server: FakeAPIServer,
                                                     certs: tuple[Path, Path, Path]) -> None:
    server.raw["/api/v1/pods"] = b'{"kind":"PodList","apiVersion":"v1","metadata":{},"items":{"a":1}}'
    kc = kubeconfig(tmp_path / "kc", server, certs[0])
    res = run("explain", WEB, "--kubeconfig", str(kc))
    assert res.exit_code == 3, res.output
    assert (f"the server {server.url} answered GET /api/v1/pods with a list that does not decode: json: cannot "
            "unmarshal object into Go struct field PodList.items of type []v1.Pod") in res.output
    assert "Traceback" not in res.output and "msgspec" not in res.output


def test_the_next_page_is_asked_for_while_one_is_decoded(tmp_path: Path, server: FakeAPIServer,
                                                         certs: tuple[Path, Path, Path],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The first page of pods is decoded only once the server has been asked for the second:
    listed one page after the other in one thread, that never happens."""
    kc = kubeconfig(tmp_path / "kc", server, certs[0])
    decode = live.decode_items
    overlapped: list[bool] = []

    def asked_for_second_page() -> bool:
        return any(p == "/api/v1/pods" and q.get("continue") == ["1"] for p, q in list(server.requests))

    def slow_decode(page: Any, host: str, path: str, kind: str, api_version: str, *rest: Any) -> list[dict[str, Any]]:
        if kind == "Pod" and not overlapped:
            for _ in range(200):  # at most 10 s: a listing that does not overlap fails, never hangs
                if asked_for_second_page():
                    break
                time.sleep(0.05)
            overlapped.append(asked_for_second_page())
        return decode(page, host, path, kind, api_version, *rest)

    monkeypatch.setattr(live, "decode_items", slow_decode)
    got = live.load_live(str(kc), page_size=1)
    assert overlapped == [True]
    assert len(got.objects.of("Pod")) == len([o for o in OBJECTS if o["kind"] == "Pod"])


def test_the_listing_gives_the_objects_of_the_dump(tmp_path: Path, server: FakeAPIServer,
                                                   certs: tuple[Path, Path, Path]) -> None:
    kc = kubeconfig(tmp_path / "kc", server, certs[0])
    got = live.load_live(str(kc), page_size=3)
    for kind in {o["kind"] for o in OBJECTS}:
        assert got.objects.of(kind) == [o for o in OBJECTS if o["kind"] == kind], kind
    # Each pod's PodInfo made as its page was decoded, for the snapshot (core/api/model.py make_early).
    pods = got.objects.of("Pod")
    assert pods and all(got.objects.early_pods[id(p)].raw is p for p in pods)
    assert len(got.objects.early_pods) == len(pods)


# --------------------------------------------------------------------------- the snapshot file


def whole_document(objects: ClusterObjects, server_version: str | None, yaml_out: bool) -> bytes:
    """The List encoded in one piece (what ``snapshot`` wrote before it streamed: each item
    a copy of its own, so that YAML shares nothing between items)."""
    meta: dict[str, Any] = {"resourceVersion": ""}
    if server_version:
        meta["annotations"] = {"kschedx.io/server-version": server_version}
    doc = {"apiVersion": "v1", "kind": "List", "metadata": meta,
           "items": [copy.deepcopy(redact(o)) for objs in objects.by_kind.values() for o in objs]}
    if yaml_out:
        return yaml.dump(doc, Dumper=yaml.CSafeDumper, sort_keys=False, default_flow_style=False).encode()
    return msgspec.json.format(msgspec.json.encode(doc), indent=1)


@pytest.mark.parametrize("name", ["snap.json", "snap.yaml"])
@pytest.mark.parametrize("empty", [False, True])
def test_the_streamed_file_is_the_whole_document(tmp_path: Path, name: str, empty: bool) -> None:
    objects = ClusterObjects(server_version="v1.35.2")
    for o in [] if empty else OBJECTS:
        objects.add(o)
    out = tmp_path / name
    assert write_snapshot(objects, str(out)) == (0 if empty else len(OBJECTS))
    assert out.read_bytes() == whole_document(objects, "v1.35.2", name.endswith(".yaml"))
    assert [p.name for p in tmp_path.iterdir()] == [name]


def test_kinds_are_written_in_listing_order_whatever_order_pages_arrive_in(tmp_path: Path) -> None:
    nodes = [o for o in OBJECTS if o["kind"] == "Node"]
    pods = [o for o in OBJECTS if o["kind"] == "Pod"]
    event = {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e", "namespace": "shop"}}
    out = tmp_path / "snap.json"
    with SnapshotWriter(str(out)) as writer:
        writer.begin(None, ["Node", "Pod", "Event"])
        writer.page("Pod", pods[:2])
        writer.page("Event", [event])  # held back for finish()
        writer.page("Node", nodes[:1])
        writer.page("Pod", pods[2:])
        writer.done("Pod")
        writer.page("Node", nodes[1:])
        writer.done("Node")
        writer.done("Event")
        assert writer.finish([event]) == len(nodes) + len(pods) + 1
    items = json.loads(out.read_text())["items"]
    assert [o["metadata"]["name"] for o in items] == [o["metadata"]["name"] for o in [*nodes, *pods, event]]


def test_redaction_leaves_the_listed_object_alone() -> None:
    pod = json.loads(json.dumps(next(o for o in OBJECTS if o["kind"] == "Pod")))
    pod["metadata"]["managedFields"] = [{"manager": "kubectl"}]
    pod["metadata"]["annotations"] = {"kubectl.kubernetes.io/last-applied-configuration": "{}", "keep": "1"}
    pod["spec"]["containers"][0].update(command=["run"], args=["--x"], env=[{"name": "A", "value": "s"}])
    before = json.dumps(pod)
    got = redact(pod)
    assert json.dumps(pod) == before
    assert "managedFields" not in got["metadata"] and got["metadata"]["annotations"] == {"keep": "1"}
    assert got["spec"]["containers"][0]["env"] == [{"name": "A"}]
    assert "command" not in got["spec"]["containers"][0] and "args" not in got["spec"]["containers"][0]


def test_a_failed_snapshot_leaves_the_previous_file(tmp_path: Path, server: FakeAPIServer,
                                                    certs: tuple[Path, Path, Path]) -> None:
    kc = kubeconfig(tmp_path / "kc", server, certs[0])
    out = tmp_path / "snap.json"
    out.write_text("the previous snapshot")
    server.forbidden = {"pods"}
    res = run("snapshot", "--kubeconfig", str(kc), "-o", str(out))
    assert res.exit_code == 3, res.output
    assert out.read_text() == "the previous snapshot"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kc", "snap.json"]
    server.forbidden = set()
    res = run("snapshot", "--kubeconfig", str(kc), "-o", str(out))
    assert res.exit_code == 0, res.output
    assert len(json.loads(out.read_text())["items"]) == len([o for o in OBJECTS if o["kind"] != "Event"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kc", "snap.json"]


def test_an_unwritable_output_is_exit_2_without_a_stray_file(tmp_path: Path, server: FakeAPIServer,
                                                             certs: tuple[Path, Path, Path]) -> None:
    kc = kubeconfig(tmp_path / "kc", server, certs[0])
    res = run("snapshot", "--kubeconfig", str(kc), "-o", str(tmp_path / "nowhere" / "snap.json"))
    assert res.exit_code == 2, res.output
    assert "No such file or directory" in res.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kc"]

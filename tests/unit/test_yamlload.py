"""The fast YAML loader must give exactly what PyYAML's safe loader gives."""

from __future__ import annotations

import datetime
import gzip
from pathlib import Path
from typing import Any

import pytest
import yaml

from kschedx.core.errors import InputError
from kschedx.core.load.files import parse_documents
from kschedx.core.load.yamlload import FastSafeLoader, load_all

ROOT = Path(__file__).resolve().parents[2]


def both(text: str) -> list[Any]:
    """The documents as the event-based and the node-based loaders build them (the
    results must agree with each other and with PyYAML)."""
    events = [doc for doc, _ in load_all(text)]
    nodes = list(yaml.load_all(text, Loader=FastSafeLoader))
    assert repr(events) == repr([d for d in nodes if d is not None])
    return events

DOCS = [
    # Kubernetes-shaped: quoted and plain strings that look typed, numbers, bools, nulls.
    """
apiVersion: v1
kind: Pod
metadata:
  name: web
  labels: {app: web, "on": "true", version: "1.10", tier: null, zero: "0"}
  creationTimestamp: "2024-01-02T03:04:05Z"
spec:
  priority: 1000
  enableServiceLinks: false
  tolerations:
  - {key: k, operator: Exists, effect: NoSchedule, tolerationSeconds: 30}
  containers:
  - name: c
    image: nginx:1.25
    resources: {requests: {cpu: 250m, memory: 64Mi, nvidia.com/gpu: 1}, limits: {cpu: 1.5}}
""",
    # Every implicit type of YAML 1.1 as PyYAML reads it.
    """
a: yes
b: No
c: on
d: OFF
e: ~
f: ''
g:
h: 0x1F
i: 0o17
j: 017
k: -1_000
l: +12.5e3
m: .inf
n: -.Inf
o: .NaN
p: 2001-12-14
q: 2001-12-14t21:59:43.10-05:00
r: 1:30
t: 190:20:30.15
u: 'quoted yes'
v: "multi
  line"
w: |
  block
  text
x: >
  folded
  text
y: !!str 123
z: !!binary aGVsbG8=
aa: !!set {x, y}
ab: !!omap [{one: 1}, {two: 2}]
ac: !!float 1
""",
    # Anchors, aliases and merge keys.
    """
base: &base {cpu: 1, memory: 2Gi}
list: &l [a, b, {c: d}]
copy: *base
copies: [*l, *l]
merged:
  <<: *base
  cpu: 2
multi:
  <<: [*base, {extra: x}]
""",
    # Keys of other types.
    """
1: int key
2.5: float key
true: bool key
null: null key
""",
]


@pytest.mark.parametrize("text", DOCS)
def test_same_result_as_pyyaml(text: str) -> None:
    (fast,) = both(text)
    assert fast == yaml.safe_load(text)
    assert repr(fast) == repr(yaml.safe_load(text))  # same types, not just equal values


def test_same_result_as_pyyaml_on_real_dumps() -> None:
    cases = sorted((ROOT / "tests" / "golden" / "cases").glob("*/cluster.yaml.gz"))[::30]
    cases = [p for p in cases if p.stat().st_size < 20_000]
    texts = [gzip.decompress(p.read_bytes()).decode() for p in cases]
    texts += [(ROOT / "examples" / "cluster.yaml").read_text()]
    texts += [p.read_text() for p in sorted((ROOT / "examples" / "pods").glob("*.yaml"))]
    assert len(texts) > 8
    for text in texts:
        expected = [d for d in yaml.safe_load_all(text) if d is not None]
        assert repr(both(text)) == repr(expected)


def test_types_are_pyyaml_types() -> None:
    doc = yaml.load(DOCS[1], Loader=FastSafeLoader)
    assert doc["a"] is True and doc["d"] is False and doc["e"] is None and doc["g"] is None
    assert doc["h"] == 31 and doc["k"] == -1000 and doc["r"] == 90
    assert isinstance(doc["p"], datetime.date) and isinstance(doc["q"], datetime.datetime)
    assert doc["u"] == "quoted yes" and doc["y"] == "123" and doc["z"] == b"hello"


def test_aliases_share_objects_and_recursion_terminates() -> None:
    (doc,) = both(DOCS[2])
    assert doc["copy"] is doc["base"]
    assert doc["copies"][0] is doc["list"]
    assert doc["merged"] == {"cpu": 2, "memory": "2Gi"}
    assert doc["multi"] == {"cpu": 1, "memory": "2Gi", "extra": "x"}
    for rec in (load_all("&a [1, *a]")[0][0], yaml.load("&a [1, *a]", Loader=FastSafeLoader)):
        assert rec[1] is rec
    shared = load_all("a: &x {k: v}\nb: *x\nc: &y [1]\nd: *y\n")[0][0]
    assert shared["b"] is shared["a"] and shared["d"] is shared["c"]


def test_lines_and_progress_of_a_stream() -> None:
    text = "a: 1\n---\n# comment\n\nb: [x]\n--- 7\n---\n...\n"
    seen: list[int] = []
    assert load_all(text, seen.append) == [({"a": 1}, 1), ({"b": ["x"]}, 5), (7, 6)]
    assert seen == sorted(seen) and seen[-1] <= len(text)


@pytest.mark.parametrize("text, problem, line", [
    ("a: *nowhere\n", "found undefined alias", 1),
    ("a: &x 1\nb: &x 2\n", "second occurrence", 2),
    ("base: &b [1]\nm:\n  ? *b\n  : v\n", "found unhashable key", 3),
    ("m:\n  ? {a: 1}\n  : v\n", "found unhashable key", 2),
])
def test_composer_and_constructor_errors(text: str, problem: str, line: int) -> None:
    with pytest.raises(InputError) as info:
        parse_documents(text, "bad.yaml")
    assert problem in str(info.value)
    assert info.value.line == line
    with pytest.raises(yaml.YAMLError):
        list(yaml.safe_load_all(text))


def test_multi_document_stream_with_lines() -> None:
    docs = parse_documents("a: 1\n---\n# comment\nb: [x]\n---\n", "f.yaml")
    assert docs == [({"a": 1}, 1), ({"b": ["x"]}, 4)]


def test_unhashable_key_is_an_input_error_with_line() -> None:
    with pytest.raises(InputError) as info:
        parse_documents("ok: 1\n? [a, b]\n: v\n", "bad.yaml")
    assert "unhashable" in str(info.value)
    assert info.value.line == 2


def test_syntax_error_names_the_line() -> None:
    with pytest.raises(InputError) as info:
        parse_documents("a: 1\nb: [1, 2\nc: 3\n", "bad.yaml")
    assert info.value.line is not None and info.value.line >= 2


def test_unsafe_tags_are_refused() -> None:
    with pytest.raises(InputError):
        parse_documents("a: !!python/object/apply:os.system ['true']\n", "evil.yaml")


def test_bytes_are_read_as_utf8_and_bad_bytes_are_one_line_errors(tmp_path: Path) -> None:
    from kschedx.core.load.files import load_objects

    good = tmp_path / "good.yaml"
    good.write_bytes("kind: Node\nmetadata: {name: caf\u00e9}\n".encode())
    assert load_objects(str(good)) == [({"kind": "Node", "metadata": {"name": "caf\u00e9"}}, 1)]
    bad = tmp_path / "bad.yaml"
    bad.write_bytes(b"kind: Node\nmetadata: {name: \xff}\n")
    with pytest.raises(InputError) as info:
        load_objects(str(bad))
    assert "not UTF-8 text" in str(info.value) and "\n" not in str(info.value)

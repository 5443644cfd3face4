"""The fast path for kubectl dumps (core/load/fastyaml.py) must give exactly what
``yaml.safe_load_all`` gives, value for value and type for type, and hand to the exact
loader whatever it can't prove it reads alike."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from kschedx.core.errors import InputError
from kschedx.core.load import fastyaml, yamlload
from kschedx.core.load.files import parse_bytes

ROOT = Path(__file__).resolve().parents[2]


def _generator() -> Any:
    spec = importlib.util.spec_from_file_location("generate_cluster", ROOT / "bench" / "generate_cluster.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


gen = _generator()


class Spy:
    """Which pieces were taken from rapidyaml (the others were read exactly)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.pieces: list[tuple[int, int]] = []
        self.exact: set[tuple[int, int]] = set()
        self.data = b""
        real_pieces, real_exact = fastyaml._pieces, fastyaml._exact_piece

        def pieces(data: bytes, start: int, end: int) -> Any:
            self.data = data
            for a, b in real_pieces(data, start, end):
                self.pieces.append((a, b))
                yield a, b

        def exact_piece(data: bytes, a: int, b: int, exact: Any) -> list[Any]:
            self.exact.add((a, b))
            return real_exact(data, a, b, exact)

        monkeypatch.setattr(fastyaml, "_pieces", pieces)
        monkeypatch.setattr(fastyaml, "_exact_piece", exact_piece)

    @property
    def fast(self) -> list[bytes]:
        return [self.data[a:b] for a, b in self.pieces if (a, b) not in self.exact]


@pytest.fixture
def spy(monkeypatch: pytest.MonkeyPatch) -> Spy:
    monkeypatch.setattr(fastyaml, "PIECE", 1)  # every item a piece of its own
    return Spy(monkeypatch)


def expected(text: str) -> list[tuple[Any, int]]:
    loader = yaml.SafeLoader(text)
    out = []
    try:
        while loader.check_node():
            node = loader.get_node()
            doc = loader.construct_document(node)
            if doc is not None:
                out.append((doc, node.start_mark.line + 1))
    finally:
        loader.dispose()
    return out


def fast(text: str) -> list[tuple[Any, int]]:
    docs = fastyaml.load_list(text.encode(), yamlload.load_exact)
    assert docs is not None, "the fast path refused the text"
    assert repr(docs) == repr(expected(text))  # same values and types
    return docs


def kubectl_list(items: list[Any]) -> str:
    text: str = gen.kubectl_yaml({"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}})
    return text


def test_generated_cluster_in_kubectl_style(spy: Spy) -> None:
    objs = gen.generate(4, pods_per_node=3)
    text = kubectl_list(objs)
    assert text.startswith("apiVersion: v1\nitems:\n- apiVersion: v1\n")
    (doc, line), = fast(text)
    assert line == 1 and doc["items"] == json.loads(json.dumps(objs))
    assert len(spy.fast) == len(objs)  # every item went the fast way


# Strings that YAML 1.1 (or rapidyaml's JSON writer) would read as something else when
# plain; kubectl quotes them, so they are strings read the fast way.
LOOKALIKES = [
    "yes", "Yes", "YES", "no", "No", "NO", "true", "True", "TRUE", "false", "False", "FALSE", "on", "On", "ON",
    "off", "Off", "OFF", "y", "n", "~", "null", "Null", "NULL", "", "0", "-0", "00", "017", "08", "0o17", "0x1F",
    "0b101", "1_000", "+1", "1e3", "1.5e+3", "1.", ".5", "-.5", "1:30", "190:20:30.15", ".inf", "-.Inf", ".NaN",
    "inf", "nan", "infinity", "-infinity", "2001-12-14", "2001-12-14t21:59:43.10-05:00", "2001-12-14 21:59:43.10 -5",
    "<<", "=", "123456789012345678901234567890", "1.35.4", "10.0.0.1", "100m", "128Mi", "d17f-4acf", "- x",
    "a: b", "a #b", "#x", "@x", "`x", "%x", "!x", "&x", "*x", "[x]", "{x}", "{}", "[]", "x\ny", "x\ny\n", "x\n\ny\n\n",
    " lead", "trail ", "tab\tx", "cr\rx", "\x01", "\x1b", "caf\u00e9", "\u2028", "\U0001F600", "\x7f", "\x85", "\ufeff", "\x00", 'q"uote', "back\\slash",
    "it's",
]


def test_quoted_lookalikes_are_strings(spy: Spy) -> None:
    items = [{"value": s, "key": {s: "v"}, "list": [s]} for s in LOOKALIKES]
    (doc, _), = fast(kubectl_list(items))
    assert [it["value"] for it in doc["items"]] == LOOKALIKES
    assert all(type(it["value"]) is str for it in doc["items"])
    assert len(spy.fast) > len(LOOKALIKES) // 2


# Plain scalars of every YAML 1.1 implicit type (and rapidyaml lookalikes), as values, as
# keys and as sequence items.
PLAIN = [
    "yes", "Yes", "YES", "no", "No", "NO", "true", "True", "TRUE", "false", "False", "FALSE", "on", "On", "ON",
    "off", "Off", "OFF", "y", "n", "~", "null", "Null", "NULL", "0", "-0", "00", "017", "08", "0o17", "0x1F", "-0x1F",
    "0b101", "1_000", "+1", "+1.5", "1e3", "1E3", "-1e3", "1.5e+3", "1.5e3", "1.", "-1.", ".5", "-.5", "0.5", "01.5",
    "1.50", "-0.0", "-.5e3", "-.5_0", "-5.", "-05", "05.5", "+.5", "1:30", "-1:30", "190:20:30.15", ".inf", "-.inf", "+.inf", ".Inf", "-.INF", ".nan", ".NaN", ".NAN",
    "inf", "-inf", "+inf", "nan", "NaN", "infinity", "-infinity", "Infinity", "2001-12-14", "2001-12-14t21:59:43.10-05:00",
    "2001-12-14 21:59:43.10 -5", "2001-12-14T21:59:43Z", "<<", "=", "123456789012345678901234567890",
    "-123456789012345678901234567890", "1.35.4", "10.0.0.1", "100m", "128Mi", "8080", "1.5", "-7", "0.000001",
    "12345678901234567890.123456789", "a1", "1a", "x_y", "nvidia.com/gpu", "http://x:80/y", "yes sir", "no-op", "on-call",
    "null-ish", "true.", "Truex", "~x", "x~", "=x", "<<x", "0x", "0b", "1_", "_1", ".", "-", "+", "1-2", "1:2:3:4",
]


# (these three make the document invalid for PyYAML: a merge key without a mapping, the
# value key, a "-" key)
INVALID_AS_KEYS = ("<<", "=", "-")


def _plain_items(values: list[str]) -> str:
    lines = ["items:"]
    for v in values:
        lines += [f"- value: {v}", f"  {v}: key", "  list:", f"  - {v}", f"  - - {v}", "  alone:", f"    {v}",
                  f"  commented: {v} # c"]
        # (first lines of items: each item is a piece of its own in these tests)
        lines += [f"- {v}: first", f"- {v}", f"- - {v}", f"-   {v}  # c"]
    return "\n".join(lines) + "\nkind: List\n"


def test_plain_scalars_of_every_type(spy: Spy) -> None:
    values = [v for v in PLAIN if v not in INVALID_AS_KEYS]
    docs = fast(_plain_items(values))
    items = docs[0][0]["items"]
    assert len(items) == 5 * len(values)
    # The common kubectl values go the fast way; the typed lookalikes don't.
    fast_values = {v["value"] for p in spy.fast for v in yaml.safe_load(p.decode()) if isinstance(v, dict) and "value" in v}
    assert {"10.0.0.1", "100m", "nvidia.com/gpu", "1.35.4", "no-op", "yes sir"} <= fast_values
    assert not {"yes", "~", "0x1F", "1_000", "017", "1e3", "-.5"} & {str(v) for v in fast_values}


def test_numbers_bools_and_nulls_as_values_go_the_fast_way(spy: Spy) -> None:
    text = ("items:\n- port: 8080\n  f: 1.5\n  g: 1.\n  h: .25\n  i: -1.\n  n: -7\n  z: 0\n  m: -0\n"
            "  big: 123456789012345678901234567890\n  t: true\n  u: false\n  v: null\n  e:\n  list:\n  - 1\n  - -2.5\n"
            "- 12345678901234567890.123456789\n")
    docs = fast(text)
    assert docs[0][0]["items"][0]["port"] == 8080 and len(spy.fast) == 2


@pytest.mark.parametrize("value", PLAIN)
def test_each_plain_scalar_alone(value: str, spy: Spy) -> None:
    alike(_plain_items([value]))


@pytest.mark.parametrize("text", [
    # block scalars of every chomping and indentation
    "items:\n- a: |\n    line1\n    line2\n  b: |-\n    x\n  c: |+\n    x\n\n  d: >\n    folded\n    text\n\n    more\n"
    "  e: |2-\n     lead\n  f: >-\n    x\n    y\n",
    # quoted scalars over several lines, escapes
    "items:\n- a: \"x\\\n  y\"\n  b: 'x\n\n  y'\n",
    "items:\n- a: \"fold\n    ed\n\n    x\"\n  b: 'it''s\n    two'\n  c: \"\\u00e9\\U0001F600\\N\\_\\L\\P\\/\\ x\\\\\\\"\"\n"
    "  d: \"\\x41\\t\\n\\r\\b\\f\"\n  e: \"\\e\\0\\a\\v\"\n  f: \"bad \\q\"\n",
    # escapes to surrogates, NUL and other characters JSON can't hold as they are
    "items:\n- \"\\U0010FFFF\"\n- \"\\x00\\x7f\\x85\\ufeff\"\n",
    # the same anchor in two items (PyYAML refuses it), in an item and the rest of the
    # document, in one item twice; an alias to another item's anchor
    "items:\n- a: &x 1\n- b: &x 2\n", "m: &x 0\nitems:\n- a: &x 1\n", "items:\n- a: &x 1\n  b: &x 2\n",
    "items:\n- a: &x 1\n- b: *x\n", "items:\n- &x [1]\n- c: 1\n", "items:\n- a: \"&x\"\n- b: &x 2\n",
    # anchors, aliases, merge keys, tags
    "items:\n- &a {x: 1}\n- *a\n- <<: *a\n  y: 2\n- !!str 5\n- !!binary aGVsbG8=\n- !!set {a, b}\n- !!float 1\n- tagged: !!int '7'\n",
    # flow collections with content, complex keys, empty collections
    "items:\n- [1, yes, ~]\n- {a: 1, b: [x]}\n- ? [a]\n  : v\n- e: {}\n  l: []\n",
    # empty and null values, duplicate keys, comments
    "# head\nitems:\n# between\n- a:\n  b: ''\n  c: \"\"\n  a: 2\n-\n  k: v\n-\n- # c\n  x: 1\n\n\n- y\nkind: List # tail\n",
    # plain scalars over several lines
    "items:\n- a: plain\n    multi\n    line\n  b: 2001-12-14\n    21:59:43.10\n  c: x\n\n    y\n- p\n  q\n",
    # long lines, long keys
    "items:\n- a: " + "v" * 3000 + "\n  b: \"" + "v: " * 1000 + "\"\n  " + "k" * 900 + ": v\n- " + "x: " * 500 + "\n",
    # keys with spaces, quoted keys, spaces around
    "items:\n- a b: c\n  \"yes\": 1\n  'no': 2\n  k:    yes   \n  l:   8080  \n-   - x\n    -    y\n",
    # a timestamp over two lines (the date alone isn't one)
    "items:\n- a: 2001-1-1\n    10:00:00\n  b: 2001-12-14\n    10:00:00\n",
    # line breaks beyond ASCII, byte order marks inside
    "items:\n- a: x\u2028y\n  b: \"x\u2029y\"\n  c: x\x85y\n  d: x\ufeffy\n",
    "items:\n- a: caf\u00e9\n  b: \"\u00e9\"\n",
    # tabs, carriage returns, non-ASCII
    "items:\n- a: \"tab\there\"\n  b: caf\u00e9\n  c: \u2028x\n- d: x\r\n",
    # the items between other keys, the document started with ---
    "---\napiVersion: v1\nitems:\n- a: 1\n- b: 2\nkind: List\nmetadata:\n  resourceVersion: \"\"\n",
    # directives; a second document after the items
    "%YAML 1.1\n---\nitems:\n- a\n", "%TAG ! tag:example.com,2000:\n---\nitems:\n- !foo a\n",
    "items:\n- a\n---\nitems:\n- b\n", "items:\n- a\n...\n", "items:\n- a\n--- x\n",
    # "items:" inside a string over several lines
    "x: \"\nitems:\n- 1\n\"\nitems: []\n", "x: 'a\nitems:\n- 1\nb'\n",
    # nesting deeper than rapidyaml's JSON writer goes
    "items:\n- " + "- " * 100 + "x\n- " + "".join(f"{'  ' * i}k{i}:\n" for i in range(100)).lstrip() + "  " * 100 + "v\n",
    # nested block sequences and mappings
    "items:\n- - - 1\n    - 2\n  - a: - 3\n- a:\n  - b:\n    - c: d\n",
])
def test_other_yaml_is_read_alike(text: str, spy: Spy) -> None:
    alike(text)


def alike(text: str) -> None:
    """The fast path reads ``text`` as PyYAML does, or refuses it (then the exact loader
    does); on bad YAML, that the exact loader raises."""
    try:
        ref = expected(text)
    except yaml.YAMLError:
        assert fastyaml.load_list(text.encode(), yamlload.load_exact) is None
        with pytest.raises(yaml.YAMLError):
            yamlload.load_exact(text.encode())
        return
    result = fastyaml.load_list(text.encode(), yamlload.load_exact)
    if result is not None:
        assert repr(result) == repr(ref)
    assert repr(yamlload.load_exact(text.encode())) == repr(ref)


@pytest.mark.parametrize("text", [
    "a: 1\n",  # no items
    "items:\n  - a\n",  # indented sequence
    "items: [a]\n",
    "items:\n- a\n---\nitems:\n- b\n",  # two documents
    "items:\n- a\x01\n",  # a control character
    "\ufeffitems:\n- a\n",  # a byte order mark
])
def test_texts_it_refuses(text: str) -> None:
    assert fastyaml.load_list(text.encode(), yamlload.load_exact) is None


def test_surrogate_escapes_are_left_to_libyaml() -> None:
    # rapidyaml's JSON can't hold them (or pairs them up); libyaml refuses them, as the
    # exact path always did (PyYAML's pure-Python reader would take them).
    for text in ("items:\n- a: \"\\ud800\"\n", "items:\n- \"\\ud83d\\ude00\"\n"):
        assert fastyaml._ryml_items(text.encode()[7:]) is None
        assert fastyaml.load_list(text.encode(), yamlload.load_exact) is None
        with pytest.raises(yaml.YAMLError):
            yamlload.load_exact(text.encode())


def test_invalid_utf8_is_refused() -> None:
    assert fastyaml.load_list(b"items:\n- caf\xe9\n", yamlload.load_exact) is None


@pytest.mark.parametrize("text, line", [
    ("apiVersion: v1\nitems:\n- a: 1\n- b: [1, 2\n- c: 3\nkind: List\n", 5),
    ("items:\n- a: \"unterminated\n- b: 1\n", 4),
    ("items:\n- a: b: c\n", 2),
    ("items:\n- a: 1\n- *nowhere\n", 3),
    ("items:\n- a: @x\n", 2),
    ("items:\n- a: 1\n   b: 2\n", None),
    ("items:\n- a: 1\n b: 2\n", None),
    ("items:\n- a:\n  - b\n  c\n", None),
    ("items:\n- a: 1\n  - b\n", None),
    ("items:\n- a\n  b: c\n", None),
    ("items:\n- a: 'x\n- b: 1\n", None),
    ("items:\n- a: x\n  a: y: z\n", None),
    ("items:\n- {a: 1\n- b\n", None),
    ("items:\n- a: x\n    y: 1\n", None),
    ("items:\n- a: |\n  x\n- b\n", None),
    ("items:\n- a: \"\\q\"\n", None),
    ("items:\n- \"multi\n  line key\": v\n", None),
    ("items:\n- 'multi\n  line key': v\n", None),
    ("items:\n- \"a\\\n  b\": v\n", None),
    ("items:\n- x: 1\n  a\n  b: c\n", None),
    ("items:\n- a: \"x\" y\n", None),
    ("items:\n- a: - b\n", None),
    ("items:\n- a: |1\n  x\n", None),
    ("items:\n- " + "k" * 1100 + ": v\n", None),
    ("items:\n- \"" + "k" * 1100 + "\": v\n", None),
    ("items:\n- a: 1\n  " + "k:" * 600 + " v\n", None),
    ("items:\n- a: 1\n  - - '" + "k" * 1100 + "' : v\n", None),
    ("items:\n- a: 1\nkind: List\nother:\n- b\n", None),
    # multi-document streams (fastyaml.load_stream)
    ("a: 1\n---\nb: [1, 2\n---\nc: 3\n", 4),
    ("a: 1\n---\nb: \"x\n---\ny\"\n", None),
    ("a: 1\n---\nb: 1\n c: 2\n", None),
    ("a: 1\n---\nb: *nowhere\n", 3),
    ("a: 1\n...\nb: 2\n", None),
    ("a: 1\n---\nb\nc: 1\n", None),
    ("a: 1\n--- |\nx\n", None),
    ("a: 1\n---\nb: 1\n- c\n", None),
])
def test_errors_name_the_same_line_as_the_exact_loader(text: str, line: int | None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(yamlload, "FAST_FROM", 0)
    data = text.encode()
    try:
        ref = yamlload.load_exact(data)
    except yaml.YAMLError:
        ref = None
    if ref is not None:  # valid after all: the same documents
        assert repr(parse_bytes(data, "dump.yaml")) == repr(ref)
        return
    with pytest.raises(InputError) as info:
        parse_bytes(data, "dump.yaml")
    monkeypatch.setattr(yamlload, "FAST_FROM", 1 << 62)
    with pytest.raises(InputError) as exact_info:
        parse_bytes(data, "dump.yaml")
    assert str(info.value) == str(exact_info.value)
    if line is not None:
        assert info.value.line == line


def test_rapidyaml_messages_stay_off_stderr(capfd: pytest.CaptureFixture[str]) -> None:
    assert fastyaml._ryml_items(b"- a: [1, 2\n") is None
    assert fastyaml._ryml_items(b"- " * 100 + b"x\n") is None  # too deep for its JSON writer
    assert capfd.readouterr().err == ""


def test_large_dump_goes_the_fast_way_through_load_all(monkeypatch: pytest.MonkeyPatch) -> None:
    spy = Spy(monkeypatch)
    monkeypatch.setattr(yamlload, "FAST_FROM", 100_000)
    monkeypatch.setattr(fastyaml, "PIECE", 30_000)
    objs = gen.generate(6, pods_per_node=6)
    data = kubectl_list(objs).encode()
    assert len(data) >= yamlload.FAST_FROM
    progress: list[int] = []
    docs = yamlload.load_all(data, progress.append)
    assert docs[0][0]["items"] == json.loads(json.dumps(objs)) and docs[0][1] == 1
    assert spy.fast and progress == sorted(progress) and progress[-1] <= len(data)


def test_checks_run_in_a_child_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fastyaml, "PIECE", 1)
    here: list[int] = []
    real = fastyaml._check_here
    monkeypatch.setattr(fastyaml, "_check_here", lambda data, bounds, *check: here.append(1) or real(data, bounds, *check))
    data = ("items:\n" + "".join(f"- a: {v}\n" for v in ["x", "yes", "1", "~", "0x1", "b"] * 3)).encode()
    bounds = list(fastyaml._pieces(data, 7, len(data)))
    assert len(bounds) >= 8
    with fastyaml._checked_elsewhere(data, bounds) as alike:
        verdicts = alike()
    assert verdicts == [True, False, True, False, False, True] * 3 and not here
    # without fork, the same here
    monkeypatch.delattr(fastyaml.os, "fork")
    with fastyaml._checked_elsewhere(data, bounds) as alike:
        assert alike() == verdicts and here


def test_kubectl_style_writer_round_trips() -> None:
    tricky = {"s": LOOKALIKES, "1": "int key", "yes": 2, "": None, "e": {}, "l": [], "n": [[1, [2, {}]], {"a": {"b": []}}],
              "f": 1.5, "b": True}
    assert yaml.safe_load(gen.kubectl_yaml(tricky)) == tricky


# Random Lists of tricky scalars, keys, anchors, tags, comments and nesting: whatever the
# fast path takes must be what the exact loader gives, and it must refuse what that refuses.
TOKENS = [
    "yes", "no", "on", "off", "True", "true", "false", "null", "Null", "~", "", "0", "-0", "00", "07", "08", "0x1F", "0b1",
    "1_0", "+1", "1e3", "1.5", "-.5", ".5", "1.", "1:30", "2001-12-14", "2001-1-1", "2001-12-14 10:00:00", "12:30:45",
    ".inf", "-.inf", ".nan", "inf", "nan", "<<", "=", "a", "b c", "x:y", "x: y", "#c", "a #c", "-", "-x", "?x", ":x", "[]",
    "{}", "[a]", "{a: 1}", "&a x", "*a", "!!str 1", "!t x", "@x", "`x", "%x", "|", "|-", ">", '"q"', "'s'", '"a: b"',
    "'it''s'", '"\\x41"', '"\\q"', "123456789012345678901234567890", "1.0e+5", "0.0", "-1", "10.0.0.1", "100m", "\u00e9",
    "a\tb", "'multi\n  line'", '"multi\n  line"', "plain\n  cont", "|\n  blk", "|-\n  blk\n  yes", ">\n  f\n  g", "x # c",
    '"a\\\n  b"', "yes # c", "[ ]", "x  ", "2001-12-14t21:59:43.10-05:00",
]
KEYS = ["a", "b", "yes", "1", "-1", "1.5", "null", "~", '"q"', "'s'", "nan", '"inf"', "x y", "a:b", "<<", "=", "?", "&k a",
        "[k]", "", ".inf", "2001-12-14"]


def _random_node(rng: Any, depth: int, indent: str) -> str:
    r = rng.random()
    if depth > 2 or r < 0.4:
        return " " + rng.choice(TOKENS)
    if r < 0.7:
        return "".join(f"\n{indent}{rng.choice(KEYS)}:{_random_node(rng, depth + 1, indent + '  ')}"
                       for _ in range(rng.randint(1, 3)))
    return "".join(f"\n{indent}-{_random_node(rng, depth + 1, indent + '  ')}" for _ in range(rng.randint(1, 3)))


def _random_list(rng: Any) -> str:
    items = []
    for _ in range(rng.randint(1, 4)):
        body = _random_node(rng, 0, "  ")
        items.append("-" + (" " + body[3:] if body.startswith("\n  ") else body))
    return "apiVersion: v1\nitems:\n" + "\n".join(items) + "\nkind: List\n"


def test_random_lists_read_alike(spy: Spy) -> None:

    taken = _taken_alike(400, _random_list, fastyaml.load_list, lambda text: yamlload.load_exact(text.encode()))
    assert taken > 50 and spy.fast


def _taken_alike(seeds: int, make: Any, load: Any, reference: Any) -> int:
    """How many of the random texts ``make`` gives ``load`` took, each checked to be what
    ``reference`` reads (and refused where that raises)."""
    import random

    taken = 0
    for seed in range(seeds):
        text = make(random.Random(seed))
        try:
            ref = repr(reference(text))
        except yaml.YAMLError:
            ref = None
        result = load(text.encode(), yamlload.load_exact)
        if result is not None:
            assert repr(result) == ref, text
            taken += 1
    return taken


# --- multi-document streams (fastyaml.load_stream) -------------------------------------------


def stream_alike(text: str) -> list[tuple[Any, int]] | None:
    """``load_stream`` reads ``text`` as PyYAML does (lines included), or refuses it; on
    bad YAML it refuses it (libyaml takes a few texts PyYAML refuses, tabs before a value:
    there it reads what the exact loader reads)."""
    data = text.encode()
    try:
        ref = _reference(text)
    except yaml.YAMLError:
        assert fastyaml.load_stream(data, yamlload.load_exact) is None
        return None
    result = fastyaml.load_stream(data, yamlload.load_exact)
    if result is not None:
        assert repr(result) == repr(ref), text
    return result


def _reference(text: str) -> list[tuple[Any, int]]:
    """What PyYAML reads, or where only libyaml takes the text, what the exact loader reads."""
    try:
        return expected(text)
    except yaml.YAMLError:
        return yamlload.load_exact(text.encode())


class StreamSpy:
    """Which groups of documents rapidyaml's reading was taken for."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.exact: list[int] = []
        self.groups = 0
        real, real_groups = fastyaml._exact_documents, fastyaml._groups

        def groups(data: bytes, docs: list[Any]) -> Any:
            for group in real_groups(data, docs):
                self.groups += 1
                yield group

        def exact_documents(data: bytes, group: list[Any], exact: Any) -> Any:
            self.exact.append(len(group))
            return real(data, group, exact)

        monkeypatch.setattr(fastyaml, "_exact_documents", exact_documents)
        monkeypatch.setattr(fastyaml, "_groups", groups)


def test_generated_cluster_as_a_stream_goes_the_fast_way(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fastyaml, "PIECE", 4000)
    spy = StreamSpy(monkeypatch)
    objs = gen.generate(4, pods_per_node=3)
    text = gen.multidoc_yaml(objs)
    assert text.count("\n---\n") == len(objs) - 1
    docs = stream_alike(text)
    assert docs is not None and [d for d, _ in docs] == json.loads(json.dumps(objs))
    assert spy.exact == []  # every document went the fast way
    # with a leading "---", a trailing "...", comments and blank documents between
    text = "--- # first\n" + text.replace("\n---\n", "\n# between\n---\n\n---\n#c\n\n", 3) + "...\n# end\n"
    docs = stream_alike(text)
    assert docs is not None and len(docs) == len(objs) and spy.exact == []


@pytest.mark.parametrize("text", [
    # a block scalar ended by a marker; "---" inside one (indented: a line of the text)
    "a: |\n  x\n  ---\n  --- y\n---\nb: |-\n  z\n---\nc: >\n  f\n...\n",
    "a: |\n  x\n---\n  y\n", "a: |\n---\n",
    # "--- " and content on the same line
    "a: 1\n--- {b: 2}\n---\nc: 3\n", "a: 1\n--- |\n  text\n---\nb: 1\n", "--- !!map\na: 1\n---\nb: 2\n",
    "a: 1\n--- b\n", "a: 1\n--- - x\n- y\n", "--- >\n f\n", "a: 1\n---\tb: 2\n", "a: 1\n--- # c\nb: 2\n",
    "a: 1\n---\n", "a: 1\n---", "---", "--- ", "...", "a: 1\n...", "a: 1\n... # c\n---\nb: 2\n",
    # markers in quoted strings, markers that aren't ("---x", "----", indented)
    "a: \"x\n---\ny\"\n", "a: 'x\n--- y'\n", "a: \"--- x\"\nb: '---'\nc: \"...\"\n", "a: x\n---x\n", "a: x\n----\n",
    "a:\n  ---\n", "a: b\n  ---\n", "a: [1,\n---\n2]\n", "- a\n---\n- b\n", "a: x\n...x\n", "a: '\n...\n'\n",
    # document-level anchors, aliases, the same anchor in two documents
    "--- &a\nb: 1\n---\nc: 2\n", "a: &x 1\nb: *x\n---\na: &x 2\n", "&a\nb: 1\n", "a: *x\n---\nb: &x 1\n",
    # directives, content after "..."
    "%YAML 1.1\n---\na: 1\n", "a: 1\n...\n%YAML 1.1\n---\nb: 2\n", "a: 1\n...\nb: 2\n", "a: 1\n%TAG ! x\n---\nb: 2\n",
    "%YAML 1.1\n---\na: 1\n...\n%YAML 1.1\n---\nb: 1\n",
    # empty and null documents, comments only
    "---\n---\na: 1\n---\n# c\n---\n~\n---\nnull\n---\n", "# only\n# comments\n", "", "\n\n",
    # top levels that are not plain-keyed mappings
    "yes: 1\n---\n1: x\n---\n~: y\n---\nnull: z\n---\n\"q\": 1\n---\n'yes': 2\n---\n1.5: x\n---\n? a\n: b\n",
    "- 1\n- yes\n---\nfoo\n---\nfoo\nbar\n---\n\"s\"\n---\n|\n  x\n---\n[1, 2]\n---\n{a: 1}\n",
    "  a: 1\n  b: 2\n---\n  a: 1\nb: 2\n", "  a: 1\n  b: 2\n---\n  c: 3\n", "x: 1\n---\n  a: 1\n  b: 2\n---\ny: 1\n",
    "# c\n  - a\n  - b\n---\n  # c\n   k: v\n", "a: 1\nb\n", "a: 1\n- b\n", "a:\n- b\nc: 1\n- d\n", "a: |\nx\n",
    "a: 1\n b: 2\n", "a: 1\n  b: 2\n", "a b: 1\n", "a:b: 1\n", "a: 1\n#c\n  # d\nb: 2\n",
    # tabs, long keys, escapes, Lists inside the stream
    "a: 1\n---\nb:\t2\n", "a: \"\\q\"\n---\nb: 1\n", "k" * 1100 + ": v\n---\nb: 1\n",
    "apiVersion: v1\nitems:\n- a: 1\n- b: yes\nkind: List\n---\nitems:\n- c\n---\nkind: Pod\n",
])
def test_tricky_streams_read_alike(text: str) -> None:
    stream_alike(text)


def test_directives_send_the_whole_stream_to_the_exact_loader() -> None:
    for text in ("%YAML 1.1\n---\na: 1\n", "a: 1\n...\n%YAML 1.1\n---\nb: 2\n", "a: 1\r\n---\r\nb: 2\r\n"):
        assert fastyaml.load_stream(text.encode(), yamlload.load_exact) is None


def test_documents_with_content_on_their_marker_line_are_read_exactly(monkeypatch: pytest.MonkeyPatch) -> None:
    spy = StreamSpy(monkeypatch)
    docs = stream_alike("a: 1\n--- |\n  text\n---\nb: 2\n--- !!str 5\n")
    assert docs is not None and [d for d, _ in docs] == [{"a": 1}, "text\n", {"b": 2}, "5"]
    assert spy.exact == [1, 1]


def test_a_list_in_a_stream_goes_through_its_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fastyaml, "LIST_FROM", 2000)
    monkeypatch.setattr(fastyaml, "PIECE", 1)
    spy = Spy(monkeypatch)
    objs = gen.generate(2, pods_per_node=2)
    text = gen.multidoc_yaml(objs[:3]) + "---\n" + kubectl_list(objs) + "---\n# tail\n" + gen.multidoc_yaml(objs[:2])
    docs = stream_alike(text)
    assert docs is not None and len(docs) == 6 and docs[3][0]["items"] == json.loads(json.dumps(objs))
    assert len(spy.fast) == len(objs)  # the List's items each went the fast way


def test_large_stream_goes_the_fast_way_through_load_all(monkeypatch: pytest.MonkeyPatch) -> None:
    spy = StreamSpy(monkeypatch)
    monkeypatch.setattr(yamlload, "FAST_FROM", 100_000)
    monkeypatch.setattr(fastyaml, "PIECE", 10_000)
    objs = gen.generate(6, pods_per_node=6)
    data = gen.multidoc_yaml(objs).encode()
    assert len(data) >= yamlload.FAST_FROM
    progress: list[int] = []
    docs = yamlload.load_all(data, progress.append)
    assert repr(docs) == repr(expected(data.decode())) and not spy.exact
    assert progress == sorted(progress) and progress[-1] <= len(data)


def _random_stream(rng: Any) -> str:
    """Documents from ``_random_node`` (mappings at column 0 mostly) with markers, comments,
    blank and empty documents between them."""
    parts = []
    for i in range(rng.randint(1, 6)):
        r = rng.random()
        if i or r < 0.5:
            parts.append(rng.choice(["---\n", "--- # c\n", "---\n# c\n\n", "\n---\n", "---\n---\n", "...\n---\n",
                                     "--- ", "--- |\n ", "---  \n", "# c\n---\n"]))
        body = _random_node(rng, 0, "")
        body = body[1:] if body.startswith("\n") else body.lstrip(" ")
        if rng.random() < 0.15:  # the whole document indented
            body = "  " + body.replace("\n", "\n  ")
        parts.append(body + "\n")
    if rng.random() < 0.3:
        parts.append(rng.choice(["...\n", "---\n", "# end\n", "...\n# c\n"]))
    return "".join(parts)


def test_random_streams_read_alike(monkeypatch: pytest.MonkeyPatch) -> None:

    monkeypatch.setattr(fastyaml, "PIECE", 60)
    spy = StreamSpy(monkeypatch)
    taken = _taken_alike(1200, _random_stream, fastyaml.load_stream, _reference)
    assert taken > 150 and spy.groups - len(spy.exact) > 1000  # (groups of documents rapidyaml's reading was taken for)



# Lines a document's top level may hold, odd ones among them (column 0 and indented).
TOP_LINES = ["a: 1", "b:", "- x", "-", "  c: 2", "  - y", '"q": 1', "'s': 2", "k v: 3", "x", "x y", "a:b", "a: b: c", "#c",
             "", "k:   v", "z: |", "  text", "w: >", "a b c", "- - z", "?", "? k", ": v", "-x", "1x: 2", "x:y", 'k: "m',
             '  n"', "k: [1,", "  2]", "@x", "k: v #c", "k:v", "k: - a", "k: v", " - z", "yes: 1", "j: 2"]


def test_random_top_levels_read_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    spy = StreamSpy(monkeypatch)

    def make(rng: Any) -> str:
        return "a: 0\n---\n" + "\n".join(rng.choice(TOP_LINES) for _ in range(rng.randint(1, 6))) + "\n---\nb: 0\n"

    taken = _taken_alike(3000, make, fastyaml.load_stream, lambda text: yamlload.load_exact(text.encode()))
    assert taken > 500 and spy.groups - len(spy.exact) > 500


def test_pods_repeated_strings_are_shared_as_on_the_json_path(monkeypatch: pytest.MonkeyPatch) -> None:
    from contextlib import nullcontext

    from kschedx.core.load.stored import decode_stored_raw

    monkeypatch.setattr(fastyaml, "PIECE", 1)
    pods = [o for o in gen.generate(2, pods_per_node=3) if o["kind"] == "Pod"]
    for typed in (False, True):  # plain values, or decoded as their API types (a cluster load)
        for load, text in ((fastyaml.load_stream, gen.multidoc_yaml(pods)), (fastyaml.load_list, kubectl_list(pods))):
            with fastyaml.typed_decoding(decode_stored_raw) if typed else nullcontext():
                docs = load(text.encode(), yamlload.load_exact)
            assert docs is not None
            read = [d for d, _ in docs] if load is fastyaml.load_stream else docs[0][0]["items"]
            names = {id(p["spec"]["nodeName"]) for p in read if p["spec"]["nodeName"] == pods[0]["spec"]["nodeName"]}
            assert len(read) == len(pods) and len(names) == 1, (typed, load)


# --- documents decoded as their API types (a cluster being loaded) ---------------------------


def test_random_texts_read_alike_when_decoded_as_their_types(monkeypatch: pytest.MonkeyPatch) -> None:
    # A typed decoding takes a float where its type says so without the float check; the
    # random texts hold every plain number form (1e3, 1.5e3, +1, ...), so a piece whose
    # exponent PyYAML reads as a string must not come the typed way.
    from kschedx.core.load.stored import decode_stored_raw

    monkeypatch.setattr(fastyaml, "PIECE", 60)
    decoded: list[Any] = []

    def decode(raw: Any) -> Any:
        decoded.append(raw)
        return decode_stored_raw(raw)

    with fastyaml.typed_decoding(decode):
        taken = _taken_alike(600, _random_stream, fastyaml.load_stream, _reference)
        taken += _taken_alike(300, _random_list, fastyaml.load_list, lambda text: yamlload.load_exact(text.encode()))
    assert taken > 100 and len(decoded) > 500


def test_exponents_in_typed_fields_read_as_pyyaml_reads_them(monkeypatch: pytest.MonkeyPatch) -> None:
    # A quantity holds a string or a number: typed, rapidyaml's 1e3 would be 1000.0 where
    # PyYAML (YAML 1.1) reads the string "1e3"; 1.5e+3 is a float to both.
    from kschedx.core.load.stored import decode_stored_raw

    pod = ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p{i}\n  namespace: default\nspec:\n  containers:\n"
           "  - name: c\n    resources:\n      requests:\n        cpu: {cpu}\n")
    monkeypatch.setattr(fastyaml, "PIECE", 1)  # each document a piece of its own
    spy = StreamSpy(monkeypatch)
    text = "\n---\n".join(pod.format(i=i, cpu=cpu) for i, cpu in enumerate(["1e3", "1.5e+3", "2", "1E3", "0.5"]))
    with fastyaml.typed_decoding(decode_stored_raw):
        docs = fastyaml.load_stream(text.encode(), yamlload.load_exact)
    assert docs is not None and len(spy.exact) == 3  # the exponents, read exactly
    cpus = [d["spec"]["containers"][0]["resources"]["requests"]["cpu"] for d, _ in docs]
    assert repr(cpus) == repr(["1e3", 1500.0, 2, "1E3", 0.5])


def _cluster_files(tmp_path: Path, objs: list[Any]) -> tuple[Path, Path]:
    stream = tmp_path / "cluster.yaml"
    stream.write_text(gen.multidoc_yaml(objs))
    listed = tmp_path / "cluster.json"
    listed.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objs}))
    return stream, listed


def test_a_stream_loads_as_its_json_list_loads_and_is_not_converted_again(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from kschedx.core.load import files

    monkeypatch.setattr(yamlload, "FAST_FROM", 1000)
    monkeypatch.setattr(fastyaml, "PIECE", 4000)
    objs = gen.generate(5, pods_per_node=4)
    stream, listed = _cluster_files(tmp_path, objs)
    from_json = files.load_cluster([str(listed)])
    converted: list[Any] = []
    real = files.decode_stored

    def decode_stored(obj: Any) -> Any:
        converted.append(obj)
        return real(obj)

    monkeypatch.setattr(files, "decode_stored", decode_stored)
    from_yaml = files.load_cluster([str(stream)])
    # (the stream's keys are in kubectl's order: equal values and types, in any order)
    assert json.dumps(from_yaml.by_kind, sort_keys=True) == json.dumps(from_json.by_kind, sort_keys=True)
    assert converted == []  # every document was decoded as its type on the fast path


def test_a_wrongly_typed_document_in_a_stream_is_named_with_its_line(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from kschedx.core.load import files

    monkeypatch.setattr(yamlload, "FAST_FROM", 1000)
    objs = gen.generate(3, pods_per_node=4)
    node = next(i for i, o in enumerate(objs) if o["kind"] == "Node")
    objs[node]["metadata"]["labels"] = ["not", "a", "map"]
    stream, _ = _cluster_files(tmp_path, objs)
    with pytest.raises(InputError) as e:
        files.load_cluster([str(stream)])
    text = stream.read_text()
    line = text[:text.index("- not")].count("\n") + 1
    assert e.value.line is not None and abs(e.value.line - line) <= 1, (e.value.line, line)
    assert "metadata.labels" in str(e.value) and "Node" in str(e.value)

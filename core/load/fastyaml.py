"""A fast path for large `kubectl get -o yaml` dumps, with PyYAML's safe semantics.

A 5,000-node dump is one ``kind: List`` document of ~400 MB; even built straight from
libyaml's events (core/load/yamlload.py) it takes ~6x as long as the JSON dump of the same
cluster. rapidyaml (a C++ parser) reads it several times faster and writes it back as
JSON, which msgspec decodes as the JSON path does. That JSON is only right where rapidyaml
and PyYAML read the YAML alike, so this path takes only what it can prove they read
alike, and hands everything else to the exact loader:

* The List's ``items`` block sequence (at column 0, as kubectl writes it) is cut into
  pieces of 256 KB at item boundaries; the rest of the document goes to the exact loader.
* A piece goes to the exact loader (the caller's, ``exact``) when a plain scalar in it
  could be typed by YAML 1.1 otherwise than by rapidyaml's JSON (``yes``, ``~``, ``0x1F``,
  ``1_000``, ``017``, ``.inf``, dates, ``<<``, non-string keys, ...), or it holds what this
  path does not take: anchors, aliases, tags, flow collections with content, complex keys,
  quoted keys over several lines, keys of 1,024 characters or more, tabs, carriage
  returns, unknown escapes. These checks are regular expressions over the bytes that err
  on the side of the exact loader: a string that merely looks risky costs speed, never a
  difference. They run in a forked process on the other core while rapidyaml reads.
* Numbers: a plain decimal integer is written by rapidyaml as it is and decoded by msgspec
  to the same int; a float is accepted only in the ``-1.5`` form (``float()`` of it, as
  PyYAML does), anything else (exponents, ``+1``) sends the piece to the exact loader.
* Any error (rapidyaml's, msgspec's) sends the piece to the exact loader; an error there
  makes the whole file go to the exact loader, which reports it with its line. So do
  control characters, line breaks beyond ASCII, byte order marks and invalid UTF-8.

``load_list`` returns None when the text is not such a dump (or rapidyaml is missing):
the caller then loads it all exactly.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import msgspec
import yaml

try:
    import ryml  # type: ignore[import-untyped]
except ImportError:  # pragma: no cover - rapidyaml is a dependency; be safe without it
    ryml = None

ExactLoader = Callable[[bytes], list[tuple[Any, int]]]

PIECE = 256 << 10  # bytes of items parsed at a time: the tree and its JSON stay in the CPU caches

# --- what YAML 1.1 (PyYAML's resolver) types -----------------------------------------------


def _pyyaml_typed() -> bytes:
    """PyYAML's implicit resolvers for everything but strings, as one bytes pattern."""
    seen: list[str] = []
    for resolvers in yaml.resolver.Resolver.yaml_implicit_resolvers.values():
        for _tag, regexp in resolvers:
            body = regexp.pattern
            body = body[1:] if body.startswith("^") else body
            body = body[:-1] if body.endswith("$") else body
            group = f"(?x:{body})" if regexp.flags & re.X else f"(?:{body})"
            if group not in seen:
                seen.append(group)
    return "|".join(seen).encode()


_TYPED = _pyyaml_typed()
# Where a node starts: after "key: ", or after a line's indentation and any "- ". The
# quantifiers are possessive: without backtracking, one pass over a 400 MB dump is
# a fraction of a second.
_END_VALUE = rb"(?:[ ]*+(?:\n|\Z)|[ ]++\#)"
_END_KEY = rb"[ ]*+:(?:[ \n]|\Z)"
# Plain values rapidyaml's JSON has with the same type and value as PyYAML's: decimal
# ints, floats in the -1.5 / 1. / .5 forms (and true, false, null, below). Not "-.5": a
# string to PyYAML, -0.5 in rapidyaml's JSON.
_SAME_NUMBER = rb"(?:-?(?:0|[1-9][0-9]*)(?:\.[0-9]*)?|\.[0-9]+)"
# Words (each alternative starts with a literal, so that a miss costs one comparison).
_NANINF = (rb"\.(?:nan|NaN|NAN|inf|Inf|INF)|-(?:\.inf|\.Inf|\.INF|inf|infinity)|\+(?:\.inf|\.Inf|\.INF|inf|infinity)"
           rb"|i(?:nf|nfinity)|nan")
_BOOL_NULL = (rb"y(?:es)|Y(?:es|ES)|n(?:o|ull)|N(?:o|O|ull|ULL)|o(?:n|ff)|O(?:n|N|ff|FF)|t(?:rue)|T(?:rue|RUE)"
              rb"|f(?:alse)|F(?:alse|ALSE)|~|<<|=")
_VALUE_WORDS = (rb"(?:y(?:es)|Y(?:es|ES)|n(?:o)|N(?:o|O|ull|ULL)|o(?:n|ff)|O(?:n|N|ff|FF)|T(?:rue|RUE)|F(?:alse|ALSE)"
                rb"|~|<<|=|" + _NANINF + rb")")
_KEY_WORDS = rb"(?:" + _BOOL_NULL + rb"|" + _NANINF + rb"|\"(?:" + _NANINF + rb")\"|'(?:" + _NANINF + rb")')"
# Nodes this path does not take: anchors, aliases, tags, complex keys, flow collections
# with content, characters that can't start a plain scalar (PyYAML refuses them).
_NOT_TAKEN = rb"[&*!?@`%,\]}]|[\[{](?![\]}][ ]*+(?:\n|\Z))"
# A quoted scalar at a line's start that doesn't end on its line: PyYAML refuses such a
# key, rapidyaml takes it (over several lines, values are read alike).
_MULTILINE_QUOTED = rb"\"[^\"\\\n]*+(?:\\[^\n][^\"\\\n]*+)*+\\?(?:\n|\Z)|'[^'\n]*+(?:''[^'\n]*+)*+(?:\n|\Z)"
_RISKY_VALUE = (
    # (only what could be a number in YAML 1.1 goes on to the slower test)
    rb"(?=[-+.0-9][-+.0-9_:xXoObBa-fA-FtTzZ ]*+(?:\n|\Z|\#))"
    + rb"(?!" + _SAME_NUMBER + _END_VALUE + rb")(?:" + _TYPED + rb")" + _END_VALUE
    + rb"|" + _VALUE_WORDS + _END_VALUE
    + rb"|-\.[0-9]"
    # the start of a timestamp whose time a plain scalar's next line could hold
    + rb"|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?(?![0-9])"
)
_RISKY_KEY = (
    rb"(?=[-+.0-9])(?:" + _TYPED + rb")" + _END_KEY
    + rb"|" + _KEY_WORDS + _END_KEY  # (".inf"/".nan" words are rewritten by rapidyaml, even quoted)
    + rb"|:(?:[ \n]|\Z)"  # an empty key
)
_FIRST = rb"(?=[-+.0-9~<=:\"'yYnNoOtTfFiI&*!?@`%,\]}\[{])"
# A node at a line's start (a key, or a value alone on its line) ...
_RISKY_AT_LINE = re.compile(rb"\n(?:[^ \-#\n]|-[^ \n]"  # (or a line at column 0 that isn't an item)
                            rb"|[ ]*+(?:-[ ]++)*+" + _FIRST + rb"(?:" + _RISKY_VALUE + rb"|" + _RISKY_KEY
                            + rb"|" + _NOT_TAKEN + rb"|" + _MULTILINE_QUOTED + rb"))")
# ... or a value after "key: ".
_RISKY_AFTER_KEY = re.compile(rb": [ ]*+(?=[-+.0-9~<=yYnNoOTFiI&*!?@`%,\]}\[{])"
                              rb"(?:" + _RISKY_VALUE + rb"|" + _NOT_TAKEN + rb")")
# Escapes rapidyaml might read otherwise than PyYAML (PyYAML refuses unknown ones).
_ODD_ESCAPE = re.compile(rb"\\(?![\\\"nrtbf/ 0aveN_LPxuU\n])|\\x(?![0-9a-fA-F]{2})|\\u(?![0-9a-fA-F]{4})"
                         rb"|\\U(?![0-9a-fA-F]{8})")
# PyYAML refuses a key of more than 1024 characters; rapidyaml takes it. Lines that long
# are looked at one by one.
_LONG_LINE = re.compile(rb"\n[^\n]{1000}")
_NODE_START = re.compile(rb"[ ]*+(?:-[ ]++)*+")
_QUOTED = re.compile(rb"\"(?:[^\"\\]|\\.)*+\"|'(?:[^']|'')*+'")
_KEY_END = re.compile(rb":(?: |\Z)")
# Bytes that need a closer look: all but printable ASCII and newlines.
_PRINTABLE_ASCII = bytes(range(0x20, 0x7F)) + b"\n"
# What PyYAML's reader refuses beyond ASCII (C1 controls, U+FFFE/U+FFFF), and what it
# takes for a line break (NEL, U+2028, U+2029) or skips (a byte order mark).
_UNPRINTABLE = re.compile(rb"\xc2[\x80-\x85\x86-\x9f]|\xef\xbf[\xbe\xbf]|\xe2\x80[\xa8\xa9]|\xef\xbb\xbf")
# The first line at column 0 after the items that isn't an item, a comment or blank.
_AFTER_ITEMS = re.compile(rb"\n(?=[^ \-#\n]|-[^ \n]|\Z)")
_PLAIN_FLOAT = re.compile(r"-?[0-9]+\.[0-9]+")


class _NotAlike(Exception):
    """rapidyaml's reading of a piece can't be shown to equal PyYAML's."""


def _float(text: str) -> float:
    if _PLAIN_FLOAT.fullmatch(text) is None:
        raise _NotAlike(text)
    return float(text)


_DECODER = msgspec.json.Decoder(float_hook=_float)


def load_list(data: bytes, exact: ExactLoader,
              progress: Callable[[int], None] | None = None) -> list[tuple[Any, int]] | None:
    """The documents of ``data`` as ``yaml.safe_load_all`` gives them (with the line each
    starts on), if ``data`` is one document with a column-0 ``items:`` block sequence;
    None otherwise. ``exact`` loads a text exactly (it raises on bad YAML)."""
    if ryml is None or data[:3] in (b"\xef\xbb\xbf",) or data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return None
    key = b"items:\n"
    if data.startswith(key):
        at = 0
    else:
        at = data.find(b"\n" + key) + 1
        if at == 0:
            return None
    start = at + len(key)
    if data[start:start + 2] not in (b"- ", b"-\n"):
        return None
    rest = data.translate(None, _PRINTABLE_ASCII)
    if rest:
        if rest.translate(None, b"\t\r").translate(None, bytes(range(0x80, 0x100))) or _UNPRINTABLE.search(rest):
            return None  # control characters, odd line breaks: the exact path
        if not rest.isascii():
            try:
                data.decode("utf-8")
            except UnicodeDecodeError:
                return None
    # The items end at the first column-0 line after the last item's "- " that isn't an
    # item, a comment or blank. Any such line before (a second document's "---", a key)
    # makes its piece go to the exact loader, which refuses it.
    last = data.rfind(b"\n-", start - 1)
    while last >= start and data[last + 2:last + 3] not in (b" ", b"\n"):
        last = data.rfind(b"\n-", start - 1, last)
    after = _AFTER_ITEMS.search(data, max(last, start - 1))
    end = after.end() if after is not None else len(data)
    try:
        # The document without its items; that "items:" is a key of the top mapping (not
        # a line of a string that spans lines) shows in the text before it read alone.
        head = exact(data[:at] + b"items: []\n")
        if len(head) != 1 or not isinstance(head[0][0], dict) or list(head[0][0])[-1:] != ["items"] \
                or head[0][0]["items"] != []:
            return None
        skeleton = exact(data[:at] + b"items: []\n" + data[end:])
        if len(skeleton) != 1 or not isinstance(skeleton[0][0], dict) or skeleton[0][0].get("items") != []:
            return None
        bounds = list(_pieces(data, start, end))
        # The checks run in a forked process on the other core while rapidyaml reads
        # every piece here; a piece they don't pass is then read again exactly.
        with _checked_elsewhere(data, bounds) as alike:
            read = []
            for a, b in bounds:
                read.append(_ryml_items(memoryview(data)[a:b]))
                if progress is not None:
                    progress(b)
            verdicts = alike()
        taken = [ok and fast is not None for fast, ok in zip(read, verdicts, strict=True)]
        # Anchors are the document's: two of the parts read apart (the pieces read exactly,
        # the rest of the document) may define the same one, which PyYAML refuses.
        apart = [(a, b) for (a, b), took in zip(bounds, taken, strict=True) if not took]
        if apart and sum(_has_anchor(data, a, b) for a, b in [(0, at), (end, len(data)), *apart]) > 1:
            return None
        items: list[Any] = []
        for (a, b), fast, took in zip(bounds, read, taken, strict=True):
            items.extend(fast if took and fast is not None else _exact_piece(data, a, b, exact))
    except (yaml.YAMLError, _NotAlike):
        return None
    skeleton[0][0]["items"] = items
    return skeleton


def _pieces(data: bytes, start: int, end: int) -> Iterator[tuple[int, int]]:
    """``data[start:end]`` in pieces ``(a, b)`` that each begin with an item's "- " at
    column 0 (``data[a - 1]`` is a newline)."""
    while start < end:
        cut = start + PIECE
        while cut < end:
            cut = data.find(b"\n-", cut, end)
            if cut < 0:
                cut = end
            elif data[cut + 2:cut + 3] in (b" ", b"\n"):
                cut += 1
                break
            else:
                cut += 2
        cut = min(cut, end)
        yield start, cut
        start = cut


_ANCHOR = re.compile(rb"&(?=[^\s])(?<=[\s\[{,]&)")


def _has_anchor(data: bytes, a: int, b: int) -> bool:
    """Whether ``data[a:b]`` may define an anchor (or holds an "&" that looks like one)."""
    return data[a:a + 1] == b"&" or _ANCHOR.search(data, a, b) is not None


def _exact_piece(data: bytes, a: int, b: int, exact: ExactLoader) -> list[Any]:
    """The items of ``data[a:b]`` ("- item" lines at column 0), read exactly."""
    docs = exact(data[a:b])
    if len(docs) != 1 or not isinstance(docs[0][0], list):
        raise _NotAlike("piece")
    return docs[0][0]


@contextmanager
def _checked_elsewhere(data: bytes, bounds: list[tuple[int, int]]) -> Iterator[Callable[[], list[bool]]]:
    """Yields a function that returns ``_alike`` of each piece: computed by a forked child
    process while the caller goes on (the checks take about as long as rapidyaml's
    reading, and the machine has a second core), or here where there is no fork."""
    if len(bounds) < 8 or not hasattr(os, "fork"):
        yield lambda: _check_here(data, bounds)
        return
    r, w = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(r)
        os.close(w)
        yield lambda: _check_here(data, bounds)
        return
    if pid == 0:  # pragma: no cover - the child (coverage does not follow it)
        status = 1
        try:
            os.close(r)
            out = bytes(1 if _alike(data, a, b) else 0 for a, b in bounds)
            view = memoryview(out)
            while view:
                view = view[os.write(w, view):]
            status = 0
        finally:
            os._exit(status)
    os.close(w)

    def verdicts() -> list[bool]:
        parts = []
        while part := os.read(r, 1 << 16):
            parts.append(part)
        got = b"".join(parts)
        if len(got) != len(bounds):  # the child failed: check here
            return _check_here(data, bounds)
        return [c == 1 for c in got]

    try:
        yield verdicts
    finally:
        os.close(r)
        os.waitpid(pid, 0)


def _check_here(data: bytes, bounds: list[tuple[int, int]]) -> list[bool]:
    return [_alike(data, a, b) for a, b in bounds]


def _alike(data: bytes, a: int, b: int) -> bool:
    """Whether rapidyaml's JSON of ``data[a:b]`` can be shown to equal what PyYAML reads
    (the searches start at the newline before ``a``, so that its first line is a line)."""
    return _RISKY_AT_LINE.search(data, a - 1, b) is None and _RISKY_AFTER_KEY.search(data, a, b) is None \
        and _ODD_ESCAPE.search(data, a, b) is None and data.find(b"\t", a, b) < 0 and data.find(b"\r", a, b) < 0 \
        and not any(_long_key(data, m.start() + 1, b) for m in _LONG_LINE.finditer(data, a - 1, b))


def _long_key(data: bytes, start: int, b: int) -> bool:
    """Whether the line at ``start`` (of 1,000 characters or more) may hold a key of
    about 1,024 characters or more."""
    end = data.find(b"\n", start, b)
    line = data[start:end if end >= 0 else b]
    node = _NODE_START.match(line).end()  # type: ignore[union-attr]  # (it matches the empty string)
    if line[node:node + 1] in (b'"', b"'"):
        quoted = _QUOTED.match(line, node)
        return quoted is None or (quoted.end() - node >= 1000 and line[quoted.end():].lstrip(b" ")[:1] == b":")
    colon = _KEY_END.search(line, node)
    return colon is not None and colon.start() - node >= 1000


def _ryml_items(piece: bytes | memoryview) -> list[Any] | None:
    """The items of ``piece`` by way of rapidyaml and its JSON; None if either refuses."""
    try:
        with _quiet_stderr():  # (its writer refuses more than 64 levels of nesting)
            tree = ryml.parse_in_arena(piece)
            js = ryml.emit_json_malloc(tree, tree.root_id())
        del tree
        items = _DECODER.decode(js)
    except (ryml.ExceptionBasic, msgspec.DecodeError, msgspec.ValidationError, _NotAlike, RuntimeError, UnicodeError):
        return None
    return items if isinstance(items, list) else None


@contextmanager
def _quiet_stderr() -> Iterator[None]:
    """rapidyaml's error handler writes its message to the C stderr before raising: keep
    it off the terminal (the exact loader reports errors in kschedx's words)."""
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError, AttributeError):  # no usable stderr: nothing to protect
        yield
        return
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, 2)
        finally:
            os.close(null)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)

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

Multi-document streams (objects with ``---`` between them, as people, ``helm template``
and concatenated ``kubectl get -o yaml`` outputs write them) go through ``load_stream``:

* libyaml (and PyYAML) take a line starting with ``---`` or ``...`` and a blank for a
  document marker wherever it stands (it ends a plain or block scalar, and is an error in
  a quoted one or a flow collection), and documents share nothing (anchors are each
  document's own), so the stream is cut at those lines and its documents are read apart.
  Whatever could make the cut differ goes to the exact loader whole: ``%`` directives, a
  content line after ``...`` (PyYAML wants ``---`` there), carriage returns.
* Documents of content are gathered into pieces of 256 KB; rapidyaml reads a piece as a
  stream, and its documents are taken when there are as many as the cut found and the
  checks above pass, with one more for the top level: every line at column 0 is a
  comment, a "- " item, a marker or a plain key of letters, digits and ``-_./``. A
  document whose marker line holds more than a comment (``--- !tag``, ``--- |``) is read
  exactly on its own; so is a piece that fails.
* A large document with a column-0 ``items:`` (a ``kind: List`` in the stream) goes
  through ``load_list``.

Within ``typed_decoding(decode)`` (a cluster being loaded), the JSON of a piece is cut into
its documents' texts and each is decoded straight into its API type by ``decode``, as the
JSON path decodes a dump's items (core/load/stored.py), instead of into plain values that
are then converted: a third of the time a multi-document dump took to load. A typed field
does not call the float check above, so the checks send a piece holding a plain value
with an exponent to the exact loader (plain ``-1.5`` floats read alike either way); any
error of the typed decoding sends the piece the plain way, and its documents are then
checked one by one, where an error is reported with its line.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import msgspec
import yaml

from kschedx.core.api.objects import share_strings

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
    # a number with an exponent: rapidyaml writes it as a JSON number, which PyYAML may read
    # as a string (``1e3``); a typed decoding takes it without the float check
    + rb"|[-+]?[0-9]*+\.?[0-9]*+[eE][-+]?[0-9]++" + _END_VALUE
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
# The JSON texts of an array's elements, undecoded.
_ELEMENTS = msgspec.json.Decoder(list[msgspec.Raw])


class TypedDecoding:
    """What ``typed_decoding`` gives the fast path: ``decode`` takes one document's JSON
    to its API type (raising on a value of the wrong type); ``docs`` holds the documents it
    decoded (each a mapping with a kind), kept alive while the caller tells them by
    ``id`` (a piece read again exactly drops its typed documents: their ids must not be
    taken by the documents read instead). ``each`` is called with each decoded mapping
    at once, while it is fresh (by default ``share_strings``)."""

    def __init__(self, decode: Callable[[msgspec.Raw], Any],
                 each: Callable[[dict[str, Any]], object] = share_strings) -> None:
        self.decode = decode
        self.each = each
        self.docs: list[Any] = []

    def ids(self) -> set[int]:
        return {id(d) for d in self.docs}


_DECODING: ContextVar[TypedDecoding | None] = ContextVar("kschedx_fastyaml_typed", default=None)


@contextmanager
def typed_decoding(decode: Callable[[msgspec.Raw], Any],
                   each: Callable[[dict[str, Any]], object] = share_strings) -> Iterator[TypedDecoding]:
    """Within it, documents the fast path reads are decoded by ``decode`` and handed to
    ``each`` (see the module's docstring); the caller still checks every document not
    in ``ids()``."""
    typed = TypedDecoding(decode, each)
    token = _DECODING.set(typed)
    try:
        yield typed
    finally:
        _DECODING.reset(token)


def _decode_documents(js: bytes | memoryview) -> Any:
    """The array of documents rapidyaml wrote as JSON: each typed when a typed decoding is
    on and the JSON allows it, else plain values with the float check."""
    typed = _DECODING.get()
    if typed is None:
        return _DECODER.decode(js)
    docs = _Shared()
    try:
        for raw in _ELEMENTS.decode(js):
            doc = typed.decode(raw)
            # Shared at once, as the JSON path does item by item: the copies it drops are
            # reused by the next document instead of leaving holes among the kept objects.
            if type(doc) is dict:
                typed.each(doc)
            docs.append(doc)
    except Exception:  # noqa: BLE001 - a wrong type, bad JSON: the plain way reports it
        return _DECODER.decode(js)
    typed.docs.extend(d for d in docs if type(d) is dict and "kind" in d)
    return docs


def load_list(data: bytes, exact: ExactLoader,
              progress: Callable[[int], None] | None = None) -> list[tuple[Any, int]] | None:
    """The documents of ``data`` as ``yaml.safe_load_all`` gives them (with the line each
    starts on), if ``data`` is one document with a column-0 ``items:`` block sequence;
    None otherwise. ``exact`` loads a text exactly (it raises on bad YAML)."""
    return _list_document(data, exact, progress) if _plain_text(data) else None


def _list_document(data: bytes, exact: ExactLoader,
                   progress: Callable[[int], None] | None = None) -> list[tuple[Any, int]] | None:
    """``load_list`` of a text that passed ``_plain_text``."""
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
        reader = _Reader()
        with _checked_elsewhere(data, bounds) as alike:
            read = []
            for a, b in bounds:
                read.append(_ryml_items(memoryview(data)[a:b], reader))
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
            piece = fast if took and fast is not None else _exact_piece(data, a, b, exact)
            _share(piece)
            items.extend(piece)
    except (yaml.YAMLError, _NotAlike):
        return None
    skeleton[0][0]["items"] = items
    return skeleton


def _plain_text(data: bytes) -> bool:
    """Whether rapidyaml may read ``data`` at all: it is there, and the text is UTF-8
    without byte order marks, control characters or line breaks beyond ASCII."""
    if ryml is None or data[:3] in (b"\xef\xbb\xbf",) or data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return False
    rest = data.translate(None, _PRINTABLE_ASCII)
    if rest:
        if rest.translate(None, b"\t\r").translate(None, bytes(range(0x80, 0x100))) or _UNPRINTABLE.search(rest):
            return False  # control characters, odd line breaks: the exact path
        if not rest.isascii():
            try:
                data.decode("utf-8")
            except UnicodeDecodeError:
                return False
    return True


class _Shared(list[Any]):
    """Documents whose strings are shared already (each as it was decoded)."""


def _share(docs: list[Any]) -> None:
    """Intern the strings pods repeat in ``docs`` (as the JSON path does, and while they
    are fresh): each is replaced by an equal string, nothing else changes."""
    if type(docs) is _Shared:
        return
    for doc in docs:
        if type(doc) is dict:
            share_strings(doc)


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
def _checked_elsewhere(data: bytes, bounds: list[tuple[int, int]],
                       alike: Callable[[bytes, int, int], bool] | None = None) -> Iterator[Callable[[], list[bool]]]:
    """Yields a function that returns ``alike`` (``_alike`` unless given) of each piece:
    computed by a forked child process while the caller goes on (the checks take about as
    long as rapidyaml's reading, and the machine has a second core), or here where there
    is no fork."""
    alike = alike or _alike
    if len(bounds) < 8 or not hasattr(os, "fork"):
        yield lambda: _check_here(data, bounds, alike)
        return
    r, w = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(r)
        os.close(w)
        yield lambda: _check_here(data, bounds, alike)
        return
    if pid == 0:  # pragma: no cover - the child (coverage does not follow it)
        status = 1
        try:
            os.close(r)
            out = bytes(1 if alike(data, a, b) else 0 for a, b in bounds)
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
            return _check_here(data, bounds, alike)
        return [c == 1 for c in got]

    try:
        yield verdicts
    finally:
        os.close(r)
        os.waitpid(pid, 0)


def _check_here(data: bytes, bounds: list[tuple[int, int]],
                alike: Callable[[bytes, int, int], bool] | None = None) -> list[bool]:
    alike = alike or _alike
    return [alike(data, a, b) for a, b in bounds]


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


def _ryml_items(piece: bytes | memoryview, reader: _Reader | None = None) -> list[Any] | None:
    """The items of ``piece`` by way of rapidyaml and its JSON; None if either refuses."""
    try:
        with _quiet_stderr():  # (its writer refuses more than 64 levels of nesting)
            items = _decode_documents((reader or _Reader()).json(memoryview(piece)))
    except (ryml.ExceptionBasic, msgspec.DecodeError, msgspec.ValidationError, _NotAlike, RuntimeError, UnicodeError,
            IndexError):
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


# --- multi-document streams ----------------------------------------------------------------

# A document marker: "---" or "..." at a line's start, then a blank or the end (as libyaml
# takes it); the text before the first one is searched for with "\n" put in front.
_MARKER = re.compile(rb"\n(?:---|\.\.\.)(?=[ \t\r\n]|\Z)")
# A "---" line that holds nothing but a comment (the document starts on the next line).
_BARE_MARKER = re.compile(rb"---[ ]*+(?:\#[^\n]*+)?+(?:\n|\Z)")
_BARE_END = re.compile(rb"\.\.\.[ ]*+(?:\#[^\n]*+)?+(?:\n|\Z)")
# Blank and comment lines (what an empty document holds).
_NOTHING = re.compile(rb"(?:[ ]*+(?:\#[^\n]*+)?+\n)*+[ ]*+(?:\#[^\n]*+)?+")
# A line at column 0 that the top level of a taken document may not hold: anything but a
# comment, an item, a bare "---" or a plain key of letters, digits and -_./ (a longer
# line is looked at again by the other checks: values, key words).
_ODD_TOP = re.compile(rb"\n(?!\Z|[ \n\#]|-[ \n]|---[ ]*+(?:\#[^\n]*+)?+(?:\n|\Z)|[A-Za-z_/][-A-Za-z0-9_./]*+:(?:[ \n]|\Z))")
_RISKY_IN_DOCUMENT = re.compile(rb"\n(?:[ ]*+(?:-[ ]++)*+" + _FIRST + rb"(?:" + _RISKY_VALUE + rb"|" + _RISKY_KEY
                                + rb"|" + _NOT_TAKEN + rb"|" + _MULTILINE_QUOTED + rb"))")
LIST_FROM = 1 << 20  # a document from this size on is tried as a `kind: List` (load_list)


class _Document:
    """One document of a stream: its text ``data[start:end]`` (after its marker line),
    where its content starts (``first``, on line ``line``), and whether only the exact
    loader may read it (its marker line holds more than a comment)."""

    __slots__ = ("start", "end", "first", "line", "exact_only")

    def __init__(self, start: int, end: int, first: int, line: int, exact_only: bool) -> None:
        self.start, self.end, self.first, self.line, self.exact_only = start, end, first, line, exact_only


def load_stream(data: bytes, exact: ExactLoader,
                progress: Callable[[int], None] | None = None) -> list[tuple[Any, int]] | None:
    """The documents of ``data`` as ``yaml.safe_load_all`` gives them (with the line each
    starts on), read a piece of documents at a time by rapidyaml where that is shown to
    read alike; None when the text is not for this path (the caller loads it exactly).
    ``exact`` loads a text exactly (it raises on bad YAML)."""
    if not _plain_text(data) or b"\r" in data or _directive(data):
        return None  # directives, carriage returns (line breaks the cut doesn't see): exact
    docs = _documents(data)
    if docs is None:
        return None
    if len(docs) == 1 and docs[0].start == 0:
        return _list_document(data, exact, progress)  # one document: a List or nothing for this path
    out: list[tuple[Any, int]] = []
    try:
        groups = list(_groups(data, docs))
        # (a large List's pieces are checked by load_list)
        bounds = [(g[0].first, g[0].first if _is_large(g) else g[-1].end) for g in groups]
        reader = _Reader()
        with _checked_elsewhere(data, bounds, _alike_documents) as alike:
            read = []
            for group in groups:
                read.append(None if group[0].exact_only else _ryml_documents(data, group, reader))
                if progress is not None:
                    progress(group[-1].end)
            verdicts = alike()
        for group, fast, ok in zip(groups, read, verdicts, strict=True):
            if fast is not None and ok:
                _share(fast)
                out.extend((doc, d.line) for doc, d in zip(fast, group, strict=True) if doc is not None)
            else:
                read_exactly = _exact_documents(data, group, exact)
                _share([doc for doc, _ in read_exactly])
                out.extend(read_exactly)
    except (yaml.YAMLError, _NotAlike):
        return None
    return out


def _directive(data: bytes) -> bool:
    """Whether a line of ``data`` starts with "%" (a directive, or text that looks like one)."""
    at = data.find(b"%")  # (rare, and found by memchr: faster than searching for "\n%")
    while at >= 0:
        if at == 0 or data[at - 1] == 0x0A:
            return True
        at = data.find(b"%", at + 1)
    return False


def _documents(data: bytes) -> list[_Document] | None:
    """The documents of content in ``data``, cut at its marker lines; None where the cut
    might not be libyaml's: content after a "..." line (PyYAML wants "---" there), a
    "..." that ends no document."""
    docs: list[_Document] = []
    start, line, exact_only, ended, opened = 0, 1, False, False, False
    at = 0 if data[:3] in (b"---", b"...") and _MARKER.match(b"\n" + data[:4]) else None
    marks = [0] if at == 0 else []
    marks.extend(m.start() + 1 for m in _MARKER.finditer(data))
    newline_count = data.count
    counted = 0
    for mark in [*marks, len(data)]:
        first = _NOTHING.match(data, start, mark).end()  # type: ignore[union-attr]  # (it matches the empty string)
        if first < mark or exact_only:
            if ended:
                return None
            # Content that does not start at column 0: from its line's start, and read by the
            # exact loader (which says how the lines nest).
            indented = first > start and data[first - 1] == 0x20
            if indented:
                first = data.rfind(b"\n", start, first) + 1 or start
            line += newline_count(b"\n", counted, first)
            counted = first
            docs.append(_Document(start, mark, first, line, exact_only or indented))
            opened = True
        if mark == len(data):
            break
        if data[mark:mark + 1] == b"-":
            exact_only = _BARE_MARKER.match(data, mark) is None
            ended, opened = False, True
        else:
            if _BARE_END.match(data, mark) is None or not opened:
                return None
            ended, opened, exact_only = True, False, False
        nl = data.find(b"\n", mark)
        start = nl + 1 if nl >= 0 else len(data)
    return docs


def _groups(data: bytes, docs: list[_Document]) -> Iterator[list[_Document]]:
    """The documents in runs of about ``PIECE`` bytes that rapidyaml reads at once: next
    to each other (no empty document between them), each taken alone when its marker
    line holds more than a comment or it is a large List."""
    group: list[_Document] = []
    size = 0
    for doc in docs:
        alone = doc.exact_only or doc.end - doc.first >= LIST_FROM
        joins = group and not alone and group[-1].end == doc.start - _marker_length(data, doc.start) \
            and size + doc.end - doc.first <= PIECE
        if group and not joins:
            yield group
            group, size = [], 0
        group.append(doc)
        size += doc.end - doc.first
        if alone:
            yield group
            group, size = [], 0
    if group:
        yield group


def _is_large(group: list[_Document]) -> bool:
    """Whether the group is one large document with a column-0 ``items:`` (maybe a List)."""
    doc = group[0]
    return len(group) == 1 and not doc.exact_only and doc.end - doc.first >= LIST_FROM


def _marker_length(data: bytes, start: int) -> int:
    """The length of the marker line that ends just before ``start``."""
    return start - (data.rfind(b"\n", 0, start - 1) + 1)


class _Reader:
    """rapidyaml's tree and a buffer for its JSON, kept from piece to piece: allocated
    anew for each, they leave the heap full of holes between the objects built meanwhile
    (a fifth more memory at the end)."""

    def __init__(self) -> None:
        self.tree = ryml.Tree()
        self.buf = bytearray(4 * PIECE)

    def json(self, text: memoryview) -> memoryview:
        """rapidyaml's JSON of ``text`` (of a stream: the array of its documents); it
        raises what rapidyaml raises."""
        tree = self.tree
        tree.clear()
        tree.clear_arena()
        ryml.parse_in_arena(text, tree=tree)
        root = tree.root_id()
        failed, size = ryml.emit_json_to_substr(tree, root, memoryview(self.buf))
        if failed:  # (it says how much it needs: written again into a buffer that large)
            self.buf = bytearray(size + size // 4)
            failed, size = ryml.emit_json_to_substr(tree, root, memoryview(self.buf))
            if failed:
                raise IndexError(size)
        return memoryview(self.buf)[:size]

    def count(self) -> int:
        """How many documents the last text held (0: it was no stream)."""
        root = self.tree.root_id()
        return int(self.tree.num_children(root)) if self.tree.is_stream(root) else 0


def _ryml_documents(data: bytes, group: list[_Document], reader: _Reader) -> list[Any] | None:
    """The documents of a group by way of rapidyaml; None if it refuses them or finds
    another number of them (or the group is one large List, which load_list reads)."""
    if _is_large(group):
        return None  # (read by _exact_documents, which tries load_list first)
    try:
        with _quiet_stderr():
            js = reader.json(memoryview(data)[group[0].first:group[-1].end])
            if reader.count() != len(group):
                if len(group) != 1 or reader.count() != 0:
                    return None
                docs = _decode_documents(b"[" + js + b"]")
            else:
                docs = _decode_documents(js)
    except (ryml.ExceptionBasic, msgspec.DecodeError, msgspec.ValidationError, _NotAlike, RuntimeError, UnicodeError,
            IndexError):
        return None
    return docs if isinstance(docs, list) and len(docs) == len(group) else None


def _exact_documents(data: bytes, group: list[_Document], exact: ExactLoader) -> list[tuple[Any, int]]:
    """The documents of a group read exactly (a large one as a List first), with their lines."""
    if _is_large(group):
        doc = group[0]
        listed = _list_document(data[doc.first:doc.end], exact)
        if listed is not None:
            return [(d, line + doc.line - 1) for d, line in listed]
    # The text from the group's first content line on (or from the marker line of a
    # document that starts there), with the lines counted from there.
    doc = group[0]
    begin = doc.first
    if doc.exact_only and doc.start > 0:
        begin = doc.start - _marker_length(data, doc.start)
    offset = doc.line - 1 - data.count(b"\n", begin, doc.first)
    return [(d, line + offset) for d, line in exact(data[begin:group[-1].end])]


def _alike_documents(data: bytes, a: int, b: int) -> bool:
    """``_alike`` for a piece of whole documents (``data[a:b]`` starts at a line)."""
    if a == 0:  # (the searches look for a newline before each line)
        data, b = b"\n" + data[:b], b + 1
        a = 1
    return _ODD_TOP.search(data, a - 1, b) is None and _RISKY_IN_DOCUMENT.search(data, a - 1, b) is None \
        and _RISKY_AFTER_KEY.search(data, a, b) is None \
        and _ODD_ESCAPE.search(data, a, b) is None and data.find(b"\t", a, b) < 0 \
        and not any(_long_key(data, m.start() + 1, b) for m in _LONG_LINE.finditer(data, a - 1, b))

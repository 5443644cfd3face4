"""The objects of a cluster source as the scheduler receives them: each decoded into its
API type, and one object per identity.

The scheduler's informers decode every object into the API server's Go types: a value of
the wrong JSON type (node labels as a list, ``unschedulable: "yes"``) is a decoding error
in Go's words, never something read as it happens to be. Decoding is not validation: a
stored object is taken as stored, whatever today's validation would say of it. The check
runs while a dump is decoded (core/load/decode.py ``stored_type``, msgspec in C); the Go
message is worked out only for an object that fails it.

An object is its kind, namespace and name: the same object from two sources (two dumps
that overlap, or one listed twice) is one object, the later copy winning when they differ.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

import msgspec

from kschedx.core.api.objects import ClusterObjects
from kschedx.core.load.decode import display_path, stored_error, stored_type, zero_filled

Dict = dict[str, Any]


class StoredDecodeError(Exception):
    """An object of a cluster source that its API type cannot hold: ``message`` in Go's
    words, ``keys`` where (for finding its line)."""

    def __init__(self, obj: Dict, message: str, keys: tuple[str | int, ...]) -> None:
        super().__init__(f"{describe(obj)}: {message}")
        self.obj = obj
        self.message = message
        self.keys = keys


def describe(obj: Any) -> str:
    """``Kind namespace/name`` of an object, as far as it says."""
    if not isinstance(obj, dict):
        return "an object"
    meta = obj.get("metadata")
    meta = meta if isinstance(meta, dict) else {}
    name, ns = meta.get("name"), meta.get("namespace")
    who = "/".join(str(x) for x in (ns, name) if isinstance(x, str) and x)
    return " ".join(str(x) for x in (obj.get("kind") or "object", who) if x)


_DECODERS: dict[Any, msgspec.json.Decoder[Any]] = {}
_UNTYPED: msgspec.json.Decoder[Any] = msgspec.json.Decoder()
# The apiVersion and kind kubectl writes first in each item (its keys are sorted).
_HEAD = re.compile(rb'\{\s*"apiVersion"\s*:\s*"([^"\\]*)"\s*,\s*"kind"\s*:\s*"([^"\\]*)"')


def _refused(obj: Any) -> StoredDecodeError | None:
    error = stored_error(obj) if isinstance(obj, dict) else None
    if error is None:
        return None
    message = error.message
    if not message.startswith("json:"):
        # A value's own parse error (a quantity) does not say where: the field and value do.
        value: Any = obj
        for key in error.path:
            value = value[key]
        message = f"{display_path(error.path)}: Invalid value: {json.dumps(value)}: {message}"
    return StoredDecodeError(obj, message, error.path)


def decode_stored(obj: Dict) -> Dict:
    """``obj`` as its API type holds it (fields the type lacks dropped, as the API server's
    decoding drops them); StoredDecodeError when a value has the wrong type. Objects of
    kinds the tables don't know are returned as they are."""
    typ = stored_type(obj.get("apiVersion"), obj.get("kind"))
    if typ is None:
        return obj
    try:
        out: Dict = msgspec.convert(obj, typ)
        return out
    except msgspec.ValidationError:
        return _decoded_slowly(obj, typ)


def _decoded_slowly(obj: Dict, typ: Any) -> Dict:
    """An object the fast check refused: a decoding error in Go's words, else (null items
    in lists and maps) the object with Go's zero values in their place."""
    error = _refused(obj)
    if error is not None:
        raise error from None
    filled = zero_filled(obj)
    try:
        out: Dict = msgspec.convert(filled, typ)
        return out
    except msgspec.ValidationError:
        return filled  # refused by the fast check only (a key that is no string, say): as it is


def decode_stored_raw(raw: msgspec.Raw | bytes) -> Any:
    """One JSON item of a dump, decoded and type-checked in one pass when it starts with its
    apiVersion and kind (as kubectl writes them); else decoded, then checked."""
    head = _HEAD.match(raw)  # a Raw is a buffer
    if head is None:
        obj = _UNTYPED.decode(raw)
        return decode_stored(obj) if isinstance(obj, dict) else obj
    key = head.groups()
    decoder = _DECODERS.get(key)
    if decoder is None:
        typ = stored_type(key[0].decode(errors="replace"), key[1].decode(errors="replace"))
        decoder = _DECODERS[key] = msgspec.json.Decoder(typ) if typ is not None else _UNTYPED
    try:
        return decoder.decode(raw)
    except msgspec.ValidationError:
        obj = _UNTYPED.decode(raw)
        return _decoded_slowly(obj, stored_type(obj.get("apiVersion"), obj.get("kind")))


def _identity(obj: Dict) -> tuple[str, str] | None:
    meta = obj.get("metadata")
    if type(meta) is not dict:
        return None
    name, ns = meta.get("name"), meta.get("namespace")
    if type(name) is not str or not name:
        return None
    return (ns if type(ns) is str else "", name)


@dataclass
class Sources:
    """Where each source's objects start in a ClusterObjects being filled, per kind, so
    that the source of any object can be named afterwards."""

    objects: ClusterObjects
    starts: list[tuple[str, dict[str, int]]] = field(default_factory=list)

    def begin(self, source: str) -> None:
        self.starts.append((source, {kind: len(objs) for kind, objs in self.objects.by_kind.items()}))

    def source_of(self, kind: str, pos: int) -> str:
        for source, starts in reversed(self.starts):
            if pos >= starts.get(kind, 0):
                return source
        return self.starts[0][0] if self.starts else ""


def merge_duplicates(sources: Sources) -> list[str]:
    """Make every object one per identity (kind, namespace, name), in place: copies equal
    to the first are dropped, a differing copy replaces the earlier one where it stood
    (the later source wins). Returns one warning per pair of sources whose copies differ.

    Checked per kind with one pass that only builds the identities (a source without
    duplicates, the usual case, costs that and nothing more)."""
    objects = sources.objects
    conflicts: dict[tuple[str, str], list[str]] = {}
    for kind, objs in objects.by_kind.items():
        # The usual case first, in one comprehension: no two objects share a namespace and name.
        quick = [(m.get("namespace"), m.get("name")) if type(m := o.get("metadata")) is dict else id(o) for o in objs]
        try:
            if len(set(quick)) == len(quick):
                continue
        except TypeError:  # a name that is no string: the careful pass below
            pass
        keys = [_identity(o) for o in objs]
        kept: list[tuple[Dict, int]] = []  # each object kept, with its position in the input
        where: dict[tuple[str, str], int] = {}
        for pos, (obj, key) in enumerate(zip(objs, keys, strict=True)):
            at = where.get(key) if key is not None else None
            if at is None:
                if key is not None:
                    where[key] = len(kept)
                kept.append((obj, pos))
                continue
            old, old_pos = kept[at]
            if old == obj:
                continue
            kept[at] = (obj, pos)
            pair = (sources.source_of(kind, old_pos), sources.source_of(kind, pos))
            conflicts.setdefault(pair, []).append(describe(obj))
        objs[:] = [obj for obj, _ in kept]
        if kind in objects.workloads:
            objects.workloads[kind][:] = objs
    out: list[str] = []
    for (first, later), names in conflicts.items():
        some = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        if first == later:
            out.append(f"{later} holds {len(names)} object(s) twice with different content ({some}); "
                       "the later copy is used")
        else:
            out.append(f"{len(names)} object(s) differ between {first} and {later} ({some}); "
                       f"the copy in {later} is used")
    return out


class _Page(msgspec.Struct):
    """A list response: its items undecoded, its continue token and remaining count."""

    items: list[msgspec.Raw] | None = None
    metadata: dict[str, Any] | None = None


_PAGE = msgspec.json.Decoder(_Page)


class PageError(Exception):
    """A list response that is not a JSON list of objects."""


def decode_raw_items(raws: list[msgspec.Raw], kind: str, api_version: str) -> tuple[list[Dict], int]:
    """The undecoded items of a list page, each decoded into its type (list items carry no
    kind and apiVersion: they are the list's), and how many Events were left out for not
    decoding. StoredDecodeError for any other object its type cannot hold, PageError for an
    item that is no object."""
    typ = stored_type(api_version, kind)
    decoder = _DECODERS.get(typ)
    if decoder is None:
        decoder = _DECODERS[typ] = msgspec.json.Decoder(typ) if typ is not None else _UNTYPED
    items: list[Dict] = []
    skipped = 0
    for raw in raws:
        try:
            item = decoder.decode(raw)
        except msgspec.ValidationError:
            item = _UNTYPED.decode(raw)
            if isinstance(item, dict):
                item.setdefault("kind", kind)
                item.setdefault("apiVersion", api_version)
                try:
                    item = _decoded_slowly(item, typ)
                except StoredDecodeError:
                    if kind != "Event":
                        raise
                    skipped += 1  # only `pending` reads Events: left out, noted once
                    continue
        except (msgspec.DecodeError, UnicodeDecodeError) as e:
            raise PageError(f"not a JSON list ({e})") from None
        if not isinstance(item, dict):
            raise PageError("a list item is not an object")
        item.setdefault("kind", kind)
        item.setdefault("apiVersion", api_version)
        items.append(item)
    return items, skipped


def decode_page(data: bytes, kind: str, api_version: str) -> tuple[list[Dict], dict[str, Any], int]:
    """The items of one page of a list call, each decoded into its type (list items carry
    no kind and apiVersion: they are the list's), the page's metadata, and how many Events
    were left out for not decoding. StoredDecodeError for any other object its type cannot
    hold, PageError for an answer that is no list."""
    try:
        page = _PAGE.decode(data)
    except (msgspec.DecodeError, UnicodeDecodeError) as e:
        raise PageError(f"not a JSON list ({e})") from None
    items, skipped = decode_raw_items(page.items or [], kind, api_version)
    return items, page.metadata or {}, skipped

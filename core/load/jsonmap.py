"""Decoding a large JSON ``kind: List`` dump without holding its bytes and its objects at once.

Reading an 840 MB dump into one bytes object and decoding that gives a peak of the bytes
plus every decoded object (2.4 GiB at 150,000 pods), though the bytes are dropped right
after. Here the file is mapped instead of read: one msgspec pass over the mapping finds
each item (``msgspec.Raw``, a view, nothing copied), then the items are decoded one by
one while the pages already decoded are handed back to the kernel (``MADV_DONTNEED``;
they stay in the page cache, only the process lets go of them). The peak becomes the
decoded objects plus a window of the file, and each item can be compacted as soon as it
is decoded (core/api/objects.py ``share_strings``), while its copies are still fresh for
the next items to reuse. The values are those ``msgspec.json.decode`` gives for the
whole file; anything but a plain List document (an object, an array, a document with
other top-level fields, invalid JSON, gzip, stdin) is left to the ordinary path.
"""

from __future__ import annotations

import mmap
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from kschedx.core.progress import report

# How much of the file may be decoded before its pages are released (also the progress step).
WINDOW = 16 << 20


class _ListDoc(msgspec.Struct, forbid_unknown_fields=True):
    """The top level of ``kubectl get -o json`` (or ``kschedx snapshot``) output; any other
    field sends the document to the ordinary path, where nothing is dropped."""

    items: list[msgspec.Raw] | None
    kind: msgspec.Raw = msgspec.Raw(b"")
    apiVersion: msgspec.Raw = msgspec.Raw(b"")
    metadata: msgspec.Raw = msgspec.Raw(b"")


_DECODE_LIST = msgspec.json.Decoder(_ListDoc)


def decode_list_file(path: str, each: Callable[[Any], object] | None = None) -> dict[str, Any] | None:
    """The decoded List document of a plain (uncompressed) JSON file, equal to
    ``msgspec.json.decode`` of its bytes; None when the file is not such a document or
    cannot be mapped (the caller then reads and decodes it as usual). ``each`` is called
    with every item as soon as it is decoded (to compact it while it is fresh)."""
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode) or st.st_size == 0 or path.endswith(".gz"):
            return None  # stdin, pipes, compressed: read as usual
        with open(path, "rb") as f:
            m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        return None
    try:
        head = m[:4096]
        if head[:2] == b"\x1f\x8b" or head.lstrip()[:1] != b"{":
            return None
        return _decode(m, path, each)
    finally:
        try:
            m.close()
        except BufferError:  # a view still alive after an error: the mapping goes with it
            pass


def _decode(m: mmap.mmap, path: str, each: Callable[[Any], object] | None) -> dict[str, Any] | None:
    size = len(m)
    phase = f"decoding {Path(path).name} ({size >> 20} MB)"
    report(phase, 0, size)
    try:
        top = _DECODE_LIST.decode(m)
    except (msgspec.DecodeError, UnicodeDecodeError):
        return None  # not a plain List (or not valid JSON): the ordinary path says why
    raws = top.items
    doc: dict[str, Any] = {}
    try:
        for key in ("apiVersion", "kind", "metadata"):
            raw = getattr(top, key)
            if len(raw):
                doc[key] = msgspec.json.decode(raw)
    except (msgspec.DecodeError, UnicodeDecodeError):
        return None
    if raws is None:
        doc["items"] = None
        return doc
    del top
    _release(m, size)  # the pass over the whole file brought every page in
    decode = msgspec.json.Decoder().decode
    items: list[Any] = []
    done = released = 0
    try:
        for i in range(len(raws)):
            raw = raws[i]
            raws[i] = _EMPTY  # each view goes once used, so that the mapping can close
            item = decode(raw)
            if each is not None and type(item) is dict:
                each(item)
            items.append(item)
            # The items lie in the file in order, each at or after the sum of the lengths
            # before it: the pages below that sum are decoded.
            done += len(raw)
            del raw
            if done - released >= WINDOW:
                _release(m, done)
                released = done
                report(phase, done, size)
    except (msgspec.DecodeError, UnicodeDecodeError):
        return None
    finally:
        del raws
    _release(m, size)
    report(phase, size, size)
    doc["items"] = items
    return doc


_EMPTY = msgspec.Raw(b"")


def _release(m: mmap.mmap, end: int) -> None:
    """Give the pages of the mapping below ``end`` back (they are read again if touched)."""
    upto = end - end % mmap.PAGESIZE
    if upto > 0 and hasattr(m, "madvise"):
        m.madvise(mmap.MADV_DONTNEED, 0, upto)

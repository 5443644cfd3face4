"""Decoding a large JSON ``kind: List`` dump without holding its bytes and its objects at once.

Reading an 840 MB dump into one bytes object and decoding that gives a peak of the bytes
plus every decoded object (2.4 GiB at 150,000 pods), though the bytes are dropped right
after. Here the file is read (a gzip file decompressed) into anonymous memory: one
msgspec pass over it finds each item (``msgspec.Raw``, a view, nothing copied), then the
items are decoded one by one while the pages already decoded are handed back to the
kernel (``MADV_DONTNEED``). The decoded objects outgrow the bytes they come from (2.4 GiB
from 840 MB), so the peak stays that of the decoded objects, and each item can be
compacted as soon as it is decoded (core/api/objects.py ``share_strings``), while its
copies are still fresh for the next items to reuse. The values are those
``msgspec.json.decode`` gives for the whole file; anything but a plain List document (an
object, an array, a document with other top-level fields, invalid JSON, stdin) is left
to the ordinary path. The file is copied, not mapped: a mapped file truncated while it
is read kills the process (SIGBUS); a file that changes while it is copied is an error.
"""

from __future__ import annotations

import gzip
import io
import mmap
import os
import stat
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

import msgspec

from kschedx.core.errors import InputError
from kschedx.core.progress import report

# The most bytes one input may hold (a file, stdin, a gzip file once decompressed): four
# times the JSON dump of a 150,000-pod cluster (840 MB), so no real dump reaches it, while
# a gzip bomb or an endless stdin ends with a clear error instead of the memory running out.
MAX_INPUT = 4 << 30
TOO_LARGE = "larger than 4 GiB: no cluster dump or manifest is that large"

# What is said of an input nested deeper than the decoders go: Python's recursion limit
# (about 1,000 levels; a Kubernetes object is a few dozen deep), never a RecursionError.
TOO_DEEP = "nested too deeply (over about 1,000 levels of lists and mappings; Kubernetes objects are a few dozen deep)"
# The first bytes looked at before a whole input is read: enough for 1,000 levels of nesting.
HEAD = 64 << 10


def refuse_deep_head(head: bytes, path: str) -> None:
    """Refuse from its first bytes a JSON input nested too deeply (a file of a List's first
    line over and over), before gigabytes of it are read: decoding the head stops at its
    end, or at the nesting limit."""
    if head.lstrip()[:1] in (b"{", b"["):
        try:
            msgspec.json.decode(head)
        except RecursionError:
            raise InputError(TOO_DEEP, path=path) from None
        except (msgspec.DecodeError, UnicodeDecodeError):
            pass


# How much of the file may be decoded before its pages are released (also the progress step).
WINDOW = 16 << 20
_GZ_CHUNK = 16 << 20  # decompressed


class _ListDoc(msgspec.Struct, forbid_unknown_fields=True):
    """The top level of ``kubectl get -o json`` (or ``kschedx snapshot``) output; any other
    field sends the document to the ordinary path, where nothing is dropped."""

    items: list[msgspec.Raw] | None
    kind: msgspec.Raw = msgspec.Raw(b"")
    apiVersion: msgspec.Raw = msgspec.Raw(b"")
    metadata: msgspec.Raw = msgspec.Raw(b"")


_DECODE_LIST = msgspec.json.Decoder(_ListDoc)


def decode_list_file(path: str, each: Callable[[Any], object] | None = None,
                     decode_item: Callable[[msgspec.Raw], Any] | None = None) -> dict[str, Any] | None:
    """The decoded List document of a JSON file (gzip-compressed or not), equal to
    ``msgspec.json.decode`` of its bytes; None when the file is not such a document or
    cannot be mapped (the caller then reads and decodes it as usual). ``each`` is called
    with every item as soon as it is decoded (to compact it while it is fresh);
    ``decode_item`` decodes each item (by default, as ``msgspec.json.decode``)."""
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode) or st.st_size == 0:
            return None  # stdin, pipes: read as usual
        with open(path, "rb") as f:
            head = f.read(HEAD)
            f.seek(0)
            if path.endswith(".gz") or head[:2] == b"\x1f\x8b":
                m = _gunzip(f, st.st_size, path)
                if m is None:
                    return None
            else:
                if head.lstrip()[:1] != b"{":
                    return None
                refuse_deep_head(head, path)
                m = _read_private(f, st, path)
    except (OSError, ValueError, zlib.error):
        return None
    try:
        if m[:4096].lstrip()[:1] != b"{":
            return None
        return _decode(m, path, each, decode_item)
    finally:
        try:
            m.close()
        except BufferError:  # a view still alive after an error: the mapping goes with it
            pass


def _read_private(f: io.BufferedReader, before: os.stat_result, path: str) -> mmap.mmap:
    """The file's bytes in anonymous memory, checked unchanged by the end of the read.

    Not a mapping of the file itself: a file truncated while mapped kills the process
    with SIGBUS when a page past its new end is touched (a dump rewritten by a refresh in
    place while it is read). The copy costs one pass through the page cache (0.15 ms per MB
    on the benchmark machine, in huge pages) and its pages are handed back as they are
    decoded, like a gzip file's."""
    size = before.st_size
    m = _anonymous(size)
    view = memoryview(m)
    done = 0
    try:
        phase = f"reading {Path(path).name} ({size >> 20} MB)"
        while done < size:
            n = f.readinto(view[done:done + _GZ_CHUNK])
            if not n:
                break
            done += n
            report(phase, done, size)
    finally:
        view.release()
    try:
        check_unchanged(f, before, done, path)
    except InputError:
        m.close()
        raise
    return m


def _anonymous(size: int) -> mmap.mmap:
    """Anonymous memory for ``size`` bytes, in huge pages where the kernel gives them: filled
    2 MB at a time rather than 4 KB, the copy costs a quarter as much."""
    m = mmap.mmap(-1, size)
    if hasattr(mmap, "MADV_HUGEPAGE"):
        try:
            m.madvise(mmap.MADV_HUGEPAGE)
        except OSError:  # transparent huge pages off: ordinary pages
            pass
    return m


def check_unchanged(f: BinaryIO, before: os.stat_result, got: int, path: str) -> None:
    """An error when the file was truncated, extended or rewritten while it was read
    (``got`` bytes read of the ``before.st_size`` it had): what was read is no dump."""
    after = os.fstat(f.fileno())
    if got != before.st_size or (after.st_size, after.st_mtime_ns) != (before.st_size, before.st_mtime_ns):
        raise InputError("the file changed while it was read (written to at the same time?); read it again once "
                         "it is complete (kschedx snapshot -o writes a new file and renames it into place)", path=path)


def _gunzip(f: BinaryIO, size: int, path: str) -> mmap.mmap | None:
    """The decompressed content of a gzip file in anonymous memory, which can be handed
    back page by page as it is decoded (a bytes object cannot); None for anything else
    (YAML, a damaged file, one whose trailer does not give its length: over 4 GiB or of
    several members), which the ordinary path reads."""
    f.seek(-4, os.SEEK_END)
    expected = int.from_bytes(f.read(4), "little")  # the gzip trailer: the length modulo 2**32
    f.seek(0)
    phase = f"decompressing {Path(path).name} ({size >> 20} MB)"
    m: mmap.mmap | None = None
    try:
        with gzip.GzipFile(fileobj=f, mode="rb") as z:
            piece = z.read(_GZ_CHUNK)
            if piece[:4096].lstrip()[:1] != b"{" or expected == 0:
                return None
            refuse_deep_head(piece[:HEAD], path)
            if expected > MAX_INPUT:
                raise InputError(TOO_LARGE, path=path)
            m = _anonymous(expected)
            while piece:
                if len(piece) > expected - m.tell():
                    raise ValueError("longer than its trailer says")
                m.write(piece)
                report(phase, f.tell(), size)
                piece = z.read(_GZ_CHUNK)
        if m.tell() != expected:
            raise ValueError("shorter than its trailer says")
    except (ValueError, OSError, EOFError, zlib.error):
        if m is not None:
            m.close()
        return None
    return m


def _decode(m: mmap.mmap, path: str, each: Callable[[Any], object] | None,
            decode_item: Callable[[msgspec.Raw], Any] | None) -> dict[str, Any] | None:
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
    decode = decode_item or msgspec.json.Decoder().decode
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
    """Give the pages of the mapping below ``end`` back: a file's are read again if touched,
    anonymous ones are gone, so only pages already decoded are given back."""
    upto = end - end % mmap.PAGESIZE
    if upto > 0 and hasattr(m, "madvise"):
        m.madvise(mmap.MADV_DONTNEED, 0, upto)

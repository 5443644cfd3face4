"""``kschedx snapshot``: the cluster objects the pipeline reads, as one ``kind: List``.

Stripped of what scheduling never reads and users should not leak: managedFields, the
last-applied-configuration annotation (a full copy of the object, secrets included),
container env values (the names stay), and commands and arguments. Every field a plugin
reads is kept, so a snapshot explains exactly like the cluster it came from.

The file is written as the objects arrive (:class:`SnapshotWriter`, the listing's sink):
each object is redacted and encoded as soon as it is decoded, the bytes are written and
compressed by a thread of their own (file writes and zlib run without the interpreter
lock), and the kinds follow one another in listing order whatever order their pages come
in. It is written to a temporary file beside the output, renamed into place once complete:
a failed run leaves the previous file as it was.
"""

from __future__ import annotations

import gzip
import os
import threading
from collections.abc import Iterable
from queue import Queue
from typing import IO, Any

import msgspec

from kschedx.core.api.objects import ClusterObjects
from kschedx.core.errors import InputError

Dict = dict[str, Any]

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
_CONTAINER_LISTS = ("initContainers", "containers", "ephemeralContainers")


def _redact_pod_spec(spec: Dict) -> Dict:
    """A copy of a pod spec without container commands, arguments and env values (what is
    not changed is shared with ``spec``)."""
    out = dict(spec)
    for key in _CONTAINER_LISTS:
        containers = spec.get(key)
        if not containers:
            continue
        copied = []
        for c in containers:
            if isinstance(c, dict):
                c = {k: v for k, v in c.items() if k not in ("command", "args")}
                if c.get("env"):
                    c["env"] = [{"name": e.get("name")} for e in c["env"] if isinstance(e, dict)]
            copied.append(c)
        out[key] = copied
    return out


def redact(obj: Dict) -> Dict:
    """``obj`` without what scheduling doesn't read and what shouldn't leak. ``obj`` is left
    alone: the parts that change are copied, the rest is shared (the result is encoded at
    once, never changed)."""
    out = dict(obj)
    meta = out.get("metadata")
    if isinstance(meta, dict):
        meta = out["metadata"] = {k: v for k, v in meta.items() if k != "managedFields"}
        ann = meta.get("annotations")
        if isinstance(ann, dict) and (LAST_APPLIED in ann or not ann):
            ann = meta["annotations"] = {k: v for k, v in ann.items() if k != LAST_APPLIED}
            if not ann:
                del meta["annotations"]
    spec = out.get("spec")
    if isinstance(spec, dict):
        if out.get("kind") == "Pod":
            spec = out["spec"] = _redact_pod_spec(spec)
        tpl = spec.get("template")
        if isinstance(tpl, dict) and isinstance(tpl.get("spec"), dict):
            spec = out["spec"] = dict(spec)
            spec["template"] = dict(tpl, spec=_redact_pod_spec(tpl["spec"]))
    return out


def _list_header(server_version: str | None) -> Dict:
    meta: Dict = {"resourceVersion": ""}
    if server_version:
        # The server's version, so that explaining the file reproduces that release.
        from kschedx.core.load.files import SERVER_VERSION_ANNOTATION

        meta["annotations"] = {SERVER_VERSION_ANNOTATION: server_version}
    return {"apiVersion": "v1", "kind": "List", "metadata": meta}


class _Format:
    """The bytes of the List document, in pieces: the same as encoding the whole document
    at once (JSON indented by one space, or block-style YAML)."""

    def __init__(self, path: str) -> None:
        name = path[:-3] if path.endswith(".gz") else path
        self.yaml = name.endswith((".yaml", ".yml"))
        if self.yaml:
            import yaml

            self._dumper: Any = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
            self._dump = yaml.dump

    def head(self, doc: Dict) -> bytes:
        if self.yaml:
            return self._dump(doc, Dumper=self._dumper, sort_keys=False, default_flow_style=False).encode()
        whole = msgspec.json.format(msgspec.json.encode({**doc, "items": []}), indent=1)
        return whole[: whole.rindex(b"[]")] + b"["

    def item(self, obj: Dict) -> bytes:
        if self.yaml:
            return self._dump([obj], Dumper=self._dumper, sort_keys=False, default_flow_style=False).encode()
        # msgspec's C encoder: the json module's indenting encoder is pure Python, minutes
        # on a 150,000-pod cluster. Inside the List an item is two levels deep.
        return msgspec.json.format(msgspec.json.encode(obj), indent=1).replace(b"\n", b"\n  ")

    def before_item(self, first: bool) -> bytes:
        if self.yaml:
            return b"items:\n" if first else b""
        return b"\n  " if first else b",\n  "

    def tail(self, empty: bool) -> bytes:
        if self.yaml:
            return b"items: []\n" if empty else b""
        return b"]\n}" if empty else b"\n ]\n}"


class SnapshotWriter:
    """The snapshot file, written while the cluster is listed (core.load.live's sink).

    Kinds are written in the order :meth:`begin` gives, each as soon as the kinds before it
    are complete (its pages are held, encoded, until then); the kind named ``last``
    (the Events, of which only those ``pending`` compares are kept) is written by
    :meth:`finish`, which also puts the file in place. Use it as a context manager: leaving
    without :meth:`finish` removes the temporary file."""

    def __init__(self, path: str, last: str | None = "Event") -> None:
        self.path = path
        self.last = last
        self.count = 0
        self._format = _Format(path)
        self._order: list[str] = []
        self._held: dict[str, list[bytes]] = {}
        self._complete: set[str] = set()
        self._tmp: str | None = None
        self._file: IO[bytes] | gzip.GzipFile | None = None
        self._raw: IO[bytes] | None = None
        self._queue: Queue[bytes | None] = Queue(64)
        self._thread: threading.Thread | None = None
        self._error: OSError | None = None

    # ---------------------------------------------------------------- the sink

    def begin(self, server_version: str | None, kinds: Iterable[str]) -> None:
        """Open the temporary file and write the List's head."""
        self._order = [k for k in kinds if k != self.last]
        directory, name = os.path.split(os.path.abspath(self.path))
        self._tmp = os.path.join(directory, f".{name}.{os.getpid()}.tmp")
        try:
            # os.open with 0o666: the file gets the umask's permissions, as a plain write would.
            fd = os.open(self._tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
        except OSError as e:
            self._tmp = None
            raise InputError(e.strerror or str(e), path=self.path) from None
        self._raw = os.fdopen(fd, "wb", buffering=1 << 20)
        self._file = gzip.GzipFile(fileobj=self._raw, mode="wb", compresslevel=6, mtime=0) \
            if self.path.endswith(".gz") else self._raw
        self._thread = threading.Thread(target=self._write_out, name="snapshot-writer", daemon=True)
        self._thread.start()
        self._put(self._format.head(_list_header(server_version)))

    def page(self, kind: str, items: list[Dict]) -> None:
        if kind == self.last:
            return
        encoded = [self._format.item(redact(o)) for o in items]
        if self._order and self._order[0] == kind:
            for piece in encoded:
                self._emit(piece)
        else:
            self._held.setdefault(kind, []).extend(encoded)

    def done(self, kind: str) -> None:
        self._complete.add(kind)
        while self._order and self._order[0] in self._complete:
            for piece in self._held.pop(self._order.pop(0), []):
                self._emit(piece)
        if self._order:  # the new first kind's pages so far
            for piece in self._held.pop(self._order[0], []):
                self._emit(piece)

    def finish(self, last: list[Dict] | None = None) -> int:
        """Write the kinds still held and the ``last`` kind's objects, close the List and
        put the file in place; the number of objects written."""
        for kind in list(self._order):
            self.done(kind)
        for kind in list(self._held):  # kinds :meth:`begin` did not name
            for piece in self._held.pop(kind):
                self._emit(piece)
        for obj in last or []:
            self._emit(self._format.item(redact(obj)))
        self._put(self._format.tail(self.count == 0))
        self._close()
        if self._error is not None:
            raise InputError(self._error.strerror or str(self._error), path=self.path)
        assert self._tmp is not None
        try:
            if os.path.exists(self.path):  # a refreshed snapshot keeps the old file's mode
                os.chmod(self._tmp, os.stat(self.path).st_mode & 0o7777)
            os.replace(self._tmp, self.path)
        except OSError as e:
            raise InputError(e.strerror or str(e), path=self.path) from None
        self._tmp = None
        return self.count

    # ---------------------------------------------------------------- inside

    def _emit(self, item: bytes) -> None:
        """Write one encoded item after those written so far."""
        self.count += 1
        self._put(self._format.before_item(self.count == 1) + item)

    def _put(self, piece: bytes) -> None:
        if self._error is not None:
            raise InputError(self._error.strerror or str(self._error), path=self.path)
        self._queue.put(piece)

    def _write_out(self) -> None:
        assert self._file is not None
        while (piece := self._queue.get()) is not None:
            if self._error is None:
                try:
                    self._file.write(piece)
                except OSError as e:
                    self._error = e

    def _close(self) -> None:
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join()
            self._thread = None
        for f in (self._file, self._raw):
            if f is not None:
                try:
                    f.close()
                except OSError as e:
                    self._error = self._error or e
        self._file = self._raw = None

    def __enter__(self) -> SnapshotWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self._close()
        if self._tmp is not None:
            try:
                os.unlink(self._tmp)
            except OSError:
                pass
            self._tmp = None


def write_snapshot(objects: ClusterObjects, path: str) -> int:
    """Write every object as one List (YAML for .yaml/.yml, else JSON; .gz compresses),
    in place of ``path`` once complete; returns the number of objects."""
    with SnapshotWriter(path, last=None) as writer:
        writer.begin(objects.server_version, objects.by_kind)
        for kind, objs in objects.by_kind.items():
            writer.page(kind, objs)
            writer.done(kind)
        return writer.finish()

"""Reading Kubernetes objects from YAML or JSON files (optionally gzip-compressed).

Multi-document YAML and ``kind: List`` documents are flattened into a list of objects.
YAML is parsed by libyaml and built by core/load/yamlload.py (large `kubectl get -o yaml`
Lists by rapidyaml, core/load/fastyaml.py); JSON is decoded by msgspec.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import stat
import sys
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

import msgspec
import yaml

from kschedx.core.api.model import make_early
from kschedx.core.api.objects import ClusterObjects, share_strings
from kschedx.core.errors import InputError
from kschedx.core.gcpause import gc_paused
from kschedx.core.load.clusterinfo import (
    START,
    decode_concatenated_json,
    dump_directory_files,
    has_log_sections,
    strip_log_sections,
)
from kschedx.core.load.dra_versions import OLD_VERSIONS as OLD_DRA_VERSIONS
from kschedx.core.load.dra_versions import to_v1 as dra_to_v1
from kschedx.core.load.fastyaml import typed_decoding
from kschedx.core.load.jsonmap import (
    HEAD,
    MAX_INPUT,
    TOO_DEEP,
    TOO_LARGE,
    check_unchanged,
    decode_list_file,
    refuse_deep_head,
)
from kschedx.core.load.locate import locate_line
from kschedx.core.load.stored import Sources, StoredDecodeError, decode_stored, decode_stored_raw, merge_duplicates
from kschedx.core.load.yamlload import load_all as load_yaml_documents
from kschedx.core.progress import listening_now, report

Dict = dict[str, Any]

CLUSTER_KINDS = frozenset(
    {
        "Node", "Pod", "Namespace", "PersistentVolume", "PersistentVolumeClaim", "StorageClass",
        "CSINode", "CSIDriver", "CSIStorageCapacity", "Service", "ReplicaSet", "StatefulSet", "ReplicationController",
        "PodDisruptionBudget", "PriorityClass", "ResourceSlice", "ResourceClaim", "DeviceClass",
        "ResourceClaimTemplate", "DeviceTaintRule", "Deployment", "DaemonSet", "Job", "CronJob", "ControllerRevision",
        # Read by admission (core/admission) and the controllers' replica counts.
        "LimitRange", "ResourceQuota", "RuntimeClass", "HorizontalPodAutoscaler",
        # Not read by the scheduler: kept for `pending` (the pods' FailedScheduling Events).
        "Event",
    }
)


LOG_MARK = START.encode()

_CHUNK = 16 << 20  # read large files in pieces so that progress can be shown

_TOO_LARGE = TOO_LARGE
_HEAD = 4096


def sniff(head: bytes, path: str) -> None:
    """Refuse from its first bytes an input that is neither YAML nor JSON: text holds no NUL
    byte (UTF-16 and UTF-32, which do, start with a byte order mark: YAML requires it); or
    JSON nested too deeply."""
    if b"\x00" in head[:_HEAD] and not head.startswith((b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")):
        raise InputError("neither YAML nor JSON: binary data (a NUL byte in its first bytes)", path=path)
    refuse_deep_head(head, path)


# Inputs another program rendered (``-k DIR``: core/load/kustomize.py), by the name they are
# read and shown under, and the folder each was rendered from.
RENDERED: dict[str, bytes] = {}
RENDERED_FROM: dict[str, str] = {}


def read_bytes(path: str) -> bytes:
    """The bytes of a file, '-' for stdin; .gz files are decompressed."""
    rendered = RENDERED.get(path)
    if rendered is not None:
        return rendered
    try:
        if path == "-":
            return _read_stdin()
        with open(path, "rb") as f:
            before = os.fstat(f.fileno())
            size = before.st_size
            if size > MAX_INPUT:
                raise InputError(_TOO_LARGE, path=path)
            head = f.read(HEAD)
            f.seek(0)
            gzipped = path.endswith(".gz") or head[:2] == b"\x1f\x8b"
            if gzipped:
                return _read_gzip(f, size, path)
            sniff(head, path)
            if not size:  # empty, or a special file whose size is unknown: read to its end
                data = _read_pieces(f, f, 0, f"reading {Path(path).name}")
                if not stat.S_ISREG(before.st_mode):
                    return data
            elif size <= _CHUNK or not listening_now():
                # As many bytes as the file has, and one more to see it grow: a read of
                # MAX_INPUT + 1 would allocate that whole buffer first (4 GiB of address space).
                data = f.read(size + 1)
            else:
                data = _read_pieces(f, f, size, f"reading {Path(path).name} ({size >> 20} MB)")
            check_unchanged(f, before, len(data), path)
            return data
    except FileNotFoundError:
        raise InputError("no such file", path=path) from None
    except IsADirectoryError:
        raise InputError("is a directory, expected a file", path=path) from None
    except OSError as e:
        raise InputError(e.strerror or str(e), path=path) from None


def _read_stdin() -> bytes:
    """Standard input's bytes (their encoding is the input's, not the terminal's)."""
    stream = sys.stdin.buffer if sys.stdin is not None else None
    if stream is None:
        raise InputError("standard input is closed (nothing to read)", path="-")
    parts: list[bytes] = []
    total = 0
    try:
        while part := stream.read(_CHUNK):
            if not parts:
                sniff(part[:HEAD], "-")
            parts.append(part)
            total += len(part)
            if total > MAX_INPUT:
                raise InputError(_TOO_LARGE, path="-")
    except (OSError, ValueError) as e:  # a closed descriptor
        raise InputError(f"standard input cannot be read ({getattr(e, 'strerror', None) or e})", path="-") from None
    return b"".join(parts)


def _read_gzip(f: BinaryIO, size: int, path: str) -> bytes:
    """Decompress while reading; progress is the share of the compressed file consumed."""
    try:
        with gzip.GzipFile(fileobj=f, mode="rb") as z:
            return _read_pieces(z, f, size, f"decompressing {Path(path).name} ({size >> 20} MB)", path)
    except (gzip.BadGzipFile, EOFError, zlib.error) as e:
        raise InputError(f"not a valid gzip file: {e}", path=path) from None


def _read_pieces(source: BinaryIO | gzip.GzipFile, f: BinaryIO, size: int, phase: str, path: str = "") -> bytes:
    """All of ``source`` in 16 MB pieces, reporting how far into the file ``f`` (of
    ``size`` bytes) that is; at most MAX_INPUT bytes."""
    parts: list[bytes] = []
    total = 0
    while part := source.read(_CHUNK):
        if not parts and path:
            sniff(part[:HEAD], path)
        parts.append(part)
        total += len(part)
        if total > MAX_INPUT:
            raise InputError(_TOO_LARGE, path=path or None)
        report(phase, min(f.tell(), size), size)
    return b"".join(parts)


def _decode(data: bytes, path: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError("not UTF-8 text", path=path) from None


def read_text(path: str) -> str:
    """The text of a file, '-' for stdin; .gz files are decompressed."""
    return _decode(read_bytes(path), path)




def parse_bytes(data: bytes, path: str) -> list[tuple[Dict, int | None]]:
    """Every non-empty document of a file's bytes; see ``_parse_bytes``."""
    try:
        return _parse_bytes(data, path)
    except RecursionError:
        raise InputError(TOO_DEEP, path=path) from None


def _parse_bytes(data: bytes, path: str) -> list[tuple[Dict, int | None]]:
    """Every non-empty document of a file's bytes, with its starting line when known.

    JSON (what ``kubectl get -o json`` and ``kschedx snapshot`` write for large clusters)
    goes through msgspec, which decodes straight from the bytes about twice as fast as the
    json module and without the intermediate str; on malformed input the text parsers below
    report the error with its line.
    """
    if data[:4096].lstrip()[:1] not in (b"{", b"["):
        if LOG_MARK in data:
            return parse_documents(_decode(data, path), path)  # `cluster-info dump -o yaml`, logs and all
        # YAML: libyaml reads the bytes as they are (a str would be copied back to UTF-8).
        return _parse_yaml(data, path)
    report(f"decoding {Path(path).name} ({len(data) >> 20} MB)")
    try:
        doc = msgspec.json.decode(data)
    except (msgspec.DecodeError, UnicodeDecodeError) as e:
        if len(data) > _TEXT_FALLBACK_LIMIT and "trailing characters" not in str(e):
            # The text parsers below would only say the same, at many times the memory.
            raise InputError(f"invalid JSON: {_json_error(e)}", path=path, line=_json_error_line(e, data)) from None
        return parse_documents(_decode(data, path), path)
    docs = doc if isinstance(doc, list) else [doc]
    return [(d, None) for d in docs if d is not None]


# Above this size invalid JSON is reported as msgspec finds it, not parsed again as text.
_TEXT_FALLBACK_LIMIT = 64 << 20


def _json_error(e: Exception) -> str:
    """msgspec's message without its byte position (the line is given instead)."""
    return re.sub(r"^JSON is malformed: | \(byte \d+\)$", "", str(e)) or "malformed"


def _json_error_line(e: Exception, data: bytes) -> int | None:
    m = re.search(r"\(byte (\d+)\)", str(e))
    return data.count(b"\n", 0, int(m.group(1))) + 1 if m else None


def parse_documents(text: str, path: str) -> list[tuple[Dict, int | None]]:
    """Every non-empty document of a YAML or JSON text, with its starting line when known."""
    if has_log_sections(text):
        # `kubectl cluster-info dump` on stdout: lists with the containers' logs between them.
        text = strip_log_sections(text)
    stripped = text.lstrip()
    if stripped[:1] in ("{", "["):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            if e.msg == "Extra data":
                # JSON values one after another (cluster-info dump).
                values = decode_concatenated_json(text, path)
                if values is not None:
                    return [(d, None) for d in values]
            # Not JSON after all? YAML is a superset; let it report the error with a line.
            try:
                return _parse_yaml(text, path)
            except InputError:
                raise InputError(f"invalid JSON: {e.msg}", path=path, line=e.lineno) from None
        docs = data if isinstance(data, list) else [data]
        return [(d, None) for d in docs if d is not None]
    return _parse_yaml(text, path)


def _parse_yaml(text: str | bytes, path: str) -> list[tuple[Dict, int | None]]:
    name = Path(path).name
    size = len(text)
    phase = f"parsing {name} (YAML)"

    def progress(done: int) -> None:
        report(phase, done, size)

    try:
        report(phase, 0, size)
        return list(load_yaml_documents(text, progress))
    except yaml.reader.ReaderError as e:
        what = "not valid UTF-16 text" if "UTF-16" in str(e.reason) else "not UTF-8 text"
        raise InputError(f"{what}: {e.reason} at byte {e.position}", path=path) from None
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line = mark.line + 1 if mark is not None else None
        problem = e.problem or e.context or "invalid YAML"
        raise InputError(f"invalid YAML: {problem}", path=path, line=line) from None
    except yaml.YAMLError as e:
        raise InputError(f"invalid YAML: {e}", path=path) from None


def iter_objects(docs: list[tuple[Any, int | None]], path: str) -> Iterator[tuple[Dict, int | None]]:
    """Objects of the documents, with ``kind: List`` (and ``*List``) items flattened."""
    for doc, line in docs:
        if not isinstance(doc, dict):
            raise InputError(f"expected a Kubernetes object (a mapping), got {type(doc).__name__}", path=path, line=line)
        kind = doc.get("kind")
        # `items: null` is how kubectl writes an empty list.
        if isinstance(kind, str) and kind.endswith("List") and isinstance(doc.get("items"), list | None) \
                and "items" in doc:
            item_kind = kind[: -len("List")] if kind != "List" else None
            for item in doc["items"] or []:
                if not isinstance(item, dict):
                    raise InputError("a List item is not a mapping", path=path, line=line)
                if item_kind and "kind" not in item:
                    item = dict(item, kind=item_kind)
                yield item, line
        else:
            yield doc, line


# The List annotation in which ``kschedx snapshot`` records the API server's version.
SERVER_VERSION_ANNOTATION = "kschedx.io/server-version"


def recorded_server_version(docs: list[tuple[Any, int | None]]) -> str | None:
    """The server version a ``kschedx snapshot`` file records on its List, if any."""
    for doc, _ in docs:
        if isinstance(doc, dict) and doc.get("kind") == "List":
            ann = (doc.get("metadata") or {}).get("annotations") or {}
            value = ann.get(SERVER_VERSION_ANNOTATION) if isinstance(ann, dict) else None
            if isinstance(value, str) and value:
                return value
    return None


def parse_file(path: str) -> list[tuple[Dict, int | None]]:
    """Every non-empty document of a file, as ``parse_bytes`` of its bytes; a JSON List
    file is decoded from a mapping of it, item by item (core/load/jsonmap.py), with the
    strings that repeat from pod to pod shared."""
    return _parse_cluster_file(path, None)[0]


def _parse_cluster_file(path: str, decode_item: Callable[[msgspec.Raw], Any] | None,
                        each: Callable[[Dict], object] = share_strings) \
        -> tuple[list[tuple[Dict, int | None]], bool]:
    """``parse_file``, each item of a mapped List decoded by ``decode_item`` when given
    and handed to ``each`` as it is decoded; the second value says whether the items were."""
    if path != "-":
        try:
            doc = decode_list_file(path, each, decode_item)
        except RecursionError:
            raise InputError(TOO_DEEP, path=path) from None
        if doc is not None:
            return [(doc, None)], decode_item is not None
    return parse_bytes(read_bytes(path), path), False


def load_objects(path: str) -> list[tuple[Dict, int | None]]:
    return list(iter_objects(parse_bytes(read_bytes(path), path), path))


def _stored_error(e: StoredDecodeError, path: str, line: int | None) -> InputError:
    """The decoding error of a stored object, at its field's line when the file is small
    enough to read again (a dump of many MB is not composed a second time for a line)."""
    if line is None or e.keys:
        try:
            small = path != "-" and os.path.getsize(path) <= LOCATE_LIMIT and not path.endswith(".gz")
        except OSError:
            small = False
        if small:
            line = locate_line(path, e.obj, e.keys) or line
    return InputError(str(e), path=path, line=line)


# The largest dump whose lines are looked up again for a decoding error.
LOCATE_LIMIT = 16 << 20


def load_cluster(paths: list[str]) -> ClusterObjects:
    """All the objects of the cluster dumps, each decoded into its API type and one per
    identity (core/load/stored.py); kinds the pipeline doesn't read are counted."""
    objects = ClusterObjects()
    sources = Sources(objects)
    early = objects.early_pods

    def settle(item: Dict) -> None:
        """A decoded item, while it is fresh: its repeated strings shared and, for a pod,
        its PodInfo made for the snapshot (core/api/model.py ``make_early``)."""
        share_strings(item)
        if item.get("kind") == "Pod":
            make_early(early, item)

    files: list[str] = []
    for path in paths:
        # A `kubectl cluster-info dump --output-directory` tree: its object files.
        files.extend(dump_directory_files(path) if path != "-" and os.path.isdir(path) else [path])
    for path in files:
        report(f"reading {path}")
        sources.begin(path)
        with gc_paused(), typed_decoding(_decode_item, settle) as typed_yaml:
            try:
                docs, decoded = _parse_cluster_file(path, _decode_item, settle)
            except StoredDecodeError as e:
                raise _stored_error(e, path, None) from None
            objects.server_version = objects.server_version or recorded_server_version(docs)
            loaded = list(iter_objects(docs, path))
            # The items decoded as their type; one without a kind of its own (the item of a
            # NodeList, say) is given its List's and checked below. So are the documents the
            # YAML fast path decoded as their type (core/load/fastyaml.py).
            typed = {id(item) for item in docs[0][0].get("items") or [] if "kind" in item} if decoded else set()
            typed |= typed_yaml.ids()
        for number, (obj, line) in enumerate(loaded, start=1):
            if obj is _BROKEN_EVENT:
                objects.skipped_events += 1
                continue
            kind = obj.get("kind")
            if not isinstance(kind, str) or not kind:
                name = (obj.get("metadata") or {}).get("name") if isinstance(obj.get("metadata"), dict) else None
                raise InputError(f"object {number}{f' ({name})' if name else ''} has no kind", path=path, line=line)
            if kind in CLUSTER_KINDS:
                if not isinstance(obj.get("metadata"), dict):
                    if kind == "Event":
                        objects.skipped_events += 1
                        continue
                    raise InputError(f"{kind} without metadata", path=path, line=line)
                checked = id(obj) in typed
                if obj.get("apiVersion") in OLD_DRA_VERSIONS:
                    obj = dra_to_v1(obj)  # a v1.33 cluster's resource.k8s.io/v1beta1 or v1beta2
                    checked = False
                if not checked:
                    try:
                        obj = decode_stored(obj)
                    except StoredDecodeError as e:
                        if kind == "Event":
                            objects.skipped_events += 1
                            continue
                        raise _stored_error(e, path, line) from None
                if kind == "Node" and not (isinstance(obj["metadata"].get("name"), str) and obj["metadata"]["name"]):
                    # The scheduler keys everything by node name; a stored Node always has one.
                    raise InputError("Node without metadata.name", path=path, line=line)
                objects.add(obj)
            else:
                objects.skipped_kinds[kind] = objects.skipped_kinds.get(kind, 0) + 1
    objects.load_warnings.extend(merge_duplicates(sources))
    return objects


# Stands for an Event that does not decode: only `pending` reads Events, and an Event
# anyone allowed to create Events wrote badly is left out (counted), not an error.
_BROKEN_EVENT: Dict = {"kind": "Event"}


def _decode_item(raw: msgspec.Raw) -> Any:
    try:
        return decode_stored_raw(raw)
    except StoredDecodeError as e:
        if e.obj.get("kind") == "Event":
            return _BROKEN_EVENT
        raise

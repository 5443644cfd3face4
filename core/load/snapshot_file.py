"""``kschedx snapshot``: the cluster objects the pipeline reads, as one ``kind: List``.

Stripped of what scheduling never reads and users should not leak: managedFields, the
last-applied-configuration annotation (a full copy of the object, secrets included),
container env values (the names stay), and commands and arguments. Every field a plugin
reads is kept, so a snapshot explains exactly like the cluster it came from.
"""

from __future__ import annotations

import contextlib
import copy
import gzip
import os
import tempfile
from pathlib import Path
from typing import Any

import msgspec

from kschedx.core.api.objects import ClusterObjects
from kschedx.core.errors import InputError

Dict = dict[str, Any]

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
_CONTAINER_LISTS = ("initContainers", "containers", "ephemeralContainers")


def _redact_pod_spec(spec: Dict) -> None:
    for key in _CONTAINER_LISTS:
        for c in spec.get(key) or []:
            c.pop("command", None)
            c.pop("args", None)
            if c.get("env"):
                c["env"] = [{"name": e.get("name")} for e in c["env"] if isinstance(e, dict)]


def redact(obj: Dict) -> Dict:
    """A copy of ``obj`` without what scheduling doesn't read and what shouldn't leak."""
    out = copy.deepcopy(obj)
    meta = out.get("metadata") or {}
    meta.pop("managedFields", None)
    ann = meta.get("annotations")
    if isinstance(ann, dict):
        ann.pop(LAST_APPLIED, None)
        if not ann:
            meta.pop("annotations", None)
    spec = out.get("spec")
    if isinstance(spec, dict):
        if out.get("kind") == "Pod":
            _redact_pod_spec(spec)
        tpl = spec.get("template")
        if isinstance(tpl, dict) and isinstance(tpl.get("spec"), dict):
            _redact_pod_spec(tpl["spec"])
    return out


def write_snapshot(objects: ClusterObjects, path: str) -> int:
    """Write every object as one List (YAML for .yaml/.yml, else JSON; .gz compresses);
    returns the number of objects."""
    items = [redact(o) for objs in objects.by_kind.values() for o in objs]
    meta: Dict = {"resourceVersion": ""}
    if objects.server_version:
        # The server's version, so that explaining the file reproduces that release.
        from kschedx.core.load.files import SERVER_VERSION_ANNOTATION

        meta["annotations"] = {SERVER_VERSION_ANNOTATION: objects.server_version}
    doc = {"apiVersion": "v1", "kind": "List", "metadata": meta, "items": items}
    name = path[:-3] if path.endswith(".gz") else path
    if name.endswith((".yaml", ".yml")):
        import yaml

        dumper: Any = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
        data = yaml.dump(doc, Dumper=dumper, sort_keys=False, default_flow_style=False).encode()
    else:
        # msgspec's C encoder: the json module's indenting encoder is pure Python, minutes
        # on a 150,000-pod cluster.
        data = msgspec.json.format(msgspec.json.encode(doc), indent=1)
    if path.endswith(".gz"):
        data = gzip.compress(data)
    write_atomically(path, data)
    return len(items)


def write_atomically(path: str, data: bytes) -> None:
    """Write ``data`` to ``path`` so that a reader sees the old file or the new one, never
    a part: a temporary file beside it, renamed over it once complete (a ``check`` reading
    the snapshot while it is refreshed keeps its own copy)."""
    target = Path(path)
    tmp: str | None = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        if target.exists():
            os.chmod(tmp, target.stat().st_mode & 0o7777)
        else:
            os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, target)
        tmp = None
    except OSError as e:
        raise InputError(e.strerror or str(e), path=path) from None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask

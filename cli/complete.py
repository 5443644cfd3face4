"""Values for shell completion: what users type most after a command — node names
(``--node``, ``--cordon``, ``--drain``, ``--without-node``), references (``pod/NAME``,
``deploy/NAME`` in the ``-n`` namespace), ``--kubernetes-version`` values and profile names —
read from the cluster source and the configuration already on the command line (the
``--snapshot`` files, else the live cluster of ``--kubeconfig``/``--context``: one bounded
list request), as kubectl's completion reads the cluster it would talk to.

Completion runs while the user waits at a prompt: reading a dump is bounded by
COMPLETION_SECONDS (a large dump left unread offers nothing rather than keep the shell
waiting), and nothing here ever prints an error.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import Any, TypeVar

import typer

# How long a completion may read the cluster source before it gives up and offers nothing.
COMPLETION_SECONDS = 3.0

T = TypeVar("T")

# The kinds explain takes by reference, in the spelling users type (kubectl's short names).
REFERENCE_PREFIXES = ("pod/", "deploy/", "statefulset/", "sts/", "daemonset/", "ds/", "replicaset/", "rs/",
                      "job/", "cronjob/", "cj/", "deployment/", "po/")


def _bounded(work: Callable[[], T]) -> T | None:
    """``work()``'s answer, or None when it fails or takes longer than COMPLETION_SECONDS."""
    box: list[T] = []

    def run() -> None:
        try:
            box.append(work())
        except Exception:  # a completion never fails the shell: it offers nothing
            pass

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(COMPLETION_SECONDS)
    return box[0] if box else None


def _param(ctx: typer.Context, name: str) -> Any:
    return (ctx.params or {}).get(name)


def _objects(ctx: typer.Context) -> Any:
    """The cluster objects of the --snapshot files on the command line (None without any)."""
    files = [f for f in _param(ctx, "cluster") or [] if f != "-"]
    if not files:
        return None

    def load() -> Any:
        from kschedx.core.explain.front import load_cluster_files

        return load_cluster_files(files)

    return _bounded(load)


def _live_names(ctx: typer.Context, kind: str, namespace: str | None = None) -> list[str] | None:
    """Without --snapshot: the names the live cluster of --kubeconfig/--context lists (one
    page of a list request bounded by COMPLETION_SECONDS), None when it cannot be read."""
    from kschedx.core.load.references import REFERENCE_KINDS

    if _param(ctx, "cluster"):
        return None
    if kind == "Node":
        path = "/api/v1/nodes"
    else:
        ref = next((r for r in REFERENCE_KINDS.values() if r.kind == kind), None)
        if ref is None:
            return None
        path = ref.path(namespace or "default", "").rstrip("/")

    def read() -> list[str]:
        from kschedx.core.load.live import connect
        from kschedx.core.load.live_get import LiveReader

        conn = connect(_param(ctx, "kubeconfig"), _param(ctx, "context"), COMPLETION_SECONDS)
        return LiveReader(conn).names(path)

    return _bounded(read)


def _names(objects: Any, kind: str, namespace: str | None = None) -> list[str]:
    out = []
    for obj in objects.of(kind):
        meta = obj.get("metadata") or {}
        if namespace is None or (meta.get("namespace") or "default") == namespace:
            out.append(str(meta.get("name") or ""))
    return sorted(n for n in out if n)


def node_names(ctx: typer.Context, incomplete: str) -> list[str]:
    objects = _objects(ctx)
    names = _names(objects, "Node") if objects is not None else _live_names(ctx, "Node") or []
    return [n for n in names if n.startswith(incomplete)]


def versions(ctx: typer.Context, incomplete: str) -> list[str]:
    from kschedx.core.versions import SUPPORTED_VERSIONS

    values = [v.removeprefix("v") for v in SUPPORTED_VERSIONS]
    return [v for v in values if v.startswith(incomplete.removeprefix("v"))]


def profiles(ctx: typer.Context, incomplete: str) -> list[str]:
    """The profiles of --config (the default profile without one)."""
    config = _param(ctx, "config")
    names = ["default-scheduler"]
    if config:
        def read() -> list[str]:
            from kschedx.core.explain.front import load_profiles

            loaded, _ = load_profiles(config, None)
            return sorted(loaded or {})

        names = _bounded(read) or []
    return [n for n in names if n.startswith(incomplete)]


def _paths(incomplete: str) -> list[str]:
    """Files and folders starting with ``incomplete`` (folders with a trailing slash)."""
    folder, slash, start = incomplete.rpartition("/")
    prefix = folder + slash  # "dir/", "/" for the root, "" for the working directory
    try:
        entries = sorted(os.listdir(prefix or "."))
    except OSError:
        return []
    out = []
    for e in entries:
        if e.startswith(start) and (start.startswith(".") or not e.startswith(".")):
            path = prefix + e
            out.append(path + "/" if os.path.isdir(path) else path)
    return out


def manifests(ctx: typer.Context, incomplete: str) -> list[str]:
    """A manifest path, or TYPE/NAME of an object in the cluster dump (in -n's namespace)."""
    from kschedx.core.load.references import REFERENCE_KINDS

    kind, slash, name = incomplete.partition("/")
    ref = REFERENCE_KINDS.get(kind.lower()) if slash else None
    if ref is not None:
        namespace = _param(ctx, "namespace") or "default"
        objects = _objects(ctx)
        names = _names(objects, ref.kind, namespace) if objects is not None else _live_names(ctx, ref.kind, namespace)
        if names is None:
            return _paths(incomplete)
        return [f"{kind}/{n}" for n in names if n.startswith(name)]
    kinds = [p for p in REFERENCE_PREFIXES if p.startswith(incomplete)]
    return _paths(incomplete) + kinds

"""Manifests as they sit in a repository: which files hold pod-bearing documents, which
are something else (Service-only files, ``kustomization.yaml``, CI workflows, Helm values),
and the other objects of those files that scheduling reads (a chart's own PriorityClass,
its PVCs, Services, ResourceClaimTemplates, Namespaces), laid over the cluster the way
``kubectl apply -f`` of the files would create them.
"""

from __future__ import annotations

import fnmatch
import os
import re
import stat
from dataclasses import dataclass, field
from typing import Any

import yaml

from kschedx.core.api.objects import ClusterObjects
from kschedx.core.errors import InputError
from kschedx.core.load.files import CLUSTER_KINDS, iter_objects, parse_bytes, read_bytes
from kschedx.core.load.manifest import WORKLOAD_KINDS

Dict = dict[str, Any]

# What scheduling reads besides the workloads themselves. The workloads of the files are
# what is being checked, each on its own, so they are not laid over the cluster (the
# owner objects a placement needs are added per workload); nodes and pods are the
# cluster's, not something a deploy folder creates.
OVERLAY_KINDS = frozenset(CLUSTER_KINDS - set(WORKLOAD_KINDS) - {"Node", "Pod"})

CLUSTER_SCOPED = frozenset({"Namespace", "PersistentVolume", "StorageClass", "CSINode", "CSIDriver", "DeviceTaintRule",
                            "PriorityClass", "ResourceSlice", "DeviceClass", "RuntimeClass"})


@dataclass
class ManifestFile:
    """One file's documents as check sees them: the pod-bearing ones to check, the others
    that go over the cluster, or why the file is skipped."""

    path: str
    workloads: list[Dict] = field(default_factory=list)
    overlay: list[Dict] = field(default_factory=list)
    skipped: str | None = None
    # Each workload's document number in the file (1-based, every document counted).
    documents: list[int] = field(default_factory=list)


def is_kubernetes_object(obj: Dict) -> bool:
    return isinstance(obj.get("apiVersion"), str) and isinstance(obj.get("kind"), str)


def classify(path: str, loaded: list[tuple[Dict, int | None]]) -> ManifestFile:
    """Sort a file's documents. A file none of whose documents is a Kubernetes object
    (apiVersion and kind) is not a manifest (a workflow, Helm values) and is skipped; in a
    file of Kubernetes objects, a document without ``kind`` or ``apiVersion`` is an error
    naming the document."""
    out = ManifestFile(path)
    if not any(is_kubernetes_object(o) for o, _ in loaded):
        out.skipped = "not Kubernetes objects" if loaded else "no documents"
        return out
    for index, (obj, line) in enumerate(loaded, start=1):
        if not is_kubernetes_object(obj):
            missing = "kind" if not isinstance(obj.get("kind"), str) else "apiVersion"
            where = f"document {index}"
            raise InputError(f"{where}: object has no {missing}", path=path, line=line)
        kind = obj["kind"]
        if kind in WORKLOAD_KINDS:
            out.workloads.append(obj)
            out.documents.append(index)
        elif kind in OVERLAY_KINDS:
            out.overlay.append(obj)
    if not out.workloads:
        kinds = sorted({str(o.get("kind")) for o, _ in loaded})
        out.skipped = "no Pod or workload, only " + ", ".join(kinds)
    return out


def _key(obj: Dict, namespace: str | None) -> tuple[str, str, str]:
    kind = str(obj.get("kind"))
    meta = obj.get("metadata") or {}
    ns = "" if kind in CLUSTER_SCOPED else (meta.get("namespace") or namespace or "default")
    return kind, ns, str(meta.get("name") or "")


def lay_over(objects: ClusterObjects, extra: list[Dict], namespace: str | None = None) -> tuple[ClusterObjects, list[str]]:
    """The cluster with ``extra`` applied: an object of the same kind, namespace and name
    is replaced, others are added (namespaced objects without a namespace go to
    ``namespace``, else default, as kubectl would put them). Returns the new objects and
    the names of what was applied (KIND/NAME or KIND/NS/NAME)."""
    if not extra:
        return objects, []
    out = objects.copy()
    applied: list[str] = []
    latest: dict[tuple[str, str, str], Dict] = {}
    for obj in extra:
        if not isinstance(obj.get("metadata"), dict) or not (obj["metadata"].get("name")):
            raise InputError(f"{obj.get('kind')} without metadata.name")
        key = _key(obj, namespace)
        if key[1] and obj["metadata"].get("namespace") != key[1]:
            obj = dict(obj, metadata=dict(obj["metadata"], namespace=key[1]))
        latest[key] = obj
    for key, obj in latest.items():
        kind, ns, name = key
        current = out.by_kind[kind]
        out.by_kind[kind] = [o for o in current if _key(o, None) != key]
        out.by_kind[kind].append(obj)
        applied.append(f"{kind}/{ns}/{name}" if ns else f"{kind}/{name}")
    return out, applied


def same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def inside(path: str, directory: str) -> bool:
    """Whether ``path`` lies under ``directory`` (a cluster-info dump's tree, say)."""
    if not os.path.isdir(directory):
        return False
    root = os.path.realpath(directory)
    return os.path.realpath(path).startswith(root + os.sep)


# --------------------------------------------------------------------------- walking a repository

# Folders that hold no manifests of the application: version control and JavaScript packages.
UNWALKED_DIRS = frozenset({".git", "node_modules"})
MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")
KUSTOMIZATION_FILES = ("kustomization.yaml", "kustomization.yml", "Kustomization")
# Fields of a kustomization that name its inputs (files or folders), as kustomize reads them.
_KUSTOMIZE_LISTS = ("resources", "bases", "components", "patchesStrategicMerge", "crds", "configurations",
                    "generators", "transformers", "validators")
_KUSTOMIZE_PATH_LISTS = ("patches", "patchesJson6902", "replacements")
# Go template actions as Helm (and other template engines) write them.
_TEMPLATE = re.compile(rb"\{\{.*?\}\}")
# Strings where a rendered manifest may still hold `{{ … }}` on purpose: a program's own
# template in its command line or environment, a tool's template in an annotation.
_FREE_TEXT_FIELDS = frozenset({"command", "args", "env", "annotations"})
_KUBERNETES_MARKS = (re.compile(rb"^\s*[\"']?apiVersion[\"']?\s*:", re.M), re.compile(rb"^\s*[\"']?kind[\"']?\s*:", re.M))


@dataclass
class RepositoryWalk:
    """The files of the paths to read, and what was left out without being read."""

    files: list[str] = field(default_factory=list)
    # Cluster dumps met on the way (never checked).
    dumps: list[str] = field(default_factory=list)
    # Helm chart sources and kustomize inputs: (folder, why, naming the command that renders it).
    folders: list[tuple[str, str]] = field(default_factory=list)
    # Per --exclude GLOB, how many files it left out.
    excluded: list[tuple[str, int]] = field(default_factory=list)


SPECIAL_NOTE = "not a regular file (a FIFO, socket or device file met in a folder): not read"


def _regular(path: str) -> bool:
    """A regular file, or a link to one (what a folder's manifests are)."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return True  # a dangling link: reading it says what is wrong


def helm_note(folder: str) -> str:
    return (f"a Helm chart source (Chart.yaml), not manifests; check what it renders: "
            f"helm template RELEASE {folder} | kschedx check -f -")


def kustomize_note(folder: str, files: int) -> str:
    return (f"kustomize input ({files} file(s): a kustomization, its resources and patches), not manifests; "
            f"check what it renders: kschedx check -k {folder}")


def _matches(rel: str, globs: list[str], full: str = "") -> str | None:
    """The first glob that matches a path (relative to the walked folder, '/'-separated),
    the path as walked (``full``), or its name; ``**/`` also matches at the top."""
    name = rel.rsplit("/", 1)[-1]
    paths = (rel, name, full.replace(os.sep, "/")) if full else (rel, name)
    for g in globs:
        bare = g.rstrip("/")
        short = bare[3:] if bare.startswith("**/") else bare
        if any(fnmatch.fnmatchcase(s, p) for s in paths for p in (bare, short)):
            return g
    return None


def _kustomization_inputs(folder: str, kustomization: str) -> list[str]:
    """The local paths (files or folders) a kustomization names as its inputs."""
    try:
        with open(kustomization, "rb") as f:
            doc = yaml.safe_load(f)
    except (OSError, yaml.YAMLError):
        return []
    if not isinstance(doc, dict):
        return []
    names: list[str] = []
    for key in _KUSTOMIZE_LISTS:
        names.extend(v for v in doc.get(key) or [] if isinstance(v, str))
    for key in _KUSTOMIZE_PATH_LISTS:
        names.extend(v["path"] for v in doc.get(key) or [] if isinstance(v, dict) and isinstance(v.get("path"), str))
    # Remote bases (URLs, git references) and inline patches are not files of the repository.
    return [os.path.normpath(os.path.join(folder, n)) for n in names if "://" not in n and "\n" not in n
            and not n.startswith(("github.com/", "git@"))]


def _kustomization(folder: str, names: list[str]) -> str | None:
    return next((os.path.join(folder, k) for k in KUSTOMIZATION_FILES if k in names), None)


def _chart_above(folder: str) -> str | None:
    """The Helm chart a file or folder lies in (``check chart/templates``), if any."""
    here = os.path.abspath(folder)
    while True:
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent
        if os.path.isfile(os.path.join(here, "Chart.yaml")):
            return here if os.path.isabs(folder) else os.path.relpath(here)  # as the user wrote it


class _Walker:
    def __init__(self, dumps: list[str], globs: list[str]) -> None:
        self.dumps = [d for d in dumps if d != "-"]
        self.globs = globs
        self.out = RepositoryWalk()
        self.excluded: dict[str, int] = {}
        # kustomization folder -> its note's file count; its inputs found outside it.
        self.kustomize: dict[str, int] = {}
        self.inputs: dict[str, str] = {}

    def _left_out(self, path: str, rel: str) -> bool:
        g = _matches(rel, self.globs, path) if self.globs else None
        if g is not None:
            self.excluded[g] = self.excluded.get(g, 0) + 1
            return True
        if any(same_file(path, d) or inside(path, d) for d in self.dumps):
            self.out.dumps.append(path)
            return True
        return False

    def _in_chart(self, path: str) -> bool:
        """Whether a file or folder named on the command line lies in a Helm chart (its
        templates, values): then the chart's note stands for it."""
        chart = _chart_above(path)
        if chart is None:
            return False
        if all(folder != chart for folder, _ in self.out.folders):
            self.out.folders.append((chart, helm_note(chart)))
        return True

    def file(self, path: str) -> None:
        if path == "-" or not (self._left_out(path, path.replace(os.sep, "/")) or self._in_chart(path)):
            self.out.files.append(path)

    def folder(self, root: str) -> None:
        if self._in_chart(root):
            return
        found = 0
        walked: list[str] = []
        for here, dirs, names in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d not in UNWALKED_DIRS)
            rel_dir = os.path.relpath(here, root).replace(os.sep, "/")
            prefix = "" if rel_dir == "." else rel_dir + "/"
            g = _matches(rel_dir, self.globs, here) if prefix and self.globs else None
            if g is not None:
                count = _count_manifests(here)
                self.excluded[g] = self.excluded.get(g, 0) + count
                found += count
                dirs[:] = []
                continue
            kustomization = _kustomization(here, names)
            if "Chart.yaml" in names or kustomization is not None:
                count = max(_count_manifests(here), 1)  # a kustomization may be named Kustomization
                if kustomization is None:
                    self.out.folders.append((here, helm_note(here)))
                else:
                    self.kustomize[here] = count
                    for sub, _, subnames in os.walk(here):
                        k = _kustomization(sub, subnames)
                        if k is not None:
                            self.inputs.update((p, here) for p in _kustomization_inputs(sub, k))
                dirs[:] = []
                found += count
                continue
            for name in sorted(names):
                if name.endswith(MANIFEST_SUFFIXES):
                    found += 1
                    path = os.path.join(here, name)
                    if not _regular(path):
                        # A FIFO, socket or device file would block or never end: not read.
                        self.out.folders.append((path, SPECIAL_NOTE))
                        continue
                    if not self._left_out(path, prefix + name):
                        walked.append(path)
        # kubectl's order (filepath.Walk: each folder's entries in lexical order, a subfolder
        # where its name falls), which is the release's creation order.
        self.out.files.extend(sorted(walked, key=lambda f: os.path.relpath(f, root).split(os.sep)))
        if not found:
            raise InputError("no .yaml, .yml or .json file in the directory", path=root)

    def finish(self) -> RepositoryWalk:
        # A file a kustomization names from outside its folder is one of its inputs too.
        if self.inputs:
            kept = []
            for path in self.out.files:
                owner = self._input_owner(path)
                if owner is None:
                    kept.append(path)
                else:
                    self.kustomize[owner] += 1
            self.out.files = kept
        self.out.folders.extend((d, kustomize_note(d, n)) for d, n in self.kustomize.items())
        self.out.folders.sort()
        self.out.excluded = sorted(self.excluded.items())
        return self.out

    def _input_owner(self, path: str) -> str | None:
        here = os.path.normpath(path)
        while True:
            if here in self.inputs:
                return self.inputs[here]
            parent = os.path.dirname(here)
            if parent == here or not parent:
                return None
            here = parent


def _count_manifests(folder: str) -> int:
    count = 0
    for _, dirs, names in os.walk(folder):
        dirs[:] = [d for d in dirs if d not in UNWALKED_DIRS]
        count += sum(1 for n in names if n.endswith(MANIFEST_SUFFIXES))
    return count


def walk_repository(paths: list[str], dumps: list[str] | None = None, exclude: list[str] | None = None) -> RepositoryWalk:
    """Files as given; folders walked (sorted) for YAML and JSON files, '-' is stdin.

    Left out, each with a note: a Helm chart source (a folder with ``Chart.yaml``) and
    kustomize inputs (a folder with a kustomization, and the files it names from outside
    it) — they are what ``helm template`` and ``kubectl kustomize`` render, not what is
    applied; the cluster dumps (``dumps``) met on the way; files matching an ``exclude``
    glob (matched against the path below the walked folder, or the name)."""
    walker = _Walker(dumps or [], list(exclude or []))
    for p in paths:
        if p != "-" and os.path.isdir(p):
            walker.folder(p)
        else:
            walker.file(p)
    return walker.finish()


# --------------------------------------------------------------------------- reading one file


def _template_line(data: bytes) -> int | None:
    m = _TEMPLATE.search(data)
    return data.count(b"\n", 0, m.start()) + 1 if m is not None else None


def _template_field(value: Any, where: str = "") -> str | None:
    """The first field of a parsed document still holding ``{{ … }}``, outside free text."""
    if isinstance(value, str):
        return where if _TEMPLATE.search(value.encode()) else None
    if isinstance(value, dict):
        for k, v in value.items():
            if isinstance(k, str) and _TEMPLATE.search(k.encode()):
                return f"{where}.{k}".lstrip(".")
            if k not in _FREE_TEXT_FIELDS:
                found = _template_field(v, f"{where}.{k}")
                if found is not None:
                    return found.lstrip(".")
    if isinstance(value, list):
        for i, v in enumerate(value):
            found = _template_field(v, f"{where}[{i}]")
            if found is not None:
                return found
    return None


UNRENDERED = "an unrendered template ({{ … }} %s), not a manifest; check it once rendered"


def read_manifest(path: str) -> ManifestFile:
    """A file's documents sorted by ``classify``. A file with template syntax that does not
    parse, or whose workloads still hold it, is an unrendered template (skipped, named);
    a file that does not parse and has neither an ``apiVersion:`` nor a ``kind:`` line is
    not a manifest (a tsconfig.json with comments, a YAML file with custom tags) and is
    skipped too; a manifest that does not parse is an error."""
    data = read_bytes(path)
    try:
        loaded = list(iter_objects(parse_bytes(data, path), path))
    except InputError as e:
        line = _template_line(data)
        if line is not None:
            return ManifestFile(path, skipped=UNRENDERED % f"on line {line}")
        if not any(m.search(data) for m in _KUBERNETES_MARKS):
            return ManifestFile(path, skipped=f"not Kubernetes objects ({e.detail})")
        raise
    out = classify(path, loaded)
    if _TEMPLATE.search(data):
        for obj in out.workloads:
            where = _template_field(obj)
            if where is not None:
                return ManifestFile(path, skipped=UNRENDERED % f"in {obj.get('kind')} {where}")
    return out

"""kubectl-style references to objects of the cluster source: ``pod/NAME``, ``deploy/NAME``, ...

What the user typed is parsed here (the kinds and kubectl's names for them, the API path of
one object for a live GET); finding the object in a dump and explaining it is the front
end's job (:mod:`kschedx.core.explain.existing`).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class RefKind:
    kind: str
    resource: str  # the plural, as in the API path and kubectl's NotFound message
    group_version: str  # "v1" for the core group

    @property
    def qualified(self) -> str:
        """``deployments.apps``: how kubectl names the resource in its messages."""
        group = self.group_version.rpartition("/")[0]
        return f"{self.resource}.{group}" if group else self.resource

    def path(self, namespace: str, name: str) -> str:
        root = "/api/v1" if self.group_version == "v1" else f"/apis/{self.group_version}"
        return f"{root}/namespaces/{namespace}/{self.resource}/{name}"


_POD = RefKind("Pod", "pods", "v1")
_DEPLOYMENT = RefKind("Deployment", "deployments", "apps/v1")
_STATEFULSET = RefKind("StatefulSet", "statefulsets", "apps/v1")
_DAEMONSET = RefKind("DaemonSet", "daemonsets", "apps/v1")
_REPLICASET = RefKind("ReplicaSet", "replicasets", "apps/v1")
_JOB = RefKind("Job", "jobs", "batch/v1")
_CRONJOB = RefKind("CronJob", "cronjobs", "batch/v1")

# kubectl's names for each kind: singular, plural, short name, and Kind.
REFERENCE_KINDS: dict[str, RefKind] = {}
for _k, _names in (
    (_POD, ("pod", "pods", "po")),
    (_DEPLOYMENT, ("deployment", "deployments", "deploy")),
    (_STATEFULSET, ("statefulset", "statefulsets", "sts")),
    (_DAEMONSET, ("daemonset", "daemonsets", "ds")),
    (_REPLICASET, ("replicaset", "replicasets", "rs")),
    (_JOB, ("job", "jobs")),
    (_CRONJOB, ("cronjob", "cronjobs", "cj")),
):
    for _n in (*_names, _k.kind.lower(), f"{_k.resource}.{_k.group_version.rpartition('/')[0]}".rstrip(".")):
        REFERENCE_KINDS[_n] = _k

# A DNS-1123 subdomain name, as every object name of these kinds is.
_NAME = re.compile(r"^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$")


@dataclass(frozen=True)
class Reference:
    kind: RefKind
    name: str
    text: str  # as the user wrote it

    def __str__(self) -> str:
        return self.text


# The kinds a reference may name, as the message for any other kind lists them.
EXPLAINED_KINDS = "pod, deployment (deploy), statefulset (sts), daemonset (ds), replicaset (rs), job or cronjob (cj)"


def unexplained_kind(arg: str) -> str | None:
    """The message for ``svc/frontend`` and the like: KIND/NAME, neither a file nor a kind
    kschedx explains (None when ``arg`` reads as a file path: a folder of that name
    exists, or the name has a file suffix)."""
    if arg == "-" or os.path.exists(arg):
        return None
    kind, sep, name = arg.partition("/")
    if not sep or kind.lower() in REFERENCE_KINDS or os.path.isdir(kind) or not _NAME.match(name) \
            or not re.fullmatch(r"[A-Za-z][A-Za-z0-9]*(\.[a-z0-9.-]+)?", kind) \
            or name.endswith((".yaml", ".yml", ".json", ".gz")):
        return None
    return (f"{arg}: no such file, and kschedx explains pods and the workloads that create them, not {kind}: "
            f"give a manifest file or a reference to a {EXPLAINED_KINDS} (e.g. deploy/NAME)")


def parse_reference(arg: str) -> Reference | None:
    """``pod/web-1``, ``deploy/web``, …; None when ``arg`` is a file (an existing path
    wins: ``pods/x.yaml`` in a folder named ``pods`` stays a file) or not KIND/NAME."""
    if arg == "-" or os.path.exists(arg):
        return None
    kind, sep, name = arg.partition("/")
    if not sep:
        return None
    ref_kind = REFERENCE_KINDS.get(kind.lower())
    if ref_kind is None or not _NAME.match(name):
        return None
    return Reference(ref_kind, name, arg)

"""Typed errors the CLI maps to exit codes (2 for input, 3 for cluster access)."""

from __future__ import annotations


class KschedxError(Exception):
    """Base of every error kschedx raises on purpose."""


class InputError(KschedxError):
    """Bad input: a missing or unreadable file, invalid YAML, an unusable manifest."""

    def __init__(self, message: str, *, path: str | None = None, line: int | None = None) -> None:
        self.path = path
        self.line = line
        self.detail = message
        where = ""
        if path is not None:
            where = f"{path}:{line}: " if line is not None else f"{path}: "
        super().__init__(where + message)


class ClusterAccessError(KschedxError):
    """The live cluster could not be read (kubeconfig, auth, RBAC, network). ``hint``: whether
    the CLI follows the message with what to do (not after kubectl's own words for an
    unreachable server, which say it)."""

    def __init__(self, message: str, *, hint: bool = True) -> None:
        self.hint = hint
        super().__init__(message)

"""``check -o sarif``: the findings as SARIF 2.1.0 (OASIS), what GitHub code scanning
uploads: kschedx as the tool with one rule per kind of finding, one result per finding at
its manifest (a URI relative to the working directory, ``%SRCROOT%``) and line."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from kschedx import __version__
from kschedx.cli.render.findings import RULES, Finding, findings
from kschedx.core.explain.check import CheckReport

SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SRCROOT = "%SRCROOT%"


def _location(f: Finding, cwd: Path) -> dict[str, Any] | None:
    if f.file == "-":
        return None
    path = Path(f.file)
    absolute = path if path.is_absolute() else cwd / path
    # The path as the user named it first (a folder of the repository may be a symbolic link
    # to elsewhere: code scanning knows the file by its place in the checkout), then with the
    # links followed (the working directory itself may be reached through one).
    artifact: dict[str, Any] = {"uri": absolute.resolve().as_uri()}  # outside the working directory
    for file, base in ((Path(os.path.normpath(absolute)), Path(os.path.normpath(cwd))), (absolute.resolve(), cwd.resolve())):
        if file.is_relative_to(base):
            artifact = {"uri": file.relative_to(base).as_posix(), "uriBaseId": SRCROOT}
            break
    physical: dict[str, Any] = {"artifactLocation": artifact}
    if f.line is not None:
        physical["region"] = {"startLine": f.line}
    return {"physicalLocation": physical}


def sarif_log(report: CheckReport) -> dict[str, Any]:
    cwd = Path(os.getcwd())
    index = {r.id: i for i, r in enumerate(RULES)}
    results = []
    for f in findings(report):
        result: dict[str, Any] = {"ruleId": f.rule.id, "ruleIndex": index[f.rule.id], "level": f.rule.level,
                                  "message": {"text": f"{f.title} — {f.message}"}}
        where = _location(f, cwd)
        if where is not None:
            result["locations"] = [where]
        results.append(result)
    rules = [{"id": r.id, "name": r.name, "shortDescription": {"text": r.text},
              "defaultConfiguration": {"level": r.level}} for r in RULES]
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "kschedx", "version": __version__, "semanticVersion": __version__,
                                "rules": rules}},
            "originalUriBaseIds": {SRCROOT: {"uri": cwd.resolve().as_uri() + "/"}},
            "results": results,
        }],
    }


def render_sarif(report: CheckReport) -> None:
    sys.stdout.write(json.dumps(sarif_log(report), indent=2, ensure_ascii=False) + "\n")

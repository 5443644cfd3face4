"""GitHub Actions: when ``GITHUB_ACTIONS=true`` (the runner sets it), `check` also writes
each finding as a workflow command (``::error file=…,line=…,title=…::…``, or ``::warning``),
which GitHub shows as an annotation on the manifest's line in the pull request, and
appends its markdown report to the job summary (``$GITHUB_STEP_SUMMARY``). Nothing of
this anywhere else. The commands go to standard error, so that ``-o json`` or ``-o sarif``
on standard output stay what they are; the runner reads commands on both."""

from __future__ import annotations

import os
import sys

from kschedx.cli.render.findings import findings
from kschedx.core.explain.check import CheckReport


def _data(text: str) -> str:
    """A workflow command's message, escaped as GitHub's toolkit escapes it."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def on_github_actions() -> bool:
    return os.environ.get("GITHUB_ACTIONS") == "true"


def workflow_commands(report: CheckReport) -> list[str]:
    out = []
    for f in findings(report):
        props = [f"file={_property(f.file)}"] if f.file != "-" else []
        if f.line is not None:
            props.append(f"line={f.line}")
        props.append(f"title={_property(f.title)}")
        out.append(f"::{f.rule.level} {','.join(props)}::{_data(f.message)}")
    return out


def annotate(report: CheckReport, source: str | None) -> None:
    """The workflow commands and the job summary, on GitHub Actions only."""
    if not on_github_actions():
        return
    for line in workflow_commands(report):
        sys.stderr.write(line + "\n")
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        from kschedx.cli.render.check import markdown_report

        with open(summary, "a", encoding="utf-8") as f:
            f.write(markdown_report(report, source) + "\n")

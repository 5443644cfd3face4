"""``check -o junit``: the release as a JUnit XML test report, the format GitLab
(``artifacts:reports:junit``), Jenkins, Azure DevOps and CircleCI read.

One ``<testsuite>`` for the run (named after the files checked, the cluster and the
Kubernetes version), one ``<testcase>`` per workload (classname ``KIND/NAMESPACE``, name the
workload's name): a ``<failure>`` when it does not fit or fits partly (message: the verdict;
text: the scheduler's FitError and, in a release, what it fits alone and after which
workloads it does not), an ``<error>`` for a document or file that could not be checked,
``<skipped>`` for a workload the API server refuses (admission, or an update it refuses):
its pods are never created, so there is nothing to schedule. Files with nothing to check
are the suite's properties.
"""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET

from kschedx.core.explain.check import ERROR, FITS, PARTIAL, RELEASE, VERDICT_WORDS, CheckEntry, CheckReport

# A character XML 1.0 cannot hold (control characters but tab, newline and carriage return).
_NOT_XML = dict.fromkeys([*range(0, 9), 11, 12, *range(14, 32)], "\N{REPLACEMENT CHARACTER}")


def _text(value: str) -> str:
    return value.translate(_NOT_XML)


def _suite_name(report: CheckReport, source: str | None) -> str:
    files = list(dict.fromkeys(e.file for e in report.entries))
    shown = ", ".join(files[:5]) + (f" and {len(files) - 5} more" if len(files) > 5 else "")
    version = f" (Kubernetes {report.kubernetes_version})" if report.kubernetes_version else ""
    return _text(f"kschedx check: {shown or 'no workload'} on {source or 'the cluster'}{version}")


def _case(e: CheckEntry) -> ET.Element:
    classname = f"{e.kind}/{e.namespace}" if e.kind else "file"
    case = ET.Element("testcase", {"classname": _text(classname), "name": _text(e.name or e.file),
                                   "file": _text(e.file), "time": "0"})
    verdict = e.verdict
    message = e.message()
    if e.rejected is not None or e.not_applied is not None:
        ET.SubElement(case, "skipped", {"message": _text(message)})
    elif verdict == ERROR:
        err = ET.SubElement(case, "error", {"message": _text(message), "type": "error"})
        err.text = _text(e.error or message)
    elif e.short_in_a_sample:
        fail = ET.SubElement(case, "failure", {"message": _text("fits in the order shown, not in every sampled order"),
                                               "type": "order-dependent"})
        fail.text = _text(message)
    elif verdict != FITS:
        head = f"{VERDICT_WORDS[verdict]}: {e.wanted - e.unplaced} of {e.wanted} new pod(s) placed"
        fail = ET.SubElement(case, "failure", {"message": _text(head),
                                               "type": "partial" if verdict == PARTIAL else "unschedulable"})
        lines = [message]
        if e.fit_error and e.fit_error not in message:
            lines.append(f"FitError: {e.fit_error}")
        fail.text = _text("\n".join(lines))
    out = ET.SubElement(case, "system-out")
    out.text = _text(message)
    return case


def junit_xml(report: CheckReport, source: str | None = None) -> str:
    """The report as a JUnit XML document."""
    cases = [_case(e) for e in report.entries]
    failures = sum(1 for c in cases if c.find("failure") is not None)
    errors = sum(1 for c in cases if c.find("error") is not None)
    skipped = sum(1 for c in cases if c.find("skipped") is not None)
    counts = {"tests": str(len(cases)), "failures": str(failures), "errors": str(errors), "skipped": str(skipped),
              "time": "0"}
    root = ET.Element("testsuites", {"name": "kschedx check", **counts})
    suite = ET.SubElement(root, "testsuite", {"name": _suite_name(report, source), **counts})
    props = ET.SubElement(suite, "properties")
    ET.SubElement(props, "property", {"name": "cluster", "value": _text(source or "")})
    if report.kubernetes_version:
        ET.SubElement(props, "property", {"name": "kubernetesVersion", "value": report.kubernetes_version})
    if report.mode == RELEASE and report.entries:
        ET.SubElement(props, "property", {"name": "release", "value": _text(report.release_line())})
    for path, why in report.skipped:
        ET.SubElement(props, "property", {"name": "skipped", "value": _text(f"{path}: {why}")})
    for folder, why in report.skipped_folders:
        ET.SubElement(props, "property", {"name": "skipped", "value": _text(f"{folder}: {why}")})
    suite.extend(cases)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def render_junit(report: CheckReport, source: str | None = None) -> None:
    sys.stdout.write(junit_xml(report, source))

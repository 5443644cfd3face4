"""The HTML reports the tests look at, made through the CLI, and a small HTML reader.

Shared by the parser tests (tests/cli/test_html_report.py) and the browser test
(tests/e2e/test_html_browser.py), so both look at the same pages.
"""

from __future__ import annotations

import contextlib
import json
from collections import Counter
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from .test_explain_cli import CLUSTER, GPU, ROOT, TOO_BIG, run, write

# Paths relative to the checkout (the reports are made from there), as a user types them:
# the page shows the cluster path, and the documentation's screenshot comes from these reports.
GOLDEN = Path("tests", "golden", "cases")
ZONE_SPREAD = "examples/pods/zone-spread.yaml"
PREFERRED = "examples/pods/preferred-affinity.yaml"
EXAMPLE_CLUSTER = "examples/cluster.yaml"

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}

# Strings a cluster dump may hold (the API server validates names, but a dump is taken as
# stored): markup in node names, quotes in label and taint values.
HOSTILE_NODE = "<script>alert(1)</script>"
HOSTILE_QUOTES = "node-&-\"quoted\"-'single'"
HOSTILE_CELL = "</td></tr></table><svg onload=alert(4)>"
HOSTILE_ZONE = "z\"a' onmouseover=\"alert(2)"
HOSTILE_TAINT = "x\"><img src=x onerror=alert(3)>"

HOSTILE_CLUSTER = f"""\
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata:
    name: {json.dumps(HOSTILE_NODE)}
    labels: {{kubernetes.io/hostname: n1, topology.kubernetes.io/zone: {json.dumps(HOSTILE_ZONE)}}}
  spec:
    taints: [{{key: dedicated, value: {json.dumps(HOSTILE_TAINT)}, effect: PreferNoSchedule}}]
  status: {{allocatable: {{cpu: "4", memory: 8Gi, pods: "110"}}}}
- apiVersion: v1
  kind: Node
  metadata:
    name: {json.dumps(HOSTILE_QUOTES)}
    labels: {{kubernetes.io/hostname: n2, topology.kubernetes.io/zone: zb}}
  status: {{allocatable: {{cpu: "4", memory: 8Gi, pods: "110"}}}}
- apiVersion: v1
  kind: Node
  metadata:
    name: {json.dumps(HOSTILE_CELL)}
    labels: {{kubernetes.io/hostname: n3, topology.kubernetes.io/zone: zc}}
  spec:
    taints: [{{key: "k<b>", value: "v\\"'", effect: NoSchedule}}]
  status: {{allocatable: {{cpu: "4", memory: 8Gi, pods: "110"}}}}
"""

HOSTILE_POD = """\
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default, labels: {app: web}}
spec:
  topologySpreadConstraints:
  - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: ScheduleAnyway,
     labelSelector: {matchLabels: {app: web}}}
  containers: [{name: c, image: nginx, resources: {requests: {cpu: 100m}}}]
"""

# Pending pods on the hostile cluster: one fits (on a node with markup in its name), one is
# kept off by the taint with markup in its key, which v1.33's TaintToleration names in the
# FitError.
HOSTILE_PENDING = """\
apiVersion: v1
kind: Pod
metadata: {name: web-pending, namespace: default, labels: {app: web}}
spec:
  containers: [{name: c, image: nginx, resources: {requests: {cpu: 100m}}}]
status: {phase: Pending}
---
apiVersion: v1
kind: Pod
metadata: {name: pinned-pending, namespace: default}
spec:
  nodeSelector: {kubernetes.io/hostname: n3}
  containers: [{name: c, image: nginx, resources: {requests: {cpu: 100m}}}]
status: {phase: Pending}
"""

DAEMONSET = """\
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: log-agent, namespace: kube-system}
spec:
  selector: {matchLabels: {app: log-agent}}
  template:
    metadata: {labels: {app: log-agent}}
    spec:
      containers:
      - {name: agent, image: fluent/fluent-bit:3.1, resources: {requests: {cpu: "7", memory: 100Mi}}}
"""

# Hand-made rows in the shape `kschedx pending` hands to render_pending_html.
PENDING_ROWS: list[dict[str, Any]] = [
    {"pod": "shop/web-1", "class": "fits", "node": "general-a1", "fitError": None, "agreement": None},
    {"pod": "ml/train-0", "class": "unschedulable", "node": None,
     "fitError": "0/12 nodes are available: 3 Insufficient nvidia.com/gpu, 9 node(s) didn't match Pod's node "
                 "affinity/selector. preemption: 0/12 nodes are available: 12 Preemption is not helpful for scheduling.",
     "agreement": True},
    {"pod": "ml/train-1", "class": "unschedulable", "node": None,
     "fitError": "0/12 nodes are available: 12 Insufficient cpu.", "agreement": False,
     "eventMessage": "0/11 nodes are available: 11 Insufficient cpu."},
    {"namespace": "batch", "name": "gated-job-x", "class": "gated", "node": None, "fitError": None, "agreement": None},
    {"pod": "team/nominee", "class": "nominated", "node": "general-b1", "fitError": None, "agreement": None},
    {"pod": "other/custom", "class": "other-scheduler", "node": None, "fitError": None, "agreement": None},
    {"pod": f"default/{HOSTILE_NODE}", "class": "unschedulable", "node": HOSTILE_CELL,
     "fitError": f"0/1 nodes are available: 1 node(s) had untolerated taint(s) {HOSTILE_TAINT}.", "agreement": False,
     "eventMessage": HOSTILE_ZONE},
]


@dataclass
class Report:
    name: str
    html: str
    data: Any  # what -o json says about the same run (the rows, for pending)
    exit_code: int = 0


@dataclass
class Page(HTMLParser):
    """What the tests look at in a page: the text nodes, every element's attributes, the
    scripts, and whether every element that was opened was closed in order."""

    texts: list[str] = field(default_factory=list)
    elements: list[tuple[str, dict[str, str | None]]] = field(default_factory=list)
    tags: Counter[str] = field(default_factory=Counter)
    scripts: list[str] = field(default_factory=list)
    unbalanced: list[str] = field(default_factory=list)
    stack: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        super().__init__(convert_charrefs=True)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags[tag] += 1
        self.elements.append((tag, dict(attrs)))
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags[tag] += 1
        self.elements.append((tag, dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        if self.stack and self.stack[-1] == tag:
            self.stack.pop()
        else:
            self.unbalanced.append(f"</{tag}> while open: {self.stack[-3:]}")

    def handle_data(self, data: str) -> None:
        if self.stack and self.stack[-1] == "script":
            self.scripts.append(data)
        elif self.stack and self.stack[-1] == "style":
            return
        else:
            self.texts.append(data)

    @property
    def stripped(self) -> list[str]:
        return [t.strip() for t in self.texts]

    @property
    def joined(self) -> str:
        """The page's text as a reader sees it run on: text nodes in order, joined as they are."""
        return "".join(self.texts)

    def has_words(self, text: str) -> bool:
        """``text`` reads whole, though its words may stand in several elements (a name kept
        on one line is a span of its own)."""
        return text in self.joined

    def has_text(self, text: str) -> bool:
        """``text`` is one whole text node (a cell, a list item, a label)."""
        return text.strip() in self.stripped

    def contains_text(self, text: str) -> bool:
        """``text`` appears unbroken inside one text node."""
        return any(text in t for t in self.texts)

    def attr_values(self, name: str) -> list[str]:
        return [str(a[name]) for _, a in self.elements if a.get(name) is not None]


def parse(html: str) -> Page:
    page = Page()
    page.feed(html)
    page.close()
    return page


def _explain(name: str, *args: str) -> Report:
    html = run("explain", *args, "-o", "html")
    js = run("explain", *args, "-o", "json")
    assert html.exit_code == js.exit_code, html.output
    assert html.exit_code in (0, 1), html.output
    return Report(name, html.stdout, json.loads(js.stdout), html.exit_code)


def _pending(name: str, *args: str) -> Report:
    html = run("pending", *args, "-o", "html")
    js = run("pending", *args, "-o", "json")
    assert html.exit_code == js.exit_code, html.output
    assert html.exit_code in (0, 1), html.output
    return Report(name, html.stdout, json.loads(js.stdout), html.exit_code)


def make_reports(tmp: Path) -> dict[str, Report]:
    """Every kind of report the issue names, from the examples and the golden cases, made
    from the checkout's root."""
    with contextlib.chdir(ROOT):
        return _make_reports(tmp)


def _make_reports(tmp: Path) -> dict[str, Report]:
    pre = GOLDEN / "preemption-1-13"
    dra = GOLDEN / "dra-1-10"
    hostile_cluster = write(tmp, "hostile-cluster.yaml", HOSTILE_CLUSTER)
    hostile_pod = write(tmp, "hostile-pod.yaml", HOSTILE_POD)
    ds = write(tmp, "daemonset.yaml", DAEMONSET)
    reports = [
        _explain("explain", PREFERRED, "--cluster", EXAMPLE_CLUSTER),
        _explain("unschedulable", TOO_BIG, "--cluster", CLUSTER),
        _explain("replicas", GPU, "--cluster", CLUSTER, "--replicas", "10"),
        _explain("focus", ZONE_SPREAD, "--cluster", EXAMPLE_CLUSTER, "--node", "highmem-c1"),
        _explain("preemption", str(pre / "pod.yaml"), "--cluster", str(pre / "cluster.yaml.gz")),
        _explain("dra", str(dra / "pod.yaml"), "--cluster", str(dra / "cluster.yaml.gz")),
        _explain("daemonset", ds, "--cluster", CLUSTER),
        _explain("hostile", hostile_pod, "--cluster", hostile_cluster, "--node", HOSTILE_NODE),
    ]
    chk = run("check", "examples/pods", "--cluster", EXAMPLE_CLUSTER, "-o", "html")
    chk_json = run("check", "examples/pods", "--cluster", EXAMPLE_CLUSTER, "-o", "json")
    assert chk.exit_code == chk_json.exit_code == 1, chk.output
    reports.append(Report("check", chk.stdout, json.loads(chk_json.stdout), chk.exit_code))

    from kschedx.cli.render.html import pending_html

    reports.append(Report("pending", pending_html(PENDING_ROWS, source="pending.yaml"), PENDING_ROWS))
    reports.append(_pending("pending-dump", "--cluster", "examples/pending.yaml"))
    hostile_pending = write(tmp, "hostile-pending.yaml", HOSTILE_CLUSTER + "---\n" + HOSTILE_PENDING)
    reports.append(_pending("pending-hostile", "--cluster", hostile_pending, "--kubernetes-version", "1.33"))
    return {r.name: r for r in reports}

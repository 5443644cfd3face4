"""Issue 16, class 9: OpportunisticBatching (KEP-5598), as v1.35.4's scheduler does it.

Upstream: pkg/scheduler/framework/runtime/batch.go (GetNodeHint, StoreScheduleResults,
batchStateCompatible), schedule_one.go (the hint is filtered alone and bound without
scoring), framework.go (computeBatchablePlugins, SignPod) and each plugin's SignPod.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from kschedx.cli.app import app
from kschedx.core.config.profile import default_profile
from kschedx.core.explain.batching import unsignable_reason
from kschedx.core.plugins import REGISTRY

runner = CliRunner()

CLUSTER = """\
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: a, labels: {kubernetes.io/hostname: a, tier: gold}},
   status: {allocatable: {cpu: "8", memory: 16Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: b, labels: {kubernetes.io/hostname: b}},
   status: {allocatable: {cpu: "64", memory: 256Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: c, labels: {kubernetes.io/hostname: c, tier: silver}},
   status: {allocatable: {cpu: 1100m, memory: 1126Mi, pods: "110"}}}
"""

# PodTopologySpread without default constraints (List, none given), so pods can be signed.
CONFIG = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    score:
      disabled:
      - name: NodeResourcesBalancedAllocation
      - name: ImageLocality
      - name: InterPodAffinity
      - name: TaintToleration
      - name: PodTopologySpread
  pluginConfig:
  - name: PodTopologySpread
    args: {defaultingType: List}
"""

# One pod per node (a host port); NodeAffinity's preferred terms are normalized by the best
# node's raw score, so once node a is taken, c's share doubles and overtakes b.
POD = """\
apiVersion: v1
kind: Pod
metadata: {name: edge}
spec:
  containers:
  - name: proxy
    image: envoy
    ports: [{containerPort: 8080, hostPort: 8080}]
    resources: {requests: {cpu: "1", memory: 1Gi}}
  affinity:
    nodeAffinity:
      preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 100
        preference: {matchExpressions: [{key: tier, operator: In, values: [gold]}]}
      - weight: 40
        preference: {matchExpressions: [{key: tier, operator: In, values: [silver]}]}
"""


def _run(tmp_path: Path, *extra: str, pod: str = POD) -> dict[str, Any]:
    (tmp_path / "c.yaml").write_text(CLUSTER)
    (tmp_path / "p.yaml").write_text(pod)
    (tmp_path / "cfg.yaml").write_text(CONFIG)
    res = runner.invoke(app, ["explain", str(tmp_path / "p.yaml"), "--cluster", str(tmp_path / "c.yaml"),
                              "--replicas", "3", "-o", "json", *extra])
    assert res.exit_code in (0, 1), res.output
    out: dict[str, Any] = json.loads(res.stdout)
    return out


def test_batched_path_differs_from_a_full_cycle(tmp_path: Path) -> None:
    steps = _run(tmp_path, "--config", str(tmp_path / "cfg.yaml"))["steps"]
    assert [s["selectedNode"] for s in steps] == ["a", "c", "b"]
    # Copy 1: node a (copy 0's) rejects it (NodePorts), so GetNodeHint pops b, the next of
    # copy 0's sorted list [a, b, c]; b passes the filters and is bound without scoring.
    assert any("would bind b" in w and "a full cycle picks c" in w for w in steps[1]["warnings"]), steps[1]
    assert not any("OpportunisticBatching" in w for w in steps[0]["warnings"] + steps[2]["warnings"])


def test_default_profile_never_batches(tmp_path: Path) -> None:
    # The default PodTopologySpread args (defaultingType: System) carry default constraints,
    # and PodTopologySpread.SignPod refuses to sign any pod then.
    steps = _run(tmp_path)["steps"]
    assert not any("OpportunisticBatching" in w for s in steps for w in s["warnings"])
    reason = unsignable_reason(default_profile(REGISTRY), {"spec": {}}, False)
    assert reason == "PodTopologySpread: pods with default topology constraints are not signable"


def test_unsignable_pods(tmp_path: Path) -> None:
    prof = default_profile(REGISTRY)
    prof.plugin_args["PodTopologySpread"] = {"defaultingType": "List", "defaultConstraints": []}
    assert unsignable_reason(prof, {"spec": {}}, False) is None
    assert unsignable_reason(prof, {"spec": {}}, True) == "the profile has extenders configured"
    anti = {"spec": {"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": []}}}}
    assert unsignable_reason(prof, anti, False) == "InterPodAffinity: pods with InterPodAffinity are not signable"
    spread = {"spec": {"topologySpreadConstraints": [{"maxSkew": 1}]}}
    assert unsignable_reason(prof, spread, False) == "PodTopologySpread: pods with topology constraints are not signable"
    claims = {"spec": {"resourceClaims": [{"name": "gpu"}]}}
    assert unsignable_reason(prof, claims, False) == "DynamicResources: pods with dra resource claims are not signable"


def test_statefulset_pods_never_share_a_signature(tmp_path: Path) -> None:
    sts = """\
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: edge}
spec:
  serviceName: edge
  selector: {matchLabels: {app: edge}}
  template:
    metadata: {labels: {app: edge}}
    spec:
      containers:
      - name: proxy
        image: envoy
        ports: [{containerPort: 8080, hostPort: 8080}]
"""
    steps = _run(tmp_path, "--config", str(tmp_path / "cfg.yaml"), pod=sts)["steps"]
    assert any("does not apply" in n and "StatefulSet" in n for n in steps[0]["notes"]), steps[0]["notes"]
    assert not any("OpportunisticBatching" in w for s in steps for w in s["warnings"])


def test_releases_without_the_feature_say_nothing_of_it(tmp_path: Path) -> None:
    """OpportunisticBatching is a v1.35 feature (its gate appears in v1.35): a v1.33 or v1.34
    run prints no note or warning about it, nor does a run with the gate turned off."""
    def mentions(*extra: str) -> list[str]:
        steps = _run(tmp_path, *extra)["steps"]
        return [t for s in steps for t in s["notes"] + s["warnings"] if "OpportunisticBatching" in t]

    assert any("does not apply" in n for n in mentions("--kubernetes-version", "1.35"))
    assert any("would bind b" in w for w in mentions("--kubernetes-version", "1.35", "--config", str(tmp_path / "cfg.yaml")))
    for version in ("1.33", "1.34"):
        assert mentions("--kubernetes-version", version) == []
        assert mentions("--kubernetes-version", version, "--config", str(tmp_path / "cfg.yaml")) == []
    assert mentions("--kubernetes-version", "1.35", "--feature-gates", "OpportunisticBatching=false") == []
    table = runner.invoke(app, ["explain", str(tmp_path / "p.yaml"), "--cluster", str(tmp_path / "c.yaml"),
                                "--replicas", "3", "--kubernetes-version", "1.33"], env={"NO_COLOR": "1"})
    assert table.exit_code in (0, 1), table.output
    assert "OpportunisticBatching" not in table.output

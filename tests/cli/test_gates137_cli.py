"""What Kubernetes 1.37 turns on, under v1.36.3 with its gates (issue 46): VolumeBinding's
storage capacity score (StorageCapacityScoring), the CSI driver check of NodeVolumeLimits
(VolumeLimitScaling), shown as a person reads them; the golden family gates137 holds the
real scheduler's numbers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .test_explain_cli import run, write

CASES = Path(__file__).resolve().parents[1] / "golden" / "cases"
V136 = ("--kubernetes-version", "1.36")


def _explain(case: str, *args: str) -> Any:
    d = CASES / case
    return run("explain", str(d / "pod.yaml"), "--snapshot", str(d / "cluster.yaml.gz"), *V136, *args)


def _volume_binding(out: str) -> dict[str, int]:
    data = json.loads(out)
    (vb,) = [s for s in data["scorePlugins"] if s["name"] == "VolumeBinding"]
    return {} if vb["skipped"] else {n: s["raw"] for n, s in vb["scores"].items()}


def test_capacity_scoring_with_static_pvs_prefers_the_emptier_pv() -> None:
    node = "gke-prod-blue-general-e6c82c56-2xpe"
    res = _explain("gates137-0", "--feature-gates", "StorageCapacityScoring=true", "-o", "json")
    assert res.exit_code == 0, res.output
    assert _volume_binding(res.stdout)[node] == 84  # a 120Gi claim on a 750Gi local PV: 16 % used
    assert _volume_binding(_explain("gates137-0", "-o", "json").stdout) == {}  # gate off: PreScore skips
    text = " ".join(_explain("gates137-0", "--feature-gates", "StorageCapacityScoring=true", "--node",
                             node).stdout.split())
    assert "class local-nvme: PV local-pv-fb901dc3-3 (750Gi) for claim monitoring/nvme-elasticsearch-0" in text
    assert "utilization 16 %, score 84" in text


def test_capacity_scoring_with_csi_storage_capacity_reads_the_pools() -> None:
    res = _explain("gates137-3", "--feature-gates", "StorageCapacityScoring=true", "-o", "json")
    assert res.exit_code == 0, res.output
    scores = _volume_binding(res.stdout)
    assert scores and set(scores.values()) == {12, 96}
    expected = json.loads((CASES / "gates137-3" / "expected.json").read_text())
    (vb,) = [s for s in expected["scorePlugins"] if s["name"] == "VolumeBinding"]
    assert scores == {n: s["raw"] for n, s in vb["scores"].items()}
    # --node says which pool it weighed and how full the claim leaves it.
    text = " ".join(_explain("gates137-3", "--feature-gates", "StorageCapacityScoring=true", "--node",
                             "general-01").stdout.split())
    assert ("class topolvm-ssd: claim monitoring/data-postgres-ssd-0 provisioned from CSIStorageCapacity "
            "topolvm-system/csisc-lc459 (90Gi): 80Gi of 90Gi requested, utilization 88 %, score 12") in text


def test_a_custom_shape_needs_the_gate(tmp_path: Path) -> None:
    config = write(tmp_path, "config.yaml", """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  pluginConfig:
  - name: VolumeBinding
    args:
      shape: [{utilization: 0, score: 0}, {utilization: 100, score: 10}]
""")
    node = "gke-prod-blue-general-e6c82c56-2xpe"
    res = _explain("gates137-0", "--feature-gates", "StorageCapacityScoring=true", "--config", config, "-o", "json")
    assert res.exit_code == 0, res.output
    assert _volume_binding(res.stdout)[node] == 16  # the fuller, the better: 16 % used
    refused = _explain("gates137-0", "--config", config)
    assert refused.exit_code == 2
    assert "unexpected field `shape`, remove it or turn on the feature gate StorageCapacityScoring" in \
        " ".join(refused.output.split())


def test_a_node_without_the_csi_driver_fails_when_the_driver_asks() -> None:
    res = _explain("gates137-15", "--feature-gates", "VolumeLimitScaling=true", "-o", "json")
    assert res.exit_code == 1, res.output
    data = json.loads(res.stdout)
    node = data["nodes"]["gke-core-main-general-30f7c562-dgtj"]
    assert (node["plugin"], node["reasons"]) == ("NodeVolumeLimits", ["pd.csi.storage.gke.io CSI driver is not "
                                                                      "installed on the node"])
    assert data["fitError"].startswith("0/5 nodes are available: 2 pd.csi.storage.gke.io CSI driver is not installed "
                                       "on the node, 3 node(s) didn't match PersistentVolume's node affinity.")
    off = json.loads(_explain("gates137-15", "-o", "json").stdout)
    assert off["nodes"]["gke-core-main-general-30f7c562-dgtj"].get("plugin") != "NodeVolumeLimits"


NODES_137 = """\
apiVersion: v1
kind: List
items:
""" + "".join(
    f"- apiVersion: v1\n  kind: Node\n  metadata: {{name: {n}, labels: {{kubernetes.io/hostname: {n}}}}}\n"
    f"  status: {{allocatable: {{cpu: \"4\", memory: 8Gi, pods: \"110\"}}, nodeInfo: {{kubeletVersion: v1.37.1}}}}\n"
    for n in ("node-a", "node-b"))


def test_a_137_dump_runs_136_with_137s_defaults_and_says_so(tmp_path: Path) -> None:
    cluster = write(tmp_path, "cluster.yaml", NODES_137)
    pod = write(tmp_path, "pod.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"
                                      "spec: {containers: [{name: c, image: nginx}]}\n")
    res = run("explain", pod, "--snapshot", cluster, "-o", "json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["kubernetesVersion"] == "v1.37"
    assert any("1.37: 1.36.3's scheduler with 1.37's defaults; exact once 1.37's source is checked" in n
               for n in data["notes"])
    # StorageCapacityScoring is on: VolumeBinding scores (0 for a pod without claims).
    (vb,) = [s for s in data["scorePlugins"] if s["name"] == "VolumeBinding"]
    assert not vb["skipped"] and {s["raw"] for s in vb["scores"].values()} == {0}
    gates = run("plugins", "--kubernetes-version", "1.37", "--feature-gates", "DRADeviceTaintRules=false")
    assert gates.exit_code == 2 and "feature is locked to true" in gates.output


def test_compare_136_with_137_on_a_storage_heavy_release(tmp_path: Path) -> None:
    # gates137-0's cluster: a StatefulSet's claim on local PVs of different sizes. 1.37's
    # capacity scoring moves the pod to the emptier PV's node.
    d = CASES / "gates137-0"
    res = run("explain", str(d / "pod.yaml"), "--snapshot", str(d / "cluster.yaml.gz"), "--kubernetes-version",
              "1.36", "--compare-version", "1.37", "-o", "json")
    assert res.exit_code in (0, 1), res.output
    data = json.loads(res.stdout)
    assert data["base"]["kubernetesVersion"] == "v1.36" and data["compare"]["kubernetesVersion"] == "v1.37"
    base_vb = [s for s in data["base"]["scorePlugins"] if s["name"] == "VolumeBinding"][0]
    new_vb = [s for s in data["compare"]["scorePlugins"] if s["name"] == "VolumeBinding"][0]
    assert base_vb["skipped"] and not new_vb["skipped"]
    assert data["changes"], "turning capacity scoring on changes the totals"


def test_check_compares_a_release_from_136_to_137() -> None:
    d = CASES / "gates137-0"
    res = run("check", str(d / "pod.yaml"), "--cluster", str(d / "cluster.yaml.gz"), "--kubernetes-version", "1.36",
              "--compare-version", "1.37")
    text = " ".join(res.stdout.split())
    assert "Compare: Kubernetes v1.37" in text
    assert "selected node gke-prod-blue-compute-c9d8917f-ek7l → gke-prod-blue-general-e6c82c56-2xpe" in text
    assert "VolumeBinding +0 → +64" in text


def test_device_taint_rules_left_unread_by_the_release_are_named() -> None:
    off = json.loads(_explain("gates137-30", "-o", "json").stdout)
    assert any("DeviceTaintRule(s) not applied: DRADeviceTaintRules is off in kube-scheduler v1.36" in w
               for w in off["warnings"])
    on = json.loads(_explain("gates137-30", "--feature-gates", "DRADeviceTaintRules=true", "-o", "json").stdout)
    assert not any("DeviceTaintRule" in w for w in on["warnings"])

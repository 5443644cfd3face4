"""`kschedx check` over files, directories and stdin: verdict lines, formats, exit codes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from .test_explain_cli import CLUSTER, EXAMPLES, GPU, TOO_BIG, WEB, run, write


def test_all_fit_exits_0() -> None:
    res = run("check", WEB, GPU, "--cluster", CLUSTER)
    assert res.exit_code == 0, res.output
    assert "✓ Deployment/shop/web" in res.output and "✓ Job/ml/" in res.output
    assert "2 checked: 2 fit" in res.output


def test_one_unschedulable_exits_1() -> None:
    res = run("check", WEB, TOO_BIG, "--cluster", CLUSTER)
    assert res.exit_code == 1, res.output
    assert "✗ Pod/shop/video-transcoder" in res.output and "0/12 nodes are available" in res.output


def test_mixed_directory_with_an_invalid_file_exits_2(tmp_path: Path) -> None:
    d = tmp_path / "manifests"
    shutil.copytree(EXAMPLES / "pods", d)
    (d / "broken.yaml").write_text("kind: Pod\nmetadata: {name: x\n")
    (d / "notes.txt").write_text("not a manifest")
    res = run("check", str(d), "--cluster", CLUSTER, "-o", "json")
    assert res.exit_code == 2, res.output
    data = json.loads(res.stdout)
    verdicts = {Path(r["file"]).name: r["verdict"] for r in data["results"]}
    assert verdicts["broken.yaml"] == "error"
    assert verdicts["too-big.yaml"] == "unschedulable"
    assert verdicts["web-deployment.yaml"] == "fits"
    assert "notes.txt" not in verdicts
    assert data["summary"]["error"] == 1 and data["summary"]["unschedulable"] == 1
    broken = next(r for r in data["results"] if r["file"].endswith("broken.yaml"))
    assert f"{d / 'broken.yaml'}:3: invalid YAML" in broken["error"]


def test_multi_document_file_and_replica_counts(tmp_path: Path) -> None:
    both = write(tmp_path, "both.yaml", Path(WEB).read_text() + "\n---\n" + Path(TOO_BIG).read_text())
    res = run("check", both, "--cluster", CLUSTER, "-o", "json")
    assert res.exit_code == 1
    results = json.loads(res.stdout)["results"]
    assert [r["kind"] for r in results] == ["Deployment", "Pod"]
    web = results[0]
    # The cluster runs web already (6 pods of the same template): only the missing copies
    # of the 8 desired are placed.
    assert web["replicas"] == 8 and web["running"] == 6
    assert web["placed"] == web["explanation"]["replicasRequested"] == len(web["explanation"]["steps"]) == 2
    assert web["explanation"]["workload"]["rule"] == "scale-up"


def test_partial_fit_is_reported_with_counts(tmp_path: Path) -> None:
    # 40 copies of a 3-CPU pod: only some fit on the untainted nodes.
    dep = write(tmp_path, "dep.yaml", """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: wide, namespace: shop}
spec:
  replicas: 40
  selector: {matchLabels: {app: wide}}
  template:
    metadata: {labels: {app: wide}}
    spec:
      containers:
      - name: c
        image: nginx:1.27
        resources: {requests: {cpu: "3", memory: 1Gi}}
""")
    res = run("check", dep, "--cluster", CLUSTER, "-o", "json")
    assert res.exit_code == 1
    r = json.loads(res.stdout)["results"][0]
    assert r["verdict"] == "partial" and 0 < r["placed"] < 40
    assert r["message"].startswith(f"fits {r['placed']} of 40 replicas; then: 0/12 nodes are available")


def test_markdown_for_job_summaries() -> None:
    res = run("check", WEB, TOO_BIG, "--cluster", CLUSTER, "-o", "markdown")
    assert res.exit_code == 1
    lines = res.stdout.splitlines()
    # What a job summary says first: the version, the cluster and the counts; then the
    # release's verdict and the order used, then the table (web's priority is 100000).
    assert lines[0] == (f"**kschedx check** · Kubernetes v1.35 · cluster: `{CLUSTER}` · 2 checked: 1 fit, "
                        "0 fit partly, 1 don't fit, 0 error(s)")
    assert lines[2].startswith("**⚠️ Release: fits partly")
    head = lines.index("| Verdict | Workload | File | Priority | Desired | Running | New | Placed | Detail |")
    # web runs 6 of 8: the 2 missing are new and both placed; the transcoder's one pod is not.
    assert lines[head + 2].startswith("| ✅ fits | `Deployment/shop/web` | `")
    assert "| 100000 | 8 | 6 | 2 | 2 |" in lines[head + 2]
    assert lines[head + 3].startswith("| ❌ doesn't fit | `Pod/shop/video-transcoder` |")
    assert "| 1 | 0 | 1 | 0 |" in lines[head + 3]
    assert any(line.startswith("Desired: the workload's replica count") for line in lines)
    alone = run("check", WEB, TOO_BIG, "--cluster", CLUSTER, "-o", "markdown", "--separately").stdout.splitlines()
    assert alone[0].startswith("**kschedx check** · Kubernetes v1.35")
    assert alone[2] == "| Verdict | Workload | File | Desired | Running | New | Placed | Detail |"


def test_stdin() -> None:
    res = run("check", "-", "--cluster", CLUSTER, input=Path(TOO_BIG).read_text())
    assert res.exit_code == 1 and "video-transcoder" in res.output


def test_no_cluster_and_empty_directory(tmp_path: Path) -> None:
    res = run("check", WEB, env={"KUBECONFIG": str(tmp_path / "none"), "KUBERNETES_SERVICE_HOST": ""})
    assert res.exit_code == 3 and "--cluster" in res.output
    (tmp_path / "empty").mkdir()
    res = run("check", str(tmp_path / "empty"), "--cluster", CLUSTER)
    assert res.exit_code == 2 and "no .yaml" in res.output


def test_documents_do_not_see_each_other_separately(tmp_path: Path) -> None:
    # The same workload twice: with --separately the second is placed exactly like the
    # first, on the cluster as dumped, not on top of the first one's copies.
    twice = write(tmp_path, "twice.yaml", Path(WEB).read_text() + "\n---\n" + Path(WEB).read_text())
    res = run("check", twice, WEB, "--cluster", CLUSTER, "-o", "json", "--separately")
    assert res.exit_code == 0, res.output
    first, second, third = (r["explanation"] for r in json.loads(res.stdout)["results"])
    assert first == second == third

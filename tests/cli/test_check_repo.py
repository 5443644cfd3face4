"""`check` over a repository as people keep one: Deployments, a Helm-style render with its own
PriorityClass and PVC, Service-only files, a kustomize base and overlay, Helm values, a CI workflow."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml
from typer.testing import CliRunner

from kschedx.cli.app import app

ROOT = Path(__file__).resolve().parents[2]
REPO = ROOT / "tests" / "cli" / "fixtures" / "repo"
CLUSTER = str(ROOT / "examples" / "cluster.yaml")


def run(*args: str) -> Any:
    return CliRunner().invoke(app, list(args), env={"NO_COLOR": "1", "COLUMNS": "100"})


def test_repository_directory_fits_and_notes_the_skipped_files() -> None:
    res = run("check", str(REPO), "--cluster", CLUSTER, "-o", "json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert {(r["kind"], r["name"], r["verdict"]) for r in data["results"]} == {
        ("Deployment", "web", "fits"), ("Deployment", "orders", "fits")}
    skipped = {Path(s["file"]).name: s["reason"] for s in data["skipped"]}
    assert skipped == {
        "ci.yml": "not Kubernetes objects",
        "values.yaml": "not Kubernetes objects",
        "service.yaml": "no Pod or workload, only Service",
    }
    # The kustomize base and its overlay (whose patch is no whole Deployment) are inputs of
    # `kubectl kustomize`, one note each.
    folders = {Path(f["folder"]).relative_to(REPO).as_posix(): f["reason"] for f in data["skippedFolders"]}
    assert set(folders) == {"kustomize/base", "kustomize/overlays/prod"}
    assert folders["kustomize/overlays/prod"].endswith(
        f"kschedx check -k {REPO / 'kustomize' / 'overlays' / 'prod'}")
    # The chart's own PriorityClass and PVC were there when its Deployment was placed.
    assert "PriorityClass/shop-orders-high" in data["overlaid"]
    assert "PersistentVolumeClaim/shop/orders-data" in data["overlaid"]
    orders = next(r for r in data["results"] if r["name"] == "orders")
    assert orders["explanation"]["steps"][0]["podPriority"] == 50000

    table = run("check", str(REPO), "--cluster", CLUSTER)
    assert table.exit_code == 0, table.output
    assert "Skipped 2 files: not Kubernetes objects: " in table.stdout  # few: named on the line
    assert f"Skipped {REPO / 'deploy' / 'web' / 'service.yaml'}: no Pod or workload, only Service" in table.stdout
    assert f"Skipped {REPO / 'kustomize' / 'base'}: kustomize input (2 file(s)" in table.stdout
    assert "as kubectl apply -f of these files would create them: PriorityClass/shop-orders-high" in table.stdout


def test_without_its_priority_class_the_render_does_not_fit(tmp_path: Path) -> None:
    # The same Deployment alone: its PriorityClass is nowhere, as the admission check says.
    docs = (REPO / "deploy" / "chart" / "rendered.yaml").read_text().split("---\n")
    alone = tmp_path / "orders.yaml"
    alone.write_text(docs[-1])
    res = run("check", str(alone), "--cluster", CLUSTER, "-o", "json")
    assert res.exit_code == 2, res.output
    assert "shop-orders-high" in json.loads(res.stdout)["results"][0]["error"]


def test_the_cluster_dump_in_the_directory_is_not_checked(tmp_path: Path) -> None:
    d = tmp_path / "deploy"
    shutil.copytree(REPO / "deploy", d)
    dump = d / "cluster.yaml"
    shutil.copy(CLUSTER, dump)
    res = run("check", str(d), "--cluster", str(dump), "-o", "json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert len(data["results"]) == 2
    assert {"file": str(dump), "reason": "the cluster dump (--snapshot/--cluster)"} in data["skipped"]


def test_an_object_without_kind_is_named_by_file_and_document(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text((REPO / "deploy" / "web" / "deployment.yaml").read_text()
                   + "---\napiVersion: v1\nmetadata: {name: x}\n")
    res = run("check", str(bad), "--cluster", CLUSTER, "-o", "json")
    assert res.exit_code == 2, res.output
    error = json.loads(res.stdout)["results"][0]["error"]
    assert error.startswith(f"{bad}:") and "document 2: object has no kind" in error


def test_nothing_to_check_is_an_input_error(tmp_path: Path) -> None:
    res = run("check", str(REPO / "deploy" / "web" / "service.yaml"), "--cluster", CLUSTER)
    assert res.exit_code == 2
    assert "no Pod or workload to check" in res.stderr and "service.yaml" in res.stderr


def test_piped_verdicts_take_one_line_each_at_40_columns() -> None:
    # `COLUMNS=40 kschedx check … | wc -l`: the results plus the summary lines.
    env = {**os.environ, "COLUMNS": "40", "NO_COLOR": "1"}
    out = subprocess.run([sys.executable, "-m", "kschedx.cli.app", "check", str(REPO), "--cluster", CLUSTER],
                         capture_output=True, text=True, env=env, check=False)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    # The release's verdict and order; two results; checked, laid over, skipped (a line per
    # reason: two files not Kubernetes objects, one without a workload), two kustomize folders.
    assert len(lines) == 2 + 2 + 6, out.stdout
    assert lines[2].startswith("✓ Deployment/shop/orders (") and lines[2].endswith("fits (best: highmem-a1)")


def test_a_cluster_info_dump_directory_in_the_walked_tree_is_not_checked(tmp_path: Path) -> None:
    d = tmp_path / "deploy"
    shutil.copytree(REPO / "deploy", d)
    dump = d / "cluster-state"
    (dump / "shop").mkdir(parents=True)
    objects = [o for doc in yaml.safe_load_all(Path(CLUSTER).read_text()) for o in doc["items"]]
    (dump / "nodes.json").write_text(json.dumps({"kind": "NodeList", "apiVersion": "v1",
                                                 "items": [o for o in objects if o["kind"] == "Node"]}))
    (dump / "shop" / "pods.json").write_text(json.dumps({"kind": "PodList", "apiVersion": "v1", "items": [
        o for o in objects if o["kind"] == "Pod" and o["metadata"].get("namespace") == "shop"]}))
    res = run("check", str(d), "--snapshot", str(dump), "--snapshot", CLUSTER, "-o", "json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert len(data["results"]) == 2  # the two Deployments, none of the dump's running pods
    assert {s["file"] for s in data["skipped"]} >= {str(dump / "nodes.json"), str(dump / "shop" / "pods.json")}


def test_a_fifo_in_a_folder_is_noted_not_read(tmp_path: Path) -> None:
    """A FIFO (or socket, or device file) named like a manifest would block the read
    forever: the walk leaves it out with a note."""
    shutil.copy(ROOT / "examples" / "pods" / "web-deployment.yaml", tmp_path / "web.yaml")
    os.mkfifo(tmp_path / "pipe.yaml")
    out = subprocess.run([sys.executable, "-m", "kschedx.cli.app", "check", str(tmp_path), "--cluster", CLUSTER],
                         capture_output=True, text=True, timeout=120, env={**os.environ, "NO_COLOR": "1", "COLUMNS": "200"})
    assert out.returncode in (0, 1), out.stderr
    text = " ".join((out.stdout + out.stderr).split())
    assert "pipe.yaml" in text and "not a regular file" in text
    assert "web" in text


def test_a_small_address_space_is_enough_for_a_small_manifest() -> None:
    """Files are read by their size: a read once reserved 4 GiB for any file, and every
    command failed under `ulimit -v` of 1 GiB."""
    import resource

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    out = subprocess.run([sys.executable, "-m", "kschedx.cli.app", "explain",
                          str(ROOT / "examples" / "pods" / "web-deployment.yaml"), "--cluster", CLUSTER, "-o", "json"],
                         capture_output=True, text=True, timeout=120, preexec_fn=limit)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["selectedNode"]


def test_a_repository_of_many_non_workload_files_prints_few_note_lines(tmp_path: Path) -> None:
    """130 files without a workload and 15 documents named twice: counted per reason and
    the first ten named, one per line; -v lists every one."""
    shutil.copy(ROOT / "examples" / "pods" / "web-deployment.yaml", tmp_path / "web.yaml")
    for i in range(120):
        (tmp_path / f"svc-{i:03d}.yaml").write_text(
            f"apiVersion: v1\nkind: Service\nmetadata: {{name: s{i}}}\nspec: {{ports: [{{port: 80}}]}}\n")
    for i in range(10):
        (tmp_path / f"sc-{i}.yaml").write_text(f"apiVersion: storage.k8s.io/v1\nkind: StorageClass\n"
                                               f"metadata: {{name: c{i}}}\nprovisioner: x\n")
    twice = "".join(f"---\napiVersion: v1\nkind: Pod\nmetadata: {{name: p{i}, namespace: default}}\n"
                    f"spec: {{containers: [{{name: c, image: nginx}}]}}\n" for i in range(15))
    (tmp_path / "pods-a.yaml").write_text(twice)
    (tmp_path / "pods-b.yaml").write_text(twice)
    out = subprocess.run([sys.executable, "-m", "kschedx.cli.app", "check", str(tmp_path), "--cluster", CLUSTER],
                         capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1"})
    assert out.returncode in (0, 1), out.stderr
    lines = out.stdout.splitlines()
    # No line lists files: at most two paths on one (a document and the one replacing it).
    assert all(line.count(str(tmp_path)) <= 2 for line in lines), [ln for ln in lines if ln.count(str(tmp_path)) > 2]
    assert max(len(line.replace(str(tmp_path), "")) for line in lines) <= 200
    notes = [line for line in lines if line.startswith(("Skipped", "Named twice", "  "))]
    assert len(notes) <= 14, notes
    assert any(line.startswith("Skipped 130 files hold no Pod or workload: Service 120, StorageClass 10") for line in lines)
    assert "… and 5 more (-v lists them)" in out.stdout
    full = subprocess.run([sys.executable, "-m", "kschedx.cli.app", "check", str(tmp_path), "--cluster", CLUSTER, "-v"],
                          capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1"})
    assert all(f"svc-{i:03d}.yaml" in full.stdout for i in range(120))
    assert full.stdout.count("replaced by") == 15

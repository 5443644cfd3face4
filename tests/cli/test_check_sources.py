"""`check .` on a repository as it is: Helm chart sources and kustomize inputs are left out
with one note each naming the command that renders them, an unrendered template is named
as one, files that are no Kubernetes objects at all are skipped, --exclude leaves files out.
Each ends 0 or 1, not 2."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from kschedx.cli.app import app

ROOT = Path(__file__).resolve().parents[2]
CLUSTER = str(ROOT / "examples" / "cluster.yaml")

DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
spec:
  replicas: 1
  selector:
    matchLabels: {{app: {name}}}
  template:
    metadata:
      labels: {{app: {name}}}
    spec:
      containers:
      - name: app
        image: registry.example/{name}:1.0
        resources:
          requests: {{cpu: 100m, memory: 64Mi}}
"""

HELM_TEMPLATE = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "shop.fullname" . }}
  labels:
    {{- include "shop.labels" . | nindent 4 }}
spec:
  replicas: {{ .Values.replicaCount }}
"""


def run(*args: str) -> Any:
    return CliRunner().invoke(app, list(args), env={"NO_COLOR": "1", "COLUMNS": "100"})


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def _app(tmp_path: Path, extra: dict[str, str]) -> Path:
    repo = tmp_path / "app"
    _write(repo, {"deploy/api.yaml": DEPLOYMENT.format(name="api"), **extra})
    return repo


def _check(repo: Path, *args: str) -> tuple[int, dict[str, Any]]:
    res = run("check", str(repo), "--snapshot", CLUSTER, "-o", "json", *args)
    return res.exit_code, json.loads(res.stdout) if res.stdout.startswith("{") else {"output": res.output}


def test_a_helm_chart_source_is_left_out_with_the_command_that_renders_it(tmp_path: Path) -> None:
    repo = _app(tmp_path, {
        "chart/Chart.yaml": "apiVersion: v2\nname: shop\nversion: 0.1.0\n",
        "chart/values.yaml": "replicaCount: 2\nimage: {repository: nginx}\n",
        "chart/values-prod.yaml": "replicaCount: 5\n",
        "chart/templates/deployment.yaml": HELM_TEMPLATE,
        "chart/templates/service.yaml": '{{- if .Values.service.enabled }}\napiVersion: v1\nkind: Service\n{{- end }}\n',
        "chart/charts/redis/Chart.yaml": "apiVersion: v2\nname: redis\nversion: 1.0.0\n",
        "chart/charts/redis/templates/statefulset.yaml": HELM_TEMPLATE.replace("Deployment", "StatefulSet"),
    })
    code, data = _check(repo)
    assert code == 0, data
    assert [r["name"] for r in data["results"]] == ["api"]
    chart = str(repo / "chart")
    assert data["skippedFolders"] == [{"folder": chart, "reason": "a Helm chart source (Chart.yaml), not manifests; "
                                       f"check what it renders: helm template RELEASE {chart} | kschedx check -f -"}]
    assert data["skipped"] == []

    # Pointed at the templates themselves: the chart they belong to is named.
    res = run("check", str(repo / "chart" / "templates"), "--snapshot", CLUSTER)
    assert res.exit_code == 2
    assert "no Pod or workload to check" in res.stderr and "helm template RELEASE" in res.stderr
    assert "invalid JSON" not in res.stderr and "invalid YAML" not in res.stderr
    # So is a template named on its own, or the chart's values.
    res = run("check", str(repo / "chart" / "templates" / "deployment.yaml"), str(repo / "chart" / "values.yaml"),
              "--snapshot", CLUSTER)
    assert res.exit_code == 2
    assert res.stderr.count(f"helm template RELEASE {chart} | kschedx check -f -") == 1, res.stderr


def test_kustomize_base_and_overlay_are_left_out_one_note_each(tmp_path: Path) -> None:
    repo = _app(tmp_path, {
        "k8s/base/kustomization.yaml": "resources:\n- deployment.yaml\n- ../shared/config.yaml\n",
        "k8s/base/deployment.yaml": DEPLOYMENT.format(name="cart"),
        "k8s/shared/config.yaml": DEPLOYMENT.format(name="shared"),
        "k8s/overlays/prod/Kustomization": "resources:\n- ../../base\npatches:\n- path: ../../patches/cpu.yaml\n",
        "k8s/overlays/prod/replicas.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: cart}\n"
                                           "spec: {replicas: 4}\n",
        "k8s/patches/cpu.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: cart}\n"
                                "spec: {template: {spec: {containers: [{name: app, resources: {requests: {cpu: 2}}}]}}}\n",
    })
    code, data = _check(repo)
    assert code == 0, data
    assert [r["name"] for r in data["results"]] == ["api"]
    notes = {Path(f["folder"]).relative_to(repo).as_posix(): f["reason"] for f in data["skippedFolders"]}
    assert set(notes) == {"k8s/base", "k8s/overlays/prod"}
    # The base counts the file it names from next door; the overlay its patch from elsewhere.
    assert notes["k8s/base"].startswith("kustomize input (3 file(s)")
    assert notes["k8s/overlays/prod"].startswith("kustomize input (2 file(s)")
    assert notes["k8s/overlays/prod"].endswith(f"kschedx check -k {repo / 'k8s' / 'overlays' / 'prod'}")


def test_an_unrendered_template_is_named_as_one(tmp_path: Path) -> None:
    repo = _app(tmp_path, {
        "deploy/worker.yaml.tmpl.yaml": HELM_TEMPLATE,  # does not parse
        "deploy/worker.json": '{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "w"}, "spec": {{ .Spec }}}',
        # parses, but its name is still a template
        "deploy/tablet.yaml": DEPLOYMENT.format(name="tablet").replace("name: tablet", "name: tablet-{{uid}}", 1),
        # a rendered manifest whose program takes a Go template of its own is no template
        "deploy/reporter.yaml": DEPLOYMENT.format(name="reporter").replace(
            "        resources:", "        args: [--format, '{{.Name}}']\n        resources:"),
    })
    code, data = _check(repo)
    assert code == 0, data
    assert sorted(r["name"] for r in data["results"]) == ["api", "reporter"]
    skipped = {Path(s["file"]).name: s["reason"] for s in data["skipped"]}
    assert skipped == {
        "worker.yaml.tmpl.yaml": "an unrendered template ({{ … }} on line 4), not a manifest; check it once rendered",
        "worker.json": "an unrendered template ({{ … }} on line 1), not a manifest; check it once rendered",
        "tablet.yaml": "an unrendered template ({{ … }} in Deployment metadata.name), not a manifest; "
                       "check it once rendered",
    }


def test_files_that_are_no_kubernetes_objects_are_skipped_even_when_they_do_not_parse(tmp_path: Path) -> None:
    repo = _app(tmp_path, {
        "tsconfig.json": '{\n  // comments, as TypeScript allows\n  "compilerOptions": {"strict": true}\n}\n',
        "package.json": '{"name": "shop", "version": "1.0.0"}\n',
        "docker-compose.yml": "services:\n  web:\n    image: nginx\n",
        "mkdocs.yml": "markdown_extensions:\n- pymdownx.emoji:\n    emoji_index: !!python/name:material.extensions.emoji.twemoji\n",
        ".github/workflows/ci.yml": "on: push\njobs: {test: {runs-on: ubuntu-latest, steps: [{run: make}]}}\n",
        "node_modules/pkg/deployment.yaml": "apiVersion: apps/v1\nkind: Deployment\n: broken\n",
    })
    code, data = _check(repo)
    assert code == 0, data
    reasons = {Path(s["file"]).name: s["reason"] for s in data["skipped"]}
    assert set(reasons) == {"tsconfig.json", "package.json", "docker-compose.yml", "mkdocs.yml", "ci.yml"}
    assert all(r.startswith("not Kubernetes objects") for r in reasons.values())
    # A broken manifest is still an error.
    _write(repo, {"deploy/broken.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x\n"})
    code, data = _check(repo)
    assert code == 2 and "invalid YAML" in data["results"][0]["error"]


def test_exclude_leaves_files_and_folders_out(tmp_path: Path) -> None:
    repo = _app(tmp_path, {
        "deploy/big.yaml": DEPLOYMENT.format(name="big").replace("cpu: 100m", "cpu: 900"),
        "test/e2e/broken.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x\n",
        "test/e2e/more.yaml": DEPLOYMENT.format(name="more"),
    })
    code, _ = _check(repo)
    assert code == 2
    code, data = _check(repo, "--exclude", "test", "--exclude", "**/big.yaml")
    assert code == 0, data
    assert [r["name"] for r in data["results"]] == ["api"]
    assert data["excluded"] == [{"glob": "**/big.yaml", "files": 1}, {"glob": "test", "files": 2}]
    res = run("check", str(repo), "--snapshot", CLUSTER, "--exclude", "test/*", "--exclude", "big.yaml")
    assert res.exit_code == 0, res.output
    assert "Left out by --exclude test/*: 2 files" in res.stdout
    assert "Left out by --exclude big.yaml: 1 file" in res.stdout
    # The path as given works too.
    code, data = _check(repo, "--exclude", f"{repo}/test/**", "--exclude", f"{repo}/deploy/big.yaml")
    assert code == 0, data
    assert [g["files"] for g in data["excluded"]] == [1, 2]


def test_everything_excluded_is_nothing_to_check(tmp_path: Path) -> None:
    repo = _app(tmp_path, {})
    res = run("check", str(repo), "--snapshot", CLUSTER, "--exclude", "deploy")
    assert res.exit_code == 2
    assert "no Pod or workload to check (skipped --exclude deploy: 1 file(s))" in res.stderr

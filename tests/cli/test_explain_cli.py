"""`kschedx explain` through Typer's CliRunner: formats, exit codes, bad input, colours."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from kschedx import __version__
from kschedx.cli.app import app
from kschedx.core.explain import front as engine

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
CLUSTER = str(EXAMPLES / "cluster.yaml")
WEB = str(EXAMPLES / "pods" / "web-deployment.yaml")
TOO_BIG = str(EXAMPLES / "pods" / "too-big.yaml")
GPU = str(EXAMPLES / "pods" / "gpu-job.yaml")

ANSI = re.compile(r"\x1b\[[0-9;]*m")
COLOUR = re.compile(r"\x1b\[(?:[0-9;]*;)?(?:3[0-7]|9[0-7]|38;[0-9;]+)m")


def run(*args: str, env: dict[str, str] | None = None, input: str | None = None) -> Any:
    base = {"NO_COLOR": "", "FORCE_COLOR": "", "COLUMNS": "100"}
    return CliRunner().invoke(app, list(args), env={**base, **(env or {})}, input=input)


def engine_json(manifest: str, **kw: Any) -> Any:
    result = engine.explain_files(manifest, [CLUSTER], **kw)
    # Through json once, as the CLI prints it (tuples become lists, keys stay in order).
    return json.loads(json.dumps(result.to_json()))


def write(tmp_path: Path, name: str, text: str) -> str:
    p = tmp_path / name
    p.write_text(text)
    return str(p)


POD = """\
apiVersion: v1
kind: Pod
metadata: {name: probe}
spec:
  containers:
  - name: app
    image: nginx:1.27
    resources: {requests: {cpu: 100m, memory: 128Mi}}
"""


# --------------------------------------------------------------------------- formats


def test_table_fits_and_orders_nodes_by_total() -> None:
    res = run("explain", WEB, "--cluster", CLUSTER)
    assert res.exit_code == 0, res.output
    out = res.stdout
    assert "\x1b[" not in out  # not a terminal: plain text
    expected = engine_json(WEB)
    assert expected["pod"] in out
    assert "Rule" in out and "existing ReplicaSet" in out
    assert "Feasible nodes (8)" in out and "Filtered out (4)" in out
    # Feasible rows appear by total, descending, the best one starred.
    feasible = sorted(expected["totals"], key=lambda n: (-expected["totals"][n], n))
    rows = [line for line in out.splitlines() if re.match(r"^[★ ] [a-z]", line)]
    names = [line[2:].split()[0] for line in rows]
    assert names[: len(feasible)] == feasible, names
    best_row = next(line for line in rows if line.startswith("★"))
    assert best_row.split()[1] == expected["bestNodes"][0]
    assert best_row.split()[-1] == str(expected["totals"][expected["bestNodes"][0]])
    # Infeasible nodes follow, with the rejecting plugin and the reason.
    assert names[len(feasible):] == ["gpu-a1", "gpu-b1", "gpu-c1", "general-c2"]
    assert "TaintToleration" in out and "node(s) had untolerated taint(s)" in out
    assert "NodeUnschedulable" in out and "node(s) were unschedulable" in out
    # Skipped score plugins are named, not shown as columns.
    skipped = [p["name"] for p in expected["scorePlugins"] if p["skipped"]]
    assert "Skipped by PreScore (no score): " + ", ".join(skipped) in out


def test_table_columns_are_short_plugin_titles_with_weighted_scores() -> None:
    res = run("explain", WEB, "--cluster", CLUSTER)
    expected = engine_json(WEB)
    header = next(line for line in res.stdout.splitlines() if line.startswith("Node ") and "Total" in line)
    # A column that is 0 on every feasible node (DynamicResources: the pod uses no device)
    # leaves the default table and is named in the footer line.
    zero = [p["name"] for p in expected["scorePlugins"] if not p["skipped"]
            and all(s["weighted"] == 0 for s in p["scores"].values())]
    assert "DynamicResources" in zero
    assert header.split() == ["Node", "Taint", "Fit", "Spread", "Balanced", "Image", "Total"]
    assert "0 on every node (no column): " + ", ".join(zero) in " ".join(res.stdout.split())
    assert "Columns: Taint=TaintToleration · Fit=NodeResourcesFit" in res.stdout
    best = expected["bestNodes"][0]
    row = next(line for line in res.stdout.splitlines() if line.startswith("★"))
    weighted = [
        str(p["scores"][best]["weighted"]) for p in expected["scorePlugins"] if not p["skipped"]
        and p["name"] not in zero
    ]
    assert row.split()[2:] == [*weighted, str(expected["totals"][best])]


def test_wide_shows_raw_and_normalized_and_a_legend() -> None:
    res = run("explain", WEB, "--cluster", CLUSTER, "-o", "wide")
    assert res.exit_code == 0, res.output
    out = res.stdout
    expected = engine_json(WEB)
    best = expected["bestNodes"][0]
    lines = out.splitlines()
    i = next(k for k, line in enumerate(lines) if line.startswith("★"))
    detail = lines[i + 1].split()
    want = [f"{p['scores'][best]['raw']}→{p['scores'][best]['normalized']}"
            for p in expected["scorePlugins"] if not p["skipped"]]
    assert detail == want
    assert "Fit=NodeResourcesFit" in out and "Balanced=NodeResourcesBalancedAllocation" in out
    assert "×3" in out  # weights under the titles
    assert "Unresolvable" in out or "Unschedulable" in out  # the code column of filtered nodes
    assert all(len(line) <= 100 for line in lines)


def test_json_is_exactly_the_cycle_result() -> None:
    res = run("explain", WEB, "--cluster", CLUSTER, "-o", "json")
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout) == engine_json(WEB)


def test_yaml_is_the_same_data() -> None:
    res = run("explain", WEB, "--cluster", CLUSTER, "-o", "yaml")
    assert res.exit_code == 0, res.output
    assert yaml.safe_load(res.stdout) == engine_json(WEB)


def test_unschedulable_exits_1_with_fit_error() -> None:
    res = run("explain", TOO_BIG, "--cluster", CLUSTER)
    assert res.exit_code == 1, res.output
    expected = engine_json(TOO_BIG)
    assert expected["fitError"].startswith("0/12 nodes are available: ")
    flat = " ".join(res.stdout.split())
    assert "FitError " + expected["fitError"] in flat
    assert "✗ unschedulable" in res.stdout
    assert "Feasible nodes" not in res.stdout
    res_json = run("explain", TOO_BIG, "--cluster", CLUSTER, "-o", "json")
    assert res_json.exit_code == 1
    assert json.loads(res_json.stdout)["fitError"] == expected["fitError"]


def test_infeasible_nodes_grouped_by_reason() -> None:
    res = run("explain", GPU, "--cluster", CLUSTER)
    assert res.exit_code == 0, res.output
    out = res.stdout
    tail = out[out.index("Filtered out"):]
    # The biggest group first (eight nodes without the accelerator label), its reason said once.
    assert tail.count("node(s) didn't match Pod's node affinity/selector") == 1
    assert tail.index("general-a1") < tail.index("gpu-a1") < tail.index("general-c2")
    assert "Insufficient nvidia.com/gpu" in tail


def test_top_limits_rows() -> None:
    res = run("explain", WEB, "--cluster", CLUSTER, "--top", "3")
    assert res.exit_code == 0, res.output
    rows = [line for line in res.stdout.splitlines() if re.match(r"^[★ ] [a-z]+-[a-z]\d", line)]
    assert len(rows) == 3
    assert "9 more nodes not shown (--top 3)" in res.stdout
    assert "Filtered out" not in res.stdout
    res = run("explain", WEB, "--cluster", CLUSTER, "--top", "10")
    assert "Filtered out (4)" in res.stdout and "2 more nodes not shown" in res.stdout
    assert run("explain", WEB, "--cluster", CLUSTER, "--top", "0").exit_code == 2


def test_all_reasons_lists_every_failing_filter() -> None:
    res = run("explain", TOO_BIG, "--cluster", CLUSTER, "--all-reasons", "-o", "json")
    data = json.loads(res.stdout)
    assert data["nodes"]["gpu-a1"]["allFailures"][0]["plugin"] == "TaintToleration"
    assert any(f["plugin"] == "NodeResourcesFit" for f in data["nodes"]["gpu-a1"]["allFailures"])
    table = run("explain", TOO_BIG, "--cluster", CLUSTER, "--all-reasons")
    assert "also NodeResourcesFit: Insufficient cpu" in " ".join(table.stdout.split())


def test_stdin_namespace_and_doc(tmp_path: Path) -> None:
    res = run("explain", "-", "--cluster", CLUSTER, "-n", "shop", "-o", "json", input=POD)
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["pod"] == "shop/probe"
    two = write(tmp_path, "two.yaml", POD + "---\n" + POD.replace("name: probe", "name: other"))
    res = run("explain", two, "--cluster", CLUSTER)
    assert res.exit_code == 2
    assert "--doc" in res.stderr
    res = run("explain", two, "--cluster", CLUSTER, "--doc", "other", "-o", "json")
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["pod"] == "default/other"


def test_workload_rule_and_warnings_are_shown(tmp_path: Path) -> None:
    bound = write(tmp_path, "bound.yaml", POD.replace("spec:\n", "spec:\n  nodeName: general-b1\n"))
    res = run("explain", bound, "--cluster", CLUSTER)
    assert res.exit_code == 0, res.output
    assert "general-b1 ◂ spec.nodeName" in res.stdout
    assert "warning: the pod already has spec.nodeName=general-b1" in res.stdout
    assert "Pod: explained as written" in res.stdout


# --------------------------------------------------------------------------- errors


def assert_input_error(res: Any, *needles: str) -> None:
    assert res.exit_code == 2, (res.exit_code, res.output)
    assert res.stdout == ""
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    assert lines[0].startswith("error: ")
    assert "Traceback" not in res.stderr
    for n in needles:
        assert n in lines[0], lines[0]


def test_missing_manifest_and_cluster(tmp_path: Path) -> None:
    missing = str(tmp_path / "nope.yaml")
    assert_input_error(run("explain", missing, "--cluster", CLUSTER), f"{missing}: no such file")
    pod = write(tmp_path, "pod.yaml", POD)
    assert_input_error(run("explain", pod, "--cluster", missing), f"{missing}: no such file")


def test_no_cluster_and_no_kubeconfig_is_a_cluster_access_error(tmp_path: Path) -> None:
    env = {"KUBECONFIG": str(tmp_path / "none"), "KUBERNETES_SERVICE_HOST": ""}
    res = run("explain", write(tmp_path, "pod.yaml", POD), env=env)
    assert res.exit_code == 3, res.output
    assert "--cluster" in res.output and "kubeconfig" in res.output
    assert "Traceback" not in res.output


def test_invalid_yaml_names_file_and_line(tmp_path: Path) -> None:
    bad = write(tmp_path, "bad.yaml", POD.replace("image: nginx:1.27", "image: [unclosed"))
    assert_input_error(run("explain", bad, "--cluster", CLUSTER), f"{bad}:8: invalid YAML")
    assert_input_error(run("explain", WEB, "--cluster", bad), f"{bad}:8: invalid YAML")


def test_deployment_without_template(tmp_path: Path) -> None:
    dep = write(tmp_path, "dep.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n"
                "spec:\n  selector: {matchLabels: {app: web}}\n")
    # The API server's words: the empty template has no labels for the selector and no containers.
    assert_input_error(run("explain", dep, "--cluster", CLUSTER), f"{dep}:4:", 'Deployment "web" is invalid',
                       "spec.template.metadata.labels: Invalid value: null: `selector` does not match template `labels`",
                       "spec.template.spec.containers: Required value")


def test_unknown_kind_as_manifest(tmp_path: Path) -> None:
    cm = write(tmp_path, "cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: b}\n")
    assert_input_error(run("explain", cm, "--cluster", CLUSTER), cm, "found ConfigMap")


def test_invalid_quantity_in_manifest(tmp_path: Path) -> None:
    bad = write(tmp_path, "q.yaml", POD.replace("cpu: 100m", "cpu: 12x"))
    # resource.Quantity's decoding error, as the API server returns it.
    assert_input_error(run("explain", bad, "--cluster", CLUSTER), bad, 'Pod in version "v1" cannot be handled as a Pod: '
                       "quantities must match the regular expression")


def test_invalid_quantity_in_cluster(tmp_path: Path) -> None:
    text = Path(CLUSTER).read_text()
    bad = write(tmp_path, "cluster.yaml", text.replace("cpu: 7910m", "cpu: lots", 1))
    assert_input_error(run("explain", WEB, "--cluster", bad), bad, "Node general-a1: status.allocatable.cpu: "
                       'Invalid value: "lots": quantities must match the regular expression')


def test_unknown_profile(tmp_path: Path) -> None:
    assert_input_error(run("explain", WEB, "--cluster", CLUSTER, "--profile", "batch"), "no scheduler profile",
                       "batch")


def test_field_of_the_wrong_type_is_not_a_traceback(tmp_path: Path) -> None:
    bad = write(tmp_path, "w.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: w}\nspec:\n  containers: nope\n")
    assert_input_error(run("explain", bad, "--cluster", CLUSTER), bad)


def test_debug_shows_the_exception(tmp_path: Path) -> None:
    missing = str(tmp_path / "nope.yaml")
    res = run("explain", missing, "--cluster", CLUSTER, "--debug")
    assert res.exit_code != 0
    assert type(res.exception).__name__ == "InputError"


def test_bad_option_values_are_usage_errors() -> None:
    assert run("explain", WEB, "--cluster", CLUSTER, "-o", "pdf").exit_code == 2
    assert run("explain", "--cluster", CLUSTER).exit_code == 2


# --------------------------------------------------------------------------- colour, help, version


def test_colour_only_when_forced_and_not_disabled() -> None:
    coloured = run("explain", WEB, "--cluster", CLUSTER, env={"FORCE_COLOR": "1"})
    assert coloured.exit_code == 0
    assert COLOUR.search(coloured.stdout)
    no_env = run("explain", WEB, "--cluster", CLUSTER, env={"FORCE_COLOR": "1", "NO_COLOR": "1"})
    assert not COLOUR.search(no_env.stdout)
    no_flag = run("explain", WEB, "--cluster", CLUSTER, "--no-color", env={"FORCE_COLOR": "1"})
    assert not COLOUR.search(no_flag.stdout)
    # Same text once the escapes are gone.
    assert ANSI.sub("", no_flag.stdout) == ANSI.sub("", coloured.stdout)


def test_help_and_version() -> None:
    res = run("--help")
    assert res.exit_code == 0 and "explain" in res.stdout
    res = run("explain", "--help")
    assert res.exit_code == 0
    for opt in ("--cluster", "--namespace", "--doc", "--profile", "--output", "--top", "--all-reasons",
                "--no-color", "--debug"):
        assert opt in res.stdout
    res = run("--version")
    assert res.exit_code == 0 and __version__ in res.stdout


def test_help_does_not_import_the_engine_or_rich() -> None:
    code = (
        "import sys\n"
        "from kschedx.cli.app import main\n"
        "sys.argv = ['kschedx', '--help']\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "heavy = [m for m in ('rich', 'yaml', 'kschedx.core.explain.front', 'kschedx.core.snapshot') if m in sys.modules]\n"
        "sys.stderr.write(repr(heavy))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stderr.strip() == "[]"


@pytest.mark.parametrize("width", [80, 100, 140])
def test_table_fits_the_terminal_width(width: int) -> None:
    for fmt in ("table", "wide"):
        res = run("explain", WEB, "--cluster", CLUSTER, "-o", fmt, env={"COLUMNS": str(width)})
        assert res.exit_code == 0
        assert max(len(line) for line in res.stdout.splitlines()) <= width


# --------------------------------------------------------------------------- --config

BINPACK = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
        resources: [{name: cpu, weight: 1}, {name: memory, weight: 1}]
- schedulerName: batch
  plugins:
    multiPoint:
      disabled: [{name: ImageLocality}]
"""


def _fit_raw(data: Any) -> dict[str, int]:
    fit = next(p for p in data["scorePlugins"] if p["name"] == "NodeResourcesFit")
    return {n: s["raw"] for n, s in fit["scores"].items()}


def test_config_changes_the_scoring_strategy(tmp_path: Path) -> None:
    cfg = write(tmp_path, "sched.yaml", BINPACK)
    least = json.loads(run("explain", WEB, "--cluster", CLUSTER, "-o", "json").stdout)
    most_res = run("explain", WEB, "--cluster", CLUSTER, "--config", cfg, "-o", "json")
    assert most_res.exit_code == 0, most_res.output
    most = json.loads(most_res.stdout)
    assert most == engine_json(WEB, config=cfg)
    # LeastAllocated and MostAllocated rank the same nodes in opposite directions.
    lo, hi = _fit_raw(least), _fit_raw(most)
    assert lo.keys() == hi.keys() and lo != hi
    assert max(lo, key=lambda n: (lo[n], n)) != max(hi, key=lambda n: (hi[n], n))


def test_config_profile_selection(tmp_path: Path) -> None:
    cfg = write(tmp_path, "sched.yaml", BINPACK)
    res = run("explain", WEB, "--cluster", CLUSTER, "--config", cfg, "--profile", "batch", "-o", "json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["profile"] == "batch"
    assert "ImageLocality" not in [p["name"] for p in data["scorePlugins"]]


def test_invalid_config_is_an_input_error(tmp_path: Path) -> None:
    cfg = write(tmp_path, "sched.yaml", BINPACK.replace("disabled: [{name: ImageLocality}]", "enabled: [{name: NoSuchPlugin}]"))
    assert_input_error(run("explain", WEB, "--cluster", CLUSTER, "--config", cfg), "NoSuchPlugin")
    bad = write(tmp_path, "bad.yaml", "profiles: [\n")
    assert_input_error(run("explain", WEB, "--cluster", CLUSTER, "--config", bad), f"{bad}:")


def test_json_writer_matches_the_json_module() -> None:
    import io
    import json

    from kschedx.cli.render.json_yaml import write_json

    data = {
        "a": 1, "b": [], "c": {}, "d": [{"x": [1, 2, {"y": None}], "z": {}}, []], "e": {"k": [True, False, 1.5]},
        "steps": iter([{"n": {"feasible": True}}, {"n": {"feasible": False, "reasons": ["r1", "r2"]}}]),
        "none": iter([]), "s": "quote\" and \\ slash",
    }
    out = io.BytesIO()
    write_json(data, out)
    expected = dict(data, steps=[{"n": {"feasible": True}}, {"n": {"feasible": False, "reasons": ["r1", "r2"]}}],
                    none=[])
    assert out.getvalue().decode() == json.dumps(expected, indent=2) + "\n"
    for scalar in ([], {}, [1, {"a": []}], "x"):
        out = io.BytesIO()
        write_json(scalar, out)
        assert out.getvalue().decode() == json.dumps(scalar, indent=2) + "\n"

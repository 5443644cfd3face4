"""Node names as the tables show them: at 80 columns the shared domain is dropped
(``ip-10-42-5-17``), and that short name is what a user passes back to ``--node``,
``--cordon``, ``--drain`` and ``--without-node``. A short name unique up to a dot is
accepted; an unknown name is refused with the closest names; a short name shared by several
nodes is refused naming them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from kschedx.cli.app import app
from kschedx.core.errors import InputError
from kschedx.core.explain.nodenames import closest_names, resolve_node_name

from .test_narrow_render import NAMES, POD, cluster

EKS = NAMES["eks"]


@pytest.fixture()
def files(tmp_path: Path) -> tuple[str, str]:
    dump = tmp_path / "cluster.yaml"
    dump.write_text(yaml.safe_dump(cluster("eks")))
    pod = tmp_path / "pod.yaml"
    pod.write_text(yaml.safe_dump(POD))
    return str(dump), str(pod)


def _run(*args: str) -> tuple[int, str, str]:
    res = CliRunner().invoke(app, list(args), env={"COLUMNS": "80", "NO_COLOR": "1"})
    return res.exit_code, res.stdout, res.stderr


def test_short_name_focuses_the_node(files: tuple[str, str]) -> None:
    dump, pod = files
    code, out, err = _run("explain", pod, "--snapshot", dump, "--node", "ip-10-42-5-17", "-o", "json")
    assert code == 0, err
    assert json.loads(out)["focus"]["node"] == EKS(5)


@pytest.mark.parametrize("flag", ["--cordon", "--drain", "--without-node"])
def test_short_name_in_what_if_edits(files: tuple[str, str], flag: str) -> None:
    dump, pod = files
    code, out, err = _run("explain", pod, "--snapshot", dump, flag, "ip-10-42-6-17", "-o", "json")
    assert code == 0, err
    nodes = json.loads(out)["nodes"]
    if flag == "--without-node":
        assert EKS(6) not in nodes
    else:
        assert nodes[EKS(6)]["plugin"] == "NodeUnschedulable"


def test_unknown_name_suggests_the_closest(files: tuple[str, str]) -> None:
    dump, pod = files
    code, _, err = _run("explain", pod, "--snapshot", dump, "--node", "ip-10-42-5-71")
    assert code == 2
    assert "--node ip-10-42-5-71: no node of that name in the cluster — did you mean" in err
    assert EKS(5) in err
    assert "Traceback" not in err


def test_resolution_rules() -> None:
    names = ["a.x.internal", "ab.x.internal", "b", "b.y"]
    assert resolve_node_name("a", names, "--node") == "a.x.internal"
    assert resolve_node_name("a.x", names, "--node") == "a.x.internal"
    assert resolve_node_name("b", names, "--node") == "b"  # a whole name wins over a prefix
    assert resolve_node_name("b.y", names, "--node") == "b.y"
    with pytest.raises(InputError, match="no node of that name"):
        resolve_node_name("c", names, "--node")
    with pytest.raises(InputError, match=r"names 2 nodes \(n1.a, n1.b\)"):
        resolve_node_name("n1", ["n1.a", "n1.b"], "--node")
    assert closest_names("ip-10-0-1-71", ["ip-10-0-1-17.eu-west-1.compute.internal", "gke-zz"]) == [
        "ip-10-0-1-17.eu-west-1.compute.internal"]

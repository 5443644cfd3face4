"""Identity over the golden cases: the incoming pod already in the cluster source.

For every single-cycle case the incoming pod is added to the dump twice over — once bound
to the node the real scheduler chose (when nothing fits: to some node, since a pod may
run where it no longer fits) and Running, once Pending — and explained both by reference
(``pod/NAME -n NS``) and by its own manifest. The real scheduler never has the pod it
schedules in its cache, so each must give exactly the golden answer.

For the workload families (a Deployment or StatefulSet manifest) the pod added is the one
kschedx derives from the manifest, with the objects its controllers would have created
(the new ReplicaSet; the StatefulSet and its Pending PVC): it is that pod the golden
answer is about.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from kschedx.cli.app import app
from kschedx.core.explain import front as engine
from kschedx.core.load.manifest import select_document

from .compare import compare
from .harness import case_objects
from .test_conformance import CASES, PENDING_CASES, PENDING_FAMILIES

Dict = dict[str, Any]


def _single_cycle_cases() -> list[Path]:
    out = []
    for case in sorted(CASES.iterdir()):
        meta = json.loads((case / "meta.json").read_text())
        if meta["family"] in PENDING_FAMILIES or case.name in PENDING_CASES:
            continue
        if int(meta.get("replicas") or 1) > 1:
            continue
        out.append(case)
    return out


CASE_LIST = _single_cycle_cases()


def _variant(objects: Any, pod: Dict, extras: list[Dict], node: str | None) -> Any:
    """``objects`` plus ``pod`` (bound to ``node`` and Running, or Pending) and ``extras``."""
    out = objects.copy()
    stored = copy.deepcopy(pod)
    spec = stored.setdefault("spec", {})
    status = stored.setdefault("status", {})
    if node is None:
        spec.pop("nodeName", None)
        status["phase"] = "Pending"
    else:
        spec["nodeName"] = node
        status["phase"] = "Running"
    for o in [stored, *copy.deepcopy(extras)]:
        out.add(o)
    return out


def _prepared(case: Path) -> tuple[Any, Dict, list[Dict], str | None, Dict]:
    objects = case_objects(case)
    obj = select_document(str(case / "pod.yaml"), None)
    # The pod as the API server stores it (admitted), and what its controllers created.
    incoming = engine.prepare_object(obj, str(case / "pod.yaml"), objects)
    pod = copy.deepcopy(incoming.pod)
    if incoming.bound_node:  # a manifest with spec.nodeName: stored as written
        pod["spec"]["nodeName"] = incoming.bound_node
    config = case / "config.yaml"
    return objects, pod, incoming.extra_objects, str(config) if config.exists() else None, obj


def _running_node(expected: Dict, objects: Any) -> str:
    return str(expected.get("selectedNode") or (expected.get("bestNodes") or [None])[0]
               or sorted(n["metadata"]["name"] for n in objects.of("Node"))[0])


@pytest.mark.parametrize("case", CASE_LIST, ids=[c.name for c in CASE_LIST])
def test_existing_pod_gives_the_golden_answer(case: Path) -> None:
    expected = json.loads((case / "expected.json").read_text())
    objects, pod, extras, config, _obj = _prepared(case)
    ns, name = pod["metadata"]["namespace"], pod["metadata"]["name"]
    running = _running_node(expected, objects)
    # The scale family's clusters (up to 19,000 pods) take seconds per snapshot: there each
    # placement is explained one way only (Running by reference, Pending by manifest).
    meta = json.loads((case / "meta.json").read_text())
    big = meta["family"] == "scale"
    # meta.json's featureGates, as --feature-gates passes them (the gates137 family).
    gates = meta.get("featureGates") or {}
    options = engine.Options(feature_gates=",".join(f"{k}={'true' if v else 'false'}"
                                                    for k, v in sorted(gates.items()))) if gates else None
    for node in (running, None):
        cluster = _variant(objects, pod, extras, node)
        results = []
        if not big or node is not None:
            results.append(("reference", engine.explain_objects(f"pod/{name}", cluster, namespace=ns,
                                                                config=config, options=options).steps[0]))
        if not big or node is None:
            manifest = copy.deepcopy(pod)
            manifest["spec"].pop("nodeName", None)
            manifest.setdefault("status", {})["phase"] = "Pending" if node is None else "Running"
            results.append(("manifest", engine.explain_object(manifest, "<manifest>", cluster, config=config,
                                                              options=options).steps[0]))
        for how, result in results:
            diffs = compare(expected, result.to_json())
            where = "Running on " + node if node else "Pending"
            assert not diffs, f"{case.name} ({where}, by {how}):\n  " + "\n  ".join(diffs[:20])
            assert result.current is not None and result.current.node == node
            if node is None:
                assert result.current.agrees is None
            else:
                assert result.current.agrees == (result.selected_node == node)
                if result.selected_node is not None and not result.current.agrees:
                    assert result.current.causes


# A few through the real CLI, with the modified dump written to a file.
CLI_CASES = [c for c in CASE_LIST if c.name in ("taints-1-1", "preemption-1-1", "images-1-104-deploy", "volumes-1-106-sts", "dra-1-2")] \
    or CASE_LIST[:3]


@pytest.mark.parametrize("case", CLI_CASES, ids=[c.name for c in CLI_CASES])
def test_existing_pod_through_the_cli(case: Path, tmp_path: Path) -> None:
    expected = json.loads((case / "expected.json").read_text())
    objects, pod, extras, config, _obj = _prepared(case)
    ns, name = pod["metadata"]["namespace"], pod["metadata"]["name"]
    running = _running_node(expected, objects)
    for node in (running, None):
        cluster = _variant(objects, pod, extras, node)
        dump = tmp_path / f"cluster-{node or 'pending'}.json"
        dump.write_text(json.dumps({"apiVersion": "v1", "kind": "List",
                                    "items": [o for objs in cluster.by_kind.values() for o in objs]}))
        args = ["explain", f"pod/{name}", "-n", ns, "-c", str(dump), "-o", "json"]
        if config:
            args += ["--config", config]
        res = CliRunner().invoke(app, args, env={"NO_COLOR": "1", "COLUMNS": "100"})
        assert res.exit_code == (0 if expected.get("selectedNode") or expected.get("bestNodes") else 1), res.output
        out = json.loads(res.stdout)
        assert not compare(expected, out), compare(expected, out)
        assert out["currentNode"] == node
        assert out["agreesWithCurrentNode"] == (None if node is None else out["selectedNode"] == node)

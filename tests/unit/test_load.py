import gzip
import json
from pathlib import Path

import pytest

from kschedx.core.admission import Admission
from kschedx.core.api.objects import ClusterObjects
from kschedx.core.errors import InputError
from kschedx.core.load.files import load_cluster, load_objects
from kschedx.core.load.manifest import expand, select_document

NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}}


def _write(tmp_path: Path, name: str, text: str) -> str:
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def test_multi_document_yaml_and_list(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "c.yaml",
        "---\napiVersion: v1\nkind: List\nitems:\n- kind: Node\n  metadata: {name: a}\n"
        "- kind: Node\n  metadata: {name: b}\n---\nkind: Pod\nmetadata: {name: p}\nspec: {containers: []}\n"
        "---\nkind: ConfigMap\nmetadata: {name: x}\n",
    )
    objs = load_cluster([path])
    assert [n["metadata"]["name"] for n in objs.of("Node")] == ["a", "b"]
    assert len(objs.of("Pod")) == 1
    assert objs.skipped_kinds == {"ConfigMap": 1}


def test_json_gzip_and_typed_lists(tmp_path: Path) -> None:
    p = tmp_path / "c.json.gz"
    p.write_bytes(gzip.compress(json.dumps({"kind": "NodeList", "items": [{"metadata": {"name": "a"}}]}).encode()))
    objs = load_cluster([str(p)])
    assert objs.of("Node")[0]["metadata"]["name"] == "a"


def test_invalid_yaml_names_file_and_line(tmp_path: Path) -> None:
    path = _write(tmp_path, "bad.yaml", "kind: Pod\nmetadata:\n  name: [oops\n")
    with pytest.raises(InputError) as e:
        load_objects(path)
    assert str(e.value).startswith(f"{path}:")
    assert e.value.line is not None


def test_missing_file() -> None:
    with pytest.raises(InputError, match="no such file"):
        load_objects("/nonexistent/file.yaml")


def test_unknown_manifest_kind(tmp_path: Path) -> None:
    path = _write(tmp_path, "cm.yaml", "kind: ConfigMap\nmetadata: {name: x}\n")
    with pytest.raises(InputError, match="no Pod or workload"):
        select_document(path, None)


def test_several_documents_need_doc(tmp_path: Path) -> None:
    text = "kind: Pod\nmetadata: {name: a}\nspec: {containers: []}\n---\nkind: Pod\nmetadata: {name: b}\nspec: {containers: []}\n"
    path = _write(tmp_path, "two.yaml", text)
    with pytest.raises(InputError, match="--doc"):
        select_document(path, None)
    assert select_document(path, "b")["metadata"]["name"] == "b"
    assert select_document(path, "Pod/a")["metadata"]["name"] == "a"


def _deploy() -> dict:  # type: ignore[type-arg]
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "shop"},
        "spec": {
            "replicas": 3,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "x"}]}},
        },
    }


def test_deployment_pod_and_new_replicaset() -> None:
    inc = expand(_deploy(), ClusterObjects(), "d.yaml", None)
    labels = inc.pod["metadata"]["labels"]
    h = labels["pod-template-hash"]
    assert labels["app"] == "web"
    rs = inc.extra_objects[0]
    assert rs["kind"] == "ReplicaSet"
    assert rs["metadata"]["name"] == f"web-{h}"
    assert rs["spec"]["selector"]["matchLabels"] == {"app": "web", "pod-template-hash": h}
    assert inc.pod["metadata"]["ownerReferences"][0]["name"] == f"web-{h}"
    assert inc.pod["metadata"]["namespace"] == "shop"
    assert inc.workload_replicas == 3


def test_deployment_reuses_existing_replicaset() -> None:
    objects = ClusterObjects()
    tpl = _deploy()["spec"]["template"]
    rs_tpl = json.loads(json.dumps(tpl))
    rs_tpl["metadata"]["labels"]["pod-template-hash"] = "abc123"
    objects.add(
        {
            "kind": "ReplicaSet",
            "metadata": {
                "name": "web-abc123",
                "namespace": "shop",
                "uid": "u1",
                "ownerReferences": [{"kind": "Deployment", "name": "web", "controller": True}],
            },
            "spec": {"template": rs_tpl},
        }
    )
    inc = expand(_deploy(), objects, "d.yaml", None)
    assert inc.extra_objects == []
    assert inc.pod["metadata"]["labels"]["pod-template-hash"] == "abc123"


def test_deployment_without_template() -> None:
    d = _deploy()
    del d["spec"]["template"]
    with pytest.raises(InputError, match="no pod template"):
        expand(d, ClusterObjects(), "d.yaml", None)


def test_statefulset_pod_and_pvc() -> None:
    objects = ClusterObjects()
    objects.add(
        {
            "kind": "StorageClass",
            "metadata": {"name": "std", "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}},
        }
    )
    sts = {
        "kind": "StatefulSet",
        "metadata": {"name": "db", "namespace": "data"},
        "spec": {
            "selector": {"matchLabels": {"app": "db"}},
            "template": {"metadata": {"labels": {"app": "db"}}, "spec": {"containers": [{"name": "c"}]}},
            "volumeClaimTemplates": [{"metadata": {"name": "data"}, "spec": {"resources": {"requests": {"storage": "1Gi"}}}}],
        },
    }
    run = Admission(objects)
    inc = expand(sts, objects, "s.yaml", None, lambda claim, pod: run.admit_claim(claim))
    assert inc.pod["metadata"]["name"] == "db-0"
    labels = inc.pod["metadata"]["labels"]
    assert labels["statefulset.kubernetes.io/pod-name"] == "db-0"
    assert labels["apps.kubernetes.io/pod-index"] == "0"
    pvc = next(o for o in inc.extra_objects if o["kind"] == "PersistentVolumeClaim")
    assert pvc["metadata"]["name"] == "data-db-0"
    assert pvc["spec"]["storageClassName"] == "std"
    assert pvc["metadata"]["labels"] == {"app": "db"}
    assert {"name": "data", "persistentVolumeClaim": {"claimName": "data-db-0"}} in inc.pod["spec"]["volumes"]


def test_job_and_cronjob_labels() -> None:
    job = {"kind": "Job", "metadata": {"name": "j"}, "spec": {"template": {"spec": {"containers": [{"name": "c"}]}}}}
    inc = expand(job, ClusterObjects(), "j.yaml", None)
    assert inc.pod["metadata"]["labels"]["job-name"] == "j"
    assert inc.pod["metadata"]["labels"]["batch.kubernetes.io/job-name"] == "j"
    cj = {"kind": "CronJob", "metadata": {"name": "c"}, "spec": {"jobTemplate": job["spec"] and {"spec": job["spec"]}}}
    inc2 = expand(cj, ClusterObjects(), "c.yaml", None)
    assert inc2.pod["metadata"]["labels"]["job-name"].startswith("c-")


def test_pod_with_node_name_is_unbound_with_warning() -> None:
    p = {"kind": "Pod", "metadata": {"name": "p"}, "spec": {"nodeName": "n1", "containers": []}}
    inc = expand(p, ClusterObjects(), "p.yaml", None)
    assert "nodeName" not in inc.pod["spec"]
    assert inc.bound_node == "n1"
    assert inc.warnings

from kschedx.core.api.model import DEFAULT_MEMORY_REQUEST, NodeView, PodInfo


def _pod(spec: dict) -> PodInfo:  # type: ignore[type-arg]
    return PodInfo({"metadata": {"name": "p"}, "spec": spec})


def _c(name: str, **res: dict) -> dict:  # type: ignore[type-arg]
    return {"name": name, "image": "x", "resources": res}


def test_requests_default_from_limits() -> None:
    p = _pod({"containers": [_c("a", limits={"cpu": "500m", "memory": "1Gi"})]})
    assert p.requests == {"cpu": 500, "memory": 2**30}


def test_init_containers_take_the_max() -> None:
    p = _pod(
        {
            "initContainers": [_c("i", requests={"cpu": "2", "memory": "100Mi"})],
            "containers": [_c("a", requests={"cpu": "500m", "memory": "1Gi"}), _c("b", requests={"cpu": "500m"})],
        }
    )
    assert p.requests["cpu"] == 2000
    assert p.requests["memory"] == 2**30


def test_restartable_sidecars_add_to_app_containers_and_later_inits() -> None:
    side = _c("s", requests={"cpu": "300m"})
    side["restartPolicy"] = "Always"
    p = _pod(
        {
            "initContainers": [side, _c("i", requests={"cpu": "1"})],
            "containers": [_c("a", requests={"cpu": "200m"})],
        }
    )
    # app 200m + sidecar 300m = 500m; the init after the sidecar needs 1 + 0.3 = 1.3
    assert p.requests["cpu"] == 1300


def test_overhead_and_pod_level_resources() -> None:
    p = _pod(
        {
            "containers": [_c("a", requests={"cpu": "100m", "memory": "64Mi"})],
            "overhead": {"cpu": "50m"},
        }
    )
    assert p.requests["cpu"] == 150
    pl = _pod(
        {
            "resources": {"requests": {"cpu": "1"}},
            "containers": [_c("a", requests={"cpu": "100m", "memory": "64Mi"})],
        }
    )
    assert pl.requests["cpu"] == 1000
    assert pl.requests["memory"] == 64 * 2**20


def test_non_zero_requests_fill_only_missing() -> None:
    best_effort = _pod({"containers": [_c("a"), _c("b")]})
    assert best_effort.requests == {}
    assert best_effort.non0_cpu == 200
    assert best_effort.non0_mem == 2 * DEFAULT_MEMORY_REQUEST
    explicit_zero = _pod({"containers": [_c("a", requests={"cpu": "0", "memory": "0"})]})
    assert explicit_zero.non0_cpu == 0 and explicit_zero.non0_mem == 0


def test_extended_and_unknown_resources() -> None:
    p = _pod({"containers": [_c("a", requests={"nvidia.com/gpu": "1", "hugepages-2Mi": "4Mi", "weird": "3"})]})
    assert p.requests == {"nvidia.com/gpu": 1, "hugepages-2Mi": 4 * 2**20}


def test_host_ports() -> None:
    p = _pod({"containers": [{"name": "a", "ports": [{"containerPort": 80, "hostPort": 8080}, {"containerPort": 9}]}]})
    assert p.host_ports == (("0.0.0.0", "TCP", 8080),)


def test_node_allocatable_defaults_to_capacity() -> None:
    n = NodeView({"metadata": {"name": "n"}, "status": {"capacity": {"cpu": "2", "memory": "1Gi", "pods": "10"}}})
    assert n.allocatable == {"cpu": 2000, "memory": 2**30, "pods": 10}
    assert n.allowed_pods == 10


def test_nodes_of_one_pool_share_the_parse_of_their_allocatable_not_the_dict() -> None:
    """Equal allocatable maps are parsed once; each node still has a dict of its own, and
    a map that does not parse names each node that holds it."""
    import pytest

    from kschedx.core.api.quantity import QuantityError

    def view(name: str, alloc: dict) -> NodeView:  # type: ignore[type-arg]
        return NodeView({"metadata": {"name": name}, "status": {"allocatable": alloc}})

    a = view("a", {"cpu": "15910m", "memory": "63736Mi", "pods": "110"})
    b = view("b", {"cpu": "15910m", "memory": "63736Mi", "pods": "110"})
    assert a.allocatable == b.allocatable == {"cpu": 15910, "memory": 63736 << 20, "pods": 110}
    a.allocatable["cpu"] = 1
    assert b.allocatable["cpu"] == 15910
    assert view("c", {"cpu": "15910m", "memory": "63736Mi", "pods": "110"}).allocatable["cpu"] == 15910
    # The same text in another type is another map (YAML's 110 is an int, not "110").
    assert view("d", {"cpu": "1", "pods": 110}).allocatable == {"cpu": 1000, "pods": 110}
    for name in ("e", "f"):
        with pytest.raises(QuantityError, match=f"node {name} allocatable"):
            view(name, {"cpu": "lots"})


def test_node_images_are_read_when_first_asked_for() -> None:
    n = NodeView({"metadata": {"name": "n"}, "status": {"images": [
        {"names": ["nginx@sha256:ab", "nginx:1.25"], "sizeBytes": 70 << 20}, {"names": []}, {"sizeBytes": 5}]}})
    assert "images" not in n.__dict__
    assert n.images == [(("nginx@sha256:ab", "nginx:1.25"), 70 << 20)]

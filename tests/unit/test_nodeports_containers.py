"""NodePorts: which containers hold host ports, and hostNetwork defaulting (issue 16, class 6).

v1.35.4 pkg/scheduler/util/utils.go ``GetHostPorts``: only restartable (sidecar) init containers
and the regular containers; the same function feeds the incoming pod (nodeports
``PreFilter``) and the node's used ports (framework/types.go ``NodeInfo.updateUsedPorts``).
pkg/apis/core/v1/defaults.go ``SetDefaults_Pod`` -> ``defaultHostNetworkPorts``: in a
hostNetwork pod a port without hostPort gets hostPort = containerPort.
"""

from __future__ import annotations

from typing import Any

from kschedx.core.api.model import PodInfo

from .helpers import cycle, node, pod, snapshot

Dict = dict[str, Any]
ERR = "node(s) didn't have free ports for the requested pod ports"


def with_port(p: Dict, port: int, *, init: str | None = None, host_port: int | None = None) -> Dict:
    entry: Dict = {"containerPort": port}
    if host_port is not None:
        entry["hostPort"] = host_port
    if init is None:
        p["spec"]["containers"][0]["ports"] = [entry]
    else:
        c: Dict = {"name": "init", "image": "busybox", "ports": [entry]}
        if init == "sidecar":
            c["restartPolicy"] = "Always"
        p["spec"]["initContainers"] = [c]
    return p


def test_plain_init_container_ports_are_not_held() -> None:
    """GetHostPorts skips init containers without restartPolicy Always."""
    assert PodInfo(with_port(pod("p"), 80, init="plain", host_port=8080)).host_ports == ()
    assert PodInfo(with_port(pod("p"), 80, init="sidecar", host_port=8080)).host_ports == (("0.0.0.0", "TCP", 8080),)


def test_existing_pods_plain_init_ports_do_not_block_the_node() -> None:
    """NodeInfo.updateUsedPorts uses GetHostPorts too."""
    snap = snapshot(
        node("a1"), node("b1"),
        with_port(pod("old-init", node_name="a1"), 80, init="plain", host_port=8080),
        with_port(pod("old-sidecar", node_name="b1"), 80, init="sidecar", host_port=8080),
    )
    r = cycle(snap, with_port(pod("new"), 80, host_port=8080))
    assert r.feasible_nodes == ["a1"]
    assert r.nodes["b1"].reasons == [ERR]
    # The incoming pod's plain init container asks for no port: NodePorts skips it.
    r = cycle(snap, with_port(pod("new"), 80, init="plain", host_port=8080))
    assert r.feasible_nodes == ["a1", "b1"]
    assert "NodePorts" in r.pre_filter.skipped_plugins


def test_host_network_ports_default_host_port_to_container_port() -> None:
    """defaults.go defaultHostNetworkPorts, for the incoming pod and the pods of a dump."""
    incoming = with_port(pod("new", hostNetwork=True), 9100)
    assert PodInfo(incoming).host_ports == (("0.0.0.0", "TCP", 9100),)
    # Without hostNetwork a containerPort alone holds nothing.
    assert PodInfo(with_port(pod("new"), 9100)).host_ports == ()
    existing = with_port(pod("exporter", node_name="a1", hostNetwork=True), 9100)
    r = cycle(snapshot(node("a1"), node("b1"), existing), incoming)
    assert r.feasible_nodes == ["b1"]
    assert r.nodes["a1"].plugin == "NodePorts"
    # An explicit hostPort is kept as it is.
    explicit = with_port(pod("x", hostNetwork=True), 9100, host_port=9200)
    assert PodInfo(explicit).host_ports == (("0.0.0.0", "TCP", 9200),)

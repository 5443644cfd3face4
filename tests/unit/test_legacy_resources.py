"""v1.12 LeastRequested, MostRequested, BalancedResourceAllocation and
RequestedToCapacityRatio against the cases of upstream's release-1.12 test tables
(pkg/scheduler/algorithm/priorities/*_test.go), rewritten as kschedx inputs."""

from __future__ import annotations

import pytest

from kschedx.core.legacy.balanced_resource_allocation import BalancedResourceAllocation
from kschedx.core.legacy.least_requested import LeastRequested
from kschedx.core.legacy.most_requested import MostRequested
from kschedx.core.legacy.requested_to_capacity_ratio import (
    RequestedToCapacityRatio,
    ShapeError,
    broken_line,
    validate_shape,
)
from tests.unit.legacy_helpers import final, mnode, mpod

CPU_ONLY = [{"cpu": "1000m", "memory": "0"}, {"cpu": "2000m", "memory": "0"}]
CPU_AND_MEMORY = [{"cpu": "1000m", "memory": "2000"}, {"cpu": "2000m", "memory": "3000"}]
BIG = [{"cpu": "2000m", "memory": "4000"}, {"cpu": "3000m", "memory": "5000"}]


def nodes(*sizes: tuple[int, int]) -> list[dict[str, object]]:
    return [mnode(f"machine{i + 1}", cpu, mem) for i, (cpu, mem) in enumerate(sizes)]


# (pod containers, node sizes, existing pods as (node, containers), expected per machine)
RESOURCE_CASES = {
    "nothing scheduled, nothing requested": ([], [(4000, 10000), (4000, 10000)], []),
    "nothing scheduled, resources requested, differently sized machines":
        (CPU_AND_MEMORY, [(4000, 10000), (6000, 10000)], []),
    "no resources requested, pods scheduled":
        ([], [(4000, 10000), (4000, 10000)], [("machine1", []), ("machine1", []), ("machine2", []), ("machine2", [])]),
    "no resources requested, pods scheduled with resources":
        ([], [(10000, 20000), (10000, 20000)],
         [("machine1", CPU_ONLY), ("machine1", CPU_ONLY), ("machine2", CPU_ONLY), ("machine2", CPU_AND_MEMORY)]),
    "resources requested, pods scheduled with resources":
        (CPU_AND_MEMORY, [(10000, 20000), (10000, 20000)], [("machine1", CPU_ONLY), ("machine2", CPU_AND_MEMORY)]),
    "resources requested, pods scheduled with resources, differently sized machines":
        (CPU_AND_MEMORY, [(10000, 20000), (10000, 50000)], [("machine1", CPU_ONLY), ("machine2", CPU_AND_MEMORY)]),
    "requested resources exceed node capacity":
        (CPU_ONLY, [(4000, 10000), (4000, 10000)], [("machine1", CPU_ONLY), ("machine2", CPU_AND_MEMORY)]),
    "zero node resources, pods scheduled with resources":
        ([], [(0, 0), (0, 0)], [("machine1", CPU_ONLY), ("machine2", CPU_AND_MEMORY)]),
}

LEAST = {
    "nothing scheduled, nothing requested": (10, 10),
    "nothing scheduled, resources requested, differently sized machines": (3, 5),
    "no resources requested, pods scheduled": (10, 10),
    "no resources requested, pods scheduled with resources": (7, 5),
    "resources requested, pods scheduled with resources": (5, 4),
    "resources requested, pods scheduled with resources, differently sized machines": (5, 6),
    "requested resources exceed node capacity": (5, 2),
    "zero node resources, pods scheduled with resources": (0, 0),
}

BALANCED = {
    "nothing scheduled, nothing requested": (10, 10),
    "nothing scheduled, resources requested, differently sized machines": (7, 10),
    "no resources requested, pods scheduled": (10, 10),
    "no resources requested, pods scheduled with resources": (4, 6),
    "resources requested, pods scheduled with resources": (6, 9),
    "resources requested, pods scheduled with resources, differently sized machines": (6, 6),
    "requested resources exceed node capacity": (0, 0),
    "zero node resources, pods scheduled with resources": (0, 0),
}


def _scores(pf: object, case: str) -> tuple[int, ...]:
    pod_c, sizes, existing = RESOURCE_CASES[case]
    pods = [mpod(n, c) for n, c in existing]
    out = final(pf, mpod("", pod_c), nodes(*sizes), pods)  # type: ignore[arg-type]
    return tuple(out[f"machine{i + 1}"] for i in range(len(sizes)))


@pytest.mark.parametrize("case", sorted(LEAST))
def test_least_requested(case: str) -> None:
    assert _scores(LeastRequested("LeastRequestedPriority", 1), case) == LEAST[case]


@pytest.mark.parametrize("case", sorted(BALANCED))
def test_balanced_resource_allocation(case: str) -> None:
    assert _scores(BalancedResourceAllocation("BalancedResourceAllocation", 1), case) == BALANCED[case]


@pytest.mark.parametrize(
    ("pod_c", "sizes", "existing", "expected"),
    [
        ([], [(4000, 10000), (4000, 10000)], [], (0, 0)),
        (CPU_AND_MEMORY, [(4000, 10000), (6000, 10000)], [], (6, 5)),
        ([], [(10000, 20000), (10000, 20000)],
         [("machine1", CPU_ONLY), ("machine1", CPU_ONLY), ("machine2", CPU_ONLY), ("machine2", CPU_AND_MEMORY)],
         (3, 4)),
        (CPU_AND_MEMORY, [(10000, 20000), (10000, 20000)], [("machine1", CPU_ONLY), ("machine2", CPU_AND_MEMORY)],
         (4, 5)),
        (BIG, [(4000, 10000), (10000, 8000)], [], (4, 2)),
    ],
)
def test_most_requested(pod_c: list[dict[str, str]], sizes: list[tuple[int, int]],
                        existing: list[tuple[str, list[dict[str, str]]]], expected: tuple[int, int]) -> None:
    out = final(MostRequested("MostRequestedPriority", 1), mpod("", pod_c), nodes(*sizes),
                [mpod(n, c) for n, c in existing])
    assert (out["machine1"], out["machine2"]) == expected


def test_a_container_without_requests_counts_100m_and_200mi() -> None:
    # One container requesting nothing: 100m of 1000m in use, 200Mi of 2000Mi.
    out = final(LeastRequested("L", 1), mpod("", [{}]), [mnode("n", 1000, 2000 * 1024 * 1024)])
    assert out["n"] == (9 + 9) // 2


@pytest.mark.parametrize(
    ("points", "probes"),
    [
        ([(10, 1), (90, 9)], {-10: 1, 0: 1, 9: 1, 10: 1, 15: 1, 19: 1, 20: 2, 89: 8, 90: 9, 99: 9, 100: 9, 110: 9}),
        ([(0, 2), (40, 10), (100, 0)], {-10: 2, 0: 2, 20: 6, 30: 8, 40: 10, 70: 5, 100: 0, 110: 0}),
        ([(0, 2), (40, 2), (100, 2)], {-10: 2, 0: 2, 20: 2, 30: 2, 40: 2, 70: 2, 100: 2, 110: 2}),
    ],
)
def test_broken_linear_function(points: list[tuple[int, int]], probes: dict[int, int]) -> None:
    shape = validate_shape(points)
    assert {p: broken_line(shape, p) for p in probes} == probes


@pytest.mark.parametrize(
    ("points", "message"),
    [
        ([], "at least one point must be specified"),
        ([(10, 1), (15, 2), (20, 3), (19, 4), (25, 5)],
         "utilization values must be sorted. Utilization[2]==20 >= Utilization[3]==19"),
        ([(10, 1), (20, 2), (20, 3), (22, 4), (25, 5)],
         "utilization values must be sorted. Utilization[1]==20 >= Utilization[2]==20"),
        ([(-1, 0), (100, 10)], "utilization values must not be less than 0. Utilization[0]==-1"),
        ([(0, 0), (101, 10)], "utilization values must not be greater than 100. Utilization[1]==101"),
        ([(0, -1), (100, 10)], "score values must not be less than 0. Score[0]==-1"),
        ([(0, 0), (100, 11)], "score valuses not be greater than 10. Score[1]==11"),
    ],
)
def test_function_shape_validation(points: list[tuple[int, int]], message: str) -> None:
    with pytest.raises(ShapeError) as e:
        validate_shape(points)
    assert str(e.value) == message


@pytest.mark.parametrize(
    ("requested", "capacity", "used", "expected"),
    [
        ((0, 0), [(4000, 10000), (4000, 10000)], [(0, 0), (0, 0)], (10, 10)),
        ((3000, 5000), [(4000, 10000), (6000, 10000)], [(0, 0), (0, 0)], (4, 5)),
        ((0, 0), [(4000, 10000), (6000, 10000)], [(3000, 5000), (3000, 5000)], (4, 5)),
    ],
)
def test_requested_to_capacity_ratio_default_shape(
    requested: tuple[int, int], capacity: list[tuple[int, int]], used: list[tuple[int, int]], expected: tuple[int, int]
) -> None:
    def containers(cpu: int, mem: int) -> list[dict[str, str]]:
        return [{"cpu": f"{cpu}m", "memory": str(mem)}]

    pods = [mpod(f"node{i + 1}", containers(*u)) for i, u in enumerate(used)]
    ns = [mnode(f"node{i + 1}", c, m) for i, (c, m) in enumerate(capacity)]
    out = final(RequestedToCapacityRatio("RequestedToCapacityRatioPriority", 1), mpod("", containers(*requested)),
                ns, pods)
    assert (out["node1"], out["node2"]) == expected


def test_requested_to_capacity_ratio_custom_shape_favours_fuller_nodes() -> None:
    pf = RequestedToCapacityRatio("binpack", 1, {"shape": [{"utilization": 0, "score": 0},
                                                           {"utilization": 100, "score": 10}]})
    out = final(pf, mpod("", [{"cpu": "1000m", "memory": "1000"}]),
                [mnode("small", 2000, 2000), mnode("big", 8000, 8000)])
    assert out == {"small": 5, "big": 1}

"""Run every golden case through the engine and print a per-family summary (a dev tool).

Usage: python tests/golden/run_all.py [substring-filter] [-v] [--given-version]

--given-version passes meta.json's kubernetesVersion as --kubernetes-version does (by
default the version is inferred from the dump's kubelets).
"""

from __future__ import annotations

import json
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from compare import compare  # noqa: E402
from harness import run_case  # noqa: E402

CASES = Path(__file__).parent / "cases"


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("-")]
    verbose = "-v" in sys.argv
    given = "--given-version" in sys.argv
    by_family: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    failures: list[tuple[str, list[str]]] = []
    t0 = time.perf_counter()
    for case in sorted(CASES.iterdir()):
        if args and not any(a in case.name for a in args):
            continue
        meta = json.loads((case / "meta.json").read_text())
        fam = meta["family"]
        expected = json.loads((case / "expected.json").read_text())
        try:
            actual = run_case(case, given)
            diffs = compare(expected, actual)
        except Exception as e:  # noqa: BLE001 - a dev report
            diffs = [f"crash: {type(e).__name__}: {e}"]
        by_family[fam][1] += 1
        if diffs:
            failures.append((case.name, diffs))
        else:
            by_family[fam][0] += 1
    for name, diffs in failures:
        print(f"FAIL {name}")
        for d in diffs[: (50 if verbose else 4)]:
            print(f"    {d}")
    total_ok = sum(v[0] for v in by_family.values())
    total = sum(v[1] for v in by_family.values())
    for fam, (ok, n) in sorted(by_family.items()):
        print(f"{fam:16s} {ok:3d}/{n}")
    print(f"{'total':16s} {total_ok:3d}/{total}   ({time.perf_counter() - t0:.1f}s)")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Live reads against a stand-in API server (bench/apiserver_standin.py), no cluster needed.

    python bench/bench_live.py                  # 1,000 nodes / 30,000 pods, 40 MB/s
    python bench/bench_live.py --nodes 500 --rate 20 --runs 3

The stand-in serves the pages of the generated cluster at a fixed rate. Figures, each in a
fresh process, wall and CPU time:

- the server's own delivery: every page of every kind fetched and thrown away (a bare
  HTTPS client, four kinds at a time like kschedx), i.e. what the server can give;
- ``kschedx explain`` of one pod against the stand-in, and its ratio to that delivery
  (target ≤ 2×);
- ``kschedx snapshot`` ``--runs`` times in a row to the same file (stable?), against
  ``explain`` plus the cost of writing the file from objects in memory.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from run_bench import child, dump  # noqa: E402

from tests.live.fake_apiserver import make_certs  # noqa: E402 - the live tests' CA and certificate

POD = """\
apiVersion: v1
kind: Pod
metadata: {name: live-probe, namespace: team-01}
spec:
  containers:
  - name: app
    image: registry.example.com/team-01/svc-1:v2.1
    resources: {requests: {cpu: 500m, memory: 512Mi}}
"""

# Every page of every kind, thrown away: the server's own delivery time (argv: url, ca).
DELIVERY = """
import http.client, re, ssl, threading
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit, quote
from kschedx.core.load.live import FAILED_SCHEDULING, RESOURCES
url, ca = sys.argv[1], sys.argv[2]
host = urlsplit(url)
ctx = ssl.create_default_context(cafile=ca)
token = re.compile(rb'"continue":"([^"]*)"')
def fetch(path):
    conn = http.client.HTTPSConnection(host.hostname, host.port, context=ctx)
    nxt, total = "", 0
    while True:
        conn.request("GET", f"{path}?limit=500" + (f"&continue={quote(nxt)}" if nxt else ""),
                     headers={"Authorization": "Bearer x", "Accept": "application/json"})
        body = conn.getresponse().read()
        total += len(body)
        m = token.search(body[:4096])
        if not m:
            return total
        nxt = m.group(1).decode()
t = time.perf_counter()
c0 = time.process_time()
with ThreadPoolExecutor(4) as pool:
    sizes = list(pool.map(fetch, [p for _k, _v, p in (*RESOURCES, FAILED_SCHEDULING)]))
print(json.dumps({"wall": time.perf_counter() - t, "cpu": time.process_time() - c0, "bytes": sum(sizes)}))
"""

# Writing the snapshot file of objects already in memory (argv: a snapshot file, the output).
WRITE = """
from kschedx.core.load.files import load_cluster
from kschedx.core.load.snapshot_file import write_snapshot
objs = load_cluster([sys.argv[1]])
t = time.perf_counter()
c0 = time.process_time()
write_snapshot(objs, sys.argv[2])
print(json.dumps({"wall": time.perf_counter() - t, "cpu": time.process_time() - c0}))
"""


def timed(cmd: list[str]) -> dict[str, float]:
    """Wall and CPU time (user + system, children included) of a command, which must succeed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    res = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if res.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({res.returncode}): {res.stderr.strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall": wall, "cpu": cpu, "rss": after.ru_maxrss / 1024}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--rate", type=float, default=40.0, help="the stand-in's delivery rate, MB/s")
    ap.add_argument("--runs", type=int, default=3, help="snapshots in a row")
    ap.add_argument("--kschedx", help="the kschedx command to measure (default: this interpreter's)")
    args = ap.parse_args()
    cluster = dump(args.nodes)
    kschedx = args.kschedx or str(Path(sys.executable).with_name("kschedx"))
    with tempfile.TemporaryDirectory(prefix="kschedx-live-bench-") as tmp:
        d = Path(tmp)
        ca, _crt, _key = make_certs(d)
        server = subprocess.Popen([sys.executable, str(HERE / "apiserver_standin.py"), str(cluster), "--rate",
                                   str(args.rate), "--certs", str(d)], stdout=subprocess.PIPE, text=True)
        try:
            assert server.stdout is not None
            url, served = server.stdout.readline().split()
            (d / "kc").write_text(json.dumps({
                "apiVersion": "v1", "kind": "Config", "current-context": "bench",
                "clusters": [{"name": "c", "cluster": {"server": url, "certificate-authority": str(ca)}}],
                "users": [{"name": "u", "user": {"token": "bench"}}],
                "contexts": [{"name": "bench", "context": {"cluster": "c", "user": "u"}}]}))
            (d / "pod.yaml").write_text(POD)
            live = ["--kubeconfig", str(d / "kc")]
            print(f"stand-in API server: {args.nodes} nodes, {int(served) >> 20} MB of pages at {args.rate:g} MB/s")
            delivery = child(DELIVERY, url, str(ca))
            print(f"  the server's own delivery: {delivery['wall']:.1f} s (client CPU {delivery['cpu']:.1f} s)")
            explain = timed([kschedx, "explain", str(d / "pod.yaml"), *live, "-o", "json"])
            print(f"  explain live: {explain['wall']:.1f} s, CPU {explain['cpu']:.1f} s, peak {explain['rss']:.0f} MB"
                  f" = {explain['wall'] / delivery['wall']:.2f}x the delivery (target <= 2x)")
            snaps = [timed([kschedx, "snapshot", *live, "-o", str(d / "snap.json")]) for _ in range(args.runs)]
            write = child(WRITE, str(d / "snap.json"), str(d / "again.json"))
            print("  snapshot live: " + ", ".join(f"{s['wall']:.1f} s (CPU {s['cpu']:.1f} s)" for s in snaps)
                  + f"; writing the file alone {write['wall']:.1f} s (CPU {write['cpu']:.1f} s)")
            worst = max(s["wall"] for s in snaps)
            print(f"  snapshot / (explain + writing): {worst / (explain['wall'] + write['wall']):.2f} (target <= 1)")
        finally:
            server.terminate()
            server.wait()


if __name__ == "__main__":
    main()

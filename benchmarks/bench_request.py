"""The cost of one request: a page opened by a link, run once in a fresh process.

    nice -n 10 python benchmarks/bench_request.py pages/5_Tree_Decomposition.py \
        "data=gen:checkerboard;n_classes=2;n_per_class=15000&split.test=0.1&td.grid=paper"

The page runs in Streamlit's AppTest (the script a server would run for that link, in one
process) with the link's query parameters. Printed: process CPU seconds of the run (every thread;
the imports done before it are not counted, the first-call compilations of Numba are), wall
seconds, the peak resident set size of the process (``ru_maxrss``, imports included), the
messages the page showed (errors and warnings first), and the load average, since wall time on a
shared machine is inflated by the others; the same in a JSON record (``harness.Run``). ``--cpu-limit`` ends a run that exceeds it (RLIMIT_CPU),
reported as "killed"; a request that needs more than a minute of CPU is over the app's classroom
budget (``svmviz_app/budget.py``) anyway.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from harness import Run  # noqa: E402

COLUMNS = [("outcome", "outcome", "{}", 14), ("cpu", "CPU s", "{:.1f}"), ("wall", "wall s", "{:.1f}"),
           ("rss", "peak RSS MB", "{:.0f}")]

RUNNER = r"""
import json, resource, sys, time
from urllib.parse import parse_qsl
page, query, limit = sys.argv[1], sys.argv[2], int(sys.argv[3])
from streamlit.testing.v1 import AppTest
import svmviz.models, svmviz.plots  # imported once by a server: not part of a request
at = AppTest.from_file(page, default_timeout=10 * limit)
at.query_params.update(dict(parse_qsl(query, keep_blank_values=True)))
resource.setrlimit(resource.RLIMIT_CPU, (int(time.process_time()) + limit, resource.RLIM_INFINITY))
c0, w0 = time.process_time(), time.perf_counter()
at.run()
cpu, wall = time.process_time() - c0, time.perf_counter() - w0
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
said = [f"{kind}: {e.value}" for kind in ("exception", "error", "warning")
        for e in getattr(at, kind)]
print(json.dumps({"cpu": cpu, "wall": wall, "rss": rss, "said": said}))
"""


def one_request(page: str, query: str, cpu_limit: int) -> dict:
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1", OMP_NUM_THREADS="1",
               MALLOC_ARENA_MAX="2")
    out = subprocess.run([sys.executable, "-c", RUNNER, page, query, str(cpu_limit)], cwd=ROOT,
                         capture_output=True, text=True, env=env)
    lines = out.stdout.strip().splitlines()
    if out.returncode != 0 or not lines:
        # the child's own peak and CPU (imports included), known after it ended however it ended
        ru = resource.getrusage(resource.RUSAGE_CHILDREN)
        return {"killed": True, "returncode": out.returncode, "stderr": out.stderr[-500:],
                "cpu": ru.ru_utime + ru.ru_stime, "rss": ru.ru_maxrss / 1024}
    return json.loads(lines[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("page", help="pages/5_Tree_Decomposition.py, app.py, ...")
    ap.add_argument("query", help="the link's query string, without '?'")
    ap.add_argument("--cpu-limit", type=int, default=300, help="CPU seconds before the run is ended")
    ap.add_argument("--json", type=Path, default=None, help="where the JSON record goes")
    args = ap.parse_args()
    print(f"{args.page}?{args.query}")
    with Run("bench_request", COLUMNS, 1, args.json, meta={"page": args.page, "query": args.query,
                                                           "cpu_limit": args.cpu_limit}) as record:
        r = one_request(args.page, args.query, args.cpu_limit)
        if r.get("killed"):
            record.row(outcome=f"killed ({r['returncode']})", cpu=r["cpu"], rss=r["rss"], stderr=r["stderr"])
            print(f"  after {r['cpu']:.0f} s CPU (limit {args.cpu_limit} s, imports included)\n{r['stderr']}")
            return
        record.row(outcome="ran", cpu=r["cpu"], wall=r["wall"], rss=r["rss"], said=r["said"])
    for s in r["said"]:
        print("  " + s[:300])


if __name__ == "__main__":
    main()

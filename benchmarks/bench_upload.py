"""Upload parsing: ``svmviz.data.load_dataset`` against ``pandas.read_csv`` on the same bytes.

    python benchmarks/bench_upload.py [--mb 50] [--reps 3] [--features 10]

A CSV of about ``--mb`` MB (a header, ``--features`` float columns with 17 significant digits, an
integer label column; seeded) is written to a temporary folder. Each parser runs ``--reps`` (≥ 3)
times in a fresh Python process (so one run's memory is not another's), the best process CPU time
and wall time are kept, and the peak resident set size of the process (``ru_maxrss``, which
includes the interpreter and the imports of each side) is reported. pandas is imported before the
clock starts on both sides (a Streamlit server has it loaded already). The peer is
``pandas.read_csv(path)`` with its defaults: the floor for a file read into a table. Ours also
decodes and checks the text, names a bad cell by row and column, and builds a ``Dataset``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Run  # noqa: E402

COLUMNS = [("parser", "parser", "{}", 24), ("cpu", "CPU s", "{:.2f}"), ("wall", "wall s", "{:.2f}"),
           ("rss", "peak RSS MB", "{:.2f}")]

RUNNER = r"""
import json, resource, sys, time
path, which = sys.argv[1], sys.argv[2]
import pandas  # loaded by Streamlit in the app: not part of a parse
if which == "svmviz":
    from svmviz.data import load_dataset
    parse = lambda: load_dataset(path)
else:
    import pandas as pd
    parse = lambda: pd.read_csv(path)
c0, w0 = time.process_time(), time.perf_counter()
out = parse()
cpu, wall = time.process_time() - c0, time.perf_counter() - w0
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"cpu": cpu, "wall": wall, "rss": rss, "rows": len(out.y) if which == "svmviz" else len(out)}))
"""


def write_csv(path: str, mb: float, n_features: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    row_bytes = 21 * n_features + 2  # "%.17g," is about 20 characters, a label, a line break
    n = int(mb * 2**20 / row_bytes)
    X = rng.normal(size=(n, n_features))
    y = rng.integers(0, 3, size=n)
    with open(path, "w") as fh:
        fh.write(",".join(f"x{j + 1}" for j in range(n_features)) + ",label\n")
        step = 50_000
        for i in range(0, n, step):
            block = np.column_stack([X[i:i + step], y[i:i + step]])
            np.savetxt(fh, block, delimiter=",", fmt=["%.17g"] * n_features + ["%d"])


def run(path: str, which: str) -> dict:
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    out = subprocess.run([sys.executable, "-c", RUNNER, path, which], capture_output=True,
                         text=True, check=True, env=env)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=float, default=50.0)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--features", type=int, default=10)
    ap.add_argument("--json", type=Path, default=None, help="where the JSON record goes")
    args = ap.parse_args()
    if args.reps < 3:
        ap.error("--reps must be at least 3 (best of >= 3)")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "upload.csv")
        write_csv(path, args.mb * 0.99, args.features)  # just under the upload limit
        size = os.path.getsize(path) / 2**20
        best = {}
        for _ in range(args.reps):  # interleaved, so a busy moment hits both sides
            for which in ("svmviz", "pandas"):
                r = run(path, which)
                b = best.setdefault(which, dict(r))
                for k in ("cpu", "wall", "rss"):
                    b[k] = min(b[k], r[k])
    print(f"{size:.1f} MB CSV, {best['svmviz']['rows']:,} rows × {args.features} features + label; "
          f"best of {args.reps}, one process per run")
    s, p = best["svmviz"], best["pandas"]
    rows = [("svmviz load_dataset", s), ("pandas.read_csv", p),
            ("ratio svmviz / pandas", {k: s[k] / p[k] for k in ("cpu", "wall", "rss")})]
    with Run("bench_upload", COLUMNS, args.reps, args.json,
             meta={"mb": round(size, 1), "rows": s["rows"], "features": args.features}) as record:
        for label, b in rows:
            record.row(parser=label, cpu=b["cpu"], wall=b["wall"], rss=b["rss"])


if __name__ == "__main__":
    main()

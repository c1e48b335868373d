"""SMO (Numba) against LIBSVM (sklearn.svm.SVC) over a grid of C, γ, kernel, n and d, in one process.

    python benchmarks/bench_smo.py --quick      # ~2 minutes: real sets, C ∈ {1, 100}, one γ
    python benchmarks/bench_smo.py              # the grid: C × γ × kernel × n × d and real sets
    python benchmarks/bench_smo.py --max-n 5000 # drop the largest synthetic n (time bound)
    python benchmarks/bench_smo.py --big        # only the largest sets (n = 100,000): long
    python benchmarks/bench_smo.py --big --big-n 50000 --big-d 10   # a smaller large cell
    python benchmarks/bench_smo.py --only "digits linear" --only "fourclass rbf 0.5 "  # some cells

Cells: C ∈ {0.1, 1, 10, 100, 1000} (quick: {1, 100}; linear cells with C = 1000 only with
``--linear-c1000``: LIBSVM itself needs minutes on some of them); RBF γ ∈ {0.1, 1, 10}/d (quick:
1/d) and the linear kernel; real sets fourclass (LIBSVM's fourclass_scale through
``svmviz.data.load_builtin``: $SVMVIZ_DATA_DIR or the download cache; skipped when absent), breast
cancer and digits (even vs odd), scaled to [−1, 1] per feature; synthetic make_classification sets
of n ∈ {2000, 10000} × d ∈ {2, 10, 50} with 10 % label noise (``--big``: n = ``--big-n``
(100,000: the library's scale, where the 200 MB cache holds about 500 of the 100,000 columns in
float32), d ∈ ``--big-d`` (10, 50), rbf γ = 1/d and linear, C = 1, many minutes per cell). Both solvers: tol 1e-3, shrinking, 200 MB
cache, same C and γ. Timing by ``harness.py``: process CPU time and wall time, best of
``--repeats`` (3) with the two solvers interleaved in this process, BLAS pinned to one thread, a JSON
record of the run beside the table; Numba's code is compiled and warmed up before any timing. Printed per cell:
CPU ratio smo/libsvm, wall ratio, the relative objective difference (LIBSVM's dual objective
recomputed from its dual coefficients; negative = ours lower), iterations, and whether our solve
converged; then the worst cell, the median ratio, the number of cells above 1.0× and of unconverged
runs, and the trace overhead (trace=True against trace=False).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness import Run, interleaved, pinned_blas  # noqa: E402
from sklearn.datasets import load_breast_cancer, load_digits, make_classification  # noqa: E402
from sklearn.svm import SVC  # noqa: E402

from svmviz.data import fourclass_path, load_builtin  # noqa: E402
from svmviz.kernels import Kernel  # noqa: E402
from svmviz.models.svc import BinarySVC, libsvm_dual_objective  # noqa: E402
from svmviz.solvers import QPProblem, solve_qp  # noqa: E402

C_GRID = (0.1, 1.0, 10.0, 100.0, 1000.0)
GAMMA_FACTORS = (0.1, 1.0, 10.0)


def _scale(X):
    lo, hi = X.min(axis=0), X.max(axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)
    return 2.0 * (X - lo) / span - 1.0


def real_sets():
    sets = {}
    if fourclass_path() is not None:  # never downloads: the benchmark runs offline
        ds = load_builtin("fourclass")
        sets["fourclass"] = (_scale(ds.X), ds.y)
    X, y = load_breast_cancer(return_X_y=True)
    sets["breast"] = (_scale(X), y)
    X, y = load_digits(return_X_y=True)
    sets["digits"] = (_scale(X), y % 2)
    return sets


def synthetic(n, d, seed=0):
    X, y = make_classification(n_samples=n, n_features=d, n_informative=min(d, max(2, d // 2)),
                               n_redundant=0, flip_y=0.1, class_sep=1.0, random_state=seed)
    return _scale(X), y


def cell(X, y, kernel, gamma, C, repeats):
    params = dict(C=C, kernel=kernel, gamma=gamma, tol=1e-3)
    best = interleaved({"libsvm": lambda: SVC(cache_size=200, **params).fit(X, y),
                        "smo": lambda: BinarySVC(cache_mb=200, **params).fit(X, y)}, repeats)
    svc, ours = best["libsvm"].result, best["smo"].result
    obj_sk = libsvm_dual_objective(svc, X)
    return {"cpu": best["smo"].cpu / best["libsvm"].cpu, "wall": best["smo"].wall / best["libsvm"].wall,
            "smo_s": best["smo"].cpu, "libsvm_s": best["libsvm"].cpu,
            "smo_wall_s": best["smo"].wall, "libsvm_wall_s": best["libsvm"].wall,
            "rel_obj": (ours.objective_ - obj_sk) / abs(obj_sk), "it": ours.n_iter_,
            "it_lib": int(svc.n_iter_[0]), "converged": ours.converged_}


def cell_label(name, kernel, gamma, C):
    """The text ``--only`` matches: "<data> <kernel> <gamma or -> <C> " (e.g. "fourclass rbf 0.5 100 ")."""
    gtxt = f"{gamma:.3g}" if kernel == "rbf" else "-"
    return f"{name} {kernel} {gtxt} {C:g} "


def grid(quick: bool, max_n: int, linear_c1000: bool, big: bool = False, big_n: int = 100_000,
         big_d: tuple[int, ...] = (10, 50)):
    if big:
        for d in big_d:
            X, y = synthetic(big_n, d)
            for kernel in ("rbf", "linear"):
                yield f"syn n={big_n} d={d}", X, y, kernel, 1.0 / d, 1.0
        return
    Cs = (1.0, 100.0) if quick else C_GRID
    gfs = (1.0,) if quick else GAMMA_FACTORS
    data = list(real_sets().items())
    if not quick:
        data += [(f"syn n={n} d={d}", synthetic(n, d)) for n in (2000, 10000) if n <= max_n
                 for d in (2, 10, 50)]
    else:
        data += [("syn n=2000 d=10", synthetic(2000, 10))]
    for name, (X, y) in data:
        d = X.shape[1]
        for kernel, gf in [("rbf", g) for g in gfs] + [("linear", 1.0)]:
            for C in Cs:
                if kernel == "linear" and C >= 1000 and not linear_c1000:
                    continue
                yield name, X, y, kernel, gf / d, C


def trace_overhead(repeats):
    """trace=True against trace=False on two cells (CPU time, best of ``repeats``)."""
    rows = []
    sets = real_sets()
    cases = [("breast", "rbf", 1.0), ("digits", "linear", 1.0)]
    if "fourclass" in sets:
        cases.insert(0, ("fourclass", "rbf", 1000.0))
    for name, kernel, C in cases:
        X, y = sets[name]
        g = 1.0 / X.shape[1]
        best = interleaved({
            "off": lambda: BinarySVC(C=C, kernel=kernel, gamma=g).fit(X, y),
            "on": lambda: BinarySVC(C=C, kernel=kernel, gamma=g, trace=True,
                                    max_trace=10**7).fit(X, y)}, repeats)
        m0, m1 = best["off"].result, best["on"].result
        assert np.array_equal(m0.alpha_, m1.alpha_)
        rows.append((name, kernel, C, m0.n_iter_, best["off"].cpu, best["on"].cpu))
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="a ~2-minute subset")
    ap.add_argument("--repeats", type=int, default=3, help="best of this many runs per solver")
    ap.add_argument("--max-n", type=int, default=10000, help="largest synthetic n in the grid")
    ap.add_argument("--linear-c1000", action="store_true", help="include linear cells with C = 1000")
    ap.add_argument("--big", action="store_true",
                    help="only the large synthetic sets (--big-n, --big-d), rbf and linear, C = 1")
    ap.add_argument("--big-n", type=int, default=100_000, help="samples of the --big sets")
    ap.add_argument("--big-d", type=int, nargs="+", default=[10, 50], help="features of the --big sets")
    ap.add_argument("--only", action="append", default=[], metavar="TEXT",
                    help='run only the cells whose label "<data> <kernel> <gamma or -> <C> " '
                         "contains TEXT (repeatable)")
    ap.add_argument("--no-trace-overhead", action="store_true",
                    help="skip the trace=True against trace=False measurement")
    ap.add_argument("--json", type=Path, default=None,
                    help="where the run's JSON record goes (default: test-artifacts/benchmarks/)")
    args = ap.parse_args(argv)
    with pinned_blas():
        _run(args)


COLUMNS = [("name", "data", "{}", 16), ("kernel", "kernel", "{}"), ("gamma_text", "gamma", "{}"),
           ("C", "C", "{:g}"), ("cpu", "cpu ratio", "{:.2f}"), ("wall", "wall ratio", "{:.2f}"),
           ("smo_s", "smo cpu s", "{:.3f}"), ("libsvm_s", "lib cpu s", "{:.3f}"),
           ("rel_obj", "rel obj", "{:.1e}"), ("it", "it smo", "{}"), ("it_lib", "it lib", "{}"),
           ("conv", "conv", "{}")]


def _run(args):
    X, y = synthetic(300, 5, seed=1)
    t0 = time.perf_counter()
    BinarySVC(gamma=0.2).fit(X, y)   # loads (or compiles) the cached Numba code: not timed below
    BinarySVC(kernel="linear", trace=True).fit(X, y)
    # the float32 cache's code (large n): loaded here, not in the first timed fit
    solve_qp(QPProblem.c_svm(2.0 * y - 1, 1.0, kernel=Kernel("rbf", 0.2), X=X), dense_mb=0,
             cache_dtype="float32")
    print(f"Numba load/compile + first solve: {time.perf_counter() - t0:.2f} s")
    rows = []
    meta = {"peer": "sklearn.svm.SVC (LIBSVM)", "cache_mb": 200, "tol": 1e-3}
    with Run("bench_smo", COLUMNS, args.repeats, args.json, meta) as run:
        for name, X, y, kernel, gamma, C in grid(args.quick, args.max_n, args.linear_c1000,
                                                 args.big, args.big_n, tuple(args.big_d)):
            if args.only and not any(t in cell_label(name, kernel, gamma, C) for t in args.only):
                continue
            r = cell(X, y, kernel, gamma, C, args.repeats)
            r.update(name=name, kernel=kernel, gamma=gamma, C=C, n=X.shape[0], d=X.shape[1],
                     gamma_text=f"{gamma:.3g}" if kernel == "rbf" else "-",
                     conv="yes" if r["converged"] else "NO")
            rows.append(r)
            run.row(**r)
        ratios = np.array([r["cpu"] for r in rows])
        walls = np.array([r["wall"] for r in rows])
        worst = rows[int(np.argmax(ratios))]
        print(f"\ncells: {len(rows)}; CPU ratio smo/libsvm median {np.median(ratios):.2f}, "
              f"worst {worst['cpu']:.2f} ({worst['name']}, {worst['kernel']}, C={worst['C']:g}"
              + (f", gamma={worst['gamma']:.3g}" if worst["kernel"] == "rbf" else "") + "); "
              f"wall ratio median {np.median(walls):.2f}, worst {walls.max():.2f}; "
              f"cells above 1.0x: {int(np.sum(ratios > 1.0))} (CPU), {int(np.sum(walls > 1.0))} "
              f"(wall); unconverged: {sum(not r['converged'] for r in rows)}; max relative "
              f"objective excess over LIBSVM: {max(r['rel_obj'] for r in rows):.1e}")
        run.note(median_cpu_ratio=float(np.median(ratios)), worst_cpu_ratio=float(ratios.max()),
                 median_wall_ratio=float(np.median(walls)), worst_wall_ratio=float(walls.max()))
        if args.no_trace_overhead:
            return
        print("\ntrace overhead (CPU time, best of 3):")
        over = []
        for name, kernel, C, it, off, on in trace_overhead(3):
            print(f"  {name} {kernel} C={C:g}: {it} iterations, trace off {off:.3f} s, on "
                  f"{on:.3f} s, factor {on / off:.2f}")
            over.append(dict(name=name, kernel=kernel, C=C, it=it, off_s=off, on_s=on))
        run.note(trace_overhead=over)


if __name__ == "__main__":
    main()

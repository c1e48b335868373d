"""SMO (Numba) against LIBSVM (sklearn.svm.SVC) and the cvxpy reference, in one process.

    python benchmarks/bench_smo.py                       # n = 1000 … 20000, rbf and linear
    python benchmarks/bench_smo.py --sizes 1000 2000 --kernels rbf

d = 10, C = 1, tol = 1e-3, RBF γ = 0.1 and the linear kernel, on make_classification with 10 %
label noise (many bounded support vectors: a non-trivial problem). Both solvers get the same
cache size (200 MB) and shrinking. Prints the time ratio smo/libsvm, the objective relative
difference (LIBSVM's dual objective recomputed from its dual coefficients) and iterations; the
first call (Numba compilation or loading from the on-disk cache) is timed separately. "ratio" is
wall-clock, "cpu rat" process CPU time (both solvers are single-threaded; on a shared machine CPU
time is the steadier of the two). Each time is the best of ``--repeats`` runs.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
from sklearn.datasets import make_classification
from sklearn.svm import SVC

from svmviz.kernels import Kernel
from svmviz.models.svc import BinarySVC, libsvm_dual_objective
from svmviz.solvers import QPProblem, solve_qp

SIZES = (1000, 2000, 5000, 10000, 20000)


def make_data(n: int, seed: int = 0):
    X, y = make_classification(n_samples=n, n_features=10, n_informative=6, n_redundant=2,
                               flip_y=0.1, class_sep=1.0, random_state=seed)
    return X, y


def bench(n: int, kernel_name: str, repeats: int, cvxpy_max: int) -> dict:
    X, y = make_data(n)
    gamma = 0.1
    kern = Kernel(kernel_name, gamma)
    t_sk, t_smo, c_sk, c_smo = [], [], [], []
    for _ in range(repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        svc = SVC(C=1.0, kernel=kernel_name, gamma=gamma, tol=1e-3, cache_size=200).fit(X, y)
        t_sk.append(time.perf_counter() - t0)
        c_sk.append(time.process_time() - c0)
        t0, c0 = time.perf_counter(), time.process_time()
        ours = BinarySVC(C=1.0, kernel=kernel_name, gamma=gamma, tol=1e-3, solver="smo",
                         cache_mb=200).fit(X, y)
        t_smo.append(time.perf_counter() - t0)
        c_smo.append(time.process_time() - c0)
    obj_sk = libsvm_dual_objective(svc, X)
    row = {"n": n, "kernel": kernel_name, "smo_s": min(t_smo), "libsvm_s": min(t_sk),
           "ratio": min(t_smo) / min(t_sk), "cpu_ratio": min(c_smo) / min(c_sk),
           "obj_smo": ours.objective_, "obj_libsvm": obj_sk,
           "rel_obj": abs(ours.objective_ - obj_sk) / abs(obj_sk), "iter_smo": ours.n_iter_,
           "iter_libsvm": int(svc.n_iter_[0]), "nsv_smo": ours.support_.size,
           "nsv_libsvm": svc.support_.size, "cvxpy_s": np.nan, "rel_obj_cvxpy": np.nan}
    if n <= cvxpy_max:
        y_pm = np.where(y == ours.classes_[1], 1.0, -1.0)
        t0 = time.perf_counter()
        ref = solve_qp(QPProblem.c_svm(y_pm, 1.0, kernel=kern, X=X), backend="cvxpy",
                       max_n=cvxpy_max)
        row["cvxpy_s"] = time.perf_counter() - t0
        row["rel_obj_cvxpy"] = abs(ours.objective_ - ref.objective) / abs(ref.objective)
    return row


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    ap.add_argument("--kernels", nargs="+", default=["rbf", "linear"], choices=["rbf", "linear"])
    ap.add_argument("--repeats", type=int, default=2, help="best of this many runs per solver")
    ap.add_argument("--cvxpy-max", type=int, default=2000)
    args = ap.parse_args(argv)

    # compilation from scratch, in a child process with an empty Numba cache
    with tempfile.TemporaryDirectory() as cache_dir:
        code = ("import time; t = time.perf_counter(); from svmviz.models.svc import BinarySVC; "
                "from sklearn.datasets import make_classification as m; X, y = m(200, random_state=1); "
                "t1 = time.perf_counter(); BinarySVC(gamma=0.1).fit(X, y); "
                "print(time.perf_counter() - t1)")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env=dict(os.environ, NUMBA_CACHE_DIR=cache_dir), check=True)
        print(f"compile from an empty Numba cache (+ solve, n=200): {float(out.stdout):.2f} s")
    # first call in this process: loading the cached machine code plus a tiny solve
    X, y = make_data(200, seed=1)
    t0 = time.perf_counter()
    BinarySVC(kernel="rbf", gamma=0.1).fit(X, y)
    first = time.perf_counter() - t0
    t0 = time.perf_counter()
    BinarySVC(kernel="rbf", gamma=0.1).fit(X, y)
    BinarySVC(kernel="rbf", gamma=0.1, cache_mb=1).fit(X, y)
    warm = time.perf_counter() - t0
    SVC(gamma=0.1).fit(X, y)
    print(f"first call here (load the cached code + solve, n=200): {first:.2f} s; "
          f"warm call: {warm / 2:.4f} s")

    head = (f"{'kernel':>7} {'n':>6} {'smo s':>8} {'libsvm s':>9} {'ratio':>6} {'cpu rat':>7} "
            f"{'rel obj':>9} "
            f"{'it smo':>8} {'it libsvm':>9} {'#SV smo':>8} {'#SV lib':>8} {'cvxpy s':>8} "
            f"{'rel obj cvx':>11}")
    print(head)
    print("-" * len(head))
    for kernel_name in args.kernels:
        for n in args.sizes:
            r = bench(n, kernel_name, args.repeats, args.cvxpy_max)
            print(f"{r['kernel']:>7} {r['n']:>6} {r['smo_s']:>8.3f} {r['libsvm_s']:>9.3f} "
                  f"{r['ratio']:>6.2f} {r['cpu_ratio']:>7.2f} {r['rel_obj']:>9.2e} {r['iter_smo']:>8} "
                  f"{r['iter_libsvm']:>9} {r['nsv_smo']:>8} {r['nsv_libsvm']:>8} "
                  f"{r['cvxpy_s']:>8.2f} {r['rel_obj_cvxpy']:>11.2e}", flush=True)


if __name__ == "__main__":
    main()

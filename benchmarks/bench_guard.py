"""Seed 001 Table 1 and Table 2, reproduced: guard vectors (one or two LPs per point) against one
QP on all points.

    python benchmarks/bench_guard.py            # Table 1 (n = 2, 3, 5; m = 50…800) + breast cancer
    python benchmarks/bench_guard.py --quick    # m ≤ 200

For every hypercube set ([0,40]ⁿ against [60,100]ⁿ, svmviz.data.generators.hypercubes): guard
vectors g (seed LP with the hull pre-filter), support vectors s, g/s, the LP time, the QP on the
guard vectors, and the QP on all points with our SMO, the cvxpy reference and LIBSVM
(sklearn.svm.SVC), plus the identical-hyperplane check (guard-vector SVM against the SMO on all
points, w and b to 1e-6 relative). Times are wall-clock on a shared machine: compare ratios.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sklearn.datasets import load_breast_cancer  # noqa: E402
from sklearn.svm import SVC  # noqa: E402

from svmviz.data.generators import hypercubes  # noqa: E402
from svmviz.geometry import hulls_intersect  # noqa: E402
from svmviz.models.guard import GuardVectorSVC  # noqa: E402
from svmviz.models.svc import BinarySVC  # noqa: E402

C = 1e6   # hard margin (the seed used C = 1000 on separable data: the same solution)
TOL = 1e-8

# Seed 001 Table 1: (n, m) -> (cpu proposed s, g, cpu QP s, s)
SEED_T1 = {(2, 50): (1.96, 3, 1.63, 2), (2, 100): (5.61, 4, 8.50, 3), (2, 200): (18.4, 4, 187.2, 3),
           (2, 400): (64.57, 8, 2326.69, 5), (2, 800): (243.19, 11, 45633.23, 6),
           (3, 50): (2.23, 16, 1.91, 3), (3, 100): (6.31, 29, 11.9, 6), (3, 200): (20.73, 35, 307.85, 14),
           (3, 400): (70.64, 46, 3717.81, 23),
           (5, 50): (2.6, 40, 1.84, 2), (5, 100): (7.2, 61, 19.18, 4), (5, 200): (23.41, 130, 178.51, 12),
           (5, 400): (78.10, 181, 1885.75, 10)}

# the g/s column as printed in the seed (not always g divided by s there)
SEED_RATIO = {(2, 50): 1.5, (2, 100): 1.3, (2, 200): 1.3, (2, 400): 1.6, (2, 800): 1.9, (3, 50): 5.3,
              (3, 100): 4.8, (3, 200): 2.5, (3, 400): 2.0, (5, 50): 12.0, (5, 100): 15.3, (5, 200): 10.8,
              (5, 400): 18.1}


def _timed(f):
    t0 = time.perf_counter()
    out = f()
    return out, time.perf_counter() - t0


def _same(w1, b1, w2, b2, rtol=1e-6):
    return bool(np.linalg.norm(w1 - w2) <= rtol * np.linalg.norm(w2) and abs(b1 - b2) <= rtol * max(1.0, abs(b2)))


def table1(ms, ns, seed=0):
    rows = []
    for n in ns:
        for m in ms:
            d = hypercubes(m, n, seed=seed)
            gv = GuardVectorSVC(C=C, tol=TOL).fit(d.X, d.y)
            full, t_smo = _timed(lambda: BinarySVC(kernel="linear", C=C, tol=TOL).fit(d.X, d.y))
            with warnings.catch_warnings():  # timed only; Clarabel reports "inaccurate" at C = 1e6
                warnings.simplefilter("ignore")
                _, t_cvx = _timed(lambda: BinarySVC(kernel="linear", C=C, solver="cvxpy").fit(d.X, d.y))
            lib, t_lib = _timed(lambda: SVC(kernel="linear", C=C, tol=1e-6).fit(d.X, d.y))
            a = np.abs(full.dual_coef_[0])
            s = int((a > 1e-8 * a.max()).sum())
            g = int(gv.guard_vectors_.sum())
            same = _same(gv.coef_[0], gv.intercept_[0], full.coef_[0], full.intercept_[0])
            same_lib = _same(gv.coef_[0], gv.intercept_[0], lib.coef_[0], lib.intercept_[0], 1e-3)
            rows.append(dict(n=n, m=m, g=g, s=s, gs=g / s, lps=gv.n_lps_, tested=int(gv.tested_.sum()),
                             lp=gv.lp_time_, qp_g=gv.qp_time_, smo=t_smo, cvx=t_cvx, lib=t_lib,
                             same=same, same_lib=same_lib, superset=set(full.support_[a > 1e-8 * a.max()])
                             <= set(np.flatnonzero(gv.guard_vectors_))))
            r = rows[-1]
            print(f"  done n={n} m={m}: g={g} s={s} LP {r['lp']:.2f}s", flush=True)
    return rows


def print_table1(rows):
    print("\nTable 1 — hypercubes [0,40]^n vs [60,100]^n (ours | seed 001, MATLAB on a Sun Ultra 10)")
    hdr = (f"{'n':>2} {'m':>4} | {'g':>4} {'s':>3} {'g/s':>5} {'LPs':>5} {'LP s':>7} {'QP(g) s':>8} "
           f"{'smo s':>7} {'cvxpy s':>8} {'libsvm s':>8} {'same w,b':>8} {'g⊇s':>4} | "
           f"{'seed g':>6} {'seed s':>6} {'seed g/s':>8} {'seed LP+QP s':>12} {'seed QP s':>9}")
    print(hdr)
    print("-" * len(hdr))
    for r in rows:
        sd = SEED_T1.get((r["n"], r["m"]))
        seed = (f"{sd[1]:>6} {sd[3]:>6} {SEED_RATIO[(r['n'], r['m'])]:>8.1f} {sd[0]:>12.2f} {sd[2]:>9.2f}" if sd
                else f"{'—':>6} {'—':>6} {'—':>8} {'—':>12} {'—':>9}")  # noqa: E501
        print(f"{r['n']:>2} {r['m']:>4} | {r['g']:>4} {r['s']:>3} {r['gs']:>5.1f} {r['lps']:>5} "
              f"{r['lp']:>7.3f} {r['qp_g']:>8.4f} {r['smo']:>7.4f} {r['cvx']:>8.3f} {r['lib']:>8.4f} "
              f"{'yes' if r['same'] else 'NO':>8} {'yes' if r['superset'] else 'NO':>4} | {seed}")
    print("\nRatios (ours): LP time / LIBSVM time on all points, LP time / our SMO on all points")
    for r in rows:
        print(f"  n={r['n']} m={r['m']:>4}: LP/LIBSVM = {r['lp'] / r['lib']:8.1f}   "
              f"LP/SMO = {r['lp'] / r['smo']:8.1f}   cvxpy/SMO = {r['cvx'] / r['smo']:7.1f}   "
              f"seed (LP+QP)/QP = {SEED_T1[(r['n'], r['m'])][0] / SEED_T1[(r['n'], r['m'])][2]:.3f}"
              if (r["n"], r["m"]) in SEED_T1 else
              f"  n={r['n']} m={r['m']:>4}: LP/LIBSVM = {r['lp'] / r['lib']:8.1f}   LP/SMO = {r['lp'] / r['smo']:8.1f}")


def breast_cancer():
    X, y = load_breast_cancer(return_X_y=True)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    y = np.where(y == 1, 1, -1)
    print(f"\nTable 2's role — scikit-learn breast cancer (Wisconsin diagnostic): {X.shape[0]} points × "
          f"{X.shape[1]} features, standardised (the seed used the 699 × 9 original Wisconsin set).")
    inter, t_h = _timed(lambda: hulls_intersect(X[y > 0], X[y < 0]))
    print(f"  do the classes' convex hulls meet? LP says {inter.intersect} ({t_h:.2f} s): the set is "
          + ("NOT linearly separable" if inter.intersect else "linearly separable (in 30 dimensions)"))
    # d = 30 > 8: no hull pre-filter. The margin is tiny (‖w‖ ≈ 700, α up to ~6e4): the hard-margin
    # QP is ill-conditioned, so the reference backend decides the identical-hyperplane check.
    gv = GuardVectorSVC(C=C, method="single", solver="cvxpy").fit(X, y)
    ref, t_cvx = _timed(lambda: BinarySVC(kernel="linear", C=C, solver="cvxpy").fit(X, y))
    smo, t_smo = _timed(lambda: BinarySVC(kernel="linear", C=C, tol=1e-3).fit(X, y))
    lib, t_lib = _timed(lambda: SVC(kernel="linear", C=C).fit(X, y))
    a = np.abs(ref.dual_coef_[0])
    s = int((a > 1e-6 * a.max()).sum())
    g = int(gv.guard_vectors_.sum())
    same = _same(gv.coef_[0], gv.intercept_[0], ref.coef_[0], ref.intercept_[0])
    rel = lambda mdl: np.linalg.norm(mdl.coef_[0] - ref.coef_[0]) / np.linalg.norm(ref.coef_[0])  # noqa: E731
    print(f"  ours: g = {g}, s = {s} (cvxpy, α > 1e-6·max), g/s = {g / s:.1f}; {gv.n_lps_} LPs in "
          f"{gv.lp_time_:.2f} s, cvxpy QP on the guard vectors {gv.qp_time_:.3f} s; hard margin: {gv.hard_margin_}")
    print(f"  identical hyperplane (guard-vector SVM against the SVM on all points, cvxpy, 1e-6 rel.): "
          f"{'yes' if same else 'NO'} (‖Δw‖/‖w‖ = {rel(gv):.1e})")
    print(f"  QP on all points: cvxpy {t_cvx:.3f} s; our SMO (tol 1e-3) {t_smo:.3f} s, converged {smo.converged_}, "
          f"‖Δw‖/‖w‖ = {rel(smo):.1e}; LIBSVM {t_lib:.3f} s, {len(lib.support_)} SVs, ‖Δw‖/‖w‖ = {rel(lib):.1e}")
    print(f"  LP time / cvxpy QP on all points = {gv.lp_time_ / t_cvx:.1f}; "
          f"LP time / LIBSVM = {gv.lp_time_ / t_lib:.1f}")
    print("  seed Table 2 (699 × 9): g = 317, s = 52, g/s = 6.1, proposed 99.02 s against QP 3572.91 s")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="m ≤ 200 only")
    args = ap.parse_args()
    ms = [50, 100, 200] if args.quick else [50, 100, 200, 400, 800]
    # warm up the Numba SMO (compiled once, cached) so it is not timed
    BinarySVC(kernel="linear", C=C).fit(*(lambda d: (d.X, d.y))(hypercubes(20, 2)))
    rows = table1(ms, [2, 3, 5])
    print_table1(rows)
    breast_cancer()
    print("""
Why the time picture differs from the seed's: the seed's QP was a general MATLAB QP on the full
m×m matrix on a Sun Ultra 10 (1999), whose cost grew roughly cubically (45,633 s at m = 800, n = 2),
while its LPs grew gently; today a decomposition solver (LIBSVM's SMO, ours) solves these small
separable problems in milliseconds — only a handful of points are support vectors and SMO touches
little more than them — whereas m (or 2m) LPs through SciPy's HiGHS each pay a fixed set-up cost of
about a millisecond. So on modern solvers the guard-vector step is slower than one QP on all points;
what carries over is the structure: g ⊇ s always, g grows with n, and the SVM on the guard vectors
is identical to the SVM on all points. Our g is larger than the seed's in 2-D and our s smaller
(2–5: a hard-margin SVM in general position needs at most n+1 support vectors; the seed's s of 14
and 23 at n = 3 suggest it counted numerically small α as support vectors), so our g/s runs higher.
The pre-filter (hull boundary points only) skips most points in 2-D and 3-D (the LPs column).""")


if __name__ == "__main__":
    main()

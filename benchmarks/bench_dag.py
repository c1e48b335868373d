"""Reproduce seed 003's Tables 1–3: DAG SVM vs weighted DAG SVM (WDAG), our numbers beside the seed's.

    python benchmarks/bench_dag.py [--reps 20] [--C 1] [--gamma scale] [--kernel rbf] [--solver smo]

Protocol (the seed gives no kernel, C, split procedure or noise model; these are ours):
- Every SVM (DAG and WDAG alike, every pair, every cluster): the same kernel, C and gamma
  (default RBF, C = 1, gamma = "scale" resolved on the training part), the SMO solver, DAG list
  [0, 1, 2]. WDAG: N = 3 K-Means clusters (random_state = repetition), weights either the normal
  density ("gauss") or the seed's eq. 12 as printed ("eq12").
- Accuracy: ``--reps`` repeated stratified random splits with the seed's train/test sizes; we print
  mean ± std over the splits (%) and how many splits WDAG wins / ties / loses against DAG.
- Table 1: Data1–Data4 = ``svmviz.data.generators.interlaced(level)`` (3 classes × 50, seed 0),
  110 training / 40 test samples (the seed tests on 40 of the 150).
- Table 2: iris (120/30 and 90/60) and wine (122/56) from scikit-learn. "+10 % / +20 % noise":
  Gaussian noise with standard deviation 0.10 / 0.20 × the training standard deviation of each
  feature is added to every test point (training points stay clean). Features are standardised
  with the training mean/std (fitted before the noise, applied to the noisy test points).
- Table 3: training time (fit only, best of ``--time-reps``) of DAG and WDAG on Data1 with
  1,500 points (500 per class) and Data2 with 6,000 points (2,000 per class), 70 % / 75 %
  for training (1,050 and 4,500 as in the seed), plus iris (120) and wine (122); the test
  accuracy of that split is shown as well. Timed with SMO and with the cvxpy reference (an
  interior-point QP whose cost grows much faster than linearly with n, closer to the seed's
  "O(m³)" argument; the cvxpy rows stop at Data1 because Data2's pairs are too large for it).
  Numba is warmed up before timing.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.datasets import load_iris, load_wine
from sklearn.model_selection import StratifiedShuffleSplit

from svmviz.data.generators import interlaced
from svmviz.models.dag import DAGSVC, WeightedDAGSVC

SEED_T1 = {1: (100, 100), 2: (96, 100), 3: (96, 100), 4: (69, 98)}
SEED_T2 = [("iris", 120, 30, 0.0, 100, 100), ("iris", 120, 30, 0.1, 95, 98.33),
           ("iris", 120, 30, 0.2, 91.67, 95.33), ("iris", 90, 60, 0.0, 93.67, 98.33),
           ("iris", 90, 60, 0.1, 80.67, 90.33), ("iris", 90, 60, 0.2, 78.33, 83.67),
           ("wine", 122, 56, 0.0, 82.14, 98.21)]
SEED_T3 = {"Data1": (1050, 4.11, 1.13), "Data2": (4500, 201.4, 23.84), "iris": (120, 2.89, 1.35),
           "wine": (122, 2.34, 0.64)}


def _models(args, rep):
    svm = dict(kernel=args.kernel, C=args.C, gamma=args.gamma, solver=args.solver)
    return {"DAG": DAGSVC(**svm),
            "WDAG gauss": WeightedDAGSVC(n_clusters=3, weight="gaussian", random_state=rep, **svm),
            "WDAG eq12": WeightedDAGSVC(n_clusters=3, weight="seed", random_state=rep, **svm)}


def _standardise(Xtr, Xte):
    mu, sd = Xtr.mean(axis=0), Xtr.std(axis=0)
    sd = np.where(sd > 0, sd, 1.0)
    return (Xtr - mu) / sd, (Xte - mu) / sd


def evaluate(X, y, n_train, n_test, noise, args, standardise=False):
    """Accuracy (%) per model over ``args.reps`` stratified splits; noise as in the docstring."""
    acc = {k: [] for k in _models(args, 0)}
    splitter = StratifiedShuffleSplit(n_splits=args.reps, train_size=n_train, test_size=n_test, random_state=0)
    rng = np.random.default_rng(12345)
    for rep, (tr, te) in enumerate(splitter.split(X, y)):
        Xtr, Xte = X[tr], X[te].copy()
        if noise > 0:
            Xte += rng.normal(0.0, 1.0, Xte.shape) * (noise * Xtr.std(axis=0))
        if standardise:
            Xtr, Xte = _standardise(Xtr, Xte)
        for name, m in _models(args, rep).items():
            acc[name].append(100 * np.mean(m.fit(Xtr, y[tr]).predict(Xte) == y[te]))
    return {k: np.array(v) for k, v in acc.items()}


def _ms(a):
    return f"{a.mean():6.2f} ± {a.std():5.2f}"


def _wtl(w, d):
    return f"{int(np.sum(w > d))}/{int(np.sum(w == d))}/{int(np.sum(w < d))}"


def table1(args):
    print("\nTable 1 — Data1–Data4 (3 classes × 50, 110 train / 40 test), N = 3; accuracy % "
          f"(mean ± std over {args.reps} stratified splits)")
    print(f"{'data':6} | {'seed DAG':>8} {'seed WDAG':>9} | {'our DAG':>15} {'our WDAG gauss':>15} "
          f"{'our WDAG eq12':>15} | WDAG gauss vs DAG win/tie/loss")
    for level in (1, 2, 3, 4):
        ds = interlaced(level)
        acc = evaluate(ds.X, ds.y, 110, 40, 0.0, args)
        s = SEED_T1[level]
        print(f"Data{level:<2} | {s[0]:8.2f} {s[1]:9.2f} | {_ms(acc['DAG']):>15} {_ms(acc['WDAG gauss']):>15} "
              f"{_ms(acc['WDAG eq12']):>15} | {_wtl(acc['WDAG gauss'], acc['DAG'])}")


def table2(args):
    print("\nTable 2 — iris and wine, N = 3; test noise: N(0, (f·σ_j)²) added to feature j of every "
          "test point, σ_j = training std of feature j; features standardised on the training part; "
          f"accuracy % (mean ± std over {args.reps} stratified splits)")
    print(f"{'data':5} {'train':>5} {'test':>12} | {'seed DAG':>8} {'seed WDAG':>9} | {'our DAG':>15} "
          f"{'our WDAG gauss':>15} {'our WDAG eq12':>15} | WDAG gauss vs DAG win/tie/loss")
    sets = {"iris": load_iris(return_X_y=True), "wine": load_wine(return_X_y=True)}
    for name, ntr, nte, noise, sd, sw in SEED_T2:
        X, y = sets[name]
        acc = evaluate(np.asarray(X, dtype=float), y, ntr, nte, noise, args, standardise=True)
        test = f"{nte}" + (f"+{int(100 * noise)}% noise" if noise else "")
        print(f"{name:5} {ntr:5d} {test:>12} | {sd:8.2f} {sw:9.2f} | {_ms(acc['DAG']):>15} "
              f"{_ms(acc['WDAG gauss']):>15} {_ms(acc['WDAG eq12']):>15} | "
              f"{_wtl(acc['WDAG gauss'], acc['DAG'])}")


def _best_time(make, X, y, reps):
    best, model = np.inf, None
    for _ in range(reps):
        m = make()
        t0 = time.perf_counter()
        m.fit(X, y)
        best = min(best, time.perf_counter() - t0)
        model = m
    return best, model


def table3(args):
    print(f"\nTable 3 — training time in seconds (fit only, best of {args.time_reps}); 'WDAG SVMs' is "
          "the part of WDAG spent in its clusters' SVMs (the rest is K-Means and the Gaussians); "
          "test accuracy of the same split")
    print(f"{'data':6} {'train':>6} {'solver':>6} | {'seed DAG':>8} {'seed WDAG':>9} {'ratio':>6} | "
          f"{'our DAG':>8} {'our WDAG':>8} {'ratio':>6} {'WDAG SVMs':>9} | {'acc DAG':>7} {'acc WDAG':>8}")
    iris, wine = load_iris(return_X_y=True), load_wine(return_X_y=True)
    d1, d2 = interlaced(1, n_per_class=500), interlaced(2, n_per_class=2000)
    cases = {"Data1": (d1.X, d1.y, 1050), "Data2": (d2.X, d2.y, 4500),
             "iris": (np.asarray(iris[0], float), iris[1], 120), "wine": (np.asarray(wine[0], float), wine[1], 122)}
    for solver in args.time_solvers.split(","):
        svm = dict(kernel=args.kernel, C=args.C, gamma=args.gamma, solver=solver)
        DAGSVC(**svm).fit(*cases["iris"][:2])  # warm up (Numba compilation, cvxpy import)
        for name, (X, y, ntr) in cases.items():
            if solver == "cvxpy" and ntr > 1500:
                print(f"{name:6} {ntr:6d} {solver:>6} | skipped: pairs of {2 * ntr // 3} samples are too "
                      "large for the dense cvxpy reference")
                continue
            tr, te = next(StratifiedShuffleSplit(1, train_size=ntr, random_state=0).split(X, y))
            Xtr, Xte = _standardise(X[tr], X[te]) if name in ("iris", "wine") else (X[tr], X[te])
            td, dag = _best_time(lambda: DAGSVC(**svm), Xtr, y[tr], args.time_reps)
            tw, wdag = _best_time(lambda: WeightedDAGSVC(n_clusters=3, random_state=0, **svm), Xtr, y[tr],
                                  args.time_reps)
            t_svm = sum(m.fit_time_ for m in wdag.cluster_models_ if m is not None)
            s = SEED_T3[name]
            print(f"{name:6} {ntr:6d} {solver:>6} | {s[1]:8.2f} {s[2]:9.2f} {s[1] / s[2]:5.1f}x | {td:8.3f} "
                  f"{tw:8.3f} {td / tw:5.2f}x {t_svm:9.3f} | {100 * dag.score(Xte, y[te]):7.2f} "
                  f"{100 * wdag.score(Xte, y[te]):8.2f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--time-reps", type=int, default=3)
    ap.add_argument("--C", type=float, default=1.0)
    ap.add_argument("--gamma", default="scale")
    ap.add_argument("--kernel", default="rbf")
    ap.add_argument("--solver", default="smo")
    ap.add_argument("--time-solvers", default="smo,cvxpy", help="backends timed in Table 3")
    ap.add_argument("--tables", default="123")
    args = ap.parse_args()
    if args.gamma not in ("scale", "auto"):
        args.gamma = float(args.gamma)
    print(f"seed 003 reproduction: kernel={args.kernel}, C={args.C:g}, gamma={args.gamma}, "
          f"solver={args.solver}, DAG list [0, 1, 2], WDAG N = 3")
    for t, fn in (("1", table1), ("2", table2), ("3", table3)):
        if t in args.tables:
            fn(args)


if __name__ == "__main__":
    main()

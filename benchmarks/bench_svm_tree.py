"""Seed 000 on real fourclass, over many splits: accuracy and hyperplanes next to the seed's
Tables 5.5 / 5.6 and a tuned RBF SVM, the Table 4.1 heuristics as a distribution, and the fit
time against the SVM tree of an earlier commit (issue 14).

    python benchmarks/bench_svm_tree.py [--splits 10] [--quick] [--baseline REV] [--no-speed]

Splits as the seed: stratified, 1/3 training, 2/3 test, random_state 0 … splits−1. Fourclass is
read from $SVMVIZ_DATA_DIR, else ../shared/data. Normalization (none / Std-Dev / Min-Max) uses
the training part's statistics. Times are process CPU time (time.process_time), best of 3,
baseline and current interleaved, same data and default parameters.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from sklearn.model_selection import GridSearchCV
from sklearn.svm import SVC

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("SVMVIZ_DATA_DIR", str(ROOT.parent / "shared" / "data"))

from svmviz.data import fourclass_path, load_builtin, normalize, train_test_split  # noqa: E402
from svmviz.models import SVMTreeClassifier  # noqa: E402

# Seed 000, Tables 5.5 / 5.6 (one split): test accuracy % and hyperplanes (RBF: SVs).
SEED = {"stddev": {"rbf": (87.06, 135), 0: (97.09, 7), 1: (95.95, 5)},
        "minmax": {"rbf": (80.58, 150), 0: (92.72, 16), 1: (96.44, 8)}}
# Table 4.1 (fourclass, one tree): 12 lines, 10 kept, 0 sign changes, 3 perpendiculars, first
# line H1-SVM with hard class −1.
SEED_T41 = {"lines": 12, "kept": 10, "sign": 0, "perp": 3}
NORMS = ("none", "stddev", "minmax")
RBF_GRID = {"C": 10.0 ** np.arange(-1, 4), "gamma": 10.0 ** np.arange(-2, 3.5, 0.5)}


class Progress:
    """A one-line progress bar on stderr."""

    def __init__(self, total: int, what: str):
        self.total, self.done, self.what, self.t0 = total, 0, what, time.perf_counter()

    def step(self, n: int = 1):
        self.done += n
        frac = self.done / self.total
        bar = "#" * int(30 * frac)
        sys.stderr.write(f"\r{self.what:<22s} [{bar:<30s}] {self.done}/{self.total} "
                         f"{time.perf_counter() - self.t0:6.1f} s")
        if self.done >= self.total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def splits(n: int):
    ds = load_builtin("fourclass")
    return [train_test_split(ds, test_size=2 / 3, seed=s) for s in range(n)]


def stats(v) -> str:
    v = np.asarray(v, dtype=np.float64)
    return f"{v.mean():6.2f} ± {v.std():5.2f} (min {v.min():6.2f})"


# ---------------------------------------------------------------------------- accuracy tables
def accuracy_tables(data, quick: bool):
    rules = ("exact",) if quick else ("paper", "exact")
    configs = [(norm, g1, rule, nl) for norm in NORMS for g1 in (0, 1) for rule in rules
               for nl in (False, True)]
    bar = Progress(len(configs) * len(data) + len(NORMS) * len(data), "accuracy grid")
    rows, t41 = {}, []
    for norm in NORMS:
        acc_rbf, n_sv = [], []
        for tr, te in data:
            Xtr, Xte = normalize(tr.X, te.X, norm)
            gs = GridSearchCV(SVC(kernel="rbf"), RBF_GRID, cv=5).fit(Xtr, tr.y)
            acc_rbf.append(100 * gs.score(Xte, te.y))
            n_sv.append(gs.best_estimator_.support_vectors_.shape[0])
            bar.step()
        rows[(norm, "rbf")] = (acc_rbf, n_sv, None)
    for norm, g1, rule, nl in configs:
        acc, planes, reach = [], [], []
        for tr, te in data:
            Xtr, Xte = normalize(tr.X, te.X, norm)
            m = SVMTreeClassifier(greedy_level=g1, ck_rule=rule,
                                  nonlinear={"k": 5} if nl else None).fit(Xtr, tr.y)
            acc.append(100 * m.score(Xte, te.y))
            planes.append(m.n_hyperplanes_)
            if nl:
                tree = m.trees_[0]
                reach.append(100 * np.mean(m.predict_depth(Xte) == tree.nonlinear.depth + 1))
            elif norm == "none":
                t41.append((g1, rule, m))
            bar.step()
        rows[(norm, g1, rule, nl)] = (acc, planes, reach or None)
    print(f"\nTest accuracy % over {len(data)} stratified 1/3–2/3 splits (random_state 0–{len(data) - 1}); "
          "hyperplanes kept after pruning; RBF node of §3.3 with k = 5 (share of test points reaching it)")
    print(f"{'normalization':14s}{'model':34s}{'accuracy mean ± std (worst)':>32s}{'hyperplanes':>14s}"
          f"{'reach %':>9s}   seed (one split)")
    for norm in NORMS:
        acc, n_sv, _ = rows[(norm, "rbf")]
        seed = SEED.get(norm, {}).get("rbf")
        print(f"{norm:14s}{'RBF SVM, C and γ by 5-fold CV':34s}{stats(acc):>32s}{np.mean(n_sv):>10.1f} SVs"
              f"{'':>9s}   {f'{seed[0]:.2f} % ({seed[1]} SVs, γ by CV)' if seed else ''}")
        for g1 in (0, 1):
            for rule in rules:
                for nl in (False, True):
                    acc, planes, reach = rows[(norm, g1, rule, nl)]
                    seed = SEED.get(norm, {}).get(g1) if not nl else None
                    name = f"tree g1={g1} ck_rule={rule}" + (" + RBF node" if nl else "")
                    print(f"{'':14s}{name:34s}{stats(acc):>32s}{np.mean(planes):>8.1f} ± {np.std(planes):3.1f}"
                          f"{np.mean(reach) if reach else float('nan'):>9.1f}   "
                          f"{f'{seed[0]:.2f} % ({seed[1]} hyperplanes)' if seed else ''}")
    return t41


# ---------------------------------------------------------------------------- Table 4.1
def table_41(data, t41):
    """The heuristics of every hyperplane (Table 4.1) as a distribution over the splits, for
    both greedy levels and both label conventions: ours (sorted labels: +1 is +1) and LIBSVM's
    (the first label in the file, −1 in fourclass_scale, becomes +1: the labels flip)."""
    print(f"\nTable 4.1 as a distribution over {len(data)} splits (no normalization): mean ± std "
          f"[min–max]; seed: {SEED_T41['lines']} lines, {SEED_T41['kept']} kept, "
          f"{SEED_T41['sign']} sign changes, {SEED_T41['perp']} perpendiculars, first line h with hard −1")
    print(f"{'labels':8s}{'g1':>3s} {'ck_rule':8s}{'lines':>22s}{'kept':>22s}{'sign changes':>22s}"
          f"{'perpendicular':>22s}{'first line h, hard −1':>24s}")

    def cell(v):
        v = np.asarray(v, dtype=np.float64)
        return f"{v.mean():5.1f} ± {v.std():4.1f} [{v.min():.0f}–{v.max():.0f}]"

    models = {}
    for g1, rule, m in t41:
        models.setdefault((g1, rule), []).append(m)
    for conv in ("ours", "LIBSVM"):
        for (g1, rule), ms in sorted(models.items()):
            if conv == "LIBSVM":   # refit with the labels flipped, on the same splits
                ms = [SVMTreeClassifier(greedy_level=g1, ck_rule=rule).fit(tr.X, -tr.y) for tr, _ in data]
            lines = [len(m.nodes_) for m in ms]
            kept = [m.n_hyperplanes_ for m in ms]
            sign = [sum(n.sign_changed and not n.perpendicular for n in m.nodes_) for m in ms]
            perp = [sum(n.perpendicular for n in m.nodes_) for m in ms]
            first = [bool(m.nodes_) and m.nodes_[0].solver == "h1-svm" and m.nodes_[0].hard_class == -1
                     for m in ms]
            print(f"{conv:8s}{g1:>3d} {rule:8s}{cell(lines):>22s}{cell(kept):>22s}{cell(sign):>22s}"
                  f"{cell(perp):>22s}{f'{sum(first)} of {len(first)}':>24s}")


# ---------------------------------------------------------------------------- fit time
_OLD_WORKER = r"""
import json, sys, time
import numpy as np
sys.path.insert(0, sys.argv[1])
from svmviz.data import load_builtin, train_test_split
from svmviz.models import SVMTreeClassifier
n = int(sys.argv[2])
ds = load_builtin("fourclass")
data = [train_test_split(ds, test_size=2 / 3, seed=s)[0] for s in range(n)]
SVMTreeClassifier().fit(data[0].X, data[0].y)  # compile
out = []
for tr in data:
    t = time.process_time()
    m = SVMTreeClassifier().fit(tr.X, tr.y)
    out.append([time.process_time() - t, len(m.nodes_)])
print(json.dumps(out))
"""


def baseline_tree(rev: str, dest: Path) -> Path:
    """A copy of today's svmviz with the SVM tree files of ``rev`` (so the solvers and
    everything else are the same; only the tree code differs)."""
    pkg = dest / "svmviz"
    shutil.copytree(ROOT / "svmviz", pkg, ignore=shutil.ignore_patterns("__pycache__"))
    for new in ("_svm_tree_nonlinear.py", "_svm_tree_explain.py", "_svm_tree_qp.py"):
        (pkg / "models" / new).unlink(missing_ok=True)
    for f in ("svmviz/models/svm_tree.py", "svmviz/models/_svm_tree_build.py",
              "svmviz/models/_svm_tree_records.py", "svmviz/geometry/zero_solution.py"):
        text = subprocess.run(["git", "show", f"{rev}:{f}"], cwd=ROOT, check=True,
                              capture_output=True, text=True).stdout
        (dest / f).write_text(text)
    return dest


def fit_speed(data, rev: str, rounds: int = 3):
    sha = subprocess.run(["git", "rev-parse", "--short", rev], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout.strip()
    trains = [tr for tr, _ in data]
    rules = ("exact", "paper")
    for rule in rules:
        SVMTreeClassifier(ck_rule=rule).fit(trains[0].X, trains[0].y)   # Numba compiles once
    best_old = np.full(len(trains), np.inf)
    best_new = {r: np.full(len(trains), np.inf) for r in rules}
    nodes_old, nodes_new = None, {}
    bar = Progress(rounds * (1 + len(rules)), "fit time")
    with tempfile.TemporaryDirectory() as tmp:
        path = baseline_tree(rev, Path(tmp))
        for _ in range(rounds):
            res = subprocess.run([sys.executable, "-c", _OLD_WORKER, str(path), str(len(trains))],
                                 check=True, capture_output=True, text=True, env=os.environ.copy())
            old = np.array(json.loads(res.stdout.strip().splitlines()[-1]))
            best_old = np.minimum(best_old, old[:, 0])
            nodes_old = old[:, 1]
            bar.step()
            for rule in rules:
                for i, tr in enumerate(trains):
                    t = time.process_time()
                    m = SVMTreeClassifier(ck_rule=rule).fit(tr.X, tr.y)
                    best_new[rule][i] = min(best_new[rule][i], time.process_time() - t)
                    nodes_new.setdefault(rule, np.zeros(len(trains)))[i] = len(m.nodes_)
                bar.step()
    print(f"\nFit time on the training part of each split (287 samples, no normalization, default "
          f"parameters), process CPU time, best of {rounds}, interleaved; baseline = the SVM tree "
          f"of commit {sha} (today's solvers)")
    print(f"{'split':>5s}{'baseline ms':>13s}{'lines':>7s}" +
          "".join(f"{f'{r} ms':>12s}{'lines':>7s}{'speed-up':>10s}" for r in rules))
    for i in range(len(trains)):
        print(f"{i:>5d}{1000 * best_old[i]:>13.1f}{nodes_old[i]:>7.0f}" +
              "".join(f"{1000 * best_new[r][i]:>12.1f}{nodes_new[r][i]:>7.0f}"
                      f"{best_old[i] / best_new[r][i]:>9.1f}×" for r in rules))
    for r in rules:
        ratio = best_old / best_new[r]
        print(f"ck_rule={r}: median speed-up {np.median(ratio):.1f}× (min {ratio.min():.1f}×, max "
              f"{ratio.max():.1f}×); total {1000 * best_old.sum():.0f} ms → {1000 * best_new[r].sum():.0f} ms")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--splits", type=int, default=10)
    ap.add_argument("--quick", action="store_true", help="3 splits, ck_rule exact only")
    ap.add_argument("--baseline", default="97568ed^",
                    help="git revision whose SVM tree the fit time is compared with")
    ap.add_argument("--no-speed", action="store_true")
    a = ap.parse_args(argv)
    if fourclass_path() is None:
        sys.exit("fourclass_scale not found: set SVMVIZ_DATA_DIR to the folder holding it")
    data = splits(3 if a.quick else a.splits)
    t41 = accuracy_tables(data, a.quick)
    table_41(data, t41)
    if not a.no_speed:
        fit_speed(data, a.baseline)


if __name__ == "__main__":
    main()

"""Classification time of the SVM tree of Zapién Arreola, Fehr and Burkhardt (2007) against
scikit-learn's RBF SVC, the paper's headline (Tables 5.1–5.10: RBF / tree classification time).

    SVMVIZ_DATA_DIR=<folder with fourclass_scale> python benchmarks/bench_svm_tree_speed.py \
        [--splits 5] [--points 1000000] [--repeats 3]

Fourclass: stratified 1/3 training, 2/3 test splits (random_state 1000, 1001, …), Std-Dev
normalization from the training part (Table 5.5's), the tree with default parameters against an
RBF SVC whose C and γ are chosen by 5-fold cross-validation on the same training part; both
classify the test part and 10⁶ points drawn uniformly over the range of the normalized data.
Digits (scikit-learn's 8 × 8 digits, 64 features, 10 classes; a stand-in for the paper's USPS):
one stratified half for training, the other for testing, Std-Dev; the one-vs-one tree (45 binary
trees, majority vote) against the tuned RBF SVC (LIBSVM's one-vs-one), classifying the test half
and the test half repeated 100 times. Times: process CPU and wall, best of ``repeats``, peers
interleaved, BLAS on one thread (``harness.py``); the tree is warmed (its compiled pass loaded)
before timing.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import GridSearchCV, train_test_split as sk_split
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from harness import Run, interleaved, pinned_blas  # noqa: E402
from svmviz.data import fourclass_path, load_builtin, normalize, train_test_split  # noqa: E402
from svmviz.models import SVMTreeClassifier  # noqa: E402

RBF_GRID = {"C": 10.0 ** np.arange(-1, 4), "gamma": 10.0 ** np.arange(-2, 3.5, 0.5)}
# RBF / tree classification-time ratios of the paper, (g1 = 0, g1 = 1), per table
PAPER_RATIOS = {"5.1 DNA Min-Max": (3.6, 3.7), "5.2 DNA Std-Dev": (3.66, 3.96),
                "5.3 Faces Std-Dev": (13.71, 12.8), "5.4 Faces Min-Max": (13.14, 13.23),
                "5.5 Fourclass Std-Dev": (3.6, 2.57), "5.6 Fourclass Min-Max": (1.6, 1.6),
                "5.7 Isolet Std-Dev": (5.54, 5.0), "5.8 Isolet Min-Max": (4.92, 8.07),
                "5.9 USPS Std-Dev": (4.28, 7.39), "5.10 USPS Min-Max": (5.93, 5.91)}
# the paper's accuracies beside them: Table 5.5 (fourclass Std-Dev) and 5.9 (USPS Std-Dev)
PAPER_ACC = {"fourclass": {"rbf": 87.06, "tree": 97.09}, "digits": {"rbf": 96.42, "tree": 93.24}}


def tuned_rbf(X, y) -> SVC:
    return GridSearchCV(SVC(kernel="rbf"), RBF_GRID, cv=5).fit(X, y).best_estimator_


def race(record, data: str, split, what: str, P, tree, rbf, repeats: int, acc):
    tree.predict(P[:10])   # the compiled pass loaded, as in a served model
    t = interleaved({"tree": lambda: tree.predict(P), "rbf": lambda: rbf.predict(P)}, repeats)
    same = float(np.mean(t["tree"].result == t["rbf"].result))
    record.row(data=data, split=split, points=what, n=len(P), planes=tree.n_hyperplanes_,
               svs=int(rbf.support_vectors_.shape[0]), tree_cpu=t["tree"].cpu, rbf_cpu=t["rbf"].cpu,
               cpu_ratio=t["rbf"].cpu / t["tree"].cpu, wall_ratio=t["rbf"].wall / t["tree"].wall,
               tree_acc=acc[0], rbf_acc=acc[1], agree=100 * same)
    return t["rbf"].cpu / t["tree"].cpu


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--splits", type=int, default=5)
    ap.add_argument("--points", type=int, default=1_000_000)
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args(argv)
    if fourclass_path() is None:
        sys.exit("fourclass_scale not found: set SVMVIZ_DATA_DIR to the folder holding it")
    cols = [("data", "data", "{}", 9), ("split", "split", "{}", 5), ("points", "points", "{}", 14),
            ("n", "n", "{:d}", 8), ("planes", "planes", "{:d}"), ("svs", "RBF SVs", "{:d}"),
            ("tree_cpu", "tree CPU s", "{:.4f}"), ("rbf_cpu", "RBF CPU s", "{:.4f}"),
            ("cpu_ratio", "RBF/tree CPU", "{:.1f}"), ("wall_ratio", "RBF/tree wall", "{:.1f}"),
            ("tree_acc", "tree acc %", "{:.2f}"), ("rbf_acc", "RBF acc %", "{:.2f}"),
            ("agree", "same label %", "{:.2f}")]
    ds = load_builtin("fourclass")
    rng = np.random.default_rng(0)
    ratios = {"fourclass test": [], "fourclass 10⁶": [], "digits test": [], "digits ×100": []}
    with pinned_blas(), Run("bench_svm_tree_speed", cols, a.repeats, meta=vars(a)) as record:
        for s in range(1000, 1000 + a.splits):
            tr, te = train_test_split(ds, test_size=2 / 3, seed=s)
            Xtr, Xte = normalize(tr.X, te.X, "stddev")
            tree = SVMTreeClassifier().fit(Xtr, tr.y)
            rbf = tuned_rbf(Xtr, tr.y)
            acc = (100 * tree.score(Xte, te.y), 100 * rbf.score(Xte, te.y))
            P = rng.uniform(Xtr.min(axis=0), Xtr.max(axis=0), size=(a.points, 2))
            ratios["fourclass test"].append(race(record, "fourclass", s, "test part", Xte, tree, rbf, a.repeats, acc))
            ratios["fourclass 10⁶"].append(race(record, "fourclass", s, f"{a.points:,} uniform", P, tree, rbf,
                                                a.repeats, acc))
        X, y = load_digits(return_X_y=True)
        Xtr, Xte, ytr, yte = sk_split(X, y, test_size=0.5, stratify=y, random_state=0)
        sc = StandardScaler().fit(Xtr)
        Xtr, Xte = sc.transform(Xtr), sc.transform(Xte)
        tree = SVMTreeClassifier().fit(Xtr, ytr)
        rbf = tuned_rbf(Xtr, ytr)
        acc = (100 * tree.score(Xte, yte), 100 * rbf.score(Xte, yte))
        ratios["digits test"].append(race(record, "digits", 0, "test half", Xte, tree, rbf, a.repeats, acc))
        ratios["digits ×100"].append(race(record, "digits", 0, "test half ×100", np.tile(Xte, (100, 1)), tree,
                                          rbf, a.repeats, acc))
        print("\nRBF / tree classification-time ratio (CPU, best of {}), median over the rows:".format(a.repeats))
        for k, v in ratios.items():
            print(f"  {k:16s} {np.median(v):7.1f}  (min {np.min(v):.1f}, max {np.max(v):.1f})")
        print("The paper's ratios (RBF / tree classification time, g1 = 0 and g1 = 1):")
        for k, (g0, g1) in PAPER_RATIOS.items():
            print(f"  Table {k:24s} {g0:6.2f} {g1:6.2f}")
        print(f"The paper's accuracies beside them: fourclass Std-Dev (Table 5.5) RBF {PAPER_ACC['fourclass']['rbf']} %, "
              f"tree {PAPER_ACC['fourclass']['tree']} %; USPS Std-Dev (Table 5.9) RBF {PAPER_ACC['digits']['rbf']} %, "
              f"tree {PAPER_ACC['digits']['tree']} %")
        record.note(ratios=ratios, paper_ratios=PAPER_RATIOS)


if __name__ == "__main__":
    main()

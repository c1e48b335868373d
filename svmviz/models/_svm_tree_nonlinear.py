"""The non-linear node of the SVM tree (Zapién Arreola, Fehr and Burkhardt 2007, §3.3).

The paper builds the linear chain, then moves a final RBF node "from the last node up the tree",
and insists the RBF SVM is trained on the entire training set. Where to put it: most test errors
of the linear chain happen at the nodes that leave out only a handful of samples ("slivers"),
so the RBF node goes before the first kept node that decides fewer than k
training samples. Its γ and C are chosen by cross-validation on the whole training set, scored
only on the held-out samples that reach the node — the samples it will actually decide.
"""

from __future__ import annotations

import numpy as np

from svmviz.models._svm_tree_build import chain_arrays, chain_predict
from svmviz.models._svm_tree_records import BinaryTree, NonlinearReport
from svmviz.models.composite import inner_fits
from svmviz.models.constraints import MAX_ITER, Gamma, Int, Number
from svmviz.models.svc import BinarySVC

NONLINEAR_DEFAULTS = {"k": 5, "C": None, "gamma": None, "cv": 5, "max_iter": None}
NONLINEAR_SPEC = {"k": Int(1, 10**9), "C": Number(0, 1e12, lo_open=True, none=True),
                  "gamma": Gamma(), "cv": Int(2, 100), "max_iter": MAX_ITER}
C_GRID = 10.0 ** np.arange(-1, 4)
GAMMA_FACTORS = 10.0 ** np.arange(-1, 3.5, 0.5)   # × γ_scale = 1 / (d · Var X)


def rbf_position(tree: BinaryTree, X, y, k: int) -> tuple[int, np.ndarray]:
    """(number of kept linear nodes before the RBF node, training samples each kept node
    decides in the pruned chain)."""
    kept = tree.kept()
    W, t, hc = chain_arrays(kept, X.shape[1])
    label, depth = chain_predict(X, W, t, hc, 0)
    decided = np.array([int(np.sum((depth == i + 1) & (label != 0))) for i in range(len(kept))],
                       dtype=np.int64)
    small = np.flatnonzero(decided < k)
    return (int(small[0]) if small.size else len(kept)), decided


def add_nonlinear(tree: BinaryTree, X, y, nl: dict, solver: str) -> None:
    """Place, tune and train the RBF node of §3.3 on ``tree`` (labels ±1)."""
    depth, decided = rbf_position(tree, X, y, int(nl["k"]))
    W, t, hc = chain_arrays(tree.kept(), X.shape[1])
    reach = chain_predict(X, W, t, hc, 0, n_linear=depth)[0] == 0
    gamma_scale = 1.0 / (X.shape[1] * X.var()) if X.var() > 0 else 1.0
    Cs = C_GRID if nl["C"] is None else np.array([float(nl["C"])])
    if nl["gamma"] is None:
        gammas = gamma_scale * GAMMA_FACTORS
    elif nl["gamma"] == "scale":
        gammas = np.array([gamma_scale])
    elif nl["gamma"] == "auto":
        gammas = np.array([1.0 / X.shape[1]])
    else:
        gammas = np.array([float(nl["gamma"])])
    cv = int(nl["cv"])
    if np.min(np.bincount((y > 0).astype(int), minlength=2)) < 2:  # too few to cross-validate
        Cs = Cs if nl["C"] is not None else np.array([1.0])
        gammas = gammas if nl["gamma"] is not None else np.array([gamma_scale])
    if len(Cs) * len(gammas) > 1:
        acc = _cv_accuracy(X, y, reach, Cs, gammas, cv)
        i, j = np.unravel_index(np.argmax(acc), acc.shape)  # first best: smallest C, then γ
    else:   # nothing to choose: no cross-validation, and a saved model holds no NaN table
        acc = np.empty((0, 0))
        i = j = 0
    with inner_fits():   # the tree collects svm.converged_ and warns once
        svm = BinarySVC(C=float(Cs[i]), kernel="rbf", gamma=float(gammas[j]), solver=solver,
                        max_iter=nl["max_iter"]).fit(X, y)
    tree.svm = svm
    tree.nonlinear = NonlinearReport(depth, int(nl["k"]), decided, int(reach.sum()), float(Cs[i]),
                                     float(gammas[j]), int(svm.support_vectors_.shape[0]), Cs,
                                     gammas, acc, cv)


def _cv_accuracy(X, y, reach, Cs, gammas, cv: int) -> np.ndarray:
    """Accuracy on held-out samples that reach the node (all held-out samples when none reach
    it), each fold's SVM trained on the rest of the whole training set (as §3.3 trains the
    node). The grid search uses LIBSVM (sklearn's SVC) for speed: the same C-SVM dual as the
    final node, which the project's solver trains."""
    # here, not at the top: a tree without the non-linear node (the default) needs neither
    from sklearn.model_selection import StratifiedKFold
    from sklearn.svm import SVC

    n_min = int(np.min(np.bincount((y > 0).astype(int))))
    folds = list(StratifiedKFold(n_splits=min(cv, n_min), shuffle=True,
                                 random_state=0).split(X, y))
    score = reach if reach.any() else np.ones(len(y), dtype=bool)
    correct = np.zeros((len(Cs), len(gammas)))
    for tr, te in folds:
        te = te[score[te]]
        if te.size == 0:
            continue
        for i, C in enumerate(Cs):
            for j, g in enumerate(gammas):
                pred = SVC(C=C, kernel="rbf", gamma=g).fit(X[tr], y[tr]).predict(X[te])
                correct[i, j] += np.sum(pred == y[te])
    return correct / max(int(score.sum()), 1)

"""SVM decision tree of linear SVMs (seed 000: Zapién, Fehr, Burkhardt 2007, chapters 3–4).

A chain of hyperplanes: each node labels the region on its non-hard side with the non-hard class
and passes the rest on; the last region takes the class that remains. Classification is a chain
of dot products, hence fast. The greedy construction, the zero-solution loop, the heuristics and
pruning live in ``_svm_tree_build``; the records of nodes and trace in ``_svm_tree_records``.
"""

from __future__ import annotations

import time
from itertools import combinations

import numpy as np

from svmviz.errors import ParameterError
from svmviz.export.registry import register_estimator
from svmviz.models._svm_tree_build import (TreeSettings, chain_arrays, chain_predict, grow, prune,
                                           tree_predict)
from svmviz.models._svm_tree_records import BinaryTree, NonlinearReport
from svmviz.models.base import SVMClassifierBase
from svmviz.models.svc import BinarySVC

NONLINEAR_DEFAULTS = {"C": 1.0, "gamma": "scale", "tradeoff": 0.1, "validation": 0.25}


@register_estimator("classes_", "n_features_in_", "trees_", "pairs_", "fit_time_")
class SVMTreeClassifier(SVMClassifierBase):
    """Decision tree (a chain) of linear SVM nodes, seed 000.

    Parameters
    ----------
    C_hard : float, default 1000
        The initial bound C_k on the α of the hard class in the C-SVM candidates (eq. 4.2; "a
        value large enough", the non-hard class has bound 1).
    reduction : float > 1, default 10
        The factor f of §4.3.2: C_k ← C_k / f while the C-SVM returns ‖w‖ < w_tol.
    w_tol : float, default 1e-3
        Tolerance on ‖w‖ below which a solution counts as the zero solution (§4.3.2).
    greedy_level : 0 or 1, default 0
        g1 of Tables 5.x: 0 adds perpendicular hyperplanes only when no candidate leaves out
        anything, 1 always adds them to the candidates (§4.3.4).
    use_c_svm, use_h1_svm : bool, default True
        Which duals give candidates (Fig. 4.1: a, b are C-SVM, c, d are H1-SVM).
    sign_change : bool, default True
        Add −w when w leaves nothing out (§4.3.3).
    perpendicular : bool, default True
        Allow perpendicular hyperplanes (§4.3.4).
    prune : bool, default True
        Remove useless hyperplanes (§4.3.5).
    nonlinear : None or dict, default None
        The non-linear extension of §3.3: an RBF SVM trained on the whole training set placed at
        the depth that maximises accuracy − tradeoff · (classification cost relative to the RBF
        SVM alone). Keys (defaults): C (1.0), gamma ("scale"), tradeoff (0.1), validation
        (0.25: share of the training set held out to choose the depth; the linear chain is built
        on the rest; 0 chooses on the training set).
    solver : "smo" or "cvxpy", default "smo"
        QP backend for every node.
    multi_class : "ovo", default "ovo"
        More than two classes: one binary tree per pair of classes, majority vote (seed 000 §5).
    tol : float, default 1e-5
        Stopping tolerance handed to the QP solver.

    Attributes
    ----------
    classes_, n_features_in_, fit_time_
    trees_ : list of ``BinaryTree`` records, one per pair of classes (``pairs_``)
    nodes_, trace_, pruned_ : those of the first tree (the only one for two classes): every
        ``Node``; one ``Step`` per step (active, candidates, chosen, removed, zero_solution);
        the depths of the nodes pruning removed
    n_hyperplanes_ : hyperplanes kept after pruning (all trees)
    """

    def __init__(self, C_hard=1000.0, reduction=10.0, w_tol=1e-3, greedy_level=0, use_c_svm=True,
                 use_h1_svm=True, sign_change=True, perpendicular=True, prune=True, nonlinear=None,
                 solver="smo", multi_class="ovo", tol=1e-5):
        self.C_hard = C_hard
        self.reduction = reduction
        self.w_tol = w_tol
        self.greedy_level = greedy_level
        self.use_c_svm = use_c_svm
        self.use_h1_svm = use_h1_svm
        self.sign_change = sign_change
        self.perpendicular = perpendicular
        self.prune = prune
        self.nonlinear = nonlinear
        self.solver = solver
        self.multi_class = multi_class
        self.tol = tol

    # ------------------------------------------------------------------ parameters
    def _settings(self) -> TreeSettings:
        def positive(name, v):
            if not (isinstance(v, (int, float, np.integer, np.floating)) and np.isfinite(v) and v > 0):
                raise ParameterError(f"{name} must be a positive number, got {v!r}")
        positive("C_hard", self.C_hard)
        positive("w_tol", self.w_tol)
        positive("tol", self.tol)
        positive("reduction", self.reduction)
        if self.reduction <= 1:
            raise ParameterError(f"reduction (the factor f of §4.3.2) must be > 1, got {self.reduction}")
        if self.greedy_level not in (0, 1):
            raise ParameterError(f"greedy_level must be 0 or 1, got {self.greedy_level!r}")
        if not (self.use_c_svm or self.use_h1_svm):
            raise ParameterError("use_c_svm and use_h1_svm cannot both be off: no candidate would be left")
        if self.multi_class != "ovo":
            raise ParameterError(f"multi_class must be 'ovo', not {self.multi_class!r}")
        return TreeSettings(float(self.C_hard), float(self.reduction), float(self.w_tol),
                            int(self.greedy_level), bool(self.use_c_svm), bool(self.use_h1_svm),
                            bool(self.sign_change), bool(self.perpendicular), self.solver,
                            float(self.tol))

    def _nonlinear_params(self) -> dict | None:
        if self.nonlinear is None:
            return None
        if not isinstance(self.nonlinear, dict):
            raise ParameterError("nonlinear must be None or a dict with keys C, gamma, tradeoff, validation")
        unknown = set(self.nonlinear) - set(NONLINEAR_DEFAULTS)
        if unknown:
            raise ParameterError(f"unknown nonlinear option(s) {sorted(unknown)}; "
                                 f"known: {sorted(NONLINEAR_DEFAULTS)}")
        p = {**NONLINEAR_DEFAULTS, **self.nonlinear}
        if not 0 <= p["validation"] < 1:
            raise ParameterError(f"nonlinear validation share must be in [0, 1), got {p['validation']}")
        if p["tradeoff"] < 0:
            raise ParameterError(f"nonlinear tradeoff must be ≥ 0, got {p['tradeoff']}")
        return p

    # ------------------------------------------------------------------ fit
    def fit(self, X, y, progress=None):
        """Fit; ``progress(message, fraction)`` (optional) is called at every step."""
        t0 = time.perf_counter()
        settings = self._settings()
        nl = self._nonlinear_params()
        X, yi = self._validate_fit(X, y)
        K = len(self.classes_)
        pairs = [(0, 1)] if K == 2 else list(combinations(range(K), 2))
        trees = []
        for pi, (a, b) in enumerate(pairs):
            idx = np.flatnonzero((yi == a) | (yi == b))
            y_pm = np.where(yi[idx] == b, 1, -1)

            def report(step, n_active, pi=pi, n=len(idx)):
                if progress is not None:
                    done = (pi + 1 - n_active / n) / len(pairs)
                    progress(f"pair {pi + 1}/{len(pairs)}, step {step + 1}: {n_active} samples in play",
                             min(max(done, 0.0), 1.0))

            trees.append(self._fit_binary(X[idx], y_pm, idx, self.classes_[[a, b]], settings, nl, report))
        self.trees_ = trees
        self.pairs_ = np.array(pairs, dtype=np.int64)
        self.fit_time_ = time.perf_counter() - t0
        return self

    def _fit_binary(self, X, y, index, classes, s: TreeSettings, nl, progress) -> BinaryTree:
        grow_idx = np.arange(len(y))
        hold = np.zeros(0, dtype=np.int64)
        if nl is not None and nl["validation"] > 0:
            grow_idx, hold = _stratified_holdout(y, nl["validation"])
        nodes, trace, final = grow(X[grow_idx], y[grow_idx], s, progress)
        for st in trace:  # trace indices refer to rows of the X given to fit
            st.active = index[grow_idx[st.active]]
            st.removed = index[grow_idx[st.removed]]
        Xg, yg = X[grow_idx], y[grow_idx]
        W, t, hc = chain_arrays(nodes, X.shape[1])
        errors = int(np.sum(chain_predict(Xg, W, t, hc, final)[0] != yg))
        pruned_errors = prune(nodes, Xg, yg, final) if self.prune else errors
        tree = BinaryTree(np.asarray(classes), nodes, trace, int(final), errors, pruned_errors)
        if nl is not None:
            self._add_nonlinear(tree, X, y, grow_idx, hold, nl)
        return tree

    def _add_nonlinear(self, tree: BinaryTree, X, y, grow_idx, hold, nl) -> None:
        """§3.3: choose the depth of the RBF node by accuracy − tradeoff · cost on the held-out
        share (an RBF SVM trained on the rest), then train the RBF node on the whole set."""
        def rbf():
            return BinarySVC(C=nl["C"], kernel="rbf", gamma=nl["gamma"], solver=self.solver)

        sel = hold if hold.size else grow_idx
        probe = rbf().fit(X[grow_idx], y[grow_idx]) if hold.size else rbf().fit(X, y)
        kept = tree.kept()
        W, t, hc = chain_arrays(kept, X.shape[1])
        n_sv = max(int(probe.support_vectors_.shape[0]), 1)
        svm_label = np.where(probe.decision_function(X[sel]) > 0, 1, -1)
        rows = []
        for p in range(len(kept) + 1):
            label, depth = chain_predict(X[sel], W, t, hc, 0, n_linear=p)
            reach = label == 0
            label = np.where(reach, svm_label, label)
            acc = float(np.mean(label == y[sel]))
            cost = (float(np.mean(depth)) + float(np.mean(reach)) * n_sv) / n_sv
            rows.append((acc, float(np.mean(reach)), float(np.mean(depth)), cost))
        acc, reach, avg_depth, cost = (np.array(c) for c in zip(*rows))
        scores = acc - nl["tradeoff"] * cost
        best = int(len(scores) - 1 - np.argmax(scores[::-1]))  # ties: the deeper (cheaper) node
        tree.svm = rbf().fit(X, y)
        tree.nonlinear = NonlinearReport(best, float(nl["tradeoff"]), int(tree.svm.support_vectors_.shape[0]),
                                         acc, reach, avg_depth, cost, scores)

    # ------------------------------------------------------------------ predict
    def _votes(self, X):
        votes = np.zeros((X.shape[0], len(self.classes_)))
        for (a, b), tree in zip(self.pairs_, self.trees_):
            label, _ = tree_predict(tree, X)
            votes[:, a] += label < 0
            votes[:, b] += label > 0
        return votes

    def predict(self, X):
        X = self._validate_predict(X)
        if len(self.trees_) == 1:
            label, _ = tree_predict(self.trees_[0], X)
            return self.classes_[(label > 0).astype(np.int64)]
        return self.classes_[np.argmax(self._votes(X), axis=1)]

    def decision_function(self, X):
        """Two classes: the signed distance to the hyperplane of the node that decides (positive
        means ``classes_[1]``), or the RBF node's decision value; more: the votes per class."""
        X = self._validate_predict(X)
        if len(self.trees_) > 1:
            return self._votes(X)
        tree = self.trees_[0]
        label, depth = tree_predict(tree, X)
        kept = tree.kept()
        W, t, hc = chain_arrays(kept, X.shape[1])
        out = label.astype(np.float64)
        if W.shape[0]:
            dist = (X @ W.T - t) / np.linalg.norm(W, axis=1)
            rows = np.arange(X.shape[0])
            col = np.minimum(depth, W.shape[0]) - 1
            mag = np.maximum(np.abs(dist[rows, np.maximum(col, 0)]), np.finfo(float).tiny)
            out = label * np.where(depth > 0, mag, 1.0)
        if tree.svm is not None:
            rbf = depth == tree.nonlinear.depth + 1
            if np.any(rbf):
                out[rbf] = tree.svm.decision_function(X[rbf])
                out[rbf & (out == 0) & (label > 0)] = np.finfo(float).tiny
        return out

    def predict_depth(self, X) -> np.ndarray:
        """Nodes each sample visits (summed over the pair trees for more than two classes; the
        RBF node counts as one)."""
        X = self._validate_predict(X)
        return np.sum([tree_predict(tree, X)[1] for tree in self.trees_], axis=0)

    # ------------------------------------------------------------------ views of the first tree
    @property
    def nodes_(self) -> list:
        return self.trees_[0].nodes

    @property
    def trace_(self) -> list:
        return self.trees_[0].trace

    @property
    def pruned_(self) -> list:
        return [n.depth for n in self.trees_[0].nodes if n.pruned]

    @property
    def n_hyperplanes_(self) -> int:
        return int(sum(len(t.kept()) for t in self.trees_))


def _stratified_holdout(y, share: float, seed: int = 0):
    """(kept indices, held-out indices), stratified by class, seeded; both sorted."""
    rng = np.random.default_rng(seed)
    hold = []
    for c in np.unique(y):
        idx = np.flatnonzero(y == c)
        k = int(round(share * len(idx)))
        if len(idx) - k >= 1 and k >= 1:
            hold.append(rng.choice(idx, k, replace=False))
    hold = np.sort(np.concatenate(hold)) if hold else np.zeros(0, dtype=np.int64)
    keep = np.setdiff1d(np.arange(len(y)), hold)
    return keep, hold

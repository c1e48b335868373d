"""SVM decision tree of linear SVMs (Zapién Arreola, Fehr and Burkhardt 2007, chapters 3–4).

A chain of hyperplanes: each node labels the region on its non-hard side with the non-hard class
and passes the rest on; the last region takes the class that remains. Classification is a chain
of dot products, hence fast. The greedy construction, the zero-solution loop, the heuristics and
pruning live in ``_svm_tree_build``; the records of nodes and trace in ``_svm_tree_records``.
"""

from __future__ import annotations

import time
import weakref
from itertools import combinations

import numpy as np

from svmviz import limits
from svmviz.errors import ParameterError
from svmviz.geometry.hull_lp import hulls_intersect
from svmviz.geometry.zero_solution import hard_class_zero
from svmviz.models._svm_tree_build import (CK_RULES, EXACT_MARGIN, FALLBACKS, TIE_BREAKS, ZERO_TESTS, TreeSettings,
                                           chain_arrays, chain_predict, grow, prune, stacked_chains, tree_pass, tree_predict,
                                           trees_predict)
from svmviz.models._svm_tree_explain import SLIVER_MAX, explain_step, sliver_note
from svmviz.models._svm_tree_records import BinaryTree
from svmviz.models._svm_tree_nonlinear import NONLINEAR_DEFAULTS, NONLINEAR_SPEC, add_nonlinear
from svmviz.models.base import SVMClassifierBase
from svmviz.models.composite import CompositeMixin
from svmviz.models.constraints import C, SOLVER, TOL, Bool, Int, Number, OneOf, Options
from svmviz.registry import register_estimator

# the plots read a tree through the same functions that predict with it
__all__ = ["SVMTreeClassifier", "SLIVER_MAX", "chain_arrays", "chain_predict", "decided_counts", "tree_predict"]

#: Names of unconverged sub-problems kept in ``unconverged_`` (``n_unconverged_`` counts all).
MAX_UNCONVERGED_NAMES = 20
# The zero-solution reports computed so far, per model, beside it rather than in it: a fitted model
# may be shared by several sessions (the app caches fitted models), and reading one must not
# change it. Entries go with their model and are valid for the trace and data they were made from.
_REPORTS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
# The pair trees' linear chains stacked for one-pass prediction, per model and beside it for the
# same reason; valid for the ``trees_`` they were stacked from.
_STACKED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


@register_estimator
class SVMTreeClassifier(CompositeMixin, SVMClassifierBase):
    """Decision tree (a chain) of linear SVM nodes, Zapién Arreola et al. 2007.

    Parameters
    ----------
    C_hard : float, default 1000
        The initial bound C_k on the α of the hard class in the C-SVM candidates (eq. 4.2; "a
        value large enough", the non-hard class has bound 1).
    reduction : float > 1, default 10
        The factor f of §4.3.2: C_k ← C_k / f while the C-SVM returns w = 0 (ck_rule="paper").
    zero_test : "precision" or "relative", default "precision"
        When a node QP's w counts as the zero solution of §4.3.2. "precision": only at numerical
        precision — x·w spreads over at most 20 × tol across the samples in play (tol is the
        precision the QP is solved to, in the units of x·w), the closed-form centroid difference
        when it is zero up to rounding — or when the LP of §3.1 certifies it (ck_rule="exact").
        "relative": ‖w‖ / Σ α_i‖x_i − x̄‖ < w_tol, the earlier test; it fires on real directions
        (a centroid difference of norm 0.056 on fourclass) and then ends the tree early. A model
        saved before this parameter existed loads as "relative".
    w_tol : float, default 1e-3
        The bound of zero_test="relative" (unused otherwise).
    tie_break : "margin" or "order", default "margin"
        Which of the candidates that leave out as many samples wins. "margin": the one whose
        hyperplane is farther from the nearest sample it keeps in play, then a rule on the
        hyperplane itself: the tree does not depend on which class is listed first. "order": the
        first of equals in the paper's order (a, b, c, d of Fig. 4.1, then the fallbacks), which
        depends on it. A model saved before this parameter existed loads as "order".
    min_node_samples : None or int ≥ 2, default None
        Not in the paper (default off): a kept node that decides fewer than this many training
        samples (a sliver) hands the samples that reach it, and the rest of the chain, to the RBF
        node of §3.3 (``nonlinear``'s k; its other keys still apply).
    ck_rule : "exact" or "paper", default "exact"
        How the zero loop picks C_k after w = 0 at C_hard. "paper": divide by f (§4.3.2); it can
        jump over the whole non-zero window (D_low, D_k*) and then records that it did.
        "exact": compute D_k* (one LP) and solve at (1 − ε)·D_k*, then at m_other/m_hard (never
        zero unless the class centroids coincide).
    greedy_level : 0 or 1, default 0
        g1 of Tables 5.x: 0 adds perpendicular hyperplanes only as a fallback for stuck
        candidates (see ``fallback``), 1 always adds them to the candidates (§4.3.4).
    use_c_svm, use_h1_svm : bool, default True
        Which duals give candidates (Fig. 4.1: a, b are C-SVM, c, d are H1-SVM).
    sign_change : bool, default True
        Add −w when w leaves nothing out (§4.3.3).
    perpendicular : bool, default True
        Allow perpendicular hyperplanes (§4.3.4).
    perpendicular_orientations : 1 or 2, default 2
        Which way w is turned by 90° is a convention the paper does not fix: 2 tries both
        orientations of each perpendicular (with the hard class fixed they put the threshold at
        opposite ends of the hard class and leave out different samples), 1 only w turned by
        +90° (in d > 2 the complement basis as computed).
    fallback : "per_candidate" or "all_stuck", default "per_candidate"
        When the sign change and the perpendiculars are tried. "per_candidate": for each QP
        candidate that leaves no sample out, its −w (§4.3.3: "if no sample could be left out,
        then −w is used instead") and its perpendiculars (§4.3.4, g1 = 0), next to the other
        candidates. "all_stuck": only when all candidates leave nothing out, the perpendiculars
        of all (g1 = 0), then, still stuck, their sign changes. A model saved before this
        parameter existed loads as "all_stuck", the rule it was built with.
    majority_stop : bool, default False
        Opt-in, not in the paper: when no QP candidate leaves a sample out, stop and give the rest
        the majority class instead of trying perpendiculars (§4.3.4) and sign changes (§4.3.3).
        The trace says so at that step. Without it, when no candidate nor fallback leaves a sample
        out while both classes remain, the samples left go to the RBF node of §3.3 (``nonlinear``,
        its defaults when None; beyond the paper, which has no such stop) and the trace says so.
    prune : bool, default True
        Remove useless hyperplanes (§4.3.5).
    nonlinear : None or dict, default None
        The non-linear node of §3.3: an RBF SVM trained on the whole training set, placed before
        the first kept node that decides fewer than k training samples. Keys (defaults): k (5),
        C and gamma (None: tuned by cv-fold cross-validation scored on the samples that reach
        the node), cv (5), max_iter (None: the RBF node's SMO runs to convergence).
    solver : "smo" or "cvxpy", default "smo"
        QP backend for every node.
    multi_class : "ovo", default "ovo"
        More than two classes: one binary tree per pair of classes, majority vote (Zapién Arreola et al. 2007, §5).
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
    converged_ : every node QP (each C_k try that was solved, ``CTry.converged``) and the RBF node
        reached the tolerance; n_unconverged_, unconverged_ : how many did not and which (at most
        ``MAX_UNCONVERGED_NAMES`` named: tree, step, candidate, C_k); n_subproblems_ : QPs solved.
        ``fit`` warns once (``ConvergenceWarning``) naming them; a non-finite objective or decision
        raises ``DataError`` (such a QP would otherwise report convergence).
    """

    _max_unconverged_names = MAX_UNCONVERGED_NAMES
    _parameter_constraints = {
        **SVMClassifierBase._parameter_constraints, "C_hard": C, "reduction": Number(1, 1e6, lo_open=True),
        "w_tol": Number(0, 1, lo_open=True), "zero_test": OneOf(*ZERO_TESTS), "tie_break": OneOf(*TIE_BREAKS),
        "min_node_samples": Int(2, 10**9, none=True), "ck_rule": OneOf(*CK_RULES), "greedy_level": OneOf(0, 1),
        "use_c_svm": Bool(), "use_h1_svm": Bool(), "sign_change": Bool(), "perpendicular": Bool(),
        "perpendicular_orientations": OneOf(1, 2),
        "fallback": OneOf(*FALLBACKS), "majority_stop": Bool(), "prune": Bool(), "nonlinear": Options(**NONLINEAR_SPEC), "solver": SOLVER,
        "multi_class": OneOf("ovo"), "tol": TOL}

    def __init__(self, C_hard=1000.0, reduction=10.0, zero_test="precision", w_tol=1e-3, tie_break="margin",
                 min_node_samples=None, ck_rule="exact", greedy_level=0,
                 use_c_svm=True, use_h1_svm=True, sign_change=True, perpendicular=True,
                 perpendicular_orientations=2, fallback="per_candidate", majority_stop=False, prune=True, nonlinear=None,
                 solver="smo", multi_class="ovo", tol=1e-5):
        self.C_hard = C_hard
        self.reduction = reduction
        self.zero_test = zero_test
        self.w_tol = w_tol
        self.tie_break = tie_break
        self.min_node_samples = min_node_samples
        self.ck_rule = ck_rule
        self.majority_stop = majority_stop
        self.greedy_level = greedy_level
        self.use_c_svm = use_c_svm
        self.use_h1_svm = use_h1_svm
        self.sign_change = sign_change
        self.perpendicular = perpendicular
        self.perpendicular_orientations = perpendicular_orientations
        self.fallback = fallback
        self.prune = prune
        self.nonlinear = nonlinear
        self.solver = solver
        self.multi_class = multi_class
        self.tol = tol

    # ------------------------------------------------------------------ parameters
    def _settings(self, fast: bool = True) -> TreeSettings:
        if not (self.use_c_svm or self.use_h1_svm):
            raise ParameterError("use_c_svm and use_h1_svm cannot both be off: no candidate would be left")
        return TreeSettings(C_hard=float(self.C_hard), reduction=float(self.reduction),
                            w_tol=float(self.w_tol), greedy_level=int(self.greedy_level),
                            use_c_svm=bool(self.use_c_svm), use_h1_svm=bool(self.use_h1_svm),
                            sign_change=bool(self.sign_change), perpendicular=bool(self.perpendicular),
                            perpendicular_orientations=int(self.perpendicular_orientations),
                            solver=self.solver, tol=float(self.tol), ck_rule=self.ck_rule,
                            majority_stop=bool(self.majority_stop), fallback=self.fallback,
                            zero_test=self.zero_test, tie_break=self.tie_break, fast=fast)

    def _nonlinear(self) -> dict | None:
        """The RBF node's settings: ``nonlinear`` over its defaults, k from ``min_node_samples``."""
        given, k = self.nonlinear, self.min_node_samples
        if given is None and k is None:
            return None
        nl = {**NONLINEAR_DEFAULTS, **(given or {})}
        if k is None:
            return nl
        if "k" in (given or {}) and given["k"] != k:
            raise ParameterError(f"min_node_samples={k} and nonlinear's k={given['k']} disagree: give one of them")
        return {**nl, "k": int(k)}

    # ------------------------------------------------------------------ fit
    def fit(self, X, y, progress=None, _reference=False):
        """Fit; ``progress(done, total)`` (optional) is called at every step with the samples
        decided so far and all samples (summed over the pair trees). ``_reference=True`` solves
        every C_k try (no certified skips, closed forms or lean SMO): the slow path the fast one
        must agree with (tests)."""
        t0 = time.perf_counter()
        X, yi = self._validate_fit(X, y)
        settings = self._settings(fast=not _reference)
        nl = self._nonlinear()
        K = len(self.classes_)
        limits.check_pairwise(K, "the SVM tree's one-vs-one")
        pairs = [(0, 1)] if K == 2 else list(combinations(range(K), 2))
        sizes = [int(np.sum((yi == a) | (yi == b))) for a, b in pairs]
        trees = []
        for pi, (a, b) in enumerate(pairs):
            idx = np.flatnonzero((yi == a) | (yi == b))
            y_pm = np.where(yi[idx] == b, 1, -1)

            def report(step, n_active, before=sum(sizes[:pi]), n=len(idx)):
                if progress is not None:
                    progress(before + n - n_active, sum(sizes))

            trees.append(self._fit_binary(X[idx], y_pm, idx, self.classes_[[a, b]], settings, nl, report))
            if progress is not None:   # the last region's samples are decided by the chain's end
                progress(sum(sizes[:pi + 1]), sum(sizes))
        self.trees_ = trees
        self.pairs_ = np.array(pairs, dtype=np.int64)
        self._check_fit(X)
        self.fit_time_ = time.perf_counter() - t0
        self._train_data = (X, self.classes_[yi])
        return self

    # ------------------------------------------------------------------ result checks
    def _check_fit(self, X) -> None:
        """Every sub-solve's convergence collected (the C_k tries of every step's candidates, the
        RBF node), the decisions on the training data finite; one warning naming what stopped."""
        bad, n_solved = [], 0
        for (a, b), tree in zip(self.pairs_, self.trees_):
            where = f"tree {self.classes_[a]} vs {self.classes_[b]}, " if len(self.trees_) > 1 else ""
            for k, step in enumerate(tree.trace):
                for c in step.candidates:
                    for t in c.tries:
                        if t.how != "solved":
                            continue
                        n_solved += 1
                        if not t.converged:
                            bad.append(f"{where}step {k + 1}, candidate {c.label} at C_k = {t.C_k:.3g}")
            W, thr, _ = chain_arrays(tree.kept(), X.shape[1])
            self._check_result(decisions=X @ W.T - thr, detail=f"{where}the linear nodes")
            if tree.svm is not None:
                n_solved += 1
                self._check_result(objective=tree.svm.objective_,
                                   decisions=tree.svm.decision_function(X), detail=f"{where}the RBF node")
                if not tree.svm.converged_:
                    bad.append(f"{where}the RBF node")
        self.n_subproblems_ = n_solved
        self._record_convergence(bad)

    def _subproblems(self) -> tuple[int, str]:
        rbf = any(t.svm is not None for t in self.trees_)
        return self.n_subproblems_, "QPs (node QPs and the RBF node)" if rbf else "node QPs"

    def _convergence_advice(self) -> str:
        parts = []
        if any(not n.endswith("the RBF node") for n in self.unconverged_):
            parts.append(f"for the node QPs: normalize the features (badly scaled data stall SMO), "
                         f"loosen tol (now {self.tol:g}), lower C_hard (now {self.C_hard:g}), or use "
                         f"solver='{'smo' if self.solver == 'cvxpy' else 'cvxpy'}'")
        if any(n.endswith("the RBF node") for n in self.unconverged_):
            parts.append("for the RBF node: give it a smaller C (nonlinear={'C': ...}) or normalize "
                         "the features")
        return "; ".join(parts)

    def _fit_binary(self, X, y, index, classes, s: TreeSettings, nl, progress) -> BinaryTree:
        nodes, trace, final = grow(X, y, s, progress)
        for st in trace:  # trace indices refer to rows of the X given to fit
            st.active = index[st.active]
            st.removed = index[st.removed]
        W, t, hc = chain_arrays(nodes, X.shape[1])
        errors = int(np.sum(chain_predict(X, W, t, hc, final)[0] != y))
        pruned_errors = prune(nodes, X, y, final) if self.prune else errors
        tree = BinaryTree(np.asarray(classes), nodes, trace, int(final), errors, pruned_errors)
        if nl is None and trace and trace[-1].stop == "rbf":
            nl = dict(NONLINEAR_DEFAULTS)   # the samples left need the RBF node
        if nl is not None:
            add_nonlinear(tree, X, y, nl, self.solver)
        return tree

    # ------------------------------------------------------------------ predict
    def _pass(self, X):
        """(labels ±1 per sample and pair tree, nodes visited summed over the trees): every pair
        tree's linear chain in one compiled pass, the RBF nodes on the samples that reach them."""
        entry = _STACKED.get(self)
        if entry is None or entry[0] is not self.trees_:
            entry = _STACKED[self] = (self.trees_, stacked_chains(self.trees_, X.shape[1]))
        return trees_predict(self.trees_, X, entry[1])

    def _votes(self, X):
        label, _ = self._pass(X)
        one_hot = np.eye(len(self.classes_))
        return (label < 0) @ one_hot[self.pairs_[:, 0]] + (label > 0) @ one_hot[self.pairs_[:, 1]]

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
        label, depth, value = tree_pass(tree, X)
        W = chain_arrays(tree.kept(), X.shape[1])[0]
        out = label.astype(np.float64)
        rbf = depth == tree.nonlinear.depth + 1 if tree.svm is not None else np.zeros(len(out), dtype=bool)
        if W.shape[0]:
            norms = np.linalg.norm(W, axis=1)
            col = np.clip(depth, 1, W.shape[0]) - 1
            mag = np.maximum(np.abs(value) / norms[col], np.finfo(float).tiny)
            out = label * np.where(depth > 0, mag, 1.0)
        if np.any(rbf):
            out[rbf] = value[rbf]
            out[rbf & (out == 0) & (label > 0)] = np.finfo(float).tiny
        return out

    def predict_depth(self, X) -> np.ndarray:
        """Nodes each sample visits (summed over the pair trees for more than two classes; the
        RBF node counts as one)."""
        X = self._validate_predict(X)
        return self._pass(X)[1]

    # ------------------------------------------------------------------ reading a step
    def zero_solution_report(self, k: int, tree_index: int = 0) -> list:
        """The exact zero-solution picture of step k (``HardClassZero`` for hard class −1, then
        +1): D_k*, D_low, the window and where the paper's loop and the exact rule land. Needs the
        training data only through the step's active set, which the trace does not hold in
        coordinates — hence ``bind_data`` or the X given here; computed once per step (a few LPs per
        hard class, and one on whether the two classes' hulls meet, the same for both) and cached
        beside the model (it is not changed), never during ``fit``."""
        return self._report(k, tree_index)

    def _report(self, k, tree_index):
        key = (tree_index, k)
        made_from = (self.trees_, self.training_data)
        entry = _REPORTS.get(self)
        if entry is None or entry[0][0] is not made_from[0] or entry[0][1] is not made_from[1]:
            entry = _REPORTS[self] = (made_from, {})
        cache = entry[1]
        if key not in cache:
            X, y = self._step_data(k, tree_index)
            limits.check_tree_lp_work(X.shape[0], X.shape[1], "the zero-solution report of this step")
            meet = hulls_intersect(X[y == -1], X[y == 1]).intersect   # one LP for both hard classes
            cache[key] = [hard_class_zero(X, y, hc, float(self.C_hard), float(self.reduction), EXACT_MARGIN,
                                          hulls_meet=meet) for hc in (-1, 1)]
        return cache[key]

    def bind_data(self, X, y):
        """Keep the training data (not part of the fitted state) so steps can be explained and
        their zero-solution reports computed after fit, e.g. for a loaded model."""
        self._train_data = (np.asarray(X, dtype=np.float64), np.asarray(y))
        return self

    @property
    def training_data(self) -> tuple[np.ndarray, np.ndarray] | None:
        """(X, y) bound by ``fit`` or ``bind_data``, or None (a loaded model before ``bind_data``)."""
        return getattr(self, "_train_data", None)

    def _step_data(self, k, tree_index):
        data = self.training_data
        if data is None:
            raise ParameterError("this SVM tree has no training data bound: call bind_data(X_train, y_train) "
                     "(fit does it) before asking for step reports")
        tree = self.trees_[tree_index]
        if not 0 <= k < len(tree.trace):
            raise ParameterError(f"step must be between 0 and {len(tree.trace) - 1}, got {k}")
        X, y = data
        act = tree.trace[k].active
        return X[act], np.where(y[act] == tree.classes[1], 1, -1)

    def sliver_note(self, k: int, tree_index: int = 0) -> str:
        """Why the node of step k is fragile when it decides at most ``SLIVER_MAX`` training
        samples (a sliver), else ""."""
        tree = self.trees_[tree_index]
        if not 0 <= k < len(tree.trace):
            raise ParameterError(f"step must be between 0 and {len(tree.trace) - 1}, got {k}")
        return sliver_note(tree, k)

    def explain_step(self, k: int, tree_index: int = 0) -> str:
        """Step k in plain words, from the trace and the zero-solution report."""
        return explain_step(self, k, tree_index)

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


def decided_counts(tree: BinaryTree, X) -> np.ndarray:
    """Samples of X (the tree's pair) each kept linear node decides, then those the end of the
    chain (or the RBF node) decides: len(kept) + 1 counts, in chain order. With the RBF node the
    nodes after it decide nothing."""
    _, depth, value = tree_pass(tree, np.asarray(X, dtype=np.float64))
    kept = tree.kept()
    k = len(kept)
    p = tree.nonlinear.depth if tree.svm is not None else k
    if p == 0:
        return np.r_[np.zeros(k, dtype=np.int64), len(depth)]
    # depth p is both "decided by node p" and "reached the end": the sign of its value tells
    end = (depth == p + 1) if tree.svm is not None else (depth == p) & (kept[p - 1].hard_class * value >= 0)
    counts = np.bincount(depth[~end], minlength=p + 1)[1:p + 1]
    return np.r_[counts, np.zeros(k - p, dtype=np.int64), int(end.sum())]

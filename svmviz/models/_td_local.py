"""Local SVMs on the leaves of a tree decomposition (Chang, Guo, Lin and Lu 2009, §2, the "lSVM" of §4).

One job trains one leaf for one γ and a list of C values: the leaf's Gram matrix is computed once
and shared by every C (and by every class pair of a multi-class leaf), and with the SMO solver
each C starts from the solution of the previous, smaller C (a feasible point: the box only grows).
Jobs are plain functions of arrays, so joblib can send them to threads, processes or a Dask
cluster; on a Dask cluster the training data are scattered once and a job carries only its
leaf's row indices (``train_leaf_rows``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from svmviz.kernels import Kernel, block_rows
from svmviz.limits import Budget, call_within
from svmviz.registry import register_record
from svmviz.solvers import QPProblem, solve_qp

DENSE_MAX = 3000  # leaves up to this size share one precomputed Gram matrix across C and pairs


@register_record
@dataclass
class TDLocalSVM:
    """The SVM of one heterogeneous leaf: binary machines over shared support vectors.

    classes : global class indices present in the leaf
    machines : (m, 2) class pairs (a, b) for one-vs-one; (a, −1) for one-vs-rest; a positive
        decision means class a
    support_vectors : (n_sv, d), the union over machines; dual_coef : (m, n_sv) α_i y_i (0 where
        a vector is not a support vector of that machine); intercept : (m,)
    C, gamma : the parameters θ; multi_class : "ovo" or "ovr"
    converged : whether the solver reached its tolerance on every machine;
    n_iter, max_violation : the largest iteration count and final KKT violation over the machines
        (0 where the solver does not say: LIBSVM); objective : the sum of the machines' dual
        objectives (None with LIBSVM, which does not report it)
    """

    classes: np.ndarray
    machines: np.ndarray
    support_vectors: np.ndarray
    dual_coef: np.ndarray
    intercept: np.ndarray
    C: float
    gamma: float
    multi_class: str
    converged: bool = True
    n_iter: int = 0
    max_violation: float = 0.0
    objective: float | None = None

    @property
    def n_support(self) -> int:
        return int(self.support_vectors.shape[0])

    def decision(self, X: np.ndarray) -> np.ndarray:
        """(n, m) decision values of the machines (in row blocks: K(X, SV) can be large)."""
        kern = Kernel("rbf", self.gamma)
        out = np.empty((X.shape[0], self.machines.shape[0]))
        step = block_rows(self.support_vectors.shape[0])
        for s in range(0, X.shape[0], step):
            out[s:s + step] = kern.gram(X[s:s + step], self.support_vectors) @ self.dual_coef.T
        return out + self.intercept[None, :]

    def scores(self, X: np.ndarray, n_classes: int) -> np.ndarray:
        """(n, K) class scores whose argmax is the prediction: one-vs-one votes (Knerr et al., the
        paper's 1A1) or one-vs-rest decision values (the paper's 1AO)."""
        return scores_from_decision(self, self.decision(X), n_classes)


def scores_from_decision(svm: TDLocalSVM, D: np.ndarray, n_classes: int) -> np.ndarray:
    """Class scores from machine decisions D (n, m); classes absent from the leaf score −∞."""
    S = np.full((D.shape[0], n_classes), -np.inf)
    if svm.multi_class == "ovr" and svm.machines.shape[0] > 1:
        S[:, svm.machines[:, 0]] = D
        return S
    S[:, svm.classes] = 0.0
    for j, (a, b) in enumerate(svm.machines):
        S[:, a] += D[:, j] > 0
        S[:, b] += D[:, j] <= 0
    return S


def _machines(classes: np.ndarray, multi_class: str) -> list[tuple[int, int]]:
    if classes.size == 2:
        return [(int(classes[1]), int(classes[0]))]
    if multi_class == "ovr":
        return [(int(a), -1) for a in classes]
    k = classes.size
    return [(int(classes[i]), int(classes[j])) for i in range(k) for j in range(i + 1, k)]


def _binary_fit(K, X: np.ndarray, yb: np.ndarray, C: float, gamma: float, solver: str, alpha0,
                poll=None):
    """(α y, b, α, status) of the C-SVM with labels yb = ±1 on the precomputed Gram matrix K, or,
    when K is None (a large leaf), with the RBF kernel computed by the solver itself (its cache).
    ``status``: (converged, iterations, final KKT violation, dual objective or None). ``poll()``
    is called by the SMO solver between chunks of iterations (it may raise to cancel the solve)."""
    if solver == "libsvm":
        from sklearn.svm import SVC

        m = (SVC(C=C, kernel="precomputed", tol=1e-3, cache_size=200).fit(K, yb) if K is not None
             else SVC(C=C, kernel="rbf", gamma=gamma, tol=1e-3, cache_size=500).fit(X, yb))
        coef = np.zeros(yb.size)
        # sklearn's positive decision is classes_[1] = +1, so dual_coef_ is α_i y_i already
        coef[m.support_] = m.dual_coef_[0]
        # fit_status_ 0: LIBSVM reached its tolerance (it has no iteration cap here)
        return coef, float(m.intercept_[0]), np.abs(coef), (int(m.fit_status_) == 0, 0, 0.0, None)
    problem = (QPProblem.c_svm(yb, C, Q=K) if K is not None
               else QPProblem.c_svm(yb, C, kernel=Kernel("rbf", gamma), X=X))
    opts = {"progress": lambda *_: poll()} if poll is not None and solver == "smo" else {}
    res = solve_qp(problem, backend=solver, tol=1e-3, alpha0=alpha0, **opts)
    return (res.alpha * yb, -float(res.rho[0]), res.alpha,
            (bool(res.converged), int(res.n_iter), float(res.max_violation), float(res.objective)))


def _libsvm_ovo(X, y, C: float, gamma: float, coefs: np.ndarray, b: np.ndarray) -> tuple:
    """Fill ``coefs`` / ``b`` (pairs (i, j), i < j, in ``_machines`` order) from one multi-class
    scikit-learn SVC: LIBSVM stores, for pair (i, j), the coefficients of class i's support
    vectors in row j − 1 and those of class j's in row i; a positive value votes for i. Returns the
    status as ``_binary_fit``."""
    from sklearn.svm import SVC

    m = SVC(C=C, kernel="rbf", gamma=gamma, tol=1e-3, cache_size=500).fit(X, y)
    start = np.r_[0, np.cumsum(m.n_support_)]
    k, p = m.classes_.size, 0
    for i in range(k):
        for j in range(i + 1, k):
            si, sj = slice(start[i], start[i + 1]), slice(start[j], start[j + 1])
            coefs[p, m.support_[si]] = m.dual_coef_[j - 1, si]
            coefs[p, m.support_[sj]] = m.dual_coef_[i, sj]
            b[p] = m.intercept_[p]
            p += 1
    return (int(m.fit_status_) == 0, 0, 0.0, None)


def train_leaf(X: np.ndarray, y: np.ndarray, X_val: np.ndarray, gamma: float, Cs, multi_class: str,
               solver: str, n_classes: int, progress=None, work_budget: Budget | None = None):
    """Train the local SVM of one leaf (global class indices ``y``) for γ and every C in ``Cs``.

    Returns one (C, TDLocalSVM, predicted class index of every row of X_val) per C.
    ``progress``: an object with ``step()``, called after each C (one leaf SVM of one θ), and
    ``poll()``, called by the SMO solver during a long solve; either may raise to cancel the work
    (nothing more is trained then). ``work_budget``: the caller's work budget (``svmviz.limits``),
    put in force here, whichever thread, process or Dask worker runs the job.
    """
    if work_budget is not None:
        return call_within(work_budget, train_leaf, X, y, X_val, gamma, Cs, multi_class, solver, n_classes,
                           progress)
    classes = np.unique(y)
    machines = _machines(classes, multi_class)
    # LIBSVM trains one-vs-one pairs itself (the paper's 1A1), sharing one kernel cache.
    libsvm_ovo = solver == "libsvm" and multi_class == "ovo" and classes.size > 2
    # Otherwise one Gram matrix serves every C and pair; with a single machine and C nothing is
    # shared, and beyond DENSE_MAX samples (n² floats) the solver's own kernel cache is cheaper
    # (it computes only the columns the solver visits).
    shared = len(Cs) > 1 or len(machines) > 1
    K = (Kernel("rbf", gamma).gram(X) if shared and X.shape[0] <= DENSE_MAX and not libsvm_ovo
         else None)
    warm = [None] * len(machines)
    poll = None if progress is None else progress.poll
    out = []
    for C in sorted(Cs):
        coefs = np.zeros((len(machines), X.shape[0]))
        b = np.zeros(len(machines))
        status = []
        if libsvm_ovo:
            status.append(_libsvm_ovo(X, y, float(C), gamma, coefs, b))
        else:
            for j, (a, c) in enumerate(machines):
                if j and poll is not None:  # between the machines of a multi-class leaf
                    poll()
                rows = np.flatnonzero((y == a) | (y == c)) if c >= 0 else np.arange(y.size)
                yb = np.where(y[rows] == a, 1.0, -1.0)
                Kr = None if K is None else (K if rows.size == y.size else K[np.ix_(rows, rows)])
                coef, b[j], warm[j], st = _binary_fit(Kr, X[rows], yb, float(C), gamma, solver, warm[j], poll)
                coefs[j, rows] = coef
                status.append(st)
        used = np.flatnonzero(np.any(coefs != 0, axis=0))
        svm = TDLocalSVM(classes, np.asarray(machines, dtype=np.int64).reshape(-1, 2), X[used],
                         coefs[:, used], b, float(C), float(gamma), multi_class,
                         converged=all(s[0] for s in status), n_iter=max(s[1] for s in status),
                         max_violation=max(s[2] for s in status),
                         objective=(None if any(s[3] is None for s in status)
                                    else float(sum(s[3] for s in status))))
        pred = (np.argmax(svm.scores(X_val, n_classes), axis=1) if X_val.shape[0]
                else np.zeros(0, dtype=np.int64))
        out.append((float(C), svm, pred))
        if progress is not None:
            progress.step()
    return out



def train_leaf_rows(X: np.ndarray, y: np.ndarray, X_val: np.ndarray, rows: np.ndarray, rows_val: np.ndarray,
                    gamma: float, Cs, multi_class: str, solver: str, n_classes: int, work_budget: Budget):
    """``train_leaf`` on the rows ``rows`` of (X, y) and ``rows_val`` of X_val, under the caller's
    work budget: a Dask task whose X, y, X_val are the arrays scattered once to the workers, so
    only the leaf's row indices travel with each task."""
    return train_leaf(X[rows], y[rows], X_val[rows_val], gamma, Cs, multi_class, solver, n_classes, None,
                      work_budget)

"""The Scatter SVM of Jenssen, Kloft, Zien, Sonnenburg and Müller (2012) as a lesson: the SMO solve
of a fitted ``ScatterSVC``'s dual recorded iteration by iteration (the same problem, solver and
tolerance as the fit, with ``trace=True``), read at a few iterations: the prototypes
m_c = Σ_{i∈I_c} α_i φ(x_i) moving and the scatter Σ_c ‖m_c − m̄‖² (eq. 6–8) changing as the solver
proceeds, each snapshot a model of its own (``iterate_model``) that the prototype view draws.

For the C-form with bias the fit solves a sequence of QPs over the common class sum t (the
module ``svmviz.models.scatter``); the recorded run is the solve at the fit's t from a feasible
start, whose end is the fit's solution.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np

from svmviz.errors import ParameterError
from svmviz.models.scatter import coupled_rho, scatter_problem
from svmviz.solvers import kkt, solve_qp

__all__ = ["MAX_SNAPSHOTS", "ScatterRun", "iterate_model", "scatter_run"]

# How a run is shown, not how much work it may do: the solve always runs to its end.
#: Pictures of one run: iteration 0, the last, and log-spaced ones between.
MAX_SNAPSHOTS = 16
#: Iterations recorded for those pictures.
MAX_TRACE = 200_000


@dataclass(frozen=True)
class ScatterRun:
    """The recorded solve read at ``iterations`` (the first 0, the last the solve's end):
    ``alphas`` (S, n); ``scatter`` αᵀK̃α and ``objective`` (the paper's dual objective) per
    snapshot; ``class_sums`` (S, K); ``moves`` (S − 1, K): how far each prototype m_c moves in
    feature space from one snapshot to the next, ‖Δm_c‖ = √(Δα_cᵀ K_c Δα_c); ``violation``: the
    maximal KKT violation at each snapshot; ``n_iter``, ``converged`` of the recorded solve."""

    iterations: np.ndarray
    alphas: np.ndarray
    scatter: np.ndarray
    objective: np.ndarray
    class_sums: np.ndarray
    moves: np.ndarray
    violation: np.ndarray
    n_iter: int
    converged: bool

    def __len__(self) -> int:
        return int(self.iterations.size)


def _problem(model, X, yi):
    K = model.classes_.size
    kern = model.kernel_
    if model.formulation == "C" and model.bias:
        t = float(np.mean(model.class_sums_))
        return scatter_problem(X, yi, K, kern, "C", True, C=float(model.C), class_sum=t)
    mu = None if model.formulation == "C" else float(model.mu_)
    return scatter_problem(X, yi, K, kern, model.formulation, bool(model.bias), C=float(model.C), mu=mu)


def _marks(T: int) -> np.ndarray:
    """0 and T with iterations between them spaced evenly on a log scale (early moves are large)."""
    if T <= MAX_SNAPSHOTS - 1:
        return np.arange(T + 1)
    inner = np.geomspace(1, T, MAX_SNAPSHOTS - 1)
    return np.unique(np.concatenate([[0], np.round(inner).astype(np.int64), [T]]))


def scatter_run(model, X, y) -> ScatterRun:
    """Record the SMO solve of ``model`` (a fitted ``ScatterSVC``) on its training data (X, y)."""
    if getattr(model, "alpha_", None) is None:
        raise ParameterError("the Scatter SVM is not fitted")
    X = np.asarray(X, dtype=np.float64)
    yi = np.searchsorted(model.classes_, np.asarray(y))
    if X.shape[0] != model.alpha_.size or not np.array_equal(model.classes_[yi], np.asarray(y)):
        raise ParameterError("X and y must be the data the Scatter SVM was fitted on")
    problem = _problem(model, X, yi)
    res = solve_qp(problem, backend="smo", tol=model.tol, max_iter=model.max_iter, trace=True, max_trace=MAX_TRACE)
    tr = res.trace
    T = len(tr)
    its = _marks(T)
    alphas = np.array([tr.alpha_at(int(t)) for t in its])
    if tr.truncated:   # the recording stopped before the end: the solve's end is the last snapshot
        its[-1], alphas[-1] = res.n_iter, res.alpha
    K, kern = model.classes_.size, model.kernel_
    grads = [problem.gradient(a) for a in alphas]
    quad = np.array([a @ (G - problem.p) for a, G in zip(alphas, grads)])
    obj = np.array([a.sum() - 0.5 * q if model.formulation == "C" else q for a, q in zip(alphas, quad)])
    sums = np.array([np.bincount(yi, weights=a, minlength=K) for a in alphas])
    moves = np.zeros((max(its.size - 1, 0), K))
    for s in range(its.size - 1):
        delta = alphas[s + 1] - alphas[s]
        for c in range(K):
            idx = np.flatnonzero((yi == c) & (delta != 0))
            if idx.size:
                d = delta[idx]
                moves[s, c] = float(np.sqrt(max(d @ kern.gram(X[idx], X[idx]) @ d, 0.0)))
    viol = np.array([kkt.max_violation(problem, a, G) for a, G in zip(alphas, grads)])
    return ScatterRun(its.astype(np.int64), alphas, quad, obj, sums, moves, viol, int(res.n_iter), bool(res.converged))


def iterate_model(model, X, y, alpha):
    """A copy of ``model`` whose dual vector is ``alpha`` (a snapshot of ``scatter_run``), with what
    follows from it as ``fit`` sets it: support vectors, class sums, scatter, objective and, with
    bias, the intercepts from the KKT offsets at that α."""
    X = np.asarray(X, dtype=np.float64)
    yi = np.searchsorted(model.classes_, np.asarray(y))
    alpha = np.asarray(alpha, dtype=np.float64)
    problem = _problem(model, X, yi)
    G = problem.gradient(alpha)
    out = copy.copy(model)
    sv = np.flatnonzero(alpha > 0)
    out.alpha_, out.support_, out.support_vectors_, out.support_classes_ = alpha, sv, X[sv], yi[sv]
    if model.bias:
        rho = coupled_rho(problem, alpha, G) if model.formulation == "C" else kkt.rho(problem, alpha, G)
        out.rho_, out.intercept_ = rho, -(rho - rho.mean())
    quad = float(alpha @ (G - problem.p))
    out.scatter_ = quad
    out.objective_ = float(alpha.sum() - 0.5 * quad) if model.formulation == "C" else quad
    out.class_sums_ = np.bincount(yi, weights=alpha, minlength=model.classes_.size)
    return out


def step_texts(model, run: ScatterRun, class_names=None, sensitivity=None, feature_names=None) -> list[tuple[str, str]]:
    """(summary, explanation) of each snapshot of ``run`` and, last, of the sensitivity map
    ``sensitivity`` (``model.sensitivity_map``: a row per class score and the mean last), with the
    numbers the pictures show."""
    K = model.classes_.size
    names = [str(c) for c in (model.classes_ if class_names is None else class_names)]
    out = []
    for s, t in enumerate(run.iterations):
        sums = ", ".join(f"{names[c]}: {run.class_sums[s, c]:.3g}" for c in range(K))
        if s == 0:
            start = ("α = 0: no prototype yet (every m_c = 0)" if not run.alphas[0].any()
                     else "a feasible start: each class's weights spread evenly")
            out.append((f"Iteration 0: {start}.",
                        f"The SMO solve of the dual (eq. {'15' if model.formulation == 'C' else '6/8'}) starts at "
                        f"{start}. Scatter αᵀK̃α = {run.scatter[0]:.4g}; maximal KKT violation {run.violation[0]:.3g} "
                        f"(the solve stops below tol = {model.tol:g}, after {run.n_iter} iterations)."))
            continue
        mv = run.moves[s - 1]
        top = int(np.argmax(mv))
        moved = ", ".join(f"{names[c]}: {mv[c]:.3g}" for c in range(K))
        end = s == len(run) - 1
        out.append((f"Iteration {t}{' (the end)' if end else ''}: scatter {run.scatter[s]:.4g}; prototype {names[top]} "
                    f"moved most.",
                    f"After {t} SMO iterations (from {run.iterations[s - 1]}): how far each prototype m_c moved in "
                    f"feature space, ‖Δm_c‖: {moved}. Scatter Σ‖m_c − m̄‖² = {run.scatter[s]:.4g} (was "
                    f"{run.scatter[s - 1]:.4g}); dual objective {run.objective[s]:.5g}; class sums Σα: {sums}; "
                    f"maximal KKT violation {run.violation[s]:.3g}."
                    + (f" The solve {'converged' if run.converged else 'stopped at its cap'} here: this is the fit's "
                       "model." if end else "")))
    if sensitivity is not None:
        S = np.asarray(sensitivity)
        feats = [str(f) for f in (feature_names if feature_names is not None else range(1, S.shape[1] + 1))]
        j = int(np.argmax(S[-1]))
        out.append((f"Sensitivity map: feature {feats[j]} changes the class scores most.",
                    "Sensitivity s_j = (1/N) Σ_n (∂f(x_n)/∂x_j)² over the training samples (eq. 20–21), mean over "
                    "the classes: " + ", ".join(f"{feats[i]}: {S[-1, i]:.3g}" for i in range(S.shape[1])) + "."))
    return out

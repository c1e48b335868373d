"""When does the linear C-SVM return w = 0? (Zapién Arreola, Fehr and Burkhardt 2007, §4.3.2, Theorem 1 and Corollary 1;
ARCHITECTURE.md).

With hard class k (bound D_k on its α) and the other class k̄ (bound D_k̄, m_k̄ samples), w = 0 is
optimal exactly when the centroid s_k̄ of k̄ lies in RCH(X_k, μ) with μ = D_k / (D_k̄ m_k̄): all
α of k̄ at D_k̄ and the hard α = D_k̄ m_k̄ λ reproduce s_k̄, giving −Σα its least value with
‖w‖ = 0. The smallest D_k with that property is D_k* = t*·D_k̄·m_k̄, t* from ``min_mu_containing``.
Theorem 1 (the hulls of the classes intersect) is the weaker, necessary warning. The paper states
Theorem 1 with the max over C_k; its proof needs the coefficients of C_k̄.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np

from svmviz.errors import ParameterError
from svmviz.geometry.hull_lp import ContainmentResult, HullIntersection, hulls_intersect, min_mu_containing
from svmviz.kernels import Kernel
from svmviz.registry import register_record
from svmviz.solvers import QPProblem, solve_qp


@register_record
@dataclass
class ZeroSolutionCase:
    """One hard class. ``zero_predicted``: w = 0 is optimal for these bounds (μ ≥ min_mu).
    ``D_threshold``: D_k* — for D_k ≥ D_k* the solver returns w = 0, below it a non-zero w."""

    hard_class: int
    D_hard: float
    D_other: float
    m_other: int
    mu: float
    centroid_other: np.ndarray
    min_mu: float
    D_threshold: float
    zero_predicted: bool
    certificate: ContainmentResult


@register_record
@dataclass
class ZeroSolutionReport:
    hulls_intersect: bool
    intersection: HullIntersection
    cases: list  # [ZeroSolutionCase for hard class +1, for hard class −1]

    def case(self, hard_class: int) -> ZeroSolutionCase:
        return next(c for c in self.cases if c.hard_class == hard_class)


_HIGHS = threading.local()


def _quiet_highs(highspy):
    """A Highs instance without its start-up banner (printed by C code on file descriptor 1)."""
    import os
    import sys

    sys.stdout.flush()
    saved = os.dup(1)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 1)
            h = highspy.Highs()
    finally:
        os.dup2(saved, 1)
        os.close(saved)
    h.setOptionValue("output_flag", False)
    h.setOptionValue("presolve", "off")     # d rows: presolve costs more than it saves
    h.setOptionValue("solver", "simplex")
    return h


def min_mu(p, X, backend: str = "highs", separation: bool = True) -> ContainmentResult:
    """``min_mu_containing`` through the smaller dual-free form of the same LP: with z_i = x_i − p,
    s* = max Σβ_i s.t. Σ β_i z_i = 0, 0 ≤ β ≤ 1 (d rows instead of m + d + 1) and t* = 1/s*,
    λ = β/s* (substitute λ = β·t). Solved by HiGHS directly (no SciPy wrapper: ~0.7 ms instead
    of ~3 ms at m = 150, which matters inside the SVM tree's fit). Outside conv(X) (s* = 0) it
    defers to ``min_mu_containing`` for the separation certificate, unless ``separation=False``
    (the tree's fit only needs t* = inf); ``backend="cvxpy"`` always defers."""
    X, p = np.asarray(X, dtype=np.float64), np.asarray(p, dtype=np.float64)
    if backend != "highs":
        return min_mu_containing(p, X, backend)
    try:
        import highspy
    except ImportError:  # highspy comes with cvxpy; without it, the SciPy path
        return min_mu_containing(p, X, backend)
    Z = X - p
    m, d = Z.shape
    h = getattr(_HIGHS, "h", None)
    if h is None:
        h = _HIGHS.h = _quiet_highs(highspy)
    start = np.arange(0, m * d, m, dtype=np.int32)
    index = np.tile(np.arange(m, dtype=np.int32), d)
    value = np.ascontiguousarray(Z.T).ravel()
    # the array overload of passModel: no HighsLp object to fill (a third of the cost)
    h.passModel(m, d, m * d, int(highspy.MatrixFormat.kRowwise), int(highspy.ObjSense.kMinimize),
                0.0, -np.ones(m), np.zeros(m), np.ones(m), np.zeros(d), np.zeros(d), start, index,
                value, np.zeros(m, dtype=np.int32))
    h.run()
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:   # (not expected: β = 0 is feasible)
        return min_mu_containing(p, X, backend)
    beta = np.clip(np.array(h.getSolution().col_value), 0.0, 1.0)
    s = float(beta.sum())
    if s <= 1e-9:
        if not separation:
            return ContainmentResult(np.inf, None, None, "outside")
        return min_mu_containing(p, X, backend)
    return ContainmentResult(1.0 / s, beta / s, None, "optimal")


def zero_solution_case(X_hard, X_other, D_hard: float, D_other: float, hard_class: int = 1,
                       backend: str = "highs", separation: bool = True) -> ZeroSolutionCase:
    X_hard, X_other = np.asarray(X_hard, dtype=np.float64), np.asarray(X_other, dtype=np.float64)
    if D_hard <= 0 or D_other <= 0:
        raise ParameterError("the bounds D_k must be positive")
    m_other = X_other.shape[0]
    centroid = X_other.mean(axis=0)
    mu = D_hard / (D_other * m_other)
    cert = min_mu(centroid, X_hard, backend, separation)
    threshold = cert.min_mu * D_other * m_other
    return ZeroSolutionCase(int(hard_class), float(D_hard), float(D_other), int(m_other), float(mu),
                            centroid, cert.min_mu, float(threshold),
                            bool(np.isfinite(cert.min_mu) and mu >= cert.min_mu * (1 - 1e-9)), cert)


def zero_solution_report(X, y, D_pos: float, D_neg: float, backend: str = "highs") -> ZeroSolutionReport:
    """Theorem 1 and the exact centroid-in-RCH condition for both choices of hard class.

    ``y`` holds ±1; ``D_pos`` / ``D_neg`` are the upper bounds on α of class +1 / −1."""
    X, y = np.asarray(X, dtype=np.float64), np.asarray(y)
    pos, neg = X[y == 1], X[y == -1]
    if len(pos) == 0 or len(neg) == 0:
        raise ParameterError("the zero-solution report needs samples of both classes +1 and −1")
    inter = hulls_intersect(pos, neg, backend)
    cases = [zero_solution_case(pos, neg, D_pos, D_neg, 1, backend),
             zero_solution_case(neg, pos, D_neg, D_pos, -1, backend)]
    return ZeroSolutionReport(inter.intersect, inter, cases)


def lower_zero_threshold(X_hard, X_other, D_other: float = 1.0, backend: str = "highs") -> float:
    """D_low: the other side of the zero condition. With D_k·m_k ≤ D_k̄·m_k̄ every hard α sits at
    D_k at the optimum of a zero solution, and the other class reproduces the hard centroid:
    s_k ∈ RCH(X_k̄, D_k̄ / (D_k·m_k)). So w = 0 exactly for D_k ≤ D_low = D_k̄ / (t*·m_k), t* from
    ``min_mu_containing(s_k, X_k̄)``; 0 when s_k lies outside conv(X_k̄)."""
    X_hard, X_other = np.asarray(X_hard, dtype=np.float64), np.asarray(X_other, dtype=np.float64)
    t = min_mu(X_hard.mean(axis=0), X_other, backend).min_mu
    return 0.0 if not np.isfinite(t) or t <= 0 else float(D_other / (t * X_hard.shape[0]))


@register_record
@dataclass
class HardClassZero:
    """The exact zero-solution picture of one hard class at one step (both sides of the zero
    condition), computed when a step is viewed: w = 0 for C_k ≥ ``D_star`` and for
    C_k ≤ ``D_low``; the window (D_low, D_star) contains ``floor`` = m_other/m_hard. ``paper_C``:
    where the paper's loop C_k ← C_k/f lands (nan when it jumps over the window); ``exact_C``:
    where ck_rule="exact" lands. ``case``: the ``ZeroSolutionCase`` (LP certificate) at C_hard;
    ``hulls_intersect``: Theorem 1's weaker warning."""

    hard_class: int
    m_hard: int
    m_other: int
    D_star: float
    D_low: float
    floor: float
    paper_tries: np.ndarray
    paper_C: float
    exact_C: float
    case: object
    hulls_intersect: bool

    def zero_at(self, C_k: float) -> bool:
        """The exact prediction: does the C-SVM return w = 0 at this C_k?"""
        return bool(C_k >= self.D_star * (1 - 1e-9) or C_k <= self.D_low * (1 + 1e-9))


def hard_class_zero(X, y, hard_class: int, C_hard: float, reduction: float, exact_margin: float,
                    backend: str = "highs", hulls_meet: bool | None = None):
    """Both thresholds of one hard class (non-hard bound 1) and where each C_k rule lands:
    the paper's C_k ← C_k/f (§4.3.2) and the exact rule (start at (1 − ε)·D_k*, never below
    m_other/m_hard). Two LPs, and a third for whether the two classes' hulls meet unless
    ``hulls_meet`` says it (the answer is the same for either hard class); the SVM tree computes
    this only when a step is viewed."""
    X, y = np.asarray(X, dtype=np.float64), np.asarray(y)
    Xh, Xo = X[y == hard_class], X[y != hard_class]
    m_h, m_o = len(Xh), len(Xo)
    case = zero_solution_case(Xh, Xo, C_hard, 1.0, hard_class, backend)
    D_star, D_low = case.D_threshold, lower_zero_threshold(Xh, Xo, 1.0, backend)
    floor = m_o / m_h
    tries, paper = [], np.nan
    C_k = float(C_hard)
    while C_k > 0:
        tries.append(C_k)
        if D_low < C_k < D_star:
            paper = C_k
            break
        if C_k <= D_low:
            break  # every smaller C_k is zero too
        C_k /= reduction
    exact = C_hard if C_hard < D_star else max(min(C_hard, (1 - exact_margin) * D_star), floor)
    inter = hulls_intersect(Xh, Xo, backend).intersect if hulls_meet is None else hulls_meet
    return HardClassZero(int(hard_class), m_h, m_o, float(D_star), float(D_low), float(floor),
                         np.array(tries), float(paper), float(exact), case, bool(inter))


@register_record
@dataclass
class WNormSweep:
    """‖w‖ of the linear C-SVM solved for each hard-class bound D_k in ``D_values`` (the other
    class at ``D_other``), next to the predicted switch ``D_threshold`` = D_k*."""

    hard_class: int
    D_values: np.ndarray
    w_norm: np.ndarray
    D_other: float
    D_threshold: float
    backend: str


def c_svm_w(X, y, D_pos: float, D_neg: float, solver: str = "smo", tol: float = 1e-6) -> np.ndarray:
    """w = Σ α_i y_i x_i of the linear C-SVM with α ≤ D_pos on class +1 and ≤ D_neg on −1
    (Zapién Arreola et al. 2007, Problem 2.4), solved by a real QP backend."""
    X, y = np.asarray(X, dtype=np.float64), np.where(np.asarray(y) > 0, 1.0, -1.0)
    upper = np.where(y > 0, float(D_pos), float(D_neg))
    res = solve_qp(QPProblem.c_svm(y, upper, kernel=Kernel("linear"), X=X), backend=solver, tol=tol)
    return (res.alpha * y) @ X


def w_norm_sweep(X, y, hard_class: int, D_other: float, D_values, solver: str = "smo",
                 tol: float = 1e-6, progress=None) -> WNormSweep:
    """Solve the C-SVM for every D_k in ``D_values`` and record ‖w‖: zero from D_k* on."""
    X, y = np.asarray(X, dtype=np.float64), np.where(np.asarray(y) > 0, 1, -1)
    if hard_class not in (1, -1):
        raise ParameterError("hard_class must be +1 or −1")
    D_values = np.asarray(D_values, dtype=np.float64)
    case = zero_solution_case(X[y == hard_class], X[y != hard_class], float(D_values.max()),
                              D_other, hard_class)
    norms = np.empty(len(D_values))
    for k, D in enumerate(D_values):
        Dp, Dn = (D, D_other) if hard_class == 1 else (D_other, D)
        norms[k] = np.linalg.norm(c_svm_w(X, y, Dp, Dn, solver, tol))
        if progress is not None:
            progress(k + 1, len(D_values))
    return WNormSweep(int(hard_class), D_values, norms, float(D_other), case.D_threshold, solver)

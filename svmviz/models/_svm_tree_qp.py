"""The lean QP path of the SVM tree: a small dense SMO for the node QPs of Zapién Arreola, Fehr and Burkhardt 2007.

Every node QP of the tree (C-SVM eq. 4.2, bounded H1-SVM eq. 4.3) is
    min ½ αᵀQα − Σα   s.t.  L ≤ α ≤ U,  Σ y_i α_i = 0,   Q_ij = y_i y_j x_i·x_j,
on at most a few thousand samples, solved hundreds of times per fit with the same Q. The shared
solver (``svmviz.solvers.solve_qp``) validates the problem, picks a column source, shrinks and
computes ρ on every call — more time than the solve itself at this size. This is LIBSVM's SMO
with second-order working-set selection (Fan, Chen, Lin 2005, WSS 2) on a dense Q and general
bounds, nothing else; the tree's reference path (``fit(..., _reference=True)``) and
``solver="cvxpy"`` go through ``solve_qp``, and the tests check both give the same trees.
"""

from __future__ import annotations

import numba
import numpy as np

TAU = 1e-12
#: Iteration cap of one node QP; None: LIBSVM's max(10⁷, 100 n). A QP that reaches it (or that
#: floating point stops from making progress) returns ``converged=False``, which the tree
#: collects and reports; the tests lower it to force that case.
MAX_ITER = None


@numba.njit(cache=True, nogil=True)
def _snap(v, lo, hi):
    eps = 1e-12 * max(1.0, abs(hi))
    if v >= hi - eps:
        return hi
    if v <= lo + 1e-12 * max(1.0, abs(lo)):
        return lo
    return v


@numba.njit(cache=True, nogil=True)
def _smo(Q, y, L, U, alpha, tol, max_iter):
    n = alpha.shape[0]
    G = -np.ones(n)
    for t in range(n):
        if alpha[t] != 0.0:
            G += alpha[t] * Q[t]          # Q is symmetric: rows are contiguous
    it = 0
    while it < max_iter:
        # i: the most violating index of I_up
        Gmax = -np.inf
        i = -1
        for t in range(n):
            if (y[t] > 0 and alpha[t] < U[t]) or (y[t] < 0 and alpha[t] > L[t]):
                v = -y[t] * G[t]
                if v > Gmax:
                    Gmax = v
                    i = t
        Gmax2 = -np.inf
        j = -1
        best = np.inf
        for t in range(n):
            if (y[t] > 0 and alpha[t] > L[t]) or (y[t] < 0 and alpha[t] < U[t]):
                v = y[t] * G[t]
                if v > Gmax2:
                    Gmax2 = v
                if i >= 0:
                    b = Gmax + v
                    if b > 0:
                        a = Q[i, i] + Q[t, t] - 2.0 * y[i] * y[t] * Q[i, t]
                        if a <= 0:
                            a = TAU
                        if -(b * b) / a < best:
                            best = -(b * b) / a
                            j = t
        if i < 0 or j < 0 or Gmax + Gmax2 < tol:
            return G, it, True
        it += 1
        ai, aj = alpha[i], alpha[j]
        if y[i] != y[j]:
            quad = Q[i, i] + Q[j, j] + 2.0 * Q[i, j]
            if quad <= 0:
                quad = TAU
            delta = (-G[i] - G[j]) / quad
            diff = ai - aj
            lo = max(L[i], L[j] + diff)
            hi = min(U[i], U[j] + diff)
            new_i = min(max(ai + delta, lo), hi)
            new_j = new_i - diff
        else:
            quad = Q[i, i] + Q[j, j] - 2.0 * Q[i, j]
            if quad <= 0:
                quad = TAU
            delta = (G[i] - G[j]) / quad
            s = ai + aj
            lo = max(L[i], s - U[j])
            hi = min(U[i], s - L[j])
            new_i = min(max(ai - delta, lo), hi)
            new_j = s - new_i
        # snap to the bounds, as LIBSVM assigns them exactly: new_j = new_i − diff is off by an
        # ulp otherwise, and an index a hair inside its bound keeps being selected
        new_i = _snap(new_i, L[i], U[i])
        new_j = _snap(new_j, L[j], U[j])
        di, dj = new_i - ai, new_j - aj
        if di == 0.0 and dj == 0.0:
            return G, it, False     # no progress possible in floating point
        alpha[i], alpha[j] = new_i, new_j
        for t in range(n):
            G[t] += Q[i, t] * di + Q[j, t] * dj
    return G, it, False


class LeanResult:
    """The part of ``QPResult`` the tree reads."""

    __slots__ = ("alpha", "n_iter", "converged", "objective")

    def __init__(self, alpha, n_iter, converged, objective):
        self.alpha, self.n_iter, self.converged, self.objective = alpha, n_iter, converged, objective


def lean_solve(Qy, y, lower, upper, alpha0, tol: float) -> LeanResult:
    """SMO from the feasible ``alpha0`` (copied); LIBSVM's stopping rule m(α) − M(α) < tol and
    its iteration cap max(10⁷, 100 n) (``MAX_ITER`` when set). The objective ½αᵀQα − Σα comes
    from the gradient G = Qα − 1 as ½αᵀG − ½Σα (no extra pass over Q)."""
    alpha = np.array(alpha0, dtype=np.float64)
    cap = max(10_000_000, 100 * len(alpha)) if MAX_ITER is None else int(MAX_ITER)
    G, it, ok = _smo(Qy, y, lower, upper, alpha, float(tol), cap)
    objective = 0.5 * float(alpha @ G) - 0.5 * float(alpha.sum())
    return LeanResult(alpha, int(it), bool(ok), objective)

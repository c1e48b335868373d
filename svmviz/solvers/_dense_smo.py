"""The kernel of the dense SMO: LIBSVM's SMO with second-order working-set selection (Fan, Chen,
Lin 2005, WSS 2) on a dense Q, general bounds and one equality group, nothing else (no
shrinking, no cache, no trace). ``dense_smo.DenseSMO`` holds Q and calls it.
"""

from __future__ import annotations

import numba
import numpy as np

TAU = 1e-12


@numba.njit(cache=True, nogil=True)
def _snap(v, lo, hi):
    eps = 1e-12 * max(1.0, abs(hi))
    if v >= hi - eps:
        return hi
    if v <= lo + 1e-12 * max(1.0, abs(lo)):
        return lo
    return v


@numba.njit(cache=True, nogil=True)
def smo(Q, p, y, L, U, alpha, tol, max_iter):
    """min ½αᵀQα + pᵀα, L ≤ α ≤ U, Σ y_i α_i fixed (y = ±1, Q_ij carrying y_i y_j), from the
    feasible ``alpha`` (changed in place). Returns (gradient Qα + p, iterations, converged)."""
    n = alpha.shape[0]
    G = p.copy()
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

"""KKT quantities shared by every backend: the maximal violation (LIBSVM's stopping rule) and the
equality-group offsets rho (LIBSVM's ``calculate_rho``), for the general problem of ``problem.py``.

For a group g with signs s the KKT conditions read s_i G_i ≥ rho_g at the lower bound side and
≤ rho_g at the upper side (with the sign of s_i), where G = Qα + p. LIBSVM's m(α) − M(α) is the
largest violated gap; a variable in no group must have G_i ≥ 0 at L, ≤ 0 at U and = 0 between.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit


def bound_masks(problem, alpha, rtol: float = 1e-9):
    """(at_lower, at_upper) masks with a tolerance relative to the bound's size."""
    lo, up = problem.lower, problem.upper
    scale_lo = rtol * np.maximum(1.0, np.abs(lo))
    fin = np.isfinite(up)
    at_lower = alpha <= lo + scale_lo
    at_upper = np.zeros_like(at_lower)
    at_upper[fin] = alpha[fin] >= up[fin] - rtol * np.maximum(1.0, np.abs(up[fin]))
    return at_lower, at_upper


def group_gap(s, G, at_lower, at_upper):
    """LIBSVM's m(α) − M(α) for one group: max over I_up of −s G minus min over I_low of −s G."""
    sg = -s * G
    up_ok = np.where(s > 0, ~at_upper, ~at_lower)   # α can move so that Σ s α grows
    low_ok = np.where(s > 0, ~at_lower, ~at_upper)  # ... or shrinks
    m = np.max(sg[up_ok]) if np.any(up_ok) else -np.inf
    M = np.min(sg[low_ok]) if np.any(low_ok) else np.inf
    return m - M


def max_violation(problem, alpha, G=None, rtol: float = 1e-9) -> float:
    """The largest KKT violation: group gaps and single-variable violations. 0 at an optimum."""
    if G is None:
        G = problem.gradient(alpha)
    at_lower, at_upper = bound_masks(problem, alpha, rtol)
    fixed = problem.lower == problem.upper
    viol = 0.0
    free_vars = (problem.groups < 0) & ~fixed
    if np.any(free_vars):
        g = G[free_vars]
        v = np.maximum(np.where(~at_upper[free_vars], -g, 0.0), np.where(~at_lower[free_vars], g, 0.0))
        viol = max(viol, float(np.max(v)))
    for gi in range(problem.n_groups):
        idx = np.flatnonzero((problem.groups == gi) & ~fixed)
        if idx.size < 2:
            continue
        gap = group_gap(problem.eq_signs[idx], G[idx], at_lower[idx], at_upper[idx])
        if np.isfinite(gap):
            viol = max(viol, float(gap))
    return max(viol, 0.0)


def rho(problem, alpha, G=None, rtol: float = 1e-9) -> np.ndarray:
    """rho_g for every group as LIBSVM computes it: the mean of s_i G_i over free variables,
    else the middle of the interval the bounded variables allow. The group's multiplier in
    ∇f + λ s = 0 is −rho; for the C-SVM the decision function is Σ y_i α_i k(x_i, x) − rho."""
    if G is None:
        G = problem.gradient(alpha)
    vals, start, ub, lb = _rho_parts(np.asarray(alpha, dtype=np.float64),
                                     np.asarray(G, dtype=np.float64), problem.lower,
                                     problem.upper, problem.eq_signs, problem.groups,
                                     problem.n_groups, float(rtol))
    out = np.zeros(problem.n_groups)
    for gi in range(problem.n_groups):
        if start[gi + 1] > start[gi]:
            # np.mean's own sum and division, without its Python wrappers (every fit calls this)
            out[gi] = float(np.add.reduce(vals[start[gi]:start[gi + 1]]) / (start[gi + 1] - start[gi]))
        elif np.isfinite(ub[gi]) and np.isfinite(lb[gi]):
            out[gi] = 0.5 * (ub[gi] + lb[gi])
        else:
            out[gi] = ub[gi] if np.isfinite(ub[gi]) else (lb[gi] if np.isfinite(lb[gi]) else 0.0)
    return out


@njit(cache=True)
def _rho_parts(alpha, G, lower, upper, s, groups, n_groups, rtol):
    """For ``rho``, in one pass (``bound_masks``' tests, entry by entry): the free variables'
    s_i G_i, grouped and in index order within a group (``vals[start[g]:start[g + 1]]``, so
    their NumPy mean is the one of the masked array), and per group the least s_i G_i that
    bounds rho from above (at a lower bound with s = +1, at an upper one with s = −1) and the
    largest from below (NaN kept, as np.min and np.max keep it)."""
    n = alpha.shape[0]
    count = np.zeros(n_groups + 1, dtype=np.int64)
    ub = np.full(n_groups, np.inf)
    lb = np.full(n_groups, -np.inf)
    free = np.zeros(n, dtype=np.bool_)
    for k in range(n):
        g = groups[k]
        if g < 0:
            continue
        lo, up, a = lower[k], upper[k], alpha[k]
        at_lo = a <= lo + rtol * max(1.0, abs(lo))
        at_up = math.isfinite(up) and a >= up - rtol * max(1.0, abs(up))
        sg = s[k] * G[k]
        if not at_lo and not at_up:
            free[k] = True
            count[g + 1] += 1
            continue
        if (at_up and s[k] < 0) or (at_lo and s[k] > 0):
            if math.isnan(sg) or sg < ub[g]:
                ub[g] = sg
        if (at_up and s[k] > 0) or (at_lo and s[k] < 0):
            if math.isnan(sg) or sg > lb[g]:
                lb[g] = sg
    start = np.cumsum(count)
    vals = np.empty(start[n_groups])
    pos = start[:n_groups].copy()
    for k in range(n):
        if free[k]:
            g = groups[k]
            vals[pos[g]] = s[k] * G[k]
            pos[g] += 1
    return vals, start, ub, lb

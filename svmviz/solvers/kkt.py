"""KKT quantities shared by every backend: the maximal violation (LIBSVM's stopping rule) and the
equality-group offsets rho (LIBSVM's ``calculate_rho``), for the general problem of ``problem.py``.

For a group g with signs s the KKT conditions read s_i G_i ≥ rho_g at the lower bound side and
≤ rho_g at the upper side (with the sign of s_i), where G = Qα + p. LIBSVM's m(α) − M(α) is the
largest violated gap; a variable in no group must have G_i ≥ 0 at L, ≤ 0 at U and = 0 between.
"""

from __future__ import annotations

import numpy as np


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
    at_lower, at_upper = bound_masks(problem, alpha, rtol)
    out = np.zeros(problem.n_groups)
    for gi in range(problem.n_groups):
        idx = np.flatnonzero(problem.groups == gi)
        s = problem.eq_signs[idx]
        sG = s * G[idx]
        lo_b, up_b = at_lower[idx], at_upper[idx]
        free = ~lo_b & ~up_b
        if np.any(free):
            out[gi] = float(np.mean(sG[free]))
            continue
        # at upper with s=-1 or at lower with s=+1: s G ≥ rho  -> upper bound on rho
        ub_mask = (up_b & (s < 0)) | (lo_b & (s > 0))
        lb_mask = (up_b & (s > 0)) | (lo_b & (s < 0))
        ub = np.min(sG[ub_mask]) if np.any(ub_mask) else np.inf
        lb = np.max(sG[lb_mask]) if np.any(lb_mask) else -np.inf
        if np.isfinite(ub) and np.isfinite(lb):
            out[gi] = 0.5 * (ub + lb)
        else:
            out[gi] = ub if np.isfinite(ub) else (lb if np.isfinite(lb) else 0.0)
    return out

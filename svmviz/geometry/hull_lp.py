"""Linear programs on (reduced) convex hulls, with certificates (DESIGN.md, "Reduced convex hulls").

RCH(X, μ) = {Σ λ_i x_i : Σ λ_i = 1, 0 ≤ λ_i ≤ μ} (seed 000 §3.1, seed 004's binary view).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from svmviz.errors import ParameterError
from svmviz.export.registry import register_record
from svmviz.solvers.lp import solve_lp


def _check(p, X):
    X = np.asarray(X, dtype=np.float64)
    p = np.asarray(p, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] == 0:
        raise ParameterError("X must be a non-empty 2-D array of points")
    if p.shape != (X.shape[1],):
        raise ParameterError(f"the point must have {X.shape[1]} coordinates, got shape {p.shape}")
    return p, X


@register_record
@dataclass
class Separation:
    """A hyperplane u·x = c with every hull point on u·x ≤ c and the point p at u·p = c + margin."""

    u: np.ndarray
    c: float
    margin: float


def separating_hyperplane(p, X, backend: str = "highs") -> Separation | None:
    """A certificate that p ∉ conv(X): max s s.t. u·x_i − c ≤ 0, u·p − c ≥ s, −1 ≤ u ≤ 1.
    None when p is in the hull (s* ≤ 0)."""
    p, X = _check(p, X)
    m, d = X.shape
    # variables [u (d), c, s]; minimise −s
    cost = np.zeros(d + 2)
    cost[-1] = -1.0
    A = np.zeros((m + 1, d + 2))
    A[:m, :d], A[:m, d] = X, -1.0
    A[m, :d], A[m, d], A[m, d + 1] = -p, 1.0, 1.0
    bounds = [(-1, 1)] * d + [(None, None), (None, 1.0)]
    r = solve_lp(cost, A_ub=A, b_ub=np.zeros(m + 1), bounds=bounds, backend=backend)
    if r.status != "optimal" or -r.objective <= 1e-9:
        return None
    return Separation(r.x[:d].copy(), float(r.x[d]), float(r.x[d + 1]))


@register_record
@dataclass
class ContainmentResult:
    """``min_mu`` = t* = min max_i λ_i over representations p = Σ λ_i x_i (λ ≥ 0, Σ λ = 1): p lies
    in RCH(X, μ) exactly when μ ≥ t*. ``weights`` are the optimal λ (the certificate of
    containment); when p is outside conv(X), ``min_mu`` is inf and ``separation`` certifies it."""

    min_mu: float
    weights: np.ndarray | None
    separation: Separation | None
    status: str


def min_mu_containing(p, X, backend: str = "highs") -> ContainmentResult:
    """The smallest μ with p ∈ RCH(X, μ): the LP  min t  s.t.  Xᵀλ = p, Σλ = 1, 0 ≤ λ_i ≤ t."""
    p, X = _check(p, X)
    m, d = X.shape
    cost = np.zeros(m + 1)
    cost[-1] = 1.0
    A_eq = np.zeros((d + 1, m + 1))
    A_eq[:d, :m], A_eq[d, :m] = X.T, 1.0
    b_eq = np.r_[p, 1.0]
    A_ub = np.hstack([np.eye(m), -np.ones((m, 1))])
    r = solve_lp(cost, A_ub=A_ub, b_ub=np.zeros(m), A_eq=A_eq, b_eq=b_eq,
                 bounds=[(0, None)] * (m + 1), backend=backend)
    if r.status == "optimal":
        return ContainmentResult(float(r.x[-1]), r.x[:m].copy(), None, "contained for μ ≥ min_mu")
    return ContainmentResult(float("inf"), None, separating_hyperplane(p, X, backend),
                             "outside the convex hull")


@register_record
@dataclass
class ReducedHullMembership:
    inside: bool
    mu: float
    min_mu: float
    weights: np.ndarray | None
    separation: Separation | None


def point_in_reduced_hull(p, X, mu: float, backend: str = "highs") -> ReducedHullMembership:
    """Is p in RCH(X, μ)? Decided by ``min_mu_containing`` (inside iff μ ≥ t*, up to 1e-9
    relative); the weights of a representation with every λ_i ≤ μ certify a yes, t* > μ (or a
    separating hyperplane when p is outside the whole hull) certifies a no."""
    if not mu > 0:
        raise ParameterError(f"mu must be positive, got {mu}")
    c = min_mu_containing(p, X, backend)
    inside = bool(c.min_mu <= mu * (1 + 1e-9))
    return ReducedHullMembership(inside, float(mu), c.min_mu, c.weights if inside else None, c.separation)


@register_record
@dataclass
class HullIntersection:
    intersect: bool
    witness: np.ndarray | None
    weights_a: np.ndarray | None
    weights_b: np.ndarray | None


def hulls_intersect(Xa, Xb, backend: str = "highs") -> HullIntersection:
    """Do conv(Xa) and conv(Xb) meet? Feasibility LP Xaᵀλ = Xbᵀν, Σλ = Σν = 1, λ, ν ≥ 0; the
    common point is the witness."""
    Xa, Xb = np.asarray(Xa, dtype=np.float64), np.asarray(Xb, dtype=np.float64)
    if Xa.ndim != 2 or Xb.ndim != 2 or Xa.shape[1] != Xb.shape[1]:
        raise ParameterError("Xa and Xb must be 2-D arrays with the same number of columns")
    ma, mb, d = Xa.shape[0], Xb.shape[0], Xa.shape[1]
    A_eq = np.zeros((d + 2, ma + mb))
    A_eq[:d, :ma], A_eq[:d, ma:] = Xa.T, -Xb.T
    A_eq[d, :ma], A_eq[d + 1, ma:] = 1.0, 1.0
    r = solve_lp(np.zeros(ma + mb), A_eq=A_eq, b_eq=np.r_[np.zeros(d), 1.0, 1.0],
                 bounds=[(0, None)] * (ma + mb), backend=backend)
    if r.status != "optimal":
        return HullIntersection(False, None, None, None)
    lam, nu = r.x[:ma], r.x[ma:]
    return HullIntersection(True, Xa.T @ lam, lam, nu)


def reduced_hulls_intersect(Xa, Xb, mu: float, backend: str = "highs") -> HullIntersection:
    """Do RCH(Xa, μ) and RCH(Xb, μ) meet? The LP of ``hulls_intersect`` with 0 ≤ λ, ν ≤ μ. When
    they meet, the ν-SVM / C-SVM nearest-point problem has distance 0 and w = 0."""
    Xa, Xb = np.asarray(Xa, dtype=np.float64), np.asarray(Xb, dtype=np.float64)
    if Xa.ndim != 2 or Xb.ndim != 2 or Xa.shape[1] != Xb.shape[1]:
        raise ParameterError("Xa and Xb must be 2-D arrays with the same number of columns")
    if not mu > 0:
        raise ParameterError(f"mu must be positive, got {mu}")
    ma, mb, d = Xa.shape[0], Xb.shape[0], Xa.shape[1]
    A_eq = np.zeros((d + 2, ma + mb))
    A_eq[:d, :ma], A_eq[:d, ma:] = Xa.T, -Xb.T
    A_eq[d, :ma], A_eq[d + 1, ma:] = 1.0, 1.0
    r = solve_lp(np.zeros(ma + mb), A_eq=A_eq, b_eq=np.r_[np.zeros(d), 1.0, 1.0],
                 bounds=[(0, float(mu))] * (ma + mb), backend=backend)
    if r.status != "optimal":
        return HullIntersection(False, None, None, None)
    lam, nu = r.x[:ma], r.x[ma:]
    return HullIntersection(True, Xa.T @ lam, lam, nu)

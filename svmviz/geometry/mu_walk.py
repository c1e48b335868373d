"""μ walked down from 1 past the zero-solution threshold, one reduced-hull picture per step
(Zapién Arreola, Fehr and Burkhardt 2007, §3.1: the SVM dual as the nearest points of the two
reduced convex hulls RCH(X₊, μ) and RCH(X₋, μ); §3.1.1: w = 0 while they share a point).

At μ = 1 the reduced hulls are the convex hulls; lowering μ shrinks both towards their centroids.
While they meet, the nearest points coincide and w = p₊ − p₋ = 0 (the zero solution); the
threshold μ* where they just touch is one LP (``min_mu_intersecting``); below it the hulls lie apart
and w ≠ 0 grows as they shrink. Read upwards, ‖w‖ shrinks to 0 exactly at μ*.

Each step is computed by a real solver: where μ ≥ μ*, the threshold LP (HiGHS), whose common
point has every weight at most μ* and so lies in both reduced hulls (the certificate that w = 0);
below μ*, the nearest-point QP (SMO) at that μ, with the ν-SVM offset. The walk ends at a given μ (the page's ν), so its last step is the ν-SVM fitted there.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from svmviz.data.dataset import counted
from svmviz.errors import ParameterError
from svmviz.geometry.hull_lp import min_mu_intersecting
from svmviz.geometry.hulls import convex_hull, mu_to_nu, nearest_points, reduced_convex_hull
from svmviz.registry import register_record

#: A grid value this close (relative) to μ* is dropped: μ* itself is a step.
NEAR_THRESHOLD = 0.03


@register_record
@dataclass
class MuStep:
    """One μ of the walk. ``meet``: the reduced hulls share a point (w = 0); ``point_a`` /
    ``point_b``: the nearest points (the common point twice when they meet); ``w`` = point_a −
    point_b; ``b_nu``: the ν-SVM offset (w·x + b_nu = 0 is its hyperplane; nan when w = 0);
    ``distance`` = ‖w‖; ``reduced_a`` / ``reduced_b``: the polygons of the reduced hulls (2-D
    data; empty otherwise); ``solver``: what decided the step."""

    mu: float
    nu: float
    meet: bool
    point_a: np.ndarray
    point_b: np.ndarray
    w: np.ndarray
    b_nu: float
    distance: float
    reduced_a: np.ndarray
    reduced_b: np.ndarray
    solver: str


@register_record
@dataclass
class MuWalk:
    """The walk's plan: ``mus`` from μ = 1 down to ``mu_end``; ``mu_star`` the threshold (inf: the
    hulls never meet) and ``witness`` a common point of the reduced hulls at μ* (None then),
    ``threshold_step`` the index of the step at μ* (−1: not on the walk); ``hull_a`` /
    ``hull_b`` the convex hulls' polygons (2-D), ``m`` the number of points. A step's picture is
    ``walk_step`` (computed when it is shown)."""

    mus: np.ndarray
    mu_star: float
    witness: np.ndarray | None
    threshold_step: int
    mu_end: float
    m: int
    hull_a: np.ndarray
    hull_b: np.ndarray

    def __len__(self) -> int:
        return len(self.mus)

    def zero_at(self, k: int) -> bool:
        """Whether w = 0 at step ``k``: μ_k ≥ μ*, the reduced hulls meet."""
        return bool(self.mus[int(k)] >= self.mu_star)


def walk_values(mu_end: float, mu_star: float, n_steps: int = 12) -> np.ndarray:
    """μ from 1 down to ``mu_end`` in ``n_steps`` geometric steps, with μ* itself when it lies
    inside (grid values within ``NEAR_THRESHOLD`` of it dropped). From μ = 1 on every reduced hull
    is the convex hull: a ``mu_end`` ≥ 1 is the walk's only step."""
    if not mu_end > 0:
        raise ParameterError(f"the walk ends at a positive μ, got {mu_end!r}")
    if n_steps < 2:
        raise ParameterError("the walk needs at least two steps")
    if mu_end >= 1:
        return np.array([float(mu_end)])
    mus = np.geomspace(1.0, mu_end, n_steps)
    if mu_end < mu_star <= 1:
        keep = np.abs(mus / mu_star - 1) > NEAR_THRESHOLD
        keep[[0, -1]] = True
        mus = np.sort(np.r_[mus[keep], mu_star])[::-1]
    return mus


def mu_walk(Xa, Xb, mu_end: float, n_steps: int = 12) -> MuWalk:
    """The walk of the reduced hulls of Xa (class +1) and Xb (class −1) from μ = 1 down to
    ``mu_end``: the threshold μ* (one LP) and the μ of each step (``walk_values``)."""
    Xa, Xb = _classes(Xa, Xb)
    m_small = min(len(Xa), len(Xb))
    if mu_end * m_small < 1 - 1e-12:
        raise ParameterError(f"μ = {mu_end:g} is below 1/{m_small}: the smaller class's reduced hull is empty")
    touch = min_mu_intersecting(Xa, Xb)
    mus = walk_values(mu_end, touch.mu, n_steps)
    at = np.flatnonzero(mus == touch.mu)
    hulls = [X[convex_hull(X).vertices] if X.shape[1] == 2 else np.empty((0, 2)) for X in (Xa, Xb)]
    return MuWalk(mus, float(touch.mu), touch.witness, int(at[0]) if at.size else -1, float(mu_end),
                  len(Xa) + len(Xb), *hulls)


def _classes(Xa, Xb):
    Xa, Xb = np.asarray(Xa, dtype=np.float64), np.asarray(Xb, dtype=np.float64)
    if Xa.ndim != 2 or Xb.ndim != 2 or Xa.shape[1] != Xb.shape[1] or not len(Xa) or not len(Xb):
        raise ParameterError("Xa and Xb must be non-empty 2-D arrays with the same number of columns")
    return Xa, Xb


def walk_step(walk: MuWalk, Xa, Xb, k: int, solver: str = "smo", tol: float = 1e-8) -> MuStep:
    """Step ``k`` of ``walk`` (made by ``mu_walk`` on the same Xa, Xb), computed by a real
    solver at its μ (the module docstring)."""
    Xa, Xb = _classes(Xa, Xb)
    if not 0 <= int(k) < len(walk):
        raise ParameterError(f"step k must be between 0 and {len(walk) - 1}")
    mu = float(walk.mus[int(k)])
    polys = [reduced_convex_hull(X, mu).vertices if X.shape[1] == 2 else np.empty((0, 2)) for X in (Xa, Xb)]
    nu = mu_to_nu(mu, walk.m)
    if walk.zero_at(k):
        # the threshold LP's common point has every weight at most μ* ≤ μ: it lies in both reduced
        # hulls at every μ from μ* on, the certificate that w = 0 there
        zero = np.zeros(Xa.shape[1])
        return MuStep(mu, nu, True, walk.witness, walk.witness, zero, float("nan"), 0.0, *polys,
                      "HiGHS LP (a common point of the reduced hulls)")
    near = nearest_points(Xa, Xb, mu, solver=solver, tol=tol)
    return MuStep(mu, nu, False, near.point_a, near.point_b, near.w, near.b_nu, near.distance, *polys,
                  f"nearest-point QP ({near.backend})")


def step_summary(walk: MuWalk, step: MuStep, k: int) -> str:
    """Step ``k`` in one sentence, as an instructor reads it aloud."""
    at = f"μ = μ* = {step.mu:.4g}" if k == walk.threshold_step else f"μ = {step.mu:.4g}"
    if k == walk.threshold_step:
        return f"{at}: the reduced hulls just touch — w is still 0, and below this μ they separate."
    if step.meet:
        return f"{at}: the reduced hulls still share a point, so the nearest points coincide and w = 0."
    return f"{at}: the reduced hulls lie apart, so w = p₊ − p₋ ≠ 0: ‖w‖ = {step.distance:.3g}."


def explain_step(walk: MuWalk, step: MuStep, k: int) -> str:
    """Step ``k`` in words, with the numbers its picture shows (plain text, paragraphs)."""
    n_weighted = int(np.ceil(1 / step.mu - 1e-12))
    parts = [f"μ = {step.mu:.4g} (ν = 2/(μ·m) = 2/({step.mu:.4g}·{walk.m}) = {step.nu:.4g}): every weight "
             f"λᵢ ≤ μ, so each reduced hull mixes at least ⌈1/μ⌉ = {counted(n_weighted, 'point')} of its class; its "
             f"polygons have {len(step.reduced_a)} (class +1) and {len(step.reduced_b)} (class −1) vertices."]
    if np.isfinite(walk.mu_star):
        parts.append(f"The threshold μ* = {walk.mu_star:.4g} (ν* = {mu_to_nu(walk.mu_star, walk.m):.4g}) comes "
                     "from one LP: the smallest μ at which RCH(X₊, μ) and RCH(X₋, μ) share a point. At and above it "
                     "w = 0 (the zero solution of §3.1.1); below it the hulls separate.")
    else:
        parts.append("Even the convex hulls (μ = 1) are disjoint (the LP finds no common point): the classes are "
                     "linearly separable and w ≠ 0 at every μ; at μ = 1 the hyperplane is the hard-margin SVM's.")
    p = step.point_a
    if step.meet:
        parts.append(f"At this μ ≥ μ* the point {_vec(p)} lies in both reduced hulls (weights at most "
                     f"μ* ≤ μ: {step.solver}): the nearest points coincide, w = p₊ − p₋ = 0, and the ν-SVM has no "
                     "hyperplane.")
    else:
        q, w = step.point_b, step.w
        parts.append(f"The {step.solver} finds the nearest points p₊ = {_vec(p)} and p₋ = {_vec(q)}: "
                     f"w = p₊ − p₋ = {_vec(w)}, ‖w‖ = {step.distance:.4g}. The ν-SVM's hyperplane is w·x + b = 0 "
                     f"with b = {step.b_nu:.4g} (midway between the margins of the free points).")
    if k + 1 < len(walk):
        parts.append(f"Next: μ = {walk.mus[k + 1]:.4g}.")
    else:
        parts.append("This is the last step: the ν-SVM at the page's ν.")
    return "\n\n".join(parts)


def _vec(v) -> str:
    return "(" + ", ".join(f"{x:.4g}" for x in np.asarray(v, dtype=np.float64)) + ")"

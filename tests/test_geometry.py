"""Hull geometry: convex hulls, exact reduced-hull polygons, nearest points (ν-SVM) and the
zero-solution threshold (Zapién Arreola, Fehr and Burkhardt 2007, §3.1)."""

import numpy as np
import pytest
from scipy.optimize import linprog
from sklearn.svm import NuSVC

from svmviz.errors import ParameterError
from svmviz.geometry import (convex_hull, hull_boundary, hull_masks, hulls_intersect,
                             min_mu_containing, nearest_point_to,
                             nearest_points, nu_to_mu, reduced_convex_hull, reduced_hulls_intersect,
                             support_point, support_weights, w_norm_sweep, zero_solution_report)
from svmviz.geometry.zero_solution import c_svm_w

DIRS = np.linspace(0, 2 * np.pi, 1500, endpoint=False)
U = np.column_stack([np.cos(DIRS), np.sin(DIRS)])


def _support_values(X, mu):
    return np.array([u @ support_point(X, mu, u) for u in U])


# ------------------------------------------------------------------ convex hulls
def test_convex_hull_vertices_ccw_and_complete():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 2))
    h = convex_hull(X)
    P = X[h.vertices]
    area = 0.5 * np.sum(P[:, 0] * np.roll(P[:, 1], -1) - np.roll(P[:, 0], -1) * P[:, 1])
    assert area > 0  # counter-clockwise
    # every point lies inside: u·x ≤ max over vertices for many directions
    assert np.all((U @ X.T).max(axis=1) <= (U @ P.T).max(axis=1) + 1e-12)
    # every vertex is extreme: it is outside the hull of the other points
    for v in h.vertices:
        assert not np.isfinite(min_mu_containing(X[v], np.delete(X, v, axis=0)).min_mu)


def test_convex_hull_degenerate_cases():
    assert convex_hull(np.ones((4, 2))).dim == 0
    L = np.column_stack([np.arange(6.0), 2 * np.arange(6.0)])
    h = convex_hull(L[[3, 0, 5, 1]])
    assert h.dim == 1 and set(h.vertices) == {1, 2}
    # a flat set in 3-D: the hull is computed in its plane
    rng = np.random.default_rng(1)
    Z = np.column_stack([rng.normal(size=(30, 2)), np.zeros(30)])
    assert convex_hull(Z).dim == 2
    assert hull_boundary(Z).all()  # a flat hull is all boundary in R^3
    # points on an edge are boundary points, not vertices
    sq = np.array([[0, 0], [2, 0], [2, 2], [0, 2], [1, 0], [1, 1]], dtype=float)
    h = convex_hull(sq)
    assert set(h.vertices) == {0, 1, 2, 3} and set(h.boundary) == {0, 1, 2, 3, 4}


# ------------------------------------------------------------------ reduced convex hulls
@pytest.mark.parametrize("seed", [0, 1])
def test_reduced_hull_polygon_equals_brute_force_support(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(45, 2)) * [2.0, 0.7]
    for mu in [0.03, 0.05, 0.1, 0.125, 0.2, 1 / 3, 0.5, 0.8]:
        R = reduced_convex_hull(X, mu)
        assert not R.empty
        # equal support functions in every sampled direction ⇒ the same convex set
        np.testing.assert_allclose((U @ R.vertices.T).max(axis=1), _support_values(X, mu), atol=1e-10)
        # each vertex is the support point of its recorded direction (so it is a true vertex)
        for v, th in zip(R.vertices, R.directions):
            np.testing.assert_allclose(support_point(X, mu, np.array([np.cos(th), np.sin(th)])), v, atol=1e-12)


def test_reduced_hull_degenerate_points():
    # integer grid: many ties and collinear points
    X = np.array([[i, j] for i in range(5) for j in range(4)], dtype=float)
    for mu in [0.07, 0.1, 0.15, 0.25, 0.5]:
        R = reduced_convex_hull(X, mu)
        np.testing.assert_allclose((U @ R.vertices.T).max(axis=1), _support_values(X, mu), atol=1e-10)


def test_reduced_hull_limits():
    rng = np.random.default_rng(3)
    X = rng.uniform(size=(20, 2))
    assert reduced_convex_hull(X, 1 / 20 - 1e-4).empty
    c = reduced_convex_hull(X, 1 / 20)
    assert len(c.vertices) == 1
    np.testing.assert_allclose(c.vertices[0], X.mean(axis=0), atol=1e-14)
    hull = X[convex_hull(X).vertices]
    for mu in (1.0, 3.0):
        R = reduced_convex_hull(X, mu)
        assert {tuple(v) for v in R.vertices} == {tuple(v) for v in hull}
    with pytest.raises(ParameterError, match="2-D"):
        reduced_convex_hull(rng.normal(size=(10, 3)), 0.3)
    with pytest.raises(ParameterError, match="empty"):
        support_point(X, 0.01, np.array([1.0, 0.0]))


def test_support_point_is_the_lp_maximum_in_any_dimension():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(30, 4))
    for mu in (0.04, 0.09, 0.3):
        u = rng.normal(size=4)
        lam = support_weights(X, mu, u)
        assert abs(lam.sum() - 1) < 1e-12 and lam.max() <= mu + 1e-15
        lp = linprog(-(X @ u), A_eq=np.ones((1, 30)), b_eq=[1.0], bounds=[(0, mu)] * 30, method="highs")
        assert abs(u @ support_point(X, mu, u) + lp.fun) < 1e-10


# ------------------------------------------------------------------ nearest points and ν-SVM
def _two_blobs(seed=0):
    rng = np.random.default_rng(seed)
    Xa = rng.normal(size=(40, 2)) + [1.2, 0.5]
    Xb = rng.normal(size=(50, 2)) - [0.8, 0.3]
    return Xa, Xb


@pytest.mark.parametrize("solver", ["smo", "cvxpy"])
def test_nearest_points_match_nusvc(solver):
    Xa, Xb = _two_blobs()
    X, y = np.vstack([Xa, Xb]), np.r_[np.ones(40), -np.ones(50)]
    for nu in (0.3, 0.55, 0.85):  # 1/μ = 13.5, 24.75, 38.25: a free weight in each class
        r = nearest_points(Xa, Xb, nu_to_mu(nu, 90), solver=solver, tol=1e-9)
        clf = NuSVC(kernel="linear", nu=nu, tol=1e-10).fit(X, y)
        w = clf.coef_[0]
        assert w @ r.w / (np.linalg.norm(w) * np.linalg.norm(r.w)) >= 0.9999
        # the same hyperplane, not only the same direction
        assert abs(clf.intercept_[0] / np.linalg.norm(w) - r.b_nu / np.linalg.norm(r.w)) < 1e-5
        # the bisector passes through the middle of the segment
        assert abs(r.w @ (r.point_a + r.point_b) / 2 + r.b) < 1e-9
        assert abs(np.linalg.norm(r.point_a - r.point_b) - r.distance) < 1e-9
        assert r.weights_a.max() <= r.mu + 1e-12 and abs(r.weights_a.sum() - 1) < 1e-9


def test_nearest_points_backends_agree_and_bad_mu():
    Xa, Xb = _two_blobs(1)
    a = nearest_points(Xa, Xb, 0.08, solver="smo", tol=1e-9)
    b = nearest_points(Xa, Xb, 0.08, solver="cvxpy")
    assert abs(a.objective - b.objective) <= 1e-6 * max(1.0, b.objective)
    with pytest.raises(ParameterError, match="empty"):
        nearest_points(Xa, Xb, 0.01)
    # the LP says the reduced hulls meet exactly when the nearest-point distance is 0
    seen = set()
    for mu in (0.025, 0.04, 0.08, 0.5):
        meet = reduced_hulls_intersect(Xa, Xb, mu).intersect
        assert meet == (nearest_points(Xa, Xb, mu, solver="smo", tol=1e-9).distance < 1e-4)
        seen.add(meet)
    assert seen == {True, False}


# ------------------------------------------------------------------ zero solution
def _ring_and_core(seed=0):
    """Hard class +1: a ring; the other class: a small off-centre blob whose centroid is inside."""
    rng = np.random.default_rng(seed)
    t = rng.uniform(0, 2 * np.pi, 60)
    ring = np.column_stack([np.cos(t), np.sin(t)]) * rng.uniform(0.8, 1.2, (60, 1))
    core = rng.normal(size=(25, 2)) * 0.25 + [0.35, 0.1]
    return np.vstack([ring, core]), np.r_[np.ones(60), -np.ones(25)]


def test_zero_solution_threshold_predicts_the_solver():
    X, y = _ring_and_core()
    case = zero_solution_report(X, y, 1.0, 1.0).case(1)
    Dstar = case.D_threshold
    assert np.isfinite(Dstar)
    for solver in ("smo", "cvxpy"):
        below = np.linalg.norm(c_svm_w(X, y, 0.8 * Dstar, 1.0, solver, 1e-9))
        above = np.linalg.norm(c_svm_w(X, y, 1.2 * Dstar, 1.0, solver, 1e-9))
        assert below > 1e-3
        assert above < 1e-5
    sweep = w_norm_sweep(X, y, 1, 1.0, Dstar * np.array([0.5, 0.9, 1.1, 2.0]), tol=1e-9)
    assert np.all(sweep.w_norm[:2] > 1e-3) and np.all(sweep.w_norm[2:] < 1e-5)
    # the H1 view: the centroid lies in conv(hard class), so its nearest hull point is itself
    h1 = nearest_point_to(case.centroid_other, X[y == 1], 1.0)
    assert h1.distance < 1e-6


def test_h1_nearest_point_outside():
    Xa, Xb = _two_blobs(2)
    p = Xb.mean(axis=0) - [3.0, 0.0]
    r = nearest_point_to(p, Xa, 1.0, solver="cvxpy")
    assert r.distance > 0.5
    # optimality: p* is the support point of conv(Xa) minimising (p* − p)·x
    u = p - r.point
    assert u @ r.point >= (Xa @ u).max() - 1e-6


@pytest.mark.parametrize("solver", ["smo", "cvxpy"])
def test_mu_below_one_over_m_by_round_off_is_the_centroid(solver):
    """The SVM tree's H1-SVM floor C_k = m_other/m_hard gives μ = C_k/m_other, which lands one unit in
    the last place below 1/m_hard (78 other, 65 hard samples: μ·65 = 1 − 1.1e-16). RCH(hard, μ) is
    then the single point of weights 1/m, the centroid, as the polygon and support functions read
    it; the nearest-point QPs must start there too, not refuse their own start as out of bounds."""
    rng = np.random.default_rng(0)
    Xa, Xb = rng.normal(size=(65, 2)), rng.normal(size=(90, 2)) + [3.0, 0.0]
    mu = (78 / 65) / 78
    assert mu * 65 < 1 and mu * 65 >= 1 - 1e-12          # below 1/m by round-off only
    p = Xb.mean(axis=0)
    r = nearest_point_to(p, Xa, mu, solver=solver)
    assert np.allclose(r.point, Xa.mean(axis=0), atol=1e-9)
    assert np.isclose(r.distance, np.linalg.norm(Xa.mean(axis=0) - p), atol=1e-9)
    np.testing.assert_allclose(support_point(Xa, mu, [1.0, 0.0]), Xa.mean(axis=0), atol=1e-9)
    pts = nearest_points(Xa, Xb, mu, solver=solver)       # the smaller class is at its centroid
    assert np.allclose(pts.point_a, Xa.mean(axis=0), atol=1e-6)


# ------------------------------------------------------------------ LP memory and formulation
def test_min_mu_equals_the_direct_lp():
    """The homogenised LP (u = λ/t, s = 1/t) gives the t* of min t s.t. Xᵀλ = p, Σλ = 1, λ ≤ t."""
    rng = np.random.default_rng(11)
    seen = set()
    for k in range(25):
        m, d = int(rng.integers(5, 60)), int(rng.integers(1, 4))
        X, p = rng.normal(size=(m, d)), rng.normal(size=d) * 0.7
        r = min_mu_containing(p, X)
        A_ub = np.hstack([np.eye(m), -np.ones((m, 1))])
        A_eq = np.vstack([np.hstack([X.T, np.zeros((d, 1))]), np.r_[np.ones(m), 0.0][None, :]])
        ref = linprog(np.r_[np.zeros(m), 1.0], A_ub=A_ub, b_ub=np.zeros(m), A_eq=A_eq, b_eq=np.r_[p, 1.0],
                      bounds=(0, None), method="highs")
        seen.add(ref.status)
        if ref.status != 0:
            assert not np.isfinite(r.min_mu) and r.separation is not None
            continue
        assert abs(r.min_mu - ref.x[-1]) <= 1e-8 * max(1.0, ref.x[-1])
        np.testing.assert_allclose(r.weights @ X, p, atol=1e-8)
        assert abs(r.weights.sum() - 1) < 1e-9 and r.weights.max() <= r.min_mu * (1 + 1e-9)
    assert seen == {0, 2}  # both inside and outside cases were exercised


def test_hull_lps_memory_is_linear_in_m():
    """No dense m×m array. At m = 20,000 an m×m float64 matrix is 3.2 GB; the
    Python-side peak of the hull LPs stays below 60 MB."""
    import tracemalloc

    rng = np.random.default_rng(12)
    m = 20_000
    X = rng.normal(size=(m, 2))
    tracemalloc.start()
    try:
        inside = min_mu_containing(np.array([0.3, -0.2]), X)
        meet = hulls_intersect(X[: m // 2], X[m // 2:] + 0.1)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert np.isfinite(inside.min_mu) and meet.intersect
    assert peak < 60e6 < m * m * 8 / 50


def test_hull_masks_vertices_give_the_same_side_tests():
    rng = np.random.default_rng(13)
    X = rng.normal(size=(200, 3))
    boundary, vertices = hull_masks(X)
    assert vertices.sum() < boundary.sum() + 1 and not np.any(vertices & ~boundary)
    # an affine function ≥ 0 on the vertices is ≥ 0 on every point
    for _ in range(20):
        w = rng.normal(size=3)
        b = -(X[vertices] @ w).min()
        assert (X @ w + b).min() >= -1e-12

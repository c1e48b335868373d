"""Convex hulls, reduced convex hulls and nearest points (Zapién Arreola, Fehr and
Burkhardt 2007, §3.1, Fig. 3.1–3.3; the binary ν-SVM view of Jenssen et al. 2012).

RCH(X, μ) = {Σ λ_i x_i : Σ λ_i = 1, 0 ≤ λ_i ≤ μ}: empty for μ < 1/m, the centroid at μ = 1/m,
conv(X) for μ ≥ 1. Its support point in direction u puts μ on the k = ⌊1/μ⌋ points with the largest
u·x and the remainder 1 − kμ on the next one, so it only changes where the order of the u·x_i
changes, i.e. at directions u ⊥ x_i − x_j. ``reduced_convex_hull`` enumerates those directions
(exact polygon in 2-D, no sampling).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.spatial import ConvexHull, QhullError

from svmviz.errors import ParameterError
from svmviz.kernels import Kernel
from svmviz.registry import register_record
from svmviz.solvers import QPProblem, solve_qp


def _points(X, name="X") -> np.ndarray:
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] == 0:
        raise ParameterError(f"{name} must be a non-empty 2-D array of points (samples × features)")
    if not np.all(np.isfinite(X)):
        raise ParameterError(f"{name} contains NaN or infinite values")
    return X


# ---------------------------------------------------------------------------------- convex hulls
@register_record
@dataclass
class Hull:
    """conv(X). ``vertices``: indices of its extreme points (counter-clockwise in 2-D);
    ``boundary``: indices of every point on its boundary (vertices and points on an edge/facet);
    ``dim``: the affine dimension of X (0 a point, 1 a segment, ...)."""

    vertices: np.ndarray
    boundary: np.ndarray
    dim: int
    n_features: int

    def polygon(self, X) -> np.ndarray:
        """The vertex coordinates in order (2-D: a closed walk around the hull without repeat)."""
        return np.asarray(X, dtype=np.float64)[self.vertices]


def _affine_basis(X: np.ndarray):
    """(centre, orthonormal basis rows of the affine hull of X)."""
    c = X.mean(axis=0)
    _, s, Vt = np.linalg.svd(X - c, full_matrices=False)
    tol = max(X.shape) * np.finfo(float).eps * max(1.0, float(np.abs(X).max())) * 10
    return c, Vt[s > max(tol, s[0] * 1e-12 if s.size else 0.0)] if s.size else Vt[:0]


def convex_hull(X) -> Hull:
    """The convex hull of the rows of X with Qhull (SciPy). Degenerate sets are handled: one
    distinct point, collinear points (the two extremes), and points spanning a lower-dimensional
    flat (the hull is computed inside that flat)."""
    X = _points(X)
    m, d = X.shape
    c, B = _affine_basis(X)
    r = B.shape[0]
    if r == 0:
        return Hull(np.array([0]), np.arange(m), 0, d)
    Z = (X - c) @ B.T
    if r == 1:
        t = Z[:, 0]
        lo, hi = int(np.argmin(t)), int(np.argmax(t))
        return Hull(np.array([lo, hi]), np.array(sorted({lo, hi})), 1, d)
    try:
        # "Qc" keeps points that lie on a facet (coplanar) so ``boundary`` is complete.
        h = ConvexHull(Z, qhull_options="Qc")
    except QhullError as exc:  # pragma: no cover - Qhull failing on a full-rank flat set
        raise ParameterError(f"the convex hull could not be computed: {exc}") from None
    verts = h.vertices.astype(np.int64)
    if d == 2:  # SciPy gives 2-D vertices counter-clockwise in Z; keep the orientation of X
        P = X[verts]
        area = np.sum(P[:, 0] * np.roll(P[:, 1], -1) - np.roll(P[:, 0], -1) * P[:, 1])
        if area < 0:
            verts = verts[::-1]
    cop = h.coplanar[:, 0] if h.coplanar.size else np.empty(0, dtype=np.int64)
    return Hull(verts, np.unique(np.r_[verts, cop]).astype(np.int64), r, d)


def hull_boundary(X, max_dim: int = 8) -> np.ndarray:
    """Boolean mask of the points of X on the boundary of conv(X) — the candidates for a
    supporting hyperplane through the point. When the hull is not full-dimensional every point
    lies on its boundary in R^d (all True); above ``max_dim`` Qhull is impractical and every
    point is returned as a candidate (no filtering, never a wrong answer)."""
    return hull_masks(X, max_dim)[0]


def hull_masks(X, max_dim: int = 8) -> tuple[np.ndarray, np.ndarray]:
    """(boundary, vertices): boolean masks of the points on the boundary of conv(X) (as
    ``hull_boundary``) and of its extreme points. An affine function that is ≥ 0 on the vertices
    is ≥ 0 on every point, so LPs over "all points on one side" need only the vertex rows (the
    guard-vector LPs of Yang and Ahuja 2000, separability). Above ``max_dim`` both masks are all True."""
    X = _points(X)
    m, d = X.shape
    boundary = np.ones(m, dtype=bool)
    vertices = np.ones(m, dtype=bool)
    if d > max_dim or m <= d + 1:
        return boundary, vertices
    h = convex_hull(X)
    vertices[:] = False
    vertices[h.vertices] = True
    if h.dim == d:
        boundary[:] = False
        boundary[h.boundary] = True
    return boundary, vertices


# ---------------------------------------------------------------------------- reduced convex hulls
def _check_mu(mu) -> float:
    mu = float(mu)
    if not np.isfinite(mu) or mu <= 0:
        raise ParameterError(f"mu must be a positive number, got {mu!r}")
    return mu


def _weight_bound(mu: float, m: int) -> float:
    """The bound on each of m weights summing to 1 in RCH(·, μ): μ (at most 1), and 1/m when μ lies
    below 1/m by round-off only (μ·m ≥ 1 − 1e-12, which the checks accept as not empty): the hull is
    then the single point of weights 1/m, as ``_k_r`` reads it. The SVM tree's H1-SVM floor
    C_k = m_other/m_hard gives μ = C_k/m_other one unit in the last place below 1/m_hard."""
    return max(min(mu, 1.0), 1.0 / m)


def _k_r(mu: float, m: int):
    """k = ⌊1/μ⌋ points at weight μ and the remainder r = 1 − kμ (μ ≥ 1/m assumed)."""
    k = int(np.floor(1.0 / mu + 1e-12))
    k = min(k, m)
    r = 1.0 - k * mu
    if r < 1e-12:
        r = 0.0
    return k, r


def support_weights(X, mu, u) -> np.ndarray:
    """λ of the support point of RCH(X, μ) in direction u (μ on the ⌊1/μ⌋ largest u·x, the
    remainder on the next one). Ties are broken by index, giving one of the maximisers."""
    X = _points(X)
    mu = _check_mu(mu)
    m = X.shape[0]
    u = np.asarray(u, dtype=np.float64)
    if u.shape != (X.shape[1],):
        raise ParameterError(f"the direction u must have {X.shape[1]} coordinates, got shape {u.shape}")
    if mu * m < 1 - 1e-12:
        raise ParameterError(f"RCH(X, μ) is empty for μ = {mu:g} < 1/m = {1 / m:g}: the weights "
                             "(each at most μ) cannot sum to 1")
    lam = np.zeros(m)
    if mu >= 1:
        lam[int(np.argmax(X @ u))] = 1.0
        return lam
    k, r = _k_r(mu, m)
    order = np.lexsort((np.arange(m), -(X @ u)))
    lam[order[:k]] = mu
    if r > 0 and k < m:
        lam[order[k]] = r
    return lam


def support_point(X, mu, u) -> np.ndarray:
    """The point of RCH(X, μ) maximising u·x (any dimension)."""
    X = _points(X)
    return support_weights(X, mu, u) @ X


@register_record
@dataclass
class ReducedHull:
    """The exact polygon of RCH(X, μ) in 2-D. ``vertices`` (v × 2, counter-clockwise; empty when
    μ < 1/m); ``directions``: for each vertex an angle θ whose direction (cos θ, sin θ) has that
    vertex as its unique support point; ``k``/``remainder``: ⌊1/μ⌋ and 1 − kμ."""

    vertices: np.ndarray
    directions: np.ndarray
    mu: float
    k: int
    remainder: float
    empty: bool


def reduced_convex_hull(X, mu) -> ReducedHull:
    """The exact polygon of RCH(X, μ) for 2-D points (see the module docstring)."""
    X = _points(X)
    mu = _check_mu(mu)
    m, d = X.shape
    if d != 2:
        raise ParameterError(f"the reduced convex hull polygon is drawn for 2-D points, but X has {d} "
                             "features; choose two features (or use support_point, which works in any "
                             "dimension)")
    if mu * m < 1 - 1e-12:
        return ReducedHull(np.empty((0, 2)), np.empty(0), mu, 0, 0.0, True)
    k, r = _k_r(mu, m)
    if mu >= 1 or k == 1 and r == 0:
        h = convex_hull(X)
        V = X[h.vertices]
        if h.dim == 2:
            ang = _vertex_directions(V)
        else:
            ang = np.zeros(len(V))
            if h.dim == 1:
                e = V[1] - V[0]
                ang = np.array([np.arctan2(-e[1], -e[0]), np.arctan2(e[1], e[0])])
        return ReducedHull(V, ang, mu, 1, 0.0, False)
    if k >= m:  # μ = 1/m: every weight is 1/m, the centroid
        return ReducedHull(X.mean(axis=0)[None, :], np.zeros(1), mu, m, 0.0, False)
    crit = _critical_angles(X, k, r)
    scale = max(1.0, float(np.abs(X).max()))
    if crit.size == 0:
        mids = np.array([0.0])
    else:
        nxt = np.r_[crit[1:], crit[0] + 2 * np.pi]
        gap = nxt - crit
        mids = (crit + 0.5 * gap)[gap > 1e-12]
        if mids.size == 0:
            mids = np.array([crit[0] + np.pi])
    verts, dirs = [], []
    for th in mids:
        p = support_point(X, mu, np.array([np.cos(th), np.sin(th)]))
        if verts and np.allclose(p, verts[-1], rtol=0, atol=1e-12 * scale):
            continue
        verts.append(p)
        dirs.append(th)
    if len(verts) > 1 and np.allclose(verts[0], verts[-1], rtol=0, atol=1e-12 * scale):
        verts.pop()
        dirs.pop()
    return ReducedHull(np.array(verts), np.mod(np.array(dirs), 2 * np.pi), mu, k, r, False)


def _critical_angles(X: np.ndarray, k: int, r: float) -> np.ndarray:
    """Directions (angles) at which the support point of RCH(X, μ) may change.

    For a directed pair i→j the direction u = left normal of x_j − x_i makes x_i and x_j tie;
    the points ranked above them are exactly those strictly left of the line i→j, counted for
    all j at once by sorting the angles around x_i. The support point changes only when the
    tied block straddles rank k−1/k (the top-k set) or, with a remainder, rank k/k+1."""
    m = len(X)
    scale = max(1.0, float(np.abs(X).max()))
    eps = 1e-12
    out = []
    for i in range(m):
        D = np.delete(X, i, axis=0) - X[i]
        dup = np.hypot(D[:, 0], D[:, 1]) <= 1e-14 * scale
        D = D[~dup]
        if D.shape[0] == 0:
            continue
        a = np.sort(np.mod(np.arctan2(D[:, 1], D[:, 0]), 2 * np.pi))
        a2 = np.r_[a, a + 2 * np.pi, a + 4 * np.pi]
        left = (np.searchsorted(a2, a + np.pi - eps, "left") - np.searchsorted(a2, a + eps, "right"))
        same = np.searchsorted(a2, a + eps, "right") - np.searchsorted(a2, a - eps, "left")
        opp = (np.searchsorted(a2, a + np.pi + eps, "right")
               - np.searchsorted(a2, a + np.pi - eps, "left"))
        tied = 1 + int(dup.sum()) + same + opp          # x_i, its duplicates, the line's points
        last = left + tied - 1
        if r == 0:
            rel = (left <= k - 1) & (last >= k)
        else:
            rel = (left <= k) & (last >= k - 1)
        out.append(a[rel] + 0.5 * np.pi)
    return np.sort(np.mod(np.concatenate(out), 2 * np.pi)) if out else np.empty(0)


def _vertex_directions(V: np.ndarray) -> np.ndarray:
    """For a CCW polygon, the angle of the bisector of the outer normals at each vertex."""
    prev_e = V - np.roll(V, 1, axis=0)
    next_e = np.roll(V, -1, axis=0) - V
    n1 = np.column_stack([prev_e[:, 1], -prev_e[:, 0]])
    n2 = np.column_stack([next_e[:, 1], -next_e[:, 0]])
    n1 /= np.linalg.norm(n1, axis=1, keepdims=True)
    n2 /= np.linalg.norm(n2, axis=1, keepdims=True)
    b = n1 + n2
    return np.mod(np.arctan2(b[:, 1], b[:, 0]), 2 * np.pi)


# ----------------------------------------------------------------------------------- nearest points
@register_record
@dataclass
class NearestPoints:
    """The nearest points of RCH(Xa, μ) and RCH(Xb, μ) (the ν-SVM dual).

    ``point_a``/``point_b``/``w`` are coordinates (None for a non-linear kernel, where they live
    in feature space); ``w = point_a − point_b``; ``b`` makes w·x + b = 0 the bisector of the
    segment; ``b_nu`` the ν-SVM offset (the hyperplane midway between the two margin levels
    w·x = ρ_a and w·x = −ρ_b of the free points — what LIBSVM's NuSVC uses; equal to ``b`` when
    the hulls are not reduced). ``distance`` = ‖point_a − point_b‖ in feature space."""

    point_a: np.ndarray | None
    point_b: np.ndarray | None
    weights_a: np.ndarray
    weights_b: np.ndarray
    w: np.ndarray | None
    b: float
    b_nu: float
    distance: float
    mu: float
    kernel: dict
    objective: float
    backend: str

    def decision_function(self, X, Xa, Xb) -> np.ndarray:
        """Σ λ_a k(x_a, x) − Σ λ_b k(x_b, x) + b_nu for the rows of X (any kernel)."""
        kern = Kernel(**self.kernel)
        X = np.asarray(X, dtype=np.float64)
        return (kern.gram(X, np.asarray(Xa, float)) @ self.weights_a
                - kern.gram(X, np.asarray(Xb, float)) @ self.weights_b + self.b_nu)


def nu_to_mu(nu: float, m: int) -> float:
    """μ = 2/(ν m): the ν-SVM with ν on m samples is the nearest-point problem of RCH(·, μ)."""
    if not 0 < nu <= 1:
        raise ParameterError(f"nu must lie in (0, 1], got {nu!r}")
    return 2.0 / (nu * m)


def mu_to_nu(mu: float, m: int) -> float:
    return 2.0 / (mu * m)


def nearest_points(Xa, Xb, mu, kernel=None, solver: str = "smo", tol: float = 1e-6) -> NearestPoints:
    """min ‖Σ λ_a φ(x_a) − Σ λ_b φ(x_b)‖², Σ λ_a = Σ λ_b = 1, 0 ≤ λ ≤ μ, as a ``QPProblem`` with
    one equality group per class (Zapién Arreola et al. 2007, Fig. 3.2; the ν-SVM dual divided by νm/2).

    ``kernel``: None/"linear" or a ``Kernel``; ``solver``: "smo" or "cvxpy"."""
    Xa, Xb = _points(Xa, "Xa"), _points(Xb, "Xb")
    if Xa.shape[1] != Xb.shape[1]:
        raise ParameterError(f"Xa has {Xa.shape[1]} features and Xb {Xb.shape[1]}")
    mu = _check_mu(mu)
    ma, mb = len(Xa), len(Xb)
    if mu * min(ma, mb) < 1 - 1e-12:
        raise ParameterError(
            f"μ = {mu:g} is below 1/{min(ma, mb)}: the reduced hull of the smaller class "
            f"({min(ma, mb)} points) is empty. Use μ ≥ {1 / min(ma, mb):.4g} (ν ≤ 2·m_small/m).")
    if kernel is None or kernel == "linear":
        kernel = Kernel("linear")
    elif isinstance(kernel, str):
        kernel = Kernel.from_params(kernel, X=np.vstack([Xa, Xb]))
    elif not isinstance(kernel, Kernel):
        raise ParameterError("kernel must be None, a kernel name or a svmviz.kernels.Kernel")
    X = np.vstack([Xa, Xb])
    t = np.r_[np.ones(ma), -np.ones(mb)]
    groups = np.r_[np.zeros(ma, dtype=np.int64), np.ones(mb, dtype=np.int64)]
    upper = np.r_[np.full(ma, _weight_bound(mu, ma)), np.full(mb, _weight_bound(mu, mb))]
    prob = QPProblem(p=np.zeros(ma + mb), lower=0.0, upper=upper, kernel=kernel, X=X, signs=t,
                     groups=groups, eq_rhs=np.ones(2))
    alpha0 = np.r_[np.full(ma, 1.0 / ma), np.full(mb, 1.0 / mb)]
    opts = {"alpha0": alpha0} if solver == "smo" else {}
    res = solve_qp(prob, backend=solver, tol=tol, **opts)
    lam = res.alpha
    la, lb = lam[:ma], lam[ma:]
    Kaa, Kbb, Kab = kernel.gram(Xa), kernel.gram(Xb), kernel.gram(Xa, Xb)
    na, nb, ab = float(la @ Kaa @ la), float(lb @ Kbb @ lb), float(la @ Kab @ lb)
    dist = float(np.sqrt(max(na + nb - 2 * ab, 0.0)))
    # Bisector: w·x + b = 0 at (p_a + p_b)/2  ⇒  b = −(‖p_a‖² − ‖p_b‖²)/2.
    b = -0.5 * (na - nb)
    # ν-SVM offset: the group multipliers are ρ_a = w·x (free a) and ρ_b = −w·x (free b).
    rho = np.asarray(res.rho, dtype=np.float64)
    b_nu = -0.5 * (rho[0] - rho[1])
    if kernel.name == "linear":
        pa, pb = la @ Xa, lb @ Xb
        w = pa - pb
    else:
        pa = pb = w = None
    return NearestPoints(pa, pb, la, lb, w, float(b), float(b_nu), dist, mu,
                         {"name": kernel.name, "gamma": kernel.gamma, "degree": kernel.degree,
                          "coef0": kernel.coef0}, float(res.objective), res.backend)


@register_record
@dataclass
class NearestToPoint:
    """The point of RCH(X, μ) nearest to p (μ ≥ 1: of conv(X)), its weights and distance."""

    point: np.ndarray
    weights: np.ndarray
    distance: float
    mu: float


def nearest_point_to(p, X, mu: float = 1.0, solver: str = "smo", tol: float = 1e-8) -> NearestToPoint:
    """min ‖Σ λ_i x_i − p‖², Σλ = 1, 0 ≤ λ ≤ μ (the H1-SVM geometry of Zapién Arreola et al. 2007, §3.1.2 with
    p the non-hard centroid: w ∝ p* − s̄, zero exactly when s̄ ∈ conv(X_hard))."""
    X = _points(X)
    p = np.asarray(p, dtype=np.float64)
    if p.shape != (X.shape[1],):
        raise ParameterError(f"the point must have {X.shape[1]} coordinates, got shape {p.shape}")
    mu = _check_mu(mu)
    m = len(X)
    if mu * m < 1 - 1e-12:
        raise ParameterError(f"RCH(X, μ) is empty for μ = {mu:g} < 1/m = {1 / m:g}")
    prob = QPProblem(p=-(X @ p), lower=0.0, upper=_weight_bound(mu, m), kernel=Kernel("linear"), X=X,
                     groups=np.zeros(m, dtype=np.int64), eq_rhs=np.ones(1))
    opts = {"alpha0": np.full(m, 1.0 / m)} if solver == "smo" else {}
    lam = solve_qp(prob, backend=solver, tol=tol, **opts).alpha
    q = lam @ X
    return NearestToPoint(q, lam, float(np.linalg.norm(q - p)), mu)

"""Guard vectors (seed 001, Yang & Ahuja): one LP per point finds a superset of the support
vectors, then the SVM is trained on that superset only.

A point p_i is a *guard vector* when some hyperplane through it has every other point on its own
label's side (ties allowed). Every support vector of the hard-margin SVM is one (seed 001 §1), so
the SVM on the guard vectors is the SVM on all points (§3.2).

- ``method="seed"``: the dual-space LP of §3.1. The dual of p = (p_1..p_n) is the hyperplane
  x_n = p_1 x_1 + … + p_{n−1} x_{n−1} − p_n; a dual point x is the primal hyperplane
  w = (x_1..x_{n−1}, −1), b = −x_n (last coordinate fixed at −1). Constraints: p_i's dual with
  "=", the duals of its own class with "≥" and of the other class with "≤"; if infeasible, every
  inequality reversed (Algorithm "Finding the guard vectors", steps 2–3): two LPs per point.
- ``method="single"``: the orientation-free LP of DESIGN.md: find (w, b) with w·p_i + b = 0,
  y_j(w·p_j + b) ≥ 0 for all j and Σ_j y_j(w·p_j + b) = 1 (one LP per point; it also admits
  the vertical hyperplanes the seed's parametrisation leaves out — equal in general position).
- Pre-filter: a guard vector lies on a supporting hyperplane of its own class, i.e. on the
  boundary of its class's convex hull, so interior points are skipped (Qhull; DESIGN.md).
- ``delta`` > 0: the projection τ_Δ of §3.3, x_i ↦ (x_i, Δ e_i), which makes any data separable;
  it equals adding Δ² to the diagonal of the kernel matrix (a new point gets no extra coordinate,
  so prediction uses the plain kernel).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from sklearn.utils.multiclass import type_of_target

from svmviz.errors import DataError, ParameterError
from svmviz.export.registry import register_estimator, register_record
from svmviz.geometry.hull_lp import hulls_intersect
from svmviz.geometry.hulls import hull_boundary
from svmviz.kernels import Kernel
from svmviz.models.svc import BinarySVC, _BinaryKernelSVM
from svmviz.solvers.lp import solve_lp

METHODS = ("seed", "single")

# Status of each point's test (``lp_status_``).
GUARD_A = "guard (orientation A: own class on or below the hyperplane)"
GUARD_B = "guard (orientation B: own class on or above the hyperplane)"
GUARD_SINGLE = "guard (single LP feasible)"
NOT_GUARD = "not a guard vector (LP infeasible)"
SKIPPED = "skipped: inside its own class's convex hull"


@register_record
@dataclass
class GuardLPs:
    """The outcome of the per-point LPs on coordinates Z with labels y (±1).

    ``guard``: mask; ``status``: one of the strings above per point; ``orientation``: +1 (A), −1
    (B) for a guard found by the seed's LP, 0 otherwise; ``tested``: points whose LP was solved
    (all, or the hull-boundary points with the pre-filter); ``planes``: for each guard vector a
    hyperplane (w, b) through it with y_j(w·z_j + b) ≥ 0 for every j (NaN elsewhere)."""

    guard: np.ndarray
    status: np.ndarray
    orientation: np.ndarray
    tested: np.ndarray
    planes: np.ndarray
    n_lps: int
    lp_time: float
    method: str


def _seed_lp(Z, same, i, sigma, backend):
    """Seed 001 §3.1 for point i with orientation σ: variables x ∈ R^n (the dual point). The seed
    maximises x_1, but only feasibility matters (§3.1), so the objective is zero."""
    m, n = Z.shape
    A = np.column_stack([Z[:, :n - 1], -np.ones(m)])     # row j: [p_j1..p_j,n−1, −1]
    rhs = Z[:, n - 1]                                     # p_jn
    others = np.arange(m) != i
    s = np.where(same, 1.0, -1.0)[others] * sigma         # "≥" for own class (σ = +1)
    r = solve_lp(np.zeros(n), A_ub=-s[:, None] * A[others], b_ub=-s * rhs[others],
                 A_eq=A[i:i + 1], b_eq=rhs[i:i + 1], bounds=(None, None), backend=backend)
    if not r.feasible:
        return r, None
    x = r.x
    w = np.r_[x[:n - 1], -1.0]
    return r, (w, -x[n - 1])


def _single_lp(Z, y, i, backend):
    """DESIGN.md's orientation-free LP for point i: variables (w, b) ∈ R^{n+1}."""
    m, n = Z.shape
    A = np.column_stack([Z, np.ones(m)])
    others = np.arange(m) != i
    A_eq = np.vstack([A[i], y @ A])
    r = solve_lp(np.zeros(n + 1), A_ub=-y[others, None] * A[others], b_ub=np.zeros(m - 1),
                 A_eq=A_eq, b_eq=np.array([0.0, 1.0]), bounds=(None, None), backend=backend)
    if not r.feasible:
        return r, None
    return r, (r.x[:n], float(r.x[n]))


def guard_vector_lps(Z, y, method: str = "seed", prefilter: bool = True, backend: str = "highs",
                     progress=None) -> GuardLPs:
    """Run the guard-vector LPs of seed 001 §3.1 on the rows of Z with labels y (±1).

    ``progress(done, total)`` is called after each point (for a progress bar)."""
    Z = np.asarray(Z, dtype=np.float64)
    y = np.where(np.asarray(y) > 0, 1.0, -1.0)
    if method not in METHODS:
        raise ParameterError(f"method must be one of {', '.join(METHODS)}, not {method!r}")
    m, n = Z.shape
    tested = np.ones(m, dtype=bool)
    if prefilter:
        for c in (-1.0, 1.0):
            idx = np.flatnonzero(y == c)
            tested[idx] = hull_boundary(Z[idx])
    guard = np.zeros(m, dtype=bool)
    status = np.array([SKIPPED] * m, dtype=object)
    orient = np.zeros(m, dtype=np.int64)
    planes = np.full((m, n + 1), np.nan)
    n_lps, lp_time = 0, 0.0
    todo = np.flatnonzero(tested)
    for done, i in enumerate(todo, 1):
        if method == "seed":
            same = y == y[i]
            status[i] = NOT_GUARD
            for sigma, label in ((1.0, GUARD_A), (-1.0, GUARD_B)):
                r, plane = _seed_lp(Z, same, i, sigma, backend)
                n_lps += 1
                lp_time += r.time_s
                if plane is not None:
                    w, b = plane
                    flip = sigma * y[i]  # make y_j(w·z_j + b) ≥ 0
                    guard[i], status[i], orient[i] = True, label, int(sigma)
                    planes[i] = np.r_[flip * w, flip * b]
                    break
        else:
            r, plane = _single_lp(Z, y, i, backend)
            n_lps += 1
            lp_time += r.time_s
            if plane is None:
                status[i] = NOT_GUARD
            else:
                guard[i], status[i] = True, GUARD_SINGLE
                planes[i] = np.r_[plane[0], plane[1]]
        if progress is not None:
            progress(done, len(todo))
    return GuardLPs(guard, status.astype(str), orient, tested, planes, n_lps, lp_time, method)


def tau_delta(X, delta: float) -> np.ndarray:
    """Seed 001 §3.3: x_i ↦ (x_i, Δ e_i) ∈ R^{n+m}."""
    X = np.asarray(X, dtype=np.float64)
    return np.hstack([X, delta * np.eye(X.shape[0])])


def kernel_map(K) -> np.ndarray:
    """Coordinates Z with Z Zᵀ = K (the empirical kernel map, from an eigendecomposition):
    the LPs need explicit coordinates, the kernel only gives inner products."""
    w, V = np.linalg.eigh(0.5 * (K + K.T))
    keep = w > max(w.max(), 0.0) * 1e-12
    return V[:, keep] * np.sqrt(w[keep])


_FITTED = ("classes_", "n_features_in_", "guard_vectors_", "lp_status_", "orientation_", "tested_",
           "planes_", "n_lps_", "lp_time_", "qp_time_", "support_", "support_vectors_",
           "dual_coef_", "intercept_", "alpha_", "hard_margin_", "converged_", "kernel_params_",
           "fit_time_")


@register_estimator(*_FITTED)
class GuardVectorSVC(_BinaryKernelSVM):
    """Hard-margin SVM trained on the guard vectors found by one LP per point (seed 001).

    Parameters
    ----------
    kernel, gamma, degree, coef0 : as ``sklearn.svm.SVC`` (default linear, as in the seed). For a
        non-linear kernel the LPs run on the empirical kernel map (coordinates with Z Zᵀ = K).
    C : float, box bound of the final QP; large (1e6) for the hard margin of the seed
    method : "seed" (two dual-space LPs per point, §3.1) or "single" (one orientation-free LP)
    prefilter : test only points on the boundary of their own class's hull (same result)
    delta : Δ ≥ 0 of the projection τ_Δ (§3.3), i.e. Δ² added to the kernel diagonal
    solver : "smo" or "cvxpy" for the QP on the guard vectors; tol : its KKT tolerance

    Attributes
    ----------
    guard_vectors_ : bool mask over the training set; lp_status_ : per-point outcome (str);
    orientation_ : +1/−1 orientation of the seed's LP that was feasible (0: none or single LP);
    tested_ : points whose LP was solved; planes_ : a separating hyperplane (w, b) in LP
    coordinates through each guard vector; n_lps_, lp_time_ : LP count and time;
    qp_time_ : time of the QP on the guard vectors; support_ : indices into the full training
    set; support_vectors_, dual_coef_, intercept_, coef_ (linear kernel) : as ``SVC``;
    alpha_ : the QP's α on the guard vectors; hard_margin_ : True when no α reached C (then the
    solution is the hard-margin SVM of all points); converged_ : whether the QP reached ``tol``
    (a tiny margin makes the hard-margin QP ill-conditioned: use solver="cvxpy" there).

    Data that are not separable (in the kernel space, after τ_Δ) have no guard vectors and no
    hard-margin SVM: ``fit`` raises ``DataError`` saying so.
    """

    def __init__(self, kernel="linear", C=1e6, method="seed", prefilter=True, delta=0.0,
                 solver="smo", gamma="scale", degree=3, coef0=0.0, tol=1e-3):
        self.kernel = kernel
        self.C = C
        self.method = method
        self.prefilter = prefilter
        self.delta = delta
        self.solver = solver
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.tol = tol

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    # ------------------------------------------------------------------ coordinates for the LPs
    def _coordinates(self, X, kern: Kernel) -> np.ndarray:
        if kern.name == "linear":
            return tau_delta(X, self.delta) if self.delta > 0 else X
        K = kern.gram(X)
        K[np.diag_indices_from(K)] += self.delta ** 2
        return kernel_map(K)

    def fit(self, X, y, progress=None):
        t0 = time.perf_counter()
        y_type = type_of_target(y, input_name="y", raise_unknown=True)
        if y_type not in ("binary", "unknown") and np.unique(np.asarray(y)).size > 2:
            raise DataError(f"Only binary classification is supported. The type of the target is "
                            f"{y_type}: guard vectors separate two classes (pick two classes).")
        X, yi = self._validate_fit(X, y, max_classes=2)
        if self.method not in METHODS:
            raise ParameterError(f"method must be one of {', '.join(METHODS)}, not {self.method!r}")
        if not (np.isscalar(self.C) and self.C > 0):
            raise ParameterError(f"C must be a positive number, got {self.C!r}")
        if not (np.isscalar(self.delta) and self.delta >= 0):
            raise ParameterError(f"delta must be a number ≥ 0, got {self.delta!r}")
        y_pm = np.where(yi == 1, 1.0, -1.0)
        kern = self._kernel(X)
        Z = self._coordinates(X, kern)
        inter = hulls_intersect(Z[y_pm > 0], Z[y_pm < 0])
        if inter.intersect:
            raise DataError(
                "the two classes are not linearly separable"
                + (" in the kernel's feature space" if kern.name != "linear" else "")
                + ": their convex hulls meet, so no hyperplane separates them with a positive margin "
                "and the hard-margin SVM of seed 001 does not exist (no point can be a guard vector of "
                "a separating hyperplane). Use delta > 0 (the seed's projection τ_Δ, §3.3), a "
                "non-linear kernel, or a soft-margin SVC.")
        lps = guard_vector_lps(Z, y_pm, self.method, self.prefilter, progress=progress)
        g = np.flatnonzero(lps.guard)
        if g.size == 0 or np.unique(y_pm[g]).size < 2:  # cannot happen for separable data
            raise DataError("the LPs found guard vectors of one class only; the data are degenerate")
        self.guard_vectors_ = lps.guard
        self.lp_status_ = lps.status
        self.orientation_ = lps.orientation
        self.tested_ = lps.tested
        self.planes_ = lps.planes
        self.n_lps_ = lps.n_lps
        self.lp_time_ = lps.lp_time
        # §3.2: the QP on the guard vectors only (for τ_Δ only their own extra coordinates matter).
        Zg = Z[g]
        if kern.name == "linear" and self.delta > 0:
            Zg = np.hstack([X[g], self.delta * np.eye(g.size)])
        svc = BinarySVC(C=self.C, kernel="linear", solver=self.solver, tol=self.tol)
        tq = time.perf_counter()
        svc.fit(Zg, y_pm[g])
        self.qp_time_ = time.perf_counter() - tq
        self.alpha_ = svc.alpha_
        self.support_ = g[svc.support_]
        self.support_vectors_ = X[self.support_]
        self.dual_coef_ = svc.dual_coef_
        self.intercept_ = svc.intercept_
        self.hard_margin_ = bool(np.all(svc.alpha_ < self.C * (1 - 1e-9)))
        self.converged_ = bool(svc.converged_)
        self.kernel_params_ = kern.to_dict()
        self.fit_time_ = time.perf_counter() - t0
        return self

    # Prediction (decision_function, predict, coef_, kernel_) is the binary SVM's: Σ y_i α_i
    # k(x_i, x) + b over the support vectors. A new point has no τ_Δ coordinate of its own, so
    # the plain kernel applies.


# ------------------------------------------------------------------------ the dual-space picture
@register_record
@dataclass
class DualOrientation:
    """One of the seed's two LPs for a point p_i in the 2-D dual plane (x1 = slope of a primal
    line through p_i, x2 = minus its intercept).

    Along the dual line l_i every other point j asks x1 ≥ or ≤ a bound (the slope of the line
    through p_i and p_j); ``lo``/``hi`` are the tightest bounds and ``j_lo``/``j_hi`` the points
    giving them (−1: none). ``feasible`` iff lo ≤ hi (and no point is straight above/below p_i
    on the wrong side: ``j_vertical``). ``region``: the intersection of the half-planes of the
    other points clipped to the panel's view ``box`` (a polygon, possibly empty)."""

    sigma: int
    feasible: bool
    lo: float
    hi: float
    j_lo: int
    j_hi: int
    j_vertical: int
    region: np.ndarray
    box: np.ndarray  # [x1_min, x1_max, x2_min, x2_max] of this panel


@register_record
@dataclass
class DualView:
    index: int
    orientations: list
    is_guard: bool
    explanation: str


def _clip(poly: np.ndarray, a: np.ndarray, c: float) -> np.ndarray:
    """Sutherland–Hodgman: the part of the convex polygon with a·x ≥ c."""
    if len(poly) == 0:
        return poly
    out = []
    vals = poly @ a - c
    for k in range(len(poly)):
        P, Q = poly[k], poly[(k + 1) % len(poly)]
        vp, vq = vals[k], vals[(k + 1) % len(poly)]
        if vp >= 0:
            out.append(P)
        if (vp >= 0) != (vq >= 0):
            t = vp / (vp - vq)
            out.append(P + t * (Q - P))
    return np.array(out) if out else np.empty((0, 2))


def dual_view(X, y, i: int, box=None) -> DualView:
    """The dual-space picture of seed 001 Fig. 2–3 for point i of 2-D data (labels ±1)."""
    X = np.asarray(X, dtype=np.float64)
    y = np.where(np.asarray(y) > 0, 1, -1)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ParameterError("the dual-space picture is drawn for 2-D data (two features)")
    m = len(X)
    if not 0 <= i < m:
        raise ParameterError(f"point index {i} is outside 0..{m - 1}")
    p = X[i]
    dx, dy = X[:, 0] - p[0], X[:, 1] - p[1]
    same = y == y[i]
    with np.errstate(divide="ignore", invalid="ignore"):
        slopes = np.where(dx != 0, dy / np.where(dx != 0, dx, 1.0), np.nan)
    orients_raw = [_interval(dx, dy, same, i, sigma) for sigma in (1, -1)]
    finite = slopes[np.isfinite(slopes)]
    orients = []
    for sigma, (lo, hi, j_lo, j_hi, j_vert) in zip((1, -1), orients_raw):
        s = sigma * np.where(same, 1.0, -1.0)
        feasible = bool(lo <= hi and j_vert < 0)
        obox = np.asarray(box, dtype=np.float64) if box is not None else _box_for(X, i, lo, hi, finite)
        rect = np.array([[obox[0], obox[2]], [obox[1], obox[2]], [obox[1], obox[3]], [obox[0], obox[3]]])
        region = rect
        for j in range(m):
            if j != i:  # half-plane s_j (p_jx x1 − x2 − p_jy) ≥ 0
                region = _clip(region, s[j] * np.array([X[j, 0], -1.0]), s[j] * X[j, 1])
        orients.append(DualOrientation(sigma, feasible, float(lo), float(hi), j_lo, j_hi, j_vert,
                                       region, obox))
    is_guard = any(o.feasible for o in orients)
    return DualView(i, orients, is_guard, _explain(i, orients))


def _box_for(X, i, lo, hi, finite_slopes) -> np.ndarray:
    """A view box [x1_min, x1_max, x2_min, x2_max] around the slope bounds lo, hi that decide
    one orientation's LP (the feasible interval, or the two conflicting bounds)."""
    b = np.array([v for v in (lo, hi) if np.isfinite(v)])
    if b.size == 0:
        b = (np.percentile(finite_slopes, [5, 95]) if finite_slopes.size else np.array([-1.0, 1.0]))
    span = max(float(b.max() - b.min()), 0.25 * float(np.abs(b).max()), 1e-3)
    x1 = np.array([b.min() - 0.75 * span, b.max() + 0.75 * span])
    vals = np.outer(X[:, 0], x1) - X[:, 1][:, None]
    lo_v, hi_v = np.percentile(vals, [2, 98])
    li = X[i, 0] * x1 - X[i, 1]
    lo_v, hi_v = min(lo_v, li.min()), max(hi_v, li.max())
    pad = 0.05 * max(hi_v - lo_v, 1e-3)
    return np.r_[x1, lo_v - pad, hi_v + pad]


def _interval(dx, dy, same, i, sigma):
    """Along l_i every other point j asks s_j (dx_j x1 − dy_j) ≥ 0: a bound on the slope x1.
    Returns (lo, hi, j_lo, j_hi, j_vertical) of the tightest bounds."""
    s = sigma * np.where(same, 1.0, -1.0)
    a, c = s * dx, s * dy
    lo, hi, j_lo, j_hi, j_vert = -np.inf, np.inf, -1, -1, -1
    for j in range(len(dx)):
        if j == i:
            continue
        if a[j] > 0 and c[j] / a[j] > lo:
            lo, j_lo = c[j] / a[j], j
        elif a[j] < 0 and c[j] / a[j] < hi:
            hi, j_hi = c[j] / a[j], j
        elif a[j] == 0 and c[j] > 0 and j_vert < 0:
            j_vert = j
    return float(lo), float(hi), j_lo, j_hi, j_vert


def _explain(i: int, orients) -> str:
    names = {1: "A (own class on/below the line, other class on/above)",
             -1: "B (own class on/above the line, other class on/below)"}
    lines = []
    for o in orients:
        if o.feasible:
            lo = "−∞" if not np.isfinite(o.lo) else f"{o.lo:.4g}"
            hi = "+∞" if not np.isfinite(o.hi) else f"{o.hi:.4g}"
            lines.append(f"Orientation {names[o.sigma]}: feasible — every line through point {i} "
                         f"with slope in [{lo}, {hi}] keeps all points on their side.")
        elif o.j_vertical >= 0:
            lines.append(f"Orientation {names[o.sigma]}: infeasible — point {o.j_vertical} lies "
                         f"straight above/below point {i} on the wrong side of every such line.")
        else:
            lines.append(f"Orientation {names[o.sigma]}: infeasible — point {o.j_lo} needs slope "
                         f"≥ {o.lo:.4g} but point {o.j_hi} needs slope ≤ {o.hi:.4g}.")
    verdict = (f"Point {i} is a guard vector." if any(o.feasible for o in orients) else
               f"Point {i} is not a guard vector: no line through it separates the classes.")
    return verdict + "\n\n" + "\n\n".join(lines)

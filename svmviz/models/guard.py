"""Guard vectors (Yang and Ahuja 2000): one LP per point finds a superset of the support
vectors, then the SVM is trained on that superset only.

A point p_i is a *guard vector* when some hyperplane through it has every other point on its own
label's side (ties allowed). Every support vector of the hard-margin SVM is one (Yang and Ahuja 2000, §1), so
the SVM on the guard vectors is the SVM on all points (§3.2).

- ``method="yang_ahuja"``: the dual-space LP of §3.1. The dual of p = (p_1..p_n) is the hyperplane
  x_n = p_1 x_1 + … + p_{n−1} x_{n−1} − p_n; a dual point x is the primal hyperplane
  w = (x_1..x_{n−1}, −1), b = −x_n (last coordinate fixed at −1). Constraints: p_i's dual with
  "=", the duals of its own class with "≥" and of the other class with "≤"; if infeasible, every
  inequality reversed (Algorithm "Finding the guard vectors", steps 2–3): two LPs per point.
- ``method="single"``: an orientation-free LP: find (w, b) with w·p_i + b = 0,
  y_j(w·p_j + b) ≥ 0 for all j and Σ_j y_j(w·p_j + b) = 1 (one LP per point; it also admits
  the vertical hyperplanes the paper's parametrisation leaves out — equal in general position).
- Pre-filter: a guard vector lies on a supporting hyperplane of its own class, i.e. on the
  boundary of its class's convex hull, so interior points are skipped (Qhull).
- ``delta`` > 0: the projection τ_Δ of §3.3, x_i ↦ (x_i, Δ e_i), which makes any data separable;
  it equals adding Δ² to the diagonal of the kernel matrix (a new point gets no extra coordinate,
  so prediction uses the plain kernel).

Faster than the paper's procedure, same guard vectors:

- Rows: "every point on its side" is an affine condition, so it holds for all points of a class
  exactly when it holds for the vertices of that class's convex hull; each LP keeps only those rows.
- 2-D, ``method="yang_ahuja"``: along p_i's dual line every other point bounds the slope x_1 from one
  side, so the LP is feasible exactly when the largest lower bound ≤ the smallest upper bound
  (the interval test drawn by ``dual_view``, the paper's Fig. 2–3) — evaluated for all points at once.
- Otherwise one HiGHS model per orientation is built once and only p_i's equality row changes
  from point to point, so each solve starts from the previous basis.
- Δ > 0: the lifted points (x_i, Δ e_i) are affinely independent, so an affine function can take
  any values on them: a hyperplane through any point can put every other point on its side.
  Every point is a guard vector and no LP is needed (the "all 862 points" of fourclass at Δ = 1).
  The QP then runs on all m points with an m×m matrix, so under a work budget
  (``svmviz.limits``) Δ > 0 is refused above its ``tau_delta_samples`` points, the empirical
  kernel map (non-linear kernels) above its ``kernel_map_samples``; with no budget a large m
  warns (``LargeWorkWarning``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
from scipy import sparse

from sklearn.utils.multiclass import type_of_target

from svmviz import limits
from svmviz.data.dataset import minus_signs
from svmviz.errors import DataError, ParameterError, ProblemTooLargeError
from svmviz.geometry.hull_lp import hulls_intersect
from svmviz.geometry.hulls import hull_masks
from svmviz.kernels import Kernel
from svmviz.models.composite import CompositeMixin, inner_fits
from svmviz.models.constraints import C, MAX_ITER, SOLVER, TOL, Bool, Number, OneOf
from svmviz.models.svc import BinaryKernelSVM, BinarySVC
from svmviz.registry import register_estimator, register_record
from svmviz.solvers.lp import solve_lp

METHODS = ("yang_ahuja", "single")
BACKENDS = ("auto", "closed-form", "highs", "cvxpy")

# Status of each point's test (``lp_status_``).
GUARD_A = "guard (orientation A: own class on or below the hyperplane)"
GUARD_B = "guard (orientation B: own class on or above the hyperplane)"
GUARD_SINGLE = "guard (single LP feasible)"
GUARD_LIFTED = "guard (Δ > 0: the lifted points are affinely independent, every point is one)"
NOT_GUARD = "not a guard vector (LP infeasible)"
LP_FAILED = "unresolved: the LP ended without an answer (counted as not a guard vector)"
SKIPPED = "skipped: inside its own class's convex hull"

# How the guard vectors were found (``guard_test_``).
TEST_CLOSED = "closed form: 2-D slope-interval test (Yang and Ahuja 2000, Fig. 2–3), hull-vertex rows"
TEST_HIGHS = "HiGHS LPs: one model per orientation reused across points, hull-vertex rows"
TEST_CVXPY = "cvxpy reference LPs, hull-vertex rows"
TEST_LIFTED = "none needed: Δ > 0 makes every point a guard vector"


@register_record
@dataclass
class GuardLPs:
    """The outcome of the per-point tests on coordinates Z with labels y (±1).

    ``guard``: mask; ``status``: one of the strings above per point; ``orientation``: +1 (A), −1
    (B) for a guard found by the paper's test, 0 otherwise; ``tested``: points tested (all, or the
    hull-boundary points with the pre-filter); ``planes``: for each guard vector a hyperplane
    (w, b) through it with y_j(w·z_j + b) ≥ 0 for every j (NaN elsewhere); ``n_lps``: LPs solved
    (0 for the closed form); ``lp_time``: time of the tests; ``rows``: the constraint rows kept
    (hull vertices of each class); ``backend``: how the tests ran (``TEST_*``); ``failed``: the
    points whose LP ended neither feasible nor infeasible (an iteration limit, a numerical
    failure: status ``LP_FAILED``)."""

    guard: np.ndarray
    status: np.ndarray
    orientation: np.ndarray
    tested: np.ndarray
    planes: np.ndarray
    n_lps: int
    lp_time: float
    method: str
    rows: np.ndarray
    backend: str
    failed: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))


def _seed_plane(Z, i, x):
    """The primal hyperplane (w, b) of the dual point x (Yang and Ahuja 2000, §3.1)."""
    n = Z.shape[1]
    return np.r_[x[:n - 1], -1.0], -x[n - 1]


def _seed_lp(Z, y, rows, i, sigma, backend):
    """Yang and Ahuja 2000, §3.1 for point i with orientation σ as one generic LP (the cvxpy reference):
    variables x ∈ R^n (the dual point); only feasibility matters (§3.1), so the objective is zero.
    Row j reads σ y_i y_j (p_j1 x_1 + … + p_j,n−1 x_{n−1} − x_n − p_jn) ≥ 0."""
    m, n = Z.shape
    A = np.column_stack([Z[rows, :n - 1], -np.ones(len(rows))])
    s = sigma * y[i] * y[rows]
    r = solve_lp(np.zeros(n), A_ub=-s[:, None] * A, b_ub=-s * Z[rows, n - 1],
                 A_eq=np.r_[Z[i, :n - 1], -1.0][None, :], b_eq=Z[i, n - 1:], bounds=(None, None),
                 backend=backend)
    return r, (_seed_plane(Z, i, r.x) if r.feasible else None)


def _single_lp(Z, y, rows, i, backend):
    """The orientation-free LP for point i as one generic LP: variables (w, b)."""
    m, n = Z.shape
    A = np.column_stack([Z, np.ones(m)])
    r = solve_lp(np.zeros(n + 1), A_ub=-y[rows, None] * A[rows], b_ub=np.zeros(len(rows)),
                 A_eq=np.vstack([A[i], y @ A]), b_eq=np.array([0.0, 1.0]), bounds=(None, None),
                 backend=backend)
    return r, ((r.x[:n], float(r.x[n])) if r.feasible else None)


class _ReusedLP:
    """One HiGHS model with fixed rows and one equality row "a·v = r" that changes per point.
    HiGHS keeps the basis between solves, so each point starts from the previous point's basis."""

    def __init__(self, A_rows, lower, upper, eq_const_cols, fixed_eq=None):
        import highspy

        self._hs = highspy
        self.h = h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        inf = highspy.kHighsInf
        A = sparse.csr_matrix(A_rows)
        n = A.shape[1]
        h.addVars(n, np.full(n, -inf), np.full(n, inf))
        rows = [A]
        lo, up = [np.where(np.isfinite(lower), lower, -inf)], [np.where(np.isfinite(upper), upper, inf)]
        if fixed_eq is not None:  # (coefficients, rhs): a constant equality row
            rows.append(sparse.csr_matrix(fixed_eq[0][None, :]))
            lo.append([fixed_eq[1]])
            up.append([fixed_eq[1]])
        rows.append(sparse.csr_matrix(eq_const_cols[None, :]))  # the per-point row
        lo.append([0.0])
        up.append([0.0])
        M = sparse.vstack(rows, format="csr")
        h.addRows(M.shape[0], np.concatenate(lo), np.concatenate(up), M.nnz,
                  M.indptr.astype(np.int32), M.indices.astype(np.int32), M.data)
        self.eq = M.shape[0] - 1
        self.n = n
        self.coef = eq_const_cols.astype(np.float64).copy()

    def solve(self, coef, rhs):
        """Feasibility of the fixed rows with coef·v = rhs: (feasible, v or None, failed). The
        objective is zero, so "infeasible or unbounded" means infeasible; any other status than
        optimal or infeasible (iteration limit, numerical trouble) is ``failed``."""
        for j in np.flatnonzero(coef != self.coef):
            self.h.changeCoeff(self.eq, int(j), float(coef[j]))
        self.coef = coef.copy()
        self.h.changeRowBounds(self.eq, float(rhs), float(rhs))
        self.h.run()
        st = self.h.getModelStatus()
        S = self._hs.HighsModelStatus
        ok = st == S.kOptimal
        failed = not ok and st not in (S.kInfeasible, S.kUnboundedOrInfeasible)
        return ok, (np.asarray(self.h.getSolution().col_value) if ok else None), failed


def _slope_bounds(dx, dy, s):
    """Yang and Ahuja 2000, §3.1 in 2-D: along p_i's dual line every other point j asks
    s_j (dx_j x_1 − dy_j) ≥ 0, a bound on the slope x_1 (rows: points i, columns: points j).
    Returns (lo, hi, j_lo, j_hi, j_vertical): the tightest lower and upper bounds, the columns
    giving them (−1: none) and a point straight above/below on the wrong side (−1: none)."""
    a, c = s * dx, s * dy
    with np.errstate(divide="ignore", invalid="ignore"):
        r = c / a
    low = np.where(a > 0, r, -np.inf)
    up = np.where(a < 0, r, np.inf)
    vert = (a == 0) & (c > 0)
    j_lo, j_hi = np.argmax(low, axis=1), np.argmin(up, axis=1)
    rows = np.arange(a.shape[0])
    lo, hi = low[rows, j_lo], up[rows, j_hi]
    return (lo, hi, np.where(np.isfinite(lo), j_lo, -1), np.where(np.isfinite(hi), j_hi, -1),
            np.where(vert.any(axis=1), np.argmax(vert, axis=1), -1))


def _interior_slope(lo, hi):
    """A slope inside [lo, hi] (strictly inside when the interval has room)."""
    if np.isfinite(lo) and np.isfinite(hi):
        return 0.5 * (lo + hi)
    if np.isfinite(lo):
        return lo + max(1.0, abs(lo))
    if np.isfinite(hi):
        return hi - max(1.0, abs(hi))
    return 0.0


def class_hulls(Z, y, prefilter: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """(tested, rows): the points to test (the boundary of their own class's hull with the
    pre-filter, else all) and the indices of the constraint rows (each class's hull vertices)."""
    m = Z.shape[0]
    tested = np.ones(m, dtype=bool)
    is_row = np.ones(m, dtype=bool)
    for c in (-1.0, 1.0):
        idx = np.flatnonzero(y == c)
        if idx.size:
            boundary, vertices = hull_masks(Z[idx])
            is_row[idx] = vertices
            if prefilter:
                tested[idx] = boundary
    return tested, np.flatnonzero(is_row)


def guard_vector_lps(Z, y, method: str = "yang_ahuja", prefilter: bool = True, backend: str = "auto",
                     progress=None, hulls=None) -> GuardLPs:
    """Find the guard vectors of Yang and Ahuja 2000, §3.1 among the rows of Z with labels y (±1).

    ``backend``: "auto" (the closed form for 2-D data with ``method="yang_ahuja"``, else "highs"),
    "closed-form" (2-D, ``method="yang_ahuja"`` only), "highs" (reused HiGHS models) or "cvxpy" (one generic
    LP per point and orientation, the reference). All give the same guard vectors.
    ``progress(done, total)`` is called after each tested point (or block of points) for a
    progress bar; it may raise to stop the loop. ``hulls``: ``class_hulls(Z, y, prefilter)`` when
    already computed."""
    Z = np.asarray(Z, dtype=np.float64)
    y = np.where(np.asarray(y) > 0, 1.0, -1.0)
    if method not in METHODS:
        raise ParameterError(f"method must be one of {', '.join(METHODS)}, not {method!r}")
    if backend not in BACKENDS:
        raise ParameterError(f"backend must be one of {', '.join(BACKENDS)}, not {backend!r}")
    m, n = Z.shape
    if backend == "auto":
        backend = "closed-form" if n == 2 and method == "yang_ahuja" else "highs"
    if backend == "closed-form" and (n != 2 or method != "yang_ahuja"):
        raise ParameterError("the closed-form test is the LP of Yang and Ahuja (2000) in 2-D: use it with 2 features "
                             "and method='yang_ahuja', or backend='highs'")
    tested, rows = class_hulls(Z, y, prefilter) if hulls is None else hulls
    guard = np.zeros(m, dtype=bool)
    status = np.full(m, SKIPPED, dtype=object)
    orient = np.zeros(m, dtype=np.int64)
    planes = np.full((m, n + 1), np.nan)
    todo = np.flatnonzero(tested)
    status[todo] = NOT_GUARD
    t0 = time.perf_counter()
    n_lps = 0
    if backend == "closed-form":
        _closed_form(Z, y, rows, todo, guard, status, orient, planes, progress)
        label = TEST_CLOSED
    else:
        n_lps = _lp_loop(Z, y, rows, todo, method, backend, guard, status, orient, planes, progress)
        label = TEST_HIGHS if backend == "highs" else TEST_CVXPY
    failed = np.flatnonzero(status == LP_FAILED).astype(np.int64)
    return GuardLPs(guard, status.astype(str), orient, tested, planes, n_lps,
                    time.perf_counter() - t0, method, rows, label, failed)


def _closed_form(Z, y, rows, todo, guard, status, orient, planes, progress):
    """The 2-D interval test for every point in ``todo`` (blocks keep memory at ~16 MB)."""
    P, yr = Z[rows], y[rows]
    step = max(1, int(1e6 // max(len(rows), 1)))
    for start in range(0, len(todo), step):
        blk = todo[start:start + step]
        dx = P[None, :, 0] - Z[blk, 0][:, None]
        dy = P[None, :, 1] - Z[blk, 1][:, None]
        open_ = np.ones(len(blk), dtype=bool)
        for sigma, label in ((1, GUARD_A), (-1, GUARD_B)):
            lo, hi, _, _, j_vert = _slope_bounds(dx, dy, sigma * y[blk][:, None] * yr[None, :])
            ok = open_ & (lo <= hi) & (j_vert < 0)
            for k in np.flatnonzero(ok):
                i = blk[k]
                x1 = _interior_slope(lo[k], hi[k])
                w, b = _seed_plane(Z, i, np.array([x1, Z[i, 0] * x1 - Z[i, 1]]))
                flip = sigma * y[i]  # make y_j(w·z_j + b) ≥ 0
                guard[i], status[i], orient[i] = True, label, sigma
                planes[i] = np.r_[flip * w, flip * b]
            open_ &= ~ok
        if progress is not None:
            progress(min(start + step, len(todo)), len(todo))


def _lp_loop(Z, y, rows, todo, method, backend, guard, status, orient, planes, progress) -> int:
    m, n = Z.shape
    n_lps = 0
    if backend == "highs":
        if method == "yang_ahuja":
            # Row j: y_j (p_j1 x_1 + … − x_n) vs y_j p_jn, "≥" when σ y_i = +1 and "≤" when −1.
            A = y[rows, None] * np.column_stack([Z[rows, :n - 1], -np.ones(len(rows))])
            rhs = y[rows] * Z[rows, n - 1]
            eq0 = np.r_[np.zeros(n - 1), -1.0]
            models = {1: _ReusedLP(A, rhs, np.full(len(rows), np.inf), eq0),
                      -1: _ReusedLP(A, np.full(len(rows), -np.inf), rhs, eq0)}
        else:
            A_all = np.column_stack([Z, np.ones(m)])
            single = _ReusedLP(y[rows, None] * A_all[rows], np.zeros(len(rows)),
                               np.full(len(rows), np.inf), np.r_[np.zeros(n), 1.0],
                               fixed_eq=(y @ A_all, 1.0))
    for done, i in enumerate(todo, 1):
        failed = False   # an LP of this point ended without an answer
        if method == "yang_ahuja":
            for sigma, label in ((1, GUARD_A), (-1, GUARD_B)):
                n_lps += 1
                if backend == "highs":
                    ok, x, bad = models[int(sigma * y[i])].solve(np.r_[Z[i, :n - 1], -1.0], Z[i, n - 1])
                    plane = _seed_plane(Z, i, x) if ok else None
                else:
                    r, plane = _seed_lp(Z, y, rows, i, sigma, backend)
                    bad = r.status == "error"
                failed |= bad
                if plane is not None:
                    w, b = plane
                    flip = sigma * y[i]  # make y_j(w·z_j + b) ≥ 0
                    guard[i], status[i], orient[i] = True, label, sigma
                    planes[i] = np.r_[flip * w, flip * b]
                    break
        else:
            n_lps += 1
            if backend == "highs":
                ok, v, failed = single.solve(np.r_[Z[i], 1.0], 0.0)
                plane = (v[:n], float(v[n])) if ok else None
            else:
                r, plane = _single_lp(Z, y, rows, i, backend)
                failed = r.status == "error"
            if plane is not None:
                guard[i], status[i] = True, GUARD_SINGLE
                planes[i] = np.r_[plane[0], plane[1]]
        if failed and not guard[i]:
            status[i] = LP_FAILED
        if progress is not None:
            progress(done, len(todo))
    return n_lps


def all_guard_vectors(m: int) -> GuardLPs:
    """Yang and Ahuja 2000, §3.3 with Δ > 0: every point is a guard vector (module docstring), no test runs.
    No plane is stored: it lives in R^{d+m}."""
    return GuardLPs(np.ones(m, dtype=bool), np.full(m, GUARD_LIFTED), np.zeros(m, dtype=np.int64),
                    np.zeros(m, dtype=bool), np.empty((m, 0)), 0, 0.0, "lifted",
                    np.arange(0), TEST_LIFTED)


def tau_delta(X, delta: float) -> np.ndarray:
    """Yang and Ahuja 2000, §3.3: x_i ↦ (x_i, Δ e_i) ∈ R^{n+m}, dense (the QP's input), so at most
    the budget's ``tau_delta_samples`` points."""
    X = np.asarray(X, dtype=np.float64)
    _check_size(X.shape[0], "tau_delta_samples", "the τ_Δ coordinates (delta > 0)")
    return np.hstack([X, delta * np.eye(X.shape[0])])


def _check_size(m: int, name: str, what: str) -> None:
    """At most the work budget's bound ``name`` of training points for a path holding an m×m
    matrix (``svmviz.limits``)."""
    limit = limits.bound(name)
    limits.warn_if_large(name, m, f"{what} need an {m}×{m} matrix", "subsample, or use the linear "
                         "kernel with delta = 0")
    if limit is not None and m > limit:
        raise ProblemTooLargeError(
            f"{what} need an {m}×{m} matrix; this is limited to {limit} training points and the data "
            f"have {m}. Subsample to at most {limit} points, use the linear kernel with delta = 0 "
            "(no m×m matrix), or a soft-margin SVC (delta > 0 adds Δ² to the kernel diagonal: the "
            "squared-hinge SVM with loss C·Σξ² and C = 1/(2Δ²)).")


def kernel_map(K) -> np.ndarray:
    """Coordinates Z with Z Zᵀ = K (the empirical kernel map, from an eigendecomposition):
    the LPs need explicit coordinates, the kernel only gives inner products."""
    w, V = np.linalg.eigh(0.5 * (K + K.T))
    keep = w > max(w.max(), 0.0) * 1e-12
    return V[:, keep] * np.sqrt(w[keep])


@register_estimator
class GuardVectorSVC(CompositeMixin, BinaryKernelSVM):
    """Hard-margin SVM trained on the guard vectors found by one LP per point (Yang and Ahuja 2000).

    Parameters
    ----------
    kernel, gamma, degree, coef0 : as ``sklearn.svm.SVC`` (default linear, as in the paper). For a
        non-linear kernel the LPs run on the empirical kernel map (coordinates with Z Zᵀ = K).
    C : float, box bound of the final QP; large (1e6) for the hard margin of the paper
    method : "yang_ahuja" (two dual-space LPs per point, §3.1) or "single" (one orientation-free LP)
    prefilter : test only points on the boundary of their own class's hull (same result)
    delta : Δ ≥ 0 of the projection τ_Δ (§3.3), i.e. Δ² added to the kernel diagonal
    solver : "smo" or "cvxpy" for the QP on the guard vectors; tol : its KKT tolerance;
        max_iter : its iteration cap (None: run to convergence; a cap that is reached leaves
        ``qp_converged_`` False)

    Attributes
    ----------
    guard_vectors_ : bool mask over the training set; lp_status_ : per-point outcome (str);
    orientation_ : +1/−1 orientation of the paper's LP that was feasible (0: none or single LP);
    tested_ : points tested; planes_ : a separating hyperplane (w, b) in LP coordinates through
    each guard vector (no columns for Δ > 0: those planes live in R^{d+m}); n_lps_, lp_time_ :
    LP count and time of the tests; guard_test_ : how the guard vectors were found (closed form
    in 2-D, reused HiGHS models, or none needed for Δ > 0);
    qp_time_, n_iter_ : time and solver iterations of the QP on the guard vectors;
    support_ : indices into the full training set; support_vectors_, dual_coef_, intercept_,
    coef_ (linear kernel) : as ``SVC``;
    alpha_ : the QP's α on the guard vectors; hard_margin_ : True when no α reached C (then the
    solution is the hard-margin SVM of all points); converged_ : whether every sub-solve finished:
    the QP reached ``tol`` (``qp_converged_``; a tiny margin makes the hard-margin QP
    ill-conditioned: use solver="cvxpy" there) and no point's LP ended without an answer
    (``lp_failed_``: those points, counted as not guard vectors); n_unconverged_, unconverged_ :
    how many and which sub-problems did not finish (``fit`` warns once naming them).

    Data that are not separable (in the kernel space) have no guard vectors and no hard-margin
    SVM: ``fit`` raises ``DataError`` saying so. Size bounds (under a work budget,
    ``svmviz.limits``): Δ > 0 with the linear kernel at most ``tau_delta_samples`` points, a
    non-linear kernel at most ``kernel_map_samples`` (both hold an m×m matrix); above them ``fit``
    raises ``ProblemTooLargeError``.
    """

    _parameter_constraints = {**BinaryKernelSVM._parameter_constraints, "C": C, "method": OneOf(*METHODS),
                              "prefilter": Bool(), "delta": Number(0, 1e6), "solver": SOLVER, "tol": TOL,
                              "max_iter": MAX_ITER}

    def __init__(self, kernel="linear", C=1e6, method="yang_ahuja", prefilter=True, delta=0.0,
                 solver="smo", gamma="scale", degree=3, coef0=0.0, tol=1e-3, max_iter=None):
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
        self.max_iter = max_iter

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    # ------------------------------------------------------------------ coordinates for the LPs
    def _coordinates(self, X, kern: Kernel) -> np.ndarray:
        """Explicit coordinates of the (kernel-space) points: X itself for the linear kernel,
        else the empirical kernel map of K + Δ²I (bounded: an m×m matrix)."""
        if kern.name == "linear":
            return X
        _check_size(X.shape[0], "kernel_map_samples", "a non-linear kernel's coordinates (kernel map)")
        K = kern.gram(X)
        K[np.diag_indices_from(K)] += self.delta ** 2
        return kernel_map(K)

    def fit(self, X, y, progress=None):
        """Find the guard vectors, then solve the QP on them. ``progress(done, total)`` is called
        during the per-point tests (see ``guard_vector_lps``); it may raise to stop the fit."""
        t0 = time.perf_counter()
        y_type = type_of_target(y, input_name="y", raise_unknown=True)
        if y_type not in ("binary", "unknown") and np.unique(np.asarray(y)).size > 2:
            raise DataError(f"Only binary classification is supported. The type of the target is "
                            f"{y_type}: guard vectors separate two classes (pick two classes).")
        X, yi = self._validate_fit(X, y, max_classes=2)
        y_pm = np.where(yi == 1, 1.0, -1.0)
        kern = self._kernel(X)
        lifted = self.delta > 0
        if lifted and kern.name == "linear":
            _check_size(X.shape[0], "tau_delta_samples", "with delta > 0 every point is a guard vector and "
                        "the QP on all of them (X Xᵀ + Δ²I) would")
        Z = self._coordinates(X, kern)
        if lifted:  # affinely independent lifted points: separable, every point a guard vector
            lps = all_guard_vectors(X.shape[0])
            if progress is not None:
                progress(X.shape[0], X.shape[0])
        else:
            hulls = class_hulls(Z, y_pm, self.prefilter)
            # separability first, on the hull vertices only (the hulls are the vertices' hulls)
            rows = hulls[1]
            if hulls_intersect(Z[rows[y_pm[rows] > 0]], Z[rows[y_pm[rows] < 0]]).intersect:
                raise DataError(
                    "the two classes are not linearly separable"
                    + (" in the kernel's feature space" if kern.name != "linear" else "")
                    + ": their convex hulls meet, so no hyperplane separates them with a positive "
                    "margin and the hard-margin SVM of Yang and Ahuja (2000) does not exist (no point can be a guard "
                    "vector of a separating hyperplane). Use delta > 0 (their projection τ_Δ, "
                    "§3.3), a non-linear kernel, or a soft-margin SVC.")
            lps = guard_vector_lps(Z, y_pm, self.method, self.prefilter, progress=progress, hulls=hulls)
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
        self.guard_test_ = lps.backend
        # §3.2: the QP on the guard vectors only (τ_Δ with the linear kernel: explicit coordinates).
        Zg = tau_delta(X, self.delta) if lifted and kern.name == "linear" else Z[g]
        svc = self._sub_estimator(BinarySVC(), kernel="linear")
        tq = time.perf_counter()
        with inner_fits():   # the warning below says it is the QP on the guard vectors
            svc.fit(Zg, y_pm[g])
        self.qp_time_ = time.perf_counter() - tq
        self.n_iter_ = svc.n_iter_
        self.alpha_ = svc.alpha_
        self.support_ = g[svc.support_]
        self.support_vectors_ = X[self.support_]
        self.dual_coef_ = svc.dual_coef_
        self.intercept_ = svc.intercept_
        self.hard_margin_ = bool(np.all(svc.alpha_ < self.C * (1 - 1e-9)))
        self.kernel_params_ = kern.to_dict()
        self.linear_coef_ = self.dual_coef_ @ self.support_vectors_ if kern.name == "linear" else None
        # the LPs and the QP, checked and collected; one warning names them
        self.qp_converged_ = bool(svc.converged_)
        self.lp_failed_ = lps.failed
        self._check_result(objective=svc.objective_, decisions=self.decision_function(X),
                           detail="the QP on the guard vectors")
        self._record_convergence(([] if self.qp_converged_ else ["the QP on the guard vectors"])
                                 + [f"the LP of point {i}" for i in lps.failed.tolist()])
        self.fit_time_ = time.perf_counter() - t0
        return self

    def _subproblems(self) -> tuple[int, str]:
        return (1 + (int(np.sum(self.tested_)) if self.n_lps_ else 0),
                "sub-problems (the QP and the per-point LPs)")

    def _convergence_advice(self) -> str:
        parts = []
        if not self.qp_converged_:
            parts.append(f"for the QP: use solver='cvxpy' (a tiny margin makes the hard-margin QP "
                         f"ill-conditioned), loosen tol (now {self.tol:g}), normalize the features, "
                         "or use delta > 0 (a soft margin)"
                         + (f", or raise max_iter (now {self.max_iter}) or leave it None"
                            if self.max_iter is not None else ""))
        if len(self.lp_failed_):
            other = "single" if self.method == "yang_ahuja" else "yang_ahuja"
            parts.append(f"for the LPs: normalize the features or use method='{other}' (those points "
                         "were counted as not guard vectors)")
        return "; ".join(parts)

    # Prediction (decision_function, predict, coef_, kernel_) is the binary SVM's: Σ y_i α_i
    # k(x_i, x) + b over the support vectors. A new point has no τ_Δ coordinate of its own, so
    # the plain kernel applies.


# ------------------------------------------------------------------------ the dual-space picture
@register_record
@dataclass
class DualOrientation:
    """One of the paper's two LPs for a point p_i in the 2-D dual plane (x1 = slope of a primal
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


def dual_view(X, y, i: int, box=None, regions: bool = True) -> DualView:
    """The dual-space picture of Yang and Ahuja 2000, Fig. 2–3 for point i of 2-D data (labels ±1).
    ``regions=False``: the two LPs' slope intervals and the verdict only (no half-plane regions
    to draw; O(m) instead of a polygon clipped m times)."""
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
        if not regions:
            orients.append(DualOrientation(sigma, feasible, float(lo), float(hi), j_lo, j_hi, j_vert,
                                           np.empty((0, 2)), np.empty(0)))
            continue
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
    """The slope bounds of one orientation for point i (``_slope_bounds`` on one row; point i
    itself has dx = dy = 0 and bounds nothing). Returns (lo, hi, j_lo, j_hi, j_vertical)."""
    s = sigma * np.where(same, 1.0, -1.0)
    lo, hi, j_lo, j_hi, j_vert = _slope_bounds(dx[None, :], dy[None, :], s[None, :])
    return float(lo[0]), float(hi[0]), int(j_lo[0]), int(j_hi[0]), int(j_vert[0])


def _explain(i: int, orients) -> str:
    names = {1: "A (own class on/below the line, other class on/above)",
             -1: "B (own class on/above the line, other class on/below)"}
    lines = []
    for o in orients:
        if o.feasible:
            lo = "−∞" if not np.isfinite(o.lo) else minus_signs(f"{o.lo:.4g}")
            hi = "+∞" if not np.isfinite(o.hi) else minus_signs(f"{o.hi:.4g}")
            lines.append(f"Orientation {names[o.sigma]}: feasible — every line through point {i} "
                         f"with slope in [{lo}, {hi}] keeps all points on their side.")
        elif o.j_vertical >= 0:
            lines.append(f"Orientation {names[o.sigma]}: infeasible — point {o.j_vertical} lies "
                         f"straight above/below point {i} on the wrong side of every such line.")
        else:
            lines.append(minus_signs(f"Orientation {names[o.sigma]}: infeasible — point {o.j_lo} needs slope "
                                     f"≥ {o.lo:.4g} but point {o.j_hi} needs slope ≤ {o.hi:.4g}."))
    verdict = (f"Point {i} is a guard vector." if any(o.feasible for o in orients) else
               f"Point {i} is not a guard vector: no line through it separates the classes.")
    return verdict + "\n\n" + "\n\n".join(lines)

"""Scatter SVM (Jenssen, Kloft, Zien, Sonnenburg and Müller 2012): one joint multi-class SVM whose dual minimises the scatter of the class
prototypes around their mean.

The paper's text does not print its equations; they are re-derived here. Classes c = 0 … K−1,
class sets I_c, prototypes m_c = Σ_{i∈I_c} α_i φ(x_i) and their mean m̄ = (1/K) Σ_c m_c.

- Scatter (the paper's eq. 5–7): Σ_c ‖m_c − m̄‖² = Σ_c ‖m_c‖² − K‖m̄‖² = αᵀK̃α with
  K̃_ij = k(x_i, x_j)(δ_{c_i c_j} − 1/K)   (the within-class blocks minus 1/K of every block).
  ``QPProblem(kernel=, X=, scatter_classes=, n_classes=)`` is exactly this Q, never formed when
  the SMO backend works on it.
- ν-form (the paper's eq. 6 / 8): min αᵀK̃α s.t. 0 ≤ α_i ≤ μ and Σ_{i∈I_c} α_i = 1 for every c (with bias)
  or only Σ_i α_i = K (without bias). μ ≥ 1/m_smallest-class keeps it feasible. For K = 2 with bias
  it is the binary ν-SVM (eq. 3 / 5): ‖m₊ − m₋‖² = 2·scatter, prototypes on the class border.
- C-form (the paper's eq. 13 → 15): the primal min ½ Σ_c ‖w_c‖² + C Σ_i ξ_i s.t.
  (w_{c_i} − w̄)·φ(x_i) + b_{c_i} − b̄ ≥ 1 − ξ_i, ξ ≥ 0. Setting the Lagrangian's derivatives to
  zero: w_c = m_c − m̄ (so w̄ = 0), 0 ≤ α_i ≤ C, and (bias) Σ_{i∈I_c} α_i = (1/K) Σ_i α_i, i.e. all
  class sums equal. Substituting: eq. 15, max 1ᵀα − ½ αᵀK̃α.
- Score (the paper's eq. 12 / 18): f_c(x) = ⟨w_c, φ(x)⟩ + b_c = Σ_i α_i (δ_{c_i c} − 1/K) k(x_i, x) + b_c,
  label argmax_c f_c(x). Because (K̃α)_i = ⟨w_{c_i}, φ(x_i)⟩, the QP gradient on a free α_i is the
  same number ρ_c for every free sample of class c (the multiplier of the class-sum constraint,
  LIBSVM's rho of that group): free samples sit on their class's margin, and b_c = −(ρ_c − ρ̄)
  (normalised so b̄ = 0) puts every class's margin at the same score. Without bias b_c = 0.
- Sensitivity map (the paper's eq. 20–21): s_cj = (1/N) Σ_n (∂f_c(x_n)/∂x_j)², analytic for every kernel.

The C-form with bias couples the classes through "equal class sums", which is not a disjoint
group with a fixed right-hand side. For a common class sum t let V(t) be the optimum of the QP with
the disjoint groups Σ_{i∈I_c} α_i = t. V is convex (a partial minimum of a convex problem over a
set that moves linearly with t), so the exact optimum is min over t ∈ [0, C·min_c m_c] of V(t),
found by Brent's bounded search with every inner solve warm-started; its derivative V'(t) = Σ_c ρ_c
vanishes there (or t sits at the upper end). The cvxpy reference solves the coupled problem
directly (``reference_c_bias``), so tests compare the two.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from svmviz.errors import DataError, ParameterError, ProblemTooLargeError, SvmvizError
from svmviz.kernels import Kernel
from svmviz.models.base import SVMClassifierBase
from svmviz.models.constraints import C, KERNEL, MAX_ITER, SOLVER, TOL, Bool, Number, OneOf
from svmviz.registry import register_estimator, register_record
from svmviz.solvers import QPProblem, cvxpy_backend, kkt, solve_qp

FORMULATIONS = ("C", "nu")


# ---------------------------------------------------------------------------------- the QPs
def scatter_problem(X, yi, n_classes: int, kernel: Kernel, formulation: str = "C", bias: bool = False,
                    C: float = 1.0, mu: float | None = None, class_sum: float | None = None) -> QPProblem:
    """The Scatter SVM dual as a ``QPProblem`` min ½αᵀQα + pᵀα with Q = K̃ (implicit).

    - "nu" (eq. 8, times ½): p = 0, 0 ≤ α ≤ μ, groups Σ_{I_c} α = 1 (bias) or one group Σ α = K.
    - "C" (eq. 15, negated): p = −1, 0 ≤ α ≤ C; with bias the disjoint groups Σ_{I_c} α = class_sum
      (one slice of the coupled problem, see the module docstring).
    """
    yi = np.asarray(yi, dtype=np.int64)
    n = yi.shape[0]
    common = dict(kernel=kernel, X=X, scatter_classes=yi, n_classes=n_classes)
    if formulation == "nu":
        if bias:
            return QPProblem(p=np.zeros(n), lower=0.0, upper=mu, groups=yi,
                             eq_rhs=np.ones(n_classes), **common)
        return QPProblem(p=np.zeros(n), lower=0.0, upper=mu, groups=np.zeros(n, dtype=np.int64),
                         eq_rhs=np.array([float(n_classes)]), **common)
    if bias:
        if class_sum is None:
            raise ParameterError("the C-form with bias needs the common class sum t for one slice")
        return QPProblem(p=-np.ones(n), lower=0.0, upper=C, groups=yi,
                         eq_rhs=np.full(n_classes, float(class_sum)), **common)
    return QPProblem(p=-np.ones(n), lower=0.0, upper=C, **common)


def reference_c_bias(X, yi, n_classes: int, kernel: Kernel, C: float, max_n: int | None = None):
    """The C-form with bias (eq. 15 with equal class sums) solved directly by cvxpy (Clarabel):
    min ½αᵀK̃α − 1ᵀα, 0 ≤ α ≤ C, Σ_{I_c} α = Σ_{I_0} α for c = 1 … K−1. Returns (α, t)."""
    import cvxpy as cp

    yi = np.asarray(yi, dtype=np.int64)
    n = yi.shape[0]
    max_n = cvxpy_backend.DEFAULT_MAX_N if max_n is None else max_n
    if n > max_n:
        raise ProblemTooLargeError(f"the cvxpy reference solver is limited to {max_n} samples and this "
                                   f"problem has {n}; use solver='smo'")
    Q = scatter_problem(X, yi, n_classes, kernel, "C", False, C=C).dense_Q()
    a = cp.Variable(n)
    sums = [cp.sum(a[np.flatnonzero(yi == c)]) for c in range(n_classes)]
    cons = [a >= 0, a <= C] + [sums[c] == sums[0] for c in range(1, n_classes)]
    for Qa in (Q, None):
        if Qa is None:  # clip round-off negative eigenvalues and try once more
            w, V = np.linalg.eigh(0.5 * (Q + Q.T))
            Qa = (V * np.maximum(w, 0.0)) @ V.T
        prob = cp.Problem(cp.Minimize(0.5 * cp.quad_form(a, cp.psd_wrap(Qa)) - cp.sum(a)), cons)
        try:
            prob.solve(solver="CLARABEL", tol_gap_abs=1e-11, tol_gap_rel=1e-11, tol_feas=1e-11,
                       max_iter=500)
        except cp.error.SolverError:
            continue
        if prob.status in ("optimal", "optimal_inaccurate") and a.value is not None:
            break
    if a.value is None:
        raise SvmvizError(f"the cvxpy reference solver failed: {prob.status}")
    alpha = np.clip(np.asarray(a.value, dtype=np.float64), 0.0, C)
    t = float(np.mean(np.bincount(yi, weights=alpha, minlength=n_classes)))
    return _project_class_sums(alpha, yi, n_classes, t, C), t


def _project_class_sums(alpha, yi, n_classes, t, C) -> np.ndarray:
    """α moved to class sums exactly t, staying in [0, C]: a class short of t grows in proportion
    to each variable's room up to C, a class above t shrinks in proportion to α (a warm start
    for the next slice of the outer search, and a clean-up of a reference solution)."""
    a = alpha.copy()
    sums = np.bincount(yi, weights=a, minlength=n_classes)
    room = np.bincount(yi, weights=C - a, minlength=n_classes)
    gap = t - sums
    up = np.where(room > 0, np.maximum(gap, 0.0) / np.where(room > 0, room, 1.0), 0.0)
    down = np.where(sums > 0, np.minimum(gap, 0.0) / np.where(sums > 0, sums, 1.0), 0.0)
    a += up[yi] * (C - a) + down[yi] * a
    return np.clip(a, 0.0, C)


def coupled_rho(problem: QPProblem, alpha, G) -> np.ndarray:
    """ρ_c of the C-form with bias at a solution (α on the slice Σ_{I_c} α = t).

    The coupled KKT conditions ask for one ρ_c per class with G_i = ρ_c on free α_i, G_i ≥ ρ_c at
    α_i = 0 and G_i ≤ ρ_c at α_i = C, and Σ_c ρ_c = 0 (b_c − b̄ = −ρ_c and Σ_c (b_c − b̄) = 0).
    A class with a free variable fixes its ρ_c; a class without one only bounds it, so those are
    set to clip(τ, lower_c, upper_c) with the τ that makes the sum 0 (bisection on a monotone sum).
    """
    # the outer search stops a hair from a kink of V (a class reaching C everywhere), so a
    # variable within 1e-6·C of its bound counts as bounded
    at_lower, at_upper = kkt.bound_masks(problem, alpha, rtol=1e-6)
    K = problem.n_groups
    lo, hi = np.full(K, -np.inf), np.full(K, np.inf)
    for c in range(K):
        idx = problem.groups == c
        free = idx & ~at_lower & ~at_upper
        if np.any(free):
            lo[c] = hi[c] = float(np.mean(G[free]))
            continue
        if np.any(idx & at_lower):
            hi[c] = float(np.min(G[idx & at_lower]))
        if np.any(idx & at_upper):
            lo[c] = float(np.max(G[idx & at_upper]))
        if lo[c] > hi[c]:  # inside the solver tolerance: take the middle
            lo[c] = hi[c] = 0.5 * (lo[c] + hi[c])
    finite = np.r_[lo[np.isfinite(lo)], hi[np.isfinite(hi)]]
    a, b = finite.min() - 1.0, finite.max() + 1.0
    for _ in range(200):
        tau = 0.5 * (a + b)
        if np.sum(np.clip(tau, lo, hi)) > 0:
            b = tau
        else:
            a = tau
    return np.clip(0.5 * (a + b), lo, hi)


def solve_c_bias(X, yi, n_classes: int, kernel: Kernel, C: float, backend: str = "smo",
                 tol: float = 1e-3, progress=None, **options):
    """The coupled C-form with bias by the outer search over the common class sum t (module
    docstring): Brent's bounded minimisation of the convex V(t), each slice a QP with disjoint
    groups solved by ``backend`` from the nearest solved slice. Returns (QPResult, t, n_solves).

    ``progress(done, total)`` (optional) is called with the slices solved so far (``total`` 0: the
    search decides when it ends) after each slice's solve and, with the SMO backend, inside a long
    one: when it raises (Stop, a closed tab) the search ends there, mid-solve. ``options`` go to
    ``solve_qp``."""
    from scipy.optimize import minimize_scalar

    yi = np.asarray(yi, dtype=np.int64)
    t_max = C * float(np.bincount(yi, minlength=n_classes).min())
    solved: dict[float, object] = {}
    if progress is not None and backend == "smo":
        options = {**options, "progress": lambda *_: progress(len(solved), 0)}

    def V(t: float) -> float:
        t = float(t)
        if t in solved:
            return solved[t].objective
        alpha0 = None
        if solved:
            near = min(solved, key=lambda s: abs(s - t))
            alpha0 = _project_class_sums(solved[near].alpha, yi, n_classes, t, C)
        prob = scatter_problem(X, yi, n_classes, kernel, "C", True, C=C, class_sum=t)
        solved[t] = solve_qp(prob, backend=backend, tol=tol, alpha0=alpha0, **options)
        if progress is not None:
            progress(len(solved), 0)
        return solved[t].objective

    # V'(0+) = −K < 0, so the optimum is inside (0, t_max]; the bounded search never evaluates
    # the ends, hence t_max is tried explicitly.
    minimize_scalar(V, bounds=(0.0, t_max), method="bounded",
                    options={"xatol": 1e-7 * max(t_max, 1e-12), "maxiter": 200})
    V(t_max)
    best = min(solved, key=lambda s: solved[s].objective)
    return solved[best], best, len(solved)


# ---------------------------------------------------------------------------------- estimator
@register_estimator
class ScatterSVC(SVMClassifierBase):
    """Scatter SVM (Jenssen et al. 2012): a joint multi-class SVM over the prototypes m_c and their mean.

    Parameters
    ----------
    C : float, the box bound of the C-form (eq. 15); ignored by the ν-form
    formulation : "C" (eq. 13–15, hinge loss; the paper's experiments) or "nu" (eq. 6/8, scatter)
    mu : the ν-form box bound μ (α_i ≤ μ); None = 2/m_smallest-class (for two balanced classes the
        ν-SVM's ν = 0.5, since μ = 2/(ν·m)); ignored by the C-form
    bias : per-class intercepts b_c (equal class sums / class sums 1 in the dual) or none
    kernel, gamma, degree, coef0 : as ``sklearn.svm.SVC``
    solver : "smo" (the SMO backend on the implicit K̃) or "cvxpy" (reference, small n)
    tol : stopping tolerance on the maximal KKT violation
    max_iter : SMO iteration cap per QP (None: the solver's default); when a solve stops at it,
        ``fit`` warns with scikit-learn's ``ConvergenceWarning`` and ``converged_`` is False (a
        non-finite objective is a ``DataError``)

    Attributes
    ----------
    classes_ ; alpha_ : the dual vector (n,) ; support_, support_vectors_, support_classes_ (class
    index of each support vector) ; prototype_weights_ (K, n_sv): row c holds α_i of the class-c
    support vectors, so m_c = Σ_s prototype_weights_[c, s] φ(sv_s) ; dual_coef_ (K, n_sv): the
    coefficients of w_c = m_c − m̄ (both computed from alpha_ and support_classes_, not stored) ; intercept_ (K,): b_c (zeros without bias) ; rho_ : the KKT
    offsets ρ_c (with bias) ; objective_ : the paper's dual objective (C: 1ᵀα − ½αᵀK̃α, maximised;
    ν: αᵀK̃α, minimised) ; scatter_ : Σ_c ‖m_c − m̄‖² = αᵀK̃α ; class_sums_ : Σ_{I_c} α_i ; mu_ ;
    n_iter_, n_solves_ (QPs solved: > 1 for the outer search of the C-form with bias),
    converged_, fit_time_ ; fit_X_ : the training inputs (the sample of the sensitivity map).
    Linear kernel only: prototypes_ (K, d), mean_prototype_ (d,), coef_ (K, d) = w_c.

    ``decision_function`` follows scikit-learn: (n, K) class scores, and for two classes the
    difference f₁ − f₀ (positive = ``classes_[1]``); ``class_scores`` always gives (n, K).
    """

    _parameter_constraints = {**SVMClassifierBase._parameter_constraints, "C": C,
                              "formulation": OneOf(*FORMULATIONS), "mu": Number(0, 1e12, lo_open=True, none=True),
                              "bias": Bool(), **KERNEL, "solver": SOLVER, "tol": TOL, "max_iter": MAX_ITER}

    def __init__(self, C=1.0, formulation="C", mu=None, bias=False, kernel="rbf", gamma="scale",
                 degree=3, coef0=0.0, solver="smo", tol=1e-3, max_iter=None):
        self.C = C
        self.formulation = formulation
        self.mu = mu
        self.bias = bias
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter

    # ------------------------------------------------------------------ fitting
    def _check_mu(self, counts: np.ndarray) -> float | None:
        """The ν-form's μ (None for the C-form), checked against the class sizes."""
        if self.formulation == "C":
            return None
        K, n = counts.size, int(counts.sum())
        mu = 2.0 / counts.min() if self.mu is None else float(self.mu)
        if self.bias and mu * counts.min() < 1 - 1e-12:
            raise ParameterError(
                f"mu = {mu:g} is too small: with bias every class's weights sum to 1, so mu must be "
                f"at least 1/(size of the smallest class) = 1/{counts.min()} = {1 / counts.min():.4g}")
        if not self.bias and mu * n < K - 1e-12:
            raise ParameterError(f"mu = {mu:g} is too small: the weights must sum to K = {K}, so mu "
                                 f"must be at least K/n = {K / n:.4g}")
        return mu

    def fit(self, X, y, progress=None):
        """Solve the dual (one QP, or the outer search over t for the C-form with bias).

        ``progress(done, total)`` (optional): ``progress(0, 1)`` is called from
        inside a long SMO solve (the solver's ``progress``, every ``smo.CHUNK`` iterations) and after
        each slice of the outer search, ``progress(1, 1)`` at the end. When it raises (Stop, a
        closed tab) the exception ends the fit there, mid-solve."""
        t0 = time.perf_counter()
        X, yi = self._validate_fit(X, y)
        K = self.classes_.size
        counts = np.bincount(yi, minlength=K)
        mu = self._check_mu(counts)
        kern = self._kernel(X)
        # the SMO's progress only polls here (its iterations are not the fit's steps): a raise
        # ends the solve
        opts = {}
        if progress is not None and self.solver == "smo":
            opts["progress"] = lambda *_: progress(0, 1)
        n_solves, t = 1, None
        if self.formulation == "C" and self.bias:
            if self.solver == "cvxpy":
                alpha, t = reference_c_bias(X, yi, K, kern, float(self.C))
                res = None
            else:
                res, t, n_solves = solve_c_bias(
                    X, yi, K, kern, float(self.C), backend=self.solver, tol=self.tol,
                    max_iter=self.max_iter, progress=opts.get("progress"))
                alpha = res.alpha
            problem = scatter_problem(X, yi, K, kern, "C", True, C=float(self.C), class_sum=t)
        else:
            problem = scatter_problem(X, yi, K, kern, self.formulation, bool(self.bias),
                                      C=float(self.C), mu=mu)
            res = solve_qp(problem, backend=self.solver, tol=self.tol, max_iter=self.max_iter, **opts)
            alpha = res.alpha
        G = problem.gradient(alpha)
        if not self.bias:
            rho = np.zeros(0)
        elif self.formulation == "C":
            rho = coupled_rho(problem, alpha, G)
        else:
            rho = kkt.rho(problem, alpha, G)

        sv = np.flatnonzero(alpha > 0)
        self.alpha_ = alpha
        self.support_ = sv
        self.support_vectors_ = X[sv]
        self.support_classes_ = yi[sv]
        self.rho_ = rho
        self.intercept_ = -(rho - rho.mean()) if self.bias else np.zeros(K)
        quad = float(alpha @ (G - problem.p))  # αᵀK̃α
        self.scatter_ = quad
        self.objective_ = float(alpha.sum() - 0.5 * quad) if self.formulation == "C" else quad
        self.class_sums_ = np.bincount(yi, weights=alpha, minlength=K)
        self.mu_ = float("nan") if mu is None else mu
        self.n_iter_ = 0 if res is None else int(res.n_iter)
        self.n_solves_ = int(n_solves)
        self.kernel_params_ = kern.to_dict()
        self.fit_X_ = X
        # A non-finite objective is an error, never a converged model; a solve that
        # stopped at its iteration cap warns (ConvergenceWarning) and says so in converged_.
        self.converged_ = True if res is None else bool(res.converged)
        self._check_result(converged=self.converged_, objective=[self.objective_, self.scatter_],
                           detail="" if res is None else (
                               f"{self.n_iter_} SMO iterations, max KKT violation "
                               f"{res.max_violation:.3g} against tol = {self.tol:g}"))
        self.fit_time_ = time.perf_counter() - t0
        if progress is not None:
            progress(1, 1)
        return self

    # ------------------------------------------------------------------ prediction
    @property
    def kernel_(self) -> Kernel:
        return Kernel.from_dict(self.kernel_params_)

    def _linear_only(self, what: str):
        if self.kernel_params_["name"] != "linear":
            raise AttributeError(f"{what} is only available for the linear kernel (the prototypes of "
                                 "other kernels live in feature space)")

    # Every support vector enters one prototype only: W = P − (1/K)·1αᵀ with P (K, n_sv) holding
    # one α per column. Sums over W are computed as a sparse class sum minus the mean term, so
    # prediction costs O(n·n_sv), not O(n·n_sv·K) (it matters at K = 1,000, the paper's Table 1).
    def _onehot(self) -> sparse.csr_matrix:
        nsv = self.support_.size
        return sparse.csr_matrix((np.ones(nsv), (np.arange(nsv), self.support_classes_)),
                                 shape=(nsv, self.classes_.size))

    def _weighted_class_sums(self, M: np.ndarray, onehot) -> np.ndarray:
        """Σ_s W_cs M[:, s] for every class c, i.e. (M W^T), shape (n, K)."""
        Ma = M * self.alpha_[self.support_]
        return np.asarray(Ma @ onehot) - (Ma.sum(axis=1) / self.classes_.size)[:, None]

    @property
    def prototype_weights_(self) -> np.ndarray:
        """(K, n_sv): row c holds α_s of the class-c support vectors, m_c = Σ_s P_cs φ(sv_s)."""
        P = np.zeros((self.classes_.size, self.support_.size))
        P[self.support_classes_, np.arange(self.support_.size)] = self.alpha_[self.support_]
        return P

    @property
    def dual_coef_(self) -> np.ndarray:
        """(K, n_sv): the coefficients of w_c = m_c − m̄ (stationarity of eq. 13)."""
        P = self.prototype_weights_
        return P - P.mean(axis=0)

    @property
    def prototypes_(self) -> np.ndarray:
        """m_c in input space (linear kernel), one row per class."""
        self._linear_only("prototypes_")
        a = self.alpha_[self.support_]
        return np.asarray(self._onehot().T @ (a[:, None] * self.support_vectors_))

    @property
    def mean_prototype_(self) -> np.ndarray:
        self._linear_only("mean_prototype_")
        return self.prototypes_.mean(axis=0)

    @property
    def coef_(self) -> np.ndarray:
        """w_c = m_c − m̄ (linear kernel); the rows sum to zero."""
        self._linear_only("coef_")
        m = self.prototypes_
        return m - m.mean(axis=0)

    def prototype_centres(self) -> np.ndarray:
        """Where each prototype sits among its class in input space: Σ_{I_c} α_i x_i / Σ_{I_c} α_i
        (K, d). For the linear kernel with class sums 1 (ν-form with bias) these are exactly m_c;
        otherwise they are the input-space picture of a feature-space prototype (NaN for a class
        without support vectors)."""
        a = self.alpha_[self.support_]
        onehot = self._onehot()
        with np.errstate(invalid="ignore", divide="ignore"):
            return (np.asarray(onehot.T @ (a[:, None] * self.support_vectors_))
                    / np.asarray(onehot.T @ a)[:, None])

    def prototype_distances(self) -> np.ndarray:
        """(K, K) feature-space distances ‖m_c − m_c'‖ between the prototypes (any kernel), from
        ‖m_c‖² = Σ_st P_cs P_ct k(sv_s, sv_t) computed in row blocks (no n_sv × n_sv array)."""
        P = self.prototype_weights_
        G = np.zeros((P.shape[0], P.shape[0]))
        for s, _, A in self._kernel_rows(self.support_vectors_):
            G += P[:, s:s + A.shape[0]] @ (A @ P.T)
        d = np.diag(G)
        return np.sqrt(np.maximum(d[:, None] + d[None, :] - 2 * G, 0.0))

    def coinciding_prototypes(self, rtol: float = 0.02) -> list[tuple[int, int]]:
        """Pairs (c, c') of class indices whose input-space prototype pictures
        (``prototype_centres``) lie within ``rtol`` × the diagonal of the training data's bounding
        box: drawn as squares they sit on top of each other (e.g. fourclass with the RBF kernel,
        where both classes' support vectors surround the same region). A class without support
        vectors has no picture and is not listed."""
        P = self.prototype_centres()
        X = self.fit_X_
        scale = float(np.linalg.norm(X.max(axis=0) - X.min(axis=0))) or 1.0
        D = np.linalg.norm(P[:, None, :] - P[None, :, :], axis=2)
        K = P.shape[0]
        return [(a, b) for a in range(K) for b in range(a + 1, K)
                if np.isfinite(D[a, b]) and D[a, b] <= rtol * scale]

    def _kernel_rows(self, X):
        """Chunks (start, X_chunk, K(X_chunk, support vectors)): memory stays bounded for large n,
        n_sv and K."""
        width = max(1, self.support_vectors_.shape[0], self.classes_.size)
        step = max(1, int(4e6 // width))
        kern = self.kernel_
        for s in range(0, X.shape[0], step):
            yield s, X[s:s + step], kern.gram(X[s:s + step], self.support_vectors_)

    def class_scores(self, X) -> np.ndarray:
        """f_c(x) = Σ_s α_s (δ_{c_s c} − 1/K) k(sv_s, x) + b_c (eq. 18), shape (n, K)."""
        X = self._validate_predict(X)
        out = np.empty((X.shape[0], self.classes_.size))
        onehot = self._onehot()
        for s, Xc, A in self._kernel_rows(X):
            out[s:s + Xc.shape[0]] = self._weighted_class_sums(A, onehot)
        return out + self.intercept_

    def decision_function(self, X) -> np.ndarray:
        S = self.class_scores(X)
        return S[:, 1] - S[:, 0] if S.shape[1] == 2 else S

    def predict(self, X) -> np.ndarray:
        scores = self.class_scores(X)  # validates first (NotFittedError before fit)
        return self.classes_[np.argmax(scores, axis=1)]

    # ------------------------------------------------------------------ sensitivity (eq. 20–21)
    def score_gradients(self, X) -> np.ndarray:
        """∂f_c(x_n)/∂x, shape (n, K, d), analytic for each kernel:
        linear ∂k/∂x = z; poly γ·deg·(γx·z + c₀)^(deg−1)·z; sigmoid γ(1 − tanh²(γx·z + c₀))·z;
        RBF −2γ(x − z)·k(x, z) (Jenssen et al. 2012, after eq. 21)."""
        X = self._validate_predict(X)
        kp = self.kernel_params_
        SV = self.support_vectors_
        K, d = self.classes_.size, SV.shape[1]
        out = np.zeros((X.shape[0], K, d))
        if SV.shape[0] == 0:
            return out
        if kp["name"] == "linear":
            out[:] = self.coef_[None]
            return out
        g, c0, deg = kp["gamma"], kp["coef0"], kp["degree"]
        onehot = self._onehot()
        for s, Xc, A in self._kernel_rows(X):
            rows = slice(s, s + Xc.shape[0])
            if kp["name"] == "rbf":
                # Σ_s W_cs (−2γ)(x − z_s) k_s = −2γ (x_j Σ_s W_cs k_s − Σ_s W_cs k_s z_sj)
                base = self._weighted_class_sums(A, onehot)
                for j in range(d):
                    out[rows, :, j] = -2 * g * (Xc[:, j:j + 1] * base
                                                - self._weighted_class_sums(A * SV[:, j], onehot))
            else:
                lin = Xc @ SV.T
                if kp["name"] == "poly":
                    D = g * deg * (g * lin + c0) ** (deg - 1)
                else:  # sigmoid
                    D = g * (1.0 - np.tanh(g * lin + c0) ** 2)
                for j in range(d):
                    out[rows, :, j] = self._weighted_class_sums(D * SV[:, j], onehot)
        return out

    def sensitivity_map(self, X=None) -> np.ndarray:
        """Jenssen et al. 2012, eq. 20–21: s_cj = (1/N) Σ_n (∂f_c(x_n)/∂x_j)² over the sample X (default: the
        training inputs), one row per class score f_c and a last row for the mean over the classes
        (the paper's "overall, or mean, sensitivity over all classes"; the mean score itself is
        identically 0 since w̄ = 0 and b̄ = 0). Shape (K+1, d). The bias does not enter."""
        if X is None:
            if not hasattr(self, "fit_X_"):
                from sklearn.exceptions import NotFittedError
                raise NotFittedError("this ScatterSVC is not fitted yet; call fit first")
            X = self.fit_X_
        Gr = self.score_gradients(X)
        if Gr.shape[0] == 0:
            raise DataError("the sensitivity map needs at least one sample")
        S = np.mean(Gr ** 2, axis=0)
        return np.vstack([S, S.mean(axis=0)])


# ---------------------------------------------------------------------------------- choosing γ
@register_record
@dataclass
class GammaChoice:
    """The RBF γ of a Scatter SVM chosen on held-out data, with every candidate's outcome.

    ``gammas``: the candidates; ``accuracy``: validation accuracy of each; ``best``: index of the
    chosen one (highest accuracy; ties go to the smallest γ, the smoothest score); ``maps``:
    the sensitivity map (K+1, d) of each candidate's model (Jenssen et al. 2012, eq. 20–21), so a page can show
    how the contrast between dimensions changes with γ; ``n_train``/``n_validation``: split sizes."""

    gammas: np.ndarray
    accuracy: np.ndarray
    best: int
    maps: np.ndarray
    n_train: int
    n_validation: int

    @property
    def gamma(self) -> float:
        return float(self.gammas[self.best])


def choose_gamma(X, y, gammas=None, validation: float = 0.3, random_state: int = 0, *,
                 progress=None, **params) -> GammaChoice:
    """Fit ``ScatterSVC(kernel="rbf", gamma=γ, **params)`` on a stratified training part for each γ
    and score it on the held-out part (the sensitivity contrast of Jenssen et al. 2012, Fig. 17–20
    depends on γ, so the page chooses it on validation data rather than by hand).

    ``gammas``: candidates (default: 'scale' = 1/(d·Var X) times 4^k, k = −3 … 1).
    ``progress(done, total)`` (optional): called after each γ (``total`` = the
    number of candidates) and, with the γs done so far, from inside each fit's long solves; when it
    raises (Stop, a closed tab) the search ends there."""
    from sklearn.model_selection import train_test_split

    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    if not 0 < validation < 1:
        raise ParameterError(f"validation must be a fraction between 0 and 1, got {validation!r}")
    if gammas is None:
        var = float(X.var())
        base = 1.0 / (X.shape[1] * var) if var > 0 else 1.0
        gammas = base * 4.0 ** np.arange(-3, 2)
    gammas = np.sort(np.asarray(gammas, dtype=np.float64))
    if gammas.size == 0 or not np.all(np.isfinite(gammas) & (gammas > 0)):
        raise ParameterError("gammas must be positive finite numbers")
    try:
        Xt, Xv, yt, yv = train_test_split(X, y, test_size=validation, random_state=random_state,
                                          stratify=y)
    except ValueError as exc:
        raise DataError(f"cannot hold out {validation:g} of the data for choosing γ with every class "
                        f"on both sides ({exc}); use more samples per class") from None
    acc, maps = [], []
    n = gammas.size
    for k, g in enumerate(gammas):
        inner = None
        if progress is not None:
            def inner(done, total, k=k):   # a poll inside this γ's fit; its end is reported below
                if done < total:
                    progress(k, n)
        model = ScatterSVC(kernel="rbf", gamma=float(g), **params).fit(Xt, yt, progress=inner)
        acc.append(float(np.mean(model.predict(Xv) == yv)))
        maps.append(model.sensitivity_map())
        if progress is not None:
            progress(k + 1, n)
    acc = np.array(acc)
    best = int(np.flatnonzero(acc == acc.max())[0])  # gammas ascending: the smallest of the best
    return GammaChoice(gammas, acc, best, np.array(maps), len(yt), len(yv))

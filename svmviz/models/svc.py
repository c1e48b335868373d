"""Binary C-SVM and ν-SVM over ``svmviz.solvers`` (LIBSVM's duals, scikit-learn's conventions).

With ``trace=True`` the SMO iterations are recorded (``trace_``) and ``iterate_at(t)`` rebuilds
the classifier after t iterations: the boundary a student sees the solver move step by step."""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from svmviz import limits
from svmviz.errors import DataError, ParameterError
from svmviz.kernels import Kernel, block_rows
from svmviz.models.base import SVMClassifierBase
from svmviz.models.constraints import C, KERNEL, SMO, TRACE, Number
from svmviz.registry import register_estimator
from svmviz.solvers import QPProblem, kkt, solve_qp


@dataclass
class SMOIterate:
    """The classifier after ``t`` SMO iterations of a traced fit (``iterate_at``).

    alpha : the dual variables (λ for the ν-SVM, each class summing to 1); coef, intercept :
    f_t(x) = Σ_i coef_i k(x_i, x) + intercept over the training inputs ``X``; margins : whether
    f_t = ±1 are the margins (for the ν-SVM only once LIBSVM's r > 0); pair : the working pair of
    iteration t (original indices, None at t = 0); max_violation, objective : of the iterate (for
    the ν-SVM in the λ scale); hull_points : (p₊, p₋) = (Σ_{+} λ_i x_i, Σ_{−} λ_i x_i) for the
    ν-SVM, the current points of the two reduced hulls (input space), else None.
    """

    t: int
    alpha: np.ndarray
    coef: np.ndarray
    intercept: float
    margins: bool
    pair: tuple | None
    max_violation: float
    objective: float
    hull_points: tuple | None
    X: np.ndarray
    kernel: Kernel

    def decision_function(self, X) -> np.ndarray:
        nz = np.flatnonzero(self.coef)
        if nz.size == 0:
            return np.full(np.asarray(X).shape[0], self.intercept)
        X, Z, coef = np.asarray(X, dtype=np.float64), self.X[nz], self.coef[nz]
        step = block_rows(nz.size)
        return np.concatenate([self.kernel.gram(X[s:s + step], Z) @ coef
                               for s in range(0, X.shape[0], step)] or [np.empty(0)]) + self.intercept


class BinaryKernelSVM(SVMClassifierBase):
    """Prediction from support vectors, shared by the C- and ν-SVM."""

    _parameter_constraints = {**SVMClassifierBase._parameter_constraints, **KERNEL}

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False   # binary by design (multi-class: DAG, Scatter)
        return tags

    def _solve(self, problem, progress=None):
        """solve_qp with the estimator's solver options (SMO has no default cap: it stops only
        at an explicit max_iter, and ``_store`` then warns). ``progress(done, total)`` reaches the
        SMO solver (iterations done; total 0 without max_iter), which calls it between chunks of
        iterations, so a callback that raises (or Ctrl-C) stops a long solve there."""
        opts = {}
        if self.solver == "smo":
            opts = {"cache_mb": self.cache_mb, "trace": bool(self.trace),
                    "max_trace": int(self.max_trace)}
            if progress is not None:
                opts["progress"] = progress
        elif self.trace:
            raise ParameterError("trace=True records SMO iterations: use solver='smo'")
        return solve_qp(problem, backend=self.solver, tol=self.tol, max_iter=self.max_iter, **opts)

    def _store(self, X, y_pm, alpha, b, res, kernel: Kernel, t0, coef_scale: float = 1.0,
               upper=None):
        if not res.converged:
            warnings.warn(f"{type(self).__name__}: the {res.backend} solver stopped before the "
                          f"tolerance was reached (max KKT violation {res.max_violation:.3g} after "
                          f"{res.n_iter} iterations); raise max_iter or leave it None",
                          ConvergenceWarning)
        # SMO puts α exactly at 0; an interior-point (cvxpy) solution is only close to it
        thr = 0.0 if res.backend == "smo" else 1e-8 * max(float(np.max(alpha, initial=0.0)), 1e-300)
        sv = (alpha > thr).nonzero()[0]
        self.alpha_ = alpha
        self.support_ = sv
        self.support_vectors_ = X[sv]
        self.dual_coef_ = (alpha[sv] * y_pm[sv] * coef_scale)[None, :]
        self.intercept_ = np.array([b])
        self.objective_ = float(res.objective)
        self.n_iter_ = int(res.n_iter)
        self.converged_ = bool(res.converged)
        self.max_violation_ = float(res.max_violation)
        self.history_ = res.history
        self.kernel_params_ = kernel.to_dict()
        # linear models predict through w = Σ y_i α_i x_i (thousands of times faster than the kernel sum)
        self.linear_coef_ = (self.dual_coef_ @ self.support_vectors_ if kernel.name == "linear"
                             else None)
        self.trace_ = res.trace
        self.trace_data_ = (None if res.trace is None else
                            {"X": X, "y": y_pm, "upper": np.broadcast_to(upper, y_pm.shape).copy()})
        self.fit_time_ = time.perf_counter() - t0

    @property
    def kernel_(self) -> Kernel:
        return Kernel.from_dict(self.kernel_params_)

    @property
    def coef_(self) -> np.ndarray:
        if self.kernel_params_["name"] != "linear":
            raise AttributeError("coef_ is only available for the linear kernel")
        return self.linear_coef_

    def decision_function(self, X) -> np.ndarray:
        """Positive values mean ``classes_[1]`` (as scikit-learn's SVC). Linear kernel: X @ w + b."""
        X = self._validate_predict(X)
        if self.kernel_params_["name"] == "linear":
            return X @ self.coef_[0] + self.intercept_[0]
        if self.support_vectors_.shape[0] == 0:
            return np.full(X.shape[0], self.intercept_[0])
        out = np.empty(X.shape[0])
        step = block_rows(self.support_vectors_.shape[0])
        for s in range(0, X.shape[0], step):
            if s:
                limits.checkpoint()   # a large grid: between its blocks of kernel rows
            K = self.kernel_.gram(X[s:s + step], self.support_vectors_)
            out[s:s + step] = K @ self.dual_coef_[0] + self.intercept_[0]
        return out

    def predict(self, X) -> np.ndarray:
        positive = self.decision_function(X) > 0   # checks that the model is fitted
        return self.classes_[positive.astype(int)]

    def iterate_at(self, t: int) -> SMOIterate:
        """The classifier after ``t`` recorded SMO iterations (needs ``trace=True``)."""
        tr = getattr(self, "trace_", None)
        if tr is None:
            raise ParameterError(f"{type(self).__name__} was fitted without trace=True: refit "
                                 "with trace=True to step through the SMO iterations")
        if not 0 <= int(t) <= len(tr):
            raise ParameterError(f"t must be between 0 and {len(tr)} (the recorded iterations)")
        t = int(t)
        d = self.trace_data_
        problem = self._trace_problem(d["X"], d["y"], d["upper"], self.kernel_)
        alpha = tr.alpha_at(t)
        G = problem.gradient(alpha)
        pair = None if t == 0 else tuple(int(v) for v in tr.pairs[t - 1])
        viol = kkt.max_violation(problem, alpha, G, rtol=0.0)
        obj = tr.objective0 if t == 0 else float(tr.objective[t - 1])
        return self._iterate(t, alpha, problem, G, d, pair, viol, obj)

    def trace_curves(self) -> dict:
        """Per iterate t = 0..len(trace): the maximal KKT violation (as the solver saw it, on its
        active set; the last one from scratch) and the objective, in this model's scale (λ for
        the ν-SVM): {"iteration", "max_violation", "objective"}."""
        tr = getattr(self, "trace_", None)
        if tr is None:
            raise ParameterError(f"{type(self).__name__} was fitted without trace=True")
        s = self.trace_scale()
        return {"iteration": np.arange(len(tr) + 1),
                "max_violation": np.r_[tr.max_violation / s, self.iterate_at(len(tr)).max_violation],
                "objective": np.r_[tr.objective0, tr.objective] / s**2}

    def _validate_binary(self, X, y):
        X, yi = self._validate_fit(X, y)
        limits.check_solver_size(X.shape[0], f"{type(self).__name__} (one quadratic program)")
        if self.classes_.size != 2:
            raise DataError(f"Only binary classification is supported. {type(self).__name__} "
                            f"handles 2 classes, but y has {self.classes_.size}; use a multi-class "
                            "method (DAG SVM, Scatter SVM) instead")
        return X, yi


@register_estimator
class BinarySVC(BinaryKernelSVM):
    """C-SVM for two classes: min ½αᵀQα − eᵀα, 0 ≤ α ≤ C, yᵀα = 0 (LIBSVM's dual).

    Parameters
    ----------
    C : float, the box bound (``fit(..., sample_C=...)`` overrides it per sample)
    kernel, gamma, degree, coef0 : as ``sklearn.svm.SVC``
    solver : "smo" (Numba SMO) or "cvxpy" (reference)
    tol, max_iter, cache_mb : stopping tolerance on the maximal KKT violation, iteration cap
        (None: run to convergence as LIBSVM; a cap that is reached warns and leaves
        ``converged_`` False), kernel cache size for the SMO backend
    trace, max_trace : record the first ``max_trace`` SMO iterations (``trace_``, ``iterate_at``)

    Attributes
    ----------
    classes_, support_, support_vectors_, dual_coef_, intercept_ : as SVC (positive decision =
        ``classes_[1]``); ``coef_`` for the linear kernel
    alpha_ : the full dual vector; objective_ : ½αᵀQα − Σα; n_iter_, converged_,
    max_violation_ (final maximal KKT violation), fit_time_, history_ : the solver's convergence
    history; trace_ : ``SMOTrace`` or None
    """

    _parameter_constraints = {**BinaryKernelSVM._parameter_constraints, "C": C, **SMO, **TRACE}

    def __init__(self, C=1.0, kernel="rbf", gamma="scale", degree=3, coef0=0.0, solver="smo",
                 tol=1e-3, max_iter=None, cache_mb=200, trace=False, max_trace=20000):
        self.C = C
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.cache_mb = cache_mb
        self.trace = trace
        self.max_trace = max_trace

    def fit(self, X, y, sample_C=None, progress=None):
        t0 = time.perf_counter()
        X, yi = self._validate_binary(X, y)
        y_pm = np.where(yi == 1, 1.0, -1.0)
        upper = self.C if sample_C is None else np.asarray(sample_C, dtype=np.float64)
        if np.logical_or.reduce(np.asarray(upper) <= 0, axis=None):
            raise ParameterError("sample_C must be positive")
        kern = self._kernel(X)
        res = self._solve(self._trace_problem(X, y_pm, upper, kern), progress)
        self._store(X, y_pm, res.alpha, -float(res.rho[0]), res, kern, t0, upper=upper)
        return self

    def trace_scale(self) -> float:
        """The factor from the trace's α to the dual variables the page shows (1: they are α)."""
        return 1.0

    def _trace_problem(self, X, y_pm, upper, kern):
        return QPProblem.c_svm(y_pm, upper, kernel=kern, X=X)

    def _iterate(self, t, alpha, problem, G, d, pair, viol, obj):
        b = -float(kkt.rho(problem, alpha, G, rtol=0.0)[0])
        return SMOIterate(t, alpha, alpha * d["y"], b, True, pair, float(viol), float(obj), None,
                          d["X"], self.kernel_)


@register_estimator
class BinaryNuSVC(BinaryKernelSVM):
    """ν-SVM for two classes through its reduced-convex-hull form (Zapién Arreola, Fehr and Burkhardt 2007, §3.1;
    the binary part of Jenssen, Kloft, Zien, Sonnenburg and Müller 2012):

        min ½ λᵀQλ,  Q_ij = y_i y_j k(x_i, x_j),  Σ_{y_i=+1} λ_i = Σ_{y_i=−1} λ_i = 1,
        0 ≤ λ_i ≤ μ = 2/(ν l)

    i.e. the nearest points of RCH(X₊, μ) and RCH(X₋, μ) (one equality group per class). It is
    LIBSVM's ``Solver_NU`` problem scaled by 2/(ν l) (α = λ ν l/2); it is solved in LIBSVM's
    scale (same stopping rule) and, with LIBSVM's r = (r₁ + r₂)/2 and ρ = (r₁ − r₂)/2 from the
    two groups, the decision function Σ_i y_i α_i/r k(x_i, x) − ρ/r equals
    ``sklearn.svm.NuSVC``'s.

    Parameters
    ----------
    nu : float in (0, 1], at most 2·min(m₊, m₋)/l
    kernel, gamma, degree, coef0, solver, tol, max_iter, cache_mb, trace, max_trace : as
        ``BinarySVC`` (``iterate_at`` also gives the two reduced hulls' current points)

    Attributes
    ----------
    as ``BinarySVC``; ``alpha_`` is λ (each class sums to 1), ``objective_`` = ½λᵀQλ (half the
    squared distance between the reduced hulls in feature space), ``r_`` LIBSVM's r in the λ
    scale, ``mu_`` the bound μ
    """

    _parameter_constraints = {**BinaryKernelSVM._parameter_constraints, "nu": Number(0, 1, lo_open=True), **SMO,
                              **TRACE}

    def __init__(self, nu=0.5, kernel="rbf", gamma="scale", degree=3, coef0=0.0, solver="smo",
                 tol=1e-3, max_iter=None, cache_mb=200, trace=False, max_trace=20000):
        self.nu = nu
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.cache_mb = cache_mb
        self.trace = trace
        self.max_trace = max_trace

    def fit(self, X, y):
        t0 = time.perf_counter()
        X, yi = self._validate_binary(X, y)
        nu = self.nu
        y_pm = np.where(yi == 1, 1.0, -1.0)
        n = y_pm.size
        m_min = int(min(np.sum(y_pm > 0), np.sum(y_pm < 0)))
        if nu * n / 2 > m_min:
            raise ParameterError(
                f"nu = {nu:g} is infeasible for these data: the smaller class has {m_min} of {n} "
                f"samples, so nu must be at most {2 * m_min / n:.4g}")
        mu = 2.0 / (nu * n)
        scale = nu * n / 2   # LIBSVM's α = scale · λ
        kern = self._kernel(X)
        # solved in LIBSVM's scale (0 ≤ α ≤ 1, each class sums to νl/2): the same problem, but
        # the greedy feasible start then leaves no rounding residue such as λ = 1e-16 that would
        # count as a free variable in rho
        # each group written with s = y as LIBSVM's Solver_NU (Σ_{y=−1} −α_i = −νl/2), so the
        # working sets follow LIBSVM's; its rho is then −r₂ of LIBSVM's calculate_rho
        res = self._solve(self._trace_problem(X, y_pm, 1.0, kern))
        r1, r2 = res.rho[0], -res.rho[1]
        r = 0.5 * (r1 + r2)
        if not r > 1e-12 * max(1.0, abs(r1), abs(r2)):
            raise ParameterError(
                f"nu = {nu:g} makes the reduced convex hulls of the two classes overlap "
                "(LIBSVM's r is not positive): the ν-SVM has no separating direction; "
                "choose a larger nu (μ = 2/(ν·l) bounds each weight, so a larger ν shrinks the "
                "reduced hulls until they separate)")
        # back to the reduced-hull scale λ = α / scale (objective and history with it)
        lam = res.alpha / scale
        res.objective = res.objective / scale**2
        res.max_violation = res.max_violation / scale
        res.history = {"iteration": res.history.get("iteration", []),
                       "max_violation": [v / scale for v in res.history.get("max_violation", [])],
                       "objective": [v / scale**2 for v in res.history.get("objective", [])]}
        self.r_ = float(r) / scale
        self.mu_ = float(mu)
        self._store(X, y_pm, lam, -0.5 * (r1 - r2) / r, res, kern, t0, coef_scale=scale / r,
                    upper=1.0)
        return self

    def trace_scale(self) -> float:
        """The factor from the trace's α to the dual variables the page shows (LIBSVM's α = scale · λ)."""
        return self.nu * self.trace_data_["y"].size / 2   # LIBSVM's α = scale · λ

    def _trace_problem(self, X, y_pm, upper, kern):
        """LIBSVM's Solver_NU problem in its scale: 0 ≤ α ≤ upper = 1, each class sums to
        νl/2, each group written with s = y (Σ_{y=−1} −α_i = −νl/2), so its rho is −r₂."""
        n = y_pm.size
        scale = self.nu * n / 2
        return QPProblem(p=np.zeros(n), lower=0.0, upper=upper, kernel=kern, X=X, signs=y_pm,
                         groups=(y_pm < 0).astype(np.int64), eq_signs=y_pm,
                         eq_rhs=np.array([scale, -scale]))

    def _iterate(self, t, alpha, problem, G, d, pair, viol, obj):
        """λ = α/scale; f_t(x) = (Σ y_i α_i k(x_i, x) − (r₁ − r₂)/2)/r once r > 0, as in fit."""
        y, X = d["y"], d["X"]
        scale = self.nu * y.size / 2
        rho = kkt.rho(problem, alpha, G, rtol=0.0)
        r1, r2 = rho[0], -rho[1]
        r = 0.5 * (r1 + r2)
        margins = bool(r > 1e-12 * max(1.0, abs(r1), abs(r2)))
        div = r if margins else 1.0
        lam = alpha / scale
        hull = (lam[y > 0] @ X[y > 0], lam[y < 0] @ X[y < 0])
        return SMOIterate(t, lam, alpha * y / div, float(-0.5 * (r1 - r2) / div), margins, pair,
                          float(viol) / scale, float(obj) / scale**2, hull, X, self.kernel_)


def libsvm_dual_objective(svc, X) -> float:
    """LIBSVM's dual value ½αᵀQα − Σα of a fitted binary ``sklearn.svm.SVC``, recomputed from
    its signed dual coefficients (α_i y_i on the support vectors), to compare with
    ``BinarySVC.objective_``."""
    coef = np.asarray(svc.dual_coef_)[0]
    sv = np.asarray(X, dtype=np.float64)[svc.support_]
    kern = Kernel.from_params(svc.kernel, svc.gamma, int(svc.degree), float(svc.coef0), X=X)
    # in row blocks: at 10⁵ samples the support vectors' whole Gram matrix is tens of GB
    step = block_rows(sv.shape[0])
    quad = sum(float(coef[s:s + step] @ (kern.gram(sv[s:s + step], sv) @ coef)) for s in range(0, sv.shape[0], step))
    return 0.5 * quad - float(np.sum(np.abs(coef)))

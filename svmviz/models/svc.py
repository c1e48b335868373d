"""Binary C-SVM and ν-SVM over ``svmviz.solvers`` (LIBSVM's duals, scikit-learn's conventions)."""

from __future__ import annotations

import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from svmviz.errors import DataError, ParameterError
from svmviz.export.registry import register_estimator
from svmviz.kernels import Kernel
from svmviz.models.base import SVMClassifierBase
from svmviz.solvers import QPProblem, solve_qp

_SVC_FITTED = ("classes_", "n_features_in_", "support_", "support_vectors_", "dual_coef_",
               "intercept_", "objective_", "n_iter_", "converged_", "fit_time_", "kernel_params_",
               "alpha_", "history_")


class _BinaryKernelSVM(SVMClassifierBase):
    """Prediction from support vectors, shared by the C- and ν-SVM."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False   # binary by design (multi-class: DAG, Scatter)
        return tags

    def _store(self, X, y_pm, alpha, b, res, kernel: Kernel, t0, coef_scale: float = 1.0):
        if not res.converged:
            warnings.warn(f"{type(self).__name__}: the {res.backend} solver stopped before the "
                          f"tolerance was reached (max KKT violation {res.max_violation:.3g} after "
                          f"{res.n_iter} iterations); raise max_iter", ConvergenceWarning)
        # SMO puts α exactly at 0; an interior-point (cvxpy) solution is only close to it
        thr = 0.0 if res.backend == "smo" else 1e-8 * max(float(np.max(alpha, initial=0.0)), 1e-300)
        sv = np.flatnonzero(alpha > thr)
        self.alpha_ = alpha
        self.support_ = sv
        self.support_vectors_ = X[sv]
        self.dual_coef_ = (alpha[sv] * y_pm[sv] * coef_scale)[None, :]
        self.intercept_ = np.array([b])
        self.objective_ = float(res.objective)
        self.n_iter_ = int(res.n_iter)
        self.converged_ = bool(res.converged)
        self.history_ = res.history
        self.kernel_params_ = kernel.to_dict()
        self.fit_time_ = time.perf_counter() - t0

    @property
    def kernel_(self) -> Kernel:
        return Kernel.from_dict(self.kernel_params_)

    @property
    def coef_(self) -> np.ndarray:
        if self.kernel_params_["name"] != "linear":
            raise AttributeError("coef_ is only available for the linear kernel")
        return self.dual_coef_ @ self.support_vectors_

    def decision_function(self, X) -> np.ndarray:
        """Positive values mean ``classes_[1]`` (as scikit-learn's SVC)."""
        X = self._validate_predict(X)
        if self.support_vectors_.shape[0] == 0:
            return np.full(X.shape[0], self.intercept_[0])
        out = np.empty(X.shape[0])
        for s in range(0, X.shape[0], 4096):
            K = self.kernel_.gram(X[s:s + 4096], self.support_vectors_)
            out[s:s + 4096] = K @ self.dual_coef_[0] + self.intercept_[0]
        return out

    def predict(self, X) -> np.ndarray:
        positive = self.decision_function(X) > 0   # checks that the model is fitted
        return self.classes_[positive.astype(int)]

    def _validate_binary(self, X, y):
        X, yi = self._validate_fit(X, y)
        if self.classes_.size != 2:
            raise DataError(f"Only binary classification is supported. {type(self).__name__} "
                            f"handles 2 classes, but y has {self.classes_.size}; use a multi-class "
                            "method (DAG SVM, Scatter SVM) instead")
        return X, yi


@register_estimator(*_SVC_FITTED)
class BinarySVC(_BinaryKernelSVM):
    """C-SVM for two classes: min ½αᵀQα − eᵀα, 0 ≤ α ≤ C, yᵀα = 0 (LIBSVM's dual).

    Parameters
    ----------
    C : float, the box bound (``fit(..., sample_C=...)`` overrides it per sample)
    kernel, gamma, degree, coef0 : as ``sklearn.svm.SVC``
    solver : "smo" (Numba SMO) or "cvxpy" (reference)
    tol, max_iter, cache_mb : stopping tolerance on the maximal KKT violation, iteration cap,
        kernel cache size for the SMO backend

    Attributes
    ----------
    classes_, support_, support_vectors_, dual_coef_, intercept_ : as SVC (positive decision =
        ``classes_[1]``); ``coef_`` for the linear kernel
    alpha_ : the full dual vector; objective_ : ½αᵀQα − Σα; n_iter_, converged_, fit_time_,
    history_ : the solver's convergence history
    """

    def __init__(self, C=1.0, kernel="rbf", gamma="scale", degree=3, coef0=0.0, solver="smo",
                 tol=1e-3, max_iter=None, cache_mb=200):
        self.C = C
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.cache_mb = cache_mb

    def fit(self, X, y, sample_C=None):
        t0 = time.perf_counter()
        X, yi = self._validate_binary(X, y)
        if not (np.isscalar(self.C) and self.C > 0):
            raise ParameterError(f"C must be a positive number, got {self.C!r}")
        y_pm = np.where(yi == 1, 1.0, -1.0)
        upper = self.C if sample_C is None else np.asarray(sample_C, dtype=np.float64)
        if np.any(np.asarray(upper) <= 0):
            raise ParameterError("sample_C must be positive")
        kern = self._kernel(X)
        problem = QPProblem.c_svm(y_pm, upper, kernel=kern, X=X)
        opts = {"cache_mb": self.cache_mb} if self.solver == "smo" else {}
        res = solve_qp(problem, backend=self.solver, tol=self.tol, max_iter=self.max_iter, **opts)
        self._store(X, y_pm, res.alpha, -float(res.rho[0]), res, kern, t0)
        return self


_NUSVC_FITTED = _SVC_FITTED + ("r_", "mu_")


@register_estimator(*_NUSVC_FITTED)
class BinaryNuSVC(_BinaryKernelSVM):
    """ν-SVM for two classes through its reduced-convex-hull form (seed 000 §3.1, seed 004's
    binary part, DESIGN.md "Reduced convex hulls and ν-SVM"):

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
    kernel, gamma, degree, coef0, solver, tol, max_iter, cache_mb : as ``BinarySVC``

    Attributes
    ----------
    as ``BinarySVC``; ``alpha_`` is λ (each class sums to 1), ``objective_`` = ½λᵀQλ (half the
    squared distance between the reduced hulls in feature space), ``r_`` LIBSVM's r in the λ
    scale, ``mu_`` the bound μ
    """

    def __init__(self, nu=0.5, kernel="rbf", gamma="scale", degree=3, coef0=0.0, solver="smo",
                 tol=1e-3, max_iter=None, cache_mb=200):
        self.nu = nu
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.cache_mb = cache_mb

    def fit(self, X, y):
        t0 = time.perf_counter()
        X, yi = self._validate_binary(X, y)
        nu = self.nu
        if not (np.isscalar(nu) and 0 < nu <= 1):
            raise ParameterError(f"nu must be in (0, 1], got {nu!r}")
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
        problem = QPProblem(p=np.zeros(n), lower=0.0, upper=1.0, kernel=kern, X=X, signs=y_pm,
                            groups=(y_pm < 0).astype(np.int64), eq_signs=y_pm,
                            eq_rhs=np.array([scale, -scale]))
        opts = {"cache_mb": self.cache_mb} if self.solver == "smo" else {}
        res = solve_qp(problem, backend=self.solver, tol=self.tol, max_iter=self.max_iter, **opts)
        r1, r2 = res.rho[0], -res.rho[1]
        r = 0.5 * (r1 + r2)
        if not r > 1e-12 * max(1.0, abs(r1), abs(r2)):
            raise ParameterError(
                f"nu = {nu:g} makes the reduced convex hulls of the two classes overlap "
                "(LIBSVM's r is not positive): the ν-SVM has no separating direction; "
                "choose a smaller nu")
        # back to the reduced-hull scale λ = α / scale (objective and history with it)
        lam = res.alpha / scale
        res.objective = res.objective / scale**2
        res.history = {"iteration": res.history.get("iteration", []),
                       "max_violation": [v / scale for v in res.history.get("max_violation", [])],
                       "objective": [v / scale**2 for v in res.history.get("objective", [])]}
        self.r_ = float(r) / scale
        self.mu_ = float(mu)
        self._store(X, y_pm, lam, -0.5 * (r1 - r2) / r, res, kern, t0, coef_scale=scale / r)
        return self


def libsvm_dual_objective(svc, X) -> float:
    """LIBSVM's dual value ½αᵀQα − Σα of a fitted binary ``sklearn.svm.SVC``, recomputed from
    its signed dual coefficients (α_i y_i on the support vectors), to compare with
    ``BinarySVC.objective_``."""
    coef = np.asarray(svc.dual_coef_)[0]
    sv = np.asarray(X, dtype=np.float64)[svc.support_]
    kern = Kernel(svc.kernel, float(svc._gamma), int(svc.degree), float(svc.coef0))
    return float(0.5 * coef @ kern.gram(sv) @ coef - np.sum(np.abs(coef)))

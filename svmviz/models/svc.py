"""Binary C-SVM and ν-SVM over ``svmviz.solvers`` (LIBSVM's duals, scikit-learn's conventions)."""

from __future__ import annotations

import time

import numpy as np

from svmviz.errors import ParameterError
from svmviz.export.registry import register_estimator
from svmviz.kernels import Kernel
from svmviz.models.base import SVMClassifierBase
from svmviz.solvers import QPProblem, solve_qp

_SVC_FITTED = ("classes_", "n_features_in_", "support_", "support_vectors_", "dual_coef_",
               "intercept_", "objective_", "n_iter_", "converged_", "fit_time_", "kernel_params_",
               "alpha_", "history_")


class _BinaryKernelSVM(SVMClassifierBase):
    """Prediction from support vectors, shared by the C- and ν-SVM."""

    def _store(self, X, y_pm, alpha, b, res, kernel: Kernel, t0):
        sv = np.flatnonzero(alpha > 0)
        self.alpha_ = alpha
        self.support_ = sv
        self.support_vectors_ = X[sv]
        self.dual_coef_ = (alpha[sv] * y_pm[sv])[None, :]
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
        return self.classes_[(self.decision_function(X) > 0).astype(int)]


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
        X, yi = self._validate_fit(X, y, max_classes=2)
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

"""What every svmviz estimator shares: validation at the boundary and the kernel parameters."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from svmviz.errors import DataError, ParameterError
from svmviz.kernels import Kernel
from svmviz.solvers import BACKENDS


class SVMClassifierBase(ClassifierMixin, BaseEstimator):
    """Shared plumbing: ``_validate_fit`` / ``_validate_predict`` and ``_kernel``.

    Subclasses hold the scikit-learn parameters ``kernel, C, gamma, degree, coef0, solver`` (those
    that apply) as plain attributes set in ``__init__``.
    """

    def _validate_fit(self, X, y, min_classes: int = 2, max_classes: int | None = None):
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2)
        check_classification_targets(y)
        classes, y_idx = np.unique(y, return_inverse=True)
        if classes.size < min_classes:
            raise DataError(f"only one class ({classes[0]!s}) is present: {type(self).__name__} "
                            "needs at least two classes")
        if max_classes is not None and classes.size > max_classes:
            raise DataError(f"{type(self).__name__} handles {max_classes} classes, but y has "
                            f"{classes.size}; use a multi-class method (DAG SVM, Scatter SVM) instead")
        if getattr(self, "solver", "smo") not in BACKENDS:
            raise ParameterError(f"solver must be one of {', '.join(BACKENDS)}, not {self.solver!r}")
        self.classes_ = classes
        return X, y_idx

    def _validate_predict(self, X):
        check_is_fitted(self)
        return validate_data(self, X, dtype=np.float64, reset=False)

    def _kernel(self, X) -> Kernel:
        return Kernel.from_params(getattr(self, "kernel", "linear"), getattr(self, "gamma", "scale"),
                                  getattr(self, "degree", 3), getattr(self, "coef0", 0.0), X=X)

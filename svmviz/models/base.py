"""What every svmviz estimator shares: validation at the boundary and the kernel parameters."""

from __future__ import annotations

import functools
import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from svmviz import limits
from svmviz.data.dataset import check_labels
from svmviz.errors import DataError
from svmviz.kernels import Kernel
from svmviz.models.constraints import check_data_needs, check_params

#: Largest |feature| accepted. Beyond it squared distances and kernel values overflow float64
#: (|x| ≈ 1e154 squares to the largest double): the fit would "converge" to garbage.
MAX_ABS_FEATURE = 1e100


def _plain_xy(X, y) -> bool:
    """True when X and y are already what scikit-learn's checks would return: a finite float64
    ndarray of n ≥ 2 rows and ≥ 1 column and a 1-D bool or integer ndarray of n labels. Then
    those checks (about 200 µs, as long as a small SVC solve) are skipped; anything else goes
    through them, with their messages."""
    return (type(X) is np.ndarray and type(y) is np.ndarray and X.dtype == np.float64
            and X.ndim == 2 and X.shape[0] >= 2 and X.shape[1] >= 1 and y.ndim == 1
            and y.shape[0] == X.shape[0] and y.dtype.kind in "biu"
            and bool(np.isfinite(np.add.reduce(X, axis=None))))   # NaN or ±inf in X: not finite


def _encode_labels(y: np.ndarray):
    """``np.unique(y, return_inverse=True, return_counts=True)``, by counting when y holds
    integers of a range no wider than 4n + 16 (labels such as 0/1 or −1/+1: no sort); other
    labels go through ``np.unique``."""
    n = y.shape[0]
    if y.dtype.kind == "i" or (y.dtype.kind == "u" and y.dtype.itemsize < 8):
        lo, hi = int(np.minimum.reduce(y)), int(np.maximum.reduce(y))
        if hi - lo <= 4 * n + 16:
            off = y.astype(np.intp, copy=False)
            if lo:
                off = off - lo
            full = np.bincount(off, minlength=hi - lo + 1)
            present = full.nonzero()[0]
            rank = np.add.accumulate(full > 0, dtype=np.intp) - 1   # value − lo → index of its class
            return (present + lo).astype(y.dtype), rank[off], full[present]
    return np.unique(y, return_inverse=True, return_counts=True)


def _check_magnitude(X: np.ndarray, what: str) -> None:
    # max |x| without an |X| array: |x| is exact, so this is the same number (the ufuncs'
    # reductions that X.max and X.min call through Python code)
    big = max(float(np.maximum.reduce(X, axis=None, initial=0.0)),
              -float(np.minimum.reduce(X, axis=None, initial=0.0)))
    if big > MAX_ABS_FEATURE:
        raise DataError(f"{what} holds a value of magnitude {big:.3g}, above {MAX_ABS_FEATURE:g}: "
                        "kernel values would overflow; rescale the features (e.g. normalize them)")


class SVMClassifierBase(ClassifierMixin, BaseEstimator):
    """Shared plumbing: ``_validate_fit`` / ``_validate_predict``, ``_kernel`` and ``_check_result``.

    Subclasses hold the scikit-learn parameters ``kernel, C, gamma, degree, coef0, solver`` (those
    that apply) as plain attributes set in ``__init__`` and declare their constraints in
    ``_parameter_constraints`` (``svmviz.models.constraints``), extending their base class's; they
    are checked as every ``fit`` begins (wrapped around each subclass's ``fit`` by
    ``__init_subclass__``).
    """

    #: parameter → constraint (``svmviz.models.constraints``); each subclass extends its base's
    _parameter_constraints: dict = {}
    #: (samples needed of every class, why), or None: two classes are enough
    _min_class_samples: tuple[int, str] | None = None

    def __init_subclass__(cls, **kwargs):
        # Every ``fit`` checks the parameter table before its own code runs (as scikit-learn's
        # ``_fit_context`` does), so an estimator's own checks never meet a NaN, a string for a
        # number or 10**400 first (they would otherwise surface as TypeError/OverflowError).
        super().__init_subclass__(**kwargs)
        fit = cls.__dict__.get("fit")
        if fit is not None and not getattr(fit, "_checks_params", False):
            @functools.wraps(fit)
            def fit_checked(self, *args, **kw):
                check_params(self)
                return fit(self, *args, **kw)

            fit_checked._checks_params = True
            cls.fit = fit_checked

    @classmethod
    def _get_param_names(cls):
        # scikit-learn reads __init__'s signature at every get_params (inspect.signature, about
        # 50 µs: a quarter of a small SVC fit); a class's signature does not change
        names = cls.__dict__.get("_param_names_cache")
        if names is None:
            names = tuple(super()._get_param_names())
            cls._param_names_cache = names
        return list(names)

    def _validate_fit(self, X, y, min_classes: int = 2, max_classes: int | None = None):
        # (the parameter constraints were checked as ``fit`` began: ``__init_subclass__``)
        if _plain_xy(X, y):   # what validate_data does to an estimator for such X
            self.n_features_in_ = X.shape[1]
            self.__dict__.pop("feature_names_in_", None)
        else:
            if y is not None:  # (None: scikit-learn's own message below)
                check_labels(y)  # mixed 1 and 'a' would silently become the classes '1' and 'a'
            try:
                X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2)
                check_classification_targets(y)
            except DataError:
                raise
            except ValueError as exc:  # scikit-learn's message (its checks match it), as our type
                raise DataError(str(exc)) from None
        _check_magnitude(X, "X")
        limits.check_features(X.shape[1], "the training data")
        classes, y_idx, counts = _encode_labels(y)
        limits.check_classes(classes.size, "the training data")
        if classes.size < min_classes:
            raise DataError(f"only one class ({classes[0]!s}) is present: {type(self).__name__} "
                            "needs at least two classes")
        if max_classes is not None and classes.size > max_classes:
            raise DataError(f"{type(self).__name__} handles {max_classes} classes, but y has "
                            f"{classes.size}; use a multi-class method (DAG SVM, Scatter SVM) instead")
        check_data_needs(self, counts, classes)
        self.classes_ = classes
        return X, y_idx

    def _validate_predict(self, X):
        limits.checkpoint()   # every prediction (a figure's grid, a pair of a multi-class model) may be stopped here
        check_is_fitted(self)
        try:
            X = validate_data(self, X, dtype=np.float64, reset=False)
        except DataError:
            raise
        except ValueError as exc:
            raise DataError(str(exc)) from None
        return X  # far-away points are legitimate here (a model says what it does there)

    def _kernel(self, X) -> Kernel:
        return Kernel.from_params(getattr(self, "kernel", "linear"), getattr(self, "gamma", "scale"),
                                  getattr(self, "degree", 3), getattr(self, "coef0", 0.0), X=X)

    def _check_result(self, *, converged: bool = True, objective=None, decisions=None,
                      detail: str = "", advice: str = "") -> None:
        """The result checks (non-finite results, unconverged solves), for every estimator after its solve.

        A non-finite ``objective`` or ``decisions`` (e.g. the training decision values) is a wrong
        answer, never a model: ``DataError``. ``converged=False`` warns with scikit-learn's
        ``ConvergenceWarning`` (the model is usable but not optimal). ``detail`` adds the
        solver's own numbers (iterations, KKT violation) or, for a composite model, the
        sub-problems that did not converge to the message; ``advice`` replaces the default "what
        to change" (raise max_iter, loosen tol, lower C) for an estimator with other knobs.
        """
        name = type(self).__name__
        extra = f" ({detail})" if detail else ""
        if objective is not None and not np.all(np.isfinite(np.asarray(objective, dtype=np.float64))):
            raise DataError(f"{name}: the solver returned a non-finite objective{extra}; rescale the "
                            "features (normalize them) or lower C / gamma")
        if decisions is not None and not np.all(np.isfinite(np.asarray(decisions, dtype=np.float64))):
            raise DataError(f"{name}: the fitted model gives non-finite decision values{extra}; "
                            "rescale the features (normalize them) or lower C / gamma")
        if not converged:
            advice = advice or "raise max_iter, loosen tol, or lower C"
            warnings.warn(f"{name}: the solver stopped before reaching the tolerance{extra}; "
                          f"{advice} (the model is not optimal)", ConvergenceWarning, stacklevel=3)

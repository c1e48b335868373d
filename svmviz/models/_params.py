"""The parameter constraints of every svmviz estimator, in one table (issue 16, items 7, 8, 11).

``SVMClassifierBase._validate_fit`` checks ``get_params()`` against ``PARAMS[class name]`` before
any work, so a NaN tolerance, a string for a number or a bool, a fractional degree or an
unbounded iteration count is refused with a ``ParameterError`` saying what to pass instead; it
never reaches NumPy or Numba as a ``TypeError``/``OverflowError`` or a silently wrong model.
Checks that depend on the data (``n_clusters`` ≤ n, ``mu`` ≥ 1/smallest class, ``order`` naming
the classes...) stay in the estimators. ``DATA_NEEDS`` states what an estimator needs of the
training data beyond two classes.

The choice lists repeat module constants (``guard.METHODS``, ``scatter.FORMULATIONS``,
``tree_decomposition.SVM_SOLVERS``, ``_svm_tree_build.CK_RULES``, ``_svm_tree_nonlinear.NONLINEAR_SPEC``)
because those modules import this one through ``base``;
``tests/test_hostile_params.py`` checks that they agree and that every ``__init__`` parameter of
every registered estimator has an entry.
"""

from __future__ import annotations

import inspect
from numbers import Integral, Real

import numpy as np

from svmviz.errors import DataError, ParameterError
from svmviz.kernels import KERNELS
from svmviz.solvers import BACKENDS


def _is_real(v) -> bool:
    return isinstance(v, Real) and not isinstance(v, (bool, np.bool_))


def _is_int(v) -> bool:
    return isinstance(v, Integral) and not isinstance(v, (bool, np.bool_))


class Number:
    """A finite real number in [lo, hi] (an end is open when ``*_open``); ``none``: None is allowed
    too (it then means "the estimator's default rule")."""

    def __init__(self, lo=None, hi=None, lo_open=False, hi_open=False, none=False, integer=False):
        self.lo, self.hi, self.lo_open, self.hi_open = lo, hi, lo_open, hi_open
        self.none, self.integer = none, integer

    def ok(self, v) -> bool:
        if v is None:
            return self.none
        if not (_is_int(v) if self.integer else _is_real(v)):
            return False
        try:  # a Python int may be too large for a float (10**400): then it is out of range anyway
            if not np.isfinite(float(v)):
                return False
        except OverflowError:
            return False
        if self.lo is not None and (v <= self.lo if self.lo_open else v < self.lo):
            return False
        return not (self.hi is not None and (v >= self.hi if self.hi_open else v > self.hi))

    def describe(self) -> str:
        what = "a whole number" if self.integer else "a finite number"
        if self.lo == 0 and self.lo_open:  # "C must be a positive ..." (the estimators' wording)
            what, lo = "a positive " + what[2:], None
        else:
            lo = self.lo
        if lo is not None and self.hi is not None:
            what += (f" in {'(' if self.lo_open else '['}{lo:g}, {self.hi:g}"
                     f"{')' if self.hi_open else ']'}")
        elif lo is not None:
            what += f" {'>' if self.lo_open else '≥'} {lo:g}"
        elif self.hi is not None:
            what += f" {'<' if self.hi_open else '≤'} {self.hi:g}"
        return what + (" or None" if self.none else "")


def Int(lo=None, hi=None, none=False) -> Number:  # noqa: N802  (reads as a type in the table)
    return Number(lo, hi, none=none, integer=True)


class Bool:
    def ok(self, v) -> bool:
        return isinstance(v, (bool, np.bool_))

    def describe(self) -> str:
        return "True or False (a bool, not a string)"


class OneOf:
    def __init__(self, *values):
        self.values = values

    def ok(self, v) -> bool:
        # 1 == True == 1.0, but greedy_level=True or solver=1 are mistakes: compare like with like
        return any((_is_int(v) and _is_int(c) or isinstance(v, str) and isinstance(c, str)) and v == c
                   for c in self.values)

    def describe(self) -> str:
        return "one of " + ", ".join(repr(c) for c in self.values)


class Gamma:
    """LIBSVM's kernel coefficient: a positive finite number, "scale" or "auto"."""

    def ok(self, v) -> bool:
        return v in ("scale", "auto") if isinstance(v, str) else Number(0, lo_open=True).ok(v)

    def describe(self) -> str:
        return "a positive finite number, 'scale' or 'auto'"


class Seed:
    """A ``random_state``: None, a whole number in [0, 2**32) or a ``numpy.random.RandomState``."""

    def ok(self, v) -> bool:
        return v is None or isinstance(v, np.random.RandomState) or Int(0, 2**32 - 1).ok(v)

    def describe(self) -> str:
        return "None, a whole number in [0, 2**32) or a numpy RandomState"


class Grid:
    """A non-empty list of positive finite numbers (a search grid)."""

    def ok(self, v) -> bool:
        if isinstance(v, (str, bytes)) or not isinstance(v, (list, tuple, np.ndarray)):
            return False
        values = list(np.ravel(v)) if isinstance(v, np.ndarray) else list(v)
        return bool(values) and len(values) <= 1000 and all(Number(0, lo_open=True).ok(x) for x in values)

    def describe(self) -> str:
        return "a non-empty list of positive finite numbers"


class Labels:
    """None or a list of class labels (its content is checked against the classes in ``fit``)."""

    def ok(self, v) -> bool:
        return v is None or (isinstance(v, (list, tuple, np.ndarray)) and np.ndim(v) == 1)

    def describe(self) -> str:
        return "None or a list of the class labels"


class Options:
    """None or a dict whose keys are among ``spec`` and whose values satisfy it."""

    def __init__(self, **spec):
        self.spec = spec

    def ok(self, v) -> bool:
        return v is None or (isinstance(v, dict) and all(k in self.spec and self.spec[k].ok(x)
                                                         for k, x in v.items()))

    def describe(self) -> str:
        return "None or a dict with " + "; ".join(f"{k}: {c.describe()}" for k, c in self.spec.items())


class NJobs:
    """joblib's ``n_jobs``: None or a whole number other than 0 (−1: every core)."""

    def ok(self, v) -> bool:
        return v is None or (Int(-1024, 1024).ok(v) and v != 0)

    def describe(self) -> str:
        return "None or a whole number other than 0 (-1: every core)"


# Bounds beyond which a value is a mistake rather than a choice: C above 1e12 overflows the dual
# objective long before it changes the margin; a KKT tolerance of 1 or more stops SMO before its
# first step (LIBSVM's initial violation is 2); more than 1e9 SMO iterations never finish.
_C = Number(0, 1e12, lo_open=True)
_TOL = Number(0, 1, lo_open=True, hi_open=True)
_KERNEL = {"kernel": OneOf(*KERNELS), "gamma": Gamma(), "degree": Int(1, 20), "coef0": Number(-1e6, 1e6)}
_SMO = {"solver": OneOf(*BACKENDS), "tol": _TOL, "max_iter": Int(1, 10**9, none=True),
        "cache_mb": Number(0, 16384, lo_open=True)}
_PAIRWISE = {"C": _C, **_KERNEL, **_SMO}
_TRACE = {"trace": Bool(), "max_trace": Int(1, 10**8)}   # SMO iterations recorded for replay

#: estimator class name → {parameter: constraint}
PARAMS: dict[str, dict] = {
    "BinarySVC": {**_PAIRWISE, **_TRACE},
    "BinaryNuSVC": {"nu": Number(0, 1, lo_open=True), **_KERNEL, **_SMO, **_TRACE},
    "PairwiseVotingSVC": _PAIRWISE,
    "DAGSVC": {"order": Labels(), **_PAIRWISE},
    "WeightedDAGSVC": {"n_clusters": Int(1, 10_000), "covariance_reg": Number(0, 1e6, lo_open=True),
                       "weight": OneOf("gaussian", "seed"), "random_state": Seed(), "order": Labels(),
                       **_PAIRWISE},
    "GuardVectorSVC": {"C": _C, "method": OneOf("seed", "single"), "prefilter": Bool(),
                       "delta": Number(0, 1e6), **_KERNEL, "solver": OneOf(*BACKENDS), "tol": _TOL},
    "ScatterSVC": {"C": _C, "formulation": OneOf("C", "nu"), "mu": Number(0, 1e12, lo_open=True, none=True),
                   "bias": Bool(), **_KERNEL, "solver": OneOf(*BACKENDS), "tol": _TOL,
                   "max_iter": _SMO["max_iter"]},
    "SVMTreeClassifier": {
        "C_hard": _C, "reduction": Number(1, 1e6, lo_open=True), "w_tol": Number(0, 1, lo_open=True),
        "ck_rule": OneOf("exact", "paper"), "greedy_level": OneOf(0, 1), "use_c_svm": Bool(),
        "use_h1_svm": Bool(), "sign_change": Bool(), "perpendicular": Bool(), "majority_stop": Bool(),
        "prune": Bool(),
        "nonlinear": Options(k=Int(1, 10**9), C=Number(0, 1e12, lo_open=True, none=True), gamma=Gamma(),
                             cv=Int(2, 100)),
        "solver": OneOf(*BACKENDS), "multi_class": OneOf("ovo"), "tol": _TOL},
    "TreeDecompositionSVC": {
        "sigma0": Int(2, 10**9), "growth": Number(1, 1e6, lo_open=True), "top_k": Int(1, 10_000),
        "C_grid": Grid(), "gamma_grid": Grid(), "min_gain": Number(0, 1),
        "multi_class": OneOf("ovo", "ovr"), "validation_fraction": Number(0, 1, lo_open=True, hi_open=True),
        "svm_solver": OneOf("smo", "libsvm", "cvxpy"), "n_jobs": NJobs(), "random_state": Seed(),
        "max_stages": Int(1, 10**6, none=True)},
}

#: estimator class name → (samples needed of every class, why)
DATA_NEEDS: dict[str, tuple[int, str]] = {
    # seed 002 §2.2 holds out a validation component: a class seen once cannot be in both parts
    "TreeDecompositionSVC": (2, "one to grow the tree on and one for the validation component "
                                "that chooses σ, C and γ (Chang, Guo, Lin and Lu 2009, §2.2)"),
}


def _default(est, name):
    p = inspect.signature(type(est).__init__).parameters.get(name)
    return None if p is None else p.default


def check_params(est, table: dict | None = None) -> None:
    """Raise ``ParameterError`` for the first parameter of ``est`` outside its constraint
    (``table``: default ``PARAMS[class name]``; an estimator may pass an extended copy)."""
    table = PARAMS.get(type(est).__name__, {}) if table is None else table
    for name, value in est.get_params(deep=False).items():
        rule = table.get(name)
        if rule is None or rule.ok(value):
            continue
        raise ParameterError(f"{type(est).__name__}: {name} must be {rule.describe()}, got {value!r}; "
                             f"pass e.g. {name}={_default(est, name)!r} (the default)")


def check_data_needs(est, counts: np.ndarray, classes: np.ndarray) -> None:
    """Raise ``DataError`` when a class has fewer samples than ``DATA_NEEDS`` asks for."""
    need = DATA_NEEDS.get(type(est).__name__)
    if need is None:
        return
    k, why = need
    small = np.flatnonzero(counts < k)
    if small.size:
        c = small[0]
        raise DataError(f"{type(est).__name__} needs at least {k} samples of every class ({why}); "
                        f"class {classes[c]!s} has {counts[c]}: add samples or use another method")

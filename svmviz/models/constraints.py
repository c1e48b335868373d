"""Parameter constraints for the svmviz estimators, in the manner of scikit-learn's
``_parameter_constraints``: each estimator class declares ``_parameter_constraints`` (a dict
parameter → constraint), extending its base class's, and ``check_params`` reads it from the
class as every ``fit`` begins. A NaN tolerance, a string for a number or a bool, a fractional
degree or an unbounded iteration count is refused with a ``ParameterError`` saying what to pass
instead; it never reaches NumPy or Numba as a ``TypeError``/``OverflowError`` or a silently wrong
model. Checks that depend on the data (``n_clusters`` ≤ n, ``mu`` ≥ 1/smallest class, ``order``
naming the classes...) stay in the estimators.

``param_spec(cls, name)`` gives the app a parameter's options or bounds from the same place.
"""

from __future__ import annotations

import inspect
import math
from numbers import Integral, Real

import numpy as np

from svmviz.errors import DataError, ParameterError
from svmviz.kernels import GAMMA_RULES, KERNELS
from svmviz.solvers import BACKENDS


def _is_real(v) -> bool:
    t = type(v)
    if t is float or t is int:   # the usual case, without the ABC checks' Python code
        return True
    return isinstance(v, Real) and not isinstance(v, (bool, np.bool_))


def _is_int(v) -> bool:
    if type(v) is int:
        return True
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
            if not math.isfinite(float(v)):   # (np.isfinite: 20 times slower on a scalar)
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
        return v in GAMMA_RULES if isinstance(v, str) else Number(0, lo_open=True).ok(v)

    def describe(self) -> str:
        return "a positive finite number or one of " + ", ".join(repr(r) for r in GAMMA_RULES)


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


class NumberOrList:
    """A number satisfying ``item``, or a non-empty list of such numbers (a search over them)."""

    def __init__(self, item: Number):
        self.item = item

    def ok(self, v) -> bool:
        if isinstance(v, (list, tuple, np.ndarray)) and not isinstance(v, (str, bytes)):
            values = list(np.ravel(v)) if isinstance(v, np.ndarray) else list(v)
            return bool(values) and len(values) <= 1000 and all(self.item.ok(x) for x in values)
        return self.item.ok(v)

    def describe(self) -> str:
        return f"{self.item.describe()}, or a non-empty list of such numbers"


# Bounds beyond which a value is a mistake rather than a choice: C above 1e12 overflows the dual
# objective long before it changes the margin; a KKT tolerance of 1 or more stops SMO before its
# first step (LIBSVM's initial violation is 2); more than 1e9 SMO iterations never finish.
C = Number(0, 1e12, lo_open=True)
TOL = Number(0, 1, lo_open=True, hi_open=True)
MAX_ITER = Int(1, 10**9, none=True)
SOLVER = OneOf(*BACKENDS)
#: the kernel parameters (``svmviz.kernels.Kernel.from_params``)
KERNEL = {"kernel": OneOf(*KERNELS), "gamma": Gamma(), "degree": Int(1, 20), "coef0": Number(-1e6, 1e6)}
#: the SMO solve of one QP
SMO = {"solver": SOLVER, "tol": TOL, "max_iter": MAX_ITER, "cache_mb": Number(0, 16384, lo_open=True)}
#: SMO iterations recorded for replay
TRACE = {"trace": Bool(), "max_trace": Int(1, 10**8)}


def _default(est, name):
    p = inspect.signature(type(est).__init__).parameters.get(name)
    return None if p is None else p.default


def check_params(est) -> None:
    """Raise ``ParameterError`` for the first parameter of ``est`` outside its class's
    ``_parameter_constraints``."""
    table = type(est)._parameter_constraints
    for name, value in est.get_params(deep=False).items():
        rule = table.get(name)
        if rule is None or rule.ok(value):
            continue
        raise ParameterError(f"{type(est).__name__}: {name} must be {rule.describe()}, got {value!r}; "
                             f"pass e.g. {name}={_default(est, name)!r} (the default)")


def check_data_needs(est, counts: np.ndarray, classes: np.ndarray) -> None:
    """Raise ``DataError`` when a class has fewer samples than the class's ``_min_class_samples``
    (samples needed of every class, why) asks for."""
    need = type(est)._min_class_samples
    if need is None:
        return
    k, why = need
    small = np.flatnonzero(counts < k)
    if small.size:
        c = small[0]
        raise DataError(f"{type(est).__name__} needs at least {k} samples of every class ({why}); "
                        f"class {classes[c]!s} has {counts[c]}: add samples or use another method")


def param_spec(cls, name: str):
    """What ``cls`` accepts for parameter ``name``, for building a widget: a tuple of the options
    (``OneOf``), ``(lo, hi)`` for a number (an end is None when unbounded) and for a seed given
    as a whole number (``Seed``), ``bool`` for a flag, else the constraint object itself. ``KeyError`` for a parameter the class does not have."""
    rule = cls._parameter_constraints[name]
    if isinstance(rule, OneOf):
        return tuple(rule.values)
    if isinstance(rule, Number):
        return (rule.lo, rule.hi)
    if isinstance(rule, Bool):
        return bool
    if isinstance(rule, Seed):
        return (0, 2**32 - 1)
    return rule


__all__ = ["Number", "Int", "Bool", "OneOf", "Gamma", "Seed", "Grid", "Labels", "Options", "NJobs",
           "NumberOrList", "C", "TOL", "MAX_ITER", "SOLVER", "KERNEL", "SMO", "TRACE", "check_params",
           "check_data_needs", "param_spec"]

"""Kernels and Gram matrices (NumPy BLAS).

The four kernels of LIBSVM with its parameter names: linear ``x·z``, polynomial
``(gamma x·z + coef0)^degree``, RBF ``exp(-gamma |x - z|^2)``, sigmoid ``tanh(gamma x·z + coef0)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from svmviz.errors import DataError, ParameterError

#: each kernel and the parameters it uses
KERNEL_PARAMS = {"linear": (), "poly": ("gamma", "degree", "coef0"), "rbf": ("gamma",), "sigmoid": ("gamma", "coef0")}
KERNELS = tuple(KERNEL_PARAMS)
#: the rules ``gamma`` may name instead of a number (scikit-learn's)
GAMMA_RULES = ("scale", "auto")
#: Kernel values computed at once when a model is evaluated on many points (32 MB of float64,
#: plus NumPy's temporaries of the same size): rows of points against every support vector.
KERNEL_BLOCK_VALUES = 4_000_000
#: The largest kernel value a solve can work with. Solvers stop when the KKT violation (a gradient
#: of kernel values times α) is within a tolerance of about 1e-3; double precision holds 16
#: digits, so with kernel values of 1e13 and more the rounding of the gradient alone exceeds the
#: tolerance and the solve never stops (a degree-10 polynomial with coef0 = 10⁶ has values of 1e60).
MAX_KERNEL_VALUE = 1e12


def block_rows(n_columns: int) -> int:
    """Rows per block so that a block of K(X, Z) with ``n_columns`` columns stays within
    ``KERNEL_BLOCK_VALUES``, however many support vectors a model holds."""
    return max(1, KERNEL_BLOCK_VALUES // max(int(n_columns), 1))


def resolve_gamma(gamma, X: np.ndarray) -> float:
    """``gamma`` as a number; "scale" and "auto" as scikit-learn defines them."""
    d = X.shape[1]
    if isinstance(gamma, str):
        if gamma == "scale":
            var = float(np.var(X))
            g = 1.0 / (d * var) if var > 0 else 1.0
            if not np.isfinite(g):  # features so small that their variance underflows
                raise ParameterError(f"gamma='scale' is 1/(d·var(X)) = {g}: the features are too "
                                     f"small (variance {var:.3g}); rescale them or give gamma a number")
            return g
        if gamma == "auto":
            return 1.0 / d
        raise ParameterError(f"gamma must be a positive number or one of {', '.join(GAMMA_RULES)}, not {gamma!r}")
    g = _real(gamma, "gamma")
    if g <= 0:
        raise ParameterError(f"gamma must be positive, got {gamma!r}")
    return g


def _real(v, name: str) -> float:
    """``v`` as a finite float, or a ``ParameterError`` (never a TypeError/OverflowError)."""
    if isinstance(v, (bool, np.bool_, str, bytes)) or v is None:
        raise ParameterError(f"{name} must be a finite number, got {v!r}")
    try:
        f = float(v)
    except (TypeError, ValueError, OverflowError):
        raise ParameterError(f"{name} must be a finite number, got {v!r}") from None
    if not math.isfinite(f):   # (np.isfinite: 20 times slower on a scalar)
        raise ParameterError(f"{name} must be a finite number, got {v!r}")
    return f


def _degree(v) -> int:
    # int(2.5) would silently fit a degree-2 kernel
    f = _real(v, "degree")
    if f != int(f) or f < 1:
        raise ParameterError(f"degree must be a whole number ≥ 1, got {v!r}")
    return int(f)


def _finite(K: np.ndarray, kern: "Kernel") -> np.ndarray:
    # an overflowing Gram matrix (large features, a high polynomial degree) would let a solver
    # "converge" to garbage and a model predict NaN: refuse it here
    if not np.all(np.isfinite(K)):
        raise DataError(f"the {kern.name} kernel overflows on these features (gamma={kern.gamma:g}, "
                        f"degree={kern.degree}, coef0={kern.coef0:g}): rescale the features "
                        "(normalize them) or lower gamma, degree or coef0")
    return K


@dataclass(frozen=True)
class Kernel:
    """A kernel with resolved numeric parameters (``gamma`` is a float here)."""

    name: str = "rbf"
    gamma: float = 1.0
    degree: int = 3
    coef0: float = 0.0

    def __post_init__(self):
        if not isinstance(self.name, str) or self.name not in KERNELS:
            raise ParameterError(f"kernel must be one of {', '.join(KERNELS)}, not {self.name!r}")
        # a NaN/inf/negative coefficient gives NaN Gram matrices and "converged" garbage
        if _real(self.gamma, "gamma") <= 0:
            raise ParameterError(f"gamma must be positive, got {self.gamma!r}")
        if _degree(self.degree) != self.degree:
            raise ParameterError(f"degree must be a whole number, got {self.degree!r}")
        _real(self.coef0, "coef0")

    @classmethod
    def from_params(cls, kernel="rbf", gamma="scale", degree=3, coef0=0.0, X=None) -> "Kernel":
        """The kernel of these parameters; with the training data ``X``, checked to stay within
        ``MAX_KERNEL_VALUE`` on them (``check_scale``) before anything is trained."""
        g = resolve_gamma(gamma, X) if X is not None else _real(gamma, "gamma")
        kern = cls(kernel, g, _degree(degree), _real(coef0, "coef0"))
        if X is not None:
            kern.check_scale(X)
        return kern

    def check_scale(self, X: np.ndarray) -> None:
        """``ParameterError`` when the polynomial kernel's values on ``X`` may exceed
        ``MAX_KERNEL_VALUE``: |k(x, z)| ≤ (γ·max|x|² + |coef0|)^degree, computed in logarithms
        (so the check itself never overflows), in O(n·d) before any Gram matrix."""
        if self.name != "poly":   # RBF and sigmoid values are within [−1, 1]
            return
        X = np.asarray(X, dtype=np.float64)
        r2 = float(np.einsum("ij,ij->i", X, X).max(initial=0.0))
        base = self.gamma * r2 + abs(self.coef0)
        if base <= 0:
            return
        exponent = self.degree * math.log10(base)
        if exponent > math.log10(MAX_KERNEL_VALUE):
            raise ParameterError(
                f"the polynomial kernel (γ x·z + coef0)^degree reaches about 1e{exponent:.0f} on these data "
                f"(gamma={self.gamma:g}, degree={self.degree}, coef0={self.coef0:g}): at more than "
                f"{MAX_KERNEL_VALUE:.0e} a solver cannot meet its tolerance in double precision and "
                "would never stop; lower coef0, gamma or degree, or normalize the features")

    def gram(self, X: np.ndarray, Z: np.ndarray | None = None) -> np.ndarray:
        """The matrix ``k(X[i], Z[j])``; ``Z`` defaults to ``X`` (then exactly symmetric)."""
        X = np.asarray(X, dtype=np.float64)
        same = Z is None
        Z = X if same else np.asarray(Z, dtype=np.float64)
        if self.name == "rbf":
            xx = np.einsum("ij,ij->i", X, X)
            zz = xx if same else np.einsum("ij,ij->i", Z, Z)
            D = xx[:, None] + zz[None, :] - 2.0 * (X @ Z.T)
            np.maximum(D, 0.0, out=D)
            if same:
                np.fill_diagonal(D, 0.0)
            K = np.exp(-self.gamma * D, out=D)
        else:
            K = X @ Z.T
            if self.name == "poly":
                with np.errstate(over="ignore", invalid="ignore"):  # refused just below, with a reason
                    K = (self.gamma * K + self.coef0) ** self.degree
            elif self.name == "sigmoid":
                K = np.tanh(self.gamma * K + self.coef0)
        if same:
            K = 0.5 * (K + K.T)
        return _finite(K, self)

    def diag(self, X: np.ndarray) -> np.ndarray:
        """``k(x_i, x_i)`` for every row, without forming the Gram matrix."""
        X = np.asarray(X, dtype=np.float64)
        if self.name == "rbf":
            return np.ones(X.shape[0])
        s = np.einsum("ij,ij->i", X, X)
        if self.name == "linear":
            return s
        if self.name == "poly":
            with np.errstate(over="ignore", invalid="ignore"):
                return _finite((self.gamma * s + self.coef0) ** self.degree, self)
        return np.tanh(self.gamma * s + self.coef0)

    def to_dict(self) -> dict:
        return {"name": self.name, "gamma": self.gamma, "degree": self.degree, "coef0": self.coef0}

    @classmethod
    def from_dict(cls, d: dict) -> "Kernel":
        try:
            return cls(d["name"], _real(d["gamma"], "gamma"), _degree(d["degree"]), _real(d["coef0"], "coef0"))
        except (KeyError, TypeError):
            raise ParameterError(f"a kernel needs name, gamma, degree and coef0, got {d!r}") from None

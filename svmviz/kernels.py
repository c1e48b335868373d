"""Kernels and Gram matrices (NumPy BLAS).

The four kernels of LIBSVM with its parameter names: linear ``x·z``, polynomial
``(gamma x·z + coef0)^degree``, RBF ``exp(-gamma |x - z|^2)``, sigmoid ``tanh(gamma x·z + coef0)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from svmviz.errors import ParameterError

KERNELS = ("linear", "poly", "rbf", "sigmoid")


def resolve_gamma(gamma, X: np.ndarray) -> float:
    """``gamma`` as a number; "scale" and "auto" as scikit-learn defines them."""
    d = X.shape[1]
    if isinstance(gamma, str):
        if gamma == "scale":
            var = float(np.var(X))
            return 1.0 / (d * var) if var > 0 else 1.0
        if gamma == "auto":
            return 1.0 / d
        raise ParameterError(f"gamma must be a positive number, 'scale' or 'auto', not {gamma!r}")
    g = float(gamma)
    if not np.isfinite(g) or g <= 0:
        raise ParameterError(f"gamma must be positive, got {gamma!r}")
    return g


@dataclass(frozen=True)
class Kernel:
    """A kernel with resolved numeric parameters (``gamma`` is a float here)."""

    name: str = "rbf"
    gamma: float = 1.0
    degree: int = 3
    coef0: float = 0.0

    def __post_init__(self):
        if self.name not in KERNELS:
            raise ParameterError(f"kernel must be one of {', '.join(KERNELS)}, not {self.name!r}")

    @classmethod
    def from_params(cls, kernel="rbf", gamma="scale", degree=3, coef0=0.0, X=None) -> "Kernel":
        g = resolve_gamma(gamma, X) if X is not None else float(gamma)
        return cls(kernel, g, int(degree), float(coef0))

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
                K = (self.gamma * K + self.coef0) ** self.degree
            elif self.name == "sigmoid":
                K = np.tanh(self.gamma * K + self.coef0)
        if same:
            K = 0.5 * (K + K.T)
        return K

    def diag(self, X: np.ndarray) -> np.ndarray:
        """``k(x_i, x_i)`` for every row, without forming the Gram matrix."""
        X = np.asarray(X, dtype=np.float64)
        if self.name == "rbf":
            return np.ones(X.shape[0])
        s = np.einsum("ij,ij->i", X, X)
        if self.name == "linear":
            return s
        if self.name == "poly":
            return (self.gamma * s + self.coef0) ** self.degree
        return np.tanh(self.gamma * s + self.coef0)

    def to_dict(self) -> dict:
        return {"name": self.name, "gamma": self.gamma, "degree": self.degree, "coef0": self.coef0}

    @classmethod
    def from_dict(cls, d: dict) -> "Kernel":
        return cls(d["name"], float(d["gamma"]), int(d["degree"]), float(d["coef0"]))

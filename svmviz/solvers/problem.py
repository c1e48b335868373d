"""The quadratic program every dual of the five methods reduces to (ARCHITECTURE.md).

    minimise   ½ αᵀQα + pᵀα
    subject to L ≤ α ≤ U                      (L = U fixes a variable, U = +inf allowed)
               Σ_{i∈g} s_i α_i = r_g           for each disjoint equality group g (s_i = ±1)

Q is either dense or implicit: ``Q_ij = t_i t_j k(x_i, x_j) · S_ij`` with per-sample signs t and,
for the Scatter SVM (Jenssen, Kloft, Zien, Sonnenburg and Müller 2012), ``S_ij = δ_{c_i c_j} − 1/K``; otherwise S = 1.

The problem is data; backends (``svmviz.solvers.smo``, ``svmviz.solvers.cvxpy_backend``) solve it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from svmviz.errors import InfeasibleProblemError, ParameterError
from svmviz.kernels import Kernel


def _vec(v, n, name) -> np.ndarray:
    a = np.asarray(v, dtype=np.float64)
    if a.ndim == 0:   # (np.full is Python code around these two calls)
        full = np.empty(n)
        full.fill(float(a))
        a = full
    if a.shape != (n,):
        raise ParameterError(f"{name} must have shape ({n},), got {a.shape}")
    return a


@dataclass
class QPProblem:
    """A box- and group-constrained convex QP; see the module docstring.

    Parameters
    ----------
    p, lower, upper : arrays (n,) or scalars broadcast to n
    Q : dense (n, n) symmetric PSD matrix, or None for an implicit kernel Q
    kernel, X : the kernel and the samples of an implicit Q
    signs : per-sample t_i in Q_ij = t_i t_j k(x_i, x_j) (default all +1)
    scatter_classes, n_classes : class index c_i ∈ {0..K-1} and K for the Scatter factor
    groups : group id per variable (0..G-1), -1 for a variable in no equality group
    eq_signs : s_i of the equality constraints (default all +1)
    eq_rhs : r_g, one per group
    """

    p: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    Q: np.ndarray | None = None
    kernel: Kernel | None = None
    X: np.ndarray | None = None
    signs: np.ndarray | None = None
    scatter_classes: np.ndarray | None = None
    n_classes: int | None = None
    groups: np.ndarray | None = None
    eq_signs: np.ndarray | None = None
    eq_rhs: np.ndarray | None = None
    _diag: np.ndarray | None = field(default=None, repr=False)

    def __post_init__(self):
        if self.Q is not None:
            self.Q = np.asarray(self.Q, dtype=np.float64)
            n = self.Q.shape[0]
            if self.Q.shape != (n, n):
                raise ParameterError(f"Q must be square, got shape {self.Q.shape}")
            if not np.all(np.isfinite(self.Q)):
                raise ParameterError("Q contains NaN or infinite entries")
        else:
            if self.kernel is None or self.X is None:
                raise ParameterError("give either a dense Q or a kernel with samples X")
            self.X = np.ascontiguousarray(self.X, dtype=np.float64)
            if self.X.ndim != 2:
                raise ParameterError(f"X must be 2-D, got shape {self.X.shape}")
            n = self.X.shape[0]
        if n == 0:
            raise ParameterError("the problem has no variables")
        self.p = _vec(self.p, n, "p")
        self.lower = _vec(self.lower, n, "lower")
        self.upper = _vec(self.upper, n, "upper")
        self.signs = _vec(1.0 if self.signs is None else self.signs, n, "signs")
        if self.scatter_classes is not None:
            self.scatter_classes = np.asarray(self.scatter_classes, dtype=np.int64)
            if self.scatter_classes.shape != (n,):
                raise ParameterError("scatter_classes must have one entry per sample")
            if self.n_classes is None:
                self.n_classes = int(self.scatter_classes.max()) + 1
        self.groups = (np.full(n, -1, dtype=np.int64) if self.groups is None
                       else np.asarray(self.groups, dtype=np.int64))
        if self.groups.shape != (n,):
            raise ParameterError("groups must have one entry per variable")
        self.eq_signs = _vec(1.0 if self.eq_signs is None else self.eq_signs, n, "eq_signs")
        # (the ufuncs' own reductions: np.all and np.any add a Python wrapper each, and every
        # fit builds a problem)
        if not np.logical_and.reduce(np.abs(self.eq_signs) == 1):
            raise ParameterError("eq_signs must be +1 or -1")
        n_groups = int(np.maximum.reduce(self.groups)) + 1 if n else 0
        self.eq_rhs = (np.zeros(n_groups) if self.eq_rhs is None
                       else np.atleast_1d(np.asarray(self.eq_rhs, dtype=np.float64)))
        if self.eq_rhs.shape != (n_groups,):
            raise ParameterError(f"eq_rhs must have one value per group ({n_groups})")
        if (np.logical_or.reduce(np.isnan(self.lower)) or np.logical_or.reduce(np.isnan(self.upper))
                or np.logical_or.reduce(np.isnan(self.p))):
            raise ParameterError("p, lower and upper must not contain NaN")
        if not np.logical_and.reduce(np.isfinite(self.lower)):
            raise ParameterError("lower bounds must be finite")
        self.check_feasible()

    # ------------------------------------------------------------------ shape and structure
    @property
    def n(self) -> int:
        return self.p.shape[0]

    @property
    def n_groups(self) -> int:
        return self.eq_rhs.shape[0]

    @property
    def is_dense(self) -> bool:
        return self.Q is not None

    def check_feasible(self) -> None:
        """Raise ``InfeasibleProblemError`` unless some α meets the bounds and every group."""
        above = self.lower > self.upper
        if np.logical_or.reduce(above):
            i = int(np.flatnonzero(above)[0])
            raise InfeasibleProblemError(
                f"variable {i} has lower bound {self.lower[i]:g} above its upper bound {self.upper[i]:g}")
        for g in range(self.n_groups):
            s, lo, up = self._group_view(g)
            if s.size == 0:
                raise InfeasibleProblemError(f"equality group {g} has no variables")
            pos = s > 0
            smin = np.add.reduce(np.where(pos, lo, -up))
            smax = np.add.reduce(np.where(pos, up, -lo))
            r = self.eq_rhs[g]
            tol = 1e-12 * max(1.0, abs(r))
            if r < smin - tol or r > smax + tol:
                raise InfeasibleProblemError(
                    f"equality group {g} asks Σ s_i α_i = {r:g}, but its bounds only reach "
                    f"[{smin:g}, {smax:g}]")

    def _group_index(self, g) -> np.ndarray | slice:
        """The variables of group g: an index array, or the slice of all when the group holds
        every variable (the C-SVM), which spares the gathers of a copy."""
        member = self.groups == g
        if np.logical_and.reduce(member):
            return slice(None)
        return np.flatnonzero(member)

    def _group_view(self, g):
        """(s, lower, upper) of group g's variables, in index order."""
        idx = self._group_index(g)
        return self.eq_signs[idx], self.lower[idx], self.upper[idx]

    # ------------------------------------------------------------------ Q access
    def _scatter_factor(self, rows, cols) -> np.ndarray | float:
        if self.scatter_classes is None:
            return 1.0
        c = self.scatter_classes
        return (c[rows][:, None] == c[cols][None, :]).astype(np.float64) - 1.0 / self.n_classes

    def columns(self, idx) -> np.ndarray:
        """Q[:, idx] as an (n, len(idx)) array."""
        idx = np.atleast_1d(np.asarray(idx, dtype=np.int64))
        if self.Q is not None:
            return self.Q[:, idx]
        K = self.kernel.gram(self.X, self.X[idx])
        K *= self.signs[:, None] * self.signs[idx][None, :]
        return K * self._scatter_factor(np.arange(self.n), idx)

    def dense_Q(self) -> np.ndarray:
        """The whole Q (n × n); for an implicit Q it is computed with one BLAS Gram matrix."""
        if self.Q is not None:
            return self.Q
        K = self.kernel.gram(self.X)
        K *= np.outer(self.signs, self.signs)
        allidx = np.arange(self.n)
        return K * self._scatter_factor(allidx, allidx)

    def diag(self) -> np.ndarray:
        if self._diag is None:
            if self.Q is not None:
                self._diag = np.diag(self.Q).copy()
            else:
                d = self.kernel.diag(self.X)
                if self.scatter_classes is not None:
                    d = d * (1.0 - 1.0 / self.n_classes)
                self._diag = d
        return self._diag

    def Q_times(self, v: np.ndarray) -> np.ndarray:
        """Q @ v using only the columns where v is non-zero."""
        nz = np.flatnonzero(v)
        if nz.size == 0:
            return np.zeros(self.n)
        out = np.zeros(self.n)
        for start in range(0, nz.size, 512):
            blk = nz[start:start + 512]
            out += self.columns(blk) @ v[blk]
        return out

    def gradient(self, alpha: np.ndarray) -> np.ndarray:
        return self.Q_times(alpha) + self.p

    def objective(self, alpha: np.ndarray) -> float:
        return float(0.5 * alpha @ self.Q_times(alpha) + self.p @ alpha)

    # ------------------------------------------------------------------ feasibility
    def feasible_start(self) -> np.ndarray:
        """A point meeting every bound and group: start at the clipped origin, then move each
        group's variables one at a time toward the bound that closes the gap to r_g."""
        alpha = np.clip(np.zeros(self.n), self.lower, self.upper)
        for g in range(self.n_groups):
            idx = self._group_index(g)
            s = self.eq_signs[idx]
            gap = self.eq_rhs[g] - float(s @ alpha[idx])
            for k, i in enumerate(range(self.n) if isinstance(idx, slice) else idx):
                if gap == 0.0:
                    break
                # moving α_i by t changes the sum by s_i t
                t = gap * s[k]
                new = min(max(alpha[i] + t, self.lower[i]), self.upper[i])
                gap -= s[k] * (new - alpha[i])
                alpha[i] = new
        return alpha

    # ------------------------------------------------------------------ common duals
    @classmethod
    def c_svm(cls, y, C, *, Q=None, kernel=None, X=None, lower=0.0) -> "QPProblem":
        """The C-SVM dual of LIBSVM with labels y = ±1 and (per-sample) bounds lower ≤ α ≤ C:
        min ½αᵀQα − eᵀα, Q_ij = y_i y_j k(x_i, x_j), yᵀα = 0 (Zapién Arreola, Fehr and Burkhardt 2007, Problem 1 of §4.1)."""
        y = np.asarray(y, dtype=np.float64)
        n = y.shape[0]
        if Q is not None:
            Q = np.asarray(Q, dtype=np.float64) * np.outer(y, y)
        return cls(p=-np.ones(n), lower=lower, upper=C, Q=Q, kernel=kernel, X=X,
                   signs=None if Q is not None else y, groups=np.zeros(n, dtype=np.int64),
                   eq_signs=y, eq_rhs=np.zeros(1))

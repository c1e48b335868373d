"""What a backend returns."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from svmviz.registry import register_record


@dataclass
class QPResult:
    """The solution of a ``QPProblem``.

    Attributes
    ----------
    alpha : the solution
    objective : ½αᵀQα + pᵀα at alpha
    gradient : Qα + p at alpha
    rho : one offset per equality group, as LIBSVM's ``calculate_rho`` (see ``kkt.rho``)
    n_iter, converged, max_violation : iterations, whether max_violation ≤ tol was reached, and
        the final maximal KKT violation (LIBSVM's m(α) − M(α)), also when not converged
    backend, solver_name : "smo" or "cvxpy", and the underlying solver (e.g. "CLARABEL")
    time_s : wall-clock time of the solve
    history : {"iteration": [...], "max_violation": [...], "objective": [...]} every few iterations
    trace : the SMO iterations (``SMOTrace``) when the solve was asked for one, else None
    """

    alpha: np.ndarray
    objective: float
    gradient: np.ndarray
    rho: np.ndarray
    n_iter: int
    converged: bool
    max_violation: float
    backend: str
    solver_name: str
    time_s: float
    history: dict = field(default_factory=dict)
    trace: "SMOTrace | None" = None


@register_record
@dataclass
class SMOTrace:
    """The first ``len(trace)`` SMO iterations (``solve_qp(..., trace=True)``).

    Iteration k changed α at ``pairs[k] = (i, j)`` (original indices; j = −1 for a one-variable
    Newton step) from ``alpha_before[k]`` to ``alpha_after[k]``; ``max_violation[k]`` is the
    maximal KKT violation that selected the pair and ``objective[k]`` the objective after the
    step (``objective0`` before the first). ``shrink_events`` rows are (iteration, active-set
    size after shrinking or unshrinking). Recording stops after ``max_trace`` iterations
    (``truncated``); the solve itself goes on to convergence.
    """

    alpha0: np.ndarray
    objective0: float
    pairs: np.ndarray
    alpha_before: np.ndarray
    alpha_after: np.ndarray
    max_violation: np.ndarray
    objective: np.ndarray
    shrink_events: np.ndarray
    n_iter: int
    truncated: bool

    def __len__(self) -> int:
        return int(self.pairs.shape[0])

    def alpha_at(self, t: int) -> np.ndarray:
        """α after the first t iterations, replayed from ``alpha0`` (t = 0: the start)."""
        if not 0 <= t <= len(self):
            raise IndexError(f"the trace holds iterations 0..{len(self)}, not {t}")
        alpha = np.array(self.alpha0, dtype=np.float64)
        if t == 0:
            return alpha
        idx = self.pairs[:t].ravel()
        val = self.alpha_after[:t].ravel()
        keep = idx >= 0
        idx, val = idx[keep], val[keep]
        # the last write to each index wins: first occurrence in the reversed order
        ridx = idx[::-1]
        uniq, first = np.unique(ridx, return_index=True)
        alpha[uniq] = val[::-1][first]
        return alpha

"""What a backend returns."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


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
        the final maximal KKT violation (LIBSVM's m(α) − M(α))
    backend, solver_name : "smo" or "cvxpy", and the underlying solver (e.g. "CLARABEL")
    time_s : wall-clock time of the solve
    history : {"iteration": [...], "max_violation": [...], "objective": [...]} every few iterations
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

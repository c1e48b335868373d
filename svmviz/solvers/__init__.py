"""Solvers: the QP as data (``QPProblem``) and swappable backends behind ``solve_qp``.

>>> res = solve_qp(QPProblem.c_svm(y, C=1.0, kernel=Kernel("rbf", 0.5), X=X), backend="smo")
"""

from __future__ import annotations

import numpy as np

from svmviz.errors import ParameterError
from svmviz.solvers.problem import QPProblem
from svmviz.solvers.result import QPResult, SMOTrace

#: the backends an estimator's ``solver`` may name; ``solve_qp`` also takes "dense-smo" (the
#: ``dense_smo.DenseSMO`` object behind the SVM tree's node QPs: one equality group, dense Q)
BACKENDS = ("smo", "cvxpy")


def solve_qp(problem: QPProblem, backend: str = "smo", tol: float = 1e-3, max_iter=None,
             alpha0=None, **options) -> QPResult:
    """Solve ``problem`` with ``backend`` ("smo": fast Numba SMO; "cvxpy": the reference;
    "dense-smo": ``DenseSMO``, for one equality group with signs ±1 on a dense Q).

    ``alpha0`` is a feasible starting point (SMO only; the reference ignores it). ``max_iter``:
    None runs SMO to convergence (as LIBSVM); a number caps it: the result then says
    ``converged=False`` with its final ``max_violation``, or with ``on_cap="raise"`` a
    ``svmviz.errors.ConvergenceError`` carries it (``err.result``). Backend options pass through
    (smo: ``cache_mb``, ``shrinking``, ``dense_mb``, ``trace``, ``max_trace``, ``progress``,
    ``on_cap``; cvxpy: ``max_n``, ``solver``); a backend refuses an option it does not know
    (``TypeError``), so a misspelt or misplaced option never passes silently.
    """
    if alpha0 is not None:
        alpha0 = np.asarray(alpha0, dtype=np.float64)
        if alpha0.shape != (problem.n,):
            raise ParameterError(f"alpha0 must have shape ({problem.n},), got {alpha0.shape}")
    if tol <= 0:
        raise ParameterError(f"tol must be positive, got {tol}")
    if backend == "smo":
        from svmviz.solvers import smo
        return smo.solve(problem, tol=tol, max_iter=max_iter, alpha0=alpha0, **options)
    if backend == "dense-smo":
        from svmviz.solvers import dense_smo
        return dense_smo.solve(problem, tol=tol, max_iter=max_iter, alpha0=alpha0, **options)
    if backend == "cvxpy":
        from svmviz.solvers import cvxpy_backend
        return cvxpy_backend.solve(problem, tol=tol, max_iter=max_iter, alpha0=alpha0, **options)
    raise ParameterError(f"backend must be one of {', '.join(BACKENDS)} or dense-smo, not {backend!r}")


__all__ = ["QPProblem", "QPResult", "SMOTrace", "solve_qp", "BACKENDS"]

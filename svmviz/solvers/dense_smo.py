"""A reusable SMO solver object for many small QPs that share one dense Q.

    solver = DenseSMO(Q)                       # Q_ij = y_i y_j K_ij, kept (not copied)
    res = solver.solve(signs, lower, upper, alpha0, tol)

For problems of a few thousand variables solved hundreds of times with the same Q (the node QPs of
the SVM tree of Zapién Arreola, Fehr and Burkhardt 2007, every C_k try of every candidate), the
general backend (``smo.solve``: validation, column source, shrinking, ρ on every call) costs more
than the solve. This one is LIBSVM's SMO with second-order working-set selection (Fan, Chen, Lin
2005, WSS 2) on the dense Q, general bounds and one equality group Σ s_i α_i = r (r is that of the
start), nothing else. ``solve_qp(problem, backend="dense-smo")`` runs a ``QPProblem`` through it
(with ρ and the KKT violation), so its results are checked against the cvxpy reference as every
backend's.
"""

from __future__ import annotations

import time

import numpy as np

from svmviz.errors import ParameterError
from svmviz.solvers import kkt
from svmviz.solvers._dense_smo import smo
from svmviz.solvers.result import QPResult

#: Iteration cap of one solve; None: LIBSVM's max(10⁷, 100 n). A solve that reaches it (or that
#: floating point stops from making progress) returns ``converged=False``; the tests lower it to
#: force that case.
MAX_ITER = None


class DenseResult:
    """What one ``DenseSMO.solve`` found: α, the gradient Qα + p, the objective, iterations and
    whether m(α) − M(α) < tol was reached."""

    __slots__ = ("alpha", "gradient", "objective", "n_iter", "converged")

    def __init__(self, alpha, gradient, objective, n_iter, converged):
        self.alpha, self.gradient, self.objective = alpha, gradient, objective
        self.n_iter, self.converged = n_iter, converged


class DenseSMO:
    """SMO on one dense Q (n × n, symmetric PSD, float64, C-contiguous), for many solves.

    ``Q`` must already carry the signs of the equality (Q_ij = s_i s_j K_ij) for the signs the
    solves pass: flipping every sign leaves such a Q unchanged."""

    def __init__(self, Q):
        self.Q = np.ascontiguousarray(Q, dtype=np.float64)
        self.n = self.Q.shape[0]
        self._minus_ones = -np.ones(self.n)

    def solve(self, signs, lower, upper, alpha0, tol: float, p=None, max_iter=None) -> DenseResult:
        """From the feasible ``alpha0`` (copied): LIBSVM's stopping rule m(α) − M(α) < tol and its
        iteration cap max(10⁷, 100 n) (``max_iter`` or ``MAX_ITER`` when set). ``p`` defaults to
        −1 (the SVM duals). The objective ½αᵀQα + pᵀα comes from G = Qα + p as ½αᵀ(G + p)."""
        alpha = np.array(alpha0, dtype=np.float64)
        p = self._minus_ones if p is None else np.asarray(p, dtype=np.float64)
        if max_iter is None:
            max_iter = max(10_000_000, 100 * self.n) if MAX_ITER is None else int(MAX_ITER)
        G, it, ok = smo(self.Q, p, np.asarray(signs, dtype=np.float64), lower, upper, alpha, float(tol),
                        int(max_iter))
        objective = 0.5 * float(alpha @ G) + 0.5 * float(alpha @ p)
        return DenseResult(alpha, G, objective, int(it), bool(ok))


def solve(problem, tol: float = 1e-3, max_iter=None, alpha0=None) -> QPResult:
    """``solve_qp``'s "dense-smo" backend: a ``QPProblem`` with one equality group holding every
    variable and signs ±1 (the C-SVM and H1-SVM duals), Q dense or made dense. An unknown option
    is a ``TypeError`` (the signature has none)."""
    t0 = time.perf_counter()
    s = np.asarray(problem.eq_signs, dtype=np.float64)
    if not (problem.n_groups == 1 and np.all(problem.groups == 0) and np.all(np.abs(s) == 1)):
        raise ParameterError("the dense-smo backend solves one equality group over every variable "
                             "with signs ±1; use backend='smo' for other problems")
    alpha = problem.feasible_start() if alpha0 is None else np.array(alpha0, dtype=np.float64)
    res = DenseSMO(problem.dense_Q()).solve(s, problem.lower, problem.upper, alpha, tol, p=problem.p,
                                           max_iter=max_iter)
    return QPResult(alpha=res.alpha, objective=res.objective, gradient=res.gradient,
                    rho=kkt.rho(problem, res.alpha, res.gradient, rtol=0.0),
                    n_iter=res.n_iter, converged=res.converged,
                    max_violation=float(kkt.max_violation(problem, res.alpha, res.gradient)),
                    backend="dense-smo", solver_name="dense-smo-wss2-numba",
                    time_s=time.perf_counter() - t0)

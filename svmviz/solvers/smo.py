"""The fast backend: sequential minimal optimisation in Numba, LIBSVM's algorithm generalised.

LIBSVM (Chang & Lin; ``svm.cpp``'s ``Solver``) solves one equality group with s = y and lower
bounds 0. Here, for the general problem of ``problem.py``:

- working set: second-order selection (Fan, Chen & Lin 2005, "WSS2") inside each equality group;
  variables in no group are candidates for a single-variable Newton step; the candidate with the
  largest predicted decrease is taken (``_smo_core.select_working_set``);
- update: the analytic two-variable step with general lower/upper bounds of seed 000 §4.1
  (Algorithm 1), written along the direction that keeps Σ s α fixed and clipped to the box
  (U = +inf allowed; L = U variables never move);
- start: ``alpha0`` or ``problem.feasible_start()``;
- stopping: LIBSVM's rule, maximal KKT violation m(α) − M(α) (and single-variable violations)
  ≤ tol;
- shrinking with gradient reconstruction (LIBSVM's ``do_shrinking``/``reconstruct_gradient``);
  the active variables are kept contiguous as LIBSVM's ``swap_index`` does; the gradient of the
  shrunk variables is recomputed from the non-zero α instead of being kept up to date in G_bar
  (with vectorised kernel columns that is cheaper than a full column per bound change);
- rho per group from the KKT conditions as LIBSVM's ``calculate_rho`` (``kkt.rho``);
- Q: a dense matrix when it fits ``dense_mb``, otherwise columns computed on demand in Numba
  with an LRU cache of ``cache_mb`` MB. Both come from the same vectorised column routine (dot
  products over Xᵀ and a polynomial exp): on the shared 2-core machines a multi-threaded BLAS
  Gram matrix was slower and noisier than this single-threaded loop.
"""

from __future__ import annotations

import time

import numpy as np

from svmviz.errors import ParameterError, SvmvizError
from svmviz.solvers import kkt
from svmviz.solvers import _smo_core as core
from svmviz.solvers.result import QPResult

DEFAULT_DENSE_MB = 2.0   # n ≤ 512: beyond that cached columns were faster
DEFAULT_CACHE_MB = 200.0
HISTORY_POINTS = 2048

_EMPTY2 = np.empty((0, 0))


def _column_source(problem, dense_mb: float):
    """The ``src`` tuple of ``_smo_core``: a dense Q (given, or built when it fits ``dense_mb``)
    or the samples for columns on demand. Arrays are fresh copies (the solver reorders them)."""
    n = problem.n
    ibuf = np.empty(n, dtype=np.int64)
    if problem.Q is None:
        k = problem.kernel
        X = problem.X
        classes = (np.empty(0, dtype=np.int64) if problem.scatter_classes is None
                   else np.array(problem.scatter_classes, dtype=np.int64))
        inv_K = 0.0 if problem.scatter_classes is None else 1.0 / problem.n_classes
        src = (False, _EMPTY2, core.KERNEL_CODES[k.name], float(k.gamma), float(k.coef0),
               int(k.degree), np.array(X.T, order="C"), np.einsum("ij,ij->i", X, X),
               np.array(problem.signs, dtype=np.float64), classes, inv_K, ibuf)
        if n * n * 8 > dense_mb * 2**20:
            return src
        Q = core.dense_Q(src)
    else:
        Q = np.ascontiguousarray(problem.Q, dtype=np.float64)
        if not np.array_equal(Q, Q.T):
            Q = 0.5 * (Q + Q.T)  # only the symmetric part enters ½αᵀQα
    return (True, Q, 0, 0.0, 0.0, 0, np.empty((0, n)), np.zeros(n), np.ones(n),
            np.empty(0, dtype=np.int64), 0.0, ibuf)


def solve(problem, tol: float = 1e-3, max_iter=None, alpha0=None, cache_mb: float | None = None,
          dense_mb: float | None = None, shrinking: bool = True, **_ignored) -> QPResult:
    """Solve ``problem`` by SMO; see the module docstring. ``max_iter`` defaults to LIBSVM's
    max(10⁷, 100 n)."""
    t0 = time.perf_counter()
    n = problem.n
    cache_mb = DEFAULT_CACHE_MB if cache_mb is None else float(cache_mb)
    dense_mb = DEFAULT_DENSE_MB if dense_mb is None else float(dense_mb)
    if cache_mb <= 0 or dense_mb < 0:
        raise ParameterError("cache_mb must be positive and dense_mb non-negative")
    max_iter = max(10_000_000, 100 * n) if max_iter is None else int(max_iter)
    if max_iter < 0:
        raise ParameterError(f"max_iter must be non-negative, got {max_iter}")
    L = np.asarray(problem.lower, dtype=np.float64)
    U = np.asarray(problem.upper, dtype=np.float64)
    if alpha0 is None:
        alpha = problem.feasible_start()
    else:
        alpha = np.array(alpha0, dtype=np.float64)
        if np.any(alpha < L) or np.any(alpha > U):
            raise ParameterError("alpha0 must lie within the bounds")
        for g in range(problem.n_groups):
            idx = problem.groups == g
            r = problem.eq_rhs[g]
            if abs(problem.eq_signs[idx] @ alpha[idx] - r) > 1e-8 * max(1.0, abs(r)):
                raise ParameterError(f"alpha0 does not satisfy equality group {g}")
    alpha = np.array(alpha, dtype=np.float64)
    src = _column_source(problem, dense_mb)
    # enough cache slots for the columns one iteration holds at once (two group heads + a pair)
    n_slots = int(min(n, max(4, cache_mb * 2**20 // (8 * n))))
    grp = np.array(problem.groups, dtype=np.int64)
    one_group = bool(problem.n_groups == 1 and np.all(grp == 0))
    hist_it = np.empty(HISTORY_POINTS, dtype=np.int64)
    hist_viol = np.empty(HISTORY_POINTS)
    hist_obj = np.empty(HISTORY_POINTS)
    # copies: the solver reorders its arrays in place (active variables first)
    G, n_iter, status, viol, n_hist = core.solve_loop(
        alpha, np.array(problem.p, dtype=np.float64), L.copy(), U.copy(),
        np.array(problem.eq_signs, dtype=np.float64), grp, problem.n_groups,
        np.array(problem.diag(), dtype=np.float64),   # Q_ii in double, as LIBSVM's QD
        src, n_slots, float(tol), max_iter, bool(shrinking), one_group, hist_it, hist_viol,
        hist_obj)
    p = problem.p
    if status == 2:
        raise SvmvizError("the objective is unbounded below: some variable has U = inf and no "
                          "curvature (Q_ii = 0) along a descent direction")
    objective = float(0.5 * alpha @ (G + p))
    history = {"iteration": hist_it[:n_hist].tolist() + [int(n_iter)],
               "max_violation": hist_viol[:n_hist].tolist() + [float(viol)],
               "objective": hist_obj[:n_hist].tolist() + [objective]}
    return QPResult(
        alpha=alpha,
        objective=objective,
        gradient=G,
        rho=kkt.rho(problem, alpha, G, rtol=0.0),  # SMO puts α exactly on its bounds
        n_iter=int(n_iter),
        converged=status == 0,
        max_violation=float(max(viol, 0.0)) if status == 0 else float(kkt.max_violation(problem, alpha, G)),
        backend="smo",
        solver_name="smo-wss2-numba",
        time_s=time.perf_counter() - t0,
        history=history,
    )

"""The fast backend: sequential minimal optimisation in Numba, LIBSVM's algorithm generalised.

LIBSVM (Chang & Lin; ``svm.cpp``'s ``Solver``) solves one equality group with s = y and lower
bounds 0. Here, for the general problem of ``problem.py``:

- working set: second-order selection (Fan, Chen & Lin 2005, "WSS2") inside each equality group;
  variables in no group are candidates for a single-variable Newton step; the candidate with the
  largest predicted decrease is taken (``_smo_solver.select_working_set``; for one group holding
  every variable, the C-SVM, the selection is inlined in the main loop);
- update: the analytic two-variable step with general lower/upper bounds of Zapién Arreola, Fehr and Burkhardt 2007 §4.1
  (Algorithm 1), written along the direction that keeps Σ s α fixed and clipped to the box
  (U = +inf allowed; L = U variables never move);
- start: ``alpha0`` or ``problem.feasible_start()``;
- stopping: LIBSVM's rule, maximal KKT violation m(α) − M(α) (and single-variable violations)
  ≤ tol;
- shrinking with LIBSVM's ``G_bar`` and gradient reconstruction from the free α only
  (``do_shrinking``/``reconstruct_gradient``), the active variables kept contiguous by swaps as
  LIBSVM's ``swap_index``, and a column cache that survives shrinking and whose rows follow the
  active size when the columns do not fit (see ``_smo_cache``);
- rho per group from the KKT conditions as LIBSVM's ``calculate_rho`` (``kkt.rho``);
- Q: a dense matrix when it fits ``dense_mb``, otherwise columns computed on demand in Numba
  (``_smo_columns``) with an LRU cache of ``cache_mb`` MB (``_smo_cache``), the solver proper
  (``_smo_solver``) seeing Q only through the cache, as LIBSVM's ``Solver`` through ``get_Q``.

Convergence. As LIBSVM there is no default iteration cap: SMO with WSS2 stops after
finitely many iterations for any tol > 0 (Fan, Chen & Lin 2005, Theorem 3 / Chen, Fan & Lin
2006), and a default cap such as max(10⁷, 100 n) stops some problems before the tolerance with a wrong answer. ``progress(done,
total)``, svmviz's one progress protocol, is called every ``CHUNK`` iterations with the iterations
done and ``max_iter`` (0 when uncapped: the total is not known); when it raises, the exception ends
the solve there (a Stop button, a time limit). A stop at an explicit ``max_iter`` returns the
result with ``converged=False`` and its final KKT violation (the caller asked for the stop;
estimators warn), or, with ``on_cap="raise"``, raises ``ConvergenceError`` whose ``result`` is
that unconverged ``QPResult``.
"""

from __future__ import annotations

import time

import numpy as np

from svmviz.errors import ConvergenceError, ParameterError, SvmvizError
from svmviz.solvers import kkt
from svmviz.solvers import _smo_solver as core
from svmviz.solvers._smo_cache import new_cache
from svmviz.solvers._smo_columns import kernel_columns
from svmviz.solvers.result import QPResult, SMOTrace

DEFAULT_DENSE_MB = 2.0   # n ≤ 512: beyond that cached columns were faster
DEFAULT_CACHE_MB = 200.0
DEFAULT_MAX_TRACE = 20_000
HISTORY_POINTS = 2048
CHUNK = 1 << 20          # iterations between two calls of ``progress``
NO_CAP = np.iinfo(np.int64).max

def _start(problem, alpha0):
    L, U = problem.lower, problem.upper
    if alpha0 is None:
        return problem.feasible_start()
    alpha = np.array(alpha0, dtype=np.float64)
    if np.any(alpha < L) or np.any(alpha > U):
        raise ParameterError("alpha0 must lie within the bounds")
    for g in range(problem.n_groups):
        idx = problem.groups == g
        r = problem.eq_rhs[g]
        if abs(problem.eq_signs[idx] @ alpha[idx] - r) > 1e-8 * max(1.0, abs(r)):
            raise ParameterError(f"alpha0 does not satisfy equality group {g}")
    return alpha


def solve(problem, tol: float = 1e-3, max_iter=None, alpha0=None, cache_mb: float | None = None,
          dense_mb: float | None = None, shrinking: bool = True, trace: bool = False,
          max_trace: int = DEFAULT_MAX_TRACE, progress=None, on_cap: str = "return",
          shrink_every: int | None = None, _internals: dict | None = None) -> QPResult:
    """Solve ``problem`` by SMO; see the module docstring.

    ``max_iter``: None (default) runs to convergence; a number caps the iterations (then
    ``converged`` is False, or ``ConvergenceError`` with ``on_cap="raise"``). ``trace``: record the first ``max_trace`` iterations in
    ``result.trace`` (``SMOTrace``). ``progress(done, total)``: called every ``CHUNK`` iterations
    (``total`` = ``max_iter``, 0 when uncapped); raising in it ends the solve. ``shrink_every``:
    iterations between shrinking steps (LIBSVM's min(n, 1000)). An unknown option is a
    ``TypeError``.
    """
    t0 = time.perf_counter()
    n = problem.n
    cache_mb = DEFAULT_CACHE_MB if cache_mb is None else float(cache_mb)
    dense_mb = DEFAULT_DENSE_MB if dense_mb is None else float(dense_mb)
    if cache_mb <= 0 or dense_mb < 0:
        raise ParameterError("cache_mb must be positive and dense_mb non-negative")
    cap = NO_CAP if max_iter is None else int(max_iter)
    if cap < 0:
        raise ParameterError(f"max_iter must be non-negative or None, got {max_iter}")
    if on_cap not in ("return", "raise"):
        raise ParameterError(f"on_cap must be 'return' or 'raise', not {on_cap!r}")
    if trace and int(max_trace) < 1:
        raise ParameterError(f"max_trace must be at least 1, got {max_trace}")
    shrink_every = min(n, 1000) if shrink_every is None else int(shrink_every)
    if shrink_every < 1:
        raise ParameterError(f"shrink_every must be at least 1, got {shrink_every}")
    alpha_start = np.array(_start(problem, alpha0), dtype=np.float64)
    s_eq = np.array(problem.eq_signs, dtype=np.float64)
    one_group = bool(problem.n_groups == 1 and np.all(problem.groups == 0))
    if one_group:
        # LIBSVM's order and signs: svm_train's svm_group_classes puts the first label's samples
        # first, with y = +1 (scikit-learn sorts the labels: the C-SVM's s = −1 class). The
        # working-set rules break ties by position and sign (WSS2's >= and <=), so this keeps
        # our iterates on LIBSVM's path up to rounding: on degenerate problems (linear kernel,
        # large C) another start order can cost twice its iterations (digits linear C = 10).
        ordr = np.argsort(s_eq > 0, kind="stable")
        s_eq = -s_eq   # the same feasible set: Σ s α = r is Σ (−s) α = −r
    else:
        ordr = np.arange(n)
    cols = kernel_columns(problem, dense_mb, ordr)
    # enough cache slots for the columns one iteration holds at once (two group heads + a pair)
    n_slots = int(min(n, max(4, cache_mb * 2**20 // (8 * n))))
    cache = new_cache(n, n_slots)
    # compact copies in the starting order: the solver reorders them in place (active first)
    a = alpha_start[ordr]
    L = np.array(problem.lower, dtype=np.float64)[ordr]
    U = np.array(problem.upper, dtype=np.float64)[ordr]
    s = s_eq[ordr]
    pos = s > 0
    st = (core.UP * np.where(pos, a < U, a > L) + core.LOW * np.where(pos, a > L, a < U)
          + core.POS * pos).astype(np.int8)   # core.status_of for every variable
    v = core.Variables(a=a, G=np.empty(n), Gbar=np.empty(n),
                       p=np.array(problem.p, dtype=np.float64)[ordr], L=L, U=U, s=s,
                       QD=np.array(problem.diag(), dtype=np.float64)[ordr], pend=np.zeros(n),
                       grp=np.array(problem.groups, dtype=np.int64)[ordr], st=st, ordr=ordr)
    n_groups = problem.n_groups
    work = core.Work(Gmax1=np.empty(n_groups), Gmax2=np.empty(n_groups),
                     imax=np.empty(n_groups, np.int64), buf=np.empty(n))
    core.initial_gradient(v, cols, work.buf)
    T = int(max_trace) if trace else 0
    rec = core.Record(hist_it=np.empty(HISTORY_POINTS, dtype=np.int64),
                      hist_viol=np.empty(HISTORY_POINTS), hist_obj=np.empty(HISTORY_POINTS),
                      tr_ij=np.empty((T, 2), dtype=np.int64), tr_a=np.empty((T, 4)),
                      tr_vo=np.empty((T, 2)), ev=np.empty((T, 2), dtype=np.int64))
    ctr = np.zeros(1, dtype=core.COUNTERS)
    c = ctr[0]
    c["m"] = c["w"] = c["w_min"] = n
    c["counter"] = shrink_every + 1
    c["stride"] = 1
    c["pre_gmax"] = -np.inf
    c["obj"] = obj0 = float(0.5 * a @ (v.G + v.p))
    c["viol"] = np.inf
    opts = core.Settings(tol=float(tol), shrinking=bool(shrinking), shrink_every=shrink_every,
                         one_group=one_group)
    while True:
        it = int(c["it"])
        stop_it = min(cap, it + CHUNK) if progress is not None else cap
        status = core.run(v, cols, cache, work, rec, ctr, opts, stop_it)
        if status == core.RESHAPED:   # the cache's rows changed width: go on with new views
            continue
        if status != core.RUNNING or c["it"] >= cap:
            break
        progress(int(c["it"]), 0 if max_iter is None else cap)
    if status == core.UNBOUNDED:
        raise SvmvizError("the objective is unbounded below: some variable has U = inf and no "
                          "curvature (Q_ii = 0) along a descent direction")
    alpha, G, Gbar = core.finish(v, cols, cache, work.buf, ctr)
    if _internals is not None:   # for the tests of the G_bar bookkeeping and the cache rows
        _internals["G_bar"] = Gbar
        _internals["min_width"] = int(c["w_min"])
    n_iter = int(c["it"])
    p = problem.p
    objective = float(0.5 * alpha @ (G + p))
    converged = status == core.CONVERGED
    viol = float(max(c["viol"], 0.0)) if converged else float(kkt.max_violation(problem, alpha, G))
    n_hist = int(c["n_hist"])
    history = {"iteration": rec.hist_it[:n_hist].tolist() + [n_iter],
               "max_violation": rec.hist_viol[:n_hist].tolist() + [viol],
               "objective": rec.hist_obj[:n_hist].tolist() + [objective]}
    smo_trace = None
    if trace:
        k = int(c["n_trace"])
        smo_trace = SMOTrace(alpha0=alpha_start, objective0=obj0, pairs=rec.tr_ij[:k].copy(),
                             alpha_before=rec.tr_a[:k, :2].copy(),
                             alpha_after=rec.tr_a[:k, 2:].copy(),
                             max_violation=rec.tr_vo[:k, 0].copy(),
                             objective=rec.tr_vo[:k, 1].copy(),
                             shrink_events=rec.ev[:int(c["n_ev"])].copy(), n_iter=n_iter,
                             truncated=n_iter > k)
    res = QPResult(
        alpha=alpha,
        objective=objective,
        gradient=G,
        rho=kkt.rho(problem, alpha, G, rtol=0.0),  # SMO puts α exactly on its bounds
        n_iter=n_iter,
        converged=converged,
        max_violation=viol,
        backend="smo",
        solver_name="smo-wss2-numba",
        time_s=time.perf_counter() - t0,
        history=history,
        trace=smo_trace,
    )
    if not converged and on_cap == "raise":
        raise ConvergenceError(
            f"SMO did not converge: max_iter = {cap} was reached with maximal KKT violation {viol:.3g} > tol = {tol:g} "
            f"(objective {objective:.6g}). Leave max_iter=None to run to convergence, loosen "
            "tol, or lower C (large C makes SMO take many more iterations)", result=res)
    return res

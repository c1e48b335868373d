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
# below this n the float64 columns of the default cache all fit (4096² × 8 B = 128 MB), and a
# smaller cache_mb on a small problem is a test of the cache's bookkeeping, which compares
# iterates across cache sizes bit for bit: "auto" keeps float64 there. Where every column fits,
# float32 buys no cache room and costs the conversion and the exact gradient at the end (n
# columns again when most α are non-zero): the C-SVM on the sets of benchmarks/bench_smo.py
# --quick took more CPU with float32 columns in 15 of 16 cells, even where its iterations
# followed LIBSVM's more closely
AUTO_FLOAT32_N = 4096
REFINE_ROUNDS = 3   # restarts from the exact gradient after float32 columns, then float64
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


class _Pass:
    """One run of the Numba solver from ``alpha_start`` with a cache of ``dtype`` entries: its
    state (``_smo_solver``'s named tuples) and the loop that calls ``progress`` between chunks."""

    def __init__(self, problem, alpha_start, ordr, s_eq, one_group, dense_mb, cache_mb, dtype,
                 tol, shrinking, shrink_every, T, it0=0):
        n = problem.n
        self.cols = cols = kernel_columns(problem, dense_mb, ordr)
        # enough cache slots for the columns one iteration holds at once (two group heads + a
        # pair)
        itemsize = np.dtype(dtype).itemsize
        n_slots = int(min(n, max(4, cache_mb * 2**20 // (itemsize * n))))
        self.cache = new_cache(n, n_slots, dtype)
        n_groups = problem.n_groups
        self.work = core.Work(Gmax1=np.empty(n_groups), Gmax2=np.empty(n_groups),
                              imax=np.empty(n_groups, np.int64), buf=np.empty(n),
                              score=np.empty(n))
        # compact copies in the starting order (the solver reorders them in place, active
        # first), with the gradient
        self.var = v = core.start_variables(alpha_start, problem.p, problem.lower, problem.upper,
                                            s_eq, problem.diag(), problem.groups, ordr, cols,
                                            self.work.buf)
        self.rec = core.Record(hist_it=np.empty(HISTORY_POINTS, dtype=np.int64),
                               hist_viol=np.empty(HISTORY_POINTS),
                               hist_obj=np.empty(HISTORY_POINTS),
                               tr_ij=np.empty((T, 2), dtype=np.int64), tr_a=np.empty((T, 4)),
                               tr_vo=np.empty((T, 2)), ev=np.empty((T, 2), dtype=np.int64))
        self.obj0 = float(0.5 * v.a @ (v.G + v.p))
        # the COUNTERS record in one call: active size, shrinking countdown, iterations, the
        # flags and counts at 0, history stride 1, row width n, no m(α) nor M(α) yet, the
        # objective and an unknown violation
        self.ctr = np.array([(n, shrink_every + 1, it0, False, False, 0, 0, 1, 0, 0, 0, n, n,
                              -np.inf, -np.inf, self.obj0, np.inf)], dtype=core.COUNTERS)
        self.opts = core.Settings(tol=tol, shrinking=shrinking, shrink_every=shrink_every,
                                  one_group=one_group)

    def go(self, cap, progress, max_iter):
        """Iterate to convergence or iteration ``cap``, calling ``progress`` between chunks."""
        c = self.ctr[0]
        while True:
            it = int(c["it"])
            stop_it = min(cap, it + CHUNK) if progress is not None else cap
            status = core.run(self.var, self.cols, self.cache, self.work, self.rec, self.ctr,
                              self.opts, stop_it)
            if status == core.RESHAPED:   # the cache's rows changed width: go on with new views
                continue
            if status != core.RUNNING or c["it"] >= cap:
                break
            progress(int(c["it"]), 0 if max_iter is None else cap)
        if status == core.UNBOUNDED:
            raise SvmvizError("the objective is unbounded below: some variable has U = inf and "
                              "no curvature (Q_ii = 0) along a descent direction")
        return status

    def finish(self, exact: bool):
        """α, G and G_bar in the original order; ``exact``: G and G_bar recomputed in double
        from α (after a float32 cache, whose rounded columns the gradient has summed)."""
        if exact:
            v = self.var
            core.initial_gradient(v, self.cols, self.work.buf)
            v.pend[:] = 0.0
            self.ctr[0]["m"] = v.a.shape[0]
        return core.finish(self.var, self.cols, self.cache, self.work.buf, self.ctr)

    def restart(self):
        """Go on from the exact gradient ``finish(exact=True)`` left, all variables active."""
        c = self.ctr[0]
        c["pre_ok"] = False
        c["unshrunk"] = False
        c["counter"] = self.opts.shrink_every + 1
        c["viol"] = np.inf
        c["obj"] = float(0.5 * self.var.a @ (self.var.G + self.var.p))

    @property
    def n_iter(self):
        return int(self.ctr[0]["it"])

    @property
    def w_min(self):
        return int(self.ctr[0]["w_min"])

    @property
    def viol(self):
        return float(self.ctr[0]["viol"])

    def history(self):
        k = int(self.ctr[0]["n_hist"])
        return {"iteration": self.rec.hist_it[:k].tolist(),
                "max_violation": self.rec.hist_viol[:k].tolist(),
                "objective": self.rec.hist_obj[:k].tolist()}


def solve(problem, tol: float = 1e-3, max_iter=None, alpha0=None, cache_mb: float | None = None,
          dense_mb: float | None = None, shrinking: bool = True, trace: bool = False,
          max_trace: int = DEFAULT_MAX_TRACE, progress=None, on_cap: str = "return",
          shrink_every: int | None = None, cache_dtype: str = "auto",
          _internals: dict | None = None) -> QPResult:
    """Solve ``problem`` by SMO; see the module docstring.

    ``max_iter``: None (default) runs to convergence; a number caps the iterations (then
    ``converged`` is False, or ``ConvergenceError`` with ``on_cap="raise"``). ``trace``: record the first ``max_trace`` iterations in
    ``result.trace`` (``SMOTrace``). ``progress(done, total)``: called every ``CHUNK`` iterations
    (``total`` = ``max_iter``, 0 when uncapped); raising in it ends the solve. ``shrink_every``:
    iterations between shrinking steps (LIBSVM's min(n, 1000)). ``cache_dtype``: the cached
    columns' entries, "float64", "float32" (twice the columns per MB; the gradient is recomputed
    in double at the end and the solve goes on with float64 columns while the exact violation is
    above ``tol``) or "auto" (float32 when the float64 columns do not all fit in ``cache_mb`` and
    n ≥ ``AUTO_FLOAT32_N``, float64 otherwise and with ``trace``). An unknown option is a
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
    if cache_dtype not in ("auto", "float64", "float32"):
        raise ParameterError(f"cache_dtype must be 'auto', 'float64' or 'float32', not {cache_dtype!r}")
    if on_cap not in ("return", "raise"):
        raise ParameterError(f"on_cap must be 'return' or 'raise', not {on_cap!r}")
    if trace and int(max_trace) < 1:
        raise ParameterError(f"max_trace must be at least 1, got {max_trace}")
    shrink_every = min(n, 1000) if shrink_every is None else int(shrink_every)
    if shrink_every < 1:
        raise ParameterError(f"shrink_every must be at least 1, got {shrink_every}")
    alpha_start = _start(problem, alpha0)   # a new float64 array: the trace keeps it
    s_eq = np.array(problem.eq_signs, dtype=np.float64)
    one_group = bool(problem.n_groups == 1 and np.logical_and.reduce(problem.groups == 0))
    if one_group:
        # LIBSVM's order and signs: svm_train's svm_group_classes puts the first label's samples
        # first, with y = +1 (scikit-learn sorts the labels: the C-SVM's s = −1 class). The
        # working-set rules break ties by position and sign (WSS2's >= and <=), so this keeps
        # our iterates on LIBSVM's path up to rounding: on degenerate problems (linear kernel,
        # large C) another start order can cost twice its iterations (digits linear C = 10).
        pos = s_eq > 0   # the stable argsort of pos, without sorting
        ordr = np.concatenate(((~pos).nonzero()[0], pos.nonzero()[0]))
        s_eq = -s_eq   # the same feasible set: Σ s α = r is Σ (−s) α = −r
    else:
        ordr = np.arange(n)
    T = int(max_trace) if trace else 0
    # float32 columns when the float64 ones do not all fit (``_smo_cache``), not for a trace
    # (its steps are the lesson: they stay those of the exact Q)
    on_demand = problem.Q is None and n * n * 8 > dense_mb * 2**20
    single = on_demand and (cache_dtype == "float32" or (
        cache_dtype == "auto" and not trace and n >= AUTO_FLOAT32_N
        and n * n * 8 > cache_mb * 2**20))
    run = _Pass(problem, alpha_start, ordr, s_eq, one_group, dense_mb, cache_mb,
                np.float32 if single else np.float64, float(tol), bool(shrinking), shrink_every, T)
    status = run.go(cap, progress, max_iter)
    alpha, G, Gbar = run.finish(exact=single)
    obj0 = run.obj0
    passes = ["float32" if single else "float64"]   # (np.dtype(...).name is Python code)
    if single:
        # the rounded columns' gradient drifted from the exact one: go on from the exact
        # gradient with the same cache (its columns stay valid) while that finds violations
        for _ in range(REFINE_ROUNDS):
            if status != core.CONVERGED or kkt.max_violation(problem, alpha, G) <= tol:
                break
            run.restart()
            status = run.go(cap, progress, max_iter)
            alpha, G, Gbar = run.finish(exact=True)
            passes.append(passes[0])
    n_iter = run.n_iter
    history = run.history()
    if single and status == core.CONVERGED:
        viol32 = float(kkt.max_violation(problem, alpha, G))
        if viol32 > tol:
            # the rounded columns stopped short of tol on the exact gradient: go on in double
            run = _Pass(problem, alpha, ordr, s_eq, one_group, dense_mb, cache_mb, np.float64,
                        float(tol), bool(shrinking), shrink_every, 0, n_iter)
            status = run.go(cap, progress, max_iter)
            alpha, G, Gbar = run.finish(exact=False)
            passes.append("float64")
            more = run.history()
            for key in history:
                history[key] = history[key] + more[key]
            n_iter = run.n_iter
    if _internals is not None:   # for the tests of the G_bar bookkeeping and the cache rows
        _internals["G_bar"] = Gbar
        _internals["min_width"] = run.w_min
        _internals["cache_dtype"] = np.dtype(run.cache.pool.dtype).name
        _internals["passes"] = passes
    p = problem.p
    objective = float(0.5 * alpha @ (G + p))
    converged = status == core.CONVERGED
    viol = (float(max(run.viol, 0.0)) if converged and not single
            else float(kkt.max_violation(problem, alpha, G)))
    history["iteration"].append(n_iter)
    history["max_violation"].append(viol)
    history["objective"].append(objective)
    smo_trace = None
    if trace:
        rec, c = run.rec, run.ctr[0]
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

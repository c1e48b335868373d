"""The reference backend: the QP handed to cvxpy (Clarabel, tight tolerances).

Slow and memory hungry (it forms Q), hence a size limit with a clear error instead of a hang.
"""

from __future__ import annotations

import os
import time

import numpy as np

from svmviz.errors import ProblemTooLargeError, SvmvizError
from svmviz.solvers import kkt
from svmviz.solvers.result import QPResult

DEFAULT_MAX_N = int(os.environ.get("SVMVIZ_CVXPY_MAX_N", "3000"))


def _psd(Q: np.ndarray) -> np.ndarray:
    """Q with negative round-off eigenvalues clipped to zero (kernel matrices are PSD in exact
    arithmetic; Clarabel refuses a quadratic term that is not)."""
    w, V = np.linalg.eigh(0.5 * (Q + Q.T))
    return (V * np.maximum(w, 0.0)) @ V.T


def _pinned(problem) -> np.ndarray:
    """The value of every variable its constraints leave no room (NaN elsewhere): L = U, the only
    non-fixed variable of an equality group, or a group whose right-hand side is its extreme
    (every s·α at the bound that reaches it). Interior-point solvers fail on a bound row with no
    interior (Hypothesis found α₀ ≥ 0, α₀ ≤ 1, α₀ = 1 making Clarabel stop), so these become
    plain equalities without bound rows."""
    L, U = problem.lower, problem.upper
    val = np.where(L == U, L, np.nan)
    for g in range(problem.n_groups):
        idx = np.flatnonzero(problem.groups == g)
        s = problem.eq_signs[idx]
        free = np.isnan(val[idx])
        rest = problem.eq_rhs[g] - s[~free] @ val[idx][~free]
        lo = np.where(s > 0, L[idx], -U[idx])[free]   # range of s·α over the free ones
        hi = np.where(s > 0, U[idx], -L[idx])[free]
        fi = idx[free]
        if fi.size == 1:
            val[fi] = rest * s[free]
        elif fi.size and rest == lo.sum():
            val[fi] = lo * s[free]
        elif fi.size and np.all(np.isfinite(hi)) and rest == hi.sum():
            val[fi] = hi * s[free]
    return val


def solve(problem, tol: float = 1e-3, max_iter=None, alpha0=None, max_n: int | None = None,
          solver: str = "CLARABEL") -> QPResult:
    import cvxpy as cp

    max_n = DEFAULT_MAX_N if max_n is None else max_n
    n = problem.n
    if n > max_n:
        raise ProblemTooLargeError(
            f"the cvxpy reference solver is limited to {max_n} variables and this problem has {n}; "
            "use backend='smo' or raise max_n (SVMVIZ_CVXPY_MAX_N)")
    t0 = time.perf_counter()
    Q = problem.dense_Q()
    Q = 0.5 * (Q + Q.T)
    a = cp.Variable(n)
    cons = []
    pinned = _pinned(problem)
    fixed = ~np.isnan(pinned)
    if np.any(fixed):
        fi = np.flatnonzero(fixed)
        cons.append(a[fi] == pinned[fi])
    nf = np.flatnonzero(~fixed)
    if nf.size:
        cons.append(a[nf] >= problem.lower[nf])
        fin = nf[np.isfinite(problem.upper[nf])]
        if fin.size:
            cons.append(a[fin] <= problem.upper[fin])
    for g in range(problem.n_groups):
        idx = np.flatnonzero(problem.groups == g)
        if not np.all(fixed[idx]):   # a pinned group's equality would repeat its rows
            cons.append(problem.eq_signs[idx] @ a[idx] == problem.eq_rhs[g])
    opts = {}
    if solver == "CLARABEL":
        opts = dict(tol_gap_abs=1e-11, tol_gap_rel=1e-11, tol_feas=1e-11, max_iter=500)
    status = None
    for attempt, Qa in enumerate((Q, None)):
        if Qa is None:  # second try: clip round-off negative eigenvalues
            Qa = _psd(Q)
        obj = 0.5 * cp.quad_form(a, cp.psd_wrap(Qa)) + problem.p @ a
        prob = cp.Problem(cp.Minimize(obj), cons)
        try:
            prob.solve(solver=solver, **opts)
            status = prob.status
        except cp.error.SolverError as exc:
            status = f"solver error: {exc}"
        if status in ("optimal", "optimal_inaccurate") and a.value is not None:
            break
    if a.value is None:
        raise SvmvizError(f"the cvxpy reference solver failed: {status}")
    alpha = np.clip(np.asarray(a.value, dtype=np.float64), problem.lower, problem.upper)
    alpha[fixed] = pinned[fixed]
    G = Q @ alpha + problem.p
    viol = kkt.max_violation(problem, alpha, G, rtol=1e-7)
    return QPResult(
        alpha=alpha,
        objective=float(0.5 * alpha @ (Q @ alpha) + problem.p @ alpha),
        gradient=G,
        rho=kkt.rho(problem, alpha, G, rtol=1e-7),
        n_iter=int(prob.solver_stats.num_iters or 0) if prob.solver_stats else 0,
        converged=status == "optimal",
        max_violation=viol,
        backend="cvxpy",
        solver_name=solver,
        time_s=time.perf_counter() - t0,
        history={},
    )

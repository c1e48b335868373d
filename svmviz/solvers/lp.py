"""Linear programs through SciPy's HiGHS, with cvxpy as the reference (guard vectors, hull tests).

    minimise cᵀx  subject to  A_ub x ≤ b_ub,  A_eq x = b_eq,  bounds[i][0] ≤ x_i ≤ bounds[i][1]
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from svmviz.errors import ParameterError


@dataclass
class LPResult:
    """``status`` is "optimal", "infeasible", "unbounded" or "error"; ``x`` is None unless a
    point was found. ``eq_duals`` / ``ub_duals`` are the constraint marginals (HiGHS sign
    convention: d objective / d rhs), usable as infeasibility or optimality certificates."""

    status: str
    x: np.ndarray | None
    objective: float | None
    backend: str
    time_s: float
    eq_duals: np.ndarray | None = None
    ub_duals: np.ndarray | None = None
    message: str = ""

    @property
    def feasible(self) -> bool:
        return self.status in ("optimal", "unbounded")


def _as2d(A, n):
    if A is None:
        return None
    A = np.asarray(A, dtype=np.float64)
    if A.ndim != 2 or A.shape[1] != n:
        raise ParameterError(f"constraint matrix must have {n} columns, got shape {A.shape}")
    return A


def solve_lp(c, A_ub=None, b_ub=None, A_eq=None, b_eq=None, bounds=(0, None),
             backend: str = "highs") -> LPResult:
    """Solve the LP above with ``backend`` "highs" (SciPy) or "cvxpy" (reference)."""
    c = np.asarray(c, dtype=np.float64)
    n = c.shape[0]
    A_ub, A_eq = _as2d(A_ub, n), _as2d(A_eq, n)
    t0 = time.perf_counter()
    if backend == "highs":
        from scipy.optimize import linprog
        res = linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq, bounds=bounds, method="highs")
        status = {0: "optimal", 2: "infeasible", 3: "unbounded"}.get(res.status, "error")
        eq_d = getattr(getattr(res, "eqlin", None), "marginals", None)
        ub_d = getattr(getattr(res, "ineqlin", None), "marginals", None)
        return LPResult(status, res.x if res.x is not None and status == "optimal" else None,
                        float(res.fun) if status == "optimal" else None, "highs",
                        time.perf_counter() - t0,
                        None if eq_d is None else np.asarray(eq_d),
                        None if ub_d is None else np.asarray(ub_d), str(res.message))
    if backend == "cvxpy":
        import cvxpy as cp
        x = cp.Variable(n)
        cons = []
        if A_ub is not None:
            cons.append(A_ub @ x <= np.asarray(b_ub, dtype=np.float64))
        if A_eq is not None:
            cons.append(A_eq @ x == np.asarray(b_eq, dtype=np.float64))
        bl = [bounds] * n if isinstance(bounds, tuple) else list(bounds)
        lo = np.array([-np.inf if b[0] is None else b[0] for b in bl], dtype=np.float64)
        hi = np.array([np.inf if b[1] is None else b[1] for b in bl], dtype=np.float64)
        if np.any(np.isfinite(lo)):
            k = np.flatnonzero(np.isfinite(lo))
            cons.append(x[k] >= lo[k])
        if np.any(np.isfinite(hi)):
            k = np.flatnonzero(np.isfinite(hi))
            cons.append(x[k] <= hi[k])
        prob = cp.Problem(cp.Minimize(c @ x), cons)
        try:
            prob.solve(solver="CLARABEL")
        except cp.error.SolverError as exc:
            return LPResult("error", None, None, "cvxpy", time.perf_counter() - t0, message=str(exc))
        st = prob.status
        status = ("optimal" if st in ("optimal", "optimal_inaccurate") else
                  "infeasible" if st.startswith("infeasible") else
                  "unbounded" if st.startswith("unbounded") else "error")
        return LPResult(status, None if x.value is None or status != "optimal" else np.asarray(x.value),
                        float(prob.value) if status == "optimal" else None, "cvxpy",
                        time.perf_counter() - t0, message=st)
    raise ParameterError(f"LP backend must be 'highs' or 'cvxpy', not {backend!r}")

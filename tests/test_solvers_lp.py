"""LPs: HiGHS (SciPy) against the cvxpy reference, status detection and dual certificates."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from svmviz.errors import ParameterError
from svmviz.solvers.lp import solve_lp

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def feasible_lps(draw):
    """Bounded feasible LPs: a random point x0 in the box defines b_ub ≥ A_ub x0, b_eq = A_eq x0."""
    rng = np.random.default_rng(draw(st.integers(0, 2**31 - 1)))
    n = draw(st.integers(1, 12))
    m_ub, m_eq = draw(st.integers(0, 8)), draw(st.integers(0, min(n, 4)))
    lo = rng.uniform(-2, 0, size=n)
    hi = lo + rng.uniform(0.5, 3, size=n)
    x0 = lo + rng.random(n) * (hi - lo)
    A_ub = rng.normal(size=(m_ub, n)) if m_ub else None
    b_ub = A_ub @ x0 + rng.uniform(0, 1, size=m_ub) if m_ub else None
    A_eq = rng.normal(size=(m_eq, n)) if m_eq else None
    b_eq = A_eq @ x0 if m_eq else None
    return rng.normal(size=n), A_ub, b_ub, A_eq, b_eq, list(zip(lo, hi))


@SETTINGS
@given(feasible_lps())
def test_highs_matches_cvxpy(lp):
    c, A_ub, b_ub, A_eq, b_eq, bounds = lp
    h = solve_lp(c, A_ub, b_ub, A_eq, b_eq, bounds, backend="highs")
    r = solve_lp(c, A_ub, b_ub, A_eq, b_eq, bounds, backend="cvxpy")
    assert h.status == r.status == "optimal"
    assert h.objective == pytest.approx(r.objective, rel=1e-6, abs=1e-6)
    x = h.x
    assert c @ x == pytest.approx(h.objective, abs=1e-9)
    lo, hi = np.array(bounds).T
    assert np.all(x >= lo - 1e-9) and np.all(x <= hi + 1e-9)
    if A_ub is not None:
        assert np.all(A_ub @ x <= b_ub + 1e-7)
    if A_eq is not None:
        np.testing.assert_allclose(A_eq @ x, b_eq, atol=1e-7)


def test_equality_duals_certify_optimality():
    """min cᵀx, Ax = b, x ≥ 0: the HiGHS marginals y give reduced costs c − Aᵀy ≥ 0 that vanish
    where x > 0, and bᵀy equals the optimum (strong duality)."""
    rng = np.random.default_rng(4)
    A = rng.uniform(0.1, 1.0, size=(3, 8))
    b = A @ rng.uniform(0.0, 1.0, size=8)
    c = rng.uniform(0.5, 2.0, size=8)
    res = solve_lp(c, A_eq=A, b_eq=b)
    y = res.eq_duals
    reduced = c - A.T @ y
    assert np.all(reduced >= -1e-9)
    assert np.all(np.abs(reduced * res.x) <= 1e-9)
    assert b @ y == pytest.approx(res.objective, rel=1e-9)


@pytest.mark.parametrize("backend", ["highs", "cvxpy"])
def test_infeasible_and_unbounded_are_reported(backend):
    # x1 + x2 = 3 with 0 ≤ x ≤ 1: infeasible
    bad = solve_lp([1.0, 1.0], A_eq=[[1.0, 1.0]], b_eq=[3.0], bounds=(0, 1), backend=backend)
    assert bad.status == "infeasible" and not bad.feasible and bad.x is None
    # min −x1 with x ≥ 0 only: unbounded
    unb = solve_lp([-1.0, 0.0], bounds=(0, None), backend=backend)
    assert unb.status == "unbounded" and unb.feasible


def test_bad_input_is_explained():
    with pytest.raises(ParameterError, match="must have 2 columns"):
        solve_lp([1.0, 2.0], A_ub=[[1.0, 2.0, 3.0]], b_ub=[1.0])
    with pytest.raises(ParameterError, match="LP backend"):
        solve_lp([1.0], backend="simplex-by-hand")

"""SMO against the cvxpy reference on every constraint kind, KKT at the SMO solution, the
implicit-column/cache path against the dense path, and the errors raised before solving."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from svmviz.errors import (InfeasibleProblemError, ParameterError, ProblemTooLargeError,
                           SvmvizError)
from svmviz.kernels import Kernel
from svmviz.solvers import QPProblem, kkt, solve_qp

SETTINGS = settings(max_examples=30, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
# the sigmoid kernel is not positive semi-definite, so the QP is not convex and the cvxpy
# reference does not apply; it is checked against LIBSVM in test_svc.py
KERNELS = [Kernel("linear"), Kernel("rbf", 0.7), Kernel("poly", 0.5, 2, 1.0)]


def _agree(problem, backend="smo", **opts):
    """SMO at tol 1e-6 matches cvxpy's objective to 1e-5 relative and satisfies KKT."""
    smo = solve_qp(problem, backend=backend, tol=1e-6, **opts)
    ref = solve_qp(problem, backend="cvxpy")
    scale = max(1.0, abs(ref.objective))
    assert smo.converged
    assert abs(smo.objective - ref.objective) <= 1e-5 * scale, (smo.objective, ref.objective)
    # the objective reported is the one at alpha, and alpha is feasible
    assert smo.objective == pytest.approx(problem.objective(smo.alpha), rel=1e-9, abs=1e-12)
    assert np.all(smo.alpha >= problem.lower) and np.all(smo.alpha <= problem.upper)
    for g in range(problem.n_groups):
        idx = problem.groups == g
        assert problem.eq_signs[idx] @ smo.alpha[idx] == pytest.approx(problem.eq_rhs[g], abs=1e-9)
    fixed = problem.lower == problem.upper
    assert np.array_equal(smo.alpha[fixed], problem.lower[fixed])
    assert kkt.max_violation(problem, smo.alpha) <= 1e-5
    assert (smo.history["max_violation"][-1] if smo.history else smo.max_violation) <= 1e-6
    return smo, ref


def _data(draw, n_min=4, n_max=30, d_max=3):
    n = draw(st.integers(n_min, n_max))
    d = draw(st.integers(1, d_max))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    y[0], y[1] = 1.0, -1.0
    return rng, X, y


@st.composite
def c_svm_problems(draw):
    rng, X, y = _data(draw)
    kernel = draw(st.sampled_from(KERNELS))
    C = draw(st.sampled_from([0.1, 1.0, 10.0]))
    per_sample = draw(st.booleans())
    upper = C * rng.uniform(0.5, 2.0, size=y.size) if per_sample else C
    return QPProblem.c_svm(y, upper, kernel=kernel, X=X)


@st.composite
def h1_problems(draw):
    """H1-SVM of Zapién Arreola, Fehr and Burkhardt (2007): the other class fixed at α = 1, the
    hard class α ≥ 0 (U = inf)."""
    rng, X, y = _data(draw)
    kernel = draw(st.sampled_from(KERNELS))
    hard = y > 0
    lower = np.where(hard, 0.0, 1.0)
    upper = np.where(hard, np.inf, 1.0)
    return QPProblem(p=-np.ones(y.size), lower=lower, upper=upper, kernel=kernel, X=X, signs=y,
                     groups=np.zeros(y.size, dtype=np.int64), eq_signs=y, eq_rhs=[0.0])


@st.composite
def nu_problems(draw):
    """Reduced convex hulls / ν-SVM: one group per class, Σ_{i∈c} α_i = 1, 0 ≤ α ≤ μ."""
    rng, X, y = _data(draw)
    kernel = draw(st.sampled_from(KERNELS))
    m_small = min(np.sum(y > 0), np.sum(y < 0))
    mu = draw(st.floats(1.0 / m_small, 1.0))
    groups = (y < 0).astype(np.int64)
    return QPProblem(p=np.zeros(y.size), lower=0.0, upper=mu, kernel=kernel, X=X, signs=y,
                     groups=groups, eq_signs=np.ones(y.size), eq_rhs=[1.0, 1.0])


@st.composite
def scatter_problems(draw):
    """Scatter SVM (Jenssen et al. 2012): C-form without bias (no group) or ν-form with one group per
    class, Q_ij = k(x_i, x_j)(δ_{c_i c_j} − 1/K)."""
    rng, X, _ = _data(draw, n_min=6)
    K = draw(st.integers(2, 4))
    classes = np.arange(X.shape[0]) % K
    kernel = draw(st.sampled_from(KERNELS))
    if draw(st.booleans()):
        return QPProblem(p=-np.ones(X.shape[0]), lower=0.0, upper=draw(st.sampled_from([0.5, 2.0])),
                         kernel=kernel, X=X, scatter_classes=classes, n_classes=K)
    mu = 1.0 / np.bincount(classes).min() * draw(st.floats(1.0, 3.0))
    return QPProblem(p=np.zeros(X.shape[0]), lower=0.0, upper=mu, kernel=kernel, X=X,
                     scatter_classes=classes, n_classes=K, groups=classes,
                     eq_signs=np.ones(X.shape[0]), eq_rhs=np.ones(K))


@st.composite
def general_problems(draw):
    """Dense positive definite Q, lower bounds ≠ 0, U = inf, fixed variables, mixed signs, some
    variables in no group, and several groups whose right-hand sides come from a feasible point."""
    n = draw(st.integers(2, 25))
    rng = np.random.default_rng(draw(st.integers(0, 2**31 - 1)))
    A = rng.normal(size=(n, n))
    Q = A @ A.T / n + 0.05 * np.eye(n)
    lower = rng.uniform(-1.0, 0.5, size=n)
    width = rng.uniform(0.0, 2.0, size=n)
    width[rng.random(n) < 0.15] = 0.0          # fixed variables
    upper = lower + width
    upper[rng.random(n) < 0.2] = np.inf         # unbounded above
    n_groups = min(draw(st.integers(0, 3)), n)
    groups = rng.integers(-1, n_groups, size=n) if n_groups else np.full(n, -1)
    for g in range(n_groups):                   # every group has a member
        groups[g % n] = g
    signs = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    x0 = np.where(np.isfinite(upper), lower + rng.random(n) * (upper - lower), lower + rng.random(n))
    rhs = [float(signs[groups == g] @ x0[groups == g]) for g in range(n_groups)]
    p = rng.normal(size=n) * 2
    return QPProblem(p=p, lower=lower, upper=upper, Q=Q, groups=groups, eq_signs=signs,
                     eq_rhs=rhs)


@SETTINGS
@given(c_svm_problems())
def test_c_svm_matches_cvxpy(problem):
    _agree(problem)


@SETTINGS
@given(h1_problems())
def test_fixed_variables_and_unbounded_upper(problem):
    _agree(problem)


@SETTINGS
@given(st.one_of(c_svm_problems(), h1_problems()))
def test_dense_smo_matches_cvxpy(problem):
    """The solver object behind the SVM tree's node QPs, through ``solve_qp``: the C-SVM and the
    H1-SVM (fixed variables, U = inf), with ρ as the general backend's."""
    dense, _ = _agree(problem, backend="dense-smo")
    general = solve_qp(problem, backend="smo", tol=1e-6)
    assert dense.backend == "dense-smo"
    assert dense.objective == pytest.approx(general.objective, rel=1e-5, abs=1e-7)


def test_dense_smo_object_reuses_its_q_across_bounds_and_warm_starts():
    """One ``DenseSMO`` per Q, many solves (as the tree's C_k tries): each from a warm start
    equals a cold solve through ``solve_qp`` and the cvxpy reference."""
    from svmviz.solvers.dense_smo import DenseSMO

    rng = np.random.default_rng(5)
    X = rng.normal(size=(50, 3))
    y = np.where(X[:, 0] + 0.8 * rng.normal(size=50) > 0, 1.0, -1.0)
    Qy = (X @ X.T) * np.outer(y, y)
    hard = y > 0
    m_h, m_o = int(hard.sum()), int((~hard).sum())
    solver = DenseSMO(Qy)
    cases = [(np.zeros(50), np.where(hard, C, 1.0), np.zeros(50)) for C in (1000.0, 1.0, 0.05)]
    # the bounded H1-SVM: the other class fixed at 1, started at hard α = m_o / m_h
    cases.append((np.where(hard, 0.0, 1.0), np.where(hard, 3.0, 1.0), np.where(hard, m_o / m_h, 1.0)))
    for lower, upper, start in cases:
        res = solver.solve(y, lower, upper, start, 1e-7)
        problem = QPProblem(p=-np.ones(50), lower=lower, upper=upper, Q=Qy,
                            groups=np.zeros(50, dtype=np.int64), eq_signs=y, eq_rhs=np.zeros(1))
        ref = solve_qp(problem, backend="cvxpy", tol=1e-9)
        assert res.converged and abs(y @ res.alpha) < 1e-9
        assert np.all(res.alpha >= lower - 1e-12) and np.all(res.alpha <= upper + 1e-12)
        assert res.objective == pytest.approx(problem.objective(res.alpha), rel=1e-9)
        assert res.objective == pytest.approx(ref.objective, rel=1e-6, abs=1e-7)
        np.testing.assert_allclose(X.T @ (res.alpha * y), X.T @ (ref.alpha * y), atol=1e-3)
        # the signs may be flipped as a whole (the tree passes hc·y): Q is the same, so is the optimum
        flipped = solver.solve(-y, lower, upper, start, 1e-7)
        assert flipped.converged and flipped.objective == pytest.approx(res.objective, rel=1e-6, abs=1e-7)


def test_dense_smo_refuses_what_it_does_not_solve():
    problem = QPProblem(p=np.zeros(4), lower=0.0, upper=1.0, Q=np.eye(4), groups=np.array([0, 0, 1, 1]),
                        eq_signs=np.ones(4), eq_rhs=[1.0, 1.0])
    with pytest.raises(ParameterError, match="dense-smo backend solves one equality group"):
        solve_qp(problem, backend="dense-smo")


@SETTINGS
@given(nu_problems())
def test_per_class_groups(problem):
    _agree(problem)


@pytest.mark.parametrize("rhs, mixed", [((1.0, 1.0), [0, 1, 1, 1]),    # α₀ alone in its group
                                         ((1.0, 3.0), [0, 1, 1, 1]),    # group 1 at its upper end
                                         ((0.0, 1.0), [0, 0, 1, 1])])   # group 0 at its lower end
def test_reference_handles_variables_pinned_by_their_group(rhs, mixed):
    """Hypothesis found α₀ ∈ [0, 1] with α₀ = 1 as its own group: Clarabel found no interior and
    failed. The reference now treats such variables as equalities, as it does L = U."""
    X = np.array([[-0.28462415], [0.50054951], [0.83611738], [-0.31575873]])
    problem = QPProblem(p=np.zeros(4), lower=np.zeros(4), upper=np.ones(4),
                        kernel=Kernel("poly", gamma=0.5, degree=2, coef0=1.0), X=X,
                        signs=np.array([1.0, -1.0, -1.0, -1.0]), groups=np.array(mixed),
                        eq_signs=np.ones(4), eq_rhs=np.array(rhs))
    smo, ref = _agree(problem)
    assert ref.converged


@SETTINGS
@given(scatter_problems())
def test_scatter_structure(problem):
    smo, _ = _agree(problem)
    # the cached implicit-column path reaches the same optimum as the dense one (α itself need
    # not be unique: the Scatter Q is singular)
    cached = solve_qp(problem, backend="smo", tol=1e-6, dense_mb=0, cache_mb=1e-4)
    assert cached.objective == pytest.approx(smo.objective, rel=1e-9, abs=1e-12)
    assert kkt.max_violation(problem, cached.alpha) <= 1e-5


@SETTINGS
@given(general_problems())
def test_general_bounds_groups_and_single_variables(problem):
    _agree(problem)


@pytest.mark.parametrize("shrinking", [True, False])
def test_cache_path_equals_dense_path(shrinking):
    """A tiny dense budget forces columns on demand; a tiny cache forces LRU evictions and
    partial (shrunk) columns to be extended."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(1500, 4))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=1500) > 0, 1.0, -1.0)
    problem = QPProblem.c_svm(y, 1.0, kernel=Kernel("rbf", 0.5), X=X)
    dense = solve_qp(problem, backend="smo", tol=1e-3, dense_mb=100, shrinking=shrinking)
    cached = solve_qp(problem, backend="smo", tol=1e-3, dense_mb=0, cache_mb=0.5,
                      shrinking=shrinking)
    assert cached.n_iter == dense.n_iter
    np.testing.assert_allclose(cached.alpha, dense.alpha, atol=1e-9)
    assert cached.rho == pytest.approx(dense.rho, abs=1e-9)
    assert kkt.max_violation(problem, dense.alpha) <= 1e-3


def test_shrinking_with_groups_and_single_variables():
    """A larger general problem (three groups, variables in no group, L ≠ 0, U = inf, fixed
    variables) runs through shrinking, unshrinking and gradient reconstruction."""
    rng = np.random.default_rng(11)
    n = 400
    X = rng.normal(size=(n, 3))
    groups = rng.integers(-1, 3, size=n)
    lower = np.where(rng.random(n) < 0.3, -0.5, 0.0)
    upper = np.where(rng.random(n) < 0.2, np.inf, lower + 1.0)
    upper[:10] = lower[:10]                                     # fixed
    signs = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    x0 = np.where(np.isfinite(upper), (lower + upper) / 2, lower + 0.5)
    rhs = [float(signs[groups == g] @ x0[groups == g]) for g in range(3)]
    problem = QPProblem(p=-np.ones(n) + 0.3 * rng.normal(size=n), lower=lower, upper=upper,
                        kernel=Kernel("rbf", 0.5), X=X, groups=groups, eq_signs=signs,
                        eq_rhs=rhs)
    ref = solve_qp(problem, backend="cvxpy")
    for shrinking in (True, False):
        res = solve_qp(problem, tol=1e-6, shrinking=shrinking)
        assert res.converged
        assert res.objective == pytest.approx(ref.objective, rel=1e-6)
        assert kkt.max_violation(problem, res.alpha) <= 1e-5
        np.testing.assert_allclose(res.gradient, problem.gradient(res.alpha), atol=1e-9)


def test_history_is_recorded_and_decreasing_objective():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 2))
    y = np.where(X[:, 0] * X[:, 1] > 0, 1.0, -1.0)
    res = solve_qp(QPProblem.c_svm(y, 10.0, kernel=Kernel("rbf", 1.0), X=X), tol=1e-5)
    h = res.history
    assert len(h["iteration"]) == len(h["max_violation"]) == len(h["objective"]) >= 10
    assert h["iteration"][-1] == res.n_iter
    assert np.all(np.diff(h["objective"]) <= 1e-12)   # SMO decreases f at every step
    assert h["max_violation"][-1] <= 1e-5 < h["max_violation"][0]


def test_alpha0_is_used_and_checked():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 2))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    problem = QPProblem.c_svm(y, 1.0, kernel=Kernel("linear"), X=X)
    first = solve_qp(problem, tol=1e-6)
    warm = solve_qp(problem, tol=1e-6, alpha0=first.alpha)
    assert warm.n_iter == 0 and warm.objective == pytest.approx(first.objective)
    with pytest.raises(SvmvizError, match="group"):
        solve_qp(problem, alpha0=np.where(y > 0, 0.5, 0.0))


def test_infeasible_group_raises_before_solving():
    with pytest.raises(InfeasibleProblemError, match="group 0"):
        QPProblem(p=np.zeros(3), lower=0.0, upper=1.0, Q=np.eye(3),
                  groups=np.zeros(3, dtype=np.int64), eq_rhs=[5.0])
    with pytest.raises(InfeasibleProblemError, match="lower bound"):
        QPProblem(p=np.zeros(2), lower=[0.0, 2.0], upper=[1.0, 1.0], Q=np.eye(2))


_EYE3 = np.eye(3)
_BAD_PROBLEMS = [
    (dict(p=[0.0, np.nan, 0.0]), ParameterError, "p, lower and upper must not contain NaN"),
    (dict(upper=[1.0, np.nan, 1.0]), ParameterError, "p, lower and upper must not contain NaN"),
    (dict(lower=[0.0, -np.inf, 0.0]), ParameterError, "lower bounds must be finite"),
    (dict(eq_signs=[1.0, 2.0, 1.0], groups=[0, 0, 0]), ParameterError,
     "eq_signs must be +1 or -1"),
    (dict(lower=[0.0, 2.0, 0.0]), InfeasibleProblemError,
     "variable 1 has lower bound 2 above its upper bound 1"),
    (dict(groups=[0, 0, 2], eq_rhs=[0.0, 0.0, 0.0]), InfeasibleProblemError,
     "equality group 1 has no variables"),
    # a group of every variable, and one of some
    (dict(groups=[0, 0, 0], eq_signs=[1.0, -1.0, 1.0], eq_rhs=[2.5]), InfeasibleProblemError,
     "equality group 0 asks Σ s_i α_i = 2.5, but its bounds only reach [-1, 2]"),
    (dict(groups=[0, -1, 0], eq_rhs=[-0.5]), InfeasibleProblemError,
     "equality group 0 asks Σ s_i α_i = -0.5, but its bounds only reach [0, 2]"),
]


@pytest.mark.parametrize("change, error, message", _BAD_PROBLEMS)
def test_bad_problems_are_refused_with_their_message(change, error, message):
    """Every check of the problem's data, with its type and whole message (the checks take
    shortcuts for the usual C-SVM problem: the messages must not change)."""
    args = dict(p=np.zeros(3), lower=0.0, upper=1.0, Q=_EYE3) | change
    with pytest.raises(error) as err:
        QPProblem(**args)
    assert str(err.value) == message


def test_infinities_are_data_not_nan():
    """U = +inf and p = ±inf pass the NaN check, without a floating-point warning (they sum to
    NaN: the check must look at the entries)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        problem = QPProblem(p=[-np.inf, np.inf], lower=0.0, upper=[np.inf, 1.0], Q=np.eye(2))
    assert problem.upper[0] == np.inf and problem.p[0] == -np.inf


@pytest.mark.parametrize("groups", [[0, 0, 0, 0], [0, 0, -1, 0]])
def test_feasible_start_meets_a_group_of_every_or_some_variables(groups):
    """The greedy start closes the group's gap one variable at a time, in index order."""
    problem = QPProblem(p=np.zeros(4), lower=0.0, upper=1.0, Q=np.eye(4), groups=groups,
                        eq_signs=[1.0, -1.0, 1.0, 1.0], eq_rhs=[1.5])
    alpha = problem.feasible_start()
    members = np.asarray(groups) == 0
    assert problem.eq_signs[members] @ alpha[members] == 1.5
    want = [1.0, 0.0, 0.5, 0.0] if groups[2] == 0 else [1.0, 0.0, 0.0, 0.5]
    np.testing.assert_array_equal(alpha, want)


def test_unbounded_objective_is_reported():
    problem = QPProblem(p=[-1.0, 0.0], lower=0.0, upper=np.inf, Q=np.zeros((2, 2)))
    with pytest.raises(SvmvizError, match="unbounded"):
        solve_qp(problem)


def test_cvxpy_size_limit():
    X = np.random.default_rng(0).normal(size=(60, 2))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    with pytest.raises(ProblemTooLargeError, match="limited to 50"):
        solve_qp(QPProblem.c_svm(y, 1.0, kernel=Kernel("rbf", 1.0), X=X), backend="cvxpy",
                 max_n=50)


@pytest.mark.parametrize("case", ["duplicates", "all_at_bound", "n2", "rank_deficient"])
def test_edge_cases(case):
    rng = np.random.default_rng(7)
    if case == "duplicates":
        X = np.repeat(rng.normal(size=(10, 2)), 3, axis=0)
        y = np.where(np.arange(30) % 2 == 0, 1.0, -1.0)     # identical points, opposite labels
        problem = QPProblem.c_svm(y, 1.0, kernel=Kernel("rbf", 1.0), X=X)
    elif case == "all_at_bound":
        X = rng.normal(size=(20, 2))
        y = np.where(np.arange(20) % 2 == 0, 1.0, -1.0)
        problem = QPProblem.c_svm(y, 1e-3, kernel=Kernel("linear"), X=X)
    elif case == "n2":
        problem = QPProblem.c_svm([1.0, -1.0], 1.0, kernel=Kernel("linear"),
                                  X=np.array([[0.0], [1.0]]))
    else:
        X = rng.normal(size=(30, 1)) @ np.ones((1, 3))      # rank-one linear Gram matrix
        y = np.where(X[:, 0] + 0.3 * rng.normal(size=30) > 0, 1.0, -1.0)
        problem = QPProblem.c_svm(y, 1.0, kernel=Kernel("linear"), X=X)
    smo, _ = _agree(problem)
    if case == "all_at_bound":
        assert np.allclose(smo.alpha, 1e-3)
    if case == "n2":
        np.testing.assert_allclose(smo.alpha, [1.0, 1.0])   # w = -1 x, margin 1 on both

"""The SMO solver: G_bar bookkeeping under shrinking, the iteration cap and
the progress callback, the recorded trace and its replay, traced estimators, linear prediction
through coef_."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning

from svmviz.errors import ConvergenceError, ParameterError
from svmviz.kernels import Kernel
from svmviz.models.svc import BinaryNuSVC, BinarySVC
from svmviz.solvers import QPProblem, kkt, smo, solve_qp
from tests.test_solvers_qp import c_svm_problems, general_problems, nu_problems, scatter_problems

SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _bounded_part(problem, alpha):
    """Σ_j b_j Q_j with b_j = α_j at a bound, 0 when free: G_bar from scratch."""
    at_bound = (alpha <= problem.lower) | (alpha >= problem.upper)
    return problem.Q_times(np.where(at_bound, alpha, 0.0))




@SETTINGS
@given(st.one_of(c_svm_problems(), nu_problems(), scatter_problems(), general_problems()),
       st.integers(1, 6), st.integers(1, 400), st.sampled_from([1e-4, 1.0]))
def test_gbar_and_gradient_after_random_shrinking(problem, shrink_every, cap, cache_mb):
    """Shrinking every few iterations, stopped at a random iteration, with a cache small enough
    to evict and truncate columns: G_bar and G equal their from-scratch values."""
    internals = {}
    res = solve_qp(problem, tol=1e-6, dense_mb=0, cache_mb=cache_mb,
                        shrink_every=shrink_every, max_iter=cap, _internals=internals)
    scale = 1e-9 * max(1.0, float(np.max(np.abs(res.gradient))))
    np.testing.assert_allclose(res.gradient, problem.gradient(res.alpha), atol=scale * 10)
    np.testing.assert_allclose(internals["G_bar"], _bounded_part(problem, res.alpha),
                               atol=scale * 10)
    # the same run without shrinking reaches the same objective when both converge
    if res.converged:
        plain = solve_qp(problem, tol=1e-6, shrinking=False)
        assert res.objective == pytest.approx(plain.objective, rel=1e-6, abs=1e-9)


@SETTINGS
@given(st.one_of(c_svm_problems(), nu_problems(), scatter_problems(), general_problems()),
       st.booleans())
def test_slot_per_column_follows_the_lru_cache(problem, shrinking):
    """A cache with a slot per column (no LRU order kept) and one of a few slots (evictions,
    truncated prefixes) hand the solver the same Q entries: same iterates, same α, bit for bit."""
    assume(problem.n > 4)   # 1e-4 MB holds the minimum of 4 slots: then evictions happen
    runs = [solve_qp(problem, tol=1e-6, dense_mb=0, cache_mb=mb, shrinking=shrinking,
                     shrink_every=3, trace=True, max_trace=10**6) for mb in (1.0, 1e-4)]
    np.testing.assert_array_equal(runs[0].trace.pairs, runs[1].trace.pairs)
    np.testing.assert_array_equal(runs[0].alpha, runs[1].alpha)
    np.testing.assert_array_equal(runs[0].gradient, runs[1].gradient)


def test_first_pair_follows_libsvm_order_and_signs():
    """One equality group: SMO starts from LIBSVM's order and signs (svm_group_classes: the
    s = −1 samples first, with y = +1), so WSS2's ties go as in LIBSVM. From α = 0 every G_t = −1:
    i is the last s = −1 sample; j the s = +1 sample with the smallest K_ii + K_jj − 2K_ij, the
    last one among ties."""
    rng = np.random.default_rng(3)
    X = np.round(rng.normal(size=(40, 2)), 1)
    s = np.where(np.arange(40) % 2 == 0, -1.0, 1.0)   # the classes interleaved
    X[38] = [0.0, 0.0]                       # the last s = −1 sample
    X[[25, 31, 37]] = [0.05, 0.05]           # its nearest s = +1 samples, three copies: a tie
    k = Kernel("rbf", 0.5)
    res = solve_qp(QPProblem.c_svm(s, 1.0, kernel=k, X=X), trace=True, max_trace=1)
    pos = np.flatnonzero(s > 0)
    quad = 2.0 - 2.0 * k.gram(X[[38]], X[pos])[0]
    assert list(pos[quad == quad.min()]) == [25, 31, 37]
    assert tuple(res.trace.pairs[0]) == (38, 37)


def _hard_problem():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(300, 3))
    y = np.where(X[:, 0] + 0.4 * rng.normal(size=300) > 0, 1.0, -1.0)
    return QPProblem.c_svm(y, 100.0, kernel=Kernel("rbf", 1.0), X=X)


def test_cap_reports_or_raises_with_the_unconverged_result():
    problem = _hard_problem()
    with pytest.raises(ConvergenceError, match="max_iter = 20") as info:
        solve_qp(problem, tol=1e-3, max_iter=20, on_cap="raise")
    res = info.value.result
    assert not res.converged and res.n_iter == 20
    returned = solve_qp(problem, tol=1e-3, max_iter=20)
    np.testing.assert_array_equal(returned.alpha, res.alpha)
    assert not returned.converged and returned.max_violation == res.max_violation
    assert res.max_violation == pytest.approx(kkt.max_violation(problem, res.alpha, res.gradient))
    assert res.max_violation > 1e-3
    full = solve_qp(problem, tol=1e-3)   # no default cap: runs to convergence
    assert full.converged and full.n_iter > 20 and full.max_violation <= 1e-3


class _Stop(Exception):
    pass


def test_progress_reports_iterations_and_a_raise_stops_the_solve(monkeypatch):
    problem = _hard_problem()
    monkeypatch.setattr(smo, "CHUNK", 50)
    seen = []

    def progress(done, total):
        seen.append((done, total))
        if len(seen) == 3:
            raise _Stop

    with pytest.raises(_Stop):
        solve_qp(problem, tol=1e-6, progress=progress)
    assert seen == [(50, 0), (100, 0), (150, 0)]      # total 0: uncapped
    seen.clear()
    solve_qp(problem, tol=1e-6, max_iter=120, progress=lambda d, t: seen.append((d, t)))
    assert seen == [(50, 120), (100, 120)]
    # chunked runs follow the same iterates as one run
    ref = solve_qp(problem, tol=1e-6)
    chunked = solve_qp(problem, tol=1e-6, progress=lambda *a: None)
    np.testing.assert_array_equal(chunked.alpha, ref.alpha)


@pytest.mark.parametrize("backend", ["smo", "cvxpy"])
def test_a_backend_refuses_an_option_it_does_not_know(backend):
    problem = _hard_problem()
    with pytest.raises(TypeError, match="callback"):
        solve_qp(problem, backend=backend, callback=lambda *a: None)
    with pytest.raises(TypeError, match="cahce_mb"):
        solve_qp(problem, backend=backend, cahce_mb=100)


def test_bad_options_are_explained():
    problem = _hard_problem()
    with pytest.raises(ParameterError, match="max_trace"):
        solve_qp(problem, trace=True, max_trace=0)
    with pytest.raises(ParameterError, match="max_iter"):
        solve_qp(problem, max_iter=-1)
    with pytest.raises(ParameterError, match="on_cap"):
        solve_qp(problem, on_cap="ignore")


@SETTINGS
@given(st.one_of(c_svm_problems(), nu_problems(), general_problems()), st.booleans())
def test_trace_replays_to_the_solution(problem, shrinking):
    plain = solve_qp(problem, tol=1e-5, shrinking=shrinking, dense_mb=0)
    traced = solve_qp(problem, tol=1e-5, shrinking=shrinking, dense_mb=0, trace=True,
                      max_trace=10**6)
    tr = traced.trace
    np.testing.assert_array_equal(traced.alpha, plain.alpha)   # recording changes nothing
    assert traced.n_iter == plain.n_iter == len(tr) and not tr.truncated
    np.testing.assert_array_equal(tr.alpha_at(len(tr)), traced.alpha)
    np.testing.assert_array_equal(tr.alpha_at(0), tr.alpha0)
    for t in sorted({0, len(tr) // 2, max(len(tr) - 1, 0)}):
        if t >= len(tr):
            continue
        a = tr.alpha_at(t)
        i, j = tr.pairs[t]
        assert a[i] == tr.alpha_before[t, 0]          # pairs are original indices
        if j >= 0:
            assert a[j] == tr.alpha_before[t, 1]
        after = tr.alpha_at(t + 1)
        assert problem.objective(after) == pytest.approx(tr.objective[t], rel=1e-7, abs=1e-9)
    assert np.all(np.diff(np.r_[tr.objective0, tr.objective]) <= 1e-9)
    assert np.all(tr.max_violation > 1e-5)             # every recorded step was needed


def test_trace_is_bounded_and_records_shrinking():
    problem = _hard_problem()
    full = solve_qp(problem, tol=1e-3, trace=True)
    assert full.trace.shrink_events.shape[0] >= 1
    assert np.all(full.trace.shrink_events[:, 1] <= problem.n)
    short = solve_qp(problem, tol=1e-3, trace=True, max_trace=7)
    assert len(short.trace) == 7 and short.trace.truncated
    np.testing.assert_array_equal(short.alpha, full.alpha)
    np.testing.assert_array_equal(short.trace.alpha_at(7), full.trace.alpha_at(7))
    with pytest.raises(IndexError):
        short.trace.alpha_at(8)


def _blobs(n=60, seed=0):
    rng = np.random.default_rng(seed)
    X = np.r_[rng.normal(size=(n // 2, 2)) + [1.5, 1.0], rng.normal(size=(n // 2, 2)) - [1.5, 1.0]]
    y = np.r_[np.ones(n // 2), np.zeros(n // 2)].astype(int)
    return X, y


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_svc_iterates_end_at_the_fitted_model(kernel):
    X, y = _blobs()
    m = BinarySVC(C=2.0, kernel=kernel, gamma=0.5, tol=1e-5, trace=True).fit(X, y)
    plain = BinarySVC(C=2.0, kernel=kernel, gamma=0.5, tol=1e-5).fit(X, y)
    np.testing.assert_array_equal(m.alpha_, plain.alpha_)
    last = m.iterate_at(len(m.trace_))
    np.testing.assert_allclose(last.decision_function(X), m.decision_function(X), atol=1e-9)
    assert last.max_violation <= 1e-5 + 1e-12
    first = m.iterate_at(1)
    assert first.pair == tuple(m.trace_.pairs[0]) and m.iterate_at(0).pair is None
    assert first.objective > last.objective
    with pytest.raises(ParameterError, match="between 0 and"):
        m.iterate_at(len(m.trace_) + 1)
    with pytest.raises(ParameterError, match="trace=True"):
        plain.iterate_at(0)


def test_nusvc_iterates_show_the_reduced_hull_points():
    X, y = _blobs(seed=2)
    m = BinaryNuSVC(nu=0.3, kernel="linear", tol=1e-6, trace=True).fit(X, y)
    start, last = m.iterate_at(0), m.iterate_at(len(m.trace_))
    np.testing.assert_allclose(last.decision_function(X), m.decision_function(X), atol=1e-8)
    for it in (start, last):
        lam = it.alpha
        assert lam[m.trace_data_["y"] > 0].sum() == pytest.approx(1.0)
        assert lam.max() <= m.mu_ + 1e-12
    p_pos, p_neg = last.hull_points
    # at the optimum w ∝ p₊ − p₋ (nearest points of the reduced hulls), positive side = class 1
    w = m.coef_[0]
    cos = w @ (p_pos - p_neg) / np.linalg.norm(w) / np.linalg.norm(p_pos - p_neg)
    assert cos == pytest.approx(1.0, abs=1e-6)
    assert 0.5 * np.sum((p_pos - p_neg) ** 2) == pytest.approx(last.objective, rel=1e-9)


def test_linear_prediction_through_coef():
    X, y = _blobs(80, seed=4)
    m = BinarySVC(C=1.0, kernel="linear").fit(X, y)
    via_kernel = Kernel("linear").gram(X, m.support_vectors_) @ m.dual_coef_[0] + m.intercept_[0]
    np.testing.assert_allclose(m.decision_function(X), via_kernel, atol=1e-10)
    np.testing.assert_allclose(m.coef_, m.dual_coef_ @ m.support_vectors_)


def test_estimator_warns_at_an_explicit_cap():
    X, y = _blobs(200, seed=6)
    with pytest.warns(ConvergenceWarning, match="max KKT violation .* max_iter"):
        m = BinarySVC(C=100.0, max_iter=3, tol=1e-6).fit(X, y)
    assert not m.converged_ and m.max_violation_ > 1e-6
    with pytest.raises(ParameterError, match="solver='smo'"):
        BinarySVC(solver="cvxpy", trace=True).fit(X, y)


@pytest.mark.parametrize("Est, params", [(BinarySVC, {"C": 5.0}), (BinaryNuSVC, {"nu": 0.4})])
def test_trace_curves_in_the_model_scale(Est, params):
    X, y = _blobs(40, seed=8)
    m = Est(kernel="rbf", gamma=0.7, tol=1e-4, trace=True, **params).fit(X, y)
    c = m.trace_curves()
    T = len(m.trace_)
    assert c["iteration"].shape == c["objective"].shape == c["max_violation"].shape == (T + 1,)
    assert c["objective"][-1] == pytest.approx(m.objective_, rel=1e-9)
    assert c["objective"][T // 2] == pytest.approx(m.iterate_at(T // 2).objective, rel=1e-9)
    assert c["max_violation"][-1] <= 1e-4 and c["max_violation"][0] > 1e-4


def test_traced_model_survives_save_and_load():
    from svmviz.export import dumps_model, loads_model

    X, y = _blobs(30, seed=9)
    m = BinaryNuSVC(nu=0.4, kernel="linear", trace=True).fit(X, y)
    back = loads_model(dumps_model(m))
    T = len(m.trace_)
    np.testing.assert_array_equal(back.iterate_at(T).alpha, m.iterate_at(T).alpha)
    np.testing.assert_allclose(back.decision_function(X), m.decision_function(X))


def _cache(n, size, w, lens, recency):
    """A cache of rows of w entries in a pool of ``size`` floats, every slot in use, slot k
    holding a random column c up to lens[k] (entry t = 1000 c + t); ``recency``: the slots, most
    recently used first, as the LRU ring."""
    ns = min(n, size // w)
    pool = np.full(size, np.nan)
    slot_of = np.full(n, -1, dtype=np.int64)
    owner = np.full(n, -1, dtype=np.int64)
    slen = np.zeros(n + 1, dtype=np.int64)
    prv = np.zeros(n + 1, dtype=np.int64)
    nxt = np.zeros(n + 1, dtype=np.int64)
    cols = np.random.default_rng(ns).permutation(n)[:ns]
    for k in range(ns):
        owner[k] = cols[k]
        slot_of[cols[k]] = k
        slen[k] = lens[k]
        pool[k * w:k * w + lens[k]] = cols[k] * 1000 + np.arange(lens[k])
    slen[ns] = ns
    prev = ns
    for k in recency:
        nxt[prev], prv[k], prev = k, prev, k
    nxt[prev], prv[ns] = ns, prev
    return pool, slot_of, owner, slen, prv, nxt


def _check_cache(pool, slot_of, owner, slen, w, ns, expect_lens):
    """Slots 0..used−1 are in use, by the columns of ``expect_lens``, each holding its prefix of
    the expected length."""
    used = int(slen[ns])
    assert used == len(expect_lens)
    assert sorted(owner[:used]) == sorted(expect_lens)
    for c, ln in expect_lens.items():
        k = slot_of[c]
        assert 0 <= k < used and owner[k] == c and slen[k] == ln
        np.testing.assert_array_equal(pool[k * w:k * w + ln], c * 1000 + np.arange(ln))
    assert np.count_nonzero(slot_of >= 0) == used


def _ring(nxt, ns):
    """The slots of the LRU ring, most recent first (ns: the sentinel)."""
    ring, k = [], nxt[ns]
    while k != ns:
        ring.append(int(k))
        k = nxt[k]
    return ring


def _repacked(n, size, w, w_new, rng, in_order=False):
    """A full cache of rows of w (``_cache``, random prefixes and recency, or recency in slot
    order) repacked to rows of w_new: (pool, slot_of, owner, slen, prv, nxt), lens, recency,
    the columns by old slot, the new slot count."""
    from svmviz.solvers._smo_cache import Cache, repack
    ns_old = min(n, size // w)
    lens = rng.integers(0, w + 1, size=ns_old)
    recency = np.arange(ns_old) if in_order else rng.permutation(ns_old)
    cache = _cache(n, size, w, lens, recency)
    cols = cache[2][:ns_old].copy()
    return cache, lens, recency, cols, repack(w_new, w, n, Cache(*cache))


def test_repack_cuts_and_widens_rows_in_place_keeping_the_recent_columns():
    """``repack`` (the cache rows follow the active size, as LIBSVM's columns do):
    cutting rows keeps every column's prefix up to the new width in more slots; widening them
    keeps the most recently used columns that fit, in recency order, with their prefixes."""
    rng = np.random.default_rng(0)
    # cut: 15 rows of 40 → 30 rows of 20 (all 15 columns stay, prefixes cut to 20)
    (pool, slot_of, owner, slen, prv, nxt), lens, recency, cols, ns = _repacked(60, 600, 40, 20, rng)
    assert ns == 30
    _check_cache(pool, slot_of, owner, slen, 20, ns, {c: min(ln, 20) for c, ln in zip(cols, lens)})
    ring = _ring(nxt, ns)
    assert sorted(ring) == list(range(30))   # every slot once
    assert [owner[k] for k in ring[:15]] == [cols[r] for r in recency]   # recency kept
    # widen: 30 rows of 20, all in use → 10 rows of 60: the 10 most recent columns stay
    (pool, slot_of, owner, slen, prv, nxt), lens, recency, cols, ns = _repacked(60, 600, 20, 60, rng)
    assert ns == 10
    recent = recency[:10]
    _check_cache(pool, slot_of, owner, slen, 60, ns, {cols[r]: lens[r] for r in recent})
    assert [owner[k] for k in _ring(nxt, ns)] == [cols[r] for r in recent]
    # a slot per column (no LRU order kept): widening keeps the first slots
    (pool, slot_of, owner, slen, prv, nxt), lens, _, cols, ns = _repacked(12, 72, 6, 12, rng,
                                                                            in_order=True)
    assert ns == 6
    _check_cache(pool, slot_of, owner, slen, 12, ns, {cols[k]: lens[k] for k in range(6)})


def test_rows_cut_to_the_active_size_give_the_same_solve_bit_for_bit():
    """A cache too small for the active columns cuts its rows to the active size (more slots,
    ``width_for``) and widens them for the final check; the Q entries are the same, so the
    iterates, α, G and G_bar equal those of a cache with a slot per column, bit for bit."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(600, 30))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=600) > 0, 1.0, -1.0)
    problem = QPProblem.c_svm(y, 10.0, kernel=Kernel("rbf", 0.02), X=X)
    small, full = {}, {}   # 0.1 MB: 21 slots of 600 entries for 600 columns
    runs = [solve_qp(problem, dense_mb=0, cache_mb=mb, shrink_every=50, trace=True,
                     max_trace=10**6, _internals=d) for mb, d in ((0.1, small), (50.0, full))]
    # the small cache cut its rows to under half (and read the columns it kept: a repack that
    # moves wrong values fails below)
    assert full["min_width"] == 600 and small["min_width"] < 300
    assert runs[0].converged and runs[1].converged
    np.testing.assert_array_equal(runs[0].trace.pairs, runs[1].trace.pairs)
    np.testing.assert_array_equal(runs[0].alpha, runs[1].alpha)
    np.testing.assert_array_equal(runs[0].gradient, runs[1].gradient)
    np.testing.assert_array_equal(small["G_bar"], full["G_bar"])
    np.testing.assert_allclose(small["G_bar"], _bounded_part(problem, runs[0].alpha),
                               atol=1e-9 * max(1.0, float(np.max(np.abs(runs[0].gradient)))))


@SETTINGS
@given(st.one_of(c_svm_problems(), nu_problems(), scatter_problems(), general_problems()),
       st.sampled_from([1e-4, 1.0]))
def test_float32_columns_end_at_the_exact_gradient_within_tol(problem, cache_mb):
    """Float32 cached columns (as LIBSVM's): the result's gradient is the exact one, its KKT
    violation on that gradient is within tol, and the objective is the float64 solve's."""
    tol = 1e-5
    single = solve_qp(problem, tol=tol, dense_mb=0, cache_mb=cache_mb, cache_dtype="float32")
    double = solve_qp(problem, tol=tol, dense_mb=0, cache_mb=cache_mb, cache_dtype="float64")
    assert single.converged and double.converged
    scale = max(1.0, float(np.max(np.abs(single.gradient))))
    np.testing.assert_allclose(single.gradient, problem.gradient(single.alpha), atol=1e-9 * scale)
    assert kkt.max_violation(problem, single.alpha) <= tol
    # both stop at a violation ≤ tol, so each is within tol · Σ(u − l) of the optimum (the gap
    # bound of a maximal-violating-pair stop): two such solutions differ by at most twice that
    gap = tol * float(np.sum(np.minimum(problem.upper, 1e12) - np.maximum(problem.lower, -1e12)))
    assert abs(single.objective - double.objective) <= 2 * gap + 1e-9 * max(1.0, abs(double.objective))


def test_float32_columns_that_stop_short_go_on_in_double():
    """A large C and a tight tol: the float32 columns' gradient drifts past tol, so the solve
    goes on from the exact gradient (then with float64 columns) and ends within tol."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 5))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=600) > 0, 1.0, -1.0)
    problem = QPProblem.c_svm(y, 1e5, kernel=Kernel("rbf", 2.0), X=X)
    internals = {}
    res = solve_qp(problem, tol=1e-6, dense_mb=0, cache_mb=0.5, cache_dtype="float32",
                   _internals=internals)
    assert internals["passes"][0] == "float32" and len(internals["passes"]) > 1   # it went on
    assert res.converged and kkt.max_violation(problem, res.alpha) <= 1e-6
    assert res.history["iteration"][-1] == res.n_iter
    assert np.all(np.diff(res.history["iteration"]) > 0)


def test_auto_cache_dtype_is_float32_only_for_large_problems_that_do_not_fit():
    """"auto": float32 entries when n ≥ AUTO_FLOAT32_N and the float64 columns overflow the
    cache, float64 when they fit, for small n, and with a trace (its steps are the exact Q's)."""
    rng = np.random.default_rng(2)
    n = smo.AUTO_FLOAT32_N
    X = rng.normal(size=(n, 2))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    problem = QPProblem.c_svm(y, 1.0, kernel=Kernel("rbf", 0.5), X=X)
    small = QPProblem.c_svm(y[:500], 1.0, kernel=Kernel("rbf", 0.5), X=X[:500])
    for prob, opts, dtype in ((problem, {"cache_mb": 16.0}, "float32"),
                              (problem, {"cache_mb": 200.0}, "float64"),
                              (problem, {"cache_mb": 16.0, "trace": True}, "float64"),
                              (small, {"cache_mb": 0.1}, "float64")):
        internals = {}
        solve_qp(prob, _internals=internals, **opts)
        assert internals["cache_dtype"] == dtype, opts


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([-2.0, -1.0, -0.0, 0.0, 3.0, np.inf]), min_size=1, max_size=23),
       st.integers(0, 23))
def test_least_last_is_the_scan_that_takes_ties(values, cut):
    """The one-group selection reduces its scores in four lanes and then looks for the last index
    holding the least: the same (value, index) as WSS2's scan that takes every x_t ≤ the least so
    far (LIBSVM's <=, so ties go to the last), and −1 when every score is inf."""
    from svmviz.solvers._smo_solver import least_last
    x = np.array(values + [-5.0] * 3)   # entries past m must not count
    m = min(cut, len(values)) or len(values)
    best, k = np.inf, -1
    for t in range(m):
        if x[t] <= best and x[t] < np.inf:
            best, k = x[t], t
    assert least_last(x, m) == (best, k)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([-2.0, -1.0, -0.0, 0.0, 3.0]),
                          st.sampled_from([-1.0, 1.0]), st.sampled_from([1, 2, 3])),
                min_size=1, max_size=23),
       st.integers(0, 23))
def test_first_pass_is_the_scan_of_wss2(entries, cut):
    """The one-group selection's first half and M(α) in one pass of four lanes (the same lanes
    as the gradient loop of ``run``): m(α) = max over I_up of −s G and the last i holding it
    (WSS2's >=), and −M(α) = max over I_low of s G, as LIBSVM's two scans find them; i = −1 and
    −inf for empty sets."""
    from svmviz.solvers._smo_solver import LOW, POS, UP, first_pass_one_group
    G = np.array([e[0] for e in entries] + [-9.0] * 3)   # entries past m must not count
    s = np.array([e[1] for e in entries] + [1.0] * 3)
    stat = np.array([e[2] | (POS if e[1] > 0 else 0) for e in entries] + [UP | LOW] * 3,
                    dtype=np.int8)
    m = min(cut, len(entries)) or len(entries)
    gmax, gi, gmin = -np.inf, -1, -np.inf
    for t in range(m):
        if stat[t] & UP and -s[t] * G[t] >= gmax:
            gmax, gi = -s[t] * G[t], t
        if stat[t] & LOW:
            gmin = max(gmin, s[t] * G[t])
    assert first_pass_one_group(m, G, s, stat) == (gmax, gi, gmin)


def test_column_exp_is_exp_within_one_ulp():
    """The RBF columns' vectorised exp: within 1 ulp of NumPy's over the range a kernel value
    can take, exactly 0 below −708 (where 2^k leaves the normal doubles)."""
    from svmviz.solvers._smo_columns import _vexp
    x = np.r_[np.random.default_rng(0).uniform(-745.0, 709.0, 200_000), -708.0, 0.0, -1e-300,
              -709.5, 709.0]
    got = x.copy()
    _vexp(got, np.empty(x.size, np.int64))
    want = np.exp(x)
    normal = x >= -708.0
    assert np.all(np.abs(got[normal] - want[normal]) <= np.spacing(want[normal]))
    assert np.all(got[~normal] == 0.0)


def test_column_exp_loop_has_no_double_to_integer_conversion():
    """k = round(x / ln 2) stays a double and 2^k is assembled from its bits: a double → int64
    conversion (``fptosi``) has no vector instruction before AVX-512, so one in the loop makes
    LLVM compute every entry of every RBF column one at a time."""
    from numba import njit

    from svmviz.solvers._smo_columns import _vexp
    fresh = njit(_vexp.py_func)   # a cached compilation cannot be inspected
    fresh(np.zeros(4), np.empty(4, np.int64))
    ir = next(iter(fresh.inspect_llvm().values()))
    assert "fptosi" not in ir


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 9), min_size=4, max_size=4),
       st.lists(st.tuples(st.integers(0, 8), st.integers(1, 9)), min_size=1, max_size=6))
def test_swap_positions_walks_the_columns_once_for_a_shrinking_step(lens, swaps):
    """The cached columns follow a shrinking step's swaps in one walk: each column ends as if
    every swap (i, j), in turn, had swapped its two entries (column long enough for both) or cut
    it to i (long enough for i only)."""
    from svmviz.solvers._smo_cache import new_cache, rows_at, swap_positions
    n = 10
    pairs = np.array([(i, j) for i, j in swaps if i < j] or [(0, 1)], dtype=np.int64)
    cache = new_cache(n, 4)
    rows = rows_at(cache, n)
    rows.data[:] = np.arange(4 * n, dtype=float).reshape(4, n)
    rows.slen[:4] = lens
    rows.slen[4] = 4
    want, want_len = rows.data.copy(), np.array(lens)
    for i, j in pairs:
        for sl in range(4):
            if want_len[sl] > j:
                want[sl, [i, j]] = want[sl, [j, i]]
            elif want_len[sl] > i:
                want_len[sl] = i
    swap_positions(pairs, len(pairs), rows)
    np.testing.assert_array_equal(rows.slen[:4], want_len)
    for sl in range(4):   # entries past a column's prefix are not read
        np.testing.assert_array_equal(rows.data[sl, :want_len[sl]], want[sl, :want_len[sl]])

"""Guard vectors (Yang and Ahuja 2000): superset of the support vectors, same hyperplane, the two LP forms,
the pre-filter, τ_Δ = Δ² on the kernel diagonal, honest failure on non-separable data."""

import numpy as np
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from svmviz.data.generators import hypercubes
from scipy.optimize import linprog

from svmviz.errors import DataError, ParameterError, ProblemTooLargeError
from svmviz.export import dumps_model, loads_model
from svmviz.limits import budget
from svmviz.models.guard import GuardVectorSVC, dual_view, guard_vector_lps, tau_delta
from svmviz.models.svc import BinarySVC


def _separable(seed, m=60, n=2):
    """Random points in general position, labelled by a random hyperplane with a gap."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, n))
    w = rng.normal(size=n)
    s = X @ w
    keep = np.abs(s - np.median(s)) > 0.15 * s.std()
    X, s = X[keep], s[keep]
    return X, np.where(s > np.median(s), 1, -1)


def _support(model):
    a = np.abs(model.dual_coef_[0])
    return set(model.support_[a > 1e-8 * a.max()])


@pytest.mark.parametrize("seed,n", [(0, 2), (1, 2), (2, 3), (3, 4)])
def test_guard_vectors_contain_support_and_give_the_same_svm(seed, n):
    X, y = _separable(seed, 70, n)
    gv = GuardVectorSVC(tol=1e-10).fit(X, y)
    full = BinarySVC(kernel="linear", C=1e6, tol=1e-10).fit(X, y)
    assert gv.hard_margin_
    assert _support(full) <= set(np.flatnonzero(gv.guard_vectors_))
    assert gv.guard_vectors_.sum() < len(X)
    np.testing.assert_allclose(gv.coef_, full.coef_, rtol=1e-6, atol=1e-6 * np.abs(full.coef_).max())
    assert abs(gv.intercept_[0] - full.intercept_[0]) <= 1e-6 * max(1.0, abs(full.intercept_[0]))
    np.testing.assert_array_equal(gv.predict(X), y)


def test_same_hyperplane_with_the_cvxpy_backend():
    d = hypercubes(80, 3, seed=2)
    gv = GuardVectorSVC(solver="cvxpy").fit(d.X, d.y)
    full = BinarySVC(kernel="linear", C=1e6, solver="cvxpy").fit(d.X, d.y)
    np.testing.assert_allclose(gv.coef_, full.coef_, rtol=1e-5)
    assert abs(gv.intercept_[0] - full.intercept_[0]) <= 1e-5 * abs(full.intercept_[0])


def _guard_by_full_lps(X, y):
    """An independent check: for every point the orientation-free LP over ALL other points (no
    row restriction, no pre-filter, no reuse): w·x_i + b = 0, y_j(w·x_j + b) ≥ 0, Σ y_j(...) = 1."""
    m, n = X.shape
    A = np.column_stack([X, np.ones(m)])
    out = np.zeros(m, dtype=bool)
    for i in range(m):
        r = linprog(np.zeros(n + 1), A_ub=-y[:, None] * A, b_ub=np.zeros(m),
                    A_eq=np.vstack([A[i], y @ A]), b_eq=[0.0, 1.0], bounds=(None, None), method="highs")
        out[i] = r.status == 0
    return out


@pytest.mark.parametrize("seed,n", [(5, 2), (6, 3)])
def test_yang_ahuja_and_single_lp_agree_and_prefilter_changes_nothing(seed, n):
    X, y = _separable(seed, 60, n)
    base = guard_vector_lps(X, y, "yang_ahuja", prefilter=False, backend="highs")
    assert base.n_lps >= len(X)  # at least one, up to two LPs per point
    assert len(base.rows) < len(X)  # only hull-vertex rows
    np.testing.assert_array_equal(base.guard, _guard_by_full_lps(X, y.astype(float)))
    backends = ["highs", "cvxpy"] + (["closed-form"] if n == 2 else [])
    for method in ("yang_ahuja", "single"):
        for backend in backends:
            if backend == "closed-form" and method == "single":
                continue
            for pre in (False, True):
                r = guard_vector_lps(X, y, method, prefilter=pre, backend=backend)
                np.testing.assert_array_equal(r.guard, base.guard)
                # every plane found passes through its point and keeps every point on its side
                for i in np.flatnonzero(r.guard):
                    w, b = r.planes[i, :-1], r.planes[i, -1]
                    assert abs(X[i] @ w + b) <= 1e-7 * max(1.0, np.abs(w).max())
                    assert np.all(y * (X @ w + b) >= -1e-7 * max(1.0, np.abs(w).max()))
    pre = guard_vector_lps(X, y, "yang_ahuja", prefilter=True)
    assert pre.tested.sum() < len(X) and not np.any(base.guard & ~pre.tested)


@pytest.mark.parametrize("seed", range(12))
def test_closed_form_equals_the_lp_on_random_sets(seed):
    """The 2-D interval test gives exactly the paper's LP's guard set, orientations and
    statuses, on separable and on overlapping random sets, with and without the pre-filter."""
    rng = np.random.default_rng(100 + seed)
    m = int(rng.integers(8, 120))
    if seed % 3 == 2:  # overlapping classes: few or no guard vectors
        X = rng.normal(size=(m, 2))
        y = np.where(X[:, 0] + rng.normal(size=m) > 0, 1, -1)
    else:
        X, y = _separable(seed, m, 2)
    if np.unique(y).size < 2:
        y[0] = -y[0]
    for pre in (False, True):
        cf = guard_vector_lps(X, y, "yang_ahuja", prefilter=pre, backend="closed-form")
        lp = guard_vector_lps(X, y, "yang_ahuja", prefilter=pre, backend="highs")
        np.testing.assert_array_equal(cf.guard, lp.guard)
        np.testing.assert_array_equal(cf.orientation, lp.orientation)
        np.testing.assert_array_equal(cf.status, lp.status)
        assert cf.n_lps == 0 and lp.n_lps >= cf.tested.sum()
    np.testing.assert_array_equal(cf.guard, _guard_by_full_lps(X, y.astype(float)))
    # and the dual-space picture of every point agrees
    for i in range(0, len(X), max(1, len(X) // 10)):
        assert dual_view(X, y, i).is_guard == cf.guard[i]


def _guard_by_angles(X, y):
    """A separate 2-D check by geometry alone: a line through x_i with every point on its own
    label's side (ties allowed) exists exactly when the vectors s_j (x_j − x_i) (s_j = +1 for x_i's
    class, −1 for the other) lie in one closed half-plane through the origin, i.e. when the
    largest gap between their sorted directions is at least π."""
    out = np.zeros(len(X), dtype=bool)
    for i in range(len(X)):
        v = np.where((y == y[i])[:, None], 1.0, -1.0) * (X - X[i])
        v = v[np.any(v != 0, axis=1)]
        ang = np.sort(np.arctan2(v[:, 1], v[:, 0]))
        gaps = np.diff(np.r_[ang, ang[0] + 2 * np.pi])
        out[i] = gaps.max() >= np.pi - 1e-12
    return out


def test_the_independent_checks_know_a_hand_made_answer():
    """Both checks on a set whose guard vectors are known: the +1 points (0, 1), (2, 1) face the
    −1 points (0, −1), (2, −1); (1, 3) and (1, −3) lie behind them and no line through either
    has all points on its side (the two nearest points of its class lie on both sides of it)."""
    X = np.array([[0, 1], [2, 1], [1, 3], [0, -1], [2, -1], [1, -3]], float)
    y = np.array([1, 1, 1, -1, -1, -1], float)
    expected = np.array([True, True, False, True, True, False])
    np.testing.assert_array_equal(_guard_by_full_lps(X, y), expected)
    np.testing.assert_array_equal(_guard_by_angles(X, y), expected)


def _draws(n):
    """Small random draws: the hypercubes of Yang and Ahuja (2000) §4.1 and sets split by a random
    hyperplane."""
    for seed in range(4):
        d = hypercubes(int(np.random.default_rng(seed).integers(20, 61)), n, seed=seed)
        yield f"hypercubes seed {seed}", d.X, np.where(d.y > 0, 1.0, -1.0)
    for seed in range(4):
        X, y = _separable(50 + seed, 50, n)
        yield f"random hyperplane seed {seed}", X, y.astype(float)


@pytest.mark.parametrize("n", [2, 3])
def test_guard_vector_svc_equals_an_lp_over_all_points_and_the_2d_angles(n):
    for name, X, y in _draws(n):
        found = GuardVectorSVC(tol=1e-8).fit(X, y).guard_vectors_
        np.testing.assert_array_equal(found, _guard_by_full_lps(X, y), err_msg=name)
        if n == 2:
            np.testing.assert_array_equal(found, _guard_by_angles(X, y), err_msg=name)
        assert 0 < found.sum() < len(X), name


@pytest.mark.parametrize("n", [2, 3, 5])
def test_extreme_points_of_nonnegative_directions_are_guard_vectors(n):
    """Every w ≥ 0 separates [0,40]ⁿ from [60,100]ⁿ, so the lower cube's maximiser of w·x and the
    upper cube's minimiser are guard vectors (the lower bound on g of Yang and Ahuja's Table 1)."""
    rng = np.random.default_rng(n)
    d = hypercubes(120, n, seed=n)
    found = GuardVectorSVC(tol=1e-8).fit(d.X, d.y).guard_vectors_
    low, high = np.flatnonzero(d.y < 0), np.flatnonzero(d.y > 0)
    W = np.vstack([np.eye(n), rng.exponential(size=(40, n))])
    extreme = set(low[np.argmax(d.X[low] @ W.T, axis=0)]) | set(high[np.argmin(d.X[high] @ W.T, axis=0)])
    assert len(extreme) >= n + 1
    assert extreme <= set(np.flatnonzero(found))


def test_delta_makes_every_point_a_guard_vector_as_the_lp_says():
    """Yang and Ahuja (2000) §3.3: the lifted points are affinely independent, so every point is a guard
    vector; the LPs on the explicit τ_Δ coordinates agree (small m)."""
    rng = np.random.default_rng(9)
    X = rng.normal(size=(25, 2))
    y = np.where(X[:, 0] + rng.normal(size=25) > 0, 1, -1)
    Z = tau_delta(X, 0.7)
    for method in ("yang_ahuja", "single"):
        assert guard_vector_lps(Z, y, method, prefilter=False, backend="highs").guard.all()
    model = GuardVectorSVC(delta=0.7, tol=1e-10).fit(X, y)
    assert model.guard_vectors_.all() and model.n_lps_ == 0 and "Δ > 0" in model.guard_test_
    assert model.planes_.shape == (25, 0)  # no plane in R^{d+m} is stored
    back = loads_model(dumps_model(model))
    assert back.planes_.shape == (25, 0) and back.guard_test_ == model.guard_test_
    np.testing.assert_allclose(back.decision_function(X), model.decision_function(X))


def test_size_bounds_refuse_before_allocating():
    X, y = _separable(1, 60, 2)
    with budget(tau_delta_samples=40, kernel_map_samples=30):
        with pytest.raises(ProblemTooLargeError, match="limited to 40"):
            GuardVectorSVC(delta=1.0).fit(X, y)
        with pytest.raises(ProblemTooLargeError, match="limited to 30"):
            GuardVectorSVC(kernel="rbf").fit(X, y)
        assert GuardVectorSVC().fit(X, y).guard_vectors_.any()  # the linear Δ = 0 path has no bound


def test_progress_is_reported_and_can_stop_the_fit():
    X, y = _separable(2, 80, 3)
    calls = []
    GuardVectorSVC().fit(X, y, progress=lambda done, total: calls.append((done, total)))
    assert calls and calls[-1][0] == calls[-1][1] and all(a <= b for a, b in calls)

    class Stop(Exception):
        pass

    def stop(done, total):
        raise Stop

    with pytest.raises(Stop):
        GuardVectorSVC().fit(X, y, progress=stop)


@pytest.mark.parametrize("bad", [{"delta": "1"}, {"delta": -1.0}, {"delta": float("nan")},
                                 {"C": float("inf")}, {"prefilter": "yes"}, {"method": "x"}])
def test_bad_parameters_raise_parameter_error(bad):
    X, y = _separable(3, 30, 2)
    with pytest.raises(ParameterError):
        GuardVectorSVC(**bad).fit(X, y)


def test_prefilter_keeps_points_on_a_hull_edge():
    # three collinear +1 points on the edge facing the −1 class: the middle one is a guard vector
    # (the line through all three separates, ties allowed) although it is not a hull vertex.
    X = np.array([[0, 1], [1, 1], [2, 1], [1, 3], [0.5, 2.5], [0, -1], [2, -1], [1, -2]], float)
    y = np.array([1, 1, 1, 1, 1, -1, -1, -1])
    a = guard_vector_lps(X, y, "single", prefilter=False)
    b = guard_vector_lps(X, y, "single", prefilter=True)
    assert a.guard[1] and b.guard[1]
    np.testing.assert_array_equal(a.guard, b.guard)


def test_dual_view_agrees_with_the_lp():
    d = hypercubes(40, 2, seed=7)
    y = np.where(d.y > 0, 1, -1)
    lps = guard_vector_lps(d.X, y, "yang_ahuja", prefilter=False)
    for i in range(len(y)):
        v = dual_view(d.X, y, i)
        assert v.is_guard == lps.guard[i]
        assert ("is a guard vector" in v.explanation) == lps.guard[i]


def test_tau_delta_equals_delta_squared_on_the_kernel_diagonal():
    rng = np.random.default_rng(8)
    X = rng.normal(size=(30, 2))
    y = np.where(X[:, 0] + 1.0 * rng.normal(size=30) > 0, 1, -1)  # overlapping classes
    with pytest.raises(DataError, match="not linearly separable"):
        GuardVectorSVC().fit(X, y)
    explicit = GuardVectorSVC(delta=1.5, tol=1e-10).fit(X, y)         # τ_Δ coordinates (§3.3)
    # a degree-1 polynomial kernel with γ = 1, coef0 = 0 is x·z, but takes the Gram-matrix route
    gram = GuardVectorSVC(kernel="poly", degree=1, gamma=1.0, coef0=0.0, delta=1.5, method="single",
                          tol=1e-10).fit(X, y)
    np.testing.assert_array_equal(explicit.guard_vectors_, gram.guard_vectors_)
    np.testing.assert_allclose(explicit.decision_function(X), gram.decision_function(X), atol=1e-6)
    # and both are the C-SVM of all points with the kernel K + Δ²I (solved directly)
    from svmviz.solvers import QPProblem, solve_qp
    yy = y.astype(float)
    res = solve_qp(QPProblem.c_svm(yy, 1e6, Q=X @ X.T + 1.5 ** 2 * np.eye(30)), backend="cvxpy")
    f = X @ ((res.alpha * yy) @ X) - res.rho[0]
    np.testing.assert_allclose(explicit.decision_function(X), f, atol=1e-5)


def test_non_separable_data_and_multiclass_are_refused():
    d = hypercubes(40, 2, seed=1)
    X = np.vstack([d.X, [[20, 20], [80, 80]]])  # a +1 point inside the −1 cube and vice versa
    y = np.r_[d.y, 1, -1]
    with pytest.raises(DataError, match="not linearly separable"):
        GuardVectorSVC().fit(X, y)
    lps = guard_vector_lps(X, y, "single", prefilter=False)
    assert not lps.guard.any()  # the LPs agree: no separating hyperplane through any point
    with pytest.raises(DataError, match="binary"):
        GuardVectorSVC().fit(np.random.default_rng(0).normal(size=(9, 2)), np.arange(9) % 3)


def test_save_and_load_round_trip():
    d = hypercubes(50, 2, seed=3)
    gv = GuardVectorSVC(method="single").fit(d.X, d.y)
    back = loads_model(dumps_model(gv))
    assert isinstance(back, GuardVectorSVC) and back.method == "single"
    np.testing.assert_array_equal(back.guard_vectors_, gv.guard_vectors_)
    np.testing.assert_allclose(back.decision_function(d.X), gv.decision_function(d.X))


# scikit-learn's checks draw random, mostly non-separable data. The default hard-margin model
# refuses such data on purpose (DataError: no guard vectors exist), so the checks run on the
# τ_Δ variant, which separates any data; the default model is checked with those fits expected
# to fail for exactly that reason.
_NON_SEPARABLE = "sklearn's check data is not linearly separable: GuardVectorSVC refuses it (DataError)"
_DEFAULT_FAILS = {name: _NON_SEPARABLE for name in (
    "check_fit_score_takes_y", "check_n_features_in_after_fitting", "check_estimators_dtypes",
    "check_dtype_object", "check_estimators_nan_inf", "check_classifier_data_not_an_array",
    "check_classifiers_train", "check_supervised_y_2d", "check_fit_idempotent",
    "check_fit_check_is_fitted", "check_n_features_in")}


@parametrize_with_checks([GuardVectorSVC(delta=1.0)])
def test_sklearn_compatible_with_tau_delta(estimator, check):
    check(estimator)


@parametrize_with_checks([GuardVectorSVC()], expected_failed_checks=lambda est: _DEFAULT_FAILS)
def test_sklearn_compatible_default(estimator, check):
    check(estimator)


# ------------------------------------------------------------------ the Guard Vectors page
def test_guard_page_non_separable_data_offer_delta_and_then_mark_every_point():
    from apphelpers import page_test, problems

    from svmviz.data import load_builtin

    at = page_test("pages/4_Guard_Vectors.py", dataset=load_builtin("fourclass_like"),
                   **{"guard.src": "current data set"}).run()
    assert not problems(at), problems(at)
    assert any("not linearly separable" in i.value for i in at.info)
    at.button(key="guard_use_delta").click().run()
    assert not problems(at), problems(at)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["guard vectors g"] == metrics["points m"] and metrics["LPs solved"] == "0"
    assert metrics["QP converged"] == "yes"
    assert any("affinely independent" in i.value for i in at.info)


def test_guard_page_override_uses_the_closed_form_and_picks_points():
    from apphelpers import page_test, problems

    at = page_test("pages/4_Guard_Vectors.py", **{"guard.src": "cubes200"}).run()
    assert not problems(at), problems(at)
    metrics = {m.label: m.value for m in at.metric}
    assert int(metrics["guard vectors g"]) < 200 and metrics["LPs solved"] == "0"
    assert any("closed form" in c.value for c in at.caption)
    at.selectbox(key="guard.point").set_value(5).run()
    assert not problems(at), problems(at)
    at.radio(key="guard.method").set_value("single").run()
    assert not problems(at), problems(at)
    assert int({m.label: m.value for m in at.metric}["LPs solved"]) > 0


def test_guard_page_asks_for_two_classes_and_features():
    from apphelpers import page_test, problems

    from svmviz.data import Dataset

    rng = np.random.default_rng(0)
    ds = Dataset(rng.normal(size=(90, 3)) + np.repeat(np.eye(3) * 6, 30, axis=0), np.repeat([0, 1, 2], 30))
    at = page_test("pages/4_Guard_Vectors.py", dataset=ds).run()
    assert not problems(at), problems(at)
    assert at.selectbox(key="guard.class_pos") is not None and at.selectbox(key="guard.f2") is not None
    assert {m.label for m in at.metric} >= {"guard vectors g", "support vectors s"}


def test_guard_page_table1_runs_and_explains_the_counts():
    from apphelpers import page_test, problems

    at = page_test("pages/4_Guard_Vectors.py", **{"guard.src": "cubes50"}).run()
    at.selectbox(key="guard.t1_n").set_value(3).run()
    at.selectbox(key="guard.t1_m").set_value(50).run()
    at.button(key="guard_t1_run").click().run()
    assert not problems(at), problems(at)
    table = at.dataframe[-1].value
    assert list(table["n"]) == [2, 3] and list(table["m"]) == [50, 50]
    assert (table["g"] >= table["s"]).all() and table["same hyperplane"].all()
    text = " ".join(m.value for m in at.markdown) + " ".join(c.value for c in at.caption)
    assert "cannot explain" not in text and "unexplained" not in text
    assert "every direction w ≥ 0" in text.lower() and "at most 3" in text

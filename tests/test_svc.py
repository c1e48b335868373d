"""BinarySVC / BinaryNuSVC against scikit-learn's LIBSVM, the scikit-learn contract, JSON
save/load and the errors a student sees."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, make_blobs, make_classification, make_moons
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC, NuSVC
from sklearn.utils.estimator_checks import parametrize_with_checks

from svmviz.errors import DataError, ParameterError
from svmviz.export import dumps_model, loads_model
from svmviz.models.svc import BinaryNuSVC, BinarySVC
from svmviz.solvers import QPProblem, kkt, solve_qp


def _datasets():
    X1, y1 = make_moons(200, noise=0.25, random_state=0)
    X2, y2 = make_classification(250, n_features=5, n_informative=3, flip_y=0.1, random_state=1)
    X3, y3 = make_blobs(150, centers=2, cluster_std=2.5, random_state=2)
    bc = load_breast_cancer()
    X4 = StandardScaler().fit_transform(bc.data[:200])
    return {"moons": (X1, y1), "classification": (X2, y2), "blobs": (X3, y3),
            "breast_cancer": (X4, bc.target[:200])}


DATA = _datasets()
KERNELS = {"linear": {}, "rbf": {"gamma": 0.5}, "poly": {"gamma": 0.5, "degree": 3, "coef0": 1.0},
           "sigmoid": {"gamma": 0.05, "coef0": 0.0}}


def _rel(a, b):
    return np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-12)


CASES = [(d, k) for d in sorted(DATA) for k in sorted(KERNELS)
         # the sigmoid Q of 30-D data is far from PSD: the dual is not convex, and LIBSVM and SMO
         # stop at different stationary points
         if (d, k) != ("breast_cancer", "sigmoid")]


@pytest.mark.parametrize("data,kernel", CASES)
def test_binary_svc_matches_libsvm(data, kernel):
    """Same C, gamma and tol (1e-5: two SMO paths stopped at 1e-3 can differ by ~1e-3 when
    rounding sends them through different working sets)."""
    X, y = DATA[data]
    params = dict(C=1.0, kernel=kernel, tol=1e-5, **KERNELS[kernel])
    ref = SVC(**params).fit(X, y)
    ours = BinarySVC(**params).fit(X, y)
    assert _rel(ours.decision_function(X), ref.decision_function(X)) <= 1e-3
    np.testing.assert_array_equal(ours.classes_, ref.classes_)
    assert ours.converged_
    # attributes as SVC: support vectors and signed dual coefficients
    if kernel != "sigmoid":   # the sigmoid Q is indefinite: the optimum need not be unique
        assert abs(ours.support_.size - ref.support_.size) <= max(2, 0.02 * ref.support_.size)
    # objective_ is LIBSVM's dual value ½αᵀQα − Σα
    y_pm = np.where(y == ours.classes_[1], 1.0, -1.0)
    problem = QPProblem.c_svm(y_pm, 1.0, kernel=ours.kernel_, X=X)
    assert ours.objective_ == pytest.approx(problem.objective(ours.alpha_), rel=1e-6)
    if kernel == "linear":
        np.testing.assert_allclose(ours.coef_, ref.coef_, rtol=1e-2, atol=1e-3 * np.abs(ref.coef_).max())


@pytest.mark.parametrize("kernel", ["rbf", "linear"])
def test_default_tolerance_on_moons(kernel):
    X, y = DATA["moons"]
    ref = SVC(kernel=kernel, gamma=0.5).fit(X, y)
    ours = BinarySVC(kernel=kernel, gamma=0.5).fit(X, y)
    assert _rel(ours.decision_function(X), ref.decision_function(X)) <= 1e-3


def test_binary_svc_on_fourclass(fourclass):
    X, y = fourclass.X, fourclass.y
    ref = SVC(C=10.0, gamma=2.0).fit(X, y)
    ours = BinarySVC(C=10.0, gamma=2.0).fit(X, y)
    assert _rel(ours.decision_function(X), ref.decision_function(X)) <= 1e-3
    assert np.mean(ours.predict(X) == ref.predict(X)) >= 0.995


def test_sample_C_and_cvxpy_solver():
    X, y = DATA["moons"]
    sample_C = np.where(y == 1, 2.0, 0.5)
    smo = BinarySVC(kernel="rbf", gamma=1.0, tol=1e-6).fit(X, y, sample_C=sample_C)
    ref = BinarySVC(kernel="rbf", gamma=1.0, solver="cvxpy").fit(X, y, sample_C=sample_C)
    assert smo.objective_ == pytest.approx(ref.objective_, rel=1e-5)
    assert np.all(smo.alpha_ <= sample_C + 1e-12)
    assert _rel(smo.decision_function(X), ref.decision_function(X)) <= 1e-3
    # LIBSVM's class weights give the same per-class bounds
    lib = SVC(gamma=1.0, tol=1e-6, class_weight={0: 0.5, 1: 2.0}).fit(X, y)
    assert _rel(smo.decision_function(X), lib.decision_function(X)) <= 1e-3


# Not compared: cases where a class has no free α at the optimum. LIBSVM then often keeps an
# α of 1e-14 (rounding) as "free" and takes rho from it, SMO here puts it exactly at 0 and takes
# the middle of the KKT interval: both valid, different offsets (e.g. ν = 0.8 on moons with
# the linear kernel, or the poly kernel of KERNELS).
@pytest.mark.parametrize("kernel,nu", [("linear", 0.5), ("rbf", 0.5), ("rbf", 0.8),
                                       ("poly", 0.5), ("sigmoid", 0.5)])
def test_binary_nusvc_matches_libsvm(kernel, nu):
    X, y = DATA["moons"]
    params = dict(nu=nu, kernel=kernel, tol=1e-5, **KERNELS[kernel])
    ref = NuSVC(**params).fit(X, y)
    ours = BinaryNuSVC(**params).fit(X, y)
    assert _rel(ours.decision_function(X), ref.decision_function(X)) <= 1e-3
    # λ lies in the reduced convex hulls: each class sums to 1, 0 ≤ λ ≤ μ = 2/(νl)
    lam, y_pm = ours.alpha_, np.where(y == ours.classes_[1], 1.0, -1.0)
    assert lam[y_pm > 0].sum() == pytest.approx(1.0) and lam[y_pm < 0].sum() == pytest.approx(1.0)
    assert lam.max() <= ours.mu_ * (1 + 1e-12)


def test_nusvc_direction_is_nearest_points_of_reduced_hulls():
    """Linear ν-SVM: w ∝ p₊ − p₋, the nearest points of the reduced convex hulls
    (Zapién Arreola, Fehr and Burkhardt 2007, §3)."""
    X, y = DATA["blobs"]
    ours = BinaryNuSVC(nu=0.3, kernel="linear", tol=1e-6).fit(X, y)
    ref = NuSVC(nu=0.3, kernel="linear", tol=1e-6).fit(X, y)
    lam, y_pm = ours.alpha_, np.where(y == ours.classes_[1], 1.0, -1.0)
    w = (lam * y_pm) @ X
    for v in (ours.coef_[0], ref.coef_[0]):
        cos = v @ w / (np.linalg.norm(v) * np.linalg.norm(w))
        assert cos == pytest.approx(1.0, abs=1e-6)
    # ½‖p₊ − p₋‖² is the objective, and cvxpy agrees on it
    assert ours.objective_ == pytest.approx(0.5 * w @ w, rel=1e-6)
    n = y.size
    problem = QPProblem(p=np.zeros(n), lower=0.0, upper=ours.mu_, Q=X @ X.T * np.outer(y_pm, y_pm),
                        groups=(y_pm < 0).astype(np.int64), eq_signs=np.ones(n), eq_rhs=[1.0, 1.0])
    assert ours.objective_ == pytest.approx(solve_qp(problem, backend="cvxpy").objective, rel=1e-4)


@pytest.mark.parametrize("Est,params", [(BinarySVC, {"C": 3.0, "kernel": "poly", "gamma": 0.3}),
                                        (BinaryNuSVC, {"nu": 0.4, "kernel": "rbf"})])
def test_save_and_load_json(Est, params):
    X, y = DATA["classification"]
    y = np.where(y == 1, "yes", "no")
    model = Est(**params).fit(X, y)
    back = loads_model(dumps_model(model))
    assert type(back) is Est and back.get_params() == model.get_params()
    np.testing.assert_array_equal(back.predict(X), model.predict(X))
    np.testing.assert_allclose(back.decision_function(X), model.decision_function(X), rtol=1e-12)
    assert back.history_["max_violation"] == model.history_["max_violation"]


def test_pipeline_and_grid_search():
    X, y = DATA["moons"]
    grid = GridSearchCV(make_pipeline(StandardScaler(), BinarySVC()),
                        {"binarysvc__C": [0.1, 10.0], "binarysvc__gamma": [0.5, 2.0]}, cv=3)
    grid.fit(X, y)
    assert grid.best_score_ > 0.85


def test_errors_a_student_understands():
    X, y = DATA["moons"]
    with pytest.raises(ParameterError, match="nu must be at most"):
        BinaryNuSVC(nu=1.0).fit(X[:60], np.r_[np.zeros(10), np.ones(50)])
    with pytest.raises(ParameterError, match="C must be a positive"):
        BinarySVC(C=-1.0).fit(X, y)
    with pytest.raises(DataError, match="Only binary classification"):
        BinarySVC().fit(X, y % 3 + (X[:, 0] > 1))
    with pytest.raises(ParameterError, match="solver must be"):
        BinarySVC(solver="magic").fit(X, y)


@pytest.mark.parametrize("case", ["duplicates", "n2", "linear_1d"])
def test_edge_cases_against_libsvm(case):
    if case == "duplicates":
        X, y = DATA["moons"]
        X, y = np.vstack([X, X]), np.r_[y, y]
    elif case == "n2":
        X, y = np.array([[0.0, 0.0], [1.0, 1.0]]), np.array([0, 1])
    else:
        rng = np.random.default_rng(0)
        X = rng.normal(size=(80, 1))
        y = (X[:, 0] + 0.5 * rng.normal(size=80) > 0).astype(int)
    for kernel in ("linear", "rbf"):
        ref = SVC(kernel=kernel, gamma=1.0).fit(X, y)
        ours = BinarySVC(kernel=kernel, gamma=1.0).fit(X, y)
        assert _rel(ours.decision_function(X), ref.decision_function(X)) <= 1e-3
        y_pm = np.where(y == ours.classes_[1], 1.0, -1.0)
        problem = QPProblem.c_svm(y_pm, 1.0, kernel=ours.kernel_, X=X)
        assert kkt.max_violation(problem, ours.alpha_) <= 1e-3


# No check is expected to fail (the classifiers declare themselves binary through their tags, so
# scikit-learn feeds them two-class data and checks the "Only binary classification" error).
# check_array_api_input is skipped by scikit-learn itself unless SCIPY_ARRAY_API is set.
@parametrize_with_checks([BinarySVC(), BinaryNuSVC()])
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_plain_arrays_take_the_short_validation_with_the_same_result():
    """A float64 X and integer y skip scikit-learn's checks (they cost as much as a small
    solve); the fit and the fitted state equal those of the checked path (object X and
    float y go through it), and names from an earlier DataFrame fit are dropped as
    ``validate_data`` drops them."""
    import pandas as pd

    X, y = make_moons(120, noise=0.3, random_state=3)
    fast = BinarySVC(C=3.0, gamma=0.7).fit(X, y)
    checked = BinarySVC(C=3.0, gamma=0.7).fit(X.astype(object), y.astype(float))
    np.testing.assert_allclose(fast.alpha_, checked.alpha_, rtol=0, atol=1e-12)
    assert fast.n_features_in_ == checked.n_features_in_ == 2
    np.testing.assert_array_equal(fast.classes_, [0, 1])
    est = BinarySVC().fit(pd.DataFrame(X, columns=["a", "b"]), y)
    assert list(est.feature_names_in_) == ["a", "b"]
    est.fit(X, y)
    assert not hasattr(est, "feature_names_in_")


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_short_validation_still_refuses_non_finite_features(bad):
    X, y = make_moons(40, noise=0.3, random_state=4)
    X[7, 1] = bad
    with pytest.raises(DataError, match="NaN|infinity"):
        BinarySVC().fit(X, y)


@pytest.mark.parametrize("y", [np.array([0, 1, 1, 0, 1]), np.array([-1, 1, 1, -1], dtype=np.int8),
                               np.array([-128, 127, 0, -128], dtype=np.int8),
                               np.array([7, 3, 3, 7, 11], dtype=np.int32),
                               np.array([5, 9, 5], dtype=np.uint16), np.array([0, 10**6, 3]),
                               np.array([2**62, -2**62, 0]), np.array([4, 4]),
                               np.array([True, False, True]), np.array(["b", "a", "b"])])
def test_labels_are_encoded_as_np_unique_encodes_them(y):
    """Integer labels of a narrow range are counted instead of sorted: the same classes,
    indices and counts (with their dtypes) as ``np.unique``; other labels go through it."""
    from svmviz.models.base import _encode_labels

    got, want = _encode_labels(y), np.unique(y, return_inverse=True, return_counts=True)
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)
        assert a.dtype == b.dtype and a.shape == b.shape


def test_a_small_fit_calls_no_numpy_python_wrapper_it_can_do_without():
    """A fit on plain arrays spends much of its time outside the solver on small sets (breast
    cancer, fourclass): it sorts no labels (``np.unique``), takes no ``np.mean`` or
    ``np.dtype(...).name``, and no ``np.any``/``np.all``/``np.sum``/``np.argsort``/``np.cumsum``/
    ``np.flatnonzero`` or ``X.max()`` in its checks and set-up (Python code around one C call:
    the ufuncs' reductions and ``nonzero`` are called as they are), and checks its scalar
    parameters with ``math.isfinite``, not the ``np.isfinite`` ufunc; the model is the same."""
    import sys

    X, y = make_moons(120, noise=0.3, random_state=3)
    ref = BinarySVC(C=3.0, gamma=0.7).fit(X, y)
    seen = []

    def hook(frame, event, arg):
        if event == "call" and "numpy" in frame.f_code.co_filename:
            seen.append(frame.f_code.co_name)
        elif event == "c_call" and arg is np.isfinite:
            seen.append("isfinite")

    sys.setprofile(hook)
    try:
        est = BinarySVC(C=3.0, gamma=0.7).fit(X, y)
    finally:
        sys.setprofile(None)
    wrappers = {"unique", "_unique1d", "mean", "_mean", "_name_get", "any", "all", "_any", "_all",
                "_wrapreduction", "_wrapreduction_any_all", "sum", "argsort", "cumsum",
                "flatnonzero", "_amax", "_amin"}
    assert not wrappers & set(seen), sorted(wrappers & set(seen))
    assert seen.count("isfinite") <= 1   # the one finiteness test of X (``_plain_xy``)
    np.testing.assert_array_equal(est.alpha_, ref.alpha_)
    np.testing.assert_array_equal(est.classes_, ref.classes_)
    assert est.intercept_[0] == ref.intercept_[0]


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_huge_features_are_refused_on_either_side(sign):
    X, y = make_moons(40, noise=0.3, random_state=4)
    X[3, 0] = sign * 1e101
    with pytest.raises(DataError, match="magnitude 1e\\+101"):
        BinarySVC().fit(X, y)

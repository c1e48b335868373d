"""The work budget as a context (``svmviz.limits``): none for the library and the command line (large
work warns), the app's classroom budget wherever the app computes, the CLI's ``--budget``."""

from __future__ import annotations

import threading
import warnings

import numpy as np
import pytest

from svmviz import limits
from svmviz.errors import ProblemTooLargeError
from svmviz.limits import UNLIMITED, Budget, LargeWorkWarning, budget, get_budget, reset_budget, set_budget
from svmviz.models import BinarySVC, TreeDecompositionSVC


def _separable(n, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    X[:, 0] += np.where(np.arange(n) % 2, 3.0, -3.0)
    return X, np.arange(n) % 2


def test_the_library_has_no_budget_and_a_budget_is_a_context():
    assert get_budget() == UNLIMITED and all(getattr(UNLIMITED, n) is None for n in Budget.bound_names())
    with budget(solver_samples=10) as outer:
        assert get_budget() is outer and outer.solver_samples == 10
        with budget(Budget(classes=3)):
            assert get_budget().solver_samples is None and get_budget().classes == 3
        with budget(classes=3):   # changes the budget in force
            assert get_budget().solver_samples == 10 and get_budget().classes == 3
        assert get_budget() is outer
    assert get_budget() == UNLIMITED
    token = set_budget(Budget(features=2))
    try:
        assert get_budget().features == 2
    finally:
        reset_budget(token)
    assert get_budget() == UNLIMITED
    with pytest.raises(TypeError):
        set_budget({"features": 2})


def test_a_thread_starts_without_the_callers_budget():
    seen = []
    with budget(solver_samples=10):
        t = threading.Thread(target=lambda: seen.append(get_budget()))
        t.start()
        t.join()
    assert seen == [UNLIMITED]


def test_without_a_budget_large_work_warns_and_runs():
    # the command line's "BinarySVC on 12,000 samples" was refused as one request's work
    X, y = _separable(12_000)
    with warnings.catch_warnings():
        warnings.simplefilter("error", LargeWorkWarning)
        model = BinarySVC(kernel="linear").fit(X, y)   # below LARGE: no warning either
    assert model.score(X, y) > 0.99
    with pytest.warns(LargeWorkWarning, match=r"200,000 samples.*large for one machine"):
        limits.check_solver_size(200_000, "BinarySVC")
    with pytest.warns(LargeWorkWarning, match="search"):
        limits.check_search_work(2e12, "the search", "use fewer θ")
    with budget(solver_samples=100_000), pytest.raises(ProblemTooLargeError, match="100,000 one request"):
        limits.check_solver_size(200_000, "BinarySVC")


def test_the_refusal_names_the_budget_that_refuses():
    X, y = _separable(300)
    with budget(Budget(solver_samples=100, scope="the --budget")):
        with pytest.raises(ProblemTooLargeError, match=r"300 samples: 300 is more than the 100 the --budget may ask"):
            BinarySVC().fit(X, y)
    with budget(Budget(search_work=1000)):
        with pytest.raises(ProblemTooLargeError, match="smaller θ grid"):
            TreeDecompositionSVC(C_grid=[10.0], gamma_grid=[1.0]).fit(X, y)


def test_a_shared_fit_runs_in_the_classroom_budget_in_any_thread():
    from svmviz_app.budget import CLASSROOM
    from svmviz_app.cache import cached_fit

    X, y = _separable(CLASSROOM.solver_samples + 1)
    errors = []

    def fit():   # a thread of its own: the library's default budget is in force there
        try:
            cached_fit(BinarySVC(kernel="linear"), X, y)
        except ProblemTooLargeError as exc:
            errors.append(str(exc))

    t = threading.Thread(target=fit)
    t.start()
    t.join()
    assert len(errors) == 1 and f"{CLASSROOM.solver_samples:,} one request may ask for" in errors[0]


def test_the_classroom_file_size_is_the_servers_upload_limit(monkeypatch):
    import streamlit as st

    from svmviz_app.budget import classroom_budget

    real = st.get_option
    monkeypatch.setattr(st, "get_option", lambda k: 7 if k == "server.maxUploadSize" else real(k))
    assert classroom_budget().file_mb == 7


def test_leaf_jobs_in_worker_threads_run_in_the_callers_budget(monkeypatch):
    import svmviz.models._td_local as td_local

    seen, real = [], td_local._binary_fit

    def recording(*args, **kwargs):
        seen.append((get_budget(), threading.get_ident()))
        return real(*args, **kwargs)

    monkeypatch.setattr(td_local, "_binary_fit", recording)
    X, y = _separable(400)
    y = np.where(X[:, 1] > 0, y, 1 - y)   # heterogeneous leaves: leaf SVMs are trained
    mine = Budget(solver_samples=50_000, scope="the caller's budget")
    with budget(mine):
        TreeDecompositionSVC(C_grid=(1.0, 10.0), gamma_grid=(1.0, 2.0), n_jobs=2, max_stages=1).fit(X, y)
    assert seen and all(b is mine for b, _ in seen)
    assert {t for _, t in seen} - {threading.get_ident()}   # some ran in joblib's worker threads


def test_a_binary_svc_solve_reports_progress_and_a_raising_callback_stops_it(monkeypatch):
    # a fit of 10⁵ samples runs for minutes: the command line's bar and Ctrl-C need the solver to
    # come back to Python between chunks of iterations
    import svmviz.solvers.smo as smo

    monkeypatch.setattr(smo, "CHUNK", 16)
    rng = np.random.default_rng(5)
    X = rng.normal(size=(400, 2))
    y = (X[:, 0] + 0.8 * rng.normal(size=400) > 0).astype(int)
    calls = []
    model = BinarySVC(C=10.0, gamma=1.0).fit(X, y, progress=lambda done, total: calls.append((done, total)))
    assert len(calls) >= 2 and [d for d, _ in calls] == sorted(d for d, _ in calls) and calls[0][1] == 0
    np.testing.assert_array_equal(model.alpha_, BinarySVC(C=10.0, gamma=1.0).fit(X, y).alpha_)

    class Stop(Exception):
        pass

    def stop(done, total):
        raise Stop

    with pytest.raises(Stop):
        BinarySVC(C=10.0, gamma=1.0).fit(X, y, progress=stop)


def test_libsvms_objective_is_recomputed_in_bounded_blocks():
    # bench_smo compares objectives at 10⁵ samples, where LIBSVM keeps tens of thousands of support
    # vectors: their whole Gram matrix (the former computation) took the machine's 20 GB
    import tracemalloc

    from sklearn.svm import SVC

    from svmviz.models.svc import libsvm_dual_objective

    rng = np.random.default_rng(2)
    X = rng.normal(size=(4000, 2))
    y = (rng.random(4000) < 0.5).astype(int)   # noise: nearly every point a support vector
    svc = SVC(C=1.0, gamma=0.5).fit(X, y)
    n_sv = svc.support_.size
    tracemalloc.start()
    try:
        obj = libsvm_dual_objective(svc, X)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    from svmviz.kernels import KERNEL_BLOCK_VALUES

    # a few blocks' temporaries, below the whole matrix (n_sv² float64: 120 MB here)
    assert peak < 3 * 8 * KERNEL_BLOCK_VALUES < n_sv * n_sv * 8
    coef, sv = svc.dual_coef_[0], X[svc.support_]
    from svmviz.kernels import Kernel
    full = 0.5 * coef @ Kernel("rbf", 0.5).gram(sv) @ coef - np.abs(coef).sum()
    assert obj == pytest.approx(full, rel=1e-12)

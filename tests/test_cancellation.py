"""Long computations stop at once when their progress callback raises.

A Streamlit page passes ``svmviz_app.widgets.Progress`` as the callback; Streamlit raises its
``StopException`` (a ``BaseException``) inside it when the user presses Stop or the tab closes.
For every library computation that takes a callback: a callback raising on its k-th call ends the
work there — the exception propagates unchanged, the callback is not called again, and no solver
(QP, LP, LIBSVM) is entered after the raise. Solver entries are counted with a profiler hook on
the solver modules, so a loop that swallowed the exception and went on would be caught.
"""

from __future__ import annotations

import os
import sys
import threading

import numpy as np
import pytest
from streamlit.runtime.scriptrunner_utils.exceptions import StopException

from svmviz.data.generators import fourclass_like, gaussians_on_circle, interlaced, local_triangles
from svmviz.geometry.zero_solution import w_norm_sweep
from svmviz.models import GuardVectorSVC, ScatterSVC, SVMTreeClassifier, TreeDecompositionSVC
from svmviz.models.dag import DAGSVC, PairwiseVotingSVC, WeightedDAGSVC
from svmviz.models.scatter import choose_gamma
from svmviz.models.tree_decomposition import global_svm_search
from svmviz.solvers import smo

import svmviz
import sklearn

_SVMVIZ = os.path.dirname(svmviz.__file__)
# Python files whose functions are solver entries: every QP/LP of svmviz and LIBSVM's wrapper.
_SOLVER_FILES = (os.path.join(_SVMVIZ, "solvers") + os.sep,
                 os.path.join(_SVMVIZ, "geometry", "hull_lp.py"),
                 os.path.join(os.path.dirname(sklearn.__file__), "svm") + os.sep)


class UserStop(Exception):
    """An ordinary exception a caller's callback might raise."""


class Meter:
    """Counts solver entries (Python calls into the solver files, C calls into HiGHS) in the
    threads it watches, and the progress calls; ``callback`` raises ``exc`` on call ``k``."""

    def __init__(self, k: int | None = None, exc: BaseException | None = None):
        self.k, self.exc = k, exc
        self.calls = 0
        self.solver_entries = 0
        self.entries_at_raise = None
        self.calls_after_raise = 0

    def _profile(self, frame, event, arg):
        if event == "call":
            if frame.f_code.co_filename.startswith(_SOLVER_FILES):
                self.solver_entries += 1
        elif event == "c_call":
            owner = getattr(arg, "__self__", None)
            if owner is not None and type(owner).__module__.startswith("highspy"):
                self.solver_entries += 1

    def callback(self, *args) -> None:
        if self.entries_at_raise is not None:
            self.calls_after_raise += 1
            return
        self.calls += 1
        if self.k is not None and self.calls == self.k:
            self.entries_at_raise = self.solver_entries
            raise self.exc

    def run(self, fn):
        sys.setprofile(self._profile)
        threading.setprofile(self._profile)
        try:
            return fn(self.callback)
        finally:
            sys.setprofile(None)
            threading.setprofile(None)

    @property
    def entries_after_raise(self) -> int:
        return self.solver_entries - self.entries_at_raise


def _tree(cb):
    ds = fourclass_like(300, seed=1)
    return SVMTreeClassifier().fit(ds.X, ds.y, progress=cb)


def _sweep(cb):
    ds = fourclass_like(200, seed=2)
    y = np.where(ds.y > 0, 1, -1)
    return w_norm_sweep(ds.X, y, 1, 1.0, np.geomspace(0.05, 50.0, 8), "smo", 1e-6, progress=cb)


def _guard(cb):
    rng = np.random.default_rng(3)   # 3-D, no hull prefilter: one HiGHS LP pair per point
    X = rng.normal(size=(80, 3))
    s = X @ np.array([1.0, -0.7, 0.4])
    keep = np.abs(s) > 0.2
    return GuardVectorSVC(prefilter=False).fit(X[keep], np.where(s[keep] > 0, 1, -1), progress=cb)


def _td_data():
    ds = interlaced(level=3, n_per_class=200, seed=0)
    perm = np.random.default_rng(0).permutation(ds.y.size)   # the generator orders by class
    return ds.X[perm], ds.y[perm]


def _td(cb, **kw):
    X, y = _td_data()
    return TreeDecompositionSVC(C_grid=(1.0, 10.0), gamma_grid=(0.5, 2.0), **kw).fit(X, y, progress=cb)


def _td_libsvm(cb):
    return _td(cb, svm_solver="libsvm")


def _global(cb):
    X, y = _td_data()
    return global_svm_search(X[:400], y[:400], X[400:], y[400:], (1.0, 10.0), (0.5, 2.0), progress=cb)


def _global_smo(cb):
    X, y = _td_data()
    return global_svm_search(X[:400], y[:400], X[400:], y[400:], (1.0, 10.0), (0.5, 2.0), progress=cb,
                             solver="smo")


def _five_classes():
    ds = gaussians_on_circle(5, 40, seed=0)
    return ds.X, ds.y


def _pairwise(cb):
    return PairwiseVotingSVC().fit(*_five_classes(), progress=cb)


def _dag(cb):
    return DAGSVC(order=[4, 2, 0, 1, 3]).fit(*_five_classes(), progress=cb)


def _wdag(cb):
    ds = local_triangles(n_clusters=2, n_per_class=15, seed=0)   # every cluster holds every class
    return WeightedDAGSVC(n_clusters=2, kernel="linear", random_state=0).fit(ds.X, ds.y, progress=cb)


def _scatter_c_bias(cb):
    """The C-form with bias: the outer search over t reports after each slice."""
    return ScatterSVC(bias=True).fit(*_five_classes(), progress=cb)


def _with_chunk(chunk, fn):
    """``fn()`` with the SMO calling back every ``chunk`` iterations (2²⁰ otherwise: a test-sized
    solve would never be polled)."""
    saved = smo.CHUNK
    smo.CHUNK = chunk
    try:
        return fn()
    finally:
        smo.CHUNK = saved


def _scatter_in_solve(cb):
    """One QP (C-form without bias): the reports come from inside the SMO solve."""
    return _with_chunk(16, lambda: ScatterSVC().fit(*_five_classes(), progress=cb))


def _choose_gamma(cb):
    X, y = _five_classes()
    return choose_gamma(X, y, progress=cb, formulation="nu", bias=True)


COMPUTATIONS = {"svm_tree_fit": _tree, "hull_w_norm_sweep": _sweep, "guard_vectors_fit": _guard,
                "td_fit_smo": _td, "td_fit_libsvm": _td_libsvm, "td_global_svm_search": _global,
                "td_global_svm_search_smo": _global_smo,
                "dag_pairwise_voting_fit": _pairwise, "dag_fit": _dag, "wdag_fit": _wdag,
                "scatter_fit_c_bias": _scatter_c_bias, "scatter_fit_in_one_solve": _scatter_in_solve,
                "scatter_choose_gamma": _choose_gamma}


@pytest.mark.parametrize("name", sorted(COMPUTATIONS))
@pytest.mark.parametrize("exc_type", [StopException, UserStop])
def test_a_raising_progress_callback_stops_the_work_at_once(name, exc_type):
    work = COMPUTATIONS[name]
    full = Meter()
    full.run(work)
    assert full.calls >= 4, f"{name}: too few progress calls ({full.calls}) to cancel in the middle"
    assert full.solver_entries > 0
    k = max(2, full.calls // 2)
    exc = exc_type()
    meter = Meter(k, exc)
    with pytest.raises(exc_type) as info:
        meter.run(work)
    assert info.value is exc                       # the callback's own exception, unwrapped
    assert meter.calls == k and meter.calls_after_raise == 0
    assert meter.entries_after_raise == 0, f"{name}: a solver ran after the callback raised"
    assert meter.solver_entries < full.solver_entries  # the work really was cut short


def test_td_reports_each_leaf_svm_and_ends_at_its_total():
    X, y = _td_data()
    calls = []
    m = TreeDecompositionSVC(C_grid=(1.0, 10.0), gamma_grid=(0.5, 2.0)).fit(X, y, progress=lambda d, t: calls.append((d, t)))
    total = calls[-1][1]
    assert calls[0] == (0, 1) and calls[-1] == (total, total)
    assert all(t == total for _, t in calls[1:])                 # fixed once the tree is grown
    done = [d for d, _ in calls]
    assert done == sorted(done)                                   # monotone
    # one report per leaf SVM (leaf, θ) trained: every step of one appears
    trained = sum(lv.n_trained * lv.C.size - lv.n_reused for lv in m.search_path_)
    assert set(range(trained + 1)) <= set(done)
    assert trained <= total


def _count_leaf_svms(monkeypatch) -> list:
    """A list that grows by one for every TD leaf SVM built from now on."""
    from svmviz.models import _td_local

    built = []
    real = _td_local.TDLocalSVM.__init__

    def counting(self, *a, **kw):
        built.append(1)
        real(self, *a, **kw)

    monkeypatch.setattr(_td_local.TDLocalSVM, "__init__", counting)
    return built


def test_td_stop_lands_within_one_leaf_svm(monkeypatch):
    """Stop between two leaf SVMs of the same leaf job: the job's remaining C values are not
    trained (the report comes after every single leaf SVM, not after a leaf's whole C list)."""
    built = _count_leaf_svms(monkeypatch)
    meter = Meter(3, StopException())   # calls: (0, 1), (0, total), after the 1st leaf SVM → raise
    with pytest.raises(StopException):
        meter.run(lambda cb: _td(cb))
    assert len(built) == 1 and meter.calls_after_raise == 0


@pytest.mark.filterwarnings("ignore:.*tasks have been successfully executed:UserWarning")
def test_td_parallel_fit_propagates_the_exception_and_its_workers_stop(monkeypatch):
    """With joblib threads the callback runs in the calling thread as results come back; once it
    has raised, the workers stop at their next leaf SVM: at most one more per worker is built."""
    import time

    built = _count_leaf_svms(monkeypatch)
    X, y = _td_data()
    steps, at_raise = [], []

    def cb(done, total):
        steps.append(done)
        if len(steps) == 3:
            at_raise.append(len(built))
            raise StopException()

    with pytest.raises(StopException):
        TreeDecompositionSVC(C_grid=(1.0, 10.0, 100.0), gamma_grid=(0.5, 2.0), n_jobs=2).fit(X, y, progress=cb)
    assert len(steps) == 3
    # bounded wait for the workers to settle: the count stays the same for 1 s (at most 60 s)
    deadline, last, since = time.monotonic() + 60, -1, time.monotonic()
    while time.monotonic() < deadline:
        if len(built) != last:
            last, since = len(built), time.monotonic()
        elif time.monotonic() - since > 1.0:
            break
        time.sleep(0.05)
    assert len(built) - at_raise[0] <= 2


def test_a_session_waiting_for_anothers_computation_stops_when_its_own_wait_raises():
    """Two sessions ask for the same key: the second waits for the first; when its ``wait``
    raises (its Stop, or its tab closed) it stops waiting at once, the first goes on and stores
    its value, and nothing is computed twice."""
    from svmviz_app.cache import WAIT_POLL_S, SharedCache

    cache = SharedCache(4)
    started, release = threading.Event(), threading.Event()
    computed = []

    def slow():
        started.set()
        assert release.wait(60)
        computed.append(1)
        return 42

    first = threading.Thread(target=lambda: cache.get_or_compute("k", slow))
    first.start()
    assert started.wait(60)
    waits = []

    def wait():
        waits.append(1)
        if len(waits) == 2:
            raise StopException()

    with pytest.raises(StopException):
        cache.get_or_compute("k", lambda: pytest.fail("computed twice"), wait=wait)
    assert len(waits) == 2 and not computed            # it left while the first still computed
    release.set()
    first.join(60)
    assert computed == [1] and cache.get_or_compute("k", lambda: pytest.fail("not stored")) == 42
    assert WAIT_POLL_S <= 1.0


def test_a_cancelled_computation_stores_nothing_and_a_waiter_computes_it():
    from svmviz_app.cache import SharedCache

    cache = SharedCache(4)
    started, release = threading.Event(), threading.Event()

    def cancelled():
        started.set()
        assert release.wait(60)
        raise StopException()

    errors = []

    def first_session():
        try:
            cache.get_or_compute("k", cancelled)
        except StopException as exc:
            errors.append(exc)

    first = threading.Thread(target=first_session)
    first.start()
    assert started.wait(60)
    got = []
    second = threading.Thread(target=lambda: got.append(cache.get_or_compute("k", lambda: 7, wait=lambda: None)))
    second.start()
    release.set()
    first.join(60), second.join(60)
    assert errors and got == [7] and cache.computed == 1


@pytest.mark.parametrize("what", ["td_fit", "td_bound_terms", "global_svm_search_smo"])
def test_td_stops_inside_a_long_smo_solve(monkeypatch, what):
    """The SMO calls back every CHUNK iterations (here 64 instead of 2²⁰): TD's leaf trainer
    reports there too, so a Stop lands inside one long solve, not after it."""
    from svmviz.models import _td_local
    from svmviz.solvers import smo

    monkeypatch.setattr(smo, "CHUNK", 64)
    X, y = _td_data()
    model = TreeDecompositionSVC(C_grid=(10.0,), gamma_grid=(2.0,), max_stages=1).fit(X, y)
    solves, returned, built = [], [], []
    real_solve, real_init = smo.solve, _td_local.TDLocalSVM.__init__

    def solve(*a, **kw):
        solves.append(1)
        res = real_solve(*a, **kw)
        returned.append(1)
        return res

    def init(self, *a, **kw):
        built.append(1)
        real_init(self, *a, **kw)

    monkeypatch.setattr(smo, "solve", solve)
    monkeypatch.setattr(_td_local.TDLocalSVM, "__init__", init)
    calls, in_solve = [], []

    def cb(done, total):
        calls.append(done)
        if solves:               # the first report once a solve has started
            in_solve.append((len(solves), len(returned)))
            raise StopException()

    with pytest.raises(StopException):
        if what == "td_fit":
            TreeDecompositionSVC(C_grid=(10.0,), gamma_grid=(2.0,), max_stages=1).fit(X, y, progress=cb)
        elif what == "td_bound_terms":
            model.bound_terms(X, y, progress=cb)
        else:
            global_svm_search(X[:500], y[:500], X[500:], y[500:], (10.0,), (2.0,), progress=cb, solver="smo")
    assert in_solve == [(1, 0)]               # reported from inside the first solve, not after it
    assert len(solves) == 1 and not returned and not built


def _slow_square(x, progress=None):
    _STARTED.set()
    assert _GATE.wait(60)
    return x * x


_STARTED, _GATE = threading.Event(), threading.Event()


def test_cached_call_hands_the_progress_bars_waiting_to_the_shared_cache():
    """The page helper wires it: a second session asking ``cached_call`` for a result another
    session is computing waits through its progress object's ``waiting()`` (the bar says so, and
    Streamlit's Stop raises there)."""
    from svmviz_app.cache import cached_call

    _STARTED.clear(), _GATE.clear()
    first = threading.Thread(target=lambda: cached_call(_slow_square, 12345))
    first.start()
    assert _STARTED.wait(60)       # the first session computes (and holds the key)

    class Bar:
        def __init__(self):
            self.waits = 0

        def __call__(self, done, total):
            pass

        def waiting(self):
            self.waits += 1
            if self.waits == 2:
                raise StopException()

    bar = Bar()
    with pytest.raises(StopException):
        cached_call(_slow_square, 12345, progress=bar)
    assert bar.waits == 2
    _GATE.set()
    first.join(60)
    assert cached_call(_slow_square, 12345, progress=Bar()) == 12345 ** 2   # stored by the first


# ------------------------------------------------------------------ DAG and Scatter (seeds 003, 004)
def _pairs(k: int) -> int:
    return k * (k - 1) // 2


@pytest.mark.parametrize("cls", [PairwiseVotingSVC, DAGSVC])
def test_pairwise_fits_report_after_each_pairwise_svm(cls):
    X, y = _five_classes()
    calls = []
    m = cls().fit(X, y, progress=lambda d, t: calls.append((d, t)))
    P = len(m.estimators_)
    assert P == _pairs(5) and calls == [(d, P) for d in range(1, P + 1)]
    plain = cls().fit(X, y)     # fit(X, y) still works and the callback changes nothing
    assert np.array_equal(plain.predict(X), m.predict(X))


def _counted_solves(monkeypatch, chunk: int) -> tuple[list, list]:
    """SMO calling back every ``chunk`` iterations, and two lists growing as its solves start and
    return."""
    monkeypatch.setattr(smo, "CHUNK", chunk)
    solves, returned = [], []
    real_solve = smo.solve

    def solve(*a, **kw):
        solves.append(1)
        res = real_solve(*a, **kw)
        returned.append(1)
        return res

    monkeypatch.setattr(smo, "solve", solve)
    return solves, returned


@pytest.mark.parametrize("cls", [PairwiseVotingSVC, DAGSVC, WeightedDAGSVC])
@pytest.mark.filterwarnings("ignore::svmviz.models.dag.ClusterClassWarning")
def test_pairwise_fits_stop_inside_a_long_pairwise_solve(monkeypatch, cls):
    """The SMO calls back every CHUNK iterations (here 8): the pairwise fits pass the callback
    into every pair's solve, so a Stop or a closed tab lands inside a solve that would not end
    (a kernel the solver cannot resolve) instead of waiting for the pair to finish."""
    solves, returned = _counted_solves(monkeypatch, chunk=8)
    X, y = _five_classes()
    stopped_in = []

    def cb(done, total):
        if len(solves) > len(returned):    # a pairwise solve is running
            stopped_in.append(len(solves))
            raise StopException()

    with pytest.raises(StopException):
        cls(C=100.0).fit(X, y, progress=cb)
    assert len(stopped_in) == 1 and len(returned) == stopped_in[0] - 1   # that solve never returned


@pytest.mark.filterwarnings("ignore::svmviz.models.dag.ClusterClassWarning")
def test_wdag_reports_k_means_then_each_clusters_pairwise_svms():
    X, y = _five_classes()       # two clusters, some lacking classes: their DAGs have fewer pairs
    calls = []
    m = WeightedDAGSVC(n_clusters=2, random_state=0).fit(X, y, progress=lambda d, t: calls.append((d, t)))
    total = 1 + sum(_pairs(c.size) for c in m.cluster_classes_)
    assert m.incomplete_clusters_.size and total < 1 + 2 * _pairs(5)
    assert total == 1 + sum(len(c.estimators_) for c in m.cluster_models_ if c is not None)
    assert calls == [(d, total) for d in range(1, total + 1)]     # K-Means first, then every pair
    plain = WeightedDAGSVC(n_clusters=2, random_state=0).fit(X, y)
    assert np.array_equal(plain.predict(X), m.predict(X))


@pytest.mark.parametrize("kw", [{}, {"bias": True}, {"formulation": "nu", "bias": True},
                                {"solver": "cvxpy"}])
def test_scatter_fit_polls_during_the_solve_and_ends_at_one(monkeypatch, kw):
    monkeypatch.setattr(smo, "CHUNK", 16)
    X, y = _five_classes()
    calls = []
    m = ScatterSVC(**kw).fit(X, y, progress=lambda d, t: calls.append((d, t)))
    assert calls[-1] == (1, 1) and set(calls[:-1]) <= {(0, 1)}
    if kw.get("solver") != "cvxpy":
        assert len(calls) > 1            # polled from inside the SMO (and between the slices of t)
    plain = ScatterSVC(**kw).fit(X, y)
    assert np.allclose(plain.alpha_, m.alpha_)


def test_choose_gamma_reports_after_each_gamma():
    X, y = _five_classes()
    gammas = [0.1, 0.5, 2.0]
    calls = []
    got = choose_gamma(X, y, gammas, progress=lambda d, t: calls.append((d, t)), C=1.0)
    assert calls == [(1, 3), (2, 3), (3, 3)]      # a test-sized fit is never polled mid-solve
    plain = choose_gamma(X, y, gammas, C=1.0)
    assert plain.best == got.best and np.array_equal(plain.accuracy, got.accuracy)


@pytest.mark.parametrize("what", ["scatter_fit", "scatter_fit_c_bias", "scatter_fit_nu", "choose_gamma"])
def test_scatter_stops_inside_a_long_smo_solve(monkeypatch, what):
    """The SMO calls back every CHUNK iterations (here 4 instead of 2²⁰): ScatterSVC's callback
    reports there, so a Stop lands inside one solve, not after it."""
    solves, returned = _counted_solves(monkeypatch, chunk=4)
    in_solve = []

    def cb(done, total):
        if solves:               # the first report once a solve has started
            in_solve.append((len(solves), len(returned), done, total))
            raise StopException()

    X, y = _five_classes()
    with pytest.raises(StopException):
        if what == "choose_gamma":
            choose_gamma(X, y, [0.5, 2.0], progress=cb, C=1.0)
        else:
            kw = {"scatter_fit": {}, "scatter_fit_c_bias": {"bias": True},
                  "scatter_fit_nu": {"formulation": "nu", "bias": True}}[what]
            ScatterSVC(**kw).fit(X, y, progress=cb)
    assert in_solve == [(1, 0, 0, 2 if what == "choose_gamma" else 1)]   # inside the first solve
    assert len(solves) == 1 and not returned


def _recording_bars(monkeypatch):
    """Clears the shared caches (so the pages compute) and records every call of every
    ``widgets.Progress`` bar as (label, done, total)."""
    from svmviz_app import cache, widgets

    cache.FITS.clear()
    cache.RESULTS.clear()
    calls = []
    real = widgets.Progress.__call__

    def record(self, done, total):
        calls.append((self.label, done, total))
        return real(self, done, total)

    monkeypatch.setattr(widgets.Progress, "__call__", record)
    return calls


def _bar_calls(calls, start):
    return [(d, t) for label, d, t in calls if label.startswith(start)]


def test_the_dag_page_passes_its_progress_bars_to_both_fits(monkeypatch):
    from apphelpers import page_test, problems

    calls = _recording_bars(monkeypatch)
    at = page_test("pages/6_DAG_SVM.py", dataset=interlaced(level=1, n_per_class=40, seed=0),
                   **{"dag.wdag_n": 2, "dag.tab": 3}).run()   # the weighted DAG fits in its tab
    assert not problems(at), problems(at)
    assert _bar_calls(calls, "training the pairwise SVMs") == [(1, 3), (2, 3), (3, 3)]
    wdag = _bar_calls(calls, "training the weighted DAG SVM")
    assert wdag and wdag[0][0] == 1 and wdag[-1][0] == wdag[-1][1] == len(wdag)


def test_the_scatter_page_passes_its_progress_bars_to_every_fit_and_the_gamma_search(monkeypatch):
    from apphelpers import page_test, problems

    calls = _recording_bars(monkeypatch)
    at = page_test("pages/7_Scatter_SVM.py", dataset=gaussians_on_circle(3, 30, seed=0)).run()
    assert not problems(at), problems(at)
    for tab in (1, 2):   # each tab fits only while open
        at.session_state["scatter.tab"] = tab
        at.run()
        assert not problems(at), problems(at)
    for start in ("Fitting Scatter SVM on", "Fitting binary ν-SVM", "Fitting Scatter SVM (RBF"):
        got = _bar_calls(calls, start)
        assert got and got[-1] == (1, 1), (start, got)
    gamma = _bar_calls(calls, "choosing γ on validation data")
    n = gamma[-1][1]
    assert n >= 2 and gamma == [(k, n) for k in range(1, n + 1)]


# ------------------------------------------------------------------ figures: the library's checkpoints
def _voting_model(n_classes: int = 8, seed: int = 41):
    ds = gaussians_on_circle(n_classes=n_classes, n_per_class=6, seed=seed)
    return PairwiseVotingSVC(C=10.0).fit(ds.X, ds.y), ds


def _voting_regions():
    from svmviz.plots.dag import plot_voting_regions

    model, ds = _voting_model()
    return lambda: plot_voting_regions(model, ds.X, ds.y, [str(n) for n in ds.class_names])


def _dag_regions():
    from svmviz.plots.dag import plot_dag_regions

    model, ds = _voting_model()
    dag = DAGSVC.from_pairwise(model, list(model.classes_))
    return lambda: plot_dag_regions(dag, ds.X, ds.y, [str(n) for n in ds.class_names])


def _tree_final():
    from svmviz.plots.svm_tree import final_figure

    ds = fourclass_like(n=400)
    model = SVMTreeClassifier().fit(ds.X, ds.y)
    return lambda: final_figure(model, ds.X, ds.y, False)


@pytest.mark.parametrize("make", [_voting_regions, _dag_regions, _tree_final], ids=["voting", "dag", "tree_final"])
def test_a_raising_checkpoint_stops_a_figure_build_at_once(make):
    """A figure has no progress callback: it calls ``svmviz.limits.checkpoint()`` between its
    pieces (pairs, blocks of a grid, labels, nodes), and a checkpoint that raises ends it there."""
    from svmviz import limits

    build = make()
    calls = []

    def check():
        calls.append(1)
        if len(calls) == 2:
            raise UserStop()

    with limits.checkpoints(check), pytest.raises(UserStop):
        build()
    assert len(calls) == 2
    limits.checkpoint()   # no checkpoint function in force out of the block: nothing happens
    assert len(calls) == 2


def _page_drawing_voting_regions(path: str, seed: int):
    import streamlit as st

    from svmviz.data.generators import gaussians_on_circle
    from svmviz.models.dag import PairwiseVotingSVC
    from svmviz.plots.dag import plot_voting_regions
    from svmviz_app.cache import cached_call, cached_fit
    from svmviz_app.views import shared_figure

    ds = gaussians_on_circle(n_classes=8, n_per_class=6, seed=seed)   # content no other test drew
    names = [str(n) for n in ds.class_names]

    def voting(X, y, names):   # the DAG page's way: a cached_call fitting (cached) and drawing
        return plot_voting_regions(cached_fit(PairwiseVotingSVC(C=10.0), X, y), X, y, names)

    model = cached_fit(PairwiseVotingSVC(C=10.0), ds.X, ds.y)
    if path == "view":
        fig = shared_figure(plot_voting_regions, model, ds.X, ds.y, names)
    else:
        fig = cached_call(voting, ds.X, ds.y, names)
    st.plotly_chart(fig)
    st.write("drawn")


@pytest.mark.parametrize("path", ["view", "call"])
def test_a_figure_build_ends_when_its_session_is_stopped(monkeypatch, path):
    """The tab closes (Streamlit's session manager requests the script's stop, as Stop does) while
    the page draws the voting regions of 8 classes: the build ends at its next checkpoint, within
    one pairwise decision, and nothing is stored for the next session."""
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx
    from streamlit.testing.v1 import AppTest

    from svmviz.models.svc import BinarySVC
    from svmviz_app import cache

    monkeypatch.setattr(cache, "CHECK_EVERY_S", 0.0, raising=False)   # every checkpoint checks: no timing
    seed = int(np.random.default_rng().integers(1 << 30))
    ds = gaussians_on_circle(n_classes=8, n_per_class=6, seed=seed)
    cache.cached_fit(PairwiseVotingSVC(C=10.0), ds.X, ds.y)   # the page's fit, done: its run only draws
    original, calls = BinarySVC.decision_function, []

    def decision_function(self, X):   # (no st.session_state here: reading it is a stop check itself)
        ctx = get_script_run_ctx(suppress_warning=True)
        if ctx is None:   # another thread's (the server's warming fits every estimator): not the page's
            return original(self, X)
        calls.append(1)
        if len(calls) == 1:
            ctx.script_requests.request_stop()   # the tab closes now
        return original(self, X)

    monkeypatch.setattr(BinarySVC, "decision_function", decision_function)

    def stored():   # entries computed by the shared caches of results and views
        return [getattr(getattr(cache, name, None), "computed", None) for name in ("VIEWS", "RESULTS")]

    before = stored()
    at = AppTest.from_function(_page_drawing_voting_regions, args=(path, seed), default_timeout=120).run()
    assert calls and len(calls) <= 2          # a full build makes 28 pairs' decisions several times
    assert "drawn" not in [m.value for m in at.markdown] and not at.get("plotly_chart")
    assert stored() == before

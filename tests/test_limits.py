"""The work budget of one request (``svmviz.limits`` under the app's classroom budget): every bound
refuses before the work starts, with a ProblemTooLargeError saying what to lower, and the work below
a bound stays small. Without a budget (the library's default) the same work warns and runs."""

from __future__ import annotations

import io
import tracemalloc

import numpy as np
import pytest

from svmviz import limits
from svmviz.data import load_dataset
from svmviz.data.generators import checkerboard, generate, hypercubes
from svmviz.errors import ProblemTooLargeError
from svmviz.export import dumps_model, loads_model
from svmviz.models import BinarySVC, DAGSVC, PairwiseVotingSVC, SVMTreeClassifier
from svmviz_app.budget import CLASSROOM

pytestmark = pytest.mark.usefixtures("classroom_budget")


class WorkStarted(Exception):
    """Raised by a patched piece of work: the request got past the point where it should stop."""


def _peak_bytes(fn):
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_every_bound_is_a_positive_whole_number():
    for name in ("classes", "pairwise", "features", "tree_lp_work", "support_vectors",
                 "grid_values", "solver_samples"):
        value = getattr(CLASSROOM, name)
        assert isinstance(value, int) and value > 0, name
    assert limits.n_pairs(limits.max_classes_for_pairs(CLASSROOM.pairwise)) <= CLASSROOM.pairwise
    assert limits.n_pairs(limits.max_classes_for_pairs(CLASSROOM.pairwise) + 1) > CLASSROOM.pairwise


@pytest.mark.parametrize("name,params,words", [
    # /Data?data=gen:checkerboard;n_classes=20000;n_per_class=2
    ("checkerboard", dict(n_classes=20000, n_per_class=2), ["20,000", "classes", "fewer classes"]),
    ("gaussians_on_circle", dict(n_classes=101, n_per_class=2), ["101", "classes"]),
    ("hypercubes", dict(m=10, n_dims=1001), ["1,001", "features", "fewer features"]),
])
def test_generator_counts_are_bounded(name, params, words):
    with pytest.raises(ProblemTooLargeError) as err:
        generate(name, **params)
    for w in words:
        assert w in str(err.value)


def test_an_upload_with_too_many_classes_is_refused():
    rows = "".join(f"{i},{i % 101}\n{i + 0.5},{i % 101}\n" for i in range(101))
    f = io.BytesIO(("x1,label\n" + rows).encode())
    f.name = "many.csv"
    with pytest.raises(ProblemTooLargeError, match="many.csv has too many classes: 101"):
        load_dataset(f)


def test_pairwise_machines_are_bounded_before_the_first_pair_is_trained():
    # /DAG_SVM?data=gen:checkerboard;n_classes=100;n_per_class=43 asked for 4,950 pairwise SVMs
    ds = checkerboard(100, 3)

    def started(done, total):
        raise WorkStarted(f"pair {done} of {total} was trained")

    for est in (DAGSVC(), PairwiseVotingSVC()):
        with pytest.raises(ProblemTooLargeError) as err:
            est.fit(ds.X, ds.y, progress=started)
        assert "4,950" in str(err.value) and "use at most 20 classes" in str(err.value)
    with pytest.raises(ProblemTooLargeError, match="one-vs-one"):
        SVMTreeClassifier().fit(ds.X, ds.y)


def test_votes_and_regions_do_not_build_the_k_by_k_matrix():
    ds = checkerboard(16, 3, seed=1)
    model = PairwiseVotingSVC(kernel="linear", C=1.0).fit(ds.X, ds.y)
    P = np.random.default_rng(0).uniform(-1, 5, size=(20_000, 2))
    dense = P.shape[0] * 16 * 16 * 8  # one (n, K, K) float64 array: 41 MB
    assert _peak_bytes(lambda: model.votes(P)) < dense / 4
    assert _peak_bytes(lambda: model.regions(P)) < dense / 4
    # the same answers as from the full matrix of eq. 5
    D = model.pairwise_decision(P[:500])
    S = np.where(D >= 0, 1.0, -1.0)
    S[:, np.arange(16), np.arange(16)] = 0
    np.testing.assert_array_equal(model.votes(P[:500]), S.sum(axis=2))
    inside = ((D > 0) | np.eye(16, dtype=bool)[None]).all(axis=2)
    np.testing.assert_array_equal(model.regions(P[:500]),
                                  np.where(inside.any(axis=1), np.argmax(inside, axis=1), -1))
    np.testing.assert_array_equal(model.pair_decisions(P[:500]),
                                  D[:, model.pairs_[:, 0], model.pairs_[:, 1]])


def test_grid_values_are_bounded():
    ds = checkerboard(3, 10)
    model = PairwiseVotingSVC(kernel="linear").fit(ds.X, ds.y)
    with limits.budget(grid_values=1000):
        P = np.zeros((200, 2))
        assert model.pair_decisions(P).shape == (200, 3)  # 600 values
        with pytest.raises(ProblemTooLargeError, match="200 grid points × 9 values.*fewer classes"):
            model.pairwise_decision(P)


def test_solver_size_is_bounded_before_solving(monkeypatch):
    import svmviz.models.svc as svc

    def solve(self, problem):
        raise WorkStarted("the quadratic program was handed to the solver")

    monkeypatch.setattr(svc.BinaryKernelSVM, "_solve", solve)
    n = CLASSROOM.solver_samples + 1
    X = np.random.default_rng(0).normal(size=(n, 2))
    y = np.arange(n) % 2
    with pytest.raises(ProblemTooLargeError, match=f"{n:,} samples.*test fraction or a sample"):
        BinarySVC().fit(X, y)


def test_zero_solution_programs_are_bounded_before_any_lp(monkeypatch):
    # /SVM_Tree?data=gen:hypercubes;m=2200;n_dims=900: minutes of LPs per step shown
    import svmviz.geometry.zero_solution as zs

    ds = hypercubes(2200, 900)
    model = SVMTreeClassifier().fit(ds.X, ds.y)  # the fit itself takes about a second

    def started(*args, **kwargs):
        raise WorkStarted("a zero-solution linear program was started")

    monkeypatch.setattr(zs, "hard_class_zero", started)
    with pytest.raises(ProblemTooLargeError, match="2,200 samples × 900 features.*fewer"):
        model.zero_solution_report(0)


def _svc_with_support_vectors(n_sv: int, seed: int = 0) -> BinarySVC:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(40, 2))
    model = BinarySVC(kernel="rbf", gamma=0.5).fit(X, (X[:, 0] > 0).astype(int))
    sv = rng.normal(size=(n_sv, 2))
    model.support_vectors_ = sv
    model.support_ = np.arange(n_sv)
    model.dual_coef_ = rng.normal(scale=1e-3, size=(1, n_sv))
    model.alpha_ = np.abs(model.dual_coef_[0])
    model.n_support_ = np.array([n_sv // 2, n_sv - n_sv // 2])
    return model


def test_a_model_with_too_many_support_vectors_is_refused_before_it_computes():
    doc = dumps_model(_svc_with_support_vectors(200_000))
    # the document itself is within the size cap: the support vectors are what cost
    peak = {}

    def load():
        with pytest.raises(ProblemTooLargeError) as err:
            loads_model(doc)
        peak["msg"] = str(err.value)

    used = _peak_bytes(load)
    assert "200,000" in peak["msg"] and "support vectors" in peak["msg"]
    assert used < 200_000_000  # the probe's kernel block of 257 × 200,000 is never formed


def test_decisions_of_a_large_model_are_computed_in_bounded_blocks():
    model = _svc_with_support_vectors(20_000)
    P = np.random.default_rng(1).normal(size=(8_000, 2))
    old_block = 4096 * 20_000 * 8  # the former fixed 4,096-row block: 655 MB
    used = _peak_bytes(lambda: model.decision_function(P))
    assert used < old_block / 4
    ref = model.kernel_.gram(P[:100], model.support_vectors_) @ model.dual_coef_[0] + model.intercept_[0]
    np.testing.assert_allclose(model.decision_function(P[:100]), ref, rtol=1e-10, atol=1e-12)

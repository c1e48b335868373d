"""The tree decomposition's work bound (the budget's ``search_work``, ``svmviz.limits``): the ceiling-size
search of Chang, Guo, Lin and Lu (2009, §2.2), the global SVM it is compared with and the global
SVM of its bound terms state their SVM training before any SVM is trained and refuse above the
bound with a message saying what to lower; the Tree decomposition page shows that message."""

from __future__ import annotations

import numpy as np
import pytest

from apphelpers import page_test, problems
from svmviz import limits
from svmviz.data.generators import fourclass_like
from svmviz.errors import ProblemTooLargeError
from svmviz.models import TreeDecompositionSVC
from svmviz.models import tree_decomposition as td_module
from svmviz.models.tree_decomposition import C_GRID, GAMMA_GRID, global_svm_search

pytestmark = pytest.mark.usefixtures("classroom_budget")


class WorkStarted(Exception):
    """Raised by a patched leaf trainer: an SVM was about to be trained."""


@pytest.fixture
def no_training(monkeypatch):
    def train_leaf(*args, **kwargs):
        raise WorkStarted("an SVM was trained")

    monkeypatch.setattr(td_module, "train_leaf", train_leaf)


def _data(n):
    ds = fourclass_like(n=n, seed=0)
    return ds.X, ds.y


def test_the_paper_grid_on_large_data_is_refused_before_any_leaf_svm(no_training):
    X, y = _data(20_000)
    with pytest.raises(ProblemTooLargeError, match=r"63 θ.*smaller θ grid.*fewer samples"):
        TreeDecompositionSVC(C_grid=C_GRID, gamma_grid=GAMMA_GRID, top_k=10).fit(X, y)


def test_the_stated_work_counts_every_leaf_svm_the_search_may_train(monkeypatch):
    # what the check says equals Σ (leaf size)² × θ over the stages, read from the grown tree
    X, y = _data(600)
    seen = []
    monkeypatch.setattr(limits, "check_search_work", lambda work, what, advice: seen.append(work))
    m = TreeDecompositionSVC(C_grid=(1.0, 10.0), gamma_grid=(1.0, 2.0, 4.0), top_k=2, max_stages=2).fit(X, y)
    counts = m.tree_.counts
    mixed = counts.min(axis=1) > 0
    first = {int(n) for n in m.tree_.leaves_at(m.sigma0_) if mixed[n]}
    second = {int(n) for n in m.tree_.leaves_at(4 * m.sigma0_) if mixed[n]} - first
    expected = (6 * sum(float(m.tree_.n_samples[n]) ** 2 for n in first)
                + 2 * sum(float(m.tree_.n_samples[n]) ** 2 for n in second))
    assert seen == [pytest.approx(expected)]


def test_a_search_below_the_bound_runs():
    X, y = _data(400)
    m = TreeDecompositionSVC(C_grid=(1.0, 10.0), gamma_grid=(1.0, 4.0)).fit(X, y)
    assert m.search_path_


def test_the_global_comparison_and_the_bound_terms_are_bounded(no_training, monkeypatch):
    X, y = _data(2_000)
    with pytest.raises(ProblemTooLargeError, match=r"global SVM on 1,000 samples for each of 63 θ"):
        global_svm_search(X[:1000], y[:1000], X[1000:], y[1000:], C_GRID, GAMMA_GRID, solver="smo")
    with pytest.raises(ProblemTooLargeError, match="global SVM on 1,000 samples"):
        global_svm_search(X[:1000], y[:1000], X[1000:], y[1000:], C_GRID, GAMMA_GRID, solver="libsvm")
    monkeypatch.undo()
    m = TreeDecompositionSVC(C_grid=(1.0,), gamma_grid=(1.0,), max_stages=1).fit(X[:300], y[:300])
    with limits.budget(search_work=300 * 300 - 1), \
            pytest.raises(ProblemTooLargeError, match="bound terms on 300 samples"):
        m.bound_terms(X[:300], y[:300])


def test_the_page_says_what_to_lower_for_the_paper_grid_on_30000_points():
    at = page_test("pages/5_Tree_Decomposition.py")
    at.query_params.update({"data": "gen:checkerboard;n_classes=2;n_per_class=15000",
                            "td.grid": "paper", "td.top_k": "10"})
    at.run()
    assert not problems(at)
    errors = [e.value for e in at.error]
    assert any("smaller θ grid" in e and f"{limits.get_budget().search_work:,}" in e for e in errors), errors

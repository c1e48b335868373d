"""One-vs-one prediction of the SVM tree in one compiled pass over every pair tree's chain: the
same labels, votes and depths as running the pair trees one by one (``tree_predict``)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import load_digits, make_blobs

from svmviz.export import dumps_model, loads_model
from svmviz.geometry.halfspace_chain import first_exit, first_exits
from svmviz.models import SVMTreeClassifier
from svmviz.models._svm_tree_build import tree_pass, tree_predict


@pytest.mark.parametrize("values", ["integers", "floats"])
def test_first_exits_is_first_exit_chain_by_chain(values):
    rng = np.random.default_rng(3)
    sizes = [3, 0, 1, 5, 2]
    if values == "integers":   # many values are exactly 0, where a node keeps the point
        X = rng.integers(-2, 3, size=(300, 4)).astype(float)
        W = rng.integers(-2, 3, size=(sum(sizes), 4)).astype(float)
        t = rng.integers(-1, 2, size=sum(sizes)).astype(float)
    else:   # sums whose rounding depends on their order; more rows than one block
        X = rng.standard_normal((300, 37)) * 10.0 ** rng.integers(-6, 7, size=37)
        W = rng.standard_normal((sum(sizes), 37))
        t = rng.standard_normal(sum(sizes))
    hc = rng.choice([-1.0, 1.0], size=sum(sizes))
    start = np.r_[0, np.cumsum(sizes)]
    final = np.array([1, -1, 0, 1, -1])
    label, depth = first_exits(X, W, t, hc, start, final)
    assert label.shape == (300, 5) and depth.shape == (300,)
    want_depth = np.zeros(300, dtype=np.int64)
    for c in range(5):
        lo, hi = start[c], start[c + 1]
        want, d, _ = first_exit(X, W[lo:hi], t[lo:hi], hc[lo:hi], final[c])
        np.testing.assert_array_equal(label[:, c], want)
        want_depth += d
    np.testing.assert_array_equal(depth, want_depth)
    assert np.any(label == 0) and np.any(label == 1) and np.any(label == -1)


def _tree_by_tree(m, X):
    votes = np.zeros((len(X), len(m.classes_)))
    depth = np.zeros(len(X), dtype=np.int64)
    for (a, b), tree in zip(m.pairs_, m.trees_):
        label, d = tree_predict(tree, X)
        votes[:, a] += label < 0
        votes[:, b] += label > 0
        depth += d
    return votes, depth


def _same_as_tree_by_tree(m, X):
    votes, depth = _tree_by_tree(m, X)
    np.testing.assert_array_equal(m.decision_function(X), votes)
    np.testing.assert_array_equal(m.predict(X), m.classes_[np.argmax(votes, axis=1)])
    np.testing.assert_array_equal(m.predict_depth(X), depth)


def _digits():
    X, y = load_digits(return_X_y=True)
    keep = np.flatnonzero(y < 3)[:180]
    X = (X - X.mean(axis=0)) / np.maximum(X.std(axis=0), 1e-12)
    return X[keep[:120]], y[keep[:120]], X[keep[120:]]


def _blobs(k):
    X, y = make_blobs(n_samples=60 * k + 200, centers=k, cluster_std=2.5, random_state=k, n_features=3)
    return X[:60 * k], y[:60 * k], X[60 * k:]


@pytest.mark.parametrize("data", ["digits", "blobs3", "blobs5"])
@pytest.mark.parametrize("nonlinear", [None, {"k": 40, "C": 10.0, "cv": 2}])
def test_one_pass_is_tree_by_tree_and_survives_json(data, nonlinear, monkeypatch):
    Xtr, ytr, Xte = _digits() if data == "digits" else _blobs(int(data[-1]))
    m = SVMTreeClassifier(nonlinear=nonlinear).fit(Xtr, ytr)
    assert len(m.trees_) == len(np.unique(ytr)) * (len(np.unique(ytr)) - 1) // 2
    with_rbf = [tree for tree in m.trees_ if tree.svm is not None]
    assert bool(with_rbf) == (nonlinear is not None)
    for X in (Xtr, Xte):
        _same_as_tree_by_tree(m, X)
    back = loads_model(dumps_model(m))
    votes, _ = _tree_by_tree(m, Xte)
    np.testing.assert_array_equal(back.decision_function(Xte), votes)
    _same_as_tree_by_tree(back, Xte)
    # each RBF node sees only the samples that reach it
    seen = []
    for tree in with_rbf:
        reach = int(np.sum(tree_pass(tree, Xte)[1] == tree.nonlinear.depth + 1))
        rbf = tree.svm.decision_function
        monkeypatch.setattr(tree.svm, "decision_function", lambda X, rbf=rbf: seen.append(len(X)) or rbf(X))
        seen.append(reach)
    m.predict(Xte)
    expected, got = seen[:len(with_rbf)], seen[len(with_rbf):]
    assert got == [r for r in expected if r]
    assert not with_rbf or sum(expected) > 0


def test_a_refit_model_predicts_with_its_new_trees():
    Xtr, ytr, Xte = _blobs(3)
    m = SVMTreeClassifier().fit(Xtr, ytr)
    m.predict(Xte)
    m.fit(Xtr, (ytr + 1) % 3)
    _same_as_tree_by_tree(m, Xte)

"""'What happens next?' questions: the answer each one gives is what the model does next."""

from __future__ import annotations

import numpy as np
import pytest

from svmviz.data import train_test_split
from svmviz.errors import ParameterError
from svmviz.kernels import Kernel
from svmviz.models import DAGSVC, SVMTreeClassifier
from svmviz.models.svc import BinarySVC
from svmviz.questions import (END_OF_CHAIN, dag_reached_class, smo_next_pair, svm_tree_winner,
                              svm_tree_zero)
from svmviz.solvers import QPProblem, solve_qp


@pytest.fixture(scope="module")
def tree(fourclass):
    tr, _ = train_test_split(fourclass, test_size=2 / 3, seed=0)
    return SVMTreeClassifier(solver="smo", greedy_level=1, prune=False, ck_rule="paper").fit(tr.X, tr.y), tr


def test_tree_winner_is_the_next_node_and_leaves_out_the_most(tree):
    model, _ = tree
    t = model.trees_[0]
    n = len(t.trace)
    assert n >= 3
    for k in range(n - 1):
        q = svm_tree_winner(model, k)
        nxt = t.trace[k + 1]
        assert len(set(q.options)) == len(q.options) >= 2
        if nxt.chosen < 0:
            assert q.answer_text == END_OF_CHAIN
            continue
        # the node the tree built at depth k + 1 (no pruning) is the answer's candidate
        assert t.nodes[k + 1].label == q.answer_text
        won = nxt.candidates[q.answer]
        assert won.left_out == len(nxt.removed) == t.nodes[k + 1].left_out
        assert won.left_out == max(c.left_out for c in nxt.candidates)
        assert f"Candidate {won.label} wins" in q.explanation
    with pytest.raises(ParameterError, match="last step"):
        svm_tree_winner(model, n - 1)
    with pytest.raises(ParameterError, match="between"):
        svm_tree_winner(model, -1)


def test_tree_zero_question_matches_the_solver(tree):
    model, tr = tree
    t = model.trees_[0]
    seen = set()
    for k in range(len(t.trace) - 1):
        for c in t.trace[k + 1].candidates:
            if c.parent:
                continue
            q = svm_tree_zero(model, k, c.label)
            assert q.answer == (0 if c.zero_solution else 1)
            # the candidate's last C_k try, independently: at numerical precision, or certified
            last = c.tries[-1]
            assert c.zero_solution == (last.how != "solved" and last.zero_solution
                                       or last.how == "solved" and last.spread <= 20 * model.tol)
            seen.add(c.zero_solution)
    assert seen == {True, False}   # fourclass has zero solutions and proper ones
    with pytest.raises(ParameterError, match="no QP candidate 'z'"):
        svm_tree_zero(model, 0, "z")


def _blobs(n=40, seed=1):
    rng = np.random.default_rng(seed)
    X = np.r_[rng.normal(size=(n // 2, 2)) + [0.7, 0.5], rng.normal(size=(n // 2, 2)) - [0.7, 0.5]]
    return X, np.r_[np.ones(n // 2), np.zeros(n // 2)].astype(int)


def test_smo_next_pair_is_what_the_solver_moves_next():
    X, y = _blobs()
    model = BinarySVC(C=1.0, kernel="linear", trace=True, max_trace=10**4).fit(X, y)
    n = len(model.trace_)
    assert n >= 6
    s = np.where(y == model.classes_[1], 1.0, -1.0)
    problem = QPProblem.c_svm(s, 1.0, kernel=Kernel("linear"), X=X)
    for t in range(0, n - 1, max(1, n // 6)):
        q = smo_next_pair(model, t, seed=3)
        assert len(q.options) == len(set(q.options)) >= 2
        assert q.answer_text == f"({model.iterate_at(t + 1).pair[0]}, {model.iterate_at(t + 1).pair[1]})"
        # an independent solve stopped after t and after t + 1 iterations moves exactly that pair
        a0 = solve_qp(problem, backend="smo", max_iter=t, alpha0=None).alpha if t else np.zeros(len(y))
        a1 = solve_qp(problem, backend="smo", max_iter=t + 1).alpha
        moved = {int(i) for i in np.flatnonzero(~np.isclose(a0, a1, rtol=0, atol=1e-12))}
        assert moved and moved <= set(int(v) for v in model.trace_.pairs[t])
        assert q.answer_text == "(" + ", ".join(str(v) for v in model.trace_.pairs[t]) + ")"
    with pytest.raises(ParameterError, match="trace=True"):
        smo_next_pair(BinarySVC(kernel="linear").fit(X, y), 0)
    with pytest.raises(ParameterError, match="between"):
        smo_next_pair(model, n)


def test_smo_options_vary_with_the_seed_and_keep_the_answer():
    X, y = _blobs()
    model = BinarySVC(C=1.0, kernel="linear", trace=True).fit(X, y)
    qs = [smo_next_pair(model, 2, seed=s) for s in range(8)]
    assert len({q.answer_text for q in qs}) == 1
    assert len({q.answer for q in qs}) > 1   # the right option is not always in the same place


def test_dag_question_answers_the_class_the_dag_reaches():
    rng = np.random.default_rng(0)
    centers = np.array([[0, 0], [3, 0], [0, 3], [3, 3]], dtype=float)
    X = np.vstack([c + rng.normal(scale=0.9, size=(25, 2)) for c in centers])
    y = np.repeat([10, 20, 30, 40], 25)
    dag = DAGSVC(order=[30, 10, 40, 20], C=10.0).fit(X, y)
    G = rng.uniform(-2, 5, size=(40, 2))
    pred = dag.predict(G)
    for i in range(len(G)):
        q = dag_reached_class(dag, G, i)
        assert q.options == ("10", "20", "30", "40")
        assert q.answer_text == str(pred[i])
        assert q.explanation.count(" vs ") == 3
        assert f"not {pred[i]}" not in q.explanation   # the reached class never loses on the walk
    with pytest.raises(ParameterError, match="row of X"):
        dag_reached_class(dag, G, 40)


def test_dag_question_names_the_classes_as_the_page_does():
    rng = np.random.default_rng(1)
    X = np.vstack([c + rng.normal(scale=0.5, size=(20, 2)) for c in ([0, 0], [4, 0], [0, 4])])
    y = np.repeat([1, 2, 3], 20)
    dag = DAGSVC(order=[1, 2, 3], C=10.0).fit(X, y)
    q = dag_reached_class(dag, X, 25, class_names=["setosa", "versicolor", "virginica"])
    assert q.options == ("setosa", "versicolor", "virginica") and q.answer_text == "versicolor"
    assert "vs" in q.explanation and " 1 " not in q.explanation and "reaches class versicolor" in q.explanation
    with pytest.raises(ParameterError, match="3 classes"):
        dag_reached_class(dag, X, 0, class_names=["a", "b"])


def test_a_tree_question_won_on_a_tie_says_so_in_its_answer():
    """A student who picked the other of two equal candidates reads why the tree took this one;
    the class is written with the minus sign as everywhere else."""
    from svmviz.data import load_builtin, split_and_normalize

    train, _ = split_and_normalize(load_builtin("fourclass_like"), "none", 0.3, 0, True)
    model = SVMTreeClassifier().fit(train.X, train.y)
    trace, seen = model.trees_[0].trace, 0
    for k in range(len(trace) - 1):
        step = trace[k + 1]
        if step.chosen < 0:
            continue
        won = step.candidates[step.chosen]
        tied = [c.label for i, c in enumerate(step.candidates)
                if i != step.chosen and not c.zero_solution and c.left_out == won.left_out]
        text = svm_tree_winner(model, k).explanation
        assert ("tied with" in text) == bool(tied) and "class -" not in text, text
        seen += bool(tied)
    assert seen

"""SVM tree of seed 000: accuracy on fourclass, the trace, pruning, the zero-solution report,
SMO vs the cvxpy reference, persistence and scikit-learn conformance."""

from copy import deepcopy
from pathlib import Path

import numpy as np
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from svmviz.data import train_test_split
from svmviz.errors import ParameterError
from svmviz.export import dumps_model, loads_model
from svmviz.geometry.hulls import nearest_point_to
from svmviz.geometry.zero_solution import zero_solution_case
from svmviz.models import SVMTreeClassifier
from svmviz.models._svm_tree_build import TreeSettings, leaves_out, seed_threshold, step_candidates
from svmviz.solvers import QPProblem, solve_qp
from svmviz.kernels import Kernel

ROOT = Path(__file__).resolve().parents[1]
SOLVER = "smo" if (ROOT / "svmviz" / "solvers" / "smo.py").exists() else "cvxpy"


@pytest.fixture(scope="module")
def split(fourclass):
    tr, te = train_test_split(fourclass, test_size=2 / 3, seed=0)
    return tr.X, tr.y, te.X, te.y


@pytest.fixture(scope="module")
def model(split):
    Xtr, ytr, _, _ = split
    return SVMTreeClassifier(solver=SOLVER, greedy_level=1).fit(Xtr, ytr)


def _pm(model, y):
    return np.where(y == model.classes_[1], 1, -1)


def test_fourclass_accuracy_with_few_hyperplanes(model, split):
    _, _, Xte, yte = split
    assert model.score(Xte, yte) >= 0.95
    assert model.n_hyperplanes_ <= 16
    assert len(model.nodes_) == len([s for s in model.trace_ if s.chosen >= 0])


def test_removed_samples_are_non_hard_and_on_the_non_hard_side(model, split):
    Xtr, ytr, _, _ = split
    y = _pm(model, ytr)
    active = np.arange(len(y))
    for k, step in enumerate(model.trace_):
        np.testing.assert_array_equal(step.active, active)
        if step.chosen < 0:
            assert "stuck" in step.note and k == len(model.trace_) - 1
            break
        c = step.candidates[step.chosen]
        node = model.nodes_[k]
        np.testing.assert_allclose(node.w, c.w)
        assert c.left_out == max(q.left_out for q in step.candidates) == len(step.removed) > 0
        side = node.hard_class * (Xtr @ node.w - node.threshold)
        assert np.all(y[step.removed] == -node.hard_class)
        assert np.all(side[step.removed] < 0)
        hard = active[y[active] == node.hard_class]
        assert np.all(side[hard] > 0)  # the hard class is never left out (§3.2.1)
        expected = active[(side[active] < 0)]
        np.testing.assert_array_equal(np.sort(step.removed), expected)
        active = np.setdiff1d(active, step.removed)
    else:
        assert len(np.unique(y[active])) == 1


def test_predict_agrees_with_replaying_the_trace(model, split):
    _, _, Xte, _ = split
    kept = [n for n in model.nodes_ if not n.pruned]
    final = model.trees_[0].final_class
    replay = []
    for x in Xte:
        label = final
        for n in kept:
            if n.hard_class * (x @ n.w - n.threshold) < 0:
                label = -n.hard_class
                break
        replay.append(label)
    replay = model.classes_[(np.array(replay) > 0).astype(int)]
    np.testing.assert_array_equal(model.predict(Xte), replay)
    depth = model.predict_depth(Xte)
    assert depth.min() >= 1 and depth.max() <= len(kept)
    dec = model.decision_function(Xte)
    np.testing.assert_array_equal(model.classes_[(dec > 0).astype(int)], model.predict(Xte))


def test_pruning_never_raises_training_error(model, split):
    Xtr, ytr, _, _ = split
    tree = model.trees_[0]
    assert tree.pruned_errors <= tree.train_errors
    # the same chain with every node back in gives the "reached errors" of §4.3.5
    full = deepcopy(model)
    for n in full.trees_[0].nodes:
        n.pruned = False
    assert np.sum(model.predict(Xtr) != ytr) == tree.pruned_errors
    assert np.sum(full.predict(Xtr) != ytr) == tree.train_errors
    assert model.pruned_ == [n.depth for n in tree.nodes if n.pruned]
    assert model.n_hyperplanes_ == len(tree.nodes) - len(model.pruned_) < len(tree.nodes)
    unpruned = SVMTreeClassifier(solver=SOLVER, greedy_level=1, prune=False).fit(Xtr, ytr)
    assert unpruned.pruned_ == [] and unpruned.n_hyperplanes_ == len(tree.nodes)


def _c_svm_w(Xh, Xo, C_k):
    X = np.vstack([Xh, Xo])
    y = np.r_[np.ones(len(Xh)), -np.ones(len(Xo))]
    res = solve_qp(QPProblem.c_svm(y, np.where(y > 0, C_k, 1.0), kernel=Kernel("linear"), X=X),
                   backend="cvxpy")
    return np.linalg.norm(X.T @ (res.alpha * y))


def test_zero_solution_report_predicts_the_solver():
    rng = np.random.default_rng(3)
    Xh = rng.normal(size=(30, 2)) * [2.0, 1.0]            # hard class, wide
    Xo = rng.normal(size=(12, 2)) * 0.6 + [0.4, 0.1]      # its centroid inside the hard hull
    case = zero_solution_case(Xh, Xo, 1000.0, 1.0, hard_class=1)
    D = case.D_threshold
    assert np.isfinite(D) and case.zero_predicted
    assert _c_svm_w(Xh, Xo, 1.02 * D) < 1e-5              # just above D_k*: w = 0
    assert _c_svm_w(Xh, Xo, 0.9 * D) > 1e-3                # just below: w ≠ 0
    far = zero_solution_case(Xh, Xo + [20.0, 0.0], 1000.0, 1.0)
    assert not far.zero_predicted and far.D_threshold == np.inf


def test_every_zero_solution_try_was_predicted(model):
    n = 0
    for step in model.trace_:
        for c in step.candidates:
            for t in c.tries:
                assert t.zero_solution == t.zero_predicted, (c.label, t)
                n += 1
    assert n > 0 and any(t.zero_solution for s in model.trace_ for c in s.candidates for t in c.tries)


def test_h1_candidate_is_the_nearest_point_of_the_hard_hull(split):
    Xtr, ytr, _, _ = split
    y = np.where(ytr > 0, 1, -1)
    s = TreeSettings(1000.0, 10.0, 1e-3, 0, False, True, False, False, "cvxpy", 1e-8)
    for c in step_candidates(Xtr, y, s):
        Xh, Xo = Xtr[y == c.hard_class], Xtr[y != c.hard_class]
        mu = c.tries[-1].C_k / len(Xo)
        ref = nearest_point_to(Xo.mean(axis=0), Xh, mu=mu, solver="cvxpy").point
        np.testing.assert_allclose(c.nearest_point, ref, atol=1e-4)
        np.testing.assert_allclose(c.centroid, Xo.mean(axis=0))


def test_seed_threshold_algorithm():
    proj = np.array([3.0, 4.0, 5.0, 1.0, 2.0, 3.5])
    y = np.array([1, 1, 1, -1, -1, -1])
    t = seed_threshold(proj, y, 1)                         # r1 = 3, r2 = 2 (3.5 is misplaced)
    assert t == 2.5
    np.testing.assert_array_equal(leaves_out(proj, t, 1), [False, False, False, True, True, False])
    assert seed_threshold(proj, y, -1) == (3.5 + 4.0) / 2  # hard −1: r1 = 3.5, r2 = 4


@pytest.mark.skipif(SOLVER != "smo", reason="the SMO backend (svmviz/solvers/smo.py) is not there yet")
def test_smo_and_cvxpy_choose_the_same_first_three_nodes(split):
    Xtr, ytr, _, _ = split
    y = np.where(ytr > 0, 1, -1)
    settings = {b: TreeSettings(1000.0, 10.0, 1e-3, 0, True, True, True, True, b, 1e-5)
                for b in ("smo", "cvxpy")}
    active = np.arange(len(y))
    for _ in range(3):
        chosen = {}
        for b, s in settings.items():
            cands = step_candidates(Xtr[active], y[active], s)
            chosen[b] = max(cands, key=lambda c: c.left_out)
        a, r = chosen["smo"], chosen["cvxpy"]
        cos = a.w @ r.w / (np.linalg.norm(a.w) * np.linalg.norm(r.w))
        assert cos >= 0.999 and a.label == r.label and a.left_out == r.left_out
        out = leaves_out(Xtr[active] @ a.w, a.threshold, a.hard_class)
        active = active[~out]


def test_json_round_trip_keeps_predictions_and_trace(model, split):
    _, _, Xte, _ = split
    back = loads_model(dumps_model(model))
    np.testing.assert_array_equal(back.predict(Xte), model.predict(Xte))
    np.testing.assert_array_equal(back.predict_depth(Xte), model.predict_depth(Xte))
    assert len(back.trace_) == len(model.trace_)
    s0, b0 = model.trace_[0], back.trace_[0]
    assert [c.label for c in b0.candidates] == [c.label for c in s0.candidates]
    assert b0.zero_solution[0].D_threshold == s0.zero_solution[0].D_threshold
    assert back.pruned_ == model.pruned_


def test_nonlinear_extension_places_an_rbf_node(split):
    Xtr, ytr, Xte, yte = split
    m = SVMTreeClassifier(solver=SOLVER, nonlinear={"C": 10.0, "gamma": 10.0, "tradeoff": 0.02}).fit(Xtr, ytr)
    tree = m.trees_[0]
    nl = tree.nonlinear
    assert 0 <= nl.depth <= len(tree.kept()) and len(nl.scores) == len(tree.kept()) + 1
    assert nl.depth == int(len(nl.scores) - 1 - np.argmax(nl.scores[::-1]))
    assert tree.svm.support_vectors_.shape[0] == nl.n_support
    assert tree.svm.alpha_.shape[0] == len(Xtr)             # trained on the whole training set
    assert m.score(Xte, yte) >= 0.9
    assert m.predict_depth(Xte).max() <= nl.depth + 1
    back = loads_model(dumps_model(m))
    np.testing.assert_array_equal(back.predict(Xte), m.predict(Xte))


def test_multiclass_one_vs_one():
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    m = SVMTreeClassifier(solver=SOLVER).fit(X, y)
    assert len(m.trees_) == 3 and m.pairs_.tolist() == [[0, 1], [0, 2], [1, 2]]
    assert m.score(X, y) >= 0.95
    assert m.decision_function(X).shape == (len(X), 3)


def test_bad_parameters_are_explained():
    X = np.array([[0.0, 0], [1, 1], [0, 1], [1, 0]])
    y = np.array([0, 0, 1, 1])
    for bad in ({"reduction": 1.0}, {"greedy_level": 2}, {"use_c_svm": False, "use_h1_svm": False},
                {"nonlinear": {"gama": 1}}, {"w_tol": -1}):
        with pytest.raises(ParameterError):
            SVMTreeClassifier(solver=SOLVER, **bad).fit(X, y)


# scikit-learn conformance. Skipped checks: none — every check of scikit-learn's suite passes
# (fit takes no sample_weight, so the sample-weight checks do not apply and are not run).
@parametrize_with_checks([SVMTreeClassifier(solver=SOLVER)])
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_step_figure_shows_the_step(model, split):
    from svmviz.plots.svm_tree import animation_figure, candidates_frame, step_figure

    Xtr, ytr, _, _ = split
    k = 1
    step = model.trace_[k]
    fig = step_figure(model, Xtr, ytr, k, resolution=40, overlays=("rch", "centroid", "nearest"))
    assert fig.layout.title.text.startswith(f"Step {k + 1} of {len(model.trace_)}")
    chosen = step.candidates[step.chosen]
    bold = [t for t in fig.data if t.type == "scatter" and t.mode == "lines" and t.line.width == 5]
    assert len(bold) == 1 and bold[0].name.startswith(chosen.label + ":")
    removed = next(t for t in fig.data if (t.name or "").startswith("removed by this step"))
    assert len(removed.x) == len(step.removed)
    texts = {a.text for a in fig.layout.annotations}
    assert {f"<b>{c.label}</b>" for c in step.candidates if not c.zero_solution} <= texts and "w" in texts
    assert list(candidates_frame(step)["left out"]) == [c.left_out for c in step.candidates]
    anim = animation_figure(model, Xtr, ytr, resolution=30)
    assert len(anim.frames) == len(model.trace_) + 1
    assert len(anim.layout.sliders[0].steps) == len(anim.frames)
    assert all(len(f.data) == len(anim.data) for f in anim.frames)

"""The lessons of the tree decomposition, the DAG / weighted DAG and the Scatter SVM, read from the
fitted models: each step is what the method did (the tree's splits in the order it grew, each
leaf at σ₀, the search's stages, the DAG's comparisons, the recorded SMO solve), the last step is
the model's own result, and every "what happens next?" answer is what the next step shows."""

from __future__ import annotations

import numpy as np
import pytest

from svmviz.data.generators import fourclass_like, generate, gaussians_on_circle
from svmviz.errors import ParameterError
from svmviz.models import DAGSVC, PairwiseVotingSVC, ScatterSVC, TreeDecompositionSVC, WeightedDAGSVC
from svmviz.models.dag_steps import dag_steps
from svmviz.models.scatter_steps import iterate_model, scatter_run, step_texts
from svmviz.models.td_steps import MAX_PHASE_STEPS, split_order, td_steps
from svmviz.plots.dag import plot_dag_step, plot_fused_regions
from svmviz.plots.scatter import plot_prototypes, plot_scatter_iterate
from svmviz.plots.tree_decomposition import plot_partition, plot_td_step
from svmviz.questions import dag_next, scatter_next, td_next


# ------------------------------------------------------------------ tree decomposition
@pytest.fixture(scope="module")
def td():
    ds = fourclass_like(n=500, seed=1)
    model = TreeDecompositionSVC(C_grid=(1.0, 100.0), gamma_grid=(1.0, 10.0), random_state=0).fit(ds.X, ds.y)
    return model, ds


def _leaves_after(tree, s: int) -> set:
    """The leaves after s splits, by replaying the splits on the tree's own child arrays."""
    leaves = {0}
    for node in split_order(tree)[:s]:
        leaves.remove(int(node))
        leaves |= {int(tree.left[node]), int(tree.right[node])}
    return leaves


def test_td_steps_grow_the_tree_visit_the_leaves_and_end_with_the_model(td):
    model, ds = td
    steps = td_steps(model)
    kinds = [s.kind for s in steps]
    tree = model.tree_
    order = split_order(tree)
    # every split node comes once, each after its parent: the order grow_tree split them in
    assert sorted(order.tolist()) == np.flatnonzero(tree.left >= 0).tolist()
    parent = {int(c): int(k) for k in order for c in (tree.left[k], tree.right[k])}
    pos = {int(k): i for i, k in enumerate(order)}
    assert all(pos[parent[int(k)]] < pos[int(k)] for k in order if int(k) in parent)
    # after all splits, the leaves are those of the tree at σ₀ (the model's first stage)
    assert _leaves_after(tree, order.size) == {lf.node for lf in model.levels_[0]}
    assert kinds == (["split"] * (order.size + 1) + ["leaf"] * len(model.levels_[0])
                     + ["stage"] * len(model.search_path_) + ["chosen"])
    assert [s.count for s in steps if s.kind == "stage"] == list(range(len(model.search_path_)))
    # the last step is the page's final picture, the partition at σ_opt
    last = plot_td_step(model, ds.X, ds.y, steps[-1]).to_dict()
    assert last == plot_partition(model, ds.X, ds.y).to_dict()
    assert f"σ = {model.sigma_}" in steps[-1].summary and f"C = {model.params_['C']:g}" in steps[-1].summary
    for s in steps:
        assert s.summary and s.explanation
        plot_td_step(model, ds.X, ds.y, s)


def test_td_long_phases_are_grouped():
    rng = np.random.default_rng(0)
    X, y = rng.uniform(size=(1200, 2)), rng.integers(0, 2, 1200)   # noise: the tree splits down to σ₀
    model = TreeDecompositionSVC(sigma0=30, C_grid=(10.0,), gamma_grid=(1.0,), max_stages=1).fit(X, y)
    steps = td_steps(model)
    splits = [s for s in steps if s.kind == "split"]
    assert split_order(model.tree_).size > MAX_PHASE_STEPS
    assert len(splits) == MAX_PHASE_STEPS + 1 and splits[-1].count == split_order(model.tree_).size
    assert all(b.first == a.count for a, b in zip(splits, splits[1:]))


def test_td_questions_are_answered_by_the_next_step(td):
    model, _ = td
    steps = td_steps(model)
    tree = model.tree_
    for k in range(len(steps) - 1):
        q = td_next(model, k)
        nxt = steps[k + 1]
        assert len(set(q.options)) == len(q.options) >= 2
        if nxt.kind == "split":
            node = int(split_order(tree)[steps[k].count])
            pure = sum(np.count_nonzero(tree.counts[c]) < 2 for c in (tree.left[node], tree.right[node]))
            assert q.answer == pure
            # the next step's picture holds those children as leaves, pure ones filled
            assert {int(tree.left[node]), int(tree.right[node])} <= _leaves_after(tree, nxt.count) | set(
                split_order(tree)[:nxt.count].tolist())
            assert f"node {node} (" in nxt.explanation
        elif nxt.kind == "leaf":
            lf = model.levels_[0][nxt.first]
            assert q.answer == (0 if lf.homogeneous else 1)
            assert ("pure" in nxt.summary) == lf.homogeneous or nxt.count - nxt.first > 1
        elif nxt.kind == "stage" and nxt.count == 0:
            lvl = model.search_path_[0]
            assert q.answer_text == f"C = {lvl.C[lvl.best]:g}, γ = {lvl.gamma[lvl.best]:g}"
            assert q.answer_text in nxt.summary
        elif nxt.kind == "stage":
            path = model.search_path_
            gain = path[nxt.count].best_accuracy - path[nxt.count - 1].best_accuracy
            assert q.answer == (0 if gain >= model.min_gain else 1)
        else:
            assert q.answer_text == f"σ = {model.sigma_}" and q.answer_text in nxt.summary
    with pytest.raises(ParameterError, match="last step"):
        td_next(model, len(steps) - 1)


# ------------------------------------------------------------------ DAG and weighted DAG
@pytest.fixture(scope="module")
def dag():
    ds = generate("local_triangles", n_per_class=12, std=0.25)
    voting = PairwiseVotingSVC(kernel="linear", C=10.0).fit(ds.X, ds.y)
    wdag = WeightedDAGSVC(kernel="linear", C=10.0, n_clusters=3, random_state=0).fit(ds.X, ds.y)
    return DAGSVC.from_pairwise(voting), wdag, ds


def test_dag_steps_walk_the_dag_and_end_with_the_weighted_dag(dag):
    model, wdag, ds = dag
    names = [str(n) for n in ds.class_names]
    K = model.classes_.size
    for probe in range(0, len(ds.y), 7):
        x = ds.X[probe]
        steps = dag_steps(model, x, names, wdag)
        nodes = [s for s in steps if s.kind == "node"]
        assert len(nodes) == K - 1 and len(steps) == K + 1 + len(wdag.means_) + 1
        # the pairs compared are the DAG's own path, and the class left is its prediction
        path = model.decision_path(x[None])[0]
        assert [tuple(model.classes_[list(s.pair)]) for s in nodes] == [tuple(p) for p in path]
        assert model.classes_[nodes[-1].remaining[0]] == model.predict(x[None])[0]
        for s in nodes:
            assert s.loser == (s.pair[1] if s.value >= 0 else s.pair[0])
        # the last step is the weighted DAG's own label
        assert wdag.classes_[steps[-1].loser] == wdag.predict(x[None])[0]
    fig = plot_dag_step(model, ds.X, ds.y, ds.X[0], steps[-1], names, None, wdag).to_dict()
    page = plot_fused_regions(wdag, ds.X, ds.y, names).to_dict()
    assert fig["data"][:len(page["data"])] == page["data"] and fig["data"][-1]["name"] == "the sample"
    assert fig["layout"] == page["layout"]


def test_dag_questions_are_answered_by_the_next_step(dag):
    model, wdag, ds = dag
    names = [str(n) for n in ds.class_names]
    x = ds.X[3]
    steps = dag_steps(model, x, names, wdag)
    for k in range(len(steps) - 1):
        q, nxt = dag_next(model, x, k, names, wdag), steps[k + 1]
        if nxt.kind == "node":
            assert q.prompt.endswith("Which class is eliminated next?")
            assert f"not {q.answer_text}." in nxt.summary
        elif nxt.kind == "clusters":
            assert f"cluster {int(q.answer_text.split()[-1])} (w" in nxt.summary
        else:
            assert f"says {q.answer_text}" in nxt.summary
    with pytest.raises(ParameterError, match="last step"):
        dag_next(model, x, len(steps) - 1, names, wdag)


# ------------------------------------------------------------------ Scatter SVM
@pytest.mark.parametrize("params", [{}, {"formulation": "nu", "bias": True}, {"kernel": "linear"}])
def test_scatter_run_records_the_fit_s_own_solve(params):
    ds = gaussians_on_circle(4, 15, seed=1)
    model = ScatterSVC(**params).fit(ds.X, ds.y)
    run = scatter_run(model, ds.X, ds.y)
    assert run.iterations[0] == 0 and run.iterations[-1] == model.n_iter_ == run.n_iter
    assert np.all(np.diff(run.iterations) > 0) and len(run) <= 16
    np.testing.assert_array_equal(run.alphas[-1], model.alpha_)   # the same solve, to the last bit
    assert run.scatter[-1] == pytest.approx(model.scatter_, rel=1e-12)
    assert run.violation[-1] <= model.tol
    # each prototype's move, ‖Δm_c‖ in feature space, against the distance of the iterates' prototypes
    a, b = (iterate_model(model, ds.X, ds.y, run.alphas[s]) for s in (len(run) - 3, len(run) - 2))
    kern = model.kernel_
    for c in range(model.classes_.size):
        m = ds.y == model.classes_[c]
        d = (b.alpha_ - a.alpha_)[m]
        assert run.moves[len(run) - 3, c] == pytest.approx(np.sqrt(max(d @ kern.gram(ds.X[m], ds.X[m]) @ d, 0)),
                                                          abs=1e-12)
    # the snapshot at the end is the page's prototype view of the model (the same regions and prototypes)
    end = plot_scatter_iterate(model, run, len(run) - 1, ds.X, ds.y).to_dict()
    page = plot_prototypes(model, ds.X, ds.y).to_dict()
    assert end["data"][:len(page["data"])] == page["data"]


def test_scatter_c_form_with_bias_ends_at_the_fit_s_optimum():
    ds = gaussians_on_circle(3, 15, seed=2)
    model = ScatterSVC(bias=True).fit(ds.X, ds.y)
    run = scatter_run(model, ds.X, ds.y)
    assert run.converged and run.violation[-1] <= model.tol
    assert run.objective[-1] == pytest.approx(model.objective_, rel=1e-3)


def test_scatter_questions_are_answered_by_the_next_step():
    ds = gaussians_on_circle(4, 15, seed=1)
    model = ScatterSVC().fit(ds.X, ds.y)
    run = scatter_run(model, ds.X, ds.y)
    S = model.sensitivity_map(ds.X)
    names, feats = [str(c) for c in ds.class_names], list(ds.feature_names)
    texts = step_texts(model, run, names, S, feats)
    assert len(texts) == len(run) + 1
    for k in range(len(texts) - 1):
        q = scatter_next(run, k, names, S, feats)
        if k + 1 < len(run):
            assert f"prototype {q.answer_text} moved most" in texts[k + 1][0]
        else:
            assert f"feature {q.answer_text} changes" in texts[k + 1][0]
    with pytest.raises(ParameterError):
        scatter_next(run, len(texts) - 1, names, S, feats)


def test_td_one_leaf_is_a_leaf():
    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(36, 2)), np.repeat([0, 1], 18)   # 28 training samples: σ₀ = 30 keeps the root alone
    model = TreeDecompositionSVC(C_grid=(1.0,), gamma_grid=(1.0,)).fit(X, y)
    stage = next(s for s in td_steps(model) if s.kind == "stage")
    assert "σ = 30, 1 leaf, best" in stage.summary and "1 leaves" not in stage.explanation
    assert "1 leaf," in plot_partition(model, X, y).layout.title.text

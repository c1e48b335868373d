"""The SVM tree's final partition draws each node's hyperplane only where that node acts: inside
the region the nodes before it pass on (Zapién Arreola, Fehr and Burkhardt 2007, §3.2.1), not as
a line across the whole plane."""

from __future__ import annotations

import numpy as np
import pytest

from svmviz.models import SVMTreeClassifier
from svmviz.plots.common import Plane
from svmviz.plots.svm_tree import final_figure


def _ring(n: int = 30, seed: int = 7):
    """Class −1 on a ring around a blob of class +1: a chain of several nodes."""
    rng = np.random.default_rng(seed)
    angle, radius = rng.uniform(0, 2 * np.pi, n), rng.uniform(1.0, 1.5, n)
    X = np.vstack([np.c_[radius * np.cos(angle), radius * np.sin(angle)], rng.normal(0, 0.35, (n, 2))])
    return X, np.repeat([-1, 1], n)


@pytest.mark.parametrize("pruned", [True, False])
def test_each_node_line_lies_where_the_earlier_nodes_pass_samples_on(pruned):
    X, y = _ring()
    model = SVMTreeClassifier(greedy_level=1, C_hard=100.0).fit(X, y)
    tree = model.trees_[0]
    nodes = tree.kept() if pruned else tree.nodes
    assert len(nodes) >= 3
    fig = final_figure(model, X, y, pruned=pruned, plane=Plane(X))
    lines = {t.name: t for t in fig.data if getattr(t, "mode", None) == "lines" and str(t.name).startswith("node ")}
    assert lines
    for i, n in enumerate(nodes):
        t = lines.get(f"node {n.depth + 1} ({n.label})")
        if t is None:
            continue
        ends = np.c_[t.x, t.y]
        on_line = n.w @ ends.T - n.threshold
        assert np.allclose(on_line, 0, atol=1e-8)      # still the node's own hyperplane
        inner = ends[0] + np.linspace(0.01, 0.99, 25)[:, None] * (ends[1] - ends[0])
        for earlier in nodes[:i]:   # an earlier node decides nothing along it
            assert np.all(earlier.hard_class * (inner @ earlier.w - earlier.threshold) >= -1e-9)


@pytest.mark.parametrize("pruned", [True, False])
def test_the_final_partition_names_the_classes_as_the_step_pictures_do(pruned):
    """"class −1" / "class +1" with the minus sign, as in every step picture (not "-1" / "1")."""
    X, y = _ring()
    model = SVMTreeClassifier().fit(X, y)
    names = [t.name for t in final_figure(model, X, y, pruned=pruned).data
             if getattr(t, "mode", None) == "markers" and t.x[0] is not None]   # not the regions' swatches
    assert names[:2] == ["class −1", "class +1"]


@pytest.fixture(scope="module")
def fourclass_trees(fourclass):
    from svmviz.data.preprocessing import split_and_normalize

    train, _ = split_and_normalize(fourclass, "none", 0.3, 0, True)
    return {"linear": SVMTreeClassifier().fit(train.X, train.y),
            "rbf": SVMTreeClassifier(nonlinear={"k": 5}).fit(train.X, train.y)}, train


@pytest.mark.parametrize("kind, pruned", [("linear", True), ("linear", False), ("rbf", True)])
def test_the_final_regions_are_polygons_that_agree_with_the_trees_predictions(fourclass_trees, kind, pruned):
    """Exact cells for the linear nodes, the RBF node's sides traced and cut to the cell that
    reaches it; in the legend; a few kB instead of a heatmap's half a megabyte."""
    import plotly.io as pio
    from regionhelpers import clear_of_boundaries, labels_from_regions

    from svmviz.models.svm_tree import chain_arrays, chain_predict, tree_predict

    models, train = fourclass_trees
    model = models[kind]
    tree = model.trees_[0]
    assert (tree.svm is not None) == (kind == "rbf")
    fig = final_figure(model, train.X, train.y, pruned=pruned)
    assert not any(t.type == "heatmap" for t in fig.data)
    assert len(pio.to_json(fig, validate=False)) < 40_000
    names = {"decided class −1": -1, "decided class +1": 1}
    swatches = {t.name for t in fig.data if t.showlegend is not False and t.x[0] is None}
    assert set(names) <= swatches

    def predict(P):
        if pruned:
            return tree_predict(tree, P)[0]
        return chain_predict(P, *chain_arrays(tree.nodes, 2), tree.final_class)[0]

    xr, yr = fig.layout.xaxis.range, fig.layout.yaxis.range
    xs, ys = np.linspace(*xr, 101)[1:-1], np.linspace(*yr, 97)[1:-1]
    P = np.column_stack([a.ravel() for a in np.meshgrid(xs, ys)])
    got, hits = labels_from_regions(fig, names, P)
    clear = clear_of_boundaries(predict, P, 1.5 * (xr[1] - xr[0]) / 200)
    assert clear.mean() > 0.8
    assert np.all(hits[clear] == 1)
    assert np.array_equal(got[clear].astype(int), predict(P)[clear])


def test_the_final_partition_fits_a_half_width_column():
    """The page shows both partitions side by side: a short title, the counts under it, the
    legend (now four entries with the regions) under the axes instead of over the title."""
    X, y = _ring()
    model = SVMTreeClassifier().fit(X, y)
    for pruned in (True, False):
        fig = final_figure(model, X, y, pruned=pruned)
        assert len(fig.layout.title.text) <= 30
        assert "hyperplanes" in fig.layout.title.subtitle.text and fig.layout.title.subtitle.font.size >= 14
        assert fig.layout.legend.yref == "container" and fig.layout.legend.yanchor == "bottom"

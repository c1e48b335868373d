"""The regions of an SVM tree step (Zapién Arreola, Fehr and Burkhardt 2007, §3.2): exact polygons
cut by the nodes' hyperplanes, small enough to send on every step click."""

from __future__ import annotations

import json

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
import pytest

from svmviz.models import SVMTreeClassifier
from svmviz.models.svm_tree import chain_arrays, chain_predict
from svmviz.plots.common import Plane, padded_box
from svmviz.plots.svm_tree import decided_regions, step_figure, step_spec


def _inside(poly: np.ndarray, P: np.ndarray) -> np.ndarray:
    """Points of P strictly inside a convex polygon (either orientation)."""
    e = np.roll(poly, -1, axis=0) - poly
    cross = e[None, :, 0] * (P[:, None, 1] - poly[None, :, 1]) - e[None, :, 1] * (P[:, None, 0] - poly[None, :, 0])
    return np.all(cross > 0, axis=1) | np.all(cross < 0, axis=1)


@pytest.fixture(scope="module")
def tree_fit(fourclass):
    from svmviz.data.preprocessing import split_and_normalize

    train, _ = split_and_normalize(fourclass, "none", 0.3, 0, True)
    return SVMTreeClassifier().fit(train.X, train.y), train


def _labels_from_polygons(regions, P):
    label = np.zeros(len(P), dtype=np.int64)
    hits = np.zeros(len(P), dtype=np.int64)
    for sign, poly in regions:
        inside = _inside(poly, P)
        label[inside] = sign
        hits += inside
    return label, hits


@pytest.mark.parametrize("k", [1, 4, 12, -1])
def test_region_polygons_match_the_chains_predictions_on_a_grid(tree_fit, k):
    model, train = tree_fit
    tree = model.trees_[0]
    k = k % len(tree.trace)
    plane = Plane(train.X)
    lo, hi = padded_box(plane.to2d(train.X))
    regions = decided_regions(tree.nodes[:k], plane, lo, hi)
    xs, ys = np.linspace(lo[0], hi[0], 99)[1:-1], np.linspace(lo[1], hi[1], 91)[1:-1]   # inside the box
    P = np.column_stack([a.ravel() for a in np.meshgrid(xs, ys)])
    W, t, hc = chain_arrays(tree.nodes[:k], 2)
    want, _ = chain_predict(plane.lift(P), W, t, hc, 0)     # 0: no node has decided the point
    got, hits = _labels_from_polygons(regions, P)
    # points on a hyperplane belong to either side: leave out those within rounding of one
    S = np.abs(plane.lift(P) @ W.T - t) if k else np.zeros((len(P), 0))
    clear = np.all(S > 1e-9, axis=1)
    assert hits.max() <= 1                                   # the regions do not overlap
    assert np.array_equal(got[clear], want[clear])
    assert (want != 0).any() == bool(regions)


def test_region_polygons_cover_the_whole_box_when_the_chain_decides_everything():
    class Node:
        def __init__(self, w, threshold, hard_class):
            self.w, self.threshold, self.hard_class = np.asarray(w, float), threshold, hard_class

    plane = Plane(np.array([[0.0, 0.0], [1.0, 1.0]]))
    # x1 < 0.5 is labelled +1 by the first node (hard class −1), the rest −1 by the second
    nodes = [Node([1, 0], 0.5, -1), Node([1, 0], 2.0, 1)]
    regions = decided_regions(nodes, plane, np.array([0.0, 0.0]), np.array([1.0, 1.0]))
    assert [s for s, _ in regions] == [1, -1]
    area = [0.5 * abs(np.dot(p[:, 0], np.roll(p[:, 1], -1)) - np.dot(p[:, 1], np.roll(p[:, 0], -1)))
            for _, p in regions]
    assert area == pytest.approx([0.5, 0.5])


def test_every_step_figure_of_fourclass_is_small_enough_to_send_on_a_click(tree_fit):
    model, train = tree_fit
    for k in range(len(model.trees_[0].trace)):
        fig = step_figure(model, train.X, train.y, k)
        assert len(pio.to_json(fig, validate=False)) < 40_000, k
        assert not any(tr.type == "heatmap" for tr in fig.data)


def _sent(fig) -> dict:
    """What ``st.plotly_chart`` sends of a figure (its dict as JSON), read back."""
    return json.loads(pio.to_json(fig.to_dict(), validate=False))


def test_the_step_spec_is_what_plotly_validation_makes_of_it():
    """The page draws a step from ``step_spec``'s dict without Plotly's validation
    (``SharedFigure.of``): that dict, made a figure, is exactly what the validated figure sends,
    arrays as typed arrays included; on fourclass-like data and on three classes in 3-D with the
    overlays."""
    from svmviz.data.generators import fourclass_like
    from svmviz_app.views import SharedFigure, compact_figure

    ds = fourclass_like(400)
    model = SVMTreeClassifier(solver="smo").fit(ds.X, ds.y)
    cases = [(model, ds.X, ds.y, k, 0, None, ()) for k in range(len(model.trees_[0].trace))]
    rng = np.random.default_rng(0)
    X3, y3 = rng.normal(size=(90, 3)), np.repeat([0, 1, 2], 30)
    X3[y3 == 1] += 1.5
    m3 = SVMTreeClassifier(solver="smo").fit(X3, y3)
    plane = Plane(X3, (0, 1), "pca", ["a", "b", "c"])
    cases += [(m3, X3, y3, k, t, plane, ("centroid", "nearest")) for t in range(len(m3.trees_))
              for k in range(len(m3.trees_[t].trace))]
    for model, X, y, k, t, plane, overlays in cases:
        spec = step_spec(model, X, y, k, t, plane, overlays=overlays)
        validated = go.Figure(spec)
        assert _sent(SharedFigure.of(spec)) == _sent(validated), (k, t)
        assert isinstance(validated.data[0], go.Scatter)
        # compacted (float32 samples) the same from the dict as from the validated figure
        assert _sent(compact_figure(step_spec(model, X, y, k, t, plane, overlays=overlays))) == \
            _sent(compact_figure(go.Figure(step_spec(model, X, y, k, t, plane, overlays=overlays))))

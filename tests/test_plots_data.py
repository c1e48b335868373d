"""The data plot and the point layer every figure shares (``svmviz.plots.data``,
``svmviz.plots.common``): large data drawn with WebGL and a stated, seeded sample, a fixed decision
grid, the Data page's planes and test markers."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest

from svmviz.data import Dataset, load_builtin
from svmviz.plots import common
from svmviz.plots.data import plot_dataset


def test_large_scatter_uses_webgl_and_a_stated_seeded_sample():
    n = common.MAX_DRAWN_POINTS + 7_000
    P = np.random.default_rng(0).normal(size=(n, 2))
    y = (P[:, 0] > 0).astype(int)
    fig = common.add_class_scatter(go.Figure(), P, y)
    assert all(isinstance(t, go.Scattergl) for t in fig.data)
    assert sum(len(t.x) for t in fig.data) == common.MAX_DRAWN_POINTS
    note = fig.layout.annotations[0].text
    assert f"{common.MAX_DRAWN_POINTS:,} of the {n:,}" in note and "seed" in note
    again = common.add_class_scatter(go.Figure(), P, y)   # the same sample every time
    np.testing.assert_array_equal(again.data[0].x, fig.data[0].x)
    # between the threshold and the cap: WebGL, every point, no note
    m = common.WEBGL_THRESHOLD + 1
    mid = common.add_class_scatter(go.Figure(), P[:m], y[:m])
    assert all(isinstance(t, go.Scattergl) for t in mid.data) and not mid.layout.annotations
    assert sum(len(t.x) for t in mid.data) == m
    small = common.add_class_scatter(go.Figure(), P[:50], y[:50])
    assert all(type(t) is go.Scatter for t in small.data)


def test_data_plot_of_a_large_upload_samples_train_and_test():
    n = common.MAX_DRAWN_POINTS + 1
    P = np.random.default_rng(2).normal(size=(n, 3))
    ds = Dataset(P, (P[:, 0] > 0).astype(int))
    fig = plot_dataset(ds, test=ds)
    assert sum(len(t.x) for t in fig.data) == 2 * common.MAX_DRAWN_POINTS
    assert len(fig.layout.annotations) == 2 and "test points" in fig.layout.annotations[1].text


def test_decision_grid_resolution_is_fixed():
    P = np.random.default_rng(3).normal(size=(10, 2))
    xs, ys, G = common.grid(P)
    assert len(xs) == len(ys) == common.GRID_RESOLUTION
    xs, _, G = common.grid(P, resolution=10**6)   # a huge request is capped
    assert len(xs) == common.MAX_GRID_RESOLUTION and len(G) == common.MAX_GRID_RESOLUTION**2



def test_data_plot_planes_and_test_markers():
    from svmviz.data import DataError, split_and_normalize

    ds = load_builtin("wine")
    train, test = split_and_normalize(ds, "stddev", 0.3, seed=0)
    f = plot_dataset(train, (0, 6), test=test, title="wine")
    assert f.layout.title.text == "wine: 124 training + 54 test samples, 13 features — features alcohol, flavanoids"
    assert [t.name for t in f.data] == ["class_0", "class_1", "class_2",
                                        "class_0 (test)", "class_1 (test)", "class_2 (test)"]
    assert sum(len(t.x) for t in f.data[3:]) == 54 and f.data[3].marker.symbol.endswith("-open")
    np.testing.assert_array_equal(f.data[0].x, train.X[train.y == 0, 0])
    pca = plot_dataset(ds, method="pca")
    assert pca.layout.xaxis.title.text == "PCA component 1" and "PCA plane" in pca.layout.title.text
    with pytest.raises(DataError, match="two different features"):
        plot_dataset(ds, (2, 2))
    with pytest.raises(DataError, match="plane must be"):
        plot_dataset(ds, method="tsne")

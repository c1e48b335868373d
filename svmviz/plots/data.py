"""The data plot of the Data page and ``svmviz plot-data``."""

from __future__ import annotations

import plotly.graph_objects as go

from svmviz.data.dataset import Dataset
from svmviz.plots.common import Plane, add_class_scatter, base_layout


def plot_dataset(ds: Dataset, features=(0, 1), method: str = "features") -> go.Figure:
    """Scatter of ``ds``: 2-D directly; for d > 2 two chosen features or the PCA plane."""
    fig = go.Figure()
    if ds.n_features == 1:
        import numpy as np
        X2 = np.column_stack([ds.X[:, 0], np.zeros(ds.n_samples)])
        labels = [ds.feature_names[0], ""]
    else:
        plane = Plane(ds.X, features, method, ds.feature_names)
        X2, labels = plane.to2d(ds.X), plane.labels
    add_class_scatter(fig, X2, ds.y, names=ds.class_names)
    return base_layout(fig, f"{ds.name}: {ds.n_samples} samples, {ds.n_features} features",
                       labels[0], labels[1], equal=ds.n_features == 2)

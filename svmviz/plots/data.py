"""The data plot of the Data page and ``svmviz plot-data``."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from svmviz.data.dataset import Dataset, counted
from svmviz.errors import DataError
from svmviz.plots.common import (SYMBOLS, Plane, add_class_scatter, base_layout, class_color, class_text,
                                 note_sample, user_text, point_trace, sample_index)


def plot_dataset(ds: Dataset, features=(0, 1), method: str = "features",
                 test: Dataset | None = None, title: str | None = None) -> go.Figure:
    """Scatter of ``ds``: 2-D directly; for d > 2 two chosen features or the PCA plane (the axis
    titles say which). ``test``, when given, is drawn with open markers in the same plane;
    ``title`` replaces the data set's name in the figure title."""
    if method not in ("features", "pca"):
        raise DataError(f"the plane must be 'features' or 'pca', not {method!r}")
    d = ds.n_features
    if d > 2 and method == "features":
        i, j = features
        if not (0 <= i < d and 0 <= j < d) or i == j:
            raise DataError(f"choose two different features between 1 and {d}, got {i + 1} and {j + 1}")
    fig = go.Figure()
    if d == 1:
        plane = None
        labels = [user_text(ds.feature_names[0]), ""]
    else:
        plane = Plane(ds.X, features, method, ds.feature_names)
        # a data scatter projects the points, so a feature axis is just that feature
        i, j = features if d > 2 else (0, 1)
        labels = plane.labels if plane.method == "pca" else [user_text(ds.feature_names[i]),
                                                              user_text(ds.feature_names[j])]

    def to2d(X):
        return np.column_stack([X[:, 0], np.zeros(len(X))]) if plane is None else plane.to2d(X)

    classes = ds.classes
    add_class_scatter(fig, to2d(ds.X), ds.y, classes=classes, names=[user_text(n) for n in ds.class_names])
    if test is not None:
        T, ty = to2d(test.X), np.asarray(test.y)
        idx = sample_index(len(ty))
        if idx is not None:
            note_sample(fig, len(idx), len(ty), "test points")
            T, ty = T[idx], ty[idx]
        for k, c in enumerate(classes):
            m = ty == c
            if m.any():
                fig.add_trace(point_trace(
                    len(ty), x=T[m, 0], y=T[m, 1], mode="markers", name=f"{class_text(ds.class_names[k])} (test)",
                    marker=dict(color=class_color(k, len(classes)), size=8,
                                symbol=SYMBOLS[k % len(SYMBOLS)] + "-open", line=dict(width=1.5))))
    view = "" if d <= 2 else (" — PCA plane" if method == "pca" else f" — features {labels[0]}, {labels[1]}")
    counts = (counted(ds.n_samples, "sample") if test is None else
              f"{ds.n_samples} training + {counted(test.n_samples, 'test sample')}")
    return base_layout(fig, f"{user_text(title or ds.name)}: {counts}, {counted(d, 'feature')}{view}", labels[0], labels[1],
                       equal=d == 2)

"""Shared plotting pieces: colours, data scatter, decision grids and the 2-D plane of a data set."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

# Two-class colours of seed 000 (yellow: +1 region, cyan: −1 region) and a qualitative palette.
POS_COLOR, NEG_COLOR = "#e6b800", "#00a6c8"
POS_REGION, NEG_REGION = "rgba(255, 235, 59, 0.35)", "rgba(0, 229, 255, 0.25)"
PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf"]
SYMBOLS = ["circle", "triangle-up", "square", "diamond", "x", "star", "cross", "pentagon"]


def class_color(k: int, n_classes: int) -> str:
    if n_classes == 2:
        return (NEG_COLOR, POS_COLOR)[k]
    return PALETTE[k % len(PALETTE)]


def add_class_scatter(fig: go.Figure, X2: np.ndarray, y, classes=None, names=None, size=7,
                      opacity=0.85, showlegend=True, **kw) -> go.Figure:
    """One scatter trace per class (2-D points ``X2``)."""
    classes = np.unique(y) if classes is None else classes
    for k, c in enumerate(classes):
        m = y == c
        fig.add_trace(go.Scatter(
            x=X2[m, 0], y=X2[m, 1], mode="markers", name=str(names[k] if names else c),
            marker=dict(color=class_color(k, len(classes)), symbol=SYMBOLS[k % len(SYMBOLS)], size=size,
                        line=dict(width=0.5, color="#333")),
            opacity=opacity, showlegend=showlegend, **kw))
    return fig


def grid(X2: np.ndarray, resolution: int = 200, pad: float = 0.08):
    """(xx, yy, points) of a regular grid around the 2-D points ``X2``."""
    lo, hi = X2.min(axis=0), X2.max(axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)
    lo, hi = lo - pad * span, hi + pad * span
    xs = np.linspace(lo[0], hi[0], resolution)
    ys = np.linspace(lo[1], hi[1], resolution)
    xx, yy = np.meshgrid(xs, ys)
    return xs, ys, np.column_stack([xx.ravel(), yy.ravel()])


class Plane:
    """A 2-D view of d-dimensional data: two chosen features (others at their mean) or PCA.

    ``to2d`` maps samples onto the plane, ``lift`` maps plane points back to d dimensions (for
    evaluating a model on a grid); ``labels`` are the axis titles saying what the plane is.
    """

    def __init__(self, X: np.ndarray, features=(0, 1), method: str = "features", feature_names=None):
        X = np.asarray(X, dtype=np.float64)
        self.d = X.shape[1]
        self.mean = X.mean(axis=0)
        names = feature_names or [f"x{j + 1}" for j in range(self.d)]
        if self.d == 1:
            raise ValueError("a plane needs at least two features")
        if method == "pca" and self.d > 2:
            _, _, Vt = np.linalg.svd(X - self.mean, full_matrices=False)
            self.basis = Vt[:2]
            self.labels = ["PCA component 1", "PCA component 2"]
            self.method = "pca"
        else:
            i, j = features if self.d > 2 else (0, 1)
            self.basis = np.zeros((2, self.d))
            self.basis[0, i] = self.basis[1, j] = 1.0
            suffix = " (other features at their mean)" if self.d > 2 else ""
            self.labels = [names[i] + suffix, names[j] + suffix] if suffix else [names[i], names[j]]
            self.method = "features"

    def to2d(self, X: np.ndarray) -> np.ndarray:
        if self.method == "pca":
            return (X - self.mean) @ self.basis.T
        return X @ self.basis.T

    def lift(self, P: np.ndarray) -> np.ndarray:
        if self.method == "pca":
            return self.mean + P @ self.basis
        out = np.tile(self.mean, (P.shape[0], 1))
        idx = np.argmax(self.basis, axis=1)
        out[:, idx[0]], out[:, idx[1]] = P[:, 0], P[:, 1]
        return out


def base_layout(fig: go.Figure, title: str = "", xlabel: str = "x1", ylabel: str = "x2",
                equal: bool = True, height: int = 560) -> go.Figure:
    fig.update_layout(title=title, template="plotly_white", height=height,
                      margin=dict(l=40, r=20, t=50, b=40),
                      legend=dict(orientation="h", yanchor="bottom", y=1.0, x=0))
    fig.update_xaxes(title=xlabel)
    fig.update_yaxes(title=ylabel)
    if equal:
        fig.update_yaxes(scaleanchor="x", scaleratio=1)
    return fig

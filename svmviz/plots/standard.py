"""The views every SVM demo has, for any fitted binary model: decision-function contours with the
margins f = ±1 and the support vectors, a confusion matrix, and the ROC curve with its AUC."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from sklearn.metrics import auc, confusion_matrix, roc_curve

from svmviz.plots.common import add_class_scatter, base_layout, grid, readable, user_text
from svmviz.plots.contours import level_line_trace

RESOLUTION = 160  # fixed grid: the cost of a contour plot does not grow with the data


def binary_scores(model, X) -> np.ndarray | None:
    """The decision values of a binary model (positive = ``classes_[1]``), or None when the
    model has no one-column decision function."""
    if len(getattr(model, "classes_", [])) != 2 or not hasattr(model, "decision_function"):
        return None
    s = np.asarray(model.decision_function(X), dtype=np.float64)
    if s.ndim == 2:
        if s.shape[1] != 2:
            return None
        s = s[:, 1] - s[:, 0]
    return s


def decision_contours(model, X, y, names=None, plane=None, title: str = "Decision function",
                      support=None) -> go.Figure:
    """Filled contours of f(x) (clipped to [−3, 3]), the boundary f = 0, the margins f = ±1 and
    the support vectors (``support``: indices into X; default the model's ``support_``)."""
    X = np.asarray(X, dtype=np.float64)
    X2 = plane.to2d(X) if plane is not None else X[:, :2]
    xs, ys, P = grid(X2, RESOLUTION)
    pts = plane.lift(P) if plane is not None else P
    Z = binary_scores(model, pts)
    if Z is None:
        raise ValueError("decision contours need a binary model with a decision function")
    Z = Z.reshape(len(ys), len(xs))
    fig = go.Figure()
    fig.add_trace(go.Contour(x=xs, y=ys, z=np.clip(Z, -3, 3), zmin=-3, zmax=3, colorscale="RdBu_r",
                             opacity=0.45, showscale=True, colorbar=dict(title="f(x)", len=0.6),
                             contours=dict(start=-3, end=3, size=0.5), line=dict(width=0),
                             name="f(x)", hoverinfo="skip"))
    for level, dash, label in ((0.0, "solid", "f(x) = 0"), (-1.0, "dash", "margin f(x) = −1"),
                               (1.0, "dash", "margin f(x) = +1")):
        fig.add_trace(level_line_trace(xs, ys, Z, level, name=label,
                                       line=dict(color="#111", dash=dash, width=2.5 if level == 0 else 1.5)))
    classes = getattr(model, "classes_", np.unique(y))
    add_class_scatter(fig, X2, np.asarray(y), classes, names)
    sv = getattr(model, "support_", None) if support is None else support
    if sv is not None and len(sv) and np.max(sv) < len(X2):
        fig.add_trace(go.Scatter(x=X2[sv, 0], y=X2[sv, 1], mode="markers",
                                 name=f"support vectors ({len(sv)})",
                                 marker=dict(size=13, color="rgba(0,0,0,0)", line=dict(width=1.5, color="#222"))))
    xl, yl = plane.labels if plane is not None else ("x1", "x2")
    base_layout(fig, title, xl, yl)
    fig.update_layout(legend=dict(orientation="h", yanchor="top", y=-0.12, x=0), margin=dict(b=100))
    return fig


def confusion_figure(y_true, y_pred, classes, names=None, title: str = "Confusion matrix (test split)") -> go.Figure:
    """Counts of true class (rows) against predicted class (columns)."""
    cm = confusion_matrix(y_true, y_pred, labels=list(classes))
    labels = [user_text(n) for n in (names if names is not None else classes)]
    fig = go.Figure(go.Heatmap(z=cm, x=labels, y=labels, colorscale="Blues", showscale=False,
                               text=cm, texttemplate="%{text}", hovertemplate="true %{y}, predicted %{x}: %{z}<extra></extra>"))
    readable(fig, title, height=380, margin=dict(l=60, r=20, t=50, b=60))
    fig.update_xaxes(title="predicted", side="bottom")
    fig.update_yaxes(title="true", autorange="reversed")
    return fig


def roc_figure(y_true, scores, positive, title: str = "ROC curve (test split)") -> tuple[go.Figure, float]:
    """The ROC curve of ``scores`` for the class ``positive`` and its area under the curve."""
    y01 = (np.asarray(y_true) == positive).astype(int)
    if y01.min() == y01.max():
        raise ValueError("the ROC curve needs both classes in the test split")
    fpr, tpr, _ = roc_curve(y01, scores)
    area = float(auc(fpr, tpr))
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=[0, 1], y=[0, 1], mode="lines", line=dict(color="#999", dash="dash"),
                             name="chance"))
    fig.add_trace(go.Scatter(x=fpr, y=tpr, mode="lines", line=dict(color="#d62728", width=3),
                             name=f"AUC = {area:.3f}"))
    readable(fig, f"{title}: AUC = {area:.3f}", height=380, margin=dict(l=60, r=20, t=50, b=60),
             legend=dict(x=0.55, y=0.05))
    fig.update_xaxes(title="false positive rate", range=[0, 1])
    fig.update_yaxes(title="true positive rate", range=[0, 1.02])
    return fig, area


def add_boundary(fig: go.Figure, model, X2: np.ndarray, name: str, color: str = "#9467bd",
                 dash: str = "dashdot") -> go.Figure:
    """Add the line f(x) = 0 of a fitted binary 2-D model over the range of the points ``X2``."""
    xs, ys, P = grid(np.asarray(X2, dtype=np.float64), RESOLUTION)
    Z = binary_scores(model, P)
    if Z is None:
        raise ValueError("a boundary needs a binary model with a decision function")
    fig.add_trace(level_line_trace(xs, ys, Z.reshape(len(ys), len(xs)), name=name,
                                   line=dict(color=color, dash=dash, width=3)))
    return fig

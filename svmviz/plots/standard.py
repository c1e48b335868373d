"""The views every SVM demo has, for any fitted binary model: the decision function (decided regions,
boundary, margins f = ±1 and support vectors), a confusion matrix, and the ROC curve with its AUC."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from svmviz.plots.common import (LEGEND_SIZE, add_class_scatter, base_layout, class_color, class_text, grid,
                                 readable, rgba, user_text)
from svmviz.plots.contours import SIMPLIFY, level_line_trace, level_lines, polyline_xy, simplify
from svmviz.plots.regions import add_region, locate_by_label, region_rings

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


#: The decided regions' fills: the two classes' colours of the data points, light under them.
REGION_ALPHA = 0.22
#: The lines of the picture: the boundary in black, each margin in a dark shade of the colour of the
#: class on its side (the class colours themselves are too light for a line on their own region).
BOUNDARY_COLOR, MARGIN_COLORS = "#111111", {-1.0: "#005f73", 1.0: "#7a5c00"}


def decision_contours(model, X, y, names=None, plane=None, title: str = "Decision function",
                      support=None) -> go.Figure:
    """The decision function of a binary model as a teaching picture that is light to send: the
    regions f > 0 and f < 0 as polygons in the classes' colours with a legend entry each, the
    boundary f = 0 and the margins f = ±1 as labelled lines, the samples and the support vectors
    ringed (``support``: indices into X; default the model's ``support_``). Everything is traced
    from f on a ``RESOLUTION``² grid, but only the polygons and lines are sent."""
    X = np.asarray(X, dtype=np.float64)
    X2 = plane.to2d(X) if plane is not None else X[:, :2]
    xs, ys, P = grid(X2, RESOLUTION)
    pts = plane.lift(P) if plane is not None else P
    Z = binary_scores(model, pts)
    if Z is None:
        raise ValueError("decision contours need a binary model with a decision function")
    Z = Z.reshape(len(ys), len(xs))
    classes = getattr(model, "classes_", np.unique(y))
    shown = [class_text(n) for n in (names if names is not None else classes)]
    lift = plane.lift if plane is not None else (lambda Q: Q)
    # the boundary located by the sign of f on every grid edge it crosses, not interpolated: f
    # may jump there (an SVM tree's f is the distance to the node that decides), and a line
    # interpolated across a jump is a staircase
    positive = (Z > 0).astype(int)
    locate = locate_by_label(xs, ys, positive, lambda Q: (binary_scores(model, lift(Q)) > 0).astype(int))
    fig = go.Figure()
    for k, sign in ((0, -1.0), (1, 1.0)):
        add_region(fig, region_rings(xs, ys, (positive == k) - 0.5, 0.0, locate), rgba(class_color(k, 2), REGION_ALPHA),
                   f"decided {shown[k]} (f {'<' if sign < 0 else '>'} 0)", group=f"decided {k}")
    tol = SIMPLIFY * max(xs[-1] - xs[0], ys[-1] - ys[0])
    boundary = [simplify(line, tol) for line in level_lines(xs, ys, positive - 0.5, 0.0, locate)]
    placed, span = [], (xs[-1] - xs[0], ys[-1] - ys[0])   # the labels so far, kept apart on the plane
    _add_level(fig, boundary, "boundary f(x) = 0", "f = 0", BOUNDARY_COLOR, "solid", 3, placed, span)
    for level, sign in ((-1.0, "−"), (1.0, "+")):
        lines = _on_level(level_lines(xs, ys, Z, level), lambda Q: binary_scores(model, lift(Q)), level)
        lines = [simplify(line, tol) for line in lines]
        if lines:
            _add_level(fig, lines, f"margin f(x) = {sign}1", f"f = {sign}1", MARGIN_COLORS[level], "dash", 2,
                       placed, span)
    add_class_scatter(fig, X2, np.asarray(y), classes, names)
    sv = getattr(model, "support_", None) if support is None else support
    if sv is not None and len(sv) and np.max(sv) < len(X2):
        fig.add_trace(go.Scatter(x=X2[sv, 0], y=X2[sv, 1], mode="markers",
                                 name=f"support vectors ({len(sv)})", hoverinfo="skip",
                                 marker=dict(symbol="circle-open", size=14, color="#222", line=dict(width=1.5))))
    xl, yl = plane.labels if plane is not None else ("x1", "x2")
    base_layout(fig, title, xl, yl)
    # the legend beside the axes, one entry a line: under them, eight entries wrapped into rows
    # that pushed the plot up and left it small
    fig.update_layout(legend=dict(orientation="v", yanchor="top", y=1.0, x=1.02, xanchor="left",
                                  tracegroupgap=0), margin=dict(r=20))
    fig.update_xaxes(range=[xs[0], xs[-1]], constrain="domain")
    fig.update_yaxes(range=[ys[0], ys[-1]], constrain="domain")
    return fig


def _add_level(fig: go.Figure, lines: list[np.ndarray], name: str, text: str, color: str, dash: str,
               width: float, placed: list, span: tuple[float, float]) -> None:
    """The polylines ``lines`` as one trace named ``name`` (its legend entry stays when there are
    none), ``text`` written on the longest at its point farthest from the labels ``placed`` so
    far (``span``: the plot's width and height; the point is added to ``placed``): the margins
    run close beside the boundary, and their midpoints put "f = −1" on "f = +1"."""
    x, y = polyline_xy(lines) if lines else ([None], [None])
    fig.add_trace(go.Scatter(x=x, y=y, mode="lines", hoverinfo="skip", name=name,
                             line=dict(color=color, dash=dash, width=width)))
    if lines:
        longest = np.asarray(max(lines, key=len), dtype=float)
        inner = longest[len(longest) // 10: len(longest) - len(longest) // 10]   # not at an edge of the plot
        if placed:
            gap = np.min([np.hypot((inner[:, 0] - px) / span[0], (inner[:, 1] - py) / span[1])
                          for px, py in placed], axis=0)
            x, y = inner[int(np.argmax(gap))]
        else:
            x, y = longest[len(longest) // 2]
        placed.append((x, y))
        fig.add_annotation(x=float(f"{x:.6g}"), y=float(f"{y:.6g}"), text=f"<b>{text}</b>", showarrow=False,
                           font=dict(color=color, size=LEGEND_SIZE), bgcolor="rgba(255,255,255,0.8)")


#: How far from its level f may be on a traced level line: farther, the line crossed a jump of f.
ON_LEVEL = 0.1


def _on_level(lines: list[np.ndarray], f, level: float) -> list[np.ndarray]:
    """The pieces of the traced level lines where ``f`` is within ``ON_LEVEL`` of ``level``: a line
    interpolated between grid values on either side of a jump of f is not on the level (an SVM
    tree's margins), and where f is smooth every point is kept."""
    if not lines:
        return lines
    ok = np.abs(f(np.vstack(lines)) - level) <= ON_LEVEL
    out, at = [], 0
    for line in lines:
        keep = ok[at:at + len(line)]
        at += len(line)
        # runs of kept points, split where a point is off the level
        edges = np.flatnonzero(np.diff(np.r_[0, keep.astype(int), 0]))
        out += [line[a:b] for a, b in zip(edges[::2], edges[1::2]) if b - a >= 2]
    return out


def confusion_figure(y_true, y_pred, classes, names=None, title: str = "Confusion matrix (test split)") -> go.Figure:
    """Counts of true class (rows) against predicted class (columns)."""
    # scikit-learn's metrics here, not at the top: a page's first run draws neither this nor the
    # ROC curve (they are in a tab of their own), and they are a tenth of a fresh page's imports
    from sklearn.metrics import confusion_matrix

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
    from sklearn.metrics import auc, roc_curve   # as in confusion_figure

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

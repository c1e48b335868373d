"""Figures of the Scatter SVM (Jenssen, Kloft, Zien, Sonnenburg and Müller 2012): prototypes and their mean over the decision regions
(Fig. 1–3), and the sensitivity maps (Fig. 17–24)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from svmviz.errors import DataError
from svmviz.models.scatter_steps import iterate_model
from svmviz.plots.common import (SUBTITLE_SIZE, TITLE_SIZE, Plane, add_class_scatter, base_layout, class_color,
                                 class_text, grid, legend_below, readable, rgba, user_text)
from svmviz.plots.contours import level_line_trace
from svmviz.plots.regions import add_region, class_margins, region_rings

MEAN_COLOR = "#111111"

CLASS_MARKER = 6   # marker size of the samples in the prototype view
REGION_ALPHA = 0.22   # the decision regions' fill: the class colours, light under the samples


def _add_decision_regions(fig, xs, ys, scores, names, K):
    """argmax_c f_c as one filled polygon trace per class with a legend entry ("region of c")."""
    shape = (ys.size, xs.size)
    G = class_margins(scores)
    for k in range(K):
        rings = region_rings(xs, ys, G[:, k].reshape(shape))
        add_region(fig, rings, rgba(class_color(k, K), REGION_ALPHA), f"region of {names[k]}", group=f"region{k}",
                   edge=True)


def plot_prototypes(model, X, y, class_names=None, feature_names=None, plane: Plane | None = None,
                    resolution: int = 150, title: str | None = None, boundary: bool = False,
                    coincide_rtol: float = 0.02, subtitle: str | None = None) -> go.Figure:
    """The prototype view of a fitted ``ScatterSVC`` (Jenssen et al. 2012, Fig. 1–3).

    Decision regions (argmax_c f_c, eq. 18) as a background, the samples, the support vectors
    circled with a size growing with α_i, each class prototype as a square, their mean m̄ as a
    diamond and arrows m̄ → m_c (the scatter Σ_c ‖m_c − m̄‖² the dual minimises). For the linear
    kernel with class sums 1 (ν-form with bias) the squares are exactly m_c; otherwise they are
    ``model.prototype_centres()``, the α-weighted centres of each class's support vectors.
    ``boundary`` adds the zero line of f₁ − f₀ for two classes. ``title`` replaces the
    default title and its statistics; ``subtitle`` is a line under it. Data with d > 2 are shown in
    ``plane`` (default: the first two features, the others at their mean).

    When two prototype pictures lie within ``coincide_rtol`` of the data's extent
    (``model.coinciding_prototypes``, e.g. fourclass with the RBF kernel) the squares, the mean
    and the arrows would sit on top of each other: they are left out and the subtitle says so.
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    d = X.shape[1]
    if d < 2:
        raise DataError("the prototype view needs at least two features")
    plane = plane or Plane(X, (0, 1), "features", feature_names)
    K = model.classes_.size
    names = [class_text(n) for n in (class_names if class_names is not None else model.classes_)]
    X2 = plane.to2d(X)
    xs, ys, P = grid(X2, resolution)
    scores = model.class_scores(plane.lift(P))
    fig = go.Figure()
    _add_decision_regions(fig, xs, ys, scores, names, K)
    if boundary and K == 2:
        fig.add_trace(level_line_trace(xs, ys, (scores[:, 1] - scores[:, 0]).reshape(ys.size, xs.size),
                                       name="boundary f₁ = f₀", line=dict(color="#222", width=2)))
    add_class_scatter(fig, X2, y, classes=model.classes_, names=names, size=CLASS_MARKER, opacity=0.8)

    sv2 = plane.to2d(model.support_vectors_)
    a = model.alpha_[model.support_]
    if a.size:
        # the smallest ring is twice the class marker: a ring of a small α around a point keeps
        # the point's own symbol visible inside it instead of reading as a filled dot of its colour
        size = 2 * CLASS_MARKER + 18 * a / a.max()
        for k in range(K):
            m = model.support_classes_ == k
            if m.any():
                fig.add_trace(go.Scatter(
                    x=sv2[m, 0], y=sv2[m, 1], mode="markers", name="support vectors (size ∝ α)",
                    marker=dict(symbol="circle-open", size=size[m], color=class_color(k, K),
                                line=dict(width=2)),
                    customdata=a[m],
                    hovertemplate=f"support vector of {names[k]}: α = %{{customdata:.4g}}<extra></extra>",
                    showlegend=k == 0, legendgroup="sv"))
    exact = model.kernel_params_["name"] == "linear" and model.bias and model.formulation == "nu"
    centres = model.prototype_centres()
    coincide = model.coinciding_prototypes(coincide_rtol)
    ok = np.all(np.isfinite(centres), axis=1) & (not coincide)
    C2 = plane.to2d(np.where(ok[:, None], centres, 0.0))
    mean2 = C2[ok].mean(axis=0) if ok.any() else None
    label = "prototype m_c" if exact else "prototype (α-weighted centre)"
    for k in np.flatnonzero(ok):
        fig.add_trace(go.Scatter(
            x=[C2[k, 0]], y=[C2[k, 1]], mode="markers", name=label, legendgroup="proto",
            showlegend=bool(k == np.flatnonzero(ok)[0]),
            marker=dict(symbol="square", size=15, color=class_color(k, K), line=dict(width=2, color="#000")),
            hovertemplate=f"{names[k]}: prototype<br>(%{{x:.3g}}, %{{y:.3g}})<extra></extra>"))
        fig.add_annotation(x=C2[k, 0], y=C2[k, 1], ax=mean2[0], ay=mean2[1], xref="x", yref="y",
                           axref="x", ayref="y", showarrow=True, arrowhead=3, arrowsize=1.2,
                           arrowwidth=2, arrowcolor=MEAN_COLOR, text="")
    if mean2 is not None:
        fig.add_trace(go.Scatter(x=[mean2[0]], y=[mean2[1]], mode="markers", name="mean of prototypes m̄",
                                 marker=dict(symbol="diamond", size=17, color=MEAN_COLOR,
                                             line=dict(width=1.5, color="#fff")),
                                 hovertemplate="m̄ (%{x:.3g}, %{y:.3g})<extra></extra>"))
    notes = [subtitle] if subtitle else []
    if title is None:
        form = "ν-form" if model.formulation == "nu" else "C-form"
        title = (f"Scatter SVM ({form}, {'with' if model.bias else 'no'} bias, "
                 f"{model.kernel_params_['name']} kernel)")
        notes.append(f"scatter Σ‖m_c − m̄‖² = {model.scatter_:.4g}, {model.support_.size} support vectors")
    if coincide:
        pairs = ", ".join(f"{names[a]} & {names[b]}" for a, b in coincide)
        notes.append(f"prototype pictures coincide ({pairs}): squares and arrows not drawn")
    fig = base_layout(fig, title, plane.labels[0], plane.labels[1], equal=d == 2)
    # the notes as the title's subtitle at a size read on a projector (<sup> drew them at 70 %)
    fig.update_layout(title=dict(font=dict(size=TITLE_SIZE),
                                 subtitle=dict(text="<br>".join(notes), font=dict(size=SUBTITLE_SIZE))),
                      # no gap after each region's legend group: a class's region and points in one column
                      legend=dict(orientation="v", yanchor="top", y=1.0, x=1.02, xanchor="left", tracegroupgap=0),
                      margin=dict(t=66 + 26 * len(notes)))
    fig.update_xaxes(range=[xs[0], xs[-1]])
    fig.update_yaxes(range=[ys[0], ys[-1]])
    return fig


def plot_sensitivity_bars(S, feature_names=None, class_names=None, title: str = "") -> go.Figure:
    """Jenssen et al. 2012, eq. 21, as bars: one group per feature, one bar per class score and one for the mean
    (the last row of ``ScatterSVC.sensitivity_map``)."""
    S = np.asarray(S, dtype=np.float64)
    K, d = S.shape[0] - 1, S.shape[1]
    feats = [user_text(f) for f in feature_names] if feature_names is not None else [f"x{j + 1}" for j in range(d)]
    names = [class_text(n) for n in (class_names if class_names is not None else range(K))]
    fig = go.Figure()
    for k in range(K):
        fig.add_trace(go.Bar(x=feats, y=S[k], name=f"class {names[k]}", marker_color=class_color(k, K)))
    fig.add_trace(go.Bar(x=feats, y=S[-1], name="mean over classes", marker_color=MEAN_COLOR))
    fig.update_layout(barmode="group")
    # the legend under the axes: above them it ran over the title
    return legend_below(base_layout(fig, title or "Sensitivity s_j = mean over samples of (∂f/∂x_j)² (Jenssen et al. 2012, eq. 21)",
                       "feature", "sensitivity", equal=False, height=440))


def plot_sensitivity_images(S, shape, class_names=None, title: str = "") -> go.Figure:
    """The sensitivity of every class and of the mean as images (Jenssen et al. 2012, Fig. 21–24; e.g. 8×8
    digits). Each map has its own colour range, shown by its own colour bar."""
    S = np.asarray(S, dtype=np.float64)
    K = S.shape[0] - 1
    if int(np.prod(shape)) != S.shape[1]:
        raise DataError(f"an image of shape {tuple(shape)} needs {int(np.prod(shape))} features, "
                        f"the map has {S.shape[1]}")
    names = [class_text(n) for n in (class_names if class_names is not None else range(K))]
    titles = [f"class {n}" for n in names] + ["mean over classes"]
    fig = make_subplots(rows=1, cols=K + 1, subplot_titles=titles, horizontal_spacing=0.07)
    for k in range(K + 1):
        right = fig.layout[f"xaxis{k + 1 if k else ''}"].domain[1]
        fig.add_trace(go.Heatmap(z=S[k].reshape(shape), colorscale="Hot", reversescale=True,
                                 showscale=True, colorbar=dict(x=right + 0.005, xanchor="left", len=0.8,
                                                               thickness=10, tickformat=".2g"),
                                 hovertemplate="row %{y}, col %{x}: %{z:.3g}<extra></extra>"),
                      row=1, col=k + 1)
        fig.update_yaxes(autorange="reversed", scaleanchor=f"x{k + 1 if k else ''}", showticklabels=False,
                         showgrid=False, zeroline=False,
                         row=1, col=k + 1)
        fig.update_xaxes(showticklabels=False, showgrid=False, zeroline=False, row=1, col=k + 1)
    return readable(fig, title or "Sensitivity maps (Jenssen et al. 2012, eq. 21) as images", len(titles),
                    height=300, margin=dict(l=20, r=20, t=70, b=20))


def plot_gamma_maps(choice, feature_names=None, title: str = "") -> go.Figure:
    """The mean-over-classes sensitivity (Jenssen et al. 2012, eq. 21) for every γ of a ``GammaChoice``, each
    divided by its largest value so the contrast between features can be compared across γ; the
    legend gives each γ's validation accuracy and marks the chosen one."""
    maps = np.asarray(choice.maps, dtype=np.float64)[:, -1, :]
    d = maps.shape[1]
    feats = [user_text(f) for f in feature_names] if feature_names is not None else [f"x{j + 1}" for j in range(d)]
    fig = go.Figure()
    for k, (g, acc) in enumerate(zip(choice.gammas, choice.accuracy)):
        top = maps[k].max()
        mark = " ← chosen" if k == choice.best else ""
        fig.add_trace(go.Bar(x=feats, y=maps[k] / top if top > 0 else maps[k],
                             name=f"γ = {g:.3g}: validation {100 * acc:.1f} %{mark}",
                             marker_line=dict(width=3 if k == choice.best else 0, color=MEAN_COLOR)))
    fig.update_layout(barmode="group")
    # the legend under the axes: above them it ran over the title
    return legend_below(base_layout(fig, title or "Mean sensitivity per γ (each divided by its maximum)", "feature",
                       "relative sensitivity", equal=False, height=440))


def plot_scatter_iterate(model, run, s: int, X, y, class_names=None, feature_names=None,
                         plane: Plane | None = None) -> go.Figure:
    """Snapshot ``s`` of a recorded solve (``scatter_steps.scatter_run``) in the prototype view
    (``plot_prototypes`` of the model at that α), with the path each prototype's picture (the
    α-weighted centre of its class) took over the snapshots so far."""
    X = np.asarray(X, dtype=np.float64)
    yi = np.searchsorted(model.classes_, np.asarray(y))
    K = model.classes_.size
    at = iterate_model(model, X, y, run.alphas[s])
    fig = plot_prototypes(at, X, y, class_names, feature_names, plane=plane,
                          title=f"Iteration {int(run.iterations[s])} of {run.n_iter}",
                          subtitle=f"scatter Σ‖m_c − m̄‖² = {run.scatter[s]:.4g}, {at.support_.size} support vectors")
    plane = plane or Plane(X, (0, 1), "features", feature_names)
    onehot = np.eye(K)[yi]
    with np.errstate(invalid="ignore", divide="ignore"):
        centres = (run.alphas[:s + 1] @ (onehot[:, :, None] * X[:, None, :]).reshape(X.shape[0], -1)).reshape(
            s + 1, K, -1) / (run.alphas[:s + 1] @ onehot)[:, :, None]
    for k in range(K):
        path = centres[:, k]
        path = path[np.all(np.isfinite(path), axis=1)]
        if path.shape[0] > 1:
            p2 = plane.to2d(path)
            fig.add_trace(go.Scatter(x=p2[:, 0], y=p2[:, 1], mode="lines+markers", hoverinfo="skip",
                                     line=dict(color=class_color(k, K), width=3), marker=dict(size=5),
                                     name="path of the prototypes", legendgroup="paths", showlegend=k == 0))
    return fig

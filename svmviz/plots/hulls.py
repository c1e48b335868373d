"""Figures of the hull geometry: (reduced) convex hulls, nearest points and the ν-SVM hyperplane,
the zero-solution picture and the ‖w‖-against-D_k curve (Zapién Arreola, Fehr and Burkhardt 2007, §3.1, Fig. 3.1–3.3)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from svmviz.plots.common import (NEG_COLOR, POS_COLOR, add_class_scatter, base_layout, class_text, legend_below,
                                 padded_box, user_text)

FILL = {1: "rgba(230, 184, 0, 0.22)", -1: "rgba(0, 166, 200, 0.20)"}
LINE = {1: POS_COLOR, -1: NEG_COLOR}


def line_in_box(w, b, lo, hi):
    """The two end points of {x : w·x + b = 0} inside the box [lo, hi] (2-D), or None."""
    w = np.asarray(w, dtype=np.float64)
    pts = []
    if abs(w[1]) > 1e-15:
        for x in (lo[0], hi[0]):
            yv = -(w[0] * x + b) / w[1]
            if lo[1] - 1e-12 <= yv <= hi[1] + 1e-12:
                pts.append((x, yv))
    if abs(w[0]) > 1e-15:
        for yv in (lo[1], hi[1]):
            x = -(w[1] * yv + b) / w[0]
            if lo[0] - 1e-12 <= x <= hi[0] + 1e-12:
                pts.append((x, yv))
    if len(pts) < 2:
        return None
    pts = np.array(pts)
    d = ((pts[:, None, :] - pts[None, :, :]) ** 2).sum(-1)
    i, j = np.unravel_index(np.argmax(d), d.shape)
    return pts[[i, j]]


def add_line(fig, w, b, lo, hi, name, color="#222", dash="solid", width=2, showlegend=True):
    seg = line_in_box(w, b, lo, hi)
    if seg is not None:
        fig.add_trace(go.Scatter(x=seg[:, 0], y=seg[:, 1], mode="lines", name=name,
                                 line=dict(color=color, dash=dash, width=width), showlegend=showlegend))
    return fig


def add_polygon(fig, V, name, color, fill=None, dash="solid", width=1.5, showlegend=True):
    """A closed polygon (a point or segment when it has 1–2 vertices)."""
    V = np.asarray(V, dtype=np.float64)
    if len(V) == 0:
        return fig
    if len(V) == 1:
        fig.add_trace(go.Scatter(x=V[:, 0], y=V[:, 1], mode="markers", name=name,
                                 marker=dict(symbol="x", size=12, color=color), showlegend=showlegend))
        return fig
    P = np.vstack([V, V[:1]])
    fig.add_trace(go.Scatter(x=P[:, 0], y=P[:, 1], mode="lines", name=name,
                             fill="toself" if fill and len(V) > 2 else None, fillcolor=fill,
                             line=dict(color=color, dash=dash, width=width), showlegend=showlegend))
    return fig


def add_segment(fig, pa, pb, name: str):
    """The segment between the nearest points p₊ (class +1's colour) and p₋ (class −1's)."""
    fig.add_trace(go.Scatter(x=[pa[0], pb[0]], y=[pa[1], pb[1]], mode="lines+markers", name=name,
                             line=dict(color="#444", width=2),
                             marker=dict(size=11, color=[POS_COLOR, NEG_COLOR], symbol="diamond",
                                         line=dict(width=1.5, color="#000"))))
    return fig


def _two_classes(X, y, names, labels, size: int, opacity: float):
    """A figure with both classes (labels as ±1) drawn, and the inputs as the plot uses them:
    (figure, X, y in ±1, class names and axis labels as plain text)."""
    X = np.asarray(X, dtype=np.float64)
    y = np.where(np.asarray(y) > 0, 1, -1)
    names = [class_text(n) for n in names] if names else None
    fig = go.Figure()
    add_class_scatter(fig, X, y, classes=[-1, 1], names=names, size=size, opacity=opacity)
    return fig, X, y, names, [user_text(v) for v in labels]


def plot_hulls(X, y, hulls: dict, reduced: dict, mu: float, nearest=None, nusvc=None, names=None,
               labels=("x1", "x2"), title=None) -> go.Figure:
    """Both classes (y = ±1), their convex hulls (dashed), reduced hulls RCH(·, μ) (filled), and
    optionally the nearest points (``NearestPoints``) with the ν-SVM hyperplane, the bisector of
    the segment and scikit-learn's NuSVC line ``nusvc = (w, b)``.

    ``hulls`` / ``reduced``: {±1: vertex array (ordered)}."""
    fig, X, y, names, labels = _two_classes(X, y, names, labels, size=6, opacity=0.7)
    for c in (-1, 1):
        nm = names[(c + 1) // 2] if names else class_text(c)
        add_polygon(fig, hulls[c], f"conv({nm})", LINE[c], dash="dash", width=1.2)
        add_polygon(fig, reduced[c], f"RCH({nm}, μ)", LINE[c], fill=FILL[c], width=2.2)
    lo, hi = padded_box(X)
    if nearest is not None and nearest.w is not None:
        add_segment(fig, nearest.point_a, nearest.point_b, f"nearest points (distance {nearest.distance:.3g})")
        add_line(fig, nearest.w, nearest.b_nu, lo, hi, "ν-SVM hyperplane (from the nearest points)",
                 "#d62728", width=3)
        if abs(nearest.b - nearest.b_nu) > 1e-9 * max(1.0, abs(nearest.b)):
            add_line(fig, nearest.w, nearest.b, lo, hi, "bisector of the segment", "#7f7f7f", "dot")
    if nusvc is not None:
        add_line(fig, nusvc[0], nusvc[1], lo, hi, "scikit-learn NuSVC", "#111", "dash", 2)
    fig.update_xaxes(range=[lo[0], hi[0]])
    fig.update_yaxes(range=[lo[1], hi[1]])
    return hull_legend(base_layout(fig, title or f"Convex hulls and reduced convex hulls, μ = {mu:.4g}",
                                     labels[0], labels[1], height=620))


def hull_legend(fig):
    """The legend under a hull plot, with the tight margins these square plots use."""
    return legend_below(fig, y=-0.1, l=40, r=20, t=50, b=40)


def plot_zero_solution(X, y, hard_class: int, reduced_hard, centroid, w=None, h1_point=None,
                       names=None, labels=("x1", "x2"), title="") -> go.Figure:
    """The hard class's reduced hull for the μ implied by D_k, the non-hard centroid s_k̄, the
    C-SVM's w drawn from the centroid (zero: the centroid lies in the RCH), and the H1-SVM view:
    the point p* of conv(hard class) nearest to s_k̄ (w_H1 ∝ p* − s_k̄)."""
    fig, X, y, names, labels = _two_classes(X, y, names, labels, size=5, opacity=0.45)
    nm = names[(hard_class + 1) // 2] if names else class_text(hard_class)
    add_polygon(fig, reduced_hard.vertices, f"RCH(hard class {nm}, μ = {reduced_hard.mu:.4g})",
                LINE[hard_class], fill=FILL[hard_class], width=2.5)
    fig.add_trace(go.Scatter(x=[centroid[0]], y=[centroid[1]], mode="markers", name="non-hard centroid s",
                             marker=dict(symbol="star", size=16, color="#d62728",
                                         line=dict(width=1, color="#000"))))
    if h1_point is not None:
        fig.add_trace(go.Scatter(x=[centroid[0], h1_point[0]], y=[centroid[1], h1_point[1]],
                                 mode="lines+markers", name="H1-SVM: nearest point p* of conv(hard)",
                                 line=dict(color="#2ca02c", dash="dot", width=2),
                                 marker=dict(size=[1, 11], color="#2ca02c", symbol="diamond")))
    if w is not None:
        nw = float(np.linalg.norm(w))
        span = float(np.ptp(X, axis=0).max())
        if nw > 1e-9:
            tip = centroid + 0.25 * span * w / nw
            fig.add_annotation(x=tip[0], y=tip[1], ax=centroid[0], ay=centroid[1], xref="x", yref="y",
                               axref="x", ayref="y", showarrow=True, arrowhead=3, arrowwidth=2,
                               arrowcolor="#111", text="")
            fig.add_annotation(x=tip[0], y=tip[1], text=f"w (‖w‖ = {nw:.3g})", showarrow=False,
                               yshift=14, font=dict(size=14))
    return hull_legend(base_layout(fig, title, labels[0], labels[1]))


def plot_w_norm(sweep, D_current=None) -> go.Figure:
    """‖w‖ of the C-SVM against the hard-class bound D_k (real solves), D_k* marked."""
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=sweep.D_values, y=sweep.w_norm, mode="lines+markers",
                             name=f"‖w‖ from the {sweep.backend} solver", line=dict(color="#1f77b4")))
    top = float(max(np.max(sweep.w_norm), 1e-12)) * 1.1
    # vertical markers as traces: shapes on a log axis would be placed in log10 units
    if np.isfinite(sweep.D_threshold):
        fig.add_trace(go.Scatter(x=[sweep.D_threshold] * 2, y=[0, top], mode="lines",
                                 line=dict(color="#d62728", dash="dash"),
                                 name=f"predicted switch D_k* = {sweep.D_threshold:.4g}"))
    if D_current is not None:
        fig.add_trace(go.Scatter(x=[D_current] * 2, y=[0, top], mode="lines",
                                 line=dict(color="#555", dash="dot"), name=f"slider D_k = {D_current:.4g}"))
    # a label at each power of ten only: Plotly draws the 2s and 5s between them at 3/4 size
    fig.update_xaxes(type="log", dtick=1, exponentformat="power")
    return base_layout(fig, "‖w‖ against the hard-class bound D_k", "D_k (log scale)", "‖w‖",
                       equal=False, height=320)


def plot_mu_step(walk, step, X, y, k: int, names=None, labels=("x1", "x2"), nusvc=None) -> go.Figure:
    """Step ``k`` of a μ walk (``svmviz.geometry.mu_walk``; ``step`` its ``walk_step``): both
    classes (y = ±1), their convex hulls (dashed) and reduced hulls at the step's μ (filled), and
    either the common point of the reduced hulls (w = 0) or the nearest points with the ν-SVM
    hyperplane. ``nusvc = (w, b)``: a fitted ν-SVM's line drawn with it (the walk's last step)."""
    hulls, reduced = {1: walk.hull_a, -1: walk.hull_b}, {1: step.reduced_a, -1: step.reduced_b}
    at = "μ = μ*" if k == walk.threshold_step else f"μ = {step.mu:.4g}"
    if step.meet:
        say = "the reduced hulls meet: w = 0"
    else:
        say = f"the reduced hulls lie apart: ‖w‖ = {step.distance:.3g}"
    fig = plot_hulls(X, y, hulls, reduced, step.mu, None, nusvc, names, labels,
                     title=f"Step {k + 1} of {len(walk)}: {at} (ν = {step.nu:.3g}), {say}")
    lo, hi = padded_box(np.asarray(X, dtype=np.float64))
    if step.meet:
        p = step.point_a
        fig.add_trace(go.Scatter(x=[p[0]], y=[p[1]], mode="markers", name="a common point: p₊ = p₋, w = 0",
                                 marker=dict(symbol="star", size=18, color="#d62728", line=dict(width=1, color="#000"))))
    else:
        add_segment(fig, step.point_a, step.point_b,
                    f"nearest points p₊, p₋ (‖w‖ = ‖p₊ − p₋‖ = {step.distance:.3g})")
        add_line(fig, step.w, step.b_nu, lo, hi, "ν-SVM hyperplane (w = p₊ − p₋)", "#d62728", width=3)
    return fig

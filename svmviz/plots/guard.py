"""Figures of Yang and Ahuja 2000: guard vectors and support vectors (Fig. 4), the dual-space picture of one
point's LPs (Fig. 2–3) and the timing of the Table 1 experiment."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from svmviz.data import signed
from svmviz.plots.common import (NEG_COLOR, POS_COLOR, SYMBOLS, base_layout, class_text, padded_box, readable,
                                 user_text, with_subtitle)
from svmviz.plots.hulls import add_line, hull_legend


def plot_guard_vectors(model, X, y, selected: int | None = None, names=None,
                       labels=("x1", "x2")) -> go.Figure:
    """Fig. 4 of Yang and Ahuja 2000: the points (hover shows their index; click to select), guard vectors
    circled, support vectors marked, the SVM hyperplane (dash-dot) with its margins, and for a
    selected guard vector the separating line through it that its LP found."""
    X = np.asarray(X, dtype=np.float64)
    y_pm = np.where(np.asarray(y) == model.classes_[1], 1, -1)
    fig = go.Figure()
    idx = np.arange(len(X))
    for k, c in enumerate((-1, 1)):
        m = y_pm == c
        fig.add_trace(go.Scatter(
            x=X[m, 0], y=X[m, 1], mode="markers", name=class_text(names[k] if names else model.classes_[k]),
            customdata=idx[m], hovertemplate="point %{customdata}<extra></extra>",
            marker=dict(color=NEG_COLOR if c < 0 else POS_COLOR, symbol=SYMBOLS[k], size=8,
                        line=dict(width=0.5, color="#333"))))
    g = model.guard_vectors_
    fig.add_trace(go.Scatter(x=X[g, 0], y=X[g, 1], mode="markers", name=f"guard vectors ({g.sum()})",
                             customdata=idx[g], hovertemplate="guard vector %{customdata}<extra></extra>",
                             marker=dict(symbol="circle-open", size=16, color="#d62728",
                                         line=dict(width=2))))
    sv = model.support_
    fig.add_trace(go.Scatter(x=X[sv, 0], y=X[sv, 1], mode="markers", name=f"support vectors ({len(sv)})",
                             customdata=sv, hovertemplate="support vector %{customdata}<extra></extra>",
                             marker=dict(symbol="x-thin-open", size=12, color="#111", line=dict(width=2))))
    lo, hi = padded_box(X)
    if model.kernel_params_["name"] == "linear" and X.shape[1] == 2:
        w, b = model.coef_[0], float(model.intercept_[0])
        add_line(fig, w, b, lo, hi, "SVM hyperplane (guard vectors only)", "#111", "dashdot", 2.5)
        for off, nm in ((1, "margin"), (-1, None)):
            add_line(fig, w, b - off, lo, hi, nm or "", "#888", "dot", 1, showlegend=nm is not None)
    if selected is not None and 0 <= selected < len(X):
        fig.add_trace(go.Scatter(x=[X[selected, 0]], y=[X[selected, 1]], mode="markers",
                                 name=f"selected point {selected}",
                                 marker=dict(symbol="circle", size=18, color="rgba(0,0,0,0)",
                                             line=dict(width=3, color="#2ca02c"))))
        plane = model.planes_[selected]
        if g[selected] and np.all(np.isfinite(plane[:3])) and model.delta == 0:
            add_line(fig, plane[:2], plane[2], lo, hi, f"a separating line through {selected} (its LP)",
                     "#2ca02c", "dash", 2)
    fig.update_xaxes(range=[lo[0], hi[0]])
    fig.update_yaxes(range=[lo[1], hi[1]])
    # the counts as a subtitle: the page shows this figure in half its width (about 400 px), where
    # the whole sentence as a title was cut off
    fig = hull_legend(base_layout(fig, "Guard and support vectors", user_text(labels[0]), user_text(labels[1])))
    return with_subtitle(fig, f"{g.sum()} guard (circled) ⊇ {len(sv)} support (×)")


def plot_dual_view(view, X, y) -> go.Figure:
    """Yang and Ahuja 2000, Fig. 2–3 for one point: in the dual plane (x1 = slope, x2 = −intercept of a
    primal line) the dual line y = p_x·x − p_y of every point, the line l_i of the chosen point
    (thick), the intersection of the other points' half-planes (shaded) and the LP's feasible
    set on l_i (green), for both orientations of the paper's LP."""
    X = np.asarray(X, dtype=np.float64)
    y = np.where(np.asarray(y) > 0, 1, -1)
    titles = [("A: own class below" if o.sigma == 1 else "B: own class above")
              + (" — feasible" if o.feasible else " — infeasible") for o in view.orientations]
    fig = make_subplots(rows=2, cols=1, subplot_titles=titles, vertical_spacing=0.14)
    i = view.index
    shown: set = set()
    for col, o in enumerate(view.orientations, 1):
        box = o.box
        xs = np.array([box[0], box[1]])
        if len(o.region) > 2:
            R = np.vstack([o.region, o.region[:1]])
            fig.add_trace(go.Scatter(x=R[:, 0], y=R[:, 1], fill="toself", mode="lines",
                                     fillcolor="rgba(44,160,44,0.18)", line=dict(width=0),
                                     name="half-planes' intersection", showlegend=_first(shown, "region"),
                                     legendgroup="region"), row=col, col=1)
        for c, color in ((-1, NEG_COLOR), (1, POS_COLOR)):
            xx, yy = [], []
            for j in np.flatnonzero(y == c):
                if j == i:
                    continue
                xx += [xs[0], xs[1], None]
                yy += [X[j, 0] * xs[0] - X[j, 1], X[j, 0] * xs[1] - X[j, 1], None]
            fig.add_trace(go.Scatter(x=xx, y=yy, mode="lines", line=dict(color=color, width=1),
                                     opacity=0.55, name=f"dual lines of class {signed(c)}",
                                     showlegend=col == 1, legendgroup=f"c{c}"), row=col, col=1)
        li = X[i, 0] * xs - X[i, 1]
        fig.add_trace(go.Scatter(x=xs, y=li, mode="lines", line=dict(color="#111", width=3),
                                 name=f"l_{i}: dual of point {i} (equality)", showlegend=col == 1,
                                 legendgroup="li"), row=col, col=1)
        if o.feasible:
            a = max(o.lo, box[0]) if np.isfinite(o.lo) else box[0]
            b = min(o.hi, box[1]) if np.isfinite(o.hi) else box[1]
            if a <= b:
                fig.add_trace(go.Scatter(x=[a, b], y=[X[i, 0] * a - X[i, 1], X[i, 0] * b - X[i, 1]],
                                         mode="lines+markers", line=dict(color="#2ca02c", width=7),
                                         name="LP feasible set", showlegend=_first(shown, "feas"),
                                         legendgroup="feas"), row=col, col=1)
        fig.update_xaxes(range=[box[0], box[1]], title_text="x1 = slope of a line through the point",
                         row=col, col=1)
        fig.update_yaxes(range=[box[2], box[3]], title_text="x2", row=col, col=1)
    return readable(fig, f"Dual space of point {i}: " + ("guard vector" if view.is_guard else "not a guard vector"),
                    len(titles), height=760, margin=dict(l=40, r=20, t=60, b=40),
                    legend=dict(orientation="h", yanchor="top", y=-0.08, x=0))


def _first(shown: set, name: str) -> bool:
    """True the first time ``name`` is drawn (one legend entry per kind of trace)."""
    new = name not in shown
    shown.add(name)
    return new


def plot_guard_timing(rows) -> go.Figure:
    """Guard-vector fit against one QP on all points (seconds), per n and m (the Guard Vectors
    page's Table 1 panel: rows with "n", "m", "guard-vector fit (s)" and "QP all points (s)")."""
    fig = go.Figure()
    for n in sorted({r["n"] for r in rows}):
        rs = [r for r in rows if r["n"] == n]
        m = [r["m"] for r in rs]
        fig.add_trace(go.Scatter(x=m, y=[r["guard-vector fit (s)"] for r in rs], mode="lines+markers",
                                 name=f"n={n}: guard vectors + QP on them"))
        fig.add_trace(go.Scatter(x=m, y=[r["QP all points (s)"] for r in rs], mode="lines+markers",
                                 line=dict(dash="dash"), name=f"n={n}: QP on all points"))
    fig.update_yaxes(type="log")
    return base_layout(fig, "Time: guard-vector method against one QP on all points",
                       "m (points)", "seconds (log)", equal=False, height=360)


def plot_overlapping_hulls(X, y, names=None, labels=("x1", "x2")) -> go.Figure:
    """Why a data set has no guard vectors: the convex hulls of the two classes (y = ±1) meet, so
    no hyperplane separates them and the hard-margin SVM that guard vectors serve does not exist
    (Yang and Ahuja 2000, §1). The overlap, where points of both classes mix, is what to look at."""
    from svmviz.geometry import convex_hull
    from svmviz.plots.hulls import plot_hulls

    X = np.asarray(X, dtype=np.float64)
    y = np.where(np.asarray(y) > 0, 1, -1)
    hulls = {c: X[y == c][convex_hull(X[y == c]).vertices] for c in (-1, 1)}
    empty = {c: np.empty((0, 2)) for c in (-1, 1)}
    return plot_hulls(X, y, hulls, empty, 1.0, names=names, labels=labels,
                      title="The convex hulls of the two classes overlap: no hyperplane separates them")


def plot_guard_step(walk, X, y, k: int, names=None, labels=("x1", "x2")) -> go.Figure:
    """Step ``k`` of a guard-vector walk (``svmviz.models.guard_steps``) on 2-D points (y = ±1):
    the guard vectors found so far (circled), the points found not to be (crossed), the point
    tested at this step with the line its LP found through it, the point tested next (dashed
    ring); at the last step the SVM on the guard vectors and the SVM on all points."""
    X = np.asarray(X, dtype=np.float64)
    y_pm = np.where(np.asarray(y) > 0, 1, -1)
    T = len(walk.tests)
    fig = go.Figure()
    idx = np.arange(len(X))
    for j, c in enumerate((-1, 1)):
        m = y_pm == c
        fig.add_trace(go.Scatter(x=X[m, 0], y=X[m, 1], mode="markers", customdata=idx[m],
                                 name=class_text(names[j] if names else signed(c)),
                                 hovertemplate="point %{customdata}<extra></extra>",
                                 marker=dict(color=NEG_COLOR if c < 0 else POS_COLOR, symbol=SYMBOLS[j], size=8,
                                             line=dict(width=0.5, color="#333"))))
    done = walk.tests[:min(k, T)]
    g = np.array([t.point for t in done if t.guard], dtype=np.int64)
    no = np.array([t.point for t in done if not t.guard], dtype=np.int64)
    fig.add_trace(go.Scatter(x=X[g, 0], y=X[g, 1], mode="markers", name=f"guard vectors found ({len(g)})",
                             marker=dict(symbol="circle-open", size=17, color="#d62728", line=dict(width=2.5))))
    if len(no):
        fig.add_trace(go.Scatter(x=X[no, 0], y=X[no, 1], mode="markers", name=f"not guard vectors ({len(no)})",
                                 marker=dict(symbol="x-thin-open", size=13, color="#555", line=dict(width=2))))
    lo, hi = padded_box(X)
    if k == 0:
        todo = np.array([t.point for t in walk.tests], dtype=np.int64)
        fig.add_trace(go.Scatter(x=X[todo, 0], y=X[todo, 1], mode="markers", name=f"to be tested ({len(todo)})",
                                 marker=dict(symbol="circle-open", size=15, color="#777", line=dict(width=1.5))))
    if 1 <= k <= T:
        t = walk.tests[k - 1]
        p = X[t.point]
        fig.add_trace(go.Scatter(x=[p[0]], y=[p[1]], mode="markers", name=f"tested now: point {t.point}",
                                 marker=dict(symbol="circle-open", size=24, color="#2ca02c", line=dict(width=4))))
        if t.guard and np.all(np.isfinite(t.plane)):
            add_line(fig, t.plane[:2], t.plane[2], lo, hi, f"a line through {t.point} (its LP)", "#2ca02c", "dash", 2.5)
    if k < T:
        p = X[walk.tests[k].point]
        fig.add_trace(go.Scatter(x=[p[0]], y=[p[1]], mode="markers", name=f"next: point {walk.tests[k].point}",
                                 marker=dict(symbol="circle-open-dot", size=22, color="#ff7f0e",
                                             line=dict(width=2.5, dash="dot"))))
    if k == T + 1:
        add_line(fig, walk.coef_all, walk.intercept_all, lo, hi, "SVM of all points", "#1f77b4", "solid", 6)
        add_line(fig, walk.coef_guard, walk.intercept_guard, lo, hi, "SVM of the guard vectors only", "#111",
                 "dash", 2.5)
        sv = walk.support_all
        fig.add_trace(go.Scatter(x=X[sv, 0], y=X[sv, 1], mode="markers", name=f"support vectors ({len(sv)})",
                                 marker=dict(symbol="diamond-open", size=24, color="#111", line=dict(width=2.5))))
    fig.update_xaxes(range=[lo[0], hi[0]])
    fig.update_yaxes(range=[lo[1], hi[1]])
    title = ("The start: nothing tested yet" if k == 0 else
             f"Test {k} of {T}: point {walk.tests[k - 1].point}" if k <= T else "The SVM on the guard vectors")
    fig = hull_legend(base_layout(fig, f"Step {k + 1} of {len(walk)}: {title}", user_text(labels[0]),
                                  user_text(labels[1])))
    return with_subtitle(fig, f"{len(g)} guard vectors after {min(k, T)} of {T} tests ({walk.m} points)")

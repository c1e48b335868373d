"""Figures of the Solvers page: decision boundaries of several solvers overlaid, α of one solver
against another, and the SMO convergence curve."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from svmviz.plots.common import add_class_scatter, base_layout, class_color, class_label, class_text, grid, legend_below
from svmviz.plots.contours import level_line_trace

# one line style per solver, so coinciding boundaries stay distinguishable
_STYLES = [("#d62728", "solid", 4), ("#111111", "dash", 2.5), ("#2ca02c", "dot", 2.5),
           ("#9467bd", "dashdot", 2)]


def _level_line(fig, xs, ys, Z, level, name, color, dash, width):
    """The line Z = level as a smoothed line trace (``level_line_trace``)."""
    fig.add_trace(level_line_trace(xs, ys, Z, level, name=name,
                                   line=dict(color=color, dash=dash, width=width, shape="spline", smoothing=1)))


def _data_on_plane(X, y, names, plane, resolution):
    """A figure with the classes drawn on the data's plane, the plane coordinates X2, the grid
    axes and the grid points lifted back to the data's space."""
    X2 = plane.to2d(X) if plane is not None else X
    xs, ys, Pg = grid(X2, resolution)
    pts = plane.lift(Pg) if plane is not None else Pg
    fig = go.Figure()
    classes = np.unique(y)
    add_class_scatter(fig, X2, y, classes, _class_names(classes, names))
    return fig, X2, xs, ys, pts


def _class_names(classes, names=None) -> list[str]:
    """The legend names of the classes: of two, as the −1 and +1 sides of the dual the solvers
    share (``class_label``: "class +1", never a bare "1" beside "−1"); of more, their names."""
    shown = list(names) if names is not None else list(classes)
    if len(shown) != 2:
        return [class_text(n) for n in shown]
    return [class_label(shown[0], -1), class_label(shown[1], 1)]


def plot_boundaries(models: dict, X: np.ndarray, y, names=None, plane=None,
                    resolution: int = 150) -> go.Figure:
    """The zero level set of every model's ``decision_function`` on the data's plane, with the
    support vectors of the first model circled. ``models``: {label: fitted binary model}."""
    fig, X2, xs, ys, pts = _data_on_plane(X, y, names, plane, resolution)
    first = next(iter(models.values()), None)
    sv = getattr(first, "support_", None)
    if sv is not None and len(sv):
        fig.add_trace(go.Scatter(x=X2[sv, 0], y=X2[sv, 1], mode="markers",
                                 name=f"support vectors ({next(iter(models))})",
                                 marker=dict(size=12, color="rgba(0,0,0,0)",
                                             line=dict(width=1.2, color="#555"))))
    for k, (label, model) in enumerate(models.items()):
        color, dash, width = _STYLES[k % len(_STYLES)]
        Z = model.decision_function(pts).reshape(len(ys), len(xs))
        _level_line(fig, xs, ys, Z, 0.0, f"{label}: f(x) = 0", color, dash, width)
    xl, yl = (plane.labels if plane is not None else ("x1", "x2"))
    base_layout(fig, "Decision boundaries f(x) = 0 of each solver", xl, yl)
    return legend_below(fig)


def plot_alpha_comparison(alpha_a: np.ndarray, alpha_b: np.ndarray, label_a: str = "SMO",
                          label_b: str = "cvxpy", upper=None) -> go.Figure:
    """α_i of one solver against another, one point per sample; on the diagonal they agree."""
    alpha_a, alpha_b = np.asarray(alpha_a), np.asarray(alpha_b)
    hi = float(max(alpha_a.max(initial=0.0), alpha_b.max(initial=0.0), 1e-12))
    diff = np.abs(alpha_a - alpha_b)
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=[0, hi], y=[0, hi], mode="lines", name="α equal",
                             line=dict(color="#999", dash="dash")))
    fig.add_trace(go.Scatter(
        x=alpha_b, y=alpha_a, mode="markers", name="samples",
        marker=dict(size=7, color=diff, colorscale="Viridis", showscale=True,
                    colorbar=dict(title="|Δα|")),
        text=[f"sample {i}" for i in range(alpha_a.size)],
        hovertemplate="%{text}<br>" + label_b + ": %{x:.6g}<br>" + label_a + ": %{y:.6g}<extra></extra>"))
    if upper is not None and np.isfinite(upper):
        fig.add_hline(y=float(upper), line=dict(color="#d62728", dash="dot"),
                      annotation_text="upper bound C")
    title = f"α from {label_a} against α from {label_b} (max |Δα| = {diff.max(initial=0.0):.2e})"
    base_layout(fig, title, f"α ({label_b})", f"α ({label_a})", equal=False, height=480)
    pad = 0.05 * hi
    fig.update_xaxes(range=[-pad, hi + pad])
    fig.update_yaxes(range=[-pad, hi + pad])
    return legend_below(fig)


def plot_convergence(history: dict, tol: float | None = None) -> go.Figure:
    """SMO's maximal KKT violation m(α) − M(α) against the iteration (log scale), and the
    objective on a second axis."""
    it = np.asarray(history.get("iteration", []), dtype=float)
    viol = np.asarray(history.get("max_violation", []), dtype=float)
    obj = np.asarray(history.get("objective", []), dtype=float)
    fig = go.Figure()
    pos = viol > 0
    fig.add_trace(go.Scatter(x=it[pos], y=viol[pos], mode="lines+markers", name="max KKT violation",
                             marker=dict(size=4), line=dict(color="#1f77b4")))
    if obj.size:
        fig.add_trace(go.Scatter(x=it, y=obj, mode="lines", name="objective", yaxis="y2",
                                 line=dict(color="#ff7f0e", dash="dot")))
    if tol is not None:
        _tol_line(fig, tol)
    base_layout(fig, "SMO convergence", "iteration", "max KKT violation m(α) − M(α)", equal=False,
                height=460)
    fig.update_yaxes(type="log", dtick=1, exponentformat="power")
    fig.update_layout(yaxis2=dict(title="objective", overlaying="y", side="right", showgrid=False))
    return legend_below(fig)


def _tol_line(fig: go.Figure, tol: float) -> None:
    """The tolerance as a dashed line across the log-scale y-axis, named in the legend: a label
    in the plot lands on the violation curve, which ends at the tolerance."""
    fig.add_hline(y=tol, line=dict(color="#d62728", dash="dash"), name=f"tol = {tol:g}", showlegend=True)


# ---------------------------------------------------------------------------- SMO stepper
def pair_label_positions(P: np.ndarray) -> list[str]:
    """Where the labels of the working pair's points ``P`` (one or two rows) go: each on the
    side facing away from the other point, so two close points never have their labels on top
    of each other (both above them, they overlapped)."""
    if len(P) < 2:
        return ["top center"] * len(P)
    dx, dy = P[1] - P[0]
    if abs(dx) >= abs(dy):
        return ["middle left", "middle right"] if dx >= 0 else ["middle right", "middle left"]
    return ["bottom center", "top center"] if dy >= 0 else ["top center", "bottom center"]


def plot_smo_step(it, X: np.ndarray, y, names=None, plane=None, target=None,
                  resolution: int = 120) -> go.Figure:
    """The classifier after t SMO iterations (an ``SMOIterate``): f_t = 0 and, once defined,
    the margins f_t = ±1 on the data's plane, the working pair of iteration t circled, the
    optimum's boundary (``target``, a fitted model, e.g. the cvxpy reference) dotted, and for
    the ν-SVM the two reduced hulls' current points p₊, p₋ joined by a segment."""
    fig, X2, xs, ys, pts = _data_on_plane(X, y, names, plane, resolution)
    Z = it.decision_function(pts).reshape(len(ys), len(xs))
    levels = [(0.0, "solid", 3, "f_t(x) = 0")]
    if it.margins:
        levels += [(-1.0, "dash", 1.5, "f_t(x) = −1"), (1.0, "dash", 1.5, "f_t(x) = +1")]
    for level, dash, width, label in levels:
        _level_line(fig, xs, ys, Z, level, label, "#d62728", dash, width)
    if target is not None:
        Zt = target.decision_function(pts).reshape(len(ys), len(xs))
        _level_line(fig, xs, ys, Zt, 0.0, "optimum (cvxpy): f(x) = 0", "#111111", "dot", 2)
    sv = np.flatnonzero(it.alpha > 0)
    if sv.size:
        fig.add_trace(go.Scatter(x=X2[sv, 0], y=X2[sv, 1], mode="markers", name="α_i > 0",
                                 marker=dict(size=11, color="rgba(0,0,0,0)",
                                             line=dict(width=1, color="#777"))))
    if it.pair is not None:
        idx = [k for k in it.pair if k >= 0]
        fig.add_trace(go.Scatter(x=X2[idx, 0], y=X2[idx, 1], mode="markers+text",
                                 name="working pair (i, j)",
                                 text=[f"i = {idx[0]}"] + ([f"j = {idx[1]}"] if len(idx) > 1 else []),
                                 textposition=pair_label_positions(X2[idx]),
                                 marker=dict(size=18, color="rgba(0,0,0,0)",
                                             line=dict(width=3, color="#ff7f0e"))))
    if it.hull_points is not None:
        hp = np.vstack(it.hull_points)
        hp2 = plane.to2d(hp) if plane is not None else hp
        fig.add_trace(go.Scatter(x=hp2[:, 0], y=hp2[:, 1], mode="lines+markers+text",
                                 name="hull points p₊, p₋", text=["p₊", "p₋"],
                                 textposition="bottom center",
                                 marker=dict(size=12, symbol="diamond", color="#9467bd"),
                                 line=dict(color="#9467bd", width=2)))
    xl, yl = (plane.labels if plane is not None else ("x1", "x2"))
    base_layout(fig, f"After {it.t} SMO iterations", xl, yl)
    fig.update_xaxes(range=[xs[0], xs[-1]])
    fig.update_yaxes(range=[ys[0], ys[-1]])
    return legend_below(fig)


BAR_WIDTH = 0.8


def plot_alpha_bars(alpha: np.ndarray, y, upper: float, pair=None, names=None) -> go.Figure:
    """α_i per sample (bars coloured by class), the upper bound, the working pair outlined."""
    alpha = np.asarray(alpha)
    y = np.asarray(y)
    classes = np.unique(y)
    fig = go.Figure()
    labels = _class_names(classes, names)
    for k, c in enumerate(classes):
        idx = np.flatnonzero(y == c)
        label = labels[k]
        # width in sample units: Plotly sizes a trace's bars by the gap between its own samples,
        # so two far-apart samples of a class got bars many samples wide, hiding the others
        color = class_color(k, len(classes))
        fig.add_trace(go.Bar(x=idx, y=alpha[idx], name=f"α, {label}", width=BAR_WIDTH,
                             marker_color=color, legendgroup=f"class {k}"))
        # a dot on top of every α_i > 0: with a few hundred samples a bar is under a pixel wide
        # in the page's narrow column and all but vanishes
        top = idx[alpha[idx] > 0]
        fig.add_trace(go.Scatter(x=top, y=alpha[top], mode="markers", name=f"α, {label}",
                                 legendgroup=f"class {k}", showlegend=False, hoverinfo="x+y",
                                 marker=dict(size=6, color=color, line=dict(width=0.5, color="#333"))))
    if pair is not None:
        idx = [k for k in pair if k >= 0]
        fig.add_trace(go.Bar(x=idx, y=alpha[idx], name="working pair", marker_color="#ff7f0e", width=BAR_WIDTH,
                             legendgroup="pair"))
        fig.add_trace(go.Scatter(x=idx, y=alpha[idx], mode="markers", name="working pair", legendgroup="pair",
                                 showlegend=False, hoverinfo="x+y",
                                 marker=dict(size=12, symbol="circle-open", color="#ff7f0e", line=dict(width=3))))
    fig.add_hline(y=float(upper), line=dict(color="#d62728", dash="dot"),
                  annotation_text="upper bound")
    base_layout(fig, "α_i per training sample", "sample i", "α_i", equal=False, height=400)
    fig.update_layout(barmode="overlay", bargap=0.1)
    fig.update_xaxes(range=[-0.6, len(alpha) - 0.4])
    return legend_below(fig)


def plot_trace_curves(iterations, violation, objective, t: int, tol: float | None = None,
                      target_objective: float | None = None) -> go.Figure:
    """The maximal KKT violation (log scale) and the objective per recorded iteration, with a
    cursor at iteration t and the optimum's objective (``target_objective``) as the target."""
    it = np.asarray(iterations, dtype=float)
    viol = np.asarray(violation, dtype=float)
    fig = go.Figure()
    pos = viol > 0
    fig.add_trace(go.Scatter(x=it[pos], y=viol[pos], mode="lines", name="max KKT violation",
                             line=dict(color="#1f77b4")))
    fig.add_trace(go.Scatter(x=it, y=objective, mode="lines", name="objective", yaxis="y2",
                             line=dict(color="#ff7f0e")))
    if target_objective is not None:
        fig.add_trace(go.Scatter(x=[it[0] if it.size else 0, it[-1] if it.size else 1],
                                 y=[target_objective] * 2, mode="lines", yaxis="y2",
                                 name="optimum objective (cvxpy)",
                                 line=dict(color="#111", dash="dot")))
    if tol is not None:
        _tol_line(fig, tol)
    # named in the legend, not beside the line: in the narrow column a label there sat on the curves
    fig.add_vline(x=t, line=dict(color="#2ca02c", width=2), name=f"t = {t} (this step)", showlegend=True)
    # short titles: the page shows this beside the step's picture, in two fifths of the width
    base_layout(fig, "Convergence", "iteration", "max KKT violation", equal=False, height=360)
    # a label at each power of ten only: Plotly draws the 2s and 5s between them at 3/4 size
    fig.update_yaxes(type="log", dtick=1, exponentformat="power")
    fig.update_layout(yaxis2=dict(title="objective", overlaying="y", side="right", showgrid=False))
    return legend_below(fig)

"""Figures of the Solvers page: decision boundaries of several solvers overlaid, α of one solver
against another, and the SMO convergence curve."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from svmviz.plots.common import add_class_scatter, base_layout, grid

# one line style per solver, so coinciding boundaries stay distinguishable
_STYLES = [("#d62728", "solid", 4), ("#111111", "dash", 2.5), ("#2ca02c", "dot", 2.5),
           ("#9467bd", "dashdot", 2)]


def plot_boundaries(models: dict, X: np.ndarray, y, names=None, plane=None,
                    resolution: int = 150) -> go.Figure:
    """The zero level set of every model's ``decision_function`` on the data's plane, with the
    support vectors of the first model circled. ``models``: {label: fitted binary model}."""
    X2 = plane.to2d(X) if plane is not None else X
    xs, ys, P = grid(X2, resolution)
    pts = plane.lift(P) if plane is not None else P
    fig = go.Figure()
    classes = np.unique(y)
    add_class_scatter(fig, X2, y, classes, names)
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
        fig.add_trace(go.Contour(x=xs, y=ys, z=Z, contours=dict(start=0, end=0, size=1,
                                                                 coloring="none"),
                                 line=dict(color=color, dash=dash, width=width), showscale=False,
                                 name=f"{label}: f(x) = 0", showlegend=True, hoverinfo="skip"))
    xl, yl = (plane.labels if plane is not None else ("x1", "x2"))
    base_layout(fig, "Decision boundaries f(x) = 0 of each solver", xl, yl)
    return _legend_below(fig)


def _legend_below(fig: go.Figure) -> go.Figure:
    """Legends under the plot: above it they collide with the title in narrow columns."""
    fig.update_layout(legend=dict(orientation="h", yanchor="top", y=-0.15, x=0),
                      margin=dict(b=110))
    return fig


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
    return _legend_below(fig)


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
        fig.add_hline(y=tol, line=dict(color="#d62728", dash="dash"),
                      annotation_text=f"tol = {tol:g}")
    base_layout(fig, "SMO convergence", "iteration", "max KKT violation m(α) − M(α)", equal=False,
                height=460)
    fig.update_yaxes(type="log", dtick=1, exponentformat="power")
    fig.update_layout(yaxis2=dict(title="objective", overlaying="y", side="right", showgrid=False))
    return _legend_below(fig)

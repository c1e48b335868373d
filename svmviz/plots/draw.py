"""The drawing canvas of the Data page: the drawn points over an invisible grid of click targets.

Plotly reports clicks on points only, not on empty space; a grid of transparent markers covering
the plane turns a click anywhere into the coordinates of the nearest grid node (spacing
``(hi − lo)/(GRID − 1)``), which is where a new point goes.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from svmviz.plots.common import NEG_COLOR, POS_COLOR

GRID = 61                   # click targets per axis
CANVAS_RANGE = (-1.0, 1.0)  # the canvas covers [-1, 1]²
DRAW_LABELS = (-1, 1)       # the two classes one draws


def canvas_grid(lo: float = CANVAS_RANGE[0], hi: float = CANVAS_RANGE[1], n: int = GRID) -> np.ndarray:
    g = np.linspace(lo, hi, n)
    xx, yy = np.meshgrid(g, g)
    return np.column_stack([xx.ravel(), yy.ravel()])


def drawing_canvas(points: np.ndarray, labels: np.ndarray, selected: int | None = None,
                   height: int = 560) -> go.Figure:
    """Trace 0: the click grid; traces 1 and 2: the drawn points of class −1 and +1 (their
    ``customdata`` is the row of the point in ``points``); a ring marks ``selected``."""
    points = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    labels = np.asarray(labels).reshape(-1)
    G = canvas_grid()
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=G[:, 0], y=G[:, 1], mode="markers", name="click target",
                             marker=dict(size=9, color="rgba(0,0,0,0)"), hoverinfo="none",
                             showlegend=False))
    for label, color, symbol in ((-1, NEG_COLOR, "circle"), (1, POS_COLOR, "triangle-up")):
        rows = np.flatnonzero(labels == label)
        fig.add_trace(go.Scatter(x=points[rows, 0], y=points[rows, 1], mode="markers",
                                 name=f"class {label:+d} ({rows.size})", customdata=rows,
                                 marker=dict(size=14, color=color, symbol=symbol,
                                             line=dict(width=1, color="#333")),
                                 hovertemplate="point %{customdata}: (%{x:.2f}, %{y:.2f})<extra></extra>"))
    if selected is not None and 0 <= selected < len(points):
        fig.add_trace(go.Scatter(x=[points[selected, 0]], y=[points[selected, 1]], mode="markers",
                                 name="selected", hoverinfo="skip",
                                 marker=dict(size=26, color="rgba(0,0,0,0)", line=dict(width=3, color="#d62728"))))
    pad = 0.05
    fig.update_layout(template="plotly_white", height=height, clickmode="event+select", dragmode=False,
                      hovermode="closest", margin=dict(l=40, r=20, t=30, b=40),
                      legend=dict(orientation="h", yanchor="bottom", y=1.0, x=0))
    fig.update_xaxes(range=[CANVAS_RANGE[0] - pad, CANVAS_RANGE[1] + pad], title="x1", zeroline=True)
    fig.update_yaxes(range=[CANVAS_RANGE[0] - pad, CANVAS_RANGE[1] + pad], title="x2",
                     scaleanchor="x", scaleratio=1, zeroline=True)
    return fig

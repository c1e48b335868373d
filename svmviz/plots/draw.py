"""The drawing canvas of the Data page: the drawn points of any number of classes over an
invisible grid of click targets that covers the whole visible plane.

Plotly reports clicks on points only, not on empty space; a grid of transparent markers covering
the visible range turns a click anywhere into the coordinates of the nearest grid node (spacing
``(hi − lo)/(GRID − 1)``), which is where a new point goes. Both axes are constrained to their
domain, so the visible range is exactly the grid's range whatever the width of the browser.

The canvas is a new chart after every click (its figure changed), so what the browser pays to
mount it is paid per click. The grid is an SVG scatter that draws a single marker
(``marker.maxdisplayed``): Plotly finds the clicked node among all the grid's data, drawn or not,
so the grid costs no DOM node per target and no WebGL context (a ``scattergl`` grid made every
click create and compile one, about 1 s of CPU in a browser without a GPU).
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from svmviz.plots.common import SYMBOLS, class_color, user_text

GRID = 61                   # click targets per axis
CANVAS_RANGE = (-1.0, 1.0)  # the plane an empty drawing shows
PAD = 0.05                  # margin around the range, in units of its width


def canvas_range(points: np.ndarray) -> tuple[float, float]:
    """The square range the canvas shows: [-1, 1], widened in steps of 0.5 until it holds every
    point with a margin (a point moved or loaded outside stays visible and clickable)."""
    P = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    lo, hi = CANVAS_RANGE
    if len(P):
        lo = min(lo, np.floor((P.min() - 0.1) * 2) / 2)
        hi = max(hi, np.ceil((P.max() + 0.1) * 2) / 2)
    return float(lo), float(hi)


def canvas_grid(lo: float = CANVAS_RANGE[0], hi: float = CANVAS_RANGE[1], n: int = GRID) -> np.ndarray:
    """The (n², 2) click targets: a regular grid over the visible range with its margin."""
    pad = PAD * (hi - lo)
    g = np.linspace(lo - pad, hi + pad, n)
    xx, yy = np.meshgrid(g, g)
    return np.column_stack([xx.ravel(), yy.ravel()])


def drawing_canvas(points: np.ndarray, labels: np.ndarray, names: list[str], selected: int | None = None,
                   height: int = 560) -> go.Figure:
    """Trace 0: the click grid; then one trace per class ``k = 1 .. len(names)`` that has points
    (``names[k − 1]`` in the legend, its ``customdata`` the rows of its points in ``points``);
    a ring marks the row ``selected``. Colours and symbols follow ``class_color``/``SYMBOLS``
    by class number, as the other pages draw the same classes.

    Built from one plain dict (no template): the canvas is redrawn at every click, and Plotly's
    per-property construction of the same figure costs ~10× more server time."""
    P = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    labels = np.asarray(labels).reshape(-1).astype(int)
    lo, hi = canvas_range(P)
    G = canvas_grid(lo, hi).astype(np.float32)   # click targets: single precision halves the bytes sent
    n_classes = len(names)
    traces = [dict(type="scatter", x=G[:, 0], y=G[:, 1], mode="markers", name="click target", showlegend=False,
                   marker=dict(size=9, color="rgba(0,0,0,0)", maxdisplayed=1), hoverinfo="none",
                   selected=dict(marker=dict(opacity=0)), unselected=dict(marker=dict(opacity=0)))]
    for k in range(1, n_classes + 1):
        rows = np.flatnonzero(labels == k)
        if not rows.size:
            continue
        name = user_text(names[k - 1])
        traces.append(dict(
            type="scatter", x=P[rows, 0], y=P[rows, 1], mode="markers", customdata=rows,
            name=f"{name} ({rows.size})", unselected=dict(marker=dict(opacity=1)),
            marker=dict(size=14, color=class_color(k - 1, n_classes), symbol=SYMBOLS[(k - 1) % len(SYMBOLS)],
                        line=dict(width=1, color="#333")),
            hovertemplate=f"{name}, row %{{customdata}}: (%{{x:.2f}}, %{{y:.2f}})<extra></extra>"))
    if selected is not None and 0 <= selected < len(P):
        traces.append(dict(type="scatter", x=[P[selected, 0]], y=[P[selected, 1]], mode="markers", name="selected",
                           hoverinfo="skip", marker=dict(size=26, color="rgba(0,0,0,0)",
                                                         line=dict(width=3, color="#d62728"))))
    pad = PAD * (hi - lo)
    axis = dict(range=[lo - pad, hi + pad], zeroline=True, constrain="domain", gridcolor="#e5e5e5",
                zerolinecolor="#999")
    layout = dict(height=height, clickmode="event+select", dragmode=False, hovermode="closest",
                  plot_bgcolor="white", margin=dict(l=40, r=20, t=30, b=40), showlegend=True,
                  legend=dict(orientation="h", yanchor="bottom", y=1.0, x=0),
                  xaxis=dict(axis, title=dict(text="x1")),
                  yaxis=dict(axis, title=dict(text="x2"), scaleanchor="x", scaleratio=1))
    return go.Figure(dict(data=traces, layout=layout))

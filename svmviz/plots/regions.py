"""Decided regions as filled polygons traced from a grid, with a legend entry each.

A region {g > 0} of a function sampled on a grid is bounded by its level lines (``contours``) and
by the grid's box; the polygons follow the boundary smoothly where a heatmap of the same grid
draws a staircase of cells, and a figure sends a few hundred vertices instead of the grid."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import plotly.graph_objects as go

from svmviz.plots.contours import level_lines, polyline_xy, simplify

#: Vertices are kept within this fraction of the view's larger side (well under a pixel).
SIMPLIFY = 5e-4
#: Halvings of a grid edge when a crossing is located from labels: 2⁻¹² of a cell.
BISECTIONS = 12


def region_rings(xs: np.ndarray, ys: np.ndarray, G: np.ndarray, level: float = 0.0,
                 locate: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None,
                 tol: float | None = None) -> list[np.ndarray]:
    """Closed rings (first point repeated) bounding {G > level} inside the box of the grid
    ``xs`` × ``ys`` (``G[i, j]`` at ``(xs[j], ys[i])``): outer rings counter-clockwise, the rings
    of holes clockwise, so a Plotly fill (SVG's non-zero rule, one path per trace) leaves the
    holes empty. ``locate`` as in ``level_lines``; ``tol`` (default ``SIMPLIFY`` of the box)
    is how far the simplified rings may stray."""
    xs, ys, G = np.asarray(xs, float), np.asarray(ys, float), np.asarray(G, float)
    below = level - 1.0
    # a border of zero width below the level: every line closes along the box's edge
    Gp = np.full((G.shape[0] + 2, G.shape[1] + 2), below)
    Gp[1:-1, 1:-1] = np.where(np.isnan(G), below, G)
    xp, yp = np.r_[xs[0], xs, xs[-1]], np.r_[ys[0], ys, ys[-1]]
    if tol is None:
        tol = SIMPLIFY * max(xs[-1] - xs[0], ys[-1] - ys[0])
    rings = [simplify(r, tol) for r in level_lines(xp, yp, Gp, level, locate)]
    rings = [r for r in rings if len(r) >= 4 and abs(_signed_area(r)) > 0]
    out = []
    for i, r in enumerate(rings):
        depth = sum(_contains(o, r[0]) for k, o in enumerate(rings) if k != i)
        outer = depth % 2 == 0
        out.append(r if (_signed_area(r) > 0) == outer else r[::-1])
    return out


def bisect_crossings(inside: Callable[[np.ndarray], np.ndarray], steps: int = BISECTIONS):
    """A ``locate`` for ``region_rings`` from a predicate on points (True inside the region):
    each crossing found by halving its grid edge ``steps`` times."""
    def locate(A: np.ndarray, B: np.ndarray) -> np.ndarray:
        lo, hi = np.zeros(len(A)), np.ones(len(A))   # A + lo·(B − A) inside, A + hi·(B − A) not
        for _ in range(steps):
            mid = 0.5 * (lo + hi)
            ok = np.asarray(inside(A + mid[:, None] * (B - A)), dtype=bool)
            lo, hi = np.where(ok, mid, lo), np.where(ok, hi, mid)
        t = 0.5 * (lo + hi)
        return A + t[:, None] * (B - A)
    return locate


def label_rings(xs, ys, labels: np.ndarray, k, inside: Callable[[np.ndarray], np.ndarray] | None = None,
                tol: float | None = None) -> list[np.ndarray]:
    """The rings of the region where the grid ``labels`` equal ``k``; with ``inside`` (True where
    a point of the plane is labelled k) every boundary point is located on its grid edge."""
    G = (np.asarray(labels) == k).astype(float) - 0.5
    return region_rings(xs, ys, G, 0.0, None if inside is None else bisect_crossings(inside), tol)


def add_region(fig: go.Figure, rings: list[np.ndarray], fill: str, name: str, group: str | None = None,
               showlegend: bool = True, **subplot) -> go.Figure:
    """One filled trace of ``rings`` and, with ``showlegend``, a square swatch of its colour in
    the legend named ``name`` (a filled area's own legend entry is a line). ``subplot``: ``row``
    and ``col`` for a figure of subplots."""
    group = group or name
    if rings:
        x, y = polyline_xy(rings)
        fig.add_trace(go.Scatter(x=x, y=y, mode="lines", fill="toself", fillcolor=fill,
                                 line=dict(width=0, color=fill), hoverinfo="skip", showlegend=False,
                                 legendgroup=group, name=name), **subplot)
    if showlegend:
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", hoverinfo="skip", legendgroup=group,
                                 name=name, marker=dict(symbol="square", size=16, color=fill,
                                                        line=dict(width=1, color="#999"))), **subplot)
    return fig


def inside_rings(rings: list[np.ndarray], P: np.ndarray) -> np.ndarray:
    """Points of ``P`` inside the rings by the non-zero winding rule (as the fill draws them)."""
    P = np.asarray(P, float)
    wind = np.zeros(len(P), dtype=np.int64)
    for r in rings:
        a, b = r[:-1], r[1:]
        px, py = P[:, 0, None], P[:, 1, None]
        cross = (b[:, 0] - a[:, 0]) * (py - a[:, 1]) - (b[:, 1] - a[:, 1]) * (px - a[:, 0])
        up = (a[:, 1] <= py) & (b[:, 1] > py) & (cross > 0)
        down = (a[:, 1] > py) & (b[:, 1] <= py) & (cross < 0)
        wind += up.sum(axis=1) - down.sum(axis=1)
    return wind != 0


def _signed_area(r: np.ndarray) -> float:
    x, y = r[:, 0], r[:, 1]
    return 0.5 * float(np.dot(x[:-1], y[1:]) - np.dot(x[1:], y[:-1]))


def _contains(ring: np.ndarray, p: np.ndarray) -> bool:
    return bool(inside_rings([ring], p[None, :])[0])

"""Decided regions as filled polygons traced from a grid, with a legend entry each.

A region {g > 0} of a function sampled on a grid is bounded by its level lines (``contours``) and
by the grid's box; the polygons follow the boundary smoothly where a heatmap of the same grid
draws a staircase of cells, and a figure sends a few hundred vertices instead of the grid."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import plotly.graph_objects as go

from svmviz import limits
from svmviz.plots.contours import SIMPLIFY, level_lines, polyline_xy, simplify

#: A crossing located from labels: SEARCH_ROUNDS rounds of SEARCH_POINTS points each, to
#: (SEARCH_POINTS + 1)^-SEARCH_ROUNDS of a grid cell (1/64: far under a pixel).
SEARCH_POINTS, SEARCH_ROUNDS = 7, 2


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


def class_margins(scores: np.ndarray) -> np.ndarray:
    """g_c = f_c − max_(c' ≠ c) f_c' for every column c of ``scores`` (n, K): positive exactly
    where class c wins argmax_c f_c, zero on its boundary with the runner-up, and
    continuous, so its zero level traces the boundary smoothly between grid points."""
    scores = np.asarray(scores, dtype=np.float64)
    top2 = np.sort(scores, axis=1)[:, -2:]
    best = np.argmax(scores, axis=1)
    other = np.where(np.arange(scores.shape[1])[None, :] == best[:, None], top2[:, :1], top2[:, 1:])
    return scores - other


def label_regions(xs, ys, labels: np.ndarray, label_of: Callable[[np.ndarray], np.ndarray] | None = None,
                  tol: float | None = None) -> dict:
    """The rings of every label's region of the grid ``labels`` (``labels[i, j]`` at
    ``(xs[j], ys[i])``) by label. With ``label_of`` (the label of points of the plane) the
    boundary is located on every grid edge whose ends differ, all edges at once (``SEARCH_ROUNDS``
    calls of ``label_of`` whatever the number of labels); without it, mid-edge."""
    xs, ys, L = np.asarray(xs, float), np.asarray(ys, float), np.asarray(labels)
    locate = None if label_of is None else locate_by_label(xs, ys, L, label_of)
    out = {}
    for k in np.unique(L):
        limits.checkpoint()   # many labels (a DAG of 20 classes): a piece of work each
        out[k] = region_rings(xs, ys, (L == k).astype(float) - 0.5, 0.0, locate, tol)
    return out


def _crossings_by_label(label_of, A: np.ndarray, B: np.ndarray, first: np.ndarray) -> np.ndarray:
    """Where the label changes from ``first`` along each segment A → B (A labelled ``first``, B
    not): ``SEARCH_ROUNDS`` rounds, each labelling ``SEARCH_POINTS`` points evenly inside the
    bracket at once and keeping the part where the label first changes — a call of ``label_of``
    costs the same for one point as for thousands (a DAG walks its nodes, each validating X)."""
    lo, hi = np.zeros(len(A)), np.ones(len(A))
    j = np.arange(1, SEARCH_POINTS + 1)
    for _ in range(SEARCH_ROUNDS):
        t = lo[None, :] + (hi - lo)[None, :] * j[:, None] / (SEARCH_POINTS + 1)    # (points, edges)
        Q = A[None, :, :] + t[..., None] * (B - A)[None, :, :]
        same = np.asarray(label_of(Q.reshape(-1, 2))).reshape(t.shape) == first[None, :]
        k = np.argmin(np.vstack([same, np.zeros((1, len(A)), dtype=bool)]), axis=0)   # first change
        lo, hi = np.where(k > 0, t[np.maximum(k - 1, 0), np.arange(len(A))], lo), \
            np.where(k < SEARCH_POINTS, t[np.minimum(k, SEARCH_POINTS - 1), np.arange(len(A))], hi)
    mid = 0.5 * (lo + hi)
    return A + mid[:, None] * (B - A)


def locate_by_label(xs, ys, L, label_of):
    """A ``locate`` (see ``contours.level_lines``) for the boundaries of the label grid ``L`` that
    looks up the crossing of each grid edge, found beforehand on every edge whose two ends have
    different labels (``_crossings_by_label``)."""
    hi_, hj = np.nonzero(L[:, :-1] != L[:, 1:])
    vi, vj = np.nonzero(L[:-1, :] != L[1:, :])
    A = np.vstack([np.column_stack([xs[hj], ys[hi_]]), np.column_stack([xs[vj], ys[vi]])])
    B = np.vstack([np.column_stack([xs[hj + 1], ys[hi_]]), np.column_stack([xs[vj], ys[vi + 1]])])
    first = np.r_[L[hi_, hj], L[vi, vj]]
    P = _crossings_by_label(label_of, A, B, first) if len(A) else A
    H = np.full((len(ys), len(xs)), np.nan)
    V = np.full((len(ys), len(xs)), np.nan)
    H[hi_, hj] = P[:len(hi_), 0]
    V[vi, vj] = P[len(hi_):, 1]

    def locate(A: np.ndarray, B: np.ndarray) -> np.ndarray:
        out = 0.5 * (A + B)          # zero-length edges (the border of region_rings) stay put
        lo = np.minimum(A, B)
        h = (A[:, 1] == B[:, 1]) & (A[:, 0] != B[:, 0])
        v = (A[:, 0] == B[:, 0]) & (A[:, 1] != B[:, 1])
        i, j = np.searchsorted(ys, lo[:, 1]), np.searchsorted(xs, lo[:, 0])
        out[h, 0] = H[i[h], j[h]]
        out[v, 1] = V[i[v], j[v]]
        return out
    return locate


#: The outline of regions drawn with ``edge=True``: the boundary between two classes as a thin line
#: (two translucent fills meeting edge to edge leave a light seam where each is anti-aliased).
EDGE = dict(width=1, color="rgba(40, 40, 40, 0.55)")


def add_region(fig: go.Figure, rings: list[np.ndarray], fill: str, name: str, group: str | None = None,
               showlegend: bool = True, edge: bool = False, **subplot) -> go.Figure:
    """One filled trace of ``rings`` and, with ``showlegend``, a square swatch of its colour in
    the legend named ``name`` (a filled area's own legend entry is a line). ``edge``: outline the
    rings (``EDGE``). ``subplot``: ``row`` and ``col`` for a figure of subplots."""
    for trace in region_traces(rings, fill, name, group, showlegend, edge):
        fig.add_trace(trace, **subplot)
    return fig


def region_traces(rings: list[np.ndarray], fill: str, name: str, group: str | None = None,
                  showlegend: bool = True, edge: bool = False) -> list[dict]:
    """``add_region``'s traces as Plotly dicts."""
    group = group or name
    traces = []
    if rings:
        x, y = polyline_xy(rings)
        traces.append(dict(type="scatter", x=x, y=y, mode="lines", fill="toself", fillcolor=fill,
                           line=dict(EDGE) if edge else dict(width=0, color=fill), hoverinfo="skip",
                           showlegend=False, legendgroup=group, name=name))
    if showlegend:
        traces.append(dict(type="scatter", x=[None], y=[None], mode="markers", hoverinfo="skip", legendgroup=group,
                           name=name, marker=dict(symbol="square", size=16, color=fill,
                                                  line=dict(width=1, color="#999"))))
    return traces


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

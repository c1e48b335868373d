"""Level lines of a function sampled on a grid, as polylines (marching squares with linear
interpolation along the cells' edges, as Plotly's contour traces draw them). A figure then sends
the lines — a few hundred points — instead of the whole grid of values, which a contour trace
carries for every level it draws."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import plotly.graph_objects as go

#: Points of a traced line are kept within this fraction of the view's larger side (under a pixel).
SIMPLIFY = 5e-4

# The segments of a cell by its case (bit 0: lower left corner above the level, 1: lower right,
# 2: upper right, 3: upper left), as pairs of its edges: B(ottom), R(ight), T(op), L(eft). The two
# saddles (5 and 10) are resolved by the cell's centre value.
_SEGMENTS = {1: [("L", "B")], 2: [("B", "R")], 3: [("L", "R")], 4: [("R", "T")], 6: [("B", "T")],
             7: [("L", "T")], 8: [("L", "T")], 9: [("B", "T")], 11: [("R", "T")], 12: [("L", "R")],
             13: [("B", "R")], 14: [("L", "B")]}
_SADDLE = {(5, True): [("B", "R"), ("L", "T")], (5, False): [("L", "B"), ("R", "T")],
           (10, True): [("L", "B"), ("R", "T")], (10, False): [("B", "R"), ("L", "T")]}


def level_lines(xs: np.ndarray, ys: np.ndarray, Z: np.ndarray, level: float = 0.0,
                locate: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None) -> list[np.ndarray]:
    """The polylines (arrays of (x, y) points) where ``Z`` (shape ``(len(ys), len(xs))``, sampled
    at ``Z[i, j] = f(xs[j], ys[i])``) crosses ``level``. A line closes on itself (first point
    repeated) or ends on the grid's border.

    Each line point lies on a grid edge whose ends are on either side of the level; by default it
    is placed by linear interpolation of ``Z``. ``locate(A, B)``, given the end points of all
    those edges (rows of A above the level, of B not), returns the crossing points instead: for a
    function known only by its labels (a classifier's decision), where interpolating between two
    labels would put every point mid-edge and draw a staircase."""
    xs, ys, Z = np.asarray(xs, float), np.asarray(ys, float), np.asarray(Z, float)
    above = np.where(np.isnan(Z), False, Z > level)
    case = (above[:-1, :-1] * 1 + above[:-1, 1:] * 2 + above[1:, 1:] * 4 + above[1:, :-1] * 8)
    keys: dict[tuple, int] = {}

    def edge(i: int, j: int, side: str) -> tuple:
        """The id of a cell's edge, shared with its neighbour: ("h", row, col) runs from grid
        node (row, col) to (row, col + 1), ("v", row, col) from (row, col) to (row + 1, col)."""
        if side == "B" or side == "T":
            key = ("h", i if side == "B" else i + 1, j)
        else:
            key = ("v", i, j if side == "L" else j + 1)
        keys.setdefault(key, len(keys))
        return key

    links: dict[tuple, list[tuple]] = {}
    for i, j in zip(*np.nonzero((case != 0) & (case != 15))):
        c = int(case[i, j])
        if c in (5, 10):
            centre = 0.25 * (Z[i, j] + Z[i, j + 1] + Z[i + 1, j] + Z[i + 1, j + 1]) > level
            segments = _SADDLE[(c, bool(centre))]
        else:
            segments = _SEGMENTS[c]
        for a, b in segments:
            ea, eb = edge(i, j, a), edge(i, j, b)
            links.setdefault(ea, []).append(eb)
            links.setdefault(eb, []).append(ea)
    point = dict(zip(keys, _crossings(xs, ys, Z, above, level, list(keys), locate)))
    lines, seen = [], set()
    # open lines start on the border (an edge with one neighbour), then the closed ones
    starts = [e for e, n in links.items() if len(n) == 1] + list(links)
    for start in starts:
        if start in seen:
            continue
        chain, prev, cur = [start], None, start
        seen.add(start)
        while True:
            nxt = [e for e in links[cur] if e != prev and (e not in seen or (e == start and len(chain) > 2))]
            if not nxt:
                break
            prev, cur = cur, nxt[0]
            chain.append(cur)
            if cur == start:
                break
            seen.add(cur)
        if len(chain) >= 2:
            lines.append(np.array([point[e] for e in chain]))
    return lines


def _crossings(xs, ys, Z, above, level, keys, locate) -> np.ndarray:
    """The crossing point of every edge of ``keys`` (see ``level_lines``), computed at once."""
    if not keys:
        return np.zeros((0, 2))
    k = np.array([(key[0] == "h", key[1], key[2]) for key in keys], dtype=np.int64)
    h, r0, c0 = k[:, 0].astype(bool), k[:, 1], k[:, 2]
    r1, c1 = r0 + ~h, c0 + h        # the edge's other end: one column right or one row up
    A = np.column_stack([xs[c0], ys[r0]])
    B = np.column_stack([xs[c1], ys[r1]])
    if locate is not None:
        first_above = above[r0, c0]
        return np.asarray(locate(np.where(first_above[:, None], A, B), np.where(first_above[:, None], B, A)), float)
    z0, z1 = Z[r0, c0], Z[r1, c1]
    f = (level - z0) / (z1 - z0)
    return A + f[:, None] * (B - A)


def simplify(line: np.ndarray, tol: float) -> np.ndarray:
    """The points of a polyline that keep it within ``tol`` of where it was (Ramer–Douglas–Peucker):
    a smooth level line crossing a fine grid has a point per cell, most of them on a straight
    stretch at the scale of a pixel."""
    n = len(line)
    if n <= 2 or tol <= 0:
        return line
    keep = np.zeros(n, dtype=bool)
    keep[0] = keep[-1] = True
    todo = [(0, n - 1)]
    while todo:
        a, b = todo.pop()
        if b - a < 2:
            continue
        seg = line[b] - line[a]
        rel = line[a + 1:b] - line[a]
        norm = float(np.hypot(*seg))
        if norm > 0:
            dist = np.abs(seg[0] * rel[:, 1] - seg[1] * rel[:, 0]) / norm
        else:   # a closed line: distance to its first point
            dist = np.hypot(rel[:, 0], rel[:, 1])
        m = int(np.argmax(dist))
        if dist[m] > tol:
            keep[a + 1 + m] = True
            todo += [(a, a + 1 + m), (a + 1 + m, b)]
    return line[keep]


def polyline_xy(lines: list[np.ndarray], digits: int = 6) -> tuple[list, list]:
    """x and y lists of polylines for one Plotly line trace, separated by gaps (None), each
    coordinate to ``digits`` significant digits (a pixel is about 1/1000 of an axis)."""
    xs: list = []
    ys: list = []
    for line in lines:
        if xs:
            xs.append(None)
            ys.append(None)
        xs += [float(f"{v:.{digits}g}") for v in line[:, 0]]
        ys += [float(f"{v:.{digits}g}") for v in line[:, 1]]
    return xs, ys


def level_line_trace(xs: np.ndarray, ys: np.ndarray, Z: np.ndarray, level: float = 0.0, **trace) -> go.Scatter:
    """The line ``Z`` = ``level`` as a Plotly line trace (``trace``: its name, line, ...): the
    simplified polylines, a few hundred numbers where a contour trace carries the whole grid. With
    no such line in view the trace is empty and its legend entry stays."""
    tol = SIMPLIFY * max(xs[-1] - xs[0], ys[-1] - ys[0])
    lines = [simplify(line, tol) for line in level_lines(xs, ys, Z, level)]
    x, y = polyline_xy(lines) if lines else ([None], [None])
    return go.Scatter(x=x, y=y, mode="lines", hoverinfo="skip", **trace)

"""Plots of the SVM tree (Zapién Arreola, Fehr and Burkhardt 2007): step k of the greedy construction, the final partition
before/after pruning, the chain diagram and one animated figure of all steps.

Colours as the paper's figures: a region labelled −1 by a node whose hard class is +1 is cyan, the
reverse yellow. Everything is read from the fitted model's ``trees_`` / trace: nothing is solved
here except the optional geometry overlays (reduced hull polygon, nearest point).
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from svmviz import limits
from svmviz.data import minus_signs, signed
from svmviz.geometry.hulls import nearest_point_to, reduced_convex_hull
from svmviz.models.svm_tree import SLIVER_MAX, decided_counts
from svmviz.plots.common import (LEGEND_SIZE, NEG_COLOR, POS_COLOR, SUBTITLE_SIZE, TEMPLATE, TITLE_SIZE, Plane,
                                 add_class_scatter, base_layout, class_label, class_text, class_traces, counted,
                                 grid, layout_spec, legend_below, padded_box, sample_note, shown_number)
from svmviz.plots.regions import region_rings, region_traces

NEG_REGION_FILL, POS_REGION_FILL = "rgba(0, 229, 255, 0.30)", "rgba(255, 235, 59, 0.45)"
#: The chain diagram's text (px) and a pruned node's colours: greyed out, yet a contrast of 6:1 and
#: more on its boxes (the grey of #888 on #ccc was 2:1, unreadable on a projector).
CHAIN_TEXT_SIZE = 14
PRUNED_TEXT, PRUNED_FILL = "#555555", "#eeeeee"
#: Above this many candidate lines (greedy level 1 has up to 12) only the chosen one is drawn; the
#: others are a click on their legend entry away, so the picture shows the decision, not a fan.
MAX_SHOWN_CANDIDATES = 4
#: The longest legend entry of a step (characters): the legend sits beside the axes and takes at
#: most a fifth of the chart's width at 1280 px, with the projector's 20 px text too (entries of
#: 34 characters took a third). What an entry leaves out is in its hover and the step's tables.
LEGEND_CHARS = 20
CAND_COLORS = {"a": "#d62728", "b": "#9467bd", "c": "#2ca02c", "d": "#ff7f0e"}


# ---------------------------------------------------------------------------- helpers
def _plane(X, plane: Plane | None) -> Plane:
    return plane if plane is not None else Plane(X)


def _pair_in_plane(tree, X, y, plane: Plane | None):
    """Where a tree's pair of classes is drawn: the samples of the pair (a mask), the plane
    (given, or that of the pair's samples), every sample's 2-d coordinates in it and the padded
    box around the pair."""
    X = np.asarray(X, dtype=np.float64)
    in_pair = np.isin(y, tree.classes)
    plane = _plane(X[in_pair], plane)
    P2 = plane.to2d(X)
    lo, hi = padded_box(P2[in_pair])
    return in_pair, plane, P2, lo, hi


def _pm(tree, y) -> np.ndarray:
    return np.where(np.asarray(y) == tree.classes[1], 1, -1)


def _line_in_plane(w, t, plane: Plane):
    """The hyperplane w·x = t met with the plane, as a·P = c in plane coordinates."""
    x0 = plane.lift(np.zeros((1, 2)))[0]
    a = np.array([w @ (plane.lift(np.eye(2)[[j]])[0] - x0) for j in range(2)])
    return a, t - w @ x0


def _clip_line(a, c, lo, hi):
    """End points of {P : a·P = c} inside the box [lo, hi] (None if it misses it)."""
    pts = []
    for j in range(2):
        k = 1 - j
        if abs(a[k]) < 1e-14:
            continue
        for v in (lo[j], hi[j]):
            u = (c - a[j] * v) / a[k]
            if lo[k] - 1e-12 <= u <= hi[k] + 1e-12:
                P = np.zeros(2)
                P[j], P[k] = v, u
                pts.append(P)
    if len(pts) < 2:
        return None
    pts = np.array(pts)
    far = np.argmax(np.linalg.norm(pts - pts[0], axis=1))
    return pts[0], pts[far]


def _clip_polygon(poly: np.ndarray, n: np.ndarray, c: float) -> np.ndarray:
    """The part {P : n·P ≥ c} of a convex polygon (vertices in order; Sutherland–Hodgman)."""
    if len(poly) == 0:
        return poly
    side = poly @ n - c
    out = []
    for i in range(len(poly)):
        j = (i + 1) % len(poly)
        if side[i] >= 0:
            out.append(poly[i])
        if (side[i] >= 0) != (side[j] >= 0):   # the edge crosses the line
            f = side[i] / (side[i] - side[j])
            out.append(poly[i] + f * (poly[j] - poly[i]))
    return np.array(out).reshape(-1, 2)


def decided_regions(nodes, plane: Plane, lo, hi) -> list[tuple[int, np.ndarray]]:
    """The region each node of a chain labels inside the box [lo, hi] of the plane, exactly:
    node i labels −hard_class on its non-hard side, where no earlier node has labelled it, so its
    region is the box cut by i's hyperplane and by the hard sides of the nodes before it — a convex
    polygon. Returns (label ±1, vertices) for every node whose region is not empty."""
    return _chain_cells(nodes, plane, lo, hi)[0]


def _chain_cells(nodes, plane: Plane, lo, hi):
    """(``decided_regions``, the polygon no node decides: the hard side of every node)."""
    box = np.array([[lo[0], lo[1]], [hi[0], lo[1]], [hi[0], hi[1]], [lo[0], hi[1]]], dtype=np.float64)
    rest, out = box, []
    for nd in nodes:
        if len(rest) < 3:
            break
        a, c = _line_in_plane(nd.w, nd.threshold, plane)
        s = float(nd.hard_class)   # the node decides where s·(a·P − c) < 0
        region = _clip_polygon(rest, -s * a, -s * c)
        if len(region) >= 3 and _area(region) > 0:
            out.append((int(-nd.hard_class), region))
        rest = _clip_polygon(rest, s * a, s * c)
    return out, rest


def final_regions(tree, plane: Plane, lo, hi, pruned: bool = True,
                  resolution: int = 200) -> dict[int, list[np.ndarray]]:
    """The whole tree's partition of the box [lo, hi] as polygons by label ±1: the linear nodes'
    cells exactly (``decided_regions``), the rest labelled by the last box — the remaining
    class, or the RBF node of §3.3, whose two sides are traced on a grid of ``resolution``² points
    and cut to the cell that reaches it."""
    nodes = tree.kept() if pruned else tree.nodes
    rbf = pruned and tree.svm is not None
    if rbf:
        nodes = nodes[:tree.nonlinear.depth]
    cells, rest = _chain_cells(nodes, plane, lo, hi)
    out: dict[int, list[np.ndarray]] = {-1: [], 1: []}
    for label, poly in cells:
        out[label].append(np.vstack([poly, poly[:1]]))
    if len(rest) < 3 or _area(rest) == 0:
        return out
    if not rbf:
        out[int(tree.final_class)].append(np.vstack([rest, rest[:1]]))
        return out
    xs, ys, G = grid(np.array([lo, hi]), resolution, pad=0.0)
    f = tree.svm.decision_function(plane.lift(G)).reshape(len(ys), len(xs))
    cut = [(float(nd.hard_class) * a, float(nd.hard_class) * c)
           for nd in nodes for a, c in [_line_in_plane(nd.w, nd.threshold, plane)]]
    for label, g in ((1, f), (-1, -f)):
        for ring in region_rings(xs, ys, g):
            for n, c in cut:      # the hard side of every linear node: where the RBF node acts
                ring = _clip_polygon(ring, n, c)
            if len(ring) >= 3 and _area(ring) > 0:
                out[label].append(np.vstack([ring, ring[:1]]))
    return out


def _area(poly: np.ndarray) -> float:
    x, y = poly[:, 0], poly[:, 1]
    return 0.5 * abs(float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))


def _region_traces(tree, by_label, what="") -> list[dict]:
    """A filled trace per label of ``by_label`` (±1 → polygons) with its legend swatch, as Plotly
    dicts: the regions as exact filled polygons, one trace per class, its polygons separated by
    gaps (a few hundred numbers, where a grid of cells took a hundred kB and drew stair-stepped
    edges)."""
    traces = []
    for sign, fill in ((-1, NEG_REGION_FILL), (1, POS_REGION_FILL)):
        if by_label[sign]:
            traces += region_traces(by_label[sign], fill,
                                    f"decided {class_label(tree.classes[(sign + 1) // 2], sign)}{what}",
                                    group=f"decided {sign}")
    return traces


def _short(v: float) -> float:
    """A coordinate to 7 significant digits: far finer than a pixel, a third of the JSON."""
    return float(f"{v:.7g}")


def _cand_color(label: str) -> str:
    return CAND_COLORS.get(label.strip("−").split("⊥")[0], "#555")


def _line_trace(w, t, plane, lo, hi, name, color, width, dash, text=None, visible=True, opacity=1.0, hover=None):
    """The line w·x = t inside the box as a Plotly trace dict (``hover``: what the pointer shows on
    it, default its ``name``), its label (``text``) as an annotation dict or None, the segment and
    the line's normal in the plane; None when the line misses the box."""
    a, c = _line_in_plane(w, t, plane)
    seg = _clip_line(a, c, lo, hi)
    if seg is None:
        return None
    (x1, y1), (x2, y2) = seg
    # end points to 7 digits and Plotly's defaults left out: a step draws up to 20 lines
    trace = dict(type="scatter", x=[_short(x1), _short(x2)], y=[_short(y1), _short(y2)], mode="lines", name=name,
                 line=dict(color=color, width=width, dash=dash))
    if hover is None:
        trace["hoverinfo"] = "name"
    else:
        trace["hovertemplate"] = f"{hover}<extra></extra>"
    if visible is not True:
        trace["visible"] = visible
    if opacity != 1:
        trace["opacity"] = opacity
    note = None
    if text:
        f = 0.15 + 0.7 * (sum(map(ord, text)) % 7) / 7  # spread labels of lines that coincide
        note = dict(x=_short(x1 + f * (x2 - x1)), y=_short(y1 + f * (y2 - y1)), text=f"<b>{text}</b>",
                    showarrow=False, font=dict(color=color, size=13), bgcolor="rgba(255,255,255,0.7)")
    return trace, note, seg, a


# ---------------------------------------------------------------------------- step k
def step_figure(model, X, y, k: int, tree_index: int = 0, plane: Plane | None = None,
                overlays=(), geometry_label: str | None = None,
                geometry_solver: str = "cvxpy", height: int = 640) -> go.Figure:
    """Step k (0-based) of tree ``tree_index``: regions labelled by nodes 0..k−1, the samples in
    play, those step k removes (red rings), every candidate line labelled (a–d of Fig. 4.1, −x
    for a sign change, x⊥ for a perpendicular), the chosen one bold with its w arrow, the hard
    class outlined. ``overlays`` ⊂ {"rch", "centroid", "nearest"} draws, for the candidate
    ``geometry_label`` (default: the chosen one), the reduced convex hull of its hard class at the
    μ = C_k / m_other of its last try, the non-hard centroid and (H1-SVM) the nearest point."""
    return go.Figure(step_spec(model, X, y, k, tree_index, plane, overlays, geometry_label, geometry_solver,
                               height))


def step_spec(model, X, y, k: int, tree_index: int = 0, plane: Plane | None = None,
              overlays=(), geometry_label: str | None = None,
              geometry_solver: str = "cvxpy", height: int = 640) -> dict:
    """``step_figure`` in Plotly's dict form (``{"data": [...], "layout": {...}}``), every value
    as Plotly's validation leaves it, so that an app can draw it without building Plotly's objects
    (building and validating them took most of a step's first draw). The template in it is
    shared: never change it."""
    tree = model.trees_[tree_index]
    step = tree.trace[k]
    X = np.asarray(X, dtype=np.float64)   # the overlays index it
    in_pair, plane, P2, lo, hi = _pair_in_plane(tree, X, y, plane)
    by_label = {-1: [], 1: []}
    for label, poly in decided_regions(tree.nodes[:k], plane, lo, hi):
        by_label[label].append(poly)
    data = _region_traces(tree, by_label)   # at step k: decided by the nodes before it
    notes = []
    out = np.setdiff1d(np.flatnonzero(in_pair), step.active)
    if out.size:
        data.append(dict(type="scatter", x=P2[out, 0], y=P2[out, 1], mode="markers", name="left out before",
                         marker=dict(color="#bbb", size=5), opacity=0.6))
    act = step.active
    points, sampled = class_traces(P2[act], np.asarray(y)[act], classes=tree.classes,
                                   names=[class_label(tree.classes[0], -1), class_label(tree.classes[1], 1)])
    data += points
    if sampled is not None:
        notes.append(sample_note(*sampled))
    chosen = step.candidates[step.chosen] if step.chosen >= 0 else None
    if chosen is not None:
        hard = act[_pm(tree, np.asarray(y)[act]) == chosen.hard_class]
        data.append(dict(type="scatter", x=P2[hard, 0], y=P2[hard, 1], mode="markers",
                         name=f"hard class {signed(chosen.hard_class)}",
                         marker=dict(symbol="circle-open", size=11, color="#333", line=dict(width=1))))
    sliver = chosen is not None and len(step.removed) <= SLIVER_MAX
    if step.removed.size:
        r = step.removed
        data.append(dict(type="scatter", x=P2[r, 0], y=P2[r, 1], mode="markers",
                         name=f"removed ({len(r)})" + (": sliver" if sliver else ""),
                         hovertemplate="removed by this step<extra></extra>",
                         marker=dict(symbol="circle-open", size=14, color="#e00000", line=dict(width=2.5))))
    if sliver:   # said on the picture itself: a projector shows the plot before the words
        notes.append(dict(xref="x domain", yref="y domain", x=0.01, y=0.99, xanchor="left", yanchor="top",
                          showarrow=False, align="left", bgcolor="rgba(255,240,240,0.92)", bordercolor="#e00000",
                          borderwidth=1.5, font=dict(size=LEGEND_SIZE, color="#a00000"),
                          text=f"<b>sliver</b>: this node decides only {len(step.removed)} training "
                               f"sample{'s' if len(step.removed) != 1 else ''}<br>— placed by a handful of "
                               "points, fragile on new data"))
    drawn = [i for i, c in enumerate(step.candidates) if not c.zero_solution]
    few = len(drawn) <= MAX_SHOWN_CANDIDATES
    for i in drawn:
        c = step.candidates[i]
        is_chosen = i == step.chosen
        # the letter says the solver and the hard class (Fig. 4.1, in the page's caption); the hover says it in full
        name = f"{c.label} leaves out {c.left_out:,}"
        res = _line_trace(c.w, c.threshold, plane, lo, hi, name,
                          _cand_color(c.label), 5 if is_chosen else 1.5,
                          "solid" if is_chosen else ("dot" if c.perpendicular else "dash"),
                          c.label if is_chosen or few else None,
                          visible=True if is_chosen or few else "legendonly", opacity=1.0 if is_chosen else 0.55,
                          hover=f"{c.label}: {c.solver}, hard {signed(c.hard_class)}, leaves out {c.left_out:,}")
        if res is None:
            continue
        trace, note, ((x1, y1), (x2, y2)), a = res
        if is_chosen:   # first in the legend: never scrolled out of view below the other lines
            trace["legendrank"] = 1
        elif not few:   # hidden until clicked, under one heading that says so
            trace.update(legendgroup="others", legendrank=2000,
                         legendgrouptitle=dict(text="more lines (click)"))
        data.append(trace)
        if note is not None:
            notes.append(note)
        if is_chosen:
            mx, my = (x1 + x2) / 2, (y1 + y2) / 2
            u = a / (np.linalg.norm(a) or 1.0) * 0.12 * float(np.max(hi - lo))
            notes.append(dict(x=_short(mx + u[0]), y=_short(my + u[1]), ax=_short(mx), ay=_short(my), xref="x",
                              yref="y", axref="x", ayref="y", showarrow=True, arrowhead=3, arrowwidth=3,
                              arrowcolor=_cand_color(c.label), text="w"))
    if overlays:
        data += _geometry(tree, step, X, y, plane, overlays, geometry_label, geometry_solver)
    layout = layout_spec(f"Step {k + 1} of {len(tree.trace)}", plane.labels[0], plane.labels[1], height=height)
    layout["xaxis"].update(range=[float(lo[0]), float(hi[0])], constrain="domain")
    layout["yaxis"].update(range=[float(lo[1]), float(hi[1])], constrain="domain")
    # legend to the right of the axes (never over the plot or an axis title), its entries short
    # (``LEGEND_CHARS``): the axes keep the width
    layout["title"]["subtitle"] = dict(text=_wrap(minus_signs(step.note), 90), font=dict(size=SUBTITLE_SIZE))
    layout["margin"].update(t=100, r=10, b=50)
    layout["legend"].update(orientation="v", x=1.02, xanchor="left", y=1.0, yanchor="top", groupclick="toggleitem")
    if notes:
        layout["annotations"] = notes
    return {"data": data, "layout": layout}


def _wrap(text: str, width: int) -> str:
    """Break a long note into lines for a Plotly title (<br>)."""
    words, lines, cur = text.split(), [], ""
    for w in words:
        if cur and len(cur) + 1 + len(w) > width:
            lines.append(cur)
            cur = w
        else:
            cur = f"{cur} {w}".strip()
    return "<br>".join(lines + [cur])


def _geometry(tree, step, X, y, plane, overlays, label, solver) -> list[dict]:
    cands = [c for c in step.candidates if not c.perpendicular and not c.sign_changed]
    if not cands:
        return []
    chosen = step.candidates[step.chosen] if step.chosen >= 0 else None
    default = chosen.parent or chosen.label if chosen is not None else cands[0].label
    c = next((q for q in cands if q.label == (label or default)), cands[0])
    act = step.active
    ya = _pm(tree, np.asarray(y)[act])
    Xh, Xo = X[act][ya == c.hard_class], X[act][ya != c.hard_class]
    C_k = c.tries[-1].C_k if c.tries else 1.0
    mu = C_k / len(Xo)
    centroid = Xo.mean(axis=0)
    traces = []
    if "rch" in overlays and X.shape[1] == 2:
        rch = reduced_convex_hull(Xh, mu)
        if len(rch.vertices):
            V = np.vstack([rch.vertices, rch.vertices[:1]])
            traces.append(dict(type="scatter", x=V[:, 0], y=V[:, 1], mode="lines", fill="toself",
                               name=f"{c.label}'s RCH, μ = {mu:.2g}",
                               hovertemplate=f"RCH(hard {signed(c.hard_class)}, μ = {mu:.3g}) of {c.label}"
                                             "<extra></extra>",
                               line=dict(color="#444", width=1.5), fillcolor="rgba(80,80,80,0.12)"))
    if "centroid" in overlays:
        P = plane.to2d(centroid[None, :])[0]
        traces.append(dict(type="scatter", x=[float(P[0])], y=[float(P[1])], mode="markers",
                           name="non-hard centroid",
                           hovertemplate="non-hard centroid s̄<extra></extra>",
                           marker=dict(symbol="x", size=14, color="black", line=dict(width=2))))
    if "nearest" in overlays and c.solver == "h1-svm" and mu * len(Xh) >= 1 - 1e-12:
        q = nearest_point_to(centroid, Xh, mu=mu, solver=solver).point
        P = plane.to2d(np.vstack([centroid, q]))
        traces.append(dict(type="scatter", x=P[:, 0], y=P[:, 1], mode="lines+markers",
                           name="nearest point p*",
                           hovertemplate="nearest point p* of the hard hull<extra></extra>",
                           marker=dict(symbol=["x", "star"], size=[1, 14], color="black"),
                           line=dict(color="black", dash="dot")))
    return traces


# ---------------------------------------------------------------------------- tables
def _tries_text(c) -> str:
    mark = {"solved": "", "certified": " (w=0, certified)", "certified by LP": " (w=0, by LP)",
            "same as C-SVM": " (w=0, as C-SVM)",
            "closed form": " (closed form)"}
    return ", ".join(f"{t.C_k:.3g}{' (w=0)' if t.zero_solution and t.how == 'solved' else mark[t.how]}"
                     for t in c.tries)


def candidates_frame(step) -> pd.DataFrame:
    """One row per candidate of a step: solver, hard class, the C_k tries, left out. "−d": d with
    w → −w (§4.3.3); "d⊥": perpendicular to d (§4.3.4)."""
    rows = []
    for i, c in enumerate(step.candidates):
        rows.append({"chosen": "✔" if i == step.chosen else "", "line": c.label,
                     "solver": c.solver, "hard class": f"{signed(c.hard_class)}",
                     "C_k tries": _tries_text(c) or "—",
                     "zero solution": c.zero_solution, "sign changed": c.sign_changed,
                     "perpendicular": c.perpendicular, "left out": c.left_out})
    return pd.DataFrame(rows)


def zero_solution_frame(model, k: int, tree_index: int = 0) -> pd.DataFrame:
    """Every C_k tried at step k: the relative ‖w‖, what the solver said (or why no solve was
    needed), and the exact prediction from the thresholds D_k* (w = 0 above) and D_low (C-SVM:
    w = 0 below) of the step's zero-solution report (computed now, cached by the model)."""
    step = model.trees_[tree_index].trace[k]
    report = {r.hard_class: r for r in model.zero_solution_report(k, tree_index)}
    rows = []
    for c in step.candidates:
        r = report[c.hard_class]
        for t in c.tries:
            predicted = r.zero_at(t.C_k) if c.solver == "c-svm" else t.C_k >= r.D_star * (1 - 1e-9)
            rows.append({"line": c.label, "solver": c.solver, "hard class": f"{signed(c.hard_class)}",
                         "C_k": shown_number(t.C_k), "how": t.how, "‖w‖ (relative)": shown_number(t.w_norm, ".3g"),
                         "w = 0": t.zero_solution, "exact: w = 0": bool(predicted),
                         "D_k* (w = 0 above)": shown_number(r.D_star),
                         "D_low (C-SVM: w = 0 below)": shown_number(r.D_low if c.solver == "c-svm" else None)})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------- the end
def _acting_segment(seg, in_play):
    """The part of the segment ``seg`` (two end points) where every half-plane of ``in_play``
    holds, each (a, c, h) meaning h·(a·P − c) ≥ 0: where a chain node still gets samples from
    the nodes before it. None when nothing of it is left."""
    P1, P2 = np.asarray(seg[0], dtype=np.float64), np.asarray(seg[1], dtype=np.float64)
    s_lo, s_hi = 0.0, 1.0
    for a, c, h in in_play:      # g(s) = g0 + s·g1 ≥ 0 along P1 + s(P2 − P1)
        g0, g1 = h * (a @ P1 - c), h * (a @ (P2 - P1))
        if abs(g1) < 1e-14:
            if g0 < -1e-12:
                return None
            continue
        root = -g0 / g1
        if g1 > 0:
            s_lo = max(s_lo, root)
        else:
            s_hi = min(s_hi, root)
        if s_lo >= s_hi:
            return None
    return P1 + s_lo * (P2 - P1), P1 + s_hi * (P2 - P1)


def final_figure(model, X, y, pruned: bool = True, tree_index: int = 0,
                 plane: Plane | None = None, resolution: int = 200, by_samples: bool = False) -> go.Figure:
    """The partition of the whole tree: with pruning applied (kept nodes, and the RBF node of §3.3
    if there is one) or with every node before pruning. The regions are polygons
    (``final_regions``; ``resolution`` is the grid the RBF node's sides are traced on), each
    node's line is drawn where it acts. ``by_samples`` (pruned only) shades each node's region by
    the training samples it decides (darker: more; a sliver, ≤ ``SLIVER_MAX``, outlined in red)
    and writes the count in it."""
    tree = model.trees_[tree_index]
    in_pair, plane, P2, lo, hi = _pair_in_plane(tree, X, y, plane)
    fig = go.Figure()
    fig.add_traces(_region_traces(tree, final_regions(tree, plane, lo, hi, pruned, resolution)))
    if by_samples and pruned:
        _shade_by_samples(fig, tree, np.asarray(X, dtype=np.float64)[in_pair], plane, lo, hi)
    nodes = tree.kept() if pruned else tree.nodes
    add_class_scatter(fig, P2[in_pair], np.asarray(y)[in_pair], classes=tree.classes, size=6,
                      names=[class_label(tree.classes[0], -1), class_label(tree.classes[1], 1)])
    if pruned and tree.svm is not None:   # the RBF node takes every sample after these
        nodes = nodes[:tree.nonlinear.depth]
    # each node drawn where it acts: on the samples the nodes before it pass on (§3.2.1)
    in_play = []
    for n in nodes:
        limits.checkpoint()   # a tree of hundreds of nodes: a trace and a label each
        a, c = _line_in_plane(n.w, n.threshold, plane)
        seg = _clip_line(a, c, lo, hi)
        seg = None if seg is None else _acting_segment(seg, in_play)
        if seg is not None:
            (x1, y1), (x2, y2) = seg
            color = NEG_COLOR if n.hard_class > 0 else POS_COLOR
            fig.add_trace(go.Scatter(x=[x1, x2], y=[y1, y2], mode="lines", name=f"node {n.depth + 1} ({n.label})",
                                     line=dict(color=color, width=2), showlegend=False, hoverinfo="name"))
            fig.add_annotation(x=(x1 + x2) / 2, y=(y1 + y2) / 2, text=f"<b>{n.depth + 1}</b>", showarrow=False,
                               font=dict(color=color, size=LEGEND_SIZE), bgcolor="rgba(255,255,255,0.7)")
        in_play.append((a, c, float(n.hard_class)))
    count = counted(len(tree.kept()) if pruned else len(tree.nodes), "hyperplane")
    if pruned and tree.svm is not None:
        count += f" + RBF node after node {tree.nonlinear.depth}"
    base_layout(fig, title=f"Final partition {'after' if pruned else 'before'} pruning", xlabel=plane.labels[0],
                ylabel=plane.labels[1])
    # the counts as a subtitle and the legend under the axes: the page shows two of these side by
    # side, where a long title was cut and a legend above the plot ran into it
    fig.update_layout(title=dict(subtitle=dict(text=count, font=dict(size=SUBTITLE_SIZE))), margin=dict(t=80))
    legend_below(fig)
    fig.update_xaxes(range=[lo[0], hi[0]], constrain="domain")
    fig.update_yaxes(range=[lo[1], hi[1]], constrain="domain")
    return fig


def _shade_by_samples(fig, tree, X, plane, lo, hi) -> None:
    """Over the class colours, each linear node's cell in grey by how many training samples it
    decides (log scale), the count at its centre; slivers outlined in red."""
    kept = tree.kept()
    nodes = kept[:tree.nonlinear.depth] if tree.svm is not None else kept
    counts = decided_counts(tree, X)
    top = np.log1p(max(int(counts.max()), 1))
    box = np.array([[lo[0], lo[1]], [hi[0], lo[1]], [hi[0], hi[1]], [lo[0], hi[1]]], dtype=np.float64)
    rest = box
    for i, nd in enumerate(nodes):
        if len(rest) < 3:
            break
        a, c = _line_in_plane(nd.w, nd.threshold, plane)
        s = float(nd.hard_class)
        cell = _clip_polygon(rest, -s * a, -s * c)
        rest = _clip_polygon(rest, s * a, s * c)
        if len(cell) < 3 or _area(cell) == 0:
            continue
        n = int(counts[i])
        sliver = n <= SLIVER_MAX
        ring = np.vstack([cell, cell[:1]])
        fig.add_trace(go.Scatter(x=ring[:, 0], y=ring[:, 1], mode="lines", fill="toself",
                                 fillcolor=f"rgba(40, 40, 40, {0.05 + 0.45 * np.log1p(n) / top:.3f})",
                                 line=dict(color="#e00000" if sliver else "rgba(0,0,0,0)", width=2 if sliver else 0),
                                 name=f"node {nd.depth + 1}: decides {n}", hoverinfo="name", showlegend=False))
        cx, cy = cell.mean(axis=0)
        fig.add_annotation(x=cx, y=cy, text=f"{n}", showarrow=False,
                           font=dict(size=LEGEND_SIZE, color="#a00000" if sliver else "#222"),
                           bgcolor="rgba(255,255,255,0.6)")
    fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name="grey: training samples a node decides "
                             f"(red outline: a sliver, ≤ {SLIVER_MAX})",
                             marker=dict(symbol="square", size=14, color="rgba(40,40,40,0.4)",
                                         line=dict(width=2, color="#e00000"))))


CHAIN_ROW_PX, CHAIN_TOP_PX = 64, 70   # a card's row (three lines of text) and the title's band
CHAIN_WIDTH_PX = 800   # the plot's width in the page's main column at 1280 px with the sidebar open (820)
GLYPH_EM = 0.6         # a sans-serif glyph's width in font sizes, bold included (an upper estimate)


def _chain_layout(n_cells: int, node_chars: int, class_chars: int) -> tuple[int, float]:
    """Cards per row and the width of a card's class box (a card is 10 units wide): one column
    for a short chain, up to three for a long one (28 nodes in 10 rows, about 700 px, where one
    row per node took 1,740 px), fewer when the longest line of a card or class name would not
    fit at ``CHAIN_WIDTH_PX``."""
    for cols in range(1 if n_cells <= 4 else 2 if n_cells <= 10 else 3, 0, -1):
        unit = CHAIN_WIDTH_PX / (10.0 * cols)
        cls_w = max(1.5, (GLYPH_EM * CHAIN_TEXT_SIZE * (class_chars + 2) + 8) / unit)
        if cols == 1 or (10.0 - 0.8 - cls_w) * unit - 8 >= GLYPH_EM * CHAIN_TEXT_SIZE * node_chars:
            break   # one column is taken whatever fits
    return cols, min(cls_w, 4.0)


def _chain_class(c, sign: int) -> str:
    """Class ``c`` on the ``sign`` side as the chain names it: "+1" / "−1" for a −1/+1 class, as
    "hard +1" beside it and the legends' "class +1" (a bare "1" read as another class), else
    its name."""
    try:
        if float(c) == sign:
            return signed(sign)
    except (TypeError, ValueError):
        pass
    return class_text(c)


def chain_figure(model, tree_index: int = 0, current: int | None = None) -> go.Figure:
    """The tree as a chain of cards read left to right, row by row: node i (its candidate, solver,
    hard class and how many samples it leaves out) with the class its non-hard side gets, passing
    the rest to node i + 1; pruned nodes greyed out, and the kept ones after the RBF node of §3.3
    ("not reached": it takes every sample that reaches it); the last card is the remaining class
    (or the RBF node). ``current`` (0-based step) is outlined in red and marked ▶: the node that
    step adds, or the last card after the last node.
    Built as lists of shapes and annotations set in one ``update_layout`` (adding them one call
    at a time is quadratic in Plotly)."""
    tree = model.trees_[tree_index]
    nodes = tree.nodes
    n = len(nodes)
    cls = {sign: _chain_class(tree.classes[(sign + 1) // 2], sign) for sign in (-1, 1)}
    shapes, notes = [], []
    nl_depth = tree.nonlinear.depth if tree.svm is not None else None
    font = dict(size=CHAIN_TEXT_SIZE)
    cards, kept_i = [], 0
    for i, nd in enumerate(nodes):
        # a kept node after the RBF node is never reached: the RBF node decides every sample
        # the nodes before it pass on (§3.3), so it is drawn as out of the chain as a pruned one
        bypassed = not nd.pruned and nl_depth is not None and kept_i >= nl_depth
        kept_i += not nd.pruned
        # a perpendicular is one hyperplane in either orientation (§4.3.4), not a sign change of w
        flags = [nd.solver] + (["−w"] if nd.sign_changed and not nd.perpendicular else []) + \
            (["⊥"] if nd.perpendicular else [])
        status = "pruned" if nd.pruned else "not reached" if bypassed else "kept"
        cards.append((nd, nd.pruned or bypassed,
                      [f"node {i + 1}: {', '.join([nd.label, *flags])}",
                       f"hard {signed(nd.hard_class)}, leaves out {nd.left_out:,}", status]))
    longest = max((len(line) for *_, lines in cards for line in lines), default=10)
    cols, cls_w = _chain_layout(n + 1, longest, max(len(re.sub(r"<[^>]+>", "", str(c))) for c in cls.values()))
    rows = -(-(n + 1) // cols)
    split = 9.95 - cls_w   # where a card's class box starts

    def cell(i):   # a card's left edge and its row's centre, in units of one card (10 wide, rows 1 high)
        return 10.0 * (i % cols), -float(i // cols)

    for i, (nd, grey, lines) in enumerate(cards):
        x, y = cell(i)
        color = PRUNED_FILL if grey else (NEG_COLOR if nd.hard_class > 0 else POS_COLOR)
        line = "#999" if grey else "#333"
        text = PRUNED_TEXT if grey else "#000"
        shapes += [dict(type="rect", x0=x + 0.55, x1=x + split - 0.25, y0=y - 0.45, y1=y + 0.45,
                        line=dict(color=line, dash="dot" if grey else "solid"), fillcolor="white"),
                   dict(type="rect", x0=x + split, x1=x + 9.95, y0=y - 0.3, y1=y + 0.3, fillcolor=color,
                        line=dict(color=line)),
                   dict(type="line", x0=x + split - 0.25, x1=x + split, y0=y, y1=y, line=dict(color="#333"))]
        head, *rest = lines
        bold = head.split(":", 1)
        notes += [dict(x=x + 0.7, y=y, xanchor="left", showarrow=False, align="left",
                       text="<br>".join([f"<b>{bold[0]}</b>:{bold[1]}", *rest]), font=dict(font, color=text)),
                  dict(x=x + (split + 9.95) / 2, y=y, showarrow=False, text=f"<b>→ {cls[-nd.hard_class]}</b>",
                       font=dict(font, color=text))]
    x, y = cell(n)
    if tree.svm is not None:
        last = f"RBF SVM ({counted(tree.nonlinear.n_support, 'SV')})"
        fill, edge = "#f4cccc", "#c00"
    else:
        last = f"rest → {cls[tree.final_class]}"
        # a pale fill under black text (the saturated class colour made grey text unreadable),
        # the class colour on the border
        fill, edge = (POS_REGION_FILL, POS_COLOR) if tree.final_class > 0 else (NEG_REGION_FILL, NEG_COLOR)
    shapes.append(dict(type="rect", x0=x + 0.55, x1=x + split - 0.25, y0=y - 0.45, y1=y + 0.45, fillcolor=fill,
                       line=dict(color=edge, width=3)))
    notes.append(dict(x=x + (split + 0.3) / 2, y=y, text=f"<b>{last}</b>", showarrow=False,
                      font=dict(size=15, color="#000")))
    subtitle = "read left to right: each node passes the samples it does not decide to the next"
    if current is not None:
        k = min(max(int(current), 0), n)
        x, y = cell(k)
        shapes.append(dict(type="rect", x0=x + 0.45, x1=x + 9.98, y0=y - 0.49, y1=y + 0.49,
                           fillcolor="rgba(0,0,0,0)", line=dict(color="#e00000", width=3)))
        notes.append(dict(x=x + 0.22, y=y, showarrow=False, text="<b>▶</b>", font=dict(size=15, color="#e00000")))
        subtitle = (f"step {int(current) + 1}: " + (f"node {k + 1}" if k < n else "the end of the chain")
                    + " (▶, in red)")
    fig = go.Figure()
    fig.update_layout(shapes=shapes, annotations=notes, template=TEMPLATE,
                      height=CHAIN_TOP_PX + CHAIN_ROW_PX * rows + 10,
                      margin=dict(l=10, r=10, t=CHAIN_TOP_PX, b=10),
                      title=dict(text=f"The chain: {counted(n, 'node')}, {len(tree.kept())} kept after pruning",
                                 font=dict(size=TITLE_SIZE),
                                 subtitle=dict(text=subtitle, font=dict(size=SUBTITLE_SIZE))),
                      xaxis=dict(visible=False, range=[0.0, 10.0 * cols], fixedrange=True),
                      yaxis=dict(visible=False, range=[-rows + 0.5, 0.5], fixedrange=True))
    return fig


# ---------------------------------------------------------------------------- animation
def animation_figure(model, X, y, tree_index: int = 0, plane: Plane | None = None,
                     resolution: int = 100) -> go.Figure:
    """Every step as one figure with a step slider and play button (plotly frames), for handing
    to students as a single HTML file."""
    tree = model.trees_[tree_index]
    figs = [step_figure(model, X, y, k, tree_index, plane)
            for k in range(len(tree.trace))]
    figs.append(final_figure(model, X, y, True, tree_index, plane, resolution))
    n_tr = max(len(f.data) for f in figs)

    def padded(f):
        data = list(f.data) + [go.Scatter(x=[None], y=[None], showlegend=False)] * (n_tr - len(f.data))
        return data

    names = [f"step {k + 1}" for k in range(len(tree.trace))] + ["final"]
    frames = [go.Frame(data=padded(f), name=nm,
                       layout=go.Layout(title=f.layout.title, annotations=f.layout.annotations))
              for f, nm in zip(figs, names)]
    fig = go.Figure(data=padded(figs[0]), frames=frames, layout=figs[0].layout)
    steps = [dict(method="animate", label=nm,
                  args=[[nm], dict(mode="immediate", frame=dict(duration=0, redraw=True),
                                   transition=dict(duration=0))]) for nm in names]
    # controls below the axes (the x-axis title sits above them); nothing starts by itself —
    # export with ``animation_html`` (auto_play off)
    fig.update_layout(
        height=800, margin=dict(b=170),
        sliders=[dict(active=0, steps=steps, x=0.12, len=0.86, y=-0.12, yanchor="top",
                      pad=dict(t=10), currentvalue=dict(prefix=""))],
        updatemenus=[dict(type="buttons", direction="left", x=0.0, y=-0.12, xanchor="left",
                          yanchor="top", pad=dict(t=10), showactive=False, buttons=[
            dict(label="▶ play", method="animate",
                 args=[None, dict(frame=dict(duration=1200, redraw=True), fromcurrent=True)]),
            # "‖", not the pause sign U+23F8: only emoji fonts draw that (a missing-glyph box elsewhere)
            dict(label="‖ pause", method="animate",
                 args=[[None], dict(mode="immediate", frame=dict(duration=0, redraw=False))])])])
    return fig


def animation_html(fig: go.Figure) -> bytes:
    """A stand-alone HTML file of an ``animation_figure`` that waits for ▶ (Plotly's own export
    starts animations on load)."""
    return fig.to_html(include_plotlyjs=True, full_html=True, auto_play=False).encode("utf-8")

"""Figures of Sabzekar, GhasemiGol, Naghibzadeh and Sadoghi Yazdi, Improved DAG SVM: pairwise boundaries, voting and DAG regions, the DAG diagram, and the
clusters, weight maps and fused regions of the weighted DAG SVM (Fig. 1–5).

Every function takes a fitted model and the data (``X``, ``y``) and returns a plotly Figure. For
d > 2 pass a ``Plane``: the model is evaluated on the plane's grid lifted back to d dimensions.
"""

from __future__ import annotations

import html
import itertools
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from svmviz.plots.common import (PALETTE, Plane, PlotText, add_class_scatter, base_layout, class_color, class_text,
                                 counted, grid, legend_below, readable, rgba, shortened, with_subtitle)
from svmviz.plots.contours import level_line_trace, polyline_xy
from svmviz.plots.regions import add_region, class_margins, label_regions, region_rings

UNCLASSIFIABLE = "rgba(120, 120, 120, 0.55)"
PAIR_COLORS = ["#222222", "#6a3d9a", "#b15928", "#33a02c", "#e31a1c", "#1f78b4", "#ff7f00", "#fb9a99"]
PAIR_DASHES = ["solid", "dash", "dot", "dashdot", "longdash", "longdashdot"]


class _View:
    """The 2-D view of the data and the grid on which a model is evaluated."""

    def __init__(self, X, plane: Plane | None, resolution: int):
        X = np.asarray(X, dtype=np.float64)
        self.plane = plane if plane is not None else (Plane(X) if X.shape[1] > 2 else None)
        self.X2 = self.plane.to2d(X) if self.plane is not None else X
        self.xs, self.ys, P = grid(self.X2, resolution)
        self.points = self.points_of(P)
        self.shape = (self.ys.size, self.xs.size)
        self.labels = self.plane.labels if self.plane is not None else ["x1", "x2"]

    def points_of(self, P):
        """Plane points as points of the data's space (where the model is evaluated)."""
        return self.plane.lift(P) if self.plane is not None else P

    def to2d(self, X):
        return self.plane.to2d(X) if self.plane is not None else np.asarray(X)


def _names(model, class_names):
    return [class_text(n) for n in (class_names if class_names else model.classes_)]


def _add_regions(fig, view: _View, Z: np.ndarray, n_classes: int, names, label_of=None, legend=None,
                 **subplot) -> None:
    """The regions of the class indices ``Z`` on the view's grid (−1: unclassifiable, grey) as
    filled polygons, the boundaries located on the grid's edges by ``label_of`` (class indices of
    plane points); a legend swatch per region whose label is not yet in the set ``legend``
    (shared by the panels of a figure; None: every region gets one)."""
    lift = view.points_of
    rings = label_regions(view.xs, view.ys, Z.reshape(view.shape),
                          None if label_of is None else (lambda P: label_of(lift(P))))
    for k, r in sorted(rings.items()):
        k = int(k)
        name = "unclassifiable" if k < 0 else f"region of {names[k]}"
        fill = UNCLASSIFIABLE if k < 0 else rgba(class_color(k, n_classes), 0.30)
        show = legend is None or k not in legend
        if legend is not None:
            legend.add(k)
        add_region(fig, r, fill, name, group=f"region {k}", showlegend=show, edge=True,
                   **subplot)


def _zero_line(view: _View, values: np.ndarray, name: str, color: str, dash="solid", level=0.0,
               showlegend=True, width=2.0) -> go.Scatter:
    return level_line_trace(view.xs, view.ys, values.reshape(view.shape), level, name=name, showlegend=showlegend,
                            line=dict(color=color, width=width, dash=dash))


def _pair_name(names, i, j):
    # class names are whatever the user typed (spaces, commas): spelled out, never as a subscript
    return f"{names[i]} vs {names[j]}: D = 0"


def plot_pairwise_boundaries(model, X, y, class_names=None, plane: Plane | None = None,
                             resolution: int = 160, title: str | None = None) -> go.Figure:
    """Every pairwise boundary D_ij(x) = 0 (Sabzekar et al., eq. 5) over the data."""
    view = _View(X, plane, resolution)
    names = _names(model, class_names)
    D = model.pair_decisions(view.points)
    fig = go.Figure()
    for p, (i, j) in enumerate(model.pairs_):
        fig.add_trace(_zero_line(view, D[:, p], _pair_name(names, i, j), PAIR_COLORS[p % len(PAIR_COLORS)],
                                 PAIR_DASHES[p % len(PAIR_DASHES)]))
    add_class_scatter(fig, view.X2, np.asarray(y), classes=model.classes_, names=names)
    n = len(model.pairs_)
    return legend_below(base_layout(fig, title or f"Pairwise boundaries D_ij = 0 ({n} SVM{'' if n == 1 else 's'})",
                                     *view.labels, equal=plane is None))


def plot_pairwise_grid(model, X, y, class_names=None, plane: Plane | None = None,
                       resolution: int = 110, max_pairs: int = 12) -> go.Figure:
    """One panel per pair (i, j): its two classes, the side D_ij > 0 (class i) shaded, the boundary
    and the margins D_ij = ±1."""
    view = _View(X, plane, resolution)
    names = _names(model, class_names)
    y = np.asarray(y)
    pairs = model.pairs_[:max_pairs]
    cols = min(3, len(pairs))
    rows = int(np.ceil(len(pairs) / cols))
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=[f"{names[i]} vs {names[j]}" for i, j in pairs],
                        horizontal_spacing=0.05, vertical_spacing=0.08)
    K = model.classes_.size
    D = model.pair_decisions(view.points)  # pairs_ order: the first columns are these pairs
    legend: set = set()
    for p, (i, j) in enumerate(pairs):
        r, c = p // cols + 1, p % cols + 1
        d = D[:, p]
        for k, sign in ((i, 1.0), (j, -1.0)):   # each side of D_ij = 0, traced on its values
            add_region(fig, region_rings(view.xs, view.ys, sign * d.reshape(view.shape)),
                       rgba(class_color(k, K), 0.30), f"region of {names[k]}", group=f"region {k}",
                       showlegend=k not in legend, row=r, col=c)
            legend.add(k)
        fig.add_trace(_zero_line(view, d, "D_ij = 0", "#222", showlegend=False), row=r, col=c)
        for lev in (-1.0, 1.0):
            fig.add_trace(_zero_line(view, d, "D_ij = ±1", "#555", dash="dot", level=lev,
                                     showlegend=False, width=1.2), row=r, col=c)
        for k in (i, j):
            m = y == model.classes_[k]
            fig.add_trace(go.Scatter(x=view.X2[m, 0], y=view.X2[m, 1], mode="markers", name=names[k],
                                     marker=dict(color=class_color(k, K), size=5, line=dict(width=0.4, color="#333")),
                                     showlegend=False), row=r, col=c)
    return readable(fig, "Each pairwise SVM on its two classes (shaded: the side of each class; dotted: D_ij = ±1)",
                    len(pairs), height=330 * rows, margin=dict(l=30, r=10, t=60, b=30))


def _voted(model, X) -> np.ndarray:
    """The class index max-wins voting gives each row of X, −1 where the most votes tie."""
    V = model.votes(X)
    tied = (V == V.max(axis=1, keepdims=True)).sum(axis=1) > 1
    return np.where(tied, -1, np.argmax(V, axis=1))


def plot_voting_regions(model, X, y, class_names=None, plane: Plane | None = None,
                        resolution: int = 200) -> go.Figure:
    """Max-wins voting regions (eq. 7–9) with the unclassifiable region in grey (Sabzekar et al., Fig. 1)."""
    view = _View(X, plane, resolution)
    names = _names(model, class_names)
    Z = _voted(model, view.points)
    tied = Z < 0
    fig = go.Figure()
    _add_regions(fig, view, Z, model.classes_.size, names, lambda P: _voted(model, P))
    D = model.pair_decisions(view.points)
    for p, (i, j) in enumerate(model.pairs_):
        fig.add_trace(_zero_line(view, D[:, p], _pair_name(names, i, j), "#444",
                                 PAIR_DASHES[p % len(PAIR_DASHES)], width=1.2))
    add_class_scatter(fig, view.X2, np.asarray(y), classes=model.classes_, names=names)
    share = 100 * tied.mean()
    return legend_below(base_layout(fig, f"Pairwise voting: unclassifiable (grey) on {share:.1f} % of the view",
                                     *view.labels, equal=plane is None))


def plot_dag_regions(model, X, y, class_names=None, plane: Plane | None = None,
                     resolution: int = 200, tied_outline=None, title: str | None = None) -> go.Figure:
    """The regions of a DAG SVM (Sabzekar et al., Fig. 3). ``tied_outline``: a fitted
    ``PairwiseVotingSVC`` whose unclassifiable region is outlined (where the DAG decides by order)."""
    view = _View(X, plane, resolution)
    names = _names(model, class_names)
    Z = model.predict_index(view.points)
    fig = go.Figure()
    _add_regions(fig, view, Z, model.classes_.size, names, model.predict_index)
    if tied_outline is not None:
        tied = tied_outline.unclassifiable(view.points).astype(int)
        rings = label_regions(view.xs, view.ys, tied.reshape(view.shape),
                              lambda P: tied_outline.unclassifiable(view.points_of(P)).astype(int)).get(1, [])
        lx, ly = polyline_xy(rings) if rings else ([None], [None])
        fig.add_trace(go.Scatter(x=lx, y=ly, mode="lines", line=dict(color="#555", width=2, dash="dot"),
                                 name="voting's unclassifiable region", hoverinfo="skip"))
    add_class_scatter(fig, view.X2, np.asarray(y), classes=model.classes_, names=names)
    order = " → ".join(names[k] for k in model.order_)
    return legend_below(base_layout(fig, title or f"DAG regions for the list [{order}]", *view.labels,
                                     equal=plane is None))


def distinct_orders(classes, limit: int = 12) -> list[list]:
    """Class lists giving different DAGs: a list and its reverse give the same DAG (the first
    comparison is the same pair and what is left is again reversed), so one of each pair."""
    seen, out = set(), []
    for perm in itertools.permutations(range(len(classes))):
        if perm[::-1] in seen:
            continue
        seen.add(perm)
        out.append([classes[k] for k in perm])
        if len(out) >= limit:
            break
    return out


def plot_order_comparison(models, X, y, class_names=None, plane: Plane | None = None,
                          resolution: int = 110) -> go.Figure:
    """The DAG regions of several class lists side by side, with the share of the view where each
    differs from the first (how the regions depend on the order, Fig. 3)."""
    view = _View(X, plane, resolution)
    names = _names(models[0], class_names)
    preds = [m.predict_index(view.points) for m in models]
    titles = []
    for m, p in zip(models, preds):
        diff = 100 * np.mean(p != preds[0])
        titles.append(f"[{', '.join(names[k] for k in m.order_)}]: {diff:.1f} % differ")
    cols = min(3, len(models))
    rows = int(np.ceil(len(models) / cols))
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=titles, horizontal_spacing=0.05,
                        vertical_spacing=0.1)
    K = models[0].classes_.size
    y = np.asarray(y)
    legend: set = set()
    for a, p in enumerate(preds):
        r, c = a // cols + 1, a % cols + 1
        _add_regions(fig, view, p, K, names, models[a].predict_index, legend, row=r, col=c)
        for k in range(K):
            msk = y == models[0].classes_[k]
            fig.add_trace(go.Scatter(x=view.X2[msk, 0], y=view.X2[msk, 1], mode="markers", showlegend=False,
                                     marker=dict(color=class_color(k, K), size=4), name=names[k]), row=r, col=c)
    return readable(fig, "DAG regions for different class lists (percent of the view that differs from the first "
                         "list)", len(titles), height=320 * rows, margin=dict(l=30, r=10, t=60, b=30))


def dag_layout(K: int):
    """Nodes (level, lo) of the decision DAG of K classes with positions: at level s the remaining
    list is order[lo : lo + K − s], lo = 0 … s."""
    return [(s, lo, lo - s / 2.0, -float(s)) for s in range(K) for lo in range(s + 1)]


# The diagram sits in a column about 320 px wide (a phone, a laptop with the sidebar open; about
# 480 px in lesson mode), where the K leaves side by side have about COLUMN_PX / K px each: every
# size of the drawing is chosen from K so that its K leaves fit COLUMN_PX, and the diagram grows
# downwards, a level at a time, never sideways:
#  - node circles NODE_PX wide while K of them fit, smaller beyond (31 px for eight classes), their
#    text one size smaller from five classes on;
#  - class names cut to what fits a leaf's share of the column (10 characters for three classes:
#    "versicolor", 5 for eight), whole in the hover of every node and edge label;
#  - edge labels "not j" on one line while that fits, else (from five classes on) "not" above the
#    name (a label is then no wider than a name);
#  - the two edges leaving a node are labelled at different heights (the left one at
#    EDGE_LABEL_AT[0] of its length, the right one at EDGE_LABEL_AT[1]), so labels side by side on
#    one row are a whole node apart, never half of one;
#  - a level is LEVEL_PX high, room for the node circles and the two rows of labels (taller when a
#    label has three lines).
COLUMN_PX = 300
DAG_NAME_CHARS = 30
EDGE_LABEL_AT = (0.34, 0.66)
LEVEL_PX = 150
NODE_PX = 58
TEXT_PX = 13
SUBTITLE_CHARS = 32   # the class list's line at the subtitle's size in the narrow column


@dataclass(frozen=True)
class DiagramSizes:
    """The sizes of the DAG diagram of K classes (px, characters)."""

    node: int        # a node circle's diameter
    text: int        # node names and edge labels
    chars: int       # a class name's characters on the diagram
    wrap: bool       # an edge label wider than a name goes on two lines, "not" above the name
    level: int       # a level's height

    @classmethod
    def of(cls, K: int) -> "DiagramSizes":
        if K <= 4:
            return cls(NODE_PX, TEXT_PX, max(3, DAG_NAME_CHARS // max(K, 1)), False, LEVEL_PX)
        slot = COLUMN_PX / (K + 0.1)              # a leaf's share of the column (the x range below)
        node = int(min(NODE_PX, slot - 6))
        text = TEXT_PX - 1 if K <= 6 else TEXT_PX - 2
        # a name as wide as its slot (a character is about 0.6 of the text size), wider than a small
        # circle: five characters ("gamma") for eight classes say more than a name cut to fit the circle
        chars = max(3, int((slot - 4) / (0.6 * text)))
        return cls(node, text, chars, True, LEVEL_PX + 20)


def plot_dag_diagram(model, class_names=None, X=None, highlight=None, levels: int | None = None) -> go.Figure:
    """The decision DAG of ``model.order_`` (Sabzekar et al., Fig. 2): internal nodes "i vs j", edges
    "not j" / "not i", leaves the classes. With ``X`` the edges are labelled with how many samples
    take them; ``highlight`` (one sample) draws its path in bold. Long class names are cut on the
    diagram and shown whole in the hover; its sizes follow the number of classes
    (``DiagramSizes``), so that it stays readable in a narrow column with up to eight classes.
    ``levels``: only the first ``levels`` edges of the highlighted path (a sample's walk so far)."""
    names = _names(model, class_names)
    order = model.order_
    K = order.size
    size = DiagramSizes.of(K)
    short = [shortened(n, size.chars) for n in names]
    pos = {(s, lo): (x, yv) for s, lo, x, yv in dag_layout(K)}
    counts = {}
    if X is not None and K > 1:
        path = model.node_path(X)
        lo_final = np.argsort(order)[model.predict_index(X)]  # position of the reached class
        for s in range(K - 1):
            nxt = path[:, s + 1, 0] if s + 1 < K - 1 else lo_final
            for a, b in zip(path[:, s, 0], nxt):
                counts[(s, a, b)] = counts.get((s, a, b), 0) + 1
    hl = set()
    if highlight is not None and K > 1:
        h = np.asarray(highlight, dtype=np.float64).reshape(1, -1)
        p = model.node_path(h)[0]
        lo_end = int(np.flatnonzero(order == model.predict_index(h)[0])[0])
        los = list(p[:, 0]) + [lo_end]
        hl = {(s, los[s], los[s + 1]) for s in range(K - 1 if levels is None else min(int(levels), K - 1))}
    fig = go.Figure()
    for s in range(K - 1):
        for lo in range(s + 1):
            hi = lo + K - 1 - s
            for side, (child, dropped) in enumerate(((lo, order[hi]), (lo + 1, order[lo]))):
                (x0, y0), (x1, y1) = pos[(s, lo)], pos[(s + 1, child)]
                bold = (s, lo, child) in hl
                fig.add_trace(go.Scatter(x=[x0, x1], y=[y0, y1], mode="lines", hoverinfo="skip",
                                         line=dict(color="#d62728" if bold else "#888", width=5 if bold else 1.5),
                                         showlegend=False))
                one_line = not size.wrap or len(html.unescape(short[dropped])) + 4 <= size.chars
                label = f"not {short[dropped]}" if one_line else f"not<br>{short[dropped]}"
                hover = f"not {names[dropped]}"
                if counts:
                    n = counts.get((s, lo, child), 0)
                    label += f"<br>({n})"
                    hover += f": {counted(n, 'training sample')}"
                t = EDGE_LABEL_AT[side]
                fig.add_annotation(x=x0 + t * (x1 - x0), y=y0 + t * (y1 - y0), text=label, hovertext=hover,
                                   showarrow=False, font=dict(size=size.text, color="#333"),
                                   bgcolor="rgba(255,255,255,0.85)")
    xs, ys, text, colors, hover = [], [], [], [], []
    for s, lo, x, yv in dag_layout(K):
        hi = lo + K - 1 - s
        xs.append(x)
        ys.append(yv)
        if s == K - 1:
            k = order[lo]
            text.append(short[k])
            colors.append(class_color(k, K))   # as every map of the page
            hover.append(f"class {names[k]}")
        else:
            i, j = order[lo], order[hi]
            text.append(f"{short[i]}<br>vs<br>{short[j]}")   # a line each: a node is a column wide
            colors.append("#f2f2f2")
            left = ", ".join(names[k] for k in order[lo:hi + 1])
            hover.append(f"remaining [{left}]: D_{names[i]},{names[j]} ≥ 0 → not {names[j]}, else not {names[i]}")
    fig.add_trace(go.Scatter(x=xs, y=ys, mode="markers+text", text=text, textposition="middle center",
                             hovertext=hover, hoverinfo="text", showlegend=False,
                             marker=dict(size=size.node, color=colors, line=dict(width=1.5, color="#333"),
                                         symbol="circle"),
                             # a light halo: a name wider than a small circle stays legible over its outline
                             textfont=dict(size=size.text, color="#111", shadow="auto")))
    reach = (K - 1) / 2 + 0.55     # the leaves' half-width, a circle's radius and its name beyond
    fig.update_xaxes(visible=False, range=[-reach, reach])
    fig.update_yaxes(visible=False, range=[-(K - 1) - 0.3, 0.3])
    # a short title, the list as its subtitle: the whole list as a title ran off a narrow column
    fig = readable(fig, "Decision DAG", height=round(size.level * (K - 1 + 0.6)) + 90,
                   margin=dict(l=10, r=10, t=50, b=10))
    return with_subtitle(fig, _wrapped(f"class list [{', '.join(short[k] for k in order)}]"))


def _wrapped(text: PlotText, chars: int = SUBTITLE_CHARS) -> PlotText:
    """Plotly text broken into lines of at most ``chars`` characters as shown, at its spaces."""
    lines = [""]
    for word in text.split(" "):
        line = f"{lines[-1]} {word}" if lines[-1] else word
        if lines[-1] and len(html.unescape(line)) > chars:
            lines.append(word)
        else:
            lines[-1] = line
    return PlotText("<br>".join(lines))


def _ellipse(mean2, cov2, n_std: float, n: int = 80):
    w, V = np.linalg.eigh(cov2)
    t = np.linspace(0, 2 * np.pi, n)
    circle = np.column_stack([np.cos(t), np.sin(t)]) * (n_std * np.sqrt(np.maximum(w, 0)))
    return mean2 + circle @ V.T


def plot_wdag_clusters(model, X, y, class_names=None, plane: Plane | None = None) -> go.Figure:
    """The K-Means clusters with the 1σ and 2σ ellipses of their Gaussians (Sabzekar et al., Fig. 4), the
    classes each cluster's DAG knows and those it lacks (§5 asks for every class in every cluster)."""
    view = _View(X, plane, 20)
    names = _names(model, class_names)
    fig = go.Figure()
    add_class_scatter(fig, view.X2, np.asarray(y), classes=model.classes_, names=names, opacity=0.7)
    B = view.plane.basis if view.plane is not None else np.eye(2)
    for M, (mu, S) in enumerate(zip(model.means_, model.covariances_)):
        col = PALETTE[(M + 4) % len(PALETTE)]
        m2 = view.to2d(mu[None])[0]
        S2 = B @ S @ B.T
        kn = ", ".join(names[k] for k in model.cluster_classes_[M])
        lacks = ", ".join(names[k] for k in model.cluster_missing_[M])
        kn += f"; lacks {lacks}" if lacks else ""
        for ns, dash in ((1.0, "solid"), (2.0, "dash")):
            E = _ellipse(m2, S2, ns)
            fig.add_trace(go.Scatter(x=E[:, 0], y=E[:, 1], mode="lines", line=dict(color=col, width=2, dash=dash),
                                     name=f"cluster {M + 1} ({kn})" if ns == 1 else f"cluster {M + 1}: 2σ",
                                     legendgroup=f"c{M}", showlegend=ns == 1))
        fig.add_trace(go.Scatter(x=[m2[0]], y=[m2[1]], mode="markers+text", text=[f"C{M + 1}"],
                                 textposition="top center", marker=dict(symbol="x", size=13, color=col),
                                 legendgroup=f"c{M}", showlegend=False, name=f"mean of cluster {M + 1}"))
    # a short title and the rest as a subtitle: the page shows this figure in half its width
    # (about 400 px), where the whole sentence as a title was cut off
    subtitle = "their Gaussians: 1σ solid, 2σ dashed"
    n_lacking = model.incomplete_clusters_.size
    if n_lacking:
        subtitle += f"<br>{counted(n_lacking, 'cluster')} {'lacks' if n_lacking == 1 else 'lack'} a class"
    fig = base_layout(fig, f"K-Means clusters (N = {len(model.means_)})", *view.labels, equal=plane is None)
    return legend_below(with_subtitle(fig, subtitle))


def plot_cluster_regions(model, X, y, class_names=None, plane: Plane | None = None,
                         resolution: int = 110) -> go.Figure:
    """Each cluster's DAG regions (a one-class cluster colours the whole view with its class),
    with the samples of (X, y) nearest its K-Means centre (for the training set: the cluster's
    training samples; X may also be other data, e.g. for an imported model)."""
    view = _View(X, plane, resolution)
    X = np.asarray(X, dtype=np.float64)
    nearest = np.argmin(((X[:, None, :] - model.cluster_centers_[None]) ** 2).sum(axis=2), axis=1)
    names = _names(model, class_names)
    N = len(model.cluster_models_)
    L = model.cluster_predictions(view.points)
    y = np.asarray(y)
    K = model.classes_.size
    cols = min(3, N)
    rows = int(np.ceil(N / cols))
    titles = [f"cluster {M + 1}: " + ("only " + names[model.cluster_constant_[M]]
                                      if model.cluster_models_[M] is None else "DAG over "
                                      + ", ".join(names[k] for k in model.cluster_classes_[M]))
              for M in range(N)]
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=titles, horizontal_spacing=0.05, vertical_spacing=0.1)
    legend: set = set()
    for M in range(N):
        r, c = M // cols + 1, M % cols + 1
        _add_regions(fig, view, L[:, M], K, names, lambda P, M=M: model.cluster_predictions(P)[:, M], legend,
                     row=r, col=c)
        inside = nearest == M
        for k in range(K):
            msk = inside & (y == model.classes_[k])
            fig.add_trace(go.Scatter(x=view.X2[msk, 0], y=view.X2[msk, 1], mode="markers", showlegend=False,
                                     marker=dict(color=class_color(k, K), size=5, line=dict(width=0.4, color="#333")),
                                     name=names[k]), row=r, col=c)
    return readable(fig, "Each cluster's DAG SVM l_M(x) (eq. 14), trained on the cluster's samples only", N,
                    height=330 * rows, margin=dict(l=30, r=10, t=60, b=30))


def plot_weight_maps(model, X, y, class_names=None, plane: Plane | None = None,
                     resolution: int = 110) -> go.Figure:
    """The membership weight w_M(x) of every cluster (eq. 13, normalised over clusters)."""
    view = _View(X, plane, resolution)
    W = model.weights(view.points)
    N = W.shape[1]
    cols = min(3, N)
    rows = int(np.ceil(N / cols))
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=[f"w_{M + 1}(x)" for M in range(N)],
                        horizontal_spacing=0.05, vertical_spacing=0.1)
    for M in range(N):
        r, c = M // cols + 1, M % cols + 1
        fig.add_trace(go.Heatmap(x=view.xs, y=view.ys, z=W[:, M].reshape(view.shape).astype(np.float32), zmin=0, zmax=1,
                                 colorscale="Viridis", showscale=M == 0,
                                 hovertemplate="w=%{z:.3f}<extra></extra>"), row=r, col=c)
        m2 = view.to2d(model.means_[M][None])[0]
        fig.add_trace(go.Scatter(x=[m2[0]], y=[m2[1]], mode="markers", marker=dict(symbol="x", size=12, color="white"),
                                 showlegend=False, name=f"mean {M + 1}"), row=r, col=c)
    return readable(fig, f"Membership weights w_M(x) ({_weight_kind(model)}, normalised so Σ_M w_M = 1)", N,
                    height=330 * rows, margin=dict(l=30, r=10, t=60, b=30))


def plot_fused_regions(model, X, y, class_names=None, plane: Plane | None = None,
                       resolution: int = 200) -> go.Figure:
    """The WDAG decision argmax_i τ_i (eq. 15–17), with the lines where two τ are equal."""
    view = _View(X, plane, resolution)
    names = _names(model, class_names)
    tau = model.tau(view.points)
    fig = go.Figure()
    K = model.classes_.size
    G = class_margins(tau)     # τ_i − the largest other τ: continuous, zero where two τ are equal
    for k in range(K):
        add_region(fig, region_rings(view.xs, view.ys, G[:, k].reshape(view.shape)),
                   rgba(class_color(k, K), 0.30), f"region of {names[k]}", group=f"region {k}", edge=True)
    add_class_scatter(fig, view.X2, np.asarray(y), classes=model.classes_, names=names)
    # as the clusters beside it on the page, half its width: a short title, the settings as a
    # subtitle and the legend under the plot (above it, it ran into the title)
    fig = base_layout(fig, "WDAG fused regions argmax τ_i", *view.labels, equal=plane is None)
    return legend_below(with_subtitle(fig, f"N = {len(model.means_)}, weights: {_weight_kind(model)}"))


def _weight_kind(model) -> str:
    """What the weights w_M(x) of a weighted DAG SVM are, in a few words."""
    return "normal density" if model.weight == "gaussian" else "eq. 12 as printed"


SAMPLE = dict(symbol="star", size=22, color="#ffd92f", line=dict(width=2, color="#111"))


def _add_sample(fig, view: _View, x, **subplot) -> None:
    """The followed sample as a large star."""
    p = view.to2d(np.asarray(x, dtype=np.float64).reshape(1, -1))[0]
    fig.add_trace(go.Scatter(x=[p[0]], y=[p[1]], mode="markers", marker=SAMPLE, name="the sample"), **subplot)


def plot_dag_step(dag, X, y, x, step, class_names=None, plane: Plane | None = None, wdag=None,
                  resolution: int = 140) -> go.Figure:
    """The map of one ``dag_steps`` step of sample ``x`` (a star): the data at the start; at a DAG
    level the two sides of the pairwise SVM that decides there (Sabzekar et al., eq. 5), the classes
    already dropped faded; the K-Means clusters of the weighted DAG (Fig. 4); a cluster's DAG
    regions (eq. 14) with its Gaussian; the fused regions argmax τ (eq. 15–17, ``plot_fused_regions``)."""
    names = _names(dag, class_names)
    K = dag.classes_.size
    if step.kind == "fused":
        fig = go.Figure(plot_fused_regions(wdag, X, y, class_names, plane))
        _add_sample(fig, _View(X, plane, 2), x)
        return fig
    if step.kind == "clusters":
        fig = go.Figure(plot_wdag_clusters(wdag, X, y, class_names, plane))
        _add_sample(fig, _View(X, plane, 2), x)
        return fig
    view = _View(X, plane, resolution if step.kind in ("node", "cluster") else 2)
    fig = go.Figure()
    y = np.asarray(y)
    title = "The sample and the data"
    if step.kind == "node":
        i, j = step.pair
        D = dag.pairwise_decision(view.points)[:, i, j]
        Z = np.where(D >= 0, i, j)
        _add_regions(fig, view, Z, K, names, lambda P: np.where(dag.pairwise_decision(P)[:, i, j] >= 0, i, j))
        fig.add_trace(_zero_line(view, D, _pair_name(names, i, j), "#111"))
        title = f"Level {step.index + 1}: {names[i]} vs {names[j]}, D(x) = {step.value:+.3f}"
        kept = set(step.remaining) | {step.loser}
    elif step.kind == "cluster":
        M = step.index
        L = wdag.cluster_predictions(view.points)[:, M]
        _add_regions(fig, view, L, K, names, lambda P: wdag.cluster_predictions(P)[:, M])
        B = view.plane.basis if view.plane is not None else np.eye(2)
        m2 = view.to2d(wdag.means_[M][None])[0]
        for ns, dash in ((1.0, "solid"), (2.0, "dash")):
            E = _ellipse(m2, B @ wdag.covariances_[M] @ B.T, ns)
            fig.add_trace(go.Scatter(x=E[:, 0], y=E[:, 1], mode="lines", line=dict(color="#111", width=2, dash=dash),
                                     name=f"cluster {M + 1}: {ns:g}σ", hoverinfo="skip"))
        title = f"Cluster {M + 1}'s DAG: l_{M + 1}(x) = {names[step.loser]}"
        kept = set(range(K))
    else:
        kept = set(range(K))
    for k in range(K):
        m = y == dag.classes_[k]
        fig.add_trace(go.Scatter(x=view.X2[m, 0], y=view.X2[m, 1], mode="markers", name=names[k],
                                 opacity=1.0 if k in kept else 0.15,
                                 marker=dict(color=class_color(k, K), size=6, line=dict(width=0.5, color="#333"))))
    _add_sample(fig, view, x)
    return legend_below(base_layout(fig, title, *view.labels, equal=plane is None))


def plot_wdag_fusion(wdag, x, k: int | None = None, class_names=None) -> go.Figure:
    """The sample's cluster weights w_M(x) (eq. 13); the bars of the first ``k`` clusters (all:
    None) in the colour of the class their DAG says (eq. 14), the others grey; beside them the sums
    τ_i of those k clusters' weights per class (eq. 16–17)."""
    names = _names(wdag, class_names)
    x = np.asarray(x, dtype=np.float64).reshape(1, -1)
    W, L = wdag.weights(x)[0], wdag.cluster_predictions(x)[0]
    K, N = wdag.classes_.size, W.size
    k = N if k is None else int(k)
    fig = make_subplots(rows=1, cols=2, subplot_titles=("weights w_M(x)", "τ_i (summed per class)"))
    shown = np.arange(N) < k
    fig.add_trace(go.Bar(x=[f"C{M + 1}" for M in range(N)], y=W, showlegend=False,
                         marker_color=[class_color(int(L[M]), K) if shown[M] else "#bbb" for M in range(N)],
                         text=[f"{W[M]:.2f} → {names[int(L[M])]}" if shown[M] else f"{W[M]:.2f}" for M in range(N)],
                         textposition="auto"), row=1, col=1)
    T = np.zeros(K)
    np.add.at(T, L[shown], W[shown])
    fig.add_trace(go.Bar(x=names, y=T, marker_color=[class_color(c, K) for c in range(K)], showlegend=False,
                         text=[f"{v:.2f}" for v in T], textposition="auto"), row=1, col=2)
    fig.update_yaxes(range=[0, 1.05])
    return readable(fig, n_titles=2, height=330, margin=dict(l=40, r=20, t=50, b=30))

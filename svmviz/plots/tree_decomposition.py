"""Figures of the tree decomposition of Chang, Guo, Lin and Lu 2009: the partition with homogeneous leaves and local SVM
boundaries, the ceiling-size search path, the leaf table and the comparison with a global SVM."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from svmviz.errors import ParameterError
from svmviz.models.td_steps import split_order
from svmviz.plots.common import (add_class_scatter, base_layout, class_color, class_text, message_figure,
                                 minus_sign, readable, rgba)
from svmviz.plots.contours import level_lines, polyline_xy
from svmviz.plots.regions import add_region, class_margins, region_rings

MAX_POINTS = 3000  # scatter at most this many samples (a large set would hide the partition)
REGION_ALPHA = 0.22   # a local SVM's regions: lighter than a homogeneous leaf's fill
CURRENT = "#d62728"   # what a step adds: the split lines it makes, the leaves it visits


def plot_partition(model, X, y, sigma=None, resolution: int = 60, title: str | None = None) -> go.Figure:
    """The leaves of the tree at ceiling σ (a searched one; default σ_opt) as rectangles:
    homogeneous leaves filled with their class colour, heterogeneous leaves outlined with their
    local SVM's decision regions and boundary drawn inside them (Chang et al. 2009, §2, Figure 1); leaves
    labelled by their majority under ``purity_tol`` (an extension) filled and hatched."""
    if model.n_features_in_ != 2:
        raise ParameterError("the partition plot needs 2-D data (two features)")
    X = np.asarray(X, dtype=np.float64)
    sigma = model.sigma_ if sigma is None else int(sigma)
    leaves = model.leaves_ if sigma == model.sigma_ else model.level_leaves(sigma)
    n_h = sum(lf.homogeneous for lf in leaves)
    n_m = sum(lf.by_majority for lf in leaves)
    extra = f", {n_m} by majority (dotted)" if n_m else ""
    return _leaves_figure(model, X, y, leaves, resolution,
                          title or f"σ = {sigma}: {len(leaves)} {'leaf' if len(leaves) == 1 else 'leaves'}, "
                                   f"{n_h} homogeneous{extra}")


def _frame(X):
    """The plotted box [lo, hi] around the samples (5 % beyond them)."""
    span = np.ptp(X, axis=0)
    span = np.where(span > 0, span, 1.0)
    return X.min(axis=0) - 0.05 * span, X.max(axis=0) + 0.05 * span


def _leaves_figure(model, X, y, leaves, resolution: int, title: str, shown: int | None = None,
                   current: tuple = ()) -> go.Figure:
    """``leaves`` (``TDLeaf``) as boxes: homogeneous ones filled, the others with their local SVM's
    regions and boundary. ``shown``: only the first ``shown`` leaves so (the rest outlined, not
    yet visited); ``current``: node ids outlined in red (the leaves a step visits)."""
    K = model.classes_.size
    names = [class_text(c) for c in model.classes_]
    lo, hi = _frame(X)
    boxes = model.tree_.boxes(lo, hi)
    fig = go.Figure()
    fills = [rgba(class_color(k, K), REGION_ALPHA) for k in range(K)]
    # every leaf's regions of a class in one trace and every boundary in one: the browser draws
    # 3K + 1 traces at any σ, not K + 1 per leaf (the leaves are disjoint, so their rings never overlap)
    rings, lines = [[] for _ in range(K)], []
    for i, lf in enumerate(leaves):
        (x0, y0), (x1, y1) = boxes[lf.node]
        if shown is not None and i >= shown:
            fig.add_shape(type="rect", x0=x0, y0=y0, x1=x1, y1=y1, layer="below",
                          line=dict(color="#999", width=1, dash="dot"))
            continue
        if lf.svm is None:
            fig.add_shape(type="rect", x0=x0, y0=y0, x1=x1, y1=y1, layer="below",
                          line=dict(color="#444", width=1, dash="dot" if lf.by_majority else "solid"),
                          fillcolor=rgba(class_color(lf.label, K), 0.3 if lf.by_majority else 0.45))
            continue
        fig.add_shape(type="rect", x0=x0, y0=y0, x1=x1, y1=y1, layer="above",
                      line=dict(color="#222", width=1.5))
        xs, ys = np.linspace(x0, x1, resolution), np.linspace(y0, y1, resolution)
        P = np.column_stack([a.ravel() for a in np.meshgrid(xs, ys)])
        # the local SVM's regions traced on its scores, their edges the leaf's boundary
        G = class_margins(lf.svm.scores(P, K))
        for k in range(K):
            rings[k] += region_rings(xs, ys, G[:, k].reshape(resolution, resolution))
        if K == 2:
            lines += level_lines(xs, ys, lf.svm.decision(P)[:, 0].reshape(resolution, resolution))
        else:
            lines += [line for k in range(K) for line in level_lines(xs, ys, G[:, k].reshape(resolution, resolution))]
    for node in current:
        (x0, y0), (x1, y1) = boxes[node]
        fig.add_shape(type="rect", x0=x0, y0=y0, x1=x1, y1=y1, layer="above", line=dict(color=CURRENT, width=3))
    for k in range(K):
        if rings[k]:
            add_region(fig, rings[k], fills[k], f"region of {names[k]}", group=f"region {k}", showlegend=False)
    if lines:
        bx, by = polyline_xy(lines)
        fig.add_trace(go.Scatter(x=bx, y=by, mode="lines", line=dict(color="#111", width=2), hoverinfo="skip",
                                 showlegend=False, name="local SVM boundaries"))
    for k in range(K):      # a swatch per class: its homogeneous leaves and its side of a local SVM
        add_region(fig, [], fills[k], f"region of {names[k]}", group=f"region {k}")
    _samples(fig, model, X, y, lo, hi)
    return base_layout(fig, title)


def _samples(fig, model, X, y, lo, hi) -> None:
    idx = np.arange(X.shape[0])
    if idx.size > MAX_POINTS:
        idx = np.random.default_rng(0).choice(idx, MAX_POINTS, replace=False)
    add_class_scatter(fig, X[idx], np.asarray(y)[idx], classes=model.classes_, size=5)
    fig.update_xaxes(range=[lo[0], hi[0]])
    fig.update_yaxes(range=[lo[1], hi[1]])


def plot_search_path(model) -> go.Figure:
    """Validation accuracy against σ (Chang et al. 2009, §2.2): every θ at σ₀ (grey), the top-k θ carried
    to larger ceilings (one line each), the best θ_t of each stage and the chosen σ_opt."""
    path = model.search_path_
    fig = go.Figure()
    first = path[0]
    fig.add_trace(go.Scatter(x=np.full(first.C.size, first.sigma), y=100 * first.accuracy, mode="markers",
                             marker=dict(color="#bbb", size=7), name="all θ at σ₀",
                             text=[f"C={c:g}, γ={g:g}" for c, g in zip(first.C, first.gamma)]))
    carried = list(zip(path[1].C, path[1].gamma)) if len(path) > 1 else []
    for k, (C, g) in enumerate(carried):
        xs, ys = [], []
        for lvl in path:
            m = (lvl.C == C) & (lvl.gamma == g)
            if m.any():
                xs.append(lvl.sigma)
                ys.append(100 * lvl.accuracy[m][0])
        fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines+markers", name=f"C={C:g}, γ={g:g}",
                                 line=dict(color=class_color(k % 10, 10))))
    fig.add_trace(go.Scatter(x=[lv.sigma for lv in path], y=[100 * lv.best_accuracy for lv in path],
                             mode="markers", marker=dict(symbol="star", size=15, color="black"),
                             name="best θ_t (r(t))"))
    # σ_opt as a trace, not a shape: shapes on a log axis take log10 coordinates
    acc = np.concatenate([100 * lv.accuracy for lv in path])
    fig.add_trace(go.Scatter(x=[model.sigma_, model.sigma_], y=[acc.min(), acc.max()], mode="lines",
                             line=dict(color="#d62728", dash="dash"), name=f"σ_opt = {model.sigma_}"))
    fig.update_xaxes(type="log")
    base_layout(fig, "Ceiling-size search (§2.2)", "ceiling size σ", "validation accuracy (%)",
                equal=False, height=460)
    return fig.update_layout(legend=dict(orientation="h", yanchor="top", y=-0.2, x=0))


def leaf_rows(model, sigma=None) -> list[dict]:
    """One row per leaf at σ: node, size, class counts, homogeneous or not (or labelled by its
    majority under ``purity_tol``), support vectors."""
    sigma = model.sigma_ if sigma is None else int(sigma)
    leaves = model.leaves_ if sigma == model.sigma_ else model.level_leaves(sigma)
    rows = []
    for lf in leaves:
        counts = ", ".join(f"{minus_sign(c)}: {k}" for c, k in zip(model.classes_, lf.class_counts) if k)
        rows.append({"leaf (node)": lf.node, "depth": int(model.tree_.depth[lf.node]), "samples": lf.size,
                     "class counts": counts, "homogeneous": lf.homogeneous,
                     "minority share": round(lf.minority_share, 4),
                     "label / SVM": (minus_sign(model.classes_[lf.label]) + (" (majority)" if lf.by_majority else ""))
                     if lf.svm is None else f"{lf.svm.machines.shape[0]} machine(s)",
                     "support vectors": 0 if lf.svm is None else lf.svm.n_support})
    return rows


def plot_td_vs_global(td: dict, glob: dict) -> go.Figure:
    """Bars of training time, NSV and test accuracy: TD against one global SVM (dicts with keys
    ``time_s``, ``nsv``, ``accuracy``)."""
    fig = make_subplots(rows=1, cols=3, subplot_titles=("training time incl. θ search (s)",
                                                       "NSV (SVs per test sample)", "test accuracy (%)"))
    names = ["TD", "global SVM"]
    colors = ["#2ca02c", "#7f7f7f"]
    for col, key, scale in ((1, "time_s", 1), (2, "nsv", 1), (3, "accuracy", 100)):
        vals = [scale * td[key], scale * glob[key]]
        fig.add_trace(go.Bar(x=names, y=vals, marker_color=colors, showlegend=False,
                             text=[f"{v:.3g}" for v in vals], textposition="auto"), row=1, col=col)
    return readable(fig, n_titles=3, height=330, margin=dict(l=40, r=20, t=50, b=30))


def plot_td_growth(model, X, y, n_splits: int, first: int = 0) -> go.Figure:
    """The tree of Chang et al. 2009, §2.1 after its first ``n_splits`` splits (``td_steps.split_order``):
    pure leaves filled with their class, mixed ones outlined; the cuts of splits ``first`` ..
    ``n_splits`` − 1 drawn in red."""
    if model.n_features_in_ != 2:
        raise ParameterError("the partition plot needs 2-D data (two features)")
    X = np.asarray(X, dtype=np.float64)
    tree, order = model.tree_, split_order(model.tree_)
    K = model.classes_.size
    lo, hi = _frame(X)
    boxes = tree.boxes(lo, hi)
    fig = go.Figure()
    leaves = np.setdiff1d(np.arange(2 * n_splits + 1), order[:n_splits])
    n_pure = 0
    for node in leaves:
        (x0, y0), (x1, y1) = boxes[node]
        present = np.flatnonzero(tree.counts[node])
        pure = present.size < 2
        n_pure += pure
        fig.add_shape(type="rect", x0=x0, y0=y0, x1=x1, y1=y1, layer="below",
                      line=dict(color="#444", width=1),
                      fillcolor=rgba(class_color(int(present[0]), K), 0.45) if pure and present.size else None)
    cuts = []
    for node in order[first:n_splits]:
        (x0, y0), (x1, y1) = boxes[node]
        t = tree.threshold[node]
        cuts.append(([t, t], [y0, y1]) if tree.feature[node] == 0 else ([x0, x1], [t, t]))
    if cuts:
        xs = [v for c in cuts for v in (*c[0], None)]
        ys = [v for c in cuts for v in (*c[1], None)]
        fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", line=dict(color=CURRENT, width=4), hoverinfo="skip",
                                 name="this step's split" if len(cuts) == 1 else "this step's splits"))
    _samples(fig, model, X, y, lo, hi)
    return base_layout(fig, f"{n_splits} split{'s' if n_splits != 1 else ''}: {leaves.size} leaves, {n_pure} pure")


def plot_td_leaves(model, X, y, n_visited: int, first: int = 0, resolution: int = 60) -> go.Figure:
    """The leaves at σ₀ (Chang et al. 2009, §2.2 step 1, with the θ that wins there) visited in turn: the
    first ``n_visited`` filled (pure) or with their local SVM, the others outlined; leaves
    ``first`` .. ``n_visited`` − 1 outlined in red."""
    if model.n_features_in_ != 2:
        raise ParameterError("the partition plot needs 2-D data (two features)")
    X = np.asarray(X, dtype=np.float64)
    leaves = model.levels_[0]
    n_svm = sum(lf.svm is not None for lf in leaves[:n_visited])
    return _leaves_figure(model, X, y, leaves, resolution,
                          f"σ₀ = {model.search_path_[0].sigma}: {n_visited} of {len(leaves)} leaves, "
                          f"{n_svm} local SVMs", shown=n_visited,
                          current=tuple(lf.node for lf in leaves[first:n_visited]))


def plot_td_step(model, X, y, step) -> go.Figure:
    """The picture of one ``td_steps`` step: the growing tree, the leaves at σ₀, the partition of a
    search stage, and at the chosen step the model's own partition (``plot_partition``). For data
    with other than two features: the search path, or a note for the tree's steps."""
    if model.n_features_in_ != 2:
        if step.kind in ("stage", "chosen"):
            return plot_search_path(model)
        return message_figure(f"The partition is drawn for 2-D data ({model.n_features_in_} features):",
                              "the step is told in words.")
    if step.kind == "split":
        return plot_td_growth(model, X, y, step.count, step.first)
    if step.kind == "leaf":
        return plot_td_leaves(model, X, y, step.count, step.first)
    if step.kind == "stage":
        return plot_partition(model, X, y, sigma=model.search_path_[step.count].sigma)
    return plot_partition(model, X, y)

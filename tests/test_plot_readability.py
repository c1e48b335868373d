"""Pictures read from the back of a lecture room: font sizes, one legend label per class with one
minus sign, the shaded regions in the legend, one highlighted candidate line when there are many,
a readable chain diagram with the current step marked, α bars one sample wide and legends clear
of the axis titles."""

from __future__ import annotations

import re

import numpy as np
import pytest

from svmviz.models import SVMTreeClassifier
from svmviz.plots.common import base_layout, class_label
from svmviz.plots.solvers import plot_alpha_bars, plot_convergence
from svmviz.plots.svm_tree import chain_figure, step_figure


def _ring(n: int = 30, seed: int = 7):
    """Class −1 on a ring around a blob of class +1: a chain of several nodes."""
    rng = np.random.default_rng(seed)
    angle, radius = rng.uniform(0, 2 * np.pi, n), rng.uniform(1.0, 1.5, n)
    X = np.vstack([np.c_[radius * np.cos(angle), radius * np.sin(angle)], rng.normal(0, 0.35, (n, 2))])
    return X, np.repeat([-1, 1], n)


@pytest.fixture(scope="module")
def greedy_tree():
    X, y = _ring()
    return SVMTreeClassifier(greedy_level=1, C_hard=100.0).fit(X, y), X, y


def test_base_layout_fonts_readable_on_a_projector():
    import plotly.graph_objects as go

    fig = base_layout(go.Figure(), "title", "x", "y")
    lay = fig.layout
    assert lay.font.size >= 14 and lay.title.font.size >= 20 and lay.legend.font.size >= 14
    assert lay.xaxis.title.font.size >= 14 and lay.yaxis.title.font.size >= 14
    assert lay.xaxis.tickfont.size >= 13 and lay.yaxis.tickfont.size >= 13


def test_class_labels_one_per_class_with_one_minus_sign():
    assert class_label(-1, -1) == "class −1" and class_label(1, 1) == "class +1"
    assert class_label("setosa", -1) == "setosa (as −1)"
    assert class_label(0, -1) == "class 0 (as −1)"


def test_step_figure_legend_regions_and_one_highlighted_candidate(greedy_tree):
    model, X, y = greedy_tree
    k = 1
    fig = step_figure(model, X, y, k)
    names = [t.name for t in fig.data if t.name]
    assert "class −1" in names and "class +1" in names
    # negative numbers with the minus sign everywhere (never "-1" next to "−1")
    texts = names + [fig.layout.title.subtitle.text]
    assert not any(re.search(r"(?<![\w.])-\d", t) for t in texts), texts
    # the regions decided by the first node have a legend entry
    assert any(n.startswith("decided ") for n in names)
    assert fig.layout.title.font.size >= 20 and fig.layout.legend.font.size >= 14
    assert fig.layout.title.subtitle.text and fig.layout.title.subtitle.font.size >= 14
    step = model.trees_[0].trace[k]
    lines = [t for t in fig.data if getattr(t, "mode", None) == "lines" and " leaves out " in (t.name or "")]
    assert sum(not c.zero_solution for c in step.candidates) > 4   # greedy level 1: many candidates
    shown = [t for t in lines if t.visible in (None, True)]
    assert len(shown) == 1 and shown[0].line.width == 5   # the chosen one only; the others on demand
    assert all(t.visible == "legendonly" for t in lines if t is not shown[0])
    # the label annotations name the chosen line only
    labels = {a.text for a in fig.layout.annotations if a.text and a.text.startswith("<b>")}
    assert labels == {f"<b>{step.candidates[step.chosen].label}</b>"}


def test_chain_figure_readable_with_the_current_step_marked(greedy_tree):
    model, _, _ = greedy_tree
    n = len(model.trees_[0].nodes)
    fig = chain_figure(model, current=1)
    assert f"{n} nodes" in fig.layout.title.text
    assert fig.layout.title.subtitle.text.startswith("step 2: node 2")
    marks = [a for a in fig.layout.annotations if a.text == "<b>▶</b>"]
    assert len(marks) == 1 and marks[0].font.color == "#e00000"
    last = fig.layout.annotations[-2]
    assert "rest →" in last.text and last.font.color == "#000"
    # the last box's fill is a pale tint (alpha < 1) under the black text, not the saturated colour
    fill = [s.fillcolor for s in fig.layout.shapes if s.type == "rect"][-2]
    assert fill.startswith("rgba(")
    X = np.array([[-2.0, 0.0], [-1.5, 0.2], [-1.8, -0.3], [2.0, 0.0], [1.5, 0.1], [1.7, -0.2]])
    one = SVMTreeClassifier().fit(X, np.array([-1, -1, -1, 1, 1, 1]))
    assert len(one.trees_[0].nodes) == 1
    assert "The chain: 1 node," in chain_figure(one).layout.title.text


def test_a_long_chain_fits_a_projector_screen_and_its_text_fits_its_cards():
    """29 nodes (fourclass-like, 900 samples; the real fourclass has 28): the cards wrap in rows
    so the diagram fits a 1280 × 720 screen (it was one row per node, 1,740 px tall), every
    line of a card fits inside it in the page's main column (820 px at 1280 px with the sidebar
    open; a sans-serif glyph about 0.6 of the font size wide, bold included),
    the text at 14 px and more, and the current step outlined and marked on its card."""
    from svmviz.data.generators import fourclass_like

    ds = fourclass_like(n=900, seed=0)
    model = SVMTreeClassifier().fit(ds.X, ds.y)
    n = len(model.trees_[0].nodes)
    assert n >= 28
    fig = chain_figure(model, current=20)
    assert fig.layout.height <= 720
    named = SVMTreeClassifier().fit(ds.X[:300], np.where(ds.y[:300] > 0, "versicolor", "virginica"))
    for f in (fig, chain_figure(named, current=2)):     # class names longer than "−1" too
        _chain_text_fits_its_boxes(f)
    # the classes as the cards' "hard +1" and the legends' "class +1" write them, never a bare "1"
    sides = {a.text for a in fig.layout.annotations if "→" in a.text}
    assert sides <= {"<b>→ −1</b>", "<b>→ +1</b>", "<b>rest → −1</b>", "<b>rest → +1</b>"}, sides
    boxes = [sh for sh in fig.layout.shapes if sh.type == "rect"]
    # the step's card: outlined in red, ▶ beside it, named in the subtitle
    outline = next(sh for sh in boxes if sh.line.color == "#e00000")
    card = next(a for a in fig.layout.annotations if a.text.startswith("<b>node 21</b>"))
    assert outline.x0 <= card.x <= outline.x1 and outline.y0 <= card.y <= outline.y1
    assert fig.layout.title.subtitle.text.startswith("step 21: node 21")


def _chain_text_fits_its_boxes(fig, width_px: float = 800) -> None:
    px = width_px / (fig.layout.xaxis.range[1] - fig.layout.xaxis.range[0])   # pixels per x unit
    boxes = [sh for sh in fig.layout.shapes if sh.type == "rect"]
    for a in fig.layout.annotations:
        assert a.font.size >= 14, a.text
        under = [b for b in boxes if b.x0 <= a.x <= b.x1 and b.y0 <= a.y <= b.y1]
        if not under:   # the ▶ beside the step's card
            continue
        box = min(under, key=lambda b: b.x1 - b.x0)
        room = (box.x1 - a.x if a.xanchor == "left" else 2 * min(a.x - box.x0, box.x1 - a.x)) * px
        for line in re.sub(r"<(?!br)[^>]+>", "", a.text).split("<br>"):
            assert 0.6 * a.font.size * len(line) <= room, (line, round(room))


def test_alpha_bars_one_sample_wide_and_legends_below_the_axis_titles():
    alpha = np.array([0.0, 0.5, 0.0, 0.0, 1.0, 0.0, 0.0, 0.2])
    y = np.array([-1, 1, 1, 1, 1, 1, 1, -1])       # class −1 at samples 0 and 7 only
    fig = plot_alpha_bars(alpha, y, 1.0, pair=(1, 7))
    for bar in (t for t in fig.data if t.type == "bar"):
        assert bar.width is not None and np.all(np.asarray(bar.width) <= 1.0), bar.name
    for f in (fig, plot_convergence({"iteration": [0, 1], "max_violation": [1.0, 0.1], "objective": [0, -1]})):
        # the legend sits at the bottom of the figure, under the x-axis title, not at a fraction
        # of the axes' height that lands on it
        assert f.layout.legend.yref == "container" and f.layout.legend.yanchor == "bottom"


def _blobs(n: int = 12, seed: int = 3):
    """Two separable blobs labelled −1 / +1."""
    rng = np.random.default_rng(seed)
    return np.vstack([rng.normal(-2, 0.5, (n, 2)), rng.normal(2, 0.5, (n, 2))]), np.repeat([-1, 1], n)


def _subplot_figures():
    """A figure of every kind ``base_layout`` does not lay out: subplots, diagrams, bars."""
    from svmviz.data.generators import gaussians_on_circle
    from svmviz.models.dag import DAGSVC, PairwiseVotingSVC
    from svmviz.models.guard import dual_view
    from svmviz.plots import dag as P
    from svmviz.plots.guard import plot_dual_view
    from svmviz.plots.scatter import plot_sensitivity_images
    from svmviz.plots.standard import confusion_figure, roc_figure
    from svmviz.plots.tree_decomposition import plot_td_vs_global

    ds = gaussians_on_circle(3, 15, std=0.4, seed=1)
    voting = PairwiseVotingSVC(C=10.0).fit(ds.X, ds.y)
    X, y = _blobs()
    return {
        "pairwise grid": (P.plot_pairwise_grid(voting, ds.X, ds.y), 3),
        "order comparison": (P.plot_order_comparison([DAGSVC.from_pairwise(voting, [0, 1, 2])], ds.X, ds.y), 1),
        "DAG diagram": (P.plot_dag_diagram(DAGSVC.from_pairwise(voting, [0, 1, 2])), 0),
        "dual view": (plot_dual_view(dual_view(X, y, 0), X, y), 2),
        "TD vs global": (plot_td_vs_global({"time_s": 1.0, "nsv": 3, "accuracy": 0.9},
                                           {"time_s": 2.0, "nsv": 5, "accuracy": 0.95}), 3),
        "sensitivity images": (plot_sensitivity_images(np.ones((3, 4)), (2, 2)), 3),
        "confusion": (confusion_figure([0, 1, 1], [0, 1, 0], [0, 1]), 0),
        "ROC": (roc_figure([0, 1, 1, 0], [0.1, 0.8, 0.6, 0.4], 1)[0], 0),
    }


def test_figures_without_base_layout_use_its_projector_font_sizes():
    for what, (fig, n_titles) in _subplot_figures().items():
        lay = fig.layout
        assert lay.font.size >= 14 and lay.legend.font.size >= 14, what
        assert lay.title.font.size is None or lay.title.font.size >= 20, what
        for note in lay.annotations[:n_titles]:      # the subplot titles (Plotly's default is 16 px)
            assert note.font.size >= 16, what
        assert all((a.font.size or lay.font.size) >= 13 for a in lay.annotations), what
        axes = [k for k in lay.to_plotly_json() if k.startswith(("xaxis", "yaxis"))]
        assert axes and all(lay[k].tickfont.size >= 13 for k in axes), what


def test_class_names_on_the_guard_hull_dag_and_scatter_figures_use_the_minus_sign():
    from svmviz.geometry.hulls import convex_hull
    from svmviz.models import GuardVectorSVC
    from svmviz.models.dag import PairwiseVotingSVC
    from svmviz.models.guard import dual_view
    from svmviz.plots import dag as P
    from svmviz.plots.guard import plot_dual_view, plot_guard_vectors
    from svmviz.plots.hulls import plot_hulls
    from svmviz.plots.scatter import plot_sensitivity_bars

    X, y = _blobs()
    hulls = {c: convex_hull(X[y == c]).polygon(X[y == c]) for c in (-1, 1)}
    Xd = np.vstack([X, X + 4.0])
    yd = np.r_[y, np.where(y < 0, -2, 2)]
    figs = [plot_guard_vectors(GuardVectorSVC().fit(X, y), X, y), plot_dual_view(dual_view(X, y, 0), X, y),
            plot_hulls(X, y, hulls, hulls, 1.0), plot_hulls(X, y, hulls, hulls, 1.0, names=["-1", "1"]),
            P.plot_voting_regions(PairwiseVotingSVC().fit(Xd, yd), Xd, yd),
            plot_sensitivity_bars(np.ones((3, 2)), class_names=["-1", "1"])]
    for fig in figs:
        names = [t.name for t in fig.data if t.name]
        assert any("−1" in n for n in names), names
        assert not any(re.search(r"(?<![\w.])-\d", n) for n in names), names


def test_notes_on_the_plots_are_readable_too():
    import plotly.graph_objects as go

    from svmviz.geometry.hulls import reduced_convex_hull
    from svmviz.plots.common import note_sample
    from svmviz.plots.hulls import plot_zero_solution

    assert note_sample(go.Figure(), 10, 100).layout.annotations[0].font.size >= 13
    X, y = _blobs()
    fig = plot_zero_solution(X, y, -1, reduced_convex_hull(X[y == -1], 0.5), X[y == 1].mean(axis=0),
                             w=np.array([1.0, 0.5]))
    assert fig.layout.annotations and all(a.font.size is None or a.font.size >= 13 for a in fig.layout.annotations)
    assert any("hard class −1" in (t.name or "") for t in fig.data)


def test_one_pairwise_svm_is_counted_in_the_singular():
    from svmviz.models.dag import PairwiseVotingSVC
    from svmviz.plots.dag import plot_pairwise_boundaries

    X, y = _blobs()
    assert "(1 SVM)" in plot_pairwise_boundaries(PairwiseVotingSVC().fit(X, y), X, y).layout.title.text


def test_the_svm_tree_step_notes_write_class_numbers_with_the_minus_sign():
    """The step line under the stepper ("chose a (c-svm, hard class −1): leaves out 3 samples of
    class +1") reads as the figures beside it do: "−1", never a hyphen next to a minus."""
    from svmviz.models import SVMTreeClassifier

    rng = np.random.default_rng(7)
    angle, radius = rng.uniform(0, 2 * np.pi, 30), rng.uniform(1.0, 1.5, 30)
    X = np.vstack([np.c_[radius * np.cos(angle), radius * np.sin(angle)], rng.normal(0, 0.35, (30, 2))])
    y = np.repeat([-1, 1], 30)
    tree = SVMTreeClassifier(greedy_level=1, C_hard=100.0).fit(X, y).trees_[0]
    notes = [s.note for s in tree.trace]
    assert any("hard class −1" in n for n in notes) and any("of class −1" in n for n in notes)
    assert not any("-1" in n for n in notes)


def _rgb(color: str, under=(255.0, 255.0, 255.0)) -> tuple:
    """A CSS colour of the figures (#rgb, #rrggbb, rgb(), rgba(), white) as RGB, a translucent
    one laid over ``under``."""
    c = color.strip().lower()
    if c == "white":
        return (255.0, 255.0, 255.0)
    if c.startswith("#"):
        h = c[1:] if len(c) == 7 else "".join(ch * 2 for ch in c[1:])
        return tuple(float(int(h[k:k + 2], 16)) for k in (0, 2, 4))
    parts = [float(v) for v in c[c.index("(") + 1:-1].split(",")]
    a = parts[3] if len(parts) == 4 else 1.0
    return tuple(a * v + (1 - a) * u for v, u in zip(parts[:3], under))


def _contrast(fg, bg) -> float:
    """The WCAG contrast ratio of two RGB colours."""
    def lum(rgb):
        lin = [(v / 255 / 12.92) if v / 255 <= 0.04045 else ((v / 255 + 0.055) / 1.055) ** 2.4 for v in rgb]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    hi, lo = sorted((lum(fg), lum(bg)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def _chain_texts_on_their_boxes(fig):
    """(text, font size, contrast with what is under it) of every annotation of a chain diagram:
    the background is the last filled box drawn under the text's anchor, else the page's white."""
    out = []
    for a in fig.layout.annotations:
        bg = (255.0, 255.0, 255.0)
        for s in fig.layout.shapes:
            if s.type == "rect" and s.x0 <= a.x <= s.x1 and s.y0 <= a.y <= s.y1 and s.fillcolor:
                bg = _rgb(s.fillcolor, bg)
        out.append((a.text, a.font.size, _contrast(_rgb(a.font.color or "#000"), bg)))
    return out


def test_every_text_of_the_chain_diagram_is_large_and_contrasts_with_its_box():
    """Kept, pruned and last boxes, the RBF note and the step mark: at least 14 px and a contrast
    ratio of 4.5 (WCAG AA) against the box it is written on."""
    X, y = _ring()
    Tree = SVMTreeClassifier
    pruned = Tree(greedy_level=1, C_hard=100.0, tie_break="order").fit(X, y)   # a tree with pruned nodes
    assert any(nd.pruned for nd in pruned.trees_[0].nodes)
    rbf = Tree(greedy_level=1, C_hard=100.0, tie_break="order", nonlinear={"k": 100, "C": 1.0, "gamma": 1.0}).fit(X, y)
    assert rbf.trees_[0].svm is not None
    figs = [chain_figure(pruned), chain_figure(pruned, current=1), chain_figure(pruned, current=10),
            chain_figure(rbf)]
    assert any("RBF" in (a.text or "") for a in figs[-1].layout.annotations)
    for fig in figs:
        texts = _chain_texts_on_their_boxes(fig)
        assert any("pruned" in t for t, _, _ in texts)
        for text, size, ratio in texts:
            assert not re.search(r"(?<![\w.])-\d", text), text      # "→ −1", as the figures beside it
            assert size >= 14, text
            assert ratio >= 4.5, (text, round(ratio, 2))


def test_counts_on_the_svm_tree_figures_are_in_the_singular_for_one():
    from svmviz.plots.svm_tree import final_figure

    X = np.array([[-2.0, 0.0], [-1.5, 0.2], [-1.8, -0.3], [2.0, 0.0], [1.5, 0.1], [1.7, -0.2]])
    y = np.array([-1, -1, -1, 1, 1, 1])
    one = SVMTreeClassifier().fit(X, y)
    assert len(one.trees_[0].nodes) == 1
    assert final_figure(one, X, y).layout.title.subtitle.text == "1 hyperplane"


def test_the_smo_side_figures_fit_their_narrow_column_and_mark_tol_where_it_is():
    """The α bars and the convergence curves stand beside the step's picture in two fifths of the
    page (about 320 px at 1280 × 720): titles short enough to be drawn whole, the tolerance's line
    at its value of the log axis with the cursor's and its labels in the legend (never over the
    curves), the classes with the minus sign."""
    from svmviz.plots.common import AXIS_TITLE_SIZE, TITLE_SIZE
    from svmviz.plots.solvers import plot_convergence, plot_trace_curves

    def width(text, size):      # a sans-serif glyph is about 0.55 of the font size wide
        return 0.55 * size * len(re.sub(r"<[^>]+>", "", text))

    fig = plot_trace_curves([0, 1, 2, 3], [1.0, 0.1, 0.01, 1e-4], [0.0, -1.0, -1.5, -1.6], 2, tol=1e-3,
                            target_objective=-1.6)
    assert width(fig.layout.title.text, TITLE_SIZE) <= 300
    assert width(fig.layout.yaxis.title.text, AXIS_TITLE_SIZE) <= 200       # along the 360 px high axis
    # the cursor's and the tolerance's labels are legend entries (below the plot), never text in
    # the plot, where the violation curve, which ends at tol, and the objective ran under them
    assert not fig.layout.annotations
    named = {sh.name: sh for sh in fig.layout.shapes if sh.showlegend}
    assert named["tol = 0.001"].y0 == named["tol = 0.001"].y1 == pytest.approx(1e-3)
    assert named["t = 2 (this step)"].x0 == 2
    conv = plot_convergence({"iteration": [0, 1, 2], "max_violation": [1.0, 0.1, 1e-4], "objective": [0, -1, -2]},
                            tol=1e-3)
    assert not conv.layout.annotations and [sh.name for sh in conv.layout.shapes] == ["tol = 0.001"]
    bars = plot_alpha_bars(np.array([0.0, 0.5, 1.0]), np.array([-1, 1, 1]), 1.0)
    assert [t.name for t in bars.data if t.showlegend is not False] == ["α, class −1", "α, class +1"]
    bars = plot_alpha_bars(np.array([0.0, 0.5, 1.0]), np.array([0, 1, 1]), 1.0, names=["setosa", "virginica"])
    assert [t.name for t in bars.data if t.showlegend is not False] == ["α, setosa (as −1)", "α, virginica (as +1)"]


def test_the_solver_figures_name_the_classes_as_the_sides_of_the_dual():
    """The Solvers page's data have labels −1 and 1: its legends say "class +1", as the SVM tree's,
    never a bare "1" beside "−1"."""
    from svmviz.models.svc import BinarySVC
    from svmviz.plots.solvers import plot_boundaries, plot_smo_step

    X, y = _ring(15)
    model = BinarySVC(C=1.0, kernel="rbf", trace=True).fit(X, y)
    for names in (["-1", "1"], None):
        step = plot_smo_step(model.iterate_at(len(model.trace_) // 2), X, y, names)
        both = plot_boundaries({"SMO": model}, X, y, names)
        for fig in (step, both):
            assert [t.name for t in fig.data if t.mode == "markers"][:2] == ["class −1", "class +1"]


def test_the_chain_ends_in_the_rbf_node_and_greys_the_nodes_it_bypasses():
    """With the RBF node of §3.3 after k kept nodes, every sample those pass on goes to it
    (``tree_predict``): the kept nodes after it are never reached and the chain ends in it, not
    in "rest → class"."""
    X, y = _ring()
    model = SVMTreeClassifier(greedy_level=1, C_hard=100.0, nonlinear={"k": 100, "C": 1.0, "gamma": 1.0}).fit(X, y)
    tree = model.trees_[0]
    assert tree.svm is not None and tree.nonlinear.depth < len(tree.kept())
    texts = [a.text for a in chain_figure(model).layout.annotations]
    assert any(t.startswith("<b>RBF SVM (") for t in texts) and not any("rest →" in t for t in texts)
    after = [t for t in texts if t.endswith("<br>not reached")]
    assert len(after) == len(tree.kept()) - tree.nonlinear.depth


def test_every_positive_alpha_is_a_dot_the_width_of_the_bars_does_not_hide():
    """Three hundred samples in the page's narrow column make bars under a pixel wide: every
    α_i > 0 also gets a dot at (i, α_i) in its class's colour, the working pair a ring."""
    rng = np.random.default_rng(1)
    alpha = np.where(rng.random(300) < 0.2, rng.random(300), 0.0)
    y = np.where(rng.random(300) < 0.5, -1, 1)
    i, j = np.flatnonzero(alpha)[:2]
    fig = plot_alpha_bars(alpha, y, 1.0, pair=(i, j))
    dots = [t for t in fig.data if t.type == "scatter" and t.mode == "markers"]
    shown = {(int(x), float(v)) for t in dots for x, v in zip(t.x, t.y)}
    assert {(int(k), float(alpha[k])) for k in np.flatnonzero(alpha)} <= shown
    rings = [t for t in dots if t.name == "working pair"]
    assert rings and sorted(rings[0].x) == sorted([i, j])


def _title_fits_its_column(fig, column_px: float = 400) -> None:
    """The title and every line of its subtitle drawn whole in a column ``column_px`` wide (a bold
    sans-serif glyph about 0.55 of the font size wide; Plotly starts the title at 5 % of the
    width), the top margin tall enough for them, and the legend under the plot, not over the title."""
    from svmviz.plots.common import SUBTITLE_SIZE, TITLE_SIZE

    def width(text, size):
        return 0.55 * size * len(re.sub(r"<[^>]+>", "", text))

    room = 0.9 * column_px
    title = fig.layout.title
    assert width(title.text, TITLE_SIZE) <= room, title.text
    lines = title.subtitle.text.split("<br>") if title.subtitle.text else []
    for line in lines:
        assert width(line, SUBTITLE_SIZE) <= room, line
    assert fig.layout.margin.t >= 1.3 * (TITLE_SIZE + SUBTITLE_SIZE * len(lines)) + 10
    legend = fig.layout.legend      # at the bottom of the figure, or under the axes
    assert (legend.yref == "container" and legend.yanchor == "bottom" and legend.y < 0.1
            or legend.yref in (None, "paper") and legend.yanchor == "top" and legend.y < 0)


def test_the_weighted_dag_figures_fit_the_half_page_columns_they_are_shown_in():
    """The DAG page shows the K-Means clusters and the fused regions side by side, each in half
    the main column (about 400 px at 1280 × 720): the clusters' title was cut off there and the
    fused regions' title ran into the legend above the plot. Their details are subtitles now,
    also when a cluster lacks a class and with the paper's weights."""
    import warnings

    from svmviz.data.generators import fourclass_like
    from svmviz.models.dag import WeightedDAGSVC
    from svmviz.plots.dag import plot_fused_regions, plot_wdag_clusters

    ds = fourclass_like(n=200, seed=0)
    far = np.vstack([ds.X, ds.X[ds.y == ds.y[0]][:20] + [40.0, 0.0]])   # a cluster of one class only
    yfar = np.r_[ds.y, np.full(20, ds.y[0])]
    fits = [WeightedDAGSVC(n_clusters=3, random_state=0).fit(ds.X, ds.y)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fits.append(WeightedDAGSVC(n_clusters=3, weight="gaussian_paper", random_state=0).fit(far, yfar))
    assert fits[1].incomplete_clusters_.size
    for model, X, y in ((fits[0], ds.X, ds.y), (fits[1], far, yfar)):
        clusters = plot_wdag_clusters(model, X, y)
        _title_fits_its_column(clusters)
        assert "N = 3" in clusters.layout.title.text and "1σ" in clusters.layout.title.subtitle.text
        fused = plot_fused_regions(model, X, y, resolution=40)
        _title_fits_its_column(fused)
        assert "N = 3" in fused.layout.title.subtitle.text
    assert "lacks a class" in plot_wdag_clusters(fits[1], far, yfar).layout.title.subtitle.text


def test_the_guard_vector_figure_fits_the_half_page_column_it_is_shown_in():
    """The guard-vector page shows this figure beside the dual-space one, in half the main column:
    its title, with the counts, was cut off there."""
    from svmviz.models import GuardVectorSVC
    from svmviz.plots.guard import plot_guard_vectors

    X, y = _blobs()
    fig = plot_guard_vectors(GuardVectorSVC().fit(X, y), X, y)
    _title_fits_its_column(fig)
    assert "guard (circled)" in fig.layout.title.subtitle.text

"""Figures read like slides: a projected figure's text at the back-row size, equal scale only with
the axes shrunk to the data, the SVM tree's chosen line first in its legend, one colour per class on
every DAG figure, labels and legends that do not cover each other, and plurals that agree."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest

from svmviz.plots.common import PROJECTOR_MIN_FONT, base_layout, for_projector


def _blobs(n=20, seed=3):
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(-1, 0.4, (n, 2)), rng.normal(1, 0.4, (n, 2))])
    return X, np.repeat([-1, 1], n)


def _font_sizes(node, out=None):
    """Every font size set anywhere in a figure's dict form (the template aside)."""
    out = [] if out is None else out
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "template":
                continue
            if key in ("font", "tickfont", "textfont") and isinstance(value, dict) and "size" in value:
                out.append(value["size"])
            _font_sizes(value, out)
    elif isinstance(node, (list, tuple)):
        for value in node:
            _font_sizes(value, out)
    return out


def test_projected_figure_has_every_text_at_the_back_row_size():
    fig = base_layout(go.Figure(go.Scatter(x=[0, 1], y=[0, 1], text=["a", "b"], textfont=dict(size=11))),
                      "title", "x", "y")
    fig.add_annotation(text="note", x=0, y=0, font=dict(size=13))
    fig.add_annotation(text="inherits", x=1, y=1)
    shown = for_projector(fig)
    sizes = _font_sizes(shown.to_dict())
    assert sizes and min(sizes) >= PROJECTOR_MIN_FONT
    assert shown.layout.font.size >= PROJECTOR_MIN_FONT   # what the unsized annotation inherits
    assert shown.layout.title.font.size > shown.layout.xaxis.tickfont.size   # titles stay larger
    assert fig.layout.xaxis.tickfont.size < PROJECTOR_MIN_FONT   # the shared figure is left as it was


def test_a_label_inside_its_marker_grows_with_it():
    from svmviz.models.dag import DAGSVC, PairwiseVotingSVC
    from svmviz.plots.dag import plot_dag_diagram

    X, y = _blobs()
    Xd, yd = np.vstack([X, X + 4.0]), np.r_[y, np.where(y < 0, 2, 3)]
    fig = plot_dag_diagram(DAGSVC.from_pairwise(PairwiseVotingSVC().fit(Xd, yd), [-1, 1, 2, 3]))
    nodes = next(t for t in fig.data if t.textposition == "middle center")
    shown = next(t for t in for_projector(fig).data if t.textposition == "middle center")
    grown = shown.textfont.size / nodes.textfont.size
    assert grown > 1 and np.allclose(np.asarray(shown.marker.size) / np.asarray(nodes.marker.size), grown)


def test_equal_scale_shrinks_the_axes_to_the_data_instead_of_stretching_their_range():
    lay = base_layout(go.Figure(), "t", "x", "y").layout
    assert lay.yaxis.scaleanchor == "x"
    assert lay.xaxis.constrain == "domain" and lay.yaxis.constrain == "domain"
    free = base_layout(go.Figure(), "t", "x", "y", equal=False).layout
    assert free.yaxis.scaleanchor is None


def test_log_axes_label_powers_of_ten_only():
    """Plotly draws the 2s and 5s between powers of ten at 3/4 of the tick size (10.5 px)."""
    from svmviz.plots.solvers import plot_trace_curves

    fig = plot_trace_curves(np.arange(50), np.logspace(0, -6, 50), -np.linspace(0, 1, 50), 10, 1e-3, -1.0)
    assert fig.layout.yaxis.type == "log" and fig.layout.yaxis.dtick == 1


def test_svm_tree_legend_lists_the_chosen_line_first():
    from svmviz.models import SVMTreeClassifier
    from svmviz.plots.svm_tree import step_figure

    rng = np.random.default_rng(7)
    angle, radius = rng.uniform(0, 2 * np.pi, 60), rng.uniform(1.0, 1.5, 60)
    X = np.vstack([np.c_[radius * np.cos(angle), radius * np.sin(angle)], rng.normal(0, 0.35, (60, 2))])
    y = np.repeat([-1, 1], 60)
    model = SVMTreeClassifier(greedy_level=1, C_hard=100.0).fit(X, y)
    fig = step_figure(model, X, y, 0)
    listed = [t for t in fig.data if t.showlegend is not False and t.name]
    ranks = [1000 if t.legendrank is None else t.legendrank for t in listed]
    first = listed[int(np.argmin(ranks))]
    assert first.line.width == 5   # the chosen line, drawn bold
    hidden = [t for t in listed if t.visible == "legendonly"]
    assert all(t.legendgroup == "others" and "(click to show)" not in t.name for t in hidden)
    assert all(min(ranks) < (1000 if t.legendrank is None else t.legendrank) for t in listed if t is not first)


def test_svm_tree_legend_entries_are_short():
    """The step's legend sits beside the axes: every entry and group title at most LEGEND_CHARS
    characters (entries of 34 took a third of the chart at 1280 px), what they leave out said on
    hover; at a later step (regions decided earlier, samples left out before) with every overlay."""
    from svmviz.models import SVMTreeClassifier
    from svmviz.plots.svm_tree import LEGEND_CHARS, step_spec

    rng = np.random.default_rng(7)
    angle, radius = rng.uniform(0, 2 * np.pi, 60), rng.uniform(1.0, 1.5, 60)
    X = np.vstack([np.c_[radius * np.cos(angle), radius * np.sin(angle)], rng.normal(0, 0.35, (60, 2))])
    y = np.repeat([-1, 1], 60)
    for greedy in (0, 1):
        model = SVMTreeClassifier(greedy_level=greedy, C_hard=100.0).fit(X, y)
        for k in range(len(model.trees_[0].trace)):
            data = step_spec(model, X, y, k, overlays=("rch", "centroid", "nearest"))["data"]
            listed = [t for t in data if t.get("showlegend") is not False and t.get("name")]
            texts = [t["name"] for t in listed] + [t["legendgrouptitle"]["text"] for t in listed
                                                   if "legendgrouptitle" in t]
            assert all(len(text) <= LEGEND_CHARS for text in texts), texts
            lines = [t for t in listed if t.get("mode") == "lines" and "leaves out" in t["name"]]
            assert lines and all("hard " in t["hovertemplate"] for t in lines)


def test_dag_diagram_colours_each_class_as_the_region_map_does():
    from svmviz.models.dag import DAGSVC, PairwiseVotingSVC
    from svmviz.plots.common import class_color
    from svmviz.plots.dag import plot_dag_diagram

    X, y = _blobs()
    dag = DAGSVC.from_pairwise(PairwiseVotingSVC().fit(X, y), [-1, 1])
    nodes = next(t for t in plot_dag_diagram(dag).data if t.textposition == "middle center")
    leaves = [c for c in nodes.marker.color if c != "#f2f2f2"]
    assert sorted(leaves) == sorted(class_color(k, 2) for k in range(2))


def test_working_pair_labels_face_away_from_each_other():
    from svmviz.plots.solvers import pair_label_positions

    assert pair_label_positions(np.array([[0.0, 0.0], [0.05, 0.01]])) == ["middle left", "middle right"]
    assert pair_label_positions(np.array([[0.0, 0.05], [0.01, 0.0]])) == ["top center", "bottom center"]
    assert pair_label_positions(np.array([[0.0, 0.0]])) == ["top center"]


@pytest.mark.parametrize("which", ["bars", "gamma"])
def test_scatter_bar_legends_stay_clear_of_the_title(which):
    from types import SimpleNamespace

    from svmviz.plots.scatter import plot_gamma_maps, plot_sensitivity_bars

    if which == "bars":
        fig = plot_sensitivity_bars(np.ones((3, 2)), class_names=["a", "b"])
    else:
        choice = SimpleNamespace(maps=np.ones((2, 3, 2)), gammas=[0.5, 1.0], accuracy=[0.8, 0.9], best=1)
        fig = plot_gamma_maps(choice)
    legend = fig.layout.legend
    # above the axes, a legend's rows grow upwards into the title
    assert legend.yref == "container" or (legend.y is not None and legend.y <= 0)


def test_one_removed_sample_is_one_sample():
    from svmviz.data.dataset import counted

    assert counted(1, "sample") == "1 sample" and counted(0, "sample") == "0 samples"


def test_tables_show_no_none_or_infinity_as_a_python_word():
    from svmviz.plots.common import shown_number

    assert shown_number(np.nan) == "—" and shown_number(None) == "—"
    assert shown_number(np.inf) == "∞" and shown_number(-0.5) == "−0.5" and shown_number(1234.5678) == "1235"


def test_svm_tree_zero_solution_table_has_no_missing_values():
    from svmviz.models import SVMTreeClassifier
    from svmviz.plots.svm_tree import zero_solution_frame

    X, y = _blobs()
    frame = zero_solution_frame(SVMTreeClassifier(C_hard=100.0).fit(X, y), 0)
    assert len(frame) and not frame.isna().any().any()   # a NaN is shown as "None"
    assert not frame.astype(str).apply(lambda col: col.str.contains("inf|nan|None")).any().any()


def test_tree_decomposition_leaf_table_writes_class_minus_one_with_the_minus_sign():
    from svmviz.models import TreeDecompositionSVC
    from svmviz.plots.tree_decomposition import leaf_rows

    X, y = _blobs(40)
    rows = leaf_rows(TreeDecompositionSVC().fit(X, y))
    text = " ".join(f"{r['class counts']} {r['label / SVM']}" for r in rows)
    assert "−1" in text and "-1" not in text


def test_the_animation_buttons_use_glyphs_every_font_has():
    from svmviz.models import SVMTreeClassifier
    from svmviz.plots.svm_tree import animation_figure

    X, y = _blobs()
    fig = animation_figure(SVMTreeClassifier(C_hard=100.0).fit(X, y), X, y, resolution=20)
    labels = [b.label for menu in fig.layout.updatemenus for b in menu.buttons]
    assert labels and not any(0x2300 <= ord(ch) <= 0x23FF or ord(ch) >= 0x1F000 for label in labels for ch in label)

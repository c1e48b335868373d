"""Drawing data of any number of classes on the Data page: the panel (AppTest), its table edits,
the canvas figure, lesson files of drawn data and the starting sketches."""

from __future__ import annotations

import numpy as np
import pytest

from apphelpers import as_read, page_test, problems
from svmviz.data.generators import DRAW_PRESETS, generate
from svmviz.export.lesson import dumps_lesson, loads_lesson
from svmviz.plots.draw import GRID, canvas_grid, canvas_range, drawing_canvas
from svmviz_app.draw import MAX_POINTS, NAMES, POINTS, drawn_dataset, edited_points, renamed

NAMES4 = ["setosa", "<b>bold</b>", "*star*", "ω"]
P4 = np.array([[-0.5, 0.5, 1], [-0.6, 0.4, 1], [0.5, 0.5, 2], [0.6, 0.4, 2],
               [0.0, -0.5, 3], [0.1, -0.6, 3], [1.4, 1.3, 4], [1.5, 1.2, 4]])


def _find(node, key):
    """The element with ``key`` anywhere under ``node`` (AppTest's lists skip horizontal rows)."""
    if getattr(node, "key", None) == key:
        return node
    for child in getattr(node, "children", {}).values():
        found = _find(child, key)
        if found is not None:
            return found
    return None


def _draw_page(**values):
    at = page_test("pages/1_Data.py", **{"data.source": "Draw"}, **values)
    return at


def test_a_four_class_drawing_becomes_the_data_with_its_names():
    at = _draw_page()
    at.session_state[POINTS] = P4.copy()
    at.session_state[NAMES] = list(NAMES4)
    at.run()
    assert problems(at) == []
    # four class buttons, each with its count; names as typed (Markdown escaped)
    labels = [_find(at.main, f"draw_class_{k}").label for k in range(1, 5)]
    assert labels[1].endswith("\\<b\\>bold\\</b\\> (2)") and labels[2].endswith("\\*star\\* (2)")
    _find(at.main, "draw_use").click().run()
    assert problems(at) == []
    ds = at.session_state["_svmviz_dataset"]
    assert ds.name == "drawn data" and ds.class_names == NAMES4
    assert ds.class_counts() == {1: 2, 2: 2, 3: 2, 4: 2}
    np.testing.assert_array_equal(ds.X, P4[:, :2])
    assert at.session_state["data"].startswith("drawn:")
    # drawn data trains on every point, and the panel says so
    assert at.session_state["split.test"] == 0.0
    assert any("test fraction was set to 0" in m.value for m in at.info)
    assert any("8 points, 4 classes" in m.value and "all samples for training" in m.value for m in at.success)
    assert "4 classes" in at.sidebar.markdown[0].value


def test_a_class_with_one_point_keeps_the_drawing_out_and_says_what_to_add():
    at = _draw_page()
    at.session_state[POINTS] = np.vstack([P4[:6], [[0.9, 0.9, 4]]])
    at.session_state[NAMES] = list(NAMES4)
    at.run()
    assert problems(at) == []
    assert _find(at.main, "draw_use") is None
    assert any("add a second point to ω (1 point)" in as_read(w.value) for w in at.warning)
    assert not at.session_state["data"].startswith("drawn:")


def test_palette_grows_to_ten_classes_and_a_preset_loads_three():
    at = _draw_page()
    at.run()
    for _ in range(8):
        _find(at.main, "draw_add_class").click().run()
    assert at.session_state[NAMES] == [str(k) for k in range(1, 11)]
    assert at.session_state["_svmviz_drawn_class"] == 10   # a new class is the one drawn next
    assert _find(at.main, "draw_class_10") is not None
    _find(at.main, "draw_class_3").click().run()
    assert at.session_state["_svmviz_drawn_class"] == 3
    _find(at.main, "draw_preset_three classes around an unclassifiable triangle").click().run()
    assert problems(at) == []
    ds = at.session_state["_svmviz_dataset"]
    assert ds.class_counts() == {1: 8, 2: 8, 3: 8}
    assert at.session_state[NAMES] == ["1", "2", "3"]
    assert at.session_state["dag.kernel"] == "linear"   # the DAG page then shows the triangle


def test_table_edits_change_move_add_and_delete_points():
    names = ["a", "b", "c"]
    P = np.array([[0.0, 0.0, 1], [1.0, 1.0, 2], [2.0, 2.0, 3]])
    delta = {"edited_rows": {"0": {"x1": 0.5, "class": "c"}}, "deleted_rows": [1],
             "added_rows": [{"x1": -1.0, "x2": 3.0}, {"x1": 4.0, "x2": 4.0, "class": "b"}]}
    got = edited_points(P, names, delta, new_class=1)
    np.testing.assert_array_equal(got, [[0.5, 0.0, 3], [2.0, 2.0, 3], [-1.0, 3.0, 1], [4.0, 4.0, 2]])


@pytest.mark.parametrize("delta, words", [
    ({"added_rows": [{"x1": 1.0}]}, "two numbers"),
    ({"edited_rows": {"0": {"x2": "abc"}}}, "two numbers"),
    ({"edited_rows": {"0": {"class": "nope"}}}, "class of the palette"),
    ({"edited_rows": {"0": {"x1": float("inf")}}}, "finite"),
    ({"added_rows": [{"x1": 0.0, "x2": 0.0}] * MAX_POINTS}, f"at most {MAX_POINTS}"),
])
def test_bad_table_edits_are_refused(delta, words):
    with pytest.raises(ValueError, match=words):
        edited_points(np.array([[0.0, 0.0, 1]]), ["a", "b"], delta, new_class=1)


def test_class_names_must_stay_distinct_and_non_empty():
    assert renamed(["1", "2", "3"], {"1": {"name": "  dog \n cat "}}) == ["1", "dog cat", "3"]
    with pytest.raises(ValueError, match="differ"):
        renamed(["1", "2"], {"1": {"name": "1"}})
    with pytest.raises(ValueError, match="non-empty"):
        renamed(["1", "2"], {"0": {"name": "  "}})


def test_canvas_clicks_cover_the_visible_range_and_names_are_escaped():
    fig = drawing_canvas(P4[:, :2], P4[:, 2], NAMES4, selected=0)
    grid, *classes, ring = fig.data
    xr, yr = fig.layout.xaxis.range, fig.layout.yaxis.range
    assert tuple(xr) == tuple(yr)
    # the click targets span exactly the visible square, which holds every point
    assert np.isclose(min(grid.x), xr[0]) and np.isclose(max(grid.x), xr[1])
    assert np.isclose(min(grid.y), yr[0]) and np.isclose(max(grid.y), yr[1])
    assert xr[0] < -1 and xr[1] > P4[:, :2].max()
    assert fig.layout.xaxis.constrain == fig.layout.yaxis.constrain == "domain"
    assert [t.name for t in classes] == ["setosa (2)", "&lt;b&gt;bold&lt;/b&gt; (2)", "*star* (2)", "ω (2)"]
    assert [list(t.customdata) for t in classes] == [[0, 1], [2, 3], [4, 5], [6, 7]]
    assert ring.hoverinfo == "skip"   # the selection ring takes no clicks


def test_the_click_grid_is_cheap_to_mount_at_every_click():
    # the canvas is mounted anew after every click: its thousands of click targets must cost the
    # browser neither a WebGL context nor a DOM node each, only their data
    grid = drawing_canvas(P4[:, :2], P4[:, 2], NAMES4).data[0]
    assert grid.type == "scatter" and grid.mode == "markers"
    assert len(grid.x) == GRID * GRID and grid.marker.maxdisplayed == 1


def test_canvas_range_grows_to_hold_points_outside_the_unit_square():
    assert canvas_range(np.empty((0, 2))) == (-1.0, 1.0)
    assert canvas_range(np.array([[-1.3, 0.2]])) == (-1.5, 1.0)
    lo, hi = canvas_range(np.array([[2.2, -3.1]]))
    assert lo <= -3.2 and hi >= 2.3
    g = canvas_grid(lo, hi)
    assert g.min() < lo and g.max() > hi


def test_a_drawn_three_class_set_round_trips_through_a_lesson_file():
    names = ["cats", "dogs", "<i>birds</i>"]
    P = np.array([[-0.5, 0.5, 1], [-0.6, 0.4, 1], [0.5, 0.5, 2], [0.6, 0.4, 2], [0.0, -0.5, 3], [0.1, -0.6, 3],
                  [2.5, -1.5, 3]])
    ds = drawn_dataset(P, names)
    got = loads_lesson(dumps_lesson(ds, {"split.test": 0.0, "dag.kernel": "linear"})).dataset
    assert got.class_names == names and got.name == "drawn data"
    np.testing.assert_array_equal(got.X, ds.X)
    np.testing.assert_array_equal(got.y, ds.y)
    assert got.class_counts() == {1: 2, 2: 2, 3: 3}


def test_a_drawing_of_one_class_or_a_lone_point_is_not_data():
    assert drawn_dataset(P4[:2], NAMES4) is None
    assert drawn_dataset(np.vstack([P4[:4], [[0, 0, 3]]]), NAMES4) is None
    assert drawn_dataset(P4[:4], NAMES4).class_names == ["setosa", "<b>bold</b>"]


@pytest.mark.parametrize("title", sorted(DRAW_PRESETS))
def test_starting_sketches_are_seeded_small_and_on_the_canvas(title):
    name, params = DRAW_PRESETS[title]
    a, b, c = generate(name, **params), generate(name, **params), generate(name, seed=1, **params)
    np.testing.assert_array_equal(a.X, b.X)
    assert not np.array_equal(a.X, c.X)
    assert sorted(a.class_counts()) == [1, 2, 3]
    assert a.n_samples <= 60 and np.abs(a.X).max() < 1.0


def test_the_triangle_sketch_leaves_an_unclassifiable_region_for_voting():
    from svmviz.models.dag import DAGSVC, PairwiseVotingSVC

    ds = generate("unclassifiable_triangle")
    vote = PairwiseVotingSVC(C=10, kernel="linear").fit(ds.X, ds.y)
    g = np.linspace(-1, 1, 120)
    G = np.column_stack([a.ravel() for a in np.meshgrid(g, g)])
    tied = vote.unclassifiable(G)
    assert tied.mean() > 0.01                    # a visible triangle of ties (Sabzekar et al. Fig. 1)
    assert np.linalg.norm(G[tied].mean(axis=0)) < 0.3   # in the middle, between the three classes
    assert (vote.predict(ds.X) == ds.y).all()
    assert DAGSVC.from_pairwise(vote).predict(G[tied]).size == tied.sum()   # the DAG decides there


def test_the_split_class_sketch_needs_two_clusters():
    import warnings

    from svmviz.models.dag import PairwiseVotingSVC, WeightedDAGSVC

    ds = generate("split_class")
    vote = PairwiseVotingSVC(C=10, kernel="linear").fit(ds.X, ds.y)
    wdag = WeightedDAGSVC(C=10, kernel="linear", n_clusters=2).fit(ds.X, ds.y)
    assert wdag.incomplete_clusters_.size == 0        # each cluster holds every class (§5)
    assert (wdag.predict(ds.X) == ds.y).mean() == 1.0 > (vote.predict(ds.X) == ds.y).mean()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        three = WeightedDAGSVC(C=10, kernel="linear", n_clusters=3).fit(ds.X, ds.y)
    assert "Use fewer clusters" in three.missing_classes_message()   # what the DAG page says


def test_class_names_show_as_typed_in_the_dag_and_scatter_pictures():
    from svmviz.models.dag import PairwiseVotingSVC
    from svmviz.models.scatter import ScatterSVC
    from svmviz.plots.dag import plot_voting_regions
    from svmviz.plots.data import plot_dataset
    from svmviz.plots.scatter import plot_prototypes

    ds = drawn_dataset(P4, NAMES4)
    assert "&lt;b&gt;bold&lt;/b&gt;" in {t.name for t in plot_dataset(ds).data}
    vote = PairwiseVotingSVC(C=10, kernel="linear").fit(ds.X, ds.y)
    shown = {t.name for t in plot_voting_regions(vote, ds.X, ds.y, ds.class_names).data}
    assert "&lt;b&gt;bold&lt;/b&gt;" in shown and "<b>bold</b>" not in shown
    scatter = ScatterSVC(kernel="linear").fit(ds.X, ds.y)
    hover = " ".join(str(t.hovertemplate) for t in plot_prototypes(scatter, ds.X, ds.y, ds.class_names).data)
    assert "&lt;b&gt;bold&lt;/b&gt;" in hover and "<b>bold</b>" not in hover


def test_drawn_data_from_a_lesson_file_loads_back_onto_the_canvas():
    ds = loads_lesson(dumps_lesson(drawn_dataset(P4, NAMES4), {})).dataset
    at = page_test("pages/1_Data.py", dataset=ds, spec="lesson:test", **{"data.source": "Draw"})
    at.run()
    _find(at.main, "draw_from_current").click().run()
    assert problems(at) == []
    np.testing.assert_array_equal(at.session_state[POINTS], P4)
    assert at.session_state[NAMES] == NAMES4
    assert at.session_state["_svmviz_dataset"].class_names == NAMES4


def test_pairwise_boundaries_are_named_by_their_two_classes_as_typed():
    from svmviz.models.dag import PairwiseVotingSVC
    from svmviz.plots.dag import plot_pairwise_boundaries

    ds = drawn_dataset(P4, NAMES4)
    vote = PairwiseVotingSVC(C=10, kernel="linear").fit(ds.X, ds.y)
    lines = [t.name for t in plot_pairwise_boundaries(vote, ds.X, ds.y, list(ds.class_names)).data
             if t.mode == "lines"]   # the zero lines, traced as polylines
    assert "setosa vs &lt;b&gt;bold&lt;/b&gt;: D = 0" in lines and "*star* vs ω: D = 0" in lines


def test_support_vector_rings_leave_the_class_symbol_visible():
    from svmviz.models.scatter import ScatterSVC
    from svmviz.plots.scatter import CLASS_MARKER, plot_prototypes

    ds = drawn_dataset(P4, NAMES4)
    fig = plot_prototypes(ScatterSVC(kernel="linear").fit(ds.X, ds.y), ds.X, ds.y, ds.class_names)
    rings = [t for t in fig.data if t.name == "support vectors (size ∝ α)"]
    assert rings and min(min(t.marker.size) for t in rings) >= 2 * CLASS_MARKER


# --- forged widget states: what a modified browser can send to the drawing's callbacks ---------
def _forged_callback():
    import streamlit as st

    from svmviz_app import draw

    st.session_state["forged_key"] = st.session_state["forged"]
    getattr(draw, st.session_state["callback"])("forged_key")


def _forge(callback: str, value, points=P4, names=NAMES4):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_forged_callback, default_timeout=30)
    at.session_state["forged"] = value
    at.session_state["callback"] = callback
    at.session_state[POINTS] = np.array(points, dtype=float)
    at.session_state[NAMES] = list(names)
    return at.run()


def _click(**point):
    return {"selection": {"points": [point]}}


@pytest.mark.parametrize("callback, value, said", [
    ("_on_table", {"edited_rows": {"1000000": {"x1": 1.0}}}, "not one of the 8 rows"),
    ("_on_table", {"edited_rows": {"-1": {"x1": 1.0}}}, "not one of the 8 rows"),
    ("_on_table", {"edited_rows": {"0": {"x9": 1.0}}}, "no column"),
    ("_on_table", {"edited_rows": {"0": {"x1": float("nan")}}}, "between"),
    ("_on_table", {"edited_rows": {"0": {"x1": 1e308}}}, "between"),
    ("_on_table", {"edited_rows": {"0": {"x1": [1]}}}, "between"),
    ("_on_table", {"deleted_rows": [99]}, "not one of the 8 rows"),
    ("_on_table", {"added_rows": [{"x1": 0.0, "x2": 0.0}] * 10**4}, "at most"),
    ("_on_table", ["not", "a", "delta"], "not rows of the table"),
    ("_on_names", {"edited_rows": {"99": {"name": "x"}}}, "not one of the 4 rows"),
    ("_on_names", {"edited_rows": "x"}, "not a mapping"),
    ("_on_canvas", _click(x="abc", y=0.0), "x must be a finite number"),
    ("_on_canvas", _click(x=float("nan"), y=0.0), "x must be a finite number"),
    ("_on_canvas", _click(x=0.0, y=1e308), "y must be a finite number"),
    ("_on_canvas", _click(x=0.0, y=0.0, curve_number=1, customdata=[10**6]), "not one of the 8 rows"),
    ("_on_canvas", _click(x=0.0, y=0.0, curve_number="1"), "not on a trace"),
    ("_on_canvas", {"selection": {"points": ["x"]}}, "not a point"),
])
def test_a_forged_widget_state_gets_a_message_not_a_traceback(callback, value, said):
    at = _forge(callback, value)
    assert not at.exception, at.exception[0].value if at.exception else ""
    assert said in at.session_state["_svmviz_drawn_msg"]
    np.testing.assert_array_equal(at.session_state[POINTS], P4)   # the drawing is as it was


def test_coordinates_outside_the_bound_never_reach_the_data():
    with pytest.raises(ValueError, match="between"):
        edited_points(P4, NAMES4, {"added_rows": [{"x1": 1e308, "x2": 0.0, "class": "setosa"}]}, 1)
    out = edited_points(P4, NAMES4, {"edited_rows": {0: {"x1": "2.5"}}}, 1)
    assert out[0, 0] == 2.5


def test_a_drawn_class_name_is_shown_as_text_in_the_drawings_warning():
    link = "[clickme](https://evil.example/x)"
    at = _draw_page()
    at.session_state[POINTS] = np.array([[0.1, 0.1, 1], [0.2, 0.2, 1], [0.5, 0.5, 2]])
    at.session_state[NAMES] = ["a", link]
    at.run()
    warning = next(w.value for w in at.warning if "add a second point" in w.value)
    assert link not in warning and "https://" not in warning
    assert "clickme" in warning


def test_switching_to_draw_ends_the_run_and_forgets_the_other_source_s_widgets():
    """The Draw source ends the page's run as runs end (no ``st.stop()``): the widgets of the
    source shown before are forgotten, and the share panel is drawn."""
    at = page_test("pages/1_Data.py").run()
    assert not at.exception and "data_builtin_load" in at.session_state
    at.radio(key="data.source").set_value("Draw").run()
    assert not at.exception
    assert "data_builtin_load" not in at.session_state
    assert any(e.label == "Share this view" for e in at.sidebar.expander)

"""The one app state: values survive page switches, the URL holds the view and a link
reproduces it, the data follows the Data page. Links with a mistake in them (an unknown data set
or normalization, values at and beyond a widget's edges) are clamped or refused with a short note
in the run that read them, never a Streamlit or scikit-learn exception."""

from __future__ import annotations

import re

import numpy as np

from apphelpers import page_test, problems
from svmviz.data import BUILTINS, Dataset, load_builtin
from svmviz.data.generators import fourclass_like


def test_split_settings_survive_page_switches_and_go_into_the_url():
    at = page_test("app.py").run()
    at.switch_page("pages/1_Data.py").run()
    at.slider(key="split.test").set_value(0.2).run()
    at.number_input(key="split.seed").set_value(7).run()
    assert not problems(at)
    at.switch_page("app.py").run()
    at.switch_page("pages/3_Convex_Hulls.py").run()
    at.switch_page("pages/1_Data.py").run()
    assert at.slider(key="split.test").value == 0.2
    assert at.number_input(key="split.seed").value == 7
    assert at.query_params["split.test"] == "0.2" and at.query_params["split.seed"] == "7"
    assert at.query_params["data"]  # the data set is named in the link


def test_a_link_reproduces_data_split_and_page_values():
    at = page_test("app.py")
    at.query_params.update({"data": "gen:checkerboard;n_classes=3;n_per_class=30;overlap=0.1;seed=2",
                            "split.test": "0.4", "split.norm": "stddev", "hull.nu": "0.3"})
    at.run()
    at.switch_page("pages/1_Data.py").run()
    assert not problems(at)
    assert at.slider(key="split.test").value == 0.4
    assert at.selectbox(key="split.norm").value == "stddev"
    assert "90 samples" in " ".join(c.value for c in at.caption)
    # a value for a page not shown yet is carried in the URL until that page binds it
    assert at.query_params["hull.nu"] == "0.3"


def test_a_bad_link_value_falls_back_to_the_default_with_a_note():
    at = page_test("pages/1_Data.py")
    at.query_params.update({"split.seed": "abc", "data": "gen:nonexistent"})
    at.run()
    assert not problems(at)
    assert at.number_input(key="split.seed").value == 0
    notes = " ".join(i.value for i in at.info)
    assert "could not" in notes


def test_pages_follow_the_data_page_and_its_split():
    ds = load_builtin("hypercubes")
    at = page_test("pages/3_Convex_Hulls.py", dataset=ds, **{"split.test": 0.5}).run()
    assert not problems(at)
    text = " ".join(m.value for m in at.markdown)
    # half of the 200 hypercube points train: 50 per class
    assert "(50 points)" in text


def _upload(at, name: str, payload: bytes):
    at.radio(key="data.source").set_value("Upload a file").run()
    at.file_uploader(key="data_upload").set_value((name, payload, "application/json")).run()
    return at


def test_a_lesson_file_restores_its_data_and_state_on_the_data_page():
    from svmviz.export.lesson import dumps_lesson

    ds = load_builtin("mexican_hat")
    text = dumps_lesson(ds, {"split.test": 0.25, "split.norm": "minmax", "hull.nu": 0.2, "tree.step": 3})
    at = _upload(page_test("pages/1_Data.py").run(), "lesson.json", text.encode())
    assert not problems(at) and not at.error
    assert at.session_state["_svmviz_dataset"].n_samples == ds.n_samples
    assert at.session_state["data"].startswith("lesson:")
    assert at.slider(key="split.test").value == 0.25
    assert at.selectbox(key="split.norm").value == "minmax"
    # settings of pages not opened yet wait with the link's values, checked when their page binds them
    assert at.session_state["_svmviz_url"]["hull.nu"] == "0.2"
    assert at.session_state["_svmviz_url"]["tree.step"] == "3"


def test_a_model_file_on_the_data_page_says_where_to_load_it_and_keeps_the_data():
    from svmviz.export import dumps_model
    from svmviz.models import BinarySVC

    ds = load_builtin("hypercubes")
    model = BinarySVC(kernel="linear").fit(ds.X, ds.y)
    at = page_test("pages/1_Data.py", dataset=ds, spec="hypercubes").run()
    _upload(at, "model.json", dumps_model(model).encode())
    assert not problems(at)
    assert "model file" in at.error[0].value and "method page" in at.error[0].value
    assert at.session_state["_svmviz_dataset"] is ds


def test_a_tampered_lesson_file_is_refused_and_the_data_stays():
    from svmviz.export.lesson import dumps_lesson

    ds = load_builtin("hypercubes")
    text = dumps_lesson(load_builtin("mexican_hat"), {"split.test": 0.25}).replace('"version": 1', '"version": 99')
    at = page_test("pages/1_Data.py", dataset=ds, spec="hypercubes").run()
    _upload(at, "lesson.json", text.encode())
    assert not problems(at) and at.error
    assert at.session_state["_svmviz_dataset"] is ds


def test_user_strings_render_as_plain_text_not_markdown():
    """A class or data-set name with Markdown image/link syntax must not become an <img> that
    fetches an outside URL."""
    import numpy as np

    from svmviz.data import Dataset

    evil = "![x](http://example.invalid/t.png)"
    X = np.random.default_rng(0).normal(size=(20, 2))
    ds = Dataset(X, np.arange(20) % 2, class_names=[evil, "[link](http://example.invalid)"], name=evil,
                 source=evil)
    at = page_test("app.py", dataset=ds).run()
    assert not problems(at)
    shown = " ".join(m.value for m in at.main.get("markdown") + at.sidebar.get("markdown"))
    assert "](http" not in shown.replace("\\]\\(http", "")   # every bracket/paren escaped
    assert "\\!\\[x\\]\\(http" in shown


def test_the_shared_stepper_moves_plays_to_the_end_and_follows_the_slider():
    import time

    from streamlit.testing.v1 import AppTest

    def script():
        import streamlit as st

        from svmviz_app.stepper import stepper

        stepper("demo.step", 5, lambda k: st.markdown(f"**Step {k + 1} of 5**"), delay_s=0.05)

    at = AppTest.from_function(script).run()
    shown = lambda: at.markdown[0].value  # noqa: E731
    assert shown() == "**Step 1 of 5**"
    at.button(key="demo.step_next").click().run()
    at.button(key="demo.step_next").click().run()
    assert shown() == "**Step 3 of 5**" and at.slider(key="demo.step_slider_2").value == 3
    at.button(key="demo.step_prev").click().run()
    assert shown() == "**Step 2 of 5**"
    at.slider(key="demo.step_slider_1").set_value(5).run()
    assert shown() == "**Step 5 of 5**"
    at.button(key="demo.step_first").click().run()
    at.button(key="demo.step_play").click().run()
    assert at.session_state["demo.step._playing"]
    for _ in range(4):   # the fragment's timer (run_every) reruns it; AppTest reruns the script
        time.sleep(0.05)
        at.run()
    assert shown() == "**Step 5 of 5**" and not at.session_state["demo.step._playing"]
    assert at.button(key="demo.step_play").label == "Play"


def test_a_stepper_run_writes_the_url_once_after_its_view(monkeypatch):
    """A step click reruns the stepper's fragment alone: it reads every bound value and writes the
    URL once, after the view (which may reset a bound value), not also before it."""
    from streamlit.testing.v1 import AppTest

    import svmviz_app.state as state

    sync = state.sync_url

    def logged():
        import streamlit as st

        st.session_state.setdefault("demo.log", []).append("sync")
        return sync()

    monkeypatch.setattr(state, "sync_url", logged)

    def script():
        import streamlit as st

        from svmviz_app.stepper import stepper

        stepper("demo.step", 5, lambda k: st.session_state.setdefault("demo.log", []).append(f"view {k}"))

    at = AppTest.from_function(script).run()
    at.session_state["demo.log"] = []
    at.button(key="demo.step_next").click().run()
    assert at.session_state["demo.log"] == ["view 1", "sync"]
    assert at.session_state["demo.step"] == 1 and at.query_params["demo.step"] == "1"


def _tree_app(query: dict):
    """The whole app opened with ``query``, then the SVM Tree page (small data: a quick fit)."""
    at = page_test("app.py")
    at.query_params.update({"data": "fourclass_like", **query})
    at.run()
    at.switch_page("pages/2_SVM_Tree.py").run()
    return at


def _step_caption(at) -> str:
    return next(m.value for m in at.markdown if m.value.startswith("**Step "))


def test_a_step_click_in_lesson_mode_is_in_the_url_at_once():
    at = _tree_app({"lesson": "1"})
    assert not problems(at) and _step_caption(at).startswith("**Step 1 of ")
    at.button(key="tree.step_next").click().run()
    at.button(key="tree.step_next").click().run()
    assert _step_caption(at).startswith("**Step 3 of ")
    assert at.query_params["tree.step"] == "2" and at.query_params["lesson"] == "1"
    assert at.query_params["data"] == "fourclass_like"


def test_a_page_that_stops_early_keeps_its_url():
    at = _tree_app({"tree.use_c": "0", "tree.use_h": "0", "tree.C_hard": "100"})
    assert not problems(at)
    assert any("Switch on C-SVM or H1-SVM" in i.value for i in at.info)     # the page stopped there
    assert at.query_params["tree.use_c"] == "0" and at.query_params["tree.use_h"] == "0"
    assert float(at.query_params["tree.C_hard"]) == 100.0
    at.checkbox(key="tree.use_h").check().run()                          # a change while stopped
    assert "tree.use_h" not in at.query_params                          # back to its default
    assert at.query_params["tree.use_c"] == "0"


def test_links_made_by_the_earlier_app_still_work():
    """Links as the app wrote them before its state moved onto Streamlit's widget features: the
    step, the data spec, the split keys (booleans as 1/0, floats as text)."""
    old = {"tree.step": "2", "tree.g1": "1", "split.test": "0.4", "split.strat": "0", "split.norm": "minmax",
           "split.seed": "3"}
    at = _tree_app(old)
    assert not problems(at) and not at.error
    assert _step_caption(at).startswith("**Step 3 of ")
    assert at.session_state["split.strat"] is False and at.session_state["split.test"] == 0.4
    assert at.session_state["tree.g1"] == 1
    for k, v in old.items():
        assert at.query_params[k] == v            # written back as the old app wrote them
    at.switch_page("pages/1_Data.py").run()
    assert at.slider(key="split.test").value == 0.4 and at.checkbox(key="split.strat").value is False
    assert at.selectbox(key="split.norm").value == "minmax" and at.number_input(key="split.seed").value == 3


def test_option_ids_go_into_the_url_and_a_link_holding_a_label_is_read_as_its_id():
    from streamlit.testing.v1 import AppTest

    def script():
        import streamlit as st

        from svmviz_app.state import bind, sync_url

        grids = {"small": "small 3 × 3 (C 1…100)", "paper": "7 × 9 (C 10⁻¹…10⁵)"}
        st.selectbox("grid", list(grids), format_func=grids.get, **bind("demo.grid", "small", options=grids))
        sync_url()

    at = AppTest.from_function(script)
    at.query_params["demo.grid"] = "7 × 9 (C 10⁻¹…10⁵)"    # a link the app wrote with the label
    at.run()
    assert at.selectbox(key="demo.grid").value == "paper"
    assert at.query_params["demo.grid"] == "paper"
    at.selectbox(key="demo.grid").set_value("small").run()
    assert "demo.grid" not in at.query_params                 # the default is not written


# ---------------------------------------------------------------- links with a mistake in them: a note, never an exception
def _shown_notes(at) -> str:
    """The notes as read: shown as plain text, their Markdown characters escaped."""
    return " ".join(re.sub(r"\\(.)", r"\1", i.value) for i in at.info)


def test_unknown_data_name_says_so_and_lists_the_names():
    at = page_test("home.py")
    at.query_params["data"] = "doesnotexist"
    at.run()
    assert not problems(at)
    notes = _shown_notes(at)
    assert "there is no data set named 'doesnotexist'" in notes
    assert all(name in notes for name in BUILTINS)
    assert "cannot carry" not in notes


def test_an_upload_link_still_points_at_the_lesson_file():
    at = page_test("home.py")
    at.query_params["data"] = "upload:0123456789abcdef"
    at.run()
    assert "which a link cannot carry: load the lesson file" in _shown_notes(at)


def test_unknown_normalization_gets_a_note_and_leaves_the_link():
    at = page_test("app.py")   # app.py writes the URL after the page
    at.query_params["split.norm"] = "banana"
    at.query_params["split.seed"] = "4"
    at.run()
    assert not problems(at)
    assert "normalization 'banana' is not one of none, minmax, stddev" in _shown_notes(at)
    assert at.session_state["split.norm"] == "none"
    assert "split.norm" not in at.query_params and at.query_params["split.seed"] == "4"


SOLVERS = "pages/8_Solvers.py"


def _link_notes(at) -> list[str]:
    """The link notes as the reader sees them (shown as plain text: Markdown escaped)."""
    shown = [re.sub(r"\\(.)", r"\1", i.value) for i in at.info]
    return [s for s in shown if "The link's" in s]


def test_a_nu_link_between_the_rounded_and_the_true_maximum_fits_the_slider():
    # 107 of 300 samples in the smaller class: ν ≤ 2·107/300 = 0.7133, a slider in steps of 0.01
    X = np.random.default_rng(0).normal(size=(300, 2))
    ds = Dataset(X, np.r_[np.zeros(107, int), np.ones(193, int)], name="three hundred")
    at = page_test(SOLVERS, dataset=ds, **{"split.test": 0.0})
    at.query_params.update({"solvers.form": "nu", "solvers.nu": "0.713"})
    at.run()
    assert not problems(at)
    nu = next(s for s in at.slider if s.key == "solvers.nu")
    assert nu.min <= nu.value <= nu.max and nu.max <= 2 * 107 / 300


def test_a_split_seed_outside_the_widget_s_range_is_clamped_with_a_note():
    for raw, used in (("-1", 0), (str(2**40), 2**31 - 1)):
        at = page_test(SOLVERS)
        at.query_params.update({"data": "gen:fourclass_like;n=120", "split.seed": raw})
        at.run()
        assert not problems(at) and not at.error, [e.value for e in at.error]
        assert any("split.seed" in n and f"{used:,} is used" in n for n in _link_notes(at)), _link_notes(at)
        assert at.session_state["split.seed"] == used


def test_a_huge_link_value_is_quoted_short():
    big = "x" * 500_000
    for key, value in (("data", "gen:" + big), ("split.test", big)):
        at = page_test(SOLVERS)
        at.query_params.update({key: value})
        at.run()
        assert not problems(at)
        notes = _link_notes(at)
        assert len(notes) == 1 and len(notes[0]) < 1_000, [len(n) for n in notes]
        assert re.search(r"500,0\d\d characters", notes[0])   # its length is said instead


def test_a_bad_step_in_a_link_is_noted_in_the_run_that_read_it():
    at = page_test("pages/2_SVM_Tree.py", dataset=fourclass_like(n=120, seed=0))
    at.query_params.update({"tree.step": "abc"})
    at.run()
    assert not problems(at)
    assert any("tree.step" in n and "'abc'" in n for n in _link_notes(at)), _link_notes(at)


def test_the_split_defaults_and_bounds_are_written_once(monkeypatch):
    # the Data page's widgets, the split every page reads and a link's clamp take them from state
    from svmviz_app import state

    monkeypatch.setitem(state.SPLIT_DEFAULTS, "split.test", 0.25)
    monkeypatch.setitem(state.SPLIT_BOUNDS, "split.test", (0.0, 0.4))
    at = page_test("app.py").run()
    at.switch_page("pages/1_Data.py").run()
    assert not problems(at)
    slider = at.slider(key="split.test")
    assert (slider.value, slider.max) == (0.25, 0.4)
    assert "split.test" not in at.query_params   # the default is not written into the link
    at = page_test("app.py")
    at.query_params["split.test"] = "0.45"   # beyond the bound: clamped to it
    at.run()
    at.switch_page("pages/1_Data.py").run()
    assert at.slider(key="split.test").value == 0.4

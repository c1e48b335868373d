"""The page frame: a declared parameter's widget offers what the estimator class accepts (read from
its constraints, narrowed only by what the page offers), and a minimal declared page runs the
whole frame — widgets bound to the URL, the fit, its views, lesson mode."""

from __future__ import annotations

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from svmviz.data import Dataset
from svmviz.models import BinarySVC, GuardVectorSVC, TreeDecompositionSVC, param_spec
from svmviz.models.svc import BinarySVC as _SVC
from svmviz_app import frame
from svmviz_app.frame import Param, widget_spec
from svmviz_app.widgets import SHARE_OPEN


def test_number_bounds_and_options_come_from_the_class():
    assert widget_spec(GuardVectorSVC, Param("delta", "Δ", 0.0)) == {"bounds": param_spec(GuardVectorSVC, "delta")}
    ws = widget_spec(BinarySVC, Param("kernel", "kernel", "rbf", "select"))
    assert ws["options"] == list(param_spec(BinarySVC, "kernel"))
    assert widget_spec(GuardVectorSVC, Param("prefilter", "pre-filter", True, "checkbox")) == {}


def test_changing_the_class_constraint_changes_the_widget(monkeypatch):
    p = Param("top_k", "top k", 5, "slider", within=(1, 10))
    assert widget_spec(TreeDecompositionSVC, p) == {"bounds": (1, 10)}
    real = frame.param_spec
    monkeypatch.setattr(frame, "param_spec", lambda cls, name: (3, 8) if name == "top_k" else real(cls, name))
    assert widget_spec(TreeDecompositionSVC, p) == {"bounds": (3, 8)}
    monkeypatch.setattr(frame, "param_spec", lambda cls, name: ("ovr",) if name == "multi_class" else real(cls, name))
    assert widget_spec(TreeDecompositionSVC, Param("multi_class", "mc", "ovr", "radio"))["options"] == ["ovr"]


@pytest.mark.parametrize("p", [
    Param("top_k", "top k", 5, "slider", within=(0, 10)),          # below the class's lower bound
    Param("top_k", "top k", 50, "slider", within=(1, 10)),         # a default outside what is offered
    Param("svm_solver", "solver", "smo", "radio", within=("smo", "sklearn")),   # an option the class lacks
    Param("purity_tol", "ε", "bad", "select", choices={"bad": ("0.7", 0.7)}),     # a preset the class refuses
    Param("C_grid", "grid", "g", "select"),                        # a list parameter without presets
    Param("prefilter", "flag", True, "number"),                    # a flag shown as a number
])
def test_a_page_cannot_offer_what_the_class_refuses(p):
    cls = GuardVectorSVC if p.name == "prefilter" else TreeDecompositionSVC
    with pytest.raises(ValueError):
        widget_spec(cls, p)


def test_a_slider_needs_a_range_when_the_class_leaves_one_end_open(monkeypatch):
    real = frame.param_spec
    monkeypatch.setattr(frame, "param_spec", lambda cls, name: (1, None) if name == "top_k" else real(cls, name))
    with pytest.raises(ValueError, match="slider needs a range"):
        widget_spec(TreeDecompositionSVC, Param("top_k", "top k", 5, "slider"))
    assert widget_spec(TreeDecompositionSVC, Param("top_k", "top k", 5, "number")) == {"bounds": (1, None)}


MINI = '''
import streamlit as st
from svmviz.models.svc import BinarySVC
from svmviz_app.frame import MethodPage, Param, View, run_page

def boundary(ctx):
    import plotly.graph_objects as go
    st.markdown(f"support vectors: {len(ctx.model.support_)}; C = {ctx.params['C']:g}; "
                f"kernel = {ctx.params['kernel']}; seen {ctx.values['show']}")
    ctx.figure(go.Figure(go.Scatter(x=ctx.inputs.X[:, 0], y=ctx.inputs.X[:, 1], mode="markers")),
               "mini_fig", "mini_points")

def details(ctx):
    st.markdown("details for the notes")
    st.checkbox("a view's own widget", key="mini_own")
    ctx.model_download()
    # a model this view builds itself goes into the lesson file instead of the page's fit
    ctx.share(BinarySVC(C=2.0, kernel="linear").fit(ctx.inputs.X, ctx.inputs.y))

run_page(MethodPage(
    key="mini", title="A minimal method", name="Minimal", citation="Nobody (2026).", estimator=BinarySVC,
    params=(Param("C", "C", 1.0, "number"), Param("kernel", "Kernel", "linear", "select", within=("linear", "rbf")),
            Param(None, "show details", True, "checkbox", key="show")),
    fixed={"tol": 1e-6}, max_samples=50, progress="fitting the SVM",
    converged=lambda m: "the SMO solve",
    views=(View(boundary, lesson=True), View(details))))
'''


def _mini(monkeypatch=None, **values) -> AppTest:
    rng = np.random.default_rng(0)
    y = np.arange(80) % 2
    X = rng.normal(size=(80, 2)) + 3.0 * y[:, None]
    at = AppTest.from_string(MINI, default_timeout=120)
    at.session_state["_svmviz_dataset"] = Dataset(X, y, ["x1", "x2"], [], "blobs", "test")
    at.session_state["data"] = "upload:test"
    for k, v in values.items():
        at.session_state[k] = v
    return at


def test_the_model_download_is_encoded_when_clicked_not_at_every_run(monkeypatch):
    encoded = []
    encode = lambda m: encoded.append(m) or "{}"   # noqa: E731
    monkeypatch.setattr("svmviz.export.models.dumps_model", encode)
    monkeypatch.setattr("svmviz_app.widgets.dumps_model", encode, raising=False)   # were it imported there
    at = _mini().run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("mini_model_model" in b.proto.id for b in at.get("download_button"))
    assert encoded == []


def test_a_declared_page_runs_the_whole_frame():
    at = _mini(**{"mini.C": 10.0}).run()
    assert not at.exception and not at.error, [e.value for e in (*at.exception, *at.error)]
    assert at.title[0].value == "A minimal method"
    number = at.number_input(key="mini.C")
    lo, hi = param_spec(_SVC, "C")
    assert (number.min, number.max, number.value) == (lo, hi, 10.0)
    assert at.selectbox(key="mini.kernel").options == ["linear", "rbf"]
    # the training part (70 % of 80 = 56) is over the page's bound of 50: a stratified sample
    assert any("works on at most 50 samples" in i.value for i in at.info)
    text = " ".join(m.value for m in at.markdown)
    assert "C = 10; kernel = linear; seen True" in text and "details for the notes" in text
    assert any(c.value.startswith("Converged: the SMO solve") for c in at.caption)
    assert any("mini_fig_dl_html" in b.proto.id for b in at.get("download_button"))
    assert any("mini_model_model" in b.proto.id for b in at.get("download_button"))
    # bound to the app state under the page's prefix (app.py writes bound values into the URL)
    assert {"mini.C", "mini.kernel", "mini.show"} <= set(at.session_state["_svmviz_bound"])
    at.selectbox(key="mini.kernel").set_value("rbf").run()
    assert "kernel = rbf" in " ".join(m.value for m in at.markdown)
    assert at.session_state["mini.kernel"] == "rbf"


def test_a_link_value_the_class_refuses_is_brought_inside_its_bounds():
    at = _mini(**{"mini.C": -5.0}).run()
    assert not at.exception
    assert at.number_input(key="mini.C").value == param_spec(_SVC, "C")[0]
    # C's lower end is open: the clamped value is refused by the estimator with a message, not a traceback
    assert all("C must be" in e.value for e in at.error)


def test_lesson_mode_keeps_only_the_lesson_views():
    at = _mini()
    at.query_params["lesson"] = "1"
    at.run()
    assert not at.exception and not at.error
    text = " ".join(m.value for m in at.markdown)
    assert "support vectors" in text and "details for the notes" not in text
    assert not any("_dl_" in b.proto.id for b in at.get("download_button"))


def test_the_rendered_widget_follows_the_class_constraint(monkeypatch):
    real = frame.param_spec
    monkeypatch.setattr(frame, "param_spec", lambda cls, name: (0.5, 100.0) if name == "C" else real(cls, name))
    at = _mini(**{"mini.C": 1000.0}).run()
    assert not at.exception and not at.error
    number = at.number_input(key="mini.C")
    assert (number.min, number.max, number.value) == (0.5, 100.0, 100.0)


def test_the_lesson_file_carries_the_model_a_view_shares():
    at = _mini().run()
    assert not at.exception and not at.error
    # the closed share panel draws nothing: no link box (the browser's syntax highlighter), no button
    assert not at.get("code") and not any("mini_lesson" in b.proto.id for b in at.get("download_button"))
    at.session_state[SHARE_OPEN] = True
    at.run()
    assert len(at.get("code")) == 1
    assert any("mini_lesson" in b.proto.id for b in at.get("download_button"))
    shared = at.session_state["_svmviz_lesson_source"]["model"]
    assert isinstance(shared, _SVC) and shared.C == 2.0


FORMS = '''
import numpy as np
import streamlit as st
from svmviz.models.svc import BinaryNuSVC, BinarySVC
from svmviz_app.frame import MethodPage, Param, View, run_page

def nu_max(inputs):
    return float(np.floor(200 * min(np.sum(inputs.y == 0), np.sum(inputs.y == 1)) / len(inputs.y)) / 100)

def said(ctx):
    st.markdown("said before the picture")
    import plotly.graph_objects as go
    ctx.figure(go.Figure(go.Scatter(x=ctx.inputs.X[:, 0], y=ctx.inputs.X[:, 1], mode="markers")), "f_fig", "f")
    st.markdown(f"model {type(ctx.model).__name__} {sorted(ctx.params)}; reference solver "
                f"{ctx.reference.solver}; plane {ctx.values['plane']}; full {ctx.full.n_samples}")

def second(ctx):
    st.session_state["second_runs"] = st.session_state.get("second_runs", 0) + 1
    st.markdown("the second tab")

run_page(MethodPage(
    key="f", title="Two forms", name="Forms", citation="Nobody (2026).", summary="What the page is about.",
    estimator="form", max_samples=40,
    params=(Param(None, "form", "C", "radio", key="form",
                  choices={"C": ("C-SVM", BinarySVC), "nu": ("ν-SVM", BinaryNuSVC)}),
            Param("C", "C", 1.0, "number"),
            Param("nu", "ν", lambda inputs: nu_max(inputs) / 2, "slider", within=lambda inputs: (0.01, nu_max(inputs)),
                  step=0.01, when=lambda v: v["form"] == "nu")),
    fixed={"kernel": "linear"}, reference={"solver": "cvxpy"},
    controls=lambda train, values: {"plane": train.n_samples},
    views=(View(said, lesson=True, tab="first"), View(second, tab="second"))))
'''


def _forms(n_small: int = 20, **values) -> AppTest:
    rng = np.random.default_rng(1)
    y = np.r_[np.zeros(80 - n_small, int), np.ones(n_small, int)]
    X = rng.normal(size=(80, 2)) + 3.0 * y[:, None]
    at = AppTest.from_string(FORMS, default_timeout=120)
    at.session_state["_svmviz_dataset"] = Dataset(X, y, ["x1", "x2"], [], "blobs", "test")
    at.session_state["data"] = "upload:test"
    at.session_state["split.test"] = 0.0
    for k, v in values.items():
        at.session_state[k] = v
    return at


def _said(at) -> str:
    return next(m.value for m in at.markdown if m.value.startswith("model "))


def test_the_form_chooses_the_estimator_and_each_parameter_goes_to_the_classes_that_have_it():
    at = _forms().run()
    assert not at.exception and not at.error, [e.value for e in (*at.exception, *at.error)]
    assert _said(at).startswith("model BinarySVC ['C', 'kernel']; reference solver cvxpy")
    at.radio(key="f.form").set_value("nu").run()
    assert not at.exception and not at.error
    # C stays on the page (its bounds from BinarySVC) but only the ν-SVM's own parameters reach it
    assert _said(at).startswith("model BinaryNuSVC ['kernel', 'nu']; reference solver cvxpy")
    assert at.number_input(key="f.C").value == 1.0


def test_a_range_that_depends_on_the_data_follows_the_data():
    for n_small, top in ((20, 0.5), (10, 0.25)):   # ν ≤ 2·m_small/m
        at = _forms(n_small, **{"f.form": "nu", "f.nu": 0.9}).run()   # 0.9: a link beyond ν_max
        assert not at.exception and not at.error
        nu = at.slider(key="f.nu")
        assert (nu.min, nu.max, nu.value) == (0.01, top, top)
    with pytest.raises(ValueError, match="first parameter"):
        frame.MethodPage(key="x", title="x", name="x", citation="", estimator="form", max_samples=1, views=(),
                         params=(Param("C", "C", 1.0), Param(None, "form", "C", "radio", key="form",
                                                              choices={"C": ("C", BinarySVC)})))


def test_data_controls_see_the_training_part_before_the_size_bound():
    at = _forms().run()
    assert "plane 80; full 80" in _said(at)   # 80 training samples, the page bound to 40
    assert any("works on at most 40 samples" in i.value for i in at.info)


def test_a_tab_is_computed_only_while_open():
    at = _forms().run()
    assert "second_runs" not in at.session_state and "the second tab" not in [m.value for m in at.markdown]
    at.session_state["f.tab"] = 1
    at.run()
    assert at.session_state["second_runs"] == 1 and not any(m.value.startswith("model ") for m in at.markdown)
    # a bound key holding a value other than its default: the link and the lesson file carry it
    assert at.session_state["_svmviz_bound"]["f.tab"] == 0


def test_a_link_opens_its_tab():
    at = _forms()
    at.query_params["f.tab"] = "1"
    at.run()
    assert not at.exception and at.session_state["second_runs"] == 1
    assert "the second tab" in [m.value for m in at.markdown]


def _order(node, out):
    """The main area's elements in page order."""
    for child in getattr(node, "children", {}).values():
        out.append(child)
        _order(child, out)
    return out


def test_lesson_mode_puts_the_picture_first_and_folds_the_summary():
    at = _forms()
    at.query_params["lesson"] = "1"
    at.run()
    assert not at.exception and not at.error
    kinds = [(e.type, getattr(e, "value", None)) for e in _order(at.main, [])]
    chart = next(i for i, (t, _) in enumerate(kinds) if t == "plotly_chart")
    before = next(i for i, (_, v) in enumerate(kinds) if v == "said before the picture")
    title = next(i for i, (t, _) in enumerate(kinds) if t == "title")
    assert chart < title < before   # above everything the page says
    folded = next(e for e in at.expander if e.label == "What this page shows")
    assert "What the page is about." in [m.value for m in folded.markdown]
    assert "second_runs" not in at.session_state   # no tabs in lesson mode: only the lesson views


def test_the_closed_model_panel_draws_no_uploader_and_a_loaded_model_keeps_it_open():
    from svmviz_app.widgets import import_open_key

    at = _mini().run()
    assert not at.exception and not at.get("file_uploader")   # closed: no uploader on the page
    at.session_state[import_open_key("mini")] = True
    at.run()
    assert len(at.get("file_uploader")) == 1
    X, y = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]]), np.array([0, 1, 0, 1])
    at.session_state["_svmviz_import_mini"] = (_SVC(kernel="linear").fit(X, y), "m.json")
    at.session_state[import_open_key("mini")] = False
    at.run()
    assert at.session_state[import_open_key("mini")] and at.get("file_uploader")   # a loaded model: open


def test_no_page_or_frame_module_stops_the_run():
    """A stopped run (``st.stop()``) leaves Streamlit's fragments and widgets of earlier runs
    registered and skips what runs at its end: only the routing of a page link on a fresh server
    (``state._serve_page_link_through_the_app``, which ran the page inside the app) may stop."""
    import ast

    from conftest import ROOT

    stops = []
    for path in [ROOT / "app.py", ROOT / "home.py", *sorted((ROOT / "pages").glob("*.py")),
                 *sorted((ROOT / "svmviz_app").glob("*.py"))]:
        tree = ast.parse(path.read_text(), str(path))
        functions = {id(n): f.name for f in ast.walk(tree) if isinstance(f, ast.FunctionDef) for n in ast.walk(f)}
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "stop"
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "st"):
                stops.append((path.relative_to(ROOT).as_posix(), functions.get(id(node))))
    assert stops == [("svmviz_app/state.py", "_serve_page_link_through_the_app")]


def _share_panel(at) -> bool:
    return any(e.label == "Share this view" for e in at.sidebar.expander)


def test_a_page_without_a_model_ends_its_run_and_forgets_the_views_of_the_last_one():
    at = _mini().run()
    assert not at.exception and "mini_own" in at.session_state
    at.session_state["mini.C"] = -5.0   # the estimator refuses it: no model
    at.run()
    assert not at.exception and any("C must be" in e.value for e in at.error)
    assert not any(m.value.startswith("support vectors") for m in at.markdown)
    # the run ended as runs end: the widgets (and fragments) of views not drawn are forgotten
    assert "mini_own" not in at.session_state
    assert _share_panel(at)


def test_data_that_cannot_be_prepared_ends_the_run_with_the_share_panel():
    at = _mini().run()
    assert "mini_own" in at.session_state
    at.session_state["split.test"] = 0.01   # one test sample: no stratified split of two classes
    at.run()
    assert not at.exception and any("cannot prepare the data" in e.value for e in at.error)
    assert "mini_own" not in at.session_state
    assert _share_panel(at)

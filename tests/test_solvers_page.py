"""The Solvers page (pages/8_Solvers.py): the SMO stepper (the working pair changes with the step,
the ν form draws the hull points, convergence is shown), the three solvers agree, multi-class data
and bad input are explained; a look in headless Chromium."""

from __future__ import annotations

import json

import numpy as np
import pytest

from apphelpers import as_student, click_sends, download, page_test, problems, step_saved_when_drawing_fails

PAGE = "pages/8_Solvers.py"


def _data():
    from svmviz.data.generators import fourclass_like

    return fourclass_like(n=200, seed=0)


def _metric(at, label):
    return next(m.value for m in at.metric if m.label == label)


def _trace_names(at):
    names = []
    for c in at.get("plotly_chart"):
        names += [t.get("name", "") for t in json.loads(c.proto.spec)["data"]]
    return names


def test_stepping_changes_the_working_pair():
    at = page_test(PAGE, dataset=_data(), **{"solvers.C": 10.0}).run()
    assert not problems(at) and not at.error
    assert any("SMO converged after" in s.value for s in at.success)
    assert _metric(at, "working pair (i, j)") == "start"
    at.button(key="solvers.step_next").click().run()
    first = _metric(at, "working pair (i, j)")
    assert first.startswith("(") and _metric(at, "iteration t").startswith("1 / ")
    at.button(key="solvers.step_next").click().run()
    second = _metric(at, "working pair (i, j)")
    assert second != first
    assert any(m.value.startswith("**Iteration 2**") for m in at.markdown)
    at.button(key="solvers.step_prev").click().run()
    assert _metric(at, "working pair (i, j)") == first
    assert not problems(at) and not at.error
    assert "working pair (i, j)" in _trace_names(at)
    at.button(key="solvers.step_last").click().run()
    n = int(_metric(at, "iteration t").split(" / ")[1])
    assert _metric(at, "iteration t") == f"{n} / {n}"
    assert float(_metric(at, "max KKT violation")) <= 1e-3


def test_nu_form_draws_the_hull_points():
    at = page_test(PAGE, dataset=_data(), **{"solvers.form": "nu"}).run()
    assert not problems(at) and not at.error
    at.button(key="solvers.step_next").click().run()
    assert not problems(at) and not at.error
    assert "hull points p₊, p₋" in _trace_names(at)
    assert any("converged" in s.value for s in at.success)


def test_three_solvers_agree():
    at = page_test(PAGE, dataset=_data(), **{"solvers.tab": 1}).run()   # the comparison tab
    assert not problems(at) and not at.error
    df = next(d.value for d in at.dataframe if "solver" in d.value.columns)
    assert list(df["solver"]) == ["SMO (Numba)", "LIBSVM (sklearn SVC)", "cvxpy reference (Clarabel)"]
    obj = df["objective ½αᵀQα − Σα"].to_numpy()
    assert np.max(np.abs(obj - obj[2])) <= 1e-3 * abs(obj[2])
    at.selectbox(key="solvers.kernel").set_value("linear").run()
    assert not problems(at) and not at.error
    df = next(d.value for d in at.dataframe if "solver" in d.value.columns)
    obj = df["objective ½αᵀQα − Σα"].to_numpy()
    assert np.max(np.abs(obj - obj[2])) <= 1e-3 * abs(obj[2])


def test_multiclass_data_picks_two_classes_and_bad_input_is_explained():
    from svmviz.data import load_builtin

    at = page_test(PAGE, dataset=load_builtin("iris")).run()
    assert not problems(at) and not at.error
    assert any("more than two classes" in i.value for i in at.info)
    b = at.selectbox(key="solvers.class_b")
    b.set_value(at.selectbox(key="solvers.class_a").value).run()
    assert any("two different classes" in e.value for e in at.error)
    assert not problems(at)


@pytest.mark.slow
def test_a_step_click_sends_only_what_changes_with_the_step(streamlit_url):
    """The step plot's legend and downloads are the same at every step: the page's run draws them,
    outside the stepper's fragment, so a Next click neither builds nor sends them (spoken at the
    protocol level, as the classroom benchmark's students). The buttons save the step shown when
    they are clicked (``test_the_step_figure_s_download_saves_the_step_shown``)."""
    async def click(s, shown):
        return await click_sends(s, shown)

    sent = as_student(streamlit_url, "Solvers", "data=fourclass_like", click)
    assert "iteration t" in sent and "working pair" in sent
    for same in ("Red: f_t = 0", "Download HTML", "Download PNG"):
        assert same not in sent, same


@pytest.mark.slow
def test_the_step_figure_s_download_saves_the_step_shown(streamlit_url):
    """The step figure's buttons are drawn once by the page's run; clicked after a Next, the HTML
    is the figure of the iterate shown then."""
    async def click_then_download(s, shown):
        await click_sends(s, shown)
        return s.step(), (await download(s, "Download HTML")).decode()

    step, html = as_student(streamlit_url, "Solvers", "data=fourclass_like", click_then_download)
    assert step[0] == 1
    assert "After 1 SMO iterations" in html and "After 0 SMO" not in html


@pytest.mark.parametrize("failing", [0, 1])
def test_an_iteration_that_cannot_be_drawn_saves_no_other_step(monkeypatch, failing):
    """When an iteration's figures cannot be built (the page says why), the step figure's buttons
    save a figure saying there is nothing to save: not the iterate drawn before, and no error (at
    the start, with nothing drawn yet, too)."""
    import svmviz_app.cache as cache

    # shared_view(_iteration, model, t, ...)
    at, html = step_saved_when_drawing_fails(monkeypatch, PAGE, _data(), "solvers.step", failing, cache,
                                             "shared_view", lambda fn, *a: fn.__name__ == "_iteration"
                                             and a[1] == failing, "solvers_step_dl")
    assert any("cannot rebuild iteration" in e.value for e in at.error)
    assert "Nothing to save:" in html and f"the figure of step {failing + 1} could not be drawn" in html
    assert "SMO iterations" not in html


@pytest.mark.browser
def test_page_in_chromium(streamlit_url, page, artifacts_dir):
    from conftest import wait_for_app

    page.set_viewport_size({"width": 1400, "height": 1700})
    page.goto(f"{streamlit_url}/Solvers")
    page.wait_for_selector(".js-plotly-plot", timeout=240000)
    wait_for_app(page, timeout_ms=240000)
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.locator(".js-plotly-plot").count() >= 3    # the step, α and the curves
    page.screenshot(path=str(artifacts_dir / "solvers_page.png"), full_page=True)
    page.get_by_role("tab", name="SMO against cvxpy and LIBSVM").click()   # drawn once it opens
    page.wait_for_selector("text=Objectives differ by at most", timeout=240000)
    wait_for_app(page, timeout_ms=240000)
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.locator(".js-plotly-plot:visible").count() >= 4
    page.screenshot(path=str(artifacts_dir / "solvers_page_comparison.png"), full_page=True)

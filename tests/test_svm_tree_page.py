"""The SVM tree stepper page: AppTest walks the steps, a headless browser sees the plot change."""

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from conftest import wait_for_app

PAGE = str(Path(__file__).resolve().parents[1] / "pages" / "2_SVM_Tree.py")


def _step_caption(at) -> str:
    return next(m.value for m in at.markdown if m.value.startswith("**Step "))


def _figure_title(at) -> str:
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    return spec["layout"]["title"]["text"]


def test_next_three_previous_one_shows_step_three(fourclass):
    at = AppTest.from_file(PAGE, default_timeout=240).run()
    assert not at.exception and not at.error
    first = _step_caption(at)
    assert first.startswith("**Step 1 of ")
    for _ in range(3):
        at.button(key="svm_tree_next").click().run()
    at.button(key="svm_tree_prev").click().run()
    assert not at.exception and not at.error
    assert at.session_state["svm_tree_step"] == 2
    assert _step_caption(at).startswith("**Step 3 of ")
    assert _figure_title(at).startswith("Step 3 of ")   # the plot shows the same step
    assert at.slider(key="svm_tree_step_slider").value == 3
    # the candidates table lists the four QP candidates of Fig. 4.1
    table = next(d.value for d in at.dataframe if "left out" in d.value.columns)
    labels = list(table["line"])
    assert {"a", "b", "c", "d"} <= set(labels)
    n_fits = len(at.session_state["svm_tree_fits"])
    at.button(key="svm_tree_last").click().run()
    assert len(at.session_state["svm_tree_fits"]) == n_fits  # moving did not refit
    assert not at.exception
    last = _step_caption(at)
    total = int(last.split(" of ")[1].split("**")[0])
    assert last.startswith(f"**Step {total} of {total}**")


@pytest.mark.browser
def test_browser_next_changes_the_plot(streamlit_url, page, artifacts_dir, fourclass):
    page.goto(f"{streamlit_url}/SVM_Tree")
    wait_for_app(page, timeout_ms=240000)
    page.wait_for_selector(".js-plotly-plot .gtitle", timeout=240000)
    before = page.locator(".js-plotly-plot .gtitle").first.text_content()
    page.screenshot(path=str(artifacts_dir / "svm_tree_step1.png"), full_page=True)
    page.get_by_role("button", name="Next ▶").click()
    page.wait_for_function(
        "t => { const e = document.querySelector('.js-plotly-plot .gtitle');"
        " return e && e.textContent !== t; }", arg=before, timeout=120000)
    wait_for_app(page, timeout_ms=120000)
    after = page.locator(".js-plotly-plot .gtitle").first.text_content()
    page.screenshot(path=str(artifacts_dir / "svm_tree_step2.png"), full_page=True)
    assert before.startswith("Step 1 of") and after.startswith("Step 2 of")
    assert page.get_by_text("Step 2 of", exact=False).first.is_visible()
    page.get_by_role("tab", name="Final tree and metrics").click()
    page.get_by_text("Against an RBF SVM on the same split").wait_for(timeout=60000)
    page.wait_for_timeout(1500)
    page.screenshot(path=str(artifacts_dir / "svm_tree_final.png"), full_page=True)

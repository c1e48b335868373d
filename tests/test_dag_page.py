"""The DAG SVM page (pages/6_DAG_SVM.py): AppTest and a look in headless Chromium."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from svmviz.data import load_builtin

PAGE = str(Path(__file__).resolve().parents[1] / "pages" / "6_DAG_SVM.py")


def _caption(at, start):
    return next(c.value for c in at.caption if c.value.startswith(start))


def test_page_runs_changes_the_order_and_fuses():
    at = AppTest.from_file(PAGE, default_timeout=180)
    at.run()
    assert not at.exception and not at.error
    assert at.selectbox(key="dag_data").value == "Data2"  # the default data set is 2-class
    assert len(at.tabs) == 4
    first = _caption(at, "Sample #0")
    assert first.startswith("Sample #0 (class 0): 0 vs 2")  # list [0, 1, 2]: first vs last
    assert at.selectbox(key="dag_order").options[3] == "[1, 2, 0]"
    at.selectbox(key="dag_order").set_value(3).run()  # the 4th permutation: [1, 2, 0]
    assert not at.exception and not at.error
    assert _caption(at, "Sample #0").startswith("Sample #0 (class 0): 1 vs 0")
    # one cluster: the weighted DAG is the DAG of the chosen list
    at.slider(key="wdag_n").set_value(1).run()
    assert not at.exception and not at.error
    acc = {m.label: m.value for m in at.metric}
    assert acc["Training accuracy: WDAG"] == acc["Training accuracy: DAG (this list)"]


def test_page_shows_a_four_feature_data_set_on_a_plane():
    at = AppTest.from_file(PAGE, default_timeout=180)
    at.session_state["svmviz_dataset"] = load_builtin("iris")
    at.run()
    assert not at.exception and not at.error
    assert at.selectbox(key="dag_data").value.startswith("current: iris")
    assert any("4 features" in i.value for i in at.info)
    at.text_input(key="dag_gamma").set_value("not a number").run()
    assert any("gamma must be" in e.value for e in at.error)  # explained, no traceback
    assert not at.exception


def test_page_in_chromium(streamlit_url, page, artifacts_dir):
    from conftest import wait_for_app

    page.set_viewport_size({"width": 1400, "height": 2400})  # the app scrolls inside its own container
    page.goto(f"{streamlit_url}/DAG_SVM")
    wait_for_app(page, timeout_ms=180000)
    # the last thing the script writes is the WDAG model download: then every tab is filled
    page.get_by_text("Training accuracy: WDAG").wait_for(state="attached", timeout=180000)
    page.locator('[data-testid="stDownloadButton"]').nth(13).wait_for(state="attached", timeout=180000)
    wait_for_app(page, timeout_ms=180000)
    assert page.locator('[data-testid="stException"]').count() == 0
    page.get_by_role("tab", name="Voting (Fig. 1)").click()
    page.wait_for_timeout(2500)
    page.screenshot(path=str(artifacts_dir / "dag_voting.png"), full_page=False)
    page.get_by_role("tab", name="DAG (Fig. 2–3)").click()
    page.wait_for_timeout(1500)
    page.screenshot(path=str(artifacts_dir / "dag_order.png"), full_page=False)
    page.get_by_role("tab", name="Weighted DAG (Fig. 4–5)").click()
    page.wait_for_timeout(1500)
    page.screenshot(path=str(artifacts_dir / "dag_wdag.png"), full_page=False)
    assert page.locator(".js-plotly-plot").count() >= 8
    assert page.locator('[data-testid="stException"]').count() == 0

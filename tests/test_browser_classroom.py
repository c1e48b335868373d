"""What an instructor does, in headless Chromium against a real server: draw
points and see them on another page with a boundary, project a lesson-mode view, and open a copied
link in a fresh browser to find the same view."""

from __future__ import annotations

import pytest

from conftest import wait_for_app

pytestmark = pytest.mark.browser


def _click_canvas(page, fx: float, fy: float, expect: str) -> None:
    """Click at a fraction (fx, fy) of the drawing canvas's plot area (0, 0 = top left) and wait
    for the canvas legend to show ``expect`` (e.g. "2 (2)": class 2 has two points)."""
    page.wait_for_selector(".js-plotly-plot .nsewdrag", state="visible", timeout=60000)
    page.locator(".js-plotly-plot").first.scroll_into_view_if_needed()
    box = page.locator(".js-plotly-plot .nsewdrag").first.bounding_box()
    page.mouse.click(box["x"] + fx * box["width"], box["y"] + fy * box["height"])
    page.wait_for_function(
        "t => [...document.querySelectorAll('.js-plotly-plot .legendtext')].some(e => e.textContent === t)",
        arg=expect, timeout=60000)
    wait_for_app(page)


def test_drawn_points_become_the_data_of_the_solvers_page(streamlit_url, page, artifacts_dir):
    page.goto(f"{streamlit_url}/Data?data.source=Draw")
    wait_for_app(page)
    for k, (fx, fy) in enumerate([(0.2, 0.2), (0.25, 0.32), (0.32, 0.22)]):   # class 1, upper left
        _click_canvas(page, fx, fy, f"1 ({k + 1})")
    page.keyboard.press("2")   # the number key picks class 2
    page.wait_for_selector('button[kind="primary"]:has-text("2 (0)")', timeout=60000)
    wait_for_app(page)
    for k, (fx, fy) in enumerate([(0.7, 0.7), (0.76, 0.82), (0.82, 0.72)]):   # class 2, lower right
        _click_canvas(page, fx, fy, f"2 ({k + 1})")
    page.screenshot(path=str(artifacts_dir / "draw_canvas.png"), full_page=True)
    assert "drawn data" in page.locator('[data-testid="stSidebar"]').inner_text()
    # to another page in the same session (the sidebar's link): drawn data is session data
    page.locator('[data-testid="stSidebarNav"] a', has_text="Solvers").click()
    wait_for_app(page, timeout_ms=180000)
    page.wait_for_selector(".js-plotly-plot", timeout=180000)
    text = page.locator('[data-testid="stSidebar"]').inner_text()
    page.screenshot(path=str(artifacts_dir / "draw_solvers.png"), full_page=True)
    # all six points train: drawn data is not split 70/30 behind the instructor's back
    assert "drawn data" in text and "6 samples" in text and "all samples for training" in text
    assert "/Solvers" in page.url
    # the decision boundary is drawn: a level line f(x) = 0 with points in the first plot
    n_boundary = page.evaluate(
        "() => { const p = document.querySelector('.js-plotly-plot'); "
        "return p && p._fullData ? p._fullData.filter(t => /f(_t)?\\(x\\) = 0/.test(t.name || '') "
        "&& t.x && t.x.length > 1).length : 0; }")
    assert n_boundary >= 1
    assert not page.locator('[data-testid="stException"]').count()


def test_a_click_outside_the_unit_square_adds_a_point_there(streamlit_url, page):
    page.goto(f"{streamlit_url}/Data?data.source=Draw")
    wait_for_app(page)
    _click_canvas(page, 0.02, 0.02, "1 (1)")   # the top left corner of the visible canvas
    x, y, lo = page.evaluate(   # the plotted (decoded) coordinates of the new point
        "() => { const p = document.querySelector('.js-plotly-plot'); "
        "const t = p._fullData.find(t => t.name === '1 (1)'); return [t.x[0], t.y[0], p._fullLayout.xaxis.range[0]]; }")
    assert x < -1 and y > 1
    assert lo < x   # the canvas grew to keep the new point inside, with room to click further out
    assert not page.locator('[data-testid="stException"]').count()


def test_lesson_mode_hides_the_sidebar(streamlit_url, page, artifacts_dir):
    page.goto(f"{streamlit_url}/Data?lesson=1")
    # on a fresh server the first session takes the app's navigation over: wait for the page itself
    page.wait_for_selector("h1:has-text('Data')", state="attached", timeout=60000)
    wait_for_app(page)
    page.screenshot(path=str(artifacts_dir / "lesson_mode.png"))
    assert not page.locator('[data-testid="stSidebar"]').is_visible()
    # the projector view hides the page's title too: the screen goes to the lesson itself
    assert page.locator("h1").first.text_content().strip() == "Data"
    assert not page.locator("h1").first.is_visible()


def test_a_page_link_opened_first_on_a_fresh_server_goes_through_the_app(page):
    """Streamlit serves a page URL the old pages/-directory way until some session ran app.py:
    the state hooks and the live-class box were skipped and the first sidebar entry read "app"."""
    from conftest import start_streamlit, stop_streamlit

    proc, url = start_streamlit()
    try:
        page.goto(f"{url}/Data?split.seed=4")
        wait_for_app(page)
        page.wait_for_function("() => location.search.includes('data=')", timeout=60000)
        first = page.locator('[data-testid="stSidebarNav"] a').first.inner_text()
        assert first.strip().endswith("Home")
        assert "split.seed=4" in page.url   # the link's value was read and written back
        # everything app.py draws around a page, the live-class box among it
        assert page.locator('[data-testid="stSidebar"]').get_by_text("Live class").count() == 1
    finally:
        stop_streamlit(proc)


def _step_text(page) -> str:
    page.wait_for_function("() => /Step \\d+ of \\d+/.test(document.body.innerText)", timeout=240000)
    import re

    return re.search(r"Step \d+ of \d+", page.locator('[data-testid="stMainBlockContainer"]').inner_text()).group(0)


def test_a_copied_link_shows_the_same_step_of_the_same_tree_in_a_new_browser(streamlit_url, browser,
                                                                              artifacts_dir):
    """A link shared with the class: step the SVM tree, take the URL, open it in a fresh browser context
    (no shared session), and find the same page, tree and step."""
    first = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = first.new_page()
    page.goto(f"{streamlit_url}/SVM_Tree?tree.g1=1")
    wait_for_app(page, timeout_ms=240000)
    assert _step_text(page).startswith("Step 1 of")
    for k in range(3):
        page.get_by_role("button", name="Next ▶").click(timeout=120000)
        page.wait_for_function("k => document.body.innerText.includes(`Step ${k} of`)", arg=k + 2,
                               timeout=120000)
        wait_for_app(page, timeout_ms=120000)
    shown = _step_text(page)
    assert shown.startswith("Step 4 of")
    page.wait_for_function("() => location.search.includes('tree.step=3')", timeout=60000)
    link = page.url
    first.close()

    second = browser.new_context(viewport={"width": 1400, "height": 1000})
    other = second.new_page()
    other.goto(link)
    wait_for_app(other, timeout_ms=240000)
    assert _step_text(other) == shown                      # same step of a tree of the same size
    other.wait_for_function("() => location.search.includes('tree.step=3')", timeout=60000)
    assert "tree.g1=1" in other.url                        # the greedy level came from the link
    wait_for_app(other, timeout_ms=240000)
    other.screenshot(path=str(artifacts_dir / "svm_tree_from_link.png"), full_page=True)
    second.close()

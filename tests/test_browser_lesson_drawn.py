"""A lesson file of drawn multi-class data through a real browser: load the three-class starting
sketch on the Data page, add points of two classes by clicks, rename two classes in the names
table, open the DAG SVM page, download its lesson file, load that in a new browser context and
compare the page (data, size, classes and their names, page parameters). Screenshots of the DAG
and Scatter SVM pages at projector size (1280×720) go to test-artifacts/."""

from __future__ import annotations

import json
from urllib.parse import parse_qs, urlparse

import pytest

from conftest import ARTIFACTS, wait_for_app
from test_browser_lesson import _download, _open_page, _sidebar_data, upload_lesson

pytestmark = pytest.mark.browser

VIEWPORT = {"width": 1280, "height": 720}
NEW_NAMES = {0: ("north <b>", 9), 2: ("south-east", 10)}   # row of the names table -> name, points
TRIANGLE = "three classes around an unclassifiable triangle"


def _legend(page) -> list[str]:
    return page.evaluate("() => [...document.querySelectorAll('.js-plotly-plot .legendtext')]"
                         ".map(e => e.textContent)")


def _click_canvas(page, fx: float, fy: float, expect: str) -> None:
    """Click at a fraction (fx, fy) of the canvas's plot area and wait for the legend entry ``expect``."""
    page.locator(".js-plotly-plot").first.scroll_into_view_if_needed()
    box = page.locator(".js-plotly-plot .nsewdrag").first.bounding_box()
    page.mouse.click(box["x"] + fx * box["width"], box["y"] + fy * box["height"])
    page.wait_for_function("t => [...document.querySelectorAll('.js-plotly-plot .legendtext')]"
                           ".some(e => e.textContent === t)", arg=expect, timeout=60000)
    wait_for_app(page)


def _rename(page, row: int, name: str, legend: str) -> None:
    """Type ``name`` into the name cell of ``row`` of the class-name table and wait for the canvas
    legend to show ``legend``. The table is a canvas grid: the cell is clicked by position (header
    and rows are one row height each, the name column is the middle one of three). Each step waits
    for what the grid shows a user: the click has selected that cell (its accessible twin
    ``glide-cell-1-<row>`` holds the focus), Enter has opened the cell's text editor, and the
    typed name is in it. A click that lands while the grid is being remounted after the previous
    edit selects nothing; then the step is tried again."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    editor = page.locator("#portal textarea.gdg-input")
    for attempt in range(4):
        wait_for_app(page)
        grid = page.locator('[data-testid="stDataFrame"]').nth(1)
        grid.wait_for(state="visible")
        grid.scroll_into_view_if_needed()
        page.wait_for_timeout(500)
        box = grid.bounding_box()
        page.mouse.click(box["x"] + box["width"] * 0.5, box["y"] + 35 * (row + 1.5))
        try:
            page.wait_for_function("id => document.activeElement && document.activeElement.id === id",
                                   arg=f"glide-cell-1-{row}", timeout=5000)
            page.keyboard.press("Enter")
            editor.wait_for(state="visible", timeout=5000)
            editor.fill(name)
            page.wait_for_function("t => document.querySelector('#portal textarea.gdg-input')?.value === t",
                                   arg=name, timeout=5000)
            editor.press("Enter")
            page.wait_for_function("t => [...document.querySelectorAll('.js-plotly-plot .legendtext')]"
                                   ".some(e => e.textContent === t)", arg=legend, timeout=60000)
            wait_for_app(page)
            return
        except PlaywrightTimeout:
            page.screenshot(path=str(ARTIFACTS / f"drawn_lesson_rename_{row}_try_{attempt}.png"))
            page.keyboard.press("Escape")
    raise AssertionError(f"the name {name!r} did not reach row {row} of the class-name table")


def _screenshot_plot(page, path) -> None:
    """A 1280×720 screenshot with the page's first plot scrolled to the top of the screen."""
    page.locator(".js-plotly-plot").first.evaluate("e => e.scrollIntoView({block: 'start'})")
    page.wait_for_timeout(500)
    page.screenshot(path=str(path))


def _view(page) -> dict:
    """What the DAG SVM page shows of the lesson: the data line, the split, the class list of
    the DAG tab (names in order), the first map's legend and the page's parameters (the link)."""
    sidebar = page.locator('[data-testid="stSidebar"]')
    page.wait_for_selector(".js-plotly-plot .legendtext", timeout=120000)
    wait_for_app(page)   # the address bar is written at the end of the run
    query = parse_qs(urlparse(page.url).query)
    kernel = sidebar.locator('[data-testid="stSelectbox"]').filter(has_text="Kernel").first.evaluate(
        "e => [e.textContent, ...[...e.querySelectorAll('input')].map(i => i.value)].join(' ')")
    return {"data": _sidebar_data(page),
            "split": sidebar.locator('[data-testid="stCaptionContainer"]').filter(
                has_text="change it on the Data page").first.inner_text(),
            "order": page.locator('[data-testid="stSelectbox"]').filter(has_text="Class list (order)").first.evaluate(
                "e => [e.textContent, ...[...e.querySelectorAll('input')].map(i => i.value)].join(' ')"),
            "legend": sorted(set(_legend(page))),
            "kernel": kernel,
            # the data by its content digest: a drawing comes back as lesson data of the same content
            "params": {k: [v[0].split(":", 1)[-1]] if k == "data" else v for k, v in query.items()},
            "data_spec": query["data"][0]}


def test_a_drawn_three_class_lesson_comes_back_in_another_browser(streamlit_url, browser, artifacts_dir):
    ctx = browser.new_context(viewport=VIEWPORT, accept_downloads=True)
    ctx.set_default_timeout(120000)   # a shared, loaded machine: clicks wait for the page's rerun
    page = ctx.new_page()
    page.goto(f"{streamlit_url}/Data?data.source=Draw")
    wait_for_app(page)
    page.get_by_role("button", name="Starting sketches").click()
    page.get_by_role("button", name=TRIANGLE).click()
    page.wait_for_function("() => [...document.querySelectorAll('.js-plotly-plot .legendtext')]"
                           ".some(e => e.textContent === '3 (8)')", timeout=60000)
    wait_for_app(page)
    _click_canvas(page, 0.1, 0.1, "1 (9)")          # class 1, the top left corner
    page.keyboard.press("3")                          # the number key picks class 3
    page.wait_for_selector('button[kind="primary"]:has-text("3 (8)")', timeout=60000)
    wait_for_app(page)
    _click_canvas(page, 0.9, 0.9, "3 (9)")          # class 3, the bottom right corner
    _click_canvas(page, 0.85, 0.95, "3 (10)")
    page.get_by_text("Edit the points and the class names as tables").click()
    wait_for_app(page)
    for row, (name, n) in NEW_NAMES.items():
        _rename(page, row, name, f"{name} ({n})")
    page.screenshot(path=str(artifacts_dir / "drawn_lesson_canvas.png"), full_page=True)
    assert sorted(_legend(page)) == ["2 (8)", "north <b> (9)", "south-east (10)"]

    _open_page(page, "DAG SVM")
    page.get_by_role("tab", name="DAG (Fig. 2–3)").click()   # the class list's tab; the lesson brings it back open
    wait_for_app(page)
    before = _view(page)
    assert "drawn data" in before["data"] and "27 samples × 2 features" in before["data"]
    assert "[north <b>, 2, south-east]" in before["order"]
    assert {"north <b>", "2", "south-east"} <= set(before["legend"])
    assert before.pop("data_spec").startswith("drawn:"), before["params"]
    assert "linear" in before["kernel"]   # the sketch sets the DAG page to linear pairwise SVMs
    assert before["params"]["split.test"] == ["0.0"], before["params"]   # drawn data trains on every point
    assert before["params"]["dag.tab"] == ["2"], before["params"]
    page.screenshot(path=str(artifacts_dir / "drawn_lesson_dag_before.png"))

    sidebar = page.locator('[data-testid="stSidebar"]')
    sidebar.get_by_text("Share this view").click()
    dl = _download(page, sidebar.get_by_role("button", name="Download lesson file"))
    saved = artifacts_dir / "drawn_lesson_round_trip.json"
    dl.save_as(saved)
    ctx.close()
    doc = json.loads(saved.read_text())
    assert doc["dataset"]["class_names"] == ["north <b>", "2", "south-east"]
    assert doc["dataset"]["X"]["__ndarray__"]["shape"] == [27, 2]
    assert set(before["params"]) - {"data"} <= set(doc["state"]), (before["params"], doc["state"])

    ctx, page = upload_lesson(browser, streamlit_url, saved, VIEWPORT, "drawn data")
    try:
        _open_page(page, "DAG SVM")
        after = _view(page)
        assert after.pop("data_spec").startswith("lesson:")
        _screenshot_plot(page, artifacts_dir / "drawn_lesson_dag_after.png")
        assert after == before
        assert page.locator('[data-testid="stException"]').count() == 0
        _open_page(page, "Scatter SVM")
        page.wait_for_selector(".js-plotly-plot .legendtext", timeout=120000)
        wait_for_app(page)
        _screenshot_plot(page, artifacts_dir / "drawn_lesson_scatter.png")
        assert {"north <b>", "2", "south-east"} <= {t.strip() for t in _legend(page)}
        assert page.locator('[data-testid="stException"]').count() == 0
    finally:
        ctx.close()

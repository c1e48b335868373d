"""Lesson mode as a projector shows it, in headless Chromium at 1280×720 and 1920×1080: the whole
plot on the first screen under the step number, the explanation folded, no Streamlit chrome, and
the arrow keys still stepping; on every method page the picture first. Screenshots go to
test-artifacts/."""

from __future__ import annotations

import contextlib

import pytest

from conftest import wait_for_app

pytestmark = pytest.mark.browser


@contextlib.contextmanager
def _projector(browser, path: str, width: int, height: int):
    """A page opened in lesson mode at a projector's size, once its run has ended."""
    ctx = browser.new_context(viewport={"width": width, "height": height})
    page = ctx.new_page()
    try:
        page.goto(f"{path}{'&' if '?' in path else '?'}lesson=1")
        page.wait_for_selector(".js-plotly-plot .main-svg", timeout=240000)
        wait_for_app(page, 240000)
        yield page
    finally:
        ctx.close()


def _no_chrome(page) -> None:
    """No sidebar, no header (toolbar, Deploy button, main menu)."""
    for testid in ("stSidebar", "stHeader", "stToolbar", "stMainMenu"):
        loc = page.locator(f'[data-testid="{testid}"]')
        assert loc.count() == 0 or not loc.first.is_visible(), testid
    assert page.get_by_text("Deploy", exact=True).count() == 0


def _step_line(page):
    return page.locator('[data-testid="stMarkdownContainer"]').filter(has_text="samples in play").first


@pytest.mark.parametrize("width,height", [(1280, 720), (1920, 1080)])
def test_projector_view_fits_the_screen(streamlit_url, browser, artifacts_dir, width, height):
    with _projector(browser, f"{streamlit_url}/SVM_Tree", width, height) as page:
        plot = page.locator('[data-testid="stPlotlyChart"]').first.bounding_box()
        step = _step_line(page).bounding_box()
        page.screenshot(path=str(artifacts_dir / f"projector_{width}x{height}.png"))
        assert _step_line(page).inner_text().startswith("Step 1 of ")
        # the step number above the plot, the whole plot on the first screen, and most of it
        assert step["y"] + step["height"] <= plot["y"]
        assert plot["y"] + plot["height"] <= height
        assert plot["height"] >= 0.6 * height
        _no_chrome(page)
        # the full explanation is folded under the plot
        expander = page.locator('[data-testid="stExpander"]').filter(has_text="Explanation of this step")
        assert expander.count() == 1 and expander.bounding_box()["y"] >= plot["y"] + plot["height"]
        assert not expander.locator('[data-testid="stAlert"]').first.is_visible()
        # keyboard stepping
        page.keyboard.press("ArrowRight")
        page.wait_for_function(
            "() => [...document.querySelectorAll('[data-testid=\"stMarkdownContainer\"]')]"
            ".some(e => e.innerText.startsWith('Step 2 of '))", timeout=60000)


# page, the text of its step line (None: a page without steps)
PAGES = [("SVM_Tree", "Step 1 of "), ("Convex_Hulls", "Step 1 of "), ("Guard_Vectors", "Step 1 of "),
         ("Tree_Decomposition", "Step 1 of "), ("DAG_SVM", "Step 1 of "), ("Scatter_SVM", "Step 1 of "),
         ("Solvers", "Step 1 of ")]


@pytest.mark.parametrize("width,height", [(1280, 720), (1920, 1080)])
@pytest.mark.parametrize("name,step", PAGES)
def test_the_picture_comes_first_on_every_page(streamlit_url, browser, artifacts_dir, name, step, width, height):
    with _projector(browser, f"{streamlit_url}/{name}", width, height) as page:
        page.screenshot(path=str(artifacts_dir / f"projector_{name}_{width}x{height}.png"))
        assert page.locator('[data-testid="stException"]').count() == 0
        plot = page.locator('[data-testid="stPlotlyChart"]').first.bounding_box()
        # the picture is the first thing on the screen (under the step controls on a stepping page),
        # whole, and takes most of it
        assert 0 <= plot["y"] < height and plot["y"] + plot["height"] <= height, plot
        assert plot["height"] >= 0.6 * height, plot
        if step is not None:
            box = page.locator('[data-testid="stMarkdownContainer"]').filter(has_text=step).first.bounding_box()
            assert box["y"] + box["height"] <= plot["y"]
        _no_chrome(page)


# a lesson link half-way through each method's steps
MIDWAY = [("Tree_Decomposition", "td.step", 9), ("DAG_SVM", "dag.step", 2), ("Scatter_SVM", "scatter.step", 6)]


@pytest.mark.parametrize("width,height", [(1280, 720), (1920, 1080)])
@pytest.mark.parametrize("name,key,k", MIDWAY)
def test_a_lesson_link_opens_mid_way_with_the_step_over_the_picture(streamlit_url, browser, artifacts_dir, name, key,
                                                                     k, width, height):
    with _projector(browser, f"{streamlit_url}/{name}?data=fourclass_like&{key}={k}", width, height) as page:
        page.screenshot(path=str(artifacts_dir / f"projector_{name}_step{k + 1}_{width}x{height}.png"))
        assert page.locator('[data-testid="stException"]').count() == 0
        plot = page.locator('[data-testid="stPlotlyChart"]').first.bounding_box()
        line = page.locator('[data-testid="stMarkdownContainer"]').filter(has_text=f"Step {k + 1} of ").first
        box = line.bounding_box()
        assert box["y"] + box["height"] <= plot["y"] and plot["y"] + plot["height"] <= height, (box, plot)
        assert plot["height"] >= 0.6 * height, plot
        _no_chrome(page)
        page.keyboard.press("ArrowRight")
        page.wait_for_function(
            "() => [...document.querySelectorAll('[data-testid=\"stMarkdownContainer\"]')]"
            f".some(e => e.innerText.startsWith('Step {k + 2} of '))", timeout=120000)
        page.wait_for_function(f"() => location.search.includes('{key}={k + 1}')", timeout=30000)

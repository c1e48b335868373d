"""A method page outside lesson mode at a projector's and a laptop's size, in headless Chromium:
the first plot starts on the first screen (at least its top third visible without scrolling), with
the page's header, its controls and what they read above it. Screenshots go to test-artifacts/."""

from __future__ import annotations

import pytest

from conftest import wait_for_app

pytestmark = pytest.mark.browser

SIZES = [(1280, 720), (1366, 768), (1440, 900)]


@pytest.mark.parametrize("width,height", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_the_tree_decomposition_partition_starts_on_the_first_screen(streamlit_url, browser, artifacts_dir,
                                                                     width, height):
    ctx = browser.new_context(viewport={"width": width, "height": height})
    page = ctx.new_page()
    try:
        page.goto(f"{streamlit_url}/Tree_Decomposition")
        page.wait_for_selector(".js-plotly-plot .main-svg", state="attached", timeout=240000)
        wait_for_app(page, 240000)
        page.screenshot(path=str(artifacts_dir / f"first_screen_Tree_Decomposition_{width}x{height}.png"))
        assert page.locator('[data-testid="stException"]').count() == 0
        assert page.evaluate("() => window.scrollY") == 0
        plot = page.locator('[data-testid="stPlotlyChart"]').first.bounding_box()
        assert page.locator(".js-plotly-plot .gtitle").first.text_content().startswith("σ = ")
        assert plot["y"] + plot["height"] / 3 <= height, (plot, height)
        # the σ slider and what the tree holds at that σ are above the plot, on the same screen
        slider = page.locator('[data-testid="stSlider"]').filter(has_text="ceiling size").bounding_box()
        summary = page.get_by_text("validation accuracy:").first.bounding_box()
        assert slider["y"] + slider["height"] <= plot["y"] and summary["y"] + summary["height"] <= plot["y"]
    finally:
        ctx.close()

"""The Tree decomposition page: AppTest run, the σ slider walking the same tree, and a headless
Chromium screenshot (test-artifacts/tree_decomposition_page.png)."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from svmviz.models import _td_tree

PAGE = str(Path(__file__).resolve().parents[1] / "pages" / "5_Tree_Decomposition.py")


def _metric(at, label):
    return [m.value for m in at.metric if m.label == label][0]


def test_page_runs_and_sigma_slider_reads_the_same_tree(fourclass, monkeypatch):
    calls = []
    grow = _td_tree.grow_tree
    monkeypatch.setattr(_td_tree, "grow_tree", lambda *a, **k: calls.append(a[3]) or grow(*a, **k))
    at = AppTest.from_file(PAGE, default_timeout=240)
    at.run()
    assert not at.exception and not at.error
    assert calls and len(calls) == 1
    slider = [s for s in at.select_slider if s.label.startswith("ceiling size")][0]
    levels = list(slider.options)
    assert len(levels) >= 2
    leaves_opt = _metric(at, "leaves")
    rows_opt = len(at.dataframe[0].value)
    assert int(leaves_opt) == rows_opt
    # Walk to σ₀: more (or as many) leaves, read from the tree grown once — no new fit.
    slider.set_value(levels[0]).run()
    assert not at.exception and not at.error
    assert len(calls) == 1
    assert int(_metric(at, "leaves")) == len(at.dataframe[0].value) >= rows_opt
    assert any("Bound terms" in m.value for m in at.markdown)


def test_page_in_chromium(streamlit_url, page, artifacts_dir, fourclass):
    from conftest import wait_for_app

    page.set_viewport_size({"width": 1400, "height": 4200})  # the whole page without scrolling
    page.goto(f"{streamlit_url}/Tree_Decomposition")
    wait_for_app(page, timeout_ms=240000)
    page.get_by_text("Search path").first.wait_for(timeout=60000)
    assert page.locator('[data-testid="stException"]').count() == 0
    page.wait_for_selector(".js-plotly-plot", timeout=120000)
    page.wait_for_timeout(3000)  # let all three charts and the leaf table draw
    assert page.locator(".js-plotly-plot").count() >= 3
    page.screenshot(path=str(artifacts_dir / "tree_decomposition_page.png"), full_page=True)
    assert page.get_by_text("TD against one global SVM").count() == 1
    # Walk the σ slider down to σ₀ with the keyboard: the homogeneous leaves appear, filled.
    thumb = page.locator('[data-testid="stSlider"]').filter(has_text="ceiling size").get_by_role("slider")
    thumb.focus()
    thumb.press("Home")
    wait_for_app(page, timeout_ms=120000)
    page.get_by_text("homogeneous", exact=False).first.wait_for(timeout=60000)
    page.wait_for_timeout(3000)
    title = page.locator(".js-plotly-plot .gtitle").first.text_content()
    assert title.startswith("σ = ") and not title.endswith(" 0 homogeneous")
    page.screenshot(path=str(artifacts_dir / "tree_decomposition_sigma0.png"), full_page=True)

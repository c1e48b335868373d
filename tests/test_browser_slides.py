"""The projector view read from the back row, measured in headless Chromium at 1920×1080 in lesson
mode: every chart's data fill most of its plot area (equal scale only with the axes shrunk to the
data's aspect) and every tick label, legend entry and axis title is at least 20 px."""

from __future__ import annotations

import pytest

from conftest import wait_for_app

pytestmark = pytest.mark.browser

# For each chart of the page: per subplot holding at least 3 markers, the share of the plot
# area's width and of its height that the markers span (the smaller: a chart stretched to the
# page's width left its width empty beside data that filled its height); and the smallest
# rendered font size of each kind of text.
_MEASURE = """() => [...document.querySelectorAll('.js-plotly-plot')].filter(gd => gd.offsetWidth > 0).map(gd => {
  const spans = [];
  for (const sp of gd.querySelectorAll('.cartesianlayer > g.subplot')) {
    const id = [...sp.classList].find(c => c !== 'subplot');
    const area = gd.querySelector('.draglayer g.' + id + ' rect.nsewdrag');
    if (!area) continue;
    const a = area.getBoundingClientRect();
    let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity, n = 0;
    for (const p of sp.querySelectorAll('.scatterlayer .point')) {
      const q = p.getBoundingClientRect();
      if (!q.width) continue;
      x0 = Math.min(x0, q.left); x1 = Math.max(x1, q.right); y0 = Math.min(y0, q.top); y1 = Math.max(y1, q.bottom); n++;
    }
    if (n >= 3) spans.push(Math.min((x1 - x0) / a.width, (y1 - y0) / a.height));
  }
  const fonts = {};
  for (const sel of ['.xtick text', '.ytick text', '.legendtext', '.g-xtitle text', '.g-ytitle text', '.annotation-text']) {
    const s = [...gd.querySelectorAll(sel)].filter(t => t.textContent.trim())
      .map(t => parseFloat(getComputedStyle(t).fontSize));
    if (s.length) fonts[sel] = Math.min(...s);
  }
  return {spans, fonts};
})"""


@pytest.mark.parametrize("name", ["Solvers", "Convex_Hulls", "Guard_Vectors", "DAG_SVM"])
def test_projected_charts_fill_their_plot_area_with_text_read_from_the_back_row(streamlit_url, browser,
                                                                               artifacts_dir, name):
    ctx = browser.new_context(viewport={"width": 1920, "height": 1080})
    page = ctx.new_page()
    try:
        page.goto(f"{streamlit_url}/{name}?lesson=1")
        page.wait_for_selector(".js-plotly-plot .main-svg", timeout=240000)
        wait_for_app(page, 240000)
        page.screenshot(path=str(artifacts_dir / f"slides_{name}_1920x1080.png"))
        charts = page.evaluate(_MEASURE)
    finally:
        ctx.close()
    assert charts and any(c["spans"] for c in charts), charts
    for chart in charts:
        assert all(span >= 0.7 for span in chart["spans"]), chart
        assert all(px >= 20 for px in chart["fonts"].values()), chart

"""Lesson mode as a projector shows it, in headless Chromium at 1280×720 and 1920×1080: on every
method page the picture first, whole, under the step number, no Streamlit chrome; the SVM tree's
explanation folded and the arrow keys stepping; read from the back row at 1920×1080 (every chart's
data fill most of its plot area, equal scale only with the axes shrunk to the data's aspect, and
every tick label, legend entry and axis title is at least 20 px); the SVM tree's legend narrow and
showing the chosen line's entry. Each page and size is opened once for all of its checks (a page
visit costs Chromium about 5 s of CPU). Screenshots go to test-artifacts/."""

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


# page, the text of its step line (None: a page without steps)
PAGES = [("SVM_Tree", "Step 1 of "), ("Convex_Hulls", "Step 1 of "), ("Guard_Vectors", "Step 1 of "),
         ("Tree_Decomposition", "Step 1 of "), ("DAG_SVM", "Step 1 of "), ("Scatter_SVM", "Step 1 of "),
         ("Solvers", "Step 1 of ")]
# the pages whose charts are measured for the back row (at 1920×1080)
SLIDES = ("Solvers", "Convex_Hulls", "Guard_Vectors", "DAG_SVM")

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


def _read_from_the_back_row(page) -> None:
    charts = page.evaluate(_MEASURE)
    assert charts and any(c["spans"] for c in charts), charts
    for chart in charts:
        assert all(span >= 0.7 for span in chart["spans"]), chart
        assert all(px >= 20 for px in chart["fonts"].values()), chart


# The step plot's legend: its box and the chart's, and each entry's box with the widest line its
# symbol draws (the chosen line is the bold one).
_LEGEND = """() => {
  const gd = [...document.querySelectorAll('.js-plotly-plot')].find(g => g.offsetWidth > 0);
  const box = r => ({left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width});
  return {chart: box(gd.getBoundingClientRect()),
          legend: box(gd.querySelector('g.legend rect.bg').getBoundingClientRect()),
          entries: [...gd.querySelectorAll('g.legend g.traces')].map(t => ({
            text: t.textContent, ...box(t.getBoundingClientRect()),
            line: Math.max(0, ...[...t.querySelectorAll('.legendlines path')].map(
              p => parseFloat(getComputedStyle(p).strokeWidth) || 0))}))};
}"""


def _svm_tree_legend_beside_the_plot(page) -> None:
    """The SVM tree's legend takes a fifth of the chart's width at most (at 1280 px it took a
    third) and shows the entry of the step's chosen line (the bold one) inside its box."""
    seen = page.evaluate(_LEGEND)
    chart, legend = seen["chart"], seen["legend"]
    assert legend["width"] <= 0.2 * chart["width"], seen
    chosen = max(seen["entries"], key=lambda e: e["line"])
    assert chosen["line"] >= 4, seen
    assert (legend["left"] - 1 <= chosen["left"] and chosen["right"] <= min(legend["right"], chart["right"]) + 1
            and legend["top"] - 1 <= chosen["top"] and chosen["bottom"] <= legend["bottom"] + 1), seen


def _svm_tree_steps_from_the_keyboard(page, plot, height) -> None:
    """The SVM tree's step line ("... samples in play") above the plot, most of the screen for
    the plot, the full explanation folded under it, and the arrow keys stepping."""
    step = _step_line(page).bounding_box()
    assert _step_line(page).inner_text().startswith("Step 1 of ")
    assert step["y"] + step["height"] <= plot["y"]
    assert plot["height"] >= 0.6 * height
    expander = page.locator('[data-testid="stExpander"]').filter(has_text="Explanation of this step")
    assert expander.count() == 1 and expander.bounding_box()["y"] >= plot["y"] + plot["height"]
    assert not expander.locator('[data-testid="stAlert"]').first.is_visible()
    page.keyboard.press("ArrowRight")
    page.wait_for_function(
        "() => [...document.querySelectorAll('[data-testid=\"stMarkdownContainer\"]')]"
        ".some(e => e.innerText.startsWith('Step 2 of '))", timeout=60000)


@pytest.mark.parametrize("width,height", [(1280, 720), (1920, 1080)])
@pytest.mark.parametrize("name,step", PAGES)
def test_every_method_page_on_the_projector(streamlit_url, browser, artifacts_dir, name, step, width, height):
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
        if name in SLIDES and (width, height) == (1920, 1080):
            _read_from_the_back_row(page)
        if name == "SVM_Tree":   # last: it steps the page
            _svm_tree_legend_beside_the_plot(page)
            _svm_tree_steps_from_the_keyboard(page, plot, height)


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

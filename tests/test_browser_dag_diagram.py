"""The DAG diagram drawn by Plotly in Chromium at the widths it is shown at: about 320 px (the DAG
page's diagram column on a 1280 × 720 laptop with the sidebar open, a phone) and wider, with two to
eight classes. No edge label, node name or node circle may overlap another, with short, long and
HTML-like class names, and every one is drawn inside the chart.
Screenshots go to test-artifacts/."""

from __future__ import annotations

import numpy as np
import pytest

from svmviz.models import DAGSVC, PairwiseVotingSVC
from svmviz.plots.dag import plot_dag_diagram

pytestmark = pytest.mark.browser

NAMES = {
    "signed": ["-1", "1", "2"],
    "long": ["south", "north <b>", "east-west corridor"],
    "iris": ["setosa", "versicolor", "virginica"],
    "four": ["alpha", "beta", "gamma", "delta"],
    "five": ["a", "b", "c", "d", "e"],
    "five-long": ["south", "north <b>", "east-west corridor", "setosa", "versicolor"],
    "six": ["setosa", "versicolor", "virginica", "north", "south", "east-west corridor"],
    "eight": ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"],
    "eight-numbers": [str(k) for k in range(8)],   # a generated data set's classes
}
# (names, chart width in px): the narrow column (a laptop with the sidebar open, a phone) with up to
# eight classes, lesson mode's column (about 480 px) and wider
CASES = [(k, 320) for k in ("signed", "long", "iris", "four", "five", "five-long", "six", "eight", "eight-numbers")] + \
        [(k, 480) for k in ("long", "four", "five", "six", "eight")] + [("five", 900), ("eight", 1280)]

# the boxes Plotly drew: edge labels (annotations), node names (text points), node circles
BOXES_JS = """() => {
  const box = (e) => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  return {
    labels: [...document.querySelectorAll('g.annotation-text-g text')].map(e => [e.textContent, box(e)]),
    names: [...document.querySelectorAll('g.textpoint text')].map(e => [e.textContent, box(e)]),
    circles: [...document.querySelectorAll('g.trace.scatter path.point')].map(e => ['circle', box(e)]),
    chart: box(document.querySelector('#fig .main-svg')),
  };
}"""


def _data(K: int, seed: int = 0):
    """K blobs on a circle, of different sizes (every edge of the DAG taken by some samples)."""
    rng = np.random.default_rng(seed)
    sizes = [30 + 10 * k for k in range(K)]
    centres = [(3 * np.cos(2 * np.pi * k / K), 3 * np.sin(2 * np.pi * k / K)) for k in range(K)]
    X = np.vstack([rng.normal(c, 1.0, (m, 2)) for c, m in zip(centres, sizes)])
    return X, np.repeat(np.arange(K), sizes)


def _overlaps(items, pad: float = 1.0) -> list[tuple[str, str]]:
    """The pairs of (text, box) items whose boxes overlap by more than ``pad`` px each way."""
    out = []
    for a in range(len(items)):
        for b in range(a + 1, len(items)):
            (ta, (l1, t1, r1, b1)), (tb, (l2, t2, r2, b2)) = items[a], items[b]
            if min(r1, r2) - max(l1, l2) > pad and min(b1, b2) - max(t1, t2) > pad:
                out.append((ta, tb))
    return out


@pytest.fixture(scope="module")
def plotly_page(browser):
    """One page holding plotly.js (3.5 MB, loaded once), in which each test draws its figure."""
    from plotly.offline import get_plotlyjs

    page = browser.new_page(viewport={"width": 320, "height": 900})
    page.set_content("<html><body style='margin: 0'><div id='fig'></div></body></html>")
    page.add_script_tag(content=get_plotlyjs())
    yield page
    page.close()


@pytest.mark.parametrize("names, width", CASES, ids=[f"{k}-{w}px" for k, w in CASES])
def test_labels_names_and_circles_of_the_dag_diagram_never_overlap(plotly_page, artifacts_dir, names, width):
    class_names = NAMES[names]
    X, y = _data(len(class_names))
    dag = DAGSVC.from_pairwise(PairwiseVotingSVC(C=10.0).fit(X, y), list(range(len(class_names))))
    fig = plot_dag_diagram(dag, class_names, X=X, highlight=X[0])
    page = plotly_page
    page.set_viewport_size({"width": width, "height": 900})
    page.evaluate("""async ([json, width]) => {
        const fig = JSON.parse(json), div = document.getElementById('fig');
        Plotly.purge(div);
        div.style.width = width + 'px';
        await Plotly.newPlot(div, fig.data, fig.layout, {responsive: false});
    }""", [fig.to_json(), width])
    page.screenshot(path=str(artifacts_dir / f"dag_diagram_{names}_{width}px.png"), full_page=True)
    drawn = page.evaluate(BOXES_JS)
    K = len(class_names)
    assert len(drawn["labels"]) == K * (K - 1) and len(drawn["names"]) == K * (K + 1) // 2
    assert not _overlaps(drawn["labels"] + drawn["names"]), _overlaps(drawn["labels"] + drawn["names"])
    # a label on an edge stays clear of the node circles at either end
    assert not _overlaps(drawn["labels"] + drawn["circles"]), _overlaps(drawn["labels"] + drawn["circles"])
    # node circles stand apart: their outlines (1.5 px, outside these boxes) never touch
    assert not _overlaps(drawn["circles"], pad=-3.0), "node circles touch"
    left, top, right, bottom = drawn["chart"]
    outside = [t for t, (l, tp, r, b) in drawn["labels"] + drawn["names"] + drawn["circles"]
               if l < left - 1 or r > right + 1 or tp < top - 1 or b > bottom + 1]
    assert not outside, f"drawn beyond the chart: {outside}"
    # what is shown is plain text: the HTML-like name as typed, never markup
    if names == "long":
        assert "north <b>" in " ".join(t for t, _ in drawn["labels"] + drawn["names"])

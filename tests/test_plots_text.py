"""User strings in figures: class, feature and data set names holding HTML or Markdown reach
Plotly (legend, axis titles, titles, hover, annotations) and the exported HTML escaped, so they
show as typed and never become a link, an image or markup."""

from __future__ import annotations

import numpy as np
import pytest

from svmviz.data import Dataset
from svmviz.export import figure_bytes
from svmviz.plots.common import Plane, class_label, class_text, shortened, user_text

IMG = "<img src=http://x>"
LINK = "<a href=http://x>a</a>"
BOLD = "<b>b</b>"
MARKDOWN = "[a](http://x) **b**"
PLANTED = (IMG, LINK, BOLD)


def _strings(obj):
    """Every string in a figure's JSON-able dict."""
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for v in obj.values():
            yield from _strings(v)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            yield from _strings(v)


def _check(fig, expect_escaped=(IMG,)):
    texts = list(_strings(fig.to_plotly_json()))
    for raw in PLANTED:
        assert not any(raw in t for t in texts), f"{raw!r} reached the figure unescaped"
    for raw in expect_escaped:
        assert any(user_text(raw) in t for t in texts), f"{raw!r} is missing from the figure"


@pytest.fixture(scope="module")
def hostile():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(c, 0.4, size=(15, 3)) for c in ((0, 0, 0), (3, 0, 0), (0, 3, 0))])
    y = np.repeat([IMG, LINK, MARKDOWN], 15)
    return Dataset(X, y, [IMG, BOLD, MARKDOWN], [], LINK, "upload: " + IMG)


def test_user_text_escapes_once_and_keeps_what_was_typed():
    t = user_text(IMG + "\nline & more")
    assert t == "&lt;img src=http://x&gt; line &amp; more"
    assert user_text(t) is t  # never escaped twice
    assert user_text(MARKDOWN) == MARKDOWN  # Plotly draws Markdown as plain characters
    assert user_text(3) == "3"


def test_data_plot_and_its_html_export(hostile):
    from svmviz.plots.data import plot_dataset

    for method in ("features", "pca"):
        fig = plot_dataset(hostile, (0, 1), method, test=hostile.subset(np.arange(0, 45, 3), check_classes=False))
        _check(fig, (IMG, LINK) if method == "features" else (LINK,))
    html = figure_bytes(plot_dataset(hostile, (0, 1)), "html").decode()
    for raw in PLANTED:  # Plotly writes "/" as \u002f inside the page's script
        assert raw not in html and raw.replace("/", "\\u002f") not in html
    assert "&lt;img src=http:\\u002f\\u002fx&gt;" in html


def test_method_plots_escape_class_and_feature_names(hostile):
    from svmviz.models import DAGSVC, PairwiseVotingSVC, ScatterSVC
    from svmviz.plots import dag as D
    from svmviz.plots.scatter import plot_prototypes, plot_sensitivity_bars
    from svmviz.plots.standard import confusion_figure

    X, y, names = hostile.X, hostile.y, hostile.class_names
    plane = Plane(X, (0, 1), "features", hostile.feature_names)
    assert plane.labels[0].startswith(user_text(IMG))
    pw = PairwiseVotingSVC(kernel="linear").fit(X, y)
    for fig in (D.plot_voting_regions(pw, X, y, names, plane, resolution=30),
                D.plot_pairwise_boundaries(pw, X, y, names, plane, resolution=30),
                D.plot_pairwise_grid(pw, X, y, names, plane, resolution=20)):
        _check(fig, (IMG, LINK))
    dag = DAGSVC(kernel="linear").fit(X, y)
    _check(D.plot_dag_diagram(dag, names, X), (IMG, LINK))
    _check(D.plot_dag_regions(dag, X, y, names, plane, resolution=30), (IMG, LINK))
    sc = ScatterSVC(kernel="linear").fit(X, y)
    _check(plot_prototypes(sc, X, y, names, hostile.feature_names, resolution=30), (IMG, LINK))
    _check(plot_sensitivity_bars(np.ones((4, 3)), hostile.feature_names, names), (IMG,))
    _check(confusion_figure(y, y, np.unique(y), names), (IMG, LINK))


def test_binary_plots_escape_names():
    from svmviz.geometry import convex_hull
    from svmviz.plots.hulls import plot_hulls
    from svmviz.plots.solvers import plot_alpha_bars

    rng = np.random.default_rng(1)
    X = np.vstack([rng.normal(0, 1, (10, 2)), rng.normal(4, 1, (10, 2))])
    y = np.repeat([-1, 1], 10)
    hulls = {c: convex_hull(X[y == c]).polygon(X[y == c]) for c in (-1, 1)}
    fig = plot_hulls(X, y, hulls, hulls, 1.0, names=[IMG, LINK], labels=(BOLD, IMG))
    _check(fig, (IMG, LINK, BOLD))
    _check(plot_alpha_bars(np.ones(20), y, 1.0, names=[IMG, LINK]), (IMG, LINK))


def test_a_cut_name_is_cut_as_typed_and_escaped_once():
    assert shortened(BOLD, 5) == "&lt;b&gt;b…"          # shown "<b>b…": an entity is never cut in half
    assert shortened("a&b&c", 4) == "a&amp;b…"
    assert shortened("east-west corridor", 10) == "east-west…"
    assert shortened("south", 10) == "south" and shortened(user_text(IMG), 100) == user_text(IMG)
    assert shortened(user_text("north <b>"), 6) == "north…"


def test_a_binary_class_label_is_escaped_once_wherever_it_is_passed_on():
    # the figures pass legend names through class_text again (add_class_scatter)
    assert class_text(class_label("a&b", -1)) == "a&amp;b (as −1)"
    assert class_text(class_label(BOLD, 1)) == "&lt;b&gt;b&lt;/b&gt; (as +1)"
    assert class_label("−1", -1) == "class −1" and class_label("+1", 1) == "class +1"


def test_a_message_figure_shows_each_line_as_written():
    from svmviz.plots.common import message_figure

    fig = message_figure(IMG, f"{LINK} and {BOLD}")
    _check(fig, expect_escaped=(IMG, LINK, BOLD))
    assert fig.layout.annotations[0].text == f"{user_text(IMG)}<br>{user_text(LINK)} and {user_text(BOLD)}"

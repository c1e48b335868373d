"""User strings reach the screen as plain text: Markdown and HTML planted in every source a user
controls (link values, file and data-set names, CSV headers, class and feature names, text typed
into a page) are shown as typed by every Streamlit element that renders Markdown, never as a
link, an image or bold text."""

from __future__ import annotations

import re

import numpy as np
import pytest

from apphelpers import page_test, problems
from svmviz.data import Dataset

BOLD, LINK = "**b**", "[x](http://evil.example/)"
IMG, MD_IMG = "<img src=http://evil.example/a.png>", "![i](http://evil.example/i.png)"
HOSTILE = f"{BOLD} {LINK} {IMG} {MD_IMG}"


def _hostile_dataset(n_classes: int = 2, n: int = 60) -> Dataset:
    rng = np.random.default_rng(0)
    y = np.arange(n) % n_classes
    X = rng.normal(size=(n, 2)) + 3 * np.c_[np.cos(y), np.sin(y)]
    return Dataset(X, y, feature_names=[f"f1 {HOSTILE}", f"f2 {LINK}"],
                   class_names=[f"c{k} {HOSTILE}" for k in range(n_classes)],
                   name=f"set {HOSTILE}", source=f"upload: {HOSTILE}.csv")


def _rendered(at) -> list[str]:
    """Every string the page hands to an element that renders Markdown."""
    out = []
    for kind in ("markdown", "caption", "info", "warning", "error", "success", "title", "header",
                 "subheader"):
        out += [e.value for e in at.get(kind)]
    for r in at.radio:
        out += [r.label, *map(str, r.options)]
    out += [b.label for b in at.button] + [m.label for m in at.metric]
    out += [e.label for e in at.get("expander")] + [t.label for t in at.get("tab")]
    return [str(s) for s in out if s]


def _live(texts: list[str]) -> list[str]:
    """Texts holding a planted fragment verbatim: escaped it always carries a backslash (a bare
    ``http://`` too, which GitHub-flavoured Markdown would make a link)."""
    return [t for t in texts if any(f in t for f in (BOLD, LINK, IMG, MD_IMG, "](http", "://evil"))]


def _as_read(text: str) -> str:
    """What the reader sees of escaped Markdown."""
    return re.sub(r"\\(.)", r"\1", text)


def _shows_it(texts: list[str]) -> bool:
    return any("evil.example" in _as_read(t) for t in texts)


@pytest.mark.parametrize("page", ["pages/1_Data.py", "pages/3_Convex_Hulls.py", "home.py"])
def test_names_of_data_classes_features_and_files_render_as_text(page):
    at = page_test(page, dataset=_hostile_dataset()).run()
    assert not problems(at)
    texts = _rendered(at)
    assert _shows_it(texts)          # the names are on the page, escaped
    assert not _live(texts), _live(texts)


def test_link_values_quoted_in_notes_render_as_text():
    at = page_test("pages/1_Data.py")
    at.query_params.update({"data": f"gen:{HOSTILE}", "split.norm": HOSTILE, "split.seed": HOSTILE})
    at.run()
    assert not problems(at)
    texts = _rendered(at)
    assert sum("evil.example" in _as_read(t) for t in texts) >= 3, texts
    assert not _live(texts), _live(texts)


def test_an_error_box_quoting_typed_text_renders_it_as_text():
    # the DAG page takes a typed class list above five classes and quotes unknown names back
    at = page_test("pages/6_DAG_SVM.py", dataset=_hostile_dataset(6, 72),
                   **{"split.test": 0.0, "dag.order_txt": HOSTILE, "dag.tab": 2})   # the DAG's tab
    at.run()
    assert not problems(at)
    errors = [e.value for e in at.error]
    assert _shows_it(errors), errors
    assert not _live(_rendered(at)), _live(_rendered(at))

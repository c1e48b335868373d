"""What a user reads names each paper by its authors and year: no page calls a paper "seed" with
a number, or "the seed" (students read it as a random seed), in text, captions, help, option labels, explanations
or figure titles. And the home page shows each page's line in full, not cut off in a link; an
interval the Data page names is written with the minus sign, as the plots write it."""

from __future__ import annotations

import re

import numpy as np
import pytest

from apphelpers import page_test, problems
from svmviz.data import Dataset
from svmviz_app.navigation import PAGES

PAGE_FILES = ["home.py"] + [f"pages/{fname}" for fname, _, _ in PAGES]
SEED_WORDING = re.compile(r"\bseed\s+00\d|\bthe seed\b|\bseed's\b|\bseed\s+§|options: \"seed\"", re.IGNORECASE)


def _data(n_classes: int) -> Dataset:
    rng = np.random.default_rng(3)
    centers = np.array([[-1.0, -1.0], [1.0, 1.0], [1.0, -1.0]])[:n_classes]
    X = np.vstack([c + rng.normal(0, 0.5, (30, 2)) for c in centers])
    y = np.repeat(np.arange(n_classes) * 2 - 1 if n_classes == 2 else np.arange(n_classes), 30)
    return Dataset(X, y, ["x1", "x2"], [str(c) for c in np.unique(y)], f"blobs{n_classes}", "test")


def _all_text(node) -> list[str]:
    """The protobuf text of every element under ``node``: its labels, values, help, options and,
    for a chart, the figure's JSON (titles, legend names, annotations)."""
    out = []
    proto = getattr(node, "proto", None)
    if proto is not None:
        out.append(str(proto).encode().decode("unicode_escape", errors="ignore"))
    for child in getattr(node, "children", {}).values():
        out += _all_text(child)
    return out


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("page", PAGE_FILES)
def test_no_page_calls_a_paper_the_seed(page, n_classes):
    at = page_test(page, _data(n_classes)).run()
    assert not problems(at)
    found = sorted({m.group(0) for text in _all_text(at._tree) for m in SEED_WORDING.finditer(text)})
    assert not found, found


def test_home_page_shows_every_page_line_in_full():
    at = page_test("home.py").run()
    captions = [c.value for c in at.caption]
    for _, title, line in PAGES:
        assert line in captions, title
    # the link itself is the title only: one line that is never cut off
    assert all(len(link.value) <= 40 for link in at.get("page_link"))


def test_the_normalization_interval_is_written_with_the_minus_sign():
    at = page_test("pages/1_Data.py", _data(2)).run()
    box = at.selectbox(key="split.norm")
    assert "Min-Max to [−1, 1]" in box.options and not any("[-1" in o for o in box.options)
    box.set_value("minmax").run()
    assert not problems(at)
    assert any("Min-Max to [−1, 1]" in c.value for c in at.caption)

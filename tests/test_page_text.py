"""What a class reads on the pages, the small things a room notices: where the data come from
without the server's path, a generator's Python name or a seed nobody chose; class −1 written with
the minus sign wherever "−1" stands beside it; counts in the singular for one."""

from __future__ import annotations

import re

import numpy as np

from apphelpers import page_test, problems
from svmviz.data import Dataset

_HYPHEN_NUMBER = re.compile(r"(?<![\w.\-/=:^\\])(?:\\)?-\d")


def _texts(at) -> list[str]:
    """Every text the run shows: Markdown, captions, alerts, tables (headers and text cells; a
    column of numbers is the grid's to format) and the options of its select boxes."""
    out = [str(el.value) for kind in ("markdown", "caption", "info", "warning", "success", "error")
           for el in getattr(at, kind)]
    out += [" ".join(map(str, df.value.columns)) + " " + " ".join(
        df.value.select_dtypes(exclude=["number", "bool"]).astype(str).to_numpy().ravel()) for df in at.dataframe]
    out += [" ".join(map(str, box.options)) for box in at.selectbox]
    return out


def _minus_one_data(source: str) -> Dataset:
    rng = np.random.default_rng(2)
    X = np.vstack([rng.normal(-1, 0.3, (12, 2)), rng.normal(1, 0.3, (12, 2))])
    return Dataset(X, np.repeat([-1, 1], 12), ["x1", "x2"], name="two blobs", source=source)


def test_the_home_page_says_where_the_data_come_from_as_the_sidebar_does():
    for source, shown in (("/srv/svmviz/data/fourclass_scale", "fourclass\\_scale"),
                          ("generated: mexican_hat(n=600, seed=0)", "generated: mexican hat, 600 points")):
        at = page_test("home.py", dataset=_minus_one_data(source)).run()
        assert not problems(at)
        text = " ".join(_texts(at))
        assert f"Source: {shown}." in text, text
        assert "/srv" not in text and "mexican\\_hat" not in text and "seed" not in text, text
        assert "24 samples × 2 features; classes −1: 12, 1: 12" in text, text


def test_the_split_is_described_without_the_default_seed():
    from svmviz_app.state import SplitSettings

    assert SplitSettings().describe() == "stratified 70%/30% split, not normalized"
    assert SplitSettings(seed=7).describe() == "stratified 70%/30% split (split seed 7), not normalized"


def _bounded_page():
    import numpy as np

    from svmviz.data import Dataset
    from svmviz_app.widgets import bounded

    bounded(Dataset(np.random.default_rng(0).random((50, 2)), np.repeat([0, 1], 25), ["a", "b"]), 10, "This page")


def test_a_page_announces_its_sample_of_the_data_without_its_seed():
    """(The note on a figure drawing a sample of over 50,000 points keeps its seed: it says the
    picture is the same every time.)"""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_bounded_page).run()
    assert not problems(at) and "10 of the 50" in at.info[0].value and "seed" not in at.info[0].value


def test_class_minus_one_is_written_with_the_minus_sign_on_the_data_and_guard_vector_pages():
    """The Data page's legend said "−1" beside "-1 (test)" and its table "-1"; Guard Vectors'
    point picker and table "class -1" beside figures saying "class −1"."""
    data = _minus_one_data("upload: blobs.csv")
    for page in ("pages/1_Data.py", "pages/4_Guard_Vectors.py"):
        at = page_test(page, dataset=data).run()
        assert not problems(at)
        texts = _texts(at)
        assert any("−1" in t for t in texts) and not any(_HYPHEN_NUMBER.search(t) for t in texts), (
            page, [t for t in texts if _HYPHEN_NUMBER.search(t)])
        if page == "pages/1_Data.py":
            import json

            names = [t.get("name", "") for t in json.loads(at.get("plotly_chart")[0].proto.spec)["data"]]
            assert "−1 (test)" in names and not any(_HYPHEN_NUMBER.search(n) for n in names), names


def test_the_guard_vector_explanation_writes_negative_slopes_with_the_minus_sign():
    from svmviz.models.guard import dual_view

    rng = np.random.default_rng(5)
    X = np.vstack([rng.normal(-1, 0.6, (15, 2)), rng.normal(1, 0.6, (15, 2))])
    y = np.repeat([-1, 1], 15)
    texts = [dual_view(X, y, i).explanation for i in range(len(X))]
    assert any("slope" in t and "−" in t for t in texts)
    assert not any(_HYPHEN_NUMBER.search(t) for t in texts), [t for t in texts if _HYPHEN_NUMBER.search(t)]


def test_the_svm_tree_explanation_writes_an_infinite_threshold_as_infinity():
    """"w ≠ 0 only for C_k between 0.01 and D_k* = inf" (the other centroid outside every reduced
    hull of the hard class): "∞", as the zero-solution table and text beside it say."""
    from svmviz.models._svm_tree_explain import _g

    assert _g(np.inf) == "∞" and _g(-0.5) == "−0.5" and _g(1234.5) == "1.23e+03"

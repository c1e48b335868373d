"""The Tree decomposition page: AppTest runs (the validation part carved out of the Data page's
training part, the σ slider walking the same tree, the purity_tol control) and a headless Chromium
screenshot (test-artifacts/tree_decomposition_page.png)."""

from __future__ import annotations

import json
import re

import pytest

from apphelpers import page_test, problems

from svmviz.data import split_and_normalize
from svmviz.data.generators import shuttle_like
from svmviz.models import TreeDecompositionSVC, _td_tree
from svmviz.models import tree_decomposition as td_module

PAGE = "pages/5_Tree_Decomposition.py"
PARTITION, SEARCH, GLOBAL, STANDARD = range(4)   # the tabs' positions, as links hold them (td.tab)


def _ok(at):
    assert not problems(at) and not at.error, (problems(at), [e.value for e in at.error])


def _summary(at) -> str:
    """The lines beside the σ slider saying what the tree holds at that σ."""
    return next(m.value for m in at.markdown if m.value.startswith("leaves: "))


def _metric(at, label):
    """One value of the summary beside the σ slider ("leaves: **4** · ...")."""
    return re.search(rf"(?:^|· |\n){re.escape(label)}: \*\*(.+?)\*\*", _summary(at)).group(1)


def test_page_uses_the_data_pages_training_part_and_reads_one_tree(monkeypatch):
    calls = []
    grow = _td_tree.grow_tree
    monkeypatch.setattr(_td_tree, "grow_tree", lambda *a, **k: calls.append(a[3]) or grow(*a, **k))
    ds = shuttle_like(2400, strip=0.25, noise=0.01)   # 1 % of the labels flipped: no leaf exactly one class
    at = page_test(PAGE, dataset=ds, **{"td.min_gain": 0.0, "td.tab": SEARCH})
    at.run()
    _ok(at)
    train, test = split_and_normalize(ds, "none", 0.3, 0, True)  # the Data page's default split
    n_val = round(0.2 * train.n_samples)
    said = next(c.value for c in at.caption if c.value.startswith("TD trains on"))
    assert f"TD trains on {train.n_samples - n_val} samples" in said and f"other {n_val}" in said
    assert f"({test.n_samples} samples)" in said
    assert calls and len(calls) == 1
    slider = at.select_slider(key="td.sigma")
    levels = list(slider.options)
    assert len(levels) >= 2
    rows_opt = len(at.dataframe[0].value)
    assert int(_metric(at, "leaves")) == rows_opt
    # Walk to σ₀: more (or as many) leaves, read from the tree grown once — no new fit.
    slider.set_value(levels[0]).run()
    _ok(at)
    assert len(calls) == 1
    assert int(_metric(at, "leaves")) == len(at.dataframe[0].value) >= rows_opt
    assert any("Bound terms" in m.value for m in at.markdown)


def _charts(at) -> list[str]:
    """The titles of the page's Plotly charts, in order (a chart without a title: "")."""
    titles = []
    for chart in at.get("plotly_chart"):
        title = json.loads(chart.proto.spec)["layout"].get("title", {})
        titles.append(title.get("text", "") if isinstance(title, dict) else str(title))
    return titles


def test_a_first_visit_draws_the_partition_and_computes_only_the_fit(monkeypatch):
    """The first screen is the partition alone: the search path, the leaf table, the global SVM
    (its search over the grid and the bound terms' one at θ_opt) and the standard views each wait
    in a tab that computes and draws only when opened (a browser drawing six charts and a table
    took twice the other pages' time to show the first plot)."""
    searched, bounded = [], []
    search = td_module.global_svm_search
    monkeypatch.setattr(td_module, "global_svm_search", lambda *a, **k: searched.append(1) or search(*a, **k))
    terms = TreeDecompositionSVC.bound_terms
    monkeypatch.setattr(TreeDecompositionSVC, "bound_terms", lambda *a, **k: bounded.append(1) or terms(*a, **k))
    at = page_test(PAGE, dataset=shuttle_like(600, strip=0.25, noise=0.01)).run()
    _ok(at)
    assert [t.split(":")[0] for t in _charts(at)] == [f"σ = {at.select_slider(key='td.sigma').value}"]
    assert not at.dataframe and not searched and not bounded
    assert [t.label for t in at.tabs] == ["Partition", "Search path and leaves", "TD against one global SVM",
                                          "Decision function, confusion matrix and ROC", "Step by step"]
    at.session_state["td.tab"] = SEARCH
    at.run()
    _ok(at)
    assert _charts(at) == ["Ceiling-size search (§2.2)"] and len(at.dataframe) == 1 and bounded and not searched
    at.session_state["td.tab"] = GLOBAL
    at.run()
    _ok(at)
    assert len(_charts(at)) == 1 and searched
    at.session_state["td.tab"] = STANDARD
    at.run()
    _ok(at)
    assert _charts(at)[0] == "Decision function f(x) on the training part"


def test_the_tree_at_sigma_is_summed_up_beside_the_slider():
    """What the tree holds at σ sits in the slider's row as a few lines of text (a row of six
    metrics under the slider pushed the partition below a 1280 × 720 screen), θ written whole."""
    at = page_test(PAGE, dataset=shuttle_like(600, strip=0.25, noise=0.01)).run()
    _ok(at)
    assert not at.metric
    summary = _summary(at)
    for label in ("leaves", "leaves with an SVM", "validation accuracy", "converged"):
        assert _metric(at, label)
    assert re.search(r"θ at this σ: C = \*\*[0-9.e+-]+\*\*, γ = \*\*[0-9.e+-]+\*\*", summary), summary


def test_purity_tol_control_labels_noisy_leaves_by_majority():
    ds = shuttle_like(2400, strip=0.25, noise=0.01)   # 1 % of the labels flipped: no leaf exactly one class
    at = page_test(PAGE, dataset=ds, **{"td.stages": "1 (σ₀ only)", "td.compare": False, "td.tab": SEARCH})
    at.run()
    _ok(at)
    svms_paper = int(_metric(at, "leaves with an SVM"))
    assert not any(str(v).endswith("(majority)") for v in at.dataframe[0].value["label / SVM"])
    at.selectbox(key="td.purity").set_value("validation").run()
    _ok(at)
    assert int(_metric(at, "leaves with an SVM")) < svms_paper
    assert any(str(v).endswith("(majority)") for v in at.dataframe[0].value["label / SVM"])
    result = next(m.value for m in at.markdown if "θ_opt" in m.value)
    assert "ε = **0.0" in result or "ε = **0.1" in result


@pytest.mark.browser
def test_page_in_chromium(streamlit_url, page, artifacts_dir, fourclass):
    from conftest import wait_for_app

    page.set_viewport_size({"width": 1400, "height": 4200})  # the whole page without scrolling
    page.goto(f"{streamlit_url}/Tree_Decomposition")
    wait_for_app(page, timeout_ms=240000)
    page.wait_for_selector(".js-plotly-plot", timeout=120000)
    page.wait_for_timeout(3000)  # let the partition draw
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.locator(".js-plotly-plot").count() == 1   # the partition; the other views wait in their tabs
    page.screenshot(path=str(artifacts_dir / "tree_decomposition_page.png"), full_page=True)
    # Walk the σ slider down to σ₀ with the keyboard: the homogeneous leaves appear, filled.
    thumb = page.locator('[data-testid="stSlider"]').filter(has_text="ceiling size").get_by_role("slider")
    thumb.focus()
    thumb.press("Home")
    wait_for_app(page, timeout_ms=120000)
    page.get_by_text("homogeneous", exact=False).first.wait_for(timeout=60000)
    page.wait_for_timeout(3000)
    title = page.locator(".js-plotly-plot .gtitle").first.text_content()
    assert title.startswith("σ = ")
    page.screenshot(path=str(artifacts_dir / "tree_decomposition_sigma0.png"), full_page=True)
    # each tab draws its views when opened: the search path with the leaves at the σ chosen above
    page.get_by_role("tab", name="Search path and leaves").click()
    page.get_by_text("Search path").first.wait_for(timeout=60000)
    wait_for_app(page, timeout_ms=120000)
    page.locator('[data-testid="stDataFrame"]').first.wait_for(timeout=60000)
    assert page.get_by_text("Leaves at σ = ").count() == 1
    assert page.locator(".js-plotly-plot .gtitle").first.text_content().startswith("Ceiling-size search")
    page.get_by_role("tab", name="TD against one global SVM").click()
    page.get_by_text("TD against one global SVM on the same training part").wait_for(timeout=120000)
    wait_for_app(page, timeout_ms=240000)
    page.wait_for_selector(".js-plotly-plot", timeout=120000)
    assert page.locator('[data-testid="stException"]').count() == 0

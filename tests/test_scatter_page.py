"""The Scatter SVM page (pages/7_Scatter_SVM.py): AppTest and a look in headless Chromium."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from svmviz.data import load_builtin

PAGE = str(Path(__file__).resolve().parents[1] / "pages" / "7_Scatter_SVM.py")


def _captions(at):
    return [c.value for c in at.caption]


def test_page_runs_every_tab_and_reacts_to_widgets():
    at = AppTest.from_file(PAGE, default_timeout=240)
    at.session_state["svmviz_dataset"] = load_builtin("checkerboard")
    at.run()
    assert not at.exception and not at.error
    assert at.selectbox(key="sc_data").value.startswith("current: checkerboard")
    assert len(at.tabs) == 3
    # tab 1: the multi-class prototype view
    metrics = {m.label: m.value for m in at.metric}
    assert float(metrics["Training accuracy"].rstrip(" %")) > 70
    assert int(metrics["Support vectors"].split("/")[0]) > 0
    # tab 2: the binary ν-SVM on the generated pair, then on two classes of the page's data
    assert any(c.startswith("μ = 1/m_smallest") for c in _captions(at))
    mu = next(s for s in at.select_slider if s.label.startswith("μ"))
    mu.set_value(1.0).run()  # μ = 1: the whole convex hulls
    assert not at.exception and not at.error
    # tab 3: the 5-D sensitivity set by default, then the digits maps as images
    acc = next(c for c in _captions(at) if c.startswith("Accuracy on a fresh test set"))
    assert float(acc.split(":")[1].split("%")[0]) >= 95
    at.radio(key="sc_sens_data").set_value("digits 0, 1, 8 (8×8 images, in place of USPS)").run()
    assert not at.exception and not at.error
    assert any("images, training accuracy" in c for c in _captions(at))
    # switching the formulation refits the first tab with the ν-form
    at.radio(key="sc_form").set_value("ν-form (eq. 6/8, scatter)").run()
    assert not at.exception and not at.error
    assert any(c.startswith("Squares:") for c in _captions(at))


def test_overlapping_hulls_warn_and_bad_input_is_explained():
    at = AppTest.from_file(PAGE, default_timeout=240)
    at.session_state["svmviz_dataset"] = load_builtin("fourclass_like")
    at.run()
    assert not at.exception and not at.error
    # fourclass-like: one class wraps the other, so the reduced hulls overlap and w = 0
    at.radio(key="sc_bin_src").set_value(at.radio(key="sc_bin_src").options[1]).run()
    assert not at.exception
    assert any("w ≈ 0" in w.value for w in at.warning)
    at.text_input(key="sc_gamma").set_value("wide").run()
    assert any("gamma must be" in e.value for e in at.error)  # explained, no traceback
    assert not at.exception


def test_page_in_chromium(streamlit_url, page, artifacts_dir):
    from conftest import wait_for_app

    page.set_viewport_size({"width": 1400, "height": 2000})
    page.goto(f"{streamlit_url}/Scatter_SVM")
    # the first script run compiles and fits: wait for its first chart and metric, then for the end
    page.wait_for_selector(".js-plotly-plot", timeout=240000)
    page.get_by_text("Training accuracy").first.wait_for(timeout=240000)
    wait_for_app(page, timeout_ms=240000)
    page.wait_for_timeout(2000)
    assert page.locator('[data-testid="stException"]').count() == 0
    page.screenshot(path=str(artifacts_dir / "scatter_prototypes.png"), full_page=False)
    page.get_by_role("tab", name="Binary ν-SVM (Fig. 1–2)").click()
    page.wait_for_timeout(1500)
    page.screenshot(path=str(artifacts_dir / "scatter_binary.png"), full_page=False)
    page.get_by_role("tab", name="Sensitivity maps (Fig. 16–24)").click()
    page.wait_for_timeout(1500)
    page.screenshot(path=str(artifacts_dir / "scatter_sensitivity.png"), full_page=False)
    assert page.locator(".js-plotly-plot").count() >= 3
    assert page.locator('[data-testid="stException"]').count() == 0

"""The Solvers page (pages/8_Solvers.py): AppTest and a look in headless Chromium."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from streamlit.testing.v1 import AppTest

from svmviz.data import load_builtin

PAGE = str(Path(__file__).resolve().parents[1] / "pages" / "8_Solvers.py")


def _table(at):
    return at.dataframe[0].value


def test_page_compares_three_solvers_that_agree():
    at = AppTest.from_file(PAGE, default_timeout=240)
    at.run()
    assert not at.exception and not at.error
    df = _table(at)
    assert list(df["solver"]) == ["SMO (Numba)", "LIBSVM (sklearn SVC)", "cvxpy reference (Clarabel)"]
    obj = df["objective ½αᵀQα − Σα"].to_numpy()
    assert np.max(np.abs(obj - obj[2])) <= 1e-3 * abs(obj[2])   # all three reach the optimum
    # boundaries, convergence curve and α against α, each with its export buttons, and the model
    labels = [d.proto.label for d in at.get("download_button")]
    assert labels.count("Download HTML") == 3 and "Download model (JSON)" in labels
    at.selectbox(key="sol_kernel").set_value("linear").run()
    assert not at.exception and not at.error
    df = _table(at)
    obj = df["objective ½αᵀQα − Σα"].to_numpy()
    assert np.max(np.abs(obj - obj[2])) <= 1e-3 * abs(obj[2])


def test_multiclass_data_picks_two_classes_and_bad_input_is_explained():
    at = AppTest.from_file(PAGE, default_timeout=240)
    at.session_state["svmviz_dataset"] = load_builtin("iris")
    at.run()
    assert not at.exception and not at.error
    assert any("3 classes" in i.value for i in at.info)
    at.selectbox(key="sol_class_b").set_value(at.selectbox(key="sol_class_b").options[2]).run()
    assert not at.exception and not at.error
    at.selectbox(key="sol_class_b").set_value(at.selectbox(key="sol_class_a").value).run()
    assert any("two different classes" in e.value for e in at.error)
    at.selectbox(key="sol_class_b").set_value(at.selectbox(key="sol_class_b").options[1])
    at.text_input(key="sol_gamma").set_value("wide").run()
    assert any("gamma must be" in e.value for e in at.error)
    assert not at.exception


def test_page_in_chromium(streamlit_url, page, artifacts_dir):
    from conftest import wait_for_app

    page.set_viewport_size({"width": 1400, "height": 1700})
    page.goto(f"{streamlit_url}/Solvers")
    page.wait_for_selector(".js-plotly-plot", timeout=240000)
    wait_for_app(page, timeout_ms=240000)
    page.wait_for_timeout(2000)
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.locator(".js-plotly-plot").count() == 3
    page.screenshot(path=str(artifacts_dir / "solvers_page.png"), full_page=True)

"""The Convex Hulls and Guard Vectors pages: AppTest runs them and moves their widgets (the Guard
Vectors page on overlapping classes shows why there are no guard vectors and offers a separable
example); a headless Chromium renders them (screenshots in test-artifacts/)."""

import re
import time
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from apphelpers import page_test, problems
from svmviz_app.widgets import import_open_key
from svmviz.data import Dataset

from tests.conftest import wait_for_app

PAGES = Path(__file__).resolve().parents[1] / "pages"


def _metrics(at):
    return {m.label: m.value for m in at.metric}


ZERO_TAB = "2. The zero solution of the C-SVM"   # the page's tabs compute only while open
ZERO = 1   # its position, as the link holds it (hull.tab)


def test_convex_hulls_page(fourclass):
    at = AppTest.from_file(str(PAGES / "3_Convex_Hulls.py"), default_timeout=240).run()
    assert not at.exception and not at.error
    met = _metrics(at)
    # the ν-SVM from the nearest points and scikit-learn's NuSVC coincide
    assert float(met["cosine(w nearest points, w NuSVC)"]) >= 0.9999
    assert float(met["offset difference |b − b_NuSVC| (same scale)"]) < 1e-4
    # a small ν: fourclass's reduced hulls overlap, and the page says so instead of drawing
    at.slider(key="hull.nu").set_value(0.3).run()
    assert not at.exception and any("overlap" in w.value for w in at.warning)
    # D_k above the predicted switch: the solver's w is zero, as predicted
    at.session_state["hull.tab"] = ZERO
    at.run()
    dk = at.select_slider(key="zero.D_k")
    dk.set_value(dk.options[-1]).run()
    met = _metrics(at)
    assert met["prediction"] == "w = 0" and float(met["solver's ‖w‖"]) < 1e-5
    dk = at.select_slider(key="zero.D_k")
    dk.set_value(dk.options[0]).run()
    met = _metrics(at)
    assert met["prediction"] == "w ≠ 0" and float(met["solver's ‖w‖"]) > 1e-2
    at.radio(key="zero.hard").set_value(-1).run()
    assert not at.exception and not at.error
    assert len(at.get("plotly_chart")) == 2   # the zero-solution picture and the ‖w‖ curve


def _rendered(page, url: str, shot: Path) -> None:
    """``url`` drawn in a tall window (Streamlit scrolls inside the app), with no exception; a
    full-page screenshot to ``shot``."""
    page.set_viewport_size({"width": 1400, "height": 3400})
    page.goto(url)
    wait_for_app(page, 240000)
    page.wait_for_selector(".js-plotly-plot", timeout=120000)
    wait_for_app(page, 120000)
    assert page.locator('[data-testid="stException"]').count() == 0
    page.screenshot(path=str(shot), full_page=True)


@pytest.mark.browser
def test_convex_hulls_renders_in_chromium_with_its_zero_solution_tab(streamlit_url, page, artifacts_dir):
    """Convex Hulls draws one picture in its first tab and the zero solution's two once that tab opens."""
    _rendered(page, f"{streamlit_url}/Convex_Hulls", artifacts_dir / "hulls_page.png")
    page.get_by_role("tab", name=ZERO_TAB).click()   # computed once it opens
    page.wait_for_selector("text=Predicted switch", timeout=240000)
    wait_for_app(page, 240000)
    assert page.locator('[data-testid="stException"]').count() == 0
    page.screenshot(path=str(artifacts_dir / "hulls_page_zero.png"), full_page=True)
    assert page.locator(".js-plotly-plot:visible").count() >= 2


@pytest.mark.browser
def test_guard_vectors_renders_in_chromium_and_a_click_on_a_point_selects_it(streamlit_url, page, artifacts_dir):
    """The guard-vector page (on the hypercubes: it needs separable data; its page tests are in
    test_guard.py) draws its pictures; Plotly click selection (st.plotly_chart on_select) chooses
    the point of the dual picture. One visit for both (a page visit costs Chromium about 5 s of CPU)."""
    _rendered(page, f"{streamlit_url}/Guard_Vectors?data=hypercubes", artifacts_dir / "guard_page.png")
    assert page.locator(".js-plotly-plot:visible").count() >= 2
    # the dual picture's verdict ("Point i is a guard vector"), not the stepper's explanation above it
    verdict = page.locator('[data-testid="stAlert"]').filter(has_text=re.compile(r"^Point \d+ is")).first
    before = verdict.inner_text()
    # the second trace holds the +1 class; the default point is a −1 guard vector
    chart = page.locator(".st-key-guard_chart .js-plotly-plot").first   # the point picker (the stepper's plot is above)
    chart.locator(".scatterlayer .trace").nth(1).locator(".points path").first.click(force=True)
    deadline = time.monotonic() + 120   # the click's selection reaches the server: the verdict changes
    while verdict.inner_text() == before and time.monotonic() < deadline:
        page.wait_for_timeout(100)
    wait_for_app(page, 120000)
    after = verdict.inner_text()
    assert after != before and after.startswith("Point ")


def test_convex_hulls_page_shows_an_imported_nu_svm():
    from apphelpers import page_test, problems
    from svmviz.data import load_builtin
    from svmviz.export import dumps_model
    from svmviz.models import BinaryNuSVC, BinarySVC

    ds = load_builtin("hypercubes")
    at = page_test("pages/3_Convex_Hulls.py", dataset=ds, spec="hypercubes", **{import_open_key("hull"): True}).run()
    wrong = BinarySVC(kernel="linear").fit(ds.X, ds.y)
    at.file_uploader(key="hull_upload").set_value(("svc.json", dumps_model(wrong).encode(), "application/json")).run()
    assert not problems(at) and "BinarySVC" in at.error[0].value   # wrong estimator: said, nothing changes
    good = BinaryNuSVC(nu=0.3, kernel="linear").fit(ds.X, ds.y)
    at.file_uploader(key="hull_upload").set_value(("nu.json", dumps_model(good).encode(), "application/json")).run()
    assert not problems(at) and not at.error
    assert any("imported BinaryNuSVC" in c.value for c in at.caption)


def _overlapping() -> Dataset:
    rng = np.random.default_rng(5)
    X = np.vstack([rng.normal(-0.3, 0.6, (40, 2)), rng.normal(0.3, 0.6, (40, 2))])
    return Dataset(X, np.repeat([-1, 1], 40), ["x1", "x2"], ["-1", "1"], "overlap", "test")


def test_overlapping_classes_get_a_picture_and_a_separable_example():
    at = page_test("pages/4_Guard_Vectors.py", _overlapping(), **{"guard.src": "current data set"}).run()
    assert not problems(at)
    charts = [c for c in at.get("plotly_chart") if "convex hulls of the two classes overlap" in c.proto.spec]
    assert len(charts) == 1
    at.button(key="guard_use_cubes").click().run()
    assert not problems(at)
    assert at.session_state["guard.src"] == "cubes50"
    metrics = {m.label: m.value for m in at.metric}
    assert int(metrics["guard vectors g"]) > 0


def test_a_second_session_on_the_same_view_computes_no_geometry_and_no_figure(monkeypatch):
    # a class opening one link: the first session computes the hulls, the C-SVM's w, the H1 point
    # and the three figures; every later session takes them from the shared cache
    import numpy as np

    import svmviz.geometry as geometry
    import svmviz.geometry.zero_solution as zero_solution
    import svmviz.plots.hulls as hull_plots
    from apphelpers import page_test, problems
    from svmviz.data import Dataset

    calls = []

    def counted(module, name):
        fn = getattr(module, name)

        def wrapper(*args, **kwargs):
            calls.append(name)
            return fn(*args, **kwargs)
        wrapper.__module__, wrapper.__qualname__ = fn.__module__, fn.__qualname__
        monkeypatch.setattr(module, name, wrapper)

    for module, name in [(geometry, "reduced_convex_hull"), (geometry, "nearest_point_to"),
                         (zero_solution, "c_svm_w"), (hull_plots, "plot_hulls"),
                         (hull_plots, "plot_zero_solution"), (hull_plots, "plot_w_norm")]:
        counted(module, name)
    rng = np.random.default_rng(20)
    X = np.vstack([rng.normal(-1, 0.8, (40, 2)), rng.normal(1, 0.8, (40, 2))])
    ds = Dataset(X, np.repeat([-1, 1], 40), ["a", "b"], ["-1", "1"], "two blobs", "")
    def both_tabs():   # the hull picture, then the zero solution's tab
        at = page_test("pages/3_Convex_Hulls.py", dataset=ds, spec="upload:blobs").run()
        charts = len(at.get("plotly_chart"))
        at.session_state["hull.tab"] = ZERO
        at.run()
        assert not problems(at)
        return charts + len(at.get("plotly_chart"))

    assert both_tabs() >= 3
    assert {"reduced_convex_hull", "nearest_point_to", "c_svm_w", "plot_hulls", "plot_zero_solution",
            "plot_w_norm"} <= set(calls)
    calls.clear()
    assert both_tabs() >= 3
    assert calls == []


def test_the_zero_solution_tab_names_classes_with_the_minus_sign_and_labels_each_download():
    """Class −1 reads "−1" in the page's text, the hard-class options and the figure's title (a
    hyphen beside the figures' minus read as two different classes; "-1 (−1)" said it twice), and
    the two figures' download buttons say which figure they save."""
    import json
    import re

    import numpy as np

    from apphelpers import page_test, problems
    from svmviz.data import Dataset

    rng = np.random.default_rng(20)
    X = np.vstack([rng.normal(-1, 0.8, (40, 2)), rng.normal(1, 0.8, (40, 2))])
    ds = Dataset(X, np.repeat([-1, 1], 40), ["a", "b"], ["-1", "1"], "two blobs", "")
    at = page_test("pages/3_Convex_Hulls.py", dataset=ds, spec="upload:blobs", **{"hull.tab": ZERO}).run()
    assert not problems(at) and not at.error
    hyphen = re.compile(r"(?<![\w.])-\d")
    texts = [m.value for m in at.markdown]
    assert any("class **−1** is −1" in t for t in texts)
    assert not any(hyphen.search(t) for t in texts)
    radio = at.radio(key="zero.hard")
    assert list(radio.options) == ["+1", "−1"]
    radio.set_value(-1).run()
    # the parsed figures' titles: Plotly's JSON text spells the minus "\u2212" unless orjson is installed
    titles = [json.loads(c.proto.spec)["layout"].get("title", {}).get("text", "") for c in at.get("plotly_chart")]
    assert any("Hard class −1: RCH" in title for title in titles), titles
    labels = [b.proto.label for b in at.get("download_button")]
    assert labels and len(labels) == len(set(labels)), labels          # no two identical buttons
    # and no two alike in their first characters, where a narrow column cuts a label
    figures = [lab for lab in labels if ":" in lab]
    assert len(figures) == 6 and len({lab[:6] + lab.split(": ")[1][:3] for lab in figures}) == 6, figures

"""The Scatter SVM page (pages/7_Scatter_SVM.py): AppTest and a look in headless Chromium."""

from __future__ import annotations

import numpy as np
import pytest

from apphelpers import page_test, problems
from svmviz.data import Dataset, load_builtin

PAGE = "pages/7_Scatter_SVM.py"
# a tab opens as a link opens it (scatter.tab): 0 prototypes and scatter, 1 the binary ν-SVM, 2 the
# sensitivity maps


def _captions(at):
    return [c.value for c in at.caption]


def _ok(at):
    assert not problems(at), problems(at)


def test_page_runs_every_tab_and_reacts_to_widgets():
    at = page_test(PAGE, dataset=load_builtin("checkerboard")).run()
    _ok(at)
    assert len(at.tabs) == 4   # and the solver stepper
    # tab 1: the multi-class prototype view, with convergence shown
    metrics = {m.label: m.value for m in at.metric}
    assert float(metrics["Training accuracy"].rstrip(" %")) > 70
    assert int(metrics["Support vectors"].split("/")[0]) > 0
    assert metrics["Converged"] == "yes"
    # the class sums and intercepts name their class, not a bare array "[2.572 2.281 …]"
    sums = next(c for c in _captions(at) if "Class sums" in c)
    assert "[" not in sums and all(f"class {c}:" in sums for c in np.unique(load_builtin("checkerboard").y)), sums
    # tab 2: the binary ν-SVM on the generated pair
    at.session_state["scatter.tab"] = 1
    at.run()
    assert any(c.startswith("μ = 1/m_smallest") for c in _captions(at))
    mu = next(s for s in at.select_slider if s.label.startswith("μ"))
    mu.set_value(1.0).run()  # μ = 1: the whole convex hulls
    _ok(at)
    # tab 3: γ chosen on validation data for the 5-D set, its per-γ maps, then the digit images
    at.session_state["scatter.tab"] = 2
    at.run()
    chosen = next(c for c in _captions(at) if "chosen on" in c)
    assert "validation samples" in chosen
    acc = next(c for c in _captions(at) if c.startswith("Accuracy on a fresh test set"))
    assert float(acc.split(":")[1].split("%")[0]) >= 95
    assert any("scatter_fig_gamma" in c.proto.id or "per γ" in c.proto.spec for c in at.get("plotly_chart"))
    at.radio(key="scatter.sens").set_value("digits").run()
    _ok(at)
    assert any("images, training accuracy" in c for c in _captions(at))
    specs = [c.proto.spec for c in at.get("plotly_chart")]
    assert any('"colorbar"' in sp and "Sensitivity maps of digits" in sp for sp in specs)  # colour scales
    downloads = [d.proto.label for d in at.get("download_button")]
    assert sum("HTML" in lab or "html" in lab for lab in downloads) >= 2  # the images and the bar chart
    # switching the formulation refits the first tab with the ν-form
    at.session_state["scatter.tab"] = 0
    at.radio(key="scatter.form").set_value("nu").run()
    _ok(at)
    assert any(c.startswith("Squares:") for c in _captions(at))


def test_a_run_computes_only_the_open_tab(monkeypatch):
    """The binary ν-SVM fits its own generated pair and the sensitivity maps a generated 5-D set:
    a run with the first tab open makes neither, opening the second makes its pair only."""
    import svmviz.data.generators as gen

    made = []
    for name in ("gaussians_on_circle", "sensitivity_5d"):
        real = getattr(gen, name)
        monkeypatch.setattr(gen, name, lambda *a, _real=real, _name=name, **kw: made.append(_name) or _real(*a, **kw))
    at = page_test(PAGE, dataset=load_builtin("checkerboard")).run()
    _ok(at)
    assert any(c.startswith("Squares:") for c in _captions(at))
    assert made == []
    at.session_state["scatter.tab"] = 1
    at.run()
    _ok(at)
    assert any(c.startswith("μ = 1/m_smallest") for c in _captions(at))
    assert made == ["gaussians_on_circle"]


def _rings(n: int = 80) -> Dataset:
    """Three concentric rings (the innermost a disc): with the RBF kernel every class's support
    vectors surround the same centre."""
    rng = np.random.default_rng(0)
    t, r = rng.uniform(0, 2 * np.pi, 3 * n), np.repeat([0.0, 1.5, 3.0], n) + rng.normal(scale=0.2, size=3 * n)
    return Dataset(np.c_[r * np.cos(t), r * np.sin(t)], np.repeat([0, 1, 2], n), name="rings")


def test_coinciding_prototypes_are_said_not_drawn():
    at = page_test(PAGE, dataset=_rings()).run()
    _ok(at)
    assert any("pictures coincide" in i.value for i in at.info)


def test_two_classes_open_six_generated_ones_without_the_standard_views_of_the_data_page_s_split():
    from svmviz.data.generators import fourclass_like

    at = page_test(PAGE, dataset=fourclass_like(n=240, seed=0)).run()
    _ok(at)
    assert any("has 2 classes" in i.value and "six generated classes instead" in i.value for i in at.info)
    n = load_builtin("circle").n_samples
    assert next(m.value for m in at.metric if m.label == "Support vectors").endswith(f"/ {n}")
    assert not any("confusion matrix" in h.value for h in at.subheader)
    own = page_test(PAGE, dataset=_rings()).run()   # three classes: the page shows them, with their test part
    _ok(own)
    assert any("confusion matrix" in h.value for h in own.subheader)


def test_data_above_the_bound_is_subsampled_visibly():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3400, 2))
    ds = Dataset(X, np.digitize(X[:, 0], [-0.5, 0.5]), name="big")   # three classes: the page keeps them
    at = page_test(PAGE, dataset=ds, **{"split.test": 0.05}).run()
    _ok(at)
    assert any("at most 3,000 samples" in i.value for i in at.info)
    assert "3000" in next(m.value for m in at.metric if m.label == "Support vectors")


def test_overlapping_hulls_warn():
    fc = load_builtin("fourclass_like")
    far = fc.X.max(axis=0) + np.ptp(fc.X, axis=0) * (0.5 + np.random.default_rng(0).random((60, 2)))
    ds = Dataset(np.vstack([fc.X, far]), np.concatenate([fc.y, np.full(60, 5)]), name="fourclass-like and a third")
    at = page_test(PAGE, dataset=ds, **{"scatter.bin_src": "page", "scatter.tab": 1}).run()
    _ok(at)
    # its first two classes by default, fourclass-like's: one wraps the other, so the reduced hulls
    # overlap and w = 0
    assert any("w ≈ 0" in w.value for w in at.warning)


@pytest.mark.browser
def test_page_in_chromium(streamlit_url, page, artifacts_dir):
    from conftest import wait_for_app

    page.set_viewport_size({"width": 1400, "height": 2000})
    page.goto(f"{streamlit_url}/Scatter_SVM")
    # the first script run compiles and fits: wait for its first chart and metric, then for the end
    page.wait_for_selector(".js-plotly-plot", timeout=240000)
    page.get_by_text("Training accuracy").first.wait_for(timeout=240000)
    wait_for_app(page, timeout_ms=240000)
    assert page.locator('[data-testid="stException"]').count() == 0
    page.screenshot(path=str(artifacts_dir / "scatter_prototypes.png"), full_page=False)
    page.get_by_role("tab", name="Binary ν-SVM (Fig. 1–2)").click()   # computed once it opens
    page.get_by_text("μ = 1/m_smallest").first.wait_for(timeout=240000)
    wait_for_app(page, timeout_ms=240000)
    page.screenshot(path=str(artifacts_dir / "scatter_binary.png"), full_page=False)
    page.get_by_role("tab", name="Sensitivity maps (Fig. 16–24)").click()
    page.get_by_text("Accuracy on a fresh test set").first.wait_for(timeout=240000)
    wait_for_app(page, timeout_ms=240000)
    page.screenshot(path=str(artifacts_dir / "scatter_sensitivity.png"), full_page=False)
    assert page.locator(".js-plotly-plot").count() >= 2   # the 5-D set's bars and its maps per γ
    assert page.locator('[data-testid="stException"]').count() == 0


def test_a_second_session_on_the_same_view_draws_the_prototypes_from_the_shared_figure(monkeypatch):
    """A class opening one link: the first session builds the prototypes' figures, every later
    one takes them from the shared cache (it was built again in each session: about 0.7 s of the
    server's CPU per student opening the page)."""
    import svmviz.plots.scatter as scatter_plots

    calls = []
    fn = scatter_plots.plot_prototypes

    def counted(*args, **kwargs):
        calls.append(1)
        return fn(*args, **kwargs)
    counted.__module__, counted.__qualname__ = fn.__module__, fn.__qualname__
    monkeypatch.setattr(scatter_plots, "plot_prototypes", counted)
    rng = np.random.default_rng(3)
    X = np.vstack([rng.normal(c, 0.6, (30, 2)) for c in (-2.0, 0.0, 2.0)])
    ds = Dataset(X, np.repeat([0, 1, 2], 30), ["a", "b"], ["0", "1", "2"], "three blobs", "")
    built = []
    for session in range(2):
        at = page_test("pages/7_Scatter_SVM.py", dataset=ds, spec="upload:three").run()
        assert not problems(at)
        assert at.get("plotly_chart")
        built.append(len(calls))
    assert built[0] >= 1 and built[1] == built[0]   # the open tab's figures

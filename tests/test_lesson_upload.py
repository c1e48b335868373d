"""A lesson file uploaded on the Data page says what it brought back and opens the page it was saved
on, at its step; the Data page stays on its uploader (not on the canvas of a drawing)."""

from __future__ import annotations

import json

import numpy as np

from apphelpers import page_test, problems
from svmviz.data import Dataset
from svmviz.export.lesson import dumps_lesson
from svmviz_app.widgets import LESSON_PAGE, shown_source


def _drawn() -> Dataset:
    """15 drawn points of three classes, as an instructor draws them."""
    rng = np.random.default_rng(4)
    X = np.vstack([rng.normal(c, 0.3, (5, 2)) for c in ((-2, 0), (0, 2), (2, 0))])
    return Dataset(X, np.repeat([0, 1, 2], 5), ["x1", "x2"], name="drawing", source="drawn on the canvas")


def test_a_lesson_upload_says_what_it_restored_and_opens_its_page_at_its_step(through_the_app):
    ds = _drawn()
    text = dumps_lesson(ds, {"data.source": "Draw", "dag.tab": 4, "dag.step": 2,
                                LESSON_PAGE: "DAG_SVM"})
    at = page_test("app.py").run()
    at.switch_page("pages/1_Data.py").run()
    at.radio(key="data.source").set_value("Upload a file").run()
    at.file_uploader(key="data_upload").set_value(("dag_lesson.json", text.encode(), "application/json")).run()
    assert not problems(at) and not at.error
    # the DAG SVM page, at the lesson's step, with the message naming what came back
    assert at.session_state["dag.step"] == 2
    assert any(m.value.startswith("**Step 3 of ") for m in at.markdown), [m.value for m in at.markdown][:5]
    said = " ".join(s.value for s in at.success).replace("\\", "")   # shown as plain text (escaped)
    assert "dag_lesson.json" in said and "drawing" in said and "15 samples, 3 classes" in said
    assert "DAG SVM" in said and "at its step" in said
    assert not any("draw points" in m.value for m in [*at.markdown, *at.info, *at.warning])
    # the Data page shows the lesson's source, the drawing with its points, not an empty canvas
    at.switch_page("pages/1_Data.py").run()
    assert at.radio(key="data.source").value == "Draw"
    assert at.session_state["_svmviz_drawn"].shape == (15, 3)
    assert not any("draw points" in m.value for m in [*at.markdown, *at.info, *at.warning, *at.caption])
    assert at.session_state["_svmviz_dataset"].name == "drawing"   # still the lesson's data set
    assert not at.success   # said once


def test_a_lesson_without_its_page_stays_on_the_data_page_and_says_so(through_the_app):
    at = page_test("app.py").run()
    at.switch_page("pages/1_Data.py").run()
    at.radio(key="data.source").set_value("Upload a file").run()
    at.file_uploader(key="data_upload").set_value(("old.json", dumps_lesson(_drawn(), {}).encode(),
                                                   "application/json")).run()
    assert not problems(at) and not at.error
    assert any("old.json restored" in s.value.replace("\\", "") for s in at.success)
    assert at.session_state["_svmviz_dataset"].n_samples == 15


def test_the_lesson_file_names_the_page_it_was_saved_on():
    from svmviz_app.widgets import _lesson_text

    source = {"dataset": _drawn(), "values": {"dag.step": 2}, "model": None, "page": "DAG_SVM"}
    assert json.loads(_lesson_text(source))["state"][LESSON_PAGE] == "DAG_SVM"


def test_sources_are_shown_without_server_paths_python_names_or_seeds():
    assert shown_source("/srv/svmviz/data/fourclass_scale") == "fourclass_scale"
    assert shown_source("generated: mexican_hat(n=600, seed=0)") == "generated: mexican hat, 600 points"
    assert shown_source("upload: points.csv") == "upload: points.csv"

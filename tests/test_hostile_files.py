"""Small files that would ask for much: label bombs (one long class name among many short ones)
and class floods, on every path a file takes (CSV, LIBSVM, lesson, model; the Data page and the
sidebar's model uploader), refused with a message before the per-row or per-class work."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

from apphelpers import page_test, problems
from svmviz.data import MAX_LABEL_CHARS, DataError, Dataset, load_dataset, name_labels
from svmviz.errors import ModelFormatError, ProblemTooLargeError
from svmviz.export import dumps_model, loads_model
from svmviz.export.lesson import LessonFormatError, dumps_lesson, loads_lesson
from svmviz.limits import budget

LONG = "L" * (MAX_LABEL_CHARS + 1)


def _upload(name: str, text: str):
    f = io.BytesIO(text.encode())
    f.name = name
    return f


def _labels_csv(labels) -> str:
    return "x1,label\n" + "".join(f"{k % 7},{c}\n" for k, c in enumerate(labels))


def test_a_label_longer_than_the_bound_is_refused_with_its_row():
    labels = ["a", "b"] * 20 + [LONG, LONG]
    with pytest.raises(DataError, match=rf"row 42, column 'label'.*{MAX_LABEL_CHARS + 1} characters long"):
        load_dataset(_upload("bomb.csv", _labels_csv(labels)))


def test_labels_at_the_bound_are_read_as_before():
    name = "N" * MAX_LABEL_CHARS
    ds = load_dataset(_upload("ok.csv", _labels_csv(["a", name] * 3)))
    assert ds.class_names == ["N" * MAX_LABEL_CHARS, "a"] and ds.y.dtype == np.dtype(f"<U{MAX_LABEL_CHARS}")


def test_the_labels_memory_is_checked_before_their_array_is_built():
    # 40 rows of 50-character names: 8,000 bytes as NumPy text, more than a 100-value table's 800
    names = [f"{'n' * 49}{k % 2}" for k in range(40)]
    with budget(cells=100), pytest.raises(DataError, match="take 0 MB as text, more than"):
        name_labels(names)
    assert name_labels(names).tolist() == names


def test_names_become_categories_kept_once():
    y = name_labels(np.array(["b", "a", "b", "c"], dtype=object))
    assert y.tolist() == ["b", "a", "b", "c"] and y.dtype == np.dtype("<U1")


def test_a_libsvm_or_csv_class_flood_is_refused_under_a_budget():
    text = "".join(f"{k // 2} 1:{k % 5}\n" for k in range(2 * 101))
    with budget(classes=100), pytest.raises(ProblemTooLargeError, match="101 is more than the 100"):
        load_dataset(_upload("flood.libsvm", text))
    with budget(classes=100), pytest.raises(ProblemTooLargeError, match="101 is more than the 100"):
        load_dataset(_upload("flood.csv", _labels_csv([f"c{k // 2}" for k in range(202)])))


def _lesson_doc(y: list, X: list) -> dict:
    kind = "str" if isinstance(y[0], str) else "int"
    return {"format": "svmviz-lesson", "version": 1, "svmviz_version": "0",
            "dataset": {"name": "d", "source": "s", "feature_names": ["x1"], "class_names": [],
                        "X": {"__ndarray__": {"dtype": "float", "shape": [len(X), 1], "data": X}},
                        "y": {"__ndarray__": {"dtype": kind, "shape": [len(y)], "data": y}}},
            "state": {}, "model": None}


def test_a_lesson_with_a_long_label_is_refused():
    y = ["a", "b"] * 10 + [LONG, LONG]
    with pytest.raises(LessonFormatError, match=f"entry 21 .*{MAX_LABEL_CHARS + 1} characters long"):
        loads_lesson(json.dumps(_lesson_doc(y, [float(k) for k in range(len(y))])))


def test_a_lesson_of_too_many_classes_is_refused_before_the_page_sees_it():
    y = [k // 2 for k in range(202)]
    doc = json.dumps(_lesson_doc(y, [float(k % 13) for k in range(len(y))]))
    with budget(classes=100), pytest.raises(ProblemTooLargeError, match="101 is more than the 100"):
        loads_lesson(doc)
    assert loads_lesson(doc).dataset.classes.size == 101   # no budget: the library reads it


def _model_with_classes(classes: list) -> str:
    from svmviz.models import BinarySVC

    X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    doc = json.loads(dumps_model(BinarySVC(kernel="linear").fit(X, np.array(["a", "a", "b", "b"]))))
    doc["model"]["fitted"]["classes_"] = {"__ndarray__": {"dtype": "str", "shape": [len(classes)],
                                                          "data": classes}}
    return json.dumps(doc)


def test_a_model_with_a_long_class_name_is_refused():
    with pytest.raises(ModelFormatError, match=f"{MAX_LABEL_CHARS + 1} characters long"):
        loads_model(_model_with_classes(["a", LONG]))


def test_a_model_declaring_too_many_classes_is_refused_before_decoding(monkeypatch):
    import svmviz.export.models as models

    decoded = []
    monkeypatch.setattr(models, "decode_estimator", lambda m: decoded.append(m))
    with budget(classes=100), pytest.raises(ProblemTooLargeError, match="150 is more than the 100"):
        loads_model(_model_with_classes([f"c{k}" for k in range(150)]))
    assert not decoded


def test_every_data_set_meets_the_class_bound():
    y = np.arange(202) // 2
    with budget(classes=100), pytest.raises(ProblemTooLargeError):
        Dataset(np.c_[y % 7, y % 3].astype(float), y)


def test_the_data_page_refuses_a_class_flood_lesson_with_a_message():
    y = np.arange(2 * 150) // 2
    ds = Dataset(np.c_[y % 7, y % 5].astype(float), y, name="flood")
    text = dumps_lesson(ds, {})
    at = page_test("pages/1_Data.py").run()
    at.radio(key="data.source").set_value("Upload a file").run()
    at.file_uploader(key="data_upload").set_value(("flood.json", text.encode(), "application/json")).run()
    assert not problems(at) and not at.exception
    assert [e.value for e in at.error] and "150 is more than the 100" in at.error[0].value
    assert at.session_state["_svmviz_dataset"].name != "flood"


def test_the_data_page_refuses_a_label_bomb_with_its_row():
    at = page_test("pages/1_Data.py").run()
    at.radio(key="data.source").set_value("Upload a file").run()
    payload = _labels_csv(["a", "b"] * 10 + [LONG, LONG]).encode()
    at.file_uploader(key="data_upload").set_value(("bomb.csv", payload, "text/csv")).run()
    assert not problems(at) and not at.exception
    assert "row 22" in at.error[0].value and "characters long" in at.error[0].value


@pytest.mark.parametrize("classes, said", [([f"c{k}" for k in range(150_000)], "150,000 is more than the 100"),
                                           (["c0", "c1", LONG], "characters long")])
def test_the_sidebar_refuses_a_class_flood_or_a_label_bomb_in_a_model_with_a_message(classes, said):
    from svmviz.data.generators import interlaced
    from svmviz.models import PairwiseVotingSVC
    from svmviz_app.widgets import import_open_key

    ds = interlaced(2)
    doc = json.loads(dumps_model(PairwiseVotingSVC(kernel="linear").fit(ds.X, ds.y)))
    doc["model"]["fitted"]["classes_"] = {"__ndarray__": {"dtype": "str", "shape": [len(classes)],
                                                          "data": classes}}
    at = page_test("pages/6_DAG_SVM.py", dataset=ds, **{"dag.src": "current data set"})
    at.session_state[import_open_key("dag")] = True
    at.run()
    at.file_uploader(key="dag_upload").set_value(("flood.json", json.dumps(doc).encode(), "application/json")).run()
    assert not problems(at) and not at.exception
    assert any(said in e.value for e in at.error), [e.value for e in at.error]

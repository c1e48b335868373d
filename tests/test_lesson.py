"""Lesson files: data set + app state + optional model as versioned JSON;
round trips, and hostile documents refused with a LessonFormatError (a ModelFormatError)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from svmviz.data import Dataset
from svmviz.limits import budget
from svmviz.data.generators import fourclass_like
from svmviz.errors import ModelFormatError
from svmviz.export import dumps_model
from svmviz.export.lesson import (FORMAT, LessonFormatError, dumps_lesson, loads_lesson, sniff_document)
from svmviz.models.svc import BinarySVC

STATE = {"page": "SVM_Tree", "svm_tree_step": 7, "svm_tree_C": 100.0, "svm_tree_prune": True,
         "test_size": 0.3, "seed": 0, "note": "ünïcode ✓"}


@pytest.fixture(scope="module")
def data():
    return fourclass_like()


@pytest.fixture(scope="module")
def model(data):
    X, y = data.X[:60], data.y[:60]
    return BinarySVC(C=2.0, kernel="rbf", gamma=3.0, solver="cvxpy").fit(X, y), X


def _doc(data, changes=None) -> dict:
    """The lesson document of ``data`` with entries replaced: {"dataset/X/__ndarray__/shape": ...}."""
    doc = json.loads(dumps_lesson(data, STATE))
    for path, value in (changes or {}).items():
        target = doc
        *parents, last = path.split("/")
        for p in parents:
            target = target[p]
        if value is _DELETE:
            del target[last]
        else:
            target[last] = value
    return doc


_DELETE = object()


def test_round_trip_keeps_data_and_state(data):
    text = dumps_lesson(data, STATE)
    assert sniff_document(text.encode()) == "lesson"
    got = loads_lesson(text)
    np.testing.assert_array_equal(got.dataset.X, data.X)
    np.testing.assert_array_equal(got.dataset.y, data.y)
    assert got.dataset.y.dtype == data.y.dtype
    assert (got.dataset.feature_names, got.dataset.class_names) == (data.feature_names, data.class_names)
    assert (got.dataset.name, got.dataset.source) == (data.name, data.source)
    assert got.state == STATE and all(type(got.state[k]) is type(v) for k, v in STATE.items())
    assert got.model is None and got.load_model() is None
    assert loads_lesson(text.encode("utf-8")).state == STATE  # bytes (an upload) as well


@pytest.mark.parametrize("labels", [["setosa", "versicolor", "virginica"], [-1.5, 0.25, 3.0], [0, 1, 2]])
def test_label_kinds_survive(labels):
    rng = np.random.default_rng(0)
    y = np.array(labels * 4)
    ds = Dataset(rng.normal(size=(12, 3)), y, ["a", "b", "c"], name="mixed", source="upload: m.csv")
    got = loads_lesson(dumps_lesson(ds, {})).dataset
    np.testing.assert_array_equal(got.y, ds.y)
    assert got.y.dtype.kind == ds.y.dtype.kind and got.class_names == ds.class_names


@pytest.mark.parametrize("as_text", [False, True])
def test_model_round_trip(data, model, as_text):
    est, X = model
    text = dumps_lesson(data, STATE, dumps_model(est) if as_text else est)
    assert sniff_document(text) == "lesson"
    got = loads_lesson(text)
    assert json.loads(got.model)["estimator_class"] == "BinarySVC"
    again = got.load_model()
    np.testing.assert_array_equal(again.decision_function(X), est.decision_function(X))


def test_sniff_tells_model_lesson_and_data_apart(data, model):
    assert sniff_document(dumps_model(model[0]).encode()) == "model"
    assert sniff_document(b"\xef\xbb\xbf \n" + dumps_lesson(data, {}).encode()) == "lesson"
    reordered = _doc(data)
    reordered = {k: reordered[k] for k in ("model", "dataset", "state", "version", "svmviz_version", "format")}
    assert sniff_document(json.dumps(reordered)) == "lesson"  # format not first: parsed in full
    assert sniff_document(b"x1,x2,label\n0.1,0.2,a\n") is None
    assert sniff_document(b"+1 1:0.5 2:0.25\n-1 1:0.1 2:0.3\n") is None
    assert sniff_document(b'{"format": "something-else"}') is None
    assert sniff_document(b'{"format": ["svmviz-lesson"]}') is None
    assert sniff_document(b"{not json") is None and sniff_document(b"") is None


def test_sniff_names_an_unsupported_version_so_loading_can_explain(data):
    doc = _doc(data, {"version": 99})
    assert sniff_document(json.dumps(doc)) == "lesson"
    with pytest.raises(LessonFormatError, match="version 99 is not supported"):
        loads_lesson(json.dumps(doc))


def test_a_model_file_is_not_a_lesson(model):
    with pytest.raises(LessonFormatError, match="model file: load it on its method page"):
        loads_lesson(dumps_model(model[0]))


def test_size_cap(data):
    text = dumps_lesson(data, STATE)
    with budget(file_mb=len(text) / 2**20 / 2):
        with pytest.raises(LessonFormatError, match="the limit is"):
            loads_lesson(text)
        with pytest.raises(LessonFormatError, match="above the"):
            dumps_lesson(data, STATE)


HOSTILE = {
    "not json": (b"{\"format\": \"svmviz-lesson\", ", "not valid JSON"),
    "binary": (b"\xff\xfe\x00\x01", "not valid JSON"),
    "json array": (b"[1, 2]", "'format' field"),
    "deep nesting": (b"[" * 100_000 + b"]" * 100_000, "not valid JSON"),
}


@pytest.mark.parametrize("raw,match", HOSTILE.values(), ids=HOSTILE.keys())
def test_hostile_bytes(raw, match, classroom_budget):
    with pytest.raises(LessonFormatError, match=match):
        loads_lesson(raw)


BIG = 10**30
CHANGES = {
    "wrong format": ({"format": "svmviz-model"}, "'format' field"),
    "version as string": ({"version": "1"}, "version '1' is not supported"),
    "version as bool": ({"version": True}, "version True is not supported"),
    "extra entry": ({"code": "import os"}, "exactly the entries"),
    "missing state": ({"state": _DELETE}, "exactly the entries"),
    "dataset extra": ({"dataset/pickle": "gASV"}, "exactly the entries"),
    "X not encoded": ({"dataset/X": [[0.0, 1.0]]}, "encoded array"),
    "X an estimator": ({"dataset/X": {"__estimator__": "BinarySVC", "params": {}}}, "encoded array"),
    "X of ints": ({"dataset/X/__ndarray__/dtype": "int"}, "2-D array of float"),
    "X 3-D": ({"dataset/X/__ndarray__/shape": [800, 2, 1]}, "2-D array"),
    "X huge shape": ({"dataset/X/__ndarray__/shape": [BIG, 2]}, "at most"),
    "X negative shape": ({"dataset/X/__ndarray__/shape": [-800, -2]}, "2-D array"),
    "X float shape": ({"dataset/X/__ndarray__/shape": [800.0, 2]}, "2-D array"),
    "X shape mismatch": ({"dataset/X/__ndarray__/shape": [801, 2]}, "does not match its shape"),
    "X nan string": ({"dataset/X/__ndarray__/data": ["nan"] * 1600}, "finite number"),
    "X bad string": ({"dataset/X/__ndarray__/data": ["rm -rf"] * 1600}, "malformed float array"),
    "y 2-D": ({"dataset/y/__ndarray__/shape": [400, 2]}, "1-D array"),
    "y length": ({"dataset/y/__ndarray__/shape": [799], "dataset/y/__ndarray__/data": [1] * 799}, "800 samples but 799"),
    "y one class": ({"dataset/y/__ndarray__/data": [1] * 800}, "only one class"),
    "y huge int": ({"dataset/y/__ndarray__/data": [BIG] * 800}, "malformed int array"),
    "y record smuggled": ({"dataset/y": {"__record__": "Node", "fields": {}}}, "encoded array"),
    "feature names count": ({"dataset/feature_names": ["x1"]}, "1 feature names for 2 features"),
    "feature name type": ({"dataset/feature_names": ["x1", 2]}, "must be a string"),
    "feature name long": ({"dataset/feature_names": ["x1", "y" * 5000]}, "the limit is"),
    "class names not list": ({"dataset/class_names": "ab"}, "list of strings"),
    "name not string": ({"dataset/name": {"a": 1}}, "must be a string"),
    "state not dict": ({"state": [["page", "x"]]}, "mapping"),
    "state nested": ({"state": {"a": {"b": 1}}}, "values must be"),
    "state list": ({"state": {"a": [1]}}, "values must be"),
    "state null": ({"state": {"a": None}}, "values must be"),
    "state empty key": ({"state": {"": 1}}, "1 to 100 characters"),
    "state long key": ({"state": {"k" * 101: 1}}, "1 to 100 characters"),
    "state long text": ({"state": {"k": "v" * 2001}}, "the limit is"),
    "state huge int": ({"state": {"k": BIG}}, "does not fit 64 bits"),
    "state many": ({"state": {f"k{i}": i for i in range(501)}}, "the limit is 500"),
    "model not dict": ({"model": "BinarySVC"}, "model document or null"),
    "model unknown class": ({"model": {"format": "svmviz-model", "version": 1, "estimator_class": "os.system",
                                       "model": {"__estimator__": "os.system"}}}, "unknown estimator class"),
    "model of wrong format": ({"model": {"format": "svmviz-lesson"}}, "lesson's model: not a svmviz model"),
}


@pytest.mark.parametrize("changes,match", CHANGES.values(), ids=CHANGES.keys())
def test_hostile_documents(data, changes, match, classroom_budget):
    text = json.dumps(_doc(data, changes))
    with pytest.raises(LessonFormatError, match=match) as err:
        loads_lesson(text)
    assert isinstance(err.value, ModelFormatError) and isinstance(err.value, ValueError)


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e999"])
@pytest.mark.parametrize("where", ["state", "data"])
def test_non_finite_numbers_refused_everywhere(data, literal, where):
    text = dumps_lesson(data, {"C": 1.5})
    old = '"C": 1.5' if where == "state" else json.dumps(float(data.X[0, 0]))
    new = '"C": ' + literal if where == "state" else literal
    assert text.count(old) == 1
    with pytest.raises(LessonFormatError, match="not a JSON number|out of range"):
        loads_lesson(text.replace(old, new))


def test_tampered_model_inside_a_lesson(data, model):
    doc = json.loads(dumps_lesson(data, {}, model[0]))
    doc["model"]["model"]["fitted"]["_private"] = 1   # not fitted state by the convention
    with pytest.raises(LessonFormatError, match="lesson's model: .*no fitted attribute"):
        loads_lesson(json.dumps(doc))


@pytest.mark.parametrize("state,match", [
    ({"a": [1, 2]}, "values must be"), ({"a": float("nan")}, "must be finite"), ({1: "a"}, "must be a string"),
    ({"a": None}, "values must be"), ("page=1", "mapping")])
def test_dumps_refuses_a_state_it_could_not_read_back(data, state, match):
    with pytest.raises(LessonFormatError, match=match):
        dumps_lesson(data, state)


def test_dumps_refuses_other_objects(data):
    with pytest.raises(LessonFormatError, match="not a ndarray"):
        dumps_lesson(data.X, {})
    with pytest.raises(LessonFormatError, match="lesson's model"):
        dumps_lesson(data, {}, '{"format": "svmviz-model", "version": 7}')
    numpy_state = {"step": np.int64(3), "C": np.float64(2.5), "on": np.bool_(True)}
    assert loads_lesson(dumps_lesson(data, numpy_state)).state == {"step": 3, "C": 2.5, "on": True}


def test_format_constant_is_what_is_written(data):
    assert json.loads(dumps_lesson(data, {}))["format"] == FORMAT

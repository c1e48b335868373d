"""Export: models as versioned JSON through the registry (never code), figures as HTML/PNG/SVG."""

from __future__ import annotations

import base64
import copy
import io
import json
import os
import pickle
import shutil
import warnings

import numpy as np
import pytest

from svmviz.data import load_builtin
from svmviz.errors import ModelFormatError
from svmviz.export import (ExportError, dumps_model, export_figure, figure_bytes, load_model, loads_model,
                           save_model)
from svmviz.export.models import FORMAT, VERSION
from svmviz.models import DAGSVC, GuardVectorSVC, WeightedDAGSVC
from svmviz.models.svc import BinarySVC
from svmviz.plots.data import plot_dataset

HAVE_CHROMIUM = any(shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome"))


@pytest.fixture(scope="module")
def fitted():
    ds = load_builtin("hypercubes")
    X = np.vstack([ds.X[:40], ds.X[-40:]]) / 100  # 80 points, two classes
    y = np.r_[ds.y[:40], ds.y[-40:]]
    model = BinarySVC(C=2.0, kernel="rbf", gamma=3.0, solver="cvxpy").fit(X, y)
    return model, X, y


def test_json_round_trip_predicts_identically(fitted, tmp_path):
    model, X, y = fitted
    path = tmp_path / "m.json"
    save_model(model, path)
    doc = json.loads(path.read_text())
    assert doc["format"] == FORMAT and doc["version"] == VERSION
    assert doc["estimator_class"] == "BinarySVC" and "svmviz_version" in doc
    assert doc["model"]["params"]["C"] == 2.0
    again = load_model(path)
    assert type(again) is BinarySVC and again.get_params() == model.get_params()
    grid = np.random.default_rng(0).uniform(-0.2, 1.2, size=(300, 2))
    np.testing.assert_array_equal(again.decision_function(grid), model.decision_function(grid))
    np.testing.assert_array_equal(again.predict(X), model.predict(X))
    np.testing.assert_array_equal(again.classes_, model.classes_)
    assert again.support_vectors_.dtype == np.float64
    with open(path, "rb") as fh:  # a file object (an upload) works as well
        np.testing.assert_array_equal(load_model(fh).predict(grid), model.predict(grid))


@pytest.mark.parametrize("make,param,old,new", [
    (lambda: GuardVectorSVC(), "method", "seed", "yang_ahuja"),
    (lambda: WeightedDAGSVC(n_clusters=2, kernel="linear", weight="gaussian_paper", random_state=0), "weight",
     "seed", "gaussian_paper"),
])
def test_a_file_with_a_renamed_option_value_loads_with_the_new_name(fitted, make, param, old, new):
    _, X, y = fitted
    model = make().fit(X, y)
    doc = json.loads(dumps_model(model))
    assert doc["model"]["params"][param] == new
    doc["model"]["params"][param] = old   # as written before the option was renamed
    again = loads_model(json.dumps(doc))
    assert getattr(again, param) == new
    np.testing.assert_array_equal(again.predict(X), model.predict(X))


def test_a_guard_model_saved_before_its_lps_were_checked_loads_complete(fitted):
    _, X, y = fitted
    model = GuardVectorSVC().fit(X, y)
    doc = json.loads(dumps_model(model))
    for attr in ("qp_converged_", "lp_failed_", "n_unconverged_", "unconverged_"):
        del doc["model"]["fitted"][attr]
    doc["model"]["fitted"]["converged_"] = False     # then the QP's own convergence
    again = loads_model(json.dumps(doc))
    assert again.qp_converged_ is False and again.lp_failed_.size == 0
    assert again.unconverged_ == ["the QP on the guard vectors"] and again.n_unconverged_ == 1
    assert again.convergence_message().startswith("The QP on the guard vectors did not converge")


@pytest.mark.parametrize("make", [lambda: BinarySVC(kernel="linear"), lambda: GuardVectorSVC(),
                                  lambda: BinarySVC(kernel="rbf")], ids=["svc", "guard", "rbf"])
def test_a_file_written_before_linear_coef_was_stored_gets_it_in_the_loader(fitted, make):
    # the loader brings old files up to date; the estimator keeps no fallback of its own
    _, X, y = fitted
    model = make().fit(X, y)
    doc = json.loads(dumps_model(model))
    doc["model"]["fitted"].pop("linear_coef_")
    old = loads_model(json.dumps(doc))
    if model.kernel_params_["name"] == "linear":
        np.testing.assert_allclose(old.linear_coef_, model.dual_coef_ @ model.support_vectors_)
        np.testing.assert_array_equal(old.decision_function(X), model.decision_function(X))
        del old.linear_coef_
        with pytest.raises(AttributeError):
            old.coef_
    else:
        assert old.linear_coef_ is None


def test_the_fitted_state_is_every_public_attribute_ending_in_an_underscore(fitted):
    from svmviz.registry import fitted_state

    model, X, y = fitted
    model = BinarySVC(kernel="linear", solver="smo", trace=True).fit(X, y)
    again = loads_model(dumps_model(model))
    assert fitted_state(again).keys() == fitted_state(model).keys() == {
        k for k in vars(model) if k.endswith("_") and not k.startswith("_")}
    assert {"trace_", "trace_data_", "linear_coef_", "history_"} <= fitted_state(again).keys()
    doc = json.loads(dumps_model(model))
    doc["model"]["fitted"]["coef_"] = [[1.0, 2.0]]   # a property of the class, not state
    with pytest.raises(ModelFormatError, match="no fitted attribute 'coef_'"):
        loads_model(json.dumps(doc))


def test_string_labels_survive(fitted):
    _, X, y = fitted
    model = BinarySVC(kernel="linear", solver="cvxpy").fit(X, np.where(y > 0, "yes", "no"))
    again = loads_model(dumps_model(model))
    assert again.classes_.tolist() == ["no", "yes"]
    np.testing.assert_array_equal(again.predict(X), model.predict(X))


def _doc(fitted) -> dict:
    return json.loads(dumps_model(fitted[0]))


def _with(doc, path, value):
    d = copy.deepcopy(doc)
    node = d
    for k in path[:-1]:
        node = node[k]
    node[path[-1]] = value
    return json.dumps(d)


PICKLE_B64 = base64.b64encode(pickle.dumps(os.getcwd)).decode()


@pytest.mark.parametrize("what,change,words", [
    ("unknown version", (["version"], 2), "version 2 is not supported"),
    ("version as a bool", (["version"], True), "not supported"),
    ("wrong format name", (["format"], "sklearn-model"), "not a svmviz model file"),
    ("unknown class", (["estimator_class"], "Popen"), "does not match"),
    ("unregistered class in both places", (["model", "__estimator__"], "subprocess.Popen"), "does not match"),
    ("pickle payload tag", (["model", "fitted", "alpha_"], {"__pickle__": PICKLE_B64}), "unknown entry '__pickle__'"),
    ("python object tag", (["model", "fitted", "alpha_"], {"__reduce__": ["os.system", ["ls"]]}), "unknown entry"),
    ("unknown record", (["model", "fitted", "history_"], {"__record__": "os.system", "fields": {}}),
     "unknown record type"),
    ("unknown fitted attribute", (["model", "fitted", "__class__"], "x"), "no fitted attribute"),
    ("unknown parameter", (["model", "params", "exec"], "print(1)"), "do not fit BinarySVC"),
    ("params not a mapping", (["model", "params"], [1, 2]), "parameters must be a JSON dict"),
    ("fitted not a mapping", (["model", "fitted"], "abc"), "fitted state must be a JSON dict"),
    ("array of wrong length", (["model", "fitted", "intercept_"],
                               {"__ndarray__": {"dtype": "float", "shape": [3], "data": [1.0]}}),
     "does not match its shape"),
    ("array of strings as floats", (["model", "fitted", "intercept_"],
                                    {"__ndarray__": {"dtype": "float", "shape": [1], "data": ["os"]}}),
     "malformed float array"),
    ("object array", (["model", "fitted", "intercept_"],
                      {"__ndarray__": {"dtype": "object", "shape": [1], "data": [1]}}), "unknown array dtype"),
    ("negative shape", (["model", "fitted", "intercept_"],
                        {"__ndarray__": {"dtype": "int", "shape": [-1], "data": []}}), "malformed int array"),
    ("bad special float", (["model", "fitted", "objective_"], {"__float__": "__import__('os')"}), "bad special float"),
    ("unhashable mapping key", (["model", "fitted", "kernel_params_"], {"__dict__": [[{"a": 1}, 2]]}), "malformed"),
])
def test_malformed_or_smuggling_documents_are_refused(fitted, what, change, words):
    text = _with(_doc(fitted), *change)
    with pytest.raises(ModelFormatError, match=words):
        loads_model(text)


@pytest.mark.parametrize("payload", [
    pickle.dumps(os.getcwd),  # a pickle file renamed to .json
    b"\x80\x04\x95",
    b"",
    b"[1, 2, 3]",
    b'{"format": "svmviz-model"}',
    b"not json at all",
    b"[" * 100000,  # deep nesting
    "\u00e9".encode("latin-1"),
])
def test_not_a_model_document(payload):
    with pytest.raises(ModelFormatError):
        loads_model(payload)
    with pytest.raises(ModelFormatError):
        load_model(io.BytesIO(payload))


def test_unregistered_estimator_cannot_be_saved():
    from sklearn.svm import SVC

    with pytest.raises(ModelFormatError, match="not a registered svmviz estimator"):
        dumps_model(SVC())


def test_missing_model_file(tmp_path):
    with pytest.raises(ModelFormatError, match="cannot read"):
        load_model(tmp_path / "absent.json")


# --- figures ------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def fig():
    return plot_dataset(load_builtin("data2"))


def test_html_export_is_self_contained(fig, tmp_path):
    out = export_figure(fig, tmp_path / "data.html")
    html = out.read_text()
    assert html.lower().startswith("<!doctype html>") and "Data2" in html
    assert 'src="http' not in html  # plotly.js is embedded, not fetched: works offline
    assert len(html) > 1_000_000


def test_unknown_figure_format(fig, tmp_path):
    with pytest.raises(ExportError, match="unknown figure format"):
        export_figure(fig, tmp_path / "data.jpg")


def test_png_svg_without_a_browser_say_what_is_missing(fig, monkeypatch):
    monkeypatch.setattr("svmviz.export.figures._browser", lambda: None)
    with pytest.raises(ExportError, match="needs Chrome or Chromium"):
        figure_bytes(fig, "png")


@pytest.mark.skipif(not HAVE_CHROMIUM, reason="PNG/SVG export needs a Chromium for kaleido")
@pytest.mark.browser
def test_png_and_svg_export(fig, tmp_path):
    png = export_figure(fig, tmp_path / "data.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000
    svg = export_figure(fig, tmp_path / "data.svg").read_text()
    assert svg.startswith("<svg") and "Data2" in svg


def test_html_export_of_an_animation_does_not_autoplay():
    import plotly.graph_objects as go

    fig = go.Figure(go.Scatter(x=[0, 1], y=[0, 1]), frames=[go.Frame(data=[go.Scatter(x=[1, 0], y=[0, 1])])])
    on = fig.to_html(include_plotlyjs=False, full_html=False)
    off = figure_bytes(fig, "html").decode()
    assert "Plotly.animate(" in on           # Plotly's default plays the frames on load
    assert "Plotly.animate(" not in off


# --- an imported model against the current data; lesson state against the app's settings -------

def test_a_model_must_match_the_datas_features_and_classes():
    from svmviz.data.generators import checkerboard
    from svmviz.export import check_model_matches
    from svmviz.models import PairwiseVotingSVC

    three = checkerboard(3, 12)
    model = loads_model(dumps_model(PairwiseVotingSVC(kernel="linear").fit(three.X, three.y)))
    check_model_matches(model, 2, three.classes)
    check_model_matches(model, 2, [0, 1, 2, 3])  # a page may show some of the data's classes
    with pytest.raises(ModelFormatError, match="fitted on 2 features; the current data has 5"):
        check_model_matches(model, 5, three.classes)
    with pytest.raises(ModelFormatError, match=r"3 classes \(0, 1, 2\), 1 of which \(2\) the current data does not have"):
        check_model_matches(model, 2, [0, 1])
    with pytest.raises(ModelFormatError, match="does not have"):
        check_model_matches(model, 2, ["0", "1", "2"])  # names are not the numbers


def test_a_lesson_whose_model_does_not_fit_its_data_is_refused():
    from svmviz.data.generators import checkerboard, hypercubes
    from svmviz.export.lesson import LessonFormatError, dumps_lesson, loads_lesson

    three = checkerboard(3, 12)
    model = BinarySVC(kernel="linear").fit(three.X[three.y < 2], three.y[three.y < 2])
    assert loads_lesson(dumps_lesson(three, {}, model)).model is not None
    wide = hypercubes(40, 3)
    with pytest.raises(LessonFormatError, match="does not fit its data set.*2 features.*has 3"):
        loads_lesson(dumps_lesson(wide, {}, model))
    other = checkerboard(2, 12)
    other.y[:] = np.where(other.y == 0, 5, 6)
    other = type(other)(other.X, other.y)
    with pytest.raises(LessonFormatError, match="does not fit its data set.*does not have"):
        loads_lesson(dumps_lesson(other, {}, model))


def test_lesson_state_is_checked_against_the_settings():
    from svmviz.export.lesson import LessonFormatError, Setting, validate_state

    schema = {"split.test": Setting(0.3, bounds=(0.05, 0.9)), "split.seed": Setting(0),
              "split.norm": Setting("none", options=("none", "minmax", "stddev")),
              "split.strat": Setting(True)}
    values, notes = validate_state({"split.test": 2, "split.seed": 7, "split.norm": "minmax"}, schema)
    assert values == {"split.test": 0.9, "split.seed": 7, "split.norm": "minmax"}
    assert notes == ["split.test = 2.0 is outside [0.05, 0.9]: 0.9 is used"]
    refused = [
        ({"split.test": "x"}, "split.test must be a finite number, not 'x'"),
        ({"split.seed": 1.5}, "split.seed must be a whole number"),
        ({"split.seed": True}, "split.seed must be a whole number"),
        ({"split.strat": 1}, "split.strat must be true or false"),
        ({"split.norm": "zscore"}, "split.norm must be one of 'none', 'minmax', 'stddev'"),
        ({"_svmviz_dataset": 1}, "internal to the app"),
        ({"_svmviz_pending": "x"}, "internal to the app"),
        ({"data_upload": "x"}, "internal to the app"),
        ({"tree.C_hard": 3.0}, "not a setting of this app"),
        ({"split.test": [1, 2]}, "values must be a string"),
    ]
    for state, words in refused:
        with pytest.raises(LessonFormatError) as err:
            validate_state(state, schema)
        assert words in str(err.value), (state, str(err.value))
    # settings of pages not opened yet may be handed on (the app checks them when they are bound)
    later = validate_state({"tree.C_hard": 3.0}, schema, unknown=lambda k, v: (v, None))
    assert later == ({"tree.C_hard": 3.0}, [])


@pytest.mark.parametrize("state,words", [
    ({"split.test": "x"}, "split.test must be a finite number"),
    ({"split.strat": "yes"}, "split.strat must be true or false"),
    ({"_svmviz_dataset": 1}, "internal to the app"),
    ({"data_upload": "x"}, "internal to the app"),
])
def test_the_data_page_refuses_a_lesson_with_a_bad_setting_and_keeps_the_data(state, words):
    from apphelpers import as_read, page_test, problems
    from svmviz.export.lesson import dumps_lesson

    ds = load_builtin("hypercubes")
    at = page_test("pages/1_Data.py", dataset=ds, spec="hypercubes").run()
    text = dumps_lesson(load_builtin("mexican_hat"), state)
    at.radio(key="data.source").set_value("Upload a file").run()
    at.file_uploader(key="data_upload").set_value(("lesson.json", text.encode(), "application/json")).run()
    assert not problems(at)
    assert any(words in as_read(e.value) for e in at.error), [e.value for e in at.error]
    assert at.session_state["_svmviz_dataset"] is ds


def test_a_three_class_model_on_two_class_data_is_refused_on_its_page():
    from apphelpers import as_read, page_test, problems
    from svmviz_app.widgets import import_open_key
    from svmviz.data.generators import checkerboard
    from svmviz.models import DAGSVC

    three = checkerboard(3, 15)
    model = DAGSVC(kernel="linear").fit(three.X, three.y)
    ds = load_builtin("fourclass_like")
    at = page_test("pages/6_DAG_SVM.py", dataset=ds, spec="fourclass_like", **{import_open_key("dag"): True}).run()
    at.file_uploader(key="dag_upload").set_value(("three.json", dumps_model(model).encode(),
                                                  "application/json")).run()
    assert not problems(at)
    assert any("cannot use three.json" in as_read(e.value) and "does not have" in as_read(e.value)
               for e in at.error)
    assert not any("imported model" in c.value for c in at.caption)


# ---------------------------------------------------------------- tampered, oversized and device files


rng = np.random.default_rng(1)
# two separated blobs, small enough to fit in milliseconds
BLOBS_X = np.vstack([rng.normal(-2, 0.6, size=(15, 2)), rng.normal(2, 0.6, size=(15, 2))])
BLOBS_Y = np.repeat([0, 1], 15)


@pytest.fixture(scope="module")
def svc_doc():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return json.loads(dumps_model(BinarySVC(kernel="rbf", gamma=0.5).fit(BLOBS_X, BLOBS_Y)))


def _fitted(doc, attr):
    return doc["model"]["fitted"][attr]


def _tamper(doc, change):
    d = json.loads(json.dumps(doc))
    change(d)
    return json.dumps(d)


def _set_array(attr, **fields):
    return lambda d: _fitted(d, attr)["__ndarray__"].update(fields)


TAMPERED = [
    ("NaN support vector", lambda d: _fitted(d, "support_vectors_")["__ndarray__"]["data"].__setitem__(0, "nan"),
     "NaN or infinite"),
    ("inf intercept", _set_array("intercept_", data=["inf"]), "NaN or infinite"),
    ("negative gamma (fitted)", lambda d: _fitted(d, "kernel_params_").update(gamma=-1.0), "gamma"),
    ("negative gamma (parameter)", lambda d: d["model"]["params"].update(gamma=-0.5), "gamma"),
    ("string C", lambda d: d["model"]["params"].update(C="1"), "C must be"),
    ("dual_coef_ of the wrong length", _set_array("dual_coef_", shape=[1, 1],
                                                  data=[1.0]), "cannot predict"),
    ("support vectors of the wrong width", lambda d: _fitted(d, "support_vectors_")["__ndarray__"].update(
        shape=[len(_fitted(d, "support_vectors_")["__ndarray__"]["data"]) // 4, 4]), "cannot predict"),
    ("support vectors as text", lambda d: d["model"]["fitted"].update(support_vectors_="oops"),
     "cannot predict"),
    ("intercept_ missing", lambda d: d["model"]["fitted"].update(intercept_={"__ndarray__": {
        "dtype": "float", "shape": [0], "data": []}}), "cannot predict"),
    ("huge shape", _set_array("intercept_", shape=[10**30]), "shape"),
    ("fractional shape", _set_array("intercept_", shape=[1.0]), "shape"),
    ("one class", lambda d: d["model"]["fitted"].update(classes_={"__ndarray__": {
        "dtype": "int", "shape": [1], "data": [0]}}), "classes_"),
    ("n_features_in_ as text", lambda d: d["model"]["fitted"].update(n_features_in_="2"), "n_features_in_"),
    ("kernel_params_ incomplete", lambda d: _fitted(d, "kernel_params_").pop("gamma"), "cannot predict"),
]


@pytest.mark.parametrize("what,change,words", TAMPERED, ids=[t[0] for t in TAMPERED])
def test_tampered_model_documents_are_model_format_errors(svc_doc, what, change, words):
    with pytest.raises(ModelFormatError, match=words):
        loads_model(_tamper(svc_doc, change))


def test_nested_estimators_are_validated_too():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        doc = json.loads(dumps_model(DAGSVC(kernel="linear").fit(BLOBS_X, BLOBS_Y)))
    inner = doc["model"]["fitted"]["estimators_"][0]["fitted"]
    inner["dual_coef_"]["__ndarray__"]["data"][0] = "inf"
    with pytest.raises(ModelFormatError, match="NaN or infinite"):
        loads_model(json.dumps(doc))


def _first_record_array(node):
    """The first float array inside a record of a model document (depth first)."""
    if isinstance(node, dict):
        if "__record__" in node:
            for v in node.get("fields", {}).values():
                if isinstance(v, dict) and v.get("__ndarray__", {}).get("dtype") == "float" \
                        and v["__ndarray__"]["data"]:
                    return v["__ndarray__"]
        for v in node.values():
            if (hit := _first_record_array(v)) is not None:
                return hit
    elif isinstance(node, list):
        for v in node:
            if (hit := _first_record_array(v)) is not None:
                return hit
    return None


def test_nan_arrays_inside_records_are_refused():
    """A NaN hyperplane in an SVM-tree node still "predicts" (every comparison with NaN is
    False), so only the values tell: records may hold non-finite scalars, never arrays."""
    from svmviz.models import SVMTreeClassifier

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        doc = json.loads(dumps_model(SVMTreeClassifier().fit(BLOBS_X, BLOBS_Y)))
    assert type(loads_model(json.dumps(doc))) is SVMTreeClassifier
    arr = _first_record_array(doc["model"]["fitted"])
    arr["data"] = ["nan"] * len(arr["data"])
    with pytest.raises(ModelFormatError, match="NaN or infinite"):
        loads_model(json.dumps(doc))


def test_model_documents_have_a_size_cap(svc_doc, tmp_path, classroom_budget):
    text = json.dumps(svc_doc)
    assert type(loads_model(text)) is BinarySVC
    with pytest.raises(ModelFormatError, match="limit"):
        loads_model(text, max_mb=len(text) / 2**20 / 2)
    big = tmp_path / "big.json"
    with open(big, "wb") as fh:
        fh.truncate(int((classroom_budget.model_mb + 1) * 2**20))   # sparse: no disk used
    with pytest.raises(ModelFormatError, match="limit"):
        load_model(big)
    # a file object is read at most up to the cap, however long it is
    stream = io.BytesIO(b" " * (2**20 + 10))
    with pytest.raises(ModelFormatError, match="limit"):
        load_model(stream, max_mb=1)
    assert stream.tell() <= 2**20 + 1


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_devices_and_directories_are_refused_unread(tmp_path):
    with pytest.raises(ModelFormatError, match="not a regular file"):
        load_model("/dev/zero")
    with pytest.raises(ModelFormatError, match="directory"):
        load_model(tmp_path)


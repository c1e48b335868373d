"""Reliability and security under hostile input, library and CLI parts: the loaders, the model
format, the CLI and the point plots. Parameter validation: test_parameter_constraints.py."""

from __future__ import annotations

import csv
import io
import json
import os
import pathlib
import re
import warnings

import numpy as np
import plotly.graph_objects as go
import pytest

import svmviz.data.loaders as loaders
from svmviz.cli import main
from svmviz.data import Dataset, load_dataset, normalize
from svmviz.data.dataset import csv_cell, plain_text
from svmviz.errors import DataError, ModelFormatError
from svmviz.export import dumps_model, load_model, loads_model
from svmviz.export.models import MAX_MODEL_MB
from svmviz.models import BinarySVC, DAGSVC
from svmviz.plots import common
from svmviz.plots.data import plot_dataset

rng = np.random.default_rng(1)
X = np.vstack([rng.normal(-2, 0.6, size=(15, 2)), rng.normal(2, 0.6, size=(15, 2))])
Y = np.repeat([0, 1], 15)


def upload(text: str | bytes, name: str = "data.csv"):
    f = io.BytesIO(text.encode() if isinstance(text, str) else text)
    f.name = name
    return f


def run(argv, capsys):
    code = main([str(a) for a in argv])
    cap = capsys.readouterr()
    return code, cap.out, cap.err


# --- large data in the browser ------------------------------------------------------------------

def test_large_scatter_uses_webgl_and_a_stated_seeded_sample():
    n = common.MAX_DRAWN_POINTS + 7_000
    P = np.random.default_rng(0).normal(size=(n, 2))
    y = (P[:, 0] > 0).astype(int)
    fig = common.add_class_scatter(go.Figure(), P, y)
    assert all(isinstance(t, go.Scattergl) for t in fig.data)
    assert sum(len(t.x) for t in fig.data) == common.MAX_DRAWN_POINTS
    note = fig.layout.annotations[0].text
    assert f"{common.MAX_DRAWN_POINTS:,} of the {n:,}" in note and "seed" in note
    again = common.add_class_scatter(go.Figure(), P, y)   # the same sample every time
    np.testing.assert_array_equal(again.data[0].x, fig.data[0].x)
    # between the threshold and the cap: WebGL, every point, no note
    m = common.WEBGL_THRESHOLD + 1
    mid = common.add_class_scatter(go.Figure(), P[:m], y[:m])
    assert all(isinstance(t, go.Scattergl) for t in mid.data) and not mid.layout.annotations
    assert sum(len(t.x) for t in mid.data) == m
    small = common.add_class_scatter(go.Figure(), P[:50], y[:50])
    assert all(type(t) is go.Scatter for t in small.data)


def test_data_plot_of_a_large_upload_samples_train_and_test():
    n = common.MAX_DRAWN_POINTS + 1
    P = np.random.default_rng(2).normal(size=(n, 3))
    ds = Dataset(P, (P[:, 0] > 0).astype(int))
    fig = plot_dataset(ds, test=ds)
    assert sum(len(t.x) for t in fig.data) == 2 * common.MAX_DRAWN_POINTS
    assert len(fig.layout.annotations) == 2 and "test points" in fig.layout.annotations[1].text


def test_decision_grid_resolution_is_fixed():
    P = np.random.default_rng(3).normal(size=(10, 2))
    xs, ys, G = common.grid(P)
    assert len(xs) == len(ys) == common.GRID_RESOLUTION
    xs, _, G = common.grid(P, resolution=10**6)   # a huge request is capped
    assert len(xs) == common.MAX_GRID_RESOLUTION and len(G) == common.MAX_GRID_RESOLUTION**2


# --- CSV cell limit before parsing --------------------------------------------------------------

def test_csv_cell_limit_is_checked_before_any_cell_is_parsed(monkeypatch):
    monkeypatch.setattr(loaders, "MAX_CELLS", 50)

    def no_parsing(_):
        raise AssertionError("a cell was parsed before the size check")

    monkeypatch.setattr(loaders, "_number", no_parsing)
    rows = "".join(f"{i},{i + 1},{i % 2}\n" for i in range(30))   # 30 rows × 2 features = 60
    with pytest.raises(DataError, match="at most 50 values"):
        load_dataset(upload("x1,x2,label\n" + rows))
    with pytest.raises(DataError, match="at most 50 values"):   # whitespace-separated too
        load_dataset(upload(rows.replace(",", " "), "d.txt"))


def test_a_wide_csv_is_refused_by_the_cell_limit():
    wide = ",".join(["1"] * 6_000_001) + "\n"   # a 4 × 6,000,000 table
    with pytest.raises(DataError, match="at most 20,000,000 values"):
        load_dataset(upload(wide * 4), max_mb=60)


# --- every error a ValueError -------------------------------------------------------------------

def test_loader_errors_are_data_errors(monkeypatch, tmp_path):
    f = tmp_path / "locked.csv"
    f.write_text("1,2,0\n2,3,1\n")

    def denied(*a, **k):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(pathlib.Path, "open", denied)
    with pytest.raises(DataError, match="Permission denied"):
        load_dataset(f)
    monkeypatch.undo()
    for bad in (123, b"1,2,0\n", None, ["a.csv"]):
        with pytest.raises(DataError):
            load_dataset(bad)
    with pytest.raises(DataError, match="max_mb"):
        load_dataset(upload("1,0\n2,1\n"), max_mb="5")
    with pytest.raises(DataError, match="NUL"):
        load_dataset("a\x00b.csv")
    with pytest.raises(DataError, match="numbers"):
        Dataset([[10**400], [1], [2], [3]], [0, 1, 0, 1])
    with pytest.raises(DataError, match="mix numbers and text"):
        Dataset(X[:4], [1, "a", 1, "a"])
    with pytest.raises(DataError, match="feature_range"):
        normalize(X, feature_range=("a", "b"))


# --- model files validated for values, shapes, size ---------------------------------------------

@pytest.fixture(scope="module")
def svc_doc():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return json.loads(dumps_model(BinarySVC(kernel="rbf", gamma=0.5).fit(X, Y)))


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
        doc = json.loads(dumps_model(DAGSVC(kernel="linear").fit(X, Y)))
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
        doc = json.loads(dumps_model(SVMTreeClassifier().fit(X, Y)))
    assert type(loads_model(json.dumps(doc))) is SVMTreeClassifier
    arr = _first_record_array(doc["model"]["fitted"])
    arr["data"] = ["nan"] * len(arr["data"])
    with pytest.raises(ModelFormatError, match="NaN or infinite"):
        loads_model(json.dumps(doc))


def test_model_documents_have_a_size_cap(svc_doc, tmp_path):
    text = json.dumps(svc_doc)
    assert type(loads_model(text)) is BinarySVC
    with pytest.raises(ModelFormatError, match="limit"):
        loads_model(text, max_mb=len(text) / 2**20 / 2)
    big = tmp_path / "big.json"
    with open(big, "wb") as fh:
        fh.truncate(int((MAX_MODEL_MB + 1) * 2**20))   # sparse: no disk used
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


def test_cli_predict_with_a_bad_model_is_one_line_exit_2(svc_doc, tmp_path, capsys):
    data = tmp_path / "d.csv"
    data.write_text("x1,x2,label\n" + "".join(f"{a},{b},{c}\n" for (a, b), c in zip(X, Y)))
    bad = tmp_path / "bad.json"
    bad.write_text(_tamper(svc_doc, TAMPERED[0][1]))
    for model in (bad, "/dev/zero", tmp_path):
        code, _, err = run(["predict", model, data], capsys)
        assert code == 2 and err.count("\n") == 1 and err.startswith("svmviz: error:"), err


# --- injection ----------------------------------------------------------------------------------

def test_predict_out_neutralises_formula_cells(tmp_path, capsys):
    src = tmp_path / "inj.csv"
    body = "".join(f"{a:.3f},{b:.3f},{'=cmd|calc' if c else '@SUM(A1)'}\n" for (a, b), c in zip(X, Y))
    src.write_text("=HYPERLINK(x),+x2,label\n" + body)
    model, out = tmp_path / "m.json", tmp_path / "p.csv"
    assert run(["fit", "BinarySVC", src, "--test-size", "0", "--param", "kernel=linear",
                "--out", model], capsys)[0] == 0
    assert run(["predict", model, src, "--out", out], capsys)[0] == 0
    with out.open(newline="") as fh:
        rows = list(csv.reader(fh))
    cells = [c for r in rows for c in r]
    assert not any(c.startswith(("=", "+", "-", "@", "\t", "\r")) and not _is_number(c) for c in cells)
    assert rows[0][:2] == ["'=HYPERLINK(x)", "'+x2"] and {"'=cmd|calc", "'@SUM(A1)"} <= set(cells)
    assert any(c.startswith("-") and _is_number(c) for c in cells)   # negative numbers stay numbers


def _is_number(s: str) -> bool:
    try:
        float(s)
        return True
    except ValueError:
        return False


def test_csv_cell_and_plain_text_helpers():
    assert csv_cell("=1+1") == "'=1+1" and csv_cell("-1e3") == "-1e3" and csv_cell(-2.0) == -2.0
    for c in ("+a", "-a", "@a", "\ta", "\ra"):
        assert csv_cell(c) == "'" + c
    raw = "![pixel](https://example.invalid/x.png)\n<img src=x> **bold** `c` _i_ # h"
    shown = plain_text(raw)
    # every Markdown/HTML character is backslash-escaped (shown as typed, never markup) ...
    assert not any(ch in re.sub(r"\\.", "", shown) for ch in "![]()<>*_`#\n")
    # ... and unescaping gives the text back, the line break as a space (and an invisible word
    # joiner in "://", so that GitHub-flavoured Markdown does not link the bare URL)
    assert "://" not in shown
    assert re.sub(r"\\(.)", r"\1", shown).replace("\u2060", "") == raw.replace("\n", " ")


# --- file kinds, CSV cells, CLI messages --------------------------------------------------------

def test_quoted_label_keeps_its_line_break():
    ds = load_dataset(upload('x1,x2,label\n0,0,"a\nb"\n0,1,"a\nb"\n1,0,c\n1,1,c\n'))
    assert ds.class_names == ["a\nb", "c"] and ds.n_samples == 4


def test_directory_and_device_get_the_right_message(tmp_path):
    with pytest.raises(DataError, match="is a directory"):
        load_dataset(tmp_path)
    if os.path.exists("/dev/zero"):
        with pytest.raises(DataError, match="not a regular file"):
            load_dataset("/dev/zero")
    with pytest.raises(DataError, match="no such file"):
        load_dataset(tmp_path / "missing.csv")


def test_cli_prefers_a_local_file_over_a_builtin_and_says_so(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    pathlib.Path("iris").write_text("x1,x2,label\n0,0,a\n0,1,a\n5,5,b\n5,6,b\n")
    code, out, err = run(["fit", "BinarySVC", "iris", "--test-size", "0", "--param", "kernel=linear",
                          "--out", "m.json"], capsys)
    assert code == 0 and "using the local file 'iris'" in err and "(4 samples)" in out


@pytest.mark.parametrize("param,words", [("degree=2.5", "degree"), ("degree=-1", "degree"),
                                         ("max_iter=1e30", "max_iter"), ('C="1"', "C must be"),
                                         ("tol=NaN", "tol")])
def test_cli_bad_parameter_is_one_line_exit_2(param, words, tmp_path, capsys):
    code, _, err = run(["fit", "BinarySVC", "iris", "--param", "kernel=poly", "--param", param,
                        "--out", tmp_path / "m.json"], capsys)
    assert code == 2 and words in err and err.count("\n") == 1, err

"""The data layer: loaders (CSV, LIBSVM), every bad input a DataError, normalization and splits."""

from __future__ import annotations

import io
import os
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import svmviz.data.loaders as loaders
from svmviz.limits import budget

from svmviz.data import (BUILTINS, Dataset, DataError, load_builtin, load_dataset,
                         normalize, split_and_normalize, split_indices,
                         train_test_split)
from svmviz.data.dataset import csv_cell, plain_text

GOOD_CSV = "x1,x2,label\n0,0,a\n0,1,a\n1,0,b\n1,1,b\n"


def upload(text: str | bytes, name: str = "data.csv"):
    """What Streamlit's file_uploader hands over: a BytesIO with a name."""
    f = io.BytesIO(text.encode() if isinstance(text, str) else text)
    f.name = name
    return f


# (what, file content, file name, words the message must contain)
BAD_INPUTS = [
    ("empty file", b"", "e.csv", ["empty"]),
    ("whitespace only", b"  \n\n\t\n", "e.csv", ["empty"]),
    ("comments only", b"# nothing here\n", "c.csv", ["no data rows"]),
    ("header only", b"x1,x2,label\n", "h.csv", ["header but no data rows"]),
    ("non-numeric feature", b"x1,x2,label\n1,2,0\n3,abc,1\n1,1,0\n2,2,1\n", "n.csv",
     ["row 3", "'x2'", "'abc'", "not a number"]),
    ("missing value", b"x1,x2,label\n1,2,0\n3,,1\n1,1,0\n2,2,1\n", "m.csv", ["row 3", "'x2'", "empty"]),
    ("NaN feature", b"x1,x2,label\n1,2,0\n3,nan,1\n1,1,0\n2,2,1\n", "nan.csv", ["row 3", "'x2'", "NaN"]),
    ("+inf feature", b"x1,x2,label\n1,inf,0\n3,4,1\n1,1,0\n2,2,1\n", "inf.csv", ["row 2", "'x2'", "infinite"]),
    ("-inf feature", b"1,2,0\n-inf,4,1\n1,1,0\n2,2,1\n", "ninf.csv", ["row 2", "'x1'", "infinite"]),
    ("single class", b"x1,x2,label\n1,2,0\n3,4,0\n5,6,0\n", "one.csv", ["only one class", "two"]),
    ("one sample of a class", b"x1,x2,label\n1,2,0\n3,4,0\n5,6,1\n", "few.csv", ["class 1", "1 sample"]),
    ("ragged rows", b"x1,x2,label\n1,2,0\n3,4\n1,1,0\n2,2,1\n", "r.csv", ["row 3", "2 fields", "3"]),
    ("missing label column", b"x1,x2,x3\n0.1,0.5,0.25\n0.3,0.7,0.75\n0.2,0.4,0.5\n", "nolabel.csv",
     ["'x3'", "not a class label", "No column is named label"]),
    ("empty label", b"x1,label\n1,0\n2,\n3,1\n4,1\n", "el.csv", ["row 3", "no label"]),
    ("NaN label", b"x1,label\n1,0\n2,nan\n3,1\n4,1\n", "nl.csv", ["row 3", "not a class label"]),
    ("single column", b"label\n0\n1\n0\n1\n", "sc.csv", ["single column"]),
    ("binary garbage", bytes(range(256)) * 4, "g.bin", ["binary"]),
    ("latin-1 noise", bytes(range(128, 256)) * 8, "noise.csv", ["not look like a text file"]),
    ("carriage return inside a line", b"\r;", "cr.csv", ["not valid CSV"]),
    ("UTF-16 text", "x1,label\n1,0\n".encode("utf-16"), "u16.csv", ["NUL", "UTF-16"]),
    ("LIBSVM unsorted indices", b"1 2:1 1:3\n-1 1:1\n1 1:2\n-1 2:2\n", "u.libsvm",
     ["LIBSVM", "line 1", "index 1 comes after 2", "sorted"]),
    ("LIBSVM bad label", b"a 1:2\n-1 1:1\n", "b.libsvm", ["line 1", "label", "'a'", "not a number"]),
    ("LIBSVM value not a number", b"1 1:2\n-1 1:x2\n", "v.libsvm", ["line 2", "'x2'", "not a number"]),
    ("LIBSVM index not a number", b"1 1:2\n-1 a:1\n", "a.libsvm", ["LIBSVM", "line 2", "'-1 a:1'", "whole-number"]),
    ("LIBSVM negative index", b"1 1:2\n-1 -3:1\n", "neg.libsvm", ["LIBSVM", "line 2", "whole-number"]),
    ("LIBSVM feature without a value", b"1 1:2 2:\n-1 1:1\n", "nv.libsvm", ["LIBSVM", "line 1"]),
    ("LIBSVM value without an index", b"1 1:2\n-1 :1\n", "ni.libsvm", ["LIBSVM", "line 2"]),
    ("LIBSVM two colons", b"1 1:2:3\n-1 1:1\n", "cc.libsvm", ["LIBSVM", "line 1"]),
    ("LIBSVM stray number", b"1 1:2\n-1 1:1 5\n", "sn.libsvm", ["LIBSVM", "line 2", "'-1 1:1 5'"]),
    ("LIBSVM repeated index", b"1 1:2 1:3\n-1 1:1\n", "r.libsvm", ["line 1", "sorted and unique"]),
    ("LIBSVM index beyond int64", b"1 1:2 99999999999999999999:1\n-1 1:1\n", "l.libsvm",
     ["line 1", "99999999999999999999", "too large"]),
    ("LIBSVM nan value", b"1 1:nan\n-1 1:1\n1 1:2\n-1 1:3\n", "n.libsvm", ["line 1", "NaN"]),
    ("LIBSVM inf value", b"1 1:1e999\n-1 1:1\n1 1:2\n-1 1:3\n", "i.libsvm", ["line 1", "infinite"]),
    ("LIBSVM huge index", b"1 1:1 1500000000:2\n-1 1:1\n1 1:2\n-1 1:3\n", "h.libsvm", ["features"]),
    ("LIBSVM one class", b"1 1:1\n1 1:2\n", "o.libsvm", ["only one class"]),
    # LIBSVM labels follow the rules of a CSV label column
    ("LIBSVM fractional labels", b"0.5 1:1\n1.5 1:2\n0.5 1:3\n1.5 1:4\n", "f.libsvm",
     ["line 1", "0.5", "not a class label", "whole numbers"]),
    ("LIBSVM labels beyond 2**53", b"1152921504606846976 1:1\n1152921504606846977 1:2\n"
     b"1152921504606846976 1:3\n1152921504606846977 1:4\n", "big.libsvm", ["line 1", "2**53"]),
    ("CSV labels beyond 2**53", b"x1,label\n1,1152921504606846976\n2,1152921504606846977\n"
     b"3,1152921504606846976\n4,1152921504606846977\n", "big.csv", ["row 2", "'label'", "2**53"]),
    ("CSV fractional labels", b"x1,label\n1,0.5\n2,1.5\n3,0.5\n4,1.5\n", "frac.csv",
     ["row 2", "'0.5'", "not a class label"]),
    ("boolean feature", b"x1,x2,label\n1,True,0\n2,False,1\n3,True,0\n4,False,1\n", "b.csv",
     ["row 2", "'x2'", "'True'", "not a number"]),
    ("row after a comment", b"x1,x2,label\n1,2,0\n# a note\n\n3,abc,1\n1,1,0\n2,2,1\n", "c.csv",
     ["row 3", "'x2'", "'abc'"]),
    ("too many fields", b"x1,x2,label\n1,2,0\n3,4,1,9\n1,1,0\n2,2,1\n", "w.csv",
     ["row 3", "4 fields", "header has 3"]),
    ("header wider than rows", b"x1,x2,x3,label\n1,2,0\n3,4,1\n", "hw.csv", ["row 2", "3 fields", "4"]),
]


@pytest.mark.parametrize("what,content,name,words", BAD_INPUTS, ids=[b[0] for b in BAD_INPUTS])
def test_bad_input_is_a_clear_data_error(what, content, name, words, tmp_path):
    path = tmp_path / name
    path.write_bytes(content)
    for source in (path, upload(content, name)):  # a file on disk and an upload give the same answer
        with pytest.raises(DataError) as err:
            load_dataset(source)
        for w in words:
            assert w in str(err.value), f"{what}: {w!r} not in {str(err.value)!r}"


def test_file_over_the_size_limit(tmp_path, classroom_budget):
    big = tmp_path / "big.csv"
    with open(big, "wb") as fh:  # sparse: over the limit without writing 50 MB
        fh.truncate(int(classroom_budget.file_mb * 2**20) + 1)
    with pytest.raises(DataError, match=f"the limit is {classroom_budget.file_mb:g} MB"):
        load_dataset(big)
    small_limit = 0.001  # MB: the same check on an upload object, without a big buffer
    payload = "x1,x2,label\n" + "0,0,a\n0,1,a\n1,0,b\n1,1,b\n" * 100
    with pytest.raises(DataError, match="larger than the 0.001 MB limit"):
        load_dataset(upload(payload), max_mb=small_limit)
    assert load_dataset(upload(payload), max_mb=1).n_samples == 400


def test_missing_path_and_unknown_format(tmp_path):
    with pytest.raises(DataError, match="no such file"):
        load_dataset(tmp_path / "nope.csv")
    with pytest.raises(DataError, match="unknown format"):
        load_dataset(upload(GOOD_CSV), fmt="xlsx")
    with pytest.raises(DataError, match="cannot read data from a int"):
        load_dataset(42)


def test_csv_header_and_named_label_column():
    ds = load_dataset(upload("class,width,height\ncat,1,2\ncat,1.5,2.5\ndog,3,4\ndog,3.5,4.5\n", "pets.csv"))
    assert ds.feature_names == ["width", "height"]
    assert ds.class_names == ["cat", "dog"]
    np.testing.assert_array_equal(ds.X, [[1, 2], [1.5, 2.5], [3, 4], [3.5, 4.5]])
    assert ds.name == "pets" and ds.source == "upload: pets.csv"
    for label_name in ("label", "Target", "y"):
        d2 = load_dataset(upload(f"a,{label_name},b\n1,0,2\n3,1,4\n5,0,6\n7,1,8\n"))
        assert d2.feature_names == ["a", "b"]
        np.testing.assert_array_equal(d2.y, [0, 1, 0, 1])


def test_csv_without_header_takes_the_last_column():
    ds = load_dataset(upload("0.5;1.5;-1\n2;3;1\n4;5;-1\n6;7;1\n", "semi.txt"))
    assert ds.feature_names == ["x1", "x2"]
    assert ds.y.dtype.kind == "i"
    np.testing.assert_array_equal(ds.y, [-1, 1, -1, 1])
    spaced = load_dataset(upload("# a comment\n1 2 0\n3 4 1\n\n5 6 0\n7 8 1\n", "spaced.dat"))
    np.testing.assert_array_equal(spaced.X[:, 1], [2, 4, 6, 8])


def test_utf8_bom_and_string_labels_without_header():
    ds = load_dataset(upload("\ufeff1,2,yes\n3,4,no\n5,6,yes\n7,8,no\n".encode("utf-8"), "bom.csv"))
    assert ds.class_counts() == {"no": 2, "yes": 2}


def test_libsvm_and_format_inference(tmp_path):
    text = "+1 1:0.5 3:-1\n-1 2:0.25\n+1 1:1 2:1 3:1\n-1 1:-0.5\n"
    p = tmp_path / "tiny"  # no extension: the content says LIBSVM
    p.write_text(text)
    ds = load_dataset(p)
    assert ds.X.shape == (4, 3) and ds.feature_names == ["x1", "x2", "x3"]
    np.testing.assert_array_equal(ds.X[0], [0.5, 0, -1])
    np.testing.assert_array_equal(ds.y, [1, -1, 1, -1])
    assert load_dataset(upload(text, "t.svm")).n_samples == 4
    with pytest.raises(DataError, match="LIBSVM"):
        load_dataset(upload(GOOD_CSV), fmt="libsvm")


def test_quoted_cells_spaces_crlf_and_comments_read_as_before():
    text = ('# made by hand\r\n"width", "height" ,class\r\n 1.5 , 2,"cat"\r\n\r\n3,4e0, dog \r\n'
            '  # a note\r\n5,6,cat\r\n7,8,dog')
    ds = load_dataset(upload(text, "pets.csv"))
    assert ds.feature_names == ["width", "height"]
    np.testing.assert_array_equal(ds.X, [[1.5, 2], [3, 4], [5, 6], [7, 8]])
    assert ds.class_counts() == {"cat": 2, "dog": 2}


def test_upload_object_read_twice_gives_the_same_data():
    f = upload(GOOD_CSV)
    a, b = load_dataset(f), load_dataset(f)  # Streamlit reruns read the same object again
    np.testing.assert_array_equal(a.X, b.X)


def test_fourclass_builtin(fourclass):
    assert fourclass.X.shape == (862, 2)
    assert fourclass.class_counts() == {-1: 555, 1: 307}
    assert fourclass.X.min() >= -1 and fourclass.X.max() <= 1


def test_fourclass_missing_says_where_to_get_it(monkeypatch, tmp_path):
    monkeypatch.setenv("SVMVIZ_DATA_DIR", str(tmp_path))
    with pytest.raises(DataError, match="csie.ntu.edu.tw.*SVMVIZ_DATA_DIR"):
        load_builtin("fourclass")
    with pytest.raises(DataError, match="unknown built-in"):
        load_builtin("nope")


@pytest.mark.parametrize("name", [n for n in BUILTINS if n != "fourclass"])
def test_every_other_builtin_loads(name):
    ds = load_builtin(name)
    assert ds.n_samples >= 60 and len(ds.classes) >= 2 and ds.X.dtype == np.float64


# --- random input: a Dataset or a DataError, nothing else --------------------------------------

any_cell = st.one_of(st.integers(-5, 5).map(str), st.floats(allow_nan=True, allow_infinity=True).map(repr),
                     st.sampled_from(["", "a", "label", "class", "nan", "inf", "1e999", "#", '"', "1:2"]))

def _check(result_of):
    try:
        ds = result_of()
    except DataError:
        return
    assert isinstance(ds, Dataset)
    assert ds.X.dtype == np.float64 and np.isfinite(ds.X).all() and len(ds.classes) >= 2


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.binary(max_size=400), name=st.sampled_from(["f.csv", "f.libsvm", "f", "f.txt"]))
def test_random_bytes_give_a_dataset_or_a_data_error(data, name):
    _check(lambda: load_dataset(upload(data, name)))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=st.lists(st.lists(any_cell, min_size=1, max_size=5), max_size=12),
       sep=st.sampled_from([",", ";", "\t", " "]), header=st.booleans(), fmt=st.sampled_from([None, "csv", "libsvm"]))
def test_random_csv_like_text_gives_a_dataset_or_a_data_error(rows, sep, header, fmt):
    lines = ([sep.join(["x1", "x2", "label"])] if header else []) + [sep.join(r) for r in rows]
    _check(lambda: load_dataset(upload("\n".join(lines)), fmt=fmt))


@settings(max_examples=80, deadline=None)
@given(rows=st.lists(st.tuples(st.integers(-1, 1), st.lists(
    st.tuples(st.integers(0, 6), st.sampled_from(["0.5", "-1", "nan", "x", "1e999", "2"])), max_size=4)),
    min_size=1, max_size=10))
def test_random_libsvm_like_text_gives_a_dataset_or_a_data_error(rows):
    text = "\n".join(f"{lab} " + " ".join(f"{i}:{v}" for i, v in feats) for lab, feats in rows)
    _check(lambda: load_dataset(upload(text, "r.libsvm")))


# LIBSVM text as scikit-learn's reader reads it: the same matrix and labels
libsvm_value = st.one_of(st.floats(-1e6, 1e6, allow_nan=False).map(repr), st.integers(-99, 99).map(str),
                         st.sampled_from(["0", "-0", "1e-3", "+2.5", ".5", "5.", "1E2", "0.0"]))


@st.composite
def libsvm_files(draw):
    """LIBSVM text with sparse increasing indices (one- or zero-based), empty rows, labels written
    +1/-1/0/1/2, qid fields, comment lines and trailing comments, tabs, CRLF and blank lines."""
    zero = draw(st.booleans())
    n = draw(st.integers(1, 12))
    sep, eol = draw(st.sampled_from([" ", "\t", "  "])), draw(st.sampled_from(["\n", "\r\n"]))
    lines = [draw(st.sampled_from(["", "# a comment line"]))] if draw(st.booleans()) else []
    for _ in range(n):
        label = draw(st.sampled_from(["+1", "-1", "0", "1", "2", "1.0"]))
        idx = sorted(draw(st.sets(st.integers(0 if zero else 1, 40), max_size=6)))
        fields = [label] + ([f"qid:{draw(st.integers(0, 9))}"] if draw(st.booleans()) else [])
        fields += [f"{i}:{draw(libsvm_value)}" for i in idx]
        line = sep.join(fields) + draw(st.sampled_from(["", " ", sep + "# note 3:4"]))
        lines.append(line)
        if draw(st.integers(0, 5)) == 0:
            lines.append(draw(st.sampled_from(["", "  ", "#x"])))
    return eol.join(lines) + draw(st.sampled_from(["", eol]))


def _sklearn_libsvm(data: bytes):
    from sklearn.datasets import load_svmlight_file

    X, y = load_svmlight_file(io.BytesIO(data))
    return X.toarray(), y


@settings(max_examples=200, deadline=None)
@given(text=libsvm_files())
def test_libsvm_text_reads_as_scikit_learn_reads_it(text):
    data = text.encode()
    if not data.strip(b" \t\r\n#ax").strip():
        return
    X, y = _sklearn_libsvm(data)
    got_X, got_y, names = loaders._parse_libsvm(loaders._data_bytes(data), "g.libsvm")
    np.testing.assert_array_equal(got_X, X)
    np.testing.assert_array_equal(got_y, y)
    assert got_y.dtype == np.int64 and names == [f"x{j + 1}" for j in range(X.shape[1])]


def test_real_fourclass_reads_as_scikit_learn_reads_it(fourclass):
    from svmviz.data import fourclass_path

    data = fourclass_path().read_bytes()
    X, y = _sklearn_libsvm(data)
    ds = load_dataset(fourclass_path(), fmt="libsvm")
    assert ds.X.shape == (862, 2)
    np.testing.assert_array_equal(ds.X, X)
    np.testing.assert_array_equal(ds.y, y)
    np.testing.assert_array_equal(fourclass.X, X)


def test_loading_libsvm_text_imports_no_scikit_learn():
    # the Data page of a fresh server reads fourclass and splits it: scikit-learn's import costs
    # 1.5-2 s of CPU there, before the first plot
    code = ("import sys, io\nfrom svmviz.data import load_dataset, train_test_split\n"
            "f = io.BytesIO(b'+1 1:0.5 2:1\\n-1 1:-1\\n+1 2:3\\n-1 1:2 2:2\\n+1 1:1\\n-1 2:-2\\n'); f.name = 'a.libsvm'\n"
            "train_test_split(load_dataset(f), 0.3)\nprint(sorted(m for m in sys.modules if m.startswith('sklearn')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "[]"


# --- normalization and splits ------------------------------------------------------------------

def test_minmax_and_stddev_fit_on_train_only():
    Xtr = np.array([[0.0, 10.0, 5.0], [2.0, 30.0, 5.0], [4.0, 20.0, 5.0]])
    Xte = np.array([[6.0, 40.0, 7.0]])
    a, b = normalize(Xtr, Xte, "minmax")
    np.testing.assert_allclose(a, [[-1, -1, 0], [0, 1, 0], [1, 0, 0]])  # constant feature: the middle
    np.testing.assert_allclose(b, [[2, 2, 4]])  # test values use the training range: may leave [-1, 1]
    a01, _ = normalize(Xtr, None, "minmax", feature_range=(0, 1))
    np.testing.assert_allclose(a01[:, 0], [0, 0.5, 1])
    s, t = normalize(Xtr, Xte, "stddev")
    np.testing.assert_allclose(s[:, :2].mean(axis=0), 0, atol=1e-12)
    np.testing.assert_allclose(s[:, :2].std(axis=0), 1)
    np.testing.assert_allclose(t[0, 0], (6 - 2) / np.std([0, 2, 4]))
    np.testing.assert_allclose(s[:, 2], 0)  # a constant feature is centred, not divided by zero
    n, m = normalize(Xtr, Xte, "none")
    np.testing.assert_array_equal(n, Xtr)
    with pytest.raises(DataError, match="normalization must be one of"):
        normalize(Xtr, Xte, "zscore")


@pytest.mark.parametrize("method", ["stddev", "minmax"])
def test_features_near_the_float_limit_are_not_flattened(method):
    X = np.array([[1e308, 1.0], [-1e308, 2.0], [0.0, 3.0], [5e307, 4.0]])
    a, b = normalize(X, X[:2], method)
    assert np.isfinite(a).all()
    assert np.unique(a[:, 0]).size == 4  # four different values stay four different values
    order = np.argsort(X[:, 0])
    assert (np.diff(a[order, 0]) > 0).all()
    np.testing.assert_allclose(b, a[:2])
    if method == "stddev":
        np.testing.assert_allclose(a[:, 0].mean(), 0, atol=1e-12)
        np.testing.assert_allclose(a[:, 0].std(), 1)
    else:
        np.testing.assert_allclose([a[:, 0].min(), a[:, 0].max()], [-1, 1])


def test_stratified_split_is_seeded_and_keeps_class_shares():
    ds = load_builtin("wine")
    tr1, te1 = train_test_split(ds, 0.3, seed=4)
    tr2, te2 = train_test_split(ds, 0.3, seed=4)
    tr3, _ = train_test_split(ds, 0.3, seed=5)
    np.testing.assert_array_equal(tr1.X, tr2.X)
    np.testing.assert_array_equal(te1.y, te2.y)
    assert not np.array_equal(tr1.X, tr3.X)
    assert tr1.n_samples + te1.n_samples == ds.n_samples
    share = {c: k / ds.n_samples for c, k in ds.class_counts().items()}
    for c, k in te1.class_counts().items():
        assert abs(k / te1.n_samples - share[c]) < 0.03
    assert tr1.class_names == ds.class_names == te1.class_names
    rows = {tuple(r) for r in ds.X}
    assert {tuple(r) for r in tr1.X} | {tuple(r) for r in te1.X} == rows
    assert not {tuple(r) for r in tr1.X} & {tuple(r) for r in te1.X}


def test_split_errors_and_small_test_parts():
    ds = load_dataset(upload("1,0\n2,0\n3,0\n4,0\n5,1\n6,1\n7,1\n8,1\n"))
    tr, te = train_test_split(ds, 0.25, seed=0)  # one test sample per class is fine
    assert te.class_counts() == {0: 1, 1: 1}
    for bad in (0, 1, 1.5, "half"):
        with pytest.raises(DataError, match="test fraction"):
            train_test_split(ds, bad)
    with pytest.raises(DataError, match="cannot split"):
        train_test_split(ds, 0.1)  # stratified: fewer test samples than classes
    with pytest.raises(DataError, match="training part"):
        train_test_split(ds, 0.75, stratify=False)
    for seed in (-1, 2**40, 1.5, True):
        with pytest.raises(DataError, match="the split seed must be a whole number from 0 to 4294967295"):
            train_test_split(ds, 0.25, seed=seed)
    assert train_test_split(ds, 0.25, seed=np.int64(2**32 - 1))[1].n_samples == 2


@pytest.mark.parametrize("stratify", [True, False])
def test_the_split_is_scikit_learns_sample_for_sample(stratify):
    # links and lesson files name a split by its seed: the samples must stay the ones
    # scikit-learn's train_test_split chose, for every seed, size and class mix
    from sklearn.model_selection import train_test_split as sk_split

    rng = np.random.default_rng(3)
    for trial in range(60):
        n = int(rng.integers(8, 300))
        k = int(rng.integers(2, 7))
        y = np.concatenate([np.arange(k).repeat(2), rng.integers(0, k, n - 2 * k)])
        rng.shuffle(y)
        ds = Dataset(rng.normal(size=(n, 2)), y, ["a", "b"], [], "t", "t")
        test_size, seed = float(rng.choice([0.05, 0.1, 0.25, 0.3, 1 / 3, 0.5])), int(rng.integers(0, 2**32))
        try:
            tr, te = sk_split(np.arange(n), test_size=test_size, random_state=seed, stratify=y if stratify else None)
        except ValueError:
            with pytest.raises(DataError):
                train_test_split(ds, test_size, seed, stratify)
            continue
        try:
            train, test = train_test_split(ds, test_size, seed, stratify)
        except DataError as exc:
            assert "training part" in str(exc)     # a training part holding a class once
            continue
        np.testing.assert_array_equal(train.X, ds.X[np.sort(tr)], err_msg=f"trial {trial}")
        np.testing.assert_array_equal(test.X, ds.X[np.sort(te)], err_msg=f"trial {trial}")


def test_a_stratified_sample_of_a_size_is_scikit_learns():
    # the pages' bound on samples (svmviz_app.widgets.bounded) keeps a stratified sample of a size
    from sklearn.model_selection import train_test_split as sk_split

    rng = np.random.default_rng(5)
    for _ in range(30):
        n, keep, seed = int(rng.integers(50, 400)), int(rng.integers(10, 40)), int(rng.integers(0, 1000))
        y = rng.integers(0, 3, n)
        want, _ = sk_split(np.arange(n), train_size=keep, stratify=y, random_state=seed)
        got, rest = split_indices(y, keep, n - keep, seed)
        np.testing.assert_array_equal(got, want)
        assert got.size + rest.size == n


def test_the_fourclass_split_is_scikit_learns(fourclass):
    from sklearn.model_selection import train_test_split as sk_split

    tr, te = sk_split(np.arange(fourclass.n_samples), test_size=0.3, random_state=0, stratify=fourclass.y)
    train, test = train_test_split(fourclass, 0.3, seed=0)
    np.testing.assert_array_equal(train.X, fourclass.X[np.sort(tr)])
    np.testing.assert_array_equal(test.y, fourclass.y[np.sort(te)])


def test_split_and_normalize_uses_training_statistics():
    ds = load_builtin("iris")
    train, test = split_and_normalize(ds, "minmax", 0.25, seed=1)
    assert train.X.min() == -1 and train.X.max() == 1
    raw_tr, raw_te = train_test_split(ds, 0.25, seed=1)
    _, expect = normalize(raw_tr.X, raw_te.X, "minmax")
    np.testing.assert_allclose(test.X, expect)
    whole, none = split_and_normalize(ds, "stddev", 0.0)
    assert none is None and whole.n_samples == ds.n_samples
    np.testing.assert_allclose(whole.X.mean(axis=0), 0, atol=1e-12)


# ---------------------------------------------------------------- limits, file kinds, cells
def test_csv_cell_limit_is_checked_before_any_cell_is_parsed(monkeypatch):
    def no_parsing(_):
        raise AssertionError("a cell was parsed before the size check")

    monkeypatch.setattr(loaders, "_number", no_parsing)
    rows = "".join(f"{i},{i + 1},{i % 2}\n" for i in range(30))   # 30 rows × 2 features = 60
    with budget(cells=50):
        with pytest.raises(DataError, match="at most 50 values"):
            load_dataset(upload("x1,x2,label\n" + rows))
        with pytest.raises(DataError, match="at most 50 values"):   # whitespace-separated too
            load_dataset(upload(rows.replace(",", " "), "d.txt"))


def test_a_wide_csv_is_refused_by_the_cell_limit(classroom_budget):
    wide = ",".join(["1"] * 6_000_001) + "\n"   # a 4 × 6,000,000 table
    with pytest.raises(DataError, match="at most 20,000,000 values"):
        load_dataset(upload(wide * 4), max_mb=60)


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
        Dataset(np.zeros((4, 2)), [1, "a", 1, "a"])
    with pytest.raises(DataError, match="feature_range"):
        normalize(np.zeros((4, 2)), feature_range=("a", "b"))


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


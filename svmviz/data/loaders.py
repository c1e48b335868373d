"""Loading data files (CSV and LIBSVM/SVMlight text) from a path or an uploaded file object.

Every problem with the input becomes a ``DataError`` saying which row, which column and what was
expected; nothing else escapes.
"""

from __future__ import annotations

import csv
import io
import os
import re
import stat
from numbers import Real
from pathlib import Path

import numpy as np

from svmviz.data.dataset import Dataset
from svmviz.errors import DataError

LABEL_NAMES = ("label", "class", "target", "y")
#: The one file/upload size limit in MB; ``.streamlit/config.toml`` sets ``server.maxUploadSize``
#: to the same number (a test checks that they agree). Pass ``max_mb=`` for another limit.
MAX_FILE_MB = 50
#: A dense table larger than this (samples × features) would not fit a teaching machine's memory.
MAX_CELLS = 20_000_000
LIBSVM_EXTENSIONS = (".libsvm", ".svm", ".svmlight")
# "label index:value index:value ... [# comment]" (SVMlight also allows a qid:n)
_LIBSVM_LINE = re.compile(r"^\S+(\s+(qid:\S+|\d+:\S+))+\s*(#.*)?$")
_SNIFF_CHARS = 65536


def read_capped(path, max_mb: float, error: type[Exception] = DataError,
                expected: str = "a CSV or LIBSVM file") -> bytes:
    """The bytes of the regular file ``path``, at most ``max_mb`` MB, or ``error`` saying why not:
    a directory, a device (/dev/zero never ends) or a pipe is not "no such file" (issue 16);
    nothing beyond the cap is read even if the file grows after ``stat``."""
    path = Path(path)
    limit = int(max_mb * 2**20)
    try:
        st = path.stat()
    except FileNotFoundError:
        raise error(f"cannot read {path}: no such file") from None
    except (OSError, ValueError) as exc:  # ValueError: a NUL character in the path
        raise error(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}") from None
    if stat.S_ISDIR(st.st_mode):
        raise error(f"{path} is a directory: give {expected} in it")
    if not stat.S_ISREG(st.st_mode):
        raise error(f"{path} is not a regular file (a device, pipe or socket): give {expected}")
    if st.st_size > limit:
        raise error(f"{path.name} is {st.st_size / 2**20:.1f} MB; the limit is {max_mb:g} MB")
    try:
        with path.open("rb") as fh:
            data = fh.read(limit + 1)
    except OSError as exc:  # PermissionError, EIO, ...
        raise error(f"cannot read {path}: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise error(f"{path.name} is larger than the {max_mb:g} MB limit")
    return data


def _read_bytes(source, max_mb) -> tuple[bytes, str, str]:
    if isinstance(max_mb, bool) or not isinstance(max_mb, Real) or not 0 < max_mb < float("inf"):
        raise DataError(f"max_mb must be a positive number of megabytes, got {max_mb!r}")
    limit = int(max_mb * 1024 * 1024)
    if isinstance(source, (str, os.PathLike)):
        try:
            path = Path(source)
        except TypeError:  # a PathLike whose __fspath__ is not a str
            raise DataError(f"cannot read data from {source!r}: give a path or a file") from None
        if "\x00" in str(path):
            raise DataError(f"{str(path)!r} is not a valid file name (it contains a NUL character)")
        return read_capped(path, max_mb), path.name, str(path)
    if not callable(getattr(source, "read", None)):
        raise DataError(f"cannot read data from a {type(source).__name__}; give a path or a file")
    name = os.path.basename(str(getattr(source, "name", "") or "upload"))
    if hasattr(source, "seek"):
        # an upload object is read again on every Streamlit rerun: start from its beginning
        try:
            source.seek(0)
        except (OSError, ValueError):
            pass
    try:
        data = source.read(limit + 1)
    except OSError as exc:
        raise DataError(f"cannot read {name}: {exc.strerror or exc}") from None
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise DataError(f"reading {name} gave a {type(data).__name__}, not bytes or text")
    data = bytes(data)
    if len(data) > limit:
        raise DataError(f"{name} is larger than the {max_mb:g} MB limit")
    return data, name, f"upload: {name}"


def _decode(data: bytes, name: str) -> str:
    if not data.strip():
        raise DataError(f"{name} is empty")
    if b"\x00" in data:
        raise DataError(f"{name} contains NUL bytes: it is a binary file (or UTF-16 text), "
                        "expected CSV or LIBSVM text (UTF-8)")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("latin-1")  # decodes every byte; then check it reads as text
    printable = sum(ch.isprintable() or ch in "\r\n\t" for ch in text)
    if printable < 0.95 * len(text):
        raise DataError(f"{name} does not look like a text file: expected CSV or LIBSVM text")
    return text


def _data_lines(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]


def _infer_format(lines: list[str], name: str) -> str:
    if Path(name).suffix.lower() in LIBSVM_EXTENSIONS:
        return "libsvm"
    return "libsvm" if lines and _LIBSVM_LINE.match(lines[0].strip()) else "csv"


def _number(s: str) -> float | None:
    try:
        return float(s)
    except ValueError:
        return None


def _is_number(s: str) -> bool:
    return _number(s) is not None


def _split_rows(lines: list[str], name: str) -> list[list[str]]:
    sample = "\n".join(lines[:20])[:_SNIFF_CHARS]
    if not any(d in sample for d in ",;\t"):
        rows = [ln.split() for ln in lines]  # whitespace-separated columns
        _check_cells(len(rows), len(rows[0]), name)
        return rows
    try:
        delim = csv.Sniffer().sniff(sample, delimiters=",;\t").delimiter
    except csv.Error:
        delim = next(d for d in ",;\t" if d in sample)
    # MAX_CELLS before the whole file is parsed (issue 16): rows × fields of the first row
    _check_cells(len(lines), len(next(csv.reader(lines[:1], delimiter=delim), [])), name)
    try:
        # the lines joined again, so a quoted field keeps its line breaks ("a\nb" stays two lines)
        return [[f.strip() for f in r]
                for r in csv.reader(io.StringIO("\n".join(lines)), delimiter=delim) if r]
    except csv.Error as exc:
        raise DataError(f"{name} is not valid CSV: {exc}") from None


def _check_cells(n_rows: int, n_fields: int, name: str) -> None:
    if n_rows * max(n_fields - 1, 1) > MAX_CELLS:
        raise DataError(f"{name} has about {n_rows:,} rows × {n_fields - 1:,} features; svmviz works "
                        f"with tables of at most {MAX_CELLS:,} values: use a sample or fewer columns")


def _parse_labels(col: list[str], column: str, named: bool, offset: int) -> np.ndarray:
    values = [_number(v) for v in col]
    if any(v is None for v in values):
        return np.array(col)  # class names
    f = np.array(values)
    bad = ~np.isfinite(f) | (f != np.round(f)) | (np.abs(f) > 2**53)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        hint = ("" if named else f" No column is named {'/'.join(LABEL_NAMES)}, so the last column "
                "is taken as the label: name the label column in a header line.")
        raise DataError(f"row {k + offset}, column '{column}': {col[k]!r} is not a class label "
                        f"(labels are whole numbers or names).{hint}")
    return f.astype(np.int64)


def _parse_csv(lines: list[str], name: str) -> tuple[np.ndarray, np.ndarray, list[str]]:
    rows = _split_rows(lines, name)
    first = rows[0]
    second = rows[1] if len(rows) > 1 else None
    has_header = any(f.lower() in LABEL_NAMES for f in first) or (
        any(not _is_number(f) for f in first)
        and (second is None or any(not _is_number(a) and _is_number(b) for a, b in zip(first, second))))
    if has_header:
        header, body, offset = first, rows[1:], 2
    else:
        header, body, offset = [f"x{j + 1}" for j in range(len(first) - 1)] + ["label"], rows, 1
    ncol = len(header)
    if not body:
        raise DataError(f"{name} has a header but no data rows")
    if ncol < 2:
        raise DataError(f"{name} has a single column: expected feature columns and a label column "
                        f"(named one of {', '.join(LABEL_NAMES)}, or the last column)")
    for k, r in enumerate(body):
        if len(r) != ncol:
            raise DataError(f"row {k + offset} has {len(r)} fields but the "
                            f"{'header' if has_header else 'first row'} has {ncol}: every row needs "
                            "the same number of columns")
    hl = [h.lower() for h in header]
    named = next((hl.index(n) for n in LABEL_NAMES if n in hl), None) if has_header else None
    label_col = ncol - 1 if named is None else named
    feat_cols = [j for j in range(ncol) if j != label_col]
    X = np.empty((len(body), len(feat_cols)))
    for jj, j in enumerate(feat_cols):
        column = [r[j] for r in body]
        try:  # NumPy converts a whole column in C (a per-cell loop took ~90 s at MAX_CELLS)
            X[:, jj] = np.array(column, dtype=np.float64)
            suspects = np.flatnonzero(~np.isfinite(X[:, jj]))
        except ValueError:
            suspects = range(len(column))  # cell by cell, to name the first bad one
        for k in suspects:
            v = column[k]
            x = _number(v)
            if x is None:
                what = "is empty (a missing value)" if v == "" else f"holds {v!r}, which is not a number"
                raise DataError(f"row {k + offset}, column '{header[j]}' {what}: every feature must be numeric")
            if not np.isfinite(x):
                raise DataError(f"row {k + offset}, column '{header[j]}' is {v}: NaN and infinite "
                                "values are not allowed")
            X[k, jj] = x
    labels = [r[label_col] for r in body]
    empty = [k for k, v in enumerate(labels) if v == ""]
    if empty:
        raise DataError(f"row {empty[0] + offset} has no label in column '{header[label_col]}'")
    y = _parse_labels(labels, header[label_col], named is not None, offset)
    return X, y, [header[j] for j in feat_cols]


def _parse_libsvm(data: bytes, name: str) -> tuple[np.ndarray, np.ndarray, list[str]]:
    from sklearn.datasets import load_svmlight_file

    try:
        Xs, y = load_svmlight_file(io.BytesIO(data))
    except (ValueError, IndexError, TypeError, OverflowError) as exc:
        raise DataError(f"{name} is not valid LIBSVM text (one 'label index:value index:value ...' "
                        f"per line, indices increasing): {exc}") from None
    n, d = Xs.shape
    if n == 0:
        raise DataError(f"{name} has no samples")
    if n * d > MAX_CELLS:
        raise DataError(f"{name} has {n} samples × {d} features (the largest feature index is {d}); "
                        f"svmviz works with dense tables of at most {MAX_CELLS:,} values")
    X = Xs.toarray()
    bad = ~np.isfinite(X)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise DataError(f"line {i + 1}, feature {j + 1} is {X[i, j]}: NaN and infinite values are not allowed")
    if not np.all(np.isfinite(y)):
        raise DataError(f"line {int(np.flatnonzero(~np.isfinite(y))[0]) + 1}: the label is not a number")
    if np.all(y == np.round(y)) and np.all(np.abs(y) <= 2**53):
        y = y.astype(np.int64)
    return X, y, [f"x{j + 1}" for j in range(d)]


def load_dataset(source, fmt: str | None = None, *, name: str | None = None,
                 max_mb: float | None = None) -> Dataset:
    """Load a ``Dataset`` from a path or a file object (e.g. a Streamlit upload).

    CSV: the header is optional; the label column is the one named label/class/target/y, else the
    last column; ``,`` ``;`` tab or whitespace separate the columns; ``#`` starts a comment line.
    LIBSVM/SVMlight text is read by scikit-learn's ``load_svmlight_file``.

    Parameters
    ----------
    source : str, PathLike, or an object with ``read()`` (and optionally ``name``)
    fmt : "csv", "libsvm", or None to infer it from the file name or its content
    name : the data set's name (default: the file's stem)
    max_mb : size limit in MB (default ``MAX_FILE_MB``)

    Raises
    ------
    DataError : for every input that is not a usable labelled data set.
    """
    if fmt not in (None, "csv", "libsvm"):
        raise DataError(f"unknown format {fmt!r}: use 'csv', 'libsvm' or None")
    data, fname, src = _read_bytes(source, MAX_FILE_MB if max_mb is None else max_mb)
    text = _decode(data, fname)
    lines = _data_lines(text)
    if not lines:
        raise DataError(f"{fname} has no data rows (only blank or comment lines)")
    fmt = fmt or _infer_format(lines, fname)
    if fmt == "csv":
        X, y, feats = _parse_csv(lines, fname)
    else:
        X, y, feats = _parse_libsvm(text.encode("utf-8"), fname)
    return Dataset(X, y, feats, [], name or Path(fname).stem, src)

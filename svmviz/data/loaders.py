"""Loading data files (CSV and LIBSVM/SVMlight text) from a path or an uploaded file object.

Every problem with the input becomes a ``DataError`` saying which row, which column and what was
expected; nothing else escapes.
"""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path

import numpy as np

from svmviz.data.dataset import Dataset
from svmviz.errors import DataError

LABEL_NAMES = ("label", "class", "target", "y")
#: The one upload/file size limit (MB); ``.streamlit/config.toml`` sets the same for uploads.
MAX_FILE_MB = float(os.environ.get("SVMVIZ_MAX_UPLOAD_MB", "50"))


def _read_bytes(source, max_mb: float) -> tuple[bytes, str, str]:
    limit = int(max_mb * 1024 * 1024)
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if not path.is_file():
            raise DataError(f"no such file: {path}")
        if path.stat().st_size > limit:
            raise DataError(f"{path.name} is {path.stat().st_size / 2**20:.1f} MB; the limit is {max_mb:g} MB")
        return path.read_bytes(), path.name, str(path)
    if not hasattr(source, "read"):
        raise DataError(f"cannot read data from a {type(source).__name__}; give a path or a file")
    name = getattr(source, "name", "upload") or "upload"
    data = source.read(limit + 1)
    if isinstance(data, str):
        data = data.encode("utf-8")
    if len(data) > limit:
        raise DataError(f"{name} is larger than the {max_mb:g} MB limit")
    return data, os.path.basename(str(name)), f"upload: {os.path.basename(str(name))}"


def _decode(data: bytes, name: str) -> str:
    if not data.strip():
        raise DataError(f"{name} is empty")
    if b"\x00" in data:
        raise DataError(f"{name} is a binary file, not text: expected CSV or LIBSVM text")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        try:
            text = data.decode("latin-1")
        except UnicodeDecodeError:  # pragma: no cover - latin-1 decodes every byte
            raise DataError(f"{name} is not a text file") from None
        printable = sum(ch.isprintable() or ch in "\r\n\t" for ch in text)
        if printable < 0.95 * len(text):
            raise DataError(f"{name} does not look like a text file: expected CSV or LIBSVM text")
    return text


def _infer_format(text: str, name: str) -> str:
    ext = Path(name).suffix.lower()
    if ext == ".csv":
        return "csv"
    if ext in (".libsvm", ".svm", ".svmlight"):
        return "libsvm"
    for line in text.splitlines():
        s = line.strip()
        if s and not s.startswith("#"):
            toks = s.split()
            return "libsvm" if len(toks) >= 2 and all(":" in t for t in toks[1:]) else "csv"
    return "csv"


def _is_number(s: str) -> bool:
    try:
        float(s)
        return True
    except ValueError:
        return False


def _parse_labels(col: list[str]) -> np.ndarray:
    if all(_is_number(v) for v in col):
        f = np.array([float(v) for v in col])
        if np.all(np.isfinite(f)) and np.all(f == np.round(f)):
            return f.astype(np.int64)
        return f
    return np.array(col)


def _parse_csv(text: str, name: str) -> tuple[np.ndarray, np.ndarray, list[str]]:
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    if not lines:
        raise DataError(f"{name} has no rows")
    sample = "\n".join(lines[:20])
    try:
        delim = csv.Sniffer().sniff(sample, delimiters=",;\t").delimiter
    except csv.Error:
        delim = "," if "," in sample else (";" if ";" in sample else "\t" if "\t" in sample else ",")
    rows = [[f.strip() for f in r] for r in csv.reader(lines, delimiter=delim)]
    first = rows[0]
    lower = [f.lower() for f in first]
    second = rows[1] if len(rows) > 1 else None
    has_header = any(f in LABEL_NAMES for f in lower) or (
        any(not _is_number(f) for f in first)
        and (second is None or any(not _is_number(a) and _is_number(b) for a, b in zip(first, second))))
    if has_header:
        header, body, offset = first, rows[1:], 2
    else:
        header, body, offset = [f"x{j + 1}" for j in range(len(first) - 1)] + ["label"], rows, 1
    if not body:
        raise DataError(f"{name} has a header but no data rows")
    ncol = len(header)
    if ncol < 2:
        raise DataError(f"{name} has a single column: expected feature columns and a label column "
                        f"(named one of {', '.join(LABEL_NAMES)}, or the last column)")
    for k, r in enumerate(body):
        if len(r) != ncol:
            raise DataError(f"row {k + offset} has {len(r)} fields but the {'header' if has_header else 'first row'} "
                            f"has {ncol}: every row needs the same number of columns")
    hl = [h.lower() for h in header]
    label_col = next((hl.index(n) for n in LABEL_NAMES if n in hl), ncol - 1)
    feat_cols = [j for j in range(ncol) if j != label_col]
    X = np.empty((len(body), len(feat_cols)))
    for k, r in enumerate(body):
        for jj, j in enumerate(feat_cols):
            v = r[j]
            try:
                x = float(v)
            except ValueError:
                raise DataError(f"row {k + offset}, column '{header[j]}': {v!r} is not a number "
                                "(every feature must be numeric)") from None
            if not np.isfinite(x):
                raise DataError(f"row {k + offset}, column '{header[j]}' is {v}: missing or infinite "
                                "values are not allowed")
            X[k, jj] = x
    labels = [r[label_col] for r in body]
    empty = [k for k, v in enumerate(labels) if v == ""]
    if empty:
        raise DataError(f"row {empty[0] + offset} has no label in column '{header[label_col]}'")
    y = _parse_labels(labels)
    if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
        k = int(np.flatnonzero(~np.isfinite(y))[0])
        raise DataError(f"row {k + offset}: the label {labels[k]!r} is not a class")
    return X, y, [header[j] for j in feat_cols]


def _parse_libsvm(data: bytes, name: str) -> tuple[np.ndarray, np.ndarray, list[str]]:
    from sklearn.datasets import load_svmlight_file
    try:
        Xs, y = load_svmlight_file(io.BytesIO(data))
    except (ValueError, IndexError, TypeError, UnicodeDecodeError, OverflowError) as exc:
        raise DataError(f"{name} is not valid LIBSVM text ('label index:value ...' per line): {exc}") from None
    if Xs.shape[0] == 0:
        raise DataError(f"{name} has no samples")
    X = Xs.toarray()
    if not np.all(np.isfinite(X)):
        i, j = np.argwhere(~np.isfinite(X))[0]
        raise DataError(f"line {i + 1}, feature {j + 1} is {X[i, j]}: missing or infinite values are not allowed")
    if not np.all(np.isfinite(y)):
        raise DataError(f"line {int(np.flatnonzero(~np.isfinite(y))[0]) + 1}: the label is not a number")
    if np.all(y == np.round(y)):
        y = y.astype(np.int64)
    return X, y, [f"x{j + 1}" for j in range(X.shape[1])]


def load_dataset(source, fmt: str | None = None, *, name: str | None = None,
                 max_mb: float | None = None) -> Dataset:
    """Load a ``Dataset`` from a path or a file object (e.g. a Streamlit upload).

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
    fmt = fmt or _infer_format(text, fname)
    if fmt == "csv":
        X, y, feats = _parse_csv(text, fname)
    else:
        X, y, feats = _parse_libsvm(text.encode("utf-8"), fname)
    return Dataset(X, y, feats, [], name or Path(fname).stem, src)

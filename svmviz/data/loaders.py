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

from svmviz import limits
from svmviz.data.dataset import Dataset
from svmviz.data.labels import name_labels
from svmviz.errors import DataError

LABEL_NAMES = ("label", "class", "target", "y")
LIBSVM_EXTENSIONS = (".libsvm", ".svm", ".svmlight")
# "label index:value index:value ... [# comment]" (SVMlight also allows a qid:n)
_LIBSVM_LINE = re.compile(r"^\S+(\s+(qid:\S+|\d+:\S+))+\s*(#.*)?$")
_SNIFF_CHARS = 65536


def read_capped(path, max_mb: float | None, error: type[Exception] = DataError,
                expected: str = "a CSV or LIBSVM file") -> bytes:
    """The bytes of the regular file ``path``, at most ``max_mb`` MB (None: no cap), or ``error``
    saying why not: a directory, a device (/dev/zero never ends) or a pipe is not "no such file";
    nothing beyond the cap is read even if the file grows after ``stat``."""
    path = Path(path)
    limit = -1 if max_mb is None else int(max_mb * 2**20)
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
    if 0 <= limit < st.st_size:
        raise error(f"{path.name} is {st.st_size / 2**20:.1f} MB; the limit is {max_mb:g} MB")
    try:
        with path.open("rb") as fh:
            data = fh.read(limit + 1 if limit >= 0 else -1)
    except OSError as exc:  # PermissionError, EIO, ...
        raise error(f"cannot read {path}: {exc.strerror or exc}") from None
    if 0 <= limit < len(data):
        raise error(f"{path.name} is larger than the {max_mb:g} MB limit")
    return data


def _read_bytes(source, max_mb) -> tuple[bytes, str, str]:
    if max_mb is not None and (isinstance(max_mb, bool) or not isinstance(max_mb, Real)
                               or not 0 < max_mb < float("inf")):
        raise DataError(f"max_mb must be a positive number of megabytes, got {max_mb!r}")
    limit = -1 if max_mb is None else int(max_mb * 1024 * 1024)
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
        data = source.read(limit + 1 if limit >= 0 else -1)
    except OSError as exc:
        raise DataError(f"cannot read {name}: {exc.strerror or exc}") from None
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise DataError(f"reading {name} gave a {type(data).__name__}, not bytes or text")
    data = bytes(data)
    if 0 <= limit < len(data):
        raise DataError(f"{name} is larger than the {max_mb:g} MB limit")
    return data, name, f"upload: {name}"


def _utf8(data: bytes, name: str) -> bytes:
    """``data`` as UTF-8 bytes without a byte-order mark, or the message saying why it is not text
    (Latin-1 text, which decodes any byte, is re-encoded)."""
    if not data.strip():
        raise DataError(f"{name} is empty")
    if b"\x00" in data:
        raise DataError(f"{name} contains NUL bytes: it is a binary file (or UTF-16 text), "
                        "expected CSV or LIBSVM text (UTF-8)")
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        data.decode("utf-8")
        return data
    except UnicodeDecodeError:
        text = data.decode("latin-1")  # decodes every byte; then check it reads as text
    printable = sum(ch.isprintable() or ch in "\r\n\t" for ch in text)
    if printable < 0.95 * len(text):
        raise DataError(f"{name} does not look like a text file: expected CSV or LIBSVM text")
    return text.encode("utf-8")


# blank lines and comment lines ("#" first on the line), dropped before parsing so that row
# numbers in messages count data rows, as a reader of the file counts them; the search for one
# is a scan for line breaks in C, the rewrite happens only when there is one
_SKIPPED_AHEAD = re.compile(rb"\n[ \t\r\f\v]*(?:#|\n)")  # a literal start: a memchr scan
_SKIPPED_FIRST = re.compile(rb"[ \t\r\f\v]*(?:#|\n)")
_SKIPPED_LINE = re.compile(rb"^[ \t\r\f\v]*(?:#[^\n]*)?(?:\n|\Z)", re.MULTILINE)


def _data_bytes(data: bytes) -> bytes:
    """``data`` without blank and comment lines, ending in one line break."""
    data = data.rstrip() + b"\n"
    if _SKIPPED_FIRST.match(data) is None and _SKIPPED_AHEAD.search(data) is None:
        return data
    return _SKIPPED_LINE.sub(b"", data)


def _first_line(data: bytes) -> str:
    return data.split(b"\n", 1)[0].rstrip(b"\r").decode("utf-8")


def _infer_format(first: str, name: str) -> str:
    if Path(name).suffix.lower() in LIBSVM_EXTENSIONS:
        return "libsvm"
    return "libsvm" if first and _LIBSVM_LINE.match(first.strip()) else "csv"


def _number(s: str) -> float | None:
    try:
        return float(s)
    except ValueError:
        return None


def _is_number(s: str) -> bool:
    return _number(s) is not None


def _delimiter(data: bytes) -> str | None:
    """The column separator (``,`` ``;`` or tab), or None for whitespace-separated columns."""
    head = data[:_SNIFF_CHARS].decode("utf-8", "ignore")
    sample = "\n".join(head.split("\n")[:20])
    if not any(d in sample for d in ",;\t"):
        return None
    try:
        return csv.Sniffer().sniff(sample, delimiters=",;\t").delimiter
    except csv.Error:
        return next(d for d in ",;\t" if d in sample)


def _split_line(line: str, delim: str | None, name: str) -> list[str]:
    if delim is None:
        return line.split()
    try:
        return [f.strip() for f in next(csv.reader([line], delimiter=delim, skipinitialspace=True), [])]
    except csv.Error as exc:   # e.g. a carriage return inside a line
        raise DataError(f"{name} is not valid CSV: {exc}") from None


def _check_cells(n_rows: int, n_fields: int, name: str) -> None:
    """At most the work budget's ``cells`` values (``svmviz.limits``), before a cell is parsed."""
    cap = limits.bound("cells")
    if cap is not None and n_rows * max(n_fields - 1, 1) > cap:
        raise DataError(f"{name} has about {n_rows:,} rows × {n_fields - 1:,} features; svmviz works "
                        f"with tables of at most {cap:,} values: use a sample or fewer columns")
    _check_memory(n_rows, max(n_fields - 1, 1), name)


def _check_memory(n_rows: int, n_features: int, name: str) -> None:
    """Without a budget too: a dense float64 table larger than this machine's memory is refused
    before it is allocated (a LIBSVM file's one huge feature index would otherwise be gigabytes)."""
    need = 8 * n_rows * n_features
    try:
        have = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):   # not a POSIX system: nothing to compare with
        return
    if need > have:
        raise DataError(f"{name} has {n_rows:,} samples × {n_features:,} features: {need / 2**30:,.1f} GB as a "
                        f"dense table, more than this machine's {have / 2**30:,.1f} GB of memory")


def _ragged_row(text: str, delim: str | None, ncol: int, has_header: bool, name: str) -> None:
    """Raise the message naming the first row whose field count differs from the first row's
    (the slow reader, run only once the fast one has found something wrong)."""
    if delim is None:
        rows = (ln.split() for ln in text.splitlines())
    else:
        rows = (r for r in csv.reader(io.StringIO(text), delimiter=delim, skipinitialspace=True) if r)
    try:
        for k, r in enumerate(rows):
            if k == 0 and has_header:
                continue
            if len(r) != ncol:
                raise DataError(f"row {k + 1} has {len(r)} fields "
                                f"but the {'header' if has_header else 'first row'} has {ncol}: "
                                "every row needs the same number of columns")
    except csv.Error as exc:
        raise DataError(f"{name} is not valid CSV: {exc}") from None


def _read_table(data: bytes, delim: str | None, has_header: bool):
    """The body of the CSV as a pandas DataFrame of strings and numbers (pandas' C reader), or
    the exception it raised."""
    import pandas as pd

    try:
        return pd.read_csv(io.BytesIO(data), encoding="utf-8", sep=r"\s+" if delim is None else delim, header=None,
                           skiprows=1 if has_header else 0, engine="c", na_filter=False,
                           skipinitialspace=True, skip_blank_lines=True, true_values=[],
                           false_values=[], low_memory=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError) as exc:
        return exc


def _parse_labels(col: np.ndarray, column: str, named: bool, offset: int, name: str) -> np.ndarray:
    """Class labels: names (text of at most ``MAX_LABEL_CHARS`` characters, read as categories:
    ``svmviz.data.labels``) or whole numbers smaller than 2**53 in size, so two labels never
    become one class when stored as floating-point numbers."""
    hint = ("" if named else f" No column is named {'/'.join(LABEL_NAMES)}, so the last column "
            "is taken as the label: name the label column in a header line.")
    if col.dtype.kind in "iu":
        f = None
        bad = np.abs(col.astype(np.float64)) >= 2**53
    else:
        try:
            f = np.asarray(col, dtype=np.float64) if col.dtype.kind != "f" else col
        except (TypeError, ValueError):
            return name_labels(col, name, lambda k: f"row {k + offset}, column '{column}'")
        bad = ~np.isfinite(f) | (f != np.round(f)) | (np.abs(f) >= 2**53)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise DataError(f"row {k + offset}, column '{column}': {str(col[k])!r} is not a class label "
                        f"(labels are whole numbers smaller than 2**53 in size, or names).{hint}")
    return (col if f is None else f).astype(np.int64)


def _feature_column(values: np.ndarray, header: str, offset: int) -> np.ndarray:
    """One feature column as float64, or the message naming its first bad cell."""
    if values.dtype.kind in "iuf":
        x = values.astype(np.float64)
        suspects = np.flatnonzero(~np.isfinite(x))
        cells = None
    elif values.dtype.kind == "b":  # pandas reads True/False as booleans: not numbers here
        cells, x, suspects = values.astype(str).astype(object), None, range(len(values))
    else:
        cells = values.astype(object)
        try:  # NumPy converts a whole column in C; cell by cell only to name the first bad one
            x = np.asarray(cells, dtype=np.float64)
            suspects = np.flatnonzero(~np.isfinite(x))
        except (TypeError, ValueError):
            x, suspects = None, range(len(cells))
    for k in suspects:
        v = x[k] if cells is None else str(cells[k]).strip()
        num = v if cells is None else _number(v)
        if num is None:
            what = "is empty (a missing value)" if v == "" else f"holds {v!r}, which is not a number"
            raise DataError(f"row {k + offset}, column '{header}' {what}: every feature must be numeric")
        if not np.isfinite(num):
            raise DataError(f"row {k + offset}, column '{header}' is {v}: NaN and infinite "
                            "values are not allowed")
    return x


def _parse_csv(data: bytes, name: str) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """CSV read by pandas (C engine); the header and separator are decided on the first lines,
    and every bad cell is named by row and column."""
    delim = _delimiter(data)
    lines = [ln.rstrip(b"\r").decode("utf-8") for ln in data.split(b"\n", 2)[:2]]
    first = _split_line(lines[0], delim, name)
    second = _split_line(lines[1], delim, name) if len(lines) > 1 and lines[1].strip() else None
    ncol = len(first)
    # the budget's cells before any cell is read as a number: rows × fields of the first row
    _check_cells(data.count(b"\n") + 1, ncol, name)
    has_header = any(f.lower() in LABEL_NAMES for f in first) or (
        any(not _is_number(f) for f in first)
        and (second is None or any(not _is_number(a) and _is_number(b) for a, b in zip(first, second))))
    if has_header:
        header, offset = first, 2
        if second is None:
            raise DataError(f"{name} has a header but no data rows")
    else:
        header, offset = [f"x{j + 1}" for j in range(ncol - 1)] + ["label"], 1
    if ncol < 2:
        raise DataError(f"{name} has a single column: expected feature columns and a label column "
                        f"(named one of {', '.join(LABEL_NAMES)}, or the last column)")
    table = _read_table(data, delim, has_header)
    if isinstance(table, Exception):
        _ragged_row(data.decode("utf-8"), delim, ncol, has_header, name)
        raise DataError(f"{name} is not valid CSV: {str(table).strip()}")
    if table.shape[1] != ncol or any(table[c].dtype.kind not in "iufb" and (table[c] == "").any()
                                     for c in table.columns):
        _ragged_row(data.decode("utf-8"), delim, ncol, has_header, name)  # a short row reads as empty cells
    if table.shape[1] != ncol:   # rows of equal length split into other columns (a stray quote)
        raise DataError(f"{name} is not valid CSV: its rows read as {table.shape[1]} columns but the "
                        f"{'header' if has_header else 'first row'} has {ncol} (check its quotes)")
    if table.shape[0] == 0:
        raise DataError(f"{name} has a header but no data rows")
    hl = [h.lower() for h in header]
    named = next((hl.index(n) for n in LABEL_NAMES if n in hl), None) if has_header else None
    label_col = ncol - 1 if named is None else named
    feat_cols = [j for j in range(ncol) if j != label_col]
    X = np.empty((table.shape[0], len(feat_cols)))
    for jj, j in enumerate(feat_cols):
        X[:, jj] = _feature_column(table[j].to_numpy(), header[j], offset)
    labels = table[label_col].to_numpy()
    if labels.dtype.kind not in "iufb":
        labels = table[label_col].astype(str).str.strip().to_numpy(dtype=object)
        empty = np.flatnonzero(labels == "")
        if empty.size:
            raise DataError(f"row {int(empty[0]) + offset} has no label in column '{header[label_col]}'")
    elif labels.dtype.kind == "b":
        labels = np.array([str(v) for v in labels], dtype=object)
    y = _parse_labels(labels, header[label_col], named is not None, offset, name)
    return X, y, [header[j] for j in feat_cols]


# LIBSVM/SVMlight text: "label [qid:n] index:value index:value ... [# comment]", indices whole
# numbers increasing along a line (from 1, or from 0 when some line uses 0, as scikit-learn's
# load_svmlight_file decides)
_LIBSVM_ROW = re.compile(rb"[ \t\r\f\v]*[^\s:]+(?:[ \t\r\f\v]+qid:[^\s:]*)?(?:[ \t\r\f\v]+\d+:[^\s:]+)*[ \t\r\f\v]*")
_LIBSVM_TEXT = re.compile(b"(?:" + _LIBSVM_ROW.pattern + rb"\n)*")
_LIBSVM_QID = re.compile(rb"[ \t\r\f\v]qid:[^\s:]*")
_LIBSVM_COMMENT = re.compile(rb"#[^\n]*")


def _libsvm_numbers(tokens: np.ndarray, lines: list[bytes], line_of, what: str, name: str) -> np.ndarray:
    """``tokens`` (bytes objects) as float64, converted by NumPy in C, or the message naming the
    first that is not a number by its line (``line_of(k)``: the line index of token k)."""
    try:
        return tokens.astype(np.float64)
    except (ValueError, OverflowError):
        k = next(k for k, t in enumerate(tokens) if _number(t.decode()) is None)
        raise DataError(f"{name} is not valid LIBSVM text: on line {line_of(k) + 1} {what} "
                        f"{tokens[k].decode()[:40]!r} is not a number "
                        f"(in {lines[line_of(k)].decode().strip()[:80]!r})") from None


def _parse_libsvm(data: bytes, name: str) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """LIBSVM/SVMlight text, read as scikit-learn's ``load_svmlight_file`` reads it (the same
    matrix and labels), with every problem named by its line: data rows only, as ``_data_bytes``
    leaves them. One pattern checks the whole text and NumPy converts all numbers at once."""
    if b"#" in data:
        data = _LIBSVM_COMMENT.sub(b"", data)
    lines = data.split(b"\n")[:-1]     # ``_data_bytes`` ends the text with one line break
    if _LIBSVM_TEXT.fullmatch(data) is None:
        k = next(k for k, line in enumerate(lines) if _LIBSVM_ROW.fullmatch(line) is None)
        raise DataError(f"{name} is not valid LIBSVM text: line {k + 1} is {lines[k].decode().strip()[:80]!r}; "
                        "each line must be 'label index:value index:value ...' with whole-number indices "
                        "(e.g. '+1 1:0.5 3:-2')")
    if b"qid:" in data:                # a query id (SVMlight ranking) says nothing here
        data = _LIBSVM_QID.sub(b"", data)
        lines = data.split(b"\n")[:-1]
    n = len(lines)
    per_line = np.fromiter(map(bytes.count, lines, [b":"] * n), dtype=np.int64, count=n)
    # label, then index value pairs, line after line
    tokens = np.array(data.replace(b":", b" ").split(), dtype=object)
    is_label = np.zeros(tokens.size, dtype=bool)
    is_label[np.concatenate(([0], np.cumsum(1 + 2 * per_line)[:-1]))] = True
    row = np.repeat(np.arange(n), per_line)
    y = _libsvm_numbers(tokens[is_label], lines, lambda k: k, "the label", name)
    pairs = tokens[~is_label]
    del tokens
    long = np.flatnonzero(np.fromiter(map(len, pairs[0::2]), dtype=np.int64, count=row.size) > 18)
    if long.size:                       # int64 holds 18 digits; no table has that many features
        k = int(long[0])
        raise DataError(f"{name} is not valid LIBSVM text: on line {row[k] + 1} the feature index "
                        f"{pairs[2 * k].decode()[:40]} is too large")
    idx = pairs[0::2].astype(np.int64)
    values = _libsvm_numbers(pairs[1::2], lines, lambda k: row[k], "the value", name)
    same_line = row[1:] == row[:-1]
    bad = np.flatnonzero(same_line & (idx[1:] <= idx[:-1]))
    if bad.size:
        k = int(bad[0]) + 1
        raise DataError(f"{name} is not valid LIBSVM text: on line {row[k] + 1} the feature index {idx[k]} "
                        f"comes after {idx[k - 1]}; feature indices must be sorted and unique along a line")
    if idx.size and idx.min() > 0:     # one-based, as LIBSVM writes them (zero-based if a 0 occurs)
        idx -= 1
    d = int(idx.max()) + 1 if idx.size else 1
    cap = limits.bound("cells")
    if cap is not None and n * d > cap:
        raise DataError(f"{name} has {n} samples × {d} features (the largest feature index is {d}); "
                        f"svmviz works with dense tables of at most {cap:,} values")
    _check_memory(n, d, name)
    X = np.zeros((n, d))
    X[row, idx] = values
    bad = ~np.isfinite(X)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise DataError(f"line {i + 1}, feature {j + 1} is {X[i, j]}: NaN and infinite values are not allowed")
    # the rules of a CSV label column: whole numbers that a float64 holds exactly (2**60 + 1
    # reads as 2**60, so larger labels are refused, not merged)
    bad = ~np.isfinite(y) | (y != np.round(y)) | (np.abs(y) >= 2**53)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise DataError(f"line {k + 1}: the label {y[k]:.17g} is not a class label (LIBSVM labels "
                        "here are whole numbers smaller than 2**53 in size)")
    return X, y.astype(np.int64), [f"x{j + 1}" for j in range(d)]


def load_dataset(source, fmt: str | None = None, *, name: str | None = None,
                 max_mb: float | None = None) -> Dataset:
    """Load a ``Dataset`` from a path or a file object (e.g. a Streamlit upload).

    CSV: the header is optional; the label column is the one named label/class/target/y, else the
    last column; ``,`` ``;`` tab or whitespace separate the columns; ``#`` starts a comment line.
    LIBSVM/SVMlight text gives the matrix and labels scikit-learn's ``load_svmlight_file`` gives.

    Parameters
    ----------
    source : str, PathLike, or an object with ``read()`` (and optionally ``name``)
    fmt : "csv", "libsvm", or None to infer it from the file name or its content
    name : the data set's name (default: the file's stem)
    max_mb : size limit in MB (default: the work budget's ``file_mb``, ``svmviz.limits``; none
        without a budget)

    Raises
    ------
    DataError : for every input that is not a usable labelled data set.
    """
    if fmt not in (None, "csv", "libsvm"):
        raise DataError(f"unknown format {fmt!r}: use 'csv', 'libsvm' or None")
    data, fname, src = _read_bytes(source, limits.bound("file_mb") if max_mb is None else max_mb)
    body = _data_bytes(_utf8(data, fname))
    del data
    if not body.strip():
        raise DataError(f"{fname} has no data rows (only blank or comment lines)")
    fmt = fmt or _infer_format(_first_line(body), fname)
    if fmt == "csv":
        X, y, feats = _parse_csv(body, fname)
    else:
        X, y, feats = _parse_libsvm(body, fname)
    limits.check_classes(np.unique(y).size, fname)
    return Dataset(X, y, feats, [], name or Path(fname).stem, src)

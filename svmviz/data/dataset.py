"""The ``Dataset`` record and the checks every data set passes before any model sees it."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from numbers import Real

import numpy as np

from svmviz import limits
from svmviz.errors import DataError


@dataclass
class Dataset:
    """A labelled data set.

    Attributes
    ----------
    X : float64 array (n, d)
    y : labels as given (numbers or strings), shape (n,)
    feature_names, class_names : lists of str (class_names follow ``np.unique(y)`` order)
    name, source : what it is and where it came from (a path, "upload: file.csv", "generated: ...")
    check_classes : require two classes with two samples each (a training set); a test part of a
        split sets it to False, since it may hold a single sample of a class
    """

    X: np.ndarray
    y: np.ndarray
    feature_names: list[str] = field(default_factory=list)
    class_names: list[str] = field(default_factory=list)
    name: str = "data"
    source: str = ""
    check_classes: bool = field(default=True, repr=False, compare=False)

    def __post_init__(self):
        self.X, self.y = validate_xy(self.X, self.y, min_per_class=2 if self.check_classes else 0)
        # every data set, whatever made it (a file, a lesson, a drawing), meets the work budget's
        # bound on classes before a page does anything per class with it
        limits.check_classes(np.unique(self.y).size, f"the data set {self.name[:40]!r}")
        d = self.X.shape[1]
        if not self.feature_names:
            self.feature_names = [f"x{j + 1}" for j in range(d)]
        if len(self.feature_names) != d:
            raise DataError(f"{len(self.feature_names)} feature names for {d} features")
        if not self.class_names:
            self.class_names = [str(c) for c in np.unique(self.y)]
        if len(self.class_names) != np.unique(self.y).size:
            raise DataError(f"{len(self.class_names)} class names for {np.unique(self.y).size} classes")

    @property
    def n_samples(self) -> int:
        return self.X.shape[0]

    @property
    def n_features(self) -> int:
        return self.X.shape[1]

    @property
    def classes(self) -> np.ndarray:
        return np.unique(self.y)

    def class_counts(self) -> dict:
        cls, cnt = np.unique(self.y, return_counts=True)
        return {c.item() if hasattr(c, "item") else c: int(k) for c, k in zip(cls, cnt)}

    def subset(self, idx, name: str | None = None, check_classes: bool = True) -> "Dataset":
        """The samples ``idx`` as a new data set, keeping feature and class names."""
        y = self.y[idx]
        names = dict(zip(self.classes.tolist(), self.class_names))
        return Dataset(self.X[idx], y, list(self.feature_names), [names[c] for c in np.unique(y).tolist()],
                       name or self.name, self.source, check_classes)


def check_labels(y) -> np.ndarray:
    """``y`` as an array of numbers or of strings; mixed labels are refused, since
    ``np.asarray([1, "a"])`` would silently turn the 1 into the class "1"."""
    if isinstance(y, np.ndarray) and y.dtype != object:
        return y
    try:
        values = np.asarray(y, dtype=object)
    except (TypeError, ValueError):
        raise DataError("the labels must be a flat list of class names or numbers") from None
    flat = values.ravel().tolist()
    text = [isinstance(v, str) for v in flat]
    if any(text) and not all(text):
        raise DataError("the labels mix numbers and text (e.g. 1 and 'a'): make them all class "
                        "names or all whole numbers")
    bad = [v for v in flat if not isinstance(v, (str, Real, np.bool_))]
    if bad:
        raise DataError(f"a label is a {type(bad[0]).__name__} ({bad[0]!r}): labels are class "
                        "names or numbers")
    return np.asarray(flat).reshape(values.shape)


def validate_xy(X, y, min_per_class: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """Check shapes, finiteness and classes; return (X float64 2-D, y 1-D).

    ``min_per_class=0`` checks only shapes and values (no class requirements)."""
    try:
        X = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        raise DataError("the features must all be numbers (of at most about 1e308)") from None
    y = check_labels(y)
    if X.ndim != 2:
        raise DataError(f"the features must form a table (2-D array), got {X.ndim}-D")
    n = X.shape[0]
    if n == 0 or X.shape[1] == 0:
        raise DataError("the data set is empty: it has no samples or no features")
    if y.ndim != 1 or y.shape[0] != n:
        raise DataError(f"there are {n} samples but {y.size} labels")
    bad = ~np.isfinite(X)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise DataError(f"sample {i + 1}, feature {j + 1} is {X[i, j]}: every feature must be a finite number")
    if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
        raise DataError("a label is NaN or infinite")
    if min_per_class <= 0:
        return X, y
    classes, counts = np.unique(y, return_counts=True)
    if classes.size < 2:
        raise DataError(f"only one class ({classes[0]!s}) is present: a classifier needs at least two")
    small = classes[counts < min_per_class]
    if small.size:
        raise DataError(f"class {small[0]!s} has only {counts[counts < min_per_class][0]} sample(s): "
                        f"every class needs at least {min_per_class}")
    return X, y


# --- user strings shown or written safely ------------------------------------------------------

#: Characters that make a spreadsheet read a cell as a formula (OWASP "CSV injection").
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_MARKDOWN_SPECIAL = "\\`*_{}[]()<>#+-.!|~$&"
#: Where GitHub-flavoured Markdown (Streamlit's) starts a link of bare text — ``http://…``,
#: ``www.…``, ``a@b.c`` — escaped characters or not: an invisible word joiner (U+2060) inside
#: the pattern breaks it and shows the same text.
_AUTOLINK = re.compile(r"(?<=:)(?=//)|(?<=\bwww)(?=\.)|(?<=@)", re.IGNORECASE)


def csv_cell(value):
    """``value`` safe for a CSV a spreadsheet may open: text starting with = + - @ TAB or CR gets
    a leading apostrophe (shown, not evaluated); numbers, including negative ones, stay as they
    are."""
    if not isinstance(value, str) or not value.startswith(FORMULA_START):
        return value
    try:
        float(value)
        return value  # "-1.5" is a number, not a formula
    except ValueError:
        return "'" + value


def signed(v: int) -> str:
    """+1 / −1 with the minus sign (U+2212) every class label and figure uses, never a hyphen
    next to a minus."""
    return f"{int(v):+d}".replace("-", "\u2212")


def minus_signs(text: str) -> str:
    """``text`` with every negative number written with the minus sign (U+2212): "−116", as the
    class labels beside it; a hyphen inside a word or a range ("x-1", "1-2") stays."""
    return re.sub(r"(?<![\w.])-(?=\d)", "\u2212", text)


def counted(n: int, noun: str) -> str:
    """``n`` and ``noun``, plural unless n is 1: "1 node", "3 nodes", "2 classes"."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}{'es' if noun.endswith(('s', 'x', 'ch', 'sh')) else 's'}"


def plain_text(value) -> str:
    """``str(value)`` with every Markdown/HTML character escaped, for ``st.markdown`` and
    friends: a class name like ``![x](http://…)`` is shown as typed instead of fetching an
    image, and a bare ``http://…`` as text rather than a link (a word joiner, U+2060, follows
    its ``:`` — invisible); line breaks become spaces."""
    text = " ".join(str(value).splitlines())
    text = _AUTOLINK.sub("\u2060", text)
    return "".join("\\" + ch if ch in _MARKDOWN_SPECIAL else ch for ch in text)

"""Lesson files: a data set, the app's state and optionally a trained model as one versioned JSON
document, so that an uploaded data set and the view on it can be handed to students and brought
back (a URL cannot hold uploaded data).

Like model files (``svmviz.export.models``), never pickle: loading only builds numbers, strings
and float arrays, and checks all of them — size first, then format and version, then every
field's type, length, shape and finiteness; every problem is a ``LessonFormatError``.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass

import numpy as np

import svmviz
from svmviz import limits
from svmviz.data.dataset import Dataset, validate_xy
from svmviz.errors import DataError, ModelFormatError
from svmviz.export import models
from svmviz.export.codec import decode, encode

FORMAT = "svmviz-lesson"
VERSION = 1
MAX_STATE_ENTRIES = 500
MAX_KEY_CHARS = 100
#: The longest string kept: a state value, the data set's name or source, a feature or class name.
MAX_TEXT_CHARS = 2000
_INT_BOUND = 2**63  # state integers must fit an int64 (no OverflowError further on)
_KEYS = {"format", "version", "svmviz_version", "dataset", "state", "model"}
_DATASET_KEYS = {"name", "source", "feature_names", "class_names", "X", "y"}
_Y_KINDS = ("int", "float", "str", "bool")
_SNIFF_BYTES = 4096
# both writers put "format" first; a model document inside a lesson comes later
_FORMAT_FIELD = re.compile(rb'\{\s*"format"\s*:\s*"(svmviz-model|svmviz-lesson)"')
_KIND = {models.FORMAT: "model", FORMAT: "lesson"}


class LessonFormatError(ModelFormatError):
    """A lesson document that is not valid, too large or of an unknown version."""


@dataclass(frozen=True)
class Lesson:
    """What a lesson file holds: the data set, the app state (str → str/int/float/bool; the app
    chose the keys) and the model document (``dumps_model`` JSON text, already validated) or None."""

    dataset: Dataset
    state: dict
    model: str | None = None

    def load_model(self):
        """The estimator of the model document (None without one)."""
        return None if self.model is None else models.loads_model(self.model)


def _check_text(value, what: str) -> str:
    if not isinstance(value, str):
        raise LessonFormatError(f"{what} must be a string, not {type(value).__name__}")
    if len(value) > MAX_TEXT_CHARS:
        raise LessonFormatError(f"{what} is {len(value)} characters long; the limit is {MAX_TEXT_CHARS}")
    return value


def check_state(state) -> dict:
    """``state`` as a plain dict after checking it is flat: at most ``MAX_STATE_ENTRIES`` string
    keys (1–``MAX_KEY_CHARS`` characters) to str (≤ ``MAX_TEXT_CHARS``), int (int64), finite
    float or bool values."""
    if not isinstance(state, dict):
        raise LessonFormatError(f"the lesson state must be a mapping of names to values, not {type(state).__name__}")
    if len(state) > MAX_STATE_ENTRIES:
        raise LessonFormatError(f"the lesson state has {len(state)} entries; the limit is {MAX_STATE_ENTRIES}")
    out = {}
    for key, value in state.items():
        if not isinstance(key, str) or not 0 < len(key) <= MAX_KEY_CHARS:
            raise LessonFormatError(f"state key {str(key)[:40]!r} must be a string of 1 to {MAX_KEY_CHARS} characters")
        if isinstance(value, (bool, np.bool_)):
            value = bool(value)
        elif isinstance(value, (int, np.integer)):
            value = int(value)
            if not -_INT_BOUND <= value < _INT_BOUND:
                raise LessonFormatError(f"state {key!r}: the integer {value:.3g} does not fit 64 bits")
        elif isinstance(value, (float, np.floating)):
            value = float(value)
            if not math.isfinite(value):
                raise LessonFormatError(f"state {key!r} is {value}: numbers must be finite")
        elif isinstance(value, str):
            _check_text(value, f"state {key!r}")
        else:
            raise LessonFormatError(f"state {key!r} is a {type(value).__name__}: values must be a string, "
                                    "an integer, a finite number or true/false")
        out[key] = value
    return out


# --- the state a lesson may set: a schema of the app's settings ---------------------------------

#: A setting's name: "page.name" (the app binds every setting so); anything else (the app's own
#: "_svmviz_..." keys, a widget's key such as an uploader's) is not the lesson's to set.
_SETTING_NAME = re.compile(r"^[a-z][a-z0-9_]*\.[A-Za-z0-9_.]+$")


@dataclass(frozen=True)
class Setting:
    """How one setting's value is checked, as a link's value is: of the default's type (an
    integer is accepted for a number), one of ``options`` when given, clamped into ``bounds``.
    Called as ``setting(key, value)`` it returns ``(value, note)``, ``note`` saying what was
    clamped (else None), or raises ``ValueError`` saying what the value must be."""

    default: object
    options: tuple | None = None
    bounds: tuple | None = None

    def __call__(self, key: str, value):
        d = self.default
        if isinstance(d, bool):
            ok, kind = isinstance(value, bool), "true or false"
        elif isinstance(d, (int, np.integer)):
            ok, kind = isinstance(value, (int, np.integer)) and not isinstance(value, bool), "a whole number"
        elif isinstance(d, (float, np.floating)):
            ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool) \
                and math.isfinite(float(value))
            kind = "a finite number"
            value = float(value) if ok else value
        elif isinstance(d, str):
            ok, kind = isinstance(value, str), "text"
        else:
            ok, kind = isinstance(value, (str, int, float, bool)), "a plain value"
        if not ok:
            raise ValueError(f"{key} must be {kind}, not {str(value)[:40]!r}")
        if self.options is not None and value not in self.options:
            shown = ", ".join(repr(o) for o in list(self.options)[:8])
            raise ValueError(f"{key} must be one of {shown}, not {str(value)[:40]!r}")
        if self.bounds is not None and not isinstance(value, (bool, str)):
            lo, hi = self.bounds
            if not lo <= value <= hi:
                clamped = type(d)(min(max(value, lo), hi))
                return clamped, f"{key} = {value!r} is outside [{lo}, {hi}]: {clamped!r} is used"
        return value, None


def validate_state(state: dict, schema, unknown=None) -> tuple[dict, list[str]]:
    """The lesson's ``state`` checked against ``schema`` (setting name → validator called as
    ``validator(key, value)`` returning ``(value, note)``, e.g. a ``Setting``): returns the values
    to apply and the notes of what was clamped. A key of the app's own (not of the form
    ``page.name``: ``_svmviz_…``, a widget's key) is refused; a key the schema does not hold is
    given to ``unknown`` (same call; None refuses it). A value its validator refuses is a
    ``LessonFormatError`` naming the key: nothing of the lesson is applied then."""
    state = check_state(state)
    out, notes = {}, []
    for key, value in state.items():
        if not _SETTING_NAME.match(key):
            raise LessonFormatError(f"the lesson sets {key[:40]!r}, which is internal to the app, "
                                    "not a setting a lesson may change")
        check = schema.get(key, unknown)
        if check is None:
            raise LessonFormatError(f"the lesson sets {key!r}, which is not a setting of this app")
        try:
            out[key], note = check(key, value)
        except ValueError as exc:
            raise LessonFormatError(f"the lesson's setting {exc}") from None
        if note:
            notes.append(note)
    return out, notes


def _check_model(text: str | bytes):
    try:
        return models.loads_model(text)  # the same checks as a model file read on its own
    except ModelFormatError as exc:
        raise LessonFormatError(f"the lesson's model: {exc}") from None


def _model_doc(model) -> dict:
    """The model document as a JSON object: from ``dumps_model`` text or from an estimator."""
    text = model if isinstance(model, (str, bytes)) else models.dumps_model(model)
    _check_model(text)
    return json.loads(text)


def dumps_lesson(dataset: Dataset, state: dict, model=None) -> str:
    """The lesson document (JSON text) of ``dataset``, the app ``state`` and, optionally, a model
    (a fitted svmviz estimator or the text of its ``dumps_model`` document)."""
    if not isinstance(dataset, Dataset):
        raise LessonFormatError(f"a lesson holds a svmviz Dataset, not a {type(dataset).__name__}")
    try:
        validate_xy(dataset.X, dataset.y)  # what loading will require (two classes, two samples each)
    except DataError as exc:
        raise LessonFormatError(f"this data set cannot be saved as a lesson: {exc}") from None
    for what, text in (("the data set's name", dataset.name), ("the data set's source", dataset.source),
                       *(("a feature name", f) for f in dataset.feature_names),
                       *(("a class name", c) for c in dataset.class_names)):
        _check_text(text, what)
    y = dataset.y if dataset.y.dtype.kind != "O" else dataset.y.astype(str)
    try:
        ds = {"name": dataset.name, "source": dataset.source, "feature_names": list(dataset.feature_names),
              "class_names": list(dataset.class_names), "X": encode(dataset.X), "y": encode(y)}
    except ModelFormatError as exc:
        raise LessonFormatError(f"the labels cannot be saved: {exc}") from None
    doc = {"format": FORMAT, "version": VERSION, "svmviz_version": svmviz.__version__, "dataset": ds,
           "state": check_state(state), "model": None if model is None else _model_doc(model)}
    text = json.dumps(doc, allow_nan=False)
    cap = _lesson_mb()
    if cap is not None and len(text) > cap * 2**20:
        raise LessonFormatError(f"the lesson would be {len(text) / 2**20:.1f} MB, above the {cap:g} MB "
                                "a lesson file may have: use a smaller data set")
    return text


def _lesson_mb() -> float | None:
    """A lesson is read like a data file (the Data page's uploader): the work budget's ``file_mb``."""
    return limits.bound("file_mb")


def _reject_constant(name):
    # Python's json reads NaN/Infinity, which are not JSON; a lesson never contains them
    raise LessonFormatError(f"the lesson file contains {name}, which is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):  # e.g. 1e999: every number of a lesson (data, state, model) is finite
        raise LessonFormatError(f"the number {text[:30]} in the lesson file is out of range")
    return value


def _array(obj, what: str, kinds: tuple[str, ...], ndim: int) -> np.ndarray:
    """A ``registry.encode``d array, its declared shape checked before anything is allocated."""
    body = obj.get("__ndarray__") if isinstance(obj, dict) and len(obj) == 1 else None
    if not isinstance(body, dict):
        raise LessonFormatError(f"{what} must be an encoded array ({{'__ndarray__': ...}})")
    shape = body.get("shape")
    cap = limits.bound("cells")
    if (body.get("dtype") not in kinds or not isinstance(shape, list) or len(shape) != ndim
            or not all(type(s) is int and 0 <= s for s in shape)
            or (cap is not None and (max(shape, default=0) > cap or math.prod(shape) > cap))):
        most = "" if cap is None else f" with at most {cap:,} entries"
        raise LessonFormatError(f"{what} must be a {ndim}-D array of {' or '.join(kinds)}{most}")
    return decode(obj)


def _dataset(obj) -> Dataset:
    if not isinstance(obj, dict) or set(obj) != _DATASET_KEYS:
        raise LessonFormatError(f"the lesson's 'dataset' must have exactly the entries {sorted(_DATASET_KEYS)}")
    X = _array(obj["X"], "the features X", ("float",), 2)
    y = _array(obj["y"], "the labels y", _Y_KINDS, 1)
    names = {}
    for field in ("feature_names", "class_names"):
        value = obj[field]
        if not isinstance(value, list):
            raise LessonFormatError(f"the lesson's {field} must be a list of strings")
        names[field] = [_check_text(v, f"an entry of {field}") for v in value]
    try:
        return Dataset(X, y, names["feature_names"], names["class_names"], _check_text(obj["name"], "the name"),
                       _check_text(obj["source"], "the source"))
    except DataError as exc:
        raise LessonFormatError(f"the lesson's data set is not usable: {exc}") from None


def loads_lesson(text: str | bytes) -> Lesson:
    """The ``Lesson`` in a lesson document; every problem is a ``LessonFormatError``."""
    if not isinstance(text, (str, bytes, bytearray)):
        raise LessonFormatError(f"a lesson is read from text or bytes, not a {type(text).__name__}")
    size = len(text.encode("utf-8")) if isinstance(text, str) else len(text)
    cap = _lesson_mb()
    if cap is not None and size > cap * 2**20:
        raise LessonFormatError(f"the lesson file is {size / 2**20:.1f} MB; the limit is {cap:g} MB")
    try:
        doc = json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float)
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        if isinstance(exc, LessonFormatError):
            raise
        raise LessonFormatError(f"not a svmviz lesson file: it is not valid JSON ({exc})") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        hint = " (it is a model file: load it on its method page)" if (
            isinstance(doc, dict) and doc.get("format") == models.FORMAT) else ""
        raise LessonFormatError(f"not a svmviz lesson file: the 'format' field must be {FORMAT!r}{hint}")
    version = doc.get("version")
    if type(version) is not int or version != VERSION:
        raise LessonFormatError(f"lesson file version {version!r} is not supported (this svmviz reads version {VERSION})")
    if set(doc) != _KEYS:
        raise LessonFormatError(f"the lesson file must have exactly the entries {sorted(_KEYS)}")
    try:
        dataset = _dataset(doc["dataset"])
    except ModelFormatError as exc:
        if isinstance(exc, LessonFormatError):
            raise
        raise LessonFormatError(f"the lesson's data set is malformed: {exc}") from None
    state = check_state(doc["state"])
    model = None
    if doc["model"] is not None:
        if not isinstance(doc["model"], dict):
            raise LessonFormatError("the lesson's 'model' must be a model document or null")
        model = json.dumps(doc["model"])
        est = _check_model(model)
        try:  # the model is shown with the lesson's data: it must be a model of those data
            models.check_model_matches(est, dataset.n_features, dataset.classes)
        except ModelFormatError as exc:
            raise LessonFormatError(f"the lesson's model does not fit its data set: {exc}") from None
    return Lesson(dataset, state, model)


def sniff_document(data: bytes | str) -> str | None:
    """``"model"`` or ``"lesson"`` when ``data`` is a svmviz model or lesson document (of any
    version: loading it then says what is wrong), else None — e.g. for a CSV or LIBSVM file."""
    raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    head = raw[:_SNIFF_BYTES].lstrip(b"\xef\xbb\xbf \t\r\n")
    if not head.startswith(b"{"):
        return None
    m = _FORMAT_FIELD.match(head)
    if m:
        return _KIND[m.group(1).decode()]
    cap = _lesson_mb()
    if cap is not None and len(raw) > cap * 2**20:
        return None
    try:
        doc = json.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    return _KIND.get(doc.get("format")) if isinstance(doc, dict) and isinstance(doc.get("format"), str) else None

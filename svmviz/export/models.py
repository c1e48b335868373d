"""Trained models as versioned JSON documents (never pickle: a file a student uploads must not be
able to run code)."""

from __future__ import annotations

import dataclasses
import json
import os
import warnings
from numbers import Integral, Real

import numpy as np

import svmviz
from svmviz import limits
from svmviz.data.loaders import read_capped
from svmviz.errors import ModelFormatError, ParameterError, ProblemTooLargeError
from svmviz.export.codec import decode, decode_estimator, encode, encode_estimator
from svmviz.models import ESTIMATORS  # noqa: F401  (each estimator registers itself: a document may name any)
from svmviz.models.constraints import check_params

FORMAT = "svmviz-model"
VERSION = 1
#: Fitted attributes that may hold NaN by design (``ScatterSVC.mu_`` without μ, guard planes of
#: points without an LP); every other float of an estimator's own state must be finite.
NONFINITE_OK = {"GuardVectorSVC": {"planes_"}, "ScatterSVC": {"mu_"}}
_PROBE_ROWS = 256
#: option values renamed within format version 1, (class, parameter) → {old: new}: a file written
#: before the rename loads with today's name (the estimators know only the new one)
RENAMED_OPTIONS = {("GuardVectorSVC", "method"): {"seed": "yang_ahuja"},
                   ("WeightedDAGSVC", "weight"): {"seed": "gaussian_paper"}}
#: parameters added within format version 1, (class, parameter) → the value that reproduces how a
#: file written before them was built (not today's default)
ADDED_PARAMS = {("SVMTreeClassifier", "fallback"): "all_stuck", ("SVMTreeClassifier", "zero_test"): "relative",
                ("SVMTreeClassifier", "tie_break"): "order"}


def _guard_before_lp_checks(fitted: dict) -> None:
    # written before the per-point LPs were checked: converged_ was the QP's alone
    if "converged_" in fitted and "unconverged_" not in fitted:
        qp_ok = fitted["converged_"] is True
        fitted.setdefault("qp_converged_", qp_ok)
        fitted.setdefault("lp_failed_", {"__ndarray__": {"dtype": "int", "shape": [0], "data": []}})
        fitted["unconverged_"] = [] if qp_ok else ["the QP on the guard vectors"]
        fitted["n_unconverged_"] = len(fitted["unconverged_"])


def _linear_coef_before_it_was_stored(fitted: dict) -> None:
    # written before kernel SVMs kept w = Σ y_i α_i x_i: compute it (None for other kernels)
    if "linear_coef_" in fitted:
        return
    try:
        linear = decode(fitted["kernel_params_"])["name"] == "linear"
        fitted["linear_coef_"] = (encode(np.asarray(decode(fitted["dual_coef_"]), dtype=np.float64)
                                         @ np.asarray(decode(fitted["support_vectors_"]), dtype=np.float64))
                                  if linear else None)
    except (KeyError, TypeError, ValueError, ModelFormatError):
        pass   # a malformed document: the checks after decoding say what is wrong with it


def _guard_before_stored_state(fitted: dict) -> None:
    _guard_before_lp_checks(fitted)
    _linear_coef_before_it_was_stored(fitted)


#: class → a function bringing the (still encoded) fitted state of an older file to today's
FITTED_UPGRADES = {"GuardVectorSVC": _guard_before_stored_state, "BinarySVC": _linear_coef_before_it_was_stored,
                   "BinaryNuSVC": _linear_coef_before_it_was_stored}


def dumps_model(model) -> str:
    doc = {"format": FORMAT, "version": VERSION, "svmviz_version": svmviz.__version__,
           "estimator_class": type(model).__name__, "model": encode_estimator(model)}
    return json.dumps(doc, allow_nan=False)


def _model_mb(max_mb: float | None) -> float | None:
    """``max_mb``, or the work budget's ``model_mb`` (``svmviz.limits``): under a server's budget
    a large document is refused unread (a 50 MB document took 1.7 GB and 21 s to parse)."""
    return limits.bound("model_mb") if max_mb is None else max_mb


def loads_model(text: str | bytes, max_mb: float | None = None):
    """The estimator in a model document; every problem is a ``ModelFormatError``.

    Beyond the structure the values are checked: the parameters against the
    estimator class's constraints (``svmviz.models.constraints``), the estimator's own floats
    finite, and the model must predict a probe (points from its own state) with finite decisions
    and known labels; a document of more than ``max_mb`` MB (default: the work budget's
    ``model_mb``, none without a budget) is refused unread."""
    if not isinstance(text, (str, bytes, bytearray)):
        raise ModelFormatError(f"a model document is text or bytes, not a {type(text).__name__}")
    max_mb = _model_mb(max_mb)
    if max_mb is not None and len(text) > max_mb * 2**20:
        raise ModelFormatError(f"the model document is {len(text) / 2**20:.1f} MB; the limit is "
                               f"{max_mb:g} MB (pass max_mb= to read a larger one)")
    try:
        doc = json.loads(text)
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise ModelFormatError(f"not a svmviz model file: it is not valid JSON ({exc})") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ModelFormatError(f"not a svmviz model file: the 'format' field must be {FORMAT!r}")
    version = doc.get("version")
    if type(version) is not int or version != VERSION:
        raise ModelFormatError(f"model file version {version!r} is not supported "
                               f"(this svmviz reads version {VERSION})")
    model = doc.get("model")
    if not isinstance(model, dict) or model.get("__estimator__") != doc.get("estimator_class"):
        raise ModelFormatError("model file is inconsistent: 'estimator_class' does not match the model")
    try:
        check_declared_size(model)
        upgrade_document(model)
        est = decode_estimator(model)
    except (ModelFormatError, ProblemTooLargeError):
        raise
    except (TypeError, ValueError, KeyError, RecursionError, OverflowError) as exc:
        # e.g. an unhashable mapping key, or an estimator refusing a parameter value
        raise ModelFormatError(f"the model file is malformed: {exc}") from None
    check_loaded_model(est)
    return est


def upgrade_document(node) -> None:
    """Bring the estimators of a decoded JSON document (``node``, changed in place) to today's
    parameter values (``RENAMED_OPTIONS``, ``ADDED_PARAMS``) and fitted state (``FITTED_UPGRADES``), so old model
    files load without fallbacks in the estimators."""
    if isinstance(node, list):
        for v in node:
            upgrade_document(v)
    elif isinstance(node, dict):
        name, params, fitted = node.get("__estimator__"), node.get("params"), node.get("fitted")
        if isinstance(name, str) and isinstance(params, dict):
            for p, v in params.items():
                if isinstance(v, str) and v in RENAMED_OPTIONS.get((name, p), {}):
                    params[p] = RENAMED_OPTIONS[name, p][v]
            for (cls_name, p), v in ADDED_PARAMS.items():
                if cls_name == name:
                    params.setdefault(p, v)
        if isinstance(name, str) and isinstance(fitted, dict) and name in FITTED_UPGRADES:
            FITTED_UPGRADES[name](fitted)
        for v in node.values():
            upgrade_document(v)


def _is_int(v) -> bool:
    return isinstance(v, Integral) and not isinstance(v, (bool, np.bool_))


def _estimators_in(value):
    """Every estimator held in ``value`` (lists, tuples, dicts; records are left to the probe)."""
    from sklearn.base import BaseEstimator

    if isinstance(value, BaseEstimator):
        yield value
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _estimators_in(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _estimators_in(v)


def _nonfinite(value) -> bool:
    if isinstance(value, np.ndarray):
        return value.dtype.kind == "f" and not np.all(np.isfinite(value))
    if isinstance(value, Real) and not isinstance(value, (bool, np.bool_, Integral)):
        return not np.isfinite(float(value))
    if isinstance(value, (list, tuple)):
        return any(_nonfinite(v) for v in value)
    if isinstance(value, dict):
        return any(_nonfinite(v) for v in value.values())
    return False


def _nonfinite_record_array(value) -> str | None:
    """``Record.field`` of the first float array holding NaN/inf inside the records in ``value``.
    Records may hold non-finite scalars by design (an unbounded threshold, a μ that does not
    exist), arrays (w, α, decision values) never: a NaN there silently changes predictions."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            v = getattr(value, f.name)
            if isinstance(v, np.ndarray) and v.dtype.kind == "f" and not np.all(np.isfinite(v)):
                return f"{type(value).__name__}.{f.name}"
            if (hit := _nonfinite_record_array(v)) is not None:
                return hit
    elif isinstance(value, (list, tuple, dict)):
        for v in (value.values() if isinstance(value, dict) else value):
            if (hit := _nonfinite_record_array(v)) is not None:
                return hit
    return None


def _check_state(est, where: str) -> None:
    name = type(est).__name__
    try:
        check_params(est)
    except ParameterError as exc:
        raise ModelFormatError(f"{where}: {exc}") from None
    allowed = NONFINITE_OK.get(name, set())
    for attr, value in vars(est).items():
        if not attr.endswith("_") or attr == "history_":
            continue
        if attr not in allowed and _nonfinite(value):
            raise ModelFormatError(f"{where}: the fitted {name}.{attr} holds NaN or infinite values")
        if (hit := _nonfinite_record_array(value)) is not None:
            raise ModelFormatError(f"{where}: the fitted {name}.{attr} holds NaN or infinite values "
                                   f"(in {hit})")
        for inner in _estimators_in(value):
            _check_state(inner, where)


def _probe(est, n_features: int) -> np.ndarray:
    """Points where a model must work: rows of its own (n, d) float arrays (support vectors,
    centres, ...) so every stored part is reached, plus the origin; at most ``_PROBE_ROWS``."""
    rows = [np.zeros((1, n_features))]

    def collect(value, depth=0):
        if depth > 6 or sum(len(r) for r in rows) >= _PROBE_ROWS:
            return
        if isinstance(value, np.ndarray):
            if value.ndim == 2 and value.shape[1] == n_features and value.dtype.kind == "f":
                rows.append(value[: _PROBE_ROWS])
        elif isinstance(value, (list, tuple)):
            for v in value[:64]:
                collect(v, depth + 1)
        elif isinstance(value, dict):
            for v in list(value.values())[:64]:
                collect(v, depth + 1)
        elif hasattr(value, "__dict__") or hasattr(value, "__dataclass_fields__"):
            for v in list(vars(value).values())[:64]:
                collect(v, depth + 1)

    collect(vars(est))
    P = np.vstack(rows)[:_PROBE_ROWS]
    return P[np.all(np.isfinite(P), axis=1)]


def _stored_rows(value, n_features: int, depth: int = 0) -> int:
    """Rows of every (n, d) float array held by ``value`` (support vectors, stored training points,
    nested estimators' too): what evaluating the model costs per point."""
    if depth > 12:
        return 0
    if isinstance(value, np.ndarray):
        return value.shape[0] if value.ndim == 2 and value.shape[1] == n_features else 0
    if isinstance(value, (list, tuple)):
        return sum(_stored_rows(v, n_features, depth + 1) for v in value)
    if isinstance(value, dict):
        return sum(_stored_rows(v, n_features, depth + 1) for v in value.values())
    if hasattr(value, "__dict__") or dataclasses.is_dataclass(value):
        return sum(_stored_rows(v, n_features, depth + 1) for v in vars(value).values())
    return 0


def check_declared_size(model: dict) -> None:
    """The work budget's bounds on features and classes (``svmviz.limits``) applied to what an
    encoded estimator declares (its ``n_features_in_`` and the shape of its ``classes_``), before
    any of it is decoded: a file of 150,000 classes is refused unread, not after building them."""
    fitted = model.get("fitted")
    if not isinstance(fitted, dict):
        return   # decoding says what is wrong with it
    where = f"the {str(model.get('__estimator__'))[:40]} in the model file"
    n = fitted.get("n_features_in_")
    if _is_int(n):
        limits.check_features(int(n), where)
    body = fitted.get("classes_")
    body = body.get("__ndarray__") if isinstance(body, dict) else None
    shape = body.get("shape") if isinstance(body, dict) else None
    if isinstance(shape, list) and len(shape) == 1 and type(shape[0]) is int:
        limits.check_classes(shape[0], where)


def check_model_size(est) -> None:
    """``ProblemTooLargeError`` when a model holds more features, classes or stored training
    points (support vectors) than the work budget in force allows (``svmviz.limits``): counted on the
    decoded arrays, before the model computes anything."""
    where = f"the {type(est).__name__} in the model file"
    limits.check_features(int(est.n_features_in_), where)
    limits.check_classes(int(np.asarray(est.classes_).size), where)
    limits.check_support_vectors(_stored_rows(vars(est), int(est.n_features_in_)), where)


def check_loaded_model(est) -> None:
    """``ModelFormatError`` unless ``est`` (decoded from a document) is a working model: valid
    parameters, finite fitted values, and it predicts known labels with finite decisions; a model
    larger than the bounds of ``svmviz.limits`` is a ``ProblemTooLargeError``."""
    where = f"the {type(est).__name__} in the model file is invalid"
    n = getattr(est, "n_features_in_", None)
    if not (_is_int(n) and 1 <= n <= 20_000_000):
        raise ModelFormatError(f"{where}: n_features_in_ must be a whole number ≥ 1, got {str(n)[:40]}")
    classes = getattr(est, "classes_", None)
    if not (isinstance(classes, np.ndarray) and classes.ndim == 1 and classes.size >= 2
            and np.unique(classes).size == classes.size):
        raise ModelFormatError(f"{where}: classes_ must be a list of at least two distinct labels")
    check_model_size(est)
    _check_state(est, where)
    P = _probe(est, n)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            pred = np.asarray(est.predict(P))
            dec = np.asarray(est.decision_function(P), dtype=np.float64) \
                if hasattr(est, "decision_function") else None
    # a malformed document can break prediction in any way (wrong shapes, wrong types, missing
    # parts: IndexError, KeyError, TypeError, AttributeError...): each means the file is invalid
    except Exception as exc:  # noqa: BLE001
        raise ModelFormatError(f"{where}: it cannot predict ({type(exc).__name__}: "
                               f"{str(exc)[:200]})") from None
    if pred.shape != (P.shape[0],) or not np.all(np.isin(pred, classes)):
        raise ModelFormatError(f"{where}: its predictions are not labels of classes_")
    if dec is not None and (dec.shape[0] != P.shape[0] or not np.all(np.isfinite(dec))):
        raise ModelFormatError(f"{where}: its decision values are not finite")


def check_model_matches(est, n_features: int, classes) -> None:
    """``ModelFormatError`` unless ``est`` was fitted on ``n_features`` features and only on
    classes of the data it is to be shown with (``classes``; a page may use some of them, e.g.
    two for a binary model): a model of other data cannot be drawn over this one (its decision
    would fail on the features, or vote for classes the data does not have)."""
    n_model = getattr(est, "n_features_in_", None)
    if n_model != n_features:
        raise ModelFormatError(f"the model was fitted on {n_model} features; the current data has "
                               f"{n_features}: load matching data first")
    mine = np.unique(np.asarray(est.classes_)).tolist()
    theirs = np.unique(np.asarray(classes)).tolist()
    foreign = [c for c in mine if c not in theirs]
    if foreign:
        def shown(values):
            return ", ".join(str(v) for v in values[:10]) + (", …" if len(values) > 10 else "")
        raise ModelFormatError(f"the model was fitted on {len(mine)} classes ({shown(mine)}), "
                               f"{len(foreign)} of which ({shown(foreign)}) the current data does not "
                               f"have (its classes: {shown(theirs)}): load matching data first")


def save_model(model, path) -> None:
    """Write ``model`` to ``path`` as a versioned JSON document."""
    text = dumps_model(model)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)


def load_model(source, max_mb: float | None = None):
    """Read a model from a path or a binary/text file object; validates, never runs code, and
    reads at most ``max_mb`` MB (default: the work budget's ``model_mb``; a device such as
    /dev/zero is refused before reading)."""
    max_mb = _model_mb(max_mb)
    if isinstance(source, (str, os.PathLike)):
        return loads_model(read_capped(source, max_mb, ModelFormatError, "a model file (.json)"), max_mb)
    if not callable(getattr(source, "read", None)):
        raise ModelFormatError(f"cannot read a model from a {type(source).__name__}; give a path or a file")
    try:
        data = source.read(-1 if max_mb is None else int(max_mb * 2**20) + 1)
    except OSError as exc:
        raise ModelFormatError(f"cannot read the model: {exc.strerror or exc}") from None
    return loads_model(data, max_mb)

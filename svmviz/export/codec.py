"""The JSON encoding of a model's state: numbers, strings, arrays, containers, and the
estimators and records of ``svmviz.registry``.

Loading never runs code: a document names a class, and only registered classes (the estimators
register themselves at import) can be rebuilt; everything else is plain JSON data.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from svmviz.data.labels import name_labels
from svmviz.errors import DataError, ModelFormatError
from svmviz.registry import (estimator_class, fitted_state, is_fitted_attribute, is_registered_estimator,
                             is_registered_record, record_class)

_ARRAY_KINDS = {"f": "float", "i": "int", "u": "int", "b": "bool", "U": "str"}


def encode(value):
    """A JSON-ready structure for ``value`` (see ``decode``)."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, np.integer)) and not isinstance(value, np.bool_):
        return int(value)
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, (float, np.floating)):
        v = float(value)
        return v if math.isfinite(v) else {"__float__": repr(v)}
    if isinstance(value, np.ndarray):
        kind = _ARRAY_KINDS.get(value.dtype.kind)
        if kind is None:
            if value.dtype.kind == "O" and all(isinstance(v, str) for v in value.ravel()):
                kind = "str"
            else:
                raise ModelFormatError(f"cannot save an array of dtype {value.dtype}")
        flat = value.ravel()
        if kind == "float":
            data = [v if math.isfinite(v) else repr(v) for v in flat.astype(np.float64).tolist()]
        elif kind == "str":
            data = [str(v) for v in flat.tolist()]
        else:
            data = flat.tolist()
        return {"__ndarray__": {"dtype": kind, "shape": list(value.shape), "data": data}}
    if isinstance(value, tuple):
        return {"__tuple__": [encode(v) for v in value]}
    if isinstance(value, list):
        return [encode(v) for v in value]
    if isinstance(value, dict):
        if all(isinstance(k, str) and not k.startswith("__") for k in value):
            return {k: encode(v) for k, v in value.items()}
        return {"__dict__": [[encode(k), encode(v)] for k, v in value.items()]}
    name = type(value).__name__
    if is_registered_estimator(value):
        return encode_estimator(value)
    if is_registered_record(value):
        return {"__record__": name,
                "fields": {f.name: encode(getattr(value, f.name)) for f in dataclasses.fields(value)}}
    raise ModelFormatError(f"cannot save a value of type {type(value).__qualname__}; "
                           "register it with register_record or register_estimator")


def encode_estimator(est) -> dict:
    name = type(est).__name__
    if not is_registered_estimator(est):
        raise ModelFormatError(f"{name} is not a registered svmviz estimator and cannot be saved")
    params = est.get_params(deep=False)
    state = {a: encode(v) for a, v in fitted_state(est).items()}
    return {"__estimator__": name, "params": encode(params), "fitted": state}


_TAGS = ("__float__", "__ndarray__", "__tuple__", "__dict__", "__estimator__", "__record__")


def decode(obj):
    """The inverse of ``encode``; raises ``ModelFormatError`` on anything it does not know
    (an unknown ``__tag__`` is refused rather than passed on as data: it may be an attempt to
    smuggle in a pickle or a class name)."""
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, list):
        return [decode(v) for v in obj]
    if not isinstance(obj, dict):
        raise ModelFormatError(f"unexpected JSON value of type {type(obj).__name__}")
    tags = [k for k in obj if k.startswith("__")]
    if not tags:
        return {k: decode(v) for k, v in obj.items()}
    tag = tags[0]
    if tag not in _TAGS or (len(obj) != 1 and tag not in ("__estimator__", "__record__")):
        raise ModelFormatError(f"unknown entry {tag!r} in the model file")
    body = obj[tag]
    if tag == "__float__":
        if body not in _SPECIAL_FLOATS:
            raise ModelFormatError(f"bad special float {body!r}")
        return float(body)
    if tag == "__ndarray__":
        return _decode_array(body)
    if tag == "__tuple__":
        return tuple(decode(v) for v in _expect(body, list, "a tuple"))
    if tag == "__dict__":
        pairs = _expect(body, list, "a mapping")
        if not all(isinstance(p, list) and len(p) == 2 for p in pairs):
            raise ModelFormatError("malformed mapping in the model file: expected [key, value] pairs")
        return {_hashable(decode(k)): decode(v) for k, v in pairs}
    if tag == "__estimator__":
        return decode_estimator(obj)
    return _decode_record(obj)


def _expect(value, kind: type, what: str):
    if not isinstance(value, kind):
        raise ModelFormatError(f"malformed model file: {what} must be a JSON {kind.__name__}, "
                               f"not {type(value).__name__}")
    return value


def _decode_record(obj):
    name = obj["__record__"]
    cls = record_class(name)
    if set(obj) - {"__record__", "fields"}:
        raise ModelFormatError(f"record {name} has unexpected entries {sorted(set(obj) - {'__record__', 'fields'})}")
    names = {f.name for f in dataclasses.fields(cls)}
    fields = _expect(obj.get("fields", {}), dict, f"the fields of record {name}")
    if set(fields) - names:
        raise ModelFormatError(f"record {name} has unknown fields {sorted(set(fields) - names)}")
    try:
        return cls(**{k: decode(v) for k, v in fields.items()})
    except TypeError as exc:
        raise ModelFormatError(f"record {name} in the model file is incomplete: {exc}") from None


def _hashable(k):
    if isinstance(k, list):
        return tuple(_hashable(v) for v in k)
    return k


_ARRAY_ITEMS = {"float": (int, float, str), "int": (int,), "bool": (bool,), "str": (str,)}
_SPECIAL_FLOATS = ("inf", "-inf", "nan")


#: numpy's own limit on the number of dimensions
_MAX_NDIM = 32


def _decode_array(d):
    body = _expect(d, dict, "an array")
    kind, shape, data = body.get("dtype"), body.get("shape"), body.get("data")
    dtype = {"float": np.float64, "int": np.int64, "bool": np.bool_, "str": np.str_}.get(kind)
    if dtype is None:
        raise ModelFormatError(f"unknown array dtype {str(kind)[:40]!r} in the model file")
    # a shape is a short list of whole numbers: [10**30] or [2.5] must not reach NumPy
    if (not isinstance(shape, list) or len(shape) > _MAX_NDIM
            or not all(type(s) is int and s >= 0 for s in shape)):
        raise ModelFormatError(f"malformed {kind} array in the model file: its shape must be a list "
                               f"of at most {_MAX_NDIM} whole numbers ≥ 0, got {str(shape)[:80]}")
    # a flat list of plain values of the declared kind (bool is an int in Python: exclude it)
    if (not isinstance(data, list)
            or not all(isinstance(v, _ARRAY_ITEMS[kind]) and (kind == "bool" or not isinstance(v, bool))
                       and (kind != "float" or not isinstance(v, str) or v in _SPECIAL_FLOATS)
                       for v in data)):
        raise ModelFormatError(f"malformed {kind} array in the model file")
    if len(data) != math.prod(shape):
        raise ModelFormatError("array data does not match its shape in the model file")
    if kind == "str":   # class labels: read as categories, their length and count bounded first
        try:
            return name_labels(data, "the file's labels", lambda k: f"entry {k + 1} of a text array").reshape(shape)
        except DataError as exc:
            raise ModelFormatError(str(exc)) from None
    try:
        arr = np.array([float(v) for v in data] if kind == "float" else data, dtype=dtype)
    except (ValueError, OverflowError) as exc:  # e.g. an int beyond 64 bits
        raise ModelFormatError(f"malformed {kind} array in the model file: {exc}") from None
    return arr.reshape(shape)


def decode_estimator(obj):
    name = _expect(obj, dict, "an estimator").get("__estimator__")
    cls = estimator_class(name)
    if set(obj) - {"__estimator__", "params", "fitted"}:
        raise ModelFormatError(f"estimator {name} has unexpected entries "
                               f"{sorted(set(obj) - {'__estimator__', 'params', 'fitted'})}")
    params = _expect(decode(_expect(obj.get("params", {}), dict, "the parameters")), dict, "the parameters")
    try:
        est = cls(**params)
    except TypeError as exc:
        raise ModelFormatError(f"parameters in the model file do not fit {name}: {exc}") from None
    for attr, v in _expect(obj.get("fitted", {}), dict, "the fitted state").items():
        if not is_fitted_attribute(cls, attr):
            raise ModelFormatError(f"{name} has no fitted attribute {attr!r}")
        setattr(est, attr, decode(v))
    return est

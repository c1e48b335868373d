"""A registry of the classes a saved model may contain, and the JSON encoding of their state.

Loading never runs code: a document names a class, and only classes registered here (by the
estimators themselves, at import) can be rebuilt; everything else is plain JSON data.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from svmviz.errors import ModelFormatError

_ESTIMATORS: dict[str, tuple[type, tuple[str, ...]]] = {}
_RECORDS: dict[str, type] = {}
_ARRAY_KINDS = {"f": "float", "i": "int", "u": "int", "b": "bool", "U": "str"}


def register_estimator(*fitted: str):
    """Class decorator: the class can be saved; ``fitted`` names its fitted attributes (those
    missing on an instance, e.g. optional ones, are skipped)."""

    def deco(cls):
        _ESTIMATORS[cls.__name__] = (cls, tuple(fitted))
        return cls

    return deco


def register_record(cls):
    """Class decorator for a dataclass used inside fitted state (trace steps, nodes, leaves)."""
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"{cls.__name__} must be a dataclass to be registered as a record")
    _RECORDS[cls.__name__] = cls
    return cls


def registered_estimators() -> dict[str, type]:
    return {k: v[0] for k, v in _ESTIMATORS.items()}


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
    if name in _ESTIMATORS and _ESTIMATORS[name][0] is type(value):
        return encode_estimator(value)
    if name in _RECORDS and _RECORDS[name] is type(value):
        return {"__record__": name,
                "fields": {f.name: encode(getattr(value, f.name)) for f in dataclasses.fields(value)}}
    raise ModelFormatError(f"cannot save a value of type {type(value).__qualname__}; "
                           "register it with register_record or register_estimator")


def encode_estimator(est) -> dict:
    name = type(est).__name__
    if name not in _ESTIMATORS:
        raise ModelFormatError(f"{name} is not a registered svmviz estimator and cannot be saved")
    _, fitted = _ESTIMATORS[name]
    params = est.get_params(deep=False)
    state = {a: encode(getattr(est, a)) for a in fitted if hasattr(est, a)}
    return {"__estimator__": name, "params": encode(params), "fitted": state}


def decode(obj):
    """The inverse of ``encode``; raises ``ModelFormatError`` on anything it does not know."""
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, list):
        return [decode(v) for v in obj]
    if not isinstance(obj, dict):
        raise ModelFormatError(f"unexpected JSON value of type {type(obj).__name__}")
    if len(obj) == 1 or "__estimator__" in obj or "__record__" in obj:
        if "__float__" in obj:
            s = obj["__float__"]
            if s not in ("inf", "-inf", "nan"):
                raise ModelFormatError(f"bad special float {s!r}")
            return float(s)
        if "__ndarray__" in obj:
            return _decode_array(obj["__ndarray__"])
        if "__tuple__" in obj:
            return tuple(decode(v) for v in obj["__tuple__"])
        if "__dict__" in obj:
            return {_hashable(decode(k)): decode(v) for k, v in obj["__dict__"]}
        if "__estimator__" in obj:
            return decode_estimator(obj)
        if "__record__" in obj:
            name = obj["__record__"]
            if name not in _RECORDS:
                raise ModelFormatError(f"unknown record type {name!r} in the model file")
            cls = _RECORDS[name]
            names = {f.name for f in dataclasses.fields(cls)}
            fields = obj.get("fields", {})
            if set(fields) - names:
                raise ModelFormatError(f"record {name} has unknown fields {sorted(set(fields) - names)}")
            return cls(**{k: decode(v) for k, v in fields.items()})
    return {k: decode(v) for k, v in obj.items()}


def _hashable(k):
    if isinstance(k, list):
        return tuple(_hashable(v) for v in k)
    return k


def _decode_array(d):
    try:
        kind, shape, data = d["dtype"], tuple(int(s) for s in d["shape"]), d["data"]
    except (KeyError, TypeError, ValueError) as exc:
        raise ModelFormatError(f"malformed array in the model file: {exc}") from None
    dtype = {"float": np.float64, "int": np.int64, "bool": np.bool_, "str": np.str_}.get(kind)
    if dtype is None:
        raise ModelFormatError(f"unknown array dtype {kind!r} in the model file")
    if kind == "float":
        data = [float(v) for v in data]
    arr = np.array(data, dtype=dtype)
    if arr.size != int(np.prod(shape)):
        raise ModelFormatError("array data does not match its shape in the model file")
    return arr.reshape(shape)


def decode_estimator(obj):
    name = obj.get("__estimator__")
    if name not in _ESTIMATORS:
        raise ModelFormatError(f"the model file names an unknown estimator class {name!r}; "
                               f"known: {', '.join(sorted(_ESTIMATORS))}")
    cls, fitted = _ESTIMATORS[name]
    params = decode(obj.get("params", {}))
    try:
        est = cls(**params)
    except TypeError as exc:
        raise ModelFormatError(f"parameters in the model file do not fit {name}: {exc}") from None
    for attr, v in obj.get("fitted", {}).items():
        if attr not in fitted:
            raise ModelFormatError(f"{name} has no fitted attribute {attr!r}")
        setattr(est, attr, decode(v))
    return est

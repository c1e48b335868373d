"""The classes a saved model may contain: estimators and the dataclass records in their state.

This is the bottom layer (it imports nothing of svmviz but the errors), so solvers, geometry and
models register their classes without depending on the export layer; ``svmviz.export.codec``
reads the registry to write and read model documents. Loading never runs code: a document names a
class, and only classes registered here can be rebuilt.
"""

from __future__ import annotations

import dataclasses

from svmviz.errors import ModelFormatError

_ESTIMATORS: dict[str, tuple[type, tuple[str, ...]]] = {}
_RECORDS: dict[str, type] = {}


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
    """Every registered estimator class by name."""
    return {k: v[0] for k, v in _ESTIMATORS.items()}


def is_registered_estimator(value) -> bool:
    """Whether ``value`` is an instance of a registered estimator class."""
    entry = _ESTIMATORS.get(type(value).__name__)
    return entry is not None and entry[0] is type(value)


def is_registered_record(value) -> bool:
    """Whether ``value`` is an instance of a registered record class."""
    return _RECORDS.get(type(value).__name__) is type(value)


def estimator_entry(name: str) -> tuple[type, tuple[str, ...]]:
    """The class registered as ``name`` and its fitted attributes; ``ModelFormatError`` if none."""
    if not isinstance(name, str) or name not in _ESTIMATORS:
        raise ModelFormatError(f"the model file names an unknown estimator class {name!r}; "
                               f"known: {', '.join(sorted(_ESTIMATORS))}")
    return _ESTIMATORS[name]


def record_class(name: str) -> type:
    """The dataclass registered as ``name``; ``ModelFormatError`` if none."""
    if not isinstance(name, str) or name not in _RECORDS:
        raise ModelFormatError(f"unknown record type {name!r} in the model file")
    return _RECORDS[name]


__all__ = ["register_estimator", "register_record", "registered_estimators", "is_registered_estimator",
           "is_registered_record", "estimator_entry", "record_class"]

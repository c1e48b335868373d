"""The classes a saved model may contain: estimators and the dataclass records in their state.

This is the bottom layer (it imports nothing of svmviz but the errors), so solvers, geometry and
models register their classes without depending on the export layer; ``svmviz.export.codec``
reads the registry to write and read model documents. Loading never runs code: a document names a
class, and only classes registered here can be rebuilt.
"""

from __future__ import annotations

import dataclasses

from svmviz.errors import ModelFormatError

_ESTIMATORS: dict[str, type] = {}
_RECORDS: dict[str, type] = {}


def register_estimator(cls):
    """Class decorator: the class can be saved. Its fitted state is found by scikit-learn's
    convention (``is_fitted_attribute``), so no list of attributes is kept by hand."""
    _ESTIMATORS[cls.__name__] = cls
    return cls


def is_fitted_attribute(cls: type, name: str) -> bool:
    """Whether ``name`` is fitted state of an instance of ``cls``: a public name ending in "_"
    (scikit-learn's convention) that is not something of the class itself (a property such as
    ``coef_``, computed from the state)."""
    return (isinstance(name, str) and name.isidentifier() and name.endswith("_")
            and not name.startswith("_") and not hasattr(cls, name))


def fitted_state(est) -> dict:
    """The fitted attributes of ``est`` and their values (``is_fitted_attribute``)."""
    return {k: v for k, v in vars(est).items() if is_fitted_attribute(type(est), k)}


def register_record(cls):
    """Class decorator for a dataclass used inside fitted state (trace steps, nodes, leaves)."""
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"{cls.__name__} must be a dataclass to be registered as a record")
    _RECORDS[cls.__name__] = cls
    return cls


def registered_estimators() -> dict[str, type]:
    """Every registered estimator class by name."""
    return dict(_ESTIMATORS)


def is_registered_estimator(value) -> bool:
    """Whether ``value`` is an instance of a registered estimator class."""
    return _ESTIMATORS.get(type(value).__name__) is type(value)


def is_registered_record(value) -> bool:
    """Whether ``value`` is an instance of a registered record class."""
    return _RECORDS.get(type(value).__name__) is type(value)


def estimator_class(name: str) -> type:
    """The class registered as ``name``; ``ModelFormatError`` if none."""
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
           "is_registered_record", "estimator_class", "record_class", "is_fitted_attribute", "fitted_state"]

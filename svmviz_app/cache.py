"""Fits and heavy results shared across sessions: one fit per class, not one per student.

A cached entry is keyed by the estimator's class, all its parameters and a content digest of
the training data (features *and* labels), never by names or shapes, so two sessions share a fit
only when they would compute the same one. Cached models are shared objects: pages never mutate
them (``clone`` first if a page must change one). Both caches are bounded.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Callable

import numpy as np
import streamlit as st
from sklearn.base import clone

MAX_FITS = 48          # fitted models kept for all sessions together
MAX_RESULTS = 96       # other heavy results (figures data, geometry)


def array_digest(*arrays) -> str:
    """Content digest of arrays (shape, dtype and bytes; object arrays by their text)."""
    h = hashlib.sha256()
    for a in arrays:
        a = np.asarray(a)
        h.update(f"{a.shape}|{a.dtype}|".encode())
        if a.dtype == object:
            h.update("\x1f".join(map(str, a.ravel())).encode())
        else:
            h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


def params_key(params: dict[str, Any]) -> str:
    return json.dumps(params, sort_keys=True, default=repr)


@st.cache_resource(max_entries=MAX_FITS, show_spinner=False)
def _fit(cls_name: str, params: str, data: str, fit_kw: str, _est, _X, _y, _fit_kw):
    return clone(_est).fit(_X, _y, **_fit_kw)


def cached_fit(estimator, X, y, **fit_kw):
    """``clone(estimator).fit(X, y, **fit_kw)``, computed once for every session asking for the
    same class, parameters and data. The returned model is shared: do not mutate it."""
    est_type = type(estimator)
    return _fit(f"{est_type.__module__}.{est_type.__qualname__}",
                params_key(estimator.get_params(deep=True)), array_digest(X, y),
                params_key({k: array_digest(v) if isinstance(v, np.ndarray) else v for k, v in fit_kw.items()}),
                estimator, X, y, fit_kw)


@st.cache_resource(max_entries=MAX_RESULTS, show_spinner=False)
def _call(name: str, key: str, _fn, _args, _kwargs):
    return _fn(*_args, **_kwargs)


def cached_call(fn: Callable, *args, **kwargs):
    """``fn(*args, **kwargs)`` computed once for all sessions. Arrays are keyed by content, other
    arguments by their JSON/repr text; use it for pure functions of their arguments only."""
    parts = [array_digest(a) if isinstance(a, np.ndarray) else params_key(a) for a in args]
    parts += [f"{k}={array_digest(v) if isinstance(v, np.ndarray) else params_key(v)}"
              for k, v in sorted(kwargs.items())]
    return _call(f"{fn.__module__}.{fn.__qualname__}", "|".join(parts), fn, args, kwargs)

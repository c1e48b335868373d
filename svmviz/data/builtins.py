"""The built-in data sets: LIBSVM's fourclass (``SVMVIZ_DATA_DIR`` or fetched once into a user
cache, see ``fetch``), the generated sets of ``generators`` and scikit-learn's bundled sets."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from svmviz.data.dataset import Dataset
from svmviz.data.fetch import FOURCLASS_URL  # noqa: F401 (re-exported by svmviz.data)
from svmviz.data.fetch import HOW_TO_GET, cached_fourclass, fourclass_file, read_fourclass
from svmviz.errors import DataError


@dataclass(frozen=True)
class Builtin:
    title: str
    description: str
    load: Callable[[], Dataset]


# One download attempt per process: offline, every later call answers at once (the app asks
# for the default data set on every rerun, the test suite in every test).
_fetch_lock = threading.Lock()
_fetch_error: str | None = None


def fourclass_path() -> Path | None:
    """Where a verified fourclass_scale is without downloading (``SVMVIZ_DATA_DIR``, then the
    cache of ``fetch_fourclass``), or None."""
    return cached_fourclass()


def _available_fourclass() -> Path | None:
    """The file, downloading it on the first call of the process; None when that failed."""
    global _fetch_error
    p = cached_fourclass()
    if p is not None or _fetch_error is not None:
        return p
    with _fetch_lock:  # Streamlit sessions are threads: one download, not one per session
        if _fetch_error is not None:
            return None
        try:
            return fourclass_file()
        except DataError as exc:
            _fetch_error = str(exc)
            return None


def fourclass_fetch_error() -> str | None:
    """Why this process's one download attempt of fourclass failed (a one-line message saying how
    to get the file by hand), or None when it has not failed."""
    return _fetch_error


def fourclass_note() -> str | None:
    """None when fourclass is available (or can be fetched); else one line saying that the
    fourclass-like set stands in for it and how to get the real one."""
    if _available_fourclass() is not None:
        return None
    return f"fourclass (LIBSVM) could not be fetched, so the generated fourclass-like set is shown; {HOW_TO_GET}."


def load_fourclass() -> Dataset:
    p = _available_fourclass()
    if p is None:
        raise DataError(f"fourclass (LIBSVM) is not available: {_fetch_error}")
    return read_fourclass(p)


def _generated(func: str, *args) -> Callable[[], Dataset]:
    # generators are imported when a set is loaded, not with the package, so that
    # ``python -m svmviz.data.generators`` runs the module once, cleanly
    def load() -> Dataset:
        from svmviz.data import generators

        return getattr(generators, func)(*args)

    return load


def _sklearn(name: str) -> Callable[[], Dataset]:
    def load() -> Dataset:
        from sklearn import datasets as skd

        b = getattr(skd, f"load_{name}")()
        X, y = np.asarray(b.data, dtype=np.float64), np.asarray(b.target)
        feats = [str(f) for f in getattr(b, "feature_names", [])] or [f"x{j + 1}" for j in range(X.shape[1])]
        if len(feats) != X.shape[1]:
            feats = [f"x{j + 1}" for j in range(X.shape[1])]
        names = [str(t) for t in getattr(b, "target_names", np.unique(y))]
        return Dataset(X, y, feats, names, name.replace("_", " "), f"scikit-learn: load_{name}()")

    return load


BUILTINS: dict[str, Builtin] = {
    "fourclass": Builtin("fourclass (LIBSVM)", "862 points, 2 interlocking classes, scaled to [−1, 1]",
                         load_fourclass),
    "fourclass_like": Builtin("fourclass-like (generated)", "800 points, 2 interlocking classes in [-1, 1]²",
                              _generated("fourclass_like")),
    "mexican_hat": Builtin("Mexican hat", "Zapién Arreola, Fehr and Burkhardt 2007, Fig. 2.7: above/below a Mexican-hat curve",
                           _generated("mexican_hat")),
    "elephant_in_snake": Builtin("elephant in a snake", "Zapién Arreola et al. 2007, Fig. 2.9: a blob inside a winding band",
                                 _generated("elephant_in_snake")),
    "checkerboard": Builtin("checkerboard (9 classes)", "Jenssen, Kloft, Zien, Sonnenburg and Müller 2012: one class per field, fields overlap",
                            _generated("checkerboard", 9, 20)),
    "circle": Builtin("Gaussians on a circle (6 classes)", "Jenssen et al. 2012: K Gaussians evenly on a circle",
                      _generated("gaussians_on_circle", 6, 10)),
    "hypercubes": Builtin("hypercubes 2-D", "Yang and Ahuja 2000, Table 1: [0,40]² vs [60,100]²", _generated("hypercubes", 200, 2)),
    "data1": Builtin("Data1 (3 classes, separate)", "Sabzekar, GhasemiGol, Naghibzadeh and Sadoghi Yazdi, Improved DAG SVM, Table 1", _generated("interlaced", 1)),
    "data2": Builtin("Data2 (3 classes, interlaced)", "Sabzekar et al., Table 1", _generated("interlaced", 2)),
    "data3": Builtin("Data3 (3 classes, interlaced)", "Sabzekar et al., Table 1", _generated("interlaced", 3)),
    "data4": Builtin("Data4 (3 classes, most interlaced)", "Sabzekar et al., Table 1", _generated("interlaced", 4)),
    "sensitivity_5d": Builtin("5-D sensitivity set", "Jenssen et al. 2012, Fig. 16: only x1, x2 discriminate",
                              _generated("sensitivity_5d")),
    "iris": Builtin("iris", "scikit-learn: 150 × 4, 3 classes", _sklearn("iris")),
    "wine": Builtin("wine", "scikit-learn: 178 × 13, 3 classes", _sklearn("wine")),
    "breast_cancer": Builtin("breast cancer", "scikit-learn: 569 × 30, 2 classes", _sklearn("breast_cancer")),
    "digits": Builtin("digits", "scikit-learn: 1797 × 64 (8×8 images), 10 classes", _sklearn("digits")),
}


def load_builtin(name: str) -> Dataset:
    """Load the built-in data set ``name`` (a key of ``BUILTINS``)."""
    if name not in BUILTINS:
        raise DataError(f"unknown built-in data set {name!r}; choose one of {', '.join(BUILTINS)}")
    return BUILTINS[name].load()


def default_dataset_name() -> str:
    """fourclass when it is available or can be fetched (one attempt per process), else the
    always available fourclass-like set (``fourclass_note()`` says why and how to get fourclass)."""
    return "fourclass" if _available_fourclass() is not None else "fourclass_like"

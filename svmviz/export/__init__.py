"""Export: figures (HTML/PNG/SVG) and trained models (versioned JSON, never pickle).

The model functions are loaded at their first use: they import every estimator (scikit-learn and
SciPy with them, about 2 s on a fresh process), which exporting a figure, and the app's home and
Data pages, do not need."""

import importlib
from typing import TYPE_CHECKING

from svmviz.export.figures import ExportError, export_figure, figure_bytes, image_export_available
from svmviz.registry import register_estimator, register_record

if TYPE_CHECKING:   # what the names below are, for readers and type checkers
    from svmviz.export.models import (FORMAT, VERSION, check_model_matches, dumps_model, load_model, loads_model,
                                      save_model)

_IN_MODELS = ("FORMAT", "VERSION", "check_model_matches", "dumps_model", "load_model", "loads_model", "save_model")

__all__ = ["export_figure", "figure_bytes", "image_export_available", "ExportError", "save_model", "load_model",
           "dumps_model", "loads_model", "check_model_matches", "register_estimator", "register_record", "FORMAT", "VERSION"]


def __getattr__(name: str):
    if name in _IN_MODELS:
        return getattr(importlib.import_module("svmviz.export.models"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

"""Export: figures (HTML/PNG/SVG) and trained models (versioned JSON, never pickle)."""

from svmviz.export.figures import ExportError, export_figure, figure_bytes, image_export_available
from svmviz.export.models import (FORMAT, VERSION, check_model_matches, dumps_model, load_model, loads_model,
                                  save_model)
from svmviz.registry import register_estimator, register_record

__all__ = ["export_figure", "figure_bytes", "image_export_available", "ExportError", "save_model", "load_model",
           "dumps_model", "loads_model", "check_model_matches", "register_estimator", "register_record", "FORMAT", "VERSION"]

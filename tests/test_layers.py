"""Layers go one way: data -> solvers -> geometry -> models -> plots -> app; the estimator registry
sits at the bottom, so a lower layer never loads a higher one."""

from __future__ import annotations

import subprocess
import sys

import svmviz.models
from svmviz.registry import registered_estimators


def _loaded_after(module: str) -> list[str]:
    code = f"import sys, {module}; print(' '.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return out.split()


def test_solvers_load_no_higher_layer():
    loaded = _loaded_after("svmviz.solvers")
    assert [m for m in loaded if m.startswith(("svmviz.export", "svmviz.models", "svmviz.geometry",
                                               "svmviz.plots", "streamlit"))] == []


def test_models_load_neither_export_nor_plots():
    loaded = _loaded_after("svmviz.models")
    assert [m for m in loaded if m.startswith(("svmviz.export", "svmviz.plots", "streamlit"))] == []


def test_every_registered_estimator_is_named_in_models():
    assert sorted(svmviz.models.ESTIMATORS) == sorted(registered_estimators())
    for name, cls in registered_estimators().items():
        assert getattr(svmviz.models, name) is cls
        assert name in svmviz.models.__all__

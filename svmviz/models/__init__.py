"""scikit-learn compatible estimators, one module per paper.

Each name below is loaded at its first use (PEP 562): ``from svmviz.models import
SVMTreeClassifier`` imports ``svmviz.models.svm_tree`` and what it needs, not the other papers'
modules, so an app page loads only its own estimator on a fresh server (every estimator needs
scikit-learn's base classes; the others add scikit-learn's SVC, model selection and K-means,
joblib, and their own Numba code). ``ESTIMATORS`` imports every estimator module, so each registers
itself with the JSON model registry (``svmviz.registry``); the model loader reads it before it reads
a document. Each estimator class declares its parameters' constraints
(``svmviz.models.constraints``); ``param_spec(cls, name)`` reads one, e.g. for a widget.
"""

import functools
import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:   # what the names below are, for readers and type checkers
    from svmviz.models.constraints import param_spec
    from svmviz.models.dag import DAGSVC, PairwiseVotingSVC, WeightedDAGSVC
    from svmviz.models.guard import GuardVectorSVC
    from svmviz.models.scatter import ScatterSVC
    from svmviz.models.svc import BinaryNuSVC, BinarySVC
    from svmviz.models.svm_tree import SVMTreeClassifier
    from svmviz.models.tree_decomposition import TreeDecompositionSVC

#: every public estimator and the module of this package that defines it
_ESTIMATOR_MODULES = {"BinarySVC": "svc", "BinaryNuSVC": "svc", "SVMTreeClassifier": "svm_tree",
                      "GuardVectorSVC": "guard", "TreeDecompositionSVC": "tree_decomposition",
                      "PairwiseVotingSVC": "dag", "DAGSVC": "dag", "WeightedDAGSVC": "dag",
                      "ScatterSVC": "scatter"}
_MODULES = {**_ESTIMATOR_MODULES, "param_spec": "constraints"}

__all__ = ["BinarySVC", "BinaryNuSVC", "SVMTreeClassifier", "GuardVectorSVC", "TreeDecompositionSVC",
           "PairwiseVotingSVC", "DAGSVC", "WeightedDAGSVC", "ScatterSVC", "ESTIMATORS", "param_spec"]


@functools.cache
def _estimators() -> dict:
    """Every public estimator by name (each is a registered model class)."""
    return {name: getattr(importlib.import_module(f"{__name__}.{module}"), name)
            for name, module in _ESTIMATOR_MODULES.items()}


def __getattr__(name: str):
    if name == "ESTIMATORS":
        return _estimators()
    if name in _MODULES:
        return getattr(importlib.import_module(f"{__name__}.{_MODULES[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:   # the public names, loaded or not (completion in a shell)
    return sorted(__all__)

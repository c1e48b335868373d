"""scikit-learn compatible estimators, one module per seed.

Importing this package imports every module in it, so each estimator registers itself with the
JSON model registry, and exposes every registered estimator here (``svmviz.models.BinarySVC``...).
"""

import importlib
import pkgutil

from svmviz.export.registry import registered_estimators

for _m in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_m.name}")

globals().update(registered_estimators())
__all__ = sorted(registered_estimators())

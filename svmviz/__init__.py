"""svmviz: five support-vector-machine methods, step by step, every picture from a real solver.

Layers go one way: ``data -> solvers -> geometry -> models -> plots -> export -> cli``, with
``errors``, the model-class registry (``registry``), ``limits`` and ``kernels`` below them all (see
ARCHITECTURE.md); the Streamlit pages sit on top and nothing in this package imports Streamlit.
"""

__version__ = "0.1.0"

from svmviz.errors import (  # noqa: E402
    DataError,
    InfeasibleProblemError,
    ModelFormatError,
    ParameterError,
    ProblemTooLargeError,
    SvmvizError,
)

__all__ = [
    "__version__",
    "SvmvizError",
    "DataError",
    "InfeasibleProblemError",
    "ProblemTooLargeError",
    "ModelFormatError",
    "ParameterError",
]

"""svmviz: five support-vector-machine methods, step by step, every picture from a real solver.

Layers go one way: ``data -> solvers -> geometry -> models -> plots``, with ``errors`` and the
model-class registry (``registry``) below them all and ``export`` beside ``plots``; the Streamlit
pages sit on top and nothing in this package imports Streamlit.
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

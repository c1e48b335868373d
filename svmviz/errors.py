"""The error types of svmviz. Every one is a ``ValueError``, so callers can catch bad input
with one ``except ValueError`` and the app can show the message instead of a traceback."""


class SvmvizError(ValueError):
    """Base class: bad input or a request svmviz cannot carry out, with a readable message."""


class DataError(SvmvizError):
    """A data file or array that cannot be used (malformed, NaN, one class, too few samples...)."""


class ParameterError(SvmvizError):
    """A parameter value or combination an estimator or function does not accept."""


class InfeasibleProblemError(SvmvizError):
    """A quadratic or linear program whose constraints no point satisfies."""


class ProblemTooLargeError(SvmvizError):
    """A problem too large for the chosen backend (the cvxpy reference has a size limit)."""


class ModelFormatError(SvmvizError):
    """A saved-model document that is not valid, of an unknown version or of an unknown class."""


class ConvergenceError(SvmvizError):
    """An iterative solver stopped at its iteration cap before meeting its stopping tolerance;
    the message says how far it was (KKT violation) and what to change (max_iter, tol, C).
    ``result`` holds the unconverged result (e.g. a ``QPResult``) when there is one."""

    def __init__(self, message: str, result=None):
        super().__init__(message)
        self.result = result

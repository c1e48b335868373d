"""The work budget: how much one piece of work may ask for, stated and checked before it starts.

A budget is a set of bounds (classes, features, samples of one quadratic program, ...) held in a
context variable, as scikit-learn holds its settings in ``config_context``: ``with budget(...)``
applies one to the code inside (and to what that code runs in the same thread or in a copied
context), ``get_budget()`` reads the one in force, ``set_budget`` sets one until its token is
reset. The library's and the command line's budget is ``UNLIMITED``: nothing is refused on size;
work that is large for one machine gives a ``LargeWorkWarning`` instead, as scikit-learn's SVC
docstring warns that its fit time grows at least quadratically with the samples.

Under a budget each bound is checked by the function that would do the work, before it allocates
anything large, and the ``ProblemTooLargeError`` it raises says which number to lower. A server
that answers many users from one process (the app: ``svmviz_app/budget.py``) runs every request
inside its own budget; the numbers and the reasons for them live there, with the server's policy.

Work that has no progress callback of its own (a figure: a decision grid, regions traced from
labels) calls ``checkpoint()`` between its pieces: a call of the function put in force with
``with checkpoints(fn)``, nothing without one. A checkpoint that raises stops the work there, as
a progress callback that raises stops a fit; what raises, and when, is the caller's business.
"""

from __future__ import annotations

import dataclasses
import warnings
from contextlib import contextmanager
from contextvars import ContextVar, Token
from dataclasses import dataclass
from typing import Callable

from svmviz.errors import ProblemTooLargeError


class LargeWorkWarning(UserWarning):
    """Work that may take minutes or gigabytes on one machine, started because no budget bounds it."""


@dataclass(frozen=True)
class Budget:
    """Bounds on one piece of work; ``None`` leaves a bound open. ``scope`` names what the bounds
    apply to in a refusal ("... is more than the 10,000 one request may ask for")."""

    #: classes of one data set (generated, uploaded, or seen by a classifier)
    classes: int | None = None
    #: binary machines of a one-vs-one scheme, K(K−1)/2
    pairwise: int | None = None
    #: features a classifier is trained on
    features: int | None = None
    #: samples × features² of the SVM tree's zero-solution linear programs
    tree_lp_work: int | None = None
    #: support vectors (rows of stored training points) of one imported model
    support_vectors: int | None = None
    #: values computed on a decision grid: grid points × values per point
    grid_values: int | None = None
    #: kernel evaluations of one grid picture: grid points × support vectors
    grid_kernel: int | None = None
    #: training samples of one quadratic program solved by SMO
    solver_samples: int | None = None
    #: Σ (samples per SVM)² × θ of a search over a (C, γ) grid of RBF SVMs
    search_work: float | None = None
    #: training samples of the guard vectors' τ_Δ coordinates (an m × (d + m) matrix)
    tau_delta_samples: int | None = None
    #: training samples of the guard vectors' empirical kernel map (an m × m eigendecomposition)
    kernel_map_samples: int | None = None
    #: MB of one data or lesson file read
    file_mb: float | None = None
    #: MB of one model document read
    model_mb: float | None = None
    #: values (samples × features) of one table read or stored in a lesson
    cells: int | None = None
    #: the largest count parameter (points, classes, dimensions) of a generated data set
    generated_count: int | None = None
    #: values (points × features) of one generated data set
    generated_cells: int | None = None
    scope: str = "one request"

    def replace(self, **bounds) -> "Budget":
        """This budget with some bounds changed (``None`` opens one)."""
        return dataclasses.replace(self, **bounds)

    @classmethod
    def bound_names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in dataclasses.fields(cls) if f.name != "scope")


#: The library's and the command line's budget: no bound.
UNLIMITED = Budget()

#: Where unbounded work is large enough on one machine to say so (``LargeWorkWarning``): an SMO
#: solve's column cache and iterations grow with n², beyond about 10⁵ samples minutes to hours
#: (Chang and Lin's LIBSVM guide says the same of kernel SVMs), and the guard vectors' dense paths
#: hold an m × m matrix (8 GB at 30,000 samples).
LARGE = Budget(solver_samples=100_000, search_work=1e12, tau_delta_samples=20_000,
               kernel_map_samples=20_000, pairwise=5_000,
               scope="one machine")

_BUDGET: ContextVar[Budget] = ContextVar("svmviz_budget", default=UNLIMITED)


def get_budget() -> Budget:
    """The budget in force in this context."""
    return _BUDGET.get()


def set_budget(value: Budget) -> Token:
    """Put ``value`` in force in this context; ``reset_budget(token)`` restores the one before."""
    if not isinstance(value, Budget):
        raise TypeError(f"set_budget expects a Budget, got {type(value).__name__}")
    return _BUDGET.set(value)


def reset_budget(token: Token) -> None:
    _BUDGET.reset(token)


@contextmanager
def budget(value: Budget | None = None, **bounds):
    """Run the body under ``value`` (default: the budget in force) with ``bounds`` changed, e.g.
    ``with budget(solver_samples=50_000): ...``; the budget before comes back on leaving."""
    base = get_budget() if value is None else value
    token = set_budget(base.replace(**bounds) if bounds else base)
    try:
        yield get_budget()
    finally:
        reset_budget(token)


_CHECKPOINT: ContextVar[Callable[[], None] | None] = ContextVar("svmviz_checkpoint", default=None)


@contextmanager
def checkpoints(fn: Callable[[], None] | None):
    """Run the body with ``fn`` called at every ``checkpoint()`` of the work it does (in this
    context, as the budget); an exception from ``fn`` stops the work. ``None``: no checkpoint."""
    token = _CHECKPOINT.set(fn)
    try:
        yield
    finally:
        _CHECKPOINT.reset(token)


def checkpoint() -> None:
    """A point where long work without a progress callback may be stopped: calls the function of
    ``checkpoints`` in force (which may raise), if any."""
    fn = _CHECKPOINT.get()
    if fn is not None:
        fn()


def call_within(value: Budget, fn, *args, **kwargs):
    """``fn(*args, **kwargs)`` under the budget ``value``: work sent to a thread, a process or a
    Dask worker takes its caller's budget along this way (a new thread starts with the default,
    and a context cannot cross a process)."""
    with budget(value):
        return fn(*args, **kwargs)


def _exceeds(name: str, amount: float, what: str, advice: str) -> None:
    """Refuse ``amount`` above the bound ``name`` of the budget in force; with that bound open,
    warn when it is above ``LARGE``'s."""
    b = get_budget()
    bound = getattr(b, name)
    if bound is not None:
        if amount > bound:
            raise ProblemTooLargeError(f"{what}: {amount:,} is more than the {bound:,} {b.scope} may "
                                       f"ask for; {advice}")
        return
    warn_if_large(name, amount, what, advice)


def warn_if_large(name: str, amount: float, what: str, advice: str) -> None:
    """A ``LargeWorkWarning`` when the bound ``name`` is open in the budget in force and
    ``amount`` is above ``LARGE``'s."""
    large = getattr(LARGE, name)
    if getattr(get_budget(), name) is None and large is not None and amount > large:
        warnings.warn(f"{what}: {amount:,} is large for {LARGE.scope} (above {large:,}); it may take "
                      f"long or much memory. Ctrl-C (or a progress callback that raises) stops it; "
                      f"{advice}", LargeWorkWarning, stacklevel=4)


def bound(name: str) -> float | None:
    """The bound ``name`` of the budget in force (None: open)."""
    return getattr(get_budget(), name)


def check_classes(n_classes: int, what: str = "the data") -> None:
    """At most ``classes`` classes."""
    _exceeds("classes", n_classes, f"{what} has too many classes", "use fewer classes (merge or drop some)")


def n_pairs(n_classes: int) -> int:
    return n_classes * (n_classes - 1) // 2


def check_pairwise(n_classes: int, what: str = "a one-vs-one classifier") -> None:
    """At most ``pairwise`` pairwise machines for ``n_classes`` classes."""
    pairs = n_pairs(n_classes)
    limit = bound("pairwise") or LARGE.pairwise
    _exceeds("pairwise", pairs, f"{what} on {n_classes} classes needs K(K−1)/2 pairwise SVMs",
             f"use at most {max_classes_for_pairs(limit)} classes")


def max_classes_for_pairs(pairs: int) -> int:
    k = 2
    while n_pairs(k + 1) <= pairs:
        k += 1
    return k


def check_features(n_features: int, what: str = "the data") -> None:
    """At most ``features`` features."""
    _exceeds("features", n_features, f"{what} has too many features",
             "use fewer features (select some, or a PCA projection)")


def check_tree_lp_work(n_samples: int, n_features: int, what: str = "the SVM tree") -> None:
    """At most ``tree_lp_work`` samples × features² for the zero-solution programs."""
    _exceeds("tree_lp_work", n_samples * n_features ** 2,
             f"{what} on {n_samples:,} samples × {n_features:,} features solves linear programs of "
             "samples × features² work", "use fewer samples or fewer features")


def check_support_vectors(n_vectors: int, what: str = "the model") -> None:
    """At most ``support_vectors`` stored training points in an imported model."""
    _exceeds("support_vectors", n_vectors, f"{what} stores too many support vectors",
             "train it on fewer samples (or with a smaller C) before loading it here")


def check_grid(n_points: int, per_point: int, what: str = "the decision grid") -> None:
    """At most ``grid_values`` grid points × values per point."""
    _exceeds("grid_values", n_points * per_point, f"{what} needs {n_points:,} grid points × {per_point:,} values",
             "use fewer classes, or a coarser grid")


def check_grid_kernel(n_points: int, n_vectors: int, what: str = "the decision grid") -> None:
    """At most ``grid_kernel`` kernel values between grid points and support vectors."""
    _exceeds("grid_kernel", n_points * n_vectors,
             f"{what} needs {n_points:,} grid points × {n_vectors:,} support vectors kernel values",
             "use a model with fewer support vectors")


def check_solver_size(n_samples: int, what: str = "the SVM") -> None:
    """At most ``solver_samples`` training samples in one quadratic program."""
    _exceeds("solver_samples", n_samples, f"{what} would be trained on {n_samples:,} samples",
             "use a larger test fraction or a sample of the data")


def machine_factor(n_classes: int, multi_class: str = "ovo") -> float:
    """Σ (machine samples)² of one multi-class SVM over (its samples)²: 1 for two classes, at
    most 2 for one-vs-one (K(K−1)/2 pairs on about 2n/K samples each), K for one-vs-rest."""
    if n_classes <= 2:
        return 1.0
    return 2.0 if multi_class == "ovo" else float(n_classes)


def check_search_work(work: float, what: str, advice: str) -> None:
    """At most ``search_work`` sample pairs × θ for a grid search of RBF SVMs."""
    _exceeds("search_work", int(work), f"{what} needs (samples per SVM)² × θ of training", advice)

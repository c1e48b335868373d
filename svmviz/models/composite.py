"""Estimators made of sub-solvers (pairwise SVMs, per-point LPs, node QPs, leaf SVMs): their
sub-fits, their convergence collected into one ``converged_``/``n_unconverged_``/``unconverged_``
and one ``ConvergenceWarning`` naming the sub-problems that stopped early."""

from __future__ import annotations

import contextlib
import warnings

from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning


@contextlib.contextmanager
def inner_fits():
    """Around the sub-fits of a composite model (a DAG's pairwise SVMs, a guard-vector QP, an SVM
    tree's RBF node): their own ``ConvergenceWarning`` is not shown, because the composite model
    collects every sub-fit's ``converged_`` and warns once, naming the sub-problems. Only
    svmviz's own convergence warnings are silenced; every other warning passes."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=ConvergenceWarning, module=r"svmviz\.")
        yield


def unconverged_detail(names, n_unconverged: int, n_total: int, what: str, limit: int = 4) -> str:
    """"2 of 6 pairwise C-SVMs did not converge: pair a vs b; pair b vs c": the sub-problems of a
    composite model that stopped before their tolerance, at most ``limit`` of them by name."""
    if n_total == 1 and n_unconverged == 1 and len(names):
        return f"{names[0]} did not converge"
    shown = "; ".join(list(names)[:limit])
    more = n_unconverged - min(len(names), limit)
    if more > 0:
        shown += f" and {more} more"
    return f"{n_unconverged} of {n_total} {what} did not converge: {shown}"


def not_converged_message(detail: str, advice: str) -> str:
    """The sentence a page shows for an unconverged model: which sub-problems, what to change."""
    return f"{detail[:1].upper()}{detail[1:]}. {advice[:1].upper()}{advice[1:]}. The model is not optimal."


class CompositeMixin:
    """For an ``SVMClassifierBase`` made of sub-solvers. The estimator names the sub-problems that
    stopped before their tolerance and calls ``_record_convergence``; it says how many
    sub-problems it solved and what they are (``_subproblems``) and what to change
    (``_convergence_advice``). Inner estimators are built by ``_sub_estimator``.
    """

    #: at most this many names are kept in ``unconverged_`` (``n_unconverged_`` counts all)
    _max_unconverged_names: int | None = None

    def _subproblems(self) -> tuple[int, str]:
        """(how many sub-problems the fit solved, what they are called)."""
        raise NotImplementedError

    def _convergence_advice(self) -> str:
        """What to change when some sub-problem did not converge."""
        raise NotImplementedError

    def _record_convergence(self, unconverged: list[str]) -> None:
        """``converged_``, ``n_unconverged_`` and ``unconverged_`` from the names of the
        sub-problems that stopped before their tolerance; one ``ConvergenceWarning`` naming them."""
        self.converged_ = not unconverged
        self.n_unconverged_ = len(unconverged)
        self.unconverged_ = list(unconverged)[:self._max_unconverged_names]
        if unconverged:
            self._check_result(converged=False, detail=self._unconverged_detail(),
                               advice=self._convergence_advice())

    def _unconverged_detail(self) -> str:
        n_total, what = self._subproblems()
        return unconverged_detail(self.unconverged_, self.n_unconverged_, n_total, what)

    def convergence_message(self) -> str:
        """Which sub-problems stopped before their tolerance and what to change ('' when all
        converged, or for a model saved before convergence was recorded)."""
        if getattr(self, "converged_", True):
            return ""
        return not_converged_message(self._unconverged_detail(), self._convergence_advice())

    def _sub_estimator(self, template, **params):
        """A fresh, unfitted copy of ``template`` (scikit-learn's ``clone(...).set_params(...)``)
        holding this estimator's values of the parameters they share, then ``params``: an inner
        estimator gets the outer one's parameters without copying them one by one."""
        inner = clone(template)
        shared = inner.get_params(deep=False).keys() & self.get_params(deep=False).keys()
        return inner.set_params(**{**{k: getattr(self, k) for k in shared}, **params})


__all__ = ["CompositeMixin", "inner_fits", "unconverged_detail", "not_converged_message"]

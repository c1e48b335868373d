"""The standard views of a fitted model on a page: decision-function contours with margins and
support vectors, a confusion matrix and an ROC curve with AUC on the test split; and whether the
model's solvers converged."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pyarrow as pa
import streamlit as st
from _plotly_utils.utils import convert_to_base64

from svmviz.plots.common import Plane
from svmviz.plots.standard import binary_scores, confusion_figure, decision_contours, roc_figure
from svmviz_app.cache import shared_view
from svmviz_app.widgets import figure_downloads, guard, plain


class SharedFigure(go.Figure):
    """A figure made once for every session and never changed afterwards, with its dict — what
    ``st.plotly_chart``, the HTML download and the image export serialise — made once, not at
    every draw: Plotly's ``to_dict`` deep-copies the whole figure and encodes its arrays again on
    each call. Made from that dict (``of``) without Plotly's validation, which costs more than
    the rest of a figure's first draw; the dict is shared too: readers never change it."""

    def __init__(self, *args, shared_dict: dict | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        if shared_dict is not None:   # once the figure holds its arrays
            convert_to_base64(shared_dict)   # numeric arrays as Plotly's to_dict sends them (typed arrays)
            self._shared_dict = shared_dict

    @classmethod
    def of(cls, spec: dict) -> "SharedFigure":
        """The figure of ``spec``, a figure's dict as Plotly's validation leaves it (a
        ``to_dict()``, or a plot's ``*_spec`` that its tests check against validation)."""
        return cls(spec, _validate=False, shared_dict=spec)

    def to_dict(self):
        d = self.__dict__.get("_shared_dict")
        if d is None:
            d = self._shared_dict = super().to_dict()
        return d


def compact_figure(fig: go.Figure | dict) -> SharedFigure:
    """``fig`` (a figure, or a figure's dict as Plotly's validation leaves it) made for sharing:
    its float arrays (sample coordinates, grids of contours) as float32 — 7 digits, far finer
    than a pixel, and half the bytes Plotly sends for float64, and a stepped view sends its
    figures on every step — as a ``SharedFigure``. A dict given is changed in place; never
    change the returned figure."""
    for trace in fig.get("data", ()) if isinstance(fig, dict) else fig.data:
        for name in ("x", "y", "z"):
            v = trace.get(name) if isinstance(trace, dict) else getattr(trace, name, None)
            if isinstance(v, np.ndarray) and v.dtype == np.float64 and v.size >= 64:
                trace[name] = v.astype(np.float32)
    return SharedFigure.of(fig if isinstance(fig, dict) else fig.to_dict())


def _compacted(fn, *args, **kwargs):
    return compact_figure(fn(*args, **kwargs))


def shared_figure(fn, *args, **kwargs) -> SharedFigure:
    """``fn(*args, **kwargs)`` — a Plotly figure of a fit, or its dict (``compact_figure``) — built and compacted once for every
    session asking for it with the same content (``svmviz_app.cache.shared_view``)."""
    return shared_view(_compacted, fn, *args, **kwargs)


def _arrow(fn, *args, **kwargs):
    return pa.Table.from_pandas(fn(*args, **kwargs), preserve_index=False)


def shared_table(fn, *args, **kwargs):
    """``fn(*args, **kwargs)`` — a table (``pandas.DataFrame``) of a fit, drawn without its index —
    built once for every session as an Arrow table: ``st.dataframe`` sends an Arrow table as it
    is, where it converts a DataFrame again at every draw (about 1 ms per table and click)."""
    return shared_view(_arrow, fn, *args, **kwargs)


def standard_views(model, train, test, key: str, plane: Plane | None = None) -> None:
    """Draw the standard views of ``model`` (fitted on ``train``) under a subheader. Multi-class
    models get the confusion matrix only; the ROC curve needs a test split with both classes. The
    figures of a shared fit are built once for every session (``shared_view``)."""
    st.subheader("Decision function, confusion matrix and ROC")
    binary = binary_scores(model, train.X[:1]) is not None
    with guard("cannot draw the decision function"):
        if binary and train.n_features >= 2:
            if plane is None and train.n_features > 2:
                plane = Plane(train.X, (0, 1), "pca", list(train.feature_names))
            # the lines are named in the legend: a title naming them too ran under the chart's tools
            fig = shared_figure(decision_contours, model, train.X, train.y, list(train.class_names), plane,
                                title="Decision function f(x) on the training part")
            st.plotly_chart(fig, key=f"{key}_std_contours")
            figure_downloads(fig, f"{key}_decision_function", key=f"{key}_std_contours_dl", formats=("html",))
    if test is None or test.n_samples == 0:
        st.caption("No test split (the Data page keeps every sample for training): no confusion matrix or ROC.")
        return
    c1, c2 = st.columns(2)
    with guard("cannot evaluate on the test split"):
        cm, acc, roc = shared_view(_test_views, model, test.X, test.y, _names(model, train), binary)
        with c1:
            st.plotly_chart(cm, key=f"{key}_std_cm")
            st.caption(f"Test accuracy {acc:.2%} on {test.n_samples} samples.")
        if roc is not None:
            with c2:
                st.plotly_chart(roc, key=f"{key}_std_roc")


def _test_views(model, X, y, class_names, binary: bool):
    """The confusion matrix, accuracy and (binary models) ROC figure on a test split."""
    pred = model.predict(X)
    roc = roc_figure(y, binary_scores(model, X), model.classes_[1])[0] if binary else None
    cm = confusion_figure(y, pred, model.classes_, class_names)
    return cm, float(np.mean(pred == y)), roc


def _names(model, train):
    lookup = dict(zip(train.classes.tolist(), train.class_names))
    return [str(lookup.get(c, c)) for c in model.classes_.tolist()]


def convergence_status(model, what: str = "every solver run of this model") -> bool | None:
    """One line on whether ``model``'s solvers converged: a caption "Converged: …" when they did,
    an ``st.warning`` naming the sub-problems that stopped early and what to change when not
    (the estimator's ``convergence_message()``), a caption when the model file predates the
    record. ``what`` names the solver runs in the caption ("the 3 pairwise C-SVMs"). Returns
    ``converged_`` (None when not recorded)."""
    converged = getattr(model, "converged_", None)
    if converged is None:
        st.caption("Convergence: not recorded in this model (saved before svmviz recorded it).")
        return None
    if converged:
        st.caption(f"Converged: {what} reached the solver tolerance.")
        return True
    message = getattr(model, "convergence_message", lambda: "")()
    if not message:   # a single-QP estimator: its own numbers
        n_iter, viol = getattr(model, "n_iter_", None), getattr(model, "max_violation_", None)
        numbers = (f" (maximal KKT violation {viol:.3g} after {n_iter} iterations)"
                   if n_iter is not None and viol is not None else "")
        message = (f"The solver stopped before reaching its tolerance{numbers}. Raise max_iter or "
                   "leave it unset, loosen tol, or lower C. The model is not optimal.")
    st.warning(f"Not converged. {plain(message)}")
    return False

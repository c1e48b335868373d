"""Controls several pages share: the gamma field and the 2-D plane picker for d > 2."""

from __future__ import annotations

import numpy as np
import streamlit as st

from svmviz.errors import ParameterError
from svmviz.plots.common import Plane


def parse_gamma(txt: str):
    """The text of a gamma field: 'scale', 'auto' or a number (checked by the estimator)."""
    txt = txt.strip()
    if txt in ("scale", "auto"):
        return txt
    try:
        return float(txt)
    except ValueError:
        raise ParameterError(f"gamma must be 'scale', 'auto' or a positive number, not {txt!r}") from None


def plane_controls(X, feature_names, prefix: str) -> Plane | None:
    """For d > 2, sidebar widgets choosing the plane the maps are drawn on (PCA or two features,
    the others at their mean); None for 2-D data. Bound to the app state as ``prefix.plane``,
    ``prefix.f1``, ``prefix.f2``."""
    from svmviz_app.state import bind

    if X.shape[1] <= 2:
        return None
    names = list(feature_names)
    with st.sidebar:
        st.header("Plane (d > 2)")
        how = st.radio("View", ["PCA", "two features"], horizontal=True,
                       **bind(f"{prefix}.plane", "PCA", options=["PCA", "two features"]))
        f1 = st.selectbox("x-axis feature", names, disabled=how == "PCA", **bind(f"{prefix}.f1", names[0], options=names))
        f2 = st.selectbox("y-axis feature", names, disabled=how == "PCA", **bind(f"{prefix}.f2", names[1], options=names))
    if how != "PCA" and f1 == f2:
        raise ParameterError("choose two different features for the plane")
    return Plane(X, (names.index(f1), names.index(f2)), "pca" if how == "PCA" else "features", names)


KERNELS = ["rbf", "linear", "poly", "sigmoid"]


def kernel_controls(prefix: str, C_default: float = 1.0) -> dict:
    """Sidebar fields for a kernel SVM: kernel, C and γ on log-scale sliders ("scale" or a value),
    degree and coef0 (enabled only for the kernels that use them). Bound to the app state as
    ``prefix.kernel``, ``prefix.C``, ...; call inside ``with st.sidebar``. ``gamma_txt`` is
    'scale' or the number as text (parse with ``parse_gamma``)."""
    from svmviz_app.state import bind

    kernel = st.selectbox("Kernel", KERNELS, **bind(f"{prefix}.kernel", "rbf", options=KERNELS))
    C = log_slider("C (log scale)", f"{prefix}.C", C_default, 1e-3, 1e4)
    auto = st.checkbox("γ = 'scale' (1 / (d · Var X))", **bind(f"{prefix}.gamma_scale", True),
                       disabled=kernel == "linear")
    gamma = log_slider("γ (log scale)", f"{prefix}.gamma", 1.0, 1e-3, 1e3) if not auto and kernel != "linear" else None
    degree = st.number_input("degree", 1, 10, **bind(f"{prefix}.degree", 3, bounds=(1, 10)), disabled=kernel != "poly")
    coef0 = st.number_input("coef0", format="%g", **bind(f"{prefix}.coef0", 0.0, bounds=(-1e6, 1e6)),
                            disabled=kernel not in ("poly", "sigmoid"))
    return dict(kernel=kernel, C=C, gamma_txt="scale" if gamma is None else repr(gamma), degree=int(degree),
                coef0=coef0)


def log_slider(label: str, key: str, default: float, lo: float, hi: float, per_decade: int = 8) -> float:
    """A slider over a log scale (``lo`` … ``hi``, ``per_decade`` stops per factor of ten), bound
    to the app state under ``key``: C and γ change by factors, as instructors explain them."""
    from svmviz_app.state import bind

    options = log_stops(lo, hi, per_decade)
    return st.select_slider(label, options=options, format_func=lambda v: f"{v:g}",
                            **bind(key, nearest_stop(options, default), options=options))


def log_stops(lo: float, hi: float, per_decade: int = 8) -> list[float]:
    """``per_decade`` stops per factor of ten from ``lo`` to ``hi``, to 3 significant digits."""
    n = int(round(np.log10(hi / lo) * per_decade))
    return [float(f"{v:.3g}") for v in np.geomspace(lo, hi, n + 1)]


def nearest_stop(stops: list[float], v: float) -> float:
    """The stop nearest to ``v`` on a log scale."""
    return min(stops, key=lambda s: abs(np.log(s / v)))


def two_classes_two_features(classes, feature_names, prefix: str) -> tuple[list, int, int]:
    """Sidebar pickers for pages that work on two classes in a plane: the classes shown as −1 and
    +1 (when there are more than two) and the two features (when there are more than two), bound
    as ``prefix.class_neg``, ``prefix.class_pos``, ``prefix.f1``, ``prefix.f2``. Returns
    ``(pick, f1, f2)``; ``pick`` has fewer than two classes when the user chose one class twice."""
    from svmviz_app.state import bind

    classes, names = list(classes), list(feature_names)
    feats = list(range(len(names)))
    pick, f1, f2 = classes, 0, 1
    with st.sidebar:
        if len(classes) > 2:
            c_neg = st.selectbox("class shown as −1", classes, **bind(f"{prefix}.class_neg", classes[0], options=classes))
            c_pos = st.selectbox("class shown as +1", classes, **bind(f"{prefix}.class_pos", classes[1], options=classes))
            pick = [c_neg, c_pos] if c_neg != c_pos else [c_neg]
        if len(feats) > 2:
            f1 = st.selectbox("x-axis feature", feats, format_func=lambda j: names[j],
                              **bind(f"{prefix}.f1", 0, options=feats))
            f2 = st.selectbox("y-axis feature", feats, format_func=lambda j: names[j],
                              **bind(f"{prefix}.f2", 1, options=feats))
    return pick, f1, f2

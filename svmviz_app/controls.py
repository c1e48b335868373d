"""Controls several pages share: the 2-D plane picker for d > 2, the class and feature pickers
of two-class pages, and log-scale stops for C and γ."""

from __future__ import annotations

import numpy as np
import streamlit as st

from svmviz.errors import ParameterError
from svmviz.plots.common import Plane


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

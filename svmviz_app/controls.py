"""Controls several pages share: the gamma field and the 2-D plane picker for d > 2."""

from __future__ import annotations

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
    the others at their mean); None for 2-D data. Widget keys start with ``prefix``."""
    if X.shape[1] <= 2:
        return None
    names = list(feature_names)
    with st.sidebar:
        st.header("Plane (d > 2)")
        how = st.radio("View", ["PCA", "two features"], key=f"{prefix}_plane", horizontal=True)
        f1 = st.selectbox("x-axis feature", names, index=0, key=f"{prefix}_f1", disabled=how == "PCA")
        f2 = st.selectbox("y-axis feature", names, index=1, key=f"{prefix}_f2", disabled=how == "PCA")
    if how != "PCA" and f1 == f2:
        raise ParameterError("choose two different features for the plane")
    return Plane(X, (names.index(f1), names.index(f2)), "pca" if how == "PCA" else "features", names)


def kernel_controls(prefix: str, C_default: float = 1.0) -> dict:
    """Sidebar fields for a kernel SVM: kernel, C, gamma (text, parse with ``parse_gamma``),
    degree and coef0 (enabled only for the kernels that use them). Widget keys start with
    ``prefix``; call inside ``with st.sidebar``."""
    kernel = st.selectbox("Kernel", ["rbf", "linear", "poly", "sigmoid"], key=f"{prefix}_kernel")
    C = st.number_input("C", min_value=1e-4, max_value=1e5, value=C_default, format="%g", key=f"{prefix}_C")
    gamma_txt = st.text_input("gamma ('scale', 'auto' or a number)", "scale", key=f"{prefix}_gamma",
                              disabled=kernel == "linear")
    degree = st.number_input("degree", 1, 10, 3, key=f"{prefix}_degree", disabled=kernel != "poly")
    coef0 = st.number_input("coef0", value=0.0, format="%g", key=f"{prefix}_coef0",
                            disabled=kernel not in ("poly", "sigmoid"))
    return dict(kernel=kernel, C=C, gamma_txt=gamma_txt, degree=degree, coef0=coef0)

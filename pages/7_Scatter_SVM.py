"""Scatter SVM (seed 004): class prototypes, their mean and the scatter the dual minimises; the
binary ν-SVM as its two-class case; sensitivity maps per class and for the mean."""

from __future__ import annotations

import numpy as np
import streamlit as st

from svmviz.data import load_builtin
from svmviz.data.generators import gaussians_on_circle, sensitivity_5d
from svmviz.errors import ParameterError
from svmviz.models import ScatterSVC
from svmviz.plots.common import Plane
from svmviz.plots.scatter import plot_prototypes, plot_sensitivity_bars, plot_sensitivity_images
from svmviz_app.controls import parse_gamma
from svmviz_app.widgets import data_sidebar, figure_downloads, guard, model_download

MAX_N = 3000  # the page refits on every change; larger sets belong in benchmarks/bench_scatter.py

st.set_page_config(page_title="Scatter SVM — svmviz", layout="wide")
st.title("Scatter SVM")
st.caption("Seed 004 (Jenssen et al., *Scatter Support Vector Machine*): the dual minimises the "
           "scatter Σ_c ‖m_c − m̄‖² of class prototypes m_c = Σ_{i∈c} α_i φ(x_i) around their mean m̄ "
           "(eq. 6–8); the hinge-loss primal gives w_c = m_c − m̄ and the score f_c(x) = ⟨w_c, φ(x)⟩ + b_c "
           "(eq. 13–18); sensitivity maps (eq. 20–21).")

current = data_sidebar()
usable = current.classes.size >= 2 and current.n_features >= 2 and current.n_samples <= MAX_N

# ---------------------------------------------------------------- data and parameters (sidebar)
with st.sidebar:
    st.header("Data for this page")
    choices = ([f"current: {current.name}"] if usable else []) + [
        "checkerboard (9 classes)", "Gaussians on a circle (6 classes)"]
    pick = st.selectbox("Data set", choices, key="sc_data",
                        help="The current data set when it has ≥ 2 classes, ≥ 2 features and at most "
                             f"{MAX_N} samples; else the seed's checkerboard / circle sets (Table 1).")
    st.header("Scatter SVM")
    form_label = st.radio("Formulation", ["C-form (eq. 15, hinge loss)", "ν-form (eq. 6/8, scatter)"],
                          key="sc_form")
    formulation = "C" if form_label.startswith("C") else "nu"
    bias = st.checkbox("bias b_c (equal class sums in the dual)", value=False, key="sc_bias")
    kernel = st.selectbox("Kernel", ["rbf", "linear", "poly", "sigmoid"], key="sc_kernel")
    gamma_txt = st.text_input("gamma ('scale', 'auto' or a number)", "scale", key="sc_gamma",
                              disabled=kernel == "linear")
    C = st.number_input("C", min_value=1e-4, max_value=1e5, value=1.0, format="%g", key="sc_C",
                        disabled=formulation != "C")
    mu_factor = st.slider("μ × (size of the smallest class)", 1.0, 10.0, 2.0, 0.25, key="sc_mu",
                          disabled=formulation != "nu",
                          help="μ bounds every α_i; with bias each class's α sum to 1, so μ ≥ 1/m_smallest.")
    solver = st.selectbox("Solver", ["smo", "cvxpy"], key="sc_solver",
                          help="smo: the fast Numba SMO; cvxpy: the reference solver (small data only)")


@st.cache_resource(max_entries=16, show_spinner=False)
def fit_scatter(X, y, params: tuple) -> ScatterSVC:
    return ScatterSVC(**dict(params)).fit(X, y)


def fit_with_status(X, y, params: dict, what: str) -> ScatterSVC:
    with st.status(f"Fitting {what} …", expanded=False) as status:
        model = fit_scatter(X, y, tuple(sorted(params.items())))
        status.update(label=f"{what}: {model.n_solves_} QP solve(s), {model.fit_time_:.2f} s",
                      state="complete")
    return model


ds = current if pick.startswith("current") else load_builtin("checkerboard" if pick.startswith("checker")
                                                              else "circle")
tab_proto, tab_binary, tab_sens = st.tabs(["Prototypes and scatter (Fig. 3)", "Binary ν-SVM (Fig. 1–2)",
                                           "Sensitivity maps (Fig. 16–24)"])

# ---------------------------------------------------------------- tab 1: prototypes and scatter
with tab_proto:
    model = None
    with guard("cannot fit the Scatter SVM"):
        counts = np.unique(ds.y, return_counts=True)[1]
        params = dict(formulation=formulation, bias=bias, kernel=kernel, gamma=parse_gamma(gamma_txt),
                      C=float(C), mu=float(mu_factor / counts.min()), solver=solver)
        model = fit_with_status(ds.X, ds.y, params, f"Scatter SVM on {ds.name}")
    if model is not None:
        plane = None
        if ds.n_features > 2:
            st.info(f"{ds.name} has {ds.n_features} features: the picture shows a plane through the data.")
            how = st.radio("Plane", ["first two features (others at their mean)", "PCA"], key="sc_plane",
                           horizontal=True)
            plane = Plane(ds.X, (0, 1), "pca" if how == "PCA" else "features", ds.feature_names)
        fig = plot_prototypes(model, ds.X, ds.y, ds.class_names, ds.feature_names, plane=plane)
        st.plotly_chart(fig, key="sc_fig_proto")
        cols = st.columns(4)
        cols[0].metric("Training accuracy", f"{100 * np.mean(model.predict(ds.X) == ds.y):.1f} %")
        cols[1].metric("Scatter Σ‖m_c − m̄‖²", f"{model.scatter_:.4g}")
        cols[2].metric("Support vectors", f"{model.support_.size} / {ds.n_samples}")
        cols[3].metric("Dual objective", f"{model.objective_:.5g}")
        squares = ("exactly the prototypes m_c" if kernel == "linear" and formulation == "nu" and bias
                   else "the α-weighted centres of each class's support vectors (a prototype of a "
                        "non-linear kernel, or with class sums ≠ 1, does not sit among the samples)")
        st.caption(f"Squares: {squares}. Diamond: their mean; arrows: m̄ → m_c, the scatter the dual "
                   "minimises. Circles: support vectors, size ∝ α_i. Background: argmax_c f_c(x) (eq. 18). "
                   f"Class sums Σ_(i∈c) α_i: {np.array2string(model.class_sums_, precision=3)}"
                   + (f"; intercepts b_c: {np.array2string(model.intercept_, precision=3)}" if bias else ""))
        figure_downloads(fig, f"scatter_svm_{ds.name}", key="sc_dl_proto")
        model_download(model, f"scatter_svm_{ds.name}", key="sc_dl_model")

# ---------------------------------------------------------------- tab 2: the binary ν-SVM view
with tab_binary:
    st.markdown("With two classes, class sums 1 and 0 ≤ α_i ≤ μ the Scatter SVM is the binary ν-SVM "
                "(eq. 3–5): the prototypes are points of the reduced convex hulls of the classes, found "
                "on the border between them, and ‖m₊ − m₋‖² = 2 · scatter. Linear kernel, as in Fig. 1–2.")
    src = st.radio("Two classes from", ["two Gaussian classes (generated, as Fig. 1–2)",
                                        f"the page's data set ({ds.name})"],
                   key="sc_bin_src", horizontal=True)
    bds = gaussians_on_circle(2, 40, spacing=1.2, std=0.55, seed=2) if src.startswith("two") else ds
    classes = list(bds.classes)
    names = dict(zip(classes, bds.class_names))
    if len(classes) > 2:
        c1, c2 = st.columns(2)
        a = c1.selectbox("first class", classes, index=0, key="sc_bin_a", format_func=lambda c: names[c])
        b = c2.selectbox("second class", classes, index=1, key="sc_bin_b", format_func=lambda c: names[c])
    else:
        a, b = classes
    with guard("cannot fit the binary ν-SVM"):
        if a == b:
            raise ParameterError("choose two different classes")
        m2 = np.isin(bds.y, [a, b])
        X2, y2 = bds.X[m2], bds.y[m2]
        m_min = int(min(np.sum(y2 == a), np.sum(y2 == b)))
        grid_mu = np.unique(np.round(np.geomspace(1.0 / m_min, 1.0, 30), 6))
        mu = st.select_slider("μ (upper bound of every α_i)", options=list(grid_mu),
                              value=grid_mu[min(len(grid_mu) - 1, np.searchsorted(grid_mu, 2.0 / m_min))],
                              format_func=lambda v: f"{v:.4g}", key=f"sc_bin_mu_{m_min}")
        st.caption(f"μ = 1/m_smallest = {1 / m_min:.4g} puts each prototype at its class mean; μ ≥ 1 "
                   f"allows the whole convex hull. Equivalent NuSVC parameter ν = 2/(μ·m) = "
                   f"{min(1.0, 2 / (mu * y2.size)):.4g}.")
        bin_model = fit_with_status(X2, y2, dict(formulation="nu", bias=True, kernel="linear", mu=float(mu),
                                                 solver=solver), "binary ν-SVM")
        # ‖m₊ − m₋‖ = 2‖w‖ against the spread of the data: the solver's tolerance leaves w tiny,
        # not exactly 0, when the reduced hulls overlap
        if 2 * np.linalg.norm(bin_model.coef_[1]) < 1e-2 * float(np.mean(X2.std(axis=0))):
            st.warning("w ≈ 0: at this μ the reduced convex hulls of the two classes overlap, so both "
                       "prototypes are the same point and no hyperplane is defined. Decrease μ.")
        bname = [names[a], names[b]] if a < b else [names[b], names[a]]
        fig2 = plot_prototypes(bin_model, X2, y2, bname, bds.feature_names, boundary=True,
                               title=f"Binary ν-SVM as Scatter SVM (μ = {mu:.4g})<br><sup>‖m₊ − m₋‖² = "
                                     f"{2 * bin_model.scatter_:.4g} = 2 · scatter</sup>")
        st.plotly_chart(fig2, key="sc_fig_binary")
        figure_downloads(fig2, f"scatter_binary_nu_{bds.name}", key="sc_dl_binary")

# ---------------------------------------------------------------- tab 3: sensitivity maps
with tab_sens:
    st.markdown("Sensitivity of each class score f_c and, in black, the mean over the classes: "
                "s_j = (1/N) Σ_n (∂f(x_n)/∂x_j)² over the training samples (eq. 20–21), analytic "
                "derivatives of the kernel.")
    which = st.radio("Data", ["5-D generated set (only x1, x2 discriminate)",
                              "digits 0, 1, 8 (8×8 images, in place of USPS)",
                              "the data and model of the first tab"], key="sc_sens_data")
    with guard("cannot compute the sensitivity map"):
        if which.startswith("5-D"):
            train, test = sensitivity_5d(seed=0), sensitivity_5d(seed=1)
            sm = fit_with_status(train.X, train.y, dict(formulation=formulation, bias=bias, gamma=0.05,
                                                        C=float(C), mu=float(mu_factor / 60), solver=solver),
                                 "Scatter SVM (RBF, γ = 0.05) on the 5-D set")
            st.caption(f"Accuracy on a fresh test set of the same kind: "
                       f"{100 * np.mean(sm.predict(test.X) == test.y):.1f} % (the seed trains until it is "
                       "perfect). Expect tall bars on x1 and x2 only.")
            S = sm.sensitivity_map()
            figs = plot_sensitivity_bars(S, train.feature_names, train.class_names,
                                         title="Sensitivity on the 5-D set (seed Fig. 17–20)")
            st.plotly_chart(figs, key="sc_fig_sens")
            figure_downloads(figs, "scatter_sensitivity_5d", key="sc_dl_sens")
        elif which.startswith("digits"):
            dg = load_builtin("digits")
            keep = np.isin(dg.y, [0, 1, 8])
            Xd, yd = dg.X[keep] / 16.0, dg.y[keep]
            sm = fit_with_status(Xd, yd, dict(formulation=formulation, bias=bias, gamma="scale", C=float(C),
                                              mu=float(mu_factor / np.bincount(yd)[[0, 1, 8]].min()),
                                              solver=solver), "Scatter SVM (RBF) on digits 0, 1, 8")
            S = sm.sensitivity_map()
            st.caption(f"{yd.size} images, training accuracy {100 * np.mean(sm.predict(Xd) == yd):.1f} %. "
                       "Dark pixels change the scores most; the border pixels are blank as in the seed's "
                       "Fig. 21.")
            figi = plot_sensitivity_images(S, (8, 8), ["0", "1", "8"],
                                           title="Sensitivity maps of digits 0, 1, 8 (seed Fig. 21–24)")
            st.plotly_chart(figi, key="sc_fig_sens_img")
            figure_downloads(figi, "scatter_sensitivity_digits", key="sc_dl_sens_img")
            figs = plot_sensitivity_bars(S, dg.feature_names, ["0", "1", "8"], title="The same maps as bars")
            st.plotly_chart(figs, key="sc_fig_sens")
        else:
            if model is None:
                raise ParameterError("the model of the first tab could not be fitted")
            S = model.sensitivity_map()
            figs = plot_sensitivity_bars(S, ds.feature_names, ds.class_names,
                                         title=f"Sensitivity on {ds.name}")
            st.plotly_chart(figs, key="sc_fig_sens")
            figure_downloads(figs, f"scatter_sensitivity_{ds.name}", key="sc_dl_sens")

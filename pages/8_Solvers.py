"""Solvers: one C-SVM dual solved by the Numba SMO, the cvxpy reference and LIBSVM (scikit-learn's
SVC); their objectives, support vectors, iterations and times, the three boundaries overlaid, α
against α, and the SMO convergence curve."""

from __future__ import annotations

import time

import numpy as np
import streamlit as st
from sklearn.svm import SVC

from svmviz.errors import ParameterError
from svmviz.models.svc import BinarySVC, libsvm_dual_objective
from svmviz.plots import solvers as P
from svmviz.solvers.cvxpy_backend import DEFAULT_MAX_N
from svmviz_app.state import current_split
from svmviz_app.controls import kernel_controls, parse_gamma, plane_controls
from svmviz_app.widgets import data_sidebar, figure_downloads, guard, model_download

st.set_page_config(page_title="Solvers — svmviz", layout="wide")
st.title("Solvers: SMO against the cvxpy reference and LIBSVM")
st.caption("The C-SVM dual min ½αᵀQα − eᵀα, 0 ≤ α ≤ C, yᵀα = 0 (seed 000 §4.1, Problem 1) solved "
           "three ways: the project's SMO (Numba; second-order working sets of Fan, Chen & Lin "
           "2005, shrinking, LIBSVM's stopping rule), the cvxpy reference (Clarabel, tight "
           "tolerances) and LIBSVM through scikit-learn's SVC. The boundaries should coincide.")

current = data_sidebar()

with st.sidebar:
    st.header("Problem")
    kp = kernel_controls("sol", C_default=1.0)
    kernel, C, gamma_txt, degree, coef0 = (kp[k] for k in ("kernel", "C", "gamma_txt", "degree", "coef0"))
    tol = st.select_slider("Stopping tolerance (max KKT violation)",
                           [1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6], value=1e-3, key="sol_tol",
                           format_func=lambda v: f"{v:g}")


@st.cache_resource(show_spinner=False)
def load_smo() -> float:
    """Load the compiled SMO once per server (Numba's cache), so the table times the solve."""
    t0 = time.perf_counter()
    rng = np.random.default_rng(0)
    BinarySVC().fit(rng.normal(size=(20, 2)), np.arange(20) % 2)
    return time.perf_counter() - t0


@st.cache_resource(max_entries=8, show_spinner=False)
def fit_ours(X, y, params: tuple, solver: str) -> BinarySVC:
    return BinarySVC(solver=solver, **dict(params)).fit(X, y)


@st.cache_resource(max_entries=8, show_spinner=False)
def fit_libsvm(X, y, params: tuple):
    p = dict(params)
    t0 = time.perf_counter()
    svc = SVC(C=p["C"], kernel=p["kernel"], gamma=p["gamma"], degree=p["degree"],
              coef0=p["coef0"], tol=p["tol"]).fit(X, y)
    return svc, time.perf_counter() - t0


with guard("cannot run the solvers"):
    train, _ = current_split()
    X, y = train.X, train.y
    names = list(train.class_names)
    if train.classes.size > 2:
        with st.sidebar:
            st.header("Two classes")
            a = st.selectbox("Class A", names, index=0, key="sol_class_a")
            b = st.selectbox("Class B", names, index=1, key="sol_class_b")
        if a == b:
            raise ParameterError("pick two different classes")
        keep = np.isin(y, train.classes[[names.index(a), names.index(b)]])
        X, y = X[keep], y[keep]
        names = [a, b] if names.index(a) < names.index(b) else [b, a]
        st.info(f"{train.name} has {train.classes.size} classes; the solvers compare the binary "
                f"problem {names[0]} vs {names[1]} ({y.size} training samples).")
    plane = plane_controls(X, train.feature_names, "sol")
    if X.shape[1] < 2:
        raise ParameterError("the Solvers page draws 2-D boundaries: the data need at least two features")

    params = (("C", float(C)), ("kernel", kernel), ("gamma", parse_gamma(gamma_txt)),
              ("degree", int(degree)), ("coef0", float(coef0)), ("tol", float(tol)))
    use_cvxpy = y.size <= DEFAULT_MAX_N
    with st.status("Solving …", expanded=False) as status:
        bar = st.progress(0.0, text="SMO")
        load_time = load_smo()
        smo = fit_ours(X, y, params, "smo")
        bar.progress(1 / 3, text="LIBSVM (scikit-learn SVC)")
        svc, svc_time = fit_libsvm(X, y, params)
        ref = None
        if use_cvxpy:
            bar.progress(2 / 3, text="cvxpy reference")
            ref = fit_ours(X, y, params, "cvxpy")
        bar.progress(1.0, text="done")
        status.update(label="Solved with SMO, LIBSVM" + (" and cvxpy" if use_cvxpy else ""),
                      state="complete")
    if not use_cvxpy:
        st.info(f"{y.size} samples: above the cvxpy reference's limit of {DEFAULT_MAX_N} variables "
                "(SVMVIZ_CVXPY_MAX_N), so only SMO and LIBSVM are compared.")

    rows = {"solver": ["SMO (Numba)", "LIBSVM (sklearn SVC)"],
            "objective ½αᵀQα − Σα": [smo.objective_, libsvm_dual_objective(svc, X)],
            "support vectors": [int(smo.support_.size), int(svc.support_.size)],
            "iterations": [int(smo.n_iter_), int(svc.n_iter_[0])],
            "time (s)": [smo.fit_time_, svc_time]}
    if ref is not None:
        rows["solver"].append("cvxpy reference (Clarabel)")
        rows["objective ½αᵀQα − Σα"].append(ref.objective_)
        rows["support vectors"].append(int(ref.support_.size))
        rows["iterations"].append(int(ref.n_iter_))
        rows["time (s)"].append(ref.fit_time_)
    st.dataframe(rows, hide_index=True)
    best = min(rows["objective ½αᵀQα − Σα"])
    st.caption("Objectives differ by at most "
               f"{max(abs(v - best) for v in rows['objective ½αᵀQα − Σα']) / max(abs(best), 1e-12):.1e} "
               "relative. cvxpy's support vectors are the α above 1e-8·max α (an interior-point "
               "solution is never exactly 0); its iterations are interior-point iterations. Loading the compiled "
               f"SMO took {load_time:.2f} s once for this server (not in the table).")

    models = {"SMO": smo, "LIBSVM": svc}
    if ref is not None:
        models["cvxpy"] = ref
    left, right = st.columns([3, 2])
    with left:
        fig = P.plot_boundaries(models, X, y, names, plane)
        st.plotly_chart(fig, key="sol_boundaries")
        figure_downloads(fig, f"{train.name}_solver_boundaries", key="sol_bnd_dl")
    with right:
        fig = P.plot_convergence(smo.history_, float(tol))
        st.plotly_chart(fig, key="sol_convergence")
        figure_downloads(fig, f"{train.name}_smo_convergence", key="sol_conv_dl")
        st.caption(f"SMO stopped after {smo.n_iter_} iterations "
                   f"({'converged' if smo.converged_ else 'iteration limit reached'}).")
    if ref is not None:
        fig = P.plot_alpha_comparison(smo.alpha_, ref.alpha_, "SMO", "cvxpy", upper=float(C))
        st.plotly_chart(fig, key="sol_alpha")
        figure_downloads(fig, f"{train.name}_alpha_smo_vs_cvxpy", key="sol_alpha_dl")
    model_download(smo, f"{train.name}_binary_svc_smo", key="sol_model")

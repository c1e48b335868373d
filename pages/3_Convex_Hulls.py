"""Convex hulls, reduced convex hulls, the ν-SVM as nearest points, and the zero solution
(seed 000 §3.1, DESIGN.md "Reduced convex hulls and ν-SVM" and "Zero solution, exactly")."""

import numpy as np
import streamlit as st
from sklearn.svm import NuSVC

from svmviz.data import BUILTINS, load_builtin
from svmviz.geometry import (convex_hull, nearest_point_to, nearest_points, nu_to_mu,
                             reduced_convex_hull, reduced_hulls_intersect, w_norm_sweep,
                             zero_solution_report)
from svmviz.geometry.zero_solution import c_svm_w
from svmviz.plots.hulls import plot_hulls, plot_w_norm, plot_zero_solution
from svmviz_app.widgets import data_sidebar, figure_downloads, guard

st.set_page_config(page_title="Convex hulls", layout="wide")
st.title("Convex hulls, reduced hulls and the zero solution")
st.caption("Seed 000 §3.1: the SVM dual is the nearest-point problem of two (reduced) convex hulls. "
           "RCH(X, μ) = {Σλᵢxᵢ : Σλᵢ = 1, 0 ≤ λᵢ ≤ μ}: the centroid at μ = 1/m, the hull for μ ≥ 1.")

ds = data_sidebar()
BINARY_SETS = ["fourclass", "hypercubes", "mexican_hat", "elephant_in_snake", "fourclass_like"]


@st.cache_data(show_spinner=False)
def _builtin(name):
    d = load_builtin(name)
    return d.X, d.y, d.class_names, d.feature_names, d.name


with st.sidebar:
    choices = ["current data set"] + [n for n in BINARY_SETS if n in BUILTINS]
    src = st.selectbox("Data for this page", choices, key="hull_src",
                       format_func=lambda n: n if n == "current data set" else BUILTINS[n].title)
if src == "current data set":
    X, yv, cnames, fnames, dname = ds.X, ds.y, ds.class_names, ds.feature_names, ds.name
else:
    X, yv, cnames, fnames, dname = _builtin(src)
classes = list(np.unique(yv))
with st.sidebar:
    if len(classes) > 2:
        pick = st.multiselect("Two classes", classes, default=classes[:2], key="hull_classes",
                              max_selections=2)
    else:
        pick = classes
    if X.shape[1] > 2:
        f1 = st.selectbox("x-axis feature", range(X.shape[1]), 0, format_func=lambda j: fnames[j], key="hull_f1")
        f2 = st.selectbox("y-axis feature", range(X.shape[1]), 1, format_func=lambda j: fnames[j], key="hull_f2")
    else:
        f1, f2 = 0, 1
if len(pick) != 2 or X.shape[1] < 2 or f1 == f2:
    st.warning("This page needs two classes and two different features: pick them in the sidebar.")
    st.stop()
mask = np.isin(yv, pick)
X2 = np.asarray(X[mask][:, [f1, f2]], dtype=np.float64)
y = np.where(yv[mask] == pick[1], 1, -1)
names = [str(pick[0]), str(pick[1])]
labels = (fnames[f1], fnames[f2])
m, m_pos, m_neg = len(y), int((y > 0).sum()), int((y < 0).sum())
st.markdown(f"**{dname}** — class **{names[1]}** is +1 ({m_pos} points), class **{names[0]}** is −1 "
            f"({m_neg} points); axes {labels[0]}, {labels[1]}.")
key = (dname, tuple(map(str, pick)), f1, f2, m)


@st.cache_data(show_spinner=False, max_entries=64)
def _hulls(X, y):
    return {c: X[y == c][convex_hull(X[y == c]).vertices] for c in (-1, 1)}


@st.cache_data(show_spinner=False, max_entries=128)
def _rch(X, y, mu):
    return {c: reduced_convex_hull(X[y == c], mu).vertices for c in (-1, 1)}


@st.cache_data(show_spinner=False, max_entries=64)
def _overlap(X, y, mu):
    return reduced_hulls_intersect(X[y == 1], X[y == -1], mu).intersect


@st.cache_data(show_spinner=False, max_entries=64)
def _nearest(X, y, mu):
    return nearest_points(X[y == 1], X[y == -1], mu, solver="smo", tol=1e-8)


@st.cache_data(show_spinner=False, max_entries=64)
def _nusvc(X, y, nu):
    clf = NuSVC(kernel="linear", nu=nu, tol=1e-6).fit(X, y)
    return clf.coef_[0].copy(), float(clf.intercept_[0])


# ------------------------------------------------------------------ reduced hulls and the ν-SVM
st.header("1. Reduced convex hulls and the ν-SVM")
nu_max = 2 * min(m_pos, m_neg) / m
nu_hi = float(np.floor(nu_max * 200) / 200)
# default: 0.9·ν_max on the slider grid, avoiding an integer 1/μ = νm/2 (offset not unique there)
nu0 = next(v for v in np.round(np.arange(round(0.9 * nu_hi * 200) / 200, 0, -0.005), 3)
           if abs(v * m / 2 - round(v * m / 2)) > 1e-6)
nu = st.slider("ν (the ν-SVM parameter); μ = 2/(ν·m)", min_value=0.005, max_value=nu_hi,
               value=float(nu0), step=0.005, format="%.3f", key="hull_nu")
mu = nu_to_mu(nu, m)
st.markdown(f"μ = 2/(ν·m) = 2/({nu:.3f}·{m}) = **{mu:.4g}** — each weight λᵢ ≤ μ, so at least "
            f"⌈1/μ⌉ = {int(np.ceil(1 / mu - 1e-12))} points of each class carry weight.")
with guard("hull geometry"):
    hulls = _hulls(X2, y)
    rch = _rch(X2, y, mu)
    # LP first: when the reduced hulls meet, w = 0 and neither QP has a hyperplane to show.
    overlap = _overlap(X2, y, mu)
    npnt = None if overlap else _nearest(X2, y, mu)
    w_sk, b_sk = (None, None) if overlap else _nusvc(X2, y, nu)
    fig = plot_hulls(X2, y, hulls, rch, mu, npnt, None if overlap else (w_sk, b_sk), names, labels)
    st.plotly_chart(fig, key="hull_fig")
    c1, c2, c3 = st.columns(3)
    if overlap:
        st.warning("The two reduced hulls overlap at this ν (an LP finds a common point): the nearest "
                   "points coincide, w = 0 and the ν-SVM has no hyperplane. Increase ν (a smaller μ "
                   "shrinks the hulls).")
    else:
        cos = float(w_sk @ npnt.w / (np.linalg.norm(w_sk) * np.linalg.norm(npnt.w)))
        scale = np.linalg.norm(npnt.w) / np.linalg.norm(w_sk)
        c1.metric("distance of the reduced hulls", f"{npnt.distance:.4g}")
        c2.metric("cosine(w nearest points, w NuSVC)", f"{cos:.8f}")
        c3.metric("offset difference |b − b_NuSVC| (same scale)", f"{abs(npnt.b_nu - b_sk * scale):.2e}")
        k = 1 / mu
        if abs(k - round(k)) < 1e-9:
            st.info("1/μ is an integer: no weight is strictly between 0 and μ, so the offset b is not "
                    "unique (any value in an interval is optimal); NuSVC and this construction may pick "
                    "different points of it. The direction is unique.")
        st.caption("Red: the ν-SVM hyperplane from the nearest points w = p₊ − p₋, placed midway between "
                   "the margin levels of the free points; black dashed: scikit-learn's NuSVC at the same ν. "
                   "Grey dotted (when different): the bisector of the segment p₊p₋ — the two agree when the "
                   "hulls are not reduced.")
    figure_downloads(fig, f"reduced_hulls_nu_{nu:.2f}", "hull_dl")

# ------------------------------------------------------------------ the zero solution
st.header("2. The zero solution of the C-SVM")
st.caption("Hard class k with bound D_k on its α, the other class k̄ with D_k̄: w = 0 is optimal exactly "
           "when the centroid s_k̄ lies in RCH(X_k, μ) with μ = D_k/(D_k̄·m_k̄) (Corollary 1, generalised). "
           "The switch D_k* comes from one LP; the curve below comes from real C-SVM solves.")
cz1, cz2 = st.columns([1, 2])
with cz1:
    hard = st.radio("hard class", [1, -1], format_func=lambda c: f"{names[(c + 1) // 2]} ({c:+d})",
                    key="zero_hard", horizontal=True)
    D_other = st.number_input("D_k̄ (bound of the other class)", min_value=1e-3, value=1.0,
                              key="zero_Dother", format="%.3g")


@st.cache_data(show_spinner=False, max_entries=32)
def _report(X, y, D_other):
    return zero_solution_report(X, y, D_other, D_other)


with guard("zero-solution report"):
    case = _report(X2, y, D_other).case(hard)
    m_other = m_neg if hard == 1 else m_pos
    Dstar = case.min_mu * D_other * m_other
    finite = np.isfinite(Dstar)
    centre = Dstar if finite else D_other * m_other / 10
    grid = np.geomspace(centre / 20, centre * 5, 41)
    with cz1:
        D_k = st.select_slider("D_k (bound of the hard class)", options=[float(f"{g:.4g}") for g in grid],
                               value=float(f"{grid[20 - 6]:.4g}"), key="zero_Dk")
        if finite:
            st.markdown(f"Predicted switch **D_k\\* = {Dstar:.4g}** (t\\* = {case.min_mu:.4g}).")
        else:
            st.markdown("The centroid lies **outside** the hard class's convex hull: the zero solution "
                        "never happens for this hard class.")
        mu_z = D_k / (D_other * m_other)
        w = c_svm_w(X2, y, D_k if hard == 1 else D_other, D_other if hard == 1 else D_k, "smo", 1e-8)
        nw = float(np.linalg.norm(w))
        predicted_zero = finite and D_k >= Dstar * (1 - 1e-9)
        st.metric("solver's ‖w‖", f"{nw:.3g}")
        st.metric("prediction", "w = 0" if predicted_zero else "w ≠ 0")
        st.caption(f"μ = D_k/(D_k̄·m_k̄) = {mu_z:.4g}")
    Xh = X2[y == hard]
    rch_h = reduced_convex_hull(Xh, mu_z)
    h1 = nearest_point_to(case.centroid_other, Xh, 1.0, solver="smo")
    with cz2:
        figz = plot_zero_solution(X2, y, hard, rch_h, case.centroid_other, w=w, h1_point=h1.point,
                                  names=names, labels=labels,
                                  title=f"Hard class {names[(hard + 1) // 2]}: RCH for μ = {mu_z:.4g}")
        st.plotly_chart(figz, key="zero_fig")
        if h1.distance < 1e-7:
            st.caption("H1-SVM view: the centroid lies inside conv(hard class), so p\\* = s and the "
                       "H1-SVM also returns w = 0.")
        else:
            st.caption(f"H1-SVM view (green): p\\* is the point of conv(hard class) nearest to the centroid; "
                       f"the H1-SVM's w ∝ p\\* − s, distance {h1.distance:.4g}.")
    sk = ("sweep", key, hard, D_other)
    if st.session_state.get("zero_sweep_key") != sk:
        bar = st.progress(0.0, "solving the C-SVM for each D_k…")
        sweep = w_norm_sweep(X2, y, hard, D_other, grid[::2], "smo", 1e-8,
                             progress=lambda k, n: bar.progress(k / n, f"solved {k}/{n}"))
        bar.empty()
        st.session_state["zero_sweep"], st.session_state["zero_sweep_key"] = sweep, sk
    figw = plot_w_norm(st.session_state["zero_sweep"], D_k)
    st.plotly_chart(figw, key="zero_wfig")
    figure_downloads(figz, f"zero_solution_{names[(hard + 1) // 2]}", "zero_dl")
    figure_downloads(figw, "w_norm_vs_Dk", "zerow_dl")

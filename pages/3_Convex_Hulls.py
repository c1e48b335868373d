"""Convex hulls, reduced convex hulls, the ν-SVM as nearest points, and the zero solution
(Zapién Arreola, Fehr and Burkhardt 2007, §3.1)."""

import numpy as np
import plotly.graph_objects as go
import streamlit as st
from sklearn.svm import NuSVC

from svmviz.data import BUILTINS, Dataset, load_builtin
from svmviz.geometry import (convex_hull, nearest_point_to, nearest_points, nu_to_mu,
                             reduced_convex_hull, reduced_hulls_intersect, w_norm_sweep,
                             zero_solution_report)
from svmviz.geometry.zero_solution import c_svm_w
from svmviz.plots.common import user_text
from svmviz.plots.hulls import plot_hulls, plot_w_norm, plot_zero_solution
from svmviz_app import state
from svmviz_app.controls import two_classes_two_features
from svmviz_app.cache import cached_call, cached_fit
from svmviz_app.views import convergence_status, shared_figure, standard_views
from svmviz_app.state import bind
from svmviz.models import BinaryNuSVC
from svmviz.plots.standard import add_boundary
from svmviz_app.widgets import (Progress, bounded, data_sidebar, figure_downloads, guard, model_upload, plain,
                                share_controls)

MAX_SAMPLES = 3000  # exact reduced hulls, LPs and a sweep of C-SVM solves stay interactive below this

state.start_run()   # before any element: a page link on a fresh server is routed through the app here
st.title("Convex hulls, reduced hulls and the zero solution")
st.caption("Zapién Arreola, Fehr and Burkhardt (2007), §3.1: the SVM dual is the nearest-point problem of "
           "two (reduced) convex hulls. RCH(X, μ) = {Σλᵢxᵢ : Σλᵢ = 1, 0 ≤ λᵢ ≤ μ}: the centroid at "
           "μ = 1/m, the hull for μ ≥ 1.")

ds = data_sidebar()
BINARY_SETS = ["fourclass", "hypercubes", "mexican_hat", "elephant_in_snake", "fourclass_like"]


@st.cache_data(show_spinner=False, max_entries=8)
def _builtin(name):
    d = load_builtin(name)
    return d.X, d.y, d.class_names, d.feature_names, d.name


node = state.hull_node()
with st.sidebar:
    choices = (["current data set"] + (["tree node"] if node is not None else [])
               + [n for n in BINARY_SETS if n in BUILTINS])
    labels_src = {"current data set": "the Data page's training part",
                  "tree node": f"SVM tree: {node.description}" if node is not None else ""}
    src = st.selectbox("Data for this page (override)", choices,
                       format_func=lambda n: labels_src.get(n) or f"override: {BUILTINS[n].title}",
                       **bind("hull.src", "current data set", options=choices))
share_controls("convex_hulls")
imported = model_upload(BinaryNuSVC, "hull", n_features=2)
X = None
with guard("cannot prepare the data"):
    if src == "tree node":
        st.info(f"This page shows the samples still in play at {plain(node.description)} (sent from the "
                "SVM tree page); the other pages use the Data page's choice.")
        X, yv, cnames, fnames, dname = node.X, node.y, node.class_names, node.feature_names, ds.name
    elif src == "current data set":
        train, _ = state.current_split()
        train = bounded(train, MAX_SAMPLES, "The Convex Hulls page")
        X, yv, cnames, fnames, dname = train.X, train.y, train.class_names, train.feature_names, ds.name
    else:
        st.info(f"This page shows {plain(BUILTINS[src].title)} (a local override); the other pages use the "
                "Data page's choice.")
        X, yv, cnames, fnames, dname = _builtin(src)
if X is None:
    st.stop()
classes = list(np.unique(yv))
pick, f1, f2 = two_classes_two_features(classes, fnames, "hull")
if len(pick) != 2 or X.shape[1] < 2 or f1 == f2:
    st.info("This page needs two classes and two different features (the data has "
            f"{len(classes)} class(es) and {X.shape[1]} feature(s)): pick them in the sidebar or load "
            "other data on the Data page.")
    st.stop()
mask = np.isin(yv, pick)
X2 = np.asarray(X[mask][:, [f1, f2]], dtype=np.float64)
y = np.where(yv[mask] == pick[1], 1, -1)
names = [str(pick[0]), str(pick[1])]
labels = (fnames[f1], fnames[f2])
m, m_pos, m_neg = len(y), int((y > 0).sum()), int((y < 0).sum())
st.markdown(f"**{plain(dname)}** — class **{plain(names[1])}** is +1 ({m_pos} points), class **{plain(names[0])}** is −1 "
            f"({m_neg} points); axes {plain(labels[0])}, {plain(labels[1])}.")


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
if nu_hi < 0.005:
    st.info(f"The smaller class has too few points ({min(m_pos, m_neg)} of {m}) for a ν-SVM on this grid.")
    st.stop()
grid_nu = np.round(np.arange(max(round(0.9 * nu_hi * 200), 1) / 200, 0, -0.005), 3)
# when νm/2 is an integer for every ν on the grid (m a multiple of 400) the first one is used
nu0 = next((v for v in grid_nu if abs(v * m / 2 - round(v * m / 2)) > 1e-6), grid_nu[0])
nu = st.slider("ν (the ν-SVM parameter); μ = 2/(ν·m)", min_value=0.005, max_value=max(nu_hi, 0.01),
               step=0.005, format="%.3f", **bind("hull.nu", float(nu0), bounds=(0.005, nu_hi)))
mu = nu_to_mu(nu, m)
st.markdown(f"μ = 2/(ν·m) = 2/({nu:.3f}·{m}) = **{mu:.4g}** — each weight λᵢ ≤ μ, so at least "
            f"⌈1/μ⌉ = {int(np.ceil(1 / mu - 1e-12))} points of each class carry weight.")
overlap = True  # until the LP says otherwise
with guard("hull geometry"):
    hulls = _hulls(X2, y)
    rch = _rch(X2, y, mu)
    # LP first: when the reduced hulls meet, w = 0 and neither QP has a hyperplane to show.
    overlap = _overlap(X2, y, mu)
    npnt = None if overlap else _nearest(X2, y, mu)
    w_sk, b_sk = (None, None) if overlap else _nusvc(X2, y, nu)
    # built once for every session with the same content; an imported model draws on a copy
    fig = shared_figure(plot_hulls, X2, y, hulls, rch, mu, npnt, None if overlap else (w_sk, b_sk), names, labels)
    if imported is not None:
        fig = go.Figure(fig)
        with guard("cannot draw the imported model"):
            add_boundary(fig, imported, X2, f"imported ν-SVM (ν = {imported.nu:g})")
            st.caption(f"Purple dash-dot: the imported {type(imported).__name__} (ν = {imported.nu:g}, "
                       f"{len(getattr(imported, 'support_', []))} support vectors), drawn on the two features "
                       "shown; at the slider's ν = its ν it lies on the red line when fitted on these points.")
            convergence_status(imported, "the imported ν-SVM's QP")
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
        with guard("cannot fit the ν-SVM"):
            # the ν-SVM of this page (the same fit as the decision-function views below): converged?
            convergence_status(cached_fit(BinaryNuSVC(nu=nu, kernel="linear"), X2, y),
                               f"the ν-SVM's QP (BinaryNuSVC, ν = {nu:.3f}, SMO)")
    figure_downloads(fig, f"reduced_hulls_nu_{nu:.2f}", "hull_dl")

# ------------------------------------------------------------------ the zero solution
st.header("2. The zero solution of the C-SVM")
st.caption("Hard class k with bound D_k on its α, the other class k̄ with D_k̄: w = 0 is optimal exactly "
           "when the centroid s_k̄ lies in RCH(X_k, μ) with μ = D_k/(D_k̄·m_k̄) (Corollary 1, generalised). "
           "The switch D_k* comes from one LP; the curve below comes from real C-SVM solves.")
cz1, cz2 = st.columns([1, 2])
with cz1:
    hard = st.radio("hard class", [1, -1], format_func=lambda c: f"{plain(names[(c + 1) // 2])} ({c:+d})",
                    **bind("zero.hard", 1, options=[1, -1]), horizontal=True)
    D_other = st.number_input("D_k̄ (bound of the other class)", min_value=1e-3, format="%.3g",
                              **bind("zero.D_other", 1.0, bounds=(1e-3, 1e9)))


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
        dk_options = [float(f"{g:.4g}") for g in grid]
        D_k = st.select_slider("D_k (bound of the hard class)", options=dk_options,
                               **bind("zero.D_k", dk_options[20 - 6], options=dk_options))
        if finite:
            st.markdown(f"Predicted switch **D_k\\* = {Dstar:.4g}** (t\\* = {case.min_mu:.4g}).")
        else:
            st.markdown("The centroid lies **outside** the hard class's convex hull: the zero solution "
                        "never happens for this hard class.")
        mu_z = D_k / (D_other * m_other)
        w = cached_call(c_svm_w, X2, y, float(D_k if hard == 1 else D_other), float(D_other if hard == 1 else D_k),
                        "smo", 1e-8)
        nw = float(np.linalg.norm(w))
        predicted_zero = finite and D_k >= Dstar * (1 - 1e-9)
        st.metric("solver's ‖w‖", f"{nw:.3g}")
        st.metric("prediction", "w = 0" if predicted_zero else "w ≠ 0")
        st.caption(f"μ = D_k/(D_k̄·m_k̄) = {mu_z:.4g}")
    Xh = X2[y == hard]
    rch_h = cached_call(reduced_convex_hull, Xh, float(mu_z))
    h1 = cached_call(nearest_point_to, case.centroid_other, Xh, 1.0, solver="smo")
    with cz2:
        figz = shared_figure(plot_zero_solution, X2, y, int(hard), rch_h, case.centroid_other, w=w,
                             h1_point=h1.point, names=names, labels=labels,
                             title=f"Hard class {user_text(names[(hard + 1) // 2])}: RCH for μ = {mu_z:.4g}")
        st.plotly_chart(figz, key="zero_fig")
        figure_downloads(figz, f"zero_solution_{names[(hard + 1) // 2]}", "zero_dl", what="hull plot")
        if h1.distance < 1e-7:
            st.caption("H1-SVM view: the centroid lies inside conv(hard class), so p\\* = s and the "
                       "H1-SVM also returns w = 0.")
        else:
            st.caption(f"H1-SVM view (green): p\\* is the point of conv(hard class) nearest to the centroid; "
                       f"the H1-SVM's w ∝ p\\* − s, distance {h1.distance:.4g}.")
    bar = Progress("solving the C-SVM for each D_k")
    sweep = cached_call(w_norm_sweep, X2, y, int(hard), float(D_other), grid[::2], "smo", 1e-8, progress=bar)
    bar.done()
    figw = shared_figure(plot_w_norm, sweep, D_k)
    st.plotly_chart(figw, key="zero_wfig")
    figure_downloads(figw, "w_norm_vs_Dk", "zerow_dl", what="‖w‖ curve")

# ------------------------------------------------------------------ the ν-SVM's standard views
if src == "current data set" and not state.lesson_mode() and not overlap:
    with guard("cannot show the ν-SVM's decision function"):
        _, test = state.current_split()
        both = Dataset(X2, y, list(labels), names, dname, "", check_classes=False)
        test2 = None
        if test is not None and np.isin(test.y, pick).any():
            tm = np.isin(test.y, pick)
            test2 = Dataset(np.asarray(test.X[tm][:, [f1, f2]], dtype=np.float64),
                            np.where(test.y[tm] == pick[1], 1, -1), list(labels), names, dname, "",
                            check_classes=False)
        nu_model = cached_fit(BinaryNuSVC(nu=nu, kernel="linear"), X2, y)
        standard_views(nu_model, both, test2, key="hull")

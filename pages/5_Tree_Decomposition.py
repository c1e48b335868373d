"""Tree decomposition (seed 002): the partition, local SVMs, the ceiling-size search and the
comparison with one global SVM."""

import hashlib

import numpy as np
import pandas as pd
import streamlit as st

from svmviz.models import TreeDecompositionSVC
from svmviz.models.tree_decomposition import C_GRID, GAMMA_GRID, global_svm_search
from svmviz.plots.tree_decomposition import leaf_rows, plot_partition, plot_search_path, plot_td_vs_global
from svmviz_app.widgets import data_sidebar, figure_downloads, guard, model_download

st.set_page_config(page_title="Tree decomposition", layout="wide")
st.title("Tree decomposition (seed 002)")
st.caption("A decision tree (entropy, axis-aligned splits) cuts the data space; a leaf with one class "
           "classifies by itself, every other leaf gets its own RBF SVM. The ceiling size σ and "
           "θ = (C, γ) come from the search of §2.2 on a validation component.")

ds = data_sidebar()
GRIDS = {"small 3 × 3 (C 1…100, γ 0.1…10)": ((1.0, 10.0, 100.0), (0.1, 1.0, 10.0)),
         "seed 7 × 9 (C 10⁻¹…10⁵, γ 10⁻⁴…10⁴)": (C_GRID, GAMMA_GRID)}

with st.sidebar:
    st.subheader("TD parameters")
    grid_name = st.selectbox("θ grid", list(GRIDS), key="td_grid")
    auto = max(30, int(np.ceil(ds.n_samples * 4 / 6 / 8)))
    sigma0 = st.number_input("σ₀ (initial ceiling size)", 2, 100000, 1500, step=50, key="td_sigma0",
                             help=f"The seed's 1,500; with small data the tree is grown to "
                                  f"min(σ₀, max(30, n/8)) ≈ {auto} here.")
    top_k = st.slider("top k θ carried", 1, 10, 5, key="td_topk")
    min_gain = st.select_slider("stop when the gain is below", [0.0, 0.0025, 0.005, 0.01, 0.02], 0.005,
                                format_func=lambda v: f"{100 * v:g} %", key="td_gain")
    multi_class = st.radio("multi-class", ["ovo", "ovr"], horizontal=True, key="td_mc",
                           help="ovo = the seed's 1A1 (pairwise, votes); ovr = 1AO")
    solver = st.radio("leaf solver", ["smo", "libsvm"], horizontal=True, key="td_solver")

if ds.n_features != 2:
    st.info(f"This page draws the partition of 2-D data; {ds.name} has {ds.n_features} features. "
            "Choose a 2-D data set (fourclass, for instance) on the Data page.")
    st.stop()

# Seed 002 §3: 4 : 1 : 1 into training, validation and test components (seeded).
idx = np.random.default_rng(0).permutation(ds.n_samples)
a, b = 4 * ds.n_samples // 6, 5 * ds.n_samples // 6
tr, va, te = idx[:a], idx[a:b], idx[b:]
Xt, yt, Xv, yv, Xs, ys = ds.X[tr], ds.y[tr], ds.X[va], ds.y[va], ds.X[te], ds.y[te]
C_grid, gamma_grid = GRIDS[grid_name]
params = dict(sigma0=int(sigma0), top_k=int(top_k), min_gain=float(min_gain), multi_class=multi_class,
              svm_solver=solver, C_grid=C_grid, gamma_grid=gamma_grid)
key = (hashlib.sha1(ds.X.tobytes() + np.asarray(ds.y).astype(str).tobytes()).hexdigest(),
       tuple(sorted((k, str(v)) for k, v in params.items())))
runs = st.session_state.setdefault("td_runs", {})

if key not in runs:
    with guard("the search failed"):
        with st.status("Running the ceiling-size search…", expanded=True) as status:
            bar = st.progress(0.0, "starting")
            td = TreeDecompositionSVC(**params).fit(Xt, yt, X_val=Xv, y_val=yv,
                                                    progress=lambda f, msg: bar.progress(f, msg))
            st.write(f"TD done in {td.fit_time_:.2f} s; now one global SVM over the same grid.")
            gbar = st.progress(0.0, "global SVM")
            glob = global_svm_search(Xt, yt, Xv, yv, C_grid, gamma_grid,
                                     progress=lambda f, msg: gbar.progress(f, msg))
            g = glob.pop("model")
            glob.update(nsv=float(g.support_.size), accuracy=float(np.mean(g.predict(Xs) == ys)))
            st.write("Bound terms of §4.3 (one more global SVM at θ_opt for S).")
            runs[key] = (td, glob, td.bound_terms(Xt, yt))
            status.update(label="Search finished", state="complete", expanded=False)
if key not in runs:
    st.stop()
td, glob, bt = runs[key]

st.subheader("The partition")
levels = [lv.sigma for lv in td.search_path_]
sigma = st.select_slider("ceiling size σ (the same tree read with an earlier stop — no refit)", levels,
                         value=td.sigma_, key="td_sigma")
lvl = td.search_path_[levels.index(sigma)]
c1, c2, c3, c4 = st.columns(4)
c1.metric("leaves", lvl.n_leaves)
c2.metric("heterogeneous leaves", lvl.n_heterogeneous)
c3.metric("validation accuracy", f"{100 * lvl.best_accuracy:.2f} %")
c4.metric("θ at this σ", f"C={lvl.C[lvl.best]:g}, γ={lvl.gamma[lvl.best]:g}")
with guard("cannot draw the partition"):
    fig = plot_partition(td, Xt, yt, sigma=sigma)
    st.plotly_chart(fig, key="td_partition")
    figure_downloads(fig, f"td_partition_{ds.name}_sigma{sigma}", key="td_partition_dl")

left, right = st.columns([3, 2])
with left:
    st.subheader("Search path")
    fig_path = plot_search_path(td)
    st.plotly_chart(fig_path, key="td_path")
    figure_downloads(fig_path, f"td_search_{ds.name}", key="td_path_dl")
with right:
    st.subheader("Result")
    st.markdown(f"σ_opt = **{td.sigma_}** (tree grown once to σ₀ = {td.sigma0_}), "
                f"θ_opt = (C = **{td.params_['C']:g}**, γ = **{td.params_['gamma']:g}**).  \n"
                f"Share of training samples in homogeneous leaves: **{100 * td.homogeneous_fraction_:.1f} %**.")
    st.markdown("Bound terms of §4.3 (training data): "
                f"T₁ = {bt['T1']:.4g}, T₂ = {bt['T2']:.4g}, R = {bt['R']:.4g}, S = {bt['S']:.4g}, "
                f"R/L = {bt['R_over_L']:.4g}")
    model_download(td, f"tree_decomposition_{ds.name}", key="td_model")

st.subheader(f"Leaves at σ = {sigma}")
st.dataframe(pd.DataFrame(leaf_rows(td, sigma)), hide_index=True)

st.subheader("TD against one global SVM on the same data")
tdm = {"time_s": td.fit_time_, "nsv": td.nsv(Xs), "accuracy": float(np.mean(td.predict(Xs) == ys))}
st.caption(f"Both searched the same {len(C_grid) * len(gamma_grid)} θ on the same training and "
           f"validation components; test component: {len(te)} samples. Global SVM: scikit-learn's SVC "
           f"(LIBSVM), best θ = (C = {glob['C']:g}, γ = {glob['gamma']:g}). Speed-up "
           f"×{glob['time_s'] / td.fit_time_:.2f}, NSV ratio ×{glob['nsv'] / max(tdm['nsv'], 1e-9):.2f}. "
           "The seed's large speed-ups come with large data (see benchmarks/bench_td.py).")
fig_cmp = plot_td_vs_global(tdm, glob)
st.plotly_chart(fig_cmp, key="td_cmp")
figure_downloads(fig_cmp, f"td_vs_global_{ds.name}", key="td_cmp_dl")

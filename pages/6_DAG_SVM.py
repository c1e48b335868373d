"""DAG SVM and weighted DAG SVM (seed 003): pairwise boundaries, voting and its unclassifiable
regions, DAG regions for a chosen class list, and the clusters, weights and fused regions of WDAG."""

from __future__ import annotations

import itertools

import numpy as np
import streamlit as st

from svmviz.data import normalize
from svmviz.data.generators import interlaced
from svmviz.models.dag import DAGSVC, PairwiseVotingSVC, WeightedDAGSVC
from svmviz.plots import dag as P
from svmviz_app.controls import kernel_controls, parse_gamma, plane_controls
from svmviz_app.widgets import data_sidebar, figure_downloads, guard, model_download

st.set_page_config(page_title="DAG SVM — svmviz", layout="wide")
st.title("DAG SVM and weighted DAG SVM")
st.caption("Seed 003 (Sabzekar et al., *Improved DAG SVM*): pairwise SVMs D_ij, max-wins voting and "
           "its unclassifiable region (§3, eq. 5–9), the decision DAG (Fig. 2–3), and the weighted "
           "DAG SVM with K-Means clusters, Gaussian weights and the fusion τ (§4, eq. 10–17).")

current = data_sidebar()
multi = current.classes.size >= 3 and current.n_features >= 2

# ---------------------------------------------------------------- data and parameters (sidebar)
with st.sidebar:
    st.header("Data for this page")
    choices = ([f"current: {current.name}"] if multi else []) + ["Data1", "Data2", "Data3", "Data4"]
    pick = st.selectbox("Data set", choices, index=0 if multi else 1, key="dag_data",
                        help="Seed 003's interlaced 3-class sets (Data1 separate … Data4 most mixed), "
                             "or the current data set when it has three or more classes.")
    norm = st.selectbox("Normalisation", ["none", "minmax", "stddev"],
                        index=0 if pick.startswith("Data") else 1, key="dag_norm")
    st.header("Pairwise SVMs")
    kp = kernel_controls("dag", C_default=10.0)
    kernel, C, gamma_txt, degree, coef0 = (kp[k] for k in ("kernel", "C", "gamma_txt", "degree", "coef0"))
    solver = st.selectbox("Solver", ["smo", "cvxpy"], key="dag_solver",
                          help="smo: the fast Numba SMO; cvxpy: the reference solver (small data only)")


@st.cache_resource(max_entries=8, show_spinner=False)
def fit_pairwise(X, y, params: tuple) -> PairwiseVotingSVC:
    return PairwiseVotingSVC(**dict(params)).fit(X, y)


@st.cache_resource(max_entries=8, show_spinner=False)
def fit_wdag(X, y, params: tuple) -> WeightedDAGSVC:
    return WeightedDAGSVC(**dict(params)).fit(X, y)


@st.cache_resource(max_entries=64, show_spinner=False)
def figure(kind: str, key: tuple, _build):
    """Figures are cached by what they show (``key``); ``_build`` is not hashed."""
    return _build()


with guard("cannot prepare the data"):
    ds = current if pick.startswith("current") else interlaced(int(pick[-1]))
    X, _ = normalize(ds.X, method=norm)
    y = ds.y
    names = list(ds.class_names)
    plane = plane_controls(X, ds.feature_names, "dag")
    if plane is not None:
        st.info(f"{ds.name} has {X.shape[1]} features: the maps show the models on a plane "
                f"({plane.labels[0]} × {plane.labels[1]}); the models use every feature.")
    params = (("C", float(C)), ("kernel", kernel), ("gamma", parse_gamma(gamma_txt)), ("degree", int(degree)),
              ("coef0", float(coef0)), ("solver", solver))
    data_key = (ds.name, ds.source, norm, X.shape, float(np.sum(X)), plane.labels if plane else None)

    with st.status("Training the pairwise SVMs …", expanded=False) as status:
        voting = fit_pairwise(X, y, params)
        status.update(label=f"{len(voting.pairs_)} pairwise SVMs trained "
                            f"({voting.fit_time_:.2f} s)", state="complete")
    K = voting.classes_.size
    pkey = data_key + params

    tab_pw, tab_vote, tab_dag, tab_wdag = st.tabs(
        ["Pairwise D_ij", "Voting (Fig. 1)", "DAG (Fig. 2–3)", "Weighted DAG (Fig. 4–5)"])

    # ------------------------------------------------------------ pairwise boundaries
    with tab_pw:
        st.markdown("One C-SVM per pair of classes, trained on those two classes only (eq. 5): "
                    "D_ij(x) > 0 means *i*, and D_ji = −D_ij.")
        fig = figure("pw", pkey, lambda: P.plot_pairwise_boundaries(voting, X, y, names, plane))
        st.plotly_chart(fig, key="pw_chart")
        figure_downloads(fig, f"{ds.name}_pairwise", key="pw_dl")
        fig = figure("pwg", pkey, lambda: P.plot_pairwise_grid(voting, X, y, names, plane))
        st.plotly_chart(fig, key="pwg_chart")
        figure_downloads(fig, f"{ds.name}_pairwise_panels", key="pwg_dl")
        st.dataframe({"pair": [f"{names[i]} vs {names[j]}" for i, j in voting.pairs_],
                      "training samples": [int(np.sum(np.isin(y, voting.classes_[[i, j]]))) for i, j in voting.pairs_],
                      "support vectors": [int(e.support_.size) for e in voting.estimators_],
                      "iterations": [int(e.n_iter_) for e in voting.estimators_]}, hide_index=True)

    # ------------------------------------------------------------ voting and unclassifiable regions
    with tab_vote:
        st.markdown("Each pair votes (eq. 7–8, sign(0) = +1) and x goes to the class with most votes "
                    "(eq. 9). Where several classes share the maximum, x is **unclassifiable** (grey); "
                    "inside R_i (eq. 6) class i wins every one of its pairs.")
        fig = figure("vote", pkey, lambda: P.plot_voting_regions(voting, X, y, names, plane))
        st.plotly_chart(fig, key="vote_chart")
        figure_downloads(fig, f"{ds.name}_voting", key="vote_dl")
        tied = voting.unclassifiable(X)
        st.metric("Training samples in the unclassifiable region", f"{int(tied.sum())} of {len(y)}")
        model_download(voting, f"{ds.name}_pairwise_voting", key="vote_model")

    # ------------------------------------------------------------ DAG for a chosen order
    with tab_dag:
        st.markdown("The DAG starts with a class list, compares its **first and last** class and "
                    "drops the loser (D_ij ≥ 0: *not j*), K − 1 times. No region is left "
                    "unclassified, but the regions depend on the list (Fig. 3).")
        if K <= 5:
            perms = [list(p) for p in itertools.permutations(range(K))]
            label = st.selectbox("Class list (order)", range(len(perms)), key="dag_order",
                                 format_func=lambda a: "[" + ", ".join(names[k] for k in perms[a]) + "]")
            order_idx = perms[label]
        else:
            txt = st.text_input("Class list (comma separated class names)", ", ".join(names), key="dag_order_txt")
            wanted = [t.strip() for t in txt.split(",") if t.strip()]
            unknown = [t for t in wanted if t not in names]
            if unknown:
                from svmviz.errors import ParameterError
                raise ParameterError(f"unknown class names in the list: {', '.join(unknown)}")
            order_idx = [names.index(t) for t in wanted]
        order = [voting.classes_[k] for k in order_idx]
        dag = DAGSVC.from_pairwise(voting, order)
        okey = pkey + (tuple(order_idx),)
        probe = st.number_input("Follow training sample #", 0, len(y) - 1, 0, key="dag_probe",
                                help="its path through the DAG is drawn in red")
        left, right = st.columns([3, 2])
        with left:
            fig = figure("dagreg", okey, lambda: P.plot_dag_regions(dag, X, y, names, plane, tied_outline=voting))
            st.plotly_chart(fig, key="dag_chart")
        with right:
            figd = P.plot_dag_diagram(dag, names, X=X, highlight=X[probe])
            st.plotly_chart(figd, key="dag_diagram")
            path = dag.decision_path(X[probe:probe + 1])[0]
            name_of = dict(zip(voting.classes_.tolist(), names))
            st.caption(f"Sample #{probe} (class {name_of[y[probe].item()]}): "
                       + " → ".join(f"{name_of[a]} vs {name_of[b]}" for a, b in path.tolist())
                       + f" → predicted {name_of[dag.predict(X[probe:probe + 1])[0].item()]}")
        st.caption("Export the regions, then the diagram:")
        figure_downloads(fig, f"{ds.name}_dag_regions", key="dag_dl")
        figure_downloads(figd, f"{ds.name}_dag_diagram", key="dagd_dl")
        model_download(dag, f"{ds.name}_dag", key="dag_model")

        st.subheader("How the regions change with the order")
        st.markdown("A list and its reverse give the same DAG (same first pair, and what is left is "
                    "again reversed), so only these lists differ. For three or four classes they can "
                    "only disagree inside voting's unclassifiable region.")
        orders = P.distinct_orders(list(voting.classes_), limit=6)
        fig = figure("orders", pkey, lambda: P.plot_order_comparison(
            [DAGSVC.from_pairwise(voting, o) for o in orders], X, y, names, plane))
        st.plotly_chart(fig, key="orders_chart")
        figure_downloads(fig, f"{ds.name}_dag_orders", key="orders_dl")

    # ------------------------------------------------------------ weighted DAG
    with tab_wdag:
        st.markdown("Training (Fig. 5a): K-Means into N clusters, a Gaussian per cluster (mean and "
                    "regularised covariance, eq. 10–11) and a DAG SVM per cluster on its samples. "
                    "Testing (Fig. 5b): weights w_M(x) from the Gaussians (eq. 13), each cluster's "
                    "label l_M(x) and τ_i = Σ_{M: l_M = i} w_M; the label is argmax τ_i (eq. 15–17).")
        c1, c2, c3, c4 = st.columns(4)
        n_clusters = c1.slider("Clusters N", 1, 8, 3, key="wdag_n")
        weight = c2.radio("Weights", ["gaussian", "seed"], key="wdag_weight", horizontal=True,
                          help="gaussian: the multivariate normal density; seed: eq. 12 as printed "
                               "(exp(−q) and 1/√(2π))")
        reg = c3.number_input("covariance_reg", 1e-8, 10.0, 1e-3, format="%g", key="wdag_reg",
                              help="added to each covariance, times the mean feature variance")
        seed = c4.number_input("K-Means random_state", 0, 10_000, 0, key="wdag_seed")
        wparams = params + (("n_clusters", int(n_clusters)), ("weight", weight), ("covariance_reg", float(reg)),
                            ("random_state", int(seed)), ("order", tuple(order)))
        with st.status("Training the weighted DAG SVM …", expanded=False) as status:
            wdag = fit_wdag(X, y, wparams)
            status.update(label=f"WDAG trained: {n_clusters} clusters ({wdag.fit_time_:.2f} s)", state="complete")
        wkey = data_key + wparams
        acc = {"pairwise voting": voting.score(X, y), "DAG (this list)": dag.score(X, y), "WDAG": wdag.score(X, y)}
        cols = st.columns(3)
        for col, (k, v) in zip(cols, acc.items()):
            col.metric(f"Training accuracy: {k}", f"{100 * v:.1f} %")
        left, right = st.columns(2)
        with left:
            figc = figure("clusters", wkey, lambda: P.plot_wdag_clusters(wdag, X, y, names, plane))
            st.plotly_chart(figc, key="wdag_clusters")
        with right:
            figf = figure("fused", wkey, lambda: P.plot_fused_regions(wdag, X, y, names, plane))
            st.plotly_chart(figf, key="wdag_fused")
        st.caption("Export the clusters, then the fused regions:")
        figure_downloads(figc, f"{ds.name}_wdag_clusters", key="wcl_dl")
        figure_downloads(figf, f"{ds.name}_wdag_fused", key="wfu_dl")
        fig = figure("cregions", wkey, lambda: P.plot_cluster_regions(wdag, X, y, names, plane))
        st.plotly_chart(fig, key="wdag_cluster_regions")
        figure_downloads(fig, f"{ds.name}_wdag_cluster_dags", key="wcr_dl")
        fig = figure("weights", wkey, lambda: P.plot_weight_maps(wdag, X, y, names, plane))
        st.plotly_chart(fig, key="wdag_weights")
        figure_downloads(fig, f"{ds.name}_wdag_weights", key="wwm_dl")
        model_download(wdag, f"{ds.name}_wdag", key="wdag_model")

"""Guard vectors (seed 001): one LP per point finds a superset of the support vectors; the SVM
trained on it alone is the SVM of all points."""

import time

import numpy as np
import pandas as pd
import streamlit as st

from svmviz.data.generators import hypercubes
from svmviz.models.guard import GuardVectorSVC, dual_view
from svmviz.models.svc import BinarySVC
from svmviz.plots.guard import plot_dual_view, plot_guard_timing, plot_guard_vectors
from svmviz_app.widgets import data_sidebar, figure_downloads, guard, model_download

st.set_page_config(page_title="Guard vectors", layout="wide")
st.title("Guard vectors: support-vector candidates from linear programs")
st.caption("Seed 001 (Yang & Ahuja). A point is a guard vector when some hyperplane through it has "
           "every other point on its own label's side. Every support vector is one, so the SVM "
           "trained on the guard vectors alone is the SVM of all points.")

ds = data_sidebar()
SOURCES = {"seed Fig. 4: 50 points from the hypercubes [0,40]² / [60,100]²": ("cubes", 50),
           "hypercubes, 200 points": ("cubes", 200),
           "current data set (two classes, two features)": ("current", 0)}
with st.sidebar:
    src = st.selectbox("Data for this page", list(SOURCES), key="gv_src")
    method = st.radio("LP", ["seed", "single"], key="gv_method",
                      format_func=lambda s: {"seed": "seed §3.1: dual-space LP, two orientations",
                                             "single": "one orientation-free LP"}[s])
    prefilter = st.checkbox("pre-filter: test only points on their class's hull boundary", True,
                            key="gv_prefilter")
    delta = st.number_input("Δ of the projection τ_Δ (§3.3; 0 = none)", min_value=0.0, value=0.0,
                            step=0.5, key="gv_delta")

kind, size = SOURCES[src]
if kind == "cubes":
    d0 = hypercubes(size, 2, seed=4)
    X, yv, names, fnames = d0.X, d0.y, d0.class_names, d0.feature_names
else:
    X, yv, names, fnames = ds.X, ds.y, ds.class_names, ds.feature_names
    classes = list(np.unique(yv))
    with st.sidebar:
        pick = (st.multiselect("Two classes", classes, default=classes[:2], max_selections=2, key="gv_cls")
                if len(classes) > 2 else classes)
        feats = (st.multiselect("Two features", list(range(X.shape[1])), default=[0, 1], max_selections=2,
                                format_func=lambda j: fnames[j], key="gv_feats")
                 if X.shape[1] > 2 else [0, 1])
    if len(pick) != 2 or len(feats) != 2:
        st.warning("Pick two classes and two features in the sidebar.")
        st.stop()
    keep = np.isin(yv, pick)
    X, yv = X[keep][:, feats], yv[keep]
    names, fnames = [str(c) for c in pick], [fnames[j] for j in feats]
    if len(X) > 400:
        st.info(f"{len(X)} points: the page runs one or two LPs per point, which takes a while.")
X = np.asarray(X, dtype=np.float64)


@st.cache_resource(show_spinner=False, max_entries=16)
def _fit(X, y, method, prefilter, delta):
    return GuardVectorSVC(method=method, prefilter=prefilter, delta=delta, tol=1e-8).fit(X, y)


model = None
with guard("guard vectors"):
    with st.spinner("solving one LP per point…"):
        model = _fit(X, yv, method, prefilter, float(delta))
if model is None:
    st.stop()

y_pm = np.where(yv == model.classes_[1], 1, -1)
# A click on the chart (st.plotly_chart on_select) chooses the point shown in the dual plane.
ev = st.session_state.get("gv_chart")
pts = (ev or {}).get("selection", {}).get("points", []) if isinstance(ev, dict) else (
    ev.selection.points if ev is not None and hasattr(ev, "selection") else [])
if pts:
    cd = pts[0].get("customdata")
    clicked = int(cd[0] if isinstance(cd, (list, tuple)) else cd) if cd is not None else None
    if clicked is not None and clicked != st.session_state.get("gv_clicked"):
        st.session_state["gv_clicked"] = clicked
        st.session_state["gv_point"] = clicked

g = model.guard_vectors_
c1, c2, c3, c4, c5, c6 = st.columns(6)
c1.metric("points m", len(X))
c2.metric("guard vectors g", int(g.sum()))
c3.metric("support vectors s", len(model.support_))
c4.metric("LPs solved", model.n_lps_)
c5.metric("LP time", f"{model.lp_time_:.3f} s")
c6.metric("QP time (guard vectors)", f"{model.qp_time_:.4f} s")
if not model.hard_margin_:
    st.warning("Some α reached C: this is a soft-margin solution, and the guard-vector SVM need not "
               "equal the SVM of all points.")

left, right = st.columns([1, 1])
with left:
    default = int(np.flatnonzero(g)[0])
    if "gv_point" not in st.session_state or st.session_state["gv_point"] >= len(X):
        st.session_state["gv_point"] = default
    sel = st.selectbox("point to examine (or click one in the chart)", list(range(len(X))), key="gv_point",
                       format_func=lambda i: f"{i}: class {names[(y_pm[i] + 1) // 2]}"
                                             + (" — guard vector" if g[i] else ""))
    fig = plot_guard_vectors(model, X, yv, sel, names, tuple(fnames[:2]))
    st.plotly_chart(fig, key="gv_chart", on_select="rerun", selection_mode="points")
    figure_downloads(fig, "guard_vectors", "gv_dl")
    model_download(model, "guard_vector_svc", "gv_model")
with right:
    with guard("dual-space picture"):
        view = dual_view(X, y_pm, sel)
        figd = plot_dual_view(view, X, y_pm)
        st.plotly_chart(figd, key="gv_dual")
        verdict, _, rest = view.explanation.partition("\n\n")
        if model.delta > 0:
            verdict = "In the original plane (without τ_Δ): " + verdict
        (st.success if view.is_guard else st.error)(verdict)
        st.markdown(rest)
        st.caption(f"LP status in the fitted model: {model.lp_status_[sel]}. In the dual plane a point "
                   "(x1, x2) is the line y = x1·x − x2 of the data plane; point p's dual is the line "
                   "x2 = p_x·x1 − p_y. Constraints with '≥' keep a point on or below the line.")
        if model.delta > 0:
            st.caption("With Δ > 0 the LPs run on τ_Δ(x) = (x, Δeᵢ) in m + 2 dimensions; the picture "
                       "above is the dual plane of the original 2-D points, without τ_Δ.")
        figure_downloads(figd, f"dual_space_point_{sel}", "gvd_dl")

st.subheader("Every point")
alpha = np.zeros(len(X))
alpha[model.support_] = np.abs(model.dual_coef_[0])
table = pd.DataFrame({"point": np.arange(len(X)), "class": [names[(c + 1) // 2] for c in y_pm],
                      fnames[0]: X[:, 0], fnames[1]: X[:, 1], "LP tested": model.tested_,
                      "LP status": model.lp_status_, "guard vector": g,
                      "support vector": np.isin(np.arange(len(X)), model.support_), "α": alpha})
st.dataframe(table, hide_index=True, height=260)

# ------------------------------------------------------------------ Table 1 experiment
st.header("Table 1 of the seed, small")
st.caption("Hypercubes [0,40]ⁿ against [60,100]ⁿ. The seed (MATLAB on a Sun Ultra 10) reports the LP "
           "method far faster than its QP; modern QP solvers (our SMO, LIBSVM) solve these small hard-margin "
           "problems in milliseconds, so here the LPs cost more than one QP on all points. "
           "The full table: benchmarks/bench_guard.py.")
SEED_T1 = {(2, 50): (3, 2), (2, 100): (4, 3), (2, 200): (4, 3), (3, 50): (16, 3), (3, 100): (29, 6),
           (3, 200): (35, 14), (5, 50): (40, 2), (5, 100): (61, 4), (5, 200): (130, 12)}
e1, e2 = st.columns(2)
ns = e1.multiselect("dimensions n", [2, 3, 5], default=[2, 3], key="t1_n")
ms = e2.multiselect("points m", [50, 100, 200], default=[50, 100], key="t1_m")
if st.button("Run the experiment", key="t1_run"):
    rows, jobs = [], [(n, m) for n in sorted(ns) for m in sorted(ms)]
    bar = st.progress(0.0, "starting…")
    with guard("experiment"):
        for k, (n, m) in enumerate(jobs, 1):
            bar.progress((k - 1) / len(jobs), f"n = {n}, m = {m}: LPs and QPs…")
            d = hypercubes(m, n, seed=0)
            gv = GuardVectorSVC(method=method, prefilter=prefilter, tol=1e-8).fit(d.X, d.y)
            t0 = time.perf_counter()
            full = BinarySVC(kernel="linear", C=1e6, tol=1e-8).fit(d.X, d.y)
            t_full = time.perf_counter() - t0
            w1, w2 = gv.coef_[0], full.coef_[0]
            same = (np.linalg.norm(w1 - w2) <= 1e-6 * np.linalg.norm(w2)
                    and abs(gv.intercept_[0] - full.intercept_[0]) <= 1e-6 * max(1, abs(full.intercept_[0])))
            sg, ss = SEED_T1.get((n, m), (None, None))
            rows.append({"n": n, "m": m, "g": int(gv.guard_vectors_.sum()), "s": len(full.support_),
                         "g/s": round(gv.guard_vectors_.sum() / max(len(full.support_), 1), 2),
                         "LPs": gv.n_lps_, "LP time (s)": round(gv.lp_time_, 3),
                         "QP on guard (s)": round(gv.qp_time_, 4),
                         "guard total (s)": round(gv.lp_time_ + gv.qp_time_, 3),
                         "QP all points (s)": round(t_full, 4), "same hyperplane": bool(same),
                         "seed g": sg, "seed s": ss})
        bar.progress(1.0, "done")
        st.session_state["t1_rows"] = rows
if st.session_state.get("t1_rows"):
    rows = st.session_state["t1_rows"]
    st.dataframe(pd.DataFrame(rows), hide_index=True)
    figt = plot_guard_timing(rows)
    st.plotly_chart(figt, key="t1_fig")
    figure_downloads(figt, "guard_table1_timing", "t1_dl")

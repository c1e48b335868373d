"""SVM tree (seed 000): fit once, then step through the greedy construction node by node."""

import hashlib
import time

import numpy as np
import pandas as pd
import streamlit as st

from svmviz.data import fourclass_path, load_builtin, normalize, train_test_split
from svmviz.data.generators import fourclass_like
from svmviz.export import figure_bytes
from svmviz.models import SVMTreeClassifier
from svmviz.errors import ParameterError
from svmviz.plots.svm_tree import (animation_figure, candidates_frame, chain_figure, final_figure,
                                   step_figure, zero_solution_frame)
from svmviz_app.controls import plane_controls
from svmviz_app.state import current_dataset
from svmviz_app.widgets import figure_downloads, guard, model_download

st.set_page_config(page_title="SVM tree · svmviz", layout="wide")

STEP = "svm_tree_step"        # the step shown (0-based); a plain key, so it survives page switches
FITS = "svm_tree_fits"        # fitted models by a key of data + parameters
SLIDER = "svm_tree_step_slider"
# Widget defaults live in session_state (the widgets take no value argument). Streamlit forgets
# the values of widgets a page did not draw; writing them back keeps the chosen data and
# parameters (hence the same fit and the same step) across page switches.
DEFAULTS = {"svm_tree_norm": "none", "svm_tree_train": 1 / 3, "svm_tree_seed": 0, "svm_tree_g1": 0,
            "svm_tree_C": 1000.0, "svm_tree_f": 10.0, "svm_tree_wtol": 1e-3, "svm_tree_usec": True,
            "svm_tree_useh": True, "svm_tree_sign": True, "svm_tree_perp": True, "svm_tree_prune": True,
            "svm_tree_solver": "smo", "svm_tree_nl": False, "svm_tree_nlC": 1.0, "svm_tree_nlg": 1.0,
            "svm_tree_nlt": 0.1, "svm_tree_fi": 0, "svm_tree_fj": 1}
for _k in (*DEFAULTS, "svm_tree_source", "svm_tree_pair", "svm_tree_plane", "svm_tree_show_rch", "svm_tree_show_cen", "svm_tree_show_near"):
    if _k in st.session_state:
        st.session_state[_k] = st.session_state[_k]
    elif _k in DEFAULTS:
        st.session_state[_k] = DEFAULTS[_k]

st.title("SVM decision tree (seed 000)")
st.caption("A chain of linear SVM nodes: at each step the four candidates of Fig. 4.1 (C-SVM and "
           "H1-SVM, each class as the hard class) are solved, and the one that leaves out the most "
           "samples of the non-hard class is chosen.")

# ------------------------------------------------------------------ data and parameters
with st.sidebar:
    st.header("Data")
    sources = (["fourclass"] if fourclass_path() is not None else []) + ["fourclass-like",
                                                                          "current data set"]
    source = st.radio("data set", sources, key="svm_tree_source",
                      help="fourclass (LIBSVM, 862 points) when it is available")
    norm = st.selectbox("normalization", ["none", "minmax", "stddev"], key="svm_tree_norm",
                        help="Min-Max or Std-Dev as in Tables 5.5 / 5.6, fitted on the training part")
    train_share = st.slider("training share", 0.1, 0.9, step=0.05, key="svm_tree_train",
                            help="the seed trains on 1/3 and tests on 2/3")
    split_seed = st.number_input("split seed", min_value=0, max_value=10_000, key="svm_tree_seed")
    st.header("Tree")
    greedy = st.radio("greedy level g1", [0, 1], horizontal=True, key="svm_tree_g1",
                      help="0: perpendicular hyperplanes only when stuck; 1: always among the candidates")
    C_hard = st.number_input("C_hard (initial C_k of the hard class)", min_value=1e-3, max_value=1e9,
                             key="svm_tree_C", format="%g")
    reduction = st.number_input("reduction f (C_k ← C_k / f)", min_value=1.01, max_value=1000.0, key="svm_tree_f")
    w_tol = st.number_input("w_tol (zero solution: ‖w‖ below)", min_value=1e-12, max_value=1.0,
                            key="svm_tree_wtol", format="%g")
    c1, c2 = st.columns(2)
    use_c = c1.checkbox("C-SVM", key="svm_tree_usec")
    use_h = c2.checkbox("H1-SVM", key="svm_tree_useh")
    sign_change = c1.checkbox("sign change", key="svm_tree_sign")
    perpendicular = c2.checkbox("perpendicular", key="svm_tree_perp")
    prune = c1.checkbox("pruning", key="svm_tree_prune")
    solver = c2.selectbox("solver", ["smo", "cvxpy"], key="svm_tree_solver")
    use_nl = st.checkbox("non-linear extension (§3.3)", key="svm_tree_nl")
    nonlinear = None
    if use_nl:
        nonlinear = {"C": st.number_input("RBF C", min_value=1e-3, max_value=1e6, key="svm_tree_nlC",
                                          format="%g"),
                     "gamma": st.number_input("RBF γ", min_value=1e-4, max_value=1e4, key="svm_tree_nlg",
                                              format="%g"),
                     "tradeoff": st.number_input("depth/accuracy trade-off", min_value=0.0, max_value=10.0,
                                                 key="svm_tree_nlt", format="%g")}


def _dataset():
    if source == "fourclass":
        return load_builtin("fourclass")
    if source == "fourclass-like":
        return fourclass_like()
    return current_dataset()


def _key(*parts) -> str:
    h = hashlib.sha1()
    for p in parts:
        h.update(np.ascontiguousarray(p).tobytes() if isinstance(p, np.ndarray) else repr(p).encode())
    return h.hexdigest()


def _fit(ds, params):
    """Split, normalize, fit the tree (with progress) and an RBF SVM with γ tuned by CV on the
    same split; cached in session_state so moving between steps recomputes nothing."""
    from sklearn.model_selection import GridSearchCV
    from sklearn.svm import SVC

    tr, te = train_test_split(ds, test_size=1 - train_share, seed=int(split_seed))
    Xtr, Xte = normalize(tr.X, te.X, norm)
    bar = st.progress(0.0, "fitting the SVM tree…")
    model = SVMTreeClassifier(**params)
    model.fit(Xtr, tr.y, progress=lambda msg, f: bar.progress(min(f, 1.0), msg))
    bar.progress(1.0, "fitting the RBF SVM for comparison (γ tuned by 5-fold CV)…")
    t0 = time.perf_counter()
    grid = GridSearchCV(SVC(kernel="rbf", C=1.0), {"gamma": np.logspace(-2, 3, 11)}, cv=5).fit(Xtr, tr.y)
    rbf_fit = time.perf_counter() - t0
    bar.empty()
    return {"model": model, "Xtr": Xtr, "ytr": tr.y, "Xte": Xte, "yte": te.y, "rbf": grid.best_estimator_,
            "rbf_fit": rbf_fit, "gamma": grid.best_params_["gamma"], "name": ds.name,
            "features": list(ds.feature_names)}


params = dict(C_hard=float(C_hard), reduction=float(reduction), w_tol=float(w_tol),
              greedy_level=int(greedy), use_c_svm=use_c, use_h1_svm=use_h, sign_change=sign_change,
              perpendicular=perpendicular, prune=prune, nonlinear=nonlinear, solver=solver)

fit = None
with guard("cannot fit the SVM tree"):
    ds = _dataset()
    key = _key(ds.name, ds.X, ds.y.astype(str), norm, train_share, int(split_seed), sorted(params.items()))
    fits = st.session_state.setdefault(FITS, {})
    if key not in fits:
        with st.status(f"Fitting the SVM tree on {ds.name}…", expanded=True) as status:
            fits.clear()  # keep one fit: models of other settings are not needed any more
            fits[key] = _fit(ds, params)
            status.update(label=f"Fitted the SVM tree on {ds.name}", state="complete", expanded=False)
        st.session_state[STEP] = 0
    fit = fits[key]

if fit is None:
    st.stop()

model, Xtr, ytr = fit["model"], fit["Xtr"], fit["ytr"]
tree_index = 0
if len(model.trees_) > 1:
    pairs = [f"{model.classes_[a]} vs {model.classes_[b]}" for a, b in model.pairs_]
    tree_index = st.selectbox("pair of classes (one-vs-one)", range(len(pairs)),
                              format_func=lambda i: pairs[i], key="svm_tree_pair")
tree = model.trees_[tree_index]
n_steps = len(tree.trace)

try:
    plane = plane_controls(Xtr, fit["features"], "svm_tree")
except ParameterError as exc:
    st.error(str(exc))
    st.stop()

# ------------------------------------------------------------------ step navigation
if n_steps == 0:
    st.info("The training set of this pair holds one class only: there is nothing to step through.")
    st.stop()
st.session_state[STEP] = int(min(max(st.session_state.get(STEP, 0), 0), n_steps - 1))


def _go(k):
    st.session_state[STEP] = int(min(max(k, 0), n_steps - 1))


def _from_slider():
    st.session_state[STEP] = int(st.session_state[SLIDER]) - 1


step_now = st.session_state[STEP]
b1, b2, b3, b4, sl = st.columns([1, 1, 1, 1, 4])
b1.button("« First", on_click=_go, args=(0,), key="svm_tree_first", width="stretch")
b2.button("◀ Previous", on_click=_go, args=(step_now - 1,), key="svm_tree_prev", width="stretch")
b3.button("Next ▶", on_click=_go, args=(step_now + 1,), key="svm_tree_next", width="stretch")
b4.button("Last »", on_click=_go, args=(n_steps - 1,), key="svm_tree_last", width="stretch")
if n_steps > 1:
    st.session_state[SLIDER] = step_now + 1
    sl.slider("step", 1, n_steps, key=SLIDER, on_change=_from_slider, label_visibility="collapsed")
k = st.session_state[STEP]
step = tree.trace[k]
st.markdown(f"**Step {k + 1} of {n_steps}** — {len(step.active)} samples in play; {step.note}")

tab_step, tab_final = st.tabs(["Step by step", "Final tree and metrics"])

with tab_step:
    c_plot, c_zero = st.columns([3, 2])
    with c_zero:
        st.subheader("Zero solution")
        zf = zero_solution_frame(step)
        zeros = zf[zf["solver: w = 0"]]
        if len(zeros):
            st.warning(f"{len(zeros)} of {len(zf)} solves returned w = 0 (‖w‖ < w_tol); "
                       "C_k was divided by f after each (§4.3.2).")
        for case in step.zero_solution:
            inside = np.isfinite(case.min_mu)
            st.markdown(
                f"**hard class {case.hard_class:+d}**: the centroid of class {-case.hard_class:+d} "
                + (f"lies in RCH(hard, μ) for μ ≥ t* = {case.min_mu:.4g}, so w = 0 for "
                   f"C_k ≥ D_k* = t*·m_other = **{case.D_threshold:.4g}** "
                   f"(at C_hard = {case.D_hard:g}: μ = {case.mu:.4g} — "
                   f"{'zero solution predicted' if case.zero_predicted else 'no zero solution'})"
                   if inside else "lies outside the convex hull of the hard class: no zero solution "
                   "for any C_k (a separating line certifies it)"))
            if inside and case.certificate.weights is not None:
                lam = case.certificate.weights
                st.caption(f"certificate: {int(np.sum(lam > 1e-9))} hard samples with weights λ ≤ "
                           f"{lam.max():.4g} reproduce the centroid (the LP min t, Σλ = 1, 0 ≤ λ ≤ t)")
        st.dataframe(zf, hide_index=True, width="stretch", height=220)
        st.markdown("**Draw on the plot**")
        show_rch = st.checkbox("reduced convex hull of the hard class (μ = C_k / m_other)",
                               key="svm_tree_show_rch", disabled=Xtr.shape[1] != 2)
        show_cen = st.checkbox("non-hard centroid", key="svm_tree_show_cen")
        show_near = st.checkbox("H1-SVM: nearest point of the hard hull to the centroid",
                                key="svm_tree_show_near")
        qp_labels = [c.label for c in step.candidates if not c.sign_changed and not c.perpendicular]
        ch = step.candidates[step.chosen] if step.chosen >= 0 else None
        default = qp_labels.index(ch.parent or ch.label) if ch is not None and (ch.parent or ch.label) in qp_labels else 0
        geo = st.selectbox("for candidate (default: the chosen one)", qp_labels, index=default,
                           key=f"svm_tree_geo_{k}") if qp_labels else None
    overlays = tuple(o for o, on in zip(("rch", "centroid", "nearest"), (show_rch, show_cen, show_near)) if on)
    with c_plot:
        fig = None
        with guard("cannot draw this step"):
            fig = step_figure(model, Xtr, ytr, k, tree_index, plane, overlays=overlays,
                              geometry_label=geo, geometry_solver=solver)
            st.plotly_chart(fig, width="stretch", key="svm_tree_fig")
    st.subheader("Candidates")
    st.dataframe(candidates_frame(step), hide_index=True, width="stretch")
    st.subheader("Export")
    if fig is not None:
        figure_downloads(fig, f"svm_tree_step_{k + 1}", key="svm_tree_dl")
    e1, e2 = st.columns(2)
    with e1:
        if st.button("Build the animated HTML of all steps", key="svm_tree_anim_build"):
            with st.spinner("drawing every step…"), guard("cannot build the animation"):
                st.session_state["svm_tree_anim"] = figure_bytes(
                    animation_figure(model, Xtr, ytr, tree_index, plane), "html")
        if st.session_state.get("svm_tree_anim") is not None:
            st.download_button("Download all steps (HTML with a step slider)",
                               st.session_state["svm_tree_anim"], "svm_tree_steps.html", "text/html",
                               key="svm_tree_anim_dl")
    with e2:
        model_download(model, "svm_tree_model", key="svm_tree_model")

def _final_views(fit, tree_index, plane_key):
    """The final partitions, the chain and the comparison table: drawn and timed once per fit."""
    views = fit.setdefault("views", {})
    if (tree_index, plane_key) in views:
        return views[(tree_index, plane_key)]
    Xte, yte, rbf = fit["Xte"], fit["yte"], fit["rbf"]
    reps = max(1, int(20000 / max(len(Xte), 1)))

    def _time(f):
        t0 = time.perf_counter()
        for _ in range(reps):
            f(Xte)
        return (time.perf_counter() - t0) / reps

    t_tree, t_rbf = _time(model.predict), _time(rbf.predict)
    table = pd.DataFrame({
        "": ["hyperplanes / support vectors", "test accuracy", "training time (s)",
             "classification time (ms)", "average depth"],
        "SVM tree": [str(model.n_hyperplanes_), f"{model.score(Xte, yte):.4f}", f"{model.fit_time_:.3f}",
                     f"{1000 * t_tree:.3f}", f"{float(np.mean(model.predict_depth(Xte))):.2f}"],
        f"RBF SVM (γ = {fit['gamma']:.3g})": [str(rbf.support_vectors_.shape[0]), f"{rbf.score(Xte, yte):.4f}",
                                               f"{fit['rbf_fit']:.3f} (with CV)", f"{1000 * t_rbf:.3f}", "—"],
    })
    note = (f"{len(fit['Xtr'])} training and {len(Xte)} test samples; classification "
            f"{t_rbf / t_tree:.1f}× faster with the tree (times on this machine, averaged over "
            f"{reps} repeats).")
    views[(tree_index, plane_key)] = (
        final_figure(model, fit["Xtr"], fit["ytr"], False, tree_index, plane),
        final_figure(model, fit["Xtr"], fit["ytr"], True, tree_index, plane),
        chain_figure(model, tree_index), table, note)
    return views[(tree_index, plane_key)]


with tab_final:
    before = None
    with guard("cannot draw the final partition"):
        plane_key = None if plane is None else (plane.method, tuple(plane.basis.ravel()))
        before, after, chain, table, note = _final_views(fit, tree_index, plane_key)
    if before is not None:
        f1, f2 = st.columns(2)
        f1.plotly_chart(before, width="stretch", key="svm_tree_before")
        f2.plotly_chart(after, width="stretch", key="svm_tree_after")
        st.plotly_chart(chain, width="stretch", key="svm_tree_chain")
    if tree.nonlinear is not None:
        nl = tree.nonlinear
        st.markdown(f"**Non-linear extension (§3.3):** RBF node ({nl.n_support} SVs, trained on the "
                    f"whole training set) placed after node {nl.depth} of the pruned chain.")
        st.dataframe(pd.DataFrame({"RBF node after node": range(len(nl.scores)), "accuracy": nl.accuracies,
                                   "share reaching RBF": nl.reach, "avg linear depth": nl.avg_depths,
                                   "cost vs RBF": nl.costs, "score": nl.scores}), hide_index=True)
    if before is not None:
        st.subheader("Against an RBF SVM on the same split")
        st.dataframe(table, hide_index=True, width="stretch")
        st.caption(note)

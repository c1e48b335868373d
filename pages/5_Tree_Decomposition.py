"""Tree decomposition (Chang, Guo, Lin and Lu 2009): the partition, local SVMs, the ceiling-size search and the
comparison with one global SVM, on the Data page's training part."""

import numpy as np
import pandas as pd
import streamlit as st

from svmviz.models import TreeDecompositionSVC
from svmviz.models.td_steps import td_steps
from svmviz.models.tree_decomposition import C_GRID, GAMMA_GRID, global_svm_search, validation_split
from svmviz.plots.tree_decomposition import (leaf_rows, plot_partition, plot_search_path, plot_td_step,
                                             plot_td_vs_global)
from svmviz.questions import td_next
from svmviz_app.cache import cached_call, cached_fit, shared_view
from svmviz_app.frame import Inputs, MethodPage, Param, View, run_page, standard
from svmviz_app.lesson_steps import step_view
from svmviz_app.state import bind
from svmviz_app.stepper import shown_figure, stepper
from svmviz_app.views import convergence_status, shared_figure
from svmviz_app.widgets import Progress, figure_downloads, guard, plain

# TD itself scales to far more, but the page also searches one global SVM over the same grid
# (O(n²) per θ) and draws every leaf: 20,000 training samples keep both interactive.
MAX_SAMPLES = 20_000
# the URL names each choice by a stable id, the widget shows its label
GRIDS = {"small": ("small 3 × 3 (C 1…100, γ 0.1…10)", ((1.0, 10.0, 100.0), (0.1, 1.0, 10.0))),
         "paper": ("Chang et al. (2009) 7 × 9 (C 10⁻¹…10⁵, γ 10⁻⁴…10⁴)", (C_GRID, GAMMA_GRID))}
PURITY = {"0": ("0 (Chang et al. 2009: only homogeneous leaves)", 0.0), "0.02": ("0.02", 0.02),
          "0.05": ("0.05", 0.05), "0.1": ("0.1", 0.1),
          "validation": ("chosen on validation from 0.02, 0.05, 0.1", (0.02, 0.05, 0.1))}
STAGES = {"search": ("search (Chang et al. 2009)", None), "1": ("1 (σ₀ only)", 1), "2": ("2", 2), "3": ("3", 3)}
MIN_GAINS = [0.0, 0.0025, 0.005, 0.01, 0.02]
# each computed only while open: a first visit draws the partition, not the page's six charts
TABS = ("Partition", "Search path and leaves", "TD against one global SVM",
        "Decision function, confusion matrix and ROC", "Step by step")
GLOBAL_SOLVER = {"smo": "svmviz's SMO", "libsvm": "scikit-learn's SVC (LIBSVM, the paper's baseline)"}


def _td_bound_terms(params, Xt, yt, Xv, yv, progress=None):
    """§4.3 bound terms of the (cached) TD fit with ``params`` on these components (S trains one
    global SVM at θ_opt: ``progress`` lets Stop or a closed tab end it)."""
    td = cached_fit(TreeDecompositionSVC(**params), Xt, yt, X_val=Xv, y_val=yv, progress=progress)
    return td.bound_terms(Xt, yt, progress=progress)


def prepare(train, test, values) -> Inputs:
    # The Data page's test part stays untouched: TD's validation component is carved out of the
    # Data page's training part (Chang et al. 2009 §3 splits 4 : 1 : 1 the same way).
    tr, va = validation_split(train.y, float(values["val_fraction"]), 0)
    return Inputs(train.X[tr], train.y[tr], dict(X_val=train.X[va], y_val=train.y[va]))


def components(ctx) -> None:
    """Which samples TD trains, validates and is tested on: under the tabs, so that the partition
    starts on a projector's first screen."""
    n_train, n_val, test = len(ctx.inputs.y), len(ctx.inputs.fit_kw["y_val"]), ctx.test
    st.caption(f"TD trains on {n_train} samples of the Data page's training part and chooses σ and θ on the "
               f"other {n_val} (its validation component, {100 * float(ctx.values['val_fraction']):g} % of the "
               "training part); the test part "
               + ("(none: the Data page keeps every sample for training)" if test is None
                  else f"({test.n_samples} samples) is used only to test the models, in the last two tabs."))


def level(ctx) -> None:
    """The σ slider and what the tree holds at that σ: above the tabs, since the partition and the
    leaf table both read the tree at this σ."""
    td = ctx.model
    levels = [lv.sigma for lv in td.search_path_]
    # the slider and what the tree holds beside it, in a few lines rather than a row of large
    # figures: together with the page's header they leave the partition's top on a 1280 × 720 screen
    left, right = st.columns(2, vertical_alignment="center")
    sigma = left.select_slider("ceiling size σ (the same tree read with an earlier stop — no refit)", levels,
                               **bind("td.sigma", td.sigma_, options=levels))
    ctx.values["sigma"] = sigma
    lvl = td.search_path_[levels.index(sigma)]
    level_svms = [lf.svm for lf in td.level_leaves(sigma) if lf.svm is not None]
    n_bad = sum(not s.converged for s in level_svms)
    right.markdown(f"leaves: **{lvl.n_leaves}** · leaves with an SVM: **{len(level_svms)}**  \n"
                   f"validation accuracy: **{100 * lvl.best_accuracy:.1f} %** · "
                   f"converged: **{'yes' if n_bad == 0 else f'no ({n_bad})'}**  \n"
                   f"θ at this σ: C = **{lvl.C[lvl.best]:.3g}**, γ = **{lvl.gamma[lvl.best]:.3g}**",
                   help="converged: whether every leaf SVM at this σ (and its θ) reached the solver's "
                        "tolerance; no (k): k of the leaves with an SVM did not")
    if sigma == td.sigma_:   # the model's own leaves: named in the warning when not converged
        convergence_status(td, f"the {len(level_svms)} leaf SVMs of the model (σ = {td.sigma_})")
    elif n_bad:
        st.warning(f"Not converged at σ = {sigma}: {n_bad} of the {len(level_svms)} leaf SVMs stopped before "
                   "reaching the solver's tolerance, so their boundaries are not optimal. Normalize the "
                   "features on the Data page, use a smaller θ grid (the largest C and γ are the slow ones) "
                   "or the libsvm leaf solver.")


def partition(ctx) -> None:
    td, Xt, yt, sigma = ctx.model, ctx.inputs.X, ctx.inputs.y, ctx.values["sigma"]
    if td.n_features_in_ == 2:
        with guard("cannot draw the partition"):
            ctx.figure(shared_figure(plot_partition, td, Xt, yt, sigma=sigma), "td_partition",
                       f"td_partition_{ctx.dataset.name}_sigma{sigma}")
    else:
        st.info(f"The partition is drawn for 2-D data; {plain(ctx.dataset.name)} has {td.n_features_in_} "
                "features. The search, the leaves and the comparison still apply.")
    st.markdown("Filled boxes: leaves classified by their label (homogeneous; dotted outline: labelled by "
                "their majority under purity_tol, an extension). Outlined boxes: leaves with a local SVM, "
                "its regions and boundary drawn inside.")


def _step_figure(model, X, y, k: int):
    """The picture of step k, built once for every session at that step."""
    return plot_td_step(model, X, y, shared_view(td_steps, model)[k])


def steps(ctx) -> None:
    """Chang et al. (2009) unfolded: the tree growing to σ₀ split by split, the leaves at σ₀ in turn
    with their local SVMs, the stages of the ceiling-size search and the chosen (σ, θ)."""
    td, Xt, yt = ctx.model, ctx.inputs.X, ctx.inputs.y
    lesson_steps = shared_view(td_steps, td)
    n = len(lesson_steps)

    def view(k: int) -> None:
        step = lesson_steps[k]
        with guard("cannot draw this step"):
            step_view("td.step", k, n, step.summary, step.explanation, shared_figure(_step_figure, td, Xt, yt, k),
                      lambda: td_next(td, k), "td_step")

    with ctx.projected():   # lesson mode: the stepper and its picture at the top of the page
        stepper("td.step", n, view)
    if not ctx.lesson:
        st.caption("Red: what the step adds (the split it makes, the leaves it visits). Filled boxes: pure leaves; "
                   "outlined: mixed leaves, with their local SVM's regions once trained; dotted: not visited yet.")
        figure_downloads(shown_figure("td.step"), "td_step", key="td_step_dl")


def search(ctx) -> None:
    td, p, fit_kw = ctx.model, ctx.params, ctx.inputs.fit_kw
    left, right = st.columns([3, 2])
    with left:
        st.subheader("Search path")
        ctx.figure(plot_search_path(td), "td_path", f"td_search_{ctx.dataset.name}")
    with right:
        st.subheader("Result")
        st.markdown(f"σ_opt = **{td.sigma_}** (tree grown once to σ₀ = {td.sigma0_}), "
                    f"θ_opt = (C = **{td.params_['C']:g}**, γ = **{td.params_['gamma']:g}**), "
                    f"ε = **{td.purity_tol_:g}**.  \n"
                    f"Training samples in homogeneous leaves: **{100 * td.homogeneous_fraction_:.1f} %**; "
                    f"in leaves labelled by their majority (purity_tol): **{100 * td.majority_fraction_:.1f} %**.  \n"
                    f"Leaf SVMs reused from an earlier σ stage: {sum(lv.n_reused for lv in td.search_path_)}.")
        if ctx.imported is None:
            with guard("cannot compute the bound terms"):
                bbar = Progress("bound terms: one global SVM at θ_opt")
                bt = cached_call(_td_bound_terms, p, ctx.inputs.X, ctx.inputs.y, fit_kw["X_val"],
                                 fit_kw["y_val"], progress=bbar)
                bbar.done()
                st.markdown("Bound terms of §4.3 (training data): "
                            f"T₁ = {bt['T1']:.4g}, T₂ = {bt['T2']:.4g}, R = {bt['R']:.4g}, S = {bt['S']:.4g}, "
                            f"R/L = {bt['R_over_L']:.4g}")
        ctx.model_download(f"tree_decomposition_{ctx.dataset.name}")
    sigma = ctx.values["sigma"]
    st.subheader(f"Leaves at σ = {sigma}")
    st.dataframe(pd.DataFrame(leaf_rows(td, sigma)), hide_index=True)


def against_global(ctx) -> None:
    td, p, test = ctx.model, ctx.params, ctx.test
    st.subheader("TD against one global SVM on the same training part")
    if ctx.imported is not None:
        st.caption("An imported model: its search is not repeated here.")
    elif test is None:
        st.caption("No test part (the Data page keeps every sample for training): no comparison.")
    elif ctx.values["compare"]:
        with guard("the global SVM failed"):
            gbar = Progress("global SVM over the same grid: θ")
            C_grid, gamma_grid, solver = p["C_grid"], p["gamma_grid"], p["svm_solver"]
            # the leaves' solver: the speed-up compares the decomposition, not two solvers, and the
            # SMO is polled during a long solve (one LIBSVM fit cannot be stopped half-way)
            glob = dict(cached_call(global_svm_search, ctx.inputs.X, ctx.inputs.y, ctx.inputs.fit_kw["X_val"],
                                    ctx.inputs.fit_kw["y_val"], C_grid, gamma_grid, progress=gbar,
                                    solver=solver, multi_class=p["multi_class"]))
            gbar.done()
            g = glob.pop("model")
            glob.update(nsv=float(g.support_.size), accuracy=float(np.mean(g.predict(test.X) == test.y)))
            tdm = {"time_s": td.fit_time_, "nsv": td.nsv(test.X),
                   "accuracy": float(np.mean(td.predict(test.X) == test.y))}
            st.caption(f"Both searched the same {len(C_grid) * len(gamma_grid)} θ on the same training and "
                       f"validation components; test part: {test.n_samples} samples. Global SVM: "
                       f"{GLOBAL_SOLVER[solver]}, the leaves' solver, best θ = (C = {glob['C']:g}, "
                       f"γ = {glob['gamma']:g}). Wall-time speed-up ×{glob['time_s'] / td.fit_time_:.2f} (first "
                       "fit of each; a shared server makes it noisy), "
                       f"NSV ratio ×{glob['nsv'] / max(tdm['nsv'], 1e-9):.2f}. The paper's large speed-ups come "
                       "with large data (see benchmarks/bench_td.py).")
            ctx.figure(plot_td_vs_global(tdm, glob), "td_cmp", f"td_vs_global_{ctx.dataset.name}")
    else:
        st.caption("Tick “compare with one global SVM” in the sidebar to train it.")


PAGE = MethodPage(
    key="td", title="Tree decomposition", name="Tree decomposition",
    citation="Chang, Guo, Lin and Lu, *Tree Decomposition for Large-Scale SVM Problems: Experimental and "
             "Theoretical Results* (2009).",
    summary="A decision tree (entropy, axis-aligned splits) cuts the data space; a leaf with one class "
            "classifies by itself, every other leaf gets its own RBF SVM. The ceiling size σ and "
            "θ = (C, γ) come from the search of §2.2 on a validation component.",
    estimator=TreeDecompositionSVC, sidebar_title="TD parameters", max_samples=MAX_SAMPLES,
    params=(
        Param(("C_grid", "gamma_grid"), "θ grid", "small", "select", key="grid", choices=GRIDS),
        Param("sigma0", "σ₀ (initial ceiling size)", 1500, "number", step=50, within=(2, 100000),
              help="The paper's 1,500; with small data the tree is grown to min(σ₀, max(30, n/8))."),
        Param("top_k", "top k θ carried", 5, "slider", within=(1, 10)),
        Param("min_gain", "stop when the gain is below", 0.005, "select_slider", options=MIN_GAINS,
              fmt=lambda v: f"{100 * v:g} %"),
        Param("multi_class", "multi-class", "ovo", "radio", horizontal=True,
              help="ovo = the paper's 1A1 (pairwise, votes); ovr = 1AO"),
        Param("svm_solver", "leaf solver", "smo", "radio", key="solver", within=("smo", "libsvm"), horizontal=True),
        Param("validation_fraction", "validation share of the training part", 0.2, "slider", key="val_fraction",
              within=(0.1, 0.5), step=0.05,
              help="Chang, Guo, Lin and Lu (2009) train on 4 parts and validate on 1 (0.2)."),
        Param("purity_tol", "purity_tol ε", "0", "select", key="purity", choices=PURITY,
              section="Extensions (not in Chang et al. 2009)",
              help="Leaves whose minority share is ≤ ε take their majority label and train no SVM. With "
                   "label noise almost no leaf is exactly pure, so the paper's rule trains an SVM on "
                   "nearly every leaf."),
        Param("max_stages", "σ stages", "search", "select", key="stages", choices=STAGES,
              help="1 = a fixed ceiling σ₀: no search over σ."),
        Param(None, "compare with one global SVM (same grid, same training part)", True, "checkbox",
              key="compare"),
    ),
    prepare=prepare, progress="ceiling-size search: leaf SVMs trained", fit_error="the search failed",
    views=(View(level), View(partition, tab=TABS[0]), View(search, tab=TABS[1]), View(against_global, tab=TABS[2]),
           View(standard, tab=TABS[3]), View(steps, lesson=True, tab=TABS[4]), View(components, lesson=True)),
)

run_page(PAGE)

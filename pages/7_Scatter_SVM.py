"""Scatter SVM (Jenssen, Kloft, Zien, Sonnenburg and Müller 2012): class prototypes, their mean and the scatter the dual minimises; the
binary ν-SVM as its two-class case; sensitivity maps per class and for the mean."""

from __future__ import annotations

import numpy as np
import streamlit as st

from svmviz.data import load_builtin, minus_signs, plain_text
from svmviz.data.generators import gaussians_on_circle, sensitivity_5d
from svmviz.errors import ParameterError
from svmviz.models import ScatterSVC
from svmviz.models.scatter import choose_gamma
from svmviz.models.scatter_steps import scatter_run, step_texts
from svmviz.plots.common import minus_sign, user_text
from svmviz.plots.scatter import (plot_gamma_maps, plot_prototypes, plot_scatter_iterate, plot_sensitivity_bars,
                                  plot_sensitivity_images)
from svmviz.questions import scatter_next
from svmviz_app import state
from svmviz_app.cache import cached_call, cached_fit, shared_view
from svmviz_app.controls import plane_controls
from svmviz_app.frame import MethodPage, Param, View, kernel_params, run_page, standard
from svmviz_app.lesson_steps import step_view
from svmviz_app.state import bind
from svmviz_app.stepper import shown_figure, stepper
from svmviz_app.views import compact_figure, shared_figure
from svmviz_app.widgets import Progress, figure_downloads, guard, plain

# The page refits on every change (SMO on the implicit m×m scatter kernel); larger sets belong in
# benchmarks/bench_scatter.py.
MAX_SAMPLES = 3000

CURRENT = "current data set"
SOURCES = [CURRENT, "checkerboard", "circle"]
# what the page shows when the current data has two classes (its multi-class idea needs more)
MULTI = "circle"
SOURCE_LABELS = {"current data set": "the Data page's training part",
                 "checkerboard": "override: checkerboard (9 classes, Table 1 of Jenssen et al. 2012)",
                 "circle": "override: Gaussians on a circle (6 classes, Table 1 of Jenssen et al. 2012)"}
FORMS = {"C": "C-form (eq. 15, hinge loss)", "nu": "ν-form (eq. 6/8, scatter)"}
# each computed only while open (the binary view fits its own pair, the maps several γ)
TABS = ("Prototypes and scatter (Fig. 3)", "Binary ν-SVM (Fig. 1–2)", "Sensitivity maps (Fig. 16–24)",
        "The solver step by step")


def _per_class(classes, values) -> str:
    """"class 0: 2.57, class 1: 2.28": a number per class, named as the legend names it (a bare
    array printed as "[2.572 2.281]" says neither which class nor where it ends)."""
    return ", ".join(f"class {plain_text(minus_sign(c))}: {minus_signs(f'{v:.4g}')}"
                     for c, v in zip(classes, np.ravel(values)))


def data(values):
    src = values["src"]
    if src == CURRENT:
        train, test = state.current_split()
        if train.classes.size == 2:
            st.info(f"{plain(train.name)} has 2 classes: the Scatter SVM is then the binary ν-SVM (its own tab) and "
                    "its multi-class idea does not show, so this page shows six generated classes instead "
                    "(Gaussians on a circle); load three or more classes on the Data page to see yours.")
            src = MULTI
    if src != CURRENT:
        train, test = load_builtin(src), None
        if values["src"] != CURRENT:
            st.info(f"This page shows {SOURCE_LABELS[src][len('override: '):]} (a local override); the "
                    "other pages use the Data page's choice.")
    if train.classes.size < 2 or train.n_features < 2:
        st.info(f"The Scatter SVM pictures need at least two classes and two features; {plain(train.name)} has "
                f"{train.classes.size} class(es) and {train.n_features} feature(s). Load other data on the Data "
                "page or pick an override in the sidebar.")
        return None
    return train, test


def _smallest(y) -> int:
    return int(np.unique(y, return_counts=True)[1].min())


def mu_of(values, y) -> float:
    """μ = the page's factor × 1/(size of the smallest class): every α_i ≤ μ."""
    return float(values["mu"] / _smallest(y))


def fit(X, y, params: dict, what: str) -> ScatterSVC:
    bar = Progress(f"Fitting {what}")   # Stop or a closed tab ends the fit inside a long SMO solve
    model = cached_fit(ScatterSVC(**params), X, y, progress=bar)
    bar.done()
    if not model.converged_:
        st.warning(f"{what}: the solver stopped at its iteration cap before reaching tol = {model.tol:g} "
                   f"({model.n_iter_} iterations): the model is not optimal. Lower C, loosen tol or "
                   "normalize the features on the Data page.")
    return model


# ---------------------------------------------------------------- tab 1: prototypes and scatter
def prototypes(ctx) -> None:
    model, train = ctx.model, ctx.train
    with guard("cannot draw the prototypes"):
        plane = plane_controls(train.X, train.feature_names, "scatter")
        fig = shared_figure(plot_prototypes, model, train.X, train.y, list(train.class_names),
                            list(train.feature_names), plane=plane)
        ctx.figure(fig, "scatter_fig_proto", f"scatter_svm_{train.name}", dl_key="scatter_dl_proto")
        coincide = model.coinciding_prototypes()
        if coincide:
            D = model.prototype_distances()
            pairs = "; ".join(f"{plain(train.class_names[a])} & {plain(train.class_names[b])} "
                              f"(feature-space distance {D[a, b]:.3g})" for a, b in coincide)
            st.info(f"The prototypes' input-space pictures coincide ({pairs}): drawn as squares they would sit "
                    "on top of each other, so they are left out. With this kernel each prototype lives in "
                    "feature space; its picture is the α-weighted centre of its class's support vectors, and "
                    "here the support vectors of both classes surround the same region.")
        if not ctx.lesson:
            cols = st.columns(5)
            cols[0].metric("Training accuracy", f"{100 * np.mean(model.predict(train.X) == train.y):.1f} %")
            cols[1].metric("Scatter Σ‖m_c − m̄‖²", f"{model.scatter_:.4g}")
            cols[2].metric("Support vectors", f"{model.support_.size} / {train.n_samples}")
            cols[3].metric("Dual objective", f"{model.objective_:.5g}")
            cols[4].metric("Converged", "yes" if model.converged_ else "no",
                           help=f"{model.n_iter_} SMO iterations, {model.n_solves_} QP solve(s), "
                                f"{model.fit_time_:.2f} s")
        exact = model.kernel_params_["name"] == "linear" and model.formulation == "nu" and model.bias
        squares = ("exactly the prototypes m_c" if exact
                   else "the α-weighted centres of each class's support vectors (a prototype of a "
                        "non-linear kernel, or with class sums ≠ 1, does not sit among the samples)")
        st.caption(f"Squares: {squares}. Diamond: their mean; arrows: m̄ → m_c, the scatter the dual "
                   "minimises. Circles: support vectors, size ∝ α_i. Background: argmax_c f_c(x) (eq. 18). "
                   f"Class sums Σ_(i∈c) α_i: {_per_class(model.classes_, model.class_sums_)}"
                   + (f"; intercepts b_c: {_per_class(model.classes_, model.intercept_)}" if model.bias else ""))
        if not ctx.lesson:
            ctx.model_download(f"scatter_svm_{train.name}")


# ---------------------------------------------------------------- tab 2: the binary ν-SVM view
BIN_SOURCES = ["generated", "page"]


def binary(ctx) -> None:
    train, solver = ctx.train, ctx.params["solver"]
    st.markdown("With two classes, class sums 1 and 0 ≤ α_i ≤ μ the Scatter SVM is the binary ν-SVM "
                "(eq. 3–5): the prototypes are points of the reduced convex hulls of the classes, found "
                "on the border between them, and ‖m₊ − m₋‖² = 2 · scatter. Linear kernel, as in Fig. 1–2.")
    bsrc = st.radio("Two classes from", BIN_SOURCES, horizontal=True,
                    **bind("scatter.bin_src", "generated", options=BIN_SOURCES),
                    format_func=lambda s: {"generated": "two Gaussian classes (generated, as Fig. 1–2)",
                                           "page": f"the page's data set ({train.name})"}[s])
    bds = gaussians_on_circle(2, 40, spacing=1.2, std=0.55, seed=2) if bsrc == "generated" else train
    classes = list(bds.classes)
    names = dict(zip(classes, bds.class_names))
    if len(classes) > 2:
        c1, c2 = st.columns(2)
        a = c1.selectbox("first class", classes, format_func=lambda c: names[c],
                         **bind("scatter.bin_a", classes[0], options=classes))
        b = c2.selectbox("second class", classes, format_func=lambda c: names[c],
                         **bind("scatter.bin_b", classes[1], options=classes))
    else:
        a, b = classes
    with guard("cannot fit the binary ν-SVM"):
        if a == b:
            raise ParameterError("choose two different classes")
        m2 = np.isin(bds.y, [a, b])
        X2, y2 = bds.X[m2], bds.y[m2]
        m_min = int(min(np.sum(y2 == a), np.sum(y2 == b)))
        grid_mu = [float(v) for v in np.unique(np.round(np.geomspace(1.0 / m_min, 1.0, 30), 6))]
        mu0 = grid_mu[min(len(grid_mu) - 1, int(np.searchsorted(grid_mu, 2.0 / m_min)))]
        mu = st.select_slider("μ (upper bound of every α_i)", options=grid_mu, format_func=lambda v: f"{v:.4g}",
                              **bind("scatter.bin_mu", mu0, options=grid_mu))
        st.caption(f"μ = 1/m_smallest = {1 / m_min:.4g} puts each prototype at its class mean; μ ≥ 1 "
                   f"allows the whole convex hull. Equivalent NuSVC parameter ν = 2/(μ·m) = "
                   f"{min(1.0, 2 / (mu * y2.size)):.4g}.")
        bin_model = fit(X2, y2, dict(formulation="nu", bias=True, kernel="linear", mu=float(mu), solver=solver),
                        "binary ν-SVM")
        # ‖m₊ − m₋‖ = 2‖w‖ against the spread of the data: the solver's tolerance leaves w tiny,
        # not exactly 0, when the reduced hulls overlap
        if 2 * np.linalg.norm(bin_model.coef_[1]) < 1e-2 * float(np.mean(X2.std(axis=0))):
            st.warning("w ≈ 0: at this μ the reduced convex hulls of the two classes overlap, so both "
                       "prototypes are the same point and no hyperplane is defined. Decrease μ.")
        bname = [names[a], names[b]] if a < b else [names[b], names[a]]
        fig2 = shared_figure(plot_prototypes, bin_model, X2, y2, bname, list(bds.feature_names), boundary=True,
                             title=f"Binary ν-SVM as Scatter SVM (μ = {mu:.4g})",
                             subtitle=f"‖m₊ − m₋‖² = {2 * bin_model.scatter_:.4g} = 2 · scatter")
        ctx.figure(fig2, "scatter_fig_binary", f"scatter_binary_nu_{bds.name}", dl_key="scatter_dl_binary")


# ---------------------------------------------------------------- tab 3: sensitivity maps
SENS = ["5d", "digits", "tab1"]


def sensitivity(ctx) -> None:
    model, train, p = ctx.model, ctx.train, ctx.params
    st.markdown("Sensitivity of each class score f_c and, in black, the mean over the classes: "
                "s_j = (1/N) Σ_n (∂f(x_n)/∂x_j)² over the training samples (eq. 20–21), analytic "
                "derivatives of the kernel. How strongly the discriminative features stand out depends on "
                "the RBF γ, so for the two sets below γ is chosen on a held-out validation part (30 %): the "
                "highest validation accuracy, ties to the smallest γ.")
    which = st.radio("Data", SENS, **bind("scatter.sens", "5d", options=SENS),
                     format_func=lambda s: {"5d": "5-D generated set (only x1, x2 discriminate)",
                                            "digits": "digits 0, 1, 8 (8×8 images, in place of USPS)",
                                            "tab1": "the data and model of the first tab"}[s])
    sens_params = dict(formulation=p["formulation"], bias=bool(p["bias"]), C=float(p["C"]), solver=p["solver"])
    with guard("cannot compute the sensitivity map"):
        if which in ("5d", "digits"):
            if which == "5d":
                sd, sd_test = sensitivity_5d(seed=0), sensitivity_5d(seed=1)
                Xs, ys, feats, cnames = sd.X, sd.y, sd.feature_names, sd.class_names
            else:
                dg = load_builtin("digits")
                keep = np.isin(dg.y, [0, 1, 8])
                Xs, ys, feats, cnames = dg.X[keep] / 16.0, dg.y[keep], dg.feature_names, ["0", "1", "8"]
            mu_s = mu_of(ctx.values, ys)
            gbar = Progress("choosing γ on validation data: candidates fitted")
            choice = cached_call(choose_gamma, Xs, ys, None, 0.3, 0, mu=mu_s, progress=gbar, **sens_params)
            gbar.done()
            sm = fit(Xs, ys, dict(kernel="rbf", gamma=choice.gamma, mu=mu_s, **sens_params),
                     f"Scatter SVM (RBF, γ = {choice.gamma:.3g})")
            accs = ", ".join(f"γ = {g:.3g}: {100 * a:.0f} %" for g, a in zip(choice.gammas, choice.accuracy))
            st.caption(f"γ = {choice.gamma:.3g} chosen on {choice.n_validation} validation samples ({accs}); the "
                       f"model below is refitted on all {ys.size} samples with it."
                       + (" The chosen γ is the smallest candidate: smaller ones may do as well."
                          if choice.best == 0 else ""))
            S = sm.sensitivity_map()
            if which == "5d":
                st.caption(f"Accuracy on a fresh test set of the same kind: "
                           f"{100 * np.mean(sm.predict(sd_test.X) == sd_test.y):.1f} %. Expect tall bars on "
                           "x1 and x2 only.")
            else:
                st.caption(f"{ys.size} images, training accuracy {100 * np.mean(sm.predict(Xs) == ys):.1f} %. "
                           "Dark pixels change the scores most (each map has its own colour bar); the border "
                           "pixels are blank as in the paper's Fig. 21.")
                figi = plot_sensitivity_images(S, (8, 8), cnames,
                                               title="Sensitivity maps of digits 0, 1, 8 (the paper's Fig. 21–24)")
                ctx.figure(figi, "scatter_fig_sens_img", "scatter_sensitivity_digits", dl_key="scatter_dl_sens_img")
            figs = plot_sensitivity_bars(S, feats, cnames, title=(
                "Sensitivity on the 5-D set (the paper's Fig. 17–20)" if which == "5d" else "The digit maps as bars"))
            ctx.figure(figs, "scatter_fig_sens", f"scatter_sensitivity_{which}", dl_key="scatter_dl_sens")
            if not ctx.lesson and which == "5d":
                figg = plot_gamma_maps(choice, feats)
                ctx.figure(figg, "scatter_fig_gamma", "scatter_sensitivity_per_gamma", dl_key="scatter_dl_gamma")
                st.caption("The contrast between the discriminative features and the noise shrinks as γ "
                           "grows: the same data, the mean map of each candidate γ's model.")
        else:
            figs = own_sensitivity_figure(model, train.X, list(train.feature_names), list(train.class_names),
                                          train.name)
            ctx.figure(figs, "scatter_fig_sens", f"scatter_sensitivity_{train.name}", dl_key="scatter_dl_sens")


def _sensitivity(model, X):
    return model.sensitivity_map(X)


def own_sensitivity_figure(model, X, feature_names, class_names, name):
    """The sensitivity map of the page's own model on its training data (eq. 20–21)."""
    return plot_sensitivity_bars(shared_view(_sensitivity, model, X), feature_names, class_names,
                                 title=f"Sensitivity on {user_text(name)} (the first tab's γ)")


# ---------------------------------------------------------------- tab 4: the solver step by step
def _step(model, X, y, class_names, feature_names, name, plane, k: int) -> dict:
    """Step k of the recorded solve (``scatter_run``) and, after its last snapshot, the sensitivity
    map: words and picture, built once for every session at that step."""
    run = shared_view(scatter_run, model, X, y)
    S = shared_view(_sensitivity, model, X)
    summary, explanation = step_texts(model, run, class_names, S, feature_names)[k]
    fig = (plot_scatter_iterate(model, run, k, X, y, class_names, feature_names, plane) if k < len(run)
           else own_sensitivity_figure(model, X, feature_names, class_names, name))
    return {"summary": summary, "explanation": explanation, "fig": compact_figure(fig)}


def solver_steps(ctx) -> None:
    """Jenssen et al. (2012) unfolded: the prototypes moving as the SMO solve of the dual proceeds
    (recorded from the solver), then the sensitivity map of the result."""
    model, train = ctx.model, ctx.train
    with guard("cannot record the solve"):
        plane = plane_controls(train.X, train.feature_names, "scatter")
        names, feats = list(train.class_names), list(train.feature_names)
        run = shared_view(scatter_run, model, train.X, train.y)
        S = shared_view(_sensitivity, model, train.X)
        n = len(run) + 1

        def view(k: int) -> None:
            with guard("cannot draw this step"):
                got = shared_view(_step, model, train.X, train.y, names, feats, train.name, plane, k)
                step_view("scatter.step", k, n, got["summary"], got["explanation"], got["fig"],
                          lambda: scatter_next(run, k, names, S, feats), "scatter_step")

        with ctx.projected():   # lesson mode: the stepper and its picture at the top of the page
            stepper("scatter.step", n, view)
        if not ctx.lesson:
            st.caption(f"The solve recorded with the fit's settings: {run.n_iter} SMO iterations, shown at "
                       f"{len(run)} of them (closer together at the start, where the prototypes move most). Lines: "
                       "the path of each prototype's picture (the α-weighted centre of its class). The last step "
                       "is the sensitivity map of the model (eq. 20–21).")
            figure_downloads(shown_figure("scatter.step"), f"scatter_step_{train.name}", key="scatter_step_dl")


def standard_if_own_data(ctx) -> None:
    # the current data's two classes are replaced by generated ones (``data``): no test part of theirs
    if ctx.values["src"] == CURRENT and state.current_split()[0].classes.size != 2:
        standard(ctx)


PAGE = MethodPage(
    key="scatter", title="Scatter SVM", name="Scatter SVM",
    citation="Jenssen, Kloft, Zien, Sonnenburg and Müller, *A scatter-based prototype framework and "
             "multi-class extension of support vector machines* (2012): the dual minimises the "
             "scatter Σ_c ‖m_c − m̄‖² of class prototypes m_c = Σ_{i∈c} α_i φ(x_i) around their mean m̄ "
             "(eq. 6–8); the hinge-loss primal gives w_c = m_c − m̄ and the score f_c(x) = ⟨w_c, φ(x)⟩ + b_c "
             "(eq. 13–18); sensitivity maps (eq. 20–21).",
    estimator=ScatterSVC, sidebar_title="Scatter SVM", max_samples=MAX_SAMPLES,
    params=(
        Param(None, "Data for this page", CURRENT, "select", key="src", options=SOURCES,
              labels=SOURCE_LABELS),
        Param("formulation", "Formulation", "C", "radio", key="form", labels=FORMS),
        Param("bias", "bias b_c (equal class sums in the dual)", False, "checkbox"),
        *kernel_params(),
        Param(None, "μ × (size of the smallest class)", 2.0, "slider", key="mu", bounds=(1.0, 10.0), step=0.25,
              disabled=lambda v: v["form"] != "nu",
              help="μ bounds every α_i; with bias each class's α sum to 1, so μ ≥ 1/m_smallest.",
              of_model=lambda mp, inputs: None if mp["mu"] is None else round(mp["mu"] * _smallest(inputs.y), 9)),
        Param("solver", "Solver", "smo", "select",
              help="smo: the fast Numba SMO; cvxpy: the reference solver (small data only)"),
    ),
    data=data, derive=lambda v, inputs: {"mu": mu_of(v, inputs.y) if v["form"] == "nu" else None},   # C: unused
    progress=lambda train: f"Fitting Scatter SVM on {train.name}", fit_error="cannot fit the Scatter SVM",
    converged=lambda m: f"the Scatter SVM's SMO ({m.n_iter_} iterations)",
    views=(View(prototypes, tab=TABS[0]), View(binary, tab=TABS[1]), View(sensitivity, tab=TABS[2]),
           View(solver_steps, lesson=True, tab=TABS[3]), View(standard_if_own_data)),
)

run_page(PAGE)

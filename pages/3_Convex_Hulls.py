"""Convex hulls, reduced convex hulls, the ν-SVM as nearest points, and the zero solution
(Zapién Arreola, Fehr and Burkhardt 2007, §3.1)."""

from contextlib import nullcontext

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from svmviz.data import BUILTINS, Dataset, load_builtin, signed
from svmviz.data.dataset import counted
from svmviz.geometry import (mu_to_nu, nearest_point_to, nearest_points, nu_to_mu, reduced_convex_hull, reduced_hulls_intersect,
                             w_norm_sweep, zero_solution_report)
from svmviz.geometry.mu_walk import explain_step, mu_walk, step_summary, walk_step
from svmviz.geometry.zero_solution import c_svm_w
from svmviz.models import BinaryNuSVC
from svmviz.plots.common import class_text
from svmviz.plots.hulls import plot_mu_step, plot_w_norm, plot_zero_solution
from svmviz.plots.standard import add_boundary
from svmviz.questions import hull_walk_zero
from svmviz_app import live, state
from svmviz_app.cache import cached_call, shared_view
from svmviz_app.controls import two_classes_two_features
from svmviz_app.frame import Inputs, MethodPage, Param, View, projected, run_page, standard
from svmviz_app.projector import projector_chart
from svmviz_app.state import bind
from svmviz_app.stepper import shown_figure, stepper
from svmviz_app.views import convergence_status, shared_figure
from svmviz_app.widgets import Progress, figure_downloads, guard, plain

MAX_SAMPLES = 3000  # exact reduced hulls, LPs and a sweep of C-SVM solves stay interactive below this
BINARY_SETS = ["fourclass", "hypercubes", "mexican_hat", "elephant_in_snake", "fourclass_like"]
NODE = state.hull_node()   # samples the SVM Tree page sent here
SOURCES = (["current data set"] + (["tree node"] if NODE is not None else [])
           + [n for n in BINARY_SETS if n in BUILTINS])
SOURCE_LABELS = {n: f"override: {BUILTINS[n].title}" for n in SOURCES if n in BUILTINS}
SOURCE_LABELS["current data set"] = "the Data page's training part"
if NODE is not None:
    SOURCE_LABELS["tree node"] = f"SVM tree: {NODE.description}"


def shown(name) -> str:
    """A class name as Markdown text, a number written with the minus sign as on the figures
    ("−1", never "-1" beside "−1")."""
    try:
        float(str(name))
    except ValueError:
        return plain(name)
    return plain(str(name).replace("-", "−"))


def as_side(name, side: int) -> str:
    """The option of the class ``name`` as the ``side`` (±1) of the problem: "−1" for the class
    −1 itself, else the name and its side, "setosa (+1)"."""
    try:
        same = float(str(name)) == side
    except ValueError:
        same = False
    return signed(side) if same else f"{shown(name)} ({signed(side)})"


def two_classes(d: Dataset | None, pick, f1, f2, check: bool = True) -> Dataset | None:
    """The samples of the two picked classes on the two picked features, labelled −1 and +1."""
    if d is None or not np.isin(d.y, pick).any():
        return None
    keep = np.isin(d.y, pick)
    return Dataset(np.asarray(d.X[keep][:, [f1, f2]], dtype=np.float64), np.where(d.y[keep] == pick[1], 1, -1),
                   [d.feature_names[f1], d.feature_names[f2]], [str(pick[0]), str(pick[1])], d.name, d.source,
                   check_classes=check)


def data(values):
    src, name = values["src"], state.current_dataset().name
    if src == "tree node":
        st.info(f"This page shows the samples still in play at {plain(NODE.description)} (sent from the "
                "SVM tree page); the other pages use the Data page's choice.")
        train, test = Dataset(NODE.X, NODE.y, NODE.feature_names, NODE.class_names, name, "", check_classes=False), None
    elif src == "current data set":
        train, test = state.current_split()
    else:
        st.info(f"This page shows {plain(BUILTINS[src].title)} (a local override); the other pages use the "
                "Data page's choice.")
        train, test = cached_call(load_builtin, src), None
    classes = list(np.unique(train.y))
    pick, f1, f2 = two_classes_two_features(classes, train.feature_names, "hull")
    if len(pick) != 2 or train.n_features < 2 or f1 == f2:
        st.info("This page needs two classes and two different features (the data has "
                f"{len(classes)} class(es) and {train.n_features} feature(s)): pick them in the sidebar or load "
                "other data on the Data page.")
        return None
    return two_classes(train, pick, f1, f2, check=False), two_classes(test, pick, f1, f2, check=False)


def nu_top(inputs) -> float:
    """ν_max = 2·min(m₊, m₋)/m (beyond it the ν-SVM is infeasible), rounded down to the slider's step."""
    m_small = min(int((inputs.y > 0).sum()), int((inputs.y < 0).sum()))
    return float(np.floor(2 * m_small / len(inputs.y) * 200) / 200)


def nu_default(inputs) -> float:
    """0.9·ν_max on the slider's grid, avoiding an integer 1/μ = νm/2 (the offset is not unique there;
    when νm/2 is an integer for every ν on the grid, m a multiple of 400, the first one)."""
    m = len(inputs.y)
    grid = np.round(np.arange(max(round(0.9 * nu_top(inputs) * 200), 1) / 200, 0, -0.005), 3)
    return float(next((v for v in grid if abs(v * m / 2 - round(v * m / 2)) > 1e-6), grid[0]))


def prepare(train, test, values) -> Inputs | None:
    m_pos, m_neg = int((train.y > 0).sum()), int((train.y < 0).sum())
    st.markdown(f"**{plain(train.name)}** — class **{shown(train.class_names[1])}** is +1 ({m_pos} points), class "
                f"**{shown(train.class_names[0])}** is −1 ({m_neg} points); axes {plain(train.feature_names[0])}, "
                f"{plain(train.feature_names[1])}.")
    if nu_top(Inputs(train.X, train.y)) < 0.01:
        st.info(f"The smaller class has too few points ({min(m_pos, m_neg)} of {train.n_samples}) for a ν-SVM on "
                "this grid.")
        return None
    return Inputs(train.X, train.y)


# ------------------------------------------------------------------ reduced hulls and the ν-SVM
def _overlap(X, y, mu):
    return reduced_hulls_intersect(X[y == 1], X[y == -1], mu).intersect


def _nusvc(X, y, nu):
    from sklearn.svm import NuSVC   # scikit-learn's own, as a check of the nearest-point construction

    clf = NuSVC(kernel="linear", nu=nu, tol=1e-6).fit(X, y)
    return clf.coef_[0].copy(), float(clf.intercept_[0])


# ------------------------------------------------------------------ μ walked down from 1 (the stepper)
def _walk(X, y, mu):
    return mu_walk(X[y == 1], X[y == -1], mu)


def _walk_step(X, y, mu, k):
    return walk_step(cached_call(_walk, X, y, mu), X[y == 1], X[y == -1], k)


def _step_figure(X, y, mu, k, names, labels, nusvc):
    walk = cached_call(_walk, X, y, mu)
    return plot_mu_step(walk, cached_call(_walk_step, X, y, mu, k, heavy=False), X, y, k, names, labels,
                        nusvc=nusvc if k == len(walk) - 1 else None)


def _step_text(X, y, mu, k) -> tuple[str, str]:
    """Step k's sentence and explanation (paragraphs) as plain text for the screen, once for every session."""
    walk, step = cached_call(_walk, X, y, mu), cached_call(_walk_step, X, y, mu, k, heavy=False)
    return plain(step_summary(walk, step, k)), "\n\n".join(map(plain, explain_step(walk, step, k).split("\n\n")))


def walk_stepper(X, y, nu, names, labels, lesson: bool, imported=None) -> None:
    """μ from 1 down to the page's μ, one step per μ (Zapién Arreola, Fehr and Burkhardt 2007,
    §3.1), in the stepper's fragment; in lesson mode at the top of the page."""
    mu = nu_to_mu(nu, len(y))
    walk = cached_call(_walk, X, y, mu)
    n = len(walk)
    overlap = walk.zero_at(n - 1)
    nusvc = None if overlap else cached_call(_nusvc, X, y, nu)

    def step(k: int) -> None:
        with guard("cannot compute this step"):
            summary, paragraphs = shared_view(_step_text, X, y, mu, k)
            st.markdown(f"**Step {k + 1} of {n}** — {summary}")
            live.question_panel(lambda: hull_walk_zero(walk, k), "hull.step", n)
            fig = shared_figure(_step_figure, X, y, mu, k, names, labels, nusvc)
            if imported is not None:   # drawn on a copy: the figure is shared by every session
                fig = go.Figure(fig)
                with guard("cannot draw the imported model"):
                    add_boundary(fig, imported, X, f"imported ν-SVM (ν = {imported.nu:g})")
            if lesson:
                projector_chart(fig, key="hull_step_fig")
            else:
                st.plotly_chart(fig, key="hull_step_fig")
            shown_figure("hull.step").show(fig, f"Step {k + 1} of {n} — {summary}")
            with st.expander("Explanation of this step") if lesson else nullcontext():
                st.info(paragraphs)

    with projected() if lesson else nullcontext():
        stepper("hull.step", n, step, "μ step")
    if not lesson:
        figure_downloads(shown_figure("hull.step"), f"reduced_hulls_nu_{nu:.3f}_step", key="hull_dl",
                         what="hull plot")


def overlapping(exc, train, inputs) -> bool:
    """The ν-SVM refused the page's ν because its reduced hulls meet (one LP says so): the walk
    down to that μ, which ends with w = 0, instead of a hyperplane."""
    X, y, nu = inputs.X, inputs.y, float(state.value("hull.nu"))
    walk = cached_call(_walk, X, y, nu_to_mu(nu, len(y)))
    if not walk.zero_at(len(walk) - 1):
        return False
    st.warning(f"At ν = {nu:.3f} the two reduced hulls overlap: w = 0 and the ν-SVM has no hyperplane. Step "
               "through μ below to see them shrink; they separate below μ* = "
               f"{walk.mu_star:.4g} (ν above {mu_to_nu(walk.mu_star, len(y)):.4g}): increase ν to get there.")
    walk_stepper(X, y, nu, list(train.class_names), tuple(train.feature_names), state.lesson_mode())
    return True


def hulls(ctx) -> None:
    X, y, nu = ctx.inputs.X, ctx.inputs.y, ctx.params["nu"]
    names, labels = list(ctx.train.class_names), tuple(ctx.train.feature_names)
    mu = nu_to_mu(nu, len(y))
    with guard("hull geometry"):
        walk = cached_call(_walk, X, y, mu)
        if not ctx.lesson:
            st.markdown("**μ walked down from 1** (the convex hulls) to the page's μ: the reduced hulls shrink "
                        "towards their centroids; while they share a point the nearest points coincide and w = 0 "
                        + (f"(down to the threshold μ\\* = {walk.mu_star:.4g}, one LP)" if np.isfinite(walk.mu_star)
                           else "(never here: even the convex hulls are disjoint)") + ".")
        walk_stepper(X, y, nu, names, labels, ctx.lesson, ctx.imported)
        if ctx.lesson:
            return
        n_weighted = int(np.ceil(1 / mu - 1e-12))
        st.markdown(f"μ = 2/(ν·m) = 2/({nu:.3f}·{len(y)}) = **{mu:.4g}** — each weight λᵢ ≤ μ, so at least "
                    f"⌈1/μ⌉ = {counted(n_weighted, 'point')} of each class {'carries' if n_weighted == 1 else 'carry'} "
                    "weight.")
        if ctx.imported is not None:
            st.caption(f"Purple dash-dot: the imported {type(ctx.imported).__name__} (ν = {ctx.imported.nu:g}, "
                       f"{len(getattr(ctx.imported, 'support_', []))} support vectors), drawn on the two features "
                       "shown; at the slider's ν = its ν it lies on the red line when fitted on these points.")
            convergence_status(ctx.imported, "the imported ν-SVM's QP")
        if walk.zero_at(len(walk) - 1):
            st.warning("The two reduced hulls overlap at this ν (an LP finds a common point): the nearest "
                       "points coincide, w = 0 and the ν-SVM has no hyperplane. Increase ν (a smaller μ "
                       "shrinks the hulls).")
            return
        npnt = cached_call(nearest_points, X[y == 1], X[y == -1], mu, solver="smo", tol=1e-8)
        w_sk, b_sk = cached_call(_nusvc, X, y, nu)
        c1, c2, c3 = st.columns(3)
        cos = float(w_sk @ npnt.w / (np.linalg.norm(w_sk) * np.linalg.norm(npnt.w)))
        scale = np.linalg.norm(npnt.w) / np.linalg.norm(w_sk)
        c1.metric("distance of the reduced hulls", f"{npnt.distance:.4g}")
        c2.metric("cosine(w nearest points, w NuSVC)", f"{cos:.8f}")
        c3.metric("offset difference |b − b_NuSVC| (same scale)", f"{abs(npnt.b_nu - b_sk * scale):.2e}")
        if abs(1 / mu - round(1 / mu)) < 1e-9:
            st.info("1/μ is an integer: no weight is strictly between 0 and μ, so the offset b is not "
                    "unique (any value in an interval is optimal); NuSVC and this construction may pick "
                    "different points of it. The direction is unique.")
        st.caption("The last step: red, the ν-SVM hyperplane from the nearest points w = p₊ − p₋, placed midway "
                   "between the margin levels of the free points; black dashed: scikit-learn's NuSVC at the same ν.")


# ------------------------------------------------------------------ the zero solution
def _report(X, y, D_other):
    return zero_solution_report(X, y, D_other, D_other)


def zero(ctx) -> None:
    X, y = ctx.inputs.X, ctx.inputs.y
    names, labels = list(ctx.train.class_names), tuple(ctx.train.feature_names)
    st.caption("Hard class k with bound D_k on its α, the other class k̄ with D_k̄: w = 0 is optimal exactly "
               "when the centroid s_k̄ lies in RCH(X_k, μ) with μ = D_k/(D_k̄·m_k̄) (Corollary 1, generalised). "
               "The switch D_k* comes from one LP; the curve below comes from real C-SVM solves.")
    cz1, cz2 = st.columns([1, 2])
    with cz1:
        hard = st.radio("hard class", [1, -1], format_func=lambda c: as_side(names[(c + 1) // 2], c),
                        **bind("zero.hard", 1, options=[1, -1]), horizontal=True)
        D_other = st.number_input("D_k̄ (bound of the other class)", min_value=1e-3, format="%.3g",
                                  **bind("zero.D_other", 1.0, bounds=(1e-3, 1e9)))
    with guard("zero-solution report"):
        case = cached_call(_report, X, y, D_other).case(hard)
        m_other = int((y != hard).sum())
        Dstar = case.min_mu * D_other * m_other
        finite = np.isfinite(Dstar)
        grid = np.geomspace((Dstar if finite else D_other * m_other / 10) / 20,
                            (Dstar if finite else D_other * m_other / 10) * 5, 41)
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
            w = cached_call(c_svm_w, X, y, float(D_k if hard == 1 else D_other),
                            float(D_other if hard == 1 else D_k), "smo", 1e-8)
            st.metric("solver's ‖w‖", f"{float(np.linalg.norm(w)):.3g}")
            st.metric("prediction", "w = 0" if finite and D_k >= Dstar * (1 - 1e-9) else "w ≠ 0")
            st.caption(f"μ = D_k/(D_k̄·m_k̄) = {mu_z:.4g}")
        Xh = X[y == hard]
        h1 = cached_call(nearest_point_to, case.centroid_other, Xh, 1.0, solver="smo")
        with cz2:
            figz = shared_figure(plot_zero_solution, X, y, int(hard), cached_call(reduced_convex_hull, Xh, float(mu_z)),
                                 case.centroid_other, w=w, h1_point=h1.point, names=names, labels=labels,
                                 title=f"Hard class {class_text(names[(hard + 1) // 2])}: RCH for μ = {mu_z:.4g}")
            ctx.figure(figz, "zero_fig", f"zero_solution_{names[(hard + 1) // 2]}", dl_key="zero_dl",
                       what="zero-solution plot")
            if h1.distance < 1e-7:
                st.caption("H1-SVM view: the centroid lies inside conv(hard class), so p\\* = s and the "
                           "H1-SVM also returns w = 0.")
            else:
                st.caption(f"H1-SVM view (green): p\\* is the point of conv(hard class) nearest to the centroid; "
                           f"the H1-SVM's w ∝ p\\* − s, distance {h1.distance:.4g}.")
        bar = Progress("solving the C-SVM for each D_k")
        sweep = cached_call(w_norm_sweep, X, y, int(hard), float(D_other), grid[::2], "smo", 1e-8, progress=bar)
        bar.done()
        ctx.figure(shared_figure(plot_w_norm, sweep, D_k), "zero_wfig", "w_norm_vs_Dk", dl_key="zerow_dl",
                   what="‖w‖ curve")


# ------------------------------------------------------------------ the ν-SVM's standard views
def decision(ctx) -> None:
    if ctx.values["src"] != "current data set":
        st.info("The decision function, confusion matrix and ROC are shown for the Data page's training part "
                "(with its test part); this page shows an override.")
    elif cached_call(_overlap, ctx.inputs.X, ctx.inputs.y, nu_to_mu(ctx.params["nu"], len(ctx.inputs.y))):
        st.info("At this ν the reduced hulls overlap: the ν-SVM has no hyperplane to evaluate. Increase ν.")
    else:
        standard(ctx)


PAGE = MethodPage(
    key="hull", title="Convex hulls, reduced hulls and the zero solution", name="Convex Hulls",
    citation="Zapién Arreola, Fehr and Burkhardt (2007), §3.1: the SVM dual is the nearest-point problem of two "
             "(reduced) convex hulls. RCH(X, μ) = {Σλᵢxᵢ : Σλᵢ = 1, 0 ≤ λᵢ ≤ μ}: the centroid at μ = 1/m, the "
             "hull for μ ≥ 1.",
    estimator=BinaryNuSVC, max_samples=MAX_SAMPLES, fixed={"kernel": "linear"},
    params=(
        Param(None, "Data for this page (override)", "current data set", "select", key="src", options=SOURCES,
              labels=SOURCE_LABELS),
        Param("nu", "ν (the ν-SVM parameter); μ = 2/(ν·m)", nu_default, "slider",
              within=lambda inputs: (0.005, nu_top(inputs)), step=0.005, format="%.3f"),
    ),
    data=data, prepare=prepare, share_key="convex_hulls", on_fit_error=overlapping,
    use_import=lambda model, inputs: None,   # an imported ν-SVM is drawn over the page's own
    progress="fitting the ν-SVM", fit_error="cannot fit the ν-SVM",
    converged=lambda m: f"the ν-SVM's QP (BinaryNuSVC, ν = {m.nu:.3f}, SMO)",
    views=(View(hulls, lesson=True, tab="1. Reduced convex hulls and the ν-SVM"),
           View(zero, lesson=True, tab="2. The zero solution of the C-SVM"),
           View(decision, tab="3. Decision function, confusion matrix and ROC")),
)

run_page(PAGE)

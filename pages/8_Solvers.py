"""Solvers: the SMO solver step by step — the boundary, the working pair, α and
the violation/objective curves at iteration t of a recorded run, for the C-SVM and the ν-SVM
(reduced hulls) — and one C-SVM dual solved by the Numba SMO, the cvxpy reference and LIBSVM
(scikit-learn's SVC) side by side."""

from __future__ import annotations

import math
import time

import numpy as np
import streamlit as st
from sklearn.svm import SVC

from svmviz.errors import ParameterError
from svmviz.models.svc import BinaryNuSVC, BinarySVC, libsvm_dual_objective
from svmviz.plots import solvers as P
from svmviz.plots.common import shown_number
from svmviz.questions import smo_next_pair
from svmviz.solvers.cvxpy_backend import DEFAULT_MAX_N
from svmviz_app import live, state
from svmviz_app.cache import cached_call, cached_fit, shared_view
from svmviz_app.controls import plane_controls
from svmviz_app.frame import MethodPage, Param, View, kernel_params, run_page
from svmviz_app.projector import lesson_chart, projector_chart
from svmviz_app.state import bind
from svmviz_app.stepper import shown_figure, stepper
from svmviz_app.views import compact_figure, standard_views
from svmviz_app.widgets import figure_downloads, guard, model_download, plain

MAX_STEP_SAMPLES = 300     # the stepper refits with a recorded trace and draws every α
MAX_TRACE = 20_000         # recorded iterations (the solve itself always runs to convergence)
FORMS = {"C": ("C-SVM", BinarySVC), "nu": ("ν-SVM (reduced hulls)", BinaryNuSVC)}   # URL id: (label, class)
TOLS = [1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6]


def data(values):
    """The training and test parts of the two classes the solvers work on."""
    train, test = state.current_split()
    names = list(train.class_names)
    if train.classes.size > 2:
        with st.sidebar:
            st.header("Two classes")
            a = st.selectbox("Class A", names, **bind("solvers.class_a", names[0], options=names))
            b = st.selectbox("Class B", names, **bind("solvers.class_b", names[1], options=names))
        if a == b:
            raise ParameterError("pick two different classes")
        train = train.subset(np.flatnonzero(np.isin(train.y, train.classes[[names.index(a), names.index(b)]])),
                             check_classes=False)
        if test is not None:
            test = test.subset(np.flatnonzero(np.isin(test.y, np.unique(train.y))), check_classes=False)
        pair = [a, b] if names.index(a) < names.index(b) else [b, a]
        st.info(f"{plain(train.name)} has more than two classes; the solvers work on the binary problem "
                f"{plain(pair[0])} vs {plain(pair[1])} ({train.n_samples} training samples).")
    if train.n_features < 2:
        raise ParameterError("the Solvers page draws 2-D boundaries: the data need at least two features")
    return train, test


def nu_top(inputs) -> float:
    """ν_max = 2·m_smallest/m rounded down to the slider's step (a link value above it is clamped)."""
    m_min = int(np.min(np.unique(inputs.y, return_counts=True)[1]))
    return max(math.floor(200 * m_min / inputs.y.size + 1e-9) / 100, 0.02)


def nu_default(inputs) -> float:
    m_min = int(np.min(np.unique(inputs.y, return_counts=True)[1]))
    return min(0.5, round(0.8 * 2 * m_min / inputs.y.size, 2), nu_top(inputs))


def _iteration(model, t: int, X, y, class_names, plane, target, C: float, form: str, tol: float) -> dict:
    """What iteration t of ``model``'s recorded run (on X, y) shows, built once for every session
    stepping it: the iterate's numbers and text and its three figures."""
    tr, it, curves = model.trace_, model.iterate_at(t), model.trace_curves()
    out = {"pair": it.pair, "violation": curves["max_violation"][t], "objective": curves["objective"][t]}
    if it.pair is not None:
        before, after, s = tr.alpha_before[t - 1], tr.alpha_after[t - 1], model.trace_scale()
        i, j = it.pair
        out["text"] = (f"**Iteration {t}**: samples **i = {i}** and **j = {j}** moved together, keeping "
                       f"the equality constraint: α_i {before[0] / s:.4g} → {after[0] / s:.4g}, "
                       f"α_j {before[1] / s:.4g} → {after[1] / s:.4g}.")
    out["step"] = compact_figure(P.plot_smo_step(it, X, y, [str(v) for v in class_names], plane, target=target))
    upper = C if form == "C" else model.mu_
    out["alpha"] = P.plot_alpha_bars(it.alpha, np.searchsorted(model.classes_, y), upper, it.pair,
                                     [str(v) for v in model.classes_])
    out["curves"] = P.plot_trace_curves(curves["iteration"], curves["max_violation"], curves["objective"], t,
                                        tol, target.objective_)
    return out


def smo_view(ctx) -> None:
    model, target, Xs, ys, plane = ctx.model, ctx.reference, ctx.inputs.X, ctx.inputs.y, ctx.values["plane"]
    form, C, tol, n = ctx.values["form"], float(ctx.values["C"]), float(ctx.params["tol"]), len(model.trace_) + 1

    def step(t: int) -> None:
        """Iteration t of the recorded run: reruns alone on a step click (a fragment)."""
        with guard("cannot rebuild iteration t"):
            view = shared_view(_iteration, model, t, Xs, ys, list(ctx.train.class_names), plane, target, C, form,
                               tol)
            if ctx.lesson:   # the projector: the step and what moved in one line, the picture under it
                st.markdown(f"**Step {t + 1} of {n}** — " + (view.get("text", "").split(": ", 1)[-1] or
                            ("the start: α = 0." if form == "C" else "the start: a feasible λ.")))
                live.question_panel(lambda: smo_next_pair(model, t), "solvers.step", n)
                projector_chart(view["step"], key="solvers_step_fig")
                left, right = st.columns(2)
                lesson_chart(view["alpha"], key="solvers_alpha_bars", where=left)
                lesson_chart(view["curves"], key="solvers_curves", where=right)
                return
            st.caption(f"Step {t + 1} of {n}: the iterate after t = {t} SMO iterations.")
            live.question_panel(lambda: smo_next_pair(model, t), "solvers.step", n)
            numbers = st.container(horizontal=True)   # one block, not four columns: drawn at every step click
            numbers.metric("iteration t", f"{t} / {n - 1}")
            if view["pair"] is None:
                numbers.metric("working pair (i, j)", "start")
                st.markdown("**t = 0**: the starting point "
                            + ("α = 0 (every sample violates its margin)." if form == "C"
                               else "a feasible λ (each class's weights sum to 1)."))
            else:
                numbers.metric("working pair (i, j)", f"({view['pair'][0]}, {view['pair'][1]})")
                st.markdown(view["text"])
            numbers.metric("max KKT violation", f"{view['violation']:.3g}")
            numbers.metric("objective", f"{view['objective']:.6g}", help=f"optimum (cvxpy): {target.objective_:.6g}")
            left, right = st.columns([3, 2])
            with left:
                st.plotly_chart(view["step"], key="solvers_step_fig")
                shown_figure("solvers.step").show(view["step"])
            with right:
                st.plotly_chart(view["alpha"], key="solvers_alpha_bars")
                st.plotly_chart(view["curves"], key="solvers_curves")

    tr = model.trace_
    if not ctx.lesson:
        st.header("1. SMO step by step")
    if not model.converged_:
        st.warning(f"SMO stopped before the tolerance: maximal KKT violation {model.max_violation_:.3g} "
                   f"after {model.n_iter_} iterations.")
    elif not ctx.lesson:   # a projector shows only a problem
        st.success(f"SMO converged after {model.n_iter_} iterations: final maximal KKT violation "
                   f"{model.max_violation_:.3g} ≤ tol = {tol:g}.")
    if tr.truncated:
        st.info(f"The run took {tr.n_iter} iterations; the stepper shows the first {len(tr)} "
                "(recording is bounded; the solve itself went on to convergence).")
    with ctx.projected():   # lesson mode: the stepper and its picture at the top of the page
        stepper("solvers.step", n, step, "SMO iteration")
    if ctx.lesson:
        return
    # the legend of the step's plot and its downloads, the same at every step: outside the
    # stepper's fragment (the buttons save the step shown when they are clicked)
    if form != "C":
        st.caption("Purple: p₊ = Σ_{+} λ_i x_i and p₋ = Σ_{−} λ_i x_i, the current points of the two "
                   "reduced hulls (in the input plane); at the optimum the segment p₊p₋ is the shortest "
                   "between the hulls and w ∝ p₊ − p₋ (exact for the linear kernel). Red: f_t = 0 and, "
                   "once LIBSVM's r > 0, the margins f_t = ±1; dotted: the cvxpy optimum.")
    else:
        st.caption("Red: f_t = 0 and the margins f_t = ±1 after t iterations; dotted: the cvxpy optimum; "
                   "orange circles: the working pair of iteration t; grey circles: α_i > 0.")
    figure_downloads(shown_figure("solvers.step"), "smo_step", key="solvers_step_dl")


# ------------------------------------------------------------------ 2. three solvers
def _libsvm(X, y, C, kernel, gamma, degree, coef0, tol):
    t0 = time.perf_counter()
    svc = SVC(C=C, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0, tol=tol).fit(X, y)
    return svc, time.perf_counter() - t0


def _comparison(X, y, C, kernel, gamma, degree, coef0, tol, names, plane) -> dict:
    """The three solvers on one C-SVM dual and their figures, built once per problem for every
    session."""
    use_cvxpy = y.size <= DEFAULT_MAX_N
    c_params = dict(C=C, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0, tol=tol)
    smo = cached_fit(BinarySVC(**c_params), X, y)
    svc, svc_time = cached_call(_libsvm, X, y, C, kernel, gamma, degree, coef0, tol)
    ref = cached_fit(BinarySVC(solver="cvxpy", **c_params), X, y) if use_cvxpy else None
    rows = {"solver": ["SMO (Numba)", "LIBSVM (sklearn SVC)"],
            "objective ½αᵀQα − Σα": [smo.objective_, libsvm_dual_objective(svc, X)],
            "support vectors": [int(smo.support_.size), int(svc.support_.size)],
            "iterations": [int(smo.n_iter_), int(svc.n_iter_[0])],
            # LIBSVM does not report it: "—", not the "None" a NaN is shown as
            "final KKT violation": [shown_number(smo.max_violation_, ".3g"), shown_number(None)],
            "time (s)": [smo.fit_time_, svc_time]}
    if ref is not None:
        rows["solver"].append("cvxpy reference (Clarabel)")
        rows["objective ½αᵀQα − Σα"].append(ref.objective_)
        rows["support vectors"].append(int(ref.support_.size))
        rows["iterations"].append(int(ref.n_iter_))
        rows["final KKT violation"].append(shown_number(ref.max_violation_, ".3g"))
        rows["time (s)"].append(ref.fit_time_)
    models = {"SMO": smo, "LIBSVM": svc}
    if ref is not None:
        models["cvxpy"] = ref
    return {"smo": smo, "ref": ref, "rows": rows,
            "boundaries": compact_figure(P.plot_boundaries(models, X, y, names, plane)),
            "convergence": P.plot_convergence(smo.history_, tol),
            "alpha": None if ref is None else P.plot_alpha_comparison(smo.alpha_, ref.alpha_, "SMO", "cvxpy",
                                                                       upper=C)}


def comparison(ctx) -> None:
    train, test, p, plane = ctx.full, ctx.test, ctx.params, ctx.values["plane"]
    st.header("2. SMO against the cvxpy reference and LIBSVM")
    with guard("cannot run the solvers"):
        out = shared_view(_comparison, train.X, train.y, float(ctx.values["C"]), p["kernel"], p.get("gamma", "scale"),
                          int(p["degree"]), float(p["coef0"]), float(p["tol"]), list(train.class_names), plane)
        smo, ref, rows = out["smo"], out["ref"], out["rows"]
        if ref is None:
            st.info(f"{train.n_samples} samples: above the cvxpy reference's limit of {DEFAULT_MAX_N} variables "
                    "(SVMVIZ_CVXPY_MAX_N), so only SMO and LIBSVM are compared.")
        if not smo.converged_:
            st.warning(f"SMO did not converge (maximal KKT violation {smo.max_violation_:.3g}).")
        st.dataframe(rows, hide_index=True)
        best = min(rows["objective ½αᵀQα − Σα"])
        st.caption("Objectives differ by at most "
                   f"{max(abs(v - best) for v in rows['objective ½αᵀQα − Σα']) / max(abs(best), 1e-12):.1e} "
                   "relative. cvxpy's support vectors are the α above 1e-8·max α (an interior-point "
                   "solution is never exactly 0); its iterations are interior-point iterations. Times are "
                   "those of the first fit (fits are cached).")
        left, right = st.columns([3, 2])
        with left:
            ctx.figure(out["boundaries"], "sol_boundaries", f"{train.name}_solver_boundaries", dl_key="sol_bnd_dl")
        with right:
            ctx.figure(out["convergence"], "sol_convergence", f"{train.name}_smo_convergence", dl_key="sol_conv_dl")
            st.caption(f"SMO stopped after {smo.n_iter_} iterations "
                       f"({'converged' if smo.converged_ else 'not converged'}; final maximal KKT "
                       f"violation {smo.max_violation_:.3g}).")
        if out["alpha"] is not None:
            ctx.figure(out["alpha"], "sol_alpha", f"{train.name}_alpha_smo_vs_cvxpy", dl_key="sol_alpha_dl")
        model_download(smo, f"{train.name}_binary_svc_smo", key="sol_model")
        standard_views(smo, train, test, key="solvers", plane=plane)


PAGE = MethodPage(
    key="solvers", title="Solvers: SMO step by step, against the cvxpy reference and LIBSVM", name="Solvers",
    citation="The C-SVM dual min ½αᵀQα − eᵀα, 0 ≤ α ≤ C, yᵀα = 0 (Zapién Arreola et al. 2007, §4.1, Problem 1) "
             "and the ν-SVM as the nearest points of two reduced convex hulls (§3.1 of the same report). SMO "
             "changes two α at a time (the working pair, chosen by the second-order rule of Fan, Chen & Lin "
             "2005) and stops when the maximal KKT violation m(α) − M(α) is below the tolerance.",
    estimator="form", sidebar_title="Problem", max_samples=MAX_STEP_SAMPLES, bound_what="The SMO stepper",
    size_note=f"The SMO stepper works on at most {MAX_STEP_SAMPLES} training samples (a stratified sample above "
              "that); the three solvers are compared on all of them.",
    params=(
        Param(None, "Problem", "C", "radio", key="form", choices=FORMS, horizontal=True),
        *kernel_params(),
        Param("tol", "Stopping tolerance (max KKT violation)", 1e-3, "select_slider", options=TOLS,
              fmt=lambda v: f"{v:g}"),
        Param("nu", "ν (μ = 2/(ν·m) bounds each λ_i)", nu_default, "slider", within=lambda i: (0.01, nu_top(i)),
              step=0.01, when=lambda v: v["form"] == "nu"),
    ),
    data=data, controls=lambda train, values: {"plane": plane_controls(train.X, train.feature_names, "solvers")},
    fixed={"trace": True, "max_trace": MAX_TRACE}, reference={"solver": "cvxpy", "trace": False}, imports=(),
    progress="recording the SMO run", fit_error="cannot record the SMO run",
    views=(View(smo_view, lesson=True, tab="SMO step by step"),
           View(comparison, tab="SMO against cvxpy and LIBSVM")),
)

run_page(PAGE)

"""SVM tree (Zapién Arreola, Fehr and Burkhardt 2007): fit once on the Data page's training part, then step through the greedy
construction node by node, each step explained in words."""

import numpy as np
import pandas as pd
import streamlit as st
from streamlit.errors import StreamlitPageNotFoundError

from svmviz.data import signed
from svmviz.models import SVMTreeClassifier
from svmviz.questions import svm_tree_winner
from svmviz.plots.common import shown_number
from svmviz.plots.svm_tree import (animation_figure, animation_html, candidates_frame, chain_figure,
                                   final_figure, step_spec, zero_solution_frame)
from svmviz_app import live, state
from svmviz_app.cache import shared_view
from svmviz_app.controls import plane_controls
from svmviz_app.projector import projector_chart
from svmviz_app.state import bind
from svmviz_app.views import shared_figure, shared_table, standard_views
from svmviz_app.stepper import shown_figure, stepper
from svmviz_app.frame import Inputs, MethodPage, Param, page_tabs, run_page
from svmviz_app.widgets import figure_downloads, guard, plain

MAX_SAMPLES = 1500  # each step solves a few dense QPs on the samples still in play: a fit within seconds

DEPARTURES = """
Where this implementation departs from the paper (Zapién Arreola, Fehr and Burkhardt 2007), and why:

- **H1-SVM in bounded form.** Problem 1 is solved with α ≤ C_k on the hard class (eq. 3.4's C_i), so the
  zero-solution loop of §4.3.2 applies to it too; eq. 4.3 has no upper bound. w is then the vector from the
  non-hard centroid to the nearest point of the reduced hull RCH(hard, C_k/m_other).
- **The zero loop is bounded by the C_k range, not a number of tries**, and says why it stops. With the
  paper's rule (`ck_rule = paper`, C_k ← C_k/f) it can jump over the whole window (D_low, D_k*) where w ≠ 0;
  the **exact rule** (default) computes D_k* (one LP) and solves just below it, keeping the most weight on the
  hard class (eq. 4.2), then at m_other/m_hard, which is never a zero solution unless the centroids coincide.
- **When the sign change and the perpendiculars fire.** The paper words both per hyperplane: "if no sample could
  be left out, then −w is used instead" (§4.3.3), perpendiculars for "the case where the given hyperplane
  cannot reduce the problem" (§4.3.4). The default (`fallbacks: per candidate`) reads it so: each candidate
  that leaves no sample out gets its −w and its perpendiculars, next to the candidates that do. The other
  option (`only when all stuck`) tries them only when no candidate leaves a sample out: perpendiculars first,
  then the sign change. Over 20 splits of fourclass the per-candidate reading keeps fewer hyperplanes with no
  loss of accuracy (benchmarks/bench_svm_tree.py). A perpendicular is tried **in both orientations** (which way
  w is turned by 90° is arbitrary, and the two leave out different samples; with one orientation the trees
  grow and lose accuracy in the benchmark); it counts as one hyperplane and not as a sign change. Stopping
  with the majority class is only an opt-in (`majority stop`), shown in the trace; without it the chain ends
  that way only when no hyperplane at all can split the samples left (e.g. identical points of both classes).
- **w = 0 only at numerical precision** (x·w spreads over at most 20 × the QP's tol across the samples in
  play, or the LP of §3.1 certifies it). A relative test (‖w‖ / Σα‖x − x̄‖ below w_tol, an option) took a real
  centroid difference for zero on a fourclass split and ended the tree with the majority class (78 %).
- **Ties between candidates** that leave out as many samples go to the larger margin (the plane farther from
  the nearest sample it keeps), then a rule on the hyperplane itself, so swapping the classes gives the same
  tree; the paper's order (first of a, b, c, d wins) is an option.
- **No majority stop.** When no candidate nor fallback leaves a sample out while both classes remain, the
  samples left go to the RBF node of §3.3 (beyond the paper, which has no such case); `majority stop` is opt-in.
- **Slivers** (nodes deciding ≤ 5 training samples) are marked in the steps: placed by a handful of points,
  they err on new data far more often. The non-linear node with k = 6 (the library's `min_node_samples=6`; off
  by default, as in the paper) hands such a remainder to the RBF node.
- **Ties in the threshold** (§4.2.2): projections equal up to rounding count as equal.
- **The non-linear node** (§3.3) sits before the first kept node that decides fewer than k training samples
  (slivers are where the linear chain errs); its γ and C are chosen by cross-validation scored on the samples
  that reach it; it is trained on the whole training set, as the paper insists.
"""

def prepare(train, test, values) -> Inputs | None:
    if not (values["use_c"] or values["use_h"]):
        st.info("Switch on C-SVM or H1-SVM (or both): without them there is no candidate.")
        return None
    return Inputs(train.X, train.y)


PAGE = MethodPage(
    key="tree", title="SVM decision tree", name="SVM Tree",
    citation="Zapién Arreola, Fehr and Burkhardt, *Fast Support Vector Machine Classification of very large "
             "Datasets* (2007), chapters 3–4.",
    summary="A chain of linear SVM nodes: at each step the four candidates of Fig. 4.1 (C-SVM and H1-SVM, "
            "each class as the hard class) are solved on the samples still in play, and the one that leaves "
            "out the most samples of the non-hard class is chosen.",
    estimator=SVMTreeClassifier, sidebar_title="Tree", max_samples=MAX_SAMPLES,
    params=(
        Param("greedy_level", "greedy level g1", 0, "radio", key="g1", horizontal=True,
              help="0: perpendicular hyperplanes only when stuck; 1: always among the candidates (§4.3.4)"),
        Param("ck_rule", "C_k rule after w = 0", "exact", "radio", horizontal=True,
              help="paper: C_k ← C_k / f (§4.3.2); exact: just below the threshold D_k* (one LP)"),
        Param("C_hard", "C_hard (first C_k of the hard class)", 1000.0, "number", within=(1e-3, 1e9), format="%g"),
        Param("reduction", "reduction f (C_k ← C_k / f)", 10.0, "number", key="f", within=(1.01, 1000.0)),
        Param("zero_test", "w = 0 when", "precision", "radio", horizontal=True,
              labels={"precision": "at numerical precision", "relative": "relative norm below w_tol"},
              help="at numerical precision (default): only a w that is zero as far as the QP solver can tell, or "
                   "that the LP certifies; relative: ‖w‖ / Σα‖x − x̄‖ < w_tol, which also takes small real "
                   "directions for zero"),
        Param("w_tol", "w_tol (relative test: ‖w‖ / Σα‖x − x̄‖ below)", 1e-3, "number", within=(1e-12, 0.5),
              format="%g", disabled=lambda v: v["zero_test"] != "relative"),
        Param("tie_break", "ties between candidates", "margin", "radio", horizontal=True,
              labels={"margin": "larger margin", "order": "paper's order (a, b, c, d)"},
              help="larger margin: the same tree whichever class is listed first; paper's order: the first "
                   "of equals wins, so swapping the classes can change the tree"),
        Param("use_c_svm", "C-SVM", True, "checkbox", key="use_c"),
        Param("use_h1_svm", "H1-SVM", True, "checkbox", key="use_h"),
        Param("sign_change", "sign change", True, "checkbox", key="sign"),
        Param("perpendicular", "perpendicular", True, "checkbox", key="perp"),
        Param("prune", "pruning", True, "checkbox"),
        Param("majority_stop", "majority stop", False, "checkbox", key="majority",
              help="opt-in, not in the paper: stop at the first stuck step"),
        Param("fallback", "fallbacks (−w, ⊥)", "per_candidate", "radio", horizontal=True,
              labels={"per_candidate": "per candidate", "all_stuck": "only when all stuck"},
              help="per candidate: a candidate that leaves no sample out gets its −w (§4.3.3) and "
                   "its perpendiculars (§4.3.4); only when all stuck: when no candidate leaves a "
                   "sample out, perpendiculars, then sign changes"),
        Param("solver", "QP solver", "smo", "select"),
        Param(None, "non-linear node (§3.3)", False, "checkbox", key="nl",
              of_model=lambda mp, _: mp["nonlinear"] is not None),
        Param(None, "RBF node before the first node deciding fewer than k samples (k = 6: no sliver kept)", 5,
              "number", key="nl_k",
              bounds=(1, 1000), disabled=lambda v: not v["nl"],
              of_model=lambda mp, _: (mp["nonlinear"] or {}).get("k")),
    ),
    prepare=prepare, derive=lambda v, _: {"nonlinear": {"k": int(v["nl_k"])} if v["nl"] else None},
    progress="fitting the SVM tree", fit_error="cannot fit the SVM tree",
    import_note="Showing the imported model (no refit). Its steps refer to the samples it was trained on: load "
                "the same data and split on the Data page to see them on the plot.",
    converged=lambda m: ("every node QP" + (f" ({m.n_subproblems_} solved)" if getattr(m, "n_subproblems_", None)
                                            is not None else "")
                         + (" and the RBF node" if any(t.svm is not None for t in m.trees_) else "")),
    views=(), share_key="svm_tree",
)

GEO_PICKED = "tree.geo._picked"   # (tree, step) at which the user picked the overlay's candidate


def _step_line(k: int) -> str:
    step = tree.trace[k]
    return f"Step {k + 1} of {n_steps} — {len(step.active)} samples in play. {plain(step.note)}"


def _step_header(k: int):
    step = tree.trace[k]
    st.markdown(f"**Step {k + 1} of {n_steps}** — {len(step.active)} samples in play. {plain(step.note)}")
    sliver = model.sliver_note(k, tree_index)
    if sliver:
        st.warning(plain(sliver), icon="⚠️")
    live.question_panel(lambda: svm_tree_winner(model, k, tree_index), "tree.step", n_steps)
    return step


def _explanation(k: int) -> None:
    """The step in full, folded under the step line and the picture: 5–15 lines an instructor
    does not read aloud (the step line above the plot is the sentence that is)."""
    with st.expander("Explanation of this step"), guard("cannot explain this step"):
        st.info(shared_view(_explain, model, k, tree_index))


def _explain(model, k, tree_index) -> str:
    """Step k in words, as plain text for the screen (escaped once for every session, not at every click)."""
    return plain(model.explain_step(k, tree_index))


def _candidates(model, k, tree_index):
    return candidates_frame(model.trees_[tree_index].trace[k])


def _zero_text(model, k, tree_index) -> str:
    """Step k's zero-solution picture in words, one paragraph per hard class."""
    texts = []
    for r in model.zero_solution_report(k, tree_index):
        paper = (f"the paper's loop stops at C_k = {r.paper_C:.4g}" if np.isfinite(r.paper_C)
                 else "the paper's loop jumps over this window (w = 0 at every try)")
        above = (f"w = 0 for C_k ≥ D_k* = **{r.D_star:.4g}** (the other centroid lies in RCH(hard, C_k/m_other))"
                 if np.isfinite(r.D_star) else
                 "no large C_k gives w = 0 (D_k* = ∞: the other centroid lies in no reduced hull of the hard class)")
        texts.append(f"**hard class {signed(r.hard_class)}** ({r.m_hard} hard, {r.m_other} other samples): "
                     f"{above} and w = 0 for C_k ≤ D_low = **{shown_number(r.D_low)}** (the hard centroid in the "
                     "other class's reduced hull); "
                     f"the window contains m_other/m_hard = {r.floor:.4g}. {paper}; the exact rule uses "
                     f"C_k = {r.exact_C:.4g}. Hulls of the two classes "
                     f"{'intersect (Theorem 1 warns)' if r.hulls_intersect else 'are disjoint'}.")
    return "\n\n".join(texts)


def _projected_step(k: int) -> None:
    """Lesson mode (and an imported tree shown without its samples): the step and its plot."""
    _step_header(k)
    if matches:
        with guard("cannot draw this step"):
            fig = shared_figure(step_spec, model, train.X, train.y, k, tree_index, plane)
            projector_chart(fig, key="tree_fig")
    else:
        st.plotly_chart(shared_view(chain_figure, model, tree_index, current=k), key="tree_chain_only")
    _explanation(k)


def _geo_picked(k: int) -> None:
    """The select box of step ``k`` changed: a pick at that step, unless the step has moved on."""
    if int(state.value("tree.step", 0)) == k:
        st.session_state["tree.geo"] = st.session_state[f"tree.geo_{k}"]
        st.session_state[GEO_PICKED] = (tree_index, k)


def _step_view(k: int) -> None:
    """Everything that changes with the step: reruns alone on a step click (a fragment)."""
    step = _step_header(k)
    # the plot takes the full width (its legend sits beside the axes); the controls for it below
    # (drawn first: the plot shows what they say)
    plot_slot = st.container()
    st.markdown("**Draw on the plot**")
    show_rch = st.checkbox("reduced convex hull of the hard class (μ = C_k / m_other)",
                           **bind("tree.show_rch", False), disabled=train.n_features != 2)
    show_cen = st.checkbox("non-hard centroid", **bind("tree.show_cen", False))
    show_near = st.checkbox("H1-SVM: nearest point of the hard hull to the centroid",
                            **bind("tree.show_near", False))
    qp_labels = [c.label for c in step.candidates if not c.parent]
    chosen = step.candidates[step.chosen] if step.chosen >= 0 else None
    default = (chosen.parent or chosen.label) if chosen is not None else (qp_labels[0] if qp_labels else "a")
    if st.session_state.get(GEO_PICKED) != (tree_index, k) and default in qp_labels:
        st.session_state["tree.geo"] = default   # follows the chosen candidate from step to step
    overlays = tuple(o for o, on in zip(("rch", "centroid", "nearest"), (show_rch, show_cen, show_near)) if on)
    geo = None
    if qp_labels:
        bind("tree.geo", default, options=qp_labels)
    if qp_labels and overlays:   # the candidate whose geometry is drawn: asked only while some is
        # one select box per step (its value is the bound tree.geo), so that a pick sent from
        # a step already left (the browser sends the box it still shows) is known as such
        geo = st.selectbox("for candidate (default: the chosen one)", qp_labels,
                           index=qp_labels.index(st.session_state["tree.geo"]), key=f"tree.geo_{k}",
                           on_change=_geo_picked, args=(k,))
    with plot_slot, guard("cannot draw this step"):
        fig = shared_figure(step_spec, model, train.X, train.y, k, tree_index, plane, overlays=overlays,
                            geometry_label=geo, geometry_solver=solver)
        st.plotly_chart(fig, key="tree_fig")
        shown_figure("tree.step").show(fig, _step_line(k))
    with plot_slot:   # folded under the picture, above the controls for it
        _explanation(k)
    st.subheader("Candidates")
    st.caption("a–d: Fig. 4.1 (C-SVM / H1-SVM, hard class −1 / +1). “−d”: d with w → −w (§4.3.3); “d⊥”: "
               "perpendicular to d (§4.3.4), “−d⊥” its other orientation. C_k tries: “certified” = known to "
               "be w = 0 without solving (a zero at a larger C_k had every hard α below this one; or the LP).")
    st.dataframe(shared_table(_candidates, model, k, tree_index), hide_index=True, width="stretch")
    st.subheader("Zero solution at this step")
    with guard("cannot compute the zero-solution report"):
        st.markdown(shared_view(_zero_text, model, k, tree_index))
        st.dataframe(shared_table(zero_solution_frame, model, k, tree_index), hide_index=True, width="stretch",
                     height=240)


def _send_shown_step() -> None:
    """The button under the stepper: the samples in play at the step shown when it was clicked."""
    k = min(int(state.value("tree.step", 0)), n_steps - 1)
    act = tree.trace[k].active
    state.send_to_hulls(train.X[act], train.y[act], list(train.class_names), list(train.feature_names),
                        f"step {k + 1} of the SVM tree ({len(act)} samples in play)")


def _beside_steps() -> None:
    """Under the stepper, what is the same at every step: outside its fragment, so a step click
    does not send it again (the buttons read the step when they are clicked)."""
    st.markdown("**The figure of the step shown**")
    figure_downloads(shown_figure("tree.step"), "svm_tree_step", key="tree_dl")
    st.markdown("**This node's data on the Convex Hulls page**")
    st.button("Send this step's samples to Convex Hulls", key="tree_send_hulls", on_click=_send_shown_step)
    try:
        st.page_link("pages/3_Convex_Hulls.py", label="Open Convex Hulls (reduced hulls, zero solution)")
    except StreamlitPageNotFoundError:   # the page runs on its own, without app.py's navigation
        st.markdown("[Open Convex Hulls](Convex_Hulls) (reduced hulls, zero solution)")
    with guard("cannot build the animation"):
        st.download_button("Download all steps (HTML: slider and ▶, nothing starts by itself)",
                           lambda: animation_html(animation_figure(model, train.X, train.y, tree_index, plane)),
                           "svm_tree_steps.html", "text/html", key="tree_anim_dl", on_click="ignore")
    with st.expander("Where this implementation departs from the paper"):
        st.markdown(DEPARTURES)


def _final_views() -> None:
    """What does not change with the step: built once per fit for every session, drawn only
    while its tab is open."""
    shade = st.checkbox("shade each node's region by the training samples it decides (slivers outlined)",
                        **bind("tree.shade", False))
    with guard("cannot draw the final tree"):
        f1, f2 = st.columns(2)
        f1.plotly_chart(shared_figure(final_figure, model, train.X, train.y, False, tree_index, plane),
                        key="tree_before")
        f2.plotly_chart(shared_figure(final_figure, model, train.X, train.y, True, tree_index, plane,
                                      by_samples=shade), key="tree_after")
        st.plotly_chart(shared_view(chain_figure, model, tree_index), key="tree_chain")
    if tree.nonlinear is not None:
        nl = tree.nonlinear
        st.markdown(f"**Non-linear node (§3.3):** an RBF SVM (C = {nl.C:g}, γ = {nl.gamma:.3g}, {nl.n_support} "
                    f"support vectors, trained on the whole training set) after {nl.depth} of the "
                    f"{len(tree.kept())} kept nodes; {nl.n_reach} training samples reach it. Samples each kept "
                    f"node decides: {', '.join(map(str, nl.decided.tolist())) or '—'} (k = {nl.k}).")
        if np.isfinite(nl.cv_accuracy).any():
            st.dataframe(pd.DataFrame(nl.cv_accuracy, index=[f"C = {c:g}" for c in nl.C_grid],
                                      columns=[f"γ = {g:.3g}" for g in nl.gamma_grid]),
                         width="stretch")
            st.caption(f"{nl.cv}-fold CV accuracy on the held-out samples that reach the node.")
    rows = {"hyperplanes kept": str(model.n_hyperplanes_), "fit time (s)": f"{model.fit_time_:.3f}"}
    if test is not None and test.n_samples:
        with guard("cannot evaluate on the test part"):
            rows.update(shared_view(_test_metrics, model, test.X, test.y))
    st.dataframe(pd.DataFrame({"": list(rows), "SVM tree": list(rows.values())}), hide_index=True)
    standard_views(model, train, test, key="tree", plane=plane)


def _test_metrics(model, X, y) -> dict:
    return {"test accuracy": f"{model.score(X, y):.4f}",
            "average depth (test)": f"{float(np.mean(model.predict_depth(X))):.2f}"}


ctx = run_page(PAGE)
if ctx is not None:   # None: the frame had nothing to show and said why
    model, train, test, lesson, solver = ctx.model, ctx.train, ctx.test, ctx.lesson, ctx.params["solver"]
    imported = ctx.imported

    tree_index = 0
    if len(model.trees_) > 1:
        pairs = [f"{model.classes_[a]} vs {model.classes_[b]}" for a, b in model.pairs_]
        tree_index = st.selectbox("pair of classes (one-vs-one)", list(range(len(pairs))), format_func=lambda i: pairs[i],
                                  **bind("tree.pair", 0, options=list(range(len(pairs)))))
    tree = model.trees_[tree_index]
    n_steps = len(tree.trace)
    in_pair = np.isin(train.y, tree.classes)
    # an imported tree can be drawn only on the samples it was trained on
    matches = bool(n_steps) and len(tree.trace[0].active) == int(in_pair.sum()) and \
        int(tree.trace[0].active.max()) < train.n_samples
    if imported is not None and matches and model.training_data is None:
        model.bind_data(train.X, train.y)   # the import is this session's own object, not a cached fit

    plane = None
    with guard("cannot set up the plane"):
        plane = plane_controls(train.X, train.feature_names, "tree")
    if n_steps == 0:
        st.info("The training part of this pair holds one class only: there is nothing to step through.")
    else:
        if "tree.geo" in state.link_params() and GEO_PICKED not in st.session_state:
            bind("tree.step", 0, bounds=(0, n_steps - 1))   # the link's step (the stepper binds it too)
            st.session_state[GEO_PICKED] = (tree_index, int(st.session_state["tree.step"]))   # the link's choice
        if lesson or not matches:
            with ctx.projected():   # lesson mode: the stepper and the step's picture at the top of the page
                stepper("tree.step", n_steps, _projected_step)
        else:
            # the open tab is the link's
            tab_step, tab_final = page_tabs("tree", ["Step by step", "Final tree and metrics"])
            if tab_step.open:
                with tab_step:
                    stepper("tree.step", n_steps, _step_view)
                    _beside_steps()
            if tab_final.open:
                with tab_final:
                    _final_views()
            ctx.model_download("svm_tree_model")

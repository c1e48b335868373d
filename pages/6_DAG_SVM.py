"""DAG SVM and weighted DAG SVM (Sabzekar, GhasemiGol, Naghibzadeh and Sadoghi Yazdi, Improved DAG SVM): pairwise boundaries, voting and its unclassifiable
regions, DAG regions for a chosen class list, and the clusters, weights and fused regions of WDAG,
on the Data page's training part (or a visibly labelled preset)."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import streamlit as st

from svmviz.data import split_and_normalize
from svmviz.data.generators import bayes_accuracy, generate, mixture_components
from svmviz.errors import ParameterError
from svmviz.models.dag import WEIGHTS, ClusterClassWarning, DAGSVC, PairwiseVotingSVC, WeightedDAGSVC
from svmviz.models.dag_steps import dag_steps
from svmviz.plots import dag as P
from svmviz.plots.common import Plane
from svmviz.questions import dag_next
from svmviz_app import live, state
from svmviz_app.cache import cached_call, cached_fit, shared_view
from svmviz_app.controls import plane_controls
from svmviz_app.lesson_steps import step_view
from svmviz_app.projector import projector_chart
from svmviz_app.frame import MethodPage, Param, kernel_params, page_tabs, param_widget, run_page
from svmviz_app.state import bind
from svmviz_app.stepper import shown_figure, stepper
from svmviz_app.views import compact_figure, convergence_status
from svmviz_app.widgets import Progress, figure_downloads, guard, model_download, plain

# Every map evaluates K(K−1)/2 SVMs (and N cluster DAGs) on a grid of ~10⁴ points; the pairwise
# training is O(n²) per pair: 3,000 training samples keep the page interactive.
MAX_SAMPLES = 3000
# Presets (local overrides): two situations worth showing — data where per-cluster DAGs win
# (globally mixed, locally separable; the paper's weak linear baseline) and where WDAG cannot win
# (the paper's Data4: overlapping Gaussians, Bayes accuracy ≈ 69 %).
CURRENT = "current data set"
PRESETS = {"override: local triangles (WDAG can win)": ("local_triangles", {"n_per_class": 17, "std": 0.25}),
           "override: Data4 (WDAG cannot win)": ("interlaced", {"level": 4})}
PRESET_SETTINGS = {
    "override: local triangles (WDAG can win)": {"dag.kernel": "linear", "dag.wdag_n": 3, "dag.wdag_weight": "gaussian_paper"},
    "override: Data4 (WDAG cannot win)": {"dag.kernel": "rbf", "dag.gamma_scale": True, "dag.wdag_n": 3,
                                          "dag.wdag_weight": "gaussian_paper"},
}
SOURCES = [CURRENT, *PRESETS]
# each computed only while open (a run sends one tab's figures, not the page's ten)
TABS = ("Pairwise D_ij", "Voting (Fig. 1)", "DAG (Fig. 2–3)", "Weighted DAG (Fig. 4–5)", "One sample step by step")
# what the page shows when the current data has two classes (the DAG and voting are then one SVM)
MULTI = "override: local triangles (WDAG can win)"
# the weighted DAG's own parameters, set in its tab after the pairwise fit
WDAG_PARAMS = (
    Param("n_clusters", "Clusters N", 3, "slider", key="wdag_n", within=(1, 8)),
    Param("weight", "Weights", WEIGHTS[0], "radio", key="wdag_weight", horizontal=True,
          labels={"gaussian": "Gaussian density", "gaussian_paper": "eq. 12 as printed"},
          help="Gaussian density: the multivariate normal density; eq. 12 as printed in "
               "Sabzekar et al.: exp(−q) and 1/√(2π)"),
    Param("covariance_reg", "covariance_reg", 1e-3, "number", key="wdag_reg", within=(1e-8, 10.0), format="%g",
          help="added to each covariance, times the mean feature variance"),
    Param("random_state", "K-Means random_state", 0, "number", key="wdag_seed", within=(0, 10_000)),
)


def _apply_preset(name: str) -> None:
    state.set_value("dag.src", name)
    for k, v in PRESET_SETTINGS.get(name, {}).items():
        state.set_value(k, v)


def _bayes(name: str, params: dict) -> tuple[float, float]:
    return bayes_accuracy(*mixture_components(name, **params), n_samples=200_000)


def _build(kind, voting, dag, wdag, X, y, names, plane, orders=None):
    """The figure ``kind`` of these fitted models (pure: the same inputs draw the same figure)."""
    if kind == "pw":
        return P.plot_pairwise_boundaries(voting, X, y, names, plane)
    if kind == "pwg":
        return P.plot_pairwise_grid(voting, X, y, names, plane)
    if kind == "vote":
        return P.plot_voting_regions(voting, X, y, names, plane)
    if kind == "dagreg":
        return P.plot_dag_regions(dag, X, y, names, plane, tied_outline=voting)
    if kind == "orders":
        return P.plot_order_comparison([DAGSVC.from_pairwise(voting, o) for o in orders], X, y, names, plane)
    return {"clusters": P.plot_wdag_clusters, "fused": P.plot_fused_regions, "cregions": P.plot_cluster_regions,
            "weights": P.plot_weight_maps}[kind](wdag, X, y, names, plane)


def _dag_page_figure(kind, params, wparams, order, X, y, names, plane_args, orders):
    """``_build`` for the (cached) fits with ``params`` / ``wparams`` on (X, y): shared by every
    session through ``cached_call``, keyed by the content of X and y and every parameter."""
    voting = cached_fit(PairwiseVotingSVC(**params), X, y)
    dag = DAGSVC.from_pairwise(voting, order)
    wdag = cached_fit(WeightedDAGSVC(**wparams), X, y) if wparams is not None else None
    plane = None if plane_args is None else Plane(X, plane_args[:2], plane_args[2], plane_args[3])
    return _build(kind, voting, dag, wdag, X, y, names, plane, orders)


def _sample_step(params, wparams, order, X, y, names, plane_args, probe: int, k: int) -> dict:
    """Step k of training sample ``probe``'s walk (``dag_steps``) for the (cached) fits with
    ``params`` / ``wparams`` on (X, y): its words, its map and the diagram or weights beside it,
    built once for every session at that step."""
    voting = cached_fit(PairwiseVotingSVC(**params), X, y)
    dag = DAGSVC.from_pairwise(voting, order)
    wdag = cached_fit(WeightedDAGSVC(**wparams), X, y)
    plane = None if plane_args is None else Plane(X, plane_args[:2], plane_args[2], plane_args[3])
    return _step_parts(dag, wdag, X, y, names, plane, probe, k)


def _shared_sample(wdag, X) -> int:
    """The training sample whose largest cluster weight w_M(x) (eq. 13) is the smallest."""
    return int(np.argmin(wdag.weights(X).max(axis=1)))


def _step_parts(dag, wdag, X, y, names, plane, probe: int, k: int) -> dict:
    steps = dag_steps(dag, X[probe], names, wdag)
    step = steps[k]
    x = X[probe]
    fig = compact_figure(P.plot_dag_step(dag, X, y, x, step, names, plane, wdag))
    if step.kind in ("start", "node"):
        side = P.plot_dag_diagram(dag, names, highlight=x, levels=0 if step.kind == "start" else step.index + 1)
    else:
        side = P.plot_wdag_fusion(wdag, x, {"clusters": 0, "cluster": step.index + 1}.get(step.kind), names)
    return {"n": len(steps), "summary": step.summary, "explanation": step.explanation, "fig": fig,
            "side": compact_figure(side)}


def data(values):
    if not state.lesson_mode():
        st.markdown("**Presets** — the two situations of the paper's weighted DAG:")
        b1, b2 = st.columns(2)
        b1.button("WDAG can win: locally separable data, the paper's weak (linear) baseline", key="dag_preset_win",
                  on_click=_apply_preset, args=(SOURCES[1],))
        b2.button("WDAG cannot win: Data4, overlapping Gaussians (Bayes ≈ 69 %)", key="dag_preset_lose",
                  on_click=_apply_preset, args=(SOURCES[2],))
    src = values["src"]
    if src == CURRENT:
        train, test = state.current_split()
    if src == CURRENT and train.classes.size < 3:
        st.info(f"{plain(train.name)} has {train.classes.size} classes: with two, voting, the DAG and every "
                "cluster reduce to one binary SVM. This page shows three generated classes instead (the preset "
                "“local triangles”); load a data set with three or more classes on the Data page to see yours.")
        src = MULTI
    if src != CURRENT:
        gen, gparams = PRESETS[src]
        s = state.split_settings()
        train, test = split_and_normalize(generate(gen, **gparams), s.normalization, s.test_size, s.seed, s.stratify)
        acc, se = cached_call(_bayes, gen, gparams)
        st.info(f"This page shows the preset {plain(train.name)} (a local override; the other pages use the "
                f"Data page's choice), split as the Data page says. Bayes accuracy of its generating density: "
                f"{100 * acc:.1f} % (± {100 * se:.1f}, Monte Carlo): no classifier can do better on average.")
    if train.n_features < 2:
        st.info("The maps need two or more features.")
        return None
    return train, test


def pairwise_of(imported, inputs):
    """An imported DAG or voting model shows its own pairwise SVMs; an imported weighted DAG is
    shown in its tab, next to this page's own pairwise fit."""
    return None if isinstance(imported, WeightedDAGSVC) else PairwiseVotingSVC.from_pairwise(imported)


PAGE = MethodPage(
    key="dag", title="DAG SVM and weighted DAG SVM", name="DAG SVM",
    citation="Sabzekar, GhasemiGol, Naghibzadeh and Sadoghi Yazdi, *Improved DAG SVM: A New Method for "
             "Multi-Class SVM Classification*: pairwise SVMs D_ij, max-wins voting and "
             "its unclassifiable region (§3, eq. 5–9), the decision DAG (Fig. 2–3), and the weighted "
             "DAG SVM with K-Means clusters, Gaussian weights and the fusion τ (§4, eq. 10–17).",
    estimator=PairwiseVotingSVC, max_samples=MAX_SAMPLES,
    params=(
        Param(None, "Data for this page", CURRENT, "select", key="src", options=SOURCES,
              help="The Data page's data set (its training part), or one of the two presets."),
        *kernel_params(C_default=10.0, section="Pairwise SVMs"),
        Param("solver", "Solver", "smo", "select",
              help="smo: the fast Numba SMO; cvxpy: the reference solver (small data only)"),
    ),
    data=data, imports=(PairwiseVotingSVC, DAGSVC, WeightedDAGSVC), use_import=pairwise_of,
    progress="training the pairwise SVMs", fit_error="cannot train the models",   # Stop ends it between pairs
    converged=lambda m: (("the pairwise C-SVM" if len(m.estimators_) == 1 else f"all {len(m.estimators_)} "
                          "pairwise C-SVMs") + " (shared by voting and the DAG)"),
    views=(), model_key="vote_model",
)
ctx = run_page(PAGE)
if ctx is not None:   # None: the frame had nothing to show and said why
    train, test, voting, imported, params, lesson = ctx.train, ctx.test, ctx.model, ctx.imported, ctx.params, ctx.lesson
    X, y = train.X, train.y
    names = [str(n) for n in train.class_names]

    with guard("cannot train the models"):
        plane = plane_controls(X, train.feature_names, "dag")
        fnames = list(train.feature_names)
        plane_args = None if plane is None else (fnames.index(state.value("dag.f1")), fnames.index(state.value("dag.f2")),
                                                 plane.method, fnames)
        if plane is not None:
            st.info(f"{plain(train.name)} has {X.shape[1]} features: the maps show the models on a plane "
                    f"({plain(plane.labels[0])} × {plain(plane.labels[1])}); the models use every feature.")
        if imported is not None and not isinstance(imported, WeightedDAGSVC):
            st.caption("Showing the imported pairwise SVMs (voting and DAG tabs).")
        K = voting.classes_.size
        own_pairs = not (imported is not None and not isinstance(imported, WeightedDAGSVC))

        def figure(kind, wparams=None, order=None, wdag=None, orders=None):
            """Cached for all sessions when every model is this page's own fit; drawn directly from an
            imported model."""
            if own_pairs and (wparams is not None or wdag is None):
                return cached_call(_dag_page_figure, kind, params, wparams, order, X, y, names, plane_args, orders)
            dag = DAGSVC.from_pairwise(voting, order) if order is not None else None
            return _build(kind, voting, dag, wdag, X, y, names, plane, orders)

        def class_order(draw: bool) -> list:
            """The DAG's class list: its widget when ``draw`` (the DAG tab), else the bound value
            (the weighted DAG's clusters use it too)."""
            if K <= 5:
                perms = [list(p) for p in itertools.permutations(range(K))]
                b = bind("dag.order", 0, options=list(range(len(perms))))
                pick = st.selectbox("Class list (order)", list(range(len(perms))), **b,
                                    format_func=lambda a: "[" + ", ".join(names[k] for k in perms[a]) + "]") \
                    if draw else st.session_state["dag.order"]
                order_idx = perms[pick]
            else:
                b = bind("dag.order_txt", ", ".join(names))
                txt = st.text_input("Class list (comma separated class names)", **b) if draw \
                    else st.session_state["dag.order_txt"]
                wanted = [t.strip() for t in txt.split(",") if t.strip()]
                unknown = [t for t in wanted if t not in names]
                if unknown:
                    raise ParameterError(f"unknown class names in the list: {', '.join(unknown)}")
                order_idx = [names.index(t) for t in wanted]
            return [voting.classes_[k].item() for k in order_idx]

        def wdag_values() -> list:
            """The weighted DAG's bound parameters (its widgets sit in its tab)."""
            out = []
            for p in WDAG_PARAMS:
                key = f"dag.{p.url_key}"
                bind(key, p.default, **({"options": list(WEIGHTS)} if p.widget == "radio" else {"bounds": p.within}))
                out.append(st.session_state[key])
            return out

        def weighted_dag(values, order):
            """The imported weighted DAG SVM, or the page's own cached fit with ``values`` (clusters,
            weight, covariance regularisation, seed): (model, its parameters or None)."""
            if isinstance(imported, WeightedDAGSVC):
                return imported, None
            n_clusters, weight, reg, seed = values
            wparams = dict(params, n_clusters=int(n_clusters), weight=weight, covariance_reg=float(reg),
                           random_state=int(seed), order=order)
            bar = Progress("training the weighted DAG SVM")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ClusterClassWarning)  # the weighted DAG tab shows it as a page warning
                wdag = cached_fit(WeightedDAGSVC(**wparams), X, y, progress=bar)
            bar.done()
            return wdag, wparams

        def sample_steps(ask: bool) -> None:
            """Sabzekar et al. for one training sample: its walk through the DAG node by node, then the
            weighted DAG's clusters, each cluster's DAG and the fusion τ. ``ask``: draw the sample's
            input (the projector follows the bound one)."""
            order = class_order(draw=False)
            dag = DAGSVC.from_pairwise(voting, order)
            wdag, wparams = weighted_dag(wdag_values(), order)
            # by default the sample whose weight the clusters share most: the fusion then has something to fuse
            b = bind("dag.sample", shared_view(_shared_sample, wdag, X), bounds=(0, len(y) - 1))
            if ask:
                st.number_input("Follow training sample #", 0, len(y) - 1, **b,
                                help="by default the sample whose weight is most shared between the clusters")
            probe = int(st.session_state["dag.sample"])

            def parts(k: int) -> dict:
                if own_pairs and wparams is not None:
                    return shared_view(_sample_step, params, wparams, order, X, y, names, plane_args, probe, k)
                return _step_parts(dag, wdag, X, y, names, plane, probe, k)

            def view(k: int) -> None:
                with guard("cannot draw this step"):
                    got = parts(k)
                    step_view("dag.step", k, got["n"], got["summary"], got["explanation"], got["fig"],
                              lambda: dag_next(dag, X[probe], k, names, wdag), "dag_step", side=got["side"])

            stepper("dag.step", len(dag_steps(dag, X[probe], names, wdag)), view)

        if lesson:   # the projector: one sample stepped through, at the top of the page
            with ctx.projected():
                sample_steps(ask=False)
        else:
            tab_pw, tab_vote, tab_dag, tab_wdag, tab_steps = page_tabs("dag", TABS)

            # ------------------------------------------------------------ one sample, step by step
            if tab_steps.open:
                with tab_steps:
                    sample_steps(ask=True)
                    st.caption("Left: the map of the step (the star is the sample; at a DAG level the two sides of the "
                               "pairwise SVM deciding there, the classes already dropped faded). Right: the DAG with the "
                               "sample's path so far in red, then the weights w_M(x) and their sums τ_i.")
                    figure_downloads(shown_figure("dag.step"), f"{train.name}_dag_step", key="dag_step_dl")

            # ------------------------------------------------------------ pairwise boundaries
            if tab_pw.open:
                with tab_pw:
                    st.markdown("One C-SVM per pair of classes, trained on those two classes only (eq. 5): "
                                "D_ij(x) > 0 means *i*, and D_ji = −D_ij.")
                    fig = figure("pw")
                    projector_chart(fig, key="pw_chart")
                    if not lesson:
                        figure_downloads(fig, f"{train.name}_pairwise", key="pw_dl")
                        fig = figure("pwg")
                        st.plotly_chart(fig, key="pwg_chart")
                        figure_downloads(fig, f"{train.name}_pairwise_panels", key="pwg_dl")
                        st.dataframe({"pair": [f"{names[i]} vs {names[j]}" for i, j in voting.pairs_],
                                      "training samples": [int(np.sum(np.isin(y, voting.classes_[[i, j]]))) for i, j in voting.pairs_],
                                      "support vectors": [int(e.support_.size) for e in voting.estimators_],
                                      "iterations": [int(e.n_iter_) for e in voting.estimators_],
                                      "converged": [bool(getattr(e, "converged_", True)) for e in voting.estimators_]},
                                     hide_index=True)

            # ------------------------------------------------------------ voting and unclassifiable regions
            if tab_vote.open:
                with tab_vote:
                    st.markdown("Each pair votes (eq. 7–8, sign(0) = +1) and x goes to the class with most votes "
                                "(eq. 9). Where several classes share the maximum, x is **unclassifiable** (grey); "
                                "inside R_i (eq. 6) class i wins every one of its pairs.")
                    fig = figure("vote")
                    st.plotly_chart(fig, key="vote_chart")
                    tied = voting.unclassifiable(X)
                    st.metric("Training samples in the unclassifiable region", f"{int(tied.sum())} of {len(y)}")
                    if not lesson:
                        figure_downloads(fig, f"{train.name}_voting", key="vote_dl")
                        ctx.model_download(f"{train.name}_pairwise_voting")

            # ------------------------------------------------------------ DAG for a chosen order
            if tab_dag.open:
                with tab_dag:
                    st.markdown("The DAG starts with a class list, compares its **first and last** class and "
                                "drops the loser (D_ij ≥ 0: *not j*), K − 1 times. No region is left "
                                "unclassified, but the regions depend on the list (Fig. 3).")
                    order = class_order(draw=True)
                    dag = DAGSVC.from_pairwise(voting, order)
                    probe = st.number_input("Follow training sample #", 0, len(y) - 1,
                                            **bind("dag.probe", 0, bounds=(0, len(y) - 1)),
                                            help="its path through the DAG is drawn in red")
                    asking = live.dag_question(dag, X, probe, names)   # a live class's question: the path waits for the reveal
                    left, right = st.columns([3, 2])
                    with left:
                        fig = figure("dagreg", order=order)
                        st.plotly_chart(fig, key="dag_chart")
                    with right:
                        figd = P.plot_dag_diagram(dag, names, X=X, highlight=None if asking else X[probe])
                        st.plotly_chart(figd, key="dag_diagram")
                        path = dag.decision_path(X[probe:probe + 1])[0]
                        name_of = dict(zip(voting.classes_.tolist(), names))
                        st.caption(f"Sample #{probe}: which class does it reach? The path is shown after the reveal." if asking else
                                   f"Sample #{probe} (class {plain(name_of[y[probe].item()])}): "
                                   + " → ".join(f"{plain(name_of[a])} vs {plain(name_of[b])}" for a, b in path.tolist())
                                   + f" → predicted {plain(name_of[dag.predict(X[probe:probe + 1])[0].item()])}")
                    if not lesson:
                        st.caption("Export the regions, then the diagram:")
                        figure_downloads(fig, f"{train.name}_dag_regions", key="dag_dl")
                        figure_downloads(figd, f"{train.name}_dag_diagram", key="dagd_dl")
                        model_download(dag, f"{train.name}_dag", key="dag_model")
                        st.subheader("How the regions change with the order")
                        st.markdown("A list and its reverse give the same DAG (same first pair, and what is left is "
                                    "again reversed), so only these lists differ. For three or four classes they can "
                                    "only disagree inside voting's unclassifiable region.")
                        orders = [[c.item() for c in o] for o in P.distinct_orders(list(voting.classes_), limit=6)]
                        fig = figure("orders", orders=orders)
                        st.plotly_chart(fig, key="orders_chart")
                        figure_downloads(fig, f"{train.name}_dag_orders", key="orders_dl")

            # ------------------------------------------------------------ weighted DAG
            if tab_wdag.open:
                with tab_wdag:
                    st.markdown("Training (Fig. 5a): K-Means into N clusters, a Gaussian per cluster (mean and "
                                "regularised covariance, eq. 10–11) and a DAG SVM per cluster on its samples. "
                                "Testing (Fig. 5b): weights w_M(x) from the Gaussians (eq. 13), each cluster's "
                                "label l_M(x) and τ_i = Σ_{M: l_M = i} w_M; the label is argmax τ_i (eq. 15–17).")
                    order = class_order(draw=False)
                    dag = DAGSVC.from_pairwise(voting, order)
                    c1, c2, c3, c4 = st.columns(4)
                    shown = []
                    for col, p in zip((c1, c2, c3, c4), WDAG_PARAMS):
                        with col:
                            shown.append(param_widget(WeightedDAGSVC, "dag", p))
                    wdag, wparams = weighted_dag(shown, order)
                    if wparams is None:
                        st.caption("Showing the imported weighted DAG SVM.")
                    convergence_status(wdag, "K-Means and every cluster's pairwise C-SVMs")
                    if wdag.incomplete_clusters_.size:
                        st.warning(plain(wdag.missing_classes_message()))
                    parts = [("training", train)] + ([("test", test)] if test is not None else [])
                    for label, part in parts:
                        acc = {"pairwise voting": voting.score(part.X, part.y), "DAG (this list)": dag.score(part.X, part.y),
                               "WDAG": wdag.score(part.X, part.y)}
                        cols = st.columns(3)
                        for col, (k, v) in zip(cols, acc.items()):
                            col.metric(f"{label.capitalize()} accuracy: {k}", f"{100 * v:.1f} %")
                    left, right = st.columns(2)
                    with left:
                        figc = figure("clusters", wparams=wparams, order=order, wdag=wdag)
                        st.plotly_chart(figc, key="wdag_clusters")
                    with right:
                        figf = figure("fused", wparams=wparams, order=order, wdag=wdag)
                        st.plotly_chart(figf, key="wdag_fused")
                    if not lesson:
                        st.caption("Export the clusters, then the fused regions:")
                        figure_downloads(figc, f"{train.name}_wdag_clusters", key="wcl_dl")
                        figure_downloads(figf, f"{train.name}_wdag_fused", key="wfu_dl")
                        fig = figure("cregions", wparams=wparams, order=order, wdag=wdag)
                        st.plotly_chart(fig, key="wdag_cluster_regions")
                        figure_downloads(fig, f"{train.name}_wdag_cluster_dags", key="wcr_dl")
                        fig = figure("weights", wparams=wparams, order=order, wdag=wdag)
                        st.plotly_chart(fig, key="wdag_weights")
                        figure_downloads(fig, f"{train.name}_wdag_weights", key="wwm_dl")
                        model_download(wdag, f"{train.name}_wdag", key="wdag_model")
                    ctx.share(wdag)

"""Decided regions drawn as polygons traced from a grid (smooth edges, a legend entry per class, a
few kB) instead of a heatmap of cells (stair-stepped edges, no legend entry, the whole grid sent)."""

from __future__ import annotations

import numpy as np
import plotly.io as pio
import pytest

from regionhelpers import clear_of_boundaries, labels_from_regions, region_traces
from svmviz.data.generators import gaussians_on_circle
from svmviz.models import ScatterSVC
from svmviz.plots.common import class_text
from svmviz.plots.regions import class_margins, inside_rings, label_regions, region_rings
from svmviz.plots.scatter import plot_prototypes


def _grid(f, n=81, lo=-2.0, hi=2.0):
    xs = ys = np.linspace(lo, hi, n)
    xx, yy = np.meshgrid(xs, ys)
    return xs, ys, f(xx, yy)


def _area(r):
    return 0.5 * float(np.dot(r[:-1, 0], r[1:, 1]) - np.dot(r[1:, 0], r[:-1, 1]))


def test_an_annulus_is_an_outer_ring_and_a_hole_filled_by_the_non_zero_rule():
    xs, ys, G = _grid(lambda x, y: np.minimum(np.hypot(x, y) - 0.5, 1.5 - np.hypot(x, y)))
    rings = region_rings(xs, ys, G)
    assert sorted(round(_area(r), 2) for r in rings) == [-0.78, 7.06]   # the hole runs clockwise
    P = np.random.default_rng(0).uniform(-2, 2, (4000, 2))
    r = np.hypot(P[:, 0], P[:, 1])
    clear = np.abs(r - 0.5) > 0.03
    clear &= np.abs(r - 1.5) > 0.03
    assert np.array_equal(inside_rings(rings, P)[clear], ((r > 0.5) & (r < 1.5))[clear])


def test_a_region_reaching_the_border_is_closed_along_the_box():
    xs, ys, G = _grid(lambda x, y: x - 0.3)
    (ring,) = region_rings(xs, ys, G)
    assert np.allclose(ring[0], ring[-1])
    assert _area(ring) == pytest.approx(1.7 * 4.0)


def test_a_region_known_by_labels_only_has_its_boundary_located_on_the_grid_edges():
    inside = lambda P: np.hypot(P[:, 0] - 0.1, P[:, 1]) < 1.23   # noqa: E731
    xs, ys, _ = _grid(lambda x, y: x)
    P = np.column_stack([a.ravel() for a in np.meshgrid(xs, ys)])
    labels = inside(P).reshape(len(ys), len(xs)).astype(int)
    label_of = lambda P: inside(P).astype(int)   # noqa: E731
    on_edges = np.vstack(label_regions(xs, ys, labels, label_of)[1])
    assert np.abs(np.hypot(on_edges[:, 0] - 0.1, on_edges[:, 1]) - 1.23).max() < 1e-3   # 1/64 of a 0.05 cell
    outside = np.vstack(label_regions(xs, ys, labels, label_of)[0])    # the same boundary from the other side
    assert np.abs(np.hypot(outside[:, 0] - 0.1, outside[:, 1]) - 1.23).min() < 1e-3
    # from the labels alone every point sits mid-edge: a staircase up to half a cell off
    mid = np.vstack(label_regions(xs, ys, labels)[1])
    assert np.abs(np.hypot(mid[:, 0] - 0.1, mid[:, 1]) - 1.23).max() > 0.01


def test_class_margins_are_positive_exactly_where_the_class_wins():
    S = np.array([[1.0, 3.0, 2.0], [0.5, 0.0, -1.0]])
    assert np.allclose(class_margins(S), [[-2.0, 1.0, -1.0], [0.5, -0.5, -1.5]])


@pytest.fixture(scope="module")
def circle():
    ds = gaussians_on_circle(4, 25, std=0.5, seed=3)
    return ScatterSVC(gamma=0.8).fit(ds.X, ds.y), ds


def test_scatter_regions_agree_with_the_predictions_and_have_a_legend_entry_each(circle):
    model, ds = circle
    fig = plot_prototypes(model, ds.X, ds.y, ds.class_names)
    assert not any(t.type in ("heatmap", "contour") for t in fig.data)
    names = {f"region of {class_text(n)}": c for n, c in zip(ds.class_names, model.classes_)}
    legend = {t.name for t in fig.data if t.showlegend is not False and t.x[0] is None}
    assert set(names) <= legend                     # a square swatch per class region
    xr, yr = fig.layout.xaxis.range, fig.layout.yaxis.range
    xs, ys = np.linspace(*xr, 83)[1:-1], np.linspace(*yr, 79)[1:-1]
    P = np.column_stack([a.ravel() for a in np.meshgrid(xs, ys)])
    got, hits = labels_from_regions(fig, names, P)
    clear = clear_of_boundaries(model.predict, P, 1.5 * (xr[1] - xr[0]) / 150)
    assert clear.mean() > 0.8
    assert np.all(hits[clear] == 1)                 # the regions tile the view
    assert np.array_equal(got[clear].astype(model.classes_.dtype), model.predict(P)[clear])


def test_the_scatter_figure_of_fourclass_is_small_and_names_the_classes_with_the_minus_sign(fourclass):
    from svmviz.data.preprocessing import split_and_normalize

    train, _ = split_and_normalize(fourclass, "none", 0.3, 0, True)
    model = ScatterSVC().fit(train.X, train.y)
    fig = plot_prototypes(model, train.X, train.y, train.class_names, train.feature_names)
    assert len(pio.to_json(fig, validate=False)) < 45_000
    names = [t.name for t in fig.data if t.name]
    assert "region of −1" in names and "−1" in names and not any("-1" in n for n in names)
    assert len(region_traces(fig)) == 2
    # the statistics under the title at the subtitle's size, not as <sup> (70 % of the title)
    assert "<sup>" not in fig.layout.title.text and fig.layout.title.subtitle.font.size >= 14
    assert "−1 & 1" in fig.layout.title.subtitle.text


# ---------------------------------------------------------------- DAG SVM (Sabzekar et al.)
@pytest.fixture(scope="module")
def dag_fits():
    from svmviz.models.dag import DAGSVC, PairwiseVotingSVC, WeightedDAGSVC

    ds = gaussians_on_circle(4, 25, std=0.6, seed=5)
    voting = PairwiseVotingSVC(C=10.0).fit(ds.X, ds.y)
    return {"voting": voting, "dag": DAGSVC.from_pairwise(voting, list(voting.classes_)),
            "wdag": WeightedDAGSVC(n_clusters=2, random_state=0).fit(ds.X, ds.y)}, ds


@pytest.mark.parametrize("kind", ["dag", "voting", "wdag"])
def test_dag_regions_agree_with_the_models_decisions_and_are_small(dag_fits, kind):
    from svmviz.plots import dag as P
    from svmviz.plots.common import grid

    models, ds = dag_fits
    model = models[kind]
    if kind == "dag":
        fig = P.plot_dag_regions(model, ds.X, ds.y, ds.class_names, tied_outline=models["voting"])
        decide = model.predict_index
    elif kind == "voting":
        fig = P.plot_voting_regions(model, ds.X, ds.y, ds.class_names)
        decide = lambda X: P._voted(model, X)   # noqa: E731
    else:
        fig = P.plot_fused_regions(model, ds.X, ds.y, ds.class_names)
        decide = lambda X: np.argmax(model.tau(X), axis=1)   # noqa: E731
    assert not any(t.type in ("heatmap", "contour") for t in fig.data)
    assert len(pio.to_json(fig, validate=False)) < 60_000          # the voting map sent 4 MB of contour grids
    names = {f"region of {class_text(n)}": k for k, n in enumerate(ds.class_names)} | {"unclassifiable": -1}
    swatches = {t.name for t in fig.data if t.showlegend is not False and t.x[0] is None}
    assert {n for n in names if n != "unclassifiable"} <= swatches
    xs, ys, _ = grid(ds.X, 200)
    mid = lambda v: 0.5 * (v[:-1] + v[1:])   # noqa: E731
    P_ = np.column_stack([a.ravel() for a in np.meshgrid(mid(xs)[::3], mid(ys)[::3])])
    got, hits = labels_from_regions(fig, names, P_)
    clear = clear_of_boundaries(decide, P_, 1.5 * (xs[1] - xs[0]))
    assert clear.mean() > 0.8
    assert np.all(hits[clear] == 1)
    assert np.array_equal(got[clear].astype(int), np.asarray(decide(P_))[clear])


def test_every_dag_panel_figure_draws_polygons_and_names_each_region_once(dag_fits):
    from svmviz.models.dag import DAGSVC
    from svmviz.plots import dag as P

    models, ds = dag_fits
    voting = models["voting"]
    figs = [P.plot_pairwise_grid(voting, ds.X, ds.y, ds.class_names),
            P.plot_order_comparison([DAGSVC.from_pairwise(voting, o) for o in P.distinct_orders(voting.classes_, 3)],
                                    ds.X, ds.y, ds.class_names),
            P.plot_cluster_regions(models["wdag"], ds.X, ds.y, ds.class_names),
            P.plot_pairwise_boundaries(voting, ds.X, ds.y, ds.class_names)]
    for fig in figs:
        assert not any(t.type in ("heatmap", "contour") for t in fig.data), fig.layout.title.text
        swatches = [t.name for t in fig.data if t.showlegend is not False and t.x is not None and t.x[0] is None]
        assert len(swatches) == len(set(swatches))
    for fig in figs[:3]:
        assert {f"region of {class_text(n)}" for n in ds.class_names} <= {t.name for t in fig.data}


# ---------------------------------------------------------------- tree decomposition (Chang et al. 2009)
def test_the_td_partition_draws_each_local_svm_region_as_polygons_that_agree_with_it(fourclass):
    """At every σ of the search: the local SVMs' regions agree with the model read at that σ, in
    one trace per class and one of boundaries however many leaves have an SVM (the browser's
    work grows with the traces: σ₀'s dozen leaves drew forty)."""
    from svmviz.data.preprocessing import split_and_normalize
    from svmviz.models import TreeDecompositionSVC
    from svmviz.plots.tree_decomposition import plot_partition

    train, _ = split_and_normalize(fourclass, "none", 0.3, 0, True)
    model = TreeDecompositionSVC(C_grid=(1.0, 10.0, 100.0), gamma_grid=(0.1, 1.0, 10.0),
                                 svm_solver="libsvm").fit(train.X, train.y)
    K = model.classes_.size
    names = {f"region of {class_text(c)}": c for c in model.classes_}
    with_svm = []
    for level in model.search_path_:
        with_svm.append(sum(lf.svm is not None for lf in model.level_leaves(level.sigma)))
        fig = plot_partition(model, train.X, train.y, sigma=level.sigma)
        assert not any(t.type in ("heatmap", "contour") for t in fig.data)
        # K regions, the boundaries, K swatches, K classes of points
        assert len(fig.data) == 3 * K + 1, (level.sigma, [t.name for t in fig.data])
        assert len(pio.to_json(fig, validate=False)) < 60_000
        assert set(names) <= {t.name for t in fig.data if t.showlegend is not False}
        xr, yr = fig.layout.xaxis.range, fig.layout.yaxis.range
        P = np.column_stack([a.ravel() for a in np.meshgrid(np.linspace(*xr, 97)[1:-1], np.linspace(*yr, 89)[1:-1])])
        got, hits = labels_from_regions(fig, names, P)
        predict = lambda Q, sigma=level.sigma: model.predict(Q, sigma=sigma)  # noqa: E731
        clear = clear_of_boundaries(predict, P, 0.02 * (xr[1] - xr[0]))
        local = clear & (hits == 1)           # in a leaf with a local SVM (the others are shapes)
        assert local.mean() > 0.2, level.sigma   # σ₀: most of the plane in homogeneous leaves
        assert np.array_equal(got[local].astype(model.classes_.dtype), predict(P)[local])
    assert max(with_svm) >= 3, with_svm


# ---------------------------------------------------------------- the decision-function view of every page
def _decision_view(model, X, y, plane=None):
    from svmviz.plots.standard import decision_contours

    return decision_contours(model, X, y, ["−1", "+1"], plane)


def _agrees_with_the_sign_of_f(fig, model, plane=None, smooth=True):
    """The decided regions of the decision-function view against the sign of f; for a ``smooth``
    f, its lines f = 0 and f = ±1 on their levels of f and labelled on the plot."""
    assert not any(t.type in ("heatmap", "contour") for t in fig.data)
    names = {"decided −1 (f < 0)": -1, "decided +1 (f > 0)": 1}
    swatches = {t.name for t in fig.data if t.showlegend is not False and t.x[0] is None}
    assert set(names) <= swatches                   # a legend entry per decided region
    xr, yr = fig.layout.xaxis.range, fig.layout.yaxis.range
    P = np.column_stack([a.ravel() for a in np.meshgrid(np.linspace(*xr, 91)[1:-1], np.linspace(*yr, 87)[1:-1])])
    f = lambda Q: model.decision_function(plane.lift(Q) if plane is not None else Q)   # noqa: E731
    sign = lambda Q: np.sign(f(Q)).astype(int)   # noqa: E731
    got, hits = labels_from_regions(fig, names, P)
    clear = clear_of_boundaries(sign, P, 0.015 * (xr[1] - xr[0]))
    assert clear.mean() > 0.8
    assert np.all(hits[clear] == 1)                 # the two regions tile the view
    assert np.array_equal(got[clear].astype(int), sign(P)[clear])
    labels = {a.text for a in fig.layout.annotations}
    lines = [("boundary f(x) = 0", 0.0, "f = 0"), ("margin f(x) = −1", -1.0, "f = −1"),
             ("margin f(x) = +1", 1.0, "f = +1")]
    for name, level, label in lines if smooth else []:
        line = next(t for t in fig.data if t.name == name)
        L = np.array([(a, b) for a, b in zip(line.x, line.y) if a is not None], dtype=float)
        assert len(L) > 5 and np.abs(f(L) - level).max() < 0.05, name
        assert f"<b>{label}</b>" in labels, name      # each line labelled on the plot, not only in the legend


def test_the_decision_view_draws_the_regions_where_f_has_their_sign():
    from sklearn.svm import SVC

    rng = np.random.default_rng(2)
    X = rng.normal(size=(120, 2))
    y = np.where(X[:, 0] ** 2 + X[:, 1] > 0.5, 1, -1)
    model = SVC(C=10.0).fit(X, y)
    _agrees_with_the_sign_of_f(_decision_view(model, X, y), model)


def test_the_decision_view_of_data_in_more_dimensions_draws_the_model_on_its_plane():
    from sklearn.svm import SVC

    from svmviz.plots.common import Plane

    rng = np.random.default_rng(4)
    X = rng.normal(size=(150, 3))
    y = np.where(X[:, 0] - 0.8 * X[:, 1] + 0.3 * X[:, 2] ** 2 > 0.2, 1, -1)
    model, plane = SVC(C=10.0).fit(X, y), Plane(X, method="pca")
    _agrees_with_the_sign_of_f(_decision_view(model, X, y, plane), model, plane)


def test_the_decision_view_of_fourclass_is_small_and_agrees_with_the_model(fourclass):
    from svmviz.data.preprocessing import split_and_normalize
    from svmviz.models.svc import BinarySVC

    train, _ = split_and_normalize(fourclass, "none", 0.3, 0, True)
    model = BinarySVC(C=10.0, kernel="rbf", gamma=1.0).fit(train.X, train.y)
    fig = _decision_view(model, train.X, train.y)
    # every page sends it: a filled contour grid of f was 350 kB
    assert len(pio.to_json(fig, validate=False)) < 50_000
    _agrees_with_the_sign_of_f(fig, model)


def test_the_decision_view_of_an_svm_tree_puts_its_boundary_where_the_sign_of_f_changes():
    """An SVM tree's f is the distance to the node that decides: it jumps where one node's cell
    meets another's. The boundary is where its sign changes (a line interpolated across a jump
    drew a staircase beside it), and no margin is drawn along a jump."""
    from svmviz.models import SVMTreeClassifier

    rng = np.random.default_rng(7)
    angle, radius = rng.uniform(0, 2 * np.pi, 60), rng.uniform(1.0, 1.5, 60)
    X = np.vstack([np.c_[radius * np.cos(angle), radius * np.sin(angle)], rng.normal(0, 0.35, (60, 2))])
    y = np.repeat([-1, 1], 60)
    model = SVMTreeClassifier(C_hard=100.0).fit(X, y)
    fig = _decision_view(model, X, y)
    _agrees_with_the_sign_of_f(fig, model, smooth=False)
    line = next(t for t in fig.data if t.name == "boundary f(x) = 0")
    L = np.array([(a, b) for a, b in zip(line.x, line.y) if a is not None], dtype=float)
    h = 2e-3 * (fig.layout.xaxis.range[1] - fig.layout.xaxis.range[0])
    near = np.stack([np.sign(model.decision_function(L + d)) for d in
                     (np.array([dx, dy]) for dx in (-h, 0, h) for dy in (-h, 0, h))])
    assert np.all((near > 0).any(axis=0) & (near < 0).any(axis=0))     # both signs within h of every point
    for t in fig.data:
        if (t.name or "").startswith("margin"):
            M = np.array([(a, b) for a, b in zip(t.x, t.y) if a is not None], dtype=float)
            level = 1.0 if "+" in t.name else -1.0
            assert np.abs(model.decision_function(M) - level).max() <= 0.1, t.name


def test_the_labels_of_the_boundary_and_the_margins_stand_apart():
    """The margins run beside the boundary, so their midpoints are close: on fourclass-like the
    labels "f = −1" and "f = +1" were written one on the other (about 5 % of the plot apart).
    Each label goes to the point of its line farthest from the labels before it."""
    from sklearn.svm import SVC

    from svmviz.data import load_builtin, split_and_normalize

    train, _ = split_and_normalize(load_builtin("fourclass_like"), "none", 0.3, 0, True)
    for C in (1.0, 10.0):
        fig = _decision_view(SVC(C=C).fit(train.X, train.y), train.X, train.y)
        xr, yr = fig.layout.xaxis.range, fig.layout.yaxis.range
        at = [((a.x - xr[0]) / (xr[1] - xr[0]), (a.y - yr[0]) / (yr[1] - yr[0]))
              for a in fig.layout.annotations if a.text.startswith("<b>f =")]
        assert len(at) == 3
        assert min(np.hypot(p[0] - q[0], p[1] - q[1]) for i, p in enumerate(at) for q in at[i + 1:]) >= 0.2

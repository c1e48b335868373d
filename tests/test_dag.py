"""Sabzekar et al. (Improved DAG SVM): pairwise voting, DAG SVM and weighted DAG SVM (svmviz.models.dag)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.stats import multivariate_normal
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC
from sklearn.utils.estimator_checks import parametrize_with_checks

from regionhelpers import clear_of_boundaries, labels_from_regions
from svmviz.data.generators import interlaced
from svmviz.errors import DataError, ParameterError
from svmviz.export import dumps_model, loads_model
from svmviz.models.dag import DAGSVC, PairwiseVotingSVC, WeightedDAGSVC
from svmviz.plots.common import grid
from svmviz.plots.dag import distinct_orders


@pytest.fixture(scope="module")
def data3():
    ds = interlaced(3, n_per_class=30)
    return ds.X, ds.y


@pytest.fixture(scope="module")
def data4():
    """Four overlapping Gaussian classes (the fourth in the middle): ties and R_i regions both occur."""
    rng = np.random.default_rng(7)
    centres = np.array([[0.0, 0.0], [2.0, 0.0], [1.0, 1.7], [1.0, 0.6]])
    X = np.vstack([rng.normal(c, 0.7, size=(25, 2)) for c in centres])
    return X, np.repeat(np.arange(4), 25)


@pytest.fixture(scope="module")
def voting3(data3):
    return PairwiseVotingSVC(C=10.0).fit(*data3)


def _grid(X, res=70):
    return grid(X, res)[2]


def test_pairwise_decisions_match_sklearn_ovo(data3):
    """D_ij of eq. 5 is LIBSVM's one-against-one decision for the pair (sklearn's 'ovo' values,
    positive = the first class of the pair)."""
    X, y = data3
    ours = PairwiseVotingSVC(C=3.0, gamma=0.7, tol=1e-6).fit(X, y)
    ref = SVC(C=3.0, gamma=0.7, tol=1e-6, decision_function_shape="ovo").fit(X, y)
    G = _grid(X, 30)
    D = ours.pairwise_decision(G)
    R = ref.decision_function(G)
    for p, (i, j) in enumerate(ours.pairs_):  # sklearn orders pairs (0,1), (0,2), (1,2) as we do
        np.testing.assert_allclose(D[:, i, j], R[:, p], atol=2e-3)
    np.testing.assert_allclose(D, -np.transpose(D, (0, 2, 1)))


def test_votes_and_unclassifiable_follow_eq_7_to_9(voting3, data3):
    X, _ = data3
    G = _grid(X)
    D = voting3.pairwise_decision(G)
    V = voting3.votes(G)
    K = 3
    expect = np.array([[sum(1 if D[n, i, j] >= 0 else -1 for j in range(K) if j != i) for i in range(K)]
                       for n in range(0, G.shape[0], 7)])
    np.testing.assert_array_equal(V[::7], expect)
    tied = voting3.unclassifiable(G)
    assert tied.any() and not tied.all()  # Data3 has a grey region (Fig. 1), but not everywhere
    # with three classes a tie is a cycle: every class wins exactly one pair (D_i = 0, Fig. 1)
    np.testing.assert_array_equal(V[tied], 0)
    # inside R_i (eq. 6) the class wins all its n − 1 pairs
    R = voting3.regions(G)
    inside = R >= 0
    np.testing.assert_array_equal(V[inside, R[inside]], K - 1)
    assert not np.any(inside & tied)
    np.testing.assert_array_equal(voting3.predict(G)[inside], voting3.classes_[R[inside]])


@pytest.mark.parametrize("which", ["data3", "data4"])
def test_dag_agrees_with_voting_where_voting_has_a_unique_winner(which, request):
    """For K ≤ 4 a unique max-wins winner wins all its pairs (votes sum to K(K−1)/2), so no DAG
    drops it. For K ≥ 5 this need not hold (e.g. votes 3, 2, 2, 2, 1), hence K = 3 and 4 here."""
    X, y = request.getfixturevalue(which)
    voting = PairwiseVotingSVC(C=10.0).fit(X, y)
    G = _grid(X, 60)
    unique = ~voting.unclassifiable(G)
    vote_pred = voting.predict(G)
    K = voting.classes_.size
    for order in itertools.permutations(voting.classes_.tolist()):
        dag = DAGSVC.from_pairwise(voting, list(order))
        np.testing.assert_array_equal(dag.predict(G)[unique], vote_pred[unique])
    assert K in (3, 4) and unique.mean() > 0.5


@pytest.mark.parametrize("which", ["data3", "data4"])
def test_inside_region_R_i_every_order_predicts_i(which, request):
    X, y = request.getfixturevalue(which)
    voting = PairwiseVotingSVC(C=10.0).fit(X, y)
    G = _grid(X, 60)
    R = voting.regions(G)
    inside = R >= 0
    assert inside.mean() > 0.5
    for order in itertools.permutations(voting.classes_.tolist()):
        pred = DAGSVC.from_pairwise(voting, list(order)).predict_index(G)
        np.testing.assert_array_equal(pred[inside], R[inside])


def test_dag_regions_depend_on_the_order_only_in_the_tied_region(voting3, data3):
    X, _ = data3
    G = _grid(X)
    tied = voting3.unclassifiable(G)
    preds = {o: DAGSVC.from_pairwise(voting3, list(o)).predict(G) for o in itertools.permutations(range(3))}
    # different lists do give different regions (Fig. 3) ...
    assert len({p[tied].tobytes() for p in preds.values()}) == 3
    # ... a list and its reverse give the same DAG
    for o, p in preds.items():
        np.testing.assert_array_equal(p, preds[o[::-1]])
    assert len(distinct_orders([0, 1, 2])) == 3 and len(distinct_orders([0, 1, 2, 3], limit=99)) == 12


def test_decision_path_compares_first_and_last(data4):
    X, y = data4
    order = [2, 0, 3, 1]
    dag = DAGSVC(order=order, C=10.0).fit(X, y)
    G = _grid(X, 25)
    path = dag.decision_path(G)
    pred = dag.predict(G)
    assert path.shape == (G.shape[0], 3, 2)
    np.testing.assert_array_equal(path[:, 0], np.tile([2, 1], (G.shape[0], 1)))
    D = dag.pairwise_decision(G)
    for n in range(0, G.shape[0], 5):
        remaining = list(order)
        for level in range(3):
            i, j = remaining[0], remaining[-1]
            assert list(path[n, level]) == [i, j]
            remaining.remove(j if D[n, i, j] >= 0 else i)  # D_ij ≥ 0: "not j" (Sabzekar et al. §3)
        assert remaining == [pred[n]]


def test_voting_over_a_dags_pairwise_svms(voting3, data3):
    X, y = data3
    dag = DAGSVC(order=[2, 0, 1], C=10.0).fit(X, y)
    v = PairwiseVotingSVC.from_pairwise(dag)
    G = _grid(X, 30)
    np.testing.assert_array_equal(v.votes(G), voting3.votes(G))  # same C, same pairwise SVMs
    assert v.estimators_ is dag.estimators_


def test_refit_with_order_equals_reusing_the_pairwise_svms(voting3, data3):
    X, y = data3
    G = _grid(X, 40)
    a = DAGSVC(order=[1, 2, 0], C=10.0).fit(X, y)
    b = DAGSVC.from_pairwise(voting3, [1, 2, 0])
    np.testing.assert_array_equal(a.predict(G), b.predict(G))
    np.testing.assert_array_equal(a.with_order([0, 2, 1]).predict(G), b.with_order([0, 2, 1]).predict(G))


def test_bad_orders_and_parameters_are_explained(data3):
    X, y = data3
    with pytest.raises(ParameterError, match="not a class"):
        DAGSVC(order=[0, 1, 5]).fit(X, y)
    with pytest.raises(ParameterError, match="exactly once"):
        DAGSVC(order=[0, 1, 1]).fit(X, y)
    with pytest.raises(ParameterError, match="weight"):
        WeightedDAGSVC(weight="bayes").fit(X, y)
    with pytest.raises(ParameterError, match="n_clusters"):
        WeightedDAGSVC(n_clusters=500).fit(X, y)
    with pytest.raises(DataError, match="distinct"):
        WeightedDAGSVC(n_clusters=3).fit(np.tile([[0.0, 0.0], [1.0, 1.0]], (5, 1)), np.repeat([0, 1], 5))


def test_wdag_with_one_cluster_equals_the_dag(data3):
    X, y = data3
    G = _grid(X, 50)
    for order in ([0, 1, 2], [2, 0, 1]):
        dag = DAGSVC(order=order, C=5.0).fit(X, y)
        w = WeightedDAGSVC(n_clusters=1, order=order, C=5.0, random_state=0).fit(X, y)
        np.testing.assert_array_equal(w.predict(G), dag.predict(G))
        np.testing.assert_allclose(w.weights(G), 1.0)


def test_one_class_cluster_predicts_its_class():
    # class 2 sits alone far away: K-Means gives it its own cluster, which holds no SVM
    rng = np.random.default_rng(1)
    X = np.vstack([rng.normal([0, 0], 0.5, (30, 2)), rng.normal([1, 0], 0.5, (30, 2)),
                   rng.normal([20, 20], 0.5, (30, 2))])
    y = np.repeat(["a", "b", "c"], 30)
    w = WeightedDAGSVC(n_clusters=2, random_state=0).fit(X, y)
    lone = [M for M in range(2) if w.cluster_models_[M] is None]
    assert len(lone) == 1
    M = lone[0]
    assert w.classes_[w.cluster_constant_[M]] == "c"
    G = np.vstack([_grid(X, 20), [[19.0, 21.0], [-50.0, 3.0]]])
    np.testing.assert_array_equal(w.classes_[w.cluster_predictions(G)[:, M]], "c")
    assert w.predict([[20.0, 20.0]])[0] == "c"
    assert set(w.predict(X[:60])) <= {"a", "b"}


@pytest.mark.parametrize("weight", ["gaussian", "gaussian_paper"])
def test_weights_are_the_densities_normalised_and_safe_far_away(data3, weight):
    X, y = data3
    w = WeightedDAGSVC(n_clusters=3, weight=weight, random_state=0).fit(X, y)
    near = X[:20]
    L = w.log_densities(near)
    for M in range(3):
        mu, S = w.means_[M], w.covariances_[M]
        if weight == "gaussian":
            ref = multivariate_normal(mu, S).logpdf(near)
        else:  # Sabzekar et al. eq. 12 as printed
            q = np.einsum("ni,ij,nj->n", near - mu, np.linalg.inv(S), near - mu)
            ref = np.log(1 / (np.sqrt(2 * np.pi) * np.sqrt(np.linalg.det(S)))) - q
        np.testing.assert_allclose(L[:, M], ref, rtol=1e-9, atol=1e-9)
    far = np.array([[1e3, 1e3], [-1e8, 5e7], [1e150, -1e150], [0.5, 1e12]])
    W = w.weights(far)
    assert np.all(np.isfinite(W)) and np.all(W >= 0)
    np.testing.assert_allclose(W.sum(axis=1), 1.0)
    assert np.all(np.isfinite(w.tau(far))) and w.predict(far).shape == (4,)


def test_tau_is_the_weighted_vote_of_eq_16(data3):
    X, y = data3
    w = WeightedDAGSVC(n_clusters=4, random_state=3, C=10.0).fit(X, y)
    G = _grid(X, 30)
    W, L, T = w.weights(G), w.cluster_predictions(G), w.tau(G)
    expect = np.array([[W[n, L[n] == i].sum() for i in range(3)] for n in range(G.shape[0])])
    np.testing.assert_allclose(T, expect)
    np.testing.assert_array_equal(w.predict(G), w.classes_[np.argmax(expect, axis=1)])
    # each cluster's Gaussian is its samples' mean and regularised sample covariance (eq. 10–11)
    scale = np.mean(X.var(axis=0))
    for M in range(4):
        XM = X[w.cluster_labels_ == M]
        np.testing.assert_allclose(w.means_[M], XM.mean(axis=0))
        np.testing.assert_allclose(w.covariances_[M], np.cov(XM.T) + 1e-3 * scale * np.eye(2))


@pytest.mark.parametrize("kernel", ["linear", "rbf", "poly", "sigmoid"])
def test_every_kernel_with_both_backends(kernel):
    ds = interlaced(2, n_per_class=12)
    kw = dict(kernel=kernel, C=1.0, gamma=0.5, coef0=0.5 if kernel != "sigmoid" else -0.5, degree=2, tol=1e-5)
    a = PairwiseVotingSVC(solver="smo", **kw).fit(ds.X, ds.y)
    b = PairwiseVotingSVC(solver="cvxpy", **kw).fit(ds.X, ds.y)
    w = WeightedDAGSVC(n_clusters=2, random_state=0, solver="cvxpy", **kw).fit(ds.X, ds.y)
    assert set(w.predict(ds.X)) <= set(ds.classes)
    if kernel == "sigmoid":
        # not positive semidefinite: the reference solves the QP with Q's negative eigenvalues
        # clipped, SMO the indefinite QP itself (as LIBSVM), so they need not agree
        assert set(a.predict(ds.X)) <= set(ds.classes) and set(b.predict(ds.X)) <= set(ds.classes)
        return
    for ea, eb in zip(a.estimators_, b.estimators_):
        assert ea.objective_ == pytest.approx(eb.objective_, rel=1e-3, abs=1e-4)
    G = _grid(ds.X, 15)
    np.testing.assert_allclose(a.pairwise_decision(G), b.pairwise_decision(G), atol=2e-2)
    assert w.score(ds.X, ds.y) > 0.5


def test_json_round_trip(data3):
    X, y = data3
    yl = np.array(["setosa", "versicolor", "virginica"])[y]
    G = _grid(X, 30)
    models = [PairwiseVotingSVC(C=10.0).fit(X, yl), DAGSVC(order=["virginica", "setosa", "versicolor"]).fit(X, yl),
              WeightedDAGSVC(n_clusters=3, weight="gaussian_paper", random_state=0).fit(X, yl)]
    # a WDAG holding a one-class cluster (no SVM) also survives the round trip
    rng = np.random.default_rng(0)
    Xs = np.vstack([X, rng.normal([30, 30], 0.3, (10, 2))])
    ys = np.r_[y, np.full(10, 3)]
    lone = WeightedDAGSVC(n_clusters=2, random_state=0).fit(Xs, ys)
    assert any(m is None for m in lone.cluster_models_)
    models.append(lone)
    for m in models:
        back = loads_model(dumps_model(m))
        assert type(back) is type(m)
        np.testing.assert_array_equal(back.predict(G), m.predict(G))
        if hasattr(m, "decision_path"):
            np.testing.assert_array_equal(back.decision_path(G), m.decision_path(G))
        if hasattr(m, "weights"):
            np.testing.assert_allclose(back.weights(G), m.weights(G))


def test_two_classes_reduce_to_the_binary_svm():
    ds = interlaced(3, n_per_class=20)
    m = ds.y < 2
    X, y = ds.X[m], ds.y[m]
    ref = SVC(C=2.0, gamma=0.5, tol=1e-6).fit(X, y)
    G = _grid(X, 30)
    for est in (PairwiseVotingSVC(C=2.0, gamma=0.5, tol=1e-6), DAGSVC(C=2.0, gamma=0.5, tol=1e-6),
                WeightedDAGSVC(n_clusters=1, C=2.0, gamma=0.5, tol=1e-6)):
        est.fit(X, y)
        agree = np.mean(est.predict(G) == ref.predict(G))
        assert agree > 0.995


def test_pipeline_and_grid_search(data3):
    X, y = data3
    pipe = make_pipeline(StandardScaler(), DAGSVC())
    gs = GridSearchCV(pipe, {"dagsvc__C": [0.1, 10.0], "dagsvc__order": [None, [2, 1, 0]]}, cv=3).fit(X, y)
    assert gs.best_score_ > 0.6
    gs = GridSearchCV(WeightedDAGSVC(random_state=0), {"n_clusters": [1, 3]}, cv=3).fit(X, y)
    assert gs.best_score_ > 0.6 and gs.best_estimator_.score(X, y) > 0.6


def _checked():
    yield PairwiseVotingSVC(C=1.0)
    yield DAGSVC(C=1.0)
    yield WeightedDAGSVC(n_clusters=2, random_state=0)


# No check is expected to fail, so none is skipped (fit takes no sample_weight, so the
# sample-weight checks do not apply).
@parametrize_with_checks(list(_checked()))
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_dag_diagram_and_region_figures(voting3, data3):
    from svmviz.plots import dag as P

    X, y = data3
    dag = DAGSVC.from_pairwise(voting3, [2, 0, 1])
    fig = P.plot_dag_diagram(dag, ["a", "b", "c"], X=X, highlight=X[0])
    nodes = fig.data[-1]
    assert list(nodes.text) == ["c<br>vs<br>b", "c<br>vs<br>a", "a<br>vs<br>b", "c", "a", "b"]  # Fig. 2 for [c, a, b]
    labels = [a.text for a in fig.layout.annotations]
    assert len(labels) == 6 and labels[0].startswith("not b") and labels[1].startswith("not c")
    # every training sample takes one edge per level: the counts of a level add up to n
    counts = [int(t.split("(")[1].rstrip(")")) for t in labels]
    assert sum(counts[:2]) == len(y) and sum(counts[2:]) == len(y)
    assert sum(tr.line.width == 5 for tr in fig.data[:-1]) == 2  # the highlighted path: K − 1 edges
    # long names are cut on the diagram and whole in its hover (every node and edge label)
    long = ["north-east corridor", "south", "west <b>"]
    fig = P.plot_dag_diagram(dag, long, X=X)
    nodes = fig.data[-1]
    assert nodes.text[0] == "west &lt;b&gt;<br>vs<br>south" and nodes.text[3] == "west &lt;b&gt;"
    assert nodes.text[4] == "north-eas…" and "north-east corridor" in nodes.hovertext[1]
    labels = [a.text.split("<br>")[0] for a in fig.layout.annotations]
    assert labels == ["not south", "not west &lt;b&gt;", "not north-eas…", "not west &lt;b&gt;", "not south",
                      "not north-eas…"]
    assert fig.layout.annotations[2].hovertext.startswith("not north-east corridor: ")
    assert fig.layout.title.text == "Decision DAG"
    # the list wrapped at a space: on one line it ran beyond a 320 px column
    assert fig.layout.title.subtitle.text == "class list [west &lt;b&gt;,<br>north-eas…, south]"
    # the voting map's grey region is exactly where the votes tie (away from its edge)
    vfig = P.plot_voting_regions(voting3, X, y, resolution=60)
    xs, ys, _ = grid(X, 60)
    mid = lambda v: 0.5 * (v[:-1] + v[1:])   # noqa: E731  (the cells' centres: off the box's edge)
    G = np.column_stack([a.ravel() for a in np.meshgrid(mid(xs), mid(ys))])
    grey, _ = labels_from_regions(vfig, {"unclassifiable": True}, G)
    clear = clear_of_boundaries(voting3.unclassifiable, G, xs[1] - xs[0])
    assert voting3.unclassifiable(G[clear]).any()
    np.testing.assert_array_equal((grey == True)[clear], voting3.unclassifiable(G[clear]))  # noqa: E712


# ---------------------------------------------------------------- where WDAG can win
def test_cluster_class_diagnostic_lists_the_missing_classes():
    from sklearn.datasets import load_iris

    from svmviz.models.dag import ClusterClassWarning

    X, y = load_iris(return_X_y=True)
    yl = np.array(["setosa", "versicolor", "virginica"])[y]
    with pytest.warns(ClusterClassWarning, match="requires every cluster to contain every class"):
        w = WeightedDAGSVC(n_clusters=3, random_state=0).fit(X, yl)
    for M in range(3):  # recomputed from the clusters' samples
        present = set(yl[w.cluster_labels_ == M])
        assert set(w.classes_[w.cluster_missing_[M]]) == set(w.classes_) - present
    assert list(w.incomplete_clusters_) == [M for M in range(3) if w.cluster_missing_[M].size]
    assert w.incomplete_clusters_.size  # setosa sits apart: iris clusters cannot all hold it
    msg = w.missing_classes_message()
    for M in w.incomplete_clusters_:
        assert f"cluster {M + 1} " in msg  # numbered from 1, as the plots
    back = loads_model(dumps_model(w))
    assert [list(m) for m in back.cluster_missing_] == [list(m) for m in w.cluster_missing_]
    np.testing.assert_array_equal(back.incomplete_clusters_, w.incomplete_clusters_)


def test_locally_separable_data_is_where_per_cluster_dags_win():
    import warnings

    from svmviz.data.generators import local_triangles

    ds = local_triangles(n_per_class=20, seed=1)
    tr = np.random.default_rng(0).random(ds.y.size) < 0.7
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # every cluster holds every class: no diagnostic
        w = WeightedDAGSVC(n_clusters=3, kernel="linear", weight="gaussian_paper", random_state=0).fit(ds.X[tr], ds.y[tr])
    assert w.incomplete_clusters_.size == 0 and all(m.size == 0 for m in w.cluster_missing_)
    dag = DAGSVC(kernel="linear").fit(ds.X[tr], ds.y[tr])
    # globally mixed: one linear DAG is near chance; locally separable: per-cluster ones are not
    assert dag.score(ds.X[~tr], ds.y[~tr]) < 0.6
    assert w.score(ds.X[~tr], ds.y[~tr]) > 0.95

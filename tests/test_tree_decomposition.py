"""TreeDecompositionSVC (Chang, Guo, Lin and Lu 2009): the tree of §2.1, the search of §2.2,
leaves, NSV, bound terms, parallel/Dask runs, JSON round trip and scikit-learn conformance."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.svm import SVC
from sklearn.utils.estimator_checks import parametrize_with_checks

from svmviz.errors import DataError, ParameterError
from svmviz.export import dumps_model, loads_model
from svmviz.models import TreeDecompositionSVC
from svmviz.data.generators import shuttle_like
from svmviz.models import _td_tree
from svmviz.models.tree_decomposition import MIN_SIGMA0

SMALL = dict(C_grid=(1.0, 10.0, 100.0), gamma_grid=(0.1, 1.0, 10.0), svm_solver="libsvm")
STRIP = 0.25   # a wider strip where the classes meet than the generator's default: more mixed leaves


@pytest.fixture(scope="module")
def fitted(fourclass):
    X, y = fourclass.X, fourclass.y
    rng = np.random.default_rng(1)
    val = rng.random(X.shape[0]) < 0.2
    m = TreeDecompositionSVC(**SMALL).fit(X[~val], y[~val], X_val=X[val], y_val=y[val])
    return m, X[~val], y[~val], X[val], y[val]


def test_homogeneous_leaves_predict_their_class():
    ds = shuttle_like(strip=STRIP)
    X, y = ds.X, ds.y
    m = TreeDecompositionSVC(**SMALL).fit(X, y)
    homog = [lf for lf in m.leaves_ if lf.homogeneous]
    assert homog and m.homogeneous_fraction_ > 0.3
    assert m.homogeneous_fraction_ == pytest.approx(sum(lf.size for lf in homog) / m.n_train_)
    # Fresh points anywhere inside a homogeneous leaf's box get its class, and its training
    # samples were all of that class.
    boxes = m.tree_.boxes(np.array([-1.0, -1.0]), np.array([1.0, 1.0]))
    rng = np.random.default_rng(3)
    for lf in homog:
        assert np.count_nonzero(lf.class_counts) == 1 and lf.svm is None
        lo, hi = boxes[lf.node]
        P = rng.uniform(lo, hi, size=(50, 2))
        P = P[m.tree_.apply(P, m.sigma_) == lf.node]
        assert np.all(m.predict(P) == m.classes_[lf.label])
    assert m.nsv(X) < np.mean([lf.svm.n_support for lf in m.leaves_ if not lf.homogeneous])


def test_sigma_at_least_n_is_the_global_svm(fourclass):
    X, y = fourclass.X[::30], fourclass.y[::30]  # 29 samples: σ₀ = 30 ≥ n
    Xv, yv = fourclass.X[1::7], fourclass.y[1::7]
    m = TreeDecompositionSVC(**SMALL).fit(X, y, X_val=Xv, y_val=yv)
    assert m.sigma0_ == MIN_SIGMA0 >= X.shape[0]
    assert len(m.search_path_) == 1 and len(m.leaves_) == 1 and m.leaves_[0].node == 0
    g = SVC(C=m.params_["C"], gamma=m.params_["gamma"]).fit(X, y)
    grid = np.random.default_rng(0).uniform(-1, 1, size=(400, 2))
    np.testing.assert_allclose(m.decision_function(grid), g.decision_function(grid), atol=1e-6)
    assert m.nsv(grid) == g.support_.size
    # And on a large tree: reading it at σ ≥ n leaves the root alone.
    big = TreeDecompositionSVC(**SMALL).fit(fourclass.X, fourclass.y)
    assert list(big.tree_.leaves_at(big.n_train_)) == [0]
    assert np.all(big.tree_.apply(fourclass.X, big.n_train_) == 0)


def test_larger_ceilings_read_the_same_tree(fourclass, monkeypatch):
    calls = []
    grow = _td_tree.grow_tree

    def counting(*a, **k):
        calls.append(a[3])
        return grow(*a, **k)

    monkeypatch.setattr(_td_tree, "grow_tree", counting)
    X, y = fourclass.X, fourclass.y
    m = TreeDecompositionSVC(**SMALL, min_gain=0.0).fit(X, y, X_val=X[::5], y_val=y[::5])
    assert len(m.search_path_) >= 2 and calls == [m.sigma0_]  # one tree for every σ_t
    # The tree read at σ_t is the tree grown directly to σ_t (§2.2 "drop a few nodes").
    yi = np.searchsorted(m.classes_, y)
    for lvl in m.search_path_[1:]:
        fresh = grow(X, yi, 2, lvl.sigma)
        a, b = m.tree_.apply(X, lvl.sigma), fresh.apply(X, lvl.sigma)
        pairs = set(zip(a.tolist(), b.tolist()))
        assert len(pairs) == len(set(a.tolist())) == len(set(b.tolist())) == lvl.n_leaves


def test_search_follows_section_2_2(fitted):
    m, Xt, yt, Xv, yv = fitted
    path = m.search_path_
    grid = [(C, g) for g in SMALL["gamma_grid"] for C in SMALL["C_grid"]]
    assert path[0].sigma == m.sigma0_ and path[0].C.size == len(grid)
    order = np.argsort(-path[0].accuracy, kind="stable")[: m.top_k]
    top = {grid[i] for i in order}
    n = m.n_train_
    for t in range(1, len(path)):
        assert path[t].sigma == 4 * path[t - 1].sigma
        assert set(zip(path[t].C, path[t].gamma)) == top
        assert path[t].best_accuracy == path[t].accuracy.max()
    last_gain = path[-1].best_accuracy - path[-2].best_accuracy if len(path) > 1 else None
    for t in range(1, len(path) - 1):  # every stage before the last went on by the rule
        assert path[t].best_accuracy - path[t - 1].best_accuracy >= m.min_gain and path[t].sigma < n
    if last_gain is not None and last_gain < m.min_gain:
        assert m.sigma_ == path[-2].sigma
    else:
        assert path[-1].sigma >= n and m.sigma_ == path[-1].sigma
    best = [lv for lv in path if lv.sigma == m.sigma_][0]
    assert m.params_ == {"C": best.C[best.best], "gamma": best.gamma[best.best]}
    # The reported accuracy is the validation accuracy of the chosen TD classifier.
    assert np.mean(m.predict(Xv) == yv) == pytest.approx(best.best_accuracy)


def test_large_min_gain_stops_after_one_stage(fourclass):
    m = TreeDecompositionSVC(**SMALL, min_gain=0.5).fit(fourclass.X, fourclass.y)
    assert len(m.search_path_) == 2 and m.sigma_ == m.sigma0_


def test_leaf_svm_is_libsvm_on_the_leaf(fitted):
    m, Xt, yt, Xv, yv = fitted
    pos = m.tree_.apply(Xt, m.sigma_)
    for lf in m.leaves_:
        if lf.homogeneous:
            continue
        rows = pos == lf.node
        assert rows.sum() == lf.size
        g = SVC(C=m.params_["C"], gamma=m.params_["gamma"]).fit(Xt[rows], yt[rows])
        np.testing.assert_allclose(m.decision_function(Xv[m.tree_.apply(Xv, m.sigma_) == lf.node]),
                                   g.decision_function(Xv[m.tree_.apply(Xv, m.sigma_) == lf.node]), atol=1e-6)
        assert lf.svm.n_support == g.support_.size


def test_bound_terms_match_duality(fitted):
    m, Xt, yt, _, _ = fitted
    C = m.params_["C"]
    terms = m.leaf_bound_terms(Xt, yt)
    assert len(terms) == sum(not lf.homogeneous for lf in m.leaves_)
    for t in terms:  # strong duality of the C-SVM: Σα = ‖w‖² + C Σξ
        lf = [lf for lf in m.leaves_ if lf.node == t["node"]][0]
        sum_alpha = np.abs(lf.svm.dual_coef).sum()
        assert t["beta2"] + C * t["xi_sum"] == pytest.approx(sum_alpha, rel=2e-2)
    b = m.bound_terms(Xt, yt)
    n, L = Xt.shape[0], len(m.leaves_)
    assert b["R"] == pytest.approx(sum(t["beta2"] + t["xi_sq"] for t in terms))
    assert b["T1"] == pytest.approx(b["R"] * np.log(n) ** 2)
    assert b["T2"] == pytest.approx(L * np.log(2 * n * L ** 2))
    assert b["S"] > 0


@pytest.mark.parametrize("multi_class", ["ovo", "ovr"])
def test_multiclass_leaves(multi_class):
    from svmviz.data.generators import checkerboard

    ds = checkerboard(4, 150, overlap=0.3, seed=2)
    m = TreeDecompositionSVC(**SMALL, multi_class=multi_class, sigma0=60).fit(ds.X, ds.y)
    multi = [lf for lf in m.leaves_ if not lf.homogeneous and lf.svm.classes.size > 2]
    assert multi, "the overlapping board should leave leaves with three or more classes"
    for lf in multi:
        k = lf.svm.classes.size
        assert lf.svm.machines.shape[0] == (k * (k - 1) // 2 if multi_class == "ovo" else k)
    assert np.mean(m.predict(ds.X) == ds.y) > 0.85
    S = m.decision_function(ds.X)
    assert S.shape == (ds.X.shape[0], 4)
    assert np.all(m.classes_[np.argmax(S, axis=1)] == m.predict(ds.X))


def test_multiclass_leaf_svm_is_libsvm_one_vs_one():
    from svmviz.data import load_builtin
    from svmviz.models._td_local import train_leaf

    ds = load_builtin("digits")
    X, y, Z = ds.X[:300] / 16, ds.y[:300], ds.X[300:600] / 16
    ref = SVC(C=10.0, gamma=0.05, decision_function_shape="ovo").fit(X, y)
    for solver, atol in (("libsvm", 1e-9), ("smo", 5e-3)):
        (_, svm, _), = train_leaf(X, y, X[:0], 0.05, [10.0], "ovo", solver, 10)
        assert svm.machines.shape == (45, 2)
        np.testing.assert_allclose(svm.decision(Z), ref.decision_function(Z), atol=atol)
        assert np.mean(np.argmax(svm.scores(Z, 10), axis=1) == ref.predict(Z)) > 0.99


def test_sequential_parallel_and_dask_agree(fourclass):
    import joblib
    from distributed import Client, LocalCluster, get_task_stream

    X, y = fourclass.X, fourclass.y
    grid = np.random.default_rng(0).uniform(-1, 1, size=(2000, 2))
    seq = TreeDecompositionSVC(**SMALL).fit(X, y)
    par = TreeDecompositionSVC(**SMALL, n_jobs=2).fit(X, y)
    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None) as cl, \
            Client(cl) as client, joblib.parallel_backend("dask"):
        # the task stream records what the workers ran; the scheduler's task groups would not do:
        # it forgets them as soon as the fit has released its results
        with get_task_stream(client) as ran:
            dsk = TreeDecompositionSVC(**SMALL).fit(X, y)
    assert any("train_leaf" in str(task["key"]) for task in ran.data)
    for other in (par, dsk):
        assert other.sigma_ == seq.sigma_ and other.params_ == seq.params_
        np.testing.assert_array_equal(other.predict(grid), seq.predict(grid))


def test_json_round_trip(fitted):
    m, Xt, yt, Xv, _ = fitted
    m2 = loads_model(dumps_model(m))
    assert isinstance(m2, TreeDecompositionSVC)
    np.testing.assert_array_equal(m2.predict(Xv), m.predict(Xv))
    np.testing.assert_array_equal(m2.decision_function(Xv), m.decision_function(Xv))
    assert m2.nsv(Xv) == m.nsv(Xv) and m2.sigma_ == m.sigma_
    assert [lv.sigma for lv in m2.search_path_] == [lv.sigma for lv in m.search_path_]


def test_smo_solver_agrees_with_libsvm(fourclass):
    X, y = fourclass.X, fourclass.y
    kw = dict(C_grid=(10.0,), gamma_grid=(1.0,), min_gain=0.5)
    a = TreeDecompositionSVC(**kw, svm_solver="smo").fit(X, y)
    b = TreeDecompositionSVC(**kw, svm_solver="libsvm").fit(X, y)
    grid = np.random.default_rng(0).uniform(-1, 1, size=(1000, 2))
    np.testing.assert_allclose(a.decision_function(grid), b.decision_function(grid), atol=5e-3)


def test_bad_input_messages(fourclass):
    X, y = fourclass.X, fourclass.y
    with pytest.raises(ParameterError, match="multi_class"):
        TreeDecompositionSVC(multi_class="dag").fit(X, y)
    with pytest.raises(ParameterError, match="svm_solver"):
        TreeDecompositionSVC(svm_solver="liblinear").fit(X, y)
    with pytest.raises(ParameterError, match="gamma_grid"):
        TreeDecompositionSVC(gamma_grid=(-1.0,)).fit(X, y)
    with pytest.raises(DataError, match="not one of the training classes"):
        TreeDecompositionSVC(**SMALL).fit(X, y, X_val=X[:5], y_val=np.full(5, 7))
    m = TreeDecompositionSVC(**SMALL).fit(X, y)
    with pytest.raises(ParameterError, match="not searched"):
        m.predict(X, sigma=3)


# check_estimator's sets are tiny; a 2 × 2 grid keeps it fast.
@parametrize_with_checks([TreeDecompositionSVC(C_grid=(1.0, 100.0), gamma_grid=(0.1, 1.0), svm_solver="libsvm")])
def test_sklearn_compatible(estimator, check):
    check(estimator)


# ---------------------------------------------------------------- extensions (purity_tol, reused leaves)
def noisy_regions(n=4000, noise=0.01, seed=0):
    """shuttle_like with ``noise`` of the labels flipped: no large leaf is exactly homogeneous."""
    ds = shuttle_like(n, strip=STRIP, noise=noise, seed=seed)
    return ds.X, ds.y


def _paper_validation_accuracy(m, Xt, yt, Xv, yv, sigma, C, gamma):
    """v(σ, θ) of Chang et al. (2009) §2.2 computed from scratch: LIBSVM on every heterogeneous leaf of the
    tree read at σ, the leaf's class on homogeneous leaves."""
    yti, yvi = np.searchsorted(m.classes_, yt), np.searchsorted(m.classes_, yv)
    lt, lv = m.tree_.apply(Xt, sigma), m.tree_.apply(Xv, sigma)
    pred = np.empty(yv.size, dtype=np.int64)
    for nd in np.unique(lv):
        rows, tr = lv == nd, lt == nd
        classes = np.unique(yti[tr])
        pred[rows] = (classes[0] if classes.size == 1
                      else SVC(C=C, gamma=gamma).fit(Xt[tr], yti[tr]).predict(Xv[rows]))
    return np.mean(pred == yvi), pred


def test_purity_tol_zero_is_the_papers_td():
    X, y = noisy_regions(3000)
    Xt, yt, Xv, yv = X[:2400], y[:2400], X[2400:], y[2400:]
    # growth 1.5: some leaves of σ₀ stay leaves at σ₁ (their SVMs are reused)
    m = TreeDecompositionSVC(**SMALL, min_gain=0.0, growth=1.5).fit(Xt, yt, X_val=Xv, y_val=yv)
    assert m.purity_tol_ == 0.0 and m.majority_fraction_ == 0.0
    assert not any(lf.by_majority for lv in m.levels_ for lf in lv)
    assert len(m.search_path_) >= 2
    # Every stage's v(σ, θ) equals the paper's TD trained from scratch (so reusing leaf SVMs across
    # stages changed nothing), and the chosen classifier predicts as the paper's would.
    for lvl in m.search_path_:
        for C, g, acc in zip(lvl.C, lvl.gamma, lvl.accuracy):
            assert acc == pytest.approx(_paper_validation_accuracy(m, Xt, yt, Xv, yv, lvl.sigma, C, g)[0])
    assert sum(lvl.n_reused for lvl in m.search_path_[1:]) > 0
    _, ref = _paper_validation_accuracy(m, Xt, yt, Xv, yv, m.sigma_, m.params_["C"], m.params_["gamma"])
    np.testing.assert_array_equal(m.predict(Xv), m.classes_[ref])
    same = TreeDecompositionSVC(**SMALL, min_gain=0.0, growth=1.5, purity_tol=(0,)).fit(Xt, yt, X_val=Xv, y_val=yv)
    np.testing.assert_array_equal(same.predict(X), m.predict(X))


def test_no_leaf_svm_is_trained_twice(monkeypatch):
    from svmviz.models import tree_decomposition as td_mod

    seen = []
    real = td_mod.train_leaf

    def counting(X, y, X_val, gamma, Cs, *rest):
        seen.extend((X.tobytes(), C, gamma) for C in Cs)
        return real(X, y, X_val, gamma, Cs, *rest)

    monkeypatch.setattr(td_mod, "train_leaf", counting)
    X, y = noisy_regions(3000)
    m = TreeDecompositionSVC(**SMALL, min_gain=0.0, growth=1.5).fit(X, y)
    assert len(m.search_path_) >= 2 and sum(lvl.n_reused for lvl in m.search_path_) > 0
    assert len(seen) == len(set(seen))


def test_a_stages_leaf_jobs_read_views_of_one_copy_not_a_copy_per_theta(monkeypatch):
    # the jobs of one stage (every leaf, every γ) hold slices of one array sorted by leaf: the
    # data a stage holds is one copy of the training component, whatever the θ grid
    from svmviz.models import tree_decomposition as td_mod

    bases, real = [], td_mod.train_leaf

    def recording(X, y, X_val, gamma, Cs, *rest):
        bases.append((X.base, X_val.base))
        return real(X, y, X_val, gamma, Cs, *rest)

    monkeypatch.setattr(td_mod, "train_leaf", recording)
    X, y = noisy_regions(3000)
    m = TreeDecompositionSVC(C_grid=(1.0,), gamma_grid=(1.0, 4.0, 16.0), max_stages=1).fit(X, y)
    assert len(bases) == 3 * m.search_path_[0].n_trained > 3
    assert all(b is not None and v is not None for b, v in bases)   # views, not copies
    assert len({id(b) for b, _ in bases}) == 1 and len({id(v) for _, v in bases}) == 1
    assert bases[0][0].shape == (m.n_train_, 2)


def test_purity_tol_labels_near_pure_leaves_by_majority():
    X, y = noisy_regions(4000)
    paper = TreeDecompositionSVC(**SMALL, max_stages=1).fit(X, y)
    tol = TreeDecompositionSVC(**SMALL, max_stages=1, purity_tol=0.05).fit(X, y)
    assert paper.homogeneous_fraction_ < 0.3  # the noise leaves few leaves exactly pure
    major = [lf for lf in tol.leaves_ if lf.by_majority]
    assert major and tol.majority_fraction_ > 0.3
    assert tol.majority_fraction_ == pytest.approx(sum(lf.size for lf in major) / tol.n_train_)
    for lf in tol.leaves_:
        assert (lf.svm is None) == (lf.minority_share <= 0.05)
        if lf.by_majority:
            assert not lf.homogeneous and lf.label == np.argmax(lf.class_counts)
    # Points routed to a majority leaf get its majority class, and the model has fewer SVs.
    pos = tol.tree_.apply(X, tol.sigma_)
    for lf in major:
        assert np.all(tol.predict(X[pos == lf.node]) == tol.classes_[lf.label])
    assert tol.nsv(X) < paper.nsv(X)
    assert tol.search_path_[0].n_trained < paper.search_path_[0].n_trained


def test_purity_tol_list_chooses_on_validation_without_extra_training():
    X, y = noisy_regions(4000)
    Xt, yt, Xv, yv = X[:3200], y[:3200], X[3200:], y[3200:]
    cands = (0.02, 0.05, 0.1)
    kw = dict(SMALL, max_stages=1)
    m = TreeDecompositionSVC(**kw, purity_tol=cands).fit(Xt, yt, X_val=Xv, y_val=yv)
    singles = [TreeDecompositionSVC(**kw, purity_tol=e).fit(Xt, yt, X_val=Xv, y_val=yv) for e in cands]
    acc = np.array([s.search_path_[0].accuracy for s in singles])  # (ε, θ)
    lvl = m.search_path_[0]
    np.testing.assert_allclose(lvl.accuracy, acc.max(axis=0))
    for i in range(lvl.C.size):  # the ε chosen per θ: the largest of the best
        best = np.flatnonzero(acc[:, i] == acc[:, i].max())[-1]
        assert lvl.purity_tol[i] == cands[best]
    assert m.purity_tol_ == lvl.purity_tol[lvl.best] and m.purity_tol_ in cands
    assert lvl.n_trained == singles[0].search_path_[0].n_trained  # only the smallest ε's leaves
    chosen = singles[cands.index(m.purity_tol_)]
    if chosen.params_ == m.params_:
        np.testing.assert_array_equal(m.predict(X), chosen.predict(X))
    m2 = loads_model(dumps_model(m))
    np.testing.assert_array_equal(m2.predict(X), m.predict(X))
    assert m2.purity_tol_ == m.purity_tol_ and [lf.by_majority for lf in m2.leaves_] == \
        [lf.by_majority for lf in m.leaves_]


def test_max_stages_fixes_the_ceiling(fourclass):
    X, y = fourclass.X, fourclass.y
    full = TreeDecompositionSVC(**SMALL, min_gain=0.0).fit(X, y)
    assert len(full.search_path_) >= 3
    one = TreeDecompositionSVC(**SMALL, min_gain=0.0, max_stages=1).fit(X, y)
    assert len(one.search_path_) == 1 and one.sigma_ == one.sigma0_
    two = TreeDecompositionSVC(**SMALL, min_gain=0.0, max_stages=2).fit(X, y)
    assert [lv.sigma for lv in two.search_path_] == [lv.sigma for lv in full.search_path_[:2]]


@pytest.mark.parametrize("params,words", [
    ({"purity_tol": 0.5}, "purity_tol"), ({"purity_tol": float("nan")}, "purity_tol"),
    ({"purity_tol": "0.1"}, "purity_tol"), ({"purity_tol": ()}, "purity_tol"),
    ({"purity_tol": (0.1, -0.1)}, "purity_tol"), ({"max_stages": 0}, "max_stages"),
    ({"max_stages": 1.5}, "max_stages"),
])
def test_bad_extension_parameters(fourclass, params, words):
    with pytest.raises(ParameterError, match=words):
        TreeDecompositionSVC(**SMALL, **params).fit(fourclass.X, fourclass.y)


def test_partition_plot_marks_majority_leaves():
    from svmviz.plots.tree_decomposition import leaf_rows, plot_partition

    X, y = noisy_regions(4000)
    m = TreeDecompositionSVC(**SMALL, max_stages=1, purity_tol=0.05).fit(X, y)
    n_major = sum(lf.by_majority for lf in m.leaves_)
    fig = plot_partition(m, X, y)
    dotted = [sh for sh in fig.layout.shapes if sh.line.dash == "dot"]
    assert n_major > 0 and len(dotted) == n_major
    assert f"{n_major} by majority" in fig.layout.title.text
    rows = leaf_rows(m)
    assert sum(r["label / SVM"].endswith("(majority)") for r in rows) == n_major


def test_entropy_split_is_the_brute_force_argmax_of_eq_1():
    def impurity(lab):
        p = np.bincount(lab, minlength=3) / lab.size
        p = p[p > 0]
        return -np.sum(p * np.log(p))

    rng = np.random.default_rng(5)
    X = np.round(rng.normal(size=(120, 3)), 1)  # repeated values: only between distinct values
    y = (X[:, 1] + 0.3 * rng.normal(size=120) > 0).astype(int) + (X[:, 2] > 1.2)
    best = (-1, 0.0, -np.inf)
    for f in range(3):
        vals = np.unique(X[:, f])
        for v in 0.5 * (vals[1:] + vals[:-1]):
            lm = X[:, f] < v
            ir = impurity(y) - lm.mean() * impurity(y[lm]) - (~lm).mean() * impurity(y[~lm])
            if ir > best[2] + 1e-12:
                best = (f, v, ir)
    f, t, ir = _td_tree.best_entropy_split(X, y, 3)
    assert (f, t) == pytest.approx(best[:2]) and ir == pytest.approx(best[2])


def test_the_validation_split_is_scikit_learns_row_for_row():
    # the held-out component of a seed must stay the one scikit-learn's train_test_split chose,
    # stratified when every class allows it, for a seed and for a RandomState (advanced alike)
    from sklearn.model_selection import train_test_split

    from svmviz.models.tree_decomposition import validation_split

    rng = np.random.default_rng(11)
    for trial in range(40):
        n = int(rng.integers(6, 200))
        k = int(rng.integers(2, 6))
        y = rng.integers(0, k, n)
        if trial % 4 == 0:
            y[0] = k        # a class of one sample: no stratified split
        fraction, seed = float(rng.choice([0.1, 0.2, 0.25, 0.5])), int(rng.integers(0, 2**32))
        n_val = max(1, round(fraction * n))
        for state in (seed, np.random.RandomState(seed)):
            want = np.random.RandomState(seed) if isinstance(state, np.random.RandomState) else seed
            try:
                tr, va = train_test_split(np.arange(n), test_size=n_val, random_state=want, stratify=y)
            except ValueError:
                want = np.random.RandomState(seed) if isinstance(state, np.random.RandomState) else seed
                tr, va = train_test_split(np.arange(n), test_size=n_val, random_state=want)
            got_tr, got_va = validation_split(y, fraction, state)
            np.testing.assert_array_equal(got_tr, np.sort(tr), err_msg=f"trial {trial}")
            np.testing.assert_array_equal(got_va, np.sort(va), err_msg=f"trial {trial}")

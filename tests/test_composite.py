"""Convergence of the composite estimators: every sub-solve's convergence is collected
(``converged_``, ``n_unconverged_``, ``unconverged_``), one ``ConvergenceWarning`` names the
sub-problems that stopped early and what to change, a non-finite objective or decision is a
``DataError``, the attributes survive the JSON model format (and old documents without them still
load), and the method pages show the status (AppTest)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

import svmviz.models._svm_tree_build as tree_build
import svmviz.solvers.dense_smo as tree_qp
import svmviz.models.guard as guard_mod
import svmviz.models.svc as svc_mod
from apphelpers import page_test, problems
from svmviz_app.widgets import import_open_key
from svmviz.data import load_builtin, split_and_normalize
from svmviz.data.generators import interlaced
from svmviz.errors import DataError
from svmviz.export import dumps_model, loads_model
from svmviz.export.models import check_loaded_model
from svmviz.models import (BinaryNuSVC, DAGSVC, GuardVectorSVC, PairwiseVotingSVC, SVMTreeClassifier,
                           WeightedDAGSVC)

CONV = ("converged_", "n_unconverged_", "unconverged_")


@pytest.fixture(scope="module")
def three():
    d = interlaced(2)
    return d.X, d.y


@pytest.fixture(scope="module")
def fourclass_like():
    train, _ = split_and_normalize(load_builtin("fourclass_like"), "none", 0.3, 0, True)
    return train.X, train.y


@pytest.fixture(scope="module")
def cubes():
    train, _ = split_and_normalize(load_builtin("hypercubes"), "none", 0.3, 0, True)
    return train.X, train.y


def _fit(est, X, y):
    """(model, the ConvergenceWarnings its fit raised)."""
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        model = est.fit(X, y)
    return model, [w for w in got if issubclass(w.category, ConvergenceWarning)]


def _fit_clean(est, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        return est.fit(X, y)


def _break_solve_qp(monkeypatch, field):
    """solve_qp as BinarySVC sees it, returning a NaN ``field`` ("objective" or "rho")."""
    real = svc_mod.solve_qp

    def broken(*args, **kw):
        res = real(*args, **kw)
        setattr(res, field, np.full_like(np.atleast_1d(getattr(res, field)), np.nan, dtype=float)
                if field == "rho" else float("nan"))
        return res

    monkeypatch.setattr(svc_mod, "solve_qp", broken)


# ------------------------------------------------------------------ DAG, pairwise voting, WDAG
@pytest.mark.parametrize("cls", [DAGSVC, PairwiseVotingSVC])
def test_pairwise_models_stopped_early_warn_once_naming_the_pairs(three, cls):
    X, y = three
    model, got = _fit(cls(C=10.0, max_iter=2), X, y)
    assert len(got) == 1, [str(w.message) for w in got]
    msg = str(got[0].message)
    assert msg.startswith(f"{cls.__name__}:") and "3 of 3 pairwise C-SVMs did not converge" in msg
    assert "pair 0 vs 1" in msg and "raise max_iter (now 2)" in msg
    assert model.converged_ is False and model.n_unconverged_ == 3
    assert model.unconverged_ == ["pair 0 vs 1", "pair 0 vs 2", "pair 1 vs 2"]
    text = model.convergence_message()
    assert text.startswith("3 of 3 pairwise C-SVMs did not converge") and "Raise max_iter" in text


def test_converged_pairwise_models_and_wdag_say_so_without_a_warning(three):
    X, y = three
    for est in (DAGSVC(C=10.0), PairwiseVotingSVC(C=10.0), WeightedDAGSVC(C=10.0, random_state=0)):
        model = _fit_clean(est, X, y)
        assert model.converged_ is True and model.n_unconverged_ == 0 and model.unconverged_ == []
        assert model.convergence_message() == ""


def test_wdag_names_the_cluster_and_pair_that_stopped(three):
    X, y = three
    model, got = _fit(WeightedDAGSVC(C=10.0, max_iter=2, random_state=0), X, y)
    assert len(got) == 1, [str(w.message) for w in got]
    msg = str(got[0].message)
    assert msg.startswith("WeightedDAGSVC:") and "in cluster 1" in msg and "max_iter" in msg
    assert model.converged_ is False
    assert model.n_unconverged_ == sum(m.n_unconverged_ for m in model.cluster_models_ if m is not None)
    assert all(" in cluster " in n for n in model.unconverged_)


def test_wdag_kmeans_at_its_cap_is_a_sub_problem(three):
    X, y = three
    est = WeightedDAGSVC(C=10.0, random_state=0, n_clusters=3).set_params(kmeans_max_iter=1)
    model, got = _fit(est, X, y)
    assert model.unconverged_ == ["K-Means (stopped at its 1 iterations)"] and not model.converged_
    assert len(got) == 1 and "fewer clusters (n_clusters)" in str(got[0].message)


@pytest.mark.parametrize("field,words", [("objective", "non-finite objective"),
                                         ("rho", "non-finite decision values")])
@pytest.mark.parametrize("make", [lambda: DAGSVC(C=10.0), lambda: WeightedDAGSVC(C=10.0, random_state=0)],
                         ids=["dag", "wdag"])
def test_pairwise_nan_objective_or_decision_is_refused(three, monkeypatch, field, words, make):
    X, y = three
    _break_solve_qp(monkeypatch, field)
    with pytest.raises(DataError, match=words):
        make().fit(X, y)


def test_a_dag_from_other_pairwise_svms_keeps_their_convergence(three):
    X, y = three
    voting, _ = _fit(PairwiseVotingSVC(C=10.0, max_iter=2), X, y)
    dag = DAGSVC.from_pairwise(voting, order=[2, 0, 1])
    assert (dag.converged_, dag.n_unconverged_, dag.unconverged_) == \
        (voting.converged_, voting.n_unconverged_, voting.unconverged_)


# ------------------------------------------------------------------ guard vectors
def test_guard_qp_stopped_early_warns_naming_the_qp(cubes):
    X, y = cubes
    model, got = _fit(GuardVectorSVC(tol=1e-8, max_iter=1), X, y)
    assert len(got) == 1, [str(w.message) for w in got]
    msg = str(got[0].message)
    assert msg.startswith("GuardVectorSVC:") and "the QP on the guard vectors did not converge" in msg
    assert "solver='cvxpy'" in msg and "delta > 0" in msg and "raise max_iter (now 1)" in msg
    assert model.converged_ is False and model.qp_converged_ is False
    assert model.unconverged_ == ["the QP on the guard vectors"] and model.n_unconverged_ == 1


def test_guard_lp_without_an_answer_is_reported(cubes, monkeypatch):
    X, y = cubes
    real = guard_mod._ReusedLP.solve
    calls = []

    def first_fails(self, coef, rhs):
        calls.append(1)
        if len(calls) == 1:
            return False, None, True   # e.g. HiGHS at an iteration limit
        return real(self, coef, rhs)

    monkeypatch.setattr(guard_mod._ReusedLP, "solve", first_fails)
    model, got = _fit(GuardVectorSVC(method="single", tol=1e-8), X, y)   # HiGHS LPs, not 2-D closed form
    first = int(np.flatnonzero(model.tested_)[0])
    assert model.lp_failed_.tolist() == [first]
    assert model.lp_status_[first] == guard_mod.LP_FAILED and not model.guard_vectors_[first]
    assert model.converged_ is False and model.qp_converged_ is True
    assert model.unconverged_ == [f"the LP of point {first}"]
    assert len(got) == 1 and "use method='yang_ahuja'" in str(got[0].message)


def test_guard_converged_and_nan_refused(cubes, monkeypatch):
    X, y = cubes
    model = _fit_clean(GuardVectorSVC(tol=1e-8), X, y)
    assert model.converged_ and model.qp_converged_ and model.n_unconverged_ == 0
    assert model.lp_failed_.size == 0 and model.convergence_message() == ""
    _break_solve_qp(monkeypatch, "objective")
    with pytest.raises(DataError, match="non-finite objective"):
        GuardVectorSVC(tol=1e-8).fit(X, y)


# ------------------------------------------------------------------ SVM tree
def test_tree_node_qps_stopped_early_are_named(fourclass_like, monkeypatch):
    X, y = fourclass_like
    monkeypatch.setattr(tree_qp, "MAX_ITER", 2)   # the lean SMO of the node QPs
    model, got = _fit(SVMTreeClassifier(), X, y)
    assert len(got) == 1, [str(w.message) for w in got]
    msg = str(got[0].message)
    assert msg.startswith("SVMTreeClassifier:") and "step 1, candidate " in msg
    assert "lower C_hard (now 1000)" in msg and "loosen tol" in msg
    solved = [t for st in model.trace_ for c in st.candidates for t in c.tries if t.how == "solved"]
    assert model.n_subproblems_ == len(solved)
    assert model.n_unconverged_ == sum(not t.converged for t in solved) > 0
    assert model.converged_ is False and len(model.unconverged_) <= 20


def test_tree_rbf_node_stopped_early_is_named(fourclass_like):
    X, y = fourclass_like
    model, got = _fit(SVMTreeClassifier(nonlinear={"C": 100.0, "gamma": 5.0, "max_iter": 1}), X, y)
    assert len(got) == 1, [str(w.message) for w in got]
    msg = str(got[0].message)
    assert "(node QPs and the RBF node) did not converge: the RBF node)" in msg
    assert "give it a smaller C" in msg and "for the node QPs" not in msg
    assert model.unconverged_ == ["the RBF node"] and model.converged_ is False


def test_tree_converged_fit_has_no_warning(fourclass_like):
    X, y = fourclass_like
    model = _fit_clean(SVMTreeClassifier(nonlinear={"C": 10.0, "gamma": 5.0}), X, y)
    assert model.converged_ is True and model.n_unconverged_ == 0 and model.unconverged_ == []
    assert model.n_subproblems_ > 1 and model.convergence_message() == ""


def test_tree_nan_node_qp_is_refused(fourclass_like, monkeypatch):
    X, y = fourclass_like
    real = tree_qp.DenseSMO.solve

    def nan_objective(*a, **kw):
        res = real(*a, **kw)
        res.objective = float("nan")
        return res

    monkeypatch.setattr(tree_qp.DenseSMO, "solve", nan_objective)
    with pytest.raises(DataError, match="node QP .* non-finite objective"):
        SVMTreeClassifier().fit(X, y)


def test_tree_nan_rbf_node_is_refused(fourclass_like, monkeypatch):
    X, y = fourclass_like
    _break_solve_qp(monkeypatch, "rho")
    with pytest.raises(DataError, match="non-finite decision values .*RBF node"):
        SVMTreeClassifier(nonlinear={"C": 10.0, "gamma": 5.0}).fit(X, y)


def test_dense_smo_reports_a_stop_at_its_cap(monkeypatch):
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(0, 1, (30, 2)), rng.normal(3, 1, (30, 2))]
    y = np.r_[-np.ones(30), np.ones(30)]
    Qy = (X @ X.T) * np.outer(y, y)
    lo, up = np.zeros(60), np.full(60, 10.0)
    full = tree_qp.DenseSMO(Qy).solve(y, lo, up, lo, 1e-8)
    assert full.converged and np.isclose(full.objective, 0.5 * full.alpha @ Qy @ full.alpha - full.alpha.sum())
    monkeypatch.setattr(tree_qp, "MAX_ITER", 3)
    capped = tree_qp.DenseSMO(Qy).solve(y, lo, up, lo, 1e-8)
    assert capped.n_iter == 3 and not capped.converged and capped.objective > full.objective


# ------------------------------------------------------------------ the JSON model format
def _unconverged_models(three, cubes, fourclass_like, monkeypatch):
    X3, y3 = three
    out = [_fit(DAGSVC(C=10.0, max_iter=2), X3, y3)[0],
           _fit(PairwiseVotingSVC(C=10.0, max_iter=2), X3, y3)[0],
           _fit(WeightedDAGSVC(C=10.0, max_iter=2, random_state=0), X3, y3)[0]]
    out.append(_fit(GuardVectorSVC(tol=1e-8, max_iter=1), *cubes)[0])
    monkeypatch.setattr(tree_qp, "MAX_ITER", 2)
    out.append(_fit(SVMTreeClassifier(), *fourclass_like)[0])
    return out


def test_json_round_trip_keeps_the_convergence_record(three, cubes, fourclass_like, monkeypatch):
    for model in _unconverged_models(three, cubes, fourclass_like, monkeypatch):
        back = loads_model(dumps_model(model))
        for a in CONV:
            assert getattr(back, a) == getattr(model, a), (type(model).__name__, a)
        assert back.converged_ is False
        assert back.convergence_message() == model.convergence_message() != ""
    guard = next(m for m in _unconverged_models(three, cubes, fourclass_like, monkeypatch)
                 if isinstance(m, GuardVectorSVC))
    back = loads_model(dumps_model(guard))
    assert back.qp_converged_ is False and back.lp_failed_.tolist() == []


def _without(model, attrs):
    """The model's JSON document as one saved before these attributes existed."""
    import json

    doc = json.loads(dumps_model(model))
    body = doc["model"] if "model" in doc else doc
    for a in attrs:
        body["fitted"].pop(a, None)
    return json.dumps(doc)


def test_old_documents_without_the_record_still_load(three, cubes, fourclass_like):
    X3, y3 = three
    for model in (DAGSVC(C=10.0).fit(X3, y3), WeightedDAGSVC(C=10.0, random_state=0).fit(X3, y3),
                  SVMTreeClassifier().fit(*fourclass_like)):
        old = loads_model(_without(model, CONV + ("n_subproblems_",)))
        check_loaded_model(old)
        assert not hasattr(old, "converged_") and old.convergence_message() == ""
        assert (old.predict(X3 if not isinstance(old, SVMTreeClassifier) else fourclass_like[0])
                == model.predict(X3 if not isinstance(old, SVMTreeClassifier) else fourclass_like[0])).all()
    old_dag = loads_model(_without(DAGSVC(C=10.0).fit(X3, y3), CONV))
    assert not hasattr(DAGSVC.from_pairwise(old_dag, [2, 1, 0]), "converged_")
    # an old guard model: converged_ was the QP's alone
    guard = GuardVectorSVC(tol=1e-8).fit(*cubes)
    guard.converged_ = False
    old = loads_model(_without(guard, ("qp_converged_", "lp_failed_", "n_unconverged_", "unconverged_")))
    assert old.convergence_message().startswith("The QP on the guard vectors did not converge")


def test_models_json_state_carries_the_record(three):
    import json

    doc = json.loads(dumps_model(_fit(DAGSVC(C=10.0, max_iter=2), *three)[0]))
    body = doc["model"] if "model" in doc else doc
    assert set(CONV) <= set(body["fitted"])


# ------------------------------------------------------------------ the pages (AppTest)
def _ok(at):
    assert not problems(at) and not at.error, (problems(at), [e.value for e in at.error])


def _converged_caption(at):
    return [c.value for c in at.caption if c.value.startswith("Converged:")]


def _not_converged(at):
    return [w.value for w in at.warning if w.value.startswith("Not converged.")]


def _warning_after_upload(at, prefix, model):
    """Import ``model`` through the page's uploader; the page shows no error, and its
    "Not converged." warnings are returned."""
    at.session_state[import_open_key(prefix)] = True   # the panel draws its uploader only while open
    at.run()
    at.file_uploader(key=f"{prefix}_upload").set_value((f"{prefix}.json", dumps_model(model).encode(),
                                                        "application/json")).run()
    assert not problems(at)
    return _not_converged(at)


def test_dag_page_shows_convergence_and_a_stopped_import():
    at = page_test("pages/6_DAG_SVM.py", dataset=interlaced(2), **{"dag.src": "current data set", "dag.tab": 3})
    at.run()   # the weighted DAG's tab: its own convergence is said there
    _ok(at)
    caps = _converged_caption(at)
    assert any("all 3 pairwise C-SVMs" in c for c in caps), caps
    assert any("K-Means and every cluster" in c for c in caps), caps
    assert not _not_converged(at)
    train, _ = split_and_normalize(interlaced(2), "none", 0.3, 0, True)
    stopped, _ = _fit(DAGSVC(C=10.0, max_iter=2), train.X, train.y)
    warn = _warning_after_upload(at, "dag", stopped)
    assert warn and "3 of 3 pairwise C\\-SVMs did not converge" in warn[0] and "max\\_iter" in warn[0], warn


def _page_on(page: str, name: str):
    """The page run on the built-in data set ``name`` without a problem, and that data's
    training part (the page's default split)."""
    ds = load_builtin(name)
    at = page_test(page, dataset=ds, spec=name)
    at.run()
    _ok(at)
    return at, split_and_normalize(ds, "none", 0.3, 0, True)[0]


def test_tree_page_shows_convergence_and_a_stopped_import():
    at, train = _page_on("pages/2_SVM_Tree.py", "fourclass_like")
    assert any(c.startswith("Converged: every node QP (") for c in _converged_caption(at))
    with pytest.MonkeyPatch.context() as mp:   # not while the page runs: its fits are cached
        mp.setattr(tree_qp, "MAX_ITER", 2)
        stopped, _ = _fit(SVMTreeClassifier(), train.X, train.y)
    warn = _warning_after_upload(at, "tree", stopped)
    assert warn and "step 1, candidate" in warn[0] and "C\\_hard" in warn[0], warn


def test_hull_page_shows_the_nu_svm_convergence_and_a_stopped_import():
    at, train = _page_on("pages/3_Convex_Hulls.py", "fourclass_like")
    assert any(c.startswith("Converged: the ν-SVM's QP") for c in _converged_caption(at))
    stopped, _ = _fit(BinaryNuSVC(nu=0.8, kernel="linear", max_iter=2), train.X, train.y)
    assert not stopped.converged_
    warn = _warning_after_upload(at, "hull", stopped)
    assert warn and "maximal KKT violation" in warn[0] and "max\\_iter" in warn[0], warn


def test_guard_page_shows_convergence_and_a_stopped_import():
    at, train = _page_on("pages/4_Guard_Vectors.py", "hypercubes")
    assert any(c.startswith("Converged: the QP on the guard vectors") for c in _converged_caption(at))
    stopped, _ = _fit(GuardVectorSVC(max_iter=1), train.X, train.y)
    warn = _warning_after_upload(at, "guard", stopped)
    assert warn and "The QP on the guard vectors did not converge" in warn[0], warn
    assert {m.label: m.value for m in at.metric}["QP converged"] == "no"

"""Tree decomposition convergence: every leaf SVM's convergence is collected into the fitted
model (``converged_``, ``n_unconverged_``, per leaf SVM and per σ stage), a leaf SVM that stops
before its tolerance gives one ``ConvergenceWarning`` naming the leaves and what to change, a
non-finite result is a ``DataError``, the JSON model format keeps all of it, and the TD page shows
it ("converged" metric, a warning when not)."""

from __future__ import annotations

import dataclasses
import json
import re
import warnings

import numpy as np
import pytest
from apphelpers import page_test, problems
from sklearn.exceptions import ConvergenceWarning

from svmviz.data import Dataset
from svmviz.data.generators import interlaced
from svmviz.errors import DataError
from svmviz.export import dumps_model, loads_model
from svmviz.models import TreeDecompositionSVC, _td_local
from svmviz.models.tree_decomposition import UNCONVERGED_ADVICE, global_svm_search

SMALL = dict(C_grid=(1.0, 10.0), gamma_grid=(0.5, 2.0))
PAGE = "pages/5_Tree_Decomposition.py"


def _data(n_per_class=200, seed=0):
    ds = interlaced(level=3, n_per_class=n_per_class, seed=seed)
    return ds.X, ds.y


def _capped(monkeypatch, max_iter=3):
    """Leaf SVMs solved by the real SMO, capped at ``max_iter`` iterations: they stop early."""
    real = _td_local.solve_qp

    def capped(problem, backend="smo", **kw):
        kw["max_iter"] = max_iter
        return real(problem, backend=backend, **kw)

    monkeypatch.setattr(_td_local, "solve_qp", capped)


def _with_svm(m):
    return [lf for lf in m.leaves_ if lf.svm is not None]


@pytest.mark.parametrize("solver", ["smo", "libsvm"])
def test_a_converged_fit_says_so_and_does_not_warn(solver):
    X, y = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        m = TreeDecompositionSVC(**SMALL, svm_solver=solver).fit(X, y)
    assert m.converged_ is True and m.n_unconverged_ == 0 and m.unconverged_ == []
    assert m.convergence_message() == ""
    svms = _with_svm(m)
    assert svms and all(lf.svm.converged for lf in svms)
    assert all(lv.n_unconverged == 0 for lv in m.search_path_)
    if solver == "smo":
        assert all(lf.svm.n_iter > 0 and 0 <= lf.svm.max_violation <= 1e-3 for lf in svms)
        assert all(np.isfinite(lf.svm.objective) and lf.svm.objective < 0 for lf in svms)
    else:
        assert all(lf.svm.objective is None for lf in svms)   # LIBSVM does not report it


def test_unconverged_leaves_give_one_warning_naming_them(monkeypatch):
    _capped(monkeypatch)
    X, y = _data()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        m = TreeDecompositionSVC(**SMALL).fit(X, y)
    conv = [w for w in caught if issubclass(w.category, ConvergenceWarning)]
    assert len(conv) == 1, [str(w.message) for w in conv]
    svms = _with_svm(m)
    bad = [lf for lf in svms if not lf.svm.converged]
    assert bad and m.converged_ is False and m.n_unconverged_ == len(bad)
    msg = str(conv[0].message)
    assert f"{len(bad)} of {len(svms)} leaf SVMs at σ = {m.sigma_}" in msg
    assert f"leaf node {bad[0].node} ({bad[0].size} samples" in msg and "after 3 iterations" in msg
    assert UNCONVERGED_ADVICE in msg
    assert m.unconverged_[0].startswith(f"leaf node {bad[0].node} ") and len(m.unconverged_) == len(bad)
    assert UNCONVERGED_ADVICE[1:] in m.convergence_message()
    assert m.search_path_[0].n_unconverged > 0
    assert all(lf.svm.n_iter == 3 for lf in bad) and any(lf.svm.max_violation > 1e-3 for lf in bad)
    # the model is still usable (not optimal): it predicts every class index it knows
    assert set(np.unique(m.predict(X))) <= set(m.classes_)


def test_a_non_finite_leaf_solution_is_a_data_error(monkeypatch):
    real = _td_local.solve_qp

    def broken(problem, backend="smo", **kw):
        res = real(problem, backend=backend, **kw)
        return dataclasses.replace(res, alpha=np.full_like(res.alpha, np.nan))

    monkeypatch.setattr(_td_local, "solve_qp", broken)
    X, y = _data()
    with pytest.raises(DataError, match="non-finite decision values"):
        TreeDecompositionSVC(**SMALL).fit(X, y)


def test_a_non_finite_objective_is_a_data_error(monkeypatch):
    real = _td_local.solve_qp

    def broken(problem, backend="smo", **kw):
        return dataclasses.replace(real(problem, backend=backend, **kw), objective=float("inf"))

    monkeypatch.setattr(_td_local, "solve_qp", broken)
    X, y = _data()
    with pytest.raises(DataError, match="non-finite objective"):
        TreeDecompositionSVC(**SMALL).fit(X, y)


def test_convergence_round_trips_through_the_json_model_format(monkeypatch):
    _capped(monkeypatch)
    X, y = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        m = TreeDecompositionSVC(**SMALL).fit(X, y)
    m2 = loads_model(dumps_model(m))
    assert m2.converged_ is False and m2.n_unconverged_ == m.n_unconverged_
    assert m2.unconverged_ == m.unconverged_ and m2.convergence_message() == m.convergence_message()
    assert [lv.n_unconverged for lv in m2.search_path_] == [lv.n_unconverged for lv in m.search_path_]
    for a, b in zip(_with_svm(m), _with_svm(m2)):
        assert (a.svm.converged, a.svm.n_iter, a.svm.max_violation, a.svm.objective) == \
               (b.svm.converged, b.svm.n_iter, b.svm.max_violation, b.svm.objective)
    np.testing.assert_array_equal(m2.predict(X), m.predict(X))


def test_a_model_file_from_before_the_checks_still_loads():
    X, y = _data()
    m = TreeDecompositionSVC(**SMALL).fit(X, y)
    doc = json.loads(dumps_model(m))

    def strip(obj):
        if isinstance(obj, dict):
            if obj.get("__record__") in ("TDLocalSVM", "TDLevel"):
                for f in ("converged", "n_iter", "max_violation", "objective", "n_unconverged"):
                    obj["fields"].pop(f, None)
            for v in obj.values():
                strip(v)
        elif isinstance(obj, list):
            for v in obj:
                strip(v)

    fitted = doc["model"]["fitted"] if "model" in doc else doc["fitted"]
    fitted.pop("converged_"), fitted.pop("n_unconverged_"), fitted.pop("unconverged_")
    strip(doc)
    old = loads_model(json.dumps(doc))
    assert not hasattr(old, "converged_") and old.convergence_message() == ""
    assert all(lf.svm.converged and lf.svm.objective is None for lf in _with_svm(old))
    np.testing.assert_array_equal(old.predict(X), m.predict(X))


def _page_data():
    X, y = _data(150, seed=4)
    return Dataset(X, y, ["x1", "x2"], [], "interlaced test", "test")


def _metric(at, label):
    """One value of the summary beside the σ slider ("converged: **yes**")."""
    summary = next(m.value for m in at.markdown if m.value.startswith("leaves: "))
    return re.search(rf"(?:^|· |\n){re.escape(label)}: \*\*(.+?)\*\*", summary).group(1)


def test_page_shows_convergence():
    at = page_test(PAGE, dataset=_page_data(), **{"td.compare": False, "td.stages": "1 (σ₀ only)"})
    at.run()
    assert not problems(at) and not at.error, (problems(at), [e.value for e in at.error])
    assert _metric(at, "converged") == "yes"
    assert not at.warning
    assert any(c.value.startswith("Converged: the ") and "leaf SVMs of the model" in c.value for c in at.caption)


def test_page_warns_when_leaf_svms_did_not_converge(monkeypatch):
    _capped(monkeypatch)
    # parameters no other test uses: the shared fit cache cannot hand over a converged model
    at = page_test(PAGE, dataset=_page_data(), **{"td.compare": False, "td.min_gain": 0.0, "td.top_k": 7})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        at.run()
    assert not problems(at) and not at.error, (problems(at), [e.value for e in at.error])
    value = _metric(at, "converged")
    assert value.startswith("no (")
    warned = [w.value for w in at.warning if w.value.startswith("Not converged.")]
    assert len(warned) == 1 and "leaf node " in warned[0] and "libsvm" in warned[0]
    # another σ of the search: its own leaves' status
    slider = at.select_slider(key="td.sigma")
    assert len(slider.options) > 1
    other = [v for v in slider.options if int(v) != int(slider.value)][0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        slider.set_value(other).run()
    assert not problems(at)
    assert [w.value for w in at.warning if w.value.startswith(f"Not converged at σ = {other}")]
    assert _metric(at, "converged").startswith("no (")


def test_global_svm_search_with_the_leaves_smo_matches_libsvm():
    """The page's global SVM uses the leaves' solver (the SMO can be stopped during a solve): the
    same search with svmviz's SMO agrees with LIBSVM's (same θ grid, same components)."""
    X, y = _data(150, seed=5)
    y = np.array(["abc"[i] for i in y])   # string labels: the search maps them itself
    perm = np.random.default_rng(0).permutation(y.size)
    X, y = X[perm], y[perm]
    Xt, yt, Xv, yv = X[:300], y[:300], X[300:], y[300:]
    grid = dict(C_grid=(1.0, 10.0), gamma_grid=(0.5, 2.0))
    lib = global_svm_search(Xt, yt, Xv, yv, **grid)
    calls = []
    smo = global_svm_search(Xt, yt, Xv, yv, **grid, solver="smo", progress=lambda d, t: calls.append((d, t)))
    assert abs(smo["val_accuracy"] - lib["val_accuracy"]) <= 0.02
    assert calls[0] == (0, 4) and calls[-1] == (4, 4)
    for res in (lib, smo):
        m = res["model"]
        assert res["val_accuracy"] == pytest.approx(np.mean(m.predict(Xv) == yv))
        assert 0 < m.support_.size <= Xt.shape[0]
    assert lib["val_accuracy"] > 0.6
    assert (smo["C"], smo["gamma"]) == (lib["C"], lib["gamma"])
    assert np.mean(smo["model"].predict(X) == lib["model"].predict(X)) > 0.98
    assert abs(smo["model"].support_.size - lib["model"].support_.size) <= 0.05 * lib["model"].support_.size

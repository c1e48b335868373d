"""Scatter SVM (Jenssen, Kloft, Zien, Sonnenburg and Müller 2012): the SMO fit against the cvxpy
reference, the KKT conditions, the prototype identities, the binary ν-SVM special case, sensitivity
maps and persistence."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.svm import NuSVC
from sklearn.utils.estimator_checks import parametrize_with_checks

from svmviz.data.generators import gaussians_on_circle, sensitivity_5d
from svmviz.errors import ParameterError
from svmviz.export import dumps_model, loads_model
from svmviz.kernels import Kernel
from svmviz.models import ScatterSVC
from svmviz.models.scatter import coupled_rho, reference_c_bias, scatter_problem, solve_c_bias
from svmviz.solvers import kkt

FORMS = [("C", False), ("C", True), ("nu", False), ("nu", True)]


@pytest.fixture(scope="module")
def circle4():
    ds = gaussians_on_circle(4, 12, std=0.45, seed=3)
    return ds.X, ds.y


@pytest.fixture(scope="module")
def fits(circle4):
    """Every formulation fitted by both backends on the same small 4-class problem."""
    X, y = circle4
    out = {}
    for form, bias in FORMS:
        for solver in ("smo", "cvxpy"):
            out[form, bias, solver] = ScatterSVC(formulation=form, bias=bias, C=2.0, mu=0.2,
                                                 gamma=0.7, solver=solver, tol=1e-6).fit(X, y)
    return out


@pytest.mark.parametrize("form,bias", FORMS)
def test_smo_matches_cvxpy_reference(fits, form, bias):
    a, b = fits[form, bias, "smo"], fits[form, bias, "cvxpy"]
    assert a.objective_ == pytest.approx(b.objective_, rel=1e-5)
    assert a.scatter_ == pytest.approx(b.scatter_, rel=1e-4, abs=1e-8)
    if bias:
        assert np.allclose(a.intercept_, b.intercept_, atol=1e-3)


def test_scatter_matrix_is_the_scatter_of_the_prototypes(circle4):
    """αᵀK̃α = Σ_c ‖m_c − m̄‖² (seed eq. 6–7), checked in input space with the linear kernel."""
    X, y = circle4
    rng = np.random.default_rng(0)
    alpha = rng.uniform(0, 1, y.size)
    prob = scatter_problem(X, y, 4, Kernel("linear"), "C", False)
    m = np.array([alpha[y == c] @ X[y == c] for c in range(4)])
    assert 2 * (prob.objective(alpha) + alpha.sum()) == pytest.approx(
        np.sum((m - m.mean(axis=0)) ** 2), rel=1e-12)


@pytest.mark.parametrize("form,bias", FORMS)
def test_kkt_conditions_hold(fits, circle4, form, bias):
    X, y = circle4
    model = fits[form, bias, "smo"]
    t = model.class_sums_.mean()
    prob = scatter_problem(X, y, 4, model.kernel_, form, bias, C=2.0, mu=0.2, class_sum=t)
    alpha = model.alpha_
    assert np.all(alpha >= 0) and np.all(alpha <= prob.upper + 1e-12)
    G = prob.gradient(alpha)
    assert kkt.max_violation(prob, alpha, G) <= 1e-5
    if form == "nu":
        expected = np.ones(4) if bias else None
        if bias:
            assert np.allclose(model.class_sums_, expected, atol=1e-9)
        else:
            assert model.class_sums_.sum() == pytest.approx(4.0, abs=1e-9)
    if bias:
        # the free samples of class c lie on its margin: f_c(x_i) is the same for all of them
        scores = model.class_scores(X)[np.arange(y.size), y]
        upper = 2.0 if form == "C" else 0.2
        free = (alpha > 1e-6) & (alpha < upper - 1e-6)
        for c in range(4):
            s = scores[free & (y == c)]
            if s.size > 1:
                assert np.ptp(s) < 1e-4
        if form == "C":
            # coupled KKT: the class multipliers sum to zero, free samples score exactly 1
            assert abs(model.rho_.sum()) < 1e-6
            assert np.allclose(scores[free], 1.0, atol=1e-4)


def test_c_form_with_bias_outer_search_equals_coupled_reference(circle4):
    """The search over the common class sum t reaches the coupled problem's optimum."""
    X, y = circle4
    kern = Kernel("rbf", 0.7)
    res, t, n_solves = solve_c_bias(X, y, 4, kern, 0.5, backend="smo", tol=1e-7)
    alpha_ref, t_ref = reference_c_bias(X, y, 4, kern, 0.5)
    ref_obj = scatter_problem(X, y, 4, kern, "C", True, C=0.5, class_sum=t_ref).objective(alpha_ref)
    assert res.objective == pytest.approx(ref_obj, rel=1e-6)
    assert t == pytest.approx(t_ref, rel=1e-3)
    assert n_solves > 3
    prob = scatter_problem(X, y, 4, kern, "C", True, C=0.5, class_sum=t)
    assert abs(coupled_rho(prob, res.alpha, prob.gradient(res.alpha)).sum()) < 1e-6


@pytest.mark.parametrize("form,bias", FORMS)
def test_class_weight_vectors_sum_to_zero(circle4, form, bias):
    X, y = circle4
    model = ScatterSVC(kernel="linear", formulation=form, bias=bias, mu=0.2).fit(X, y)
    W = model.coef_
    assert np.abs(W.sum(axis=0)).max() < 1e-10 * max(1.0, np.abs(W).max())
    assert np.allclose(W, model.prototypes_ - model.mean_prototype_)
    assert np.allclose(model.class_scores(X).sum(axis=1), 0.0, atol=1e-9)


def test_binary_nu_form_is_nusvc():
    rng = np.random.default_rng(4)
    X = np.vstack([rng.normal([-1.0, -0.5], 0.6, (60, 2)), rng.normal([1.0, 0.8], 0.6, (60, 2))])
    y = np.repeat([0, 1], 60)
    nu = 0.3
    model = ScatterSVC(formulation="nu", bias=True, kernel="linear", mu=2 / (nu * y.size),
                       tol=1e-7).fit(X, y)
    ref = NuSVC(nu=nu, kernel="linear", tol=1e-9).fit(X, y)
    w, v = ref.coef_[0], model.coef_[1]
    assert w @ v / np.linalg.norm(w) / np.linalg.norm(v) >= 0.9999
    assert np.mean(model.predict(X) == ref.predict(X)) >= 0.99
    # Fig. 1–2: prototypes are convex combinations of their class (on the class border),
    # ‖m₊ − m₋‖² = 2·scatter
    assert np.allclose(model.class_sums_, 1.0)
    m = model.prototypes_
    assert np.sum((m[1] - m[0]) ** 2) == pytest.approx(2 * model.scatter_, rel=1e-9)
    assert model.decision_function(X).shape == (y.size,)


def test_linear_sensitivity_is_squared_weights(circle4):
    X, y = circle4
    model = ScatterSVC(kernel="linear", C=0.5).fit(X, y)
    S = model.sensitivity_map()
    assert S.shape == (5, 2)
    assert np.allclose(S[:4], model.coef_ ** 2)
    assert np.allclose(S[4], np.mean(model.coef_ ** 2, axis=0))


def test_rbf_sensitivity_matches_finite_differences(circle4):
    X, y = circle4
    model = ScatterSVC(kernel="rbf", gamma=0.7, bias=True).fit(X, y)
    P = X[:7] + 0.1
    G = model.score_gradients(P)
    h = 1e-6
    for j in range(2):
        E = np.zeros(2)
        E[j] = h
        fd = (model.class_scores(P + E) - model.class_scores(P - E)) / (2 * h)
        assert np.allclose(G[:, :, j], fd, atol=1e-6)
    for name in ("poly", "sigmoid"):
        m = ScatterSVC(kernel=name, gamma=0.3, coef0=1.0, degree=3).fit(X, y)
        E = np.array([h, 0.0])
        fd = (m.class_scores(P + E) - m.class_scores(P - E)) / (2 * h)
        assert np.allclose(m.score_gradients(P)[:, :, 0], fd, atol=1e-5)


@pytest.mark.parametrize("form", ["C", "nu"])
def test_5d_sensitivity_finds_the_discriminative_dimensions(form):
    """Jenssen et al. (2012), Figs. 16–20: only x1 and x2 discriminate; a model that classifies a
    fresh test set (almost) perfectly is sensitive to them, not to the noise dimensions."""
    train, test = sensitivity_5d(seed=0), sensitivity_5d(seed=1)
    model = ScatterSVC(formulation=form, gamma=0.05).fit(train.X, train.y)
    assert np.mean(model.predict(test.X) == test.y) >= 0.98
    S = model.sensitivity_map()
    assert S.shape == (4, 5)
    assert S[-1, :2].min() >= 5 * S[-1, 2:].max()
    assert np.all(np.argmax(S, axis=1) < 2)


def test_json_round_trip(circle4):
    X, y = circle4
    labels = np.array(["a", "b", "c", "d"])[y]
    model = ScatterSVC(formulation="nu", bias=True, mu=0.25, gamma=0.5).fit(X, labels)
    back = loads_model(dumps_model(model))
    assert type(back) is ScatterSVC and back.get_params() == model.get_params()
    assert np.array_equal(back.predict(X), model.predict(X))
    assert np.allclose(back.class_scores(X), model.class_scores(X))
    assert np.allclose(back.sensitivity_map(), model.sensitivity_map())


def test_bad_parameters_raise_readable_errors(circle4):
    X, y = circle4
    with pytest.raises(ParameterError, match="smallest class"):
        ScatterSVC(formulation="nu", bias=True, mu=0.01).fit(X, y)
    with pytest.raises(ParameterError, match="formulation"):
        ScatterSVC(formulation="hinge").fit(X, y)
    with pytest.raises(ParameterError, match="C must be"):
        ScatterSVC(C=-1).fit(X, y)
    with pytest.raises(AttributeError, match="linear kernel"):
        ScatterSVC().fit(X, y).coef_


# K = 2 decision_function is 1-D (scikit-learn's convention), so every check applies.
@parametrize_with_checks([ScatterSVC(), ScatterSVC(formulation="nu", bias=True)])
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_prototype_figure_shows_the_prototypes_their_mean_and_the_arrows(circle4):
    from svmviz.errors import DataError
    from svmviz.plots.scatter import plot_prototypes, plot_sensitivity_bars, plot_sensitivity_images

    X, y = circle4
    model = ScatterSVC(kernel="linear", formulation="nu", bias=True, mu=0.2).fit(X, y)
    fig = plot_prototypes(model, X, y, resolution=40)
    squares = [t for t in fig.data if t.name == "prototype m_c"]
    assert np.allclose([[t.x[0], t.y[0]] for t in squares], model.prototypes_)
    mean = next(t for t in fig.data if t.name.startswith("mean of prototypes"))
    assert np.allclose([mean.x[0], mean.y[0]], model.mean_prototype_)
    assert len(fig.layout.annotations) == 4  # one arrow m̄ → m_c per class
    regions = [t for t in fig.data if t.fill == "toself"]
    assert [t.name for t in regions] == [f"region of {c}" for c in range(4)]
    S = model.sensitivity_map()
    assert len(plot_sensitivity_bars(S).data) == 5
    with pytest.raises(DataError, match="8, 8"):
        plot_sensitivity_images(S, (8, 8))


# ------------------------------------------------------------------ convergence
def test_stopping_at_the_iteration_cap_warns_and_says_not_converged():
    """C = 1e5 on overlapping classes once ran to the SMO's cap of 10⁷ iterations
    (21–25 s) and reported nothing. With a cap of 300 the same fit must warn and say so."""
    from sklearn.exceptions import ConvergenceWarning

    ds = gaussians_on_circle(3, 100, std=1.5, seed=0)  # overlapping classes, large C: slow SMO
    for bias in (False, True):  # one QP, and the outer search of the C-form with bias
        with pytest.warns(ConvergenceWarning, match="max_iter"):
            model = ScatterSVC(C=1e5, bias=bias, max_iter=300).fit(ds.X, ds.y)
        assert not model.converged_ and model.n_iter_ <= 300
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)  # a converged fit does not warn
        assert ScatterSVC(C=1.0).fit(ds.X, ds.y).converged_


def test_non_finite_objective_is_an_error_not_a_converged_model(circle4, monkeypatch):
    import dataclasses

    import svmviz.models.scatter as sc
    from svmviz.errors import DataError

    real = sc.solve_qp

    def broken(problem, **kw):
        res = real(problem, **kw)
        return dataclasses.replace(res, alpha=np.full_like(res.alpha, np.nan))

    monkeypatch.setattr(sc, "solve_qp", broken)
    with pytest.raises(DataError, match="non-finite objective"):
        ScatterSVC().fit(*circle4)


@pytest.mark.parametrize("bad", [0, -5, "a", 2.5, float("nan")])
def test_max_iter_is_validated(circle4, bad):
    with pytest.raises(ParameterError, match="max_iter"):
        ScatterSVC(max_iter=bad).fit(*circle4)


# ------------------------------------------------------------------ prototypes and γ
def test_prototype_distances_are_the_feature_space_distances(circle4):
    X, y = circle4
    model = ScatterSVC(gamma=0.7, C=2.0).fit(X, y)
    P = model.prototype_weights_
    G = P @ model.kernel_.gram(model.support_vectors_) @ P.T
    d = np.diag(G)
    np.testing.assert_allclose(model.prototype_distances() ** 2, np.maximum(d[:, None] + d - 2 * G, 0),
                               atol=1e-9 * d.max())


def test_coinciding_prototypes_are_detected_and_not_drawn(circle4):
    from svmviz.plots.scatter import plot_prototypes

    # a ring around a disc, both symmetric about 0: both prototype pictures sit at the centre
    t = np.linspace(0, 2 * np.pi, 80, endpoint=False)
    a = np.linspace(0, 2 * np.pi, 12, endpoint=False)
    disc = np.vstack([np.column_stack([np.cos(a), np.sin(a)]) * r for r in (0.3, 0.6)])
    X = np.vstack([2 * np.column_stack([np.cos(t), np.sin(t)]), disc])
    y = np.r_[np.zeros(80, int), np.ones(24, int)]
    model = ScatterSVC(gamma=1.0).fit(X, y)
    assert np.mean(model.predict(X) == y) == 1.0
    assert model.coinciding_prototypes() == [(0, 1)]
    fig = plot_prototypes(model, X, y, resolution=30)
    assert not [tr for tr in fig.data if (tr.name or "").startswith("prototype")]
    assert "coincide" in fig.layout.title.subtitle.text
    spread = ScatterSVC(kernel="linear", formulation="nu", bias=True, mu=0.2).fit(*circle4)
    assert spread.coinciding_prototypes() == []


def test_fourclass_rbf_prototypes_coincide(fourclass):
    X = (fourclass.X - fourclass.X.mean(axis=0)) / fourclass.X.std(axis=0)
    assert ScatterSVC().fit(X, fourclass.y).coinciding_prototypes() == [(0, 1)]


def test_choose_gamma_on_validation_data():
    from sklearn.model_selection import train_test_split

    from svmviz.models.scatter import choose_gamma

    ds = sensitivity_5d(seed=0)
    gammas = [0.02, 0.05, 0.2, 2.0]
    choice = choose_gamma(ds.X, ds.y, gammas, validation=0.3, random_state=1, C=1.0)
    assert choice.maps.shape == (4, 4, 5) and choice.n_train + choice.n_validation == ds.y.size
    assert choice.accuracy[choice.best] == choice.accuracy.max()
    assert choice.best == np.flatnonzero(choice.accuracy == choice.accuracy.max())[0]  # smallest γ of ties
    Xt, Xv, yt, yv = train_test_split(ds.X, ds.y, test_size=0.3, random_state=1, stratify=ds.y)
    refit = ScatterSVC(kernel="rbf", gamma=choice.gamma, C=1.0).fit(Xt, yt)
    assert np.mean(refit.predict(Xv) == yv) == choice.accuracy[choice.best]
    mean_map = choice.maps[choice.best, -1]
    assert mean_map[:2].min() > 5 * mean_map[2:].max()  # x1, x2 discriminate
    with pytest.raises(ParameterError, match="gammas"):
        choose_gamma(ds.X, ds.y, [0.1, -1.0])


def test_sensitivity_images_have_a_colour_bar_each_and_gamma_maps_mark_the_choice():
    from svmviz.models.scatter import GammaChoice
    from svmviz.plots.scatter import plot_gamma_maps, plot_sensitivity_images

    S = np.random.default_rng(0).uniform(size=(4, 64))
    fig = plot_sensitivity_images(S, (8, 8))
    xs = [tr.colorbar.x for tr in fig.data]
    assert all(tr.showscale for tr in fig.data) and len(set(xs)) == 4
    choice = GammaChoice(np.array([0.1, 1.0]), np.array([0.9, 0.8]), 0, np.ones((2, 3, 5)), 70, 30)
    g = plot_gamma_maps(choice)
    assert len(g.data) == 2 and "chosen" in g.data[0].name and "chosen" not in g.data[1].name

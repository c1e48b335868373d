"""μ walked down from 1 past the zero-solution threshold (Zapién Arreola, Fehr and Burkhardt 2007,
§3.1): the threshold LP against the meeting LP and the cvxpy nearest-point QP, each step against a
real solve at its μ, the last step against the ν-SVM fitted there, and the question's answer
against the next step."""

from __future__ import annotations

import numpy as np
import pytest

from svmviz.errors import ParameterError
from svmviz.geometry import min_mu_intersecting, mu_walk, nearest_points, reduced_hulls_intersect, walk_step
from svmviz.geometry.mu_walk import explain_step, step_summary
from svmviz.models import BinaryNuSVC
from svmviz.questions import hull_walk_zero


def _overlapping(seed=0, n=40):
    rng = np.random.default_rng(seed)
    return rng.normal(-0.6, 1.0, (n, 2)), rng.normal(0.6, 1.0, (n + 7, 2))


def test_the_threshold_is_where_the_reduced_hulls_start_to_meet():
    Xa, Xb = _overlapping()
    t = min_mu_intersecting(Xa, Xb)
    assert 1 / len(Xa) < t.mu < 1
    assert t.weights_a.max() <= t.mu * (1 + 1e-7) and t.weights_b.max() <= t.mu * (1 + 1e-7)
    np.testing.assert_allclose(t.weights_a @ Xa, t.weights_b @ Xb, atol=1e-7)
    assert reduced_hulls_intersect(Xa, Xb, t.mu * 1.001).intersect
    assert not reduced_hulls_intersect(Xa, Xb, t.mu * 0.999).intersect
    ref = min_mu_intersecting(Xa, Xb, backend="cvxpy")
    assert ref.mu == pytest.approx(t.mu, rel=1e-5)
    # the cvxpy nearest-point QP: distance 0 just above, positive just below
    assert nearest_points(Xa, Xb, t.mu * 1.01, solver="cvxpy").distance < 1e-5
    assert nearest_points(Xa, Xb, t.mu * 0.9, solver="cvxpy").distance > 1e-3


def test_separable_classes_have_no_threshold():
    rng = np.random.default_rng(1)
    t = min_mu_intersecting(rng.normal(-3, 0.5, (20, 2)), rng.normal(3, 0.5, (20, 2)))
    assert t.mu == np.inf and t.witness is None


@pytest.fixture(scope="module")
def walked():
    Xa, Xb = _overlapping()
    X, y = np.vstack([Xa, Xb]), np.r_[np.ones(len(Xa)), -np.ones(len(Xb))]
    nu = 0.87 * 2 * len(Xa) / len(y)   # 1/μ = νm/2 not an integer: the offset is unique
    walk = mu_walk(Xa, Xb, 2 / (nu * len(y)))
    return Xa, Xb, X, y, nu, walk, [walk_step(walk, Xa, Xb, k) for k in range(len(walk))]


def test_the_walk_goes_from_one_down_past_the_threshold_and_w_is_zero_exactly_from_it_on(walked):
    Xa, Xb, X, y, nu, walk, steps = walked
    mus = walk.mus
    assert mus[0] == 1.0 and np.all(np.diff(mus) < 0) and mus[-1] == pytest.approx(2 / (nu * len(y)))
    k = walk.threshold_step
    assert 0 < k < len(walk) - 1 and mus[k] == walk.mu_star     # the threshold itself is a step
    assert [s.meet for s in steps] == [mu >= walk.mu_star for mu in mus]
    for s in steps:
        # every step against a real solve at its μ (the cvxpy reference): w = 0 exactly where they meet
        ref = nearest_points(Xa, Xb, s.mu, solver="cvxpy")
        if s.meet:
            assert s.distance == 0.0 and ref.distance < 1e-5
            np.testing.assert_allclose(s.point_a, s.point_b)
        else:
            assert s.distance == pytest.approx(ref.distance, rel=1e-4)
            np.testing.assert_allclose(s.w, s.point_a - s.point_b)
            assert np.linalg.norm(s.w) == pytest.approx(s.distance)
    below = [s.distance for s in steps[k + 1:]]
    assert below[0] > 0 and np.all(np.diff(below) > 0)   # read upwards, ‖w‖ shrinks to 0 at μ*
    assert all(len(s.reduced_a) >= 1 and len(s.reduced_b) >= 1 for s in steps)


def test_the_last_step_is_the_nu_svm_fitted_at_the_walk_s_end(walked):
    Xa, Xb, X, y, nu, walk, steps = walked
    model = BinaryNuSVC(nu=nu, kernel="linear", tol=1e-8).fit(X, y)
    last, coef = steps[-1], model.coef_[0]
    np.testing.assert_allclose(last.w / np.linalg.norm(last.w), coef / np.linalg.norm(coef), atol=1e-6)
    assert last.b_nu / np.linalg.norm(last.w) == pytest.approx(model.intercept_[0] / np.linalg.norm(coef), abs=1e-5)


def test_the_question_s_answer_is_what_the_next_step_shows(walked):
    Xa, Xb, X, y, nu, walk, steps = walked
    for k in range(len(walk) - 1):
        q = hull_walk_zero(walk, k)
        assert q.answer_text == ("yes, w = 0" if steps[k + 1].meet else "no, w ≠ 0")
        assert f"{walk.mus[k + 1]:.4g}" in q.prompt
    with pytest.raises(ParameterError, match="last step"):
        hull_walk_zero(walk, len(walk) - 1)


def test_each_step_is_said_in_one_sentence_and_explained_with_its_numbers(walked):
    Xa, Xb, X, y, nu, walk, steps = walked
    k = walk.threshold_step
    assert "just touch" in step_summary(walk, steps[k], k) and "\n" not in step_summary(walk, steps[k], k)
    text = explain_step(walk, steps[-1], len(walk) - 1)
    assert f"{steps[-1].distance:.4g}" in text and f"{walk.mu_star:.4g}" in text and "last step" in text
    assert f"{len(steps[-1].reduced_a)} (class +1)" in text
    assert walk.mus[0] == 1 and "⌈1/μ⌉ = 1 point of its class" in explain_step(walk, steps[0], 0)   # not "1 points"


def test_a_walk_below_the_smallest_class_s_reduced_hull_is_refused():
    Xa, Xb = _overlapping()
    with pytest.raises(ParameterError, match="empty"):
        mu_walk(Xa, Xb, 0.5 / len(Xa))


def test_an_overlapping_nu_says_to_raise_nu():
    """At a ν whose reduced hulls meet, the ν-SVM says to take a larger ν (a larger ν shrinks the
    hulls); it said "smaller", which makes them overlap more."""
    Xa, Xb = _overlapping()
    X, y = np.vstack([Xa, Xb]), np.r_[np.ones(len(Xa)), -np.ones(len(Xb))]
    t = min_mu_intersecting(Xa, Xb)
    nu = 2 / (3 * t.mu * len(y))   # μ = 3μ*: the hulls meet
    with pytest.raises(ParameterError, match="larger nu"):
        BinaryNuSVC(nu=nu, kernel="linear").fit(X, y)


def test_a_nu_below_two_over_m_is_one_step_at_the_convex_hulls():
    """ν < 2/m puts μ above 1, where every reduced hull is the convex hull: the walk is that one
    step (it was refused, and the Convex Hulls page failed at its slider's smallest ν)."""
    Xa, Xb = _overlapping()
    walk = mu_walk(Xa, Xb, 1.9)
    assert walk.mus.tolist() == [1.9] and walk.zero_at(0)
    step = walk_step(walk, Xa, Xb, 0)
    assert step.meet and len(step.reduced_a) == len(walk.hull_a)

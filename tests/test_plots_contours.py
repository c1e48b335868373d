"""Level lines drawn as polylines (marching squares) instead of a contour trace's grid."""

from __future__ import annotations

import numpy as np
import plotly.io as pio

from svmviz.plots.contours import level_lines, polyline_xy, simplify


def _grid(f, n=81, lo=-2.0, hi=2.0):
    xs = ys = np.linspace(lo, hi, n)
    xx, yy = np.meshgrid(xs, ys)
    return xs, ys, f(xx, yy)


def test_a_circle_is_one_closed_line_on_the_circle():
    xs, ys, Z = _grid(lambda x, y: x ** 2 + y ** 2 - 1.0)
    lines = level_lines(xs, ys, Z, 0.0)
    assert len(lines) == 1
    line = lines[0]
    assert np.allclose(line[0], line[-1]) and len(line) > 40
    assert np.allclose(np.hypot(line[:, 0], line[:, 1]), 1.0, atol=2e-3)


def test_a_level_other_than_zero_and_lines_ending_on_the_border():
    xs, ys, Z = _grid(lambda x, y: x - 0.3 * y)
    lines = level_lines(xs, ys, Z, 0.5)
    assert len(lines) == 1
    line = lines[0]
    assert np.allclose(line[:, 0] - 0.3 * line[:, 1], 0.5)
    assert {round(abs(line[0, 1]), 6), round(abs(line[-1, 1]), 6)} == {2.0}   # from border to border


def test_two_blobs_give_two_lines_and_no_crossing_gives_none():
    f = lambda x, y: np.minimum((x - 1) ** 2 + y ** 2, (x + 1) ** 2 + y ** 2) - 0.25
    xs, ys, Z = _grid(f)
    assert len(level_lines(xs, ys, Z, 0.0)) == 2
    assert level_lines(xs, ys, Z, -1.0) == []


def test_simplify_keeps_the_line_within_the_tolerance():
    t = np.linspace(0, np.pi, 400)
    line = np.column_stack([np.cos(t), np.sin(t)])
    short = simplify(line, 1e-3)
    assert len(short) < 100 and np.allclose(short[[0, -1]], line[[0, -1]])
    # every original point is within the tolerance of the simplified polyline
    a, b = short[:-1], short[1:]
    d = b - a
    f = np.clip(np.einsum("pkj,kj->pk", line[:, None, :] - a[None], d) / np.einsum("kj,kj->k", d, d), 0, 1)
    dist = np.linalg.norm(line[:, None, :] - (a[None] + f[..., None] * d[None]), axis=2).min(axis=1)
    assert dist.max() <= 1e-3 + 1e-12


def test_polylines_are_separated_by_gaps():
    x, y = polyline_xy([np.array([[0.0, 0.0], [1.0, 1.0]]), np.array([[2.0, 2.0], [3.0, 1.0 / 3.0]])])
    assert x == [0.0, 1.0, None, 2.0, 3.0] and y[2] is None and y[-1] == 0.333333


def test_the_smo_step_figure_of_fourclass_draws_its_lines_small_and_on_the_level(fourclass):
    from svmviz.data.preprocessing import split_and_normalize
    from svmviz.models.svc import BinarySVC
    from svmviz.plots.solvers import plot_smo_step

    train, _ = split_and_normalize(fourclass, "none", 0.3, 0, True)
    idx = np.sort(np.random.default_rng(0).choice(train.n_samples, 300, replace=False))
    X, y = train.X[idx], train.y[idx]
    model = BinarySVC(C=1.0, kernel="rbf", trace=True).fit(X, y)
    target = BinarySVC(C=1.0, kernel="rbf", solver="cvxpy").fit(X, y)
    t = len(model.trace_) // 2
    it = model.iterate_at(t)
    fig = plot_smo_step(it, X, y, ["−1", "+1"], None, target=target)
    assert len(pio.to_json(fig, validate=False)) < 25_000
    assert not any(tr.type == "contour" for tr in fig.data)
    for name, f, level in (("f_t(x) = 0", it, 0.0), ("optimum (cvxpy): f(x) = 0", target, 0.0),
                           ("f_t(x) = −1", it, -1.0)):
        tr = next(tr for tr in fig.data if tr.name == name)
        P = np.array([(a, b) for a, b in zip(tr.x, tr.y) if a is not None], dtype=float)
        assert len(P) > 5
        # on the level up to the grid's interpolation (the function's range is several units)
        assert np.abs(f.decision_function(P) - level).max() < 0.05, name


def test_the_decision_function_view_draws_its_boundary_and_margins_as_lines_not_grids():
    from sklearn.svm import SVC

    from svmviz.plots.standard import add_boundary, decision_contours

    rng = np.random.default_rng(2)
    X = rng.normal(size=(80, 2))
    y = np.where(X[:, 0] ** 2 + X[:, 1] > 0.5, 1, -1)
    model = SVC(C=10.0).fit(X, y)
    fig = add_boundary(decision_contours(model, X, y), model, X, "again")
    assert [t.type for t in fig.data].count("contour") == 0
    for t in fig.data:
        level = {"boundary f(x) = 0": 0.0, "margin f(x) = −1": -1.0, "margin f(x) = +1": 1.0, "again": 0.0}.get(t.name)
        if level is None:
            continue
        P = np.array([(a, b) for a, b in zip(t.x, t.y) if a is not None])
        assert len(P) > 5 and np.abs(model.decision_function(P) - level).max() < 0.05, t.name

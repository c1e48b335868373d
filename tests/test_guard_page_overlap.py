"""The Guard Vectors page on data whose classes overlap (as fourclass does): it shows why there
are no guard vectors (the two convex hulls, overlapping) and one click opens a separable example
where the page's idea can be seen."""

from __future__ import annotations

import numpy as np

from apphelpers import page_test, problems
from svmviz.data import Dataset


def _overlapping() -> Dataset:
    rng = np.random.default_rng(5)
    X = np.vstack([rng.normal(-0.3, 0.6, (40, 2)), rng.normal(0.3, 0.6, (40, 2))])
    return Dataset(X, np.repeat([-1, 1], 40), ["x1", "x2"], ["-1", "1"], "overlap", "test")


def test_overlapping_classes_get_a_picture_and_a_separable_example():
    at = page_test("pages/4_Guard_Vectors.py", _overlapping()).run()
    assert not problems(at)
    charts = [c for c in at.get("plotly_chart") if "convex hulls of the two classes overlap" in c.proto.spec]
    assert len(charts) == 1
    at.button(key="guard_use_cubes").click().run()
    assert not problems(at)
    assert at.session_state["guard.src"] == "cubes50"
    metrics = {m.label: m.value for m in at.metric}
    assert int(metrics["guard vectors g"]) > 0

"""The SVM tree's final partition draws each node's hyperplane only where that node acts: inside
the region the nodes before it pass on (Zapién Arreola, Fehr and Burkhardt 2007, §3.2.1), not as
a line across the whole plane."""

from __future__ import annotations

import numpy as np
import pytest

from svmviz.models import SVMTreeClassifier
from svmviz.plots.common import Plane
from svmviz.plots.svm_tree import final_figure


def _ring(n: int = 30, seed: int = 7):
    """Class −1 on a ring around a blob of class +1: a chain of several nodes."""
    rng = np.random.default_rng(seed)
    angle, radius = rng.uniform(0, 2 * np.pi, n), rng.uniform(1.0, 1.5, n)
    X = np.vstack([np.c_[radius * np.cos(angle), radius * np.sin(angle)], rng.normal(0, 0.35, (n, 2))])
    return X, np.repeat([-1, 1], n)


@pytest.mark.parametrize("pruned", [True, False])
def test_each_node_line_lies_where_the_earlier_nodes_pass_samples_on(pruned):
    X, y = _ring()
    model = SVMTreeClassifier(greedy_level=1, C_hard=100.0).fit(X, y)
    tree = model.trees_[0]
    nodes = tree.kept() if pruned else tree.nodes
    assert len(nodes) >= 3
    fig = final_figure(model, X, y, pruned=pruned, plane=Plane(X))
    lines = {t.name: t for t in fig.data if getattr(t, "mode", None) == "lines" and str(t.name).startswith("node ")}
    assert lines
    for i, n in enumerate(nodes):
        t = lines.get(f"node {n.depth + 1} ({n.label})")
        if t is None:
            continue
        ends = np.c_[t.x, t.y]
        on_line = n.w @ ends.T - n.threshold
        assert np.allclose(on_line, 0, atol=1e-8)      # still the node's own hyperplane
        inner = ends[0] + np.linspace(0.01, 0.99, 25)[:, None] * (ends[1] - ends[0])
        for earlier in nodes[:i]:   # an earlier node decides nothing along it
            assert np.all(earlier.hard_class * (inner @ earlier.w - earlier.threshold) >= -1e-9)


@pytest.mark.parametrize("pruned", [True, False])
def test_the_final_partition_names_the_classes_as_the_step_pictures_do(pruned):
    """"class −1" / "class +1" with the minus sign, as in every step picture (not "-1" / "1")."""
    X, y = _ring()
    model = SVMTreeClassifier().fit(X, y)
    names = [t.name for t in final_figure(model, X, y, pruned=pruned).data if getattr(t, "mode", None) == "markers"]
    assert names[:2] == ["class −1", "class +1"]

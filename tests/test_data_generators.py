"""Deterministic generators: the committed sample_data/ files are exactly what they write."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from svmviz.data import DataError, load_dataset
from svmviz.data.generators import GENERATORS, SAMPLE_FILES, generate

ROOT = Path(__file__).resolve().parents[1]


def test_module_run_rewrites_sample_data_byte_for_byte(tmp_path):
    # -W error: running the module must not warn (it used to be imported twice through the package)
    out = subprocess.run([sys.executable, "-W", "error", "-m", "svmviz.data.generators", str(tmp_path)],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stderr == ""
    written = sorted(p.name for p in tmp_path.iterdir())
    assert written == sorted(SAMPLE_FILES)
    assert written == sorted(p.name for p in (ROOT / "sample_data").glob("*.csv"))
    for name in written:
        assert (tmp_path / name).read_bytes() == (ROOT / "sample_data" / name).read_bytes(), name


@pytest.mark.parametrize("fname", sorted(SAMPLE_FILES))
def test_sample_files_load_back_as_their_generator_made_them(fname):
    ds = load_dataset(ROOT / "sample_data" / fname)
    ref = SAMPLE_FILES[fname]()
    np.testing.assert_allclose(ds.X, ref.X, atol=5e-7)  # the files keep 6 decimals
    np.testing.assert_array_equal(ds.y, ref.y)
    assert ds.feature_names == ref.feature_names


@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_generators_are_seeded(name):
    a, b, c = generate(name, seed=3), generate(name, seed=3), generate(name, seed=4)
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.y, b.y)
    assert not np.array_equal(a.X, c.X)


def test_generator_shapes_follow_the_papers():
    hc = generate("hypercubes", m=100, n_dims=3)
    neg, pos = hc.X[hc.y == -1], hc.X[hc.y == 1]
    assert neg.min() >= 0 and neg.max() <= 40 and pos.min() >= 60 and pos.max() <= 100
    # (the ranges of Yang and Ahuja (2000), Table 1)
    cb = generate("checkerboard", n_classes=7, n_per_class=5)
    assert cb.class_counts() == {c: 5 for c in range(7)}
    circ = generate("gaussians_on_circle", n_classes=8, n_per_class=4, std=0.01)
    centres = np.array([circ.X[circ.y == c].mean(axis=0) for c in range(8)])
    radii = np.linalg.norm(centres, axis=1)
    assert np.ptp(radii) < 0.05  # evenly on one circle
    spread = [np.std(generate("interlaced", level=k).X) for k in (1, 2, 3, 4)]
    assert spread == sorted(spread)  # Data1..Data4: more and more interlaced
    s5 = generate("sensitivity_5d")
    means = np.array([s5.X[s5.y == c].mean(axis=0) for c in range(3)])
    assert np.ptp(means[:, :2], axis=0).min() > 1.0 and np.ptp(means[:, 2:], axis=0).max() < 0.6


@pytest.mark.parametrize("name,params,words", [
    ("nope", {}, "unknown generator"),
    ("checkerboard", {"n_classes": 1}, "only one class"),
    ("checkerboard", {"n_classes": 0}, "between 1 and"),
    ("hypercubes", {"m": 10**7}, "between 1 and"),
    ("mexican_hat", {"n": 2.5}, "whole number"),
    ("interlaced", {"level": 9}, "level must be 1, 2, 3 or 4"),
    ("gaussians_on_circle", {"std": -1.0}, "cannot use these parameters"),
    ("fourclass_like", {"seed": -1}, "cannot use these parameters"),
    ("fourclass_like", {"colour": "red"}, "cannot use these parameters"),
    ("tabular_regions", {"n": 20000, "regions_per_class": 20000}, "more regions than the 20000 points"),
    ("tabular_regions", {"n_features": 20000}, "features"),
])
def test_bad_generator_parameters(name, params, words, classroom_budget):
    with pytest.raises(DataError, match=words):
        generate(name, **params)


@pytest.mark.parametrize("name,params", [
    ("checkerboard", {"n_classes": 20000, "n_per_class": 20000}),  # 4×10⁸ points
    ("gaussians_on_circle", {"n_classes": 20000, "n_per_class": 20000}),
    ("hypercubes", {"m": 20000, "n_dims": 20000}),  # 20,000 points × 20,000 features
    ("local_triangles", {"n_clusters": 20000, "n_per_class": 20000}),
    ("gaussians_on_circle", {"n_classes": 1001, "n_per_class": 1000}),  # just above: 2,002,000 cells
    ("sensitivity_5d", {"n_per_class": 20000}),  # 60,000 × 5 = 300,000 cells: made
])
def test_generate_refuses_more_than_the_cell_cap_before_allocating(name, params, classroom_budget):
    import tracemalloc

    from svmviz.data.generators import generated_size

    points, features = generated_size(name, **params)
    if points * features <= classroom_budget.generated_cells:
        assert generate(name, **params).X.shape == (points, features)
        return
    tracemalloc.start()
    try:
        with pytest.raises(DataError, match=r"lower the counts so that points × features ≤ 2,000,000"):
            generate(name, **params)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1_000_000  # refused before the data exist (the smallest refused set is 16 MB)


def test_generate_accepts_exactly_the_cell_cap(classroom_budget):
    cells = classroom_budget.generated_cells
    ds = generate("checkerboard", n_classes=100, n_per_class=cells // 200)
    assert ds.X.size == cells
    with pytest.raises(DataError, match="2,002,000 values"):
        generate("hypercubes", m=1001, n_dims=2000)


def test_bayes_accuracy_matches_the_closed_form_for_two_gaussians():
    from scipy.stats import norm

    from svmviz.data.generators import bayes_accuracy

    centres = np.array([[[0.0, 0.0]], [[1.5, 0.0]]])  # two classes, one component each
    acc, se = bayes_accuracy(centres, 0.6, n_samples=200_000, seed=1)
    assert acc == pytest.approx(norm.cdf(1.5 / (2 * 0.6)), abs=4 * se)  # Φ(δ / 2σ)


def test_bayes_ceilings_of_the_generators():
    from sklearn.svm import SVC

    from svmviz.data.generators import bayes_accuracy, mixture_components

    ceilings = [bayes_accuracy(*mixture_components("interlaced", level=k), n_samples=50_000)[0]
                for k in (1, 2, 3, 4)]
    assert ceilings == sorted(ceilings, reverse=True) and ceilings[0] > 0.999 and ceilings[3] < 0.75
    # No classifier beats the ceiling on fresh samples of the density (beyond sampling error).
    train, test = generate("interlaced", level=3, n_per_class=300), generate("interlaced", level=3,
                                                                             n_per_class=2000, seed=9)
    svm_acc = SVC().fit(train.X, train.y).score(test.X, test.y)
    assert svm_acc <= ceilings[2] + 3 * np.sqrt(0.25 / 6000)
    local = bayes_accuracy(*mixture_components("local_triangles"), n_samples=50_000)[0]
    assert local > 0.99
    with pytest.raises(DataError, match="no mixture density"):
        mixture_components("checkerboard")


def test_local_triangles_mix_globally_and_separate_locally():
    from svmviz.data.generators import local_triangles, mixture_components

    ds = local_triangles(n_clusters=4, n_per_class=30, seed=2)
    assert ds.X.shape == (360, 2) and ds.class_counts() == {0: 120, 1: 120, 2: 120}
    centres, std = mixture_components("local_triangles", n_clusters=4)
    means = np.array([ds.X[ds.y == c].mean(axis=0) for c in range(3)])
    # every class spreads over every cluster: the class means lie close together next to the
    # clusters' circle (radius 3)
    assert np.ptp(means, axis=0).max() < 0.75
    # each cluster holds every class, and inside a cluster the classes sit on distinct corners
    for M in range(4):
        corners = centres[:, M]
        assert min(np.linalg.norm(corners[a] - corners[b]) for a in range(3) for b in range(a + 1, 3)) >= 5.9 * std
    # the arrangement differs from one cluster to the next: class 0 is not always at the same corner
    offsets = centres[0] - centres.mean(axis=0)
    assert np.ptp(np.arctan2(offsets[:, 1], offsets[:, 0])) > 1.0


def _one_label_share(ds, n_informative, bins=10):
    """Share of the samples in cells of a bins^q grid over the informative features that hold
    one label only: a simple measure of one-class regions."""
    cell = np.ravel_multi_index(tuple(np.minimum((ds.X[:, j] * bins).astype(int), bins - 1)
                                      for j in range(n_informative)), (bins,) * n_informative)
    _, inverse = np.unique(cell, return_inverse=True)
    labels_in = np.array([np.unique(ds.y[inverse == c]).size for c in range(inverse.max() + 1)])
    return float(np.mean(labels_in[inverse] == 1))


def test_tabular_regions_shape_scale_classes_and_seed():
    from svmviz.data.generators import tabular_regions

    ds = tabular_regions(5000, n_features=12, n_classes=7, seed=1)
    assert ds.X.shape == (5000, 12) and set(ds.class_counts()) == set(range(7))
    assert np.all(ds.X.min(axis=0) == 0) and np.all(ds.X.max(axis=0) == 1)  # min–max scaled (§3)
    again, other = tabular_regions(5000, n_features=12, n_classes=7, seed=1), tabular_regions(5000, 12, 7, seed=2)
    np.testing.assert_array_equal(ds.X, again.X)
    np.testing.assert_array_equal(ds.y, again.y)
    assert not np.array_equal(ds.y, other.y)
    # the extra features carry some of the informative ones, as columns of a real table do
    corr = np.abs(np.corrcoef(ds.X.T)[:3, 3:]).max(axis=0)
    assert np.median(corr) > 0.2
    with pytest.raises(DataError, match="n_informative must be between 1 and n_features"):
        generate("tabular_regions", n_features=2, n_informative=3)
    with pytest.raises(DataError, match="overlap must be ≥ 0"):
        generate("tabular_regions", overlap=-0.1)


def test_tabular_regions_are_one_class_regions_mixed_only_near_their_boundaries():
    from scipy.spatial import cKDTree

    from svmviz.data.generators import tabular_regions

    shares = {ov: _one_label_share(tabular_regions(20000, 6, 3, overlap=ov), 3) for ov in (0.0, 0.01, 0.1)}
    assert shares[0.01] > 0.55 and shares[0.01] >= 0.9 * shares[0.0]  # most samples in one-class cells
    assert shares[0.1] < 0.3                                          # a wide overlap mixes them
    # The points, prototypes and features do not depend on overlap, only the labels: every label
    # the overlap changed lies within 5·overlap (+ the sample spacing) of a region of another class.
    clean = tabular_regions(20000, 4, 3, n_informative=2, overlap=0.0, seed=3)
    noisy = tabular_regions(20000, 4, 3, n_informative=2, overlap=0.01, seed=3)
    np.testing.assert_array_equal(clean.X, noisy.X)
    changed = np.flatnonzero(clean.y != noisy.y)
    assert 0 < changed.size < 0.05 * clean.y.size
    for i in changed:
        other = clean.X[clean.y != clean.y[i], :2]
        assert cKDTree(other).query(clean.X[i, :2])[0] < 5 * 0.01 + 0.02


def test_tabular_regions_give_the_tree_decomposition_homogeneous_leaves():
    from svmviz.data.generators import tabular_regions
    from svmviz.models._td_tree import grow_tree

    def homogeneous_share(ds):  # the tree of Chang, Guo, Lin and Lu 2009 (§2.1) at σ₀ = 1,500
        tree = grow_tree(ds.X, ds.y, 2, 1500)
        leaves = tree.leaves_at(1500)
        one = np.count_nonzero(tree.counts[leaves], axis=1) == 1
        return tree.n_samples[leaves][one].sum() / ds.y.size

    narrow = homogeneous_share(tabular_regions(30000, 14, 2))
    assert narrow > 0.3
    assert homogeneous_share(tabular_regions(30000, 14, 2, overlap=0.1)) < 0.5 * narrow

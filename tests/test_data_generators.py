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


def test_generator_shapes_follow_the_seeds():
    hc = generate("hypercubes", m=100, n_dims=3)
    neg, pos = hc.X[hc.y == -1], hc.X[hc.y == 1]
    assert neg.min() >= 0 and neg.max() <= 40 and pos.min() >= 60 and pos.max() <= 100  # seed 001 Table 1
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
])
def test_bad_generator_parameters(name, params, words):
    with pytest.raises(DataError, match=words):
        generate(name, **params)


@pytest.mark.parametrize("name,params", [
    ("checkerboard", {"n_classes": 20000, "n_per_class": 20000}),  # 4×10⁸ points (issue 16 item 1)
    ("gaussians_on_circle", {"n_classes": 20000, "n_per_class": 20000}),
    ("hypercubes", {"m": 20000, "n_dims": 20000}),  # 20,000 points × 20,000 features
    ("gaussians_on_circle", {"n_classes": 1001, "n_per_class": 1000}),  # just above: 2,002,000 cells
    ("sensitivity_5d", {"n_per_class": 20000}),  # 60,000 × 5 = 300,000 cells: made
])
def test_generate_refuses_more_than_the_cell_cap_before_allocating(name, params):
    import tracemalloc

    from svmviz.data.generators import MAX_GENERATED_CELLS, generated_size

    points, features = generated_size(name, **params)
    if points * features <= MAX_GENERATED_CELLS:
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


def test_generate_accepts_exactly_the_cell_cap():
    from svmviz.data.generators import MAX_GENERATED_CELLS

    ds = generate("checkerboard", n_classes=100, n_per_class=MAX_GENERATED_CELLS // 200)
    assert ds.X.size == MAX_GENERATED_CELLS
    with pytest.raises(DataError, match="2,002,000 values"):
        generate("hypercubes", m=1001, n_dims=2000)

"""Deterministic data generators (seeded) and the files they write into ``sample_data/``.

``python -m svmviz.data.generators [DIR]`` rewrites the files byte for byte.
"""

from __future__ import annotations

import inspect
import sys
from pathlib import Path

import numpy as np

from svmviz import limits
from svmviz.data.dataset import Dataset


def fourclass_like(n: int = 800, seed: int = 0) -> Dataset:
    """Two interlocking classes in [-1, 1]², shaped like LIBSVM's fourclass (a class made of
    two separate lobes wrapped around the other)."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, 2))
    f = np.sin(2.6 * X[:, 0] + 0.6) + 0.9 * np.cos(3.2 * X[:, 1] - 0.4) - 0.35
    y = np.where(f > 0, 1, -1)
    return Dataset(X, y, ["x1", "x2"], [], "fourclass-like", f"generated: fourclass_like(n={n}, seed={seed})")


def mexican_hat(n: int = 600, seed: int = 0) -> Dataset:
    """Zapién Arreola, Fehr and Burkhardt 2007, Fig. 2.7/3.15: points above (+1) or below (−1) a Mexican-hat (Ricker) curve."""
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.uniform(-4, 4, n), rng.uniform(-0.8, 1.4, n)])
    h = (1 - X[:, 0] ** 2 / 2) * np.exp(-X[:, 0] ** 2 / 4)
    y = np.where(X[:, 1] > h, 1, -1)
    return Dataset(X, y, ["x1", "x2"], [], "mexican hat", f"generated: mexican_hat(n={n}, seed={seed})")


def elephant_in_snake(n: int = 600, seed: int = 0) -> Dataset:
    """Zapién Arreola et al. 2007, Fig. 2.7–2.9: a round blob (+1) swallowed by a winding band (−1): no line
    separates them."""
    rng = np.random.default_rng(seed)
    k = n // 3
    r = 0.9 * np.sqrt(rng.uniform(0, 1, k))
    t = rng.uniform(0, 2 * np.pi, k)
    blob = np.column_stack([r * np.cos(t), 0.8 * r * np.sin(t)])
    s = rng.uniform(-4, 4, n - k)
    centre = np.where(np.abs(s) < 2, 1.6 * np.cos(np.pi * s / 4), 0.8 * np.sin(2 * s))
    band = np.column_stack([s, np.where(np.abs(s) < 2, np.sign(rng.uniform(-1, 1, n - k)) * centre, centre)
                            + rng.normal(0, 0.18, n - k)])
    X = np.vstack([blob, band])
    y = np.r_[np.ones(k, dtype=int), -np.ones(n - k, dtype=int)]
    return Dataset(X, y, ["x1", "x2"], [], "elephant in a snake", f"generated: elephant_in_snake(n={n}, seed={seed})")


def shuttle_like(n: int = 3000, strip: float = 0.15, noise: float = 0.0, seed: int = 0) -> Dataset:
    """Chang, Guo, Lin and Lu 2009, Table 12: two classes in [-1, 1]² made, as Shuttle (98 %
    homogeneous), of large homogeneous regions, with one interlocking wavy strip of half-width
    ``strip`` where the classes meet; ``noise``: the share of labels flipped (then no leaf of
    hundreds of samples is exactly homogeneous: 0.99^700 ≈ 0.1 %)."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, 2))
    in_strip = np.abs(X[:, 1] - 0.3 * np.sin(4 * X[:, 0])) < strip
    y = np.where(X[:, 0] < -0.4, 0, 1)
    y[in_strip] = (np.sin(9 * X[in_strip, 0]) + X[in_strip, 1] > 0).astype(int)
    flip = np.random.default_rng(seed + 1).random(n) < noise
    y[flip] = 1 - y[flip]
    return Dataset(X, y, ["x1", "x2"], [], "Shuttle-like",
                   f"generated: shuttle_like(n={n}, strip={strip:g}, noise={noise:g}, seed={seed})")


def tabular_regions(n: int = 3000, n_features: int = 8, n_classes: int = 3, n_informative: int = 3,
                    regions_per_class: int = 4, overlap: float = 0.01, seed: int = 0) -> Dataset:
    """Tabular data made of one-class regions, as the tree decomposition of Chang, Guo, Lin and
    Lu 2009 (Table 12) found in real sets: the class of a point is the class of the nearest of
    ``regions_per_class`` × ``n_classes`` random prototypes in the first ``n_informative``
    features (Voronoi cells, uniform in [0, 1]), so classes are unions of regions with oblique
    boundaries. Before its label is read off the cells each point is displaced by N(0, ``overlap``²)
    (the point itself stays): labels mix only within a few ``overlap`` of a boundary, farther
    off a point keeps its region's class (3·overlap from one flat boundary: 99.87 % of the time). The other
    features are partly informative, as columns of real tables: each is w · (a random mix of the
    informative ones) + (1 − w) · uniform noise, with its own w uniform in [0, 1]. Every feature
    is min–max scaled to [0, 1] (the paper's §3).

    The defaults, chosen for what they model (not to reach any figure of the paper): 3
    informative features, a low intrinsic dimension as in tables whose class is set by a few
    columns; 4 regions per class, so a class is several separate regions rather than one convex
    blob; overlap 0.01, an uncertainty of 1 % of a feature's range, a measurement's resolution.
    The regions do not multiply with ``n``: a larger set has more samples per region, as more
    records of the same phenomenon would."""
    if not 1 <= n_informative <= n_features:
        raise ValueError(f"n_informative must be between 1 and n_features ({n_features}), not {n_informative}")
    if overlap < 0:
        raise ValueError(f"overlap must be ≥ 0, not {overlap}")
    if regions_per_class * n_classes > n:
        raise ValueError(f"{regions_per_class} regions per class × {n_classes} classes is more regions "
                         f"than the {n} points")
    from scipy.spatial import cKDTree
    rng = np.random.default_rng(seed)
    prototypes = rng.uniform(0, 1, size=(regions_per_class * n_classes, n_informative))
    owner = rng.permutation(np.arange(prototypes.shape[0]) % n_classes)
    Z = rng.uniform(0, 1, size=(n, n_informative))
    # the nearest prototype by a k-d tree: memory and time grow with n · log(prototypes), not n × prototypes
    y = owner[cKDTree(prototypes).query(Z + overlap * rng.normal(size=Z.shape))[1]]
    extra = n_features - n_informative
    w = rng.uniform(0, 1, size=extra)
    mix = rng.normal(size=(n_informative, extra))
    X = np.hstack([Z, w * (Z @ mix) + (1 - w) * rng.uniform(0, 1, size=(n, extra))])
    X -= X.min(axis=0)
    X /= np.maximum(X.max(axis=0), 1e-300)
    return Dataset(X, y, [f"x{j + 1}" for j in range(n_features)], [], f"tabular regions K={n_classes}",
                   f"generated: tabular_regions(n={n}, n_features={n_features}, n_classes={n_classes}, "
                   f"n_informative={n_informative}, regions_per_class={regions_per_class}, "
                   f"overlap={overlap:g}, seed={seed})")


def checkerboard(n_classes: int = 4, n_per_class: int = 20, overlap: float = 0.1, seed: int = 0) -> Dataset:
    """Jenssen, Kloft, Zien, Sonnenburg and Müller 2012, §5: a board of ⌈√K⌉ columns, one class per field, fields slightly overlapping."""
    rng = np.random.default_rng(seed)
    cols = int(np.ceil(np.sqrt(n_classes)))
    X, y = [], []
    for c in range(n_classes):
        cx, cy = c % cols, c // cols
        lo = -overlap / 2
        X.append(np.column_stack([cx + rng.uniform(lo, 1 - lo, n_per_class),
                                  cy + rng.uniform(lo, 1 - lo, n_per_class)]))
        y.append(np.full(n_per_class, c))
    return Dataset(np.vstack(X), np.concatenate(y), ["x1", "x2"], [], f"checkerboard K={n_classes}",
                   f"generated: checkerboard(K={n_classes}, n_per_class={n_per_class}, seed={seed})")


def gaussians_on_circle(n_classes: int = 5, n_per_class: int = 10, spacing: float = 1.0,
                        std: float = 0.3, seed: int = 0) -> Dataset:
    """Jenssen et al. 2012, §5: K Gaussians evenly on a circle whose radius keeps neighbours ``spacing`` apart."""
    rng = np.random.default_rng(seed)
    radius = max(spacing * n_classes / (2 * np.pi), spacing)
    ang = 2 * np.pi * np.arange(n_classes) / n_classes
    centres = radius * np.column_stack([np.cos(ang), np.sin(ang)])
    X = np.vstack([rng.normal(centres[c], std, size=(n_per_class, 2)) for c in range(n_classes)])
    y = np.repeat(np.arange(n_classes), n_per_class)
    return Dataset(X, y, ["x1", "x2"], [], f"Gaussians on a circle K={n_classes}",
                   f"generated: gaussians_on_circle(K={n_classes}, n_per_class={n_per_class}, seed={seed})")


def hypercubes(m: int = 200, n_dims: int = 2, seed: int = 0) -> Dataset:
    """Yang and Ahuja 2000, Table 1: m points, half uniform in [0, 40]ⁿ (−1) and half in [60, 100]ⁿ (+1)."""
    rng = np.random.default_rng(seed)
    a = m // 2
    X = np.vstack([rng.uniform(0, 40, (a, n_dims)), rng.uniform(60, 100, (m - a, n_dims))])
    y = np.r_[-np.ones(a, dtype=int), np.ones(m - a, dtype=int)]
    return Dataset(X, y, [f"x{j + 1}" for j in range(n_dims)], [], f"hypercubes n={n_dims}",
                   f"generated: hypercubes(m={m}, n={n_dims}, seed={seed})")


#: Data1–Data4 of Sabzekar, GhasemiGol, Naghibzadeh and Sadoghi Yazdi, Improved DAG SVM, Table 1: separate, then increasingly interlaced (std of each class).
INTERLACE_STD = {1: 0.25, 2: 0.55, 3: 0.85, 4: 1.15}


#: Centres of the three classes of Data1–Data4 (a triangle).
INTERLACE_CENTRES = np.array([[0.0, 0.0], [2.0, 0.0], [1.0, 1.7]])


def interlaced(level: int = 1, n_per_class: int = 50, seed: int = 0) -> Dataset:
    """Sabzekar et al., Data1–Data4: three 2-D Gaussian classes on a triangle; the higher the level the
    more they overlap (level 1 separate)."""
    if level not in INTERLACE_STD:
        from svmviz.errors import DataError
        raise DataError(f"interlaced level must be 1, 2, 3 or 4, not {level}")
    rng = np.random.default_rng(seed + 100 * level)
    s = INTERLACE_STD[level]
    X = np.vstack([rng.normal(c, s, size=(n_per_class, 2)) for c in INTERLACE_CENTRES])
    y = np.repeat(np.arange(3), n_per_class)
    return Dataset(X, y, ["x1", "x2"], [], f"Data{level}",
                   f"generated: interlaced(level={level}, n_per_class={n_per_class}, seed={seed})")


def _local_centres(n_clusters: int, radius: float, side: float) -> np.ndarray:
    """(3 classes, n_clusters, 2): cluster M's centre on a circle of ``radius``; in it the three
    classes on a triangle of ``side``, rotated by 60°·M and with the classes shifted by M places,
    so each class sits in a different corner in the next cluster."""
    out = np.empty((3, n_clusters, 2))
    r = side / np.sqrt(3.0)
    for M in range(n_clusters):
        a = 2 * np.pi * M / n_clusters
        centre = radius * np.array([np.cos(a), np.sin(a)])
        for corner in range(3):
            b = np.pi / 2 + 2 * np.pi * corner / 3 + np.pi / 3 * M
            out[(corner + M) % 3, M] = centre + r * np.array([np.cos(b), np.sin(b)])
    return out


def local_triangles(n_clusters: int = 3, n_per_class: int = 20, std: float = 0.25, radius: float = 3.0,
                    side: float = 1.5, seed: int = 0) -> Dataset:
    """Globally mixed, locally separable (where the per-cluster DAGs of Sabzekar et al. can win): every one of
    ``n_clusters`` clusters holds all three classes (``n_per_class`` each) on a small triangle, in a
    different arrangement per cluster, so no class has a region of its own across the clusters
    while inside one cluster the classes barely overlap (``std`` ≪ ``side``)."""
    if std <= 0 or side <= 0 or radius < 0:
        raise ValueError("std and side must be positive and radius ≥ 0")
    rng = np.random.default_rng(seed)
    centres = _local_centres(n_clusters, radius, side)
    X = np.vstack([rng.normal(centres[c, M], std, size=(n_per_class, 2))
                   for c in range(3) for M in range(n_clusters)])
    y = np.repeat(np.arange(3), n_clusters * n_per_class)
    return Dataset(X, y, ["x1", "x2"], [], f"local triangles N={n_clusters}",
                   f"generated: local_triangles(n_clusters={n_clusters}, n_per_class={n_per_class}, "
                   f"std={std}, radius={radius}, side={side}, seed={seed})")


def mixture_components(name: str, **params) -> tuple[np.ndarray, float]:
    """The generating density of a Gaussian generator: (centres (classes, components, d), std);
    class c is an equal-weight mixture of N(μ, std² I) over its components, and the classes are
    equally likely. For ``interlaced`` and ``local_triangles``."""
    from svmviz.errors import DataError

    if name == "interlaced":
        level = params.get("level", 1)
        if level not in INTERLACE_STD:
            raise DataError(f"interlaced level must be 1, 2, 3 or 4, not {level}")
        return INTERLACE_CENTRES[:, None, :], INTERLACE_STD[level]
    if name == "local_triangles":
        bound = inspect.signature(local_triangles).bind(**params)
        bound.apply_defaults()
        a = bound.arguments
        return _local_centres(a["n_clusters"], a["radius"], a["side"]), float(a["std"])
    raise DataError(f"no mixture density is known for {name!r}; use interlaced or local_triangles")


def bayes_accuracy(centres: np.ndarray, std: float, n_samples: int = 200_000, seed: int = 0) -> tuple[float, float]:
    """Monte Carlo estimate of the Bayes (best possible) accuracy for equally likely classes, class
    c an equal-weight mixture of N(μ, std² I) over ``centres[c]`` (as ``mixture_components``):
    draw ``n_samples`` points from the mixture, classify each by the largest class density,
    count the hits. Returns (accuracy, its standard error)."""
    from scipy.special import logsumexp

    K, m, d = centres.shape
    rng = np.random.default_rng(seed)
    cls = rng.integers(0, K, n_samples)
    comp = rng.integers(0, m, n_samples)
    X = centres[cls, comp] + std * rng.normal(size=(n_samples, d))
    logp = np.empty((n_samples, K))
    for c in range(K):  # log of the class density up to a factor common to every class
        sq = ((X[:, None, :] - centres[c][None, :, :]) ** 2).sum(axis=2)
        logp[:, c] = logsumexp(-sq / (2 * std ** 2), axis=1)
    acc = float(np.mean(np.argmax(logp, axis=1) == cls))
    return acc, float(np.sqrt(acc * (1 - acc) / n_samples))


def unclassifiable_triangle(n_per_class: int = 8, seed: int = 0) -> Dataset:
    """A drawing sketch (labels 1–3, inside [-1, 1]²): three classes, each a thin bar pointing
    inwards at 45°, around the centre. Their pairwise linear C-SVMs cross in three different
    points, so max-wins voting leaves a triangle between them where every class gets one vote —
    the unclassifiable region of Sabzekar et al.'s Fig. 1 (§3), which the decision DAG removes."""
    rng = np.random.default_rng(seed)
    X, y = [], []
    for k in range(3):
        a = np.pi / 2 + 2 * np.pi * k / 3
        start = 0.8 * np.array([np.cos(a), np.sin(a)])
        b = a + np.pi + np.pi / 4   # inwards, turned by 45° the same way for every class
        s = rng.uniform(0, 0.8, n_per_class)
        X.append(start + s[:, None] * np.array([np.cos(b), np.sin(b)]) + rng.normal(0, 0.04, (n_per_class, 2)))
        y.append(np.full(n_per_class, k + 1))
    return Dataset(np.vstack(X), np.concatenate(y), ["x1", "x2"], [], "unclassifiable triangle",
                   f"generated: unclassifiable_triangle(n_per_class={n_per_class}, seed={seed})")


def split_class(n_per_cluster: int = 6, seed: int = 0) -> Dataset:
    """A drawing sketch (labels 1–3, inside [-1, 1]²): two groups, left and right, each holding
    the three classes on a small triangle in a different arrangement, so class 1 lies in two
    clusters with the other classes between them. One pairwise linear SVM per pair cannot follow
    that; Sabzekar et al.'s weighted DAG with two K-Means clusters (§4) gives each group its own
    DAG (every cluster holds every class, as §5 requires)."""
    rng = np.random.default_rng(seed)
    centres = _local_centres(2, 0.5, 0.6)
    X = np.vstack([rng.normal(centres[c, M], 0.07, size=(n_per_cluster, 2))
                   for c in range(3) for M in range(2)])
    y = np.repeat(np.arange(1, 4), 2 * n_per_cluster)
    return Dataset(X, y, ["x1", "x2"], [], "split class",
                   f"generated: split_class(n_per_cluster={n_per_cluster}, seed={seed})")


def sensitivity_5d(n_per_class: int = 60, seed: int = 0) -> Dataset:
    """Jenssen et al. 2012, Fig. 16–20: five dimensions, three classes; only dimensions 1 and 2 discriminate
    (class centres on a triangle there), dimensions 3–5 are the same noise for every class."""
    rng = np.random.default_rng(seed)
    centres = np.array([[0.0, 0.0], [3.0, 0.0], [1.5, 2.6]])
    X = np.vstack([np.column_stack([rng.normal(c, 0.5, size=(n_per_class, 2)),
                                    rng.normal(0, 1.0, size=(n_per_class, 3))]) for c in centres])
    y = np.repeat(np.arange(3), n_per_class)
    return Dataset(X, y, [f"x{j + 1}" for j in range(5)], [], "5-D sensitivity",
                   f"generated: sensitivity_5d(n_per_class={n_per_class}, seed={seed})")


#: The generators by name, for the Data page and the CLI (parameters: their keyword defaults).
GENERATORS = {f.__name__: f for f in (fourclass_like, mexican_hat, elephant_in_snake, checkerboard,
                                      gaussians_on_circle, hypercubes, interlaced, local_triangles,
                                      sensitivity_5d, unclassifiable_triangle, split_class, shuttle_like,
                                      tabular_regions)}
COUNT_PARAMS = {"n", "m", "n_classes", "n_per_class", "n_dims", "n_clusters", "n_per_cluster", "n_features",
                "n_informative", "regions_per_class"}

#: generator -> (number of points, number of features) from its bound arguments.
_SIZE = {
    "fourclass_like": lambda a: (a["n"], 2),
    "mexican_hat": lambda a: (a["n"], 2),
    "elephant_in_snake": lambda a: (a["n"], 2),
    "checkerboard": lambda a: (a["n_classes"] * a["n_per_class"], 2),
    "gaussians_on_circle": lambda a: (a["n_classes"] * a["n_per_class"], 2),
    "hypercubes": lambda a: (a["m"], a["n_dims"]),
    "interlaced": lambda a: (3 * a["n_per_class"], 2),
    "local_triangles": lambda a: (3 * a["n_clusters"] * a["n_per_class"], 2),
    "sensitivity_5d": lambda a: (3 * a["n_per_class"], 5),
    "unclassifiable_triangle": lambda a: (3 * a["n_per_class"], 2),
    "split_class": lambda a: (6 * a["n_per_cluster"], 2),
    "shuttle_like": lambda a: (a["n"], 2),
    "tabular_regions": lambda a: (a["n"], a["n_features"]),
}

#: Starting sketches of the Data page's drawing, which an instructor loads and edits:
#: title -> (generator, its parameters).
DRAW_PRESETS = {
    "three classes around an unclassifiable triangle": ("unclassifiable_triangle", {}),
    "a class in two clusters": ("split_class", {}),
}


def generated_size(name: str, **params) -> tuple[int, int]:
    """(points, features) that ``generate(name, **params)`` would make, without making it."""
    bound = inspect.signature(GENERATORS[name]).bind(**params)
    bound.apply_defaults()
    return _SIZE[name](bound.arguments)


def generate(name: str, **params) -> Dataset:
    """Call the generator ``name`` with ``params``; bad names or values, or (under a work budget,
    ``svmviz.limits``) a count above its ``generated_count`` or a request above its
    ``generated_cells`` points × features, raise ``DataError`` before anything is allocated."""
    from svmviz.errors import DataError

    if name not in GENERATORS:
        raise DataError(f"unknown generator {name!r}; choose one of {', '.join(GENERATORS)}")
    most, cells = limits.bound("generated_count"), limits.bound("generated_cells")
    for key in COUNT_PARAMS & params.keys():
        value = params[key]
        if not isinstance(value, (int, np.integer)) or value <= 0 or (most is not None and value > most):
            allowed = "of at least 1" if most is None else f"between 1 and {most}"
            raise DataError(f"{key} must be a whole number {allowed}, got {value!r}")
    try:
        n_points, n_features = generated_size(name, **params)
    except TypeError as exc:  # an unknown keyword
        raise DataError(f"{name} cannot use these parameters ({params}): {exc}") from None
    if cells is not None and n_points * n_features > cells:
        counts = ", ".join(f"{k}={params[k]}" for k in sorted(COUNT_PARAMS & params.keys()))
        raise DataError(f"{name} with {counts} would make {n_points:,} points × {n_features} features "
                        f"= {n_points * n_features:,} values, more than the {cells:,} "
                        f"allowed; lower the counts so that points × features ≤ {cells:,}")
    if "n_classes" in params:
        limits.check_classes(params["n_classes"], f"{name} with n_classes={params['n_classes']}")
    for key in ("n_dims", "n_features"):
        if key in params:
            limits.check_features(params[key], f"{name} with {key}={params[key]}")
    try:
        return GENERATORS[name](**params)
    except DataError:
        raise
    except (TypeError, ValueError) as exc:  # a negative seed or spread
        raise DataError(f"{name} cannot use these parameters ({params}): {exc}") from None


#: file name -> generator call; written by ``write_sample_data``.
SAMPLE_FILES = {
    "fourclass_like.csv": lambda: fourclass_like(),
    "mexican_hat.csv": lambda: mexican_hat(),
    "elephant_in_snake.csv": lambda: elephant_in_snake(),
    "checkerboard_9.csv": lambda: checkerboard(9, 20),
    "gaussians_circle_6.csv": lambda: gaussians_on_circle(6, 10),
    "hypercubes_2d.csv": lambda: hypercubes(200, 2),
    "data1.csv": lambda: interlaced(1),
    "data2.csv": lambda: interlaced(2),
    "data3.csv": lambda: interlaced(3),
    "data4.csv": lambda: interlaced(4),
    "sensitivity_5d.csv": lambda: sensitivity_5d(),
}


def to_csv_text(ds: Dataset) -> str:
    lines = [",".join(ds.feature_names + ["label"])]
    for row, lab in zip(ds.X, ds.y):
        lines.append(",".join(f"{v:.6f}" for v in row) + f",{lab}")
    return "\n".join(lines) + "\n"


def write_sample_data(directory) -> list[Path]:
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for fname, make in SAMPLE_FILES.items():
        p = out / fname
        p.write_text(to_csv_text(make()), encoding="utf-8")
        written.append(p)
    return written


if __name__ == "__main__":
    target = sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[2] / "sample_data"
    for p in write_sample_data(target):
        print(p)

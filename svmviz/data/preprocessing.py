"""Normalization as the papers use it (fit on the training part, apply to the test part) and
stratified, seeded splits."""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np

from svmviz.data.dataset import Dataset
from svmviz.errors import DataError

METHODS = ("none", "minmax", "stddev")


def normalize(X_train, X_test=None, method: str = "minmax", feature_range=(-1.0, 1.0)):
    """Return (X_train', X_test') normalized with statistics of ``X_train`` only.

    The two methods of Zapién Arreola, Fehr and Burkhardt 2007, §5 (its tables report "Min-Max" and "Std-Dev" results):
    "minmax": each feature mapped linearly so the training range becomes ``feature_range``
    ([-1, 1] by default, as LIBSVM's svm-scale and fourclass_scale; Chang, Guo, Lin and Lu 2009 §3 uses (0, 1));
    "stddev": zero mean and unit standard deviation; "none": unchanged. Constant features are
    left centred, not divided by 0. Test values may fall outside the range: that is the point
    of fitting on the training part only.
    """
    X_train = np.asarray(X_train, dtype=np.float64)
    X_test = None if X_test is None else np.asarray(X_test, dtype=np.float64)
    if not (isinstance(feature_range, (tuple, list)) and len(feature_range) == 2
            and all(isinstance(v, Real) and np.isfinite(v) for v in feature_range)
            and feature_range[0] < feature_range[1]):
        raise DataError(f"feature_range must be two finite numbers (low, high) with low < high, "
                        f"got {feature_range!r}")
    if method == "none":
        return X_train.copy(), None if X_test is None else X_test.copy()
    # statistics of x / s with s the power of two at or just below each training feature's largest
    # |value|: dividing by a power of two is exact, so the result is the same bit for bit, but a
    # range or a variance of values near ±1e308 does not overflow to inf (which would divide the
    # whole feature to 0, silently)
    s = np.ldexp(1.0, np.frexp(np.abs(X_train).max(axis=0))[1] - 1)
    Xs = X_train / s
    if method == "minmax":
        lo, hi = Xs.min(axis=0), Xs.max(axis=0)
        span = np.where(hi > lo, hi - lo, 1.0 / s)  # a constant feature: divided by 1
        a, b = feature_range
        start = np.where(hi > lo, a, (a + b) / 2)  # a constant feature sits in the middle
        f = lambda Z: start + (Z / s - lo) / span * (b - a)  # noqa: E731
    elif method == "stddev":
        mu, sd = Xs.mean(axis=0), Xs.std(axis=0)
        sd = np.where(sd > 0, sd, 1.0 / s)
        f = lambda Z: (Z / s - mu) / sd  # noqa: E731
    else:
        raise DataError(f"normalization must be one of {', '.join(METHODS)}, not {method!r}")
    return f(X_train), None if X_test is None else f(X_test)


def train_test_split(ds: Dataset, test_size: float = 0.3, seed: int = 0, stratify: bool = True):
    """A seeded (stratified) split of ``ds`` into (train, test) datasets, samples in file order.

    The same samples as scikit-learn's ``train_test_split(..., random_state=seed, stratify=...)``
    (``split_indices``), so a link or lesson file names the same split as before, without
    importing scikit-learn for it. The training part must still have two samples of every class;
    the test part may hold a class only once (or not at all, without stratification).
    """
    if not isinstance(test_size, Real) or not 0 < test_size < 1:
        raise DataError(f"the test fraction must be a number between 0 and 1, got {test_size!r}")
    # NumPy's RandomState takes seeds 0 … 2**32 − 1; say so rather than pass on its message
    if isinstance(seed, bool) or not isinstance(seed, Integral) or not 0 <= seed < 2**32:
        raise DataError(f"the split seed must be a whole number from 0 to {2**32 - 1}, got {seed!r}")
    n_test = math.ceil(test_size * ds.n_samples)
    try:
        tr, te = split_indices(ds.y if stratify else None, ds.n_samples - n_test, n_test, int(seed))
    except DataError as exc:
        raise DataError(f"cannot split {ds.name} with test fraction {test_size:g}: {exc}") from None
    try:
        train = ds.subset(np.sort(tr), f"{ds.name} (train)")
    except DataError as exc:
        raise DataError(f"the training part of {ds.name} is unusable with test fraction "
                        f"{test_size:g}: {exc}") from None
    return train, ds.subset(np.sort(te), f"{ds.name} (test)", check_classes=False)


def split_indices(y, n_train: int, n_test: int, seed) -> tuple[np.ndarray, np.ndarray]:
    """(train, test) indices of a seeded random split of ``len(y)`` samples (``y`` None: of
    ``n_train + n_test`` samples, not stratified), drawn exactly as scikit-learn's
    ``ShuffleSplit`` / ``StratifiedShuffleSplit`` draw them with ``random_state=seed`` (a whole
    number, None or a ``numpy.random.RandomState``, which the draws advance): a stratified split
    takes from each class the approximate mode of the multivariate hypergeometric distribution
    (ties broken at random), then a permutation of each class."""
    rng = seed if isinstance(seed, np.random.RandomState) else np.random.RandomState(seed)
    if n_train < 1:
        raise DataError("the training part would be empty")
    if y is None:
        perm = rng.permutation(n_train + n_test)
        return perm[n_test:], perm[:n_test]
    classes, y_idx, counts = np.unique(y, return_inverse=True, return_counts=True)
    if counts.min() < 2:
        few = ", ".join(str(c) for c in classes[counts < 2])
        raise DataError(f"a stratified split needs two samples of every class; class {few} has one")
    for part, n in (("training", n_train), ("test", n_test)):
        if n < classes.size:
            raise DataError(f"a stratified split puts every class in the {part} part: {n} samples "
                            f"are fewer than the {classes.size} classes")
    by_class = np.split(np.argsort(y_idx, kind="stable"), np.cumsum(counts)[:-1])
    n_i = _approximate_mode(counts, n_train, rng)
    t_i = _approximate_mode(counts - n_i, n_test, rng)
    train, test = [], []
    for i in range(classes.size):
        members = by_class[i].take(rng.permutation(counts[i]), mode="clip")
        train.extend(members[:n_i[i]])
        test.extend(members[n_i[i]:n_i[i] + t_i[i]])
    return rng.permutation(train), rng.permutation(test)


def _approximate_mode(counts: np.ndarray, n_draws: int, rng: np.random.RandomState) -> np.ndarray:
    """Samples drawn from each class: the floor of each class's share of ``n_draws``, then one
    more for the largest remainders, ties broken with ``rng`` (scikit-learn's rule, draw for draw)."""
    continuous = counts / counts.sum() * n_draws
    floored = np.floor(continuous)
    need = int(n_draws - floored.sum())
    if need > 0:
        remainder = continuous - floored
        for value in np.sort(np.unique(remainder))[::-1]:
            (inds,) = np.where(remainder == value)
            add = min(len(inds), need)
            floored[rng.choice(inds, size=add, replace=False)] += 1
            need -= add
            if need == 0:
                break
    return floored.astype(int)


def split_and_normalize(ds: Dataset, method: str = "none", test_size: float = 0.0, seed: int = 0,
                        stratify: bool = True) -> tuple[Dataset, Dataset | None]:
    """(train, test) of ``ds``: split (``test_size`` 0 keeps every sample for training and
    returns ``test=None``), then normalized with the training part's statistics."""
    if test_size == 0:
        train, test = ds, None
    else:
        train, test = train_test_split(ds, test_size, seed, stratify)
    Xtr, Xte = normalize(train.X, None if test is None else test.X, method)
    suffix = "" if method == "none" else f", {method}"

    def rebuilt(part: Dataset, X) -> Dataset:
        return Dataset(X, part.y, list(part.feature_names), list(part.class_names),
                       part.name + suffix, part.source, part.check_classes)

    return rebuilt(train, Xtr), None if test is None else rebuilt(test, Xte)

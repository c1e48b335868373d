"""Normalization as the papers use it (fit on the training part, apply to the test part) and
stratified, seeded splits."""

from __future__ import annotations

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

    The training part must still have two samples of every class; the test part may hold a
    class only once (or not at all, without stratification).
    """
    from sklearn.model_selection import train_test_split as _split

    if not isinstance(test_size, Real) or not 0 < test_size < 1:
        raise DataError(f"the test fraction must be a number between 0 and 1, got {test_size!r}")
    # scikit-learn's generator takes seeds 0 … 2**32 − 1; say so rather than pass on its message
    if isinstance(seed, bool) or not isinstance(seed, Integral) or not 0 <= seed < 2**32:
        raise DataError(f"the split seed must be a whole number from 0 to {2**32 - 1}, got {seed!r}")
    idx = np.arange(ds.n_samples)
    try:
        tr, te = _split(idx, test_size=test_size, random_state=seed,
                        stratify=ds.y if stratify else None)
    except ValueError as exc:
        raise DataError(f"cannot split {ds.name} with test fraction {test_size:g}: {exc}") from None
    try:
        train = ds.subset(np.sort(tr), f"{ds.name} (train)")
    except DataError as exc:
        raise DataError(f"the training part of {ds.name} is unusable with test fraction "
                        f"{test_size:g}: {exc}") from None
    return train, ds.subset(np.sort(te), f"{ds.name} (test)", check_classes=False)


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

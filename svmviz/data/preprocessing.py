"""Normalization as the seeds use it (fit on the training part, apply to the test part) and
stratified, seeded splits."""

from __future__ import annotations

import numpy as np

from svmviz.data.dataset import Dataset
from svmviz.errors import DataError

METHODS = ("none", "minmax", "stddev")


def normalize(X_train, X_test=None, method: str = "minmax", feature_range=(-1.0, 1.0)):
    """Return (X_train', X_test') normalized with statistics of ``X_train`` only.

    "minmax": each feature mapped linearly so the training range becomes ``feature_range``
    ([-1, 1] by default, as LIBSVM's svm-scale and fourclass_scale); "stddev": zero mean and unit
    standard deviation; "none": unchanged. Constant features are left centred, not divided by 0.
    """
    X_train = np.asarray(X_train, dtype=np.float64)
    X_test = None if X_test is None else np.asarray(X_test, dtype=np.float64)
    if method == "none":
        return X_train.copy(), None if X_test is None else X_test.copy()
    if method == "minmax":
        lo, hi = X_train.min(axis=0), X_train.max(axis=0)
        span = np.where(hi > lo, hi - lo, 1.0)
        a, b = feature_range
        f = lambda Z: a + (Z - lo) / span * (b - a)  # noqa: E731
    elif method == "stddev":
        mu, sd = X_train.mean(axis=0), X_train.std(axis=0)
        sd = np.where(sd > 0, sd, 1.0)
        f = lambda Z: (Z - mu) / sd  # noqa: E731
    else:
        raise DataError(f"normalization must be one of {', '.join(METHODS)}, not {method!r}")
    return f(X_train), None if X_test is None else f(X_test)


def train_test_split(ds: Dataset, test_size: float = 0.3, seed: int = 0, stratify: bool = True):
    """A seeded (stratified) split of ``ds`` into (train, test) datasets."""
    from sklearn.model_selection import train_test_split as _split

    if not 0 < test_size < 1:
        raise DataError(f"test_size must be between 0 and 1, got {test_size}")
    idx = np.arange(ds.n_samples)
    try:
        tr, te = _split(idx, test_size=test_size, random_state=seed,
                        stratify=ds.y if stratify else None)
    except ValueError as exc:
        raise DataError(f"cannot split {ds.name} this way: {exc}") from None
    return ds.subset(np.sort(tr), f"{ds.name} (train)"), ds.subset(np.sort(te), f"{ds.name} (test)")

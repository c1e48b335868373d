"""The cross-session cache of the app (issue 11 item 4, issue 16 item 3): one computation per key,
keys that see the content of X and y, bounded size, nothing stored when the work is cancelled."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from svmviz.models import BinarySVC
from svmviz_app.cache import SharedCache, array_digest, cached_fit


def test_concurrent_sessions_asking_for_one_key_compute_it_once():
    cache, calls = SharedCache(4), []

    def slow():
        calls.append(1)
        time.sleep(0.2)
        return object()

    out = []
    threads = [threading.Thread(target=lambda: out.append(cache.get_or_compute("k", slow))) for _ in range(10)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1 and len({id(o) for o in out}) == 1 and cache.computed == 1


def test_the_cache_is_bounded_and_a_failed_computation_stores_nothing():
    cache = SharedCache(3)
    for k in range(10):
        cache.get_or_compute(str(k), lambda k=k: k)
    assert len(cache) == 3 and cache.get_or_compute("9", lambda: -1) == 9
    with pytest.raises(KeyboardInterrupt):   # e.g. Streamlit stopping the script
        cache.get_or_compute("x", lambda: (_ for _ in ()).throw(KeyboardInterrupt()))
    assert cache.get_or_compute("x", lambda: "computed later") == "computed later"


def test_fits_differ_when_only_the_labels_differ():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    y1 = (X[:, 0] > 0).astype(int)
    y2 = (X[:, 1] > 0).astype(int)
    assert array_digest(X, y1) != array_digest(X, y2)
    m1 = cached_fit(BinarySVC(kernel="linear"), X, y1)
    m2 = cached_fit(BinarySVC(kernel="linear"), X, y2)
    assert m1 is not m2 and abs(m1.coef_[0, 0]) > abs(m1.coef_[0, 1]) and abs(m2.coef_[0, 1]) > abs(m2.coef_[0, 0])
    assert cached_fit(BinarySVC(kernel="linear"), X.copy(), y1.copy()) is m1          # same content: shared
    assert cached_fit(BinarySVC(kernel="linear", C=2.0), X, y1) is not m1            # another parameter

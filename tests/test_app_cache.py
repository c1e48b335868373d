"""The cross-session cache of the app (a classroom shares one server, so a fit is done once for
all): one computation per key, keys that see the content of X and y, bounded size, nothing stored
when the work is cancelled."""

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


def test_no_lock_is_left_behind_after_a_finished_or_cancelled_computation():
    """A key's entry in ``_computing`` lives while some session computes or
    waits for it; the last one out removes it, however it leaves."""
    from streamlit.runtime.scriptrunner_utils.exceptions import StopException

    cache = SharedCache(4)
    assert cache.get_or_compute("done", lambda: 1) == 1
    assert "done" not in cache._computing

    def stopped():
        raise StopException()

    with pytest.raises(StopException):           # Stop during the computation
        cache.get_or_compute("stopped", stopped)
    assert "stopped" not in cache._computing and len(cache) == 1
    with pytest.raises(ValueError):
        cache.get_or_compute("failed", lambda: int("x"))
    assert cache._computing == {}
    assert cache.get_or_compute("stopped", lambda: 2) == 2 and cache._computing == {}


def test_waiters_of_a_cancelled_computation_compute_it_once_and_leave_no_lock():
    """The first session's computation is cancelled while others wait: exactly one of the waiters
    computes it, all get that value, and afterwards ``_computing`` is empty — also when a waiter
    left early because its own wait raised."""
    from streamlit.runtime.scriptrunner_utils.exceptions import StopException

    cache = SharedCache(4)
    started, release = threading.Event(), threading.Event()
    computed, errors, out = [], [], []

    def cancelled():
        started.set()
        assert release.wait(60)
        raise StopException()

    def first():
        try:
            cache.get_or_compute("k", cancelled)
        except StopException as exc:
            errors.append(exc)

    def slow():
        computed.append(1)
        time.sleep(0.1)
        return object()

    def waiter():
        out.append(cache.get_or_compute("k", slow, wait=lambda: None))

    def leaver():
        def wait():
            raise StopException()
        try:
            cache.get_or_compute("k", lambda: pytest.fail("a leaver computed"), wait=wait)
        except StopException as exc:
            errors.append(exc)

    t0 = threading.Thread(target=first)
    t0.start()
    assert started.wait(60)
    threads = [threading.Thread(target=waiter) for _ in range(5)]
    try:
        gone = threading.Thread(target=leaver)     # its wait raises: it leaves while the first computes
        gone.start()
        gone.join(60)
        assert len(errors) == 1 and cache._computing["k"].users == 1
        for t in threads:
            t.start()
        deadline = time.monotonic() + 60     # every waiter is counted in before the first one leaves
        while cache._computing["k"].users < 6 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert cache._computing["k"].users == 6
    finally:
        release.set()
        for t in [t0, *threads]:
            if t.is_alive() or t is t0:
                t.join(60)
    assert len(errors) == 2 and len(computed) == 1 and cache.computed == 1
    assert len(out) == 5 and len({id(o) for o in out}) == 1
    assert cache._computing == {}


def test_a_figure_s_download_buttons_look_for_a_chromium_once_not_at_every_draw(monkeypatch, request):
    """The PNG/SVG buttons need to know whether a Chromium is installed; the step view draws them
    at every step click, and a search of the PATH at each one was a tenth of the click."""
    from streamlit.testing.v1 import AppTest

    import svmviz_app.widgets as widgets

    looked = []
    monkeypatch.setattr(widgets, "image_export_available", lambda: looked.append(1) or False)
    widgets._images_exportable.clear()
    # the made-up answer ("no Chromium") is cached for the whole process for ten minutes: it must
    # not take the PNG/SVG buttons from the pages of the tests that run next
    request.addfinalizer(widgets._images_exportable.clear)

    def page():
        import plotly.graph_objects as go

        from svmviz_app.widgets import figure_downloads

        figure_downloads(go.Figure(), "f", key="f")

    at = AppTest.from_function(page).run()
    at.run()
    at.run()
    assert not at.exception
    assert [b.label for b in at.get("download_button")] == ["Download HTML"]
    assert len(looked) == 1


def test_the_next_test_sees_the_real_answer_about_a_chromium():
    """Runs after the test above, which made the cached answer up."""
    import svmviz_app.widgets as widgets

    assert widgets._images_exportable() == widgets.image_export_available()

"""The server's heavy-work slots (``svmviz_app.slots``): a class opening heavy links at once
computes at most N of them side by side, the others wait their turn with a message in their page
and still stop on Stop; cheap work (a cache hit, a step drawn from results computed before) and a
session waiting for another's computation of the same entry take no slot. No test measures time:
each waits for events the code under test signals."""

from __future__ import annotations

import threading

import pytest
from streamlit.runtime.scriptrunner_utils.exceptions import StopException

from svmviz_app import slots
from svmviz_app.cache import SharedCache
from svmviz_app.slots import Slots

T = 60   # generous bound on every wait for an event: a hang fails instead of blocking the run


def _holder(s: Slots, entered: threading.Event, leave: threading.Event) -> threading.Thread:
    def hold():
        with s.hold():
            entered.set()
            assert leave.wait(T)
    t = _started(hold)
    assert entered.wait(T)
    return t


def _started(target) -> threading.Thread:
    t = threading.Thread(target=target, daemon=True)
    t.start()
    return t


def _asking(s: Slots, wait, entered: threading.Event) -> threading.Thread:
    """A thread asking for a slot with ``wait``; ``entered`` is set once it holds one."""
    def ask():
        with s.hold(wait):
            entered.set()
    return _started(ask)


def test_with_n_slots_the_next_heavy_job_waits_until_one_ends():
    s = Slots(2)
    leave = [threading.Event(), threading.Event()]
    holders = [_holder(s, threading.Event(), e) for e in leave]
    queued, entered, aheads = threading.Event(), threading.Event(), []

    def wait(ahead):
        aheads.append(ahead)
        queued.set()

    t = _asking(s, wait, entered)
    assert queued.wait(T)
    assert not entered.is_set() and s.running == 2 and s.waiting == 1 and aheads[0] == 2
    leave[0].set()
    holders[0].join(T)
    assert entered.wait(T)
    t.join(T)
    leave[1].set()
    holders[1].join(T)
    assert s.running == 0 and s.waiting == 0


def test_a_cancelled_waiter_leaves_the_queue_and_takes_no_slot():
    """A waiter's Stop (its ``wait`` raising) takes it out of the queue: the one behind it moves up
    and gets the slot when it frees, and nothing is left counted."""
    s = Slots(1)
    leave = threading.Event()
    holder = _holder(s, threading.Event(), leave)
    cancel, a_queued, b_queued, b_moved_up, b_entered = (threading.Event() for _ in range(5))
    stopped = []

    def a_wait(ahead):
        a_queued.set()
        if cancel.is_set():
            raise StopException()

    def a():
        try:
            with s.hold(a_wait):
                pytest.fail("a cancelled waiter got a slot")
        except StopException:
            stopped.append(1)

    def b_wait(ahead):
        (b_moved_up if ahead == 1 else b_queued).set()

    ta = _started(a)
    assert a_queued.wait(T)
    tb = _asking(s, b_wait, b_entered)
    assert b_queued.wait(T) and s.waiting == 2
    cancel.set()
    ta.join(T)
    assert stopped == [1]
    assert b_moved_up.wait(T)     # B is now the first in the queue: one computation ahead of it
    assert s.running == 1 and s.waiting == 1 and not b_entered.is_set()
    leave.set()
    holder.join(T)
    assert b_entered.wait(T)
    tb.join(T)
    assert s.running == 0 and s.waiting == 0


def test_a_cache_hit_takes_no_slot_and_a_computation_inside_a_slot_uses_it():
    s = Slots(1)
    cache = SharedCache(4)
    assert cache.get_or_compute("k", lambda: 1, slot=s.hold) == 1   # computed in the free slot
    assert s.running == 0

    def never(ahead):
        raise AssertionError("waited for a slot")

    leave = threading.Event()
    holder = _holder(s, threading.Event(), leave)   # every slot taken by another computation
    try:
        assert cache.get_or_compute("k", lambda: pytest.fail("recomputed"), slot=lambda: s.hold(never)) == 1
        assert s.running == 1 and s.waiting == 0
    finally:
        leave.set()
        holder.join(T)
    with s.hold():   # a fit inside a shared figure's computation: no second slot
        assert cache.get_or_compute("nested", lambda: 2, slot=lambda: s.hold(never)) == 2
        assert s.running == 1
    assert s.running == 0


def test_a_session_asking_for_a_fit_another_computes_waits_for_it_without_a_slot():
    """Two sessions asking for the same entry still compute it once; the second one waits for the
    first's value, not for a slot (with one slot, it would otherwise wait behind its own fit)."""
    s = Slots(1)
    cache = SharedCache(4)
    started, release, got = threading.Event(), threading.Event(), []

    def compute():
        started.set()
        assert release.wait(T)
        return object()

    first = _started(lambda: got.append(cache.get_or_compute("k", compute, slot=s.hold)))
    assert started.wait(T)

    def never(ahead):
        raise AssertionError("waited for a slot")

    waited = threading.Event()
    second = _started(lambda: got.append(cache.get_or_compute(
        "k", lambda: pytest.fail("computed twice"), wait=waited.set, slot=lambda: s.hold(never))))
    assert waited.wait(T)   # it waits for the key
    release.set()
    first.join(T)
    second.join(T)
    assert len(got) == 2 and got[0] is got[1] and cache.computed == 1 and s.running == 0


def test_the_setting_gives_the_number_of_slots_and_defaults_to_the_cores():
    assert slots.configured("3") == 3
    assert slots.configured("") >= 1 and slots.configured(" ") == slots.configured("")
    for bad in ("0", "-2", "two"):
        with pytest.raises(ValueError, match="SVMVIZ_HEAVY_SLOTS"):
            slots.configured(bad)
    assert slots.waiting_text(1) == "Waiting for the server: 1 computation ahead of yours."
    assert slots.waiting_text(3) == "Waiting for the server: 3 computations ahead of yours."


def _page_fitting_a_model():
    import numpy as np
    import streamlit as st

    from svmviz.models import BinarySVC
    from svmviz_app.cache import cached_fit

    st.write("before the fit")
    rng = np.random.default_rng(41)
    X = rng.normal(size=(30, 2))
    cached_fit(BinarySVC(kernel="linear", C=41.5), X, np.where(X[:, 0] > 0, 1, -1))
    st.write("fitted")


def _run_while_every_slot_is_taken(monkeypatch, page) -> tuple:
    """Run ``page`` in AppTest while the test's thread holds the only heavy slot; the page's second
    report of its place in the queue presses Stop (as a student would), so the run ends waiting:
    the AppTest then shows what the page drew while it waited."""
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx
    from streamlit.testing.v1 import AppTest

    s = Slots(1)
    monkeypatch.setattr(slots, "_heavy", s)
    text, shown = slots.waiting_text, []

    def reported(ahead):
        shown.append(ahead)
        if len(shown) == 2:   # the first report reached the page: now press Stop
            get_script_run_ctx().script_requests.request_stop()
        return text(ahead)

    monkeypatch.setattr(slots, "waiting_text", reported)
    at = AppTest.from_function(page, default_timeout=120)
    with s.hold():
        at.run()
    return at, s, shown


def test_a_page_waiting_for_a_slot_says_so_and_stops_on_stop(monkeypatch):
    at, s, shown = _run_while_every_slot_is_taken(monkeypatch, _page_fitting_a_model)
    assert shown[:2] == [1, 1]
    assert [i.value for i in at.info] == ["Waiting for the server: 1 computation ahead of yours."]
    assert "fitted" not in [m.value for m in at.markdown] and "before the fit" in [m.value for m in at.markdown]
    assert s.running == 0 and s.waiting == 0   # Stop took it out of the queue, holding no slot


def _page_fitting_with_a_bar():
    import numpy as np

    from svmviz.models import TreeDecompositionSVC
    from svmviz_app.cache import cached_fit
    from svmviz_app.widgets import Progress

    rng = np.random.default_rng(41)
    X = rng.normal(size=(40, 2))
    y = np.where(X[:, 0] > 0, 1, -1)
    bar = Progress("fitting the tree decomposition")
    cached_fit(TreeDecompositionSVC(C_grid=(1.0,), gamma_grid=(0.5,)), X[:30], y[:30], X_val=X[30:], y_val=y[30:],
               progress=bar)
    bar.done()


def test_a_fit_with_a_progress_bar_shows_its_wait_on_the_bar(monkeypatch):
    at, s, _ = _run_while_every_slot_is_taken(monkeypatch, _page_fitting_with_a_bar)
    bars = at.get("progress")
    assert len(bars) == 1 and not at.info
    assert bars[0].proto.text == "fitting the tree decomposition: Waiting for the server: 1 computation ahead of yours."
    assert s.running == 0 and s.waiting == 0


def _page_building_a_view():
    import numpy as np
    import streamlit as st

    from svmviz.plots.common import user_text
    from svmviz_app.views import shared_figure

    def scatter(X):
        import plotly.graph_objects as go
        return go.Figure(go.Scatter(x=X[:, 0], y=X[:, 1], mode="markers", name=user_text("data")))

    st.write("before the view")
    X = np.random.default_rng().normal(size=(50, 2))   # content no session drew before
    st.plotly_chart(shared_figure(scatter, X))
    st.write("drawn")


def test_a_view_built_for_the_first_time_waits_for_a_slot_and_stops_on_stop(monkeypatch):
    """A figure of a fit is heavy work the first time (a 20-class DAG's regions take seconds): 30
    sessions opening 30 different heavy links build at most N of them side by side."""
    at, s, shown = _run_while_every_slot_is_taken(monkeypatch, _page_building_a_view)
    assert shown[:2] == [1, 1]
    assert [i.value for i in at.info] == ["Waiting for the server: 1 computation ahead of yours."]
    assert "drawn" not in [m.value for m in at.markdown] and not at.get("plotly_chart")
    assert s.running == 0 and s.waiting == 0


def test_a_steps_view_takes_no_slot(monkeypatch):
    """A stepper's view is a step click's few milliseconds: it never waits behind heavy links, even
    for a figure no session drew before. A heavy result it needs takes its slot (``cached_fit``)."""
    import numpy as np

    from svmviz_app import cache

    s = Slots(1)
    monkeypatch.setattr(slots, "_heavy", s)

    def never(ahead):
        raise AssertionError("a step's view waited for a slot")

    monkeypatch.setattr(slots, "waiting_text", never)
    X = np.random.default_rng().normal(size=(5, 2))
    leave = threading.Event()
    holder = _holder(s, threading.Event(), leave)   # every slot taken by a heavy link
    try:
        with cache.step_view():
            assert cache.shared_view(np.sum, X) == np.sum(X)
        assert s.running == 1 and s.waiting == 0
    finally:
        leave.set()
        holder.join(T)

"""A following student's poll: it waits at most half a tick for the room to change (the student's
own clicks, the answers of a question round, wait for its end), and not at all while a step an
earlier poll asked for has still to be drawn: that step is drawn first, the newer one is the next
poll's (a tick queued behind the stepper run had taken the newer step, and followers skipped one)."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from apphelpers import problems
from svmviz_app.rooms import InMemoryRoomStore
from svmviz_app import live

LIVE = "_svmviz_live"
QUESTION = "_svmviz_live_question"
WAITING = "_svmviz_live_waiting"


class RecordingStore(InMemoryRoomStore):
    """Rooms in memory whose ``wait`` records how long it was asked to wait and returns at once."""

    def __init__(self):
        super().__init__()
        self.waits: list[float] = []

    def wait(self, code, since, question, timeout):
        self.waits.append(timeout)


def _script():
    import streamlit as st

    from svmviz_app import live

    st.button("poll", key="poll", on_click=live.poll)   # the ticker's trigger, as a click


@pytest.fixture
def room(monkeypatch):
    store = RecordingStore()
    monkeypatch.setattr(live, "room_store", lambda: store)
    code, token = store.create_room()
    store.publish(code, token, {"page": "", "spec": "fourclass_like", "state": {"tree.step": 0}})
    return store, code, token


def _poll(store, code, version: int | None = None, **session) -> AppTest:
    at = AppTest.from_function(_script, default_timeout=60)
    at.session_state[LIVE] = {"role": "student", "code": code, "sid": "student-1",
                              "version": store.follow(code).version if version is None else version,
                              "detached": False}
    for k, v in session.items():
        at.session_state[k] = v
    at.run()
    at.button(key="poll").click().run()
    assert not problems(at)
    return at


def test_a_poll_waits_at_most_half_a_tick(room):
    store, code, token = room
    _poll(store, code)
    store.pose(code, token, "Which candidate wins?", ["a", "b"], 0)
    _poll(store, code, **{QUESTION: store.follow(code).question})
    assert len(store.waits) == 2 and max(store.waits) <= live.TICK_S / 2


def test_a_poll_neither_waits_nor_takes_a_newer_step_while_a_step_asked_for_earlier_has_still_to_be_drawn(room):
    store, code, token = room
    version = store.follow(code).version
    store.publish(code, token, {"page": "", "spec": "fourclass_like", "state": {"tree.step": 2}})
    # the stepper is not on this page: the poll asks for an app run instead, and the step is drawn there
    at = _poll(store, code, version, **{WAITING: "tree.step"})
    assert store.waits == []
    assert WAITING not in at.session_state
    assert at.session_state[LIVE]["version"] == version   # the newer step is the next poll's


class Clock:
    def __init__(self):
        self.t = 1000.0

    def __call__(self):
        return self.t


def _page():
    import streamlit as st

    from svmviz_app import live

    live.panel(st.navigation([st.Page(lambda: None, title="Home", url_path="", default=True)], position="hidden"))
    st.button("poll", key="poll", on_click=live.poll)   # the ticker's trigger, as a click


def test_students_are_told_when_the_instructor_is_away_and_when_the_class_ends(monkeypatch):
    clock = Clock()
    store = InMemoryRoomStore(clock=clock)
    monkeypatch.setattr(live, "room_store", lambda: store)
    monkeypatch.setattr(live, "WAIT_S", 0.0)
    code, token = store.create_room()
    store.publish(code, token, {"page": "", "spec": "fourclass_like", "state": {"split.test": 0.25}})
    at = AppTest.from_function(_page, default_timeout=60)
    at.query_params["room"] = code
    at.run()
    assert not problems(at) and at.session_state[LIVE]["role"] == "student"
    assert not at.warning
    clock.t += 59
    at.button(key="poll").click().run()
    assert not at.warning   # a minute's silence is not away yet
    clock.t += 2
    at.button(key="poll").click().run()
    assert not problems(at)
    assert [w.value for w in at.warning if "instructor is away" in w.value], "no 'away' notice after 61 s"
    assert at.session_state[LIVE]["role"] == "student"   # still in the class, in its place
    store.touch(code, token)   # back
    at.button(key="poll").click().run()
    assert not [w for w in at.warning if "instructor is away" in w.value]
    store.close(code, token)
    at.button(key="poll").click().run()
    assert not problems(at)
    assert at.session_state[LIVE] is None
    assert [i.value for i in at.info if "has ended" in i.value]
    assert at.session_state["_svmviz_live_applied"]["state"] == {"split.test": 0.25}   # the view taken is kept


def test_the_away_notice_waits_as_long_as_the_server_setting_says(monkeypatch):
    monkeypatch.delenv("SVMVIZ_AWAY_AFTER", raising=False)
    assert live.away_after_s() == live.AWAY_S == 60.0
    monkeypatch.setenv("SVMVIZ_AWAY_AFTER", "120")
    assert live.away_after_s() == 120.0
    assert live._duration(120.0) == "2 minutes" and live._duration(60.0) == "a minute"
    assert live._duration(10.0) == "10 seconds"
    for bad in ("0", "-5", "soon", "inf", "nan"):
        monkeypatch.setenv("SVMVIZ_AWAY_AFTER", bad)
        with pytest.raises(ValueError, match="SVMVIZ_AWAY_AFTER"):
            live.away_after_s()

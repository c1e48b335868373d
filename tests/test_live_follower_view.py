"""What a following student's page draws for each step of the instructor's: the step's view with
figures built once for the whole class, and none of the stepper's own controls (the instructor
steps: a follower's run of a step sends a third fewer elements without them, and each one costs the
server per follower and per step)."""

from __future__ import annotations

import functools

import pytest

from apphelpers import page_test, problems
from svmviz_app import live

LIVE = "_svmviz_live"
CONTROLS = {"tree.step_first", "tree.step_prev", "tree.step_next", "tree.step_last", "tree.step_play"}


def _student(code: str, detached: bool = False, **values):
    at = page_test("pages/2_SVM_Tree.py", **values)
    at.session_state[LIVE] = {"role": "student", "code": code, "sid": "s-1", "version": None, "detached": detached}
    return at


@pytest.fixture
def room():
    store = live.room_store()
    code, token = store.create_room()
    yield code
    store.close(code, token)


def test_a_follower_draws_the_step_without_the_steppers_controls_and_gets_them_back_detached(room):
    follower = _student(room, **{"tree.step": 2})
    follower.run()
    assert not problems(follower)
    assert not CONTROLS & {b.key for b in follower.button}
    assert not [s for s in follower.slider if str(s.key).startswith("tree.step_slider")]
    assert any(str(m.value).startswith("**Step 3 of") for m in follower.markdown)   # the step is drawn
    assert any("Following the instructor's steps" in c.value for c in follower.caption)
    on_own = _student(room, detached=True, **{"tree.step": 2})
    on_own.run()
    assert not problems(on_own)
    assert CONTROLS <= {b.key for b in on_own.button}
    assert [s for s in on_own.slider if str(s.key) == "tree.step_slider_2"]


def test_a_step_figure_is_built_once_for_every_follower(room, monkeypatch):
    import svmviz.plots.svm_tree as plots

    builds = []
    real = plots.step_spec

    @functools.wraps(real)
    def counted(*args, **kwargs):
        builds.append(args[3])   # the step
        return real(*args, **kwargs)

    monkeypatch.setattr(plots, "step_spec", counted)   # the page imports it at its run
    for _ in range(4):
        at = _student(room, **{"tree.step": 5})
        at.run()
        assert not problems(at) and at.get("plotly_chart")
    assert builds == [5]


def _page():
    import streamlit as st

    from svmviz_app import live

    live.panel(st.navigation([st.Page(lambda: None, title="Home", url_path="", default=True)], position="hidden"))


def test_a_projector_following_the_class_takes_no_seat(monkeypatch):
    from streamlit.testing.v1 import AppTest

    from svmviz_app.rooms import InMemoryRoomStore, RoomFullError

    store = InMemoryRoomStore(max_students=1)
    monkeypatch.setattr(live, "room_store", lambda: store)
    code, token = store.create_room()
    store.publish(code, token, {"page": "", "spec": "fourclass_like", "state": {}})
    student = AppTest.from_function(_page, default_timeout=60)
    student.query_params["room"] = code
    student.run()
    assert not problems(student) and store.follow(code).n_students == 1   # the room is full now
    projector = AppTest.from_function(_page, default_timeout=60)
    projector.query_params["room"] = code
    projector.query_params["lesson"] = "1"
    projector.run()
    projector.run()   # and its polls
    assert not problems(projector)
    assert projector.session_state[LIVE]["role"] == "student" and projector.session_state[LIVE]["sid"] is None
    assert store.follow(code).n_students == 1   # not counted: the tally's "n students" are the students
    with pytest.raises(RoomFullError):
        store.follow(code, "another student")


def _claiming_page():
    import streamlit as st

    from svmviz_app import live

    held = st.session_state.pop("browser_claim", None)   # what the claim keeper's script sends back
    if held:
        live._reclaim(held)
    live.panel(st.navigation([st.Page(lambda: None, title="Home", url_path="", default=True)], position="hidden"))


@pytest.mark.parametrize("drove", [False, True])
def test_a_new_projector_tab_of_the_instructors_browser_shows_the_class_and_a_reloaded_one_takes_it_back(
        monkeypatch, drove):
    import json

    from streamlit.testing.v1 import AppTest

    from svmviz_app.rooms import InMemoryRoomStore, RoomAccessError

    store = InMemoryRoomStore()
    monkeypatch.setattr(live, "room_store", lambda: store)
    code, token = store.create_room()
    view = {"page": "", "spec": "fourclass_like", "state": {}}
    store.publish(code, token, view)
    tab = AppTest.from_function(_claiming_page, default_timeout=60)
    tab.query_params["lesson"] = "1"
    tab.session_state["browser_claim"] = json.dumps({"code": code, "token": token, "drove": drove})
    tab.run()
    assert not problems(tab)
    if drove:   # the tab that drove the class, reloaded: it takes the class back
        assert tab.session_state[LIVE]["role"] == "instructor"
        with pytest.raises(RoomAccessError):
            store.publish(code, token, view)
        return
    # a new tab on the projector: it shows the class, the laptop tab goes on driving
    assert tab.session_state[LIVE]["role"] == "student" and tab.session_state[LIVE]["sid"] is None
    store.publish(code, token, {**view, "state": {"split.test": 0.3}})
    assert store.follow(code).n_students == 0
    tab.button(key="live_take_over").click().run()   # unless told to take it over
    assert not problems(tab) and tab.session_state[LIVE]["role"] == "instructor"
    with pytest.raises(RoomAccessError):
        store.publish(code, token, view)

"""A live class's seats in the app: one seat and one answer per browser whatever sessions it
opens, the instructor sees the seats by address and removes them, and a full server is a message
on "Start a class", not an exception."""

from __future__ import annotations

import pytest

from apphelpers import page_test, problems, started_class

LIVE = "_svmviz_live"
CLIENT = "_svmviz_client"


def _store():
    from svmviz_app.live import room_store

    return room_store()


@pytest.fixture
def store(monkeypatch):
    """The app's room store, its seats kept for the test: an AppTest session has no browser whose
    ticker polls, and a seat nobody polls is free after 15 s (a loaded machine runs a page for longer)."""
    s = _store()
    monkeypatch.setattr(s, "student_ttl_s", 600.0)
    return s


def _instructor():
    teacher = started_class(page_test("app.py"))
    assert not problems(teacher)
    return teacher, teacher.session_state[LIVE]


def test_start_a_class_on_a_full_server_says_so():
    store = _store()
    held = []
    try:
        while True:
            try:
                held.append(store.create_room())
            except Exception as exc:   # the server's rooms are all taken
                assert "classes already" in str(exc)
                break
        teacher = started_class(page_test("app.py"))
        assert not problems(teacher)   # it was an uncaught RoomFullError from the button's callback
        assert any("classes already" in e.value and "try again" in e.value for e in teacher.error)
        assert LIVE not in teacher.session_state or teacher.session_state[LIVE] is None
    finally:
        for code, token in held:
            store.close(code, token)


def test_sessions_of_one_browser_hold_one_seat_and_one_answer(store):
    teacher, live = _instructor()
    qid = store.pose(live["code"], live["token"], "which?", ["a", "b"], 0)
    browser = store.new_client()
    tabs = []
    for _ in range(3):   # three tabs (or reloads) of one browser: the client id its local storage keeps
        tab = page_test("app.py")
        tab.session_state[CLIENT] = browser
        tab.query_params["room"] = live["code"]
        tab.run()
        assert not problems(tab) and tab.session_state[LIVE]["sid"] == browser
        tabs.append(tab)
    assert store.follow(live["code"]).n_students == 1
    from svmviz_app import live as live_module
    for i, tab in enumerate(tabs):
        store.answer(live["code"], tab.session_state[LIVE]["sid"], qid, i % 2)
    assert store.tally(live["code"], live["token"]).counts == (1, 0)   # the browser's last answer, once
    other = page_test("app.py")
    other.query_params["room"] = live["code"]
    other.run()
    assert other.session_state[LIVE]["sid"] != browser and store.follow(live["code"]).n_students == 2
    assert live_module.clients.address() is None   # (no websocket here: the server's own machine, no share)
    store.close(live["code"], live["token"])


def test_the_instructor_sees_the_seats_and_removes_an_address(store):
    teacher, live = _instructor()
    code = live["code"]
    for _ in range(4):
        store.follow(code, store.new_client("10.9.0.66"), address="10.9.0.66")
    student = store.new_client("10.9.0.5")
    store.follow(code, student, address="10.9.0.5")
    teacher.toggle(key="live_seats").set_value(True).run()
    shown = [m.value.replace("\\", "") for m in teacher.markdown]   # (the address as plain text: escaped)
    assert "**10.9.0.66**: 4 seat(s)" in shown and "**10.9.0.5**: 1 seat(s)" in shown
    teacher.button(key="live_rm_addr_10.9.0.66").click().run()
    assert not problems(teacher)
    assert [s.address for s in store.seats(code, live["token"])] == ["10.9.0.5"]
    assert "**10.9.0.66**: 4 seat(s)" not in [m.value.replace("\\", "") for m in teacher.markdown]
    teacher.button(key=f"live_rm_{student}").click().run()
    assert store.seats(code, live["token"]) == ()
    store.close(code, live["token"])


def test_a_sessions_address(monkeypatch):
    from types import SimpleNamespace

    from svmviz_app import clients

    def seen(ip, headers=None):
        monkeypatch.setattr(clients, "st", SimpleNamespace(context=SimpleNamespace(ip_address=ip, headers=headers or {})))
        return clients.address()

    assert seen(None) is None and seen("") is None
    assert seen("::ffff:192.0.2.2") == seen("192.0.2.2") == "192.0.2.2"   # IPv4 on a server listening on IPv6
    assert seen("fd00::2") == "fd00::2"
    monkeypatch.setenv(clients.ADDRESS_HEADER, "X-Real-IP")   # behind a proxy: the address it passes
    assert seen("10.0.0.1", {"X-Real-IP": "192.0.2.7"}) == "192.0.2.7"
    assert seen("10.0.0.1") is None


def _joined(at) -> bool:
    return LIVE in at.session_state and at.session_state[LIVE] is not None


def test_new_browsers_from_one_address_are_held_at_its_share(monkeypatch, store):
    """Sessions from one network address whose browsers hold no client id (a script's): ten join,
    the others are told to wait; a student elsewhere still joins."""
    from svmviz_app import clients

    teacher, live = _instructor()
    monkeypatch.setattr(clients, "address", lambda: "10.7.0.66")

    def new_browser():
        at = page_test("app.py")
        at.session_state["_svmviz_client_asked"] = True   # its browser answered: no id held
        at.query_params["room"] = live["code"]
        at.run()
        assert not problems(at)
        return at

    sessions = [new_browser() for _ in range(12)]
    joined = [s for s in sessions if _joined(s)]
    refused = [s for s in sessions if not _joined(s)]
    assert len(joined) == 10 and store.follow(live["code"]).n_students == 10
    for s in refused:   # (the address's joins refill at 10 a minute while these sessions run)
        assert any("new devices joined from your network" in e.value or "your network holds 10 seats" in e.value
                   for e in s.error)
    monkeypatch.setattr(clients, "address", lambda: "10.7.0.5")   # a student elsewhere still joins
    assert _joined(new_browser())
    store.close(live["code"], live["token"])

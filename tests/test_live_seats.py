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
    assert seen("fd00::2") == "fd00::/64"   # one host holds a whole /64: its addresses are one network
    monkeypatch.setenv(clients.ADDRESS_HEADER, "X-Real-IP")   # behind a proxy: the address it passes
    assert seen("10.0.0.1", {"X-Real-IP": "192.0.2.7"}) == "192.0.2.7"
    assert seen("10.0.0.1") is None


def test_ipv6_addresses_count_by_their_64_prefix_and_ipv4_by_address():
    """One IPv6 host is given a /64 and may send from any of its 2^64 addresses: the seats, joins
    and rooms of one network are those of its /64. IPv4, and IPv4 reaching an IPv6 socket, stay
    one address each; the step route's requests are grouped the same way."""
    from svmviz_app.clients import normalized, request_address

    host = normalized("2001:db8:1:2::1")
    assert host == "2001:db8:1:2::/64"
    assert {normalized(a) for a in ("2001:db8:1:2::2", "2001:DB8:1:2:ffff:ffff:ffff:ffff", "2001:db8:1:2:a::")} \
        == {host}
    assert normalized("2001:db8:1:3::1") != host                   # the next /64: another network
    assert normalized("fe80::1%eth0") == "fe80::/64"               # a link-local address with its zone
    assert normalized("192.0.2.2") != normalized("192.0.2.3")      # IPv4: per address
    assert normalized("::ffff:192.0.2.2") == "192.0.2.2"
    assert request_address({}, "2001:db8:1:2::99") == host and request_address({}, "::1") is None


def _joined(at) -> bool:
    return LIVE in at.session_state and at.session_state[LIVE] is not None


def _new_browser(code: str):
    """A session of a new browser opening the join link of class ``code``: its browser answered
    that it holds no client id (a script's)."""
    at = page_test("app.py")
    at.session_state["_svmviz_client_asked"] = True
    at.query_params["room"] = code
    at.run()
    assert not problems(at)
    return at


def test_new_browsers_from_one_address_are_held_at_its_share(monkeypatch, store):
    """Sessions from one network address whose browsers hold no client id (a script's): ten join,
    the others are told to wait; a student elsewhere still joins."""
    from svmviz_app import clients

    teacher, live = _instructor()
    monkeypatch.setattr(clients, "address", lambda: "10.7.0.66")
    sessions = [_new_browser(live["code"]) for _ in range(12)]
    joined = [s for s in sessions if _joined(s)]
    refused = [s for s in sessions if not _joined(s)]
    assert len(joined) == 10 and store.follow(live["code"]).n_students == 10
    for s in refused:   # (the address's joins refill at 10 a minute while these sessions run)
        assert any("new devices joined from your network" in e.value or "your network holds 10 seats" in e.value
                   for e in s.error)
    monkeypatch.setattr(clients, "address", lambda: "10.7.0.5")   # a student elsewhere still joins
    assert _joined(_new_browser(live["code"]))
    store.close(live["code"], live["token"])


def test_new_browsers_from_one_ipv6_64_are_held_at_its_share(monkeypatch, store):
    """A script taking a new address of its /64 for every session is one network: ten join, the
    rest are told to wait; a student on another /64 still joins."""
    import streamlit as st

    teacher, live = _instructor()

    def new_browser(ip: str):
        monkeypatch.setattr(type(st.context), "ip_address", property(lambda self: ip))   # the websocket's peer
        return _new_browser(live["code"])

    sessions = [new_browser(f"2001:db8:41:64::{i:x}") for i in range(1, 13)]
    assert sum(map(_joined, sessions)) == 10 and store.follow(live["code"]).n_students == 10
    assert {s.address for s in store.seats(live["code"], live["token"])} == {"2001:db8:41:64::/64"}
    assert _joined(new_browser("2001:db8:41:65::1"))
    store.close(live["code"], live["token"])

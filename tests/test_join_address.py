"""The join link's address: one that students' devices open (Streamlit's browser.serverAddress, the
address the server listens on, or this computer's network address the instructor picks), and a
warning saying how to fix a link on this computer's loopback."""

from __future__ import annotations

import pytest
from streamlit import config

from apphelpers import page_test, problems
from svmviz_app.join_address import decide, is_local, lan_addresses

LAN = ("192.168.1.23", "172.17.0.1")


def test_a_loopback_page_gives_a_flagged_link_and_the_addresses_to_pick():
    a = decide("http://localhost:8501/SVM_Tree?data=fourclass", None, "localhost", 8501, LAN)
    assert a.base == "http://localhost:8501" and a.choices == LAN
    assert "localhost" in a.warning and "--server.address 0.0.0.0 --browser.serverAddress 192.168.1.23" in a.warning
    a = decide("http://127.0.0.1:8711/", None, "localhost", 8711, ())
    assert a.base == "http://127.0.0.1:8711" and "127.0.0.1" in a.warning and "<this computer's network address>" in a.warning
    a = decide("", None, "localhost", 8501, LAN)   # no address known: a relative link, said so
    assert a.base == "" and "names no computer" in a.warning


def test_a_picked_address_makes_the_link_on_the_page_port():
    a = decide("http://localhost:8711/SVM_Tree", None, "localhost", 8501, LAN, chosen="192.168.1.23")
    assert a.base == "http://192.168.1.23:8711" and a.warning is None and a.choices == LAN
    # an address that is not this computer's is not taken
    assert decide("http://localhost:8711/", None, "localhost", 8501, LAN, chosen="10.9.9.9").base == "http://localhost:8711"


def test_browser_server_address_wins_with_its_port():
    a = decide("http://localhost:8501/", "0.0.0.0", "192.168.1.23", 8501, LAN, chosen="172.17.0.1")
    assert a == a.__class__("http://192.168.1.23:8501", None, ())
    assert decide("https://localhost:8501/", None, "class.example.org/svm", 443).base == "https://class.example.org/svm"
    assert decide("http://localhost:8501/", None, "https://class.example.org/", 8501).base == "https://class.example.org"
    assert decide("http://localhost:8501/", None, "fd00::2", 8501).base == "http://[fd00::2]:8501"


def test_a_server_on_the_loopback_only_is_flagged_whatever_the_link():
    for browser in ("localhost", "192.168.1.23"):
        a = decide("http://localhost:8501/", "127.0.0.1", browser, 8501, LAN, chosen="192.168.1.23")
        assert "listens on 127.0.0.1 only" in a.warning and "--server.address 0.0.0.0" in a.warning
    # listening on one network address: that is where students reach it
    a = decide("http://localhost:8501/", "192.168.1.23", "localhost", 8501, LAN)
    assert a.base == "http://192.168.1.23:8501" and a.warning is None


def test_a_page_opened_on_the_network_address_is_kept():
    a = decide("http://192.168.1.23:8501/Data?x=1", "0.0.0.0", "localhost", 8501, LAN)
    assert a.base == "http://192.168.1.23:8501" and a.warning is None and a.choices == ()
    assert decide("http://mylaptop.local:8501/", None, "localhost", 8501).warning is None


@pytest.mark.parametrize("host,local", [("localhost", True), ("127.0.0.1", True), ("127.1.2.3", True),
                                        ("::1", True), ("[::1]", True), ("0.0.0.0", True), ("", True),
                                        ("app.localhost", True), ("192.168.1.23", False), ("example.org", False)])
def test_what_is_local(host, local):
    assert is_local(host) is local


def test_this_computers_addresses_are_network_ones():
    import ipaddress

    for a in lan_addresses():
        ip = ipaddress.ip_address(a)
        assert ip.version == 4 and not ip.is_loopback and not ip.is_link_local


@pytest.fixture
def options():
    """Set Streamlit options for one test (the app reads them with st.get_option)."""
    saved = {}

    def set_(name, value):
        saved.setdefault(name, config.get_option(name))
        config.set_option(name, value)
    yield set_
    for name, value in saved.items():
        config.set_option(name, value)


def _started(at):
    from svmviz_app.live import LIVE_OPEN

    at.run()
    at.session_state[LIVE_OPEN] = True
    at.run()
    at.button(key="live_start").click().run()
    assert not problems(at)
    return at


def _link(at) -> str:
    return next(c.value for c in at.code if "room=" in c.value)


def test_the_instructor_picks_the_address_students_reach(monkeypatch, options):
    import svmviz_app.live as live

    monkeypatch.setattr(live, "lan_addresses", lambda: LAN)
    options("server.address", None)
    options("browser.serverAddress", "localhost")
    at = _started(page_test("app.py"))
    code = at.session_state["_svmviz_live"]["code"]
    # no address students can open: flagged, with this computer's addresses to pick from
    assert any("--server.address 0.0.0.0" in w.value for w in at.warning)
    box = at.selectbox(key="live_address")
    assert list(box.options) == list(LAN) and box.value is None
    box.select("192.168.1.23").run()
    assert not problems(at)
    assert _link(at).startswith("http://192.168.1.23:8501/?room=") and _link(at).endswith(code[:4] + "-" + code[4:])
    assert not [w for w in at.warning if "server.address" in w.value]


def test_browser_server_address_names_the_link(monkeypatch, options):
    import svmviz_app.live as live

    monkeypatch.setattr(live, "lan_addresses", lambda: LAN)
    options("server.address", "0.0.0.0")
    options("browser.serverAddress", "10.0.0.5")
    options("browser.serverPort", 8711)
    at = _started(page_test("app.py"))
    assert _link(at).startswith("http://10.0.0.5:8711/?room=")
    assert not at.warning and not [s for s in at.selectbox if s.key == "live_address"]
    options("server.address", "localhost")   # a server no other device can reach: said, however the link reads
    at.run()
    assert any("listens on localhost only" in w.value for w in at.warning)

"""Who a student is in a live class: their browser's client id and their network address.

A seat and an answer belong to a browser, not to a Streamlit session (every tab and reload is a
new session). The room store issues client ids (``RoomStore.new_client``, at most
``address_joins`` a minute to one network address) and the browser keeps its id in its local
storage through a small components-v2 element: a new session of that browser asks the element,
which sends back the id it holds, and the session speaks for that client. A session from the
server's own machine (no address: the instructor's laptop, a test) joins at once with an id of
its own; a session from the network joins once its browser has answered, so that a script
opening sessions gets ids only as fast as the store issues them to its address.

The instructor's view of the seats (``seats_panel``) lists them by address and removes a seat, or
every seat of an address (``RoomStore.remove``).
"""

from __future__ import annotations

import ipaddress
import os

import streamlit as st

from svmviz.data import plain_text as plain
from svmviz_app.rooms import MAX_ADDRESS, RoomError, RoomStore
from svmviz_app.session_keys import CLIENT_ID as _CLIENT, CLIENT_ASKED as _ASKED, LIVE_ERROR as _LIVE_ERROR

ADDRESS_HEADER = "SVMVIZ_CLIENT_ADDRESS_HEADER"

_CLIENT_JS = """
export default function (component) {
    const key = "svmviz.client", d = component.data || {};
    if (d.keep) localStorage.setItem(key, d.keep);
    else component.setTriggerValue("held", localStorage.getItem(key) || "");
}
"""
_client_keeper = st.components.v2.component("svmviz_client", js=_CLIENT_JS)


def address() -> str | None:
    """This session's network address (``st.context.ip_address``: None from the server's own machine,
    and where no websocket carries the session, as in ``AppTest``); an IPv4 address reaching a
    server listening on IPv6 (``::ffff:a.b.c.d``) as the IPv4 address it is, an IPv6 address as its
    /64 (``normalized``). Behind a reverse proxy every session comes from the proxy:
    ``SVMVIZ_CLIENT_ADDRESS_HEADER`` names the request header in which the proxy passes the
    client's address (e.g. ``X-Real-IP``; the proxy must set it, replacing any the client sent)."""
    header = os.environ.get(ADDRESS_HEADER, "")
    return normalized(st.context.headers.get(header) if header else st.context.ip_address)


def request_address(headers, client_host: str | None) -> str | None:
    """``address`` for a plain HTTP request of this app (the step route): its peer's, or the
    proxy's header."""
    header = os.environ.get(ADDRESS_HEADER, "")
    ip = headers.get(header) if header else client_host
    if ip in ("127.0.0.1", "::1"):
        return None   # the server's own machine, as ``st.context.ip_address`` has it
    return normalized(ip)


IPV6_PREFIX = 64   # an IPv6 host is given a whole /64 (RFC 6177) and may send from any address in it


def normalized(ip) -> str | None:
    """A network address as seats, joins and rooms count it: an IPv4 address as itself (also when it
    reaches an IPv6 socket, ``::ffff:a.b.c.d``), an IPv6 address as its /64 (``2001:db8:1:2::/64``):
    one host holds a whole /64, so counting its addresses one by one would give it 2^64 shares."""
    if not isinstance(ip, str) or not ip:
        return None
    try:
        parsed = ipaddress.ip_address(ip.split("%", 1)[0])   # without a link-local address's zone (%eth0)
    except ValueError:
        return ip[:MAX_ADDRESS]
    mapped = getattr(parsed, "ipv4_mapped", None)
    if mapped is not None or parsed.version == 4:
        return str(mapped or parsed)
    return str(ipaddress.ip_network(f"{parsed}/{IPV6_PREFIX}", strict=False))


def client(store: RoomStore) -> str | None:
    """The client id this session speaks for: its browser's, else a new one once the browser has
    answered that it holds none (at once from the server's own machine, where no share applies);
    None while the browser has not answered. A ``RoomRateError`` when the store issues none to
    this address just now: the next join asks again."""
    ss = st.session_state
    if ss.get(_CLIENT) is None and (ss.get(_ASKED) or address() is None):
        ss[_CLIENT] = store.new_client(address())
    return ss.get(_CLIENT)


def identify(store: RoomStore) -> str | None:
    """``panel``, while this session may join a class: the element asking the browser for the
    client id it keeps, then keeping the one this session speaks for; that id (None while the
    browser has not answered). A browser's answer reruns the app."""
    ss = st.session_state
    if ss.get(_ASKED):
        if ss.get(_CLIENT):
            with st.sidebar:
                _client_keeper(data={"keep": ss[_CLIENT]}, key="svmviz_client", on_held_change=lambda: None, height=0)
        return ss.get(_CLIENT)
    with st.sidebar:
        got = _client_keeper(data={"ask": True}, key="svmviz_client", on_held_change=lambda: None, height=0)
    if got.held is None:
        return ss.get(_CLIENT)
    ss[_ASKED] = True
    if store.valid_client(got.held):   # else a first visit (or an id of another server): ``client`` issues one
        ss[_CLIENT] = got.held
    st.rerun()


def _remove(store: RoomStore, code: str, token: str, client_id: str | None, addr: str | None) -> None:
    try:
        store.remove(code, token, client=client_id, address=addr)
    except RoomError as exc:
        st.session_state[_LIVE_ERROR] = str(exc)


def seats_panel(store: RoomStore, code: str, token: str) -> None:
    """The instructor's seats, by network address: how many each holds and how long since each
    polled, a seat removed by its button, every seat of an address by the address's (a student
    behind the same router shares it). A removed client or address takes no seat again."""
    if not st.toggle("Show the seats", key="live_seats"):
        return
    try:
        seats = store.seats(code, token)
    except RoomError as exc:
        st.warning(plain(exc))
        return
    if not seats:
        st.caption("No seat taken.")
        return
    by_address: dict[str | None, list] = {}
    for s in seats:
        by_address.setdefault(s.address, []).append(s)
    for addr, group in sorted(by_address.items(), key=lambda kv: -len(kv[1])):
        row = st.container(horizontal=True, vertical_alignment="center")
        row.markdown(f"**{plain(addr or 'this computer')}**: {len(group)} seat(s)")
        if addr is not None:
            row.button("Remove all", key=f"live_rm_addr_{addr}", on_click=_remove,
                       args=(store, code, token, None, addr), help="frees these seats; this address joins no more")
        for s in group[:3]:
            line = st.container(horizontal=True, vertical_alignment="center")
            line.caption(f"device {s.client[:6]}, {s.idle_s:.0f} s since its last poll")
            line.button("Remove", key=f"live_rm_{s.client}", on_click=_remove, args=(store, code, token, s.client, None))
        if len(group) > 3:
            st.caption(f"and {len(group) - 3} more")

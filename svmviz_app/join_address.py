"""The address a live class's join link names: one that the students' devices can open.

The instructor's own browser usually shows the app as ``http://localhost:8501``; a link on that
address opens the student's own machine, not the instructor's. ``decide`` picks, in this order:

1. Streamlit's ``browser.serverAddress`` when it names another machine than the one reading it
   (the address the server was told users reach it at, with ``browser.serverPort``);
2. ``server.address`` when the server listens on one network address only: it is then reachable
   there and nowhere else;
3. the network address of this computer the instructor picked (``lan_addresses``);
4. the address of the instructor's own page when that is not this computer's loopback;

and says what is wrong with the link otherwise: a server listening on a loopback address only
(no other device can connect whatever the link says), or a link naming the loopback.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from urllib.parse import urlsplit

#: How to start the app so that a class can open it; ``{ip}`` is this computer's network address.
FIX = "start the app with `--server.address 0.0.0.0 --browser.serverAddress {ip}`"


@dataclass(frozen=True)
class JoinAddress:
    """The base of the students' link (``scheme://host[:port]``, or ``""`` when nothing is known:
    the link is then relative), what is wrong with it (None: nothing), and the
    network addresses of this computer the instructor may pick from (empty: the address is decided)."""

    base: str
    warning: str | None
    choices: tuple[str, ...] = ()


def _host_of(address: str) -> str:
    """The host of an address given as ``host``, ``host:port``, ``host/path`` or a URL."""
    if "://" not in address:
        address = "//" + address
    try:
        return urlsplit(address).hostname or ""
    except ValueError:
        return ""


def _ip(host: str | None):
    h = (host or "").strip().strip("[]").lower()
    if h == "localhost" or h.endswith(".localhost"):
        return ipaddress.ip_address("127.0.0.1")
    try:
        return ipaddress.ip_address(h)
    except ValueError:
        return None   # a name: the network resolves it


def is_loopback(host: str | None) -> bool:
    """Whether ``host`` is this computer's loopback (``localhost``, ``127.0.0.1``, ``::1``)."""
    ip = _ip(host)
    return ip is not None and ip.is_loopback


def is_local(host: str | None) -> bool:
    """Whether a link on ``host`` opens nothing on another device: empty, the loopback, or the
    unspecified address (``0.0.0.0``, ``::``: a server listens there on every interface, but a
    browser cannot open it)."""
    ip = _ip(host)
    return not (host or "").strip() or (ip is not None and (ip.is_loopback or ip.is_unspecified))


def _with_port(scheme: str, host_path: str, port: int | None) -> str:
    """``scheme://host:port/path`` from ``host/path``, the port left out when it is the scheme's own."""
    host, slash, path = host_path.partition("/")
    if ":" in host and not host.startswith("["):
        host = f"[{host}]" if host.count(":") > 1 else host   # IPv6 literal, or host:port given
    keep = port is not None and (scheme, port) not in (("http", 80), ("https", 443)) and not (
        ":" in host and not host.startswith("["))
    base = f"{scheme}://{host}{f':{port}' if keep else ''}"
    return base + (f"/{path.rstrip('/')}" if slash and path.strip("/") else "")


def decide(page_url: str, listen: str | None, browser_address: str | None, browser_port: int | None,
           lan: tuple[str, ...] = (), chosen: str | None = None) -> JoinAddress:
    """The students' address. ``page_url``: the instructor's page as their browser opened it
    (``st.context.url``; ``""`` unknown); ``listen``: ``server.address`` (None: every interface);
    ``browser_address``/``browser_port``: ``browser.serverAddress``/``browser.serverPort``;
    ``lan``: this computer's network addresses (``lan_addresses``); ``chosen``: the one the
    instructor picked among them."""
    u = urlsplit(page_url or "")
    scheme = u.scheme or "http"
    try:
        page_port = u.port
    except ValueError:
        page_port = None
    port = page_port or browser_port
    choices: tuple[str, ...] = ()
    if browser_address and not is_local(_host_of(browser_address)):
        if "://" in browser_address:
            base = browser_address.rstrip("/")
        else:
            base = _with_port(scheme, browser_address.strip(), browser_port)
    elif listen and not is_local(listen):
        base = _with_port(scheme, listen.strip(), port)
    elif chosen and chosen in lan:
        base, choices = _with_port(scheme, chosen, port), tuple(lan)
    elif u.hostname and not is_local(u.hostname):
        base = f"{scheme}://{u.netloc}"
    else:
        base, choices = (f"{scheme}://{u.netloc}" if u.netloc else ""), tuple(lan)
    ip = lan[0] if lan else "<this computer's network address>"
    if is_loopback(listen):
        warning = (f"The server listens on {listen} only: no other device can open this link. To let the "
                   f"class in, {FIX.format(ip=ip)}.")
    elif is_local(_host_of(base)):
        host = _host_of(base)
        pick = "pick this computer's network address below, or " if choices else ""
        warning = (f"This link names {f'this computer itself ({host})' if host else 'no computer'}: a student's "
                   f"device cannot open it. To fix it, {pick}{FIX.format(ip=ip)}.")
    else:
        warning = None
    return JoinAddress(base, warning, choices)


def lan_addresses() -> tuple[str, ...]:
    """This computer's IPv4 addresses on interfaces that are up, other than loopback and
    link-local ones (read from the operating system; no network traffic): private ranges first,
    then the rest, each group in interface order."""
    import psutil

    stats = psutil.net_if_stats()
    found = []
    for name, addrs in psutil.net_if_addrs().items():
        if name in stats and not stats[name].isup:
            continue
        for a in addrs:
            try:
                ip = ipaddress.ip_address(a.address)
            except ValueError:
                continue   # a MAC address, or an IPv6 one with a zone
            if ip.version == 4 and not (ip.is_loopback or ip.is_link_local or ip.is_unspecified):
                found.append(ip)
    return tuple(str(ip) for ip in sorted(dict.fromkeys(found), key=lambda ip: not ip.is_private))

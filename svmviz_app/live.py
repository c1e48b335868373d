"""The live class: an instructor's view that students follow, and "what happens next?" questions.

``panel(page)`` (``app.py``, every run) draws the sidebar's "Live class" box: start or end a
class (instructor), join by code or ``?room=CODE``, detach and re-join (student). The room store
is one per server process (``st.cache_resource``): in its memory, or in the Redis server the
``SVMVIZ_ROOMS`` setting names (``svmviz_app.room_stores.open_store``), shared by every process so
configured and kept across restarts; the instructor's session holds the room's token in its
session state only, never in a link.

- **Instructor:** after every run and every fragment run (``state.AFTER_SYNC``) the view — page,
  data (its spec, or the data itself when a link cannot carry it), every bound value — is
  published; the store bumps its version only when something changed.
- **Student:** a browser, not a session: its seat and answer belong to the client id the browser
  keeps (``svmviz_app.clients``), at its network address's share of the room. A small element in
  the sidebar ticks every ``TICK_S`` seconds in the browser (a
  timer in its script setting a trigger); the trigger's callback waits up to ``WAIT_S`` seconds for
  the room to change (``RoomStore.wait``), then polls it (``follow(since=version)``: no view is sent
  while it is unchanged). A new version that changes only the step of a stepper on
  this page and the values its view binds (``step_only_change``; the steppers say what they drew
  through ``stepper_view``), or a changed question asked in a stepper's view, goes into the state
  and the callback reruns that stepper's fragment by its key (Streamlit reruns another fragment
  only from a widget callback): the poll that sees a step is the run that draws it. Any other new
  version is applied through ``state.restore`` (before any widget of the next run) with an app
  run, switching page when the instructor did. A poll that finds nothing new reruns only the
  ticker's own small fragment.
- **Questions:** a stepping page calls ``question_panel(...)`` in its step view with a function
  making the ``svmviz.questions.Question`` of the step shown; the instructor poses it, sees the
  live tally in the sidebar and reveals, which moves the step on for everyone. The DAG page asks
  which class its followed sample reaches (``dag_question``) and hides the sample's path until
  the reveal.
- **Projector:** in lesson mode (``?lesson=1``, or "Projector view" switching the instructor's own
  session) a panel at the right of the screen holds the join code, its QR code, Ask, Reveal and
  the answers' count, the tally only after the reveal; a session following the class in lesson
  mode (a second device on the projector) shows it without buttons, with the tally the
  instructor publishes in the view at the reveal. The join link names an address students reach
  (``join_address``).
"""

from __future__ import annotations

import base64
import io
import json
import os
from contextlib import contextmanager
from typing import Callable
from urllib.parse import urlsplit

import numpy as np
import plotly.io
import streamlit as st
from streamlit.errors import StreamlitAPIException

from svmviz.data import Dataset
from svmviz.data import plain_text as plain
from svmviz.data.builtins import BUILTINS
from svmviz.questions import dag_reached_class
from svmviz_app.rooms import (CODE_LENGTH, RESUME_TTL_S, RoomAccessError, RoomContentError, RoomError,
                              RoomNotFoundError, RoomStore, RoomStoreUnavailableError, display_code, normalize_code,
                              resume_form)
from svmviz_app.room_stores import open_store
from svmviz_app import clients, state
from svmviz_app.join_address import JoinAddress, decide, lan_addresses
from svmviz_app.navigation import PAGES
from svmviz_app import step_element
from svmviz_app.step_feed import PLOTLY_PATH, ROUTED, frame_digest, kept_step, steps_json, view_digest
from svmviz_app.projector import CLASS_CODE_SIZE, CLASS_KEY, QUESTION_KEY, class_panel_style
from svmviz_app.session_keys import (  # this module's keys in the session's state
    LIVE as _LIVE, LIVE_PAGE as _PAGE, LIVE_SENT as _SENT, LIVE_QUESTION as _QUESTION, LIVE_GOTO as _GOTO,
    LIVE_APPLIED as _APPLIED, LIVE_STEPPERS as _STEPPERS, LIVE_IN_STEPPER as _IN_STEPPER, LIVE_WAITING as _WAITING,
    LIVE_HANDED as _HANDED, LIVE_HELD as _HELD, LIVE_FORGET as _FORGET, LIVE_AWAY as _AWAY, LIVE_ENDED as _ENDED,
    LIVE_RESUME as _RESUME, LIVE_ASK as _ASK, LIVE_REVEALED as _REVEALED, LIVE_ADDRESS as _ADDRESS,
    LIVE_FEEDER as _FEEDER, LIVE_TICKING as _TICKING, LIVE_KEPT as _KEPT, LIVE_ERROR as _ERROR,
    LIVE_CODE_INPUT as _CODE_INPUT, LIVE_TRIED as _TRIED)

# Students are told the instructor is away after this long without a word from them (the
# instructor's page sends one every second while it is open); ``SVMVIZ_AWAY_AFTER`` (seconds)
# changes it for a server.
AWAY_S = 60.0
ROOM_PARAM = "room"
# A student's poll: every TICK_S seconds, waiting up to WAIT_S of them for a change. A change is
# seen at once while a poll waits and at the latest TICK_S - WAIT_S seconds after it came, with one
# script run per TICK_S (a run costs the server far more than a wait); the student's own clicks
# meanwhile wait for the poll's end (at most WAIT_S seconds, a Python wait is no point at which
# Streamlit can stop a run). A poll neither waits nor polls while a stepper run an earlier poll
# asked for has still to draw its step (``poll``).
TICK_S = 2.0
WAIT_S = 1.0


ROOMS_SETTING = "SVMVIZ_ROOMS"
SEATS_SETTING = "SVMVIZ_ROOM_SEATS"   # the students a class admits (default 100: one process's hall)
ADDRESS_SEATS_SETTING = "SVMVIZ_ADDRESS_SEATS"   # seats and joins a minute of one network address (default 10)
AWAY_SETTING = "SVMVIZ_AWAY_AFTER"   # seconds of the instructor's silence before students are told (default 60)


def away_after_s() -> float:
    """Seconds without a word from the instructor after which students are told they are away:
    ``SVMVIZ_AWAY_AFTER`` (a positive number), else ``AWAY_S``."""
    value = os.environ.get(AWAY_SETTING, "").strip()
    try:
        seconds = float(value) if value else AWAY_S
    except ValueError:
        seconds = 0.0
    if not seconds > 0 or seconds == float("inf"):
        raise ValueError(f"{AWAY_SETTING}={value[:20]!r}: give a number of seconds, e.g. 120")
    return seconds


def _duration(seconds: float) -> str:
    """``60`` -> "a minute", ``90`` -> "90 seconds", ``120`` -> "2 minutes"."""
    if seconds == 60:
        return "a minute"
    if seconds % 60 == 0:
        return f"{seconds / 60:g} minutes"
    return f"{seconds:g} seconds"


@st.cache_resource
def room_store() -> RoomStore:
    """The rooms of this server (every session shares them): in the process's memory, or in the
    Redis server that ``SVMVIZ_ROOMS`` names (an environment variable, or a root-level key of
    ``.streamlit/secrets.toml``, which Streamlit makes one), e.g. ``redis://127.0.0.1:6379/0``."""
    st.secrets.load_if_toml_exists()   # a root-level secret becomes an environment variable
    return open_store(os.environ.get(ROOMS_SETTING, ""), os.environ.get(SEATS_SETTING, ""),
                      os.environ.get(ADDRESS_SEATS_SETTING, ""))


def _live() -> dict | None:
    return st.session_state.get(_LIVE)


def _page_file(url_path: str) -> str:
    for fname, _, _ in PAGES:
        if fname[2:-3] == url_path:
            return f"pages/{fname}"
    return "home.py"


# ------------------------------------------------------------------ the view
def _data_payload(ds: Dataset) -> dict:
    return {"X": np.asarray(ds.X, dtype=float).tolist(), "y": np.asarray(ds.y).tolist(),
            "feature_names": list(ds.feature_names), "class_names": list(ds.class_names),
            "name": ds.name, "source": ds.source}


def current_view(snap: dict | None = None) -> dict:
    """This session's view: page, data, every bound value and the tally of the question last
    revealed (JSON; ``snap``: ``state.snapshot()`` when already made)."""
    spec = state.current_spec()
    view = {"page": st.session_state.get(_PAGE, ""), "spec": spec,
            "state": state.snapshot() if snap is None else snap}
    if st.session_state.get(_REVEALED):   # a projector following the class shows it (no token: no tally)
        view["tally"] = st.session_state[_REVEALED]
    if not (spec in BUILTINS or spec.startswith("gen:")):
        view["data"] = _data_payload(state.current_dataset())   # uploaded, drawn, lesson data
    return view


def shown_figure_key(step_key: str) -> str:
    """Where the session keeps what the stepper of ``step_key`` showed (``stepper.ShownFigure``)."""
    return f"{step_key}._figure"


def _shown_steps(view: dict) -> dict:
    """{step key: (step, step line, figure, the keys its view binds)} of the steppers this run's
    page drew at the step ``view`` holds."""
    ss = st.session_state
    reg = ss.get(_STEPPERS)
    if not reg or reg["page"] != ss.get(_PAGE, ""):
        return {}
    shown = {key: getattr(ss.get(shown_figure_key(key)), "shown", lambda: None)() for key in reg["steps"]}
    return {key: (*s, reg["steps"][key]) for key, s in shown.items()
            # the view's step, not the last run's; a step with a line: a view that is more than a
            # figure and its line (Solvers' three charts) is drawn by the students' pages
            if s is not None and s[1] and s[0] == (view.get("state") or {}).get(key)}


def _keep_steps(live: dict, view: dict) -> None:
    """The figures of the steps this run drew with ``view``, for the students' step elements
    (``svmviz_app.step_feed``), once per view and steps: before the view is published, so that
    its payload has them, or after, when the run that published it draws them."""
    shown = _shown_steps(view)
    if not shown:
        return
    try:
        digest = view_digest(view)
    except (TypeError, ValueError):
        return   # no JSON: the room refuses the view as well
    mark = (live["code"], digest, tuple((k, v[0], v[1], id(v[2])) for k, v in shown.items()))
    if st.session_state.get(_KEPT) == mark:
        return
    try:
        room_store().keep_steps(live["code"], live["token"], digest, steps_json(shown))
    except RoomContentError:
        pass   # figures too large to share: the students' pages draw the steps
    st.session_state[_KEPT] = mark


def _publish(snap: dict | None = None) -> None:
    live = _live()
    if not live or live["role"] != "instructor":
        return
    view = current_view(snap)
    try:
        _keep_steps(live, view)
        if st.session_state.get(_SENT) == view:
            return
        room_store().publish(live["code"], live["token"], view)
        st.session_state[_SENT] = view
    except RoomStoreUnavailableError:
        pass   # the store is back in a moment: the next run publishes what this one could not
    except RoomError as exc:
        _handed_over(exc)


if _publish not in state.AFTER_SYNC:
    state.AFTER_SYNC.append(_publish)


def _apply(view: dict) -> None:
    """Make the instructor's view this session's at the start of the next run, switching page there
    when the instructor did (a fragment or a callback cannot change page)."""
    if view.get("page", "") != st.session_state.get(_PAGE, ""):
        st.session_state[_GOTO] = view.get("page", "")
    spec = view.get("spec") or ""
    if spec == state.current_spec():
        ds = state.current_dataset()
    elif "data" in view:
        d = view["data"]
        ds = Dataset(np.asarray(d["X"], dtype=float), np.asarray(d["y"]), list(d["feature_names"]),
                     list(d["class_names"]), str(d["name"]), str(d["source"]))
    else:
        ds = state.dataset_from_spec(spec)
    state.restore(ds, dict(view.get("state") or {}), spec)


# ------------------------------------------------------------------ roles
def _start_class() -> None:
    try:
        code, token = room_store().create_room(owner=clients.address())
    except RoomError as exc:   # the server's rooms, or this address's share, are taken
        st.session_state[_ERROR] = str(exc)
        return
    st.session_state[_LIVE] = {"role": "instructor", "code": code, "token": token}
    for k in (_SENT, _HANDED, _ENDED):
        st.session_state.pop(k, None)
    _publish()


def _end_class() -> None:
    live = _live()
    try:
        room_store().close(live["code"], live["token"])
    except RoomError:
        pass   # already expired: nothing left to end
    st.session_state[_LIVE] = None
    st.session_state[_FORGET] = True   # the browser's claim on it too


def _handed_over(exc: RoomError) -> None:
    """This instructor session lost its class: another session of the instructor claimed it (a
    reloaded tab, another tab), or it is over."""
    ss = st.session_state
    ss[_LIVE] = None
    if isinstance(exc, RoomAccessError):
        ss[_HANDED] = True   # the claim in this browser is the other session's now: never take it back from here
        ss[_ERROR] = "This class is now run from another tab or window: this one has left it."
    else:
        ss[_ERROR] = str(exc)


# The instructor's claim on their class, kept in their browser's local storage (this site's only:
# never in a link, never on a student's device). A new session of that browser — a reload, a
# closed and reopened tab, another tab — finds it and claims the class (``RoomStore.claim``: a new
# token, the old session drives no more) and shows the class's current view, so that the students
# see no more than a pause — except a new tab opened on the projector view (``lesson=1``) that
# never drove the class (the tab's session storage says which did): it shows the class beside the
# laptop tab that drives it (``_reclaim``). The script runs once per mounted element and again when
# its data changes: "keep" writes the claim, "forget" removes it, "ask" sends it back as a trigger.
_CLAIM_JS = """
export default function (component) {
    const key = "svmviz.live.claim", drove = "svmviz.live.drove", d = component.data || {};
    if (d.keep) {
        localStorage.setItem(key, JSON.stringify(d.keep));
        sessionStorage.setItem(drove, d.keep.code);   // this tab (and its reloads) drove the class
    }
    else if (d.forget) localStorage.removeItem(key);
    else {
        const held = localStorage.getItem(key);
        if (held) {
            const claim = JSON.parse(held);
            claim.drove = sessionStorage.getItem(drove) === claim.code;
            component.setTriggerValue("claim", JSON.stringify(claim));
        }
    }
}
"""
_claim_keeper = st.components.v2.component("svmviz_live_claim", js=_CLAIM_JS)


def _keep_claim() -> None:
    """``panel``: the instructor's session keeps its claim in the browser; a session in no class
    asks the browser for one and takes the class back with it."""
    ss, live = st.session_state, _live()
    if live and live["role"] == "instructor":
        data = {"keep": {"code": live["code"], "token": live["token"]}}
    elif ss.pop(_FORGET, False):
        data = {"forget": True}
    elif live is None and not ss.get(_HANDED):
        data = {"ask": True}
    else:
        return
    with st.sidebar:
        got = _claim_keeper(data=data, key="live_claim", on_claim_change=lambda: None, height=0)
    if "ask" in data and got.claim:
        _reclaim(got.claim)


def _reclaim(held: str) -> None:
    """Take back the class the browser's claim ``held`` names; then rerun. A new tab opened on the
    projector view (``lesson=1``: a tab that never drove the class, while the instructor's laptop tab
    goes on driving) shows the class without a seat instead, and offers to run the class from there."""
    ss = st.session_state
    try:
        claim = json.loads(held)
        if state.lesson_mode() and not claim.get("drove"):
            join(claim["code"])
            ss[_HELD] = held
        else:
            _take_class(claim["code"], str(claim["token"]))
    except RoomStoreUnavailableError:
        return   # the store is back in a moment: the next session of this browser claims it
    except RoomAccessError:
        ss[_HANDED] = True   # another session of this browser holds the class
        return
    except (RoomError, ValueError, KeyError, TypeError):
        ss[_HANDED] = ss[_FORGET] = True   # the class is over (or the stored claim unreadable)
        return
    st.rerun()


def _take_class(code: str, secret: str) -> None:
    """This session becomes the instructor of class ``code`` (``secret``: the room's token or a
    resume code), at the class's current view, whatever page it opened; a ``RoomError`` when it
    cannot."""
    ss, store = st.session_state, room_store()
    code = normalize_code(code)
    token = store.claim(code, secret)
    f = store.follow(code)
    ss[_LIVE] = {"role": "instructor", "code": code, "token": token}
    for k in (_ENDED, _HANDED):
        ss.pop(k, None)
    if f.view:
        _apply(f.view)
        ss[_SENT] = f.view


def _take_over() -> None:
    """The projector tab of the instructor's browser takes the class over (``_HELD``)."""
    ss = st.session_state
    try:
        claim = json.loads(ss.pop(_HELD))
        _take_class(claim["code"], str(claim["token"]))
    except RoomError as exc:
        ss[_ERROR] = str(exc)


def _make_resume() -> None:
    live = _live()
    try:
        st.session_state[_RESUME] = room_store().resume(live["code"], live["token"])
    except RoomError as exc:
        st.session_state[_ERROR] = str(exc)


def join(code: str) -> None:
    """Follow the class ``code`` (as typed or from ``?room=``) as this browser's client. In lesson
    mode (a device on the projector: the students' link with ``lesson=1``) the session follows
    without a seat: it is no student, takes no place in a full room and is not counted."""
    if state.lesson_mode():
        sid = None
        f = room_store().follow(code)
    else:
        sid = clients.client(room_store())
        if sid is None:
            raise RoomError("this browser has not answered yet: join again in a moment")
        f = room_store().follow(code, sid, address=clients.address())   # raises for an unknown code or a full room
    st.session_state[_LIVE] = {"role": "student", "code": display_code(code).replace("-", ""), "sid": sid,
                               "version": None, "qid": None, "detached": False}
    st.session_state[_QUESTION] = f.question


def _join_typed() -> None:
    typed = str(st.session_state.get(_CODE_INPUT, ""))
    symbols = resume_form(typed)
    try:
        if len(symbols) == 2 * CODE_LENGTH:   # a class code and its resume code: the instructor's other device
            _take_class(symbols[:CODE_LENGTH], symbols[CODE_LENGTH:])
        else:
            join(typed)
        st.session_state.pop(_ERROR, None)
    except RoomError as exc:
        st.session_state[_ERROR] = str(exc)


def _detach() -> None:
    live = _live()
    if live["role"] == "student" and not live["detached"]:
        _catch_up(live)
    live["detached"] = True
    if live["sid"] is None:   # a projector's view holds no seat
        return
    try:
        room_store().leave(live["code"], live["sid"])
    except RoomError:
        pass


def _catch_up(live: dict) -> None:
    """The room's view as this student's own, from a callback (the run after it draws it): the
    browser may already show a step the session has not polled yet (the step element draws it from
    the room), and a student who detaches keeps what the class is on."""
    try:
        f = room_store().follow(live["code"], live["sid"], since=live["version"], address=clients.address())
    except RoomError:
        return   # the room is gone or out of reach: the student keeps the view the session has
    if f.view is None:
        return
    live["version"] = f.version
    st.session_state[_APPLIED] = f.view
    _apply(f.view)


def _rejoin() -> None:
    live = _live()
    live["detached"], live["version"] = False, None   # the next poll applies the current view
    st.session_state.pop(_APPLIED, None)                # with an app run: the student may have changed anything


def _leave_class() -> None:
    _detach()
    st.session_state[_LIVE] = None


# ------------------------------------------------------------------ the sidebar panel
LIVE_OPEN = "live_open"   # the panel's open state


def panel(page) -> None:
    """``app.py``, before the page: the "Live class" box and, for a following student, the poll;
    in lesson mode in a class, the projector's class panel (``_class_view``)."""
    ss = st.session_state
    ss[_PAGE] = getattr(page, "url_path", "") or ""
    goto = ss.pop(_GOTO, None)
    if goto is not None and goto != ss[_PAGE]:
        st.switch_page(_page_file(goto))
    live = _live()
    code = None
    if live is None and not ss.get(_TRIED):
        code = st.query_params.get(ROOM_PARAM)   # a link's value no page binds stays in the URL
        ss[_TRIED] = not code
    if code or (live and live["role"] == "student") or (live is None and ss.get(LIVE_OPEN)):
        _join_as_client(code)
    _keep_claim()
    live = _live()
    if live and live["role"] == "student" and not live["detached"] and ss.get(_AWAY):
        st.warning(f"The instructor is away: no word from them for over {_duration(away_after_s())}. You keep "
                   "your place; the class goes on here when they are back.", icon=":material/hourglass_top:")
    if ss.get(_ENDED):
        st.info(ss[_ENDED], icon=":material/door_open:")
    lesson = state.lesson_mode()
    if live is not None or ss.get(_ERROR):
        ss[LIVE_OPEN] = True   # a joined room's panel stays open: a student's poll runs in it
    box = st.sidebar.expander("Live class", key=LIVE_OPEN, on_change="rerun")
    if box.open:   # drawn only while open (opening it reruns the page): a visit outside a class sends none of it
        with box:
            err = ss.pop(_ERROR, None)
            if err:
                st.error(plain(err))
            if live is None:
                st.button("Start a class", key="live_start", on_click=_start_class,
                          help="students follow your page, data, parameters and step live")
                st.text_input("Join a class: code", key=_CODE_INPUT, placeholder="ABCD-EF23")
                st.button("Join", key="live_join", on_click=_join_typed)
            elif live["role"] == "instructor":
                if not lesson:   # (in lesson mode the projector's class panel holds all of it)
                    _address_fix(_code_banner(live["code"]))
                    _instructor_fragment()
                    st.button("Projector view", key="live_projector", on_click=state.set_lesson_mode, args=(True,),
                              shortcut="P", icon=":material/present_to_all:",
                              help="this tab shows the class what it needs: the plot, the join code, its QR code "
                                   "and the question (P again to come back)")
                    st.caption("Another device on the projector: open the students' link with `&lesson=1` "
                               "added; it follows you and shows the tally after the reveal.")
                    st.button("Continue on another device", key="live_resume", on_click=_make_resume,
                              help="a code to type on your other device: it takes the class over there")
                    typed = ss.pop(_RESUME, None)
                    if typed:   # shown once
                        st.info(f"On your other device, open this app and type in **Join a class**: "
                                f"`{display_code(live['code'])} {typed[:4]}-{typed[4:]}` (works once, for "
                                f"{RESUME_TTL_S / 60:g} minutes)")
                st.button("End the class", key="live_end", on_click=_end_class)
            else:
                st.markdown(f"Class **{display_code(live['code'])}**")
                if live["detached"]:
                    st.caption("Detached: you explore on your own.")
                    st.button("Re-join", key="live_rejoin", on_click=_rejoin, type="primary")
                else:
                    st.caption("Waiting for the instructor (away)." if ss.get(_AWAY) else "Following the instructor.")
                    st.button("Detach", key="live_detach", on_click=_detach)
                    with _store_outage():
                        _follow(live, app_run=True)   # the page runs after this: it draws what changed
                    _follow_fragment()
                st.button("Leave the class", key="live_leave", on_click=_leave_class)
    if live and lesson and (live["role"] == "instructor" or not live["detached"]):
        _class_view(live)   # after a student's poll above: it shows what the poll took
    # the page's steppers register as they draw (the poll above read the last run's)
    ss[_STEPPERS] = {"page": ss[_PAGE], "steps": {}, "question": None}
    _publish()


def _join_as_client(code: str | None) -> None:
    """``panel``: this session's client id (its browser's, ``clients``), a student's seat moved to
    it once the browser answered, and the join from ``?room=code`` once it is known."""
    ss = st.session_state
    try:
        cid = clients.identify(room_store()) or clients.client(room_store())
    except RoomError as exc:   # no new client id for this address just now
        ss[_TRIED], ss[_ERROR] = True, str(exc)
        return
    live = _live()
    if live and live["role"] == "student" and cid and live["sid"] not in (None, cid):   # this browser's own id, answered late (a projector's view holds no seat)
        try:
            room_store().leave(live["code"], live["sid"])
        except RoomError:
            pass
        live["sid"] = cid
    if code and cid:
        ss[_TRIED] = True
        try:
            join(str(code))
        except RoomError as exc:
            ss[_ERROR] = str(exc)


def join_address() -> JoinAddress:
    """Where the students' devices reach this server (``svmviz_app.join_address.decide`` on the
    server's options, the instructor's page address and the network address they picked)."""
    return decide(str(getattr(st.context, "url", "") or ""), st.get_option("server.address"),
                  st.get_option("browser.serverAddress"), st.get_option("browser.serverPort"),
                  lan_addresses(), st.session_state.get(_ADDRESS))


def join_link(code: str, address: JoinAddress | None = None) -> str:
    """The students' link: the instructor's current page (a student lands there without a page
    switch) and the code, on the address students reach (``join_address()``); never the token."""
    base = (address or join_address()).base
    return f"{base}/{st.session_state.get(_PAGE, '')}?{ROOM_PARAM}={display_code(code)}"


def join_qr_svg(link: str) -> str:
    """The join link as a QR code (SVG markup; error correction M or better, a 4-module quiet
    zone as the standard asks) that a phone's camera opens from the back of a room."""
    import segno

    buf = io.BytesIO()
    segno.make(link, error="m").save(buf, kind="svg", scale=8, border=4, xmldecl=False, dark="#000", light="#fff")
    return buf.getvalue().decode()


def _address_picked() -> None:
    st.session_state[_ADDRESS] = st.session_state["live_address"]


def _code_banner(code: str, qr: bool = False) -> JoinAddress:
    """The join code large on one line, in lesson mode (the projector) the link's QR code, and the
    link; returns the link's address (``_address_fix`` says what is wrong with it)."""
    address = join_address()
    link = join_link(code, address)
    size = CLASS_CODE_SIZE if qr else "1.85rem"   # nine symbols in the sidebar's width, with room to spare
    st.markdown(f"<div class='svmviz-join-code' style='font-size:{size};font-weight:700;white-space:nowrap;"
                f"letter-spacing:0.1em;font-family:\"Source Code Pro\",monospace'>{display_code(code)}</div>",
                unsafe_allow_html=True)   # code: alphabet symbols only
    if qr:   # inline: as wide as the panel, whatever the screen
        svg = base64.b64encode(join_qr_svg(link).encode()).decode()
        st.markdown(f"<img class='svmviz-join-qr' alt='QR code of the join link' src='data:image/svg+xml;base64,{svg}'>",
                    unsafe_allow_html=True)
    st.code(link, language=None, wrap_lines=True)
    return address


def _address_fix(address: JoinAddress) -> None:
    """What is wrong with the join link's address, and this computer's network addresses to pick
    the one students reach."""
    if address.warning:
        st.warning(address.warning, icon=":material/wifi_off:")
    if address.choices and (address.warning or st.session_state.get(_ADDRESS)):
        picked = st.session_state.get(_ADDRESS)
        st.selectbox("Students reach this computer at", address.choices, key="live_address",
                     index=address.choices.index(picked) if picked in address.choices else None,
                     placeholder="pick its network address", on_change=_address_picked)


def _class_view(live: dict) -> None:
    """Lesson mode in a class: the projector's panel at the right of the screen (join code, QR
    code, the question and, after the reveal, its tally), beside the page. The instructor's has
    Ask and Reveal (keys A and V) and the answers' count; a device following the class (a projector
    that is not the instructor's laptop: the students' link with ``lesson=1``) shows the same
    without the buttons. P leaves the projector view. A problem with the link's address comes
    last: what the class needs stays on the screen."""
    class_panel_style()
    with st.container(key=CLASS_KEY):
        address = _code_banner(live["code"], qr=True)
        if live["role"] == "instructor":
            _instructor_fragment(projector=True)
        else:
            _projector_question()
            if st.session_state.get(_HELD):
                st.button("Run the class from here", key="live_take_over", on_click=_take_over,
                          icon=":material/swap_horiz:", help="this tab takes the class over from your other one")
        st.button("Leave projector view", key="live_unproject", on_click=state.set_lesson_mode, args=(False,),
                  shortcut="P", icon=":material/close_fullscreen:")
        _address_fix(address)


def _tally(options, counts, answer: int | None) -> None:
    """The answers per option as bars, the right one marked; the options nobody chose (other than
    the right one) on one line: a question may offer a dozen."""
    total = max(sum(counts), 1)
    for i, (opt, n) in enumerate(zip(options, counts)):
        if n or i == answer:
            st.progress(n / total, text=f"{plain(opt)}: {n}" + (" ✓" if i == answer else ""))
    unchosen = [plain(o) for i, (o, n) in enumerate(zip(options, counts)) if not n and i != answer]
    if unchosen:
        st.markdown("No answer: " + " · ".join(unchosen))


def _question_lines(q, counts, n_answers: int | None, projector: bool = True) -> None:
    """A question: its prompt, then on the instructor's laptop (not ``projector``) the live tally;
    on the projector, while it is open, the options and how many answered (``n_answers``; None: not
    known), once revealed the answer and the tally (``counts``; None: not known). (There the QR code
    gives it room: ``QUESTION_KEY``.)"""
    with st.container(key=QUESTION_KEY):
        st.markdown(f"**{plain(q.prompt)}**")
    if not projector:
        for i, (opt, n) in enumerate(zip(q.options, counts)):
            st.text(f"{opt}: {n}" + (" ✓" if q.revealed and i == q.answer else ""))
        st.caption(f"{n_answers} answer(s)")
        return
    if q.revealed:
        if q.answer is not None:
            st.success(f"Answer: {plain(q.options[q.answer])}")
        if counts is not None:
            _tally(q.options, counts, q.answer)
        return
    st.markdown(" · ".join(plain(o) for o in q.options))
    if n_answers is not None:
        st.markdown(f"{n_answers} answer(s) so far — the tally shows at the reveal")


def _offered_question():
    """The question the page's view offers now (``question_panel`` in lesson mode): (make, step
    key, n_steps), or None on another page or at a stepper's last step."""
    ask = st.session_state.get(_ASK)
    if ask is None or ask[0] != st.session_state.get(_PAGE, ""):
        return None
    _, make, step_key, n_steps = ask
    if step_key is not None and int(state.value(step_key, 0)) >= n_steps - 1:
        return None
    return make, step_key, n_steps


@st.fragment(run_every=1.0)
def _instructor_fragment(projector: bool = False) -> None:
    """Keeps the room alive and shows the open question with Reveal: on the instructor's laptop the
    live tally, on the projector (``projector``) only the answers' count until the reveal, and there
    Ask too (on the laptop Ask is in the page's step view)."""
    live = _live()
    if not live or live["role"] != "instructor":
        return
    store = room_store()
    try:
        store.touch(live["code"], live["token"])
        f = store.follow(live["code"])
    except RoomStoreUnavailableError as exc:
        st.warning(plain(exc))
        return
    except RoomError as exc:
        _handed_over(exc)
        st.rerun(scope="app")
    st.markdown(f"{f.n_students} student(s) following")
    if not projector:
        clients.seats_panel(store, live["code"], live["token"])
    q = f.question
    if projector and (q is None or q.revealed):
        offered = _offered_question()
        if offered is not None and st.button("Ask the class", key="live_ask_projector", help="what happens next? (A)",
                                             icon=":material/quiz:", shortcut="A", type="primary"):
            _pose(*offered)
            st.rerun(scope="app")   # the page hides what gives the answer away
    if q is None:
        return
    tally = store.tally(live["code"], live["token"])
    _question_lines(q, tally.counts, tally.n_answers, projector)
    if not q.revealed:
        if st.button("Reveal and go on", key="live_reveal", type="primary", shortcut="V", help="reveal (V)"):
            t = store.reveal(live["code"], live["token"])
            st.session_state[_REVEALED] = {"code": live["code"], "qid": t.qid, "counts": list(t.counts)}
            adv = t.on_reveal   # kept in the room: a reclaimed class moves on as well
            if adv is not None and adv[0] is not None:
                key, n_steps = adv
                state.set_value(key, min(int(state.value(key, 0)) + 1, n_steps - 1))
            st.rerun(scope="app")   # the step lives in the page's fragment


@st.fragment(run_every=1.0)
def _projector_question() -> None:
    """A projector following the class: the question from the last poll, and once revealed the
    tally the instructor published with it."""
    q, live = st.session_state.get(_QUESTION), _live()
    if q is None or live is None:
        return
    tally = (st.session_state.get(_APPLIED) or {}).get("tally") or {}
    counts = tally.get("counts") if (tally.get("code"), tally.get("qid")) == (live["code"], q.qid) else None
    _question_lines(q, counts, None)


def _following() -> dict | None:
    live = _live()
    return live if live and live["role"] == "student" and not live["detached"] else None


def following() -> bool:
    """True while this session follows a class: its steps come from the instructor (a stepper
    then draws no controls of its own, ``svmviz_app.stepper``)."""
    return _following() is not None


def _poll(live: dict):
    """The room's news for this student: (Follow, question changed, the instructor's presence
    changed); leaves the class (app rerun) when the room is gone, keeping the view and saying so."""
    ss = st.session_state
    try:
        f = room_store().follow(live["code"], live["sid"], since=live["version"], address=clients.address())
    except RoomStoreUnavailableError:
        raise   # the class goes on: the next poll asks again
    except RoomNotFoundError:
        ss[_LIVE], ss[_AWAY] = None, False
        ss[_ENDED] = (f"The class {display_code(live['code'])} has ended. You keep the view you had and can "
                      "explore on your own.")
        st.rerun(scope="app")
    except RoomError as exc:
        ss[_LIVE] = None
        ss[_ERROR] = str(exc)
        st.rerun(scope="app")
    qkey = None if f.question is None else (f.question.qid, f.question.revealed)
    old = ss.get(_QUESTION)
    ss[_QUESTION] = f.question
    away = f.instructor_idle_s > away_after_s()
    moved = away != ss.get(_AWAY, False)
    ss[_AWAY] = away
    return f, qkey != (None if old is None else (old.qid, old.revealed)), moved


def _take(live: dict, version: int, view: dict) -> None:
    """Apply a new view at the next app run, switching page when the instructor did."""
    live["version"] = version
    st.session_state[_APPLIED] = view
    _apply(view)
    st.rerun(scope="app")


# ------------------------------------------------------------------ a step taken by its stepper alone
def stepper_fragment_key(step_key: str) -> str:
    """The ``st.fragment`` key of the stepper of ``step_key`` (``st.rerun`` names it)."""
    return f"{step_key}._stepper"


def _page_steppers() -> dict:
    """What this page's steppers drew (``_STEPPERS``), made anew when the page changed."""
    ss = st.session_state
    reg = ss.get(_STEPPERS)
    if reg is None or reg["page"] != ss.get(_PAGE, ""):
        reg = ss[_STEPPERS] = {"page": ss.get(_PAGE, ""), "steps": {}, "question": None}
    return reg


def _drawn(step_key: str) -> None:
    """The stepper of ``step_key`` drew its step to its end (not cut short by a newer request)."""
    if st.session_state.get(_WAITING) == step_key:
        del st.session_state[_WAITING]


@contextmanager
def stepper_view(step_key: str):
    """Around the view of the stepper of ``step_key``: records the keys the view binds (they
    redraw with it) and whether the question panel is in it, for ``step_only_change``."""
    ss = st.session_state
    reg = _page_steppers()
    bound: set = set()
    ss[state.BIND_SCOPE], ss[_IN_STEPPER] = bound, step_key
    try:
        yield
        _drawn(step_key)
    finally:
        ss.pop(state.BIND_SCOPE, None)
        ss.pop(_IN_STEPPER, None)
        reg["steps"][step_key] = bound


def step_only_change(old: dict | None, new: dict, mine: dict, steps: dict[str, set]) -> tuple[str, dict] | None:
    """When the instructor's view ``new`` differs from the last one taken, ``old``, only in values
    one stepper draws (``steps``: step key -> the keys its view binds), on the same page and data,
    and this student's own values (``mine``) are still those of ``old`` (a key the student never
    bound it cannot have changed): (that step key, the changed values this student does not show
    yet — none when its own view already set them); else None (the view is taken by an app run)."""
    if old is None or any(old.get(k) != new.get(k) for k in ("page", "spec", "data")):
        return None
    a, b = dict(old.get("state") or {}), dict(new.get("state") or {})
    changed = {k for k in a.keys() | b.keys() if a.get(k) != b.get(k)}
    if not changed <= b.keys():
        return None
    for key, bound in steps.items():
        scope = {key} | set(bound)
        if changed <= scope and all(mine[k] == a[k] for k in (mine.keys() & a.keys()) - scope):
            return key, {k: b[k] for k in changed if k not in mine or mine[k] != b[k]}
    return None


def _follow(live: dict, app_run: bool = False) -> None:
    """A student's poll: take what the room changed. A view that changes only a stepper's step (and
    what its view binds), or a question asked in a stepper's view, goes into the state and, from
    the ticker's callback, reruns that stepper alone; any other change reruns the app. In an app
    run (``app_run``) the page draws after this: the state is all it needs. (A step an earlier
    poll asked for and not drawn yet is ``poll``'s, before its wait.)"""
    ss = st.session_state
    f, changed_q, presence = _poll(live)
    reg = ss.get(_STEPPERS) or {}
    steps = reg.get("steps", {}) if reg.get("page") == ss.get(_PAGE, "") else {}
    rerun = None   # the step key of the stepper to rerun
    if f.view is not None:
        found = step_only_change(ss.get(_APPLIED), f.view, state.snapshot(), steps)
        if found is None:
            _take(live, f.version, f.view)
        live["version"] = f.version
        ss[_APPLIED] = f.view
        key, values = found
        for k, v in values.items():
            ss[k] = v
        if values:   # (none: the instructor's view moved to what this student's stepper already drew)
            rerun = key
    if presence and not app_run:   # the notice above the page: an app run (rare: a minute's silence)
        st.rerun()
    if changed_q and not app_run:   # (an app run draws the question anyway)
        if reg.get("question") not in steps or rerun not in (None, reg["question"]):
            st.rerun()
        rerun = reg["question"]
    if rerun is not None and not app_run:
        _draw_step(rerun)


def _draw_step(step_key: str) -> None:
    """Rerun the stepper of ``step_key`` (from a widget callback) to draw the step in the state; never
    returns (an app rerun when that stepper is not on the page any more)."""
    ss = st.session_state
    ss[_WAITING] = step_key
    try:
        st.rerun(stepper_fragment_key(step_key))
    except StreamlitAPIException:   # the stepper is not on the page any more
        del ss[_WAITING]
        st.rerun()


def poll() -> None:
    """A following student's poll, the ticker's trigger callback (a widget callback, so that it can
    rerun a stepper by key): wait for the room to change, then take the change."""
    live = _following()
    if not live:
        return
    ss = st.session_state
    if ss.get(_WAITING):
        # the stepper run an earlier poll asked for has not drawn its step yet (a tick queued
        # behind that request runs its callback first, or a newer request cut the run short):
        # that step first, neither held back by a wait nor skipped for a newer one (the next poll
        # takes what came since)
        _draw_step(ss[_WAITING])
    q = ss.get(_QUESTION)
    try:
        room_store().wait(live["code"], live["version"], None if q is None else (q.qid, q.revealed), WAIT_S)
    except RoomError:
        pass   # the poll tells the student
    with _store_outage():
        _follow(live)


@contextmanager
def _store_outage():
    """A poll while the shared store cannot be reached ends quietly: the student keeps the view
    and the next tick polls again."""
    try:
        yield
    except RoomStoreUnavailableError:
        pass


# A timer in the browser, not ``st.fragment(run_every=...)``: a timed fragment run cannot rerun
# another fragment, so a poll that saw a new step would need a second round trip to draw it. The
# script runs once per mounted element, and again only when the element's data changes (its old
# cleanup is not called then): one timer per element, kept on its host. A redraw with the same data
# (every poll's) keeps the timer and its schedule; it ticks whether or not a run is in progress, and
# Streamlit queues a tick that comes during a run (one per fragment).
_TICKER_JS = """
export default function (component) {
    const host = component.parentElement;
    clearInterval(host.svmvizTicker);
    host.svmvizTicker = setInterval(() => component.setTriggerValue("tick", Date.now()), component.data.every_ms);
    return () => clearInterval(host.svmvizTicker);
}
"""
_ticker = st.components.v2.component("svmviz_live_ticker", js=_TICKER_JS)


@st.fragment
def _follow_fragment() -> None:
    """The ticker, in a fragment of its own: a poll that finds nothing new reruns only this. None
    while the page's step element follows the class (``step_element_drawn``)."""
    ss = st.session_state
    ss[_TICKING] = bool(_following()) and not _fed()
    if ss[_TICKING]:
        _ticker(data={"every_ms": int(TICK_S * 1000)}, key="live_ticker", on_tick_change=_tick, height=0)


def _tick() -> None:
    """The ticker's poll; none once a step element polls for this session: this fragment then
    reruns alone and leaves the ticker out."""
    if not _fed():
        poll()


# ------------------------------------------------------------------ a follower's steps drawn by the browser
def _fed() -> bool:
    """A stepper of this page drew its step element at its last run: the element polls the class
    for this session, no ticker is needed."""
    feeder = st.session_state.get(_FEEDER)
    return bool(feeder) and feeder[0] == st.session_state.get(_PAGE, "")


def step_feed(step_key: str) -> dict | None:
    """The data of the step element (``svmviz_app.step_element``) of the stepper of ``step_key``: for
    a student following the class, not a projector, on a server with the step route (None: the
    ticker polls, the page draws every step). The element polls the class; it draws the steps
    (``draw``) while the room has the instructor's figures and the keys the stepper's view binds
    are known (from the instructor's figure of the step, or from an earlier step). A question
    changes nothing to that: its answer buttons go below the element (``step_element_drawn``),
    and a figure the instructor's page redraws for it (the DAG page hides the sample's path until
    the reveal) reaches the element as the figures kept for the view."""
    ss = st.session_state
    live = _following()
    if live is None or not ROUTED.is_set() or state.lesson_mode() or live.get("sid") is None:
        return None
    q, view = ss.get(_QUESTION), ss.get(_APPLIED) or {}
    try:
        gen, digest, text = room_store().steps(live["code"])
    except RoomError:
        gen, digest, text = 0, "", "{}"
    shown = kept_step(view, digest, text, step_key)
    reg = ss.get(_STEPPERS) or {}
    if shown is not None:
        scope = {step_key, *shown["scope"]}
    elif reg.get("page") == ss.get(_PAGE, "") and step_key in reg.get("steps", {}):
        scope = {step_key, *reg["steps"][step_key]}   # the instructor's page has still to draw it: the element waits
    else:
        scope = None
    return {"route": f"/live/{live['code']}/step", "plotly": PLOTLY_PATH, "step_key": step_key,
            # (no figures kept in this room yet, e.g. too large to share: the page draws the steps)
            "draw": scope is not None and bool(view) and gen > 0,
            "version": live["version"], "frame": frame_digest(view), "state": view.get("state") or {},
            "q": "none" if q is None else f"{q.qid}.{int(q.revealed)}", "away": bool(ss.get(_AWAY)), "sid": live["sid"],
            "url": {k: v for k, v in state.defaults(scope or ()).items() if isinstance(v, (bool, int, str))},
            "scope": sorted(scope or ())}


def _class_figure(store: RoomStore, code: str, step_key: str) -> Callable:
    """The figure of ``step_key``'s step the class shows now (None when this process has none):
    what a fed student's download buttons save (called outside a script run)."""
    def figure():
        try:
            view = store.follow(code, since=-1).view
            _, digest, text = store.steps(code)
        except RoomError:
            return None
        shown = kept_step(view, digest, text, step_key)
        return None if shown is None or shown.get("figure") is None else plotly.io.from_json(json.dumps(shown["figure"]))
    return figure


def step_element_drawn(step_key: str, data: dict, shown) -> bool:
    """In the stepper of ``step_key``'s fragment: the step element with ``data`` (``step_feed``).
    True when it draws the step: the page then draws only the question (its answer buttons, or
    once revealed its answer: this does) and ``shown`` (the stepper's ``ShownFigure``) saves the
    class's step; False: the page draws the step."""
    ss = st.session_state
    live = _following()
    ss[_FEEDER] = (ss.get(_PAGE, ""), step_key)
    step_element.draw(data, poll)
    if not data["draw"]:
        return False
    reg = _page_steppers()
    reg["steps"][step_key] = set(data["scope"]) - {step_key}
    reg["question"] = step_key   # a question asked now reruns this stepper: the page's view asks it here
    _drawn(step_key)
    shown.follow(_class_figure(room_store(), live["code"], step_key))
    if ss.get(_QUESTION) is not None:
        _student_question(live, ss[_QUESTION])
    return True


def page_steps(step_key: str) -> None:
    """In the stepper of ``step_key``'s fragment, drawn without its step element (the session left
    the class, or became a projector): a following session's ticker must poll again, and only an
    app run draws it."""
    ss = st.session_state
    feeder = ss.get(_FEEDER)
    if feeder and feeder[1] == step_key:
        del ss[_FEEDER]
        if _following() and not ss.get(_TICKING):
            st.rerun(scope="app")


# ------------------------------------------------------------------ questions on a stepping page
def _pose(make: Callable, step_key: str, n_steps: int) -> None:
    live = _live()
    try:
        q = make()
        room_store().pose(live["code"], live["token"], q.prompt, list(q.options), q.answer, q.explanation,
                          on_reveal=[step_key, n_steps])   # the reveal moves the step on
    except ValueError as exc:
        st.session_state[_ERROR] = str(exc)


def _answer(qid: int, option: int) -> None:
    live = _live()
    try:
        room_store().answer(live["code"], live["sid"], qid, option, address=clients.address())
        live.setdefault("answers", {})[qid] = option
    except RoomError as exc:
        st.session_state[_ERROR] = str(exc)


def question_panel(make: Callable, step_key: str | None = None, n_steps: int = 0) -> None:
    """In a page's step view: the instructor's "Ask the class" button (``make()`` returns the
    ``svmviz.questions.Question`` of the step shown; the reveal moves ``step_key`` on, unless it
    is None); a student's question, answer buttons and, once revealed, the answer and its
    explanation. Draws nothing outside a class."""
    live = _live()
    if not live:
        return
    reg = st.session_state.get(_STEPPERS)
    if reg is not None and st.session_state.get(_IN_STEPPER) is not None:
        reg["question"] = st.session_state[_IN_STEPPER]   # a question change reruns that stepper alone
    lesson = state.lesson_mode()
    if live["role"] == "instructor":
        if lesson:   # the projector's class panel asks it (above the plot it would push the plot down)
            st.session_state[_ASK] = (st.session_state.get(_PAGE, ""), make, step_key, n_steps)
        elif step_key is None or int(state.value(step_key, 0)) < n_steps - 1:
            st.button("Ask the class: what happens next?", key="live_ask", on_click=_pose,
                      args=(make, step_key, n_steps), icon=":material/quiz:", shortcut="A", help="ask (A)")
        return
    q = st.session_state.get(_QUESTION)
    if q is None or live["detached"] or lesson or live["sid"] is None:   # (a projector: its panel shows it)
        return
    _student_question(live, q)


def _student_question(live: dict, q) -> None:
    """A student's question: its answer buttons, or once revealed the answer and its explanation."""
    with st.container(border=True):
        st.markdown(f"**{plain(q.prompt)}**")
        mine = live.get("answers", {}).get(q.qid)
        if q.revealed:
            st.success(f"Answer: {plain(q.options[q.answer])}" + (" — you got it." if mine == q.answer else ""))
            st.text(q.explanation or "")
        else:
            row = st.container(horizontal=True)
            for i, opt in enumerate(q.options):
                row.button(plain(opt), key=f"live_ans_{q.qid}_{i}", on_click=_answer, args=(q.qid, i),
                           type="primary" if mine == i else "secondary")
            if mine is not None:
                st.caption(f"Your answer: {plain(q.options[mine])} (you can change it until the reveal)")


def question_open() -> bool:
    """True while this session's class has a question posed and not yet revealed (a page hides
    what gives the answer away meanwhile)."""
    live = _live()
    if not live:
        return False
    if live["role"] == "student":
        q = st.session_state.get(_QUESTION)
        return q is not None and not q.revealed and not live["detached"]
    try:
        q = room_store().follow(live["code"]).question
    except RoomError:
        return False
    return q is not None and not q.revealed


def dag_question(dag, X, index: int, class_names) -> bool:
    """The DAG page's "which class does sample ``index`` reach?" (``svmviz.questions``) for the
    class; True while it is open, so the page hides the sample's path until the reveal."""
    question_panel(lambda: dag_reached_class(dag, X, index, class_names))
    return question_open()

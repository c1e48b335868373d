"""The live class: an instructor's view that students follow, and "what happens next?" questions.

``panel(page)`` (``app.py``, every run) draws the sidebar's "Live class" box: start or end a
class (instructor), join by code or ``?room=CODE``, detach and re-join (student). The room store
is one ``svmviz.rooms.InMemoryRoomStore`` per server process (``st.cache_resource``); the
instructor's session holds the room's token in its session state only, never in a link.

- **Instructor:** after every run and every fragment run (``state.AFTER_SYNC``) the view — page,
  data (its spec, or the data itself when a link cannot carry it), every bound value — is
  published; the store bumps its version only when something changed.
- **Student:** a small fragment polls the room every second (``follow(since=version)``: no view
  is sent while it is unchanged); on a new version it applies the view through
  ``state.restore`` (before any widget of the next run) and reruns the app, switching page when
  the instructor did. A changed question reruns it too. While the instructor steps (a new view
  differing from the last one only in the step of a stepper on this page), the poll moves into
  the stepper's own fragment (``follow_step``): a step is then followed by a run of the stepper
  alone, never of the page. Streamlit reruns another fragment only from a widget callback
  (``st.rerun(<fragment key>)``), and a timed run has no callback, so the stepper polls itself
  while steps come and hands back to the small poll (one app run) after ``STEPPING_S`` quiet
  seconds; an idle poll of the small fragment costs far less than a run of the stepper.
- **Questions:** a stepping page calls ``question_panel(...)`` in its step view with a function
  making the ``svmviz.questions.Question`` of the step shown; the instructor poses it, sees the
  live tally in the sidebar and reveals, which moves the step on for everyone. The DAG page asks
  which class its followed sample reaches (``dag_question``) and hides the sample's path until
  the reveal.
"""

from __future__ import annotations

import io
import secrets
import time
from typing import Callable
from urllib.parse import urlsplit

import numpy as np
import streamlit as st

from svmviz.data import Dataset
from svmviz.data import plain_text as plain
from svmviz.data.builtins import BUILTINS
from svmviz.questions import dag_reached_class
from svmviz.rooms import InMemoryRoomStore, RoomError, RoomStore, display_code
from svmviz_app import state
from svmviz_app.navigation import PAGES

_LIVE = "_svmviz_live"          # {"role", "code", "token"|"sid", "version", "qid", "detached"}
_PAGE = "_svmviz_live_page"     # url path of the page this session shows ("" = home)
_SENT = "_svmviz_live_sent"     # the last view published (compared before publishing again)
_QUESTION = "_svmviz_live_question"   # the last poll's question (students)
_ADVANCE = "_svmviz_live_advance"     # (step key, n_steps) the open question moves on at reveal
_GOTO = "_svmviz_live_goto"           # the instructor's page, to switch to at the next app run
_APPLIED = "_svmviz_live_applied"     # the last view applied (students)
_STEPPERS = "_svmviz_live_steppers"   # (page, step keys of the steppers it drew)
_STEPPING = "_svmviz_live_stepping"   # (step key, when a step was last followed) while stepping
ROOM_PARAM = "room"
POLL_S = 1.0
STEPPING_S = 8.0   # quiet seconds after which a follower's stepper stops polling


@st.cache_resource
def room_store() -> RoomStore:
    """The rooms of this server process (every session shares them)."""
    return InMemoryRoomStore()


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


def current_view() -> dict:
    """This session's view: page, data and every bound value (JSON)."""
    spec = state.current_spec()
    view = {"page": st.session_state.get(_PAGE, ""), "spec": spec, "state": state.snapshot()}
    if not (spec in BUILTINS or spec.startswith("gen:")):
        view["data"] = _data_payload(state.current_dataset())   # uploaded, drawn, lesson data
    return view


def _publish() -> None:
    live = _live()
    if not live or live["role"] != "instructor":
        return
    view = current_view()
    if st.session_state.get(_SENT) == view:
        return
    try:
        room_store().publish(live["code"], live["token"], view)
        st.session_state[_SENT] = view
    except RoomError as exc:
        st.session_state[_LIVE] = None
        st.session_state["_svmviz_live_error"] = str(exc)


if _publish not in state.AFTER_SYNC:
    state.AFTER_SYNC.append(_publish)


def _apply(view: dict) -> None:
    """Make the instructor's view this session's at the start of the next run."""
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
    code, token = room_store().create_room()
    st.session_state[_LIVE] = {"role": "instructor", "code": code, "token": token}
    st.session_state.pop(_SENT, None)
    _publish()


def _end_class() -> None:
    live = _live()
    try:
        room_store().close(live["code"], live["token"])
    except RoomError:
        pass   # already expired: nothing left to end
    st.session_state[_LIVE] = None


def join(code: str) -> None:
    """Follow the class ``code`` (as typed or from ``?room=``)."""
    sid = st.session_state.setdefault("_svmviz_live_sid", secrets.token_urlsafe(16))
    f = room_store().follow(code, sid)   # raises for an unknown code or a full room
    st.session_state[_LIVE] = {"role": "student", "code": display_code(code).replace("-", ""), "sid": sid,
                               "version": None, "qid": None, "detached": False}
    st.session_state[_QUESTION] = f.question


def _join_typed() -> None:
    try:
        join(st.session_state.get("_svmviz_live_code", ""))
        st.session_state.pop("_svmviz_live_error", None)
    except RoomError as exc:
        st.session_state["_svmviz_live_error"] = str(exc)


def _detach() -> None:
    live = _live()
    live["detached"] = True
    st.session_state.pop(_STEPPING, None)
    st.session_state.pop(_APPLIED, None)   # re-joining applies the whole view again
    try:
        room_store().leave(live["code"], live["sid"])
    except RoomError:
        pass


def _rejoin() -> None:
    live = _live()
    live["detached"], live["version"] = False, None   # the next poll applies the current view


def _leave_class() -> None:
    _detach()
    st.session_state[_LIVE] = None


# ------------------------------------------------------------------ the sidebar panel
def panel(page) -> None:
    """``app.py``, before the page: the "Live class" box and, for a following student, the poll."""
    ss = st.session_state
    ss[_PAGE] = getattr(page, "url_path", "") or ""
    if ss.get(_STEPPERS, ("",))[0] != ss[_PAGE]:
        ss[_STEPPERS] = (ss[_PAGE], set())   # the page's steppers register as they draw (step_poll_every)
    goto = ss.pop(_GOTO, None)
    if goto is not None and goto != ss[_PAGE]:
        st.switch_page(_page_file(goto))
    if ss.get(_LIVE) is None and not ss.get("_svmviz_live_tried"):
        ss["_svmviz_live_tried"] = True
        code = st.query_params.get(ROOM_PARAM)   # a link's value no page binds stays in the URL
        if code:
            try:
                join(str(code))
            except RoomError as exc:
                ss["_svmviz_live_error"] = str(exc)
    live = _live()
    lesson = state.lesson_mode()
    if live and live["role"] == "instructor" and lesson:
        _code_banner(live["code"], qr=True)
    with st.sidebar:
        with st.expander("Live class", expanded=live is not None):
            err = ss.pop("_svmviz_live_error", None)
            if err:
                st.error(plain(err))
            if live is None:
                st.button("Start a class", key="live_start", on_click=_start_class,
                          help="students follow your page, data, parameters and step live")
                st.text_input("Join a class: code", key="_svmviz_live_code", placeholder="ABCD-EF23")
                st.button("Join", key="live_join", on_click=_join_typed)
            elif live["role"] == "instructor":
                _code_banner(live["code"])
                _instructor_fragment()
                st.button("End the class", key="live_end", on_click=_end_class)
            else:
                st.markdown(f"Class **{display_code(live['code'])}**")
                if live["detached"]:
                    st.caption("Detached: you explore on your own.")
                    st.button("Re-join", key="live_rejoin", on_click=_rejoin, type="primary")
                else:
                    st.caption("Following the instructor.")
                    st.button("Detach", key="live_detach", on_click=_detach)
                    if _stepping() is None:     # else the stepper polls (follow_step)
                        _follow_fragment()
                st.button("Leave the class", key="live_leave", on_click=_leave_class)
    _publish()


def join_link(code: str) -> str:
    """The students' link: the instructor's current page (a student lands there without a page
    switch) and the code; never the token."""
    u = urlsplit(str(getattr(st.context, "url", "") or ""))
    base = f"{u.scheme}://{u.netloc}/" if u.netloc else "/"
    return f"{base}{st.session_state.get(_PAGE, '')}?{ROOM_PARAM}={display_code(code)}"


def join_qr_svg(link: str) -> str:
    """The join link as a QR code (SVG markup; error correction M or better, a 4-module quiet
    zone as the standard asks) that a phone's camera opens from the back of a room."""
    import segno

    buf = io.BytesIO()
    segno.make(link, error="m").save(buf, kind="svg", scale=8, border=4, xmldecl=False, dark="#000", light="#fff")
    return buf.getvalue().decode()


def _code_banner(code: str, qr: bool = False) -> None:
    """The join code large, the link, and in lesson mode (the projector) the link's QR code."""
    link = join_link(code)
    text, image = st.columns([3, 1]) if qr else (st.container(), None)
    with text:
        st.markdown(f"<div style='font-size:2.6rem;font-weight:700;letter-spacing:0.2rem'>"
                    f"{display_code(code)}</div>", unsafe_allow_html=True)   # code: alphabet symbols only
        st.code(link, language=None)
    if image is not None:
        image.image(join_qr_svg(link), caption="Scan to join", width=220)


@st.fragment(run_every=1.0)
def _instructor_fragment() -> None:
    """Keeps the room alive and shows the open question's live tally, with Reveal."""
    live = _live()
    if not live or live["role"] != "instructor":
        return
    store = room_store()
    try:
        store.touch(live["code"], live["token"])
        f = store.follow(live["code"])
    except RoomError as exc:
        st.session_state[_LIVE] = None
        st.error(plain(exc))
        return
    st.caption(f"{f.n_students} student(s) following")
    q = f.question
    if q is None:
        return
    tally = store.tally(live["code"], live["token"])
    st.markdown(f"**{plain(q.prompt)}**")
    for opt, n in zip(q.options, tally.counts):
        mark = " ✓" if q.revealed and q.options.index(opt) == q.answer else ""
        st.text(f"{opt}: {n}{mark}")
    st.caption(f"{tally.n_answers} answer(s)")
    if not q.revealed:
        if st.button("Reveal and go on", key="live_reveal", type="primary"):
            store.reveal(live["code"], live["token"])
            adv = st.session_state.pop(_ADVANCE, None)
            if adv is not None and adv[0] is not None:
                key, n_steps = adv
                state.set_value(key, min(int(state.value(key, 0)) + 1, n_steps - 1))
            st.rerun(scope="app")   # the step lives in the page's fragment


def _following() -> dict | None:
    live = _live()
    return live if live and live["role"] == "student" and not live["detached"] else None


def _poll(live: dict):
    """The room's news for this student: (Follow, question changed); leaves the class (app rerun)
    when the room is gone."""
    try:
        f = room_store().follow(live["code"], live["sid"], since=live["version"])
    except RoomError as exc:
        st.session_state[_LIVE] = None
        st.session_state["_svmviz_live_error"] = str(exc)
        st.rerun(scope="app")
    qkey = None if f.question is None else (f.question.qid, f.question.revealed)
    old = st.session_state.get(_QUESTION)
    st.session_state[_QUESTION] = f.question
    return f, qkey != (None if old is None else (old.qid, old.revealed))


def step_only_change(old: dict | None, new: dict, scopes: dict[str, set]) -> tuple[str, dict] | None:
    """When the view ``new`` differs from ``old`` only in values a stepper draws — its step and
    the values bound in its view (``scopes``: step key -> those keys) — on the same page and data:
    (that step key, the changed values); else None."""
    if old is None or any(old.get(k) != new.get(k) for k in ("page", "spec", "data")):
        return None
    a, b = dict(old.get("state") or {}), dict(new.get("state") or {})
    changed = {k for k in a.keys() | b.keys() if a.get(k) != b.get(k)}
    if not changed or not changed <= b.keys():
        return None
    for key, bound in scopes.items():
        if key in b and changed <= {key} | set(bound):
            return key, {k: b[k] for k in changed}
    return None


def diverged(applied: dict | None, page: str, spec: str, values: dict) -> bool:
    """True when this session no longer shows the view it last applied (its page, data, or a
    value both hold differs: the student clicked around while following); the next view is then
    applied whole."""
    if applied is None:
        return True
    if applied.get("page") != page or applied.get("spec") != spec:
        return True
    return any(k in values and values[k] != v for k, v in (applied.get("state") or {}).items())


def _local_diverged() -> bool:
    ss = st.session_state
    return diverged(ss.get(_APPLIED), ss.get(_PAGE, ""), state.current_spec(), state.snapshot())


def _scopes(keys) -> dict[str, set]:
    return {k: state.step_bound(k) for k in keys}


def _take(live: dict, f) -> None:
    """Apply a new view at the next app run, switching page when the instructor did."""
    live["version"] = f.version
    st.session_state[_APPLIED] = f.view
    _apply(f.view)
    page = f.view.get("page", "")
    if page != st.session_state.get(_PAGE, ""):
        st.session_state[_GOTO] = page   # switched in the app run: a fragment cannot change page
    st.rerun(scope="app")


@st.fragment(run_every=POLL_S)
def _follow_fragment() -> None:
    """A student's poll: apply the instructor's new view or question, else nothing."""
    live = _following()
    if not live:
        return
    f, changed_q = _poll(live)
    if f.view is not None:
        found = None if _local_diverged() else step_only_change(st.session_state.get(_APPLIED), f.view,
                                                                   _scopes(_steppers()))
        if found is not None:   # the instructor steps: the stepper follows the next steps itself
            st.session_state[_STEPPING] = (found[0], time.monotonic())
        _take(live, f)
    if changed_q:
        st.rerun(scope="app")


def _steppers() -> set:
    ss = st.session_state
    pair = ss.get(_STEPPERS)
    return pair[1] if pair and pair[0] == ss.get(_PAGE, "") else set()


def _stepping() -> tuple[str, float] | None:
    s = st.session_state.get(_STEPPING)
    if s is None or not _following() or s[0] not in _steppers():
        return None
    return s


def step_poll_every(key: str) -> float | None:
    """The stepper's ``run_every`` for this session: the poll's interval while it follows the
    instructor's steps of ``key``, else None. Registers ``key`` as a stepper of the page."""
    ss = st.session_state
    if _STEPPERS not in ss or ss[_STEPPERS][0] != ss.get(_PAGE, ""):
        ss[_STEPPERS] = (ss.get(_PAGE, ""), set())
    ss[_STEPPERS][1].add(key)
    s = _stepping()
    return POLL_S if s is not None and s[0] == key else None


def follow_step(key: str, n_steps: int) -> None:
    """At the start of each run of the stepper of ``key``: while this student follows the
    instructor's steps, poll the room and take a new step here (the stepper then draws it); any
    other change, or ``STEPPING_S`` quiet seconds, reruns the app (the small poll takes over)."""
    s = _stepping()
    live = _following()
    if s is None or s[0] != key or live is None:
        return
    ss = st.session_state
    f, changed_q = _poll(live)
    if f.view is None:
        if time.monotonic() - s[1] > STEPPING_S:
            ss.pop(_STEPPING, None)
            st.rerun(scope="app")
        return           # a changed question is drawn by this run (the question panel is in the step view)
    found = None if _local_diverged() else step_only_change(ss.get(_APPLIED), f.view, _scopes((key,)))
    if found is None:
        ss.pop(_STEPPING, None)
        _take(live, f)
    live["version"] = f.version
    ss[_APPLIED] = f.view
    for k, v in found[1].items():   # drawn below, after this: the view's widgets take them
        ss[k] = v
    ss[key] = int(min(max(int(ss[key]), 0), max(int(n_steps) - 1, 0)))
    ss[_STEPPING] = (key, time.monotonic())


# ------------------------------------------------------------------ questions on a stepping page
def _pose(make: Callable, step_key: str, n_steps: int) -> None:
    live = _live()
    try:
        q = make()
        room_store().pose(live["code"], live["token"], q.prompt, list(q.options), q.answer, q.explanation)
        st.session_state[_ADVANCE] = (step_key, n_steps)
    except ValueError as exc:
        st.session_state["_svmviz_live_error"] = str(exc)


def _answer(qid: int, option: int) -> None:
    live = _live()
    try:
        room_store().answer(live["code"], live["sid"], qid, option)
        live.setdefault("answers", {})[qid] = option
    except RoomError as exc:
        st.session_state["_svmviz_live_error"] = str(exc)


def question_panel(make: Callable, step_key: str | None = None, n_steps: int = 0) -> None:
    """In a page's step view: the instructor's "Ask the class" button (``make()`` returns the
    ``svmviz.questions.Question`` of the step shown; the reveal moves ``step_key`` on, unless it
    is None); a student's question, answer buttons and, once revealed, the answer and its
    explanation. Draws nothing outside a class."""
    live = _live()
    if not live:
        return
    if live["role"] == "instructor":
        if step_key is None or int(state.value(step_key, 0)) < n_steps - 1:
            st.button("Ask the class: what happens next?", key="live_ask", on_click=_pose,
                      args=(make, step_key, n_steps), icon=":material/quiz:")
        return
    q = st.session_state.get(_QUESTION)
    if q is None or live["detached"]:
        return
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

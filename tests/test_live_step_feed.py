"""The live class's step route (``svmviz_app.step_feed``): a room's step payload built once per
version and sent as the same bytes to every follower; a long poll that a change wakes; strict
parameters; nothing secret in it."""

from __future__ import annotations

import asyncio
import json
import threading
import time
import uuid

import pytest
from starlette.requests import Request

from apphelpers import run_coroutine
from svmviz_app.rooms import InMemoryRoomStore
from svmviz_app.step_feed import StepFeed

VIEW = {"page": "SVM_Tree", "spec": "fourclass", "state": {"tree.step": 3, "C": 1.0}}


@pytest.fixture(params=["memory", "redis"])
def room(request):
    """(store, code, token) of a room showing ``VIEW``, in memory or in Redis (whose waits wake
    through its pub/sub channel)."""
    if request.param == "memory":
        store = InMemoryRoomStore()
    else:
        from svmviz_app.rooms_redis import RedisRoomStore

        store = RedisRoomStore(request.getfixturevalue("redis_url"), prefix=f"test-{uuid.uuid4().hex}:")
    code, token = store.create_room()
    store.publish(code, token, VIEW)
    yield store, code, token
    if request.param == "redis":
        for key in store._r.scan_iter(f"{store.prefix}*"):
            store._r.delete(key)


def _request(path: str, query: str = "", gone: asyncio.Event | None = None) -> Request:
    """A GET of ``path`` as Starlette passes it to the route; its client stays until ``gone`` is set."""
    code = path.split("/")[2]
    scope = {"type": "http", "method": "GET", "path": path, "query_string": query.encode(), "headers": [],
             "path_params": {"code": code}}
    sent = False

    async def receive():
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await (gone or asyncio.Event()).wait()
        return {"type": "http.disconnect"}
    return Request(scope, receive)


def _get(feed: StepFeed, path: str, query: str = "") -> tuple[int, bytes]:
    resp = run_coroutine(feed.endpoint(_request(path, query)))
    return resp.status_code, resp.body


def test_every_follower_of_a_version_gets_the_same_bytes_object(room):
    store, code, token = room
    feed = StepFeed(lambda: store, lambda: 60.0)

    async def hundred():
        return await asyncio.gather(*(feed.respond(code, None, "absent") for _ in range(100)))

    bodies = [b for _, b in run_coroutine(hundred())]
    assert all(b is bodies[0] for b in bodies)
    payload = json.loads(bodies[0])
    assert payload["page"] == "SVM_Tree" and payload["state"] == VIEW["state"] and payload["question"] is None
    assert token.encode() not in bodies[0]
    store.publish(code, token, {**VIEW, "state": {"tree.step": 4, "C": 1.0}})
    _, after = run_coroutine(feed.respond(code, None, "absent"))
    assert after is not bodies[0] and json.loads(after)["state"]["tree.step"] == 4
    assert json.loads(after)["version"] == payload["version"] + 1


def test_a_long_poll_waits_for_the_next_step_and_wakes_at_once(room):
    store, code, token = room
    feed = StepFeed(lambda: store, lambda: 60.0)
    version = json.loads(run_coroutine(feed.respond(code, None, "absent"))[1])["version"]

    def step_later():
        time.sleep(0.3)
        store.publish(code, token, {**VIEW, "state": {"tree.step": 5, "C": 1.0}})

    threading.Thread(target=step_later).start()

    async def three_followers():
        return await asyncio.gather(*(feed.respond(code, version, None, wait_s=10.0) for _ in range(3)))

    t0 = time.monotonic()
    got = run_coroutine(three_followers())
    waited = time.monotonic() - t0
    assert 0.25 < waited < 5.0
    assert {json.loads(b)["state"]["tree.step"] for _, b in got} == {5}
    assert got[0][1] is got[1][1] is got[2][1]


def test_a_poll_with_nothing_new_answers_the_same_payload_after_its_wait(room):
    store, code, _ = room
    feed = StepFeed(lambda: store, lambda: 60.0)
    status, body = run_coroutine(feed.respond(code, None, "absent"))
    version = json.loads(body)["version"]
    t0 = time.monotonic()
    status, again = run_coroutine(feed.respond(code, version, None, wait_s=0.3))
    assert status == 200 and again is body and time.monotonic() - t0 >= 0.29


def test_a_question_wakes_the_poll_and_shows_its_answer_only_once_revealed(room):
    store, code, token = room
    feed = StepFeed(lambda: store, lambda: 60.0)
    version = json.loads(run_coroutine(feed.respond(code, None, "absent"))[1])["version"]
    threading.Timer(0.2, lambda: store.pose(code, token, "Which next?", ["a", "b"], 1, "because")).start()
    _, body = run_coroutine(feed.respond(code, version, None, wait_s=10.0))
    q = json.loads(body)["question"]
    assert q["prompt"] == "Which next?" and q["answer"] is None and q["explanation"] is None and not q["revealed"]
    assert b"because" not in body
    store.reveal(code, token)
    _, body = run_coroutine(feed.respond(code, version, (q["qid"], False), wait_s=10.0))
    q = json.loads(body)["question"]
    assert q["revealed"] and q["answer"] == 1 and q["explanation"] == "because"


def test_a_waiting_poll_ends_when_its_follower_leaves(room):
    """A follower's tab closes while its request waits for the next step: the request ends then (not
    after its WAIT_S, which a server asked to stop would wait for too), and leaves no waiter."""
    from svmviz_app.step_feed import WAIT_S

    store, code, _ = room
    feed = StepFeed(lambda: store, lambda: 15.0)
    version = json.loads(_get(feed, f"/live/{code}/step")[1])["version"]

    async def leave():
        gone = asyncio.Event()
        request = asyncio.ensure_future(feed.endpoint(_request(f"/live/{code}/step", f"since={version}", gone)))
        while not feed._watches.get(code) or not feed._watches[code].waiters:   # it waits
            await asyncio.sleep(0.01)
        gone.set()
        return await asyncio.wait_for(request, WAIT_S / 2)   # ends before its long poll would

    assert run_coroutine(leave()).status_code == 499
    assert not feed._watches[code].waiters


def test_a_waiting_poll_says_at_once_when_the_class_ends(room):
    store, code, token = room
    feed = StepFeed(lambda: store, lambda: 60.0)
    version = json.loads(run_coroutine(feed.respond(code, None, "absent"))[1])["version"]
    threading.Timer(0.2, lambda: store.close(code, token)).start()
    t0 = time.monotonic()
    status, body = run_coroutine(feed.respond(code, version, None, wait_s=10.0))
    assert status == 404 and json.loads(body) == {"ended": True} and time.monotonic() - t0 < 5.0


def test_the_route_checks_its_parameters_and_says_when_the_class_is_over(room):
    store, code, token = room
    feed = StepFeed(lambda: store, lambda: 60.0)
    lower = code.lower()
    status, body = _get(feed, f"/live/{lower[:4]}-{lower[4:]}/step")
    assert status == 200 and json.loads(body)["page"] == "SVM_Tree"
    for bad in ("since=abc", "since=-1", "since=1e3", "since=99999999999999999", "q=2", "q=1.5", "q=none;"):
        assert _get(feed, f"/live/{code}/step", bad)[0] == 400, bad
    assert _get(feed, "/live/not-a-code/step")[0] == 400
    assert _get(feed, "/live/" + "A" * 5000 + "/step")[0] == 400
    store.close(code, token)
    status, body = _get(feed, f"/live/{code}/step")
    assert status == 404 and json.loads(body) == {"ended": True}


def test_the_served_app_mounts_the_route():
    """(Importing ``serve`` marks this process as serving the route: the tests after this one in
    the process run the app as ``streamlit run app.py`` does, without it.)"""
    from svmviz_app.step_feed import PLOTLY_PATH, ROUTED

    was = ROUTED.is_set()
    try:
        import serve

        paths = [r.path for r in serve.ROUTES]
        assert "/live/{code}/step" in paths and PLOTLY_PATH in paths and ROUTED.is_set()
    finally:
        if not was:
            ROUTED.clear()


def test_the_route_sends_the_step_figure_and_line_the_instructors_run_showed_with_that_view():
    from apphelpers import page_test, problems
    from svmviz_app.live import room_store

    store = room_store()
    code, token = store.create_room()
    at = page_test("pages/2_SVM_Tree.py")
    at.session_state["_svmviz_live"] = {"role": "instructor", "code": code, "token": token}
    at.run()
    at.button(key="tree.step_next").click().run()
    assert not problems(at)
    feed = StepFeed(lambda: store, lambda: 60.0)
    _, body = run_coroutine(feed.respond(code, None, "absent"))
    payload = json.loads(body)
    step = payload["steps"]["tree.step"]
    assert step["k"] == payload["state"]["tree.step"] == at.session_state["tree.step"] == 1
    assert step["line"].startswith("Step 2 of ")
    shown = at.session_state["tree.step._figure"]()
    assert step["figure"] == json.loads(shown.to_json())
    assert step["figure"]["data"] and token not in body.decode()


@pytest.mark.slow
def test_a_served_class_sends_each_step_to_its_followers_step_elements_without_a_script_run():
    """``streamlit run serve.py``: two students join; the instructor steps twice; each student's
    step element (``bench_live``'s, doing what its script does in a browser) draws both steps from
    the route, and the students' sessions run no script meanwhile; every request gets the same
    payload."""
    from apphelpers import bench_live, protocol
    from conftest import start_streamlit, stop_streamlit
    from test_browser_live import DATA

    bl = bench_live()
    proc, url = start_streamlit()
    port = int(url.rsplit(":", 1)[1])

    async def lecture():
        await bl.bc.purge_visit(port, 300)
        t = bl.LiveSession(port, "SVM_Tree", f"data={DATA}")
        assert await t.open(300), t.errors
        assert await t.expand("Live class", 180)
        assert await t.wait_for(lambda x: x.button("Start a class") is not None, 180)
        await t.click("Start a class", 180)
        code = t.find_text(bl.CODE_RE)
        students = [bl.LiveSession(port, "SVM_Tree", f"room={code}") for _ in range(2)]
        for s in students:
            assert await s.open(300), s.errors
            assert await s.wait_for(lambda x: x.element_step() == 1, 180), (s.element_seen, s.errors)
        for s in students:   # the join's ticker: its first tick finds the element polling and leaves
            assert await s.wait_for(lambda x: not x.tickers, 60), s.errors
        runs = [s.run_id for s in students]
        for k in (1, 2):
            assert await t.click(bl.bc.PAGES["SVM_Tree"].button, 180, until=lambda x, k=k: x.step()[0] == k + 1)
        for s in students:
            assert await s.wait_for(lambda x: x.element_step() == 3, 180), (s.element_seen, s.errors)
        assert all({2, 3} <= {k for _, k in s.element_seen} for s in students)
        assert [s.run_id for s in students] == runs   # no script run of a student drew them
        assert not any(s.errors for s in students), [s.errors for s in students]
        for s in [t, *students]:
            await s.close()
        status, body = await _raw(port, f"/live/{code.replace('-', '')}/step")
        status2, body2 = await _raw(port, f"/live/{code.replace('-', '')}/step")
        assert status == status2 == 200 and body == body2 and json.loads(body)["steps"]["tree.step"]["k"] == 2
        assert (await _raw(port, f"/live/{code}/step?since=x"))[0] == 400

    try:
        protocol(lecture())
    finally:
        stop_streamlit(proc)


async def _raw(port: int, path: str) -> tuple[int, bytes]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
    data = await reader.read()
    writer.close()
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), body


def test_a_room_keeps_steps_once_and_refuses_figures_beyond_its_bound(room):
    from svmviz_app.rooms import MAX_STEPS_BYTES, RoomAccessError, RoomContentError

    store, code, token = room
    assert store.steps(code) == (0, "", "{}")
    assert store.keep_steps(code, token, "d1", '{"s":1}') == 1
    assert store.keep_steps(code, token, "d1", '{"s":1}') == 1   # the same again: no change
    assert store.keep_steps(code, token, "d2", '{"s":2}') == 2 and store.steps(code) == (2, "d2", '{"s":2}')
    with pytest.raises(RoomContentError):
        store.keep_steps(code, token, "d3", "x" * (MAX_STEPS_BYTES + 1))
    with pytest.raises(RoomAccessError):
        store.keep_steps(code, "not-the-token", "d3", "{}")
    assert store.steps(code) == (2, "d2", '{"s":2}')


class _Fig:
    def __init__(self, tag: str) -> None:
        self.tag = tag

    def to_json(self) -> str:
        return json.dumps({"data": [], "layout": {"title": {"text": self.tag}}})


def test_figures_drawn_after_their_view_was_published_wake_the_waiting_poll_with_them(room):
    """A run publishes its view as it starts and draws the step after; the reveal moves the step
    in the store itself: the payload of a version may first go out without its step's figure. A
    poll holding that payload (``f``, its steps generation) gets the figure once kept, in every
    process serving the room (here a second route over the same store)."""
    from svmviz_app.step_feed import steps_json, view_digest

    store, code, token = room
    feed = StepFeed(lambda: store, lambda: 60.0)
    first = json.loads(run_coroutine(feed.respond(code, None, "absent"))[1])
    assert first["steps"] == {}
    shown = {"tree.step": (3, "Step 4", _Fig("four"), {"tree.geo"})}
    threading.Timer(0.3, lambda: store.keep_steps(code, token, view_digest(VIEW), steps_json(shown))).start()
    t0 = time.monotonic()
    _, body = run_coroutine(feed.respond(code, first["version"], None, wait_s=5.0, figures=first["figures"]))
    got = json.loads(body)
    assert time.monotonic() - t0 < 4.0 and got["version"] == first["version"]
    assert got["steps"]["tree.step"]["figure"]["layout"]["title"]["text"] == "four"
    assert got["steps"]["tree.step"]["scope"] == ["tree.geo"] and got["figures"] == first["figures"] + 1
    # figures kept for another view are not this view's
    store.keep_steps(code, token, view_digest({**VIEW, "page": "DAG_SVM"}), steps_json(shown))
    other = StepFeed(lambda: store, lambda: 60.0)
    assert json.loads(run_coroutine(other.respond(code, None, "absent"))[1])["steps"] == {}


def test_a_students_route_requests_keep_their_seat_and_a_forged_id_is_refused(room):
    """A student whose browser draws the steps polls the room only through the route: each of its
    requests keeps the seat (a seat silent for 15 s is freed)."""
    store, code, token = room
    feed = StepFeed(lambda: store, lambda: 60.0)
    sid = store.new_client(None)
    status, _ = _get(feed, f"/live/{code}/step", f"sid={sid}")
    assert status == 200 and store.follow(code).n_students == 1
    status, body = _get(feed, f"/live/{code}/step", "sid=not-a-client-id")
    assert status == 400 and b"client id" in body
    store.remove(code, token, client=sid)
    status, _ = _get(feed, f"/live/{code}/step", f"sid={sid}")
    assert status == 409   # the seat is gone: the student's session says why


def test_an_instructor_keeps_only_figures_of_the_step_its_view_holds(monkeypatch):
    """A run publishes its view (a new step) before its stepper draws: the figure on hand then is
    the last run's, of another step, and must not go out as this view's."""
    from svmviz_app import live
    from svmviz_app.stepper import ShownFigure

    fig = ShownFigure()
    fig.clear(2)
    fig.show(_Fig("three"), "Step 3")
    ss = {"_svmviz_live_steppers": {"page": "SVM_Tree", "steps": {"tree.step": {"tree.geo"}}, "question": None},
          "_svmviz_live_page": "SVM_Tree", live.shown_figure_key("tree.step"): fig}
    monkeypatch.setattr(live.st, "session_state", ss)
    assert live._shown_steps({"state": {"tree.step": 3}}) == {}
    kept = live._shown_steps({"state": {"tree.step": 2}})
    assert kept["tree.step"][:2] == (2, "Step 3") and kept["tree.step"][3] == {"tree.geo"}


@pytest.mark.parametrize("case, draws", [("figure here", True), ("question open", True),
                                         ("question revealed", True), ("no figures", False),
                                         ("projector", False)])
def test_a_students_step_element_draws_while_the_room_has_figures(monkeypatch, case, draws):
    """The element draws the steps for a following student while the room holds the instructor's
    figures (none kept, e.g. too large to share: the page draws them), a question or not (its
    buttons go below it); a projector draws its own."""
    from svmviz_app import live, state, step_feed
    from svmviz_app.rooms import PublicQuestion
    from svmviz_app.step_feed import steps_json, view_digest

    store = InMemoryRoomStore()
    code, token = store.create_room()
    view = {"page": "SVM_Tree", "spec": "fourclass", "state": {"tree.step": 1, "tree.geo": "a"}}
    store.publish(code, token, view)
    if case != "no figures":
        store.keep_steps(code, token, view_digest(view), steps_json({"tree.step": (1, "Step 2", _Fig("two"), {"tree.geo"})}))
    monkeypatch.setattr(live, "room_store", lambda: store)
    monkeypatch.setattr(step_feed.ROUTED, "is_set", lambda: True)
    monkeypatch.setattr(state, "lesson_mode", lambda: case == "projector")
    q = None
    if case.startswith("question"):
        q = PublicQuestion(qid=1, prompt="Which?", options=("a", "b"), revealed=case.endswith("revealed"),
                           answer=None, explanation=None)
    ss = {"_svmviz_live": {"role": "student", "code": code, "sid": "c", "version": 3, "detached": False},
          "_svmviz_live_applied": view, "_svmviz_live_question": q, "_svmviz_live_page": "SVM_Tree",
          "_svmviz_live_steppers": {"page": "SVM_Tree", "steps": {"tree.step": {"tree.geo"}}, "question": None},
          "_svmviz_bound": {"tree.step": 0, "tree.geo": "b"}}
    monkeypatch.setattr(live.st, "session_state", ss)
    monkeypatch.setattr(state.st, "session_state", ss)
    data = live.step_feed("tree.step")
    if case == "projector":
        assert data is None
        return
    assert data["draw"] is draws and data["scope"] == ["tree.geo", "tree.step"]
    assert data["route"] == f"/live/{code}/step" and data["version"] == 3 and data["sid"] == "c"
    assert data["url"] == {"tree.step": 0, "tree.geo": "b"}


def test_a_step_line_reaches_the_students_browser_as_the_text_the_page_shows():
    """Step lines are Markdown with the user's strings escaped (``plain_text``); the step element
    shows text: the escapes must not show."""
    from svmviz.data import plain_text
    from svmviz_app.step_feed import steps_json

    line = "Step 1 of 3 — " + plain_text("μ = 0.50: class (a_1) *x* \\ [1]")
    got = json.loads(steps_json({"s": (0, line, None, set())}))["s"]
    assert got["line"] == "Step 1 of 3 — μ = 0.50: class (a_1) *x* \\ [1]" and got["figure"] is None


def test_a_followers_steps_are_parsed_once_per_steps_kept_and_only_for_their_view(monkeypatch):
    """Each following student's stepper run reads its step's scope from the room's kept steps
    (figures included, tens of kilobytes): parsed once per steps kept, not once per run."""
    from svmviz_app import step_feed
    from svmviz_app.step_feed import kept_step, steps_json, view_digest

    parses = []
    real = json.loads
    monkeypatch.setattr(step_feed.json, "loads", lambda text: parses.append(text) or real(text))
    text = steps_json({"tree.step": (3, "Step 4 of 9", None, {"C"})})
    digest = view_digest(VIEW)
    for _ in range(5):
        assert kept_step(VIEW, digest, text, "tree.step")["scope"] == ["C"]
    assert len(parses) == 1
    assert kept_step({**VIEW, "state": {"tree.step": 4}}, digest, text, "tree.step") is None   # another view's
    assert kept_step(VIEW, digest, text, "other.step") is None


def test_a_fed_students_download_saves_the_step_the_class_shows(room):
    """A fed student's page does not draw the step: its download buttons save the figure the
    room keeps for the class's view, and the page's own once the room keeps none for it."""
    import plotly.graph_objects as go

    from svmviz_app.live import _class_figure
    from svmviz_app.step_feed import steps_json, view_digest
    from svmviz_app.stepper import ShownFigure

    store, code, token = room
    shown = ShownFigure()
    shown.clear(0)
    shown.show(go.Figure(layout_title_text="the page's own"), "Step 1 of 9")
    shown.follow(_class_figure(store, code, "tree.step"))
    assert shown().layout.title.text == "the page's own"   # nothing kept yet
    kept = {"tree.step": (3, "Step 4 of 9", go.Figure(go.Scatter(x=[1], y=[2]), layout_title_text="step 4"), set())}
    store.keep_steps(code, token, view_digest(VIEW), steps_json(kept))
    assert shown().layout.title.text == "step 4" and list(shown().data[0].y) == [2]
    store.publish(code, token, {**VIEW, "state": {"tree.step": 4}})   # the class moved on, its figure not kept yet
    assert shown().layout.title.text == "the page's own"

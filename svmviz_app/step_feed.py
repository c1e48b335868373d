"""A live class's step, served over plain HTTP: ``GET /live/<code>/step?since=<version>``.

A follower that learns of a step through a Streamlit script run costs the server a run and every
element of it; this route tells it what the room shows now with one response, the same bytes for
every follower of the room. The payload is built once per (room, version, question, steps
generation) in each process (``StepFeed.current``): the view's version, page, bound values and
data spec (never its uploaded data, which a link cannot carry either), the public question (its
answer only once revealed), whether the instructor is away, and the steps the instructor's page
drew with that view (``RoomStore.keep_steps``, shared by every process serving the room: each
stepper's step, its step line, the keys its view binds and its figure as Plotly JSON). Nothing in
it is secret: the code is the one the students type, and a room's view is what every follower is
sent anyway; the instructor's token never enters a view.

A request whose ``since`` (and ``q``, the question it holds: ``<qid>.<0|1>`` or ``none``, and
``f``, the steps generation it holds) is still the room's waits up to ``WAIT_S`` seconds for a
change — a long poll. Waiting requests cost no thread and no store call: one watcher thread per
room (``RoomStore.wait``, which wakes on a change in the memory and in the Redis store alike)
builds the room's new payload and wakes every request of that room with it, and ends once nobody
has asked for the room for ``WAIT_S`` seconds. A request whose client goes away (a closed tab) ends
its wait at once. A request naming a student (``sid``) keeps their seat, as their session's poll did.
"""
from __future__ import annotations

import asyncio
import functools
import gzip
import hashlib
import importlib.metadata
import json
import re
import threading
import time
from collections import OrderedDict
from typing import Callable

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from svmviz_app.clients import request_address
from svmviz_app.rooms import (RoomError, RoomNotFoundError, RoomStore, RoomStoreUnavailableError, normalize_code)

WAIT_S = 10.0          # a long poll's longest wait (a request keeps the student's seat: below its 15 s)
MAX_PAYLOADS = 64      # payloads kept in this process (one per room and version: the latest matter)
MAX_SINCE = 2 ** 53    # a version is a counter: larger is no version
_SINCE = re.compile(r"\d{1,16}")
_QUESTION = re.compile(r"(none|\d{1,16}\.[01])")
STEP_PATH = "/live/{code}/step"
# Plotly's JavaScript, the same version as the figures' JSON, for the followers' step element: once
# per browser (the version in the path lets it be cached for good)
PLOTLY_PATH = f"/live/plotly-{importlib.metadata.version('plotly')}.min.js"
ROUTED = threading.Event()   # set once ``routes`` served the step route (``serve.py``): followers may use it


def view_digest(view) -> str:
    """A view's fingerprint: the same for the view an instructor publishes and the one read back
    from the room (the store keeps it as this compact JSON)."""
    return hashlib.sha256(json.dumps(view, allow_nan=False, separators=(",", ":")).encode()).hexdigest()


_ESCAPED = re.compile(r"\\(.)")


def steps_json(shown: dict) -> str:
    """{step key: (step, step line, figure, the keys its view binds)} as the room keeps it
    (``RoomStore.keep_steps``): {step key: {"k", "line", "scope", "figure"}}. A step line is
    Markdown as the page draws it (user strings escaped, ``plain_text``); the students' browsers
    show it as text, so without the escapes."""
    parts = []
    for step_key, (k, line, fig, scope) in shown.items():
        figure = fig.to_json() if fig is not None else "null"
        text = _ESCAPED.sub(r"\1", str(line))
        parts.append(f'{json.dumps(str(step_key))}:{{"k":{int(k)},"line":{json.dumps(text)},'
                     f'"scope":{json.dumps(sorted(map(str, scope)))},"figure":{figure}}}')
    return "{" + ",".join(parts) + "}"


@functools.lru_cache(maxsize=16)
def _parsed_steps(text: str) -> dict:
    # once per steps kept (a follower's stepper run reads them at every step): callers only read
    return json.loads(text)


def kept_step(view, digest: str, text: str, step_key: str) -> dict | None:
    """The step of ``step_key`` in a room's kept steps (``RoomStore.steps``: ``digest`` and
    ``text``), as ``steps_json`` wrote it; None when the room keeps none for ``view`` (kept for
    another view: the instructor's page has still to draw this one's)."""
    if not view or digest != view_digest(view):
        return None
    return _parsed_steps(text).get(step_key)


def frame_digest(view) -> str:
    """What a view shows besides its bound values — page, data spec, data — as a short
    fingerprint: a follower's step element draws a step itself only while this is the one its
    page was drawn with (``svmviz_app.step_element``)."""
    frame = {k: view.get(k) for k in ("page", "spec", "data")}
    return hashlib.sha256(json.dumps(frame, allow_nan=False, separators=(",", ":")).encode()).hexdigest()[:32]


def _question_key(q) -> tuple[int, bool] | None:
    return None if q is None else (q.qid, q.revealed)


def parse_question(text: str | None) -> tuple[int, bool] | None | str:
    """The ``q`` parameter as ``RoomStore.wait`` takes it; ``"absent"`` when the request gave none
    (it then waits for the version alone); a ``ValueError`` for anything else."""
    if text is None:
        return "absent"
    if not _QUESTION.fullmatch(text):
        raise ValueError("q is <qid>.<0|1> or none")
    if text == "none":
        return None
    qid, revealed = text.split(".")
    return int(qid), revealed == "1"


def parse_since(text: str | None) -> int | None:
    """The ``since`` parameter: a version (None when absent: answer at once); a ``ValueError`` else."""
    if text is None:
        return None
    if not _SINCE.fullmatch(text) or int(text) >= MAX_SINCE:
        raise ValueError("since is a version number")
    return int(text)


class _Watch:
    """The requests waiting on one room, and the thread waiting on the store for them."""

    def __init__(self) -> None:
        self.waiters: set[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = set()
        self.asked_at = time.monotonic()
        self.thread: threading.Thread | None = None
        self.latest: tuple | None = None   # (version, question, payload, figures' generation)


class StepFeed:
    """The step route of one process over ``store()`` (called when needed: the app's room store is
    made on first use)."""

    def __init__(self, store: Callable[[], RoomStore], away_after: Callable[[], float]) -> None:
        self._make_store, self._made = store, None
        self._away_after = away_after   # the app's: a payload says "away" when its notice does
        self._lock = threading.Lock()
        self._payloads: OrderedDict[tuple, bytes] = OrderedDict()
        self._watches: dict[str, _Watch] = {}
        self._latest: dict[str, int] = {}   # the version of each room's last payload built

    def _store(self) -> RoomStore:
        # asked once: outside a script run, Streamlit warns at every call of a cached function
        if self._made is None:
            self._made = self._make_store()
        return self._made

    # ------------------------------------------------------------------ the payload, once per version
    def current(self, code: str) -> tuple[int, tuple[int, bool] | None, bytes, int]:
        """The room's (version, question key, payload bytes, figures' generation); the bytes object
        is the same for every call while the room and its figures are unchanged. ``RoomError`` as
        the store raises it."""
        # no session id: no seat is taken or kept; ``since`` the version built last: the view (up to
        # megabytes of JSON) is parsed only when it is new
        f = self._store().follow(code, since=self._latest.get(code, -1))
        qkey = _question_key(f.question)
        gen, digest, steps = self._store().steps(code)
        key = (code, f.version, qkey, f.instructor_idle_s > self._away_after(), gen)
        with self._lock:
            body = self._payloads.get(key)
            if body is not None:
                self._payloads.move_to_end(key)
                return f.version, qkey, body, gen
        if f.view is None:
            f = self._store().follow(code, since=-1)
            qkey = _question_key(f.question)
            key = (code, f.version, qkey, f.instructor_idle_s > self._away_after(), gen)
        view = f.view or {}
        q = f.question
        meta = json.dumps({
            "version": f.version,
            "page": view.get("page", ""),
            "spec": view.get("spec"),
            "state": view.get("state") or {},
            "frame": frame_digest(view),
            "question": None if q is None else {
                "qid": q.qid, "prompt": q.prompt, "options": list(q.options), "revealed": q.revealed,
                "answer": q.answer, "explanation": q.explanation},
            "away": key[3],
            "figures": gen,
        }, separators=(",", ":"))
        if not view or digest != view_digest(view):
            steps = "{}"   # kept for another view (the instructor's page has still to draw this one's)
        body = f'{meta[:-1]},"steps":{steps}}}'.encode()
        with self._lock:
            body = self._payloads.setdefault(key, body)   # a concurrent builder's bytes win: one object
            self._latest[code] = f.version
            while len(self._latest) > MAX_PAYLOADS:
                self._latest.pop(next(iter(self._latest)))
            self._payloads.move_to_end(key)
            while len(self._payloads) > MAX_PAYLOADS:
                self._payloads.popitem(last=False)
        return f.version, qkey, body, gen

    # ------------------------------------------------------------------ waiting without a thread each
    def _watch_room(self, code: str, watch: _Watch) -> None:
        """The room's watcher: builds each new payload once and wakes the waiting requests with it."""
        while True:
            with self._lock:
                if not watch.waiters and time.monotonic() - watch.asked_at > WAIT_S:
                    del self._watches[code]
                    return
            try:
                latest = self.current(code)
            except RoomError:
                latest = None   # gone or unreachable: the requests ask the store and say so
            with self._lock:
                changed = latest != watch.latest
                watch.latest = latest
                waiters = list(watch.waiters) if changed else []
            for loop, event in waiters:
                loop.call_soon_threadsafe(event.set)
            if latest is None:
                time.sleep(0.5)
                continue
            try:   # a timeout now and then: the instructor's "away" changes with time alone
                self._store().wait(code, latest[0], latest[1], self._away_after() / 12, steps=latest[3])
            except RoomError:
                pass

    def _watched(self, code: str):
        """The payload the room's watcher built last (None without one)."""
        with self._lock:
            watch = self._watches.get(code)
            return None if watch is None else watch.latest

    async def _changed(self, code: str, seen, timeout: float) -> None:
        """Return when the room's watcher has a payload other than ``seen`` (or after ``timeout``)."""
        event, loop = asyncio.Event(), asyncio.get_running_loop()
        with self._lock:
            watch = self._watches.get(code)
            if watch is None:
                watch = self._watches[code] = _Watch()
            watch.asked_at = time.monotonic()
            if watch.latest is not None and watch.latest != seen:
                return   # built between the caller's look and now
            watch.waiters.add((loop, event))
            if watch.thread is None:
                watch.thread = threading.Thread(target=self._watch_room, args=(code, watch),
                                                name=f"svmviz-step-feed-{code}", daemon=True)
                watch.thread.start()
        try:
            await asyncio.wait_for(event.wait(), timeout)
        except asyncio.TimeoutError:
            pass
        finally:
            with self._lock:
                watch.waiters.discard((loop, event))

    async def respond(self, code: str, since: int | None, question, wait_s: float = WAIT_S,
                      figures: int | None = None) -> tuple[int, bytes]:
        """(status, body) for a request: the room's payload once its version is not ``since``, its
        question not ``question`` (``"absent"``: not compared) or its figures' generation not
        ``figures`` (None: not compared), else after ``wait_s`` seconds. While the room is watched,
        the watcher's payload answers without asking the store."""
        deadline = time.monotonic() + wait_s
        while True:
            got = self._watched(code)
            if got is None:
                try:
                    got = await asyncio.to_thread(self.current, code)
                except RoomNotFoundError:
                    return 404, b'{"ended":true}'
                except RoomStoreUnavailableError:
                    return 503, b'{"unavailable":true}'
                except RoomError:
                    return 404, b'{"ended":true}'
            version, qkey, body, gen = got
            remaining = deadline - time.monotonic()
            if (since is None or version != since or (question != "absent" and qkey != question)
                    or (figures is not None and gen != figures) or remaining <= 0):
                return 200, body
            await self._changed(code, got, remaining)

    def _keep_seat(self, code: str, sid: str, address: str | None) -> int | None:
        """A student's request keeps their seat, as their session's poll did (``RoomStore.follow``);
        an HTTP status when it cannot (the class ended: 404, the store away: 503, the seat gone or
        refused: 409, the session then says why)."""
        try:
            self._store().follow(code, sid, since=self._latest.get(code, -1), address=address)
        except RoomNotFoundError:
            return 404
        except RoomStoreUnavailableError:
            return 503
        except RoomError:
            return 409
        return None

    async def endpoint(self, request: Request) -> Response:
        try:
            code = normalize_code(request.path_params["code"])
            since = parse_since(request.query_params.get("since"))
            question = parse_question(request.query_params.get("q"))
            figures = parse_since(request.query_params.get("f"))
            sid = request.query_params.get("sid")
            if sid is not None and not self._store().valid_client(sid):
                raise ValueError("sid is no client id of this server")
        except (RoomNotFoundError, ValueError) as exc:
            return JSONResponse({"error": str(exc)[:200]}, status_code=400)
        if sid is not None:
            address = request_address(request.headers, request.client.host if request.client else None)
            refused = await asyncio.to_thread(self._keep_seat, code, sid, address)
            if refused is not None:
                return JSONResponse({"seat": refused}, status_code=refused, headers={"Cache-Control": "no-store"})
        # A follower that leaves (its tab closed, its page gone) ends its wait: otherwise the request
        # waits out its WAIT_S for nobody, and a server asked to stop waits for it (uvicorn's graceful
        # shutdown lets every running request finish first).
        answer = asyncio.ensure_future(self.respond(code, since, question, figures=figures))
        gone = asyncio.ensure_future(_disconnected(request))
        try:
            done, _ = await asyncio.wait({answer, gone}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            gone.cancel()
            answer.cancel()   # (nothing, once it answered)
        if answer not in done:
            return Response(status_code=499)   # nobody reads it (nginx's "client closed request")
        status, body = answer.result()
        return Response(body, status_code=status, media_type="application/json",
                        headers={"Cache-Control": "no-store"})

    def routes(self) -> list[Route]:
        ROUTED.set()
        return [Route(STEP_PATH, self.endpoint, methods=["GET"]), Route(PLOTLY_PATH, plotly_js, methods=["GET"])]


async def _disconnected(request: Request) -> None:
    """Return once the request's client has gone (the ASGI ``http.disconnect`` message)."""
    while (await request.receive())["type"] != "http.disconnect":
        pass


@functools.cache
def _plotly_bytes() -> tuple[bytes, bytes]:
    """Plotly's JavaScript as it is and gzipped (4.8 and 1.5 MB), made once per process."""
    from plotly.offline import get_plotlyjs

    raw = get_plotlyjs().encode()
    return raw, gzip.compress(raw, 6)


async def plotly_js(request: Request) -> Response:
    raw, packed = await asyncio.to_thread(_plotly_bytes)
    headers = {"Cache-Control": "public, max-age=31536000, immutable", "Vary": "Accept-Encoding"}
    if "gzip" in request.headers.get("accept-encoding", ""):
        return Response(packed, media_type="text/javascript", headers={**headers, "Content-Encoding": "gzip"})
    return Response(raw, media_type="text/javascript", headers=headers)

"""Class rooms: an instructor's view that students follow live, and questions the room answers.

A room has a short **join code** (what students type or open as ``?room=CODE``) and a secret
**instructor token** (``secrets.token_urlsafe``, held only by the session that created the room and
never part of a student link). Reading a room needs the code; changing it (publishing a view,
posing a question, revealing the answer, closing it) needs the token, compared with
``hmac.compare_digest``. A student link cannot become an instructor link by editing it: the link
holds no token, and a token is 256 random bits.

What a room holds (all bounded, all plain JSON values):

- the **view**: the instructor's page and app state (data spec, or the data itself when it was
  uploaded or drawn; split; bound parameters; step), with a version counter that grows by one on
  every publish. At most ``MAX_VIEW_BYTES`` of JSON.
- the **students**: anonymous session ids (random strings the app makes; no names), each with
  when it last polled. At most ``max_students`` at a time; a student silent for
  ``student_ttl_s`` frees their seat.
- the **question**: a prompt, at most ``MAX_OPTIONS`` options, the right option (hidden from
  students until revealed), an explanation, and one answer per student session (a re-answer
  replaces the previous one).

Join codes, and why guessing one within a lecture fails
-------------------------------------------------------
A code is ``CODE_LENGTH = 8`` symbols drawn by ``secrets.choice`` from a 32-symbol alphabet
(digits 2-9 and the letters without I and O, which read like 1 and 0), shown as ``ABCD-EFGH``:
32^8 = 2^40 ≈ 1.1e12 codes. A server holds at most ``MAX_ROOMS = 200`` rooms. Suppose an
attacker makes 1,000 guesses per second for a whole 2-hour lecture (7.2e6 guesses; far more than
one Streamlit server answers, each guess being a session's round trip): the chance that any guess
names a live room is at most 7.2e6 × 200 / 1.1e12 ≈ 1.3e-3, and a hit only lets them *watch*
that room, never drive it (that needs the token).

Expiry
------
A room lives while its instructor is active: every publish, question, reveal or ``touch``
(the instructor's page sends one with each run) resets its clock; ``idle_ttl_s`` (default two
hours) after the last one the room is gone and its memory freed (expired rooms are swept on every
create and whenever an expired code is asked for). Students polling do not keep a room alive.

The instructor comes back
-------------------------
A reload, a closed and reopened tab or another tab of the instructor's browser starts a new session
that holds no token. The app keeps the token in that browser (its local storage, never a link) and
the new session ``claim``s the room with it: the claim replaces the token by a new one, so the
session that held the old one (another tab still open) can no longer drive. Students see the room
unchanged; a poll tells them how long the instructor has been silent (``Follow.instructor_idle_s``).

Several server processes
------------------------
``InMemoryRoomStore`` keeps rooms in the server process, guarded by one lock: every session of
that process sees the same rooms, and a restart loses them. ``RedisRoomStore``
(``svmviz_app/rooms_redis.py``) keeps them in Redis, with the same semantics: a restarted server
finds its rooms again, and several server processes (behind a load balancer with sticky sessions:
a Streamlit session lives on the process that opened its websocket) share them. ``open_store``
picks the backend from the server's configuration (``SVMVIZ_ROOMS``).

Pages never see the backend: the app talks to a ``RoomStore`` only.
"""

from __future__ import annotations

import hmac
import json
import secrets
import threading
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from svmviz.errors import SvmvizError

ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"   # 32 symbols, no 0/O or 1/I
CODE_LENGTH = 8
MAX_ROOMS = 200
MAX_STUDENTS = 100
MAX_VIEW_BYTES = 4_000_000      # a view with uploaded data: ~40,000 two-feature samples as JSON
MAX_OPTIONS = 12
MAX_TEXT = 2_000                # characters of a prompt, an option or an explanation
IDLE_TTL_S = 2 * 3600.0
STUDENT_TTL_S = 60.0
RESUME_TTL_S = 600.0            # a resume code lets another device claim the room once, this long


class RoomError(SvmvizError):
    """A room request that cannot be carried out; the message says why."""


class RoomNotFoundError(RoomError):
    """No live room has this code (mistyped, closed, or expired after inactivity)."""


class RoomAccessError(RoomError):
    """A change to a room without that room's instructor token."""


class RoomFullError(RoomError):
    """The room has as many students as it admits, or the server as many rooms."""


class RoomContentError(RoomError):
    """A view, question or answer the room does not accept (too large, not JSON, no such option)."""


class RoomStoreUnavailableError(RoomError):
    """The shared room store cannot be reached just now (a restart, a network fault): the room
    itself is not lost, the request may be tried again."""


@dataclass(frozen=True)
class PublicQuestion:
    """A question as students see it: the answer and explanation only once revealed."""

    qid: int
    prompt: str
    options: tuple[str, ...]
    revealed: bool
    answer: int | None = None
    explanation: str | None = None


@dataclass(frozen=True)
class Tally:
    qid: int
    counts: tuple[int, ...]   # answers per option
    revealed: bool
    on_reveal: Any = None     # what the instructor's app asked to be kept with the question

    @property
    def n_answers(self) -> int:
        return sum(self.counts)


@dataclass(frozen=True)
class Follow:
    """What a poll returns: the view's version, the view itself unless the caller already holds
    that version (``view`` is None then), and the current question."""

    version: int
    view: dict | None
    question: PublicQuestion | None
    n_students: int
    instructor_idle_s: float = 0.0   # since the instructor's last action or heartbeat


def normalize_code(code: str) -> str:
    """A code as typed (any case, spaces or dashes) in its stored form; a ``RoomNotFoundError``
    for something that cannot be a code."""
    if not isinstance(code, str):
        raise RoomNotFoundError("that is not a class code: a code is 8 letters and digits, e.g. ABCD-EF23")
    c = "".join(ch for ch in code.upper() if ch not in " -")
    if len(c) != CODE_LENGTH or any(ch not in ALPHABET for ch in c):
        raise RoomNotFoundError(f"{code[:40]!r} is not a class code: a code is {CODE_LENGTH} letters and "
                                "digits, e.g. ABCD-EF23")
    return c


def new_resume_code() -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))


def resume_form(typed: str) -> str:
    """A resume code as typed (any case, spaces or dashes) in its stored form."""
    return "".join(ch for ch in typed.upper() if ch not in " -")


def display_code(code: str) -> str:
    c = normalize_code(code)
    return f"{c[:4]}-{c[4:]}"


class RoomStore(ABC):
    """What the app needs from a room store; a backend implements these and nothing else.

    Every method raises ``RoomNotFoundError`` for an unknown or expired code, and the
    token-taking ones ``RoomAccessError`` for a token that is not the room's."""

    @abstractmethod
    def create_room(self) -> tuple[str, str]:
        """A new room: ``(join code, instructor token)``."""

    @abstractmethod
    def touch(self, code: str, token: str) -> None:
        """The instructor is still there: renew the room's idle clock."""

    @abstractmethod
    def claim(self, code: str, token: str) -> str:
        """The instructor's new session takes the room over with the room's token or its resume
        code (``resume``): returns a new token, and the old one drives the room no longer."""

    @abstractmethod
    def resume(self, code: str, token: str) -> str:
        """A resume code: the instructor types it on another device to claim the room there. It
        works once, within ``RESUME_TTL_S``; a new one replaces it. Eight symbols of the join
        codes' alphabet (2^40): guessing it in ten minutes is as hopeless as guessing a join code
        in a lecture (see above), and a guess needs the join code as well."""

    @abstractmethod
    def publish(self, code: str, token: str, view: Mapping[str, Any]) -> int:
        """Make ``view`` (JSON values) the room's view; returns its new version."""

    @abstractmethod
    def follow(self, code: str, session_id: str | None = None, since: int | None = None) -> Follow:
        """The room's current version, view (None when it is still ``since``) and question. With a
        ``session_id`` the caller is a student: the first poll takes a seat (``RoomFullError``
        when there is none), every poll keeps it."""

    def wait(self, code: str, since: int | None, question: tuple[int, bool] | None, timeout: float) -> None:
        """Return once the room's version is not ``since``, its question's ``(qid, revealed)`` is
        not ``question`` (None: no question), it is gone, or after ``timeout`` seconds. A student's
        poll waits here for a change instead of asking again. This default asks every 0.1 s; a
        backend that can be told of changes (a condition, a pub/sub channel) returns at once."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                f = self.follow(code, since=since)
            except RoomError:
                return
            q = None if f.question is None else (f.question.qid, f.question.revealed)
            remaining = deadline - time.monotonic()
            if f.version != since or q != question or remaining <= 0:
                return
            time.sleep(min(0.1, remaining))

    @abstractmethod
    def leave(self, code: str, session_id: str) -> None:
        """A student leaves (detaches): their seat is freed; their answer to the current question
        stays counted."""

    @abstractmethod
    def pose(self, code: str, token: str, prompt: str, options: Sequence[str], answer: int,
             explanation: str = "", on_reveal: Any = None) -> int:
        """A new question (replacing any earlier one and its answers); returns its id.
        ``on_reveal`` (JSON values) is kept with it for the instructor (``tally`` and ``reveal``
        return it): what the reveal does, known to any session that claims the room meanwhile."""

    @abstractmethod
    def answer(self, code: str, session_id: str, qid: int, option: int) -> None:
        """A student's answer to question ``qid``; a second answer replaces the first."""

    @abstractmethod
    def tally(self, code: str, token: str) -> Tally:
        """Answers per option of the current question (the instructor's live count)."""

    @abstractmethod
    def reveal(self, code: str, token: str) -> Tally:
        """Show the answer and explanation to everyone; answers are closed."""

    @abstractmethod
    def close(self, code: str, token: str) -> None:
        """End the class: the room and everything in it are gone."""


@dataclass
class _Question:
    qid: int
    prompt: str
    options: tuple[str, ...]
    answer: int
    explanation: str
    on_reveal: Any = None
    answers: dict[str, int] = field(default_factory=dict)
    revealed: bool = False

    def public(self) -> PublicQuestion:
        if self.revealed:
            return PublicQuestion(self.qid, self.prompt, self.options, True, self.answer, self.explanation)
        return PublicQuestion(self.qid, self.prompt, self.options, False)

    def tally(self) -> Tally:
        counts = [0] * len(self.options)
        for v in self.answers.values():
            counts[v] += 1
        return Tally(self.qid, tuple(counts), self.revealed, self.on_reveal)


@dataclass
class _Room:
    token: str
    active_at: float
    view_json: str = "{}"
    version: int = 0
    students: dict[str, float] = field(default_factory=dict)   # session id -> last poll
    question: _Question | None = None
    next_qid: int = 1
    resume: tuple[str, float] | None = None   # (resume code, valid until)


def _text(s: Any, what: str) -> str:
    if not isinstance(s, str):
        raise RoomContentError(f"the {what} must be text")
    if len(s) > MAX_TEXT:
        raise RoomContentError(f"the {what} is longer than {MAX_TEXT} characters")
    return s


def view_json(view: Mapping[str, Any]) -> str:
    """A view as the room stores it (compact JSON), or a ``RoomContentError`` saying why not."""
    if not isinstance(view, Mapping):
        raise RoomContentError("a view is a mapping of JSON values")
    try:
        text = json.dumps(view, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError) as exc:
        raise RoomContentError(f"a view must hold JSON values only ({exc})") from None
    if len(text) > MAX_VIEW_BYTES:
        raise RoomContentError(f"this view is {len(text) / 1e6:.1f} MB, more than a class room holds "
                               f"({MAX_VIEW_BYTES / 1e6:.0f} MB): use a smaller or built-in data set")
    return text


def checked_question(prompt: Any, options: Sequence[Any], answer: Any,
                     explanation: Any) -> tuple[str, tuple[str, ...], int, str]:
    """A question's parts as a room accepts them, or a ``RoomContentError`` saying why not."""
    prompt, explanation = _text(prompt, "question"), _text(explanation, "explanation")
    opts = tuple(_text(o, "option") for o in options)
    if not 2 <= len(opts) <= MAX_OPTIONS:
        raise RoomContentError(f"a question has 2 to {MAX_OPTIONS} options, not {len(opts)}")
    if isinstance(answer, bool) or not isinstance(answer, int) or not 0 <= answer < len(opts):
        raise RoomContentError(f"the answer must be an option's index (0 to {len(opts) - 1})")
    return prompt, opts, int(answer), explanation


def check_session_id(session_id: Any) -> None:
    if not isinstance(session_id, str) or not session_id or len(session_id) > 200:
        raise RoomContentError("a student session id must be a non-empty string")


def check_option(option: Any, n_options: int) -> None:
    if isinstance(option, bool) or not isinstance(option, int) or not 0 <= option < n_options:
        raise RoomContentError(f"no option {option!r} in this question")


def not_found(code: str, idle_ttl_s: float) -> RoomNotFoundError:
    return RoomNotFoundError(f"no class with code {display_code(code)} is running (mistyped, ended, "
                             f"or closed after {idle_ttl_s / 60:g} minutes without the instructor)")


NOT_INSTRUCTOR = "only the instructor who started this class can change it"
NO_QUESTION = "no question has been asked in this class"
QUESTION_CLOSED = "this question is no longer open: the instructor asked another one"
ANSWERS_CLOSED = "the answer has been revealed: answers are closed"


def full_room(max_students: int) -> RoomFullError:
    return RoomFullError(f"this class is full: it admits {max_students} students; ask "
                         "the instructor for the projected view")


def full_server(max_rooms: int) -> RoomFullError:
    return RoomFullError(f"this server runs {max_rooms} classes already; try again later")


class InMemoryRoomStore(RoomStore):
    """Rooms in this process's memory behind one lock (every session of a Streamlit server shares
    one instance). ``clock`` returns seconds (``time.monotonic``; tests pass their own)."""

    def __init__(self, max_rooms: int = MAX_ROOMS, max_students: int = MAX_STUDENTS,
                 idle_ttl_s: float = IDLE_TTL_S, student_ttl_s: float = STUDENT_TTL_S,
                 clock: Callable[[], float] = time.monotonic):
        self.max_rooms, self.max_students = int(max_rooms), int(max_students)
        self.idle_ttl_s, self.student_ttl_s = float(idle_ttl_s), float(student_ttl_s)
        self._clock = clock
        self._rooms: dict[str, _Room] = {}
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)   # notified when a view, question or room changes

    def __len__(self) -> int:
        """Live rooms (expired ones are swept first)."""
        with self._lock:
            self._sweep()
            return len(self._rooms)

    # -------------------------------------------------------------- internals (lock held)
    def _sweep(self) -> None:
        now = self._clock()
        for code in [c for c, r in self._rooms.items() if now - r.active_at >= self.idle_ttl_s]:
            del self._rooms[code]

    def _room(self, code: str) -> tuple[str, _Room]:
        c = normalize_code(code)
        room = self._rooms.get(c)
        if room is not None and self._clock() - room.active_at >= self.idle_ttl_s:
            del self._rooms[c]
            room = None
        if room is None:
            raise not_found(c, self.idle_ttl_s)
        return c, room

    def _owned(self, code: str, token: str) -> _Room:
        _, room = self._room(code)
        if not isinstance(token, str) or not hmac.compare_digest(token.encode(), room.token.encode()):
            raise RoomAccessError(NOT_INSTRUCTOR)
        room.active_at = self._clock()
        return room

    def _seat(self, room: _Room, session_id: str) -> None:
        check_session_id(session_id)
        now = self._clock()
        if session_id not in room.students:
            for sid in [s for s, t in room.students.items() if now - t >= self.student_ttl_s]:
                del room.students[sid]
            if len(room.students) >= self.max_students:
                raise full_room(self.max_students)
        room.students[session_id] = now

    # -------------------------------------------------------------- the interface
    def create_room(self) -> tuple[str, str]:
        with self._lock:
            self._sweep()
            if len(self._rooms) >= self.max_rooms:
                raise full_server(self.max_rooms)
            code = "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))
            while code in self._rooms:
                code = "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))
            token = secrets.token_urlsafe(32)
            self._rooms[code] = _Room(token=token, active_at=self._clock())
            return code, token

    def touch(self, code: str, token: str) -> None:
        with self._lock:
            self._owned(code, token)

    def claim(self, code: str, token: str) -> str:
        with self._lock:
            _, room = self._room(code)
            r = room.resume
            if (r is not None and isinstance(token, str) and self._clock() < r[1]
                    and hmac.compare_digest(resume_form(token).encode(), r[0].encode())):
                room.resume = None   # a resume code works once
                token = room.token   # and stands for the token
            room = self._owned(code, token)
            room.token = secrets.token_urlsafe(32)
            return room.token

    def resume(self, code: str, token: str) -> str:
        with self._lock:
            room = self._owned(code, token)
            room.resume = (new_resume_code(), self._clock() + RESUME_TTL_S)
            return room.resume[0]

    def publish(self, code: str, token: str, view: Mapping[str, Any]) -> int:
        text = view_json(view)
        with self._lock:
            room = self._owned(code, token)
            if text != room.view_json:
                room.view_json = text
                room.version += 1
                self._changed.notify_all()
            return room.version

    def follow(self, code: str, session_id: str | None = None, since: int | None = None) -> Follow:
        with self._lock:
            _, room = self._room(code)
            if session_id is not None:
                self._seat(room, session_id)
            version, text = room.version, room.view_json
            question = room.question.public() if room.question is not None else None
            n, idle = len(room.students), self._clock() - room.active_at
        view = None if since == version else json.loads(text)   # parsed outside the lock
        return Follow(version, view, question, n, idle)

    def wait(self, code: str, since: int | None, question: tuple[int, bool] | None, timeout: float) -> None:
        c, deadline = normalize_code(code), time.monotonic() + timeout   # (tests' clocks drive expiry only)
        with self._lock:
            while True:
                room = self._rooms.get(c)
                if room is None or room.version != since:
                    return
                q = room.question
                if (None if q is None else (q.qid, q.revealed)) != question:
                    return
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return
                self._changed.wait(remaining)

    def leave(self, code: str, session_id: str) -> None:
        with self._lock:
            _, room = self._room(code)
            room.students.pop(session_id, None)

    def pose(self, code: str, token: str, prompt: str, options: Sequence[str], answer: int,
             explanation: str = "", on_reveal: Any = None) -> int:
        prompt, opts, answer, explanation = checked_question(prompt, options, answer, explanation)
        on_reveal = json.loads(view_json({"v": on_reveal}))["v"]   # JSON values, a copy
        with self._lock:
            room = self._owned(code, token)
            qid = room.next_qid
            room.next_qid += 1
            room.question = _Question(qid, prompt, opts, answer, explanation, on_reveal)
            self._changed.notify_all()
            return qid

    def answer(self, code: str, session_id: str, qid: int, option: int) -> None:
        with self._lock:
            _, room = self._room(code)
            q = room.question
            if q is None or q.qid != qid:
                raise RoomContentError(QUESTION_CLOSED)
            if q.revealed:
                raise RoomContentError(ANSWERS_CLOSED)
            check_option(option, len(q.options))
            self._seat(room, session_id)
            q.answers[session_id] = int(option)

    def tally(self, code: str, token: str) -> Tally:
        with self._lock:
            room = self._owned(code, token)
            if room.question is None:
                raise RoomContentError(NO_QUESTION)
            return room.question.tally()

    def reveal(self, code: str, token: str) -> Tally:
        with self._lock:
            room = self._owned(code, token)
            if room.question is None:
                raise RoomContentError(NO_QUESTION)
            room.question.revealed = True
            self._changed.notify_all()
            return room.question.tally()

    def close(self, code: str, token: str) -> None:
        with self._lock:
            self._owned(code, token)
            del self._rooms[normalize_code(code)]
            self._changed.notify_all()


def open_store(url: str, seats: str = "") -> RoomStore:
    """The room store a server's configuration names (``SVMVIZ_ROOMS``): empty for rooms in this
    process's memory, ``redis://host:port/db`` (``rediss://``, ``unix://``) for rooms in Redis;
    ``seats`` (``SVMVIZ_ROOM_SEATS``): the students a room admits, ``MAX_STUDENTS`` when empty
    (a hall served by several processes admits more)."""
    try:
        max_students = int(seats) if seats else MAX_STUDENTS
    except ValueError:
        max_students = 0
    if max_students < 1:
        raise ValueError(f"SVMVIZ_ROOM_SEATS={seats[:20]!r}: give the number of students a class admits, e.g. 300")
    if not url:
        return InMemoryRoomStore(max_students=max_students)
    if url.split("://", 1)[0] in ("redis", "rediss", "unix"):
        from svmviz_app.rooms_redis import RedisRoomStore

        return RedisRoomStore(url, max_students=max_students)
    raise ValueError(f"SVMVIZ_ROOMS={url[:80]!r} names no room store: leave it empty (rooms in the server's "
                     "memory) or give a Redis URL, redis://host:6379/0")


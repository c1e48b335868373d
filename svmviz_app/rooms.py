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
- the **students**: anonymous client ids (one per browser, see below; no names), each with when
  it last polled and the network address it came from. At most ``max_students`` at a time, at most
  ``address_seats`` from one address; a student silent for ``student_ttl_s`` (a following browser
  polls every 2 s) frees their seat. The instructor sees the seats (``seats``) and can remove one,
  or every seat of an address (``remove``): a removed client or address takes no seat in that room
  again.
- the **question**: a prompt, at most ``MAX_OPTIONS`` options, the right option (hidden from
  students until revealed), an explanation, and one answer per client (a re-answer replaces the
  previous one).

Clients, and why one laptop cannot take a class's seats
-------------------------------------------------------
A seat and an answer belong to a **client id**, not to a Streamlit session: the store issues it
(``new_client``: random bits and their HMAC under the store's secret, so ``valid_client`` checks
one without storing it) and the browser keeps it, so that every tab and reload of one browser is
one client. A script opening sessions gets a new client id for each only as fast as the store
issues them to its address: ``address_joins`` a minute (a bucket refilled at that rate). Rooms
count per address too: ``address_seats`` seats in a room, ``address_rooms`` rooms at a time. An
unknown address (``None``: a session from the server's own machine) is not limited.

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
(the instructor's page sends one every second while it is open) resets its clock; ``idle_ttl_s``
(default two hours) after the last one the room is gone and its memory freed, and already
``orphan_ttl_s`` (five minutes) after it when no student holds a seat: a class whose instructor
closed the tab and that nobody follows does not hold one of the server's ``max_rooms``. Expired
rooms are swept on every create and whenever an expired code is asked for. Students polling do
not keep a room alive.

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
a Streamlit session lives on the process that opened its websocket) share them. ``svmviz_app.room_stores.open_store``
picks the backend from the server's configuration (``SVMVIZ_ROOMS``).

Pages never see the backend: the app talks to a ``RoomStore`` only.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import math
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
MAX_STEPS_BYTES = 4_000_000     # the figures of a view's steps, as JSON (a larger one is not kept)
MAX_OPTIONS = 12
MAX_TEXT = 2_000                # characters of a prompt, an option or an explanation
IDLE_TTL_S = 2 * 3600.0
ORPHAN_TTL_S = 300.0            # a room nobody follows, its instructor silent this long, is over
STUDENT_TTL_S = 15.0            # a following browser polls every 2 s: a seat silent this long is free
ADDRESS_SEATS = 10              # seats of one network address in a room
ADDRESS_JOINS = 10              # new client ids one address gets a minute (and at once)
ADDRESS_ROOMS = 3               # rooms one address runs at a time
MAX_ADDRESS = 100               # characters of an address (an IPv6 address has at most 45)
RESUME_TTL_S = 600.0            # a resume code lets another device claim the room once, this long


class RoomError(SvmvizError):
    """A room request that cannot be carried out; the message says why."""


class RoomNotFoundError(RoomError):
    """No live room has this code (mistyped, closed, or expired after inactivity)."""


class RoomAccessError(RoomError):
    """A change to a room without that room's instructor token."""


class RoomFullError(RoomError):
    """The room has as many students as it admits, or the server as many rooms."""


class RoomRateError(RoomFullError):
    """One network address asks for more than its share: new client ids, seats or rooms."""


class RoomRemovedError(RoomAccessError):
    """The instructor removed this client (or its address) from the room."""


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
class Seat:
    """A student's seat as the instructor sees it."""

    client: str
    address: str | None
    idle_s: float             # since the seat's last poll


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
    def create_room(self, owner: str | None = None) -> tuple[str, str]:
        """A new room: ``(join code, instructor token)``; ``owner``: the network address asking
        (``RoomRateError`` when it runs ``address_rooms`` already)."""

    @abstractmethod
    def new_client(self, address: str | None = None) -> str:
        """A new client id for a browser at ``address``; a ``RoomRateError`` when that address has
        had ``address_joins`` in the last minute."""

    @abstractmethod
    def _client_secret(self) -> bytes:
        """The key the store's client ids are signed with."""

    def valid_client(self, client: Any) -> bool:
        """Whether ``client`` is a client id this store issued (``new_client``)."""
        return client_valid(self._client_secret(), client)

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
    def follow(self, code: str, session_id: str | None = None, since: int | None = None,
               address: str | None = None) -> Follow:
        """The room's current version, view (None when it is still ``since``) and question. With a
        ``session_id`` (the student's client id) the caller is a student at ``address``: the first
        poll takes a seat (``RoomFullError`` when there is none, ``RoomRateError`` when the address
        holds its share, ``RoomRemovedError`` when the instructor removed it), every poll keeps it."""

    @abstractmethod
    def seats(self, code: str, token: str) -> tuple[Seat, ...]:
        """The room's seats (those polled within ``student_ttl_s``), by address."""

    @abstractmethod
    def remove(self, code: str, token: str, client: str | None = None, address: str | None = None) -> int:
        """The instructor removes a client's seat and answer, or every one of ``address``: they
        take no seat in this room again. Returns the seats freed."""

    @abstractmethod
    def keep_steps(self, code: str, token: str, view_digest: str, text: str) -> int:
        """The instructor's page drew the steps of the view whose digest is ``view_digest``: their
        figures (``text``, JSON) go to every process serving the room, replacing the last ones
        kept; the same ``view_digest`` and ``text`` again change nothing. Returns the room's steps
        generation (it grows with each change). A ``RoomContentError`` above ``MAX_STEPS_BYTES``."""

    @abstractmethod
    def steps(self, code: str) -> tuple[int, str, str]:
        """(steps generation, view digest, JSON) of the steps last kept (0, "", "{}" before any)."""

    def wait(self, code: str, since: int | None, question: tuple[int, bool] | None, timeout: float,
             steps: int | None = None) -> None:
        """Return once the room's version is not ``since``, its question's ``(qid, revealed)`` is
        not ``question`` (None: no question), its steps generation not ``steps`` (None: not
        compared), it is gone, or after ``timeout`` seconds. A student's poll waits here for a
        change instead of asking again. This default asks every 0.1 s; a backend that can be told
        of changes (a condition, a pub/sub channel) returns at once."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                f = self.follow(code, since=since)
                gen = self.steps(code)[0] if steps is not None else None
            except RoomError:
                return
            q = None if f.question is None else (f.question.qid, f.question.revealed)
            remaining = deadline - time.monotonic()
            if f.version != since or q != question or gen != steps or remaining <= 0:
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
    def answer(self, code: str, session_id: str, qid: int, option: int, address: str | None = None) -> None:
        """A student's answer (``session_id``: their client id) to question ``qid``; a second
        answer replaces the first. Answering takes a seat as ``follow`` does."""

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
    owner: str | None = None                  # the address that started it
    view_json: str = "{}"
    version: int = 0
    students: dict[str, float] = field(default_factory=dict)   # client id -> last poll
    addresses: dict[str, str | None] = field(default_factory=dict)   # client id -> its address
    banned: set[str] = field(default_factory=set)   # "c:<client>" and "a:<address>" the instructor removed
    question: _Question | None = None
    next_qid: int = 1
    resume: tuple[str, float] | None = None   # (resume code, valid until)
    steps: tuple[int, str, str] = (0, "", "{}")   # (generation, view digest, JSON) of the steps kept


def _text(s: Any, what: str) -> str:
    if not isinstance(s, str):
        raise RoomContentError(f"the {what} must be text")
    if len(s) > MAX_TEXT:
        raise RoomContentError(f"the {what} is longer than {MAX_TEXT} characters")
    return s


MAX_NAME = 200                  # characters of a page, a key, a feature or class name
MAX_STATE_KEYS = 2_000
MAX_FEATURES = 1_000


def _scalar(v: Any, what: str) -> None:
    if v is None or isinstance(v, (bool, int)):
        return
    if isinstance(v, float):
        if not math.isfinite(v):
            raise RoomContentError(f"{what} is not a finite number")
        return
    if isinstance(v, str):
        if len(v) > MAX_TEXT:
            raise RoomContentError(f"{what} is longer than {MAX_TEXT} characters")
        return
    raise RoomContentError(f"{what} must be a number or text, not {type(v).__name__}")


def _names(v: Any, what: str, n_max: int) -> None:
    if not isinstance(v, list) or len(v) > n_max or not all(isinstance(s, str) and len(s) <= MAX_NAME for s in v):
        raise RoomContentError(f"a view's {what} must be at most {n_max} names of at most {MAX_NAME} characters")


def _check_data(d: Any) -> None:
    """A view's data: ``{"X": rows of numbers, "y": a label per row, feature and class names,
    name, source}`` (``live._data_payload``)."""
    import numpy as np

    keys = {"X", "y", "feature_names", "class_names", "name", "source"}
    if not isinstance(d, Mapping) or set(d) != keys:
        raise RoomContentError(f"a view's data must have exactly {', '.join(sorted(keys))}")
    X, y = d["X"], d["y"]
    if not isinstance(X, list) or not isinstance(y, list) or len(X) != len(y):
        raise RoomContentError("a view's data must hold a label for each row")
    width = len(X[0]) if X and isinstance(X[0], list) else 0
    if X and not (0 < width <= MAX_FEATURES and all(type(r) is list and len(r) == width for r in X)):
        raise RoomContentError(f"a view's data rows must be lists of 1 to {MAX_FEATURES} numbers, all as long")
    if X:
        try:   # every row is a flat list of numbers: an element that is a list or text fails here
            a = np.array(X, dtype=float)
        except (TypeError, ValueError):
            raise RoomContentError("a view's data rows must hold numbers only") from None
        if a.ndim != 2 or not np.isfinite(a).all():
            raise RoomContentError("a view's data rows must hold finite numbers only")
    for v in y:
        _scalar(v, "a label")
    _names(d["feature_names"], "feature names", MAX_FEATURES)
    _names(d["class_names"], "class names", MAX_FEATURES)
    _text(d["name"], "data's name")
    _text(d["source"], "data's source")


def check_view(view: Any) -> None:
    """A view as the app publishes it (``live.current_view``) or a ``RoomContentError``: its parts
    of their kinds and sizes, nothing nested deeper than a data set's rows. A room holds nothing else."""
    if not isinstance(view, Mapping):
        raise RoomContentError("a view is a mapping")
    unknown = set(view) - {"page", "spec", "state", "tally", "data"}
    if unknown:
        raise RoomContentError(f"a view has no part {sorted(map(str, unknown))[0][:40]!r}")
    if "page" in view and not (isinstance(view["page"], str) and len(view["page"]) <= MAX_NAME):
        raise RoomContentError(f"a view's page is a name of at most {MAX_NAME} characters")
    if "spec" in view:
        _text(view["spec"], "data's spec")
    state = view.get("state", {})
    if not isinstance(state, Mapping) or len(state) > MAX_STATE_KEYS:
        raise RoomContentError(f"a view's state is a mapping of at most {MAX_STATE_KEYS} values")
    for k, v in state.items():
        if not isinstance(k, str) or len(k) > MAX_NAME:
            raise RoomContentError(f"a view's state is keyed by names of at most {MAX_NAME} characters")
        _scalar(v, f"the value of {k!r}")
    if "tally" in view:
        t = view["tally"]
        if not (isinstance(t, Mapping) and set(t) == {"code", "qid", "counts"} and isinstance(t["code"], str)
                and len(t["code"]) <= MAX_NAME and isinstance(t["qid"], int) and isinstance(t["counts"], list)
                and len(t["counts"]) <= MAX_OPTIONS and all(isinstance(n, int) for n in t["counts"])):
            raise RoomContentError("a view's tally is a code, a question id and a count per option")
    if "data" in view:
        _check_data(view["data"])


def check_on_reveal(on_reveal: Any) -> Any:
    """What a reveal does (``live._pose``: the step key and its number of steps): None or a short
    list of numbers and text; a copy, or a ``RoomContentError``."""
    if on_reveal is None:
        return None
    if not isinstance(on_reveal, (list, tuple)) or len(on_reveal) > 4:
        raise RoomContentError("what a reveal does is at most 4 numbers or names")
    for v in on_reveal:
        _scalar(v, "what a reveal does")
    return list(on_reveal)


def steps_text(text: Any) -> str:
    """Steps' figures as a room keeps them, or a ``RoomContentError`` saying why not."""
    if not isinstance(text, str) or len(text) > MAX_STEPS_BYTES:
        raise RoomContentError(f"the steps' figures are no text of at most {MAX_STEPS_BYTES:,} characters")
    return text


def view_json(view: Mapping[str, Any]) -> str:
    """A view as the room stores it (compact JSON), or a ``RoomContentError`` saying why not."""
    check_view(view)
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


def check_address(address: Any) -> str | None:
    if address is None:
        return None
    if not isinstance(address, str) or not address or len(address) > MAX_ADDRESS:
        raise RoomContentError("a network address must be a short non-empty string")
    return address


def client_token(secret: bytes) -> str:
    """A new client id: 96 random bits and their HMAC-SHA256 (96 bits of it) under ``secret``."""
    nonce = secrets.token_urlsafe(12)
    return f"{nonce}.{_client_mac(secret, nonce)}"


def _client_mac(secret: bytes, nonce: str) -> str:
    mac = hmac.new(secret, nonce.encode(), hashlib.sha256).digest()[:12]
    return base64.urlsafe_b64encode(mac).decode()


def client_valid(secret: bytes, client: Any) -> bool:
    if not isinstance(client, str) or len(client) > 100 or client.count(".") != 1:
        return False
    nonce, mac = client.split(".")
    return hmac.compare_digest(_client_mac(secret, nonce).encode(), mac.encode())


def take_join(bucket: tuple[float, float] | None, now: float, per_minute: int) -> tuple[float, float] | None:
    """A join from an address's bucket ``(tokens, time)``: the bucket after it, or None when the
    address has had ``per_minute`` joins in the last minute (it refills at that rate)."""
    tokens, then = bucket if bucket is not None else (float(per_minute), now)
    tokens = min(float(per_minute), tokens + (now - then) * per_minute / 60.0)
    return None if tokens < 1.0 else (tokens - 1.0, now)


def check_option(option: Any, n_options: int) -> None:
    if isinstance(option, bool) or not isinstance(option, int) or not 0 <= option < n_options:
        raise RoomContentError(f"no option {option!r} in this question")


def not_found(code: str, idle_ttl_s: float) -> RoomNotFoundError:
    return RoomNotFoundError(f"no class with code {display_code(code)} is running (mistyped, ended, "
                             f"or closed after {idle_ttl_s / 60:g} minutes without the instructor, "
                             f"{ORPHAN_TTL_S / 60:g} when nobody followed it)")


NOT_INSTRUCTOR = "only the instructor who started this class can change it"
NO_QUESTION = "no question has been asked in this class"
QUESTION_CLOSED = "this question is no longer open: the instructor asked another one"
ANSWERS_CLOSED = "the answer has been revealed: answers are closed"


REMOVED = ("the instructor removed this device from the class: you can still explore on your own, "
           "or ask the instructor to let you back in")


def full_room(max_students: int) -> RoomFullError:
    return RoomFullError(f"this class is full: it admits {max_students} students. Tell the instructor: the "
                         "Live class box lists the seats and frees those nobody uses; then join again with "
                         "the same code. Meanwhile follow the projector.")


def full_address(address_seats: int) -> RoomRateError:
    return RoomRateError(f"your network holds {address_seats} seats of this class already, its share: a "
                         "student on another network (or the instructor, who can free seats in the Live "
                         "class box) can still join; try again once a seat is free")


def too_many_joins(per_minute: int) -> RoomRateError:
    return RoomRateError(f"{per_minute} new devices joined from your network within a minute, its share: "
                         "wait a minute, then join again with the same code")


def too_many_rooms(address_rooms: int) -> RoomRateError:
    return RoomRateError(f"your network runs {address_rooms} classes on this server already: end one (Live "
                         "class, End the class) before starting another; a class nobody follows ends by "
                         f"itself {ORPHAN_TTL_S / 60:g} minutes after its instructor's page closed")


def full_server(max_rooms: int) -> RoomFullError:
    return RoomFullError(f"this server runs {max_rooms} classes already; a class nobody follows ends "
                         f"{ORPHAN_TTL_S / 60:g} minutes after its instructor left: try again in a few minutes")


class InMemoryRoomStore(RoomStore):
    """Rooms in this process's memory behind one lock (every session of a Streamlit server shares
    one instance). ``clock`` returns seconds (``time.monotonic``; tests pass their own)."""

    def __init__(self, max_rooms: int = MAX_ROOMS, max_students: int = MAX_STUDENTS,
                 idle_ttl_s: float = IDLE_TTL_S, student_ttl_s: float = STUDENT_TTL_S,
                 clock: Callable[[], float] = time.monotonic, orphan_ttl_s: float = ORPHAN_TTL_S,
                 address_seats: int = ADDRESS_SEATS, address_joins: int = ADDRESS_JOINS,
                 address_rooms: int = ADDRESS_ROOMS):
        self.max_rooms, self.max_students = int(max_rooms), int(max_students)
        self.idle_ttl_s, self.student_ttl_s = float(idle_ttl_s), float(student_ttl_s)
        self.orphan_ttl_s = float(orphan_ttl_s)
        self.address_seats, self.address_joins, self.address_rooms = int(address_seats), int(address_joins), int(address_rooms)
        self._clock = clock
        self._secret = secrets.token_bytes(32)
        self._joins: dict[str, tuple[float, float]] = {}   # address -> its join bucket (tokens, time)
        self._rooms: dict[str, _Room] = {}
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)   # notified when a view, question or room changes

    def __len__(self) -> int:
        """Live rooms (expired ones are swept first)."""
        with self._lock:
            self._sweep()
            return len(self._rooms)

    # -------------------------------------------------------------- internals (lock held)
    def _expired(self, room: _Room, now: float) -> bool:
        silent = now - room.active_at
        return silent >= self.idle_ttl_s or (silent >= self.orphan_ttl_s and
                                             all(now - t >= self.student_ttl_s for t in room.students.values()))

    def _sweep(self) -> None:
        now = self._clock()
        for code in [c for c, r in self._rooms.items() if self._expired(r, now)]:
            del self._rooms[code]

    def _room(self, code: str) -> tuple[str, _Room]:
        c = normalize_code(code)
        room = self._rooms.get(c)
        if room is not None and self._expired(room, self._clock()):
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

    def _free(self, room: _Room, now: float) -> None:
        """Free the seats silent for ``student_ttl_s``."""
        for sid in [s for s, t in room.students.items() if now - t >= self.student_ttl_s]:
            del room.students[sid]
            room.addresses.pop(sid, None)

    def _seat(self, room: _Room, session_id: str, address: str | None) -> None:
        check_session_id(session_id)
        address = check_address(address)
        if f"c:{session_id}" in room.banned or (address is not None and f"a:{address}" in room.banned):
            raise RoomRemovedError(REMOVED)
        now = self._clock()
        self._free(room, now)
        if session_id not in room.students:
            if len(room.students) >= self.max_students:
                raise full_room(self.max_students)
            if address is not None and sum(a == address for a in room.addresses.values()) >= self.address_seats:
                raise full_address(self.address_seats)
        room.students[session_id] = now
        room.addresses[session_id] = address

    # -------------------------------------------------------------- the interface
    def create_room(self, owner: str | None = None) -> tuple[str, str]:
        owner = check_address(owner)
        with self._lock:
            self._sweep()
            if owner is not None and sum(r.owner == owner for r in self._rooms.values()) >= self.address_rooms:
                raise too_many_rooms(self.address_rooms)
            if len(self._rooms) >= self.max_rooms:
                raise full_server(self.max_rooms)
            code = "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))
            while code in self._rooms:
                code = "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))
            token = secrets.token_urlsafe(32)
            self._rooms[code] = _Room(token=token, active_at=self._clock(), owner=owner)
            return code, token

    def new_client(self, address: str | None = None) -> str:
        address = check_address(address)
        if address is not None:
            with self._lock:
                now = self._clock()
                if len(self._joins) > 10_000:   # buckets full again tell nothing: forget them
                    self._joins = {a: b for a, b in self._joins.items() if now - b[1] < 60.0}
                bucket = take_join(self._joins.get(address), now, self.address_joins)
                if bucket is None:
                    raise too_many_joins(self.address_joins)
                self._joins[address] = bucket
        return client_token(self._secret)

    def _client_secret(self) -> bytes:
        return self._secret

    def seats(self, code: str, token: str) -> tuple[Seat, ...]:
        with self._lock:
            room = self._owned(code, token)
            now = self._clock()
            self._free(room, now)
            return tuple(sorted((Seat(c, room.addresses.get(c), now - t) for c, t in room.students.items()),
                                key=lambda s: (s.address or "", s.idle_s)))

    def remove(self, code: str, token: str, client: str | None = None, address: str | None = None) -> int:
        address = check_address(address)
        with self._lock:
            room = self._owned(code, token)
            gone = [c for c in room.students if c == client or (address is not None and room.addresses.get(c) == address)]
            if client is not None:
                check_session_id(client)
                room.banned.add(f"c:{client}")
            if address is not None:
                room.banned.add(f"a:{address}")
            for c in gone:
                del room.students[c]
                room.addresses.pop(c, None)
            if room.question is not None:
                for c in [c for c in room.question.answers if c in gone or c == client]:
                    del room.question.answers[c]
            return len(gone)

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

    def keep_steps(self, code: str, token: str, view_digest: str, text: str) -> int:
        text = steps_text(text)
        with self._lock:
            room = self._owned(code, token)
            gen, digest, old = room.steps
            if (digest, old) != (view_digest, text):
                room.steps = (gen + 1, str(view_digest), text)
                self._changed.notify_all()
            return room.steps[0]

    def steps(self, code: str) -> tuple[int, str, str]:
        with self._lock:
            _, room = self._room(code)
            return room.steps

    def follow(self, code: str, session_id: str | None = None, since: int | None = None,
               address: str | None = None) -> Follow:
        with self._lock:
            _, room = self._room(code)
            if session_id is not None:
                self._seat(room, session_id, address)
            else:
                self._free(room, self._clock())
            version, text = room.version, room.view_json
            question = room.question.public() if room.question is not None else None
            n, idle = len(room.students), self._clock() - room.active_at
        view = None if since == version else json.loads(text)   # parsed outside the lock
        return Follow(version, view, question, n, idle)

    def wait(self, code: str, since: int | None, question: tuple[int, bool] | None, timeout: float,
             steps: int | None = None) -> None:
        c, deadline = normalize_code(code), time.monotonic() + timeout   # (tests' clocks drive expiry only)
        with self._lock:
            while True:
                room = self._rooms.get(c)
                if room is None or room.version != since:
                    return
                q = room.question
                if (None if q is None else (q.qid, q.revealed)) != question:
                    return
                if steps is not None and room.steps[0] != steps:
                    return
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return
                self._changed.wait(remaining)

    def leave(self, code: str, session_id: str) -> None:
        with self._lock:
            _, room = self._room(code)
            room.students.pop(session_id, None)
            room.addresses.pop(session_id, None)

    def pose(self, code: str, token: str, prompt: str, options: Sequence[str], answer: int,
             explanation: str = "", on_reveal: Any = None) -> int:
        prompt, opts, answer, explanation = checked_question(prompt, options, answer, explanation)
        on_reveal = check_on_reveal(on_reveal)
        with self._lock:
            room = self._owned(code, token)
            qid = room.next_qid
            room.next_qid += 1
            room.question = _Question(qid, prompt, opts, answer, explanation, on_reveal)
            self._changed.notify_all()
            return qid

    def answer(self, code: str, session_id: str, qid: int, option: int, address: str | None = None) -> None:
        with self._lock:
            _, room = self._room(code)
            q = room.question
            if q is None or q.qid != qid:
                raise RoomContentError(QUESTION_CLOSED)
            if q.revealed:
                raise RoomContentError(ANSWERS_CLOSED)
            check_option(option, len(q.options))
            self._seat(room, session_id, address)
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

"""Class rooms in Redis: the same rooms as ``InMemoryRoomStore``, outside the server process, so
that a restarted server finds them again and several server processes share them.

Layout (every key under a prefix, ``svmviz:`` by default; one Redis database, not a cluster: a
script touches the keys of one room and the list of rooms)::

    room:<code>       hash     token (SHA-256 of the instructor token), view (JSON), version,
                               active (the instructor's last action, seconds), nextq, owner
                               (the address that started it, '' for none), steps (the figures
                               of a view's steps, JSON), steps_digest (that view's), steps_gen
    q:<code>          hash     the open question: qid, prompt, options (JSON), answer,
                               explanation, revealed
    students:<code>   zset     student client id -> last poll (seconds)
    addr:<code>       hash     student client id -> its network address ('' for none)
    banned:<code>     set      "c:<client id>", "a:<address>" the instructor removed
    answers:<code>    hash     student client id -> option, for the open question
    rooms             zset     code -> active: the server's rooms, for the room cap and the sweep
    joins:<address>   hash     the address's join bucket: tokens, t (expires after two minutes)
    secret            string   the key client ids are signed with (one for every server process)
    changed:<code>    channel  a message on every new version, question, reveal, steps or close

Every change is one Lua script, so it is atomic as the in-memory store's lock makes it: two
students cannot both take the last seat, a re-answer replaces, the version grows by one. A room's
keys carry a TTL of ``idle_ttl_s``, renewed by every instructor action, so Redis frees a room the
instructor left without any sweep; the scripts also compare ``active`` with the clock, so that a
room is gone at exactly ``idle_ttl_s`` as in memory. The clock is Redis's ``TIME`` (one clock for
every server process), or ``clock`` when one is given (tests). The token is never stored: the
room holds its SHA-256, which a script compares with the digest of the token presented (equal
digests or not, the comparison tells nothing about the token).

A poll's ``wait`` does not ask Redis again and again: one thread per process listens on the
``changed:*`` channels and wakes the waits of that room, each of which then reads the room once.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import threading
import time
from typing import Any, Callable, Mapping, Sequence

import redis
from redis.backoff import ExponentialBackoff
from redis.retry import Retry

from svmviz_app.rooms import (ADDRESS_JOINS, ADDRESS_ROOMS, ADDRESS_SEATS, ALPHABET, ANSWERS_CLOSED, CODE_LENGTH,
                              IDLE_TTL_S, MAX_ROOMS, MAX_STUDENTS, NO_QUESTION, NOT_INSTRUCTOR, ORPHAN_TTL_S,
                              QUESTION_CLOSED, REMOVED, RESUME_TTL_S, STUDENT_TTL_S, Follow, PublicQuestion,
                              RoomAccessError, RoomContentError, RoomRemovedError, RoomStore,
                              RoomStoreUnavailableError, Seat, Tally, check_address, client_token, check_on_reveal, check_option,
                              check_session_id, checked_question, full_address, full_room, full_server,
                              new_resume_code, normalize_code, not_found, resume_form, steps_text, too_many_joins,
                              too_many_rooms, view_json)

# ARGV[1] prefix, [2] code, [3] now ('' : Redis's clock), [4] "idle orphan student" TTLs in s; a
# script's own arguments follow
_PRELUDE = """
local P, c, now = ARGV[1], ARGV[2], tonumber(ARGV[3])
local ttl, orphan, student_ttl = string.match(ARGV[4], '(%S+) (%S+) (%S+)')
ttl, orphan, student_ttl = tonumber(ttl), tonumber(orphan), tonumber(student_ttl)
if not now then local t = redis.call('TIME'); now = tonumber(t[1]) + tonumber(t[2]) / 1e6 end
local R, Q, S, A, ALL = P..'room:'..c, P..'q:'..c, P..'students:'..c, P..'answers:'..c, P..'rooms'
local AD, B = P..'addr:'..c, P..'banned:'..c
local function drop(code)
  redis.call('DEL', P..'room:'..code, P..'q:'..code, P..'students:'..code, P..'answers:'..code,
             P..'addr:'..code, P..'banned:'..code)
  redis.call('ZREM', ALL, code)
end
local function expired(code, active)
  if now - active >= ttl then return true end
  if now - active < orphan then return false end
  return redis.call('ZCOUNT', P..'students:'..code, '(' .. tostring(now - student_ttl), '+inf') == 0
end
local function sweep()
  for _, old in ipairs(redis.call('ZRANGEBYSCORE', ALL, '-inf', now - math.min(ttl, orphan))) do
    if expired(old, tonumber(redis.call('ZSCORE', ALL, old))) then drop(old) end
  end
  for _, old in ipairs(redis.call('ZRANGE', ALL, 0, -1)) do
    if redis.call('EXISTS', P..'room:'..old) == 0 then redis.call('ZREM', ALL, old) end
  end
end
local function live()
  local active = redis.call('HGET', R, 'active')
  if active and not expired(c, tonumber(active)) then return tonumber(active) end
  drop(c)
  return nil
end
local function free()
  for _, sid in ipairs(redis.call('ZRANGEBYSCORE', S, '-inf', now - student_ttl)) do
    redis.call('ZREM', S, sid)
    redis.call('HDEL', AD, sid)
  end
end
local function with_room(key)
  local ms = redis.call('PTTL', R)
  if ms > 0 then redis.call('PEXPIRE', key, ms) end
end
local function renew()
  redis.call('HSET', R, 'active', tostring(now))
  redis.call('ZADD', ALL, now, c)
  local ms = math.ceil(ttl * 1000)
  for _, k in ipairs({R, Q, S, A, AD, B}) do redis.call('PEXPIRE', k, ms) end
end
local function owned(digest)
  if not live() then return redis.error_reply('NOTFOUND') end
  if redis.call('HGET', R, 'token') ~= digest then return redis.error_reply('ACCESS') end
  renew()
  return nil
end
local function seat(sid, addr, max_students, address_seats)
  if redis.call('SISMEMBER', B, 'c:'..sid) == 1 or (addr ~= '' and redis.call('SISMEMBER', B, 'a:'..addr) == 1) then
    return redis.error_reply('REMOVED')
  end
  free()
  if not redis.call('ZSCORE', S, sid) then
    if redis.call('ZCARD', S) >= max_students then return redis.error_reply('FULL') end
    if addr ~= '' then
      local n = 0
      for _, a in ipairs(redis.call('HVALS', AD)) do if a == addr then n = n + 1 end end
      if n >= address_seats then return redis.error_reply('ADDRFULL') end
    end
  end
  redis.call('ZADD', S, now, sid)
  redis.call('HSET', AD, sid, addr)
  with_room(S)
  with_room(AD)
  return nil
end
local function tally()
  local n = #cjson.decode(redis.call('HGET', Q, 'options'))
  local counts = {}
  for i = 1, n do counts[i] = 0 end
  for _, v in ipairs(redis.call('HVALS', A)) do counts[tonumber(v) + 1] = counts[tonumber(v) + 1] + 1 end
  return {redis.call('HGET', Q, 'qid'), redis.call('HGET', Q, 'revealed'), counts, redis.call('HGET', Q, 'on_reveal')}
end
"""

_SCRIPTS = {
    # [5] max rooms, [6] token digest, [7] owner ('' : none), [8] rooms an owner runs at most
    "create": """
sweep()
if ARGV[7] ~= '' then
  local n = 0
  for _, code in ipairs(redis.call('ZRANGE', ALL, 0, -1)) do
    if redis.call('HGET', P..'room:'..code, 'owner') == ARGV[7] then n = n + 1 end
  end
  if n >= tonumber(ARGV[8]) then return redis.error_reply('ROOMS') end
end
if redis.call('ZCARD', ALL) >= tonumber(ARGV[5]) then return redis.error_reply('SERVERFULL') end
if redis.call('EXISTS', R) == 1 then return redis.error_reply('TAKEN') end
redis.call('HSET', R, 'token', ARGV[6], 'view', '{}', 'version', 0, 'nextq', 1, 'owner', ARGV[7])
renew()
return 1
""",
    # [5] address, [6] joins a minute
    "newclient": """
local J, per = P..'joins:'..ARGV[5], tonumber(ARGV[6])
local b = redis.call('HMGET', J, 'tokens', 't')
local tokens, t = tonumber(b[1]) or per, tonumber(b[2]) or now
tokens = math.min(per, tokens + (now - t) * per / 60)
if tokens < 1 then return redis.error_reply('JOINS') end
redis.call('HSET', J, 'tokens', tostring(tokens - 1), 't', tostring(now))
redis.call('EXPIRE', J, 120)
return 1
""",
    # [5] token digest
    "seats": """
local e = owned(ARGV[5]); if e then return e end
free()
local out = {}
for _, sid in ipairs(redis.call('ZRANGE', S, 0, -1, 'WITHSCORES')) do out[#out + 1] = sid end
for i = 1, #out, 2 do
  local addr = redis.call('HGET', AD, out[i]) or ''
  local idle = tostring(now - tonumber(out[i + 1]))
  out[i + 1] = addr .. ' ' .. idle
end
return out
""",
    # [5] token digest, [6] client ('' : none), [7] address ('' : none)
    "remove": """
local e = owned(ARGV[5]); if e then return e end
if ARGV[6] ~= '' then redis.call('SADD', B, 'c:'..ARGV[6]); redis.call('HDEL', A, ARGV[6]) end
if ARGV[7] ~= '' then redis.call('SADD', B, 'a:'..ARGV[7]) end
with_room(B)
local gone = 0
for _, sid in ipairs(redis.call('ZRANGE', S, 0, -1)) do
  if sid == ARGV[6] or (ARGV[7] ~= '' and redis.call('HGET', AD, sid) == ARGV[7]) then
    redis.call('ZREM', S, sid); redis.call('HDEL', AD, sid); redis.call('HDEL', A, sid)
    gone = gone + 1
  end
end
return gone
""",
    "count": """
sweep()
return redis.call('ZCARD', ALL)
""",
    # [5] token digest
    "touch": """
local e = owned(ARGV[5]); if e then return e end
return 1
""",
    # [5] token digest, [6] the new token's digest, [7] the digest of the token as a resume code
    "claim": """
if not live() then return redis.error_reply('NOTFOUND') end
local valid_until = tonumber(redis.call('HGET', R, 'resume_until') or '0')
if ARGV[7] ~= '' and redis.call('HGET', R, 'resume') == ARGV[7] and now < valid_until then
  redis.call('HDEL', R, 'resume', 'resume_until')   -- a resume code works once
  ARGV[5] = redis.call('HGET', R, 'token')          -- and stands for the token
end
local e = owned(ARGV[5]); if e then return e end
redis.call('HSET', R, 'token', ARGV[6])
return 1
""",
    # [5] token digest, [6] the resume code's digest, [7] its lifetime in s
    "resume": """
local e = owned(ARGV[5]); if e then return e end
redis.call('HSET', R, 'resume', ARGV[6], 'resume_until', tostring(now + tonumber(ARGV[7])))
return 1
""",
    # [5] token digest, [6] view JSON
    # [6] view digest, [7] the steps' JSON
    "keep_steps": """
local e = owned(ARGV[5]); if e then return e end
if redis.call('HGET', R, 'steps_digest') == ARGV[6] and redis.call('HGET', R, 'steps') == ARGV[7] then
  return tonumber(redis.call('HGET', R, 'steps_gen') or '0')
end
redis.call('HSET', R, 'steps_digest', ARGV[6], 'steps', ARGV[7])
local g = redis.call('HINCRBY', R, 'steps_gen', 1)
redis.call('PUBLISH', P..'changed:'..c, 'steps')
return g
""",
    "publish": """
local e = owned(ARGV[5]); if e then return e end
if redis.call('HGET', R, 'view') ~= ARGV[6] then
  redis.call('HSET', R, 'view', ARGV[6])
  local v = redis.call('HINCRBY', R, 'version', 1)
  redis.call('PUBLISH', P..'changed:'..c, v)
  return v
end
return tonumber(redis.call('HGET', R, 'version'))
""",
    # [5] student id ('' : none), [6] the caller's version ('' : none), [7] max students,
    # [8] seats an address holds at most, [9] the student's address ('' : none)
    "follow": """
local active = live()
if not active then return redis.error_reply('NOTFOUND') end
if ARGV[5] ~= '' then
  local e = seat(ARGV[5], ARGV[9], tonumber(ARGV[7]), tonumber(ARGV[8])); if e then return e end
else
  free()
end
local version = redis.call('HGET', R, 'version')
local view = ''
if version ~= ARGV[6] then view = redis.call('HGET', R, 'view') end
local q = redis.call('HMGET', Q, 'qid', 'prompt', 'options', 'revealed', 'answer', 'explanation')
local out = {version, view, redis.call('ZCARD', S), tostring(now - active)}
if q[1] then
  for i = 1, 4 do out[#out + 1] = q[i] end
  if q[4] == '1' then out[#out + 1] = q[5]; out[#out + 1] = q[6] end
end
return out
""",
    # [5] student id
    "leave": """
if not live() then return redis.error_reply('NOTFOUND') end
redis.call('ZREM', S, ARGV[5])
redis.call('HDEL', AD, ARGV[5])
return 1
""",
    # [5] token digest, [6] prompt, [7] options JSON, [8] answer, [9] explanation, [10] on_reveal JSON
    "pose": """
local e = owned(ARGV[5]); if e then return e end
local qid = redis.call('HINCRBY', R, 'nextq', 1) - 1
redis.call('DEL', Q, A)
redis.call('HSET', Q, 'qid', qid, 'prompt', ARGV[6], 'options', ARGV[7], 'answer', ARGV[8],
           'explanation', ARGV[9], 'revealed', 0, 'on_reveal', ARGV[10])
with_room(Q)
redis.call('PUBLISH', P..'changed:'..c, 'q')
return qid
""",
    # [5] student id, [6] qid, [7] option, [8] max students, [9] seats an address holds at most,
    # [10] the student's address ('' : none)
    "answer": """
if not live() then return redis.error_reply('NOTFOUND') end
if redis.call('HGET', Q, 'qid') ~= ARGV[6] then return redis.error_reply('CLOSED') end
if redis.call('HGET', Q, 'revealed') == '1' then return redis.error_reply('REVEALED') end
local n = #cjson.decode(redis.call('HGET', Q, 'options'))
if tonumber(ARGV[7]) >= n then return redis.error_reply('NOOPTION') end
local e = seat(ARGV[5], ARGV[10], tonumber(ARGV[8]), tonumber(ARGV[9])); if e then return e end
redis.call('HSET', A, ARGV[5], ARGV[7])
with_room(A)
return 1
""",
    # [5] token digest
    "tally": """
local e = owned(ARGV[5]); if e then return e end
if redis.call('EXISTS', Q) == 0 then return redis.error_reply('NOQUESTION') end
return tally()
""",
    # [5] token digest
    "reveal": """
local e = owned(ARGV[5]); if e then return e end
if redis.call('EXISTS', Q) == 0 then return redis.error_reply('NOQUESTION') end
redis.call('HSET', Q, 'revealed', 1)
redis.call('PUBLISH', P..'changed:'..c, 'r')
return tally()
""",
    # [5] token digest
    "close": """
local e = owned(ARGV[5]); if e then return e end
drop(c)
redis.call('PUBLISH', P..'changed:'..c, 'x')
return 1
""",
}


def _digest(token: Any) -> str:
    """What the room holds of a token; a token that is not text matches no room."""
    return hashlib.sha256(token.encode()).hexdigest() if isinstance(token, str) else ""


class RedisRoomStore(RoomStore):
    """Rooms in Redis (``url``: ``redis://host:port/db``, or a ``client`` of ``redis.Redis``), the
    same rules and messages as ``InMemoryRoomStore``. ``clock``: seconds shared by every process
    using the store (default: Redis's own clock)."""

    def __init__(self, url: str | None = None, *, client: redis.Redis | None = None, prefix: str = "svmviz:",
                 max_rooms: int = MAX_ROOMS, max_students: int = MAX_STUDENTS, idle_ttl_s: float = IDLE_TTL_S,
                 student_ttl_s: float = STUDENT_TTL_S, clock: Callable[[], float] | None = None,
                 orphan_ttl_s: float = ORPHAN_TTL_S, address_seats: int = ADDRESS_SEATS,
                 address_joins: int = ADDRESS_JOINS, address_rooms: int = ADDRESS_ROOMS):
        if client is None:
            # a poll's read or a script answers in milliseconds: a store that does not answer
            # within seconds is down, and the page says so instead of hanging
            # (two quick retries: a pooled connection Redis dropped on a restart is made again;
            # a Redis that is down is said so within a second, not after the client's long backoff)
            client = redis.Redis.from_url(url, decode_responses=True, socket_timeout=5.0,
                                          socket_connect_timeout=5.0, health_check_interval=30,
                                          retry=Retry(ExponentialBackoff(cap=0.5, base=0.05), 2))
        self._r, self.prefix = client, prefix
        self.max_rooms, self.max_students = int(max_rooms), int(max_students)
        self.idle_ttl_s, self.student_ttl_s = float(idle_ttl_s), float(student_ttl_s)
        self.orphan_ttl_s = float(orphan_ttl_s)
        self.address_seats, self.address_joins, self.address_rooms = int(address_seats), int(address_joins), int(address_rooms)
        self._clock = clock
        self._secret: bytes | None = None
        self._scripts = {name: client.register_script(_PRELUDE + body) for name, body in _SCRIPTS.items()}
        self._changed = threading.Condition()
        self._generation: dict[str, int] = {}   # code -> changes heard on its channel
        self._listener: threading.Thread | None = None

    # -------------------------------------------------------------- internals
    def _run(self, name: str, code: str, *args, expect: tuple[str, ...] = ()) -> Any:
        """Run script ``name`` on room ``code``; a refusal is raised as the in-memory store raises
        it, or returned (its name) when it is one of ``expect``."""
        now = "" if self._clock is None else repr(float(self._clock()))
        try:
            ttls = f"{self.idle_ttl_s!r} {self.orphan_ttl_s!r} {self.student_ttl_s!r}"
            return self._scripts[name](args=[self.prefix, code, now, ttls, *args])
        except redis.ResponseError as exc:
            kind = str(exc).split()[0] if str(exc) else ""
            if kind in expect:
                return kind
            raise self._error(kind, code) from None
        except redis.RedisError as exc:
            raise RoomStoreUnavailableError(f"the class rooms cannot be reached just now ({exc}); "
                                            "nothing is lost, try again in a moment") from None

    def _error(self, kind: str, code: str) -> Exception:
        return {"NOTFOUND": lambda: not_found(code, self.idle_ttl_s),
                "ACCESS": lambda: RoomAccessError(NOT_INSTRUCTOR),
                "FULL": lambda: full_room(self.max_students),
                "ADDRFULL": lambda: full_address(self.address_seats),
                "JOINS": lambda: too_many_joins(self.address_joins),
                "ROOMS": lambda: too_many_rooms(self.address_rooms),
                "REMOVED": lambda: RoomRemovedError(REMOVED),
                "SERVERFULL": lambda: full_server(self.max_rooms),
                "CLOSED": lambda: RoomContentError(QUESTION_CLOSED),
                "REVEALED": lambda: RoomContentError(ANSWERS_CLOSED),
                "NOQUESTION": lambda: RoomContentError(NO_QUESTION),
                }.get(kind, lambda: RoomStoreUnavailableError(f"the room store refused a request ({kind})"))()

    def _student(self) -> tuple:
        return self.max_students, self.address_seats

    @staticmethod
    def _tally(reply) -> Tally:
        qid, revealed, counts, on_reveal = reply
        return Tally(int(qid), tuple(int(n) for n in counts), revealed == "1", json.loads(on_reveal))

    def __len__(self) -> int:
        """Live rooms (expired ones are swept first)."""
        return int(self._run("count", ""))

    # -------------------------------------------------------------- the interface
    def create_room(self, owner: str | None = None) -> tuple[str, str]:
        owner = check_address(owner) or ""
        while True:
            code = "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))
            token = secrets.token_urlsafe(32)
            if self._run("create", code, self.max_rooms, _digest(token), owner, self.address_rooms,
                         expect=("TAKEN",)) != "TAKEN":
                return code, token

    def new_client(self, address: str | None = None) -> str:
        address = check_address(address)
        if address is not None:
            self._run("newclient", "", address, self.address_joins)
        return client_token(self._client_secret())

    def _client_secret(self) -> bytes:
        if self._secret is None:
            key = f"{self.prefix}secret"
            try:
                self._r.set(key, secrets.token_hex(32), nx=True)
                self._secret = bytes.fromhex(self._r.get(key))
            except redis.RedisError as exc:
                raise RoomStoreUnavailableError(f"the class rooms cannot be reached just now ({exc}); "
                                                "try again in a moment") from None
        return self._secret

    def seats(self, code: str, token: str) -> tuple[Seat, ...]:
        reply = self._run("seats", normalize_code(code), _digest(token))
        seats = []
        for client, rest in zip(reply[::2], reply[1::2]):
            address, idle = rest.rsplit(" ", 1)
            seats.append(Seat(client, address or None, float(idle)))
        return tuple(sorted(seats, key=lambda s: (s.address or "", s.idle_s)))

    def remove(self, code: str, token: str, client: str | None = None, address: str | None = None) -> int:
        address = check_address(address) or ""
        if client is not None:
            check_session_id(client)
        return int(self._run("remove", normalize_code(code), _digest(token), client or "", address))

    def touch(self, code: str, token: str) -> None:
        self._run("touch", normalize_code(code), _digest(token))

    def claim(self, code: str, token: str) -> str:
        new = secrets.token_urlsafe(32)
        resume = _digest(resume_form(token)) if isinstance(token, str) else ""
        self._run("claim", normalize_code(code), _digest(token), _digest(new), resume)
        return new

    def resume(self, code: str, token: str) -> str:
        typed = new_resume_code()
        self._run("resume", normalize_code(code), _digest(token), _digest(typed), RESUME_TTL_S)
        return typed

    def publish(self, code: str, token: str, view: Mapping[str, Any]) -> int:
        text = view_json(view)
        return int(self._run("publish", normalize_code(code), _digest(token), text))

    def keep_steps(self, code: str, token: str, view_digest: str, text: str) -> int:
        return int(self._run("keep_steps", normalize_code(code), _digest(token), str(view_digest), steps_text(text)))

    def steps(self, code: str) -> tuple[int, str, str]:
        c = normalize_code(code)
        try:
            gen, digest, text = self._r.hmget(f"{self.prefix}room:{c}", "steps_gen", "steps_digest", "steps")
        except redis.RedisError as exc:
            raise RoomStoreUnavailableError(f"the class rooms cannot be reached just now ({exc}); "
                                            "nothing is lost, try again in a moment") from None
        return (0, "", "{}") if gen is None else (int(gen), digest or "", text or "{}")

    def follow(self, code: str, session_id: str | None = None, since: int | None = None,
               address: str | None = None) -> Follow:
        if session_id is not None:
            check_session_id(session_id)
        address = check_address(address) or ""
        reply = self._run("follow", normalize_code(code), session_id or "", "" if since is None else str(since),
                          *self._student(), address)
        version, text, n, idle = int(reply[0]), reply[1], int(reply[2]), float(reply[3])
        question = None
        if len(reply) > 4:
            qid, prompt, options, revealed = int(reply[4]), reply[5], tuple(json.loads(reply[6])), reply[7] == "1"
            question = (PublicQuestion(qid, prompt, options, True, int(reply[8]), reply[9]) if revealed
                        else PublicQuestion(qid, prompt, options, False))
        view = None if since == version else json.loads(text)
        return Follow(version, view, question, n, idle)

    def _state(self, code: str) -> tuple[int | None, tuple[int, bool] | None, int] | None:
        """(version, (qid, revealed) of the question, steps generation), or None when the room is
        gone: one read."""
        p = self._r.pipeline()
        p.hmget(f"{self.prefix}room:{code}", "version", "steps_gen")
        p.hmget(f"{self.prefix}q:{code}", "qid", "revealed")
        (version, gen), (qid, revealed) = p.execute()
        if version is None:
            return None
        return int(version), (None if qid is None else (int(qid), revealed == "1")), int(gen or 0)

    def wait(self, code: str, since: int | None, question: tuple[int, bool] | None, timeout: float,
             steps: int | None = None) -> None:
        c, deadline = normalize_code(code), time.monotonic() + timeout
        self._listen()
        while True:
            with self._changed:
                heard = self._generation.get(c, 0)
            try:
                now = self._state(c)
            except redis.RedisError:
                return   # the poll after this says the store is down
            if now is None or now[:2] != (since, question) or (steps is not None and now[2] != steps):
                return
            with self._changed:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return
                if self._generation.get(c, 0) == heard:
                    self._changed.wait(remaining)

    def _listen(self) -> None:
        """Start this store's listener thread once (a daemon: it ends with the process)."""
        with self._changed:
            if self._listener is None:
                self._listener = threading.Thread(target=self._listen_forever, name="svmviz-rooms-listener",
                                                  daemon=True)
                self._listener.start()

    def _listen_forever(self) -> None:
        pattern, skip = f"{self.prefix}changed:*", len(self.prefix) + len("changed:")
        while True:
            try:
                ps = self._r.pubsub(ignore_subscribe_messages=True)
                ps.psubscribe(pattern)
                with self._changed:   # a change made while not listening: every wait reads again
                    for c in self._generation:
                        self._generation[c] += 1
                    self._changed.notify_all()
                while True:
                    msg = ps.get_message(timeout=30.0)
                    if msg is None:
                        continue
                    with self._changed:
                        c = msg["channel"][skip:]
                        self._generation[c] = self._generation.get(c, 0) + 1
                        self._changed.notify_all()
            except redis.RedisError:
                time.sleep(0.5)   # Redis restarting or out of reach: listen again when it is back

    def leave(self, code: str, session_id: str) -> None:
        self._run("leave", normalize_code(code), str(session_id))

    def pose(self, code: str, token: str, prompt: str, options: Sequence[str], answer: int,
             explanation: str = "", on_reveal: Any = None) -> int:
        prompt, opts, answer, explanation = checked_question(prompt, options, answer, explanation)
        then = json.dumps(check_on_reveal(on_reveal))
        return int(self._run("pose", normalize_code(code), _digest(token), prompt, json.dumps(list(opts)), answer,
                             explanation, then))

    def answer(self, code: str, session_id: str, qid: int, option: int, address: str | None = None) -> None:
        c = normalize_code(code)
        if isinstance(option, bool) or not isinstance(option, int) or option < 0:
            check_option(option, 0)   # (the range is the script's: it reads the options)
        check_session_id(session_id)
        address = check_address(address) or ""
        if self._run("answer", c, session_id, str(qid), option, *self._student(), address,
                     expect=("NOOPTION",)) == "NOOPTION":
            check_option(option, 0)

    def tally(self, code: str, token: str) -> Tally:
        return self._tally(self._run("tally", normalize_code(code), _digest(token)))

    def reveal(self, code: str, token: str) -> Tally:
        return self._tally(self._run("reveal", normalize_code(code), _digest(token)))

    def close(self, code: str, token: str) -> None:
        self._run("close", normalize_code(code), _digest(token))

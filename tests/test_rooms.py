"""Class rooms: only the instructor drives, rooms are isolated, bounded and expire, the tally is
exact under concurrent answers, a re-joining student gets the instructor's current view. Every
test runs on both stores: in this process's memory and in Redis (a redis-server of the tests' own)."""

from __future__ import annotations

import secrets
import threading
import uuid

import pytest

from svmviz.errors import SvmvizError
from svmviz_app.rooms import (ALPHABET, CODE_LENGTH, MAX_VIEW_BYTES, ORPHAN_TTL_S, STUDENT_TTL_S, InMemoryRoomStore,
                              RoomAccessError, RoomContentError, RoomFullError, RoomNotFoundError, RoomStore,
                              display_code, normalize_code)


class Clock:
    def __init__(self):
        self.t = 1000.0

    def __call__(self):
        return self.t


VIEW = {"page": "SVM_Tree", "spec": "fourclass", "state": {"tree.step": 3, "tree.C_hard": 10.0}}


@pytest.fixture(params=["memory", "redis"])
def make_store(request):
    """A function making a store of the test's backend (keyword arguments: the store's limits and
    clock); every Redis store of a test under a key prefix of its own."""
    if request.param == "memory":
        yield InMemoryRoomStore
        return
    from svmviz_app.rooms_redis import RedisRoomStore

    url, made = request.getfixturevalue("redis_url"), []

    def make(**kw):
        made.append(RedisRoomStore(url, prefix=f"test-{uuid.uuid4().hex}:", **kw))
        return made[-1]

    yield make
    for s in made:
        for key in s._r.scan_iter(f"{s.prefix}*"):
            s._r.delete(key)


@pytest.fixture
def store(make_store):
    return make_store()


def stored_codes(store) -> list[str]:
    """The codes whose rooms the store still holds in memory (expired ones freed)."""
    if isinstance(store, InMemoryRoomStore):
        return list(store._rooms)
    return sorted(k.rsplit(":", 1)[1] for k in store._r.scan_iter(f"{store.prefix}*") if ":room:" in k)


def test_codes_are_short_random_and_tokens_secret(store):
    rooms = [store.create_room() for _ in range(50)]
    codes = {c for c, _ in rooms}
    assert len(codes) == 50
    for code, token in rooms:
        assert len(code) == CODE_LENGTH and set(code) <= set(ALPHABET)
        assert len(token) >= 40 and code not in token
    assert normalize_code(display_code(rooms[0][0]).lower()) == rooms[0][0]


def test_follower_cannot_drive_or_reveal(store):
    code, token = store.create_room()
    store.publish(code, token, VIEW)
    store.pose(code, token, "which wins?", ["a", "b"], 1)
    other_code, other_token = store.create_room()
    forged = [None, "", code, token[:-1], token[:-1] + ("A" if token[-1] != "A" else "B"), other_token,
              secrets.token_urlsafe(32), token.encode(), 12345]
    for bad in forged:
        for call in (lambda t: store.publish(code, t, {"page": "Data"}),
                     lambda t: store.pose(code, t, "q", ["x", "y"], 0),
                     lambda t: store.reveal(code, t),
                     lambda t: store.tally(code, t),
                     lambda t: store.touch(code, t),
                     lambda t: store.close(code, t)):
            with pytest.raises(RoomAccessError, match="only the instructor"):
                call(bad)
    f = store.follow(code, "student-1")
    assert f.view == VIEW and f.version == 1
    assert f.question is not None and not f.question.revealed and f.question.answer is None   # answer hidden
    assert issubclass(RoomAccessError, SvmvizError) and issubclass(RoomAccessError, ValueError)


def test_student_sees_answer_only_after_reveal(store):
    code, token = store.create_room()
    qid = store.pose(code, token, "which wins?", ["a", "b", "c"], 2, "c leaves out most samples")
    store.answer(code, "s1", qid, 0)
    assert store.follow(code, "s1").question.explanation is None
    t = store.reveal(code, token)
    assert t.revealed and t.counts == (1, 0, 0)
    q = store.follow(code, "s1").question
    assert q.revealed and q.answer == 2 and q.explanation == "c leaves out most samples"
    with pytest.raises(RoomContentError, match="revealed"):
        store.answer(code, "s2", qid, 1)


def test_rooms_are_isolated(store):
    a, ta = store.create_room()
    b, tb = store.create_room()
    store.publish(a, ta, VIEW)
    store.publish(b, tb, {"page": "Solvers"})
    qa = store.pose(a, ta, "qa", ["x", "y"], 0)
    store.answer(a, "s1", qa, 1)
    assert store.follow(b).view == {"page": "Solvers"}
    assert store.follow(b).question is None
    assert store.follow(a).view == VIEW
    with pytest.raises(RoomContentError, match="no question"):
        store.tally(b, tb)
    assert store.tally(a, ta).counts == (0, 1)
    with pytest.raises(RoomAccessError):
        store.publish(b, ta, VIEW)
    store.close(a, ta)
    with pytest.raises(RoomNotFoundError):
        store.follow(a)
    assert store.follow(b).view == {"page": "Solvers"}


def test_unknown_and_malformed_codes(store):
    store.create_room()
    for bad in ("", "ABCD", "ABCD-EFG0", "ABCD-EFGHI", "x" * 1000, None, 5):
        with pytest.raises(RoomNotFoundError, match="not a class code"):
            store.follow(bad)
    with pytest.raises(RoomNotFoundError, match="no class with code"):
        store.follow("2222-2222")


def test_expiry_frees_memory_and_students_do_not_keep_a_room_alive(make_store):
    clock = Clock()
    store = make_store(idle_ttl_s=100.0, clock=clock)
    code, token = store.create_room()
    kept, kept_token = store.create_room()
    store.publish(code, token, VIEW)
    for _ in range(3):
        clock.t += 30
        store.follow(code, "s1")        # polling is not the instructor
        store.touch(kept, kept_token)   # the instructor's heartbeat is
    clock.t += 30
    assert len(store) == 1
    assert stored_codes(store) == [kept]   # the expired room's view and students are gone
    with pytest.raises(RoomNotFoundError, match="no class"):
        store.follow(code)
    with pytest.raises(RoomNotFoundError):
        store.publish(code, token, VIEW)   # its token is worthless too


def test_expired_room_asked_for_is_removed(make_store):
    clock = Clock()
    store = make_store(idle_ttl_s=10.0, clock=clock)
    code, _ = store.create_room()
    clock.t += 10
    with pytest.raises(RoomNotFoundError):
        store.follow(code)
    assert stored_codes(store) == []


def test_student_capacity_has_a_clear_message_and_silent_students_free_seats(make_store):
    clock = Clock()
    store = make_store(max_students=3, student_ttl_s=60.0, clock=clock)
    code, token = store.create_room()
    for s in ("s1", "s2", "s3"):
        store.follow(code, s)
    store.follow(code, "s1")   # a seated student keeps polling
    with pytest.raises(RoomFullError, match="admits 3 students"):
        store.follow(code, "s4")
    qid = store.pose(code, token, "q", ["x", "y"], 0)
    with pytest.raises(RoomFullError):
        store.answer(code, "s4", qid, 0)
    assert store.follow(code).n_students == 3   # watching without a session id takes no seat
    store.leave(code, "s2")
    store.follow(code, "s4")
    with pytest.raises(RoomFullError):
        store.follow(code, "s5")
    clock.t += 61
    store.follow(code, "s5")   # the others went silent
    assert store.follow(code, "s5").n_students == 1


def test_server_room_limit(make_store):
    store = make_store(max_rooms=2)
    store.create_room()
    store.create_room()
    with pytest.raises(RoomFullError, match="2 classes"):
        store.create_room()


def test_bounded_view_and_question(store):
    code, token = store.create_room()
    n = MAX_VIEW_BYTES // 20
    big = {"X": [[0.123456789, 0.987654321]] * n, "y": [0] * n, "feature_names": ["a", "b"], "class_names": ["0"],
           "name": "big", "source": "upload"}
    with pytest.raises(RoomContentError, match="MB"):
        store.publish(code, token, {"data": big})
    with pytest.raises(RoomContentError, match="finite"):
        store.publish(code, token, {"state": {"x": float("nan")}})
    with pytest.raises(RoomContentError, match="number or text"):
        store.publish(code, token, {"state": {"x": object()}})
    with pytest.raises(RoomContentError, match="options"):
        store.pose(code, token, "q", ["only"], 0)
    with pytest.raises(RoomContentError, match="options"):
        store.pose(code, token, "q", [str(i) for i in range(13)], 0)
    with pytest.raises(RoomContentError, match="index"):
        store.pose(code, token, "q", ["a", "b"], 2)
    with pytest.raises(RoomContentError, match="longer"):
        store.pose(code, token, "q" * 5000, ["a", "b"], 0)
    qid = store.pose(code, token, "q", ["a", "b"], 0)
    for bad in (2, -1, True, "0"):
        with pytest.raises(RoomContentError, match="no option"):
            store.answer(code, "s", qid, bad)
    assert store.follow(code).version == 0   # nothing refused was stored


def test_version_counts_changes_and_poll_skips_unchanged_view(store):
    code, token = store.create_room()
    assert store.publish(code, token, VIEW) == 1
    assert store.publish(code, token, dict(VIEW)) == 1   # the same view: no new version
    f = store.follow(code, "s1", since=1)
    assert f.version == 1 and f.view is None
    v2 = dict(VIEW, state={"tree.step": 4})
    assert store.publish(code, token, v2) == 2
    f = store.follow(code, "s1", since=1)
    assert f.version == 2 and f.view == v2
    f.view["state"]["tree.step"] = 99   # the caller's copy, not the room's
    assert store.follow(code).view == v2


def test_reanswer_replaces_and_new_question_clears(store):
    code, token = store.create_room()
    q1 = store.pose(code, token, "q1", ["a", "b", "c"], 0)
    store.answer(code, "s1", q1, 0)
    store.answer(code, "s1", q1, 2)
    store.answer(code, "s2", q1, 2)
    assert store.tally(code, token).counts == (0, 0, 2)
    q2 = store.pose(code, token, "q2", ["a", "b"], 1)
    assert q2 != q1 and store.tally(code, token).counts == (0, 0)
    with pytest.raises(RoomContentError, match="no longer open"):
        store.answer(code, "s1", q1, 0)


def test_tally_exact_under_30_concurrent_students(store):
    code, token = store.create_room()
    qid = store.pose(code, token, "which pair?", ["a", "b", "c", "d"], 1)
    n = 30
    barrier = threading.Barrier(n)
    errors = []

    def student(i):
        try:
            barrier.wait()
            sid = f"student-{i}"
            store.follow(code, sid)
            store.answer(code, sid, qid, (i + 1) % 4)   # a first answer...
            store.answer(code, sid, qid, i % 4)         # ...replaced by the final one
            store.follow(code, sid)
        except Exception as exc:   # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=student, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    t = store.tally(code, token)
    assert t.counts == tuple(sum(1 for i in range(n) if i % 4 == o) for o in range(4))
    assert t.n_answers == n


def test_detach_and_rejoin_gets_the_instructors_current_view(store):
    code, token = store.create_room()
    store.publish(code, token, VIEW)
    first = store.follow(code, "s1")
    store.leave(code, "s1")   # detached: explores alone
    for step in range(4, 8):
        store.publish(code, token, dict(VIEW, state={"tree.step": step}))
    back = store.follow(code, "s1", since=first.version)
    assert back.version == 5 and back.view["state"] == {"tree.step": 7}


@pytest.mark.parametrize("waiter", ["store's own", "interface default"])
def test_a_poll_waits_for_a_change_of_view_or_question_and_returns_with_it(store, waiter):
    wait = store.wait if waiter == "store's own" else lambda *a: RoomStore.wait(store, *a)
    code, token = store.create_room()
    v = store.publish(code, token, {"page": "SVM_Tree", "state": {"tree.step": 0}})
    seen = []

    def poll(since, question):
        wait(code, since, question, 60.0)   # returns at the change, long before this
        try:
            f = store.follow(code, "s1", since=since)
        except RoomNotFoundError:
            seen.append("gone")
            return
        seen.append((f.version, None if f.question is None else (f.question.qid, f.question.revealed)))

    for change, since, question in [
            (lambda: store.publish(code, token, {"page": "SVM_Tree", "state": {"tree.step": 1}}), v, None),
            (lambda: store.pose(code, token, "which?", ["a", "b"], 1), v + 1, None),
            (lambda: store.reveal(code, token), v + 1, (1, False)),
            (lambda: store.close(code, token), v + 1, (1, True))]:
        t = threading.Thread(target=poll, args=(since, question))
        n = len(seen)
        t.start()
        t.join(0.3)
        assert t.is_alive() and len(seen) == n   # nothing changed yet: still waiting
        try:
            change()
        finally:
            t.join(30.0)
        assert not t.is_alive()
    assert seen == [(v + 1, None), (v + 1, (1, False)), (v + 1, (1, True)), "gone"]
    wait(code, None, None, 60.0)   # a room that is gone: at once


def test_a_claim_hands_the_room_to_a_new_token_and_the_old_one_drives_no_more(make_store):
    clock = Clock()
    store = make_store(clock=clock)
    code, token = store.create_room()
    store.publish(code, token, VIEW)
    qid = store.pose(code, token, "which wins?", ["a", "b"], 1)
    store.answer(code, "s1", qid, 0)
    clock.t += 90   # the instructor's tab is gone: students are told how long
    assert store.follow(code, "s1").instructor_idle_s == pytest.approx(90.0)
    new = store.claim(code, token)
    assert new != token and len(new) >= 40
    assert store.follow(code, "s1").instructor_idle_s == pytest.approx(0.0)
    with pytest.raises(RoomAccessError):
        store.touch(code, token)
    with pytest.raises(RoomAccessError):
        store.claim(code, token)
    # nothing of the class is lost: view, version, question and its answers
    f = store.follow(code, "s1", since=0)
    assert f.view == VIEW and f.version == 1 and f.question.qid == qid
    assert store.tally(code, new).counts == (1, 0)


def test_a_restarted_server_finds_its_rooms_and_two_processes_share_one(redis_url):
    """Two stores on one Redis are two server processes (or one before and after a restart)."""
    from svmviz_app.rooms_redis import RedisRoomStore

    prefix = f"test-{uuid.uuid4().hex}:"
    first = RedisRoomStore(redis_url, prefix=prefix)
    code, token = first.create_room()
    first.publish(code, token, VIEW)
    qid = first.pose(code, token, "which wins?", ["a", "b", "c"], 2)
    first.answer(code, "s1", qid, 1)
    second = RedisRoomStore(redis_url, prefix=prefix)
    f = second.follow(code, "s2")
    assert f.view == VIEW and f.question.qid == qid and f.n_students == 2
    second.answer(code, "s2", qid, 1)
    assert first.tally(code, token).counts == (0, 2, 0)
    # a follower waiting on one process wakes at once when the instructor on the other steps
    seen = []
    t = threading.Thread(target=lambda: (second.wait(code, 1, (qid, False), 60.0), seen.append(1)))
    t.start()
    t.join(0.5)
    assert t.is_alive() and not seen
    first.publish(code, token, dict(VIEW, state={"tree.step": 4}))
    t.join(30.0)
    assert seen == [1] and second.follow(code).version == 2


def test_the_configured_store(redis_url):
    from svmviz_app.room_stores import open_store
    from svmviz_app.rooms_redis import RedisRoomStore

    assert isinstance(open_store(""), InMemoryRoomStore)
    assert isinstance(open_store(redis_url), RedisRoomStore)
    assert open_store("").max_students == 100 and open_store(redis_url, "300").max_students == 300
    behind_nat = open_store(redis_url, "", "120")
    assert (behind_nat.address_seats, behind_nat.address_joins, open_store("").address_seats) == (120, 120, 10)
    with pytest.raises(ValueError, match="SVMVIZ_ADDRESS_SEATS"):
        open_store("", "", "many")
    for bad in ("0", "-5", "many"):
        with pytest.raises(ValueError, match="SVMVIZ_ROOM_SEATS"):
            open_store("", bad)
    with pytest.raises(ValueError, match="SVMVIZ_ROOMS"):
        open_store("memcached://somewhere")


def test_what_a_reveal_does_is_kept_with_the_question_for_the_instructor(store):
    code, token = store.create_room()
    store.pose(code, token, "which wins?", ["a", "b"], 1, on_reveal=["tree.step", 5])
    assert store.tally(code, token).on_reveal == ["tree.step", 5]
    token = store.claim(code, token)   # a new session of the instructor
    assert store.reveal(code, token).on_reveal == ["tree.step", 5]
    store.pose(code, token, "q", ["x", "y"], 0)
    assert store.tally(code, token).on_reveal is None


def test_a_resume_code_lets_another_device_claim_the_room_once_and_for_ten_minutes(make_store):
    from svmviz_app.rooms import RESUME_TTL_S

    clock = Clock()
    store = make_store(clock=clock, orphan_ttl_s=2 * RESUME_TTL_S)   # (a room nobody follows ends sooner)
    code, token = store.create_room()
    other, other_token = store.create_room()
    typed = store.resume(code, token)
    assert len(typed) == CODE_LENGTH and set(typed) <= set(ALPHABET)
    with pytest.raises(RoomAccessError):
        store.claim(other, typed)   # it is that room's only
    new = store.claim(code, f"{typed[:4]}-{typed[4:]}".lower())   # as typed on the other device
    with pytest.raises(RoomAccessError):
        store.touch(code, token)    # the first device drives no more
    with pytest.raises(RoomAccessError):
        store.claim(code, typed)    # once
    late = store.resume(code, new)
    clock.t += RESUME_TTL_S
    with pytest.raises(RoomAccessError):
        store.claim(code, late)     # expired
    with pytest.raises(RoomAccessError):
        store.resume(code, token)   # only the instructor makes one
    store.touch(code, new)


def test_a_redis_store_out_of_reach_says_so_and_a_wait_does_not_hang():
    from conftest import _free_port
    from svmviz_app.rooms import RoomStoreUnavailableError
    from svmviz_app.rooms_redis import RedisRoomStore

    store = RedisRoomStore(f"redis://127.0.0.1:{_free_port()}/0")   # nothing listens there
    with pytest.raises(RoomStoreUnavailableError, match="cannot be reached just now"):
        store.create_room()
    with pytest.raises(RoomStoreUnavailableError):
        store.follow("ABCD-EFGH", "s1")
    assert issubclass(RoomStoreUnavailableError, SvmvizError)
    done = threading.Event()
    t = threading.Thread(target=lambda: (store.wait("ABCD-EFGH", 1, None, 60.0), done.set()))
    t.start()
    t.join(30.0)
    assert done.is_set()   # the poll after it tells the student; no wait of a minute on a dead store


# ------------------------------------------------------------------ clients, addresses, rooms per address
def test_a_view_is_a_bounded_structure_not_any_json(store):
    """A view nested 100,000 deep, or with a part no view has, is refused with a message (it raised
    RecursionError while encoding)."""
    code, token = store.create_room()
    deep: list = []
    for _ in range(100_000):
        deep = [deep]
    rows = {"X": [[0.0, deep]], "y": [0], "feature_names": ["a", "b"], "class_names": ["0"], "name": "n", "source": "s"}
    for bad in ({"state": {"k": deep}}, {"extra": deep}, {"data": rows}, {"tally": {"code": code, "qid": 1, "counts": deep}},
                {"page": deep}, {"state": {"k" * 500: 1}}, {"data": dict(rows, X=[[0.0, 1.0]], y=[deep])}):
        with pytest.raises(RoomContentError):
            store.publish(code, token, bad)
    with pytest.raises(RoomContentError):
        store.pose(code, token, "q", ["a", "b"], 0, on_reveal=deep)
    assert store.follow(code).version == 0   # nothing was published
    ok = {"page": "Data", "spec": "upload:ab12", "state": {"split.test": 0.25, "tree.step": 3, "name": "x"},
          "tally": {"code": code, "qid": 1, "counts": [1, 2]},
          "data": dict(rows, X=[[0.0, 1.0]], y=["a"])}
    assert store.publish(code, token, ok) == 1 and store.follow(code).view == ok


def test_one_client_holds_one_seat_and_one_answer(store):
    code, token = store.create_room()
    qid = store.pose(code, token, "which?", ["a", "b"], 0)
    me = store.new_client("10.0.0.7")
    for i in range(15):   # fifteen sessions (tabs, forged sessions) of one client
        store.follow(code, me, address="10.0.0.7")
        store.answer(code, me, qid, i % 2, address="10.0.0.7")
    assert store.follow(code).n_students == 1
    assert store.tally(code, token).counts == (1, 0)   # the last answer, once
    other = store.new_client("10.0.0.8")
    store.answer(code, other, qid, 0, address="10.0.0.8")
    assert store.tally(code, token).counts == (2, 0) and store.follow(code).n_students == 2


def test_client_ids_are_the_stores_own(make_store):
    store = make_store()
    issued = store.new_client("10.0.0.7")
    assert store.valid_client(issued) and store.valid_client(store.new_client(None))
    nonce, mac = issued.split(".")
    other = "A" if mac[-1] != "A" else "B"   # a last character changed (one in 64 ids ends in "A")
    for forged in (None, "", 123, nonce, f"{nonce}.", f"{nonce}.{mac[:-1]}{other}", f"x{nonce}.{mac}",
                   secrets.token_urlsafe(24)):
        assert not store.valid_client(forged)
    if isinstance(store, InMemoryRoomStore):   # (Redis stores of one prefix share their key: several processes)
        assert not make_store().valid_client(issued)


def test_one_address_cannot_take_the_seats(make_store):
    """100 forged sessions from one address: new client ids come at ``address_joins`` a minute and
    an address holds ``address_seats`` seats; students on other addresses still join."""
    clock = Clock()
    store = make_store(max_students=100, clock=clock)
    code, token = store.create_room()
    held, refused = 0, 0
    for _ in range(100):
        try:
            client = store.new_client("10.0.0.66")
            store.follow(code, client, address="10.0.0.66")
            held += 1
        except RoomFullError as exc:   # (RoomRateError is one)
            assert "your network" in str(exc) or "new devices" in str(exc)
            refused += 1
    assert held == 10 and refused == 90
    for _ in range(60):   # ten minutes later the address still holds its share only
        clock.t += 10
        for c in store.seats(code, token):   # the forged seats keep polling
            store.follow(code, c.client, address=c.address)
        with pytest.raises(RoomFullError, match="your network holds 10 seats|new devices"):
            store.follow(code, store.new_client("10.0.0.66"), address="10.0.0.66")
    for i in range(90):
        store.follow(code, store.new_client(f"10.1.0.{i}"), address=f"10.1.0.{i}")
    assert store.follow(code).n_students == 100
    with pytest.raises(RoomFullError, match="Tell the instructor"):
        store.follow(code, store.new_client("10.2.0.1"), address="10.2.0.1")


def test_idle_seats_are_freed_within_seconds(make_store):
    clock = Clock()
    store = make_store(max_students=2, clock=clock)
    code, token = store.create_room()
    a, b = store.new_client(), store.new_client()
    store.follow(code, a)
    store.follow(code, b)
    clock.t += 5
    store.follow(code, a)   # a polls; b's browser is gone
    clock.t += STUDENT_TTL_S - 4
    assert store.follow(code).n_students == 1 and [s.client for s in store.seats(code, token)] == [a]
    store.follow(code, store.new_client())   # b's seat is free for another student
    assert STUDENT_TTL_S <= 20


def test_instructor_sees_and_removes_seats(store):
    code, token = store.create_room()
    qid = store.pose(code, token, "which?", ["a", "b"], 0)
    flood = [store.new_client("10.0.0.66") for _ in range(5)]
    for c in flood:
        store.answer(code, c, qid, 1, address="10.0.0.66")
    student = store.new_client("10.0.0.5")
    store.answer(code, student, qid, 0, address="10.0.0.5")
    seats = store.seats(code, token)
    assert len(seats) == 6 and [s.address for s in seats].count("10.0.0.66") == 5
    assert all(0 <= s.idle_s < 5 for s in seats)
    assert store.remove(code, token, client=flood[0]) == 1
    assert store.tally(code, token).counts == (1, 4)
    with pytest.raises(RoomAccessError, match="removed"):
        store.follow(code, flood[0], address="10.0.0.66")
    assert store.remove(code, token, address="10.0.0.66") == 4
    assert store.tally(code, token).counts == (1, 0)
    assert [s.client for s in store.seats(code, token)] == [student]
    with pytest.raises(RoomAccessError, match="removed"):   # a new client id from that address too
        store.follow(code, store.new_client("10.0.0.66"), address="10.0.0.66")
    with pytest.raises(RoomAccessError, match="only the instructor"):
        store.remove(code, "not-the-token", client=student)
    with pytest.raises(RoomAccessError, match="only the instructor"):
        store.seats(code, "not-the-token")


def test_rooms_per_address_and_rooms_nobody_follows_end(make_store):
    clock = Clock()
    store = make_store(clock=clock, max_rooms=10)
    mine = [store.create_room(owner="10.0.0.66") for _ in range(3)]
    with pytest.raises(RoomFullError, match="your network runs 3 classes"):
        store.create_room(owner="10.0.0.66")
    kept, kept_token = store.create_room(owner="10.0.0.5")
    followed, _ = mine[0]
    student = store.new_client("10.0.0.6")
    for _ in range(int(ORPHAN_TTL_S // 10) + 1):   # the instructors' pages closed; one room has a student
        clock.t += 10
        store.follow(followed, student, address="10.0.0.6")
        store.touch(kept, kept_token)
    assert len(store) == 2 and sorted(stored_codes(store)) == sorted([followed, kept])
    store.create_room(owner="10.0.0.66")   # its share is free again


def test_a_full_store_is_a_message(make_store):
    store = make_store(max_rooms=3)
    for i in range(3):
        store.create_room(owner=f"10.0.0.{i}")
    with pytest.raises(RoomFullError, match="try again in a few minutes"):
        store.create_room(owner="10.0.0.9")

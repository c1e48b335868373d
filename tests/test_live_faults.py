"""A live class survives its server: with the rooms in Redis, a server killed in the middle of a
question and started again brings back the room, its step, the open question and its tally; two
server processes share a room (instructor on one, a student on the other), and when one of them
dies the student goes on from the other. Sessions speak Streamlit's protocol as a browser does
(``benchmarks/bench_live.py``'s ``LiveSession``: the browser's timers, and the local storage where
the instructor's claim on the class is kept)."""

from __future__ import annotations

import re

import pytest

from apphelpers import bench_live, protocol
from conftest import _free_port, start_streamlit, stop_streamlit
from test_browser_live import DATA

pytestmark = pytest.mark.slow

OPEN = 300.0      # a fresh server on a shared machine: its first page may take a while
CLICK = 180.0


def _server(redis_url: str, port: int = 0):
    return start_streamlit({"SVMVIZ_ROOMS": redis_url}, port=port)


def _port(url: str) -> int:
    return int(url.rsplit(":", 1)[1])


async def _instructor(bl, port: int, storage: dict):
    """The instructor's session on the SVM Tree page, having started a class: (session, code)."""
    await bl.bc.purge_visit(port, OPEN)   # a fresh server's very first run, as the benchmark's warm-up
    t = bl.LiveSession(port, "SVM_Tree", f"data={DATA}", storage=storage)
    assert await t.open(OPEN), t.errors
    assert await t.expand("Live class", CLICK)
    assert await t.wait_for(lambda x: x.button("Start a class") is not None, CLICK)
    await t.click("Start a class", CLICK)
    code = t.find_text(bl.CODE_RE)
    assert code, t.errors
    return t, code


async def _student(bl, port: int, code: str):
    s = bl.LiveSession(port, "SVM_Tree", f"room={code}")
    assert await s.open(OPEN), s.errors
    return s


async def _to_question(bl, t, s, step: int) -> list[str]:
    """The instructor steps to ``step`` (1-based) and asks; the student follows, answers the
    first option and sees their answer: the options."""
    while t.step()[0] < step:
        k = t.step()[0]
        assert await t.click(bl.bc.PAGES["SVM_Tree"].button, CLICK, until=lambda x: x.step()[0] == k + 1) is not None
    assert await s.wait_for(lambda x: (x.step() or (0,))[0] == step, CLICK), s.errors
    await t.click("Ask the class", CLICK)
    assert await s.wait_for(lambda x: x.answer_buttons(), CLICK), s.errors
    buttons = s.answer_buttons()
    mine = re.compile("(Your answer: " + re.escape(buttons[0][1]) + r" \()")
    assert await s.click(buttons[0][0], CLICK, by_id=True, until=lambda x: x.find_text(mine) is not None)
    return [label for _, (_, label, _) in sorted(buttons.items())]


async def _tally(bl, t, options: list[str]) -> list[int] | None:
    """The tally the instructor's panel shows once it counts one answer (it refreshes every second)."""
    await t.wait_for(lambda x: bl.parse_tally(x.texts(), options) == [1] + [0] * (len(options) - 1), 30.0)
    return bl.parse_tally(t.texts(), options)


async def _reveal_reaches(bl, t, s, step: int) -> None:
    await t.click("Reveal and go on", CLICK)
    assert await s.wait_for(lambda x: x.shown().revealed and (x.step() or (0,))[0] == step + 1, CLICK), s.errors


def test_a_server_killed_mid_question_and_started_again_brings_the_class_back(redis_url):
    bl = bench_live()
    proc, url = _server(redis_url)
    port, storage = _port(url), {}   # storage: the instructor's browser's local storage

    async def before():
        t, code = await _instructor(bl, port, storage)
        s = await _student(bl, port, code)
        options = await _to_question(bl, t, s, step=2)
        assert await _tally(bl, t, options) == [1] + [0] * (len(options) - 1)
        return code, options

    try:
        code, options = protocol(before())
    finally:
        proc.kill()   # a crash: nothing is saved on the way out
        proc.wait()
    proc, url = _server(redis_url, port)

    async def after():
        # the browsers reconnect: each a new session on the new process, the instructor's with the
        # claim its local storage kept, the student's on the join link
        await bl.bc.purge_visit(port, OPEN)
        t = bl.LiveSession(port, "SVM_Tree", f"data={DATA}", storage=storage)
        assert await t.open(OPEN), t.errors
        s = await _student(bl, port, code)
        try:
            assert await t.wait_for(lambda x: x.find_text(bl.CODE_RE) == code, CLICK), "the class was not taken back"
            assert await t.wait_for(lambda x: (x.step() or (0,))[0] == 2, CLICK)
            assert await _tally(bl, t, options) == [1] + [0] * (len(options) - 1)   # the answer is still counted
            assert await s.wait_for(lambda x: (x.step() or (0,))[0] == 2 and x.answer_buttons(), CLICK), s.errors
            await _reveal_reaches(bl, t, s, step=2)
        finally:
            await t.close()
            await s.close()

    try:
        protocol(after())
    finally:
        stop_streamlit(proc)


def test_two_processes_share_a_room_and_a_student_goes_on_when_one_dies(redis_url):
    bl = bench_live()
    (a, url_a), (b, url_b) = _server(redis_url, _free_port()), _server(redis_url, _free_port())
    try:
        async def lecture():
            t, code = await _instructor(bl, _port(url_a), {})
            await bl.bc.purge_visit(_port(url_b), OPEN)
            s = await _student(bl, _port(url_b), code)   # the student's session on the other process
            try:
                assert await s.wait_for(lambda x: (x.step() or (0,))[0] == 1, CLICK), s.errors
                options = await _to_question(bl, t, s, step=2)
                assert await _tally(bl, t, options) == [1] + [0] * (len(options) - 1)
                await s.close()
                b.kill()   # the student's process dies; its browser reconnects to the one left
                b.wait()
                s = await _student(bl, _port(url_a), code)
                assert await s.wait_for(lambda x: (x.step() or (0,))[0] == 2 and x.answer_buttons(), CLICK)
                assert await _tally(bl, t, options) == [1] + [0] * (len(options) - 1)
                await _reveal_reaches(bl, t, s, step=2)
            finally:
                await t.close()
                await s.close()

        protocol(lecture())
    finally:
        stop_streamlit(a)
        stop_streamlit(b)

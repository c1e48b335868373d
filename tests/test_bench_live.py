"""The live-class benchmark's own parts: lags and missed steps from what each follower showed, the
tally the instructor's panel prints, and how a session keeps the frontend's fragment timers (no
server: the ForwardMsgs are built here as the server builds them)."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import sys

import pytest
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from apphelpers import run_coroutine
from conftest import ROOT
from test_bench_classroom import _delta, _run_of

sys.path.insert(0, str(ROOT / "benchmarks"))
_spec = importlib.util.spec_from_file_location("bench_live", ROOT / "benchmarks" / "bench_live.py")
bench = importlib.util.module_from_spec(_spec)
sys.modules["bench_live"] = bench
_spec.loader.exec_module(bench)
Shown = bench.Shown


def test_a_lag_runs_from_the_click_to_the_first_run_showing_the_step_with_the_instructors_figures():
    steps = {2: (10.0, "fig2"), 3: (12.0, "fig3"), 4: (14.0, "fig4")}
    history = [Shown(9.0, 2, "fig2"),            # before the click: another session's step 2, not this one
               Shown(10.4, 2, "old"),            # the step's text with the last step's figure: not yet
               Shown(10.9, 2, "fig2"),
               Shown(13.1, 3, "fig3"), Shown(13.5, 3, "fig3"),
               Shown(16.2, 5, "fig5")]           # step 4 never shown: missed
    lags = bench.step_lags(steps, history)
    assert lags[2] == pytest.approx(0.9) and lags[3] == pytest.approx(1.1) and lags[4] is None


def test_summarize_counts_missed_steps_and_divides_cpu_and_bytes_by_what_happened():
    lags = [{2: 0.5, 3: 1.0}, {2: 1.5, 3: None}]
    r = bench.summarize(2, lags, cpu_steps=3.0, n_steps=2, kbytes=[100.0, 300.0], cpu_idle=0.5, idle_polls=50)
    assert r["missed"] == 1 and r["lag_p50"] == 1.0 and r["lag_max"] == 1.5
    assert r["cpu_per_step"] == 1.5 and r["kb_per_follower_step"] == 100.0 and r["cpu_per_idle_poll"] == 0.01
    json.dumps(r)


def test_the_tally_is_read_from_the_instructors_lines_also_for_options_holding_a_colon():
    options = ["a", "b", "none: the chain ends"]
    texts = ["a: 3", "b: 0 ✓", "none: the chain ends: 12", "unrelated: 7"]
    assert bench.parse_tally(texts, options) == [3, 0, 12]
    assert bench.parse_tally(["a: 3"], options) is None       # a line missing: no tally read


def test_the_expected_tally_counts_each_followers_last_answer_once():
    assert bench.expected_tally([0, 2, None, 2, 1], 3) == [1, 1, 2]


def test_the_figures_digest_follows_the_specs_and_their_order():
    d = bench.figures_digest
    assert d(['{"a": 1}', '{"b": 2}']) == d(['{"a": 1}', '{"b": 2}'])
    assert d(['{"a": 1}', '{"b": 2}']) != d(['{"b": 2}', '{"a": 1}'])
    assert d(['{"a": 1}{"b": 2}']) != d(['{"a": 1}', '{"b": 2}'])


def _msg(**kind):
    msg = ForwardMsg()
    for k, v in kind.items():
        getattr(msg, k).CopyFrom(v)
    return msg.SerializeToString()


def test_a_session_runs_a_fragments_timer_until_the_server_stops_it_also_while_a_run_is_in_progress():
    """The frontend's ``setInterval`` sends whether or not a run (a click's) is in progress."""
    from streamlit.proto.AutoRerun_pb2 import AutoRerun, StopAutoRerun

    async def scenario():
        s = bench.LiveSession(port=1, page="SVM_Tree", query="room=ABCD-EFGH")
        s.handle(_delta((0, 0), "button", "stepper", label="Next ▶", id="next-id"))
        sent = []

        async def rerun(widget_states=(), fragment_id="", auto=False):
            sent.append((fragment_id, auto))
        s.rerun = rerun
        s.handle(_msg(auto_rerun=AutoRerun(interval=0.05, fragment_id="poll")))
        await asyncio.sleep(0.18)
        assert sent and all(x == ("poll", True) for x in sent)
        n = len(sent)
        click = asyncio.create_task(s.click("next-id", timeout=60, by_id=True))   # no run ends: it waits
        for _ in range(100):
            await asyncio.sleep(0.05)
            if sent[n + 1:].count(("poll", True)) >= 2:
                break
        assert not click.done() and sent[n] == ("stepper", False) and sent[n + 1:].count(("poll", True)) >= 2
        click.cancel()
        s.handle(_msg(stop_auto_rerun=StopAutoRerun(fragment_ids=["poll"])))
        n = len(sent)
        await asyncio.sleep(0.12)
        assert len(sent) == n and not s.timers

    run_coroutine(scenario())


def test_a_timer_keeps_its_own_schedule_when_sending_takes_time():
    """``setInterval`` fires at start + k * interval: a send that takes a while (a busy websocket)
    does not push the next firings back, and a firing late by more than an interval is not made
    up twice."""
    due = bench.interval_due
    assert due(0.0, 0.1, now=0.06) == 0.1     # the firing at 0 took 0.06 s: the next is still at 0.1
    assert due(0.1, 0.1, now=0.1) == pytest.approx(0.2)
    assert due(0.2, 0.1, now=0.47) == 0.47    # late: once, now

    async def scenario():
        s = bench.LiveSession(port=1, page="SVM_Tree", query="")
        at = []

        async def slow_send():
            at.append(asyncio.get_running_loop().time())
            await asyncio.sleep(0.03)
        timer = asyncio.create_task(s._every(0.05, slow_send))
        for _ in range(500):
            await asyncio.sleep(0.01)
            if len(at) >= 3:
                break
        timer.cancel()
        assert len(at) >= 3

    run_coroutine(scenario())


def _plain(**fields):
    msg = ForwardMsg()
    for k, v in fields.items():
        setattr(msg, k, v)
    return msg.SerializeToString()


def test_a_timed_run_of_another_fragment_ending_first_leaves_the_clicked_fragments_elements():
    s = bench.LiveSession(port=1, page="SVM_Tree", query="")
    new_session = ForwardMsg()
    new_session.new_session.config.max_cached_message_age = 2
    for data in [new_session.SerializeToString(), _delta((0, 0), "markdown", "stepper", body="**Step 1 of 5**"),
                 _delta((0, 1), "button", "stepper", label="Next ▶", id="next-id"),
                 _plain(script_finished=ForwardMsg.FINISHED_SUCCESSFULLY)]:
        s.handle(data)
    s.run_fragment = "stepper"         # a click asked for the stepper's run, but the poll's run ends first
    for data in [new_session.SerializeToString(), _plain(script_finished=ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY)]:
        s.handle(data)
    assert s.step() == (1, 5) and s.button("Next") is not None
    assert [h.step for h in s.history] == [1, 1]     # what it showed at each run end


def test_the_answer_buttons_are_found_by_their_key():
    s = bench.LiveSession(port=1, page="SVM_Tree", query="")
    new_session = ForwardMsg()
    new_session.new_session.config.max_cached_message_age = 2
    for data in [new_session.SerializeToString(),
                 _delta((0, 0), "button", "stepper", label="a", id="$$ID-1234-live_ans_7_0"),
                 _delta((0, 1), "button", "stepper", label="b", id="$$ID-5678-live_ans_7_1"),
                 _delta((0, 2), "button", "stepper", label="Next ▶", id="$$ID-9-tree.step_next"),
                 _plain(script_finished=ForwardMsg.FINISHED_SUCCESSFULLY)]:
        s.handle(data)
    assert {i: label for i, (_, label, _) in s.answer_buttons().items()} == {0: "a", 1: "b"}
    assert s.history[-1].question == 7 and not s.history[-1].revealed


def test_a_wait_reads_the_page_only_between_runs_as_the_figures_are_taken_at_run_ends():
    s = bench.LiveSession(port=1, page="SVM_Tree", query="")
    new_session = ForwardMsg()
    new_session.new_session.config.max_cached_message_age = 2
    revealed = lambda x: x.shown().revealed   # noqa: E731
    for data in [new_session.SerializeToString(), _delta((0, 0), "markdown", "stepper", body="**Step 3 of 5**"),
                 _plain(script_finished=ForwardMsg.FINISHED_SUCCESSFULLY),
                 new_session.SerializeToString(), _delta((0, 1), "alert", "stepper", body="Answer: b")]:
        s.handle(data)
    # the answer has come in a run that has not ended: a wait that returned now would be followed by
    # a reading of the run ends (the reveal lag) that does not hold it yet
    assert not run_coroutine(s.wait_for(revealed, 0.15))
    s.handle(_plain(script_finished=ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY))
    assert run_coroutine(s.wait_for(revealed, 0.15))
    assert bench.first_after(s.history, 0.0, lambda h: h.revealed) is not None


def test_a_full_run_drops_the_timers_of_fragments_it_no_longer_draws_as_the_frontend_does():
    from streamlit.proto.AutoRerun_pb2 import AutoRerun

    async def scenario():
        s = bench.LiveSession(port=1, page="SVM_Tree", query="room=ABCD-EFGH")
        sent = []

        async def rerun(widget_states=(), fragment_id="", auto=False):
            sent.append(fragment_id)
        s.rerun = rerun
        s.handle(_msg(auto_rerun=AutoRerun(interval=0.05, fragment_id="old-poll")))
        s.handle(_run_of("stepper"))          # a fragment run: the timers stay
        assert set(s.timers) == {"old-poll"}
        s.handle(_run_of())                   # a full run that draws the poll at another place
        s.handle(_msg(auto_rerun=AutoRerun(interval=0.05, fragment_id="new-poll")))
        timer = s.timers["new-poll"][0]
        s.handle(_msg(auto_rerun=AutoRerun(interval=0.05, fragment_id="new-poll")))
        assert s.timers["new-poll"][0] is timer  # the same interval again: the running timer stays
        sent.clear()
        await asyncio.sleep(0.18)
        assert sent and set(sent) == {"new-poll"}
        await s.close()

    run_coroutine(scenario())


def _ticker_delta(every_ms: int, fragment: str = "ticker-frag", path=(1, 0)):
    return _delta(path, "bidi_component", fragment, id="$$ID-t-live_ticker",
                  component_name="svmviz_app.live.svmviz_live_ticker", json=json.dumps({"every_ms": every_ms}))


def test_a_mounted_ticker_sets_its_trigger_on_its_own_schedule_until_it_leaves_the_page():
    """The live class's ticker element as its script runs in a browser: a timer from the moment
    the element is drawn (not the run's end), the tick trigger on its own fragment, sent also
    while a run is in progress, kept through redraws with the same data, started again when its
    data changes, and ended once a run ends without the element."""
    async def scenario():
        s = bench.LiveSession(port=1, page="SVM_Tree", query="room=ABCD-EFGH")
        sent = []

        async def rerun(widget_states=(), fragment_id="", auto=False):
            sent.append((fragment_id, [json.loads(w.json_trigger_value)[0]["event"] for w in widget_states
                                       if w.json_trigger_value]))
        s.rerun = rerun
        s.handle(_run_of())
        s.handle(_ticker_delta(50))
        await asyncio.sleep(0.18)      # the run has not ended: the element is on the page all the same
        assert len(sent) >= 2 and set(map(str, sent)) == {str(("ticker-frag", ["tick"]))}
        s.handle(_plain(script_finished=ForwardMsg.FINISHED_SUCCESSFULLY))
        timer = s.tickers["$$ID-t-live_ticker"][0]
        for data in [_run_of("ticker-frag"), _ticker_delta(50),
                     _plain(script_finished=ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY),
                     _run_of("stepper"), _plain(script_finished=ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY)]:
            s.handle(data)             # its fragment drew it again, then another fragment ran: one timer still
        assert s.tickers["$$ID-t-live_ticker"][0] is timer and not timer.done()
        s.handle(_ticker_delta(60000))  # other data: the script runs again with it
        await asyncio.sleep(0)
        assert timer.cancelled() and len(s.tickers) == 1
        n = len(sent)
        await asyncio.sleep(0.12)
        assert len(sent) == n
        for data in [_run_of(), _plain(script_finished=ForwardMsg.FINISHED_SUCCESSFULLY)]:
            s.handle(data)             # a full run without it: unmounted, its timer ends
        assert not s.tickers
        await s.close()

    run_coroutine(scenario())


def test_a_tick_names_the_trigger_streamlit_reads_for_the_element():
    from streamlit.components.v2.bidi_component.main import _make_trigger_id

    w = bench.tick_state("$$ID-abc-live_ticker")
    assert w.id == _make_trigger_id("$$ID-abc-live_ticker", "events")
    assert [e["event"] for e in json.loads(w.json_trigger_value)] == ["tick"]


def test_a_run_cut_short_leaves_what_it_drew_to_the_fragments_that_drew_it():
    """A poll's run that drew the ticker and was cut short by a click: the click's run of the
    stepper ends and the ticker stays, as the frontend clears at a run's end only in the fragments
    of that run."""
    s = bench.LiveSession(port=1, page="SVM_Tree", query="room=ABCD-EFGH")

    async def scenario():
        for data in [_run_of(), _delta((0, 0), "markdown", "stepper", body="**Step 1 of 5**"),
                     _ticker_delta(60000), _plain(script_finished=ForwardMsg.FINISHED_SUCCESSFULLY),
                     _run_of("ticker-frag"), _ticker_delta(60000),
                     _plain(script_finished=ForwardMsg.FINISHED_EARLY_FOR_RERUN),
                     _run_of("stepper"), _delta((0, 0), "markdown", "stepper", body="**Step 2 of 5**"),
                     _plain(script_finished=ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY)]:
            s.handle(data)
        assert s.step() == (2, 5)
        assert [el.WhichOneof("type") for el in s.current()] == ["markdown", "bidi_component"]
        assert len(s.tickers) == 1
        await s.close()

    run_coroutine(scenario())


def test_a_wait_sees_a_run_end_followed_at_once_by_the_next_run():
    """The instructor's tally timer keeps its session running back to back on a loaded server:
    the step its click asked for is seen at the run end that shows it, though the next run has
    started before the wait looks again."""
    async def scenario():
        s = bench.LiveSession(port=1, page="SVM_Tree", query="")
        s.handle(_run_of())
        waiting = asyncio.create_task(s.wait_for(lambda x: x.step() == (2, 5), 1.0))
        await asyncio.sleep(0.05)
        for data in [_delta((0, 0), "markdown", "stepper", body="**Step 2 of 5**"),
                     _plain(script_finished=ForwardMsg.FINISHED_SUCCESSFULLY), _run_of("tally")]:
            s.handle(data)           # one read of the websocket: no wait runs in between
        assert await waiting

    run_coroutine(scenario())


def test_a_click_ends_at_a_run_end_after_it_though_a_timer_asked_for_a_run_since():
    """The click's run ends; before the click reads how, the tally's timer sends its request (a
    new run pending): the click still ended."""
    async def scenario():
        s = bench.LiveSession(port=1, page="SVM_Tree", query="")

        class Ws:
            async def send(self, data):
                pass
        s.ws = Ws()
        for data in [_run_of(), _delta((0, 0), "button", "stepper", label="Next ▶", id="next-id"),
                     _plain(script_finished=ForwardMsg.FINISHED_SUCCESSFULLY)]:
            s.handle(data)
        click = asyncio.create_task(s.click("Next", timeout=1.0))
        await asyncio.sleep(0.05)
        for data in [_run_of("stepper"), _plain(script_finished=ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY)]:
            s.handle(data)
        timer = s.rerun(fragment_id="tally", auto=True)   # in the same turn of the loop as the run's end
        with pytest.raises(StopIteration):
            timer.send(None)
        assert await click is not None

    run_coroutine(scenario())


def test_the_claim_element_keeps_forgets_and_sends_back_the_instructors_claim_as_a_browser_does():
    """The claim element's script in one browser: ``keep`` writes the local storage, ``ask`` in a
    later session of that browser sends the claim back as the element's trigger, once per data;
    ``forget`` removes it, and an ``ask`` then sends nothing."""
    def claim_delta(data: dict):
        return _delta((1, 1), "bidi_component", "", id="$$ID-c-live_claim",
                      component_name="svmviz_app.live.svmviz_live_claim", json=json.dumps(data))

    async def scenario():
        storage, sent = {}, []

        async def rerun(widget_states=(), fragment_id="", auto=False):
            sent.append([json.loads(w.json_trigger_value)[0] for w in widget_states if w.json_trigger_value])

        first = bench.LiveSession(port=1, page="SVM_Tree", query="", storage=storage)
        first.handle(_run_of())
        first.handle(claim_delta({"keep": {"code": "ABCDEFGH", "token": "t0"}}))
        assert json.loads(storage["svmviz.live.claim"]) == {"code": "ABCDEFGH", "token": "t0"}
        again = bench.LiveSession(port=1, page="SVM_Tree", query="", storage=storage)
        again.rerun = rerun
        again.handle(_run_of())
        again.handle(claim_delta({"ask": True}))
        again.handle(claim_delta({"ask": True}))   # a redraw with the same data: the script does not run again
        await asyncio.sleep(0)
        assert sent == [[{"event": "claim", "value": storage["svmviz.live.claim"]}]]
        again.handle(claim_delta({"forget": True}))
        assert storage == {}
        third = bench.LiveSession(port=1, page="SVM_Tree", query="", storage=storage)
        third.rerun = rerun
        third.handle(_run_of())
        third.handle(claim_delta({"ask": True}))
        await asyncio.sleep(0)
        assert len(sent) == 1
        for s in (first, again, third):
            await s.close()

    run_coroutine(scenario())


@pytest.mark.browser
def test_the_session_runs_after_a_chromium_test_in_the_same_process(browser):
    """As the classroom benchmark's protocol tests: Playwright's sync API leaves its loop marked as
    running on this thread while the session's Chromium is open, and these tests follow one there."""
    browser.new_context().close()
    test_a_wait_reads_the_page_only_between_runs_as_the_figures_are_taken_at_run_ends()
    test_a_full_run_drops_the_timers_of_fragments_it_no_longer_draws_as_the_frontend_does()


def test_a_route_lag_runs_from_the_click_to_the_first_response_holding_that_step():
    steps = {2: (10.0, "a"), 3: (12.0, "b"), 4: (14.0, "c")}
    seen = [(9.5, 2), (10.4, 2), (12.1, 2), (13.0, 3)]
    lags = bench.route_lags(steps, seen)
    assert lags[2] == pytest.approx(0.4) and lags[3] == pytest.approx(1.0) and lags[4] is None


def test_the_step_elements_verdict_is_the_scripts():
    """``StepElement`` judges a payload as the element's script does (``svmviz_app.step_element``):
    a step that changes only the stepper's scope is drawn, one whose figure is still to come is
    waited for, anything else goes to the session; an element that only polls sends every change."""
    data = {"step_key": "tree.step", "frame": "F", "q": "none", "away": False, "draw": True, "version": 3,
            "scope": ["tree.geo", "tree.step"], "state": {"tree.step": 1, "tree.geo": "a", "C": 1.0}}
    step = {"k": 2, "line": "Step 3", "scope": ["tree.geo"], "figure": {"data": []}}
    payload = {"version": 4, "frame": "F", "question": None, "away": False,
               "state": {"tree.step": 2, "tree.geo": "b", "C": 1.0}, "steps": {"tree.step": step}}
    assert bench.judge(data, payload) == "draw"
    assert bench.judge(data, {**payload, "steps": {}}) == "wait"
    assert bench.judge(data, {**payload, "steps": {"tree.step": {**step, "k": 1}}}) == "wait"
    assert bench.judge(data, {**payload, "state": {**payload["state"], "C": 2.0}}) == "news"
    assert bench.judge(data, {**payload, "state": {"tree.step": 2, "tree.geo": "b"}}) == "news"
    assert bench.judge(data, {**payload, "frame": "G"}) == "news"
    assert bench.judge(data, {**payload, "question": {"qid": 1, "revealed": False}}) == "news"
    assert bench.judge(data, {**payload, "away": True}) == "news"
    assert bench.judge({**data, "draw": False}, payload) == "news"
    assert bench.judge({**data, "draw": False}, {**payload, "version": 3, "state": data["state"]}) == "wait"

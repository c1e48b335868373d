"""The protocol-level classroom benchmark's own parts: statistics, the round record, how a page's
step is read and how a student keeps the page from Streamlit's messages (no server: the
ForwardMsgs are built here as the server builds them). One slow test runs it against a server."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

import numpy as np
import pytest
from streamlit.proto.Alert_pb2 import Alert
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from apphelpers import run_coroutine
from conftest import ROOT

_spec = importlib.util.spec_from_file_location("bench_classroom", ROOT / "benchmarks" / "bench_classroom.py")
bench = importlib.util.module_from_spec(_spec)
sys.modules["bench_classroom"] = bench     # dataclasses look their module up while the file runs
_spec.loader.exec_module(bench)


@pytest.mark.parametrize("xs", [[3.0], [1.0, 2.0], [5.0, 1.0, 4.0, 2.0, 3.0], list(np.linspace(0, 7, 23) ** 2)])
@pytest.mark.parametrize("q", [0, 50, 95, 100])
def test_percentile_is_numpys_linear_percentile(xs, q):
    assert bench.percentile(xs, q) == pytest.approx(np.percentile(xs, q))


def test_percentile_skips_missing_values_and_is_nan_for_none():
    assert bench.percentile([None, 2.0, None, 4.0], 50) == 3.0
    assert np.isnan(bench.percentile([], 50)) and np.isnan(bench.percentile([None], 95))


def test_a_click_advanced_only_when_the_step_moved_by_exactly_one():
    assert bench.Click(before=(3, 10), after=(4, 10)).advanced
    assert not bench.Click(before=(3, 10), after=(3, 10)).advanced     # the click was lost
    assert not bench.Click(before=(3, 10), after=(5, 10)).advanced     # two steps: another click's run
    assert not bench.Click(before=(3, 10)).advanced                     # the run never ended


def test_summarize_counts_lost_clicks_timeouts_and_divides_cpu_by_what_happened():
    clicks = [bench.Click(before=(1, 9), after=(2, 9), latency=0.5, kbytes=30.0),
              bench.Click(before=(2, 9), after=(3, 9), latency=1.5, kbytes=50.0, fragment=True),
              bench.Click(before=(3, 9), after=(3, 9), latency=1.0, kbytes=40.0, fit_progress=True),
              bench.Click(before=(1, 9), kbytes=0.0)]
    r = bench.summarize(3, [2.0, None, 4.0], clicks, cpu_open=3.0, cpu_clicks=2.0)
    assert (r["n"], r["opened"], r["clicks"]) == (3, 2, 4)
    assert (r["lost"], r["timeouts"], r["fragment_clicks"], r["refits"]) == (2, 1, 1, 1)
    assert r["cpu_per_open"] == 1.5 and r["cpu_per_click"] == 0.5
    assert r["click_p50"] == 1.0 and r["click_max"] == 1.5 and r["open_p95"] == pytest.approx(3.9)
    assert r["kb_per_click"] == 30.0
    json.dumps(r)      # the record is plain JSON


def test_the_printed_row_lines_up_with_the_header():
    r = bench.summarize(10, [1.0] * 10, [bench.Click(before=(1, 5), after=(2, 5), latency=0.2)], 1.0, 0.1)
    r.update(label="10", rss_before=300.0, rss_open=350.0, rss_closed=320.0, health_p50=0.004,
             health_max=0.3, load_start=(1.5, 1.0, 0.5), load_end=(2.0, 1.2, 0.6), errors=[])
    head, line = bench.header(), bench.row(r)
    assert len(head) == len(line)
    assert line.split()[:5] == ["10", "10/10", "1", "0", "0"]


@pytest.mark.parametrize("page, kind, label, text, step", [
    ("SVM_Tree", "markdown", "", "**Step 3 of 17** — 412 samples in play.", (3, 17)),
    ("SVM_Tree", "markdown", "", "The final tree and its metrics.", None),
    ("SVM_Tree", "metric", "iteration t", "3 / 17", None),
    ("Solvers", "metric", "iteration t", "0 / 250", (0, 250)),
    ("Solvers", "metric", "objective", "1 / 2", None),
    ("Solvers", "markdown", "", "**Step 3 of 17**", None),
    ("Convex_Hulls", "markdown", "", "**Step 12 of 13** — μ = μ\\* = 0\\.006067: the reduced hulls just touch", (12, 13)),
    ("Convex_Hulls", "metric", "distance of the reduced hulls", "0.1531", None),
    ("Guard_Vectors", "markdown", "", "**Step 7 of 17** — Test 6 of 15, point 21", (7, 17)),
    ("Guard_Vectors", "markdown", "", "Step through μ below", None),
    ("Tree_Decomposition", "markdown", "", "**Step 4 of 22** — Split 3 of 8: 4 leaves, 2 of them pure\\.", (4, 22)),
    ("DAG_SVM", "markdown", "", "**Step 2 of 8** — Level 1: 0 vs 2, D = +1\\.238: not 2\\.", (2, 8)),
    ("Scatter_SVM", "markdown", "", "**Step 7 of 16** — Iteration 11: scatter 0\\.3671", (7, 16)),
])
def test_each_page_profile_reads_its_step_from_its_own_element(page, kind, label, text, step):
    assert bench.PAGES[page].step_of(kind, label, text) == step


@pytest.mark.parametrize("page, opens", [("SVM_Tree", ""), ("Tree_Decomposition", "td.tab=4"),
                                         ("DAG_SVM", "dag.tab=4"), ("Scatter_SVM", "scatter.tab=3")])
def test_the_default_link_opens_the_page_s_stepper(page, opens):
    query = bench.default_query(page)
    assert (opens in query.split("&")) if opens else "tab" not in query


def test_every_profile_clicks_the_button_the_step_controls_draw():
    src = (ROOT / "svmviz_app" / "stepper.py").read_text()
    for profile in bench.PAGES.values():
        assert f'"{profile.button}' in src


# ------------------------------------------------------------------ a student's view of the page
def _delta(path, element_kind, fragment_id="", **fields):
    msg = ForwardMsg()
    msg.metadata.delta_path[:] = list(path)
    msg.delta.fragment_id = fragment_id
    el = getattr(msg.delta.new_element, element_kind)
    for k, v in fields.items():
        setattr(el, k, v)
    return msg.SerializeToString()


def _new_session():
    msg = ForwardMsg()
    msg.new_session.config.max_cached_message_age = 2
    return msg.SerializeToString()


def _finished(status):
    msg = ForwardMsg()
    msg.script_finished = status
    return msg.SerializeToString()


def _student():
    return bench.Student(port=1, page="SVM_Tree", query="data=fourclass", profile=bench.PAGES["SVM_Tree"])


def test_a_full_run_drops_the_elements_it_did_not_send():
    s = _student()
    for data in [_new_session(), _delta((0, 0), "markdown", body="**Step 1 of 5**"),
                 _delta((0, 1), "button", label="Next ▶", id="next-id"),
                 _delta((0, 2), "markdown", body="an old note"), _finished(ForwardMsg.FINISHED_SUCCESSFULLY)]:
        s.handle(data)
    assert s.step() == (1, 5) and s.button("Next") == ("next-id", False, "")
    for data in [_new_session(), _delta((0, 0), "markdown", body="**Step 2 of 5**"),
                 _delta((0, 1), "button", label="Next ▶", id="next-id"), _finished(ForwardMsg.FINISHED_SUCCESSFULLY)]:
        s.handle(data)
    assert s.step() == (2, 5)
    assert [el.markdown.body for el in s.current() if el.WhichOneof("type") == "markdown"] == ["**Step 2 of 5**"]


def test_a_fragment_run_replaces_only_its_fragments_elements():
    s = _student()
    for data in [_new_session(), _delta((0, 0), "markdown", body="the page's title"),
                 _delta((0, 1), "markdown", "frag", body="**Step 1 of 5**"),
                 _delta((0, 2), "button", "frag", label="Next ▶", id="next-id"),
                 _delta((0, 3), "markdown", "frag", body="step 1's note"), _finished(ForwardMsg.FINISHED_SUCCESSFULLY)]:
        s.handle(data)
    assert s.button("Next") == ("next-id", False, "frag")     # the click must name the fragment
    s.run_fragment = "frag"
    for data in [_new_session(), _delta((0, 1), "markdown", "frag", body="**Step 2 of 5**"),
                 _delta((0, 2), "button", "frag", label="Next ▶", id="next-id"),
                 _finished(ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY)]:
        s.handle(data)
    bodies = [el.markdown.body for el in s.current() if el.WhichOneof("type") == "markdown"]
    assert bodies == ["the page's title", "**Step 2 of 5**"]    # outside kept, the fragment's stale note gone


def test_a_run_ended_early_for_a_rerun_is_not_the_end_and_errors_are_collected():
    s = _student()
    s.handle(_new_session())
    s.handle(_delta((0, 0), "alert", body="cannot fit", format=Alert.ERROR))
    s.handle(_finished(ForwardMsg.FINISHED_EARLY_FOR_RERUN))
    assert not s.finished.is_set()
    s.handle(_finished(ForwardMsg.FINISHED_SUCCESSFULLY))
    assert s.finished.is_set() and s.run_errors == ["st.error: cannot fit"]


def test_a_cached_message_comes_back_from_its_hash():
    s = _student()
    full = ForwardMsg()
    full.metadata.delta_path[:] = [0, 0]
    full.metadata.cacheable = True
    full.hash = "h1"
    full.delta.new_element.markdown.body = "**Step 4 of 9**"
    s.handle(_new_session())
    s.handle(full.SerializeToString())
    s.handle(_finished(ForwardMsg.FINISHED_SUCCESSFULLY))
    assert "h1" in s.cache
    ref = ForwardMsg()
    ref.metadata.delta_path[:] = [0, 0]
    ref.ref_hash = "h1"
    s.handle(_new_session())
    s.handle(ref.SerializeToString())
    s.handle(_finished(ForwardMsg.FINISHED_SUCCESSFULLY))
    assert s.step() == (4, 9) and not s.run_errors


def _cached(path, h, fragment_id=""):
    full = ForwardMsg()
    full.metadata.delta_path[:] = list(path)
    full.metadata.cacheable = True
    full.hash = h
    full.delta.fragment_id = fragment_id
    full.delta.new_element.markdown.body = f"message {h}"
    return full.SerializeToString()


def _run_of(*fragment_ids):
    msg = ForwardMsg()
    msg.new_session.config.max_cached_message_age = 2
    msg.metadata.run.fragment_ids.extend(fragment_ids)
    return msg.SerializeToString()


def test_the_message_cache_ages_as_the_frontends_only_by_runs_of_a_messages_fragment():
    """A poll's fragment runs, however many, do not drop the stepper's figure: the server still
    sends it by its hash at the next step, and the frontend has it."""
    s = _student()
    for data in [_run_of(), _cached((0, 0), "page"), _cached((0, 1), "figure", "stepper"),
                 _finished(ForwardMsg.FINISHED_SUCCESSFULLY)]:
        s.handle(data)
    for _ in range(5):
        for data in [_run_of("poll"), _finished(ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY)]:
            s.handle(data)
    assert {"page", "figure"} <= set(s.cache)
    for _ in range(3):
        for data in [_run_of("stepper"), _finished(ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY)]:
            s.handle(data)
    assert "figure" not in s.cache and "page" in s.cache   # unused for more than 2 of its fragment's runs
    for _ in range(3):
        for data in [_run_of(), _finished(ForwardMsg.FINISHED_SUCCESSFULLY)]:
            s.handle(data)
    assert "page" not in s.cache


def test_a_run_ending_after_a_newer_request_was_sent_does_not_age_the_cache():
    """The frontend ages its cache at a run's end only when a run started since its last request:
    the hashes that request named must still be there when the server answers it."""
    async def scenario():
        s = _student()

        class Ws:
            async def send(self, data):
                pass
        s.ws = Ws()
        for data in [_run_of(), _cached((0, 0), "figure"), _finished(ForwardMsg.FINISHED_SUCCESSFULLY)]:
            s.handle(data)
        for data in [_run_of(), _finished(ForwardMsg.FINISHED_SUCCESSFULLY)]:
            s.handle(data)                    # "figure" unused for 2 runs: one more and it goes
        s.handle(_run_of())
        await s.rerun()                       # sent while that run is in progress, naming "figure"
        s.handle(_finished(ForwardMsg.FINISHED_SUCCESSFULLY))
        assert "figure" in s.cache
        ref = ForwardMsg()
        ref.metadata.delta_path[:] = [0, 0]
        ref.ref_hash = "figure"
        for data in [_run_of(), ref.SerializeToString(), _finished(ForwardMsg.FINISHED_SUCCESSFULLY)]:
            s.handle(data)
        assert not s.run_errors

    run_coroutine(scenario())


def test_widget_states_follow_the_server_value_else_the_kept_one_else_the_default():
    s = _student()
    s.handle(_new_session())
    s.handle(_delta((1, 0), "checkbox", id="cb", default=True))
    assert s.widgets["cb"].bool_value is True
    s.widgets["cb"].bool_value = False                          # the student unticked it
    s.handle(_delta((1, 0), "checkbox", id="cb", default=True))
    assert s.widgets["cb"].bool_value is False
    s.handle(_delta((1, 0), "checkbox", id="cb", default=True, value=True, set_value=True))
    assert s.widgets["cb"].bool_value is True
    s.handle(_delta((1, 1), "button", id="b", label="Next"))
    assert "b" not in s.widgets                                 # a button's trigger is sent only on its click


def _expander(path, label, wid, expanded):
    msg = ForwardMsg()
    msg.metadata.delta_path[:] = list(path)
    exp = msg.delta.add_block.expandable
    exp.label, exp.id, exp.expanded = label, wid, expanded
    return msg.SerializeToString()


def test_an_expander_that_reruns_is_kept_as_a_widget_and_opened_by_a_rerun_carrying_its_new_state():
    from streamlit.proto.BackMsg_pb2 import BackMsg

    s = _student()
    for data in [_new_session(), _expander((1, 0), "Live class", "exp-id", False),
                 _finished(ForwardMsg.FINISHED_SUCCESSFULLY)]:
        s.handle(data)
    assert [(w.id, w.bool_value) for w in s.widget_states()] == [("exp-id", False)]
    sent = []

    class Socket:       # the server's answer: a run that draws the expander open
        async def send(self, data):
            sent.append(BackMsg.FromString(data))
            for d in [_new_session(), _expander((1, 0), "Live class", "exp-id", True),
                      _finished(ForwardMsg.FINISHED_SUCCESSFULLY)]:
                s.handle(d)

    s.ws = Socket()
    assert run_coroutine(s.expand("Live class", 5.0))
    (states,) = [list(m.rerun_script.widget_states.widgets) for m in sent]
    assert [(w.id, w.bool_value) for w in states] == [("exp-id", True)]
    assert s.widgets["exp-id"].bool_value is True
    assert not run_coroutine(s.expand("Share this view", 5.0)) and "Share this view" in s.errors[-1]


def test_a_select_slider_sends_its_options_labels_a_slider_its_numbers():
    s = _student()
    s.handle(_new_session())
    msg = ForwardMsg()
    msg.metadata.delta_path[:] = [1, 0]
    sel = msg.delta.new_element.slider
    sel.id, sel.options[:], sel.default[:] = "tol", ["0.1", "0.01", "0.001"], [2]
    s.handle(msg.SerializeToString())
    assert list(s.widgets["tol"].string_array_value.data) == ["0.001"]
    sel.raw_value[:], sel.set_value = ["0.01"], True
    s.handle(msg.SerializeToString())
    assert list(s.widgets["tol"].string_array_value.data) == ["0.01"]
    num = ForwardMsg()
    num.metadata.delta_path[:] = [1, 1]
    num.delta.new_element.slider.id = "nu"
    num.delta.new_element.slider.default[:] = [0.25]
    s.handle(num.SerializeToString())
    assert list(s.widgets["nu"].double_array_value.data) == [0.25]


@pytest.mark.slow
def test_the_benchmark_runs_a_small_class_against_its_own_server(tmp_path):
    # as its own command, as it is run: its asyncio.run and SIGTERM handler need a process of their own
    out = tmp_path / "run.json"
    code = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_classroom.py"), "--sessions", "2",
                           "--clicks", "2", "--think", "0.2,0.5", "--no-warmup", "--json", str(out)],
                          cwd=ROOT, timeout=900).returncode
    rec = json.loads(out.read_text())
    assert code == 0
    (r,) = rec["rows"]
    assert (r["opened"], r["clicks"], r["lost"], r["errors"]) == (2, 4, 0, [])
    assert r["cpu_per_click"] > 0 and r["kb_per_click"] > 0 and r["health_probes"] > 0


@pytest.mark.browser
def test_the_protocol_client_runs_after_a_chromium_test_in_the_same_process(browser):
    """Playwright's sync API leaves its event loop marked as running on this thread between its
    calls, for as long as the session's Chromium is open: a protocol test that a browser test
    preceded in the same process (``-n 0``, or the same xdist worker) ran into asyncio.run's
    refusal. The tests above run after a browser call here, as they would then."""
    browser.new_context().close()
    test_a_run_ending_after_a_newer_request_was_sent_does_not_age_the_cache()
    test_an_expander_that_reruns_is_kept_as_a_widget_and_opened_by_a_rerun_carrying_its_new_state()

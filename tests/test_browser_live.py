"""Live class in Chromium: an instructor starts a class on the SVM Tree page, two students join by
the link, follow a step change, answer the instructor's question and see the reveal."""

from __future__ import annotations

import re

import pytest

from conftest import start_streamlit, stop_streamlit, wait_for_app

# one server for the module (the class rooms live in its process): its tests stay on one worker
pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("live_server")]

DATA = "gen:checkerboard;n_classes=2;n_per_class=40;overlap=0.1;seed=2"


@pytest.fixture(scope="module")
def live_url():
    """A server of its own: the class rooms live in the server process."""
    proc, url = start_streamlit()
    yield url
    stop_streamlit(proc)


def _step(page) -> str:
    page.wait_for_selector("text=/Step \\d+ of \\d+/")
    return re.search(r"Step (\d+) of (\d+)", page.inner_text("[data-testid='stMain']")).group(0)


def _watch_runs(page) -> list:
    """The page's websocket frames as they pass: ("in" | "out", payload)."""
    frames = []

    def on_ws(ws):
        ws.on("framereceived", lambda payload: frames.append(("in", payload)))
        ws.on("framesent", lambda payload: frames.append(("out", payload)))
    page.on("websocket", on_ws)
    return frames


def _runs_and_requests(frames) -> tuple[list[str], list[str]]:
    """How the runs in ``frames`` ended ("app" or "fragment") and what the browser asked for: "tick"
    (a rerun with the live class's ticker or step element trigger, the room poll), "timed" (a fragment's
    ``run_every``) or "other"."""
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    ends, asked = [], []
    for way, payload in frames:
        if not isinstance(payload, bytes):
            continue
        if way == "in":
            msg = ForwardMsg()
            msg.ParseFromString(payload)
            if msg.WhichOneof("type") == "script_finished":
                ends.append({ForwardMsg.FINISHED_SUCCESSFULLY: "app",
                             ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY: "fragment"}.get(msg.script_finished, "other"))
        else:
            msg = BackMsg()
            msg.ParseFromString(payload)
            if msg.WhichOneof("type") == "rerun_script":
                rs = msg.rerun_script
                asked.append("tick" if any('"tick"' in w.json_trigger_value or '"news"' in w.json_trigger_value
                                           for w in rs.widget_states.widgets)
                             else "timed" if rs.is_auto_rerun else "other")
    return ends, asked


def _sidebar_expander(page):
    exp = page.locator("[data-testid='stSidebar'] [data-testid='stExpander']", has_text="Live class")
    if not exp.locator("button", has_text=re.compile("Start a class|End the class|Leave")).first.is_visible():
        page.get_by_text("Live class").click()
    return exp


def test_students_follow_the_instructor_and_answer(browser, live_url, artifacts_dir):
    ctxs = [browser.new_context(viewport={"width": 1300, "height": 1000}) for _ in range(3)]
    for c in ctxs:
        c.set_default_timeout(150000)   # two cores shared with other work: a cold page takes a while
    teacher, *students = [c.new_page() for c in ctxs]
    frames = [_watch_runs(s) for s in students]
    try:
        teacher.goto(live_url)   # the app's first run sets up its navigation
        teacher.wait_for_selector("text=Live class")
        teacher.goto(f"{live_url}/SVM_Tree?data={DATA}")
        teacher.wait_for_selector("text=Live class")
        wait_for_app(teacher)
        assert _step(teacher).startswith("Step 1 of")
        _sidebar_expander(teacher).locator("button", has_text="Start a class").first.click()
        wait_for_app(teacher)
        link = teacher.locator("[data-testid='stSidebar'] code", has_text="room=").inner_text().strip()
        code = link.split("room=")[1]
        assert re.fullmatch(r"[2-9A-HJ-NP-Z]{4}-[2-9A-HJ-NP-Z]{4}", code)
        assert link.startswith(f"{live_url}/SVM_Tree?room=")   # the instructor's page, no token
        for s in students:
            s.goto(link, wait_until="commit")
            s.wait_for_selector("text=SVM decision tree")
            wait_for_app(s)
            assert _step(s) == _step(teacher)
            assert "room=" in s.url and "token" not in s.url
            # the join's last app run: the browser answered which client it is and keeps the id
            # (svmviz_app/clients.py); from then on a step reruns the stepper alone
            s.wait_for_function("() => localStorage.getItem('svmviz.client')")
            wait_for_app(s)
        for f in frames:
            f.clear()
        wait_for_app(teacher)   # its class panel shows the students who joined: the click after that run
        teacher.get_by_role("button", name="Next ▶").click()
        teacher.wait_for_selector("text=Step 2 of")
        for s in students:
            s.wait_for_selector("text=Step 2 of")
            # only the step changed: the student's browser drew it from the class's step route, the
            # figure the instructor's page drew, without a script run (svmviz_app/step_element.py)
            s.wait_for_selector(".svmviz-step-figure[data-step='1'] .main-svg")
            assert "step=2" in s.url or "tree.step=1" in s.url, s.url   # the address bar names the step shown
        for i, s in enumerate(students):
            s.screenshot(path=str(artifacts_dir / f"live_student{i + 1}_step2.png"), full_page=False)
        for f in frames:
            ends, asked = _runs_and_requests(f)
            assert ends == [] and asked == [], (ends, asked)
        # a question: the students answer, the instructor sees the tally and reveals
        wait_for_app(teacher)   # the Ask button of step 2, not the one still shown from step 1
        teacher.get_by_role("button", name=re.compile("Ask the class")).click()
        for s in students:
            s.wait_for_selector("text=which candidate does the tree choose")
        for s in students:
            wait_for_app(s)
        for s in students:   # the candidates of the next step are labelled a-d (Fig. 4.1)
            s.get_by_role("button", name="a", exact=True).click()
        teacher.wait_for_selector("text=2 answer(s)")
        for i, s in enumerate(students):
            s.screenshot(path=str(artifacts_dir / f"live_student{i + 1}_question.png"), full_page=False)
        teacher.screenshot(path=str(artifacts_dir / "live_instructor_tally.png"), full_page=False)
        wait_for_app(teacher)
        for f in frames:
            f.clear()
        teacher.get_by_role("button", name="Reveal and go on").click()
        teacher.wait_for_selector("text=Step 3 of")
        for s in students:
            s.wait_for_selector("text=Step 3 of")
            s.wait_for_selector("text=/Answer: /")
            wait_for_app(s)
        for f in frames:   # the reveal (asked in the stepper's view) and the next step: the stepper alone
            ends, asked = _runs_and_requests(f)
            assert set(asked) <= {"tick"} and "fragment" in ends and "app" not in ends, (ends, asked)
        students[0].screenshot(path=str(artifacts_dir / "live_student1_revealed.png"), full_page=False)
        # a student detaches, the class moves on, re-joining snaps back
        _sidebar_expander(students[1]).locator("button", has_text="Detach").first.click()
        wait_for_app(students[1])
        teacher.get_by_role("button", name="Next ▶").click()
        teacher.wait_for_selector("text=Step 4 of")
        students[0].wait_for_selector("text=Step 4 of")
        students[1].wait_for_timeout(2500)
        assert _step(students[1]).startswith("Step 3 of")
        _sidebar_expander(students[1]).locator("button", has_text="Re-join").first.click()
        students[1].wait_for_selector("text=Step 4 of")
    except Exception:
        for i, p in enumerate([teacher, *students]):
            p.screenshot(path=str(artifacts_dir / f"live_failure_{i}.png"))
        raise
    finally:
        for c in ctxs:
            c.close()

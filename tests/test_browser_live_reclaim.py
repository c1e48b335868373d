"""The instructor comes back, in Chromium: their tab is closed in the middle of a question, the
student is told the instructor is away and keeps their place; a new tab of the instructor's browser
takes the class back where it was (page, step, open question, tally), and the reveal reaches the
student."""

from __future__ import annotations

import re

import pytest

from conftest import start_streamlit, stop_streamlit, wait_for_app
from test_browser_live import DATA, _sidebar_expander, _step

# one server (and Redis) for the module: its tests stay on one worker, and as a unit of two they
# are handed out before the single tests (the longest start first)
pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("live_reclaim")]


# Students are told the instructor is away after 10 s of silence on this server (60 s by default):
# the instructor's open page speaks every second, and the test waits for the notice, not the time.
AWAY_AFTER_S = "10"


@pytest.fixture(scope="module")
def live_url(redis_url):
    proc, url = start_streamlit({"SVMVIZ_ROOMS": redis_url, "SVMVIZ_AWAY_AFTER": AWAY_AFTER_S})
    yield url
    stop_streamlit(proc)


def _contexts(browser):
    """Two browsers (the instructor's, a student's) at 1280 x 720, patient on a shared machine."""
    ctxs = [browser.new_context(viewport={"width": 1280, "height": 720}) for _ in range(2)]
    for c in ctxs:
        c.set_default_timeout(150000)
    return ctxs


def _start_class(teacher, live_url) -> str:
    """The instructor starts a class on the SVM Tree page: the students' link."""
    teacher.goto(live_url)
    teacher.wait_for_selector("text=Live class")
    teacher.goto(f"{live_url}/SVM_Tree?data={DATA}")
    wait_for_app(teacher)
    _sidebar_expander(teacher).locator("button", has_text="Start a class").first.click()
    wait_for_app(teacher)
    return teacher.locator("[data-testid='stSidebar'] code", has_text="room=").inner_text().strip()


def test_the_instructor_closes_the_tab_mid_question_and_a_new_tab_takes_the_class_back(browser, live_url,
                                                                                       artifacts_dir):
    teacher_ctx, student_ctx = _contexts(browser)
    teacher, student = teacher_ctx.new_page(), student_ctx.new_page()
    try:
        link = _start_class(teacher, live_url)
        code = link.split("room=")[1]
        student.goto(link, wait_until="commit")
        student.wait_for_selector("text=SVM decision tree")
        wait_for_app(student)
        teacher.get_by_role("button", name="Next ▶").click()
        student.wait_for_selector("text=Step 2 of")
        wait_for_app(teacher)
        teacher.get_by_role("button", name=re.compile("Ask the class")).click()
        student.wait_for_selector("text=which candidate does the tree choose")
        wait_for_app(student)
        student.get_by_role("button", name="a", exact=True).click()
        teacher.wait_for_selector("text=1 answer(s)")
        teacher.close()   # the instructor's tab is gone, mid-question

        student.wait_for_selector("text=The instructor is away", timeout=90000)
        assert _step(student).startswith("Step 2 of")   # in its place, the question still open
        assert student.get_by_text("which candidate does the tree choose").first.is_visible()
        student.screenshot(path=str(artifacts_dir / "live_student_instructor_away.png"))

        back = teacher_ctx.new_page()   # a new tab of the same browser, opened on the home page
        back.goto(live_url)
        back.wait_for_selector("text=/Step 2 of/")   # the class's page and step, taken back
        wait_for_app(back)
        _sidebar_expander(back)
        back.wait_for_selector(f"text={code}")
        back.wait_for_selector("text=1 answer(s)")   # the tally kept its answer
        assert "token" not in back.url and code not in back.url
        back.screenshot(path=str(artifacts_dir / "live_instructor_reclaimed.png"))
        student.wait_for_selector("text=The instructor is away", state="detached", timeout=30000)
        back.get_by_role("button", name="Reveal and go on").click()
        student.wait_for_selector("text=Step 3 of")
        student.wait_for_selector("text=/Answer: /")
        student.screenshot(path=str(artifacts_dir / "live_student_after_reclaim.png"))
    except Exception:
        for i, p in enumerate([*teacher_ctx.pages, student]):
            p.screenshot(path=str(artifacts_dir / f"live_reclaim_failure_{i}.png"))
        raise
    finally:
        teacher_ctx.close()
        student_ctx.close()


def test_a_students_network_drops_for_30_s_and_nothing_is_lost(browser, live_url, artifacts_dir):
    teacher_ctx, student_ctx = _contexts(browser)
    teacher, student = teacher_ctx.new_page(), student_ctx.new_page()
    try:
        link = _start_class(teacher, live_url)
        student.goto(link, wait_until="commit")
        student.wait_for_selector("text=SVM decision tree")
        wait_for_app(student)
        student_ctx.set_offline(True)   # the student's network is gone...
        teacher.get_by_role("button", name="Next ▶").click()
        teacher.wait_for_selector("text=Step 2 of")
        wait_for_app(teacher)
        teacher.get_by_role("button", name=re.compile("Ask the class")).click()
        teacher.wait_for_selector("text=0 answer(s)")
        teacher.wait_for_timeout(30000)
        student_ctx.set_offline(False)  # ...for 30 s
        student.wait_for_selector("text=Step 2 of")
        student.wait_for_selector("text=which candidate does the tree choose")
        wait_for_app(student)
        student.get_by_role("button", name="a", exact=True).click()
        teacher.wait_for_selector("text=1 answer(s)")   # the seat and the answer count
        student.screenshot(path=str(artifacts_dir / "live_student_after_30s_offline.png"))
    except Exception:
        for i, p in enumerate([teacher, student]):
            p.screenshot(path=str(artifacts_dir / f"live_offline_failure_{i}.png"))
        raise
    finally:
        teacher_ctx.close()
        student_ctx.close()

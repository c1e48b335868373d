"""Seats per browser in Chromium: two tabs of one browser reaching the server over the network
(not ``localhost``) join a class as one student, whose id the browser keeps in its local storage;
another browser is another student; the instructor's seats list shows them by address."""

from __future__ import annotations

import re

import pytest

from conftest import start_streamlit, stop_streamlit, wait_for_app
from svmviz_app.join_address import lan_addresses

pytestmark = [pytest.mark.browser]

DATA = "gen:checkerboard;n_classes=2;n_per_class=40;overlap=0.1;seed=2"


def _following(teacher) -> int:
    text = teacher.inner_text("[data-testid='stSidebar']")
    return int(re.search(r"(\d+) student\(s\) following", text).group(1))


def _until(teacher, n: int) -> None:
    for _ in range(60):   # the instructor's box refreshes every second
        if _following(teacher) == n:
            return
        teacher.wait_for_timeout(500)
    assert _following(teacher) == n


def test_tabs_of_one_browser_hold_one_seat(browser, artifacts_dir):
    lan = lan_addresses()
    if not lan:
        pytest.skip("no network address on this machine: every session would be localhost's")
    proc, url = start_streamlit(address="0.0.0.0")
    port = url.rsplit(":", 1)[1]
    ctx_teacher, ctx_a, ctx_b = (browser.new_context(viewport={"width": 1280, "height": 720}) for _ in range(3))
    try:
        teacher = ctx_teacher.new_page()
        teacher.goto(f"http://127.0.0.1:{port}")   # the app's first run sets up its navigation
        teacher.wait_for_selector("text=Live class", timeout=90000)
        teacher.goto(f"http://127.0.0.1:{port}/SVM_Tree?data={DATA}")
        teacher.wait_for_selector("text=Live class", timeout=90000)
        wait_for_app(teacher)
        teacher.get_by_text("Live class").click()
        teacher.get_by_role("button", name="Start a class").click()
        teacher.wait_for_selector(".svmviz-join-code")
        code = teacher.locator(".svmviz-join-code").first.inner_text().strip()
        link = f"http://{lan[0]}:{port}/SVM_Tree?room={code}"
        tabs = [ctx_a.new_page(), ctx_a.new_page()]   # one browser, two tabs
        for tab in tabs:
            tab.goto(link)
            tab.wait_for_selector("text=Following the instructor.", timeout=90000)
        held = tabs[0].evaluate("localStorage.getItem('svmviz.client')")
        assert held and held == tabs[1].evaluate("localStorage.getItem('svmviz.client')")
        _until(teacher, 1)
        other = ctx_b.new_page()
        other.goto(link)
        other.wait_for_selector("text=Following the instructor.", timeout=90000)
        assert other.evaluate("localStorage.getItem('svmviz.client')") not in (None, held)
        _until(teacher, 2)
        teacher.get_by_text("Show the seats").click()
        teacher.wait_for_selector(f"text={lan[0]}: 2 seat(s)")
        teacher.screenshot(path=str(artifacts_dir / "live_seats_instructor.png"))
    finally:
        for c in (ctx_teacher, ctx_a, ctx_b):
            c.close()
        stop_streamlit(proc)

"""In a real server, work nobody waits for stops (a closed tab must not keep burning the CPU that
the other students share).

A ``streamlit run serve.py`` server of its own (its CPU time must be this test's alone) and headless
Chromium: open the Tree decomposition page by a link that sets a large generated data set and the
7 × 9 θ grid of Chang, Guo, Lin and Lu (2009) (839 leaf SVMs), wait until the fit is visibly
running and the server burns CPU, close the tab, and require the server's CPU time (utime + stime
of /proc/<pid>/stat) to stop growing within a bounded settling time. Closing the tab ends the
session's websocket; Streamlit then asks the session's script to stop, and the page's progress
callback (``svmviz_app.widgets.Progress``), called after every leaf SVM, raises there.

The Stop button: the work stops the same way, the page shows no result of the fit before (only
the new controls and the stopped bar), and the next run shows results that match its controls.
Within the classroom budget the longest fit a link may ask for takes only seconds of CPU on a fast
machine, about as long as a loaded machine takes to show the page its progress: the test holds the
server still (SIGSTOP, as a busy machine's scheduler does) from the moment the page shows the fit
running until its Stop request is on its way, so Stop always reaches a fit that is still running,
however fast the machine is.
"""

from __future__ import annotations

import os
import re
import signal
from pathlib import Path
import time
import urllib.parse
import urllib.request

import pytest

from conftest import start_streamlit, stop_streamlit, wait_for_app

pytestmark = pytest.mark.browser

PAPER_GRID = "Chang et al. (2009) 7 × 9 (C 10⁻¹…10⁵, γ 10⁻⁴…10⁴)"
# 1,650 points, 3 overlapping classes: the paper's grid on them is just inside the search's work
# bound (the classroom budget's search_work), the longest fit one request may ask for
DATA = "gen:interlaced;level=4;n_per_class=550;seed=0"
# 1,120 points, 2 overlapping classes: the global comparison over the paper's grid just inside the
# bound (its largest C are the slow solves)
COMPARE_DATA = "gen:checkerboard;n_classes=2;n_per_class=560;overlap=1.0;seed=0"
TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """utime + stime of the process (all its threads), in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK   # fields 14 and 15 of proc(5)


def cpu_rate(pid: int, seconds: float) -> float:
    """CPU seconds per second used by the process over the next ``seconds``."""
    c0, t0 = cpu_seconds(pid), time.monotonic()
    time.sleep(seconds)
    return (cpu_seconds(pid) - c0) / (time.monotonic() - t0)


@pytest.fixture
def own_server():
    proc, url = start_streamlit()
    proc.url = url
    yield proc, url, Path(proc.log_path)   # the server's output goes to this file (start_streamlit)
    stop_streamlit(proc)


def wait_for_running_fit(page) -> tuple[int, int]:
    """Wait (bounded) until the TD fit has reported at least one leaf SVM; (done, total)."""
    bar = page.locator('[data-testid="stProgress"]').filter(has_text="ceiling-size search")
    bar.first.wait_for(timeout=180_000)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        m = re.search(r"\((\d+)/(\d+)\)", bar.first.inner_text()) if bar.count() else None
        if m and int(m.group(1)) >= 1:
            done, total = int(m.group(1)), int(m.group(2))
            assert total > 2 * done and total > 500, (done, total)   # far from finished
            return done, total
        page.wait_for_timeout(250)
    pytest.fail("the fit did not report a leaf SVM within 180 s")


def assert_goes_quiet(proc, log, what: str) -> None:
    """The server's CPU use drops to (almost) nothing within a bounded settling time, and stays."""
    start = time.monotonic()
    quiet = False
    while time.monotonic() - start < 90:
        if cpu_rate(proc.pid, 3.0) < 0.05:
            quiet = True
            break
    tail = "\n".join(log.read_text(errors="replace").splitlines()[-40:])
    assert quiet, f"the server kept computing 90 s after {what}\n{tail}"
    assert cpu_rate(proc.pid, 3.0) < 0.05, tail   # nothing picked the work up again
    assert proc.poll() is None
    with urllib.request.urlopen(proc.url + "/_stcore/health", timeout=10) as r:
        assert r.status == 200


def test_closing_the_tab_stops_the_running_fit(own_server, browser, artifacts_dir):
    proc, url, log = own_server
    query = urllib.parse.urlencode({"data": DATA, "td.grid": PAPER_GRID, "td.compare": "0"})
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = ctx.new_page()
    page.goto(f"{url}/Tree_Decomposition?{query}")
    wait_for_running_fit(page)
    page.screenshot(path=str(artifacts_dir / "td_fit_running.png"))
    busy = cpu_rate(proc.pid, 3.0)
    assert busy > 0.2, f"the server should be computing, used {busy:.2f} CPU s/s"
    ctx.close()   # the tab goes away mid-fit
    assert_goes_quiet(proc, log, "the tab closed")


def test_closing_the_tab_during_the_global_svm_comparison_stops_it(own_server, browser):
    """After the TD fit the page searches one global SVM over the same grid, with the leaves'
    solver (SMO): closing the tab stops it too, also in the middle of one solve."""
    proc, url, log = own_server
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = ctx.new_page()
    page.goto(f"{url}/Tree_Decomposition?" + urllib.parse.urlencode({"data": COMPARE_DATA, "td.grid": PAPER_GRID,
                                                                     "td.tab": "2"}))   # its tab
    bar = page.locator('[data-testid="stProgress"]').filter(has_text="global SVM over the same grid")
    bar.first.wait_for(timeout=300_000)
    page.wait_for_timeout(3000)
    busy = cpu_rate(proc.pid, 3.0)
    assert busy > 0.2, f"the server should be computing, used {busy:.2f} CPU s/s"
    ctx.close()
    assert_goes_quiet(proc, log, "the tab closed")


def _summary(page):
    """The lines beside the σ slider saying what the tree holds at that σ (there once a fit is done)."""
    return page.locator('[data-testid="stMarkdownContainer"]').filter(has_text="validation accuracy:")


def _level(page) -> tuple[str, str]:
    """(converged, θ) as the summary beside the σ slider says them."""
    text = _summary(page).first.inner_text()
    return (re.search(r"converged: (yes|no \(\d+\))", text).group(1),
            re.search(r"θ at this σ: (C = \S+, γ = \S+)", text).group(1))


def _pick_grid(page, name_part: str) -> None:
    page.locator('[data-testid="stSidebar"] [data-testid="stSelectbox"]').filter(has_text="θ grid").first.click()
    page.get_by_role("option", name=re.compile(re.escape(name_part))).first.click()


def _grid_shown(page) -> str:
    """The θ grid the sidebar's select box shows (its text or its combobox input's value)."""
    box = page.locator('[data-testid="stSidebar"] [data-testid="stSelectbox"]').filter(has_text="θ grid").first
    return box.evaluate("e => e.innerText + ' ' + Array.from(e.querySelectorAll('input'))"
                        ".map(i => i.value + ' ' + (i.getAttribute('aria-label') || '')).join(' ')")


_FIT_SHOWN_RUNNING = """
() => [...document.querySelectorAll('[data-testid="stProgress"]')].some(e =>
  e.innerText.includes('ceiling-size search') && Number((e.innerText.match(/\\((\\d+)\\/\\d+\\)/) || [0, 0])[1]) >= 1)
"""


def _bar_text(page) -> str:
    """The fit's progress bar's text once it stays the same for 300 ms (the page has drawn every
    message the server sent)."""
    bar = page.locator('[data-testid="stProgress"]').filter(has_text="ceiling-size search").first
    text, still_since = bar.inner_text(), time.monotonic()
    while time.monotonic() - still_since < 0.3:
        page.wait_for_timeout(50)
        now = bar.inner_text()
        if now != text:
            text, still_since = now, time.monotonic()
    return text


def _frames_sent(page) -> list:
    """The page's websocket frames sent to the server, as they pass (from before it opens the app)."""
    sent = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda payload: sent.append(payload)))
    return sent


def click_stop_while_the_fit_runs(page, proc, sent: list) -> tuple[int, int]:
    """Wait (bounded) until the page shows the TD fit's first leaf SVMs, then hold the server still
    (SIGSTOP) while the test reads the bar and clicks Stop, and let it go on (SIGCONT) once the
    page has sent the Stop request: the server reads it before it can finish the fit, however fast
    the machine. (done, total) as the page showed them when Stop was clicked."""
    page.wait_for_function(_FIT_SHOWN_RUNNING, timeout=180_000, polling=20)
    os.kill(proc.pid, signal.SIGSTOP)
    try:
        m = re.search(r"\((\d+)/(\d+)\)", _bar_text(page))
        done, total = int(m.group(1)), int(m.group(2))
        assert 1 <= done and total > 2 * done and total > 500, (done, total)   # far from finished
        before = len(sent)
        page.locator('[data-testid="stStatusWidget"]').get_by_role("button", name=re.compile("Stop")).click()
        deadline = time.monotonic() + 10
        while len(sent) == before and time.monotonic() < deadline:   # the Stop request on its way
            page.wait_for_timeout(20)
        assert len(sent) > before, "the page sent no Stop request"
    finally:
        os.kill(proc.pid, signal.SIGCONT)
    return done, total


def test_stop_ends_the_fit_and_leaves_a_consistent_page(own_server, browser, artifacts_dir):
    proc, url, log = own_server
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = ctx.new_page()
    sent = _frames_sent(page)
    page.goto(f"{url}/Tree_Decomposition?" + urllib.parse.urlencode({"data": DATA, "td.compare": "0"}))
    # the small grid's fit finishes: its results are on the page
    _summary(page).first.wait_for(timeout=240_000)
    wait_for_app(page, 240_000)
    converged, theta_small = _level(page)
    assert converged == "yes"
    assert "small 3" in _grid_shown(page)

    _pick_grid(page, "Chang et al. (2009) 7")                     # new controls: a longer fit starts
    _, total = click_stop_while_the_fit_runs(page, proc, sent)
    page.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidget\"]')",
                           timeout=120_000)
    page.wait_for_timeout(1000)
    page.screenshot(path=str(artifacts_dir / "td_after_stop.png"), full_page=True)
    # a consistent page: the new controls, the stopped bar, and nothing of the fit shown before
    assert "Chang et al. (2009) 7" in _grid_shown(page)
    assert _summary(page).count() == 0
    assert page.locator(".js-plotly-plot").count() == 0
    assert page.locator('[data-testid="stException"]').count() == 0
    stopped = page.locator('[data-testid="stProgress"]').filter(has_text="ceiling-size search")
    assert stopped.count() == 1
    done_at_stop = int(re.search(r"\((\d+)/(\d+)\)", stopped.first.inner_text()).group(1))
    assert done_at_stop < total   # the bar stopped where the fit did, before its end
    assert_goes_quiet(proc, log, "Stop")

    # the next run: the small grid again (its fit is shared from the first run), results match it
    _pick_grid(page, "small 3")
    _summary(page).first.wait_for(timeout=240_000)
    wait_for_app(page, 240_000)
    assert _level(page) == ("yes", theta_small)
    assert page.locator('[data-testid="stProgress"]').count() == 0
    assert page.locator('[data-testid="stException"]').count() == 0
    page.screenshot(path=str(artifacts_dir / "td_next_run_after_stop.png"), full_page=True)
    ctx.close()

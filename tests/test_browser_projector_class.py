"""The projector hosting a live class, in headless Chromium: the instructor starts a class on the SVM
Tree page, switches the same tab to the projector view with the keyboard (P), asks (A) and reveals
(V) there; two students answer from their laptops; a second device on the projector follows the
class in lesson mode. The join code stays on one line, the QR code and the plot do not overlap, the
tally shows only after the reveal. Screenshots at 1280×720 and 1920×1080 go to test-artifacts/."""

from __future__ import annotations

import re

import pytest

from conftest import start_streamlit, stop_streamlit, wait_for_app

pytestmark = pytest.mark.browser

DATA = "gen:checkerboard;n_classes=2;n_per_class=40;overlap=0.1;seed=2"
SIZES = {"small": (1280, 720), "large": (1920, 1080)}
PANEL = ".st-key-svmviz_class"


@pytest.fixture(scope="module")
def class_url():
    """A server of its own (the rooms live in its process) listening on this computer's network
    address when it has one, as a class's server does: the join link then names that address and
    the students' browsers open it; on the loopback where there is none."""
    from svmviz_app.join_address import lan_addresses

    lan = lan_addresses()
    proc, url = start_streamlit(address=lan[0] if lan else "127.0.0.1")
    yield url
    stop_streamlit(proc)


def _one_line(page, selector: str) -> dict:
    """The join code's box: it must hold its text on one line, unclipped."""
    return page.eval_on_selector(selector, """e => {
        const r = e.getBoundingClientRect(), lh = parseFloat(getComputedStyle(e).lineHeight)
              || 1.3 * parseFloat(getComputedStyle(e).fontSize);
        return {height: r.height, lineHeight: lh, fontSize: parseFloat(getComputedStyle(e).fontSize),
                overflow: e.scrollWidth - e.clientWidth, right: r.right, text: e.innerText};
    }""")


def _check_projector(page, width: int, height: int, code: str) -> None:
    """No Streamlit chrome, the class panel at the right with the code on one line and the QR code
    whole, the plot beside it."""
    assert not page.locator('[data-testid="stSidebar"]').first.is_visible()
    panel = page.locator(PANEL).bounding_box()
    assert panel["x"] + panel["width"] <= width + 1 and panel["height"] >= height - 2
    box = _one_line(page, f"{PANEL} .svmviz-join-code")
    assert box["text"] == code and box["height"] < 1.6 * box["lineHeight"] and box["overflow"] <= 0, box
    assert box["fontSize"] >= 36, box   # read from the back of the room
    qr = page.locator(f"{PANEL} img.svmviz-join-qr").bounding_box()
    assert qr["width"] >= 0.35 * panel["width"] and qr["x"] >= panel["x"] and qr["x"] + qr["width"] <= panel["x"] + panel["width"] + 1
    plot = page.locator('[data-testid="stPlotlyChart"]').first.bounding_box()
    assert plot["x"] + plot["width"] <= panel["x"] + 1, (plot, panel)   # side by side, no overlap
    assert plot["y"] + plot["height"] <= height and plot["height"] >= 0.55 * height, plot


def _panel_text(page) -> str:
    return page.locator(PANEL).inner_text()


def _bars(page) -> int:
    return page.locator(f"{PANEL} [data-testid='stProgress']").count()


def _ask_answer_reveal(teacher, students, projector, shots: dict, artifacts_dir) -> None:
    """A question asked on the projector (A), answered by the students, revealed (V); screenshots
    of each screen in ``shots`` (name: page) with the tally hidden, then revealed."""
    wait_for_app(teacher)
    teacher.locator(PANEL).get_by_role("button", name=re.compile("Ask the class")).wait_for()
    teacher.keyboard.press("a")
    for s in students:
        s.wait_for_selector("text=which candidate does the tree choose", timeout=60000)
        wait_for_app(s)
    for s, choice in zip(students, ("a", "b")):
        s.get_by_role("button", name=choice, exact=True).click()
    teacher.wait_for_selector(f"{PANEL} >> text=2 answer(s) so far", timeout=60000)
    # the question open on the projector: not the last one, revealed, whose prompt was the same
    projector.wait_for_function(
        """panel => { const e = document.querySelector(panel); const t = e ? e.innerText : "";
                      return t.includes("which candidate does the tree choose") && !t.includes("Answer: "); }""",
        arg=PANEL, timeout=60000)
    for p in (teacher, projector):
        assert _bars(p) == 0, "the tally shows before the reveal"
        assert not re.search(r": \d+ ✓", _panel_text(p))
    for name, p in shots.items():
        p.screenshot(path=str(artifacts_dir / f"projector_class_{name}_question.png"))
    teacher.keyboard.press("v")
    for p in (teacher, projector):
        p.wait_for_selector(f"{PANEL} [data-testid='stProgress']", timeout=60000)
        p.wait_for_selector(f"{PANEL} >> text=/Answer: /", timeout=60000)
        assert "✓" in _panel_text(p)
    wait_for_app(teacher)
    for name, p in shots.items():
        p.screenshot(path=str(artifacts_dir / f"projector_class_{name}_revealed.png"))


def test_the_projector_hosts_the_class(browser, class_url, artifacts_dir):
    w, h = SIZES["small"]
    ctxs = [browser.new_context(viewport={"width": w, "height": h})]                         # the instructor
    ctxs += [browser.new_context(viewport={"width": 1300, "height": 900}) for _ in range(2)]  # students
    ctxs.append(browser.new_context(viewport={"width": SIZES["large"][0], "height": SIZES["large"][1]}))
    for c in ctxs:
        c.set_default_timeout(150000)   # two cores shared with other work
    teacher, *students, projector = [c.new_page() for c in ctxs]
    try:
        teacher.goto(class_url)
        teacher.wait_for_selector("text=Live class")
        teacher.goto(f"{class_url}/SVM_Tree?data={DATA}")
        wait_for_app(teacher)
        exp = teacher.locator("[data-testid='stSidebar'] [data-testid='stExpander']", has_text="Live class")
        exp.get_by_text("Live class").click()
        exp.locator("button", has_text="Start a class").first.click()
        wait_for_app(teacher)
        link = teacher.locator("[data-testid='stSidebar'] code", has_text="room=").inner_text().strip()
        code = link.split("room=")[1]
        assert link.startswith(f"{class_url}/SVM_Tree?room=")
        # the laptop's sidebar: the code on one line
        box = _one_line(teacher, "[data-testid='stSidebar'] .svmviz-join-code")
        assert box["text"] == code and box["height"] < 1.6 * box["lineHeight"] and box["overflow"] <= 0, box
        teacher.screenshot(path=str(artifacts_dir / "projector_class_laptop_1280x720.png"))
        for s in students:
            s.goto(link, wait_until="commit")
            s.wait_for_selector("text=Following the instructor.")
            wait_for_app(s)
        projector.goto(f"{link}&lesson=1", wait_until="commit")   # a second device on the projector
        projector.wait_for_selector(f"{PANEL} .svmviz-join-code")
        # the same tab becomes the projector view (P), still owning the class
        teacher.evaluate("document.activeElement && document.activeElement.blur()")
        teacher.keyboard.press("p")
        teacher.wait_for_selector(f"{PANEL} .svmviz-join-code")
        wait_for_app(teacher)
        assert "lesson=1" in teacher.url and "token" not in teacher.url
        teacher.wait_for_selector(f"{PANEL} >> text=2 student(s) following")   # the projector takes no seat
        wait_for_app(projector)
        _check_projector(teacher, w, h, code)
        _check_projector(projector, *SIZES["large"], code)
        teacher.screenshot(path=str(artifacts_dir / "projector_class_1280x720_code.png"))
        projector.screenshot(path=str(artifacts_dir / "projector_class_follower_1920x1080_code.png"))
        _ask_answer_reveal(teacher, students, projector,
                           {"1280x720": teacher, "follower_1920x1080": projector, "student": students[0]}, artifacts_dir)
        # the other way round: the instructor's tab at 1920×1080, the following projector at 1280×720
        teacher.set_viewport_size({"width": SIZES["large"][0], "height": SIZES["large"][1]})
        projector.set_viewport_size({"width": w, "height": h})
        teacher.wait_for_timeout(1500)
        _check_projector(teacher, *SIZES["large"], code)
        _check_projector(projector, w, h, code)
        _ask_answer_reveal(teacher, students, projector,
                           {"1920x1080": teacher, "follower_1280x720": projector}, artifacts_dir)
        # back to the laptop's view (P): the class goes on
        teacher.keyboard.press("p")
        teacher.wait_for_selector("[data-testid='stSidebar'] .svmviz-join-code")
        assert "lesson=1" not in teacher.url
    except Exception:
        for i, p in enumerate([teacher, *students, projector]):
            p.screenshot(path=str(artifacts_dir / f"projector_class_failure_{i}.png"))
        raise
    finally:
        for c in ctxs:
            c.close()

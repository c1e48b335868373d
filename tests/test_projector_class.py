"""The projector hosting a live class, without a browser: the instructor's session switches to the
projector view and back keeping its class, the class panel shows the join code, its QR code, Ask
and Reveal, the tally only after the reveal; a device following the class in lesson mode shows
the same without the buttons."""

from __future__ import annotations

import pytest

from apphelpers import page_test, problems, started_class
from svmviz.data.generators import generate
from svmviz_app.rooms import display_code

LIVE = "_svmviz_live"
SPEC = "gen:checkerboard;n_classes=2;n_per_class=40;overlap=0.1;seed=2"


def _store():
    from svmviz_app.live import room_store

    return room_store()


def _texts(at) -> list[str]:
    return [m.value for m in at.markdown]


def _qr_codes(at) -> int:
    return sum("class='svmviz-join-qr'" in m.value for m in at.markdown)


def _bars(at) -> list[str]:
    return [p.proto.text for p in at.get("progress")]


def test_the_instructor_switches_to_the_projector_view_and_back_keeping_the_class():
    at = started_class(page_test("app.py"))
    live = at.session_state[LIVE]
    assert not _qr_codes(at)   # the laptop's view: the code in the sidebar, no QR code
    at.button(key="live_projector").click().run()
    assert not problems(at)
    assert at.query_params["lesson"] == ["1"] or at.query_params["lesson"] == "1"
    assert at.session_state[LIVE] == live                  # the same session: it still holds the room
    assert _qr_codes(at) == 1
    assert any(display_code(live["code"]) in t for t in _texts(at))
    assert [b.key for b in at.button if b.key in ("live_projector", "live_unproject")] == ["live_unproject"]
    _store().publish(live["code"], live["token"], {"page": ""})   # the token still drives the room
    at.button(key="live_unproject").click().run()
    assert not problems(at)
    assert "lesson" not in at.query_params and at.session_state[LIVE] == live
    assert not _qr_codes(at) and any(b.key == "live_projector" for b in at.button)


def _tree(at):
    ds = generate("checkerboard", n_classes=2, n_per_class=40, overlap=0.1, seed=2)
    at.session_state["_svmviz_dataset"], at.session_state["data"] = ds, SPEC
    return at


def _to_the_tree(at) -> None:
    """Run the app, then its SVM Tree page inside the app's navigation."""
    at.run()
    at.switch_page("pages/2_SVM_Tree.py").run()
    assert at.session_state["_svmviz_live_page"] == "SVM_Tree"


def test_the_projector_asks_and_shows_the_tally_only_after_the_reveal(through_the_app):
    store = _store()
    code, token = store.create_room()
    at = _tree(page_test("app.py"))
    at.query_params["lesson"] = "1"
    at.session_state[LIVE] = {"role": "instructor", "code": code, "token": token}
    _to_the_tree(at)
    at.run()   # the panel offers the question the page's step view made at the last run
    assert not problems(at)
    assert not [b for b in at.button if b.key == "live_ask"]   # not above the plot: in the class panel
    at.button(key="live_ask_projector").click().run()
    assert not problems(at)
    q = store.follow(code).question
    assert q is not None and not q.revealed
    store.follow(code, "s1"), store.follow(code, "s2")
    store.answer(code, "s1", q.qid, 0)
    store.answer(code, "s2", q.qid, 1)
    at.run()
    assert "2 answer(s) so far — the tally shows at the reveal" in _texts(at)
    assert not _bars(at) and not [t for t in at.text if t.value.endswith(": 1")]   # no tally before the reveal
    step = at.session_state["tree.step"]
    at.button(key="live_reveal").click().run()
    assert not problems(at)
    assert at.session_state["tree.step"] == step + 1
    bars = _bars(at)   # the options answered and the right one; the others on one line
    answer = store.follow(code).question.answer
    assert bars[:2] == [f"{q.options[0]}: 1" + (" ✓" if answer == 0 else ""), f"{q.options[1]}: 1" + (" ✓" if answer == 1 else "")]
    assert sum(b.endswith("✓") for b in bars) == 1 and len(bars) == (2 if answer in (0, 1) else 3)
    assert any(t.startswith("No answer: ") for t in _texts(at))
    # the tally goes out with the view, for a projector following the class
    assert store.follow(code).view["tally"] == {"code": code, "qid": q.qid,
                                                "counts": [1, 1] + [0] * (len(q.options) - 2)}


def test_a_device_following_in_lesson_mode_shows_the_class_view():
    store = _store()
    code, token = store.create_room()
    store.publish(code, token, {"page": "", "spec": "fourclass_like", "state": {}})
    projector = page_test("app.py")
    projector.query_params["room"] = display_code(code)
    projector.query_params["lesson"] = "1"
    projector.run()
    assert not problems(projector)
    assert projector.session_state[LIVE]["role"] == "student" and "token" not in projector.session_state[LIVE]
    assert _qr_codes(projector) == 1
    assert any(display_code(code) in t for t in _texts(projector))
    assert not [b for b in projector.button if b.key in ("live_ask_projector", "live_reveal")]
    qid = store.pose(code, token, "Which candidate?", ["a", "b", "c"], 2, "c is nearest")
    projector.run()
    assert "**Which candidate?**" in _texts(projector) and "a · b · c" in _texts(projector)
    assert not _bars(projector) and not [b for b in projector.button if b.key.startswith("live_ans_")]
    tally = store.reveal(code, token)
    view = {"page": "", "spec": "fourclass_like", "state": {}}
    # a tally of another room's question of the same number (a class ended, another started) is not shown
    store.publish(code, token, {**view, "tally": {"code": "OTHERROOM", "qid": tally.qid, "counts": [9, 9, 9]}})
    projector.run()
    projector.run()   # the poll takes the view, the panel draws it
    assert not _bars(projector) and "Answer: c" in [s.value for s in projector.success]
    store.publish(code, token, {**view, "tally": {"code": code, "qid": tally.qid, "counts": [3, 1, 5]}})
    projector.run()
    projector.run()
    assert not problems(projector)
    assert _bars(projector) == ["a: 3", "b: 1", "c: 5 ✓"] and qid == tally.qid
